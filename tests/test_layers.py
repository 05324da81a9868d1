"""symrel's floors: imports run downward only, and no module imports itself back.

The import graph is read from the source with :mod:`ast`, so imports inside
functions count as much as those at the top of a module. ``from pkg import
name`` is an edge to ``pkg.name`` when that is a module and to ``pkg`` (its
``__init__``) otherwise; relative imports are resolved against the importer.
A string that is exactly the dotted name of a module of another part of symrel
(``"symrel.x.y"``, outside docstrings) is an edge too: that is how
``importlib.import_module`` and plugin tables import, and the ast cannot tell them from
other strings. (Within a part, importing by name on first use is how a plugin table
avoids a circle, so those strings are not edges.)

A module may import its own top-level subpackage and any subpackage of a lower
layer. Two subpackages in the same layer may not import each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

# Top-level parts of symrel (subpackages, the modules errors, _version, parallel and
# __main__, and "__init__" for symrel/__init__.py itself), lowest layer first.
LAYERS: list[tuple[str, ...]] = [
    ("errors", "_version", "kind_plugins", "lazy_names"),  # kind_plugins: names of upper readers, imports nothing;
    # lazy_names: the PEP 562 loader of the packages' names
    ("model_kinds",),  # the table of model kinds, filled by the kind modules (symrel.kinds) above
    ("progress",),  # progress lines (tqdm optional): stdlib only
    ("budget",),  # time and cell budgets of long decisions: errors and progress's delay only
    ("parallel",),  # map_ordered over any executor: stdlib and errors only
    ("exact",),
    ("models",),
    ("fileformat",),
    ("certificates",),
    ("checking",),  # the trusted checker: nothing of the analyses (docs/trust.md)
    ("constructions",),  # models built from models (maxout forms, meshes, interpolation): above the checker
    ("lowering",),
    ("regions", "softmax", "relations", "interop", "vnnlib"),  # vnnlib: VNN-LIB properties, the exact engine
    ("compiler", "prover", "preorders", "crossval", "verification"),  # verification: symrel.verify, the
    # files it reads (interop's imports, vnnlib's properties) and the trusted check of its certificates
    ("kinds",),  # one module per model kind: its reader, lowering, prover execution, description
    ("mutation",),
    ("report",),
    ("statements",),
    ("cli",),
    ("__main__", "__init__"),  # python -m symrel runs the cli
]

# Parts that may be listed before they exist (being created on another branch).
OPTIONAL = {"lowering"}

# Imports (importer module, imported module) that break the layers and that a
# branch under way removes. Temporary: each entry names who removes it, and the
# set must be empty when that work has landed.
KNOWN_PENDING: set[tuple[str, str]] = set()

ROOT = Path(__file__).resolve().parents[1] / "symrel"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def imported_modules(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every symrel module that the module ``name`` (source at ``path``) imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            target = node.value
            if target.startswith("symrel.") and target in known and part_of(target) != part_of(name):
                found.add(target)   # imported by name (importlib, a plugin table)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for alias in node.names:
                full = f"{target}.{alias.name}"
                found.add(full if full in known else target)
    return {m for m in found if m in known}


def import_graph() -> nx.DiGraph:
    known = modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(known)
    for name, path in known.items():
        for target in imported_modules(name, path, known):
            if target != name:
                graph.add_edge(name, target)
    return graph


def part_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer_index() -> dict[str, int]:
    return {part: i for i, layer in enumerate(LAYERS) for part in layer}


def test_layers_are_listed_once():
    listed = [part for layer in LAYERS for part in layer]
    assert len(listed) == len(set(listed))


def test_every_part_has_a_layer():
    index = layer_index()
    parts = {part_of(m) for m in modules()}
    assert sorted(parts - set(index)) == []
    assert sorted(set(index) - parts - OPTIONAL) == []


def test_no_import_circle():
    graph = import_graph()
    circles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not circles, "\n".join(" <-> ".join(c) for c in circles)


def test_imports_run_downward():
    index = layer_index()
    wrong = set()
    for importer, imported in import_graph().edges:
        a, b = part_of(importer), part_of(imported)
        if a == b or (importer, imported) in KNOWN_PENDING:
            continue
        if index[b] >= index[a]:
            wrong.add(f"{importer} -> {imported}")
    assert not wrong, "\n".join(sorted(wrong))


def test_known_pending_edges_still_exist():
    """An entry of KNOWN_PENDING that no longer occurs must be deleted."""
    assert sorted(KNOWN_PENDING - set(import_graph().edges)) == []


def test_models_import_only_exact_and_errors():
    """The models import the exact layer, the errors and the loader of lazy names, nothing else."""
    wrong = {
        f"{a} -> {b}"
        for a, b in import_graph().edges
        if part_of(a) == "models" and part_of(b) not in {"models", "exact", "errors", "lazy_names"}
    }
    assert not wrong, "\n".join(sorted(wrong))


def test_the_walk_reads_relative_and_function_level_imports(tmp_path):
    src = tmp_path / "b.py"
    src.write_text("from . import c\nfrom ..q import helper\n\n\ndef f():\n    from ..q.r import g\n    import symrel.q\n")
    known = {m: src for m in ("symrel.p.b", "symrel.p.c", "symrel.q", "symrel.q.r")}
    assert imported_modules("symrel.p.b", src, known) == {"symrel.p.c", "symrel.q", "symrel.q.r"}
