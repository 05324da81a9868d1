"""The documentation builds with warnings as errors, and every example in it passes.

Both builds run as ``docs/build.sh`` runs them (``sphinx-build -W --keep-going``), into a
temporary folder, sharing one doctree cache so the pages are read once.
"""

import subprocess
import sys
from pathlib import Path

import pytest

for _extra in ("sphinx", "furo", "myst_parser", "matplotlib"):
    pytest.importorskip(_extra)

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _sphinx(builder: str, out: Path) -> subprocess.CompletedProcess:
    # -j auto: the pages are read in parallel (docs/_ext declares itself parallel-safe), which
    # uses the core the test run leaves idle
    argv = [sys.executable, "-m", "sphinx", "-j", "auto", "-W", "--keep-going", "-q", "-b", builder,
            "-d", str(out / "doctrees"), str(DOCS), str(out / builder)]
    return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=1800)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs")
    return out, _sphinx("html", out), _sphinx("doctest", out)


@pytest.mark.slow
def test_html_builds_without_warnings(built):
    out, html, _ = built
    assert html.returncode == 0, html.stderr[-6000:]
    for page in ("index", "getting-started", "theory", "format", "cli", "api/index", "benchmarks"):
        assert (out / "html" / f"{page}.html").is_file(), page


@pytest.mark.slow
def test_cli_page_lists_every_subcommand(built):
    from symrel.cli import build_parser
    import argparse

    out, html, _ = built
    assert html.returncode == 0, html.stderr[-6000:]
    page = (out / "html" / "cli.html").read_text(encoding="utf-8")
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert sub.choices, "the parser has no subcommands"
    for name, parser in sub.choices.items():
        assert f'id="symrel-{name}"' in page, name
        for action in parser._actions:
            for option in action.option_strings:
                assert option in page, (name, option)


@pytest.mark.slow
def test_tutorial_plots_are_built(built):
    out, html, _ = built
    assert html.returncode == 0, html.stderr[-6000:]
    images = list((out / "html" / "_images").glob("*.png"))
    assert images, "no plot was generated"
    assert all(p.stat().st_size > 2000 for p in images)


@pytest.mark.slow
def test_every_example_passes_as_doctest(built):
    out, _, doctest = built
    assert doctest.returncode == 0, (doctest.stdout + doctest.stderr)[-6000:]
    report = (out / "doctest" / "output.txt").read_text(encoding="utf-8")
    assert "0 failures in tests" in report
    assert "0 failures in setup code" in report
    tests = int(report.split("Doctest summary")[1].split("tests")[0].split()[-1])
    assert tests >= 10, report[-2000:]
