"""Certified coldness: the smallest factor c on the attention logits at which softmax still
decodes every input correctly, bracketed within a factor 2^(1/8) (THEORY.md section 8).

Definition. For a factor c > 0 let ``works(c)`` mean: at logits ``c * scale * q.k`` the
softmax enclosure of every input decodes to the RASP output (certified), and
``fails(c)`` mean: for some input the enclosure certainly decodes to something else.
The result is a pair ``lower < upper`` of rationals with ``works(upper)``, ``fails(lower)``
(with its witness input) and ``(upper / lower)^8 <= 2``. Softmax need not be monotone in
c, so this is exactly what is certified: c = upper works, and a point below it within a
factor 2^(1/8) fails.

Search: from c = 1 halve (or, when c = 1 fails, double) until the status changes, within
``2^-limit <= c <= 2^limit``; then bisect geometrically (rational square roots rounded to
40 bits) until the ratio is small enough. Each ``works`` check is a full pass over the
inputs, a ``fails`` check stops at the first failing input, previous witnesses first.
Cost: O(limit + log log) passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import isqrt

from ...exact import Q, Rational, denominator, numerator
from .evaluation import AGREE, DIFFERS, compare_softmax, evaluate_all

LIMIT = 16


@dataclass
class Coldness:
    """``upper`` works on every input; ``lower`` fails on ``witness`` (None when no failure
    was found down to ``2^-limit``); ``status`` 'bracketed', 'below-limit', 'above-limit'
    or 'undecided' (an enclosure neither agreed nor certainly differed)."""

    status: str
    upper: Rational | None = None
    lower: Rational | None = None
    witness: tuple | None = None
    witness_index: int | None = None
    upper_enclosures: list = field(default_factory=list, repr=False)
    witness_enclosure: object = field(default=None, repr=False)
    passes: int = 0
    note: str = ""

    def to_json(self) -> dict:
        from ...exact import format_rational

        out = {"status": self.status, "passes": self.passes}
        for k in ("upper", "lower"):
            if getattr(self, k) is not None:
                out[k] = format_rational(getattr(self, k))
        if self.witness is not None:
            out["witness"] = list(self.witness)
        if self.note:
            out["note"] = self.note
        return out


def geometric_mean(a: Rational, b: Rational, bits: int = 40) -> Rational:
    """A rational close to ``sqrt(a b)`` (a dyadic with ``bits`` fractional bits beyond the scale)."""
    prod = a * b
    shift = 2 * (bits + max(0, -(numerator(prod).bit_length() - denominator(prod).bit_length()) // 2 + 1))
    return Q(isqrt((numerator(prod) << shift) // denominator(prod)), 1 << (shift // 2))


def certified_coldness(model, seqs, expected, *, value_set=(), executor=None, limit: int = LIMIT,
                       start_works=None, start_enclosures=None) -> Coldness:
    """The bracket of the module docstring for ``model`` on ``seqs`` with RASP outputs ``expected``.

    ``start_works`` / ``start_enclosures``: the status and enclosures at c = 1, when known."""
    seqs = list(seqs)
    witnesses: list[int] = []
    passes = 0

    def status_at(c):
        """('works', enclosures) | ('fails', (index, enclosure)) | ('undecided', index)."""
        nonlocal passes
        for i in witnesses:
            enc = evaluate_all(model, [seqs[i]], factor=c, hardmax=False)[0][1]
            if any(st == DIFFERS for _, st in compare_softmax(model, expected[i], enc, value_set)):
                return "fails", (i, enc)
        passes += 1
        encs = [e for _, e in evaluate_all(model, seqs, factor=c, hardmax=False, executor=executor)]
        undecided = None
        for i, enc in enumerate(encs):
            sts = [st for _, st in compare_softmax(model, expected[i], enc, value_set)]
            if DIFFERS in sts:
                witnesses.insert(0, i)
                return "fails", (i, enc)
            if undecided is None and any(st != AGREE for st in sts):
                undecided = i
        if undecided is not None:
            return "undecided", undecided
        return "works", encs

    one = Q(1)
    if start_works is None:
        st, data = status_at(one)
    else:
        st, data = ("works", start_enclosures) if start_works else status_at(one)
    if st == "undecided":
        return Coldness("undecided", passes=passes, note=f"an enclosure at c = 1 is too wide on input {seqs[data]}")
    if st == "works":
        good, good_encs, bad, bad_data = one, data, None, None
        c = one
        for _ in range(limit):
            c = c / 2
            st, data = status_at(c)
            if st == "works":
                good, good_encs = c, data
            elif st == "fails":
                bad, bad_data = c, data
                break
            else:
                return Coldness("undecided", upper=good, upper_enclosures=good_encs, passes=passes,
                                note=f"an enclosure at c = {c} is too wide on input {seqs[data]}")
        if bad is None:
            return Coldness("below-limit", upper=good, upper_enclosures=good_encs, passes=passes,
                            note=f"softmax decodes every input correctly down to c = 2^-{limit}")
    else:
        bad, bad_data = one, data
        good = None
        c = one
        for _ in range(limit):
            c = c * 2
            st, data = status_at(c)
            if st == "works":
                good, good_encs = c, data
                break
            if st == "fails":
                bad, bad_data = c, data
            else:
                return Coldness("undecided", passes=passes, note=f"an enclosure at c = {c} is too wide on input {seqs[data]}")
        if good is None:
            return Coldness("above-limit", lower=bad, witness=seqs[bad_data[0]], witness_index=bad_data[0],
                            witness_enclosure=bad_data[1],
                            passes=passes, note=f"softmax still fails at c = 2^{limit}")
    while (good / bad) ** 8 > 2:
        c = geometric_mean(good, bad)
        st, data = status_at(c)
        if st == "works":
            good, good_encs = c, data
        elif st == "fails":
            bad, bad_data = c, data
        else:
            break  # the bracket found so far stays certified; it is only wider
    i, enc = bad_data
    status = "bracketed" if (good / bad) ** 8 <= 2 else "undecided"
    return Coldness(status, upper=good, lower=bad, witness=seqs[i], witness_index=i, upper_enclosures=good_encs,
                    witness_enclosure=enc, passes=passes,
                    note="" if status == "bracketed" else "an enclosure was too wide to bisect further")
