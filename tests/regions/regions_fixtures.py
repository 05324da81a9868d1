"""Small models shared by the regions tests (imported by name; not a conftest)."""

from symrel.models import (
    Attention,
    AttentionHead,
    Block,
    DenseLayer,
    Embedding,
    Readout,
    ReLUNet,
    Transformer,
)


def lines_net(lines):
    """One ReLU per line ``a x + b y + c``; the sum as output. Its activation regions
    are the cells of the line arrangement."""
    return ReLUNet(2, [DenseLayer([l[:2] for l in lines], [l[2] for l in lines]), DenseLayer([[1] * len(lines)], [0], "none")])


def tent_net(L):
    """The tent map ``T(x) = 2x - 4 ReLU(x - 1/2)`` on [0,1], composed L times."""
    layers = [DenseLayer([[1], [1]], [0, "-1/2"])]
    for _ in range(L - 1):
        layers.append(DenseLayer([[2, -4], [2, -4]], [0, "-1/2"]))
    layers.append(DenseLayer([[2, -4]], [0], "none"))
    return ReLUNet(1, layers)


def small_relu_net(eps=0):
    return ReLUNet(2, [
        DenseLayer([[1, -1], [1, 1], [2, -1]], [0, "-1/2", "1/3"]),
        DenseLayer([[1, -2, 1], [1, 1, 1]], [0, 1]),
        DenseLayer([[1, -1]], [eps], "none"),
    ])


def tie_transformer(value_on_token0=1):
    """Scores ``0, x, -x`` for tokens 0, 1, 2 (query X, key P1 - P2); value P0.
    For x != 0 one of tokens 1, 2 wins and the output is 0; at the tie x = 0 all
    three tie and hardmax averages: ``value_on_token0 / 3``."""
    m, T = 5, 3  # rows: X, P0, P1, P2, O
    offsets = [[0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]]
    emb = Embedding([0], offsets, width=m, tokens=T)
    head = AttentionHead([[1, 0, 0, 0, 0]], [[0, 0, 1, -1, 0]], [[0, value_on_token0, 0, 0, 0]], [[0], [0], [0], [0], [1]], width=m)
    blocks = [Block(Attention([head], "hardmax"), None)]
    return Transformer(1, m, T, emb, blocks, Readout(0, [[0, 0, 0, 0, 1]], width=m, tokens=T))


def jump_transformer(value=3):
    """``1 - tie_transformer(value)``: with ``value=3``, f(x) = 1 for x != 0 and f(0) = 0
    (the three tokens tie at 0 and hardmax averages); with ``value=0``, f = 1 everywhere,
    ties included."""
    m, T = 5, 3
    offsets = [[0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]]
    emb = Embedding([0], offsets, width=m, tokens=T)
    head = AttentionHead([[1, 0, 0, 0, 0]], [[0, 0, 1, -1, 0]], [[0, value, 0, 0, 0]], [[0], [0], [0], [0], [1]], width=m)
    blocks = [Block(Attention([head], "hardmax"), None)]
    return Transformer(1, m, T, emb, blocks, Readout(0, [[0, 0, 0, 0, -1]], [1], width=m, tokens=T))


def half_jump_transformer():
    """On the plane: f = 1 - ReLU(O - y), O = 1 at the tie x = 0 of scores 0, x, -x (hardmax
    averages the value 3 of token 0) and 0 elsewhere. Off the tie f is 1 (y > 0) or 1 + y
    (y < 0); on it f = y for y < 1 (a jump) and 1 for y > 1 (no jump): over
    [-1, 1] x [-1, 2] the two upper cells join through x = 0, y > 1, the two lower ones do
    not, so 4 cells make 3 linear regions."""
    from symrel.models import FeedForward

    m, T = 7, 3
    emb = Embedding([0, 1], [[0, 0, 1, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0]], width=m, tokens=T)
    head = AttentionHead([[1, 0, 0, 0, 0, 0, 0]], [[0, 0, 0, 1, -1, 0, 0]], [[0, 0, 3, 0, 0, 0, 0]],
                         [[0], [0], [0], [0], [0], [1], [0]], width=m)
    ff = FeedForward([[0, -1, 0, 0, 0, 1, 0]], [0], [[0], [0], [0], [0], [0], [0], [1]], [0] * m, width=m)
    return Transformer(2, m, T, emb, [Block(Attention([head], "hardmax"), ff)],
                       Readout(0, [[0, 0, 0, 0, 0, 0, -1]], [1], width=m, tokens=T))
