"""Compile a LaTeX file with pdflatex and read its log: how far lines run past their box."""

import re
import subprocess
from pathlib import Path

#: a line may run this far past its box (pt) before a test calls the report's layout broken
OVERFULL_LIMIT_PT = 1.0

_OVERFULL = re.compile(r"Overfull \\hbox \(([0-9.]+)pt too wide\)")


def compile_tex(tex: Path, timeout: int = 300) -> str:
    """Run pdflatex on ``tex`` (in its folder); returns the log. Fails the test on an error."""
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex.name], cwd=tex.parent,
                         capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, run.stdout[-3000:]
    return tex.with_suffix(".log").read_text(errors="replace")


def overfull(log: str) -> list[float]:
    """How far (pt) each overfull line of the log runs past its box, above the limit."""
    return [float(v) for v in _OVERFULL.findall(log) if float(v) > OVERFULL_LIMIT_PT]
