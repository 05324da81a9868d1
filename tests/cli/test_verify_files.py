"""The files of ``symrel verify`` on the command line: certificates bound to the bytes of the
files read (and refused for any other file, or when edited), ``symrel info``'s two hashes,
``.onnx``/``.nnet`` imported where a JSON model is expected, reports that follow their
extension, and one time limit for the whole command."""

from importlib.util import find_spec
import hashlib
import json
import sys
import time
import types

import pytest

from symrel.fileformat import save, sha256_of

from ..verification.cases import NET, STRIPS, UNSAT
from ..verification.cases import OVERRUN


@pytest.fixture
def verified(tmp_path, run_cli):
    """A certificate written by verify, with the network and the property it read."""
    save(NET, tmp_path / "net.json")
    (tmp_path / "prop.vnnlib").write_text(UNSAT)
    code, out, err = run_cli("verify", tmp_path / "net.json", tmp_path / "prop.vnnlib", "--certificate",
                             tmp_path / "cert.json", "--executor", "serial")
    assert code == 0 and out.splitlines()[0] == "unsat", err
    return tmp_path


def edited(folder, change, name="edited.json"):
    cert = json.loads((folder / "cert.json").read_text())
    change(cert)
    (folder / name).write_text(json.dumps(cert))
    return folder / name


def test_the_certificate_records_the_files_by_name_and_bytes(verified):
    claim = json.loads((verified / "cert.json").read_text())["claim"]
    assert claim["network_file"] == {"name": "net.json",
                                     "sha256": hashlib.sha256((verified / "net.json").read_bytes()).hexdigest()}
    assert claim["property_source"] == "prop.vnnlib"
    assert claim["property_sha256"] == hashlib.sha256((verified / "prop.vnnlib").read_bytes()).hexdigest()
    assert str(verified) not in (verified / "cert.json").read_text()


def test_the_original_files_bind_and_others_are_refused(verified, run_cli):
    cert, net, prop = verified / "cert.json", verified / "net.json", verified / "prop.vnnlib"
    code, out, err = run_cli("check-certificate", cert, "--input", f"network={net}", "--input", f"property={prop}")
    assert code == 0 and out.split()[-1] == "checked", err
    assert "its bytes are those of net.json" in out and "is the embedded one" in out
    # the same network in another file (its JSON respaced): not the file verify read
    (verified / "respaced.json").write_text(json.dumps(json.loads(net.read_text())))
    code, out, err = run_cli("check-certificate", cert, "--input", f"network={verified / 'respaced.json'}")
    assert code == 1 and out.strip() == "rejected" and "claim.network_file.sha256" in err
    # another property file
    (verified / "other.vnnlib").write_text(UNSAT.replace("1.5", "1.25"))
    code, _, err = run_cli("check-certificate", cert, "--input", f"property={verified / 'other.vnnlib'}")
    assert code == 1 and "claim.property_sha256" in err


def test_an_edited_byte_hash_is_refused_with_the_original_file(verified, run_cli):
    bad = edited(verified, lambda c: c["claim"]["network_file"].update(sha256="0" * 64))
    code, _, _ = run_cli("check-certificate", bad)
    assert code == 0   # the proof itself still holds: the record only names a file
    code, _, err = run_cli("check-certificate", bad, "--input", f"network={verified / 'net.json'}")
    assert code == 1 and "claim.network_file.sha256" in err and "not the same file" in err


def test_a_swapped_network_is_refused_even_when_the_bytes_record_is_kept(verified, run_cli):
    """The embedded network replaced by another (its hashes recomputed, the proof redone for it
    is not needed: binding fails first) while claim.network_file still names the original."""
    from symrel.models import DenseLayer, ReLUNet

    other = ReLUNet(2, [DenseLayer([[1, -1], [0, 1]], [0, 0]), DenseLayer([[1, 0], [0, 2]], [0, 0], "none")])
    save(other, verified / "other.json")
    obj = json.loads((verified / "other.json").read_text())

    def swap(c):
        c["inputs"]["network"] = {"object": obj, "sha256": sha256_of(obj)}
        c["claim"]["network_sha256"] = sha256_of(obj)
        c["claim"].pop("statement")

    bad = edited(verified, swap)
    assert run_cli("check-certificate", bad)[0] == 0   # the proof holds for the swapped net (Y_0 is the same)
    code, _, err = run_cli("check-certificate", bad, "--input", f"network={verified / 'net.json'}")
    assert code == 1 and "inputs.network.sha256" in err


@pytest.mark.parametrize("key, value", [("property_source", "/home/someone/prop.vnnlib"),
                                        ("network_file", {"name": "/home/someone/net.json", "sha256": "0" * 64})])
def test_a_certificate_edited_to_carry_a_path_is_refused(verified, run_cli, key, value):
    bad = edited(verified, lambda c: c["claim"].update({key: value}))
    code, out, err = run_cli("check-certificate", bad)
    assert code == 2 and f"claim.{key}" in err and "without a directory" in err and err.count("\n") == 1


