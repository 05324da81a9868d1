"""Proof scripts: finding them, loading them, running one.

A proof script is a Python file that defines

- ``STATEMENT``: a :class:`~symrel.report.Statement` (the paper's claim, the claim
  as symrel checks it, where they differ);
- ``run()``: builds concrete instances and checks them with symrel's provers,
  returning (or yielding) :class:`~symrel.report.Instance` objects or
  ``(name, Proof)`` pairs.

Nothing runs at import time, so a script can be imported to read its statement.
The shipped scripts live in :mod:`symrel.statements.papers`; ``proofs/`` at the top
of the repository holds thin copies that import them.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import traceback
from pathlib import Path

from ..errors import InputError
from ..report.statement import Instance, Outcome, Statement


def default_dir() -> Path:
    """The folder of the shipped proof scripts (inside the installed package)."""
    from . import papers

    return Path(papers.__file__).resolve().parent


def discover(folder) -> list[Path]:
    """The proof scripts of ``folder``: its ``*.py`` files not starting with ``_``, by name."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("expected a folder of proof scripts", path=str(folder))
    scripts = sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))
    if not scripts:
        raise InputError("expected at least one proof script (*.py) in the folder", path=str(folder))
    return scripts


def load(path) -> object:
    """Import the script at ``path`` as a module of its own."""
    path = Path(path).resolve()
    name = "symrel_proof_script_" + "".join(c if c.isalnum() else "_" for c in path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InputError("cannot be loaded as a Python module", path=str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def fallback_statement(path) -> Statement:
    """A stand-in statement for a script that fails before saying its own."""
    stem = Path(path).stem
    return Statement(stem, "?", stem, "(the script did not load)", "", "", "")


def _as_instance(item) -> Instance:
    if isinstance(item, Instance):
        return item
    name, proof = item
    return Instance(str(name), proof)


def run_module(module, progress=None) -> Outcome:
    """Run a loaded script: every instance is timed; an exception is recorded, not raised."""
    statement = getattr(module, "STATEMENT", None)
    if not isinstance(statement, Statement):
        raise InputError("a proof script must define STATEMENT = symrel.report.Statement(...)", path="STATEMENT")
    outcome = Outcome(statement)
    start = last = time.perf_counter()
    try:
        for item in module.run():
            inst = _as_instance(item)
            now = time.perf_counter()
            inst.seconds, last = now - last, now
            outcome.instances.append(inst)
            if progress:
                progress(f"  {statement.key}: {inst.name}: {inst.proof.result} ({inst.seconds:.2f} s)")
    except Exception:  # a failing script is a result to report, not a crash of the runner
        outcome.error = traceback.format_exc()
    outcome.seconds = time.perf_counter() - start
    return outcome


def run_script(path, progress=None) -> Outcome:
    """Load and run the script at ``path`` (errors while loading are recorded too)."""
    try:
        module = load(path)
    except Exception:
        return Outcome(fallback_statement(path), error=traceback.format_exc())
    try:
        return run_module(module, progress)
    except InputError as err:
        return Outcome(fallback_statement(path), error=f"{path}: {err}")
