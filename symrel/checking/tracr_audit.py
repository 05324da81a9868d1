"""Independent checker of tracr-audit certificates (THEORY.md section 8).

The certificate embeds the imported model (a ``sequence-transformer``, with its sha256),
the vocabulary V and length N, and the outputs of the RASP program on every input, as
recorded by the audit (the checker does not run tracr: the claim is that the model
decodes to *these* outputs). It checks, with rational arithmetic only:

1. ``tracr-exhaustive-inputs``: the count is ``sum_n |V|^n`` (the inputs are all
   sequences of length 1..N over V, shorter first, then in V's order);
2. ``tracr-hardmax-outputs``: on every input, the exact hardmax evaluation of the model
   decodes to the recorded output at every position (categorical: the unique largest
   score is the recorded label; numerical: ``|h - r| <= f32_roundoff * |r|``);
3. ``tracr-softmax-enclosures`` (at c = 1, and at the coldness upper point when present):
   every recorded enclosure equals the one the checker computes itself
   (:mod:`symrel.checking.softmax_enclosure`, on its own exp bounds),
   and decodes to the recorded output (categorical: the recorded label's lower end
   beats every other upper end; numerical: inside the midpoints to the neighbours in
   the values the recorded outputs take); a numerical error bound equals the recomputed one;
4. ``tracr-softmax-fails``: the witness's enclosure at the lower point is recomputed and
   some position certainly decodes to something else;
5. ``tracr-coldness-bracket``: ``lower < upper`` are the factors of steps 3 and 4 and
   ``(upper / lower)^8 <= 2``.

Every step must be ``proved``, in this order; any other step is refused.

Cost: the inputs are counted against the outputs the file lists before any sequence is
made (then one at a time), and :func:`work` counts the model's runs from its nonzero
weights before the first: beyond :data:`MAX_WORK` operations the check is refused with
exit 2 (docs/format.md, "Limits of the checker").

>>> _count_sequences(2, 3, 100), _count_sequences(2, 3, 13)
(14, None)
"""

from __future__ import annotations

from itertools import islice

from ..exact import Q
from ..exact.sizes import check_product_bits, fan_in_bits, number_bits, weight
from . import CertificateError, beyond_limit, claim_checker, model_class, read
from .sequences import Tie, all_sequences, label_from_json, label_key
from .softmax_enclosure import BITS, EXP_BITS, EXP_GRID, softmax_enclosure

RULES = ("tracr-exhaustive-inputs", "tracr-hardmax-outputs", "tracr-softmax-enclosures", "tracr-softmax-fails",
         "tracr-coldness-bracket")


def step_order(claim, inputs):
    """c = 1 enclosures, then what ``claim.coldness`` says: the enclosures at its upper point
    (unless 1), the failing witness at its lower point and the bracket."""
    cold = read.record(claim.get("coldness"), "claim.coldness", ("status",), ("upper", "lower"))
    order = ["tracr-exhaustive-inputs", "tracr-hardmax-outputs", "tracr-softmax-enclosures"]
    if "upper" in cold and read.rational(cold["upper"], "claim.coldness.upper") != 1:
        order.append("tracr-softmax-enclosures")
    if "lower" in cold:
        order += ["tracr-softmax-fails", "tracr-coldness-bracket"]
    return order


def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return a == b


def _num(r, where):
    if r is None:
        raise CertificateError("a numerical output of None matches no model output", path=where)
    if isinstance(r, bool):
        return Q(int(r))
    if isinstance(r, float):  # a label {"float": "p/q"}, which is a finite binary float
        return Q(*r.as_integer_ratio())
    return read.rational(r, where)


def _agrees_softmax(model, enc, p, r, value_set, tol) -> bool:
    if model.output == "numerical":
        lo, hi = enc.interval(p, 0)
        below = [u for u in value_set if u < r and r - u > tol * abs(r)]
        above = [u for u in value_set if u > r and u - r > tol * abs(r)]
        return (not below or lo > (r + max(below)) / 2) and (not above or hi < (r + min(above)) / 2)
    idx = [i for i, lab in enumerate(model.output_labels) if _same(lab, r)]
    return bool(idx) and all(enc.lo[p][idx[0]] > h for j, h in enumerate(enc.hi[p]) if j != idx[0])


def _differs_softmax(model, enc, p, r, value_set, tol) -> bool:
    if model.output == "numerical":
        if r is None:
            return True
        lo, hi = enc.interval(p, 0)
        below = [u for u in value_set if u < r and r - u > tol * abs(r)]
        above = [u for u in value_set if u > r and u - r > tol * abs(r)]
        return bool(below and hi < (r + max(below)) / 2) or bool(above and lo > (r + min(above)) / 2)
    idx = [i for i, lab in enumerate(model.output_labels) if r is not None and _same(lab, r)]
    return not idx or any(a > enc.hi[p][idx[0]] for j, a in enumerate(enc.lo[p]) if j != idx[0])


