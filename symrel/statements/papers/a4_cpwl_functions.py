"""Paper A, Theorem 4.2: continuous piecewise-linear functions are Transformers."""

from symrel.report import Statement

STATEMENT = Statement(
    key="a4-cpwl-functions",
    paper="A",
    reference="Theorem 4.2",
    title="CPWL functions are realised by Transformers",
    paper_claim="Transformers can represent arbitrary continuous piecewise-linear (CPWL) functions with a given "
    "number of linear regions, through the maxout representation of CPWL functions.",
    symrel_claim="For each instance, a CPWL function f (of one variable given by breakpoints and values, or of d "
    "variables given by its values on a conforming simplicial mesh) and a domain D inside its support: the "
    "lattice form f = max_i min_(j in S_i) l_j (Tarela-Martinez / Ovchinnikov, decided exactly at the mesh's "
    "vertices, then reduced), a maxout net of two layers (three when its maximum is split into groups), "
    "compiled by the symrel construction realising Theorem 3.1 into a hardmax Transformer T, satisfies "
    "T(x) = f(x) for every x in D, proved layer by layer against f itself.",
    narrowing="CPWL functions of one variable given by breakpoints, and of 2, 3 and 4 variables given by their "
    "values on a conforming simplicial mesh (the 4-D one the exact mesh of a ReLU net, whose Transformer is "
    "also proved equal to the net; symrel's cpwl kind and the net-to-mesh conversion take any dimension; the paper treats CPWL "
    "functions on all of R^n, a mesh has bounded support), on bounded domains inside the support, with the "
    "lattice form and the symrel construction (the Wang-Sun form, maxima of at most n + 1 pieces, is built, "
    "checked at every vertex and its size reported beside the lattice form's, but not compiled into the "
    "proved Transformer); the number of linear regions is the number of pieces of f on D.",
)


def run():
    import random

    from symrel.models import CPWL1D, Box
    from symrel.constructions.random import random_cpwl1d
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
        yield check(f"seed {seed}: {n} random breakpoints", f, Box([[f.exact_x[0] - 1, f.exact_x[-1] + 1]]))
    yield tampered_instance("control: read-out bias changed by 1/10^6", tent, Box([[0, 1]]))
    yield from mesh_instances()


def pyramid():
    """The pyramid on [0, 2]^2: 0 on the boundary, 1 at the centre, four triangles."""
    from symrel.models import CPWLMesh

    return CPWLMesh([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]], [[0, 1, 4], [1, 3, 4], [3, 2, 4], [2, 0, 4]],
                    [[0], [0], [0], [0], [1]])


def random_square_mesh(seed: int = 41, interior: int = 30):
    """The exact Delaunay mesh of the corners of [0, 1]^2 and random interior points, random values."""
    import random

    from symrel.exact import Q
    from symrel.constructions import delaunay_mesh

    rng = random.Random(seed)
    pts = [[0, 0], [1, 0], [0, 1], [1, 1]] + [[Q(rng.randint(1, 99), 100), Q(rng.randint(1, 99), 100)]
                                             for _ in range(interior)]
    pts = list({tuple(p): p for p in pts}.values())
    return delaunay_mesh(pts, [[Q(rng.randint(-20, 20), rng.randint(1, 4))] for _ in pts])


def cube_grid(seed: int = 43):
    """The Freudenthal grid on [0, 1]^3 (two steps per axis, 48 tetrahedra), random values."""
    import random

    from symrel.exact import Q
    from symrel.constructions import freudenthal_mesh

    rng = random.Random(seed)
    return freudenthal_mesh([[0, 1]] * 3, [2, 2, 2], lambda x: [Q(rng.randint(-10, 10), rng.randint(1, 3))])


def relu_net_4d():
    """A ReLU net 4-2-1-1 whose units all bend inside [-1, 1]^4."""
    from symrel.models import DenseLayer, ReLUNet

    return ReLUNet(4, [DenseLayer([[1, -1, 0, 2], [0, 1, 2, -1]], [0, "-1/4"]), DenseLayer([[1, -1]], ["1/4"]),
                       DenseLayer([[2]], [0], "none")])


