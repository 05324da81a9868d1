"""The vnnlib-unsat checker (symrel.checking.vnnlib): honest certificates accepted, tampered ones refused."""

import copy
import json

import pytest

from symrel.checking import CertificateError, CheckLimit, MalformedCertificate, check_certificate
from symrel.exact import rational as q
from symrel.models import DenseLayer, ReLUNet
from symrel.vnnlib import LinearAtom, VnnProperty
from symrel.vnnlib.engine import decide


def atom(x, y, rhs):
    return LinearAtom(tuple(q(v) for v in x), tuple(q(v) for v in y), q(rhs))


# |x0| + |x1| - 1 on [-1, 3] x [-1, 1], with a middle affine layer and a final ReLU in the second net
NET = ReLUNet(2, [DenseLayer([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 0, 0]), DenseLayer([[1, 1, 1, 1]], [-1], "none")])
NET2 = ReLUNet(2, [DenseLayer([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 0, 0], "none"),
                   DenseLayer([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0]], [0, 0, "1/3"]),
                   DenseLayer([[1, -1, "1/2"]], ["-1/7"])])
REGION = ((atom([1, 0], [0], 3), atom([-1, 0], [0], 1), atom([0, 1], [0], 1), atom([0, -1], [0], 1)),)


def certificate(net=NET, unsafe=((atom([0, 0], [1], "-1001/1000"),), (atom([0, 0], [-1], "-31/10"),)), region=REGION,
                slopes=True):
    """The engine's certificate; ``slopes=False``: with the rule's lower slopes only (the
    network LP's betas kept), as the engine wrote them before the LP chose slopes. The LP's
    slopes close these small nets at the root, and most tests below need a tree."""
    from symrel.vnnlib import gaps  # where the engine asks the network LP for its multipliers

    with pytest.MonkeyPatch.context() as patch:
        if not slopes and gaps.network_multipliers is not None:  # None: without numpy
            real = gaps.network_multipliers

            def betas_only(*args):
                got = real(*args)
                return None if got is None else (got[0], {})

            patch.setattr(gaps, "network_multipliers", betas_only)
        v = decide(net, VnnProperty(2, 1, region, unsafe, "0" * 64, "inline"), timeout=120)
    assert v.status == "unsat", v.status
    return json.loads(json.dumps(v.certificate))


@pytest.fixture(scope="module")
def cert():
    return certificate(slopes=False)


def refused(cert, edit, words, error=CertificateError):
    bad = copy.deepcopy(cert)
    edit(bad)
    with pytest.raises(error) as err:
        check_certificate(bad)
    assert words in str(err.value), str(err.value)


def test_honest_certificates_are_accepted(cert):
    assert check_certificate(cert)["result"] == "checked"
    assert check_certificate(certificate(NET2, ((atom([0, 0], [-1], "-3"),),)))["result"] == "checked"


def test_a_polytope_region_and_an_empty_disjunct():
    extra = REGION[0] + (atom([1, 1], [0], "1/2"),)                      # x0 + x1 <= 1/2 beyond the box
    empty = (atom([1, 0], [0], -1), atom([-1, 0], [0], -1), atom([0, 1], [0], 1), atom([0, -1], [0], 1))  # x0 in [1, -1]
    c = certificate(unsafe=((atom([0, 0], [-1], "-5/2"),),), region=(extra, empty))
    assert check_certificate(c)["steps"] == 2 and c["steps"][1]["certificate"]["tree"] == [{"empty": 0}]


def tree(c):
    return c["steps"][0]["certificate"]["tree"]


def test_a_flipped_leaf_bound_is_refused(cert):
    leaf = next(e for e in tree(cert) if "leaf" in e)
    i = tree(cert).index(leaf)
    refused(cert, lambda c: tree(c)[i]["leaf"]["closes"][0].update(bound="100"), "the bound recomputed is")


def test_a_dropped_leaf_is_refused(cert):
    refused(cert, lambda c: tree(c).pop(), "still to cover")


