"""Sphinx directives of the symrel documentation.

``terminal``
    A shell session (``$ command`` lines followed by their output). It is shown as a
    console block and, under the doctest builder, every command is run (``symrel``
    through ``symrel.cli.main`` of the tree being documented, in process; with
    ``SYMREL_DOCS_SUBPROCESS=1`` as ``python -m symrel``) and its standard output,
    standard error and exit code are compared with what the page shows. A non-zero exit
    code is shown as a last line ``[exit N]``. ``...`` matches anything (ELLIPSIS);
    with ``:loose-numbers:`` every number of the output shown may differ (float errors,
    timings, versions), and only the words are compared.

``datafile``
    A file the reader is asked to save (argument: its name). It is shown with its name
    as caption and, under the doctest builder, written into the page's working folder,
    so the commands and Python examples after it can read it.

``symrel-statements``
    The statements of the papers as the shipped proof scripts state them.

Every page runs its examples in a fresh temporary folder (see ``doctest_global_setup``
in ``conf.py``), in page order: files, commands and ``doctest`` blocks share it.
``terminal`` and ``datafile`` take ``:skipif: _missing("torch")`` (as ``doctest``
blocks do) for examples that need an optional extra.
"""

from __future__ import annotations

import doctest
import os
import re

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.directives.code import container_wrapper
from sphinx.util.docutils import SphinxDirective

# --------------------------------------------------------------------------- helpers

#: Python run before each page's examples (per doctest group), and after them.
DOCTEST_SETUP = r'''
import os as _os, shlex as _shlex, shutil as _shutil, subprocess as _subprocess, sys as _sys
import tempfile as _tempfile

import importlib.util as _importlib_util


def _missing(*modules):
    """For ``:skipif: _missing("torch")``: an optional extra that is not installed."""
    return any(_importlib_util.find_spec(m) is None for m in modules)


_docs_old_cwd = _os.getcwd()
_docs_tmp = _tempfile.mkdtemp(prefix="symrel-docs-")
_os.chdir(_docs_tmp)


def _write(name, text):
    """Write a file of the tutorial into the page's working folder."""
    folder = _os.path.dirname(name)
    if folder:
        _os.makedirs(folder, exist_ok=True)
    with open(name, "w", encoding="utf-8") as fh:
        fh.write(text)


def _sh(command):
    """Run one shell line of a page; print it (as the page shows it, so that an output
    that starts with "..." is not taken for a continuation line), its stdout, its
    stderr and a non-zero exit code. ``symrel`` runs in this process (``symrel.cli.main``,
    as the console script does), anything else as a subprocess."""
    print("$ " + command)
    argv = _shlex.split(command)
    if argv[0] == "symrel" and not _os.environ.get("SYMREL_DOCS_SUBPROCESS"):
        code, out, err = _symrel_in_process(argv[1:])
    else:
        if argv[0] == "symrel":
            argv = [_sys.executable, "-m", "symrel", *argv[1:]]
        elif argv[0] == "python":
            argv = [_sys.executable, *argv[1:]]
        env = dict(_os.environ, PYTHONPATH=_os.pathsep.join([_SYMREL_ROOT, _os.environ.get("PYTHONPATH", "")]),
                   COLUMNS="80", MPLBACKEND="Agg")
        done = _subprocess.run(argv, capture_output=True, text=True, env=env, timeout=900)
        code, out, err = done.returncode, done.stdout, done.stderr
    for line in (out + err).splitlines():
        print(line.rstrip())
    if code:
        print(f"[exit {code}]")


def _symrel_in_process(args):
    """``symrel ARGS`` through ``symrel.cli.main``: (exit code, stdout, stderr)."""
    import contextlib, io
    from symrel.cli import main

    out, err = io.StringIO(), io.StringIO()
    old_columns = _os.environ.get("COLUMNS")
    _os.environ["COLUMNS"] = "80"
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's usage errors
                code = exc.code if isinstance(exc.code, int) else 2
    finally:
        if old_columns is None:
            _os.environ.pop("COLUMNS", None)
        else:
            _os.environ["COLUMNS"] = old_columns
    return code, out.getvalue(), err.getvalue()
'''

DOCTEST_CLEANUP = r'''
_os.chdir(_docs_old_cwd)
_shutil.rmtree(_docs_tmp, ignore_errors=True)
'''


