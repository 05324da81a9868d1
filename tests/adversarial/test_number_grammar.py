"""One number grammar, ASCII only (issue 39, item 4): every Unicode character that Python takes
for a digit or a number (``isdigit``, ``isdecimal``, ``isnumeric``, categories Nd, No, Nl), and
the signs, slashes, points and spaces that look like number text, placed in a number through
every reader symrel has: refused with one line naming the file and the field, never read as a
number and never a traceback.

Every character goes through every reader in process; a sample goes through the command line
in process (``symrel.cli.main``), and the hostile files of ``files/`` (README.md) through a real
``python -m symrel`` each.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import unicodedata
from functools import lru_cache
from pathlib import Path

import pytest

from symrel.checking import MalformedCertificate, check_certificate
from symrel.checking import read as checker_read
from symrel.errors import InputError
from symrel.exact import (format_rational, integer_from_text, is_rational_text, number_from_text, rational,
                          rational_ints)
from symrel.fileformat import loads, sha256_of
from symrel.fileformat.registry import from_json

HERE = Path(__file__).resolve().parent
FILES = HERE / "files"
ROOT = HERE.parents[1]

#: characters outside ASCII that look like parts of number text: signs, slashes, points,
#: exponents, separators and spaces (the numeric ones are found by numeric_characters)
LOOKALIKES = (
    "\u2212\u2010\u2011\u2012\u2013\u2014\u00ad\ufe63\uff0d\u207b\u208b"   # minus and hyphens
    "\u207a\u208a\ufe62\uff0b"                                             # plus signs
    "\u2044\u2215\u29f8\uff0f"                                             # fraction and division slashes
    "\u066b\u066c\u2024\ufe52\uff0e\u00b7\u2027\u3002\u060c\u066a"         # points and separators
    "\uff45\uff25\u212f\u1d49"                                             # letters e
    "\u00a0\u2009\u202f\u2007\u3000\u2028\u2029\u0085\ufeff\u200b\u1680"   # spaces, breaks, zero widths
)

#: where a bad character is put in a number's text
TEMPLATES = ("{c}", "1{c}", "{c}1", "-{c}", "1/{c}", "{c}/2", "1.{c}", "{c}.5", "1e{c}", "1{c}5")


@lru_cache(maxsize=1)
def numeric_characters() -> tuple[str, ...]:
    """Every character outside ASCII that Python calls a digit, a decimal or numeric, or puts
    in category Nd, No or Nl (about 1,900 under Python 3.11)."""
    out = []
    for code in range(0x80, sys.maxunicode + 1):
        c = chr(code)
        if c.isdigit() or c.isdecimal() or c.isnumeric() or unicodedata.category(c) in ("Nd", "No", "Nl"):
            out.append(c)
    return tuple(out)


def foreign_characters() -> tuple[str, ...]:
    return numeric_characters() + tuple(LOOKALIKES)


def sample() -> tuple[str, ...]:
    """A sample for the command line: every 40th numeric character and every lookalike."""
    return numeric_characters()[::40] + tuple(LOOKALIKES)


def refused_in_one_line(message: str, c: str, *names: str) -> None:
    """The message of a refusal is one line, names every one of ``names`` (the file, the field)
    and the character ``c`` by its code point."""
    assert "\n" not in message and "\r" not in message, message
    assert f"U+{ord(c):04X}" in message, message
    for name in names:
        assert name in message, (name, message)


def test_the_characters_are_the_ones_python_reads_as_numbers():
    chars = numeric_characters()
    assert len(chars) > 1500 and all(not c.isascii() for c in chars)
    assert {"\u00b2", "\u0663", "\uff11", "\u00bd", "\u2167"} <= set(chars)   # ², ٣, １, ½, Ⅷ
    assert int("\u0663") == 3   # what the grammar stands against: int() reads another script's digits


def test_the_grammar_reads_its_forms_exactly():
    forms = {"3": 3, "-2/7": "-2/7", "+4/-6": "-2/3", "0.125": "1/8", "-.5": "-1/2", "7.": 7, "1e-3": "1/1000",
             "2.5E2": 250, " 12 / 8 ": "3/2", "\t10\n": 10, "007": 7}
    for text, value in forms.items():
        assert format_rational(number_from_text(text)) == value, text
        assert format_rational(checker_read.rational(text, "x")) == value, text   # the checker's copy agrees
        assert format_rational(rational(text)) == value, text
    for bad in ("", ".", "1_000", "0x10", "1e", "e3", "--1", "1//2", "nan", "inf", "1/0", "1 2", "١"):
        with pytest.raises(InputError):
            number_from_text(bad)
        with pytest.raises(MalformedCertificate):
            checker_read.rational(bad, "x")


def test_every_character_is_refused_by_the_one_reader_and_by_the_checkers_copy():
    for c in foreign_characters():
        for template in TEMPLATES:
            text = template.format(c=c)
            with pytest.raises(InputError) as err:
                number_from_text(text, path="layers[0].b")
            refused_in_one_line(str(err.value), c, "layers[0].b")
            with pytest.raises(InputError):
                rational(text, path="w[0]")
            with pytest.raises(InputError):
                rational_ints(text, path="w[0]")
            with pytest.raises(MalformedCertificate) as err:
                checker_read.rational_pair(text, "steps[1].certificate.bound")
            refused_in_one_line(str(err.value), c, "steps[1].certificate.bound")
            assert not is_rational_text(text)
        with pytest.raises(InputError) as err:
            integer_from_text("1" + c, path="line 2, field 1")
        refused_in_one_line(str(err.value), c, "line 2, field 1")


def test_every_character_in_a_json_model_weight_is_refused_with_its_path():
    for c in foreign_characters():
        obj = loads(json.dumps({"symrel": 1, "kind": "maxout", "input_dim": 1,
                                "layers": [{"units": [{"pieces": [{"w": [f"1{c}"], "b": 0}]}]}]}))
        with pytest.raises(InputError) as err:
            from_json(obj)
        refused_in_one_line(str(err.value), c, "layers[0].units[0].pieces[0].w[0]")


def test_every_character_in_a_json_domain_and_points_is_refused_with_its_path():
    for c in foreign_characters():
        with pytest.raises(InputError) as err:
            from_json(loads(json.dumps({"symrel": 1, "kind": "box", "bounds": [[f"{c}1", 1]]})))
        refused_in_one_line(str(err.value), c, "bounds[0][0]")
        with pytest.raises(InputError) as err:
            from_json(loads(json.dumps({"symrel": 1, "kind": "points", "x": [[0, f"1.{c}"]]})))
        refused_in_one_line(str(err.value), c, "x[0][1]")


def test_every_character_in_a_vnnlib_constant_or_index_is_refused_with_its_line():
    from symrel.vnnlib.reader import read_vnnlib_text

    head = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n"
    for c in foreign_characters():
        for text in (f"{head}(assert (<= X_0 1{c}))", f"{head}(assert (>= Y_0 {c}5))",
                     f"{head}(assert (<= (* {c} X_0) 1))", f"(declare-const X_{c} Real)"):
            with pytest.raises(InputError) as err:
                read_vnnlib_text(text, source="p.vnnlib")
            refused_in_one_line(str(err.value), c, "p.vnnlib", "line ")


def test_every_character_in_a_nnet_field_is_refused_with_its_line_and_field():
    from symrel.interop.nnet import load_nnet

    good = (FILES / "net-identity.nnet").read_text().splitlines()
    for c in foreign_characters():
        for line, text in ((8, f"1{c},"), (1, f"{c},1,1,1,")):   # the weight, the layer count of the header
            lines = list(good)
            lines[line] = text
            with pytest.raises(InputError) as err:
                load_nnet("w.nnet", text="\n".join(lines) + "\n")
            refused_in_one_line(str(err.value), c, "w.nnet", f"line {line + 1}, field 1")


def test_every_character_in_a_counterexample_value_is_refused_with_its_line():
    from symrel.vnnlib.witness import read_witness_text

    for c in foreign_characters():
        for value in (f"0.{c}", f"{c}1", f"1e{c}"):
            with pytest.raises(InputError) as err:
                read_witness_text(f"sat\n((X_0 {value})\n (Y_0 0.5))\n", n_inputs=1, n_outputs=1, source="w.txt")
            refused_in_one_line(str(err.value), c, "w.txt", "line 2")


def test_every_character_in_an_instance_timeout_is_refused_with_its_line():
    from symrel.cli.vnn import read_instances

    for c in foreign_characters():
        with pytest.raises(InputError) as err:
            read_instances("instances.csv", text=f"a.onnx,b.vnnlib,1{c}\r\n")
        refused_in_one_line(str(err.value), c, "instances.csv", "line 1")


def test_every_character_in_a_numeric_option_is_refused():
    from symrel.cli.common import integer_option, parse_point, positive_seconds

    for c in foreign_characters():
        with pytest.raises(InputError) as err:
            parse_point(f"1/2,1{c}", "--input")
        refused_in_one_line(str(err.value), c, "--input[1]")
        with pytest.raises(argparse.ArgumentTypeError) as err:
            integer_option(f"1{c}")
        refused_in_one_line(str(err.value), c)
        with pytest.raises(argparse.ArgumentTypeError) as err:
            positive_seconds(f"{c}1")
        refused_in_one_line(str(err.value), c)


@lru_cache(maxsize=1)
def _certificate() -> str:
    return (FILES / "certificate-decimal-string-0.1.json").read_text()


def test_every_character_in_a_certificate_is_refused_by_the_checker_with_its_path():
    for c in foreign_characters():
        cert = json.loads(_certificate())
        entry = cert["inputs"]["b"]
        entry["object"]["layers"][0]["units"][0]["pieces"][0]["w"] = [f"1{c}"]
        entry["sha256"] = sha256_of(entry["object"])   # the hash right: the number itself is refused
        with pytest.raises(MalformedCertificate) as err:
            check_certificate(loads(json.dumps(cert)))
        refused_in_one_line(str(err.value), c, "inputs.b.object.layers[0].units[0].pieces[0].w[0]")
        cert = json.loads(_certificate())
        cert["steps"][1]["certificate"]["nodes"][0]["range"][1] = f"1/1{c}"
        with pytest.raises(MalformedCertificate) as err:
            check_certificate(loads(json.dumps(cert)))
        refused_in_one_line(str(err.value), c, "steps[1].certificate.nodes[0].range[1]")


# -- through the command line -------------------------------------------------------------------

def _one_error_line(err: str, c: str, *names: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("symrel: error: "), err
    assert "Traceback" not in err
    refused_in_one_line(lines[0], c, *names)


@pytest.fixture
def files(tmp_path, monkeypatch) -> Path:
    """A copy of files/, the working folder of the commands (they write beside their inputs)."""
    folder = tmp_path / "files"
    shutil.copytree(FILES, folder)
    monkeypatch.chdir(folder)
    return folder


def test_a_sample_of_characters_through_every_reader_of_the_command_line(run_cli, files):
    net = json.loads((files / "net-relu-identity.json").read_text())
    good_nnet = (files / "net-identity.nnet").read_text().splitlines()
    cert = json.loads(_certificate())
    for k, c in enumerate(sample()):
        bad = f"1{c}"
        model = json.loads(json.dumps(net))
        model["layers"][0]["b"] = [bad]
        (files / "m.json").write_text(json.dumps(model), encoding="utf-8")
        (files / "p.vnnlib").write_text(f"(declare-const X_0 Real)\n(declare-const Y_0 Real)\n"
                                        f"(assert (<= X_0 {bad}))\n", encoding="utf-8")
        lines = list(good_nnet)
        lines[8] = bad + ","
        (files / "n.nnet").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (files / "w.txt").write_text(f"sat\n((X_0 {bad})\n (Y_0 1))\n", encoding="utf-8")
        (files / "i.csv").write_text(f"net-identity.nnet,prop-x-le-1.vnnlib,{bad}\n", encoding="utf-8")
        tampered = json.loads(json.dumps(cert))
        tampered["inputs"]["b"]["object"]["layers"][0]["units"][0]["pieces"][1]["b"] = bad
        tampered["inputs"]["b"]["sha256"] = sha256_of(tampered["inputs"]["b"]["object"])
        (files / "c.json").write_text(json.dumps(tampered), encoding="utf-8")
        runs = [
            (("eval", "m.json", "--input", "1"), ("m.json", "layers[0].b[0]")),
            (("eval", "net-relu-identity.json", "--input", bad), ("--input[0]",)),
            (("verify", "net-identity.nnet", "p.vnnlib"), ("p.vnnlib", "line 3")),
            (("import", "n.nnet", "-o", "out.json"), ("n.nnet", "line 9, field 1")),
            (("verify", "net-identity.nnet", "prop-x-le-1.vnnlib", "--check-witness", "w.txt"), ("w.txt", "line 2")),
            (("verify", "--instances", "i.csv", "--out", "out.csv"), ("i.csv", "line 1")),
            (("check-certificate", "c.json"), ("c.json", "inputs.b.object.layers[0].units[0].pieces[1].b")),
            (("regions", "m.json", "--domain", "json-unicode-minus-domain.json", "--max-cells", bad), ("--max-cells",)),
        ]
        for argv, names in runs:
            code, out, err = run_cli(*argv)
            assert code == 2, (argv, c, out, err)
            _one_error_line(err, c, *names)
        assert not (files / "out.json").exists()   # nothing half-written


def _readme_rows() -> list[tuple[str, str, str]]:
    """(file, command, exit) of every row of README.md that has a command and an exit code."""
    rows = []
    for line in (HERE / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`") and cells[2].startswith("`symrel ") and cells[3].isdigit():
            rows.append((cells[0].strip("`"), cells[2].strip("`"), cells[3]))
    return rows


#: this module's hostile files (README.md lists them, with others' files)
NUMBER_FILES = ("json-superscript-weight.json", "json-arabic-indic-weight.json", "json-unicode-minus-domain.json",
                "json-fullwidth-point.json", "json-fraction-slash-weight.json", "vnnlib-arabic-indic-bound.vnnlib",
                "vnnlib-superscript-bound.vnnlib", "vnnlib-thin-space-number.vnnlib",
                "vnnlib-arabic-indic-index.vnnlib", "nnet-superscript-weight.nnet", "nnet-arabic-indic-header.nnet",
                "nnet-line-separator-weight.nnet", "witness-unicode-minus.txt", "witness-arabic-indic-value.txt",
                "instances-arabic-indic-timeout.csv", "instances-underscore-timeout.csv",
                "certificate-superscript-number.json", "certificate-step-arabic-indic.json",
                "certificate-lone-surrogate.json")


@pytest.mark.parametrize("name", NUMBER_FILES)
def test_each_hostile_file_is_refused_by_a_real_process_in_one_line(name, files):
    rows = {file: (command, code) for file, command, code in _readme_rows()}
    assert name in rows, f"{name} has no row in tests/adversarial/README.md"
    command, code = rows[name]
    assert code == "2"
    argv = command.split()[1:]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    run = subprocess.run([sys.executable, "-m", "symrel", *argv], capture_output=True, text=True, encoding="utf-8",
                         cwd=files, env=env, timeout=120)
    assert run.returncode == 2, (command, run.stdout, run.stderr)
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("symrel: error: ") and "Traceback" not in run.stderr, run.stderr
    assert name in lines[0], lines[0]
    assert not (files / "out.json").exists()   # nothing half-written
