"""The Wang-Sun net of a small mesh proved equal to the mesh function on its domain by the
complete decision procedure, with a certificate that checks; a weight moved by 1/10^6 is
refuted with an exact counterexample."""

import json

from symrel.certificates.io import certificate_of
from symrel.checking import check_certificate
from symrel.exact import Q
from symrel.models import Box
from symrel.constructions import WangSunForm, delaunay_mesh, wang_sun_forms, wang_sun_mismatch, wang_sun_to_maxout
from symrel.prover import prove_equivalence


def _mesh():
    pts = [[0, 0], [1, 0], [0, 1], [1, 1], [Q(1, 3), Q(1, 4)], [Q(3, 4), Q(2, 3)]]
    return delaunay_mesh(pts, [[Q(1)], [Q(0)], [Q(2)], [Q(-1)], [Q(3)], [Q(1, 2)]])


def test_wang_sun_net_is_proved_equal_to_f():
    f = _mesh()
    D = Box([[0, 1], [0, 1]])
    proof = prove_equivalence(f, wang_sun_to_maxout(wang_sun_forms(f), 2), D)
    assert proof.result == "proved", proof.obstacle
    assert check_certificate(json.loads(json.dumps(certificate_of(proof))))["result"] == "checked"


def test_a_moved_weight_is_refuted_with_a_counterexample():
    f = _mesh()
    (form,) = wang_sun_forms(f)

    def moved(t):     # some maxima vanish on all of D (max(0, -lambda) where lambda >= 0): skip those
        w, F = form.exact_terms[t]
        return WangSunForm(0, form.exact_pieces, form.exact_terms[:t] + [(w + Q(1, 10**6), F)] + form.exact_terms[t + 1:])

    broken = next(moved(t) for t in range(len(form.exact_terms)) if wang_sun_mismatch(f, [moved(t)]) is not None)
    net = wang_sun_to_maxout([broken], 2)
    proof = prove_equivalence(f, net, Box([[0, 1], [0, 1]]))
    assert proof.result == "refuted"
    x = proof.counterexample
    assert net(x) != f(x)
