"""Paper B: an asymmetric relation is the inner product of two MLPs."""

from symrel.report import Statement

STATEMENT = Statement(
    key="b2-asymmetric-relation",
    paper="B",
    reference="Asymmetric approximation theorem",
    title="an asymmetric relation is the inner product of two different MLPs",
    paper_claim="The inner product <phi(x), psi(y)> of two different multi-layer perceptrons is a universal "
    "approximator of asymmetric relation functions (kernels of reproducing kernel Banach spaces), with a "
    "bound on the number of neurons for a given accuracy.",
    symrel_claim="For each instance, a relation table r(x_i, y_j) between finitely many rational points x_i "
    "and y_j (possibly of different dimensions): an exact rank factorisation R = P Q^T (feature dimension = "
    "rank R), and two ReLU MLPs phi, psi interpolating the rows of P and Q exactly satisfy <phi(x_i), "
    "psi(y_j)> = r(x_i, y_j) for every pair, checked entry by entry with exact evaluation of both nets. A "
    "control must be refuted: the same features against the table with one entry changed by 1/10^6.",
    narrowing="Exact representation on finite sets of rational points instead of uniform approximation of "
    "continuous relations on compact sets; the neuron counts are those of the symrel construction, not the "
    "paper's bound.",
)


def run():
    import random

    from symrel.exact import Q
    from symrel.constructions.random import random_matrix
    from symrel.statements.papers._relations import changed_entry_instance, relation_instance
    from symrel.relations import Relation

    xs = [[Q(i, 4)] for i in range(8)]
    ys = [[Q(j, 3), Q(1 - j, 2)] for j in range(6)]
    yield relation_instance("r(x, y) = x - y1 + 2 x y2: rank 3, x in Q, y in Q^2", Relation(
        xs, [[x[0] - y[0] + 2 * x[0] * y[1] for y in ys] for x in xs], ys), False)
    order = [[Q(i)] for i in range(8)]
    yield relation_instance("the order relation [x <= y] on 8 points (full rank, not symmetric)",
                            Relation(order, [[Q(int(a[0] <= b[0])) for b in order] for a in order]), False)
    rng = random.Random(7)
    P, Qm = random_matrix(rng, 9, 4, 10, 5), random_matrix(rng, 7, 4, 10, 5)
    table = [[sum(a * b for a, b in zip(p, q)) for q in Qm] for p in P]
    yield relation_instance("random rank-4 table, 9 x 7, points in Q^3 and Q^2", Relation(
        random_matrix(rng, 9, 3, 20, 5), table, random_matrix(rng, 7, 2, 20, 5)), False)
    yield relation_instance("random full-rank 6 x 10 table", Relation(
        random_matrix(rng, 6, 2, 20, 5), random_matrix(rng, 6, 10, 10, 7), random_matrix(rng, 10, 2, 20, 5)), False)
    yield relation_instance("the zero relation (one zero feature)", Relation(xs[:3], [[0] * 2] * 3, ys[:2]), False)
    yield changed_entry_instance("control: the order-relation features against a table with one entry changed", Relation(
        order, [[Q(int(a[0] <= b[0])) for b in order] for a in order]), False, 3, 1)


if __name__ == "__main__":
    from symrel.statements import standalone

    raise SystemExit(standalone(__file__))
