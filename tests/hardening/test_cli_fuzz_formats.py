"""Every command of the command line on broken files of every format it reads (issue 39, item 6).

test_cli_fuzz.py breaks the symrel JSON files of the model, domain, points and certificate
commands; this module breaks the other formats, each where a command reads it: ONNX (its
``ModelProto`` edited, corrupt_onnx.py, and its bytes), VNN-LIB, ``.nnet``, competition
instance lists (CSV), VNN-COMP counterexample files (corrupt.py's token and byte
strategies), and the JSON files of the commands test_cli_fuzz.py does not run (verify,
bounds, export, export-coq, crossval, info on every kind, the bindings of check-certificate).

Each run starts from the valid files of seeds.py, one of them broken, and must keep the
contract of docs/cli.md: an exit code the command documents (0, 1, 2, 3, and 4 for
``verify --check-witness``); when it fails, one line on standard error (``symrel: error:
...`` for exit 2), never a traceback and no warning; nothing half-written (no output at all
on exit 2, no temporary file ever, every JSON output complete). Besides that line, standard
error may hold only the notice of a model imported on the fly (and, for ``--instances``, one
line per instance).

The runs are in process (``symrel.cli.main``), derandomized, a bounded number per command;
a sample runs through real ``python -m symrel`` processes, and the long version of the fuzz
is marked slow.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from hypothesis import HealthCheck, given, settings  # noqa: E402

from symrel.cli.commands import SUMMARIES  # noqa: E402

from .corrupt import (CSV_TOKENS, NNET_TOKENS, VNNLIB_TOKENS, WITNESS_TOKENS, broken_bytes,  # noqa: E402
                      broken_file, broken_text_file)
from .corrupt_onnx import broken_onnx  # noqa: E402
from .kinds import SAMPLES  # noqa: E402
from .seeds import write_seeds  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = 12
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))

SERIAL = ["--executor", "serial"]
#: name: (argv, the seed broken in it, the format that breaks it). ``{seed}`` is a seed file,
#: ``{OUT}`` the output folder.
CASES = {
    # ONNX
    "info-onnx": (["info", "{onnx}"], "onnx"),
    "import-onnx": (["import", "{onnx}", "-o", "{OUT}/m.json"], "onnx"),
    "import-attention-onnx": (["import", "{attention-onnx}", "-o", "{OUT}/m.json", "--json"], "attention-onnx"),
    "verify-onnx": (["verify", "{onnx}", "{vnnlib}", "--timeout", "30", "--certificate", "{OUT}/c.json",
                     "--counterexample", "{OUT}/w.txt", *SERIAL], "onnx"),
    "check-witness-onnx": (["verify", "{onnx}", "{sat-vnnlib}", "--check-witness", "{witness}"], "onnx"),
    "crossval-onnx": (["crossval", "{net}", "--backend", "onnxruntime", "--onnx-file", "{onnx}", "--points", "4",
                       *SERIAL], "onnx"),
    "bind-onnx": (["check-certificate", "{certificate}", "--input", "a={onnx}"], "onnx"),
    "bind-network-onnx": (["check-certificate", "{vnnlib-certificate}", "--input", "network={onnx}"], "onnx"),
    "eval-onnx": (["eval", "{onnx}", "--input", "1/2,1/3"], "onnx"),
    "export-onnx": (["export", "{onnx}", "-o", "{OUT}/e.onnx"], "onnx"),
    "eval-attention-onnx": (["eval", "{attention-onnx}", "--input", "1/2"], "attention-onnx"),
    # VNN-LIB
    "verify-vnnlib": (["verify", "{nnet}", "{vnnlib}", "--timeout", "30", "--certificate", "{OUT}/c.json",
                       "--counterexample", "{OUT}/w.txt", "--report", "{OUT}/r.md", *SERIAL], "vnnlib"),
    "verify-sat-vnnlib": (["verify", "{net}", "{sat-vnnlib}", "--timeout", "30", "--json", *SERIAL], "sat-vnnlib"),
    "check-witness-vnnlib": (["verify", "{onnx}", "{sat-vnnlib}", "--check-witness", "{witness}"], "sat-vnnlib"),
    "info-vnnlib": (["info", "{vnnlib}"], "vnnlib"),
    "bind-vnnlib": (["check-certificate", "{vnnlib-certificate}", "--input", "property={vnnlib}"], "vnnlib"),
    # .nnet
    "import-nnet": (["import", "{nnet}", "-o", "{OUT}/m.json", "--normalise", "--box", "{OUT}/b.json"], "nnet"),
    "info-nnet": (["info", "{nnet}"], "nnet"),
    "verify-nnet": (["verify", "{nnet}", "{vnnlib}", "--timeout", "30", *SERIAL], "nnet"),
    "bind-nnet": (["check-certificate", "{certificate}", "--input", "b={nnet}"], "nnet"),
    "eval-nnet": (["eval", "{nnet}", "--inputs", "{points}"], "nnet"),
    # instance lists
    "instances-csv": (["verify", "--instances", "{csv}", "--out", "{OUT}/r.csv", "--timeout", "30", *SERIAL], "csv"),
    # counterexamples
    "check-witness": (["verify", "{onnx}", "{sat-vnnlib}", "--check-witness", "{witness}", "--report",
                       "{OUT}/r.md"], "witness"),
    "check-witness-nnet": (["verify", "{nnet}", "{sat-vnnlib}", "--check-witness", "{witness}", "--json"], "witness"),
    # symrel JSON, where test_cli_fuzz.py does not break it
    "verify-json": (["verify", "{net}", "{vnnlib}", "--timeout", "30", "--certificate", "{OUT}/c.json", *SERIAL],
                    "net"),
    "export-json": (["export", "{relu}", "-o", "{OUT}/e.onnx", "--dtype", "float16"], "relu"),
    "export-attention-json": (["export", "{hardmax}", "-o", "{OUT}/e.onnx"], "hardmax"),
    "export-torch-json": (["export", "{relu}", "-o", "{OUT}/e.pt"], "relu"),
    "export-coq": (["export-coq", "{compiled-certificate}", "-o", "{OUT}/coq"], "compiled-certificate"),
    "export-coq-vnnlib": (["export-coq", "{vnnlib-certificate}", "-o", "{OUT}/coq"], "vnnlib-certificate"),
    "crossval-json": (["crossval", "{relu}", "--points", "4", "--domain", "{box1}", "--report", "{OUT}/r.md",
                       *SERIAL], "relu"),
    "crossval-domain-json": (["crossval", "{net}", "--points", "4", "--domain", "{box}", *SERIAL], "box"),
    "check-vnnlib-certificate": (["check-certificate", "{vnnlib-certificate}", *SERIAL], "vnnlib-certificate"),
    "bind-json": (["check-certificate", "{certificate}", "--input", "a={net}"], "net"),
    "info-certificate": (["info", "{certificate}"], "certificate"),
    "info-points": (["info", "{points}"], "points"),
    "info-box": (["info", "{box}"], "box"),
    **{f"info-{kind}": (["info", "{" + kind + "}"], kind) for kind in SAMPLES if kind not in ("points",)},
    # symrel bounds: its network in every format, its region as a box or a VNN-LIB file
    "bounds-onnx": (["bounds", "{onnx}", "--prop", "{vnnlib}", "--timeout", "30", "--certificate",
                     "{OUT}/c.json", *SERIAL], "onnx"),
    "bounds-nnet": (["bounds", "{nnet}", "--box", "{box}", "--nodes", "20", "--json", *SERIAL], "nnet"),
    "bounds-json": (["bounds", "{net}", "--box", "{box}", "--timeout", "30", "--report", "{OUT}/r.md", *SERIAL],
                    "net"),
    "bounds-vnnlib": (["bounds", "{nnet}", "--prop", "{vnnlib}", "--timeout", "30", *SERIAL], "vnnlib"),
    "bounds-box": (["bounds", "{net}", "--box", "{box}", "--timeout", "30", "--certificate", "{OUT}/c.json",
                    *SERIAL], "box"),
}

#: commands that read no data file: what they are run with instead
EXEMPT = {"demo": "reads no file (test_cli.py runs it)",
          "mutate": "reads no file: the campaign builds its own instances (tests/mutation)",
          "proofs": "reads Python statement scripts, which are code, not data (tests/statements)",
          "audit-tracr": "reads a Python program, code not data; without tracr, refused in one line "
                         "(test_audit_tracr_without_its_extra)"}

#: lines standard error may hold besides the one line of a failure
NOTICE = re.compile(r"symrel: .*: imported on the fly as symrel import would \(.*")
INSTANCE_LINE = re.compile(r"(symrel: instance on line \d+: .*|\S.* \S.*: (sat|unsat|unknown|error) .* s.*)")


def _format(slot: str, seeds: dict) -> str:
    return Path(seeds[slot]).suffix.lstrip(".") or "txt"


def strategy(slot: str, folder: Path, seeds: dict):
    """The broken files of the seed ``slot``, by its format."""
    data = (folder / seeds[slot]).read_bytes()
    fmt = _format(slot, seeds)
    if fmt == "onnx":
        return broken_onnx(data)
    if fmt == "json":
        return broken_file(json.loads(data))
    pool = {"vnnlib": VNNLIB_TOKENS, "nnet": NNET_TOKENS, "csv": CSV_TOKENS, "txt": WITNESS_TOKENS}[fmt]
    return broken_text_file(data.decode("utf-8"), pool)


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    folder = tmp_path_factory.mktemp("seeds")
    return folder, write_seeds(folder)


def setup(name: str, seeds_folder: Path, seeds: dict, data: bytes | None, work: Path):
    """A copy of the seeds in ``work`` (the instance list names them relative to itself), the
    seed of ``name`` replaced by ``data``; returns (argv, broken file, output folder)."""
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(seeds_folder, work)
    out = work / "out"
    out.mkdir()
    argv_template, slot = CASES[name]
    broken = work / seeds[slot]
    if data is not None:
        broken.write_bytes(data)
    argv = []
    for a in argv_template:
        a = a.replace("{OUT}", str(out))
        for key, file in seeds.items():
            a = a.replace("{" + key + "}", str(work / file))
        argv.append(a)
    return argv, broken, out


def assert_contract(name: str, code, out_text: str, err: str, broken: Path, out: Path, work: Path) -> None:
    """The contract of the module docstring."""
    argv = CASES[name][0]
    codes = (0, 1, 2, 3, 4) if "--check-witness" in argv else (0, 1, 2, 3)
    assert code in codes, (code, err)
    assert "Traceback" not in err and "Traceback" not in out_text, err
    temporaries = [p for p in work.rglob("*") if p.name.endswith(".tmp") or (p.name.startswith(".") and p.is_file())]
    assert not temporaries, temporaries
    lines = [line for line in err.splitlines() if line.strip()]
    others = [line for line in lines if not NOTICE.fullmatch(line)]
    if "--instances" in argv:
        others = [line for line in others if not INSTANCE_LINE.fullmatch(line)]
    if code == 2:
        assert len(others) == 1 and others[0].startswith("symrel: error: "), err
        assert sorted(os.listdir(out)) == [], sorted(os.listdir(out))
    elif code != 0:
        assert len(others) <= 1, err
    for path in out.rglob("*.json"):   # whatever was written is whole
        json.loads(path.read_text(encoding="utf-8"))
    if code in (1, 3) and "--certificate" in argv and "check-certificate" not in argv:
        # a sat or open verdict keeps no certificate, except an unknown whose check did not finish
        assert not (out / "c.json").exists() or code == 3


def run_in_process(run_cli, argv):
    """``symrel.cli.main`` on ``argv``, with the warnings a real process would print recorded."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        code, so, err = run_cli(*argv)
    shown = [f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})" for w in caught]
    assert not shown, shown
    return code, so, err