def test_an_extra_leaf_is_refused(cert):
    refused(cert, lambda c: tree(c).append(copy.deepcopy(tree(c)[-1])), "unexpected entries")


def test_a_split_that_does_not_partition_is_refused(cert):
    refused(cert, lambda c: tree(c)[0].update(at="-2"), "do not partition")


def test_a_changed_property_is_refused(cert):
    refused(cert, lambda c: c["claim"]["property"]["unsafe"][0][0].update(rhs="0"), "not above the right-hand side")
    refused(cert, lambda c: c["claim"]["property"]["input_region"][0][0].update(rhs="4"), "is not the box")


def test_property_numbers_of_another_json_type_are_refused_after_their_value_was_read(cert):
    # the atoms' numbers are read once per JSON type and value: a bool, a float or a list
    # beside the ints 1 and 0 is still read, and refused, where it stands
    box = lambda c: c["claim"]["property"]["input_region"][0]
    for bad in (True, False, 1.0, [1], "1.0.0"):
        refused(cert, lambda c: box(c)[1]["x"].__setitem__(1, bad), "claim.property.input_region[0][1].x[1]",
                MalformedCertificate)


def test_a_wrong_network_hash_is_refused(cert):
    refused(cert, lambda c: c["claim"].update(network_sha256="0" * 64), "is not the sha256")


def test_phases_and_relaxations_are_checked(cert):
    i = next(k for k, e in enumerate(tree(cert)) if "leaf" in e and "u" in e["leaf"]["phases"][0])
    refused(cert, lambda c: tree(c)[i]["leaf"]["phases"].__setitem__(0, "aaaa"), "not active")
    refused(cert, lambda c: tree(c)[i]["leaf"]["relaxations"][0].__setitem__(0, "2"), "0 <= alpha <= 1")
    refused(cert, lambda c: tree(c)[i]["leaf"]["relaxations"].pop(), "relaxation")


def test_malformed_fields_exit_2(cert):
    refused(cert, lambda c: tree(c)[0].update(at=0.5), "exact rational", MalformedCertificate)
    refused(cert, lambda c: tree(c)[0].update(extra=1), "expected no key", MalformedCertificate)
    refused(cert, lambda c: tree(c)[0].update(split="0"), "index", MalformedCertificate)


# relu(x0 - x1) - relu(x0 - x1) = 0 >= 1e-9 never: the relaxation's bound never closes on the
# diagonal, however small the box; two ReLU splits and a beta close it
TWIN = ReLUNet(2, [DenseLayer([[1, -1], [1, -1]], [0, 0]), DenseLayer([[1, -1]], [0], "none")])
SQUARE = ((atom([1, 0], [0], 1), atom([-1, 0], [0], 1), atom([0, 1], [0], 1), atom([0, -1], [0], 1)),)


@pytest.fixture(scope="module")
def twin():
    # ReLU splits need the float bounds (numpy); without them the engine splits inputs only,
    # which never settles this threshold (it grew to 24 GB in the core-only CI stage)
    pytest.importorskip("numpy")
    return certificate(TWIN, ((atom([0, 0], [-1], "-1/1000000000"),),), SQUARE, slopes=False)


def test_relu_splits_and_betas_are_replayed(twin):
    assert check_certificate(twin)["result"] == "checked"
    entries = tree(twin)
    assert any("relu" in e for e in entries)
    assert any("beta" in c for e in entries if "leaf" in e for c in e["leaf"]["closes"])


def _beta_leaf(c):
    return next(k for k, e in enumerate(tree(c)) if "leaf" in e and "beta" in e["leaf"]["closes"][0])


