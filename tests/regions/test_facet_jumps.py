"""Linear regions of a model that is discontinuous at ties (docs/theory.md, "What a linear
count counts"): the components of the set where f is locally affine."""

import copy

import pytest

from symrel.certificates.io import certificate_of
from symrel.checking import CertificateError, check_certificate
from symrel.fileformat import canonical_dumps, loads
from symrel.models import Box
from symrel.regions import certify_regions, count_regions, enumerate_cells
from symrel.regions.cell_json import row_values
from symrel.regions.count import facet_candidates
from symrel.regions.facet_jumps import constant_on, vanishes_on
from symrel.exact import Q
from symrel.exact.forms import AffineForm

from .regions_fixtures import half_jump_transformer, jump_transformer, small_relu_net

BOX = Box([[-1, 1]])


def _cert(proof):
    return loads(canonical_dumps(certificate_of(proof)))


def test_the_model_jumps_at_the_tie():
    f = jump_transformer()
    assert [str(f([x])[0]) for x in ("-1/1000", "0", "1/1000")] == ["1", "0", "1"]


def test_a_jump_at_a_tie_separates_two_cells_with_one_map():
    r = count_regions(jump_transformer(), BOX)
    assert (r.activation_cells, r.count) == (2, 2)
    cert = _cert(certify_regions(jump_transformer(), BOX))
    assert cert["claim"]["count"] == 2 and cert["claim"]["definition"] == "locally-affine"
    merge = cert["steps"][1]["certificate"]
    assert merge["merges"] == [] and "jumps" in merge["apart"][0]["hyperplanes"][0]
    assert check_certificate(cert)["result"] == "checked"


def test_a_tie_where_the_model_stays_affine_joins_the_cells():
    r = count_regions(jump_transformer(0), BOX)
    assert (r.activation_cells, r.count) == (2, 1)
    cert = _cert(certify_regions(jump_transformer(0), BOX))
    (merge,) = cert["steps"][1]["certificate"]["merges"]
    assert merge["facet_path"] and set(merge["facet_path"]) == {"="}
    assert check_certificate(cert)["result"] == "checked"


def test_continuous_models_are_counted_as_before_and_their_merges_carry_no_path():
    cert = _cert(certify_regions(small_relu_net(), Box([[-1, 1], [-1, 1]])))
    assert all("facet_path" not in m for m in cert["steps"][1]["certificate"]["merges"])
    old = copy.deepcopy(cert)
    del old["claim"]["definition"]  # a certificate written before the claim said its definition
    assert check_certificate(old)["result"] == "checked"


def _one_region_claim(cert):
    """The false claim 'one linear region' for the jump model: the two cells merged at the tie."""
    bad = copy.deepcopy(cert)
    bad["claim"]["count"] = 1
    cells = enumerate_cells([jump_transformer()], BOX).cells
    assert [c.path for c in cells] == [tuple(b["path"]) for b in bad["steps"][0]["certificate"]["branches"]
                                       if "witness" in b]
    (ri, rj), = facet_candidates(cells[0], cells[1])
    bad["steps"][1]["certificate"] = {"apart": [], "merges": [
        {"cells": [0, 1], "rows": [ri, rj], "point": ["0"], "values": row_values(cells[0].rows + cells[1].rows, [Q(0)])}]}
    return bad


def test_the_old_style_one_region_claim_is_refused():
    cert = _cert(certify_regions(jump_transformer(), BOX))
    bad = _one_region_claim(cert)
    del bad["claim"]["definition"]
    with pytest.raises(CertificateError, match="definition"):
        check_certificate(bad)
    bad["claim"]["definition"] = "locally-affine"
    with pytest.raises(CertificateError, match="facet_path"):
        check_certificate(bad)
    bad["steps"][1]["certificate"]["merges"][0]["facet_path"] = ["="] * 6
    with pytest.raises(CertificateError, match="differs from the cells' map"):
        check_certificate(bad)


def test_a_false_leaf_of_the_jump_tree_is_refused():
    cert = _cert(certify_regions(jump_transformer(0), BOX))
    merge = cert["steps"][1]["certificate"]
    cert["claim"]["count"] = 2
    path = merge["merges"].pop()["facet_path"]
    tree = _cert(certify_regions(jump_transformer(), BOX))["steps"][1]["certificate"]["apart"]
    merge["apart"] = tree
    assert tree[0]["hyperplanes"][0]["jumps"][-1] == {"differs": 0, "path": path}
    with pytest.raises(CertificateError, match="equals the cells' map"):
        check_certificate(cert)


def test_the_forms_on_a_hyperplane():
    h = AffineForm(Q(-1), {0: Q(1)})                 # x = 1
    assert vanishes_on(AffineForm(Q(2), {0: Q(-2)}), h) and not vanishes_on(AffineForm(Q(1), {0: Q(1)}), h)
    assert constant_on(AffineForm(Q(5), {0: Q(3)}), h) and not constant_on(AffineForm(Q(0), {1: Q(1)}), h)


def test_cells_join_through_the_part_of_a_facet_where_the_model_does_not_jump():
    f = half_jump_transformer()
    assert [str(f(p)[0]) for p in (["1/2", "1/2"], [0, "1/2"], [0, "3/2"], [0, "-1/2"])] == ["1", "1/2", "1", "-1/2"]
    D = Box([[-1, 1], [-1, 2]])
    r = count_regions(f, D)
    assert (r.activation_cells, r.count) == (4, 3)
    cert = _cert(certify_regions(f, D))
    merge = cert["steps"][1]["certificate"]
    (joined,) = merge["merges"]
    assert joined["point"][0] == 0 and Q(joined["point"][1]) > 1     # on x = 0, above y = 1
    assert len(merge["apart"]) == 1 and "jumps" in merge["apart"][0]["hyperplanes"][0]
    assert check_certificate(cert)["result"] == "checked"
    moved = copy.deepcopy(cert)
    point = moved["steps"][1]["certificate"]["merges"][0]
    cells = enumerate_cells([f], D).cells
    i, j = point["cells"]
    point["point"] = [0, "1/2"]                                        # where f jumps, values recomputed
    point["values"] = row_values(cells[i].rows + cells[j].rows, [Q(0), Q(1, 2)])
    point["facet_path"] = ["="] * 6 + ["+"] * 3                        # its true tie-aware path
    with pytest.raises(CertificateError, match="differs from the cells' map"):
        check_certificate(moved)
