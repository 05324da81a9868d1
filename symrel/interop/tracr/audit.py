"""``audit_tracr``: a tracr-compiled model against its RASP program, on every input.

The claim (THEORY.md section 8): for every sequence of length 1..N over V, at every
position, the RASP program's output equals the compiled model's hardmax output and its
softmax output at the compiled logit scale (certified by an enclosure; comparison rules
in :mod:`symrel.interop.tracr.evaluation`). The input space is finite, so exhaustive
exact evaluation decides it:

* proved: every input agrees; the certificate records the RASP outputs, and the softmax
  enclosures' end points, which ``symrel check-certificate`` recomputes;
* refuted: the first input (shorter first, then in the order of ``vocab``) where some
  output differs, with the three outputs and which differs, confirmed by evaluating the
  RASP program and the imported model again outside the audit (and tracr's own
  ``model.apply`` when tracr compiled the model);
* open: more inputs than ``max_inputs``, or an enclosure too wide to decide.

For a model whose hardmax agrees, the certified coldness
(:mod:`symrel.interop.tracr.coldness`) is computed too. Cost: ``sum_n |V|^n`` exact
evaluations (hardmax and softmax), spread over ``executor``; the coldness search adds
a few softmax passes.
"""

from __future__ import annotations

from ...certificates import OPEN, PROVED, REFUTED, Proof, Step
from ...errors import InputError
from ...exact import Q, format_rational
from ...fileformat.sequence_io import label_to_json
from ...models import Tie, all_sequences, count_sequences
from ...models.sequence_softmax import BITS, EXP_BITS, EXP_GRID, enclose
from .coldness import certified_coldness
from .evaluation import (AGREE, DIFFERS, F32_ROUNDOFF, compare_hardmax, compare_softmax, evaluate_all, exp_enclosure,
                         numeric, softmax_error)
from .importing import from_tracr, require_tracr

CLAIM_KIND = "tracr-audit"


def rasp_outputs(program, seqs):
    """tracr's RASP evaluator on every sequence."""
    from tracr.rasp import rasp

    return [list(rasp.evaluate(program, list(s))) for s in seqs]


def _show(v):
    if isinstance(v, Tie):
        return "tie(" + ", ".join(map(_show, v)) + ")"
    if isinstance(v, tuple) and len(v) == 2 and all(hasattr(x, "denominator") for x in v):
        return f"[{format_rational(v[0])}, {format_rational(v[1])}]"
    if hasattr(v, "denominator") and not isinstance(v, (int, float)):
        return str(format_rational(v))
    return repr(v)


