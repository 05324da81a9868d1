"""Run ``symrel check-certificate`` on one adversarial case in a fresh interpreter, under a
4 GB address-space limit, and measure the CPU time of the check alone (the imports of the
checker are done before the clock starts)."""

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


def run(case: Case, tmp: Path) -> Outcome:
    """Check the case's certificate in a fresh interpreter (README.md)."""
    path = tmp / f"{case.name}.json"
    path.write_text(case.text(), encoding="utf-8")
    result = tmp / f"{case.name}.result.json"
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(path), str(result), str(MEMORY_LIMIT)],
                          capture_output=True, text=True, cwd=ROOT, timeout=HARD_TIMEOUT)
    found = json.loads(result.read_text()) if result.exists() else {"exit": None, "cpu": None}
    return Outcome(found["exit"], found["cpu"], proc.stdout, proc.stderr)
