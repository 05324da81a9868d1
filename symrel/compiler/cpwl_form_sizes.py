"""The two maxout forms of a CPWL mesh function side by side, with the sizes of the
hardmax Transformers compiled from them: the lattice form (Tarela-Martinez /
Ovchinnikov, :func:`~symrel.models.lattice_forms`, what ``compile_model`` uses) and the
Wang-Sun form (:func:`~symrel.models.wang_sun_forms`, maxima of at most n + 1 pieces), so
a user can see which is smaller.

Sizes: for the lattice form its terms (minima) and the pieces in them, Ovchinnikov's and
the reduced; for the Wang-Sun form its terms (maxima, the affine term included) and the
affine pieces in them all; for each, the compiled Transformer's tokens, width, blocks and
parameters. The Wang-Sun form is evaluated exactly at every vertex of the mesh and must
equal f there (its construction checks its own steps). The Transformers are compiled on ``domain`` (default: the bounding box of the
vertices); only the lattice one is proved by ``symrel prove``.

>>> from symrel.models import CPWLMesh
>>> f = CPWLMesh([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]],
...              [[0, 1, 4], [1, 3, 4], [3, 2, 4], [2, 0, 4]], [[0], [0], [0], [0], [1]])   # a pyramid
>>> s = cpwl_form_sizes(f)
>>> s["lattice form"]["reduced"], s["Wang-Sun form"]["terms"], s["Wang-Sun form"]["pieces"]
({'terms': 1, 'pieces': 4}, 11, 28)
>>> sorted(s["lattice form"]["transformer"])
['blocks', 'parameters', 'tokens', 'width']

Cost: the two constructions and two compilations (see their modules); when the Wang-Sun
form cannot be built (a hat with too many lattice terms) its entry says why.
"""

from __future__ import annotations

from ..errors import InputError
from ..models import Box, CPWLMesh, lattice_forms, lattice_to_maxout, wang_sun_forms, wang_sun_mismatch, wang_sun_to_maxout
from .compiling import compile_maxout


def _transformer_sizes(net, domain) -> dict:
    t = compile_maxout(net, domain).transformer.sizes()
    return {k: t[k] for k in ("tokens", "width", "blocks", "parameters")}


def cpwl_form_sizes(f: CPWLMesh, domain=None, *, lattices=None) -> dict:
    """``{"lattice form": {...}, "Wang-Sun form": {...}}`` (module docstring), summed over
    the outputs."""
    if domain is None:
        d = f.input_dim
        domain = Box([[min(v[i] for v in f.vertices), max(v[i] for v in f.vertices)] for i in range(d)])
    lattices = lattices if lattices is not None else lattice_forms(f)
    sizes = [lat.sizes() for lat in lattices]
    out = {"lattice form": {
        "ovchinnikov": {"terms": sum(s["ovchinnikov"]["terms"] for s in sizes),
                        "pieces": sum(s["ovchinnikov"]["pieces"] for s in sizes)},
        "reduced": {"terms": sum(s["terms"] for s in sizes), "pieces": sum(s["term_pieces"] for s in sizes)},
        "transformer": _transformer_sizes(lattice_to_maxout(lattices, f.input_dim), domain)}}
    try:
        forms = wang_sun_forms(f)
    except InputError as err:
        out["Wang-Sun form"] = {"not built": str(err)}
        return out
    bad = wang_sun_mismatch(f, forms)
    if bad is not None:      # the construction's own steps are checked; this would be a bug
        raise AssertionError(f"the Wang-Sun form differs from f at vertex {bad[0]}")
    ws = [form.sizes() for form in forms]
    out["Wang-Sun form"] = {"terms": sum(s["terms"] for s in ws), "pieces": sum(s["pieces"] for s in ws),
                            "max_arity": max(s["max_arity"] for s in ws), "equal to f at every vertex": True,
                            "transformer": _transformer_sizes(wang_sun_to_maxout(forms, f.input_dim), domain)}
    return out
