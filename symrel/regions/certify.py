"""Certified region counts (claim kind ``regions``), checked by :mod:`symrel.checking.regions`.

The certificate of "``model`` has exactly N activation (linear) regions over D" holds:

* for a CPWL mesh function, that D lies in its support (:mod:`.mesh_support`);
* the whole search tree (open cells): every cell with its witness point, every empty
  outcome with its Farkas vector, so the cells are exactly the open activation
  regions (distinct paths are disjoint sets);
* for a linear count, the merges: for two cells with the same map, a point of the
  relative interior of their common facet (on a row of one that is a row of the
  other reversed, every other row strict there); and for every pair of same-map
  cells left in different regions, for each hyperplane they could share, a Farkas
  vector showing they do not (or a parallel row that keeps them off it).

Merges give at most N regions, the separations at least N.

>>> from symrel.models import Box, CPWL1D
>>> p = certify_regions(CPWL1D([0, 1, 2, 3], [0, 1, 2, 0]), Box([[0, 3]]))
>>> p.result, p.claim_data["count"]
('proved', 2)
"""

from __future__ import annotations

from ..exact import format_rational, inner
from ..certificates import OPEN, PROVED, Proof, Step
from .count import KINDS, merge_linear_regions
from .enumerate_cells import enumerate_cells, farkas_json, row_values
from .mesh_support import supports
from ..errors import InputError

CLAIM_KIND = "regions"
#: the linear count symrel makes: the connected components of the set of interior points of
#: D near which the model is affine (docs/theory.md, "Linear regions"); the claim says so
DEFINITION = "locally-affine"


def certify_regions(model, domain, kind: str = "linear", executor=None, max_cells=None) -> Proof:
    """Count the regions of ``model`` over ``domain`` and prove the count (see the module docstring)."""
    if kind not in KINDS:
        raise InputError(f"expected kind 'linear' or 'activation', got {kind!r}", path="kind")
    proof = Proof(
        claim=f"the {kind} regions of the model over D",
        construction="exact cell enumeration (open cells) with LP certificates",
        claim_data={"kind": CLAIM_KIND, "count_kind": kind},
        inputs={"model": model, "domain": domain},
    )
    en = enumerate_cells([model], domain, mode="open", executor=executor, max_cells=max_cells,
                         record_empty=True, on_limit="return", geometry="lp")
    if not en.complete:
        proof.add(Step("the open cells cover D", "cell-cover", {}, OPEN,
                       note=f"cell limit reached after {len(en.cells)} cells; raise max_cells"))
        return proof
    branches = [{"path": list(e.path), "farkas": farkas_json(e.farkas)} for e in en.empty]
    branches += [{"path": list(c.path), "witness": [format_rational(v) for v in inner(c, "witness")],
                  "values": row_values(c.rows, inner(c, "witness"))} for c in en.cells]
    cover = {"mode": "open", "branches": branches}
    support = supports([model], domain)
    if support is not None:
        cover["support"] = support
    proof.add(Step(f"the open cells of the model over D are the {len(en.cells)} cells listed", "cell-cover",
                   cover, PROVED))
    count = len(en.cells)
    if kind == "linear":
        count, _, _, merges, apart = merge_linear_regions(en.cells, evidence=True, executor=executor, model=model)
        order = {tuple(c.path): k for k, c in enumerate(en.cells)}
        cell_id = [order[tuple(c.path)] for c in en.cells]

        def merge_json(i, j, ri, rj, pt, path):
            out = {"cells": [cell_id[i], cell_id[j]], "rows": [ri, rj], "point": [format_rational(v) for v in pt],
                   "values": row_values(en.cells[i].rows + en.cells[j].rows, pt)}
            if path is not None:  # not continuous: the tie-aware path of the point, f affine near it
                out["facet_path"] = path
            return out

        proof.add(Step(f"cells with equal maps joined through facets where the model is affine form {count} linear "
                       "regions", "facet-merge", {
                           "merges": [merge_json(*m) for m in merges],
                           "apart": [{"cells": [cell_id[i], cell_id[j]],
                                      "hyperplanes": [{"rows": [ri, rj],
                                                       ev[0]: (farkas_json(ev[1]) if ev[0] == "farkas" else ev[1])}
                                                      for ri, rj, ev in reasons]}
                                     for i, j, reasons in apart],
                       }, PROVED))
        proof.claim_data["definition"] = DEFINITION
    proof.claim_data["count"] = count
    proof.claim = f"the model has exactly {count} {kind} regions over D"
    return proof