def audit_tracr(program, vocab, max_seq_len: int, *, model=None, compiler_bos: str = "BOS", causal: bool = False,
                executor=None, max_inputs: int = 10**6, coldness: bool = True, progress: bool = False) -> Proof:
    """Audit the tracr compilation of ``program`` on every input (module docstring).

    ``model``: an ``AssembledTransformerModel`` or an imported
    :class:`~symrel.models.SequenceTransformer` (otherwise tracr compiles ``program``).
    ``proof.extra`` holds the input count, the sizes, the disagreement, the coldness.
    ``progress``: print the evaluated inputs on standard error (:mod:`symrel.progress`).
    """
    require_tracr()
    vocab = sorted(set(vocab), key=lambda v: (type(v).__name__, v))
    if not vocab:
        raise InputError("expected a non-empty vocabulary", path="vocab")
    if not isinstance(max_seq_len, int) or max_seq_len < 1:
        raise InputError(f"expected max_seq_len >= 1, got {max_seq_len!r}", path="max_seq_len")
    count = count_sequences(len(vocab), max_seq_len)
    V = "{" + ", ".join(map(repr, vocab)) + "}"
    claim = (f"for every input of length 1..{max_seq_len} over {V}, the compiled model's hardmax and softmax "
             f"outputs equal the RASP program's, at every position")
    if count > max_inputs:  # decided before compiling: nothing is evaluated
        proof = Proof(claim=claim, construction="tracr compilation (exact float32 weights)",
                      claim_data={"kind": CLAIM_KIND, "max_seq_len": max_seq_len}, extra={"inputs": count})
        proof.add(Step(f"all {count} inputs of length 1..{max_seq_len}", "tracr-exhaustive-inputs", {"count": count},
                       OPEN, note=f"{count} inputs exceed max_inputs = {max_inputs}"))
        return proof
    assembled = None
    if model is None:
        from tracr.compiler import compiling

        assembled = compiling.compile_rasp_to_model(program, vocab=set(vocab), max_seq_len=max_seq_len,
                                                    causal=causal, compiler_bos=compiler_bos)
        model = from_tracr(assembled)
    elif not hasattr(model, "decode_scores"):
        assembled, model = model, from_tracr(model)
    if model.causal != causal:
        raise InputError(f"the model is {'causal' if model.causal else 'not causal'}, the audit asked "
                         f"causal={causal}", path="causal")
    if model.max_seq_len < max_seq_len:
        raise InputError(f"the model reads at most {model.max_seq_len} tokens", path="max_seq_len")
    numerical = model.output == "numerical"
    proof = Proof(claim=claim, construction="tracr compilation (exact float32 weights)")
    proof.claim_data = {"kind": CLAIM_KIND, "vocab": [label_to_json(v) for v in vocab], "max_seq_len": max_seq_len,
                        "output": model.output, "bits": BITS, "exp_bits": EXP_BITS, "exp_grid": EXP_GRID,
                        "f32_roundoff": format_rational(F32_ROUNDOFF)}
    proof.inputs = {"model": model}
    proof.extra = {"inputs": count, "sizes": model.sizes(), "notes": list(model.notes), "layers": _layer_sizes(model)}
    seqs = list(all_sequences(vocab, max_seq_len))
    expected = rasp_outputs(program, seqs)
    # numerical softmax outputs decode to the nearest value the program takes on these inputs
    value_set = sorted({numeric(v) for r in expected for v in r if v is not None}) if numerical else []
    if progress:
        from ...progress import Progress

        with Progress("inputs", total=count) as bar:
            results = evaluate_all(model, seqs, executor=executor, progress=lambda k, total, r: bar.update(len(r)))
    else:
        results = evaluate_all(model, seqs, executor=executor)
    proof.add(Step(f"the inputs are the {count} sequences of length 1..{max_seq_len} over {V}",
                   "tracr-exhaustive-inputs", {"count": count}, PROVED))
    undecided = None
    errors = []
    for i, (seq, r, (scores, enc)) in enumerate(zip(seqs, expected, results)):
        hard = compare_hardmax(model, r, scores)
        soft = compare_softmax(model, r, enc, value_set)
        if numerical:
            errors.append(softmax_error(model, r, enc))
        for p, ((h, hok), (s, sst)) in enumerate(zip(hard, soft)):
            if not hok or sst == DIFFERS:
                return _refute(proof, program, model, assembled, seq, p, r, h, hok, s, sst, value_set)
            if sst != AGREE and undecided is None:
                undecided = (seq, p)
    proof.add(Step("the hardmax model's decoded output equals the RASP program's on every input",
                   "tracr-hardmax-outputs", {"expected": [[label_to_json(v) for v in r] for r in expected]}, PROVED))
    cert = {"factor": 1, "enclosures": [enc.to_json() for _, enc in results]}
    if numerical:
        bound = max(errors)
        cert["error_bound"] = format_rational(bound)
        proof.extra["softmax_error_bound"] = bound
    if undecided is not None:
        proof.add(Step("the softmax model (c = 1) decodes to the RASP output on every input",
                       "tracr-softmax-enclosures", cert, OPEN,
                       note=f"the enclosure at input {list(undecided[0])}, position {undecided[1]} is too wide to decode"))
        return proof
    proof.add(Step("the softmax model (c = 1) decodes to the RASP output on every input", "tracr-softmax-enclosures",
                   cert, PROVED))
    if coldness:
        cold = certified_coldness(model, seqs, expected, value_set=value_set, executor=executor,
                                  start_works=True, start_enclosures=[enc for _, enc in results])
        proof.extra["coldness"] = cold
        _coldness_steps(proof, cold)
    proof.claim_data["coldness"] = _coldness_claim(proof.extra.get("coldness"))
    return proof


