"""Hand-built proofs for the renderer tests: one proved, one open, one refuted (fixtures, imported by the tests)."""

import pytest

from symrel.models import Box
from symrel.certificates import OPEN, PROVED, REFUTED, Proof, Step


def _proved():
    p = Proof("for all x in [-1,1]^2: the read-out of the Transformer equals max(x1, -x2/3)",
              construction="symrel construction realising Theorem 3.1",
              claim_data={"kind": "toy"}, inputs={"domain": Box.cube(2)})
    p.add(Step("the embedding places x and the token-wise shift on every token", "embedding", {"tokens": 3}, PROVED))
    p.add(Step("every gated ReLU argument is <= -1/2 off its piece-token", "relu-fixed-sign",
               {"upper": "-1/2", "bounds": ["-7/3", "-1/2", "-5/6", "-1/2", "-1/2", "-2"]}, PROVED))
    p.add(Step("the hardmax head with value = score returns max(-B, l_1, l_2) = max(x1, -x2/3)", "hardmax-max-head",
               {"B": "4/3"}, PROVED, note="ties between the two pieces are harmless"))
    return p


@pytest.fixture
def proved():
    return _proved()


@pytest.fixture
def refuted():
    p = Proof("for all x in [-2,2]: T(x) = max(x, 0)", construction="symrel construction realising Theorem 3.1")
    p.add(Step("the gated ReLU of piece 1 is off on every other token", "relu-fixed-sign",
               {"upper": "3/2"}, REFUTED, note="its upper bound 3/2 is positive: the gating bound B = 1 is too small"))
    p.refute(["-7/4"], "T(-7/4) = -3/4 but max(-7/4, 0) = 0")
    return p


@pytest.fixture
def open_proof():
    p = Proof("for all x in [0,1]: A(x) = B(x)")
    p.add(Step("block 1 maps embed-state to embed-state", "relu-fixed-sign", {"lower": "-1/8", "upper": "1/8"}, PROVED))
    p.add(Step("block 2: the layers do not correspond", "hardmax-max-head", {}, OPEN,
               note="the heads' values are not their scores"))
    return p
