"""``symrel regions``: the count alone on the last line, --json, plots, limits, errors."""

import json

import pytest

LINES = """{"symrel": 1, "kind": "relu", "input_dim": 2,
 "layers": [{"W": [[1,0],[0,1],[1,1]], "b": [0,0,-1], "activation": "relu"},
            {"W": [[1,1,1]], "b": [0], "activation": "none"}]}"""
BOX = '{"symrel": 1, "kind": "box", "bounds": [[-3, 3], [-3, 3]]}'


@pytest.fixture
def files(tmp_path):
    m, d = tmp_path / "lines.json", tmp_path / "box.json"
    m.write_text(LINES)
    d.write_text(BOX)
    return m, d


def test_count_on_the_last_line(run_cli, files):
    m, d = files
    code, out, err = run_cli("regions", m, "--domain", d, "--kind", "activation")
    assert code == 0 and out.splitlines()[-1] == "7"


def test_json_output(run_cli, files):
    m, d = files
    code, out, err = run_cli("regions", m, "--domain", d, "--json")
    obj = json.loads(out)
    assert code == 0 and obj["count"] == 7 and obj["kind"] == "linear" and obj["cells"] == 7 and "time" in obj


def test_cell_limit_exits_3(run_cli, files):
    m, d = files
    code, out, err = run_cli("regions", m, "--domain", d, "--max-cells", "2")
    assert code == 3 and "cell limit" in err and out == ""


def test_wrong_domain_dimension_exits_2(run_cli, files, tmp_path):
    m, _ = files
    d1 = tmp_path / "d1.json"
    d1.write_text('{"symrel": 1, "kind": "box", "bounds": [[0, 1]]}')
    code, out, err = run_cli("regions", m, "--domain", d1)
    assert code == 2 and "dimension" in err and len(err.strip().splitlines()) == 1


def test_plot_png(run_cli, files, tmp_path):
    pytest.importorskip("matplotlib")
    m, d = files
    png = tmp_path / "cells.png"
    code, out, err = run_cli("regions", m, "--domain", d, "--plot", png)
    assert code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_svg_of_a_1d_function(run_cli, tmp_path):
    pytest.importorskip("matplotlib")
    f, d, svg = tmp_path / "f.json", tmp_path / "d.json", tmp_path / "f.svg"
    f.write_text('{"symrel": 1, "kind": "cpwl1d", "x": [0, "1/2", 1, 2], "y": [0, 1, 0, "1/2"]}')
    d.write_text('{"symrel": 1, "kind": "box", "bounds": [[-1, 3]]}')
    code, out, err = run_cli("regions", f, "--domain", d, "--plot", svg)
    assert code == 0 and out.splitlines()[-1] == "3" and b"<svg" in svg.read_bytes()


def test_certificate_of_the_count_checks(run_cli, files, tmp_path):
    m, d = files
    cert = tmp_path / "count.json"
    code, out, err = run_cli("regions", m, "--domain", d, "--certificate", cert)
    assert code == 0 and out.splitlines()[-1] == "7"
    code, out, err = run_cli("check-certificate", cert)
    assert code == 0 and out.splitlines()[-1] == "checked"
