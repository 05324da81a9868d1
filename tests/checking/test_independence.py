"""The checker is a small trusted kernel: in a fresh interpreter, checking a certificate
of every claim kind loads no symrel module outside the trusted base, and docs/trust.md
lists that base with its true line counts."""

import ast
import json
import subprocess
import sys
from pathlib import Path

from symrel.checking import trust

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden" / "valid"

SCRIPT = """
import json, sys
from pathlib import Path
from symrel.checking import check_certificate
kinds = set()
for path in sorted(Path(sys.argv[1]).glob("*.json")):
    kinds.add(check_certificate(json.loads(path.read_text()))["claim"])
print(json.dumps({"kinds": sorted(kinds), "modules": sorted(m for m in sys.modules if m.split(".")[0] == "symrel"),
                  "floats": [m for m in ("numpy", "scipy", "torch", "flint.arb") if m in sys.modules]}))
"""


def test_a_check_of_every_claim_kind_loads_the_trusted_base_alone():
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(GOLDEN)], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout)
    from symrel.checking import CLAIM_KINDS, _load_checkers

    _load_checkers()
    assert set(found["kinds"]) == set(CLAIM_KINDS)
    outside = [m for m in found["modules"] if not trust.in_trusted_base(m)]
    assert outside == [], outside
    assert found["floats"] == []


def test_the_checker_imports_only_the_trusted_base():
    """Read from the source (function-level imports count): every symrel module a module of
    symrel.checking names is in the trusted base, and none is the provers' affine forms."""
    for path in sorted((ROOT / "symrel" / "checking").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = "symrel.checking" if node.level == 1 else "symrel"
                name = f"{base}.{node.module}" if node.module else base
                assert trust.in_trusted_base(name), (path.name, name)
                assert name not in ("symrel.exact.forms", "symrel.exact.lp"), (path.name, name)
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith(("mpmath", "numpy", "scipy")) for a in node.names), path.name


def test_the_trust_page_lists_every_module_a_check_loads():
    """docs/trust.md is written by every docs build (docs/conf.py) from trust.page(): it lists
    every module a check of every claim kind loads, with its true line count."""
    import re

    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(GOLDEN)], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    loaded = set(json.loads(proc.stdout)["modules"])
    listed = dict(re.findall(r"^\| `([\w.]+)` \| (\d+) \|$", trust.page(), re.M))
    assert loaded <= set(listed), sorted(loaded - set(listed))
    assert all(int(n) == trust.lines(m) for m, n in listed.items())
    assert "_write_trust_page()" in (ROOT / "docs" / "conf.py").read_text()


def test_every_rule_the_checker_accepts_is_registered():
    from symrel.certificates.rules import RULES
    from symrel.checking import CLAIM_KINDS, _load_checkers

    _load_checkers()
    for name, kind in CLAIM_KINDS.items():
        assert set(kind.rules) <= set(RULES), (name, sorted(set(kind.rules) - set(RULES)))
        assert all(RULES[r].certifies for r in kind.rules), name


def test_each_claim_kind_is_registered_by_the_module_the_checker_loads_for_it():
    """check_certificate imports only the checker module of the claim's kind (CHECKER_OF):
    each module registers exactly the kinds listed for it."""
    import importlib

    from symrel.checking import CHECKER_OF, CLAIM_KINDS, _load_checkers

    _load_checkers()
    assert set(CHECKER_OF) == set(CLAIM_KINDS)
    for kind, module in CHECKER_OF.items():
        check = CLAIM_KINDS[kind].check
        assert check.__module__ == importlib.import_module(f"symrel.checking.{module}").__name__, kind


def test_the_checker_recomputes_with_its_own_code_not_the_models_constructions():
    """The softmax enclosure of a tracr audit and the maxout net of a mesh's lattice form are
    computed by the checker itself (checking.softmax_enclosure, checking.equivalence's
    lattice layers): no checker module imports the audit's enclosure or the lattice-to-maxout
    construction, by name or by module."""
    banned_names = {"enclose", "lattice_to_maxout", "cpwl_mesh_to_maxout", "cpwl_to_maxout"}
    banned_modules = {"symrel.models.sequence_softmax", "symrel.constructions", "symrel.constructions.cpwl_mesh_lattice",
                      "symrel.constructions.cpwl_to_maxout"}
    for path in sorted((ROOT / "symrel" / "checking").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = "symrel.checking" if node.level == 1 else "symrel" if node.level == 2 else ""
                module = ".".join(p for p in (base, node.module) if p)
                assert module not in banned_modules, (path.name, module)
                assert not banned_names & {a.name for a in node.names}, (path.name, module)
                assert not {f"{module}.{a.name}" for a in node.names} & banned_modules, (path.name, module)
            elif isinstance(node, ast.Attribute):
                assert node.attr not in banned_names, (path.name, node.attr)
