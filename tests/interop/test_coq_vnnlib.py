"""symrel.interop.coq_vnnlib: a vnnlib-unsat certificate replayed by Coq's kernel (VnnCheck.v's
checker, VnnSound.v's theorem). The library is built once per module; each instance is one
coqc run of Instance.v. The replays need coqc (skipped without it); the refusals do not."""

import copy
import json
import os
import shutil
import subprocess

import pytest

from symrel.errors import InputError
from symrel.interop.coq import LIBRARY_DIR, LOGICAL, print_assumptions
from symrel.interop.coq_vnnlib import VNN_LIBRARY, export_vnnlib_coq as export_coq, instance_text

needs_coqc = pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc is not installed")


@pytest.fixture(scope="module")
def cert():
    from tests.checking.test_vnnlib import certificate

    return certificate()


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


@needs_coqc
@pytest.mark.parametrize("tamper", [_line_below_relu, _bound_raised, _phase_active, _split_dropped])
def test_a_tampered_certificate_is_rejected_by_coqc(library, tmp_path, cert, tamper):
    from symrel.checking import CertificateError, check_certificate

    bad = copy.deepcopy(cert)
    tamper(bad)
    with pytest.raises(CertificateError):                   # the Python checker refuses it too
        check_certificate(bad)
    r = replayed(library, tmp_path, bad)
    lines = (tmp_path / "Instance.v").read_text().splitlines()
    proof = lines.index("Lemma checked : check net prop steps = true.") + 2   # the vm_compute line, 1-based
    assert r.returncode != 0 and f'line {proof},' in r.stderr and 'Unable to unify "true" with "false"' in r.stderr, \
        r.stdout + r.stderr


def test_export_writes_the_vnnlib_library_and_instance(tmp_path, cert):
    names = [p.name for p in export_coq(cert, tmp_path)]
    assert names == list(VNN_LIBRARY) + ["Instance.v", "_CoqProject"]
    assert (tmp_path / "_CoqProject").read_text().split() == ["-R", ".", LOGICAL, *VNN_LIBRARY, "Instance.v"]


@pytest.mark.parametrize("edit, path", [
    (lambda c: c["steps"][0]["certificate"]["tree"].pop(), "steps[0].certificate.tree"),
    (lambda c: leaf(c, 0).update(phases=["uuux"]), "steps[0].certificate.tree[1].leaf.phases[0]"),
    (lambda c: leaf(c, 0)["relaxations"].pop(), "steps[0].certificate.tree[1].leaf.relaxations[3]"),
    (lambda c: leaf(c, 0)["closes"][0].update(bound=0.5), "steps[0].certificate.tree[1].leaf.closes[0].bound"),
    (lambda c: c["steps"][0]["certificate"]["tree"].insert(1, {"relu": [0, 0]}), "steps[0].certificate.tree[1]"),
    (lambda c: leaf(c, 0)["closes"][0].update(beta=[1]), "steps[0].certificate.tree[1].leaf.closes[0].beta"),
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
