"""``symrel proofs`` on the shipped scripts, end to end (slow: it re-checks both papers).

One run writes every format; the tests then read what it wrote: every statement
proved, every certificate accepted by check-certificate, and every certificate
rejected once any one of its numbers is altered.
"""

import json
import shutil
import subprocess
import sys

import pytest

from symrel.checking import CertificateError, check_certificate
from symrel.statements import default_dir, discover
from symrel.mutation.tamper import altered, numbers_in

pytestmark = pytest.mark.slow
STATEMENTS = [p.stem.replace("_", "-") for p in discover(default_dir())]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    done = subprocess.run([sys.executable, "-m", "symrel", "proofs", "--out", str(out),
                           "--format", "md,tex,html,json", "--jobs", "2"],
                          capture_output=True, text=True, timeout=1200)
    return done, out


def test_all_statements_proved(run):
    done, out = run
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert f"{len(STATEMENTS)} of {len(STATEMENTS)} statements proved" in done.stdout
    assert "[1/" in done.stderr  # progress
    for key in STATEMENTS:
        for ext in ("md", "tex", "html"):
            assert (out / f"{key}.{ext}").stat().st_size > 1000
        text = (out / f"{key}.md").read_text()
        assert "**Result: proved.**" in text and "**Where this differs from the paper.**" in text
    index = (out / "index.md").read_text()
    assert all(f"({key}.md)" in index for key in STATEMENTS)
    assert (out / "index.html").is_file()


def _certificates(out):
    return sorted(out.glob("*/*.json"))


def test_every_certificate_is_checked(run):
    _, out = run
    certs = [p for p in _certificates(out) if not p.name.endswith(".counterexample.json")]
    assert len(certs) >= 40
    kinds = set()
    for path in certs:
        cert = json.loads(path.read_text())
        kinds.add(cert["claim"]["kind"])
        assert check_certificate(cert)["result"] == "checked", path
    assert {"equivalence", "equivalence-cells", "relation", "retrieval", "utility", "softmax-bound"} <= kinds


def _spread(paths, count):
    """``count`` paths spread over the list (first and last included)."""
    if len(paths) <= count:
        return paths
    step = (len(paths) - 1) / (count - 1)
    return [paths[round(i * step)] for i in range(count)]


def test_one_altered_number_fails_every_certificate(run):
    """Every certificate, and numbers spread over all of it (claim and steps): each
    altered copy must be rejected."""
    _, out = run
    accepted = []
    for path in _certificates(out):
        if path.name.endswith(".counterexample.json"):
            continue
        cert = json.loads(path.read_text())
        paths = [p for p, _ in numbers_in(cert)]
        for where in _spread(paths, 6 if path.stat().st_size > 200_000 else 12):
            try:
                check_certificate(altered(cert, where))
            except CertificateError:
                continue
            accepted.append(f"{path.parent.name}/{path.name}: {where}")
    assert accepted == []


def test_counterexamples_are_points_files(run):
    _, out = run
    files = sorted(out.glob("*/*.counterexample.json"))
    assert len(files) >= 8
    for path in files:
        obj = json.loads(path.read_text())
        assert obj["kind"] == "points" and len(obj["x"]) == 1


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
@pytest.mark.parametrize("key", ["a1-maxout-layer", "a5-region-growth", "b1-symmetric-relation"])
def test_latex_reports_compile(run, key, tmp_path):
    _, out = run
    shutil.copy(out / f"{key}.tex", tmp_path)
    from ..report.pdflatex import compile_tex, overfull

    assert overfull(compile_tex(tmp_path / f"{key}.tex")) == []  # no line runs past its box
