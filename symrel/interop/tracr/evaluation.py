"""Evaluating an imported tracr model on many inputs, and comparing with the RASP program.

Three outputs per input position (THEORY.md section 8):

* the RASP program's, from tracr's own evaluator (``rasp.evaluate``);
* the hardmax model's, exact (:meth:`~symrel.models.SequenceTransformer.decode`);
* the softmax model's at logit factor c, as an :class:`~symrel.models.sequence_softmax.Enclosure`.

Comparison. A categorical output agrees when the decoded label equals the RASP value
(``None``, an aggregate that selects nothing, equals nothing the model can output; a
tie of the hardmax scores is no decoding). The softmax enclosure agrees when the RASP
value's score is certainly the largest, and *certainly differs* when another score is
certainly larger. A numerical output ``h`` agrees with the RASP float ``r`` (read
exactly) when ``|h - r| <= 2^-24 |r|``, the unit roundoff of the float32 format tracr
stores its constants in; its softmax enclosure agrees when it lies strictly between the
midpoints from ``r`` to its neighbours among the values the program's output takes
on the audited inputs (nearest-value decoding), and certainly differs when it lies beyond one of them.
"""

from __future__ import annotations

from ...exact import Q, rational
from ...models import Tie
from ...models.sequence_softmax import BITS, enclose

#: relative tolerance of a numerical hardmax output: the float32 unit roundoff
F32_ROUNDOFF = Q(1, 2**24)
AGREE, DIFFERS, UNDECIDED = "agrees", "differs", "undecided"


def exp_enclosure():
    """The exp enclosures the audit uses: the checker's own rational series with remainder
    (:mod:`symrel.checking.exp_bounds`), so the certificate's end points are the checker's."""
    from ...checking.exp_bounds import exp_bounds

    return exp_bounds


def evaluate_chunk(model, seqs, factor=1, hardmax: bool = True, bits: int = BITS):
    """``[(hardmax scores or None, softmax enclosure)]`` for each sequence (a worker's task)."""
    exp_bounds = exp_enclosure()
    out = []
    for seq in seqs:
        seq = list(seq)
        out.append((model.exact_scores(seq) if hardmax else None, enclose(model, seq, exp_bounds, factor=factor, bits=bits)))
    return out


def _chunk_task(model, factor, hardmax, seqs):
    return evaluate_chunk(model, seqs, factor, hardmax)


def evaluate_all(model, seqs, *, factor=1, hardmax: bool = True, executor=None, chunk: int | None = None,
                 progress=None):
    """:func:`evaluate_chunk` over all ``seqs`` in chunks, on ``executor`` when given (any
    ``concurrent.futures`` executor, Dask's included; the model is sent once per Dask
    worker), in the order of ``seqs``: the same list as the serial run."""
    from ...parallel import map_ordered

    seqs = list(seqs)
    if executor is None and progress is None:
        return evaluate_chunk(model, seqs, factor, hardmax)
    size = chunk or max(1, min(500, len(seqs) // 16 or 1))
    parts = [seqs[i:i + size] for i in range(0, len(seqs), size)]
    results = map_ordered(_chunk_task, parts, executor, shared=(model, factor, hardmax), progress=progress)
    return [r for part in results for r in part]


def numeric(value):
    """A RASP numerical value as an exact rational (bools are 0/1; None stays None)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return Q(int(value))
    return rational(value, exact_floats=True)


def midpoints(target, value_set):
    """``(lower, upper)``: the midpoints from ``target`` to its nearest distinct neighbours
    in ``value_set`` (None where there is none)."""
    below = [u for u in value_set if u < target and target - u > F32_ROUNDOFF * abs(target)]
    above = [u for u in value_set if u > target and u - target > F32_ROUNDOFF * abs(target)]
    return ((target + max(below)) / 2 if below else None, (target + min(above)) / 2 if above else None)


def compare_hardmax(model, expected, scores):
    """Per position: ``(decoded hardmax output, agrees?)``."""
    out = []
    for r, s in zip(expected, scores):
        h = model.decode_scores(s)
        if model.output == "numerical":
            rv = numeric(r)
            ok = rv is not None and abs(h - rv) <= F32_ROUNDOFF * abs(rv)
        else:
            ok = r is not None and not isinstance(h, Tie) and _same(h, r)
        out.append((h, ok))
    return out


def compare_softmax(model, expected, enc, value_set=()):
    """Per position: ``(decoded softmax output or None, AGREE / DIFFERS / UNDECIDED)``."""
    out = []
    for p, r in enumerate(expected):
        if model.output == "numerical":
            lo, hi = enc.interval(p, 0)
            rv = numeric(r)
            if rv is None:
                out.append(((lo, hi), DIFFERS))
                continue
            below, above = midpoints(rv, value_set)
            if (below is None or lo > below) and (above is None or hi < above):
                out.append(((lo, hi), AGREE))
            elif (below is not None and hi < below) or (above is not None and lo > above):
                out.append(((lo, hi), DIFFERS))
            else:
                out.append(((lo, hi), UNDECIDED))
            continue
        s = enc.decode(p, model.output_labels)
        idx = [i for i, lab in enumerate(model.output_labels) if r is not None and _same(lab, r)]
        if s is not None and idx and _same(s, r):
            out.append((s, AGREE))
        elif not idx or enc.certainly_not(p, idx[0]):
            out.append((s, DIFFERS))
        else:
            out.append((s, UNDECIDED))
    return out


def softmax_error(model, expected, enc):
    """The largest ``|x - r|`` over the enclosures of a numerical output (None if some r is None)."""
    worst = Q(0)
    for p, r in enumerate(expected):
        rv = numeric(r)
        if rv is None:
            return None
        lo, hi = enc.interval(p, 0)
        worst = max(worst, abs(lo - rv), abs(hi - rv))
    return worst


def _same(a, b) -> bool:
    """Labels equal as tracr compares them, but ``True`` is not ``1`` (so types must match)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return a == b
