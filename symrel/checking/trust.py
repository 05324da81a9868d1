"""What a certificate check trusts: the modules of the trusted base, written down.

``symrel check-certificate`` runs the code of these modules and of no other module
of symrel (tests/checking/test_independence.py checks it in a fresh interpreter,
for a certificate of every claim kind). The base is, by part:

* the checker itself, :mod:`symrel.checking`;
* :mod:`symrel.errors`;
* the rule registry, :mod:`symrel.certificates.rules` (names only; which steps a claim
  kind needs is the checker's own knowledge);
* the exact number layer, :mod:`symrel.exact` (rationals, dense matrices);
* the file-format readers: JSON parsing, the field checks, the readers of models
  and domains, and the trusted readers of the plain tables
  (:mod:`symrel.fileformat.trusted`);
* the semantics of the models, :mod:`symrel.models` (evaluation, the data classes);
* the package root (``symrel/__init__.py`` and the version).

Nothing of the provers takes part: no module of :mod:`symrel.prover`,
:mod:`symrel.regions`, :mod:`symrel.softmax`, :mod:`symrel.preorders`,
:mod:`symrel.relations`, :mod:`symrel.compiler`, :mod:`symrel.interop`,
:mod:`symrel.lowering`, :mod:`symrel.report` or :mod:`symrel.statements`.

``python -m symrel.checking.trust`` writes docs/trust.md, the list of the modules
with their line counts (the docs build writes it again; a test checks the modules listed).

>>> in_trusted_base("symrel.exact.numbers"), in_trusted_base("symrel.softmax.taylor")
(True, False)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (part, module-name prefixes or names, what it is there for)
PARTS = (
    ("the checker", ("symrel.checking",), "the claim kinds, their steps and checks; the exp enclosures"),
    ("errors", ("symrel.errors",), "the exception types"),
    ("the rule registry", ("symrel.certificates", "symrel.certificates.core", "symrel.certificates.rules"),
     "the names of the rules a step can name (the checker's own list of each claim kind's steps decides)"),
    ("the exact number layer", ("symrel.exact",), "exact rationals and matrices over Q"),
    ("the file-format readers",
     ("symrel.fileformat", "symrel.fileformat.fields", "symrel.fileformat.jsonio", "symrel.fileformat.registry",
      "symrel.fileformat.models_io", "symrel.fileformat.sequence_io", "symrel.fileformat.trusted"),
     "strict JSON, the field checks, the readers of models, domains and plain tables"),
    ("the semantics of the models", ("symrel.models",), "the data classes of models and domains, exact evaluation"),
    ("the package root", ("symrel", "symrel._version", "symrel.kind_plugins"), "loaded with any module of symrel"),
)

_PACKAGES = {"symrel.checking", "symrel.exact", "symrel.models"}  # every module below these belongs to the base


def part_of(name: str) -> str | None:
    """The part of the trusted base the module ``name`` belongs to (None: not in the base)."""
    for part, names, _ in PARTS:
        for prefix in names:
            if name == prefix or (prefix in _PACKAGES and name.startswith(prefix + ".")):
                return part
    return None


def in_trusted_base(name: str) -> bool:
    """Whether the module ``name`` belongs to the trusted base."""
    return part_of(name) is not None


def _path(name: str) -> Path:
    rel = Path(*name.split(".")[1:]) if name != "symrel" else Path()
    package = ROOT / rel / "__init__.py"
    return package if package.exists() else (ROOT / rel).with_suffix(".py")


def _modules() -> list[str]:
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        name = ".".join(parts)
        if in_trusted_base(name) and "__main__" not in name:
            out.append(name)
    return out


def lines(name: str) -> int:
    """The number of lines of the module's source."""
    return len(_path(name).read_text(encoding="utf-8").splitlines())


def page() -> str:
    """The text of docs/trust.md."""
    modules = _modules()
    out = [
        "# What a certificate check trusts",
        "",
        "Produced by `python -m symrel.checking.trust`, and again by every docs build (do not edit by hand).",
        "",
        "`symrel check-certificate` (and {func}`symrel.checking.check_certificate`) runs the code of the",
        "modules below and of no other module of symrel: no prover, no region enumeration, no softmax",
        "bound, no preorder algorithm, no relation factorisation, no compiler, interop, report or proof",
        "runner. A test checks a certificate of every claim kind in a fresh interpreter and then finds no",
        "other symrel module loaded. The checks use exact rational arithmetic alone: no float and no",
        "interval or multiprecision library (sympy, which provides the rational field, imports mpmath",
        "when it loads; the checker calls none of it), and `exp` is bounded by the checker's own series",
        "with an explicit remainder ({mod}`symrel.checking.exp_bounds`).",
        "",
        "What a proof relied on is recorded in its certificate and checked there, not rebuilt by calling a",
        "construction: the lattice form of a CPWL function, the ReLU pairs of a feed-forward sublayer, the",
        "tied keys of a softmax selection head, the dominating term of every dropped max term, the chain",
        "level of a Richter-Peleg utility. Certificates written before the first two were recorded still",
        "check: the checker derives the missing lattice form or ReLU pairs with its own code (never the",
        "prover's construction) and checks them, and every step after them, as recorded ones",
        "([format](format.md)).",
        "",
    ]
    total = 0
    for part, _, why in PARTS:
        names = [m for m in modules if part_of(m) == part]
        count = sum(lines(m) for m in names)
        total += count
        out += [f"## {part[0].upper() + part[1:]} ({count} lines)", "", why[0].upper() + why[1:] + ".", "",
                "| module | lines |", "|---|---|"]
        out += [f"| `{m}` | {lines(m)} |" for m in names]
        out.append("")
    out.append(f"In all: {len(modules)} modules, {total} lines.")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:  # pragma: no cover - a script
    target = Path(argv[0]) if argv else ROOT.parent / "docs" / "trust.md"
    target.write_text(page(), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