def mesh_instances():
    from symrel.certificates import REFUTED
    from symrel.compiler import compile_model
    from symrel.exact import Q
    from symrel.models import Box, CPWLMesh
    from symrel.constructions import lattice_forms
    from symrel.prover import prove_equivalence
    from symrel.regions import net_to_cpwl_mesh
    from symrel.report import Instance
    from symrel.statements.papers._compiled import compiled_instance

    def check(name, f, box):
        return compiled_instance(name, f, box, facts=mesh_facts(f, lattice_forms))

    square = Box([[0, 2], [0, 2]])
    yield check("2-D: the pyramid on [0, 2]^2 (one min of four planes)", pyramid(), square)
    mesh = random_square_mesh()
    yield check(f"2-D: exact Delaunay mesh of {len(mesh.vertices)} random points on [0, 1]^2 "
                f"({len(mesh.simplices)} triangles)", mesh, Box([[0, 1], [0, 1]]))
    yield check("3-D: Freudenthal grid on [0, 1]^3 (48 tetrahedra), random values", cube_grid(), Box([[0, 1]] * 3))
    net, D4 = relu_net_4d(), Box([[-1, 1]] * 4)
    f4 = net_to_cpwl_mesh(net, D4)
    # the Wang-Sun form is left out here: the pulling triangulation gives a few vertices stars of
    # most simplices, and taking apart a maximum of 60 pieces in 4-D takes seconds per star
    facts4 = mesh_facts(f4, lattice_forms, wang_sun=False)
    facts4["Wang-Sun form"] = ("not computed for this mesh (the vertices its cells are pulled from have stars of "
                               "up to 62 simplices, slow to take apart in 4-D)")
    yield compiled_instance(f"4-D: the exact mesh of a ReLU net 4-2-1-1 on [-1, 1]^4 (its cells triangulated, "
                            f"{len(f4.simplices)} simplices)", f4, D4, facts=facts4)
    T4 = compile_model(f4, D4).transformer
    yield Instance("4-D round trip: the Transformer of that mesh against the ReLU net itself",
                   prove_equivalence(net, T4, D4), facts={"simplices": len(f4.simplices)})
    # control: the Transformer of the random mesh, against the mesh with one vertex value moved by 1/10^6
    D = Box([[0, 1], [0, 1]])
    T = compile_model(mesh, D).transformer
    values = [list(y) for y in mesh.exact_values]
    values[7][0] += Q(1, 10**6)
    moved = CPWLMesh(mesh.exact_vertices, mesh.simplices, values)
    proof = prove_equivalence(moved, T, D)
    facts = {"changed": "value at vertex 7 + 1/10^6"}
    if proof.counterexample is not None:
        x = proof.counterexample
        facts["T(x) - f(x) at the counterexample"] = ", ".join(str(u - v) for u, v in zip(T(x), moved(x)))
    yield Instance("control: 2-D mesh with one vertex value moved by 1/10^6", proof, facts=facts, expect=REFUTED)


def mesh_facts(f, lattice_forms, wang_sun: bool = True) -> dict:
    """The sizes of a mesh function, of its lattice form (Ovchinnikov's and the reduced one)
    and (``wang_sun``) of its Wang-Sun form, each with the Transformer compiled from it."""
    from symrel.compiler.cpwl_form_sizes import cpwl_form_sizes

    lattices = lattice_forms(f)
    (s,) = [lat.sizes() for lat in lattices]
    both = cpwl_form_sizes(f, lattices=lattices, wang_sun=wang_sun)
    lt, ws = both["lattice form"]["transformer"], both["Wang-Sun form"]
    facts = {"simplices": len(f.simplices),
             "lattice terms (Ovchinnikov / reduced)": f"{s['ovchinnikov']['terms']} / {s['terms']}",
             "lattice pieces (Ovchinnikov / reduced)": f"{s['ovchinnikov']['pieces']} / {s['term_pieces']}",
             "distinct affine pieces": s["pieces"],
             "lattice Transformer (tokens / width / blocks)": f"{lt['tokens']} / {lt['width']} / {lt['blocks']}"}
    if "not built" in ws or "not computed" in ws:
        facts["Wang-Sun form"] = ws.get("not built") or ws["not computed"]
    else:
        wt = ws["transformer"]
        facts["Wang-Sun form: maxima / affine pieces (at most n + 1 per maximum)"] = f"{ws['terms']} / {ws['pieces']}"
        facts["Wang-Sun Transformer by its layout (tokens / width / blocks; not built, not proved)"] = f"{wt['tokens']} / {wt['width']} / {wt['blocks']}"
    return facts


def linear_pieces(f) -> int:
    """The number of linear pieces of f: maximal runs of equal consecutive affine pieces."""
    pieces = f.exact_pieces()
    return sum(1 for i, p in enumerate(pieces) if i == 0 or p != pieces[i - 1])


if __name__ == "__main__":
    from symrel.statements import standalone

    raise SystemExit(standalone(__file__))
