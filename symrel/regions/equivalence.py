"""The complete decision procedure for ``a(x) = b(x) for all x in D``.

Both models run on the same input through one search tree
(:mod:`.enumerate_cells`); on every leaf cell each is affine, with maps
``f_a`` and ``f_b``. For every output r, ``g = f_a,r - f_b,r`` must vanish on
the cell:

* ``g`` is the zero form: nothing to show;
* otherwise the systems "cell and g > 0" and "cell and g < 0" are decided by the
  exact LP: a witness is a point of the cell where the models differ (a
  counterexample, confirmed by plain exact evaluation of both models); two
  Farkas vectors prove ``g = 0`` on the cell (this happens on lower-dimensional
  tie cells, where different affine maps agree).

Continuous models (ReLU, maxout, CPWL1D, CPWL mesh) are compared on the open cells (their
union is dense in D, and continuous functions equal on a dense set are equal);
as soon as a hardmax Transformer is involved the exact, tie-aware partition is
used, so the behaviour exactly at ties is decided too.

The proof's certificate (:func:`symrel.certificates.io.certificate_of`) lists every
branch of the tree, each either a cell with its witness (and the Farkas pairs
for outputs whose maps differ as forms) or an empty outcome with its Farkas
vector (and, for a CPWL mesh function, the Farkas vectors putting D inside its
support, :mod:`.mesh_support`); :mod:`symrel.checking.regions` re-derives every row from the models and
verifies coverage and every number.

>>> from symrel.models import Box, CPWL1D
>>> from symrel.constructions import to_maxout
>>> f = CPWL1D([0, 1, 2], [0, 1, 0])
>>> decide_equivalence(f, to_maxout(f), Box([[-1, 3]])).result
'proved'
>>> g = CPWL1D([0, 1, 2], [0, 1, "1/1000000"])
>>> p = decide_equivalence(f, g, Box([[-1, 3]]))
>>> p.result, f(p.counterexample) != g(p.counterexample)
('refuted', True)
"""

from __future__ import annotations

from ..errors import InputError
from ..exact import format_rational, inner
from ..certificates import OPEN, PROVED, REFUTED, Proof, Step
from .cell_json import farkas_json, row_values
from .cell_lp import cell_lp
from .enumerate_cells import enumerate_cells
from ..exact.forms import Row
from .mesh_support import supports
from .program_to_decisions import is_continuous

CLAIM_KIND = "equivalence-cells"


def _difference_on_cell(cell, g, stats):
    """``("zero", (pos, neg))`` with Farkas vectors, or ``("differs", point)``."""
    rows = cell.rows
    out = []
    for extra in (Row(-g, "<"), Row(g, "<")):  # g > 0, then g < 0
        all_rows = rows + [extra]
        point, cert = cell_lp(all_rows, list(range(len(all_rows))), stats, len(inner(cell, "witness")))
        if point is not None:
            return "differs", point
        out.append(cert)
    return "zero", tuple(out)


def cell_check(cell, stats):
    """The record of one cell: ``("equal", [None or {"pos", "neg"} per output])`` (Farkas pairs
    where the maps differ as forms) or ``("differs", r, point)`` for the first output r that
    differs at an exact point of the cell. A top-level function: it runs in the workers too."""
    fa, fb = cell.outputs
    equal = []
    for r, (u, v) in enumerate(zip(fa, fb)):
        g = u - v
        if g.is_zero():
            equal.append(None)
            continue
        status, info = _difference_on_cell(cell, g, stats)
        if status == "differs":
            return "differs", r, info
        equal.append({"pos": farkas_json(info[0]), "neg": farkas_json(info[1])})
    return "equal", equal


def decide_equivalence(a, b, domain, executor=None, max_cells=None, budget=None) -> Proof:
    """Decide ``a(x) = b(x)`` for every x in ``domain``, exactly and completely.

    Returns a :class:`~symrel.certificates.Proof`: ``proved`` (its certificate lists every
    cell and every empty branch), ``refuted`` (``proof.counterexample`` is an exact
    rational point where the outputs differ, confirmed by ``model.evaluate``) or
    ``open`` when ``max_cells`` stopped the enumeration. ``executor``: any
    :class:`concurrent.futures.Executor`. Cells are checked as they are produced, in the
    workers too: the first differing cell in serial order ends the search, and the answer
    (counterexample or certificate) is the serial run's on any executor. ``budget``: a
    :class:`~symrel.budget.Budget` checked at every node of the tree.
    """
    for name, m in (("a", a), ("b", b)):
        if m.input_dim != domain.dim:
            raise InputError(f"expected a model with {domain.dim} inputs (the domain's dimension), got {m.input_dim}", path=f"{name}.input_dim")
    if a.output_dim != b.output_dim:
        raise InputError(f"the models have {a.output_dim} and {b.output_dim} outputs", path="b.output_dim")
    mode = "open" if is_continuous(a) and is_continuous(b) else "exact"
    claim = "for all x in D: a(x) = b(x)"
    proof = Proof(
        claim=claim,
        construction="complete cell enumeration with exact LP certificates",
        claim_data={"kind": CLAIM_KIND, "mode": mode},
        inputs={"a": a, "b": b, "domain": domain},
    )
    en = enumerate_cells([a, b], domain, mode=mode, executor=executor, max_cells=max_cells, record_empty=True,
                         on_limit="return", budget=budget, check=cell_check)
    stats = dict(en.stats)
    branches, found = [], []
    for cell, rec in zip(en.cells, en.checks):
        if rec[0] == "differs":
            found.append((cell, rec[1], rec[2]))
            break
        branches.append({"path": list(cell.path), "witness": [format_rational(v) for v in inner(cell, "witness")],
                         "values": row_values(cell.rows, inner(cell, "witness")), "equal": rec[1]})
    if found:
        cell, r, point = found[0]
        ya, yb = a.evaluate_exact(point), b.evaluate_exact(point)
        if ya == yb:  # pragma: no cover - would be a bug in the enumeration
            raise AssertionError("internal error: a counterexample failed its exact evaluation")
        proof.add(Step("on every cell the two affine maps agree", "cell-maps-equal",
                       {"cell": list(cell.path), "output": r,
                        "point": [format_rational(v) for v in point],
                        "a": [format_rational(v) for v in ya], "b": [format_rational(v) for v in yb]},
                       REFUTED, note=f"output {r} differs"))
        where = "on a lower-dimensional (tie) cell" if mode == "exact" and any(rel == "=" for _, rel in cell.rows) else "in a cell"
        proof.refute(point, f"a(x) = {[format_rational(v) for v in ya]}, b(x) = {[format_rational(v) for v in yb]}; {where}")
        proof.extra["stats"] = stats
        return proof
    if not en.complete:
        proof.add(Step(f"the decision tree of a and b covers D ({mode} cells)", "cell-cover", {}, OPEN,
                       note=f"cell limit reached after {len(en.cells)} cells; raise max_cells"))
        return proof
    branches = [{"path": list(e.path), "farkas": farkas_json(e.farkas)} for e in en.empty] + branches
    cover = {"mode": mode, "cells": len(en.cells), "empty": len(en.empty), "branches": branches}
    support = supports([a, b], domain)
    if support is not None:
        cover["support"] = support
    proof.add(Step(
        f"the decision tree of a and b covers D and both models are affine on each of its {len(en.cells)} cells "
        f"({mode} cells), with equal maps",
        "cell-cover",
        cover,
        PROVED,
    ))
    proof.extra["stats"] = stats
    return proof
