import pytest

from symrel.errors import InputError
from symrel.exact import rational
from symrel.models import Attention, AttentionHead, Block, Embedding, FeedForward, Readout, Transformer, hardmax


def max_head_transformer(rule="hardmax", scale=None):
    """Three tokens; slot 0 holds x + t/2 on token t (the offsets are the token-wise
    shift), slot 1 is the constant 1; one head with query = constant, key = value =
    slot 0 writes the max over tokens into slot 2 (a no-op feed-forward follows)."""
    emb = Embedding([0], [[0, 1, 0], ["1/2", 1, 0], [1, 1, 0]], width=3, tokens=3)
    ff = FeedForward([[1, 0, 0], [-1, 0, 0]], [0, 0], [[0, 0], [0, 0], [0, 0]], [0, 0, 0])
    head = AttentionHead([[0, 1, 0]], [[1, 0, 0]], [[1, 0, 0]], [[0], [0], [1]])
    att = Attention([head], rule, scale)
    return Transformer(1, 3, 3, emb, [Block(att, ff)], Readout(0, [[0, 0, 1]], width=3, tokens=3))


def test_hardmax_averages_over_ties():
    assert hardmax([rational(2), rational(2), rational(1)]) == [rational("1/2"), rational("1/2"), 0]


def test_max_head_returns_the_maximum_exactly():
    t = max_head_transformer()
    # token 2 holds the largest value x + 1
    assert t(["-3/7"]) == [rational("4/7")]
    states = t.states(["1/2"])
    assert len(states) == 2 and states[0].shape == (3, 3)


def test_softmax_needs_mpmath_path_and_converges():
    t = max_head_transformer("softmax", "10")
    with pytest.raises(InputError, match="hardmax"):
        t([1])
    import mpmath

    with mpmath.workdps(30):
        y = t.evaluate_softmax(["1/3"], dps=30)[0]
        hard = mpmath.mpf(4) / 3
        # max head: 0 <= max - softmax average <= (n-1)/(e lambda) (THEORY.md section 4)
        assert 0 < hard - y <= mpmath.mpf(2) / (mpmath.e * 10)
        y_big = t.evaluate_softmax(["1/3"], dps=30, scale=10**6)[0]
        assert abs(hard - y_big) < mpmath.mpf(10) ** -20


def test_shape_errors_name_the_field():
    with pytest.raises(InputError, match="WK"):
        AttentionHead([[1, 0]], [[1, 0, 0]], [[1, 0]], [[1], [0]])
    with pytest.raises(InputError, match="scale"):
        Attention([AttentionHead([[1]], [[1]], [[1]], [[1]])], "softmax")
