"""Paper B: a symmetric positive-semidefinite relation is the inner product of one MLP."""

from symrel.report import Statement

STATEMENT = Statement(
    key="b1-symmetric-relation",
    paper="B",
    reference="Symmetric approximation theorem",
    title="a symmetric PSD relation is the inner product of one MLP with itself",
    paper_claim="The inner product <phi(x), phi(y)> of a multi-layer perceptron with itself is a universal "
    "approximator of symmetric positive-definite relation functions (kernels of reproducing kernel Hilbert "
    "spaces), with a bound on the number of neurons for a given accuracy.",
    symrel_claim="For each instance, a symmetric relation table r(x_i, x_j) on finitely many rational points: "
    "the table is positive semidefinite (exact LDL^T, R = L D L^T with D >= 0, zero pivots handled), each "
    "pivot is a sum of at most four rational squares (Lagrange), which gives rational feature rows Phi with "
    "R = Phi Phi^T, and one ReLU MLP phi interpolating the rows exactly satisfies <phi(x_i), phi(x_j)> = "
    "r(x_i, x_j) for every pair, checked entry by entry with exact evaluation of the net. Neurons are "
    "reported beside the table size. A control must be refuted: the same features against the table with "
    "one entry changed by 1/10^6.",
    narrowing="Exact representation on finite sets of rational points instead of uniform approximation of "
    "continuous kernels on compact sets; the neuron counts are those of the symrel construction (exact "
    "interpolation), not the paper's approximation bound.",
)


def run():
    import random

    from symrel.exact import Q
    from symrel.constructions.random import random_matrix
    from symrel.statements.papers._relations import changed_entry_instance, relation_instance
    from symrel.relations import Relation

    def gram(V):
        return [[sum(a * b for a, b in zip(u, v)) for v in V] for u in V]

    def points(n, d, seed):
        rng = random.Random(seed)
        seen = []
        while len(seen) < n:
            p = [Q(rng.randint(-20, 20), rng.randint(1, 5)) for _ in range(d)]
            if p not in seen:
                seen.append(p)
        return seen

    grid = [[Q(i, 9)] for i in range(10)]
    yield relation_instance("the min kernel min(x, y) on 10 points of [0, 1]", Relation(grid, [[min(a[0], b[0]) for b in grid] for a in grid]), True)
    xs = points(12, 2, 1)
    yield relation_instance("full rank: the Gram table of 12 random rational vectors in Q^12",
                            Relation(xs, gram(random_matrix(random.Random(2), 12, 12, 10, 5))), True)
    yield relation_instance("rank-deficient: rank 3 on 10 points (zero pivots)",
                            Relation(points(10, 2, 3), gram(random_matrix(random.Random(4), 10, 3, 10, 5))), True)
    v = [Q(1), Q(0), Q(-2, 3), Q(0), Q(5)]
    yield relation_instance("rank 1 with zero rows: r = v v^T, v has zeros", Relation(points(5, 1, 5), gram([[a] for a in v])), True)
    yield relation_instance("a single point", Relation([[Q(1, 2)]], [[Q(7, 3)]]), True)
    kernel = Relation(grid, [[(1 + a[0] * b[0]) for b in grid] for a in grid])
    yield relation_instance("linear kernel 1 + x y on 10 points, rank 2", kernel, True)
    yield changed_entry_instance("control: the min-kernel features against a table with one entry changed",
                                 Relation(grid, [[min(a[0], b[0]) for b in grid] for a in grid]), True, 2, 5)


if __name__ == "__main__":
    from symrel.statements import standalone

    raise SystemExit(standalone(__file__))
