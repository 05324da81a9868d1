"""The softmax-bound checker's own pieces (issue 26): the ReLU pairing of old certificates
in O(k m), the sparse fold, and the work counted before any arithmetic."""

import json
import random
from pathlib import Path

import pytest

from symrel.checking import CheckLimit, check_certificate
from symrel.checking import softmax
from symrel.checking.transformers import FeedForward as _FeedForward
from symrel.exact import Q

GOLDEN = Path(__file__).resolve().parent / "golden" / "valid" / "softmax-bound.json"


def FeedForward(W1, b1, W2, b2):
    """The checker's feed-forward sublayer (lists of rows of rationals)."""
    return _FeedForward([[Q(v) for v in r] for r in W1], [Q(v) for v in b1], [[Q(v) for v in r] for r in W2],
                        [Q(v) for v in b2])


def quadratic_pairs(ff):
    """The pairing rule of docs/format.md as first written: for each unit h in order, the first
    earlier unit g not yet paired whose W1 row, b1 entry and W2 column are -h's."""
    W1, b1 = ff.exact_W1, ff.exact_b1
    W2cols = [list(c) for c in zip(*ff.exact_W2)]
    pairs, paired = [], set()
    for h in range(len(W1)):
        if not any(W1[h]):
            continue
        for g in range(h):
            if g not in paired and [-v for v in W1[g]] == W1[h] and b1[h] == -b1[g] and \
                    [-v for v in W2cols[g]] == W2cols[h]:
                pairs.append([g, h])
                paired |= {g, h}
                break
    return pairs


@pytest.mark.parametrize("seed", range(30))
def test_the_derived_pairing_is_the_first_earlier_negation(seed):
    rng = random.Random(seed)
    units = [(rng.choice([-1, 0, 1]), rng.choice([-1, 1]), rng.choice([0, 1])) for _ in range(rng.randint(1, 12))]
    signs = [rng.choice([-1, 1]) for _ in units]
    W1 = [[s * a, s * b] for (a, b, _), s in zip(units, signs)]
    b1 = [s * c for (_, _, c), s in zip(units, signs)]
    W2 = [[s for s in signs], [s * a for (a, _, _), s in zip(units, signs)]]
    ff = FeedForward(W1, b1, W2, [0, 0])
    assert softmax._derived_pairs(ff) == quadratic_pairs(ff)


def test_the_fold_is_sparse_and_exact():
    ff = FeedForward([[1, 0, 0], [0, 2, 3]], [0, 0], [[1, 0], [0, 0], [0, 1]], [0, 0, 0])
    W1 = softmax._nonzero(ff.exact_W1)
    W2 = softmax._nonzero([list(c) for c in zip(*ff.exact_W2)])
    M = softmax._fold(W1, W2, [0, 1], 3)
    dense = [[M[r].get(c, 0) for c in range(3)] for r in range(3)]
    assert dense == [[2, 0, 0], [0, 1, 0], [0, 2, 4]]  # I + W2[:, 0] W1[0] + W2[:, 1] W1[1]
    assert softmax.fold_products(ff) == 3
    assert softmax._sparse_range(M[2], [Q(-1)] * 3, [Q(1)] * 3, Q(1)) == (-5, 7)
    assert softmax._sparse_absdot(M[2], [Q(1), Q(1), Q(1, 2)]) == 4


def test_a_bound_beyond_the_work_limit_is_refused_before_any_arithmetic(monkeypatch):
    cert = json.loads(GOLDEN.read_text())
    assert check_certificate(cert)["result"] == "checked"
    from symrel.checking.inputs import read_input

    ops, growth = softmax.work(read_input(cert["inputs"]["transformer"]["object"]))
    assert 0 < ops <= softmax.MAX_WORK and 0 < growth <= softmax.MAX_GROWTH_BITS
    monkeypatch.setattr(softmax, "MAX_WORK", ops - 1)
    with pytest.raises(CheckLimit, match=f"limit 'softmax-bound operations': {ops}, more than the {ops - 1}"):
        check_certificate(cert)
    monkeypatch.setattr(softmax, "MAX_WORK", ops)
    monkeypatch.setattr(softmax, "MAX_GROWTH_BITS", growth - 1)
    with pytest.raises(CheckLimit, match="softmax-bound number growth"):
        check_certificate(cert)


def test_a_log_bound_far_above_ln_n_is_refused_before_its_exp():
    cert = json.loads(GOLDEN.read_text())
    cert["steps"][1]["certificate"]["log_upper"]["3"] = str(10 ** 12)
    with pytest.raises(Exception, match="within 2\\^-80") as err:
        check_certificate(cert)
    assert err.value.path == "steps[1].certificate.log_upper.3"
