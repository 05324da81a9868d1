"""symrel.verification.files: the networks and properties read, and their two hashes."""

import hashlib
import json

import pytest

from symrel.errors import InputError
from symrel.fileformat import save, sha256_of
from symrel.verification.files import bytes_sha256, file_hashes, read_model, read_network

from .cases import NET, UNSAT


def test_a_json_model_has_the_hash_of_its_bytes_and_of_its_object(tmp_path):
    save(NET, tmp_path / "net.json")
    with_provenance = json.loads((tmp_path / "net.json").read_text())
    with_provenance["provenance"] = {"source": "net.onnx", "format": "onnx"}
    (tmp_path / "imported.json").write_text(json.dumps(with_provenance))
    a, b = file_hashes(tmp_path / "net.json"), file_hashes(tmp_path / "imported.json")
    assert a["sha256"] == hashlib.sha256((tmp_path / "net.json").read_bytes()).hexdigest()
    assert a["sha256"] != b["sha256"] and a["canonical_sha256"] == b["canonical_sha256"] == sha256_of(
        json.loads((tmp_path / "net.json").read_text()))
    assert a["kind"] == "relu" and a["name"] == "net.json"


def test_a_property_hashes_its_bytes_and_the_object_a_claim_records(tmp_path):
    from symrel.vnnlib.engine import property_object
    from symrel.vnnlib.reader import read_vnnlib

    (tmp_path / "p.vnnlib").write_text(UNSAT)
    (tmp_path / "q.vnnlib").write_text("; the same property, spaced otherwise\n" + UNSAT.replace(") (", ")\n("))
    p, q = file_hashes(tmp_path / "p.vnnlib"), file_hashes(tmp_path / "q.vnnlib")
    assert p["sha256"] == read_vnnlib(tmp_path / "p.vnnlib").sha256 != q["sha256"]
    assert p["canonical_sha256"] == q["canonical_sha256"] == sha256_of(property_object(read_vnnlib(tmp_path / "p.vnnlib")))


def test_onnx_and_nnet_are_imported_as_symrel_import_would(shared_dir, tmp_path, run_cli):
    pytest.importorskip("onnx")
    onnx = shared_dir / "data" / "vnncomp2021" / "test" / "test_small.onnx"
    assert run_cli("import", onnx, "-o", tmp_path / "small.json")[0] == 0
    hashes = file_hashes(onnx)
    assert hashes["canonical_sha256"] == file_hashes(tmp_path / "small.json")["canonical_sha256"]
    assert hashes["sha256"] == bytes_sha256(onnx) and hashes["kind"] == "relu"
    nnet = shared_dir / "data" / "acasxu" / "ACASXU_experimental_v2a_1_1.nnet"
    assert run_cli("import", nnet, "-o", tmp_path / "acas.json")[0] == 0
    assert read_model(nnet) == read_model(tmp_path / "acas.json") == read_network(nnet)


def test_bad_files_are_one_line_input_errors(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        bytes_sha256(tmp_path / "absent.onnx")
    (tmp_path / "net.txt").write_text("x")
    with pytest.raises(InputError, match="expected a network ending in .onnx, .nnet or .json"):
        read_network(tmp_path / "net.txt")
    from symrel.models import CPWL1D

    save(CPWL1D([0, 1], [0, 1]), tmp_path / "cpwl.json")   # (maxout and layered nets are verified too)
    with pytest.raises(InputError, match="expected a ReLU, layered or maxout network, got cpwl1d"):
        read_network(tmp_path / "cpwl.json")


@pytest.mark.parametrize("witness", [False, True])
def test_without_the_network_extra_the_property_is_refused_for_its_own_defect(tmp_path, run_cli, monkeypatch,
                                                                              witness):
    """Where the network needs an extra that is not installed (as an .onnx file in symrel's core),
    a property with a defect of its own is refused for it, as with the extra installed; a sound
    property gets the one line naming the extra (exit 2). The missing extra is simulated here, so
    that both installs run this."""
    from symrel.interop.extras import MissingExtra
    from symrel.verification import files

    def needs_the_extra(path):
        raise MissingExtra("onnx is not installed; install the extra: pip install 'symrel[onnx]'", file=str(path))

    monkeypatch.setattr(files, "read_network", needs_the_extra)
    (tmp_path / "net.onnx").write_bytes(b"")
    (tmp_path / "bad.vnnlib").write_text("\ufeff" + UNSAT, encoding="utf-8")
    (tmp_path / "good.vnnlib").write_text(UNSAT, encoding="utf-8")
    (tmp_path / "w.txt").write_text("sat\n((X_0 0)\n (X_1 0)\n (Y_0 0))\n", encoding="utf-8")
    more = ["--check-witness", tmp_path / "w.txt"] if witness else ["--executor", "serial"]
    code, out, err = run_cli("verify", tmp_path / "net.onnx", tmp_path / "bad.vnnlib", *more)
    assert (code, out) == (2, "") and err.count("\n") == 1 and "bad.vnnlib: line 1: expected '('" in err, err
    code, out, err = run_cli("verify", tmp_path / "net.onnx", tmp_path / "good.vnnlib", *more)
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    assert err.startswith("symrel: error: ") and "net.onnx: onnx is not installed" in err
    assert err.rstrip().endswith("pip install 'symrel[onnx]'"), err
