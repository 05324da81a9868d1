"""``symrel bounds`` on the command line: what it prints, its exit codes, the certificate that
``symrel check-certificate`` accepts and binds to the files, reports that follow their extension."""

import json

import pytest

from symrel.fileformat import save
from symrel.models import Box

from ..verification.cases import NET, SAT


@pytest.fixture
def folder(tmp_path):
    save(NET, tmp_path / "net.json")
    save(Box([(0, 1), (0, "1/2")]), tmp_path / "box.json")
    (tmp_path / "sat.vnnlib").write_text(SAT)
    return tmp_path


def test_bounds_are_printed_certified_and_the_certificate_checks_again(folder, run_cli):
    code, out, err = run_cli("bounds", folder / "net.json", "--box", folder / "box.json", "--nodes", "50",
                             "--certificate", folder / "c.json", "--executor", "serial")
    assert code == 0, err
    lines = out.splitlines()
    # f = (relu(x0 - x1), relu(x1)) on [0, 1] x [0, 1/2]
    assert lines[0] == "certified"
    assert lines[1].startswith("Y_0 >= 0  (attained at x = (")
    assert lines[2].startswith("Y_0 <= 1  (attained at x = (1, 0)")
    assert lines[3].startswith("Y_1 >= 0  (attained") and lines[4].startswith("Y_1 <= 1/2  (attained at x = (")
    assert f"certificate {folder / 'c.json'}: checked in" in out
    code, out, err = run_cli("check-certificate", folder / "c.json", "--input", f"network={folder / 'net.json'}",
                             "--input", f"region={folder / 'box.json'}")
    assert code == 0 and out.splitlines()[-1] == "checked", err
    assert "0 <= Y_0 <= 1 (the minimum and the maximum attained)" in out


def test_a_property_region_and_chosen_outputs_in_json(folder, run_cli):
    code, out, err = run_cli("bounds", folder / "net.json", "--prop", folder / "sat.vnnlib", "--outputs", "1",
                             "--json", "--executor", "serial")
    assert code == 0, err
    info = json.loads(out)
    assert info["result"] == "certified" and info["checked"] is True and "limit" not in info   # attained at once
    assert [b["output"] for b in info["bounds"]] == [1] and info["bounds"][0]["upper"] == 1
    assert "output constraints (1 disjunct) are ignored" in info["notes"][0]
    assert info["files"]["region"]["name"] == "sat.vnnlib"


@pytest.mark.parametrize("ext, start", [(".md", "# symrel bounds: certified"), (".html", "<!DOCTYPE html>"),
                                        (".tex", "\\documentclass")])
def test_the_report_follows_its_extension(folder, run_cli, ext, start):
    code, out, err = run_cli("bounds", folder / "net.json", "--box", folder / "box.json", "--executor", "serial",
                             "--report", folder / f"r{ext}")
    assert code == 0, err
    text = (folder / f"r{ext}").read_text()
    assert text.lstrip().startswith(start) and "Y_1" in text


def test_a_json_report_is_the_json_output(folder, run_cli):
    code, out, _ = run_cli("bounds", folder / "net.json", "--box", folder / "box.json", "--executor", "serial",
                           "--json", "--report", folder / "r.json")
    assert code == 0
    report = json.loads((folder / "r.json").read_text())
    printed = json.loads(out)
    assert report["bounds"] == printed["bounds"] and report["result"] == "certified"


@pytest.mark.parametrize("args, words", [
    (["--box", "{box}", "--prop", "{prop}"], "not allowed with argument"),
    ([], "one of the arguments --box --prop is required"),
    (["--box", "{box}", "--outputs", "0,x"], "--outputs: expected output indices"),
    (["--box", "{box}", "--outputs", "0,0"], "--outputs: expected each output once"),
    (["--box", "{box}", "--outputs", "5"], "outputs: expected distinct outputs in 0..1"),
    (["--box", "{box}", "--nodes", "0"], "--nodes: expected a positive number of nodes"),
    (["--box", "{box}", "--report", "r.pdf"], "--report: expected a report file ending in"),
    (["--box", "{net}"], "net.json"),
])
def test_bad_usage_exits_2_with_one_line(folder, run_cli, args, words):
    args = [a.format(box=folder / "box.json", prop=folder / "sat.vnnlib", net=folder / "net.json") for a in args]
    code, out, err = run_cli("bounds", folder / "net.json", *args, "--executor", "serial")
    assert code == 2 and words in err, err
    assert "Traceback" not in err


def test_a_time_limit_spent_before_the_search_exits_3_with_no_bounds(folder, run_cli):
    code, out, err = run_cli("bounds", folder / "net.json", "--box", folder / "box.json", "--timeout", "1e-9",
                             "--executor", "serial")
    assert code == 3 and out.splitlines()[0] == "no bounds" and "no bounds" in out.splitlines()[-1]


def test_no_check_computes_the_bounds_unchecked(folder, run_cli):
    code, out, _ = run_cli("bounds", folder / "net.json", "--box", folder / "box.json", "--no-check",
                           "--executor", "serial")
    assert code == 0 and out.splitlines()[0] == "not checked" and "not checked (--no-check)" in out


def test_the_certificate_binds_to_the_files_it_was_written_from(folder, run_cli):
    """--input network=FILE and region=FILE (the .vnnlib file itself, or a box file of the same
    box) bind the certificate; another file of the same bytes' name does not."""
    code, _, err = run_cli("bounds", folder / "net.json", "--prop", folder / "sat.vnnlib", "--certificate",
                           folder / "c.json", "--executor", "serial")
    assert code == 0, err
    code, out, err = run_cli("check-certificate", folder / "c.json", "--input", f"network={folder / 'net.json'}",
                             "--input", f"region={folder / 'sat.vnnlib'}", "--executor", "serial", "--progress")
    assert code == 0, err
    assert "the box of its input region" in out and "its bytes are those of sat.vnnlib" in out
    (folder / "other.vnnlib").write_text((folder / "sat.vnnlib").read_text() + "\n; a comment\n")
    code, _, err = run_cli("check-certificate", folder / "c.json", "--input", f"region={folder / 'other.vnnlib'}")
    assert code == 1 and "claim.region_file.sha256" in err and "not the same file" in err
    save(Box([(0, 1), (0, 1)]), folder / "unit.json")   # the same box, but not the file the bounds read
    code, _, err = run_cli("check-certificate", folder / "c.json", "--input", f"region={folder / 'unit.json'}")
    assert code == 1 and "claim.region_file.sha256" in err