def _same_json(a, b) -> bool:
    """``a == b`` with JSON types kept apart (``true`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    return a == b


def _enclosure(model, seq, factor, where, recorded):
    enc = softmax_enclosure(model, list(seq), factor=factor, bits=BITS)
    if not _same_json(enc.to_json(), recorded):
        raise CertificateError("the recorded enclosure differs from the recomputed one", path=where)
    return enc


#: the most operations a check may take, as :func:`work` counts them before any is done
MAX_WORK = 100_000_000


def _nonzero(M) -> int:
    return sum(1 for row in M for v in row if v)


def work(model, max_len: int, evaluations: int) -> int:
    """The operations of ``evaluations`` runs of ``model`` on sequences of at most ``max_len``
    tokens (and BOS, so ``T = max_len + 1``), from its sizes: per run, per layer and head
    ``T (|WQ| + |WK| + |WV| + |WO|) + T^2 (d_k + d_v)``, per MLP ``T (|W1| + |W2|)``, and
    ``T |unembedding|``, counting nonzero weights. Linear in the size of the model."""
    T = max_len + 1
    run = T * (_nonzero(model.exact_unembedding) + model.width)
    for layer in model.layers:
        if layer.attention is not None:
            for h in layer.attention.heads:
                run += T * sum(_nonzero(M) for M in (h.exact_WQ, h.exact_WK, h.exact_WV, h.exact_WO))
                run += T * T * (len(h.exact_WQ) + len(h.exact_WV) + 1)
        if layer.mlp is not None:
            run += T * (_nonzero(layer.mlp.exact_W1) + _nonzero(layer.mlp.exact_W2))
    return evaluations * run


def run_bits(model, max_len: int) -> int:
    """An upper bound on the bits of any number one hardmax run of ``model`` computes on at most
    ``max_len`` tokens (:mod:`symrel.exact.sizes`): the residual vectors start with the
    embeddings' bits over their common denominator, and every attention sublayer adds those of
    its heads' value and output maps and biases, the average over at most ``T`` winners and the
    sum over the heads; every MLP its two maps; the scores are products of a query and a key.
    Cost: one pass over the model's numbers (a common denominator beyond ``denominator bits`` is
    refused on the way)."""
    T = max_len + 1
    where = "inputs.model.object"
    width = fan_in_bits(model.width + 1)
    s = peak = number_bits([v for M in (model.exact_token_embedding, model.exact_position_embedding)
                            for row in M for v in row], where=where, what="the embeddings' common denominator")
    for k, layer in enumerate(model.layers):
        here = f"{where}.layers[{k}]"
        att = layer.attention
        if att is not None:
            added = number_bits(att.exact_bO, where=here)
            for h in att.heads:
                q = number_bits([v for row in h.exact_WQ for v in row] + list(h.exact_bQ), where=here)
                kk = number_bits([v for row in h.exact_WK for v in row] + list(h.exact_bK), where=here)
                peak = max(peak, 2 * s + q + kk + 2 * width + fan_in_bits(len(h.exact_WQ) + 1))
                added += number_bits([v for row in h.exact_WV for v in row] + list(h.exact_bV), where=here) \
                    + number_bits([v for row in h.exact_WO for v in row], where=here) \
                    + 2 * width + 2 * fan_in_bits(T + 1)
            s += added + fan_in_bits(len(att.heads) + 2) + 1
        if layer.mlp is not None:
            m = layer.mlp
            s += number_bits([v for row in m.exact_W1 for v in row] + list(m.exact_b1), where=here) \
                + number_bits([v for row in m.exact_W2 for v in row] + list(m.exact_b2), where=here) \
                + width + fan_in_bits(len(m.exact_W1) + 1) + 1
        peak = max(peak, s)
    return max(peak, s + number_bits([v for row in model.exact_unembedding for v in row], where=where) + width)


def _count_sequences(vocab_size: int, max_seq_len: int, most: int):
    """``sum_{n=1..N} |V|^n``, or None as soon as the sum exceeds ``most`` (so that a file
    listing few outputs costs few steps, whatever N it states)."""
    total, power = 0, 1
    for _ in range(max_seq_len):
        power *= vocab_size
        total += power
        if total > most:
            return None
    return total


@claim_checker("tracr-audit", rules=RULES, order=step_order)
def check_tracr_audit(cert, inputs):
    claim = cert["claim"]
    model = inputs.get("model")
    if model_class(model) != "sequence-transformer":
        raise CertificateError("expected a sequence-transformer", path="inputs.model")
    if (claim.get("bits"), claim.get("exp_bits"), claim.get("exp_grid")) != (BITS, EXP_BITS, EXP_GRID):
        raise CertificateError(f"expected bits {BITS}, exp_bits {EXP_BITS}, exp_grid {EXP_GRID}", path="claim")
    if claim.get("output") != model.output:
        raise CertificateError("differs from the model's output kind", path="claim.output")
    tol = read.rational(claim["f32_roundoff"], "claim.f32_roundoff")
    if tol != Q(1, 2**24):
        raise CertificateError("expected 1/16777216", path="claim.f32_roundoff")
    vocab = [label_from_json(v, f"claim.vocab[{i}]") for i, v in enumerate(read.array(claim["vocab"], "claim.vocab"))]
    N = read.integer(claim["max_seq_len"], "claim.max_seq_len")
    if not 1 <= N <= model.max_seq_len:
        raise CertificateError(f"expected 1..{model.max_seq_len}", path="claim.max_seq_len")
    if not vocab or sorted(vocab, key=lambda v: (type(v).__name__, v)) != vocab or len(set(map(repr, vocab))) != len(vocab):
        raise CertificateError("expected distinct labels in sorted order", path="claim.vocab")
    tokens = {label_key(t) for t in model.tokens}
    for i, v in enumerate(vocab):
        if label_key(v) not in tokens or label_key(v) == label_key(model.bos):
            raise CertificateError(f"{v!r} is not an input token of the model", path=f"claim.vocab[{i}]")
    steps = cert["steps"]
    for i, s in enumerate(steps):
        if s.get("status") != "proved":
            raise CertificateError(f"status is {s.get('status')!r}, expected 'proved'", path=f"steps[{i}]")
    rules = [s["rule"] for s in steps]
    if rules != step_order(claim, inputs):
        raise CertificateError(f"expected the rules {step_order(claim, inputs)}, got {rules}", path="steps")
    cold = claim["coldness"]
    if cold.get("status") not in ("not computed", "bracketed", "below-limit", "undecided"):
        raise CertificateError("expected a coldness status", path="claim.coldness.status")
    if (cold["status"] == "bracketed") != ("lower" in cold) or (cold["status"] == "not computed") != ("upper" not in cold):
        raise CertificateError("the coldness status and its points do not match", path="claim.coldness")
    # the inputs are counted, and compared with the outputs the file lists, before any is built
    fields = {"tracr-exhaustive-inputs": ("count",), "tracr-hardmax-outputs": ("expected",),
              "tracr-softmax-enclosures": ("enclosures",), "tracr-softmax-fails": ("factor", "input", "enclosure"),
              "tracr-coldness-bracket": ("upper", "lower")}
    for i, step in enumerate(steps):
        optional = ("factor",) + (("error_bound",) if i == 2 and model.output == "numerical" else ()) \
            if step["rule"] == "tracr-softmax-enclosures" else ()
        read.record(step["certificate"], f"steps[{i}].certificate", fields[step["rule"]], optional)
    expected_json = read.array(steps[1]["certificate"]["expected"], "steps[1].certificate.expected")
    count = _count_sequences(len(vocab), N, len(expected_json))
    recorded = read.integer(steps[0]["certificate"].get("count"), "steps[0].certificate.count")
    if count is None or recorded != count:
        shown = f"more than the {len(expected_json)} outputs listed" if count is None else count
        raise CertificateError(f"expected {shown}", path="steps[0].certificate.count")
    if len(expected_json) != count:
        raise CertificateError(f"expected {count} outputs", path="steps[1].certificate.expected")
    # the hardmax run and one softmax run per enclosure step on every input, and the witness
    # ... each of them counted by the size of its numbers, bounded first (symrel.exact.sizes)
    bits = check_product_bits(run_bits(model, N), where="inputs.model.object", what="the numbers of a run of the model")
    ops = work(model, N, count * (1 + rules.count("tracr-softmax-enclosures")) + 1) * weight(bits)
    if ops > MAX_WORK:
        raise beyond_limit("tracr-audit operations", ops, MAX_WORK, "steps[1].certificate.expected")
    seqs = all_sequences(vocab, N)  # a generator: one sequence at a time, count of them
    expected = []
    for k, (seq, row) in enumerate(zip(seqs, expected_json)):
        where = f"steps[1].certificate.expected[{k}]"
        if not isinstance(row, list) or len(row) != len(seq):
            raise CertificateError(f"expected {len(seq)} outputs", path=where)
        row = [label_from_json(v, f"{where}[{p}]") for p, v in enumerate(row)]
        if model.output == "numerical":
            row = [_num(v, f"{where}[{p}]") for p, v in enumerate(row)]
        for p, (r, s) in enumerate(zip(row, model.exact_scores(list(seq)))):
            h = model.decode_scores(s)
            ok = abs(h - r) <= tol * abs(r) if model.output == "numerical" else (
                r is not None and not isinstance(h, Tie) and _same(h, r))
            if not ok:
                raise CertificateError(f"the hardmax model gives {h!r}, not the recorded {r!r}", path=f"{where}[{p}]")
        expected.append(row)
    # numerical outputs decode to the nearest of the values the recorded outputs take
    value_set = sorted({r for row in expected for r in row}) if model.output == "numerical" else []
    factors = {}
    for i in range(2, len(steps)):
        data, rule = steps[i]["certificate"], rules[i]
        factor = read.rational(data.get("factor", 1), f"steps[{i}].certificate.factor")
        if factor <= 0:
            raise CertificateError("expected a positive factor", path=f"steps[{i}].certificate.factor")
        if i == 2 and factor != 1:
            raise CertificateError("expected 1 (the compiled model)", path="steps[2].certificate.factor")
        if rule == "tracr-softmax-enclosures":
            encs = read.array(data["enclosures"], f"steps[{i}].certificate.enclosures", length=count)
            worst = Q(0)
            for k, (seq, rec, row) in enumerate(zip(all_sequences(vocab, N), encs, expected)):
                where = f"steps[{i}].certificate.enclosures[{k}]"
                enc = _enclosure(model, seq, factor, where, rec)
                for p, r in enumerate(row):
                    if not _agrees_softmax(model, enc, p, r, value_set, tol):
                        raise CertificateError(f"position {p} does not decode to the recorded output", path=where)
                    if model.output == "numerical":
                        lo, hi = enc.interval(p, 0)
                        worst = max(worst, abs(lo - r), abs(hi - r))
            if model.output == "numerical" and i == 2:
                if read.rational(data.get("error_bound"), f"steps[{i}].certificate.error_bound") != worst:
                    raise CertificateError(f"expected {worst}", path=f"steps[{i}].certificate.error_bound")
            factors["works"] = factor
            if i > 2 and factor != read.rational(cold["upper"], "claim.coldness.upper"):
                raise CertificateError("expected the claim's upper coldness point", path=f"steps[{i}].certificate.factor")
        elif rule == "tracr-softmax-fails":
            k = read.index(data["input"], count, f"steps[{i}].certificate.input")
            seq = next(islice(all_sequences(vocab, N), k, None))
            enc = _enclosure(model, seq, factor, f"steps[{i}].certificate.enclosure", data["enclosure"])
            if not any(_differs_softmax(model, enc, p, r, value_set, tol) for p, r in enumerate(expected[k])):
                raise CertificateError("the witness's enclosure does not certainly decode otherwise", path=f"steps[{i}]")
            factors["fails"] = factor
            if factor != read.rational(cold["lower"], "claim.coldness.lower"):
                raise CertificateError("expected the claim's lower coldness point", path=f"steps[{i}].certificate.factor")
        else:
            upper = read.rational(data["upper"], f"steps[{i}].certificate.upper")
            lower = read.rational(data["lower"], f"steps[{i}].certificate.lower")
            if upper != factors["works"] or lower != factors["fails"]:
                raise CertificateError("upper and lower must be the factors of the steps before", path=f"steps[{i}]")
            if not (lower < upper and (upper / lower) ** 8 <= 2):
                raise CertificateError("expected lower < upper and (upper/lower)^8 <= 2", path=f"steps[{i}]")


# -- what a checked certificate proves (symrel.checking.claims) ----------------------------
from .claims import claim_statement, number_words  # noqa: E402  (the hook below the checker)
from .read import rational as _rational  # noqa: E402


@claim_statement("tracr-audit", keys=("vocab", "max_seq_len", "output", "bits", "exp_bits", "exp_grid",
                                      "f32_roundoff", "coldness"), inputs=("model",))
def statement(claim, inputs) -> str:
    """On every input up to the length, the compiled model's outputs equal the program's; what
    the coldness record says."""
    import json

    vocab = ", ".join(json.dumps(v) for v in claim["vocab"])
    out = (f"for every input of length 1..{claim['max_seq_len']} over {{{vocab}}}, the compiled model's hardmax "
           f"and softmax outputs equal the RASP program's, at every position")
    cold = claim["coldness"]
    if "upper" in cold:
        out += f"; the softmax model also decodes correctly at coldness factor {number_words(_rational(cold['upper'], 'claim.coldness.upper'))}"
    if "lower" in cold:
        out += f" and certainly fails at coldness factor {number_words(_rational(cold['lower'], 'claim.coldness.lower'))}"
    return out
