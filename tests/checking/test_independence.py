"""The checker is a small trusted kernel: in a fresh interpreter, checking a certificate
of every claim kind loads no symrel module outside the trusted base, and docs/trust.md
lists that base with its true line counts."""

import ast
import json
from pathlib import Path

from symrel.checking import trust

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden" / "valid"

_MEASURED = {}


def measured() -> dict:
    """Each golden certificate checked alone in a fresh interpreter (trust.measure), once per session."""
    if not _MEASURED:
        _MEASURED.update(trust.measure(GOLDEN))
    return _MEASURED


def test_checks_of_every_claim_kind_load_exactly_the_listed_trusted_base():
    """Together, the checks of the golden certificates (one per claim kind and more, each in a
    fresh interpreter) load exactly the modules of trust.TRUSTED: a module that joins the
    base must be listed there, with its reason, and a listed module that no check loads any
    more must leave the list. No float library is loaded."""
    from symrel.checking import CLAIM_KINDS, _load_checkers

    found = measured()
    _load_checkers()
    assert {f["claim"] for f in found.values()} == set(CLAIM_KINDS)
    loaded = set().union(*(f["modules"] for f in found.values()))
    assert sorted(loaded - set(trust.TRUSTED)) == [], "loaded by a check but not listed in symrel.checking.trust.TRUSTED"
    assert sorted(set(trust.TRUSTED) - loaded) == sorted(trust.ON_DEMAND + trust.ON_REFUSAL), \
        "listed in symrel.checking.trust.TRUSTED but loaded by no check (and not listed in ON_DEMAND or ON_REFUSAL)"
    assert all(f["floats"] == [] for f in found.values())


_READ_MESH = """
import json, sys
from symrel.checking.inputs import read_input
mesh = {"symrel": 1, "kind": "cpwl", "input_dim": 3, "simplices": [[0, 1, 2, 3], [0, 4, 5, 6]], "values": [[0]] * 7,
        "vertices": [[0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0], [-2, 0, -3], [-2, 3, -3], [1, -2, 1]]}
read_input(mesh, "inputs.f.object")
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] == "symrel")))
"""


def test_the_modules_loaded_on_demand_are_those_of_a_3d_mesh_the_lp_decides():
    """trust.ON_DEMAND (the base's modules no golden check loads) are exactly what the checker's
    reading of a 3-D mesh adds when no facet separates two of its simplices (two tetrahedra
    sharing one vertex: the mesh check's exact LP confirms the common face); nothing else."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _READ_MESH], capture_output=True, text=True, cwd=ROOT, timeout=300)
    loaded = set(json.loads(proc.stdout))
    assert loaded <= set(trust.TRUSTED), sorted(loaded - set(trust.TRUSTED))
    assert set(trust.ON_DEMAND) <= loaded


_REFUSE = """
import json, sys
from pathlib import Path
from symrel.checking import CertificateError, check_certificate
cert = json.loads(Path(sys.argv[1]).read_text())
cert["claim"]["network_sha256"] = "0" * 64
try:
    check_certificate(cert)
except CertificateError as err:
    print(json.dumps({"path": err.path, "modules": sorted(m for m in sys.modules if m.split(".")[0] == "symrel")}))
"""


def test_a_refusal_loads_its_wording_and_nothing_outside_the_trusted_base():
    """trust.ON_REFUSAL (the wording of a refusal) is loaded when a check refuses a certificate,
    within the trusted base; an accepted certificate does not load it (the golden checks)."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _REFUSE, str(GOLDEN / "vnnlib-unsat.json")], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    found = json.loads(proc.stdout)
    assert found["path"] == "claim.network_sha256"
    assert set(trust.ON_REFUSAL) <= set(found["modules"]) <= set(trust.TRUSTED), \
        sorted(set(found["modules"]) - set(trust.TRUSTED))
    assert not any(set(trust.ON_REFUSAL) & set(f["modules"]) for f in measured().values())


def test_no_check_loads_the_provers_forms_or_float_proposals():
    for name, found in measured().items():
        assert not {"symrel.exact.forms", "symrel.exact.highs_proposal", "symrel.exact.float_simplex"} & set(found["modules"]), name
        assert not [m for m in found["modules"] if m.startswith("symrel.constructions")], name


def test_the_checker_imports_only_the_trusted_base():
    """Read from the source (function-level imports count): every symrel module a module of
    symrel.checking names is in the trusted base, and none is the provers' affine forms; the
    exact LP is imported by the mesh reader's common-face test alone (dimension 3 and more)."""
    for path in sorted((ROOT / "symrel" / "checking").glob("*.py")):
        if path.name == "trust.py":   # the list itself, run by the docs build, not by a check
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = "symrel.checking" if node.level == 1 else "symrel"
                name = f"{base}.{node.module}" if node.module else base
                assert trust.in_trusted_base(name), (path.name, name)
                assert name != "symrel.exact.forms", (path.name, name)
                assert name != "symrel.exact.lp" or path.name == "mesh_faces.py", (path.name, name)
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith(("mpmath", "numpy", "scipy")) for a in node.names), path.name


def _rows(text: str) -> tuple:
    """The page's rows without their line counts: (module, why) of the list, and (certificate,
    claim kind, modules) of what each check loads."""
    import re

    listed = re.findall(r"^\| `([\w.]+)` \| [\d,]+ \| (.*) \|$", text, re.M)
    checks = re.findall(r"^\| `([\w.-]+)` \| ([\w-]+) \| (\d+) \| [\d,]+ \|$", text, re.M)
    return listed, checks


def test_the_trust_page_is_current():
    """docs/trust.md is what ``python -m symrel.checking.trust`` writes (the docs build writes
    it too, docs/conf.py): the modules of the list with their reasons, and the modules each
    golden check loads. (Line counts move with every edit of a listed module; the docs build
    and that command refresh them, and trust.page computes them from the source.)"""
    on_disk = (ROOT / "docs" / "trust.md").read_text(encoding="utf-8")
    assert _rows(on_disk) == _rows(trust.page(measured())), "docs/trust.md is stale: run python -m symrel.checking.trust"
    assert [m for m, _ in _rows(on_disk)[0]] == list(trust.TRUSTED)
    assert "_write_trust_page()" in (ROOT / "docs" / "conf.py").read_text()


def test_the_page_counts_lines_per_check():
    text = trust.page({"x": {"claim": "utility", "modules": ["symrel", "symrel.errors"], "floats": []}})
    assert f"| `x` | utility | 2 | {trust.lines('symrel') + trust.lines('symrel.errors'):,} |" in text


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
