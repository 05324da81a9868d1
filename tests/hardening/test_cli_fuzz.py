"""Fuzzed input files through every file-reading subcommand of the command line.

One input file of a valid command is broken (see corrupt.py); the command must end with
an exit code of FORMAT.md, never a traceback. On exit 2 standard error holds one line
``symrel: error: FILE: PATH: ...`` naming the broken file; whenever the command does not
succeed, the output folder stays empty (a refutation may write only the counterexample it
was asked for), and no temporary file is ever left behind. The other formats (ONNX, VNN-LIB,
``.nnet``, instance lists, counterexamples) and the commands not run here are broken the same
way in test_cli_fuzz_formats.py, which also checks that every command is fuzzed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings

import re

from .corrupt import bad_values, broken_file, values_without
from .kinds import BOX1, HARDMAX_TRANSFORMER, POINTS1, SAMPLES, certificate

FUZZ = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])

# every command that reads files; {kind} is an input file of that kind, {OUT} the output folder
COMMANDS = {
    "info": ["info", "{maxout}"],
    "info-transformer": ["info", "{transformer}"],
    "eval": ["eval", "{relu}", "--inputs", "{points1}"],
    "eval-maxout": ["eval", "{maxout}", "--inputs", "{points}", "--json"],
    "eval-features": ["eval", "{relation-features}", "--part", "psi", "--inputs", "{points1}"],
    "convert": ["convert", "{cpwl1d}", "--to", "maxout", "-o", "{OUT}/m.json"],
    "compile": ["compile", "{maxout}", "--domain", "{box}", "-o", "{OUT}/t.json"],
    "prove": ["prove", "{relu}", "{cpwl1d}", "--domain", "{box1}", "--certificate", "{OUT}/c.json",
              "--report", "{OUT}/r.md", "--counterexample", "{OUT}/x.json"],
    "prove-complete": ["prove", "{maxout}", "{maxout}", "--domain", "{box}", "--complete", "--max-cells", "50",
                       "--certificate", "{OUT}/c.json"],
    "regions": ["regions", "{maxout}", "--domain", "{polytope}", "--max-cells", "100", "--certificate", "{OUT}/c.json"],
    "regions-transformer": ["regions", "{hardmax}", "--domain", "{box1}", "--max-cells", "100"],
    "preorder": ["preorder", "{preorder}", "--certificate", "{OUT}/c.json", "--json"],
    "retrieval": ["retrieval", "{retrieval}", "--certificate", "{OUT}/c.json", "-o", "{OUT}/f.json",
                  "--report", "{OUT}/r.md", "--max-subset", "2"],
    "relation": ["relation", "{relation}", "-o", "{OUT}/f.json", "--certificate", "{OUT}/c.json", "--report", "{OUT}/r.md"],
    "relation-check": ["relation", "{relation}", "--check", "{relation-features}"],
    "softmax-bound": ["softmax-bound", "{transformer}", "--domain", "{box1}", "--eps", "1/10",
                      "--certificate", "{OUT}/c.json"],
    "check-certificate": ["check-certificate", "{certificate}"],
}
# Huge numbers are kept out of the fuzz of the region, complete-proof and softmax-bound
# commands: they are handled correctly (test_limits.py has one regression test for each), but
# exact LPs and interval searches on 10,000-digit data are too slow for a bounded fuzz.
VALUES = {"regions": values_without("huge"), "prove-complete": values_without("huge"),
          "regions-transformer": values_without("huge"), "softmax-bound": values_without("huge")}
KINDS = {**SAMPLES, "box1": BOX1, "points1": POINTS1, "hardmax": HARDMAX_TRANSFORMER}


def _files_of(argv):
    return [a[1:-1] for a in argv if a.startswith("{") and a != "{OUT}" and not a.startswith("{OUT}")]


def _case(name):
    """(argv template, kind) for every input file of every command."""
    return [(name, slot) for slot in dict.fromkeys(_files_of(COMMANDS[name]))]


CASES = [c for name in COMMANDS for c in _case(name)]


def _sample(kind):
    return certificate() if kind == "certificate" else KINDS[kind]


def _setup(name, broken_slot, data):
    folder = tempfile.mkdtemp(prefix="symrel-cli-fuzz-")
    out = os.path.join(folder, "out")
    os.mkdir(out)
    paths = {}
    for kind in _files_of(COMMANDS[name]):
        path = os.path.join(folder, f"{kind}.json")
        with open(path, "wb") as fh:
            fh.write(data if kind == broken_slot else json.dumps(_sample(kind)).encode())
        paths[kind] = path
    argv = []
    for a in COMMANDS[name]:
        if a.startswith("{OUT}"):
            argv.append(out + a[5:])
        elif a.startswith("{"):
            argv.append(paths[a[1:-1]])
        else:
            argv.append(a)
    return argv, paths[broken_slot], out


def assert_contract(code, err, broken, out):
    assert code in (0, 1, 2, 3), (code, err)
    left = sorted(os.listdir(out))
    assert not [f for f in left if f.endswith(".tmp") or f.startswith(".")], left
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert lines[0].startswith("symrel: error: "), err
        # the broken file is named, or, when files disagree with each other (two models
        # with different output counts), the role and path of the field at fault
        assert broken in lines[0] or re.match(r"symrel: error: [\w.\[\]]+: ", lines[0]), err
    # a refuted or open claim writes only what explains it when asked: the counterexample and
    # the report (which leads with the counterexample or the obstacle), never a certificate
    if code == 2:
        assert left == [], left
    if code == 3:
        assert left in ([], ["r.md"]), left
    if code == 1:
        assert left in ([], ["x.json"], ["r.md"], ["r.md", "x.json"]), left


@pytest.mark.parametrize("name, slot", CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_valid_files_run(run_cli, name, slot):
    """The unbroken command itself runs within the contract (so the fuzz starts from sense)."""
    argv, broken, out = _setup(name, slot, json.dumps(_sample(slot)).encode())
    code, _, err = run_cli(*argv)
    assert code in (0, 1, 3), err
    assert_contract(code, err, broken, out)


@pytest.mark.parametrize("name, slot", CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_broken_input_file(run_cli, name, slot):
    @FUZZ
    @given(broken_file(_sample(slot), VALUES.get(name, bad_values), leaves_only=name == "check-certificate"))
    def run(data):
        argv, broken, out = _setup(name, slot, data)
        code, _, err = run_cli(*argv)
        assert_contract(code, err, broken, out)

    run()


@pytest.mark.parametrize("name, slot", [("prove", "relu"), ("regions", "polytope"), ("relation", "relation"),
                                        ("retrieval", "retrieval"), ("check-certificate", "certificate")])
@pytest.mark.parametrize("data", [b'{"symrel": 1, "kind": "relu", "input_dim": 1' + b"0" * 5, b"\xff\xfe{",
                                  b'{"symrel": 1, "kind": [NaN]}', b"[" * 5000])
def test_real_process_prints_no_traceback(name, slot, data):
    """A few real processes: nothing but the one-line error reaches standard error."""
    argv, broken, out = _setup(name, slot, data)
    proc = subprocess.run([sys.executable, "-m", "symrel", *argv], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr
    assert_contract(proc.returncode, proc.stderr, broken, out)
    assert proc.returncode == 2
