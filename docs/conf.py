"""Sphinx configuration of the symrel documentation (see docs/README.md for the commands).

Generated at build time, never by hand: the command-line reference (cli.md, from
``symrel.cli.build_parser()`` by :mod:`symrel.cli.reference`), the API
reference (``api/``, written below and filled by autosummary), and the tutorial plots
(matplotlib's ``plot`` directive, Agg backend).
"""

from __future__ import annotations

import os
import pkgutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # document the tree next to this folder, not an installed copy
sys.path.insert(0, str(DOCS / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")

import types  # noqa: E402

import symrel  # noqa: E402

# autosummary imports every submodule it finds; a ``__main__`` module would run its
# command line with sphinx-build's arguments, so each is stood in for by an empty module.
for _main in (ROOT / "symrel").rglob("__main__.py"):
    _name = ".".join(_main.relative_to(ROOT).with_suffix("").parts)
    sys.modules.setdefault(_name, types.ModuleType(_name))
from symrel_docs import DOCTEST_CLEANUP, DOCTEST_SETUP  # noqa: E402

project = "symrel"
author = "the symrel authors"
copyright = "the symrel authors, MIT licence"
release = version = symrel.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "myst_parser",
    "matplotlib.sphinxext.plot_directive",
    "symrel_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
# benchmarks.md is a page of its own, written by `python -m benchmarks` (a placeholder until
# then); README.md says how to build these pages.
exclude_patterns = ["_build", "README.md", "build.sh"]

# --- MyST (Markdown pages) -----------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# --- autodoc / autosummary / napoleon -------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
napoleon_google_docstring = True
napoleon_numpy_docstring = True

# --- doctest: every example of these pages runs; docstrings run under pytest ---------
# Plain ">>>" blocks of docstrings are pytest's job (--doctest-modules, with the module's
# globals); here only the pages' own doctest / terminal / datafile blocks run.
doctest_test_doctest_blocks = ""
doctest_global_setup = f"_SYMREL_ROOT = {str(ROOT)!r}\n" + DOCTEST_SETUP
doctest_global_cleanup = DOCTEST_CLEANUP

# --- plots (matplotlib's plot directive; images are built, not committed) -------------
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_rcparams = {"figure.figsize": (6.4, 4.0), "savefig.bbox": "tight"}
plot_pre_code = ""

# --- HTML ------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"symrel {release}"
html_static_path: list[str] = []
pygments_style = "friendly"

# --- the API index: one autosummary entry per subpackage of symrel -------------------
#: the order in which a reader meets them; any other subpackage follows alphabetically
API_ORDER = [
    "exact", "models", "constructions", "fileformat", "compiler", "prover", "regions", "softmax",
    "preorders", "relations", "certificates", "checking", "report", "statements", "interop",
    "crossval", "verification", "cli", "errors",
]
API_SKIP: set[str] = set()


def _api_modules() -> list[str]:
    found = {m.name for m in pkgutil.iter_modules(symrel.__path__) if not m.name.startswith("_")}
    found -= API_SKIP
    ordered = [n for n in API_ORDER if n in found] + sorted(found - set(API_ORDER))
    return [f"symrel.{n}" for n in ordered]


def _write_api_index() -> None:
    lines = [
        "API reference",
        "=============",
        "",
        "Generated from the docstrings of the symrel packages (autodoc and autosummary),",
        "one page per module. The names re-exported by a package are documented in the",
        "module that defines them; the docstring examples are run by pytest",
        "(``--doctest-modules``).",
        "",
        ".. autosummary::",
        "   :toctree: generated",
        "   :recursive:",
        "",
        *[f"   {name}" for name in _api_modules()],
        "",
    ]
    path = DOCS / "api" / "index.rst"
    path.parent.mkdir(exist_ok=True)
    text = "\n".join(lines)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")



def _drop_stale_api_pages() -> None:
    """Remove the pages autosummary wrote earlier for modules that no longer exist (a module
    renamed or moved), and the package pages whose list of submodules names one: left in
    place, they fail the build, which treats warnings as errors. autosummary writes the
    current pages afresh."""
    import importlib.util
    import re

    def exists(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            return False

    for page in (DOCS / "api" / "generated").glob("symrel*.rst"):
        text = page.read_text(encoding="utf-8-sig")
        listed = re.findall(r"^   (\w+)$", text.partition(".. rubric:: Modules")[2], re.M)
        if not exists(page.stem) or not all(exists(f"{page.stem}.{name}") for name in listed):
            page.unlink()


_drop_stale_api_pages()
_write_api_index()


def _write_trust_page() -> None:
    """docs/trust.md from the trusted base as it is (symrel.checking.trust), so the line
    counts on the published page are always today's."""
    from symrel.checking import trust

    path = DOCS / "trust.md"
    text = trust.page()
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


_write_trust_page()


def _write_cli_page() -> None:
    """docs/cli.md from the argument parser as it is (symrel.cli.reference)."""
    from symrel.cli import reference

    text = reference.page()
    if reference.PAGE.read_text(encoding="utf-8") != text:
        reference.PAGE.write_text(text, encoding="utf-8")


_write_cli_page()
