"""Linear regions of CPWL functions on meshes: one per simplex for generic values, fewer by
exactly the merges of neighbouring simplices sharing a plane."""

import random

import pytest

from symrel.exact import Q
from symrel.models import Box
from symrel.constructions import freudenthal_mesh
from symrel.regions import count_regions


def grid(n, values, d=2):
    return freudenthal_mesh([[0, 1]] * d, [n] * d, values)


@pytest.mark.parametrize("d, n", [(2, 4), (3, 2)])
def test_generic_values_give_one_region_per_simplex(d, n):
    rng = random.Random(d)
    f = grid(n, lambda x: [Q(rng.randint(-999, 999), rng.randint(1, 99))], d)
    r = count_regions(f, Box([[0, 1]] * d))
    assert r.count == r.activation_cells == len(f.simplices)


def test_planar_neighbours_merge():
    rng = random.Random(5)
    plane = lambda x: x[0] - 2 * x[1] + 3            # noqa: E731
    # on [0, 1/2]^2 (the four vertices of one grid cell of a 2 x 2 grid) the values lie on a plane
    f = grid(2, lambda x: [plane(x) if max(x) <= Q(1, 2) else Q(rng.randint(-999, 999), 7)])
    r = count_regions(f, Box([[0, 1], [0, 1]]))
    assert len(f.simplices) == 8 and r.count == 8 - 1
    assert count_regions(grid(3, lambda x: [plane(x)]), Box([[0, 1], [0, 1]])).count == 1


def test_domain_inside_the_support_only():
    from symrel.errors import InputError

    f = grid(2, lambda x: [x[0] * x[1]])
    assert count_regions(f, Box([[0, "1/2"], [0, "1/2"]])).count == 2
    with pytest.raises(InputError, match="not inside the support"):
        count_regions(f, Box([[0, 2], [0, 1]]))


def test_plot_2d(tmp_path):
    pytest.importorskip("matplotlib")
    from symrel.regions.plot import save_regions_plot

    rng = random.Random(2)
    f = grid(3, lambda x: [Q(rng.randint(-9, 9))])
    out = save_regions_plot(count_regions(f, Box([[0, 1], [0, 1]])), tmp_path / "mesh.png")
    assert (tmp_path / "mesh.png").stat().st_size > 0 and out


# -- the mesh read through its lowering: the complete decision procedure ---------------------

def _net_and_mesh(seed=1, hidden=5):
    from symrel.models import DenseLayer, ReLUNet
    from symrel.regions import net_to_cpwl_mesh

    rng = random.Random(seed)
    net = ReLUNet(2, [DenseLayer([[rng.randint(-3, 3) for _ in range(2)] for _ in range(hidden)],
                                 [Q(rng.randint(-3, 3), 4) for _ in range(hidden)], "relu"),
                      DenseLayer([[rng.randint(-3, 3) for _ in range(hidden)]], [0], "none")])
    D = Box([[-1, 1], [-1, 1]])
    return net, net_to_cpwl_mesh(net, D), D


def _moved(f, vertex, delta=Q(1, 10**6)):
    from symrel.models import CPWLMesh

    values = [list(v) for v in f.values]
    values[vertex][0] += delta
    return CPWLMesh(f.vertices, f.simplices, values)


@pytest.mark.parametrize("order", ["mesh first", "net first"])
def test_mesh_against_its_relu_net_is_decided_and_checks(order):
    from symrel.certificates.io import certificate_of
    from symrel.checking import check_certificate
    from symrel.regions import decide_equivalence

    net, f, D = _net_and_mesh()
    a, b = (f, net) if order == "mesh first" else (net, f)
    proof = decide_equivalence(a, b, D)
    assert proof.result == "proved"
    cover = proof.steps[-1].certificate
    assert cover["mode"] == "open" and len(cover["support"]) == 2
    assert check_certificate(certificate_of(proof))["result"] == "checked"


def test_complete_prover_on_mesh_and_net_proves_and_refutes():
    from symrel.certificates.io import certificate_of
    from symrel.checking import check_certificate
    from symrel.prover import prove_equivalence

    net, f, D = _net_and_mesh()
    proof = prove_equivalence(f, net, D, complete=True)
    assert proof.result == "proved" and check_certificate(certificate_of(proof))["result"] == "checked"
    g = _moved(f, 3)
    bad = prove_equivalence(g, net, D, complete=True)
    x = bad.counterexample
    assert bad.result == "refuted" and D.contains(x) and g(x) != net(x)
    assert g(x)[0] - net(x)[0] != 0 and abs(g(x)[0] - net(x)[0]) <= Q(1, 10**6)


def test_mesh_against_hardmax_transformer_in_the_exact_mode():
    from symrel.certificates.io import certificate_of
    from symrel.checking import check_certificate
    from symrel.compiler import compile_model
    from symrel.regions import decide_equivalence

    f = grid(1, lambda x: [x[0] * x[1]])                      # two triangles, two pieces
    D = Box([[0, 1], [0, 1]])
    T = compile_model(f, D).transformer
    proof = decide_equivalence(f, T, D)
    assert proof.result == "proved" and proof.claim_data["mode"] == "exact"
    assert check_certificate(certificate_of(proof))["result"] == "checked"


def test_support_certificate_tampering_is_rejected():
    import copy

    from symrel.certificates.io import certificate_of
    from symrel.checking import CertificateError, check_certificate
    from symrel.mutation.tamper import altered, numbers_in
    from symrel.regions import decide_equivalence

    net, f, D = _net_and_mesh(hidden=3)
    cert = certificate_of(decide_equivalence(f, net, D))
    body = cert["steps"][0]["certificate"]
    for change in ("drop facet", "swap facets", "null", "mesh for net", "drop support"):
        bad = copy.deepcopy(cert)
        sup = bad["steps"][0]["certificate"]["support"]
        if change == "drop facet":
            del sup[0][0]
        elif change == "swap facets":
            sup[0][0], sup[0][1] = sup[0][1], sup[0][0]
        elif change == "null":
            sup[0] = None
        elif change == "mesh for net":
            sup[1] = sup[0]
        else:
            del bad["steps"][0]["certificate"]["support"]
        with pytest.raises(CertificateError):
            check_certificate(bad)
    paths = [p for p, _ in numbers_in(cert) if ".support[" in p]
    assert paths and body["support"][1] is None
    for path in random.Random(0).sample(paths, min(10, len(paths))):
        with pytest.raises(CertificateError):
            check_certificate(altered(cert, path))


def test_domain_outside_the_support_is_refused_by_the_decision():
    from symrel.errors import InputError
    from symrel.regions import decide_equivalence

    net, f, D = _net_and_mesh(hidden=2)
    with pytest.raises(InputError, match="not inside the support"):
        decide_equivalence(f, net, Box([[-1, 2], [-1, 1]]))
