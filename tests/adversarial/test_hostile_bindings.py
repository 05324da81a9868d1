"""Hostile certificates and the files they are bound to (hostile.py, README.md "A fresh round"):
each with its command, exit code and line."""

import pytest

from .hostile import C, rows, run_row, working_folder


def needs_onnx_extra():
    """Skip where the onnx extra is missing: the network of these certificates is an .onnx file."""
    pytest.importorskip("numpy")
    pytest.importorskip("onnx")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return working_folder(tmp_path_factory.mktemp("hostile-bindings"))


@pytest.mark.parametrize("row", rows(C), ids=lambda row: row.file)
def test_each_file(row, folder, run_cli, monkeypatch):
    run_row(run_cli, row, folder, monkeypatch)


def test_a_binding_by_content_claims_nothing_of_the_bytes(folder, run_cli, monkeypatch):
    """Without claim.network_file the network binds by what is imported from the file: the output
    says so, and not that the bytes are those the verification read."""
    needs_onnx_extra()
    row = next(r for r in rows(C) if r.file == "certificate-network-file-stripped.json")
    code, out, err = run_row(run_cli, row, folder, monkeypatch)
    bound = next(line for line in out.splitlines() if line.startswith("bound: input 'network'"))
    assert "its bytes" not in bound


def test_the_original_files_bind(folder, run_cli, monkeypatch):
    needs_onnx_extra()
    monkeypatch.chdir(folder)
    code, out, err = run_cli("check-certificate", "helper-certificate-2.json", "--input", "network=helper-net-2.onnx",
                             "--input", "property=helper-prop-2.vnnlib")
    assert code == 0 and out.splitlines()[-1] == "checked", err
