"""symrel.interop.coq_vnnlib: a vnnlib-unsat certificate replayed by Coq's kernel (VnnCheck.v's
checker, VnnSound.v's theorem). The library is built once per module; each instance is one
coqc run of Instance.v. The replays need coqc (skipped without it); the refusals do not."""

import copy
import json
import os
import shutil
import subprocess
from fractions import Fraction

import pytest

from symrel.errors import InputError
from symrel.interop.coq import LIBRARY_DIR, LOGICAL, print_assumptions
from symrel.interop.coq_vnnlib import VNN_LIBRARY, export_vnnlib_coq as export_coq, instance_text

needs_coqc = pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc is not installed")


@pytest.fixture(scope="module")
def cert():
    """A tree of several leaves (the engine with the rule's slopes: the LP's close the root)."""
    from tests.checking.test_vnnlib import certificate

    return certificate(slopes=False)


@pytest.fixture(scope="module")
def sloped():
    """One leaf whose first close has its own lower slopes (the LP's: numpy and scipy)."""
    pytest.importorskip("numpy")
    pytest.importorskip("scipy")
    from tests.checking.test_vnnlib import certificate

    c = certificate()
    assert "alpha" in c["steps"][0]["certificate"]["tree"][0]["leaf"]["closes"][0]
    return c


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    folder = tmp_path_factory.mktemp("vnnlib-coq")
    for name in VNN_LIBRARY:
        shutil.copy(LIBRARY_DIR / name, folder / name)
        r = subprocess.run(["coqc", "-R", ".", LOGICAL, name], cwd=folder, capture_output=True, text=True,
                           timeout=600)
        assert r.returncode == 0, r.stdout + r.stderr
    return folder


