"""Run ``symrel check-certificate`` on adversarial cases in a fresh interpreter, under a 4 GB
address-space limit, and measure the CPU time of each check alone (the imports of the checker
are done before the clock starts).

All cases run in one interpreter (:func:`run_all`), one after another, because a fresh
interpreter per case cost CI about a second each. Each case's exit code, CPU time, standard
output and standard error are written as they finish, so a case that hangs or kills the
interpreter is known by name: the cases it did not reach are run again, each alone (:func:`run`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from . import generators

CASES = Path(__file__).resolve().parent / "cases"
ROOT = Path(__file__).resolve().parents[3]
MEMORY_LIMIT = 4 << 30  # bytes of address space
HARD_TIMEOUT = 60  # seconds of wall time before the subprocess counts as a hang

RUNNER = r"""
import contextlib, json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[3]), int(sys.argv[3])))
from symrel.cli import main
from symrel.checking import _load_checkers
_load_checkers()
start = time.process_time()
try:
    code = main(["check-certificate", sys.argv[1]])
except SystemExit as exc:
    code = exc.code
cpu = time.process_time() - start
with open(sys.argv[2], "w") as out:
    json.dump({"exit": code, "cpu": cpu}, out)
"""


@dataclass(frozen=True)
class Case:
    name: str
    kind: str
    attack: str
    tries: str
    exit: int
    says: str
    certificate: str | None = None
    generator: str | None = None

    def text(self) -> str:
        """The certificate's text."""
        if self.generator:
            return getattr(generators, self.generator)()
        return (CASES / self.certificate).read_text(encoding="utf-8")


FIELDS = {"kind", "attack", "tries", "exit", "says", "certificate", "generator"}


def cases() -> list[Case]:
    """Every case under cases/, sorted by name."""
    out = []
    for sidecar in sorted(CASES.glob("*.case.json")):
        data = json.loads(sidecar.read_text(encoding="utf-8"))
        unknown = set(data) - FIELDS
        assert not unknown, (sidecar.name, unknown)
        assert ("certificate" in data) != ("generator" in data), sidecar.name
        assert data["exit"] in (1, 2), sidecar.name
        out.append(Case(name=sidecar.name[: -len(".case.json")], **data))
    return out


@dataclass(frozen=True)
class Outcome:
    exit: int | None
    cpu: float | None
    stdout: str
    stderr: str


BATCH_RUNNER = r"""
import contextlib, io, json, resource, sys, time, traceback
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[3]), int(sys.argv[3])))
from symrel.cli import main
from symrel.checking import _load_checkers
_load_checkers()
with open(sys.argv[1]) as listing, open(sys.argv[2], "a") as results:
    for line in listing:
        name, path = json.loads(line)
        out, err = io.StringIO(), io.StringIO()
        start = time.process_time()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(["check-certificate", path])
            except SystemExit as exc:
                code = exc.code
            except BaseException:  # recorded, so the test shows it (a traceback fails the case)
                code = None
                err.write(traceback.format_exc())
        cpu = time.process_time() - start
        results.write(json.dumps({"name": name, "exit": code, "cpu": cpu,
                                  "stdout": out.getvalue(), "stderr": err.getvalue()}) + "\n")
        results.flush()
"""


def run_all(all_cases: list[Case], tmp: Path, timeout: float) -> dict[str, Outcome]:
    """Every case checked in one fresh interpreter (the module's docstring); a case it did
    not reach, because an earlier one hung or ended the interpreter, is run alone."""
    listing = tmp / "cases.jsonl"
    with listing.open("w", encoding="utf-8") as out:
        for case in all_cases:
            path = tmp / f"{case.name}.json"
            path.write_text(case.text(), encoding="utf-8")
            out.write(json.dumps([case.name, str(path)]) + "\n")
    results = tmp / "results.jsonl"
    try:
        subprocess.run([sys.executable, "-c", BATCH_RUNNER, str(listing), str(results), str(MEMORY_LIMIT)],
                       capture_output=True, text=True, cwd=ROOT, timeout=timeout)
    except subprocess.TimeoutExpired:
        pass
    found = {}
    if results.exists():
        for line in results.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            name = record.pop("name")
            found[name] = Outcome(**record)
    for case in all_cases:
        if case.name not in found:
            found[case.name] = run(case, tmp)
    return found


def run(case: Case, tmp: Path) -> Outcome:
    """Check the case's certificate in a fresh interpreter (README.md)."""
    path = tmp / f"{case.name}.json"
    path.write_text(case.text(), encoding="utf-8")
    result = tmp / f"{case.name}.result.json"
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(path), str(result), str(MEMORY_LIMIT)],
                          capture_output=True, text=True, cwd=ROOT, timeout=HARD_TIMEOUT)
    found = json.loads(result.read_text()) if result.exists() else {"exit": None, "cpu": None}
    return Outcome(found["exit"], found["cpu"], proc.stdout, proc.stderr)
