"""Proof and Step: the result of a proof, and its truth value."""

from symrel.certificates.core import OPEN, PROVED, REFUTED, Proof, Step


def _proof(*statuses, counterexample=None):
    proof = Proof("claim", steps=[Step(f"lemma {i}", "rule", status=s) for i, s in enumerate(statuses)])
    if counterexample is not None:
        proof.refute(counterexample)
    return proof


def test_a_proof_is_truthy_only_when_proved():
    assert bool(_proof(PROVED, PROVED)) is True
    refuted = _proof(PROVED, REFUTED)
    assert refuted.result == REFUTED and bool(refuted) is False
    assert bool(_proof(PROVED, counterexample=[1])) is False
    opened = _proof(PROVED, OPEN)
    assert opened.result == OPEN and not opened
    assert not Proof("no steps")
    taken = "proved" if _proof(PROVED, REFUTED) else "not proved"
    assert taken == "not proved"