def test_an_imported_onnx_binds_to_its_original_file(shared_dir, tmp_path, run_cli):
    pytest.importorskip("onnx")
    base = shared_dir / "data" / "vnncomp2021" / "test"
    cert = tmp_path / "c.json"
    code, out, err = run_cli("verify", base / "test_small.onnx", base / "test_small.vnnlib", "--certificate", cert)
    assert code == 0, err
    code, out, err = run_cli("check-certificate", cert, "--input", f"network={base / 'test_small.onnx'}",
                             "--input", f"property={base / 'test_small.vnnlib'}")
    assert code == 0 and "imported exactly" in out, err
    code, _, err = run_cli("check-certificate", cert, "--input", f"network={base / 'test_tiny.onnx'}")
    assert code == 1
    # the JSON symrel import writes holds the same object; a certificate that names no file binds it
    assert run_cli("import", base / "test_small.onnx", "-o", tmp_path / "small.json")[0] == 0
    provenance = json.loads((tmp_path / "small.json").read_text())["provenance"]
    assert provenance["source"] == "test_small.onnx" and len(provenance["source_sha256"]) == 64
    unnamed = json.loads(cert.read_text())
    unnamed["claim"].pop("network_file")
    (tmp_path / "unnamed.json").write_text(json.dumps(unnamed))
    code, out, err = run_cli("check-certificate", tmp_path / "unnamed.json", "--input",
                             f"network={tmp_path / 'small.json'}")
    assert code == 0 and "bound: input 'network'" in out, err