def test_every_command_is_fuzzed_or_exempt():
    from .test_cli_fuzz import COMMANDS

    fuzzed = {argv[0] for argv in COMMANDS.values()} | {argv[0] for argv, _ in CASES.values()}
    assert set(SUMMARIES) == fuzzed | set(EXEMPT), set(SUMMARIES) ^ (fuzzed | set(EXEMPT))
    assert not fuzzed & set(EXEMPT)


def test_every_format_is_fuzzed(seeds):
    folder, names = seeds
    assert {_format(slot, names) for _, slot in CASES.values()} == {"onnx", "vnnlib", "nnet", "csv", "txt", "json"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_valid_files_run(run_cli, seeds, tmp_path, name):
    """The unbroken command keeps the contract and succeeds or decides (so the fuzz starts from sense)."""
    folder, names = seeds
    argv, broken, out = setup(name, folder, names, None, tmp_path / "work")
    code, so, err = run_in_process(run_cli, argv)
    assert_contract(name, code, so, err, broken, out, tmp_path / "work")
    assert code in (0, 1) or (name == "export-torch-json" and code == 2), (name, code, err)


def _fuzz(run_cli, seeds, tmp_path, name, examples):
    folder, names = seeds

    @settings(FUZZ, max_examples=examples)
    @given(strategy(CASES[name][1], folder, names))
    def run(data):
        work = tmp_path / "work"
        argv, broken, out = setup(name, folder, names, data, work)
        code, so, err = run_in_process(run_cli, argv)
        assert_contract(name, code, so, err, broken, out, work)

    run()


@pytest.mark.parametrize("name", sorted(CASES))
def test_broken_file(run_cli, seeds, tmp_path, name):
    _fuzz(run_cli, seeds, tmp_path, name, EXAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_broken_file_long(run_cli, seeds, tmp_path, name):
    _fuzz(run_cli, seeds, tmp_path, name, 150)


#: (case, how its file is broken) run through real processes: one of each format
PROCESS_SAMPLE = [("verify-onnx", b"\x08\x07not a model"), ("import-onnx", b""),
                  ("verify-vnnlib", b"(declare-const X_0 Real)\r(assert (<= X_0 (" + b"(" * 300),
                  ("import-nnet", b"2,2,2,2,\n2,2,2,\n0,\n0,0,\n1,\xff\n"),
                  ("instances-csv", b"net.onnx,prop.vnnlib,10,20\n"),
                  ("check-witness", b"sat\n((X_0 1e99999)\n (X_1 1))\n"),
                  ("verify-json", b'{"symrel": 1, "kind": "relu", "input_dim": 2, "layers": [NaN]}'),
                  ("check-vnnlib-certificate", b"[" * 5000)]


@pytest.mark.parametrize("name, data", PROCESS_SAMPLE, ids=[n for n, _ in PROCESS_SAMPLE])
def test_real_process_prints_one_line(seeds, tmp_path, name, data):
    folder, names = seeds
    work = tmp_path / "work"
    argv, broken, out = setup(name, folder, names, data, work)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "symrel", *argv], capture_output=True, text=True, timeout=300,
                          env=env)
    assert_contract(name, proc.returncode, proc.stdout, proc.stderr, broken, out, work)
    assert proc.returncode == 2, proc.stderr


def test_audit_tracr_without_its_extra(run_cli, tmp_path):
    try:
        import tracr  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("tracr is installed (tests/interop runs audit-tracr)")
    program = tmp_path / "p.py"
    program.write_text("def make():\n    return None\n")
    code, so, err = run_cli("audit-tracr", f"{program}:make", "--vocab", "1,2", "--max-seq-len", "2")
    assert code == 2 and len(err.strip().splitlines()) == 1 and err.startswith("symrel: error: "), err
