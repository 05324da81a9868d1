"""Paper A, Theorem 3.1: a maxout layer is three hardmax Transformer blocks."""

from symrel.report import Statement

STATEMENT = Statement(
    key="a1-maxout-layer",
    paper="A",
    reference="Theorem 3.1",
    title="a maxout layer is realised by three Transformer blocks",
    paper_claim="A Transformer with hardmax attention and L = 3 layers represents a single maxout layer "
    "exactly (and a softmax Transformer approximates it for a large enough scale lambda); the "
    "self-attention layer implements the max, the feed-forward layers the token-wise affine maps, "
    "with a token-wise shift to tell the tokens apart.",
    symrel_claim="For each instance, a one-layer maxout net N (q maxout units of rank k, affine read-out) "
    "and a box D in Q^d: the hardmax Transformer T built by the symrel construction realising "
    "Theorem 3.1 (a gated feed-forward block writes each piece on its own token, a hardmax max head "
    "takes the max, a feed-forward block moves the result; T = k + 1 tokens) satisfies T(x) = N(x) "
    "for every x in D. Proved layer by layer: one lemma per block, each reduced to exact bounds of "
    "affine forms over D. Two controls must be refuted with an exact counterexample: T with one "
    "weight changed by 1/10^6, and T compiled for [-1,1]^2 but checked on [-3,3]^2.",
    narrowing="The paper speaks of all inputs and of its own weight matrices; symrel checks concrete "
    "nets with rational weights, on bounded boxes D only (the gating bound B is computed from D, "
    "and the construction may fail outside D, as the second control shows), with the symrel "
    "construction, whose sizes may differ from the paper's by constants. Softmax is a separate "
    "statement (lambda = O(1/eps)).",
)


def run():
    import random

    from symrel.models import AffineMap, Box, MaxoutLayer, MaxoutNet, MaxoutUnit
    from symrel.constructions.random import random_maxout_net
    from symrel.statements.papers._compiled import compiled_instance, tampered_instance, too_large_domain_instance

    relu = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [0]], [0, 0])])])
    yield compiled_instance("ReLU as a rank-2 maxout unit, max(x, 0) on [-1, 1]", relu, Box.cube(1))

    rank_one = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, "-1/2"]], ["1/3"]), MaxoutUnit([[0, 2]], [-1])])],
                         AffineMap([[1, 1]], [0]))
    yield compiled_instance("rank-1 units (affine, T = 2 tokens) on [-1, 1]^2", rank_one, Box.cube(2))

    ties = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 0], [0, 1]], [0, 0]),
                                      MaxoutUnit([[1, 0], [1, 0], [0, 0]], [0, 0, 0])])],
                     AffineMap([[1, -1]], ["1/2"]))
    yield compiled_instance("ties: max(x1, x2) ties on the diagonal, a unit with a repeated piece", ties,
                            Box.cube(2))

    for seed, d, q, k, box in [
        (1, 2, 3, 3, Box.cube(2)),
        (2, 3, 4, 4, Box([[-1, 2], [0, "1/2"], ["-3", "-1"]])),
        (3, 4, 6, (2, 5), Box.cube(4, "-1/2", "3/2")),
    ]:
        net = random_maxout_net(random.Random(seed), d, [q], rank=k)
        rank = k if isinstance(k, int) else f"{k[0]} to {k[1]}"
        yield compiled_instance(f"random layer, seed {seed}: d = {d}, q = {q} units of rank {rank}", net, box)

    point_box = Box([["1/3", "1/3"], [-1, 1]])
    yield compiled_instance("degenerate box: x1 = 1/3 fixed", random_maxout_net(random.Random(4), 2, [2], rank=3),
                            point_box)

    control = random_maxout_net(random.Random(1), 2, [3], rank=3)
    yield tampered_instance("control: read-out bias changed by 1/10^6", control, Box.cube(2))
    # pieces of size about 1 on [-1, 1]^2 give a gating bound B = 2, too small on [-3, 3]^2
    small = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 0], [0, -1], [0, 0]], [0, 0, "1/2"]),
                                       MaxoutUnit([[1, 1], ["-1/2", 0]], [0, 0])])], AffineMap([[1, -1]], [0]))
    yield too_large_domain_instance("control: compiled for [-1, 1]^2, checked on [-3, 3]^2", small,
                                    Box.cube(2), Box.cube(2, -3, 3))


if __name__ == "__main__":
    from symrel.statements import standalone

    raise SystemExit(standalone(__file__))
