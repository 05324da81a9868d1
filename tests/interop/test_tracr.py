"""tracr-compiled models: exact import, exhaustive audit, refutation, causal masks, coldness."""

import copy

import pytest

from symrel.certificates import PROVED, REFUTED
from symrel.exact import Q

pytest.importorskip("tracr")

from symrel.interop.tracr import audit_tracr, from_tracr  # noqa: E402
from symrel.models import all_sequences  # noqa: E402


def _audit(tracr_program, name, **kw):
    program, vocab, n, causal, model = tracr_program(name)
    return audit_tracr(program, vocab, n, model=model, causal=causal, **kw)


@pytest.mark.parametrize("name", ["length", "hist", pytest.param("reverse", marks=pytest.mark.slow), "frac_prevs"])
def test_library_programs_are_proved(tracr_program, name):
    proof = _audit(tracr_program, name, coldness=False)
    assert proof.result == PROVED, proof.obstacle
    assert proof.extra["inputs"] == 3 + 9 + 27 + 81


def test_coldness_is_bracketed(tracr_program):
    proof = _audit(tracr_program, "hist")
    cold = proof.extra["coldness"]
    assert cold.status == "bracketed"
    assert cold.lower < cold.upper <= 1 and (cold.upper / cold.lower) ** 8 <= 2
    assert [s.rule for s in proof.steps][-2:] == ["tracr-softmax-fails", "tracr-coldness-bracket"]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["sort", "dyck"])
def test_heavier_library_programs_are_proved(tracr_program, name):
    assert _audit(tracr_program, name, coldness=False).result == PROVED


@pytest.mark.slow
def test_import_matches_tracr_on_every_input(tracr_program):
    from tracr.rasp import rasp

    program, vocab, n, _, model = tracr_program("reverse")
    m = from_tracr(model)
    assert any("sqrt(key_size" in note for note in m.notes) and m.sizes()["layers"] == 4
    for seq in list(all_sequences(vocab, n))[-30::6]:  # length 4 only: tracr jits once per length
        assert m.decode(list(seq)) == model.apply(["BOS", *seq]).decoded[1:] == rasp.evaluate(program, list(seq))


def test_causal_program_is_audited_causally(tracr_program):
    program, vocab, n, causal, model = tracr_program("frac_prevs")
    assert causal and from_tracr(model).causal
    proof = audit_tracr(program, vocab, n, model=model, causal=True, coldness=False)
    assert proof.result == PROVED
    assert 0 < proof.extra["softmax_error_bound"] < Q(1, 10**6)
    from symrel.errors import InputError

    with pytest.raises(InputError, match="causal"):
        audit_tracr(program, vocab, n, model=model, causal=False)


def test_one_altered_weight_is_refuted_and_tracr_agrees(tracr_program):
    from tracr.rasp import rasp
    import numpy as np

    program, vocab, n, _, model = tracr_program("hist")
    broken = copy.copy(model)
    broken.params = {k: dict(v) for k, v in model.params.items()}
    w = np.array(broken.params["transformer/layer_0/attn/query"]["w"])
    row, col = np.argwhere(w != 0)[0]
    w[row, col] = -w[row, col]  # one weight's sign flipped
    broken.params["transformer/layer_0/attn/query"]["w"] = w
    proof = audit_tracr(program, vocab, n, model=broken)
    assert proof.result == REFUTED
    info = proof.extra["disagreement"]
    seq, p = info["input"], info["position"]
    # confirmed outside the audit: the RASP evaluator, exact evaluation, and tracr's own float model
    assert rasp.evaluate(program, seq)[p] == info["rasp"]
    assert from_tracr(broken).decode(seq)[p] == info["hardmax"] != info["rasp"]
    assert broken.apply(["BOS", *seq]).decoded[1:][p] != rasp.evaluate(program, seq)[p]
    assert proof.counterexample == seq


def test_too_many_inputs_is_open(tracr_program):
    proof = _audit(tracr_program, "hist", max_inputs=100)
    assert proof.result == "open" and "max_inputs" in proof.obstacle


def test_a_tiny_change_of_a_numerical_model_is_refuted(tracr_program):
    """A value weight of frac_prevs times (1 + 2^-10): tracr's float model is off by about 1e-3,
    within the tolerance of a float comparison; the exact audit refutes it."""
    from tracr.rasp import rasp
    import numpy as np

    program, vocab, n, causal, model = tracr_program("frac_prevs")
    broken = copy.copy(model)
    broken.params = {k: dict(v) for k, v in model.params.items()}
    key = next(k for k in model.params if k.endswith("attn/value") and np.any(np.asarray(model.params[k]["w"])))
    w = np.array(broken.params[key]["w"])
    row, col = np.argwhere(w != 0)[0]
    w[row, col] = w[row, col] * np.float32(1 + 2**-10)
    broken.params[key]["w"] = w
    proof = audit_tracr(program, vocab, n, model=broken, causal=True, coldness=False)
    assert proof.result == REFUTED
    info = proof.extra["disagreement"]
    seq, p = info["input"], info["position"]
    exact = from_tracr(broken).decode(seq)[p]
    assert exact != rasp.evaluate(program, seq)[p] and abs(exact - Q(1)) < Q(1, 100)
    assert broken.apply(["BOS", *seq]).decoded[1:][p] != rasp.evaluate(program, seq)[p]


def test_a_process_pool_gives_the_serial_result(tracr_program):
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    program, vocab, n, _, model = tracr_program("hist")
    serial = audit_tracr(program, vocab, n, model=model, coldness=False)
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        parallel = audit_tracr(program, vocab, n, model=model, coldness=False, executor=pool)
    assert [s.to_json() for s in parallel.steps] == [s.to_json() for s in serial.steps]


@pytest.mark.slow
def test_length_at_ten_tokens_is_refuted_as_compiled(tracr_program):
    """tracr's own make_length, unaltered, at max_seq_len 10: the selector-width MLP's
    discretisation (large_number 100) cannot separate 1/10 from 1/11, so length 10 reads 9."""
    from tracr.rasp import rasp

    program, vocab, n, _, model = tracr_program("length10")
    proof = audit_tracr(program, vocab, n, model=model, coldness=False)
    assert proof.result == REFUTED
    info = proof.extra["disagreement"]
    assert info["input"] == [1] * 10 and info["rasp"] == 10 and info["hardmax"] == 9
    assert model.apply(["BOS"] + [1] * 10).decoded[1:] == [9] * 10 != rasp.evaluate(program, [1] * 10)
