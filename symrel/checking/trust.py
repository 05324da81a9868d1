"""What a certificate check trusts: the modules of the trusted base, written down one by one.

``symrel check-certificate`` runs the code of the modules listed in :data:`TRUSTED` and of
no other module of symrel. The list is explicit, module by module, each with the reason it
is there: tests/checking/test_independence.py checks a certificate of every claim kind
(tests/checking/golden/valid), each in a fresh interpreter, and asserts that together they
load exactly this list. A module that joins the base (a new import of the checker, or of a
module it uses) fails that test until it is added here, so growing the base is a decision
someone writes down, not a side effect.

Nothing of the provers takes part: no module of :mod:`symrel.prover`, :mod:`symrel.regions`,
:mod:`symrel.softmax`, :mod:`symrel.preorders`, :mod:`symrel.relations`,
:mod:`symrel.constructions`, :mod:`symrel.compiler`, :mod:`symrel.interop`,
:mod:`symrel.lowering`, :mod:`symrel.report` or :mod:`symrel.statements`, and none of the
float proposals of the exact layer (:mod:`symrel.exact.highs_proposal`,
:mod:`symrel.exact.float_simplex`) or its affine forms (:mod:`symrel.exact.forms`).

``python -m symrel.checking.trust`` writes docs/trust.md: the list with line counts and,
measured in fresh interpreters, the modules and lines one check of each golden certificate
loads (the docs build writes it again; a test checks that the page is current).

>>> in_trusted_base("symrel.exact.numbers"), in_trusted_base("symrel.exact.forms")
(True, False)
>>> part_of("symrel.checking.semantics")
'the checker'
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT.parent / "tests" / "checking" / "golden" / "valid"

#: the goal for the lines one check loads (issue 26); the page states the measured numbers
GOAL_LINES = 4000
#: (part, what it is there for, {module: why this module}), in the order of the page
PARTS: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("the checker", "the claim kinds, their steps and checks; its own reading and semantics of the inputs; the exp enclosures", {
        "symrel.checking": "the header, the inputs' hashes, the step list and its order; dispatch to one claim kind",
        "symrel.checking.read": ("strict typed reading of certificate fields, naming the JSON path; its own copy of "
                                 "the ASCII number grammar"),
        "symrel.checking.refusals": ("the wording of a refusal: a refused value in words, the JSON path and rule of "
                                     "a failure (loaded only when a check refuses a certificate, see ON_REFUSAL)"),
        "symrel.checking.inputs": "the checker's own reading of an embedded input: its kind and numbers; dispatch by kind",
        "symrel.checking.semantics": ("the checker's own semantics and reader of maxout and ReLU nets and CPWL functions "
                                      "of one variable"),
        "symrel.checking.domains": "the checker's own semantics and reader of boxes and polytopes",
        "symrel.checking.transformers": "the checker's own semantics and reader of hardmax and softmax Transformers",
        "symrel.checking.sequences": "the checker's own semantics and reader of sequence Transformers (tracr audits)",
        "symrel.checking.meshes": ("the checker's own semantics and reader of CPWL functions on a mesh, and its own "
                                   "check that the mesh is conforming"),
        "symrel.checking.tables": ("the checker's own reader of plain tables: preorders, retrieval tasks, relations, "
                                   "relation features"),
        "symrel.checking.claims": "what a certificate proves, derived from its data; the claim's keys and inputs",
        "symrel.checking.equivalence": "equivalence claims: domain box, layer by layer replay, final identity",
        "symrel.checking.polytope_domain": "the domain-box step of an equivalence on a polytope: inside the box, not empty",
        "symrel.checking.cpwl_lattice": "the equivalence replay of a CPWL function of one variable: its lattice form",
        "symrel.checking.mesh_lattice": "the equivalence replay of a CPWL function on a mesh: support, lattice forms",
        "symrel.checking.exp_bounds": "exp bounded by the checker's own series with an explicit remainder",
        "symrel.checking.kernel": "the affine forms of the equivalence replay",
        "symrel.checking.node_cells": "the node-cells step: outputs equal on the cells of the nodes they depend on",
        "symrel.checking.transformer_replay": "the equivalence replay of a hardmax Transformer: heads, ReLU units, states",
        "symrel.checking.preorders": "utility, Richter-Peleg, multi-utility and retrieval claims",
        "symrel.checking.regions": "regions and equivalence-cells claims",
        "symrel.checking.cell_replay": "the cell and path replay of a model, and its limits",
        "symrel.checking.relations": "relation claims: the table, the features, the LDL^T factors",
        "symrel.checking.softmax": "softmax-bound claims",
        "symrel.checking.softmax_enclosure": "the tracr audit's softmax enclosure, recomputed",
        "symrel.checking.tracr_audit": "tracr-audit claims",
        "symrel.checking.vnnlib": "vnnlib-unsat claims: the property, the steps' boxes; dispatch to the net's leaf check",
        "symrel.checking.relu_leaves": ("the leaves of ReLU nets (vnnlib-unsat and output-bounds claims): forward forms, "
                                        "phases, relaxations, backward bounds; the trees' walk and cost"),
        "symrel.checking.leaf_runs": ("where the leaves of vnnlib-unsat and output-bounds claims are checked: here, or "
                                      "on an executor's workers, with the same verdict"),
        "symrel.checking.network_file": "the file names and sha256 that vnnlib-unsat and output-bounds claims record",
        "symrel.checking.vnnlib_limits": "the limits of the vnnlib-unsat checks and the relaxation numbers they bound",
        "symrel.checking.vnnlib_layered": ("vnnlib-unsat claims of layered nets: trees of input, ReLU, max and unsafe "
                                           "splits, their leaves' bounds recomputed"),
        "symrel.checking.layered_net": "the checker's own semantics and reader of layered nets",
        "symrel.checking.output_bounds": "output-bounds claims: their steps, leaf bounds and attained points",
    }),
    ("errors", "the exception types", {
        "symrel.errors": "InputError, LimitError and the other exception types",
    }),
    ("the rule registry", "the names of the rules a step can name (the checker's own list of each claim kind's steps decides)", {
        "symrel.certificates": "the package (its names load on first use, so the proof objects are not loaded)",
        "symrel.certificates.rules": ("the registered rule names, the keys each records and whether each can prove "
                                      "a step (not their wording, symrel.certificates.rule_wording)"),
    }),
    ("the exact number layer", "exact rationals", {
        "symrel.exact": "the package (its names load on first use)",
        "symrel.exact.numbers": ("the rational field (the ground type), the number limits, printing; JSON floats kept "
                                 "apart (not the library's reading of numbers, symrel.exact.number_text: a check does "
                                 "not load it)"),
        "symrel.exact.sizes": ("the limits on the numbers exact arithmetic may build (denominator bits, product "
                               "bits), bounded from the numbers as written before the arithmetic"),
    }),
    ("the canonical text", "the sha256 of an embedded input (equal only for inputs read as the same exact object)", {
        "symrel.fileformat": "the package (its names load on first use: neither its readers nor its writers)",
        "symrel.fileformat.canonical": "the canonical text of an embedded object and its sha256",
    }),
    ("the common-face test of a mesh", "loaded only to check a mesh in dimension 3 or more, the exact LP only when a facet "
     "does not settle two of its simplices (no golden certificate has such a mesh: its modules are listed here by hand, "
     "see ON_DEMAND)", {
        "symrel.checking.mesh_faces": "the common-face test of the checker's mesh reader (dimension 3 and more)",
        "symrel.exact.lp": "exact feasibility (method exact), for the mesh check's common-face test",
        "symrel.exact.exact_simplex": "the exact simplex behind it",
        "symrel.exact.simplex": "the revised simplex, run over Q",
        "symrel.exact.lp_certificates": "the exact checks of LP witnesses and Farkas vectors",
        "symrel.exact.matrices": "dense matrices over Q, for the exact simplex",
    }),
    ("the package root", "loaded with any module of symrel", {
        "symrel": "the package root (its names load on first use)",
        "symrel._version": "the version",
        "symrel.kind_plugins": "the names of the reader modules of upper kinds (imports nothing)",
        "symrel.lazy_names": "the packages' names loaded from their submodule on first use (PEP 562)",
    }),
)

#: the modules of the base that only some inputs load (no golden certificate loads them; a
#: test checks that checking a 3-D mesh that needs the LP loads exactly these beyond the rest)
ON_DEMAND: tuple[str, ...] = ("symrel.checking.mesh_faces", "symrel.exact.lp", "symrel.exact.exact_simplex",
                              "symrel.exact.simplex", "symrel.exact.lp_certificates", "symrel.exact.matrices")

#: the modules of the base that only a refusal loads (no golden certificate is refused; a test
#: checks that refusing a tampered certificate loads them, and nothing outside the base)
ON_REFUSAL: tuple[str, ...] = ("symrel.checking.refusals",)

#: module -> why it is in the trusted base
TRUSTED: dict[str, str] = {module: why for _, _, modules in PARTS for module, why in modules.items()}


def part_of(name: str) -> str | None:
    """The part of the trusted base the module ``name`` belongs to (None: not in the base)."""
    return next((part for part, _, modules in PARTS if name in modules), None)


def in_trusted_base(name: str) -> bool:
    """Whether the module ``name`` is listed in the trusted base."""
    return name in TRUSTED


def _path(name: str) -> Path:
    rel = Path(*name.split(".")[1:]) if name != "symrel" else Path()
    package = ROOT / rel / "__init__.py"
    return package if package.exists() else (ROOT / rel).with_suffix(".py")


def lines(name: str) -> int:
    """The number of lines of the module's source."""
    return len(_path(name).read_text(encoding="utf-8").splitlines())