def _doctest_node(node: nodes.Element, test: str, options: dict) -> nodes.Element:
    """Mark ``node`` so that sphinx.ext.doctest runs ``test`` (doctest source) for it,
    in the directive's ``group`` (default: the page's) unless ``skipif`` holds."""
    node["testnodetype"] = "doctest"
    node["groups"] = [options.get("group", "default")]
    node["test"] = test
    node["options"] = {}
    if "skipif" in options:
        node["skipif"] = options["skipif"]
    return node


def _expected(lines: list[str]) -> list[str]:
    return [line.rstrip() or "<BLANKLINE>" for line in lines]


# --------------------------------------------------------------------------- terminal


_NUMBER = re.compile(r"\d[\w/.+\-]*")


class Terminal(SphinxDirective):
    """``$ command`` lines and their output; each command is run by the doctest builder."""

    has_content = True
    option_spec = {"group": directives.unchanged, "skipif": directives.unchanged_required,
                   "loose-numbers": directives.flag}

    def run(self):
        lines = list(self.content)
        while lines and not lines[-1].strip():
            lines.pop()
        if not lines or not lines[0].startswith("$ "):
            raise self.error("a terminal block starts with a '$ command' line")
        test: list[str] = []
        for line in lines:
            if line.startswith("$ "):
                test.append(f">>> _sh({line[2:].strip()!r})")
                test.append(f"$ {line[2:].strip()}")
            elif "loose-numbers" in self.options:
                # the page shows one run's figures (float errors, timings, versions);
                # the test compares the words and lets every number vary
                test.extend(_expected([_NUMBER.sub("...", line)]))
            else:
                test.extend(_expected([line]))
        text = "\n".join(lines)
        node = nodes.literal_block(text, text, language="console")
        self.set_source_info(node)
        node = _doctest_node(node, "\n".join(test) + "\n", self.options)
        if "loose-numbers" in self.options:  # numbers of another width shift aligned columns
            node["options"][doctest.NORMALIZE_WHITESPACE] = True
        return [node]


# --------------------------------------------------------------------------- datafile

_LANGUAGES = {".json": "json", ".py": "python", ".md": "markdown", ".txt": "text", ".sh": "bash"}


class DataFile(SphinxDirective):
    """A named file: shown with its name, written to the working folder by the doctests."""

    has_content = True
    required_arguments = 1
    option_spec = {"group": directives.unchanged, "language": directives.unchanged,
                   "skipif": directives.unchanged_required}

    def run(self):
        name = self.arguments[0]
        text = "\n".join(self.content) + "\n"
        language = self.options.get("language") or _LANGUAGES.get(os.path.splitext(name)[1], "text")
        node = nodes.literal_block(text, text, language=language)
        self.set_source_info(node)
        _doctest_node(node, f">>> _write({name!r}, {text!r})\n", self.options)
        return [container_wrapper(self, node, f"``{name}``")]


# --------------------------------------------------------------------------- CLI reference

_LITERAL = re.compile(r"``(.+?)``")


def _inline(text: str) -> list[nodes.Node]:
    """Plain text with ``literal`` spans as literal nodes; nothing else is interpreted,
    so no help string can break the build."""
    out: list[nodes.Node] = []
    pos = 0
    for m in _LITERAL.finditer(text):
        if m.start() > pos:
            out.append(nodes.Text(text[pos:m.start()]))
        out.append(nodes.literal(m.group(1), m.group(1)))
        pos = m.end()
    if pos < len(text):
        out.append(nodes.Text(text[pos:]))
    return out


def _paragraphs(text: str | None) -> list[nodes.Node]:
    if not text:
        return []
    import inspect

    blocks = re.split(r"\n\s*\n", inspect.cleandoc(text))
    return [nodes.paragraph("", "", *_inline(" ".join(b.split()))) for b in blocks if b.strip()]


# --------------------------------------------------------------------------- statements