def replayed(library, tmp_path, cert) -> subprocess.CompletedProcess:
    """coqc on the certificate's Instance.v against the built library."""
    shutil.copytree(library, tmp_path, dirs_exist_ok=True)
    (tmp_path / "Instance.v").write_text(instance_text(cert))
    return subprocess.run(["coqc", "-R", ".", LOGICAL, "Instance.v"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)


@needs_coqc
def test_the_checker_is_proved_sound_with_no_assumption(library):
    assert print_assumptions(library, "VnnSound.check_sound") == "Closed under the global context"
    assert print_assumptions(library, "VnnProp.vnnlib_unsat") == "Closed under the global context"


@needs_coqc
def test_an_unsat_certificate_replays_and_its_claim_is_closed(library, tmp_path, cert):
    r = replayed(library, tmp_path, cert)
    assert r.returncode == 0, r.stdout + r.stderr
    assert print_assumptions(tmp_path, "Instance.claim") == "Closed under the global context"
    assert "Theorem claim : vnnlib_unsat net prop." in (tmp_path / "Instance.v").read_text()


def leaf(c, k):
    return [e for e in c["steps"][0]["certificate"]["tree"] if "leaf" in e][k]["leaf"]


def _line_below_relu(c):
    leaf(c, 0)["relaxations"][0] = [1, "1/2", "1/4"]        # s w + t < max(0, w) at an end of [-1, 3]


def _bound_raised(c):
    leaf(c, 1)["closes"][1]["bound"] = "-29/10"             # the recomputed bound is -3


def _phase_active(c):
    leaf(c, 1)["phases"][0] = "aauu"                        # neuron 1 is inactive on x0 >= 1, not active
    leaf(c, 1)["relaxations"] = leaf(c, 1)["relaxations"][:2]


def _split_dropped(c):
    t = c["steps"][0]["certificate"]["tree"]
    c["steps"][0]["certificate"]["tree"] = [t[1]]           # one leaf's facts for the whole box


def rejected_by_coqc(library, tmp_path, bad, words="") -> None:
    """The Python checker refuses ``bad`` (with ``words``), and coqc rejects its Instance.v at
    the checker's vm_compute (its check is false), not elsewhere."""
    from symrel.checking import CertificateError, check_certificate

    with pytest.raises(CertificateError) as err:            # the Python checker refuses it too
        check_certificate(bad)
    assert words in str(err.value), str(err.value)
    r = replayed(library, tmp_path, bad)
    lines = (tmp_path / "Instance.v").read_text().splitlines()
    proof = lines.index("Lemma checked : check net prop steps = true.") + 2   # the vm_compute line, 1-based
    assert r.returncode != 0 and f'line {proof},' in r.stderr and 'Unable to unify "true" with "false"' in r.stderr, \
        r.stdout + r.stderr


@needs_coqc
@pytest.mark.parametrize("tamper", [_line_below_relu, _bound_raised, _phase_active, _split_dropped])
def test_a_tampered_certificate_is_rejected_by_coqc(library, tmp_path, cert, tamper):
    bad = copy.deepcopy(cert)
    tamper(bad)
    rejected_by_coqc(library, tmp_path, bad)


# -- a close's own lower slopes ----------------------------------------------------------------------
@needs_coqc
def test_a_closes_own_slopes_replay(library, tmp_path, sloped):
    r = replayed(library, tmp_path, sloped)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "[[]; [0; 0; 0; 0]])" in (tmp_path / "Instance.v").read_text()   # top layer first: the output's, then the ReLUs'


def _slope_above_one(c):
    c["steps"][0]["certificate"]["tree"][0]["leaf"]["closes"][0]["alpha"][0] = "2"


def _slope_changed(c):
    c["steps"][0]["certificate"]["tree"][0]["leaf"]["closes"][0]["alpha"][0] = "1/2"


@needs_coqc
@pytest.mark.parametrize("tamper, words", [(_slope_above_one, "0 <= alpha <= 1"), (_slope_changed, "recomputed")])
def test_a_tampered_slope_is_rejected_by_coqc(library, tmp_path, sloped, tamper, words):
    bad = copy.deepcopy(sloped)
    tamper(bad)
    rejected_by_coqc(library, tmp_path, bad, words)


# -- ReLU splits and betas --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def twin():
    """relu(x0 - x1) - relu(x0 - x1) >= 1e-9 on [-1, 1]^2, closed by two ReLU splits and a beta
    (tests/checking/test_vnnlib.py); the engine splits ReLUs only with numpy (its float bounds)."""
    pytest.importorskip("numpy")
    from tests.checking.test_vnnlib import SQUARE, TWIN, atom, certificate

    c = certificate(TWIN, ((atom([0, 0], [-1], "-1/1000000000"),),), SQUARE, slopes=False)
    t = c["steps"][0]["certificate"]["tree"]
    # the tampers below read this shape: z0 <= 0 then z1 <= 0, z1 >= 0 (with the beta), then z0 >= 0
    assert t[:2] == [{"relu": [0, 0]}, {"relu": [0, 1]}] and len(t) == 5 and "beta" in t[3]["leaf"]["closes"][0], t
    return c


def twin_tree(c):
    return c["steps"][0]["certificate"]["tree"]


@needs_coqc
def test_relu_splits_and_betas_replay(library, tmp_path, twin):
    # the claim is check_sound applied to checked, as in every instance (its Print Assumptions
    # is tested once above: one coqc run less)
    r = replayed(library, tmp_path, twin)
    assert r.returncode == 0, r.stdout + r.stderr
    text = (tmp_path / "Instance.v").read_text()
    assert "Proof. exact (check_sound net prop steps checked). Qed." in text
    assert "(RSplit 0 0 (RSplit 0 1 " in text and "[0; 1], [])" in text     # the splits and the leaf's betas


def _relu_phase_active(c):
    twin_tree(c)[2]["leaf"]["phases"][0] = "ia"              # z1 <= 0 on this part (and in [-2, 0]): not active


def _beta_changed(c):
    beta = twin_tree(c)[3]["leaf"]["closes"][0]["beta"]
    beta[1] = str(Fraction(str(beta[1])) + 1)                # the recomputed bound is lower


def _beta_negative(c):
    # beta adds + beta_0 z0 (side z0 <= 0) and - beta_1 z1 (side z1 >= 0) where z0 = z1 = x0 - x1:
    # only beta_0 - beta_1 counts, so the bound is the same, but beta_0 < 0 is not sound
    beta = twin_tree(c)[3]["leaf"]["closes"][0]["beta"]
    b0, b1 = Fraction(str(beta[0])), Fraction(str(beta[1]))
    beta[:] = ["-1", str(b1 - b0 - 1)]


def _split_sides_swapped(c):
    t = twin_tree(c)
    t[1:] = [t[4], t[1], t[2], t[3]]                          # the part z0 >= 0 first: every leaf on the wrong side


@needs_coqc
@pytest.mark.parametrize("tamper, words", [(_relu_phase_active, "not active"), (_beta_changed, "recomputed"),
                                           (_beta_negative, "beta >= 0"), (_split_sides_swapped, "")])
def test_a_tampered_relu_split_or_beta_is_rejected_by_coqc(library, tmp_path, twin, tamper, words):
    bad = copy.deepcopy(twin)
    tamper(bad)
    rejected_by_coqc(library, tmp_path, bad, words)


@needs_coqc
def test_a_split_side_with_no_point_closes_in_coq(library, tmp_path):
    """z = x - 2 on [-1, 1] is at most -1: on the split's side z >= 0 the clipped range [0, -1]
    is empty, and the leaf there closes with no line check (tests/checking/test_vnnlib.py)."""
    from symrel.checking import check_certificate
    from symrel.fileformat import sha256_of, to_json
    from symrel.models import DenseLayer, ReLUNet

    obj = to_json(ReLUNet(1, [DenseLayer([[1]], [-2]), DenseLayer([[1]], [0], "none")]))
    prop = {"inputs": 1, "outputs": 1, "input_region": [[{"x": [1], "y": [0], "rhs": 1}, {"x": [-1], "y": [0], "rhs": 1}]],
            "unsafe": [[{"x": [0], "y": [-1], "rhs": -1}]]}
    tree = [{"relu": [0, 0]},
            {"leaf": {"phases": ["i"], "relaxations": [], "closes": [{"atom": ["unsafe", 0], "bound": 0}]}},
            {"leaf": {"phases": ["u"], "relaxations": [[1, 1, 0]], "closes": [{"atom": ["unsafe", 0], "bound": 1}]}}]
    c = {"symrel": 1, "kind": "certificate",
         "claim": {"kind": "vnnlib-unsat", "network_sha256": sha256_of(obj), "property_sha256": "0" * 64,
                   "property_source": "inline", "property": prop},
         "inputs": {"network": {"object": obj, "sha256": sha256_of(obj)}},
         "steps": [{"rule": "vnnlib-branch-and-bound", "status": "proved",
                    "certificate": {"disjunct": 0, "box": {"lower": [-1], "upper": [1]}, "tree": tree}}]}
    assert check_certificate(c)["result"] == "checked"
    r = replayed(library, tmp_path, c)
    assert r.returncode == 0, r.stdout + r.stderr


def test_export_writes_the_vnnlib_library_and_instance(tmp_path, cert):
    names = [p.name for p in export_coq(cert, tmp_path)]
    assert names == list(VNN_LIBRARY) + ["Instance.v", "_CoqProject"]
    assert (tmp_path / "_CoqProject").read_text().split() == ["-R", ".", LOGICAL, *VNN_LIBRARY, "Instance.v"]


@pytest.mark.parametrize("edit, path", [
    (lambda c: c["steps"][0]["certificate"]["tree"].pop(), "steps[0].certificate.tree"),
    (lambda c: leaf(c, 0).update(phases=["uuux"]), "steps[0].certificate.tree[1].leaf.phases[0]"),
    (lambda c: leaf(c, 0)["relaxations"].pop(), "steps[0].certificate.tree[1].leaf.relaxations[3]"),
    (lambda c: leaf(c, 0)["closes"][0].update(bound=0.5), "steps[0].certificate.tree[1].leaf.closes[0].bound"),
    (lambda c: c["steps"][0]["certificate"]["tree"].insert(1, {"relu": [1, 0]}), "steps[0].certificate.tree[1].relu"),
    (lambda c: c["steps"][0]["certificate"]["tree"].insert(1, {"relu": [0]}), "steps[0].certificate.tree[1].relu"),
    (lambda c: leaf(c, 0)["closes"][0].update(beta=[0.5]), "steps[0].certificate.tree[1].leaf.closes[0].beta[0]"),
    (lambda c: c["claim"]["property"]["input_region"][0][2].update(y=[1]), "claim.property.input_region[0][2].y"),
])
def test_a_malformed_certificate_gets_a_message_and_no_file(tmp_path, cert, edit, path):
    bad = copy.deepcopy(cert)
    edit(bad)
    with pytest.raises(InputError) as err:
        export_coq(bad, tmp_path / "out")
    assert err.value.path == path and not (tmp_path / "out").exists()


def test_no_admitted_or_axiom_in_the_vnnlib_library():
    for name in VNN_LIBRARY:
        text = (LIBRARY_DIR / name).read_text()
        for word in ("Admitted", "admit", "Axiom", "Parameter", "Hypothesis", "Variable"):
            assert word not in text, f"{name} contains {word}"


@needs_coqc
def test_the_cli_exports_and_replays(library, tmp_path, cert, run_cli, monkeypatch):
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(cert))
    code, out, err = run_cli("export-coq", path, "-o", tmp_path / "out")
    assert code == 0 and "Instance.v" in out and (tmp_path / "out" / "VnnSound.v").is_file(), err
    monkeypatch.setenv("SYMREL_COQ_LIBRARY", os.fspath(library))   # the built library's .vo files reused
    code, out, err = run_cli("check-certificate", path, "--coq")
    assert code == 0, err
    assert "coq: check net prop steps = true (vm_compute): checked" in out
    assert "coq: claim: Print Assumptions: Closed under the global context" in out


def test_the_docs_give_the_property_file_and_the_theorem():
    from pathlib import Path

    lines = len((LIBRARY_DIR / "VnnProp.v").read_text().splitlines())
    docs = (Path(__file__).resolve().parents[2] / "docs" / "coq.md").read_text()
    assert f"**`VnnProp.v`\n({lines} lines)**" in docs or f"**`VnnProp.v` ({lines} lines)**" in docs
    assert "Theorem check_sound : forall N P steps, check N P steps = true -> vnnlib_unsat N P." in docs
    assert "Theorem check_sound : forall N P steps, check N P steps = true -> vnnlib_unsat N P." in \
        (LIBRARY_DIR / "VnnSound.v").read_text()