def test_tampered_relu_splits_and_betas_are_refused(twin):
    r = next(k for k, e in enumerate(tree(twin)) if "relu" in e)
    b = _beta_leaf(twin)
    refused(twin, lambda c: tree(c)[r + 1].update(relu=tree(c)[r]["relu"]), "split twice")
    refused(twin, lambda c: tree(c)[r].update(relu=[0, 7]), "index", MalformedCertificate)
    refused(twin, lambda c: tree(c)[r].update(relu=[0, 1, 0]), "a list of 2 entries", MalformedCertificate)
    refused(twin, lambda c: tree(c)[b]["leaf"]["closes"][0]["beta"].__setitem__(1, "-1"), "beta >= 0")
    refused(twin, lambda c: tree(c)[b]["leaf"]["closes"][0]["beta"].pop(), "a list of 2 entries", MalformedCertificate)
    refused(twin, lambda c: tree(c)[b]["leaf"]["closes"][0].pop("beta"), "the bound recomputed is")
    refused(twin, lambda c: tree(c)[b]["leaf"]["closes"][0]["beta"].__setitem__(1, "1/2"), "the bound recomputed is")
    # the part z <= 0 of a split neuron may not claim it active
    i = next(k for k, e in enumerate(tree(twin)) if "leaf" in e and e["leaf"]["phases"] == ["ii"])
    refused(twin, lambda c: tree(c)[i]["leaf"]["phases"].__setitem__(0, "ia"), "not active")
    # the engine writes a split neuron's side z >= 0 as active; docs/format.md also admits u with
    # [alpha, 1, 0] (alpha by the forward bounds, here [-2, 2]), which keeps its relaxation's check
    # (s w + t >= w at w = uz)
    assert tree(twin)[b]["leaf"]["phases"] == ["ia"] and tree(twin)[b]["leaf"]["relaxations"] == []

    def as_u(c, s):
        tree(c)[b]["leaf"].update(phases=["iu"], relaxations=[["1", s, "0"]])

    relaxed = copy.deepcopy(twin)
    as_u(relaxed, "1")
    assert check_certificate(relaxed)["result"] == "checked"
    refused(twin, lambda c: as_u(c, "1/2"), "below max(0, w)")


def test_a_beta_without_a_relu_split_is_refused(cert):
    leaf = next(k for k, e in enumerate(tree(cert)) if "leaf" in e)
    refused(cert, lambda c: tree(c)[leaf]["leaf"]["closes"][0].update(beta=["1"]), "expected no beta")


def test_a_relaxation_no_bound_uses_is_still_fixed_by_the_bounds():
    """An unstable neuron's [alpha, s, t] is determined by its bounds (docs/format.md): an alpha
    or an intercept that no closing bound of the leaf uses, changed to another valid value,
    is refused all the same (the tamper campaign found such changes accepted before)."""
    from symrel.checking.vnnlib import relaxation
    from symrel.statements.campaign import _vnnlib_unsat_certificate

    c = json.loads(json.dumps(_vnnlib_unsat_certificate()))
    assert check_certificate(c)["result"] == "checked"
    assert [str(v) for v in relaxation(q(-1), q(3))] == ["1", "3/4", "3/4"]
    i = next(k for k, e in enumerate(tree(c)) if "leaf" in e and e["leaf"]["relaxations"])
    for j in range(len(tree(c)[i]["leaf"]["relaxations"])):
        alpha = tree(c)[i]["leaf"]["relaxations"][j][0]
        refused(c, lambda b: tree(b)[i]["leaf"]["relaxations"][j].__setitem__(0, "0" if q(alpha) else "1"),
                "expected the relaxation")
        refused(c, lambda b: tree(b)[i]["leaf"]["relaxations"][j].__setitem__(
            2, str(q(tree(b)[i]["leaf"]["relaxations"][j][2]) + 1)), "expected the relaxation")