def test_info_prints_both_hashes_of_any_input(verified, run_cli):
    cert = json.loads((verified / "cert.json").read_text())
    code, out, _ = run_cli("info", verified / "net.json")
    assert code == 0
    assert f"sha256 of the file's bytes: {cert['claim']['network_file']['sha256']}" in out
    assert f"sha256 of the canonical text: {cert['claim']['network_sha256']}" in out
    code, out, _ = run_cli("info", verified / "prop.vnnlib", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["kind"] == "vnnlib" and obj["inputs"] == 2 and obj["outputs"] == 2
    assert obj["file"] == {"name": "prop.vnnlib", "sha256": cert["claim"]["property_sha256"],
                           "canonical_sha256": sha256_of(cert["claim"]["property"])}


def test_onnx_and_nnet_are_imported_where_a_json_model_is_expected(shared_dir, tmp_path, run_cli):
    nnet = shared_dir / "data" / "acasxu" / "ACASXU_experimental_v2a_1_1.nnet"
    assert run_cli("import", nnet, "-o", tmp_path / "acas.json")[0] == 0
    point = "0.1,0,0,0.2,-0.3"
    code, out, err = run_cli("eval", nnet, "--input", point)
    assert code == 0 and "imported on the fly as symrel import would" in err and err.count("\n") == 1
    assert out == run_cli("eval", tmp_path / "acas.json", "--input", point)[1]
    code, out, err = run_cli("info", nnet)
    assert code == 0 and "relus: 300" in out and "imported on the fly" in err


def test_a_binary_file_where_json_is_expected_gets_a_hint(tmp_path, run_cli):
    (tmp_path / "model.bin").write_bytes(b"\x08\x07\x12\x80\xff")
    for argv in (("eval", tmp_path / "model.bin", "--input", "1"), ("info", tmp_path / "model.bin")):
        code, _, err = run_cli(*argv)
        assert code == 2 and "must end in .onnx" in err and "symrel import" in err and err.count("\n") == 1


@pytest.mark.parametrize("ext, start", [("md", "# symrel verify: unsat"), ("html", "<!DOCTYPE html>"),
                                        ("tex", "\\documentclass")])
def test_the_verify_report_follows_its_extension(verified, run_cli, ext, start):
    report = verified / f"r.{ext}"
    code, _, err = run_cli("verify", verified / "net.json", verified / "prop.vnnlib", "--report", report,
                           "--certificate", verified / "c2.json", "--executor", "serial")
    assert code == 0, err
    text = report.read_text()
    digest = hashlib.sha256((verified / "c2.json").read_bytes()).hexdigest()
    assert text.startswith(start) and digest in text
    assert text.index("Result: unsat.") < text.index(digest) < text.index("How to read this report")


def test_a_json_report_is_the_verdict_and_a_bad_extension_is_refused_before_the_work(verified, run_cli,
                                                                                     monkeypatch):
    code, out, err = run_cli("verify", verified / "net.json", verified / "prop.vnnlib", "--report",
                             verified / "r.json", "--json", "--executor", "serial")
    assert code == 0, err
    report = json.loads((verified / "r.json").read_text())
    assert report == json.loads(out) and report["result"] == "unsat" and report["checked"] is True

    def refuse(*args, **kwargs):
        raise AssertionError("the engine must not run")

    stub = types.ModuleType("symrel.vnnlib.engine")
    stub.decide = refuse
    monkeypatch.setitem(sys.modules, "symrel.vnnlib.engine", stub)
    code, _, err = run_cli("verify", verified / "net.json", verified / "prop.vnnlib", "--report", verified / "r.txt")
    assert code == 2 and "--report" in err and not (verified / "r.txt").exists()


def test_the_other_commands_reports_follow_their_extension(tmp_path, run_cli):
    from symrel.models import Box

    save(NET, tmp_path / "net.json")
    save(Box([[0, 1], [0, 1]]), tmp_path / "box.json")
    for ext, start in (("html", "<!DOCTYPE html>"), ("tex", "\\documentclass"), ("md", "")):
        code, _, err = run_cli("crossval", tmp_path / "net.json", "--points", "3", "--report", tmp_path / f"x.{ext}")
        if find_spec("numpy") is None:   # crossval runs a float library: symrel's core names the extra
            assert code == 2 and err.count("\n") == 1 and "pip install 'symrel[numeric]'" in err, err
            assert not (tmp_path / f"x.{ext}").exists()
            continue
        assert code in (0, 1) and (tmp_path / f"x.{ext}").read_text().startswith(start), err
    if find_spec("numpy") is None:
        return
    code, _, err = run_cli("crossval", tmp_path / "net.json", "--points", "3", "--report", tmp_path / "x.json")
    assert "max_abs_error" in json.loads((tmp_path / "x.json").read_text())


def test_a_search_that_ends_late_is_unknown_naming_the_check(verified, run_cli, monkeypatch):
    """The whole command under --timeout: the search used all of it, so the check had none;
    the verdict names the check, the certificate is written unchecked, and the command's own
    clock says it ended by its budget."""
    from symrel.vnnlib import engine

    real = engine.decide
    (verified / "strips.vnnlib").write_text(STRIPS)

    def decide(net, prop, *, timeout=None, executor=None, progress=None):
        verdict = real(net, prop)
        time.sleep(timeout or 0)
        return verdict

    stub = types.ModuleType("symrel.vnnlib.engine")
    stub.decide = decide
    monkeypatch.setitem(sys.modules, "symrel.vnnlib.engine", stub)
    cert = verified / "late.json"
    code, out, err = run_cli("verify", verified / "net.json", verified / "strips.vnnlib", "--timeout", "2",
                             "--certificate", cert, "--executor", "serial", "--json")
    obj = json.loads(out)
    assert code == 3 and obj["result"] == "unknown" and obj["stage"] == "check" and obj["limit"] == "time"
    assert obj["checked"] is False and cert.exists() and obj["stats"]["seconds"] <= 2 + OVERRUN
    code, out, _ = run_cli("verify", verified / "net.json", verified / "strips.vnnlib", "--timeout", "2",
                           "--certificate", cert, "--executor", "serial")
    lines = out.splitlines()
    assert code == 3 and lines[0] == "unknown" and "during the trusted check of the certificate" in lines[2]
    assert lines[3].startswith(f"certificate {cert}: written, its check not finished")
    monkeypatch.undo()
    assert run_cli("check-certificate", cert)[0] == 0   # given the time, it checks


def test_info_hashes_a_domain_file_as_a_certificate_records_it(tmp_path, run_cli):
    from symrel.models import Box

    save(Box([[0, 1], ["-1/2", 2]]), tmp_path / "box.json")
    (tmp_path / "respaced.json").write_text(json.dumps(json.loads((tmp_path / "box.json").read_text())))
    outs = [json.loads(run_cli("info", tmp_path / name, "--json")[1]) for name in ("box.json", "respaced.json")]
    assert outs[0]["kind"] == "box" and outs[0]["file"]["sha256"] != outs[1]["file"]["sha256"]
    assert outs[0]["file"]["canonical_sha256"] == outs[1]["file"]["canonical_sha256"] == sha256_of(
        json.loads((tmp_path / "box.json").read_text()))


def test_info_hashes_a_certificate_as_its_json_object(verified, run_cli):
    """A certificate is kept as its JSON object: info prints its claim, inputs and steps (unchecked)
    and the sha256 of its canonical text (it was exit 2, "symrel cannot write objects of type dict")."""
    from symrel.verification import file_hashes

    code, out, err = run_cli("info", verified / "cert.json", "--json")
    assert code == 0, err
    js = json.loads(out)
    cert = json.loads((verified / "cert.json").read_text())
    assert js["kind"] == "certificate" and js["claim"] == "vnnlib-unsat" and js["inputs"] == ["network"]
    assert js["checked"] is False and js["steps"] == len(cert["steps"])
    assert js["file"]["canonical_sha256"] == sha256_of(cert) == file_hashes(verified / "cert.json")["canonical_sha256"]
    assert js["file"]["sha256"] == hashlib.sha256((verified / "cert.json").read_bytes()).hexdigest()


def test_a_bad_executor_is_named_as_the_option(verified, run_cli):
    code, _, err = run_cli("verify", verified / "net.json", verified / "prop.vnnlib", "--executor", "threads")
    assert code == 2 and err.startswith("symrel: error: --executor: expected serial") and "prop.vnnlib" not in err
