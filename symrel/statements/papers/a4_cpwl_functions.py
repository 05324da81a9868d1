"""Paper A, Theorem 4.2: continuous piecewise-linear functions are Transformers."""

from symrel.report import Statement

STATEMENT = Statement(
    key="a4-cpwl-functions",
    paper="A",
    reference="Theorem 4.2",
    title="CPWL functions are realised by Transformers",
    paper_claim="Transformers can represent arbitrary continuous piecewise-linear (CPWL) functions with a given "
    "number of linear regions, through the maxout representation of CPWL functions.",
    symrel_claim="For each instance, a CPWL function f of one variable (breakpoints and values, extended "
    "linearly) and an interval D: the lattice form f = max_i min_(j in S_i) l_j (one S_i per piece, "
    "Tarela-Martinez), a two-layer maxout net, compiled by the symrel construction realising Theorem 3.1 "
    "into a six-block hardmax Transformer T, satisfies T(x) = f(x) for every x in D, proved layer by "
    "layer against f itself.",
    narrowing="Functions of one variable given by breakpoints (the paper treats CPWL functions on R^n), on "
    "bounded intervals, with the lattice form and the symrel construction; the number of linear regions "
    "is the number of pieces of f on D.",
)


def run():
    import random

    from symrel.models import CPWL1D, Box
    from symrel.models.random import random_cpwl1d
    from symrel.statements.papers._compiled import compiled_instance, tampered_instance

    def check(name, f, box):
        return compiled_instance(name, f, box, facts={"linear pieces of f": linear_pieces(f)})

    tent = CPWL1D([0, "1/2", 1], [0, 1, 0])
    yield check("the tent map on [0, 1]", tent, Box([[0, 1]]))
    flat = CPWL1D([-1, 0, 1, 2], [1, 1, 1, 3])
    yield check("a removable breakpoint (equal neighbouring pieces) and a flat part", flat, Box([[-2, 3]]))
    zigzag = CPWL1D([0, 1, 2, 3, 4], [0, 1, 0, 1, 0])
    yield check("a zigzag, extended linearly beyond [0, 4]", zigzag, Box([[-1, 5]]))
    for seed, n in [(31, 5), (32, 8)]:
        f = random_cpwl1d(random.Random(seed), n)
        yield check(f"seed {seed}: {n} random breakpoints", f, Box([[f.x[0] - 1, f.x[-1] + 1]]))
    yield tampered_instance("control: read-out bias changed by 1/10^6", tent, Box([[0, 1]]))


def linear_pieces(f) -> int:
    """The number of linear pieces of f: maximal runs of equal consecutive affine pieces."""
    pieces = f.pieces()
    return sum(1 for i, p in enumerate(pieces) if i == 0 or p != pieces[i - 1])


if __name__ == "__main__":
    from symrel.statements import standalone

    raise SystemExit(standalone(__file__))