def test_an_empty_unsafe_condition_or_region_is_reported_vacuous(cert):
    """No output meets an empty disjunction, and no input an empty region: such a claim holds
    of any network and is reported as vacuous, never as a plain "checked"."""
    c = copy.deepcopy(cert)
    c["claim"].pop("statement", None)
    c["claim"]["property"]["unsafe"] = []
    for e in tree(c):
        if "leaf" in e:
            e["leaf"]["closes"] = []
    got = check_certificate(c)
    assert got["result"] == "vacuous" and "unsafe condition is an empty disjunction" in got["vacuous"]
    c = certificate(unsafe=((atom([0, 0], [-1], "-5/2"),),), region=(REGION[0] + (atom([1, 1], [0], -10),),))
    for e in tree(c):           # x0 + x1 <= -10 holds nowhere on the box: every leaf closed by it
        if "leaf" in e:
            e["leaf"]["closes"] = [{"atom": ["region", 4], "bound": "0"}]
    c["claim"].pop("statement", None)
    import re

    got = None
    for _ in range(len(tree(c)) + 1):   # each leaf's bound of x0 + x1, as the checker recomputes it
        try:
            got = check_certificate(c)
            break
        except CertificateError as err:
            found = re.search(r"tree\[(\d+)\].*the bound recomputed is (\S+), not", str(err))
            assert found, str(err)
            tree(c)[int(found.group(1))]["leaf"]["closes"][0]["bound"] = found.group(2)
    assert got["result"] == "vacuous" and "input region is empty" in got["vacuous"]


def test_a_split_neurons_relaxation_is_fixed_too(twin):
    """On the side z >= 0 of a ReLU split the relaxation is [alpha, 1, 0] (docs/format.md): a
    changed slope or intercept there is refused (both were accepted before)."""
    c = copy.deepcopy(twin)
    assert check_certificate(c)["result"] == "checked"
    # the engine writes that side as active (a); written as u, its relaxation is the rule's
    i = next(k for k, e in enumerate(tree(c)) if "leaf" in e and e["leaf"]["phases"] == ["ia"])
    tree(c)[i]["leaf"].update(phases=["iu"], relaxations=[[1, 1, 0]])
    assert check_certificate(c)["result"] == "checked"
    refused(c, lambda b: tree(b)[i]["leaf"]["relaxations"][0].__setitem__(1, 2), "expected the relaxation")
    refused(c, lambda b: tree(b)[i]["leaf"]["relaxations"][0].__setitem__(2, 1), "expected the relaxation")


def test_a_split_side_the_bounds_show_empty_closes_without_a_line_check():
    """z = x - 2 on [-1, 1] is at most -1, so a ReLU split's side z >= 0 holds no point: its
    clipped range [0, -1] is empty. The relaxation there is the rule's [1, 1, 0], and no line
    can be wrong on an empty range (the engine wrote such leaves on ACAS Xu 1_3 property 4,
    which the checker refused before)."""
    from symrel.fileformat import sha256_of, to_json

    net = ReLUNet(1, [DenseLayer([[1]], [-2]), DenseLayer([[1]], [0], "none")])
    obj = to_json(net)
    prop = {"inputs": 1, "outputs": 1, "input_region": [[{"x": [1], "y": [0], "rhs": 1}, {"x": [-1], "y": [0], "rhs": 1}]],
            "unsafe": [[{"x": [0], "y": [-1], "rhs": -1}]]}
    tree = [{"relu": [0, 0]},
            {"leaf": {"phases": ["i"], "relaxations": [], "closes": [{"atom": ["unsafe", 0], "bound": 0}]}},
            {"leaf": {"phases": ["u"], "relaxations": [[1, 1, 0]], "closes": [{"atom": ["unsafe", 0], "bound": 1}]}}]
    cert = {"symrel": 1, "kind": "certificate",
            "claim": {"kind": "vnnlib-unsat", "network_sha256": sha256_of(obj), "property_sha256": "0" * 64,
                      "property_source": "inline", "property": prop},
            "inputs": {"network": {"object": obj, "sha256": sha256_of(obj)}},
            "steps": [{"rule": "vnnlib-branch-and-bound", "status": "proved",
                       "certificate": {"disjunct": 0, "box": {"lower": [-1], "upper": [1]}, "tree": tree}}]}
    assert check_certificate(cert)["result"] == "checked"
    refused(cert, lambda c: c["steps"][0]["certificate"]["tree"][2]["leaf"]["relaxations"].__setitem__(0, [0, 1, 0]),
            "expected the relaxation [1, 1, 0]")