_CHECK_ONE = """
import json, sys
from pathlib import Path
from symrel.checking import check_certificate
claim = check_certificate(json.loads(Path(sys.argv[1]).read_text()))["claim"]
cert = json.loads(Path(sys.argv[1]).read_text())
print(json.dumps({"claim": claim, "modules": sorted(m for m in sys.modules if m.split(".")[0] == "symrel"),
                  "kinds": sorted({entry["object"]["kind"] for entry in cert["inputs"].values()}),
                  "floats": [m for m in ("numpy", "scipy", "torch", "flint.arb") if m in sys.modules]}))
"""


def loaded_by(certificate: Path) -> dict:
    """Check one certificate file in a fresh interpreter: ``{"claim": kind, "modules": [the
    symrel modules loaded], "floats": [float libraries loaded]}``. Cost: one interpreter start
    and one check."""
    proc = subprocess.run([sys.executable, "-c", _CHECK_ONE, str(certificate)], capture_output=True, text=True,
                          cwd=ROOT.parent, timeout=300, env={"PYTHONPATH": str(ROOT.parent), "PATH": "/usr/bin:/bin"})
    if proc.returncode != 0:
        raise RuntimeError(f"{certificate.name}: the check failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def measure(directory: Path = GOLDEN) -> dict[str, dict]:
    """:func:`loaded_by` for every certificate file of ``directory``, by file name (without ``.json``)."""
    return {path.stem: loaded_by(path) for path in sorted(directory.glob("*.json"))}


def page(measured: dict[str, dict] | None = None) -> str:
    """The text of docs/trust.md (``measured``: :func:`measure`'s result, measured when None)."""
    if measured is None:
        measured = measure() if GOLDEN.is_dir() else {}
    out = [
        "# What a certificate check trusts",
        "",
        "Produced by `python -m symrel.checking.trust`, and again by every docs build (do not edit by hand).",
        "",
        "`symrel check-certificate` (and {func}`symrel.checking.check_certificate`) runs the code of the",
        "modules below and of no other module of symrel: no prover, no construction, no region enumeration,",
        "no softmax bound, no preorder algorithm, no relation factorisation, no compiler, interop, report or",
        "proof runner, and none of the exact layer's float proposals. The list is explicit",
        "({data}`symrel.checking.trust.TRUSTED`, one reason per module): a test checks a certificate of every",
        "claim kind, each in a fresh interpreter, and asserts that together they load exactly this list. The",
        "checks use exact rational arithmetic alone: no float and no interval or multiprecision library",
        "(sympy, which provides the rational field, imports mpmath when it loads; the checker calls none of",
        "it), and `exp` is bounded by the checker's own series with an explicit remainder",
        "({mod}`symrel.checking.exp_bounds`).",
        "",
        "The checker reads every input a certificate embeds with its own reader and its own table of",
        "semantics ({mod}`symrel.checking.inputs`: maxout and ReLU nets, CPWL functions, hardmax and softmax",
        "Transformers, sequence Transformers, boxes, polytopes, plain tables), not with the file-format readers",
        "or the library's model classes (it checks that a mesh is conforming with its own code too); of",
        "{mod}`symrel.fileformat` it runs the canonical text behind the inputs' sha256 alone. Its numbers it",
        "reads with its own copy of the ASCII number grammar ({func}`symrel.checking.read.rational_pair`), not",
        "with the library's ({mod}`symrel.exact.number_text`, which a check does not load).",
        "",
        "The sha256 of an input is that of its canonical text, which writes every value as the JSON reader",
        "gave it, so that reading the text back gives the same object: two inputs have the same sha256 only",
        "if symrel reads them as the same exact object. A JSON float stays a JSON float (`0.1`, never the",
        "string `\"0.1\"`, which is 1/10): a certificate's inputs hold none (the checker refuses them), so a",
        "file holding one never binds to a certificate's input (`check-certificate --input NAME=FILE`).",
        "",
        "Its arithmetic is bounded before it is done ({mod}`symrel.exact.sizes`): from the bit lengths and",
        "counts a certificate spells out, a common denominator of its numbers beyond `denominator bits`",
        "(`--max-denominator-bits`, 100,000 bits) and numbers a chain of products could build beyond",
        "`product bits` (`--max-product-bits`, 200,000 bits) are refused with exit 2 naming the limit, and its",
        "operation limits weigh an operation on long numbers by their size; so a check costs time and memory",
        "in proportion to what the file spells out, whatever its numbers ([format](format.md), \"Limits of the",
        "checker\").",
        "",
        "What a proof relied on is recorded in its certificate and checked there, not rebuilt by calling a",
        "construction: the lattice form of a CPWL function, the ReLU pairs of a feed-forward sublayer, the",
        "tied keys of a softmax selection head, the dominating term of every dropped max term, the chain",
        "level of a Richter-Peleg utility. Certificates written before the first two were recorded still",
        "check: the checker derives the missing lattice form or ReLU pairs with its own code (never the",
        "prover's construction, which lives in {mod}`symrel.constructions`, above the checker) and checks",
        "them, and every step after them, as recorded ones ([format](format.md)).",
        "",
    ]
    if measured:
        out += ["## What one check loads", "",
                "Each golden certificate (tests/checking/golden/valid) checked alone in a fresh interpreter: the",
                f"symrel modules it loads and their lines (the goal: at most {GOAL_LINES:,} lines for any one check).",
                "", "| certificate | claim kind | modules | lines |", "|---|---|---|---|"]
        for name, found in measured.items():
            count = sum(lines(m) for m in found["modules"])
            out.append(f"| `{name}` | {found['claim']} | {len(found['modules'])} | {count:,} |")
        out.append("")
        over = [(name, sum(lines(m) for m in found["modules"])) for name, found in measured.items()
                if sum(lines(m) for m in found["modules"]) > GOAL_LINES]
        out.append(f"{len(measured) - len(over)} of these {len(measured)} checks load at most {GOAL_LINES:,} lines"
                   + (": the goal is met for every one." if not over else "."))
        if over:
            out.append("Over the goal, with the lines of each part of the base it loads:")
            out.append("")
            for name, count in over:
                parts: dict[str, int] = {}
                for m in measured[name]["modules"]:
                    parts[part_of(m) or "unlisted"] = parts.get(part_of(m) or "unlisted", 0) + lines(m)
                shares = ", ".join(f"{part} {n:,}" for part, n in sorted(parts.items(), key=lambda kv: -kv[1]))
                out.append(f"- `{name}`: {count:,} lines ({shares}).")
            out.append("")
        lp = sum(lines(m) for m in ON_DEMAND)
        out.append(f"A check of a mesh in dimension 3 or more also loads its common-face test, and the exact LP when a "
                   f"facet does not settle two simplices ({len(ON_DEMAND)} modules, {lp:,} lines in all; no golden "
                   "certificate has such a mesh).")
        words = sum(lines(m) for m in ON_REFUSAL)
        out.append(f"A check that refuses a certificate also loads the wording of its refusal ({len(ON_REFUSAL)} "
                   f"module, {words:,} lines: {', '.join(f'`{m}`' for m in ON_REFUSAL)}).")
        out.append("")
    total = 0
    for part, why, modules in PARTS:
        count = sum(lines(m) for m in modules)
        total += count
        out += [f"## {part[0].upper() + part[1:]} ({count:,} lines)", "", why[0].upper() + why[1:] + ".", "",
                "| module | lines | why |", "|---|---|---|"]
        out += [f"| `{m}` | {lines(m)} | {reason} |" for m, reason in modules.items()]
        out.append("")
    out.append(f"In all: {len(TRUSTED)} modules, {total:,} lines.")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:  # pragma: no cover - a script
    target = Path(argv[0]) if argv else ROOT.parent / "docs" / "trust.md"
    target.write_text(page(), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
