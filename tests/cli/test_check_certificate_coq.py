"""symrel check-certificate --coq: the Python check, then the Coq replay, with each check
named and the general theorem's status said plainly."""

import json
import shutil

import pytest

from symrel.certificates.io import certificate_of
from symrel.models import AffineMap, Box, MaxoutLayer, MaxoutNet, MaxoutUnit

NET = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], ["-1/2"]], [0, "1/3"])])], AffineMap([[2]], [1]))


def write_certificate(tmp_path):
    from symrel.compiler import compile_model
    from symrel.prover import prove_equivalence

    box = Box([[-1, 2]])
    cert = certificate_of(prove_equivalence(NET, compile_model(NET, box).transformer, box))
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cert))
    return path


@pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc is not installed")
def test_coq_replay_says_which_checks_ran(run_cli, tmp_path, coq_library, monkeypatch):
    from symrel.interop.coq import general_theorem_proved

    monkeypatch.setenv("SYMREL_COQ_LIBRARY", str(coq_library))   # the session's build of the library
    code, out, err = run_cli("check-certificate", write_certificate(tmp_path), "--coq")
    assert code == 0, err
    assert "coq: transformer = compile net Bs (computed by Coq's VM): checked" in out
    assert "coq: certify net box Bs = true (computed by Coq's VM): checked" in out
    assert "Print Assumptions: Closed under the global context" in out
    assert general_theorem_proved() and general_theorem_proved(relu=True)
    assert "coq: general theorem compile_correct: proved in Coq" in out
    assert "coq: claim: Print Assumptions: Closed under the global context" in out
    assert out.strip().endswith("checked")


def test_coq_without_coqc_is_refused(run_cli, tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    code, out, err = run_cli("check-certificate", write_certificate(tmp_path), "--coq")
    assert code == 2 and "--coq needs coqc" in err