def _coldness_claim(cold) -> dict:
    """What the certificate claims of the coldness (the checker requires the matching steps)."""
    if cold is None:
        return {"status": "not computed"}
    out = {"status": cold.status}
    if cold.upper is not None:
        out["upper"] = format_rational(cold.upper)
    if cold.status == "bracketed":
        out["lower"] = format_rational(cold.lower)
    return out


def _coldness_steps(proof, cold):
    if cold.upper is not None and cold.upper != 1:
        proof.add(Step(f"the softmax model at c = {format_rational(cold.upper)} decodes to the RASP output on every "
                       "input", "tracr-softmax-enclosures",
                       {"factor": format_rational(cold.upper), "enclosures": [e.to_json() for e in cold.upper_enclosures]},
                       PROVED))
    if cold.status == "bracketed":
        proof.add(Step(f"the softmax model at c = {format_rational(cold.lower)} decodes input {list(cold.witness)} "
                       "to another output", "tracr-softmax-fails",
                       {"factor": format_rational(cold.lower), "input": cold.witness_index,
                        "enclosure": cold.witness_enclosure.to_json()}, PROVED))
        proof.add(Step("the coldness lies in (lower, upper] with (upper/lower)^8 <= 2", "tracr-coldness-bracket",
                       {"upper": format_rational(cold.upper), "lower": format_rational(cold.lower)}, PROVED))


def _refute(proof, program, model, assembled, seq, p, r, h, hok, s, sst, value_set):
    """Record the disagreement after confirming it outside the audit."""
    from tracr.rasp import rasp

    seq = list(seq)
    r2 = list(rasp.evaluate(program, seq))
    scores = model.exact_scores(seq)
    h2 = compare_hardmax(model, r2, scores)[p]
    enc = enclose(model, seq, exp_enclosure())
    s2 = compare_softmax(model, r2, enc, value_set)[p]
    if r2[p] != r[p] or (not hok and h2[1]):
        raise AssertionError("the disagreement did not reproduce outside the audit")
    if hok and s2[1] != DIFFERS:
        raise AssertionError("the softmax disagreement did not reproduce outside the audit")
    which = "hardmax" if not hok else "softmax"
    if not hok and sst == DIFFERS:
        which = "hardmax and softmax"
    tracr_out = None
    if assembled is not None:
        tracr_out = assembled.apply([model.bos, *seq]).decoded[1:]
    info = {"input": seq, "position": p, "rasp": r[p], "hardmax": h, "softmax": s, "differs": which,
            "rasp_outputs": r2, "hardmax_outputs": [model.decode_scores(x) for x in scores], "tracr_apply": tracr_out}
    proof.extra["disagreement"] = info
    verb = "outputs differ" if " and " in which else "output differs"
    note = (f"at position {p}: RASP gives {_show(r[p])}, hardmax {_show(h)}, softmax {_show(s)}; the {which} "
            f"{verb} (confirmed by rasp.evaluate and exact evaluation of the imported model")
    note += f"; tracr's model.apply gives {tracr_out})" if tracr_out is not None else ")"
    rule = "tracr-hardmax-outputs" if not hok else "tracr-softmax-enclosures"
    proof.add(Step("the compiled model's outputs equal the RASP program's on every input", rule,
                   {"expected": [[label_to_json(v) for v in r2]], "input": [label_to_json(t) for t in seq]},
                   REFUTED, note=note))
    proof.refute(seq, note)
    return proof


def _layer_sizes(model):
    out = []
    for i, layer in enumerate(model.layers):
        if layer.attention is not None:
            out.append({"layer": i, "sublayer": "attention", "heads": len(layer.attention.heads),
                        "key_size": len(layer.attention.heads[0].exact_WQ)})
        if layer.mlp is not None:
            out.append({"layer": i, "sublayer": "mlp", "hidden": len(layer.mlp.exact_W1)})
    return out
