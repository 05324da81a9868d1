"""The two maxout forms of a CPWL mesh function side by side, with the sizes of the
hardmax Transformers compiled from them: the lattice form (Tarela-Martinez /
Ovchinnikov, :func:`~symrel.constructions.lattice_forms`, what ``compile_model`` uses) and the
Wang-Sun form (:func:`~symrel.constructions.wang_sun_forms`, maxima of at most n + 1 pieces), so
a user can see which is smaller.

Sizes: for the lattice form its terms (minima) and the pieces in them, Ovchinnikov's and
the reduced; for the Wang-Sun form its terms (maxima, the affine term included) and the
affine pieces in them all; for each, the tokens, width and blocks of the Transformer that
:func:`~symrel.compiler.compile_maxout` builds from it, read off its slot layout (three
blocks per maxout layer) without building it: the Wang-Sun net has one unit per term, so
its Transformer is shallow but wide, and its dense matrices would be large. The Wang-Sun form is evaluated exactly at every vertex of the mesh and must
equal f there (its construction checks its own steps). Only the lattice one is compiled and proved by ``symrel prove``.

>>> from symrel.models import Box, CPWLMesh
>>> f = CPWLMesh([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]],
...              [[0, 1, 4], [1, 3, 4], [3, 2, 4], [2, 0, 4]], [[0], [0], [0], [0], [1]])   # a pyramid
>>> s = cpwl_form_sizes(f)
>>> s["lattice form"]["reduced"], s["Wang-Sun form"]["terms"], s["Wang-Sun form"]["pieces"]
({'terms': 1, 'pieces': 4}, 11, 28)
>>> from symrel.compiler import compile_model
>>> T = compile_model(f, Box([[0, 2], [0, 2]])).transformer
>>> s["lattice form"]["transformer"] == {"tokens": T.tokens, "width": T.width, "blocks": len(T.blocks)}
True

Cost: the two constructions (see their modules) and an exact evaluation of the Wang-Sun
form at every vertex; when the Wang-Sun
form cannot be built (a hat with too many lattice terms) its entry says why. The Wang-Sun
form of a mesh with non-convex stars costs one lattice form of the whole mesh per such
vertex (quadratic on a large Delaunay mesh): with a ``budget``
(:class:`~symrel.budget.Budget`, checked at every vertex, and its
:meth:`~symrel.budget.Budget.alarm` half a second past the deadline) that runs out, its entry says
it was not computed within the budget and what was open; the lattice sizes are kept.
A Wang-Sun form that differs from f at a vertex is a bug of its construction:
:class:`~symrel.errors.InternalError`.

>>> from symrel.budget import Budget
>>> cpwl_form_sizes(f, budget=Budget(timeout=0))["Wang-Sun form"]
{'not computed within the budget': 'time limit of 0 s reached; open: the Wang-Sun form, at vertex 0 of 5'}
"""

from __future__ import annotations

import contextlib

from ..budget import Budget, BudgetExceeded
from ..errors import InputError, InternalError
from ..exact import rational_str
from ..models import CPWLMesh
from ..constructions import lattice_forms, lattice_to_maxout, wang_sun_forms, wang_sun_mismatch, wang_sun_to_maxout
from .compiling import layout_of


def _transformer_sizes(net) -> dict:
    layout = layout_of(net)
    return {"tokens": layout.tokens, "width": layout.width, "blocks": 3 * len(net.layers)}


def cpwl_form_sizes(f: CPWLMesh, *, lattices=None, budget: Budget | None = None, wang_sun: bool = True) -> dict:
    """``{"lattice form": {...}, "Wang-Sun form": {...}}`` (module docstring), summed over
    the outputs; ``budget`` bounds the Wang-Sun construction (None: no limit), which is
    skipped when ``wang_sun`` is false (its entry says so)."""
    lattices = lattices if lattices is not None else lattice_forms(f)
    sizes = [lat.sizes() for lat in lattices]
    out = {"lattice form": {
        "ovchinnikov": {"terms": sum(s["ovchinnikov"]["terms"] for s in sizes),
                        "pieces": sum(s["ovchinnikov"]["pieces"] for s in sizes)},
        "reduced": {"terms": sum(s["terms"] for s in sizes), "pieces": sum(s["term_pieces"] for s in sizes)},
        "transformer": _transformer_sizes(lattice_to_maxout(lattices, f.input_dim))}}
    if not wang_sun:
        out["Wang-Sun form"] = {"not computed": "not computed for this mesh (not asked for)"}
        return out
    tick = None
    if budget is not None:
        def tick(done, total, stage="the Wang-Sun form"):
            budget.at(lemma=f"{stage}, at vertex {done} of {total}")
            budget.check()
    try:
        # the vertex checks are the budget's; the alarm (half a second later) stops a slow star's hat
        with budget.alarm(0.5) if budget is not None else contextlib.nullcontext():
            forms = wang_sun_forms(f, tick=tick)
            bad = wang_sun_mismatch(f, forms, tick=tick and (lambda v, n: tick(v, n, "its check at the vertices")))
    except InputError as err:
        out["Wang-Sun form"] = {"not built": str(err)}
        return out
    except BudgetExceeded as err:
        out["Wang-Sun form"] = {"not computed within the budget": str(err)}
        return out
    if bad is not None:      # the construction's own steps are checked; this would be a bug
        v, o, want, got = bad
        raise InternalError(f"the Wang-Sun form of output {o} is {rational_str(got)} at vertex {v}, where f is "
                            f"{rational_str(want)}")
    ws = [form.sizes() for form in forms]
    out["Wang-Sun form"] = {"terms": sum(s["terms"] for s in ws), "pieces": sum(s["pieces"] for s in ws),
                            "max_arity": max(s["max_arity"] for s in ws), "equal to f at every vertex": True,
                            "transformer": _transformer_sizes(wang_sun_to_maxout(forms, f.input_dim))}
    return out
