"""A CPWL function on a mesh: its exact view simplex by simplex, its lattice form, then
the maxout execution.

Lemma (rule ``cpwl-mesh-lattice``): for all x in D, f(x) = g(x), where
``g = max_t min_(j in S_t) l_j`` is the lattice form of
:func:`symrel.constructions.lattice_forms`. Two facts prove it:

* *D lies in the support*: the box of the variables lies in the half-space
  ``lambda >= 0`` of every boundary facet (``lambda`` the barycentric coordinate of the
  facet's opposite vertex), by its exact minimum over the box; the intersection of
  those half-spaces lies in the support (:meth:`~symrel.models.CPWLMesh.check_domain`);
* *g = f on every simplex k* (where ``f = sum lambda_i y_i``, the exact symbolic view):
  the term ``lower[k]`` has every piece ``>= f`` at the vertices of k (or ``lower[k]`` splits
  k by the signs of crossing pieces, each part with such a term or empty by a Farkas
  vector), and every term has a piece (or a recorded convex combination of its pieces)
  ``<= f`` at the vertices of k; both sides are affine on k, so the vertices suffice and
  ``g = f`` on k.

The certificate records the boundary facets with their minima and the lattice form
(pieces, terms, lower terms, combinations); :mod:`symrel.checking.equivalence` recomputes
the vertex table and re-checks both facts before replaying g. Cost O(P V d) for the
table (P pieces, V vertices) and bit-set tests, then the maxout execution of g.
"""

from __future__ import annotations

from ..exact import affine_range_on_box, format_rational
from ..exact.forms import AffineForm
from ..models import CPWLMesh
from ..constructions import lattice_forms, lattice_to_maxout
from ..certificates import PROVED
from .execution import Context, Obstacle
from .maxout_to_forms import maxout_forms


def support_minima(f: CPWLMesh, box) -> list[list]:
    """``[simplex, i, min]`` for each boundary facet: the exact minimum over the box of
    the barycentric coordinate of the facet's opposite vertex."""
    return [[k, i, affine_range_on_box(a, c, box)[0]] for a, c, k, i in f.support_halfspaces()]


def cpwl_mesh_forms(f: CPWLMesh, ctx: Context) -> list[AffineForm]:
    """The outputs of f as forms (through its lattice form, after the lattice lemma)."""
    box = ctx.registry.ranges[:f.input_dim]
    minima = support_minima(f, box)
    bad = next((m for m in minima if m[2] < 0), None)
    lattices = lattice_forms(f)
    cert = {"support": [[k, i, format_rational(lo)] for k, i, lo in minima],
            "lattice": [lat.to_json() for lat in lattices]}
    sizes = [lat.sizes() for lat in lattices]
    splits = sum(1 for lat in lattices for t in lat.exact_lower if not isinstance(t, int))
    note = (f"{len(f.simplices)} simplices" + (f" ({splits} split by crossing pieces)" if splits else "")
            + "; lattice form with " + ", ".join(
        f"{s['terms']} terms of {s['term_pieces']} pieces in all (Ovchinnikov's: {s['ovchinnikov']['terms']} terms, "
        f"{s['ovchinnikov']['pieces']} pieces)" for s in sizes))
    if bad is not None:
        k, i, lo = bad
        step = ctx.add_step(f"The domain lies in the support of the CPWL function {ctx.name.upper()}", "cpwl-mesh-lattice",
                            cert, "open", f"the box of D leaves the half-space of the boundary facet of simplex {k} "
                            f"opposite vertex {f.simplices[k][i]} (minimum {format_rational(lo)} < 0)")
        raise Obstacle(step.note)
    ctx.add_step(f"For all x in D, the CPWL function {ctx.name.upper()} (on each simplex the barycentric interpolant of "
                 "its vertex values) equals its lattice form max_t min_(j in S_t) l_j (a two-layer maxout net): D lies "
                 "in the support, and on every simplex one term is >= f and every term <= f at the vertices",
                 "cpwl-mesh-lattice", cert, PROVED, note)
    return maxout_forms(lattice_to_maxout(lattices, f.input_dim), ctx)
