"""Sequence Transformers: exact hardmax evaluation, ties, causal masks, softmax enclosures."""

import math
from fractions import Fraction

import pytest
from sympy import QQ

from symrel.errors import InputError
from symrel.exact import Q
from symrel.models import (SequenceAttention, SequenceHead, SequenceLayer, SequenceTransformer, Tie, all_sequences,
                           count_sequences)
from symrel.models.sequence_softmax import enclose
from symrel.checking.exp_bounds import exp_bounds


def _copy_first(causal=False, bias=0):
    """Every position copies the token at BOS+1 (query 1, key = 'is position 1'), read out one-hot."""
    # residual: [a, b, pos1, copied_a, copied_b]
    tok = [[0, 0, 0, 0, 0], [1, 0, 0, 0, 0], [0, 1, 0, 0, 0]]
    pos = [[0, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]
    head = SequenceHead(WQ=[[0, 0, 0, 0, 0]], WK=[[0, 0, 10, 0, 0]], WV=[[1, 0, 0, 0, 0], [0, 1, 0, 0, 0]],
                        WO=[[0, 0], [0, 0], [0, 0], [1, 0], [0, 1]], bQ=[1], width=5)
    att = SequenceAttention([head], bO=[0, 0, 0, bias, 0], scale=1, width=5)
    return SequenceTransformer(tokens=["BOS", "a", "b"], bos="BOS", token_embedding=tok, position_embedding=pos,
                               layers=[SequenceLayer(att, None)], unembedding=[[0, 0, 0, 1, 0], [0, 0, 0, 0, 1]],
                               output="categorical", output_labels=["a", "b"], causal=causal)


def test_hardmax_copies_the_first_token():
    m = _copy_first()
    assert m.decode(["b", "a", "a"]) == ["b", "b", "b"]
    assert m.decode(["a", "b"]) == ["a", "a"]


def test_causal_mask_hides_later_keys():
    # query 0 (BOS) sees only itself under the mask; position 1 sees BOS and itself
    m = _copy_first(causal=True)
    assert m.decode(["b", "a"]) == ["b", "b"]
    Z = m.residuals(["b", "a"])[-1]
    assert Z[0][3:] == [0, 0]  # BOS attended to itself: its value is zero


def test_ties_average_and_do_not_decode():
    m = _copy_first(bias=0)
    # zero key weight: every key ties, values averaged; a tie in the output scores is no decoding
    m.layers[0].attention.heads[0].__init__(WQ=[[0, 0, 0, 0, 0]], WK=[[0, 0, 0, 0, 0]],
                                            WV=[[1, 0, 0, 0, 0], [0, 1, 0, 0, 0]],
                                            WO=[[0, 0], [0, 0], [0, 0], [1, 0], [0, 1]], width=5)
    assert m.scores(["a", "b"])[0] == [Fraction(1, 3), Fraction(1, 3)] and QQ.of_type(m.exact_scores(["a", "b"])[0][0])
    assert isinstance(m.decode(["a", "b"])[0], Tie)


def test_softmax_enclosure_contains_the_real_value():
    m = _copy_first()
    seq = ["b", "a"]
    enc = enclose(m, seq, exp_bounds)
    # real softmax: logits 10 on position 1, 0 on the others (T = 3)
    w = math.exp(10) / (math.exp(10) + 2)
    for p in range(2):
        lo, hi = enc.interval(p, 1)
        assert lo < hi and float(lo) <= w + 1e-12 and float(hi) >= w - 1e-12 and hi - lo < Q(1, 10**15)
        assert enc.decode(p, m.output_labels) == "b"
    # a tiny factor makes attention almost uniform: each token's score is just above a third
    cold = enclose(m, seq, exp_bounds, factor=Q(1, 10**6))
    lo, hi = cold.interval(0, 1)
    assert Q(1, 3) < lo < hi < Q(1, 3) + Q(1, 10**5)


def test_bad_inputs_are_refused():
    m = _copy_first()
    with pytest.raises(InputError, match="input"):
        m.decode(["c"])
    with pytest.raises(InputError, match="1 to 3 tokens"):
        m.decode([])
    with pytest.raises(InputError, match="BOS"):
        m.decode(["BOS"])
    with pytest.raises(InputError, match="output_labels"):
        SequenceTransformer(tokens=["BOS"], bos="BOS", token_embedding=[[1]], position_embedding=[[0], [0]],
                            layers=[], unembedding=[[1]], output="categorical", output_labels=["x", "y"])


def test_all_sequences_counts():
    assert len(list(all_sequences("abc", 3))) == count_sequences(3, 3) == 39


def test_file_round_trip():
    from symrel.fileformat import dumps, loads_object

    m = _copy_first(causal=True)
    m2 = loads_object(dumps(m))
    assert m2 == m and m2.decode(["b", "a"]) == m.decode(["b", "a"])
