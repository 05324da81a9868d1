"""Start-up: ``symrel --version`` and ``--help`` import no subcommand module, so neither
sympy nor the provers (the subcommands are listed by symrel.cli.commands.SUMMARIES)."""

import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import symrel
from symrel.cli import build_parser, commands
from symrel.cli.commands import SUMMARIES, module_name

ROOT = Path(symrel.__file__).resolve().parents[1]
HEAVY = ("sympy", "mpmath", "networkx", "numpy", "symrel.exact", "symrel.models", "symrel.cli.commands.")


def _run(*args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)


def _imported(*args):
    """The modules ``python -X importtime ARGS`` reports (on stderr), and the run."""
    out = _run("-X", "importtime", *args)
    return out, [line.split("|")[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")]


def _loaded(*argv):
    """``sys.modules`` after ``python -m symrel ARGV`` (importtime does not see importlib.import_module)."""
    code = ("import runpy, sys\n"
            f"sys.argv = ['symrel', *{list(argv)!r}]\n"
            "try:\n    runpy.run_module('symrel', run_name='__main__', alter_sys=True)\n"
            "except SystemExit:\n    pass\n"
            "print('MODULES', *sorted(sys.modules))\n")
    out = _run("-c", code)
    return out.stdout.splitlines()[-1].split()[1:]


@pytest.mark.parametrize("args", [("-m", "symrel", "--version"), ("-m", "symrel", "--help"),
                                  ("-m", "symrel.cli", "--version"), ("-c", "import symrel")])
def test_start_up_imports_nothing_heavy(args):
    out, names = _imported(*args)
    assert out.returncode == 0, out.stderr[-500:]
    assert names and not [n for n in names if n.startswith(HEAVY)]
    if "--version" in args:
        assert out.stdout.strip() == f"symrel {symrel.__version__}"


@pytest.mark.parametrize("argv", [("--version",), ("--help",), ()])
def test_start_up_loads_nothing_heavy(argv):
    loaded = _loaded(*argv)
    assert "symrel.cli" in loaded and not [n for n in loaded if n.startswith(HEAVY)]


def test_a_subcommand_loads_its_own_module_only():
    loaded = _loaded("demo", "--help")
    assert [n for n in loaded if n.startswith("symrel.cli.commands.")] == ["symrel.cli.commands.demo"]


def test_every_command_module_has_a_summary_and_the_help_is_the_full_one():
    found = {m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_")}
    assert found == {module_name(name) for name in SUMMARIES}
    assert build_parser(every=False).format_help() == build_parser().format_help()


def test_the_package_names_are_there_when_used():
    for name in symrel.__all__:
        assert getattr(symrel, name) is not None
    from symrel import MaxoutNet, rational
    from symrel.models import MaxoutNet as same

    assert MaxoutNet is same and str(rational("2/4")) == "1/2"
    assert symrel.exact.Q(1, 2) == rational("1/2")  # a subpackage, imported on first use
    assert set(symrel.__all__) <= set(dir(symrel))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        symrel.nothing


def test_a_small_prove_check_and_eval_do_not_import_sympy(tmp_path):
    """With python-flint or gmpy2, symrel computes on the ground type itself: a trivial
    ``prove`` (a 1-unit maxout net against itself), ``check-certificate`` of its certificate,
    ``eval`` and a refuted ``prove`` (against a mutant) run in one fresh interpreter without
    importing sympy (0.4 s)."""
    from symrel.exact.numbers import GROUND_TYPES

    if GROUND_TYPES == "python":
        pytest.skip("pure-Python ground types are sympy's own PythonMPQ")
    import json

    net = {"symrel": 1, "kind": "maxout", "input_dim": 2, "readout": {"W": [[1]], "b": [0]},
           "layers": [{"units": [{"pieces": [{"w": [1, 0], "b": 0}, {"w": [0, 1], "b": "1/2"}]}]}]}
    box = {"symrel": 1, "kind": "box", "bounds": [[-1, 1], [-1, 1]]}
    a, b, d, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "d.json", tmp_path / "c.json"
    a.write_text(json.dumps(net))
    net["layers"][0]["units"][0]["pieces"][1]["b"] = "1/3"
    b.write_text(json.dumps(net))
    d.write_text(json.dumps(box))
    commands = [["prove", str(a), str(a), "--domain", str(d), "--certificate", str(c)],
                ["check-certificate", str(c)], ["eval", str(a), "--input", "0,-1/3"],
                ["prove", str(a), str(b), "--domain", str(d), "--json"]]
    code = ("import sys\nfrom symrel.cli import main\n"
            f"codes = [main(argv) for argv in {commands!r}]\n"
            "print('CODES', *codes)\nprint('SYMPY', 'sympy' in sys.modules, 'mpmath' in sys.modules)\n")
    out = _run("-c", code)
    assert out.returncode == 0, out.stderr[-500:]
    lines = out.stdout.splitlines()
    assert lines[-2:] == ["CODES 0 0 0 1", "SYMPY False False"]
    assert lines[1] == "proved" and "checked" in lines
    assert lines[-4] == "1/6"   # max(0, -1/3 + 1/2)
    refuted = json.loads(lines[-3])
    assert refuted["result"] == "refuted" and refuted["max_abs_difference"] == "1/6"


def test_the_process_entry_tunes_only_its_own_process():
    """``python -m symrel`` and the console script run :func:`symrel.cli.run`: the collector's
    thresholds of :data:`PROCESS_GC_THRESHOLDS` while the command runs, its exit code as the
    process's, and the objects frozen only once the command is done. ``main()`` called from
    Python leaves the caller's collector alone."""
    import configparser
    import gc

    from symrel.cli import PROCESS_GC_THRESHOLDS, main

    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    assert cfg["options.entry_points"]["console_scripts"].split() == ["symrel", "=", "symrel.cli:run"]
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    assert main(["check-certificate", str(ROOT / "no-such-file.json")]) == 2
    assert (gc.get_threshold(), gc.get_freeze_count()) == (before, frozen)
    code = ("import gc, sys\nfrom symrel import cli\n"
            "seen = []\nreal = cli.main\n"
            "cli.main = lambda: (seen.append((gc.get_threshold(), gc.get_freeze_count())), 3)[1]\n"
            "import atexit\n"
            "atexit.register(lambda: print('SEEN', *seen[0][0], seen[0][1] == 0, gc.get_freeze_count() > 0))\n"
            "cli.run()\n")
    out = _run("-c", code)
    assert out.returncode == 3, out.stderr[-500:]
    assert out.stdout.split() == ["SEEN", *map(str, PROCESS_GC_THRESHOLDS), "True", "True"]
    done = _run("-m", "symrel", "check-certificate", str(ROOT / "no-such-file.json"))
    assert done.returncode == 2 and "no-such-file.json" in done.stderr


def test_a_small_prove_defines_no_dataclass(tmp_path):
    """``prove`` on a small claim, proved and refuted, imports no ``dataclasses``: defining a
    dataclass compiles its methods, and the module and those compilations were about a tenth
    of a small claim's process (docs/benchmarks.md, "The small claims as whole processes")."""
    import json

    from symrel.exact.numbers import GROUND_TYPES

    if GROUND_TYPES == "python":
        pytest.skip("pure-Python ground types load sympy, which defines dataclasses of its own")
    net = {"symrel": 1, "kind": "maxout", "input_dim": 2, "readout": {"W": [[1]], "b": [0]},
           "layers": [{"units": [{"pieces": [{"w": [1, 0], "b": 0}, {"w": [0, 1], "b": "1/2"}]}]}]}
    box = {"symrel": 1, "kind": "box", "bounds": [[-1, 1], [-1, 1]]}
    a, b, d = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "d.json"
    a.write_text(json.dumps(net))
    net["layers"][0]["units"][0]["pieces"][1]["b"] = "1/3"
    b.write_text(json.dumps(net))
    d.write_text(json.dumps(box))
    for other, code in ((a, 0), (b, 1)):
        loaded = _loaded("prove", str(a), str(other), "--domain", str(d))
        assert "symrel.prover.equivalence" in loaded and "dataclasses" not in loaded, code