def test_a_closes_own_slopes_are_replayed_and_tampering_is_refused():
    """A close may give every unstable neuron its own lower slope alpha in [0, 1] (the
    network LP's, docs/format.md): on |x0| + |x1| - 1 the slopes 0 close the root where the
    rule's slopes (1 on [-1, 3]) do not. A slope out of [0, 1], a list of the wrong length, or
    a changed slope is refused; without its slopes the close's bound is not the one recorded.
    (The slopes come from the network LP: numpy and scipy; the core-only engine writes none.)"""
    pytest.importorskip("numpy")
    pytest.importorskip("scipy")
    c = certificate()
    closes = tree(c)[0]["leaf"]["closes"]
    assert len(tree(c)) == 1 and closes[0]["alpha"] == [0, 0, 0, 0]
    assert check_certificate(c)["result"] == "checked"

    def close(b):
        return tree(b)[0]["leaf"]["closes"][0]

    refused(c, lambda b: close(b)["alpha"].__setitem__(0, "2"), "0 <= alpha <= 1")
    refused(c, lambda b: close(b)["alpha"].__setitem__(1, "-1/2"), "0 <= alpha <= 1")
    refused(c, lambda b: close(b)["alpha"].pop(), "a list of 4 entries", MalformedCertificate)
    refused(c, lambda b: close(b)["alpha"].__setitem__(0, 0.5), "exact rational", MalformedCertificate)
    refused(c, lambda b: close(b)["alpha"].__setitem__(0, "1/2"), "the bound recomputed is")
    refused(c, lambda b: close(b).pop("alpha"), "the bound recomputed is")
    refused(c, lambda b: close(b)["alpha"].__setitem__(0, "1/" + "3" * 200), "relaxation bits", CheckLimit)


def test_a_hand_written_slope_above_one_cannot_prove_a_false_claim():
    """relu(x) - 2 x <= -1 holds at x = 3 (value -3) on [-1, 3]. A slope of 2 would give the
    lower form (2 - 2) x = 0 > -1, a false proof: ``h >= 2 z`` fails for z > 0. The checker
    refuses the slope; with the largest slope it admits, 1, the bound is -3."""
    from symrel.fileformat import sha256_of, to_json

    net = ReLUNet(1, [DenseLayer([[1]], [0]), DenseLayer([[1]], [0], "none")])
    obj = to_json(net)
    prop = {"inputs": 1, "outputs": 1, "input_region": [[{"x": [1], "y": [0], "rhs": 3}, {"x": [-1], "y": [0], "rhs": 1}]],
            "unsafe": [[{"x": [-2], "y": [1], "rhs": -1}]]}
    forged = {"leaf": {"phases": ["u"], "relaxations": [[1, "3/4", "3/4"]],
                       "closes": [{"atom": ["unsafe", 0], "bound": 0, "alpha": [2]}]}}
    cert = {"symrel": 1, "kind": "certificate",
            "claim": {"kind": "vnnlib-unsat", "network_sha256": sha256_of(obj), "property_sha256": "0" * 64,
                      "property_source": "inline", "property": prop},
            "inputs": {"network": {"object": obj, "sha256": sha256_of(obj)}},
            "steps": [{"rule": "vnnlib-branch-and-bound", "status": "proved",
                       "certificate": {"disjunct": 0, "box": {"lower": [-1], "upper": [3]}, "tree": [forged]}}]}
    refused(cert, lambda c: None, "0 <= alpha <= 1")

    def most(c):
        c["steps"][0]["certificate"]["tree"][0]["leaf"]["closes"][0]["alpha"] = [1]

    refused(cert, most, "the bound recomputed is -3")