class SymrelStatements(SphinxDirective):
    """Every statement re-checked by the shipped proof scripts (``symrel proofs``), from
    the scripts' own ``STATEMENT``: the paper's claim, the claim as symrel checks it, and
    where symrel narrows it. Optional argument: ``A`` or ``B`` for one paper only."""

    optional_arguments = 1

    def run(self):
        from symrel.statements.scripts import default_dir, discover, load

        paper = self.arguments[0] if self.arguments else None
        out = []
        for path in discover(default_dir()):
            self.env.note_dependency(str(path))
            statement = load(path).STATEMENT
            if paper and statement.paper != paper:
                continue
            key = f"statement-{statement.key}"
            section = nodes.section(ids=[nodes.make_id(key)], names=[nodes.fully_normalize_name(key)])
            section += nodes.title("", "", *_inline(statement.heading))
            self.state.document.note_implicit_target(section, section)
            items = [("The paper", statement.paper_claim), ("What symrel checks", statement.symrel_claim),
                     ("Where symrel narrows it", statement.narrowing),
                     ("Script", f"``{path.name}`` (in ``symrel/statements/papers``, with a runnable copy in ``proofs/``)")]
            dl = nodes.definition_list()
            for term, text in items:
                dl += nodes.definition_list_item("", nodes.term("", term), nodes.definition("", *_paragraphs(text)))
            section += dl
            out.append(section)
        if not out:
            raise self.error(f"no proof script states a claim of paper {paper!r}")
        return out


# --------------------------------------------------------------------------- docstrings

_LITERAL_SPAN = re.compile(r"(``.+?``)")


# a "*" that can neither open emphasis (``*word``) nor close it (``word*``), such as the
# multiplication sign in "+, *, powers"; reST would warn about an unclosed emphasis
_LONE_STAR = re.compile(r"(?<![\w*)\]'\"`\\])\*(?![\w*(\['\"`])")


def _escape_bars(line: str) -> str:
    """``|x|`` outside literals is reST's substitution syntax; in symrel's docstrings it
    is always an absolute value or a norm, so it is shown as written. A lone ``*`` (a
    product sign) is shown as written too."""
    bullet = re.match(r"\s*\* ", line)  # a bullet list item keeps its "* "
    head, line = (line[:bullet.end()], line[bullet.end():]) if bullet else ("", line)
    parts = _LITERAL_SPAN.split(line)
    return head + "".join(p if i % 2 else _LONE_STAR.sub(r"\\*", re.sub(r"(?<!\\)\|", r"\\|", p))
                          for i, p in enumerate(parts))


def escape_docstring_bars(app, what, name, obj, options, lines: list[str]) -> None:
    """autodoc hook: escape ``|`` in prose lines, leaving doctest and literal blocks."""
    in_doctest = False
    literal_indent = None  # indentation of the paragraph that opened a literal block
    for i, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if literal_indent is not None:
            if stripped and indent <= literal_indent:
                literal_indent = None
            else:
                continue
        if stripped.startswith(">>>"):
            in_doctest = True
        if in_doctest:
            if not stripped:
                in_doctest = False
            continue
        if stripped.endswith("::"):
            literal_indent = indent
        lines[i] = _escape_bars(line)


# --------------------------------------------------------------------------- navigation

def share_navigation_outside_the_tree(app, pagename, templatename, context, doctree) -> None:
    """Compute the sidebar's global table of contents once per folder for the pages that are
    not documents of the tree (the source listings of ``viewcode``, the indices, search).

    Why: furo renders the whole navigation (every API page, expanded) on each of the site's
    about 540 pages, and that was 60 % of the HTML build. For a page outside the tree no entry
    is marked current, so the HTML depends only on the page's folder (its relative links): it
    is the same string, computed once. Documents of the tree keep their own (their entry and
    its parents are marked current). Connected before furo's handler, which calls it.
    """
    if pagename in app.env.all_docs or "toctree" not in context:
        return
    cache = app.builder.__dict__.setdefault("_symrel_shared_navigation", {})
    toctree = context["toctree"]

    def shared(**kwargs):
        key = (os.path.dirname(pagename), tuple(sorted(kwargs.items())))
        if key not in cache:
            cache[key] = toctree(**kwargs)
        return cache[key]

    context["toctree"] = shared


def setup(app):
    app.connect("html-page-context", share_navigation_outside_the_tree, priority=400)
    app.connect("autodoc-process-docstring", escape_docstring_bars)
    app.add_directive("terminal", Terminal)
    app.add_directive("datafile", DataFile)
    app.add_directive("symrel-statements", SymrelStatements)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
