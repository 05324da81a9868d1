"""Paper A, Theorem 4.4: the number of linear regions grows exponentially with depth."""

from symrel.report import Statement

STATEMENT = Statement(
    key="a5-region-growth",
    paper="A",
    reference="Theorem 4.4",
    title="the number of linear regions grows exponentially with depth",
    paper_claim="The maximal number of linear regions N(F) of Transformers of a given architecture grows "
    "exponentially with the depth D: N(F) >= C (T-1)^(q(floor(D/3)-1)) for suitable parameters "
    "(T tokens, q coordinates).",
    symrel_claim="For each (k, L, q): the hardmax Transformer of the symrel sawtooth construction (T = k + 1 "
    "tokens, L layers of a gated feed-forward block and a sawtooth selection head, nearest centre wins; "
    "sawtooth_transformer) equals, on the whole box [0,1]^q including every tie, the explicit function "
    "z(x) = (Z(x_1), ..., Z(x_q)) with Z the zigzag through (j/k^L, j mod 2), written as a ReLU net (in each instance's claim, a is z and b the Transformer); this is "
    "proved by the complete decision procedure (every cell of the tie-aware partition certified by a "
    "witness point or a Farkas vector, the affine maps compared exactly). Z has k^L pieces whose slopes "
    "alternate between k^L and -k^L, so z has exactly k^(qL) linear regions on [0,1]^q (no two neighbouring "
    "cells share a map); symrel's exact region count of the Transformer, reported beside k^(qL) and the "
    "paper's form (T-1)^(q(floor(D/3)-1)) with D = 3L, must agree.",
    narrowing="A lower bound by one explicit family (the symrel construction; the paper's matrices are not "
    "available) for small k, L, q on [0,1]^q, not the maximum over all parameters; the builder uses two "
    "blocks per layer where the paper's count has three, so D = 3L is the depth the formula is evaluated at; "
    "the constant C is reported as exact count / (T-1)^(q(floor(D/3)-1)).",
)


def zigzag_net(k: int, L: int, q: int):
    """The ReLU net ``x -> (Z(x_1), .., Z(x_q))`` with Z the zigzag of ``k^L`` pieces on [0,1]:
    ``Z(u) = N u + sum_j (s_j - s_(j-1)) ReLU(u - j/N)``, slopes ``s_j = (-1)^j N``, ``N = k^L``."""
    from symrel.exact import Q
    from symrel.models import DenseLayer, ReLUNet

    N = k ** L
    W1, b1, W2 = [], [], [[0] * (q * N) for _ in range(q)]
    for i in range(q):
        for j in range(N):  # hidden unit ReLU(x_i - j/N); j = 0 carries the first slope (x_i >= 0)
            W1.append([1 if c == i else 0 for c in range(q)])
            b1.append(-Q(j, N))
            W2[i][i * N + j] = N if j == 0 else 2 * N * (-1) ** j
    return ReLUNet(q, [DenseLayer(W1, b1), DenseLayer(W2, [0] * q, "none")])


def run():
    from symrel.models import Box
    from symrel.prover import prove_equivalence
    from symrel.regions import count_regions, depth_table, sawtooth_transformer
    from symrel.regions.plot import plot_regions
    from symrel.report import Instance
    from symrel.report.figures import figure

    def caption(row):
        return (f"the {row['exact']} linear regions of the sawtooth Transformer, "
                f"k = {row['k']}, L = {row['L']}, q = {row['q']}")

    plotted = {(2, 3, 1), (2, 2, 2)}
    for k, L, q in [(2, 1, 1), (2, 2, 1), (2, 3, 1), (2, 4, 1), (3, 2, 1), (3, 3, 1), (4, 2, 1), (2, 2, 2), (3, 1, 2)]:
        T = sawtooth_transformer(k, L, q)
        box = Box([[0, 1]] * q)
        proof = prove_equivalence(zigzag_net(k, L, q), T, box, complete=True)
        counted = count_regions(T, box)
        row = depth_table([(k, L, q)], count=lambda tf, b: counted)[0]
        if row["exact"] != k ** (q * L):
            raise AssertionError(f"k={k}, L={L}, q={q}: counted {row['exact']} linear regions, expected {k ** (q * L)}")
        yield Instance(f"k = {k}, L = {L}, q = {q}", proof, facts={
            "tokens T": k + 1, "blocks built": row["blocks_built"], "D = 3L": row["D_theory"],
            "linear regions (exact count)": row["exact"], "k^(qL)": row["k^(qL)"],
            "(T-1)^(q(floor(D/3)-1))": row["(T-1)^(q(floor(D/3)-1))"], "implied C": row["implied_C"]},
            figures=figure(lambda path: plot_regions(counted, path, title=caption(row)), caption(row))
            if (k, L, q) in plotted else [])
    from symrel.fileformat import from_json, to_json
    from symrel.mutation.tamper import altered

    moved = from_json(altered(to_json(zigzag_net(2, 2, 1)), "layers[0].b[1]", "1/1000000"))
    yield Instance("control: one breakpoint of the zigzag moved by 1/10^6", prove_equivalence(
        moved, sawtooth_transformer(2, 2, 1), Box([[0, 1]]), complete=True), expect="refuted")


if __name__ == "__main__":
    from symrel.statements import standalone

    raise SystemExit(standalone(__file__))
