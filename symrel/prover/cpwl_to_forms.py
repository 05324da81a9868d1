"""A CPWL function of one variable: its lattice form, then the maxout execution.

Lemma (rule ``cpwl-lattice-check``): on D = [lo, hi], f equals its lattice form
``g = max_i min_{j in S_i} l_j`` (:func:`symrel.constructions.cpwl_to_maxout`). Both are
affine between consecutive points of ``P = {lo, hi} U {breakpoints of f} U {x : l_a(x)
= l_b(x)}`` inside D (between two such points no two pieces cross, so the order of the
pieces, hence g, is affine there), so ``f = g`` at every point of P proves it on D.
The certificate lists P, the common values and the lattice form g (a maxout net). Cost O(n^2) points for n pieces.

>>> from symrel.models import CPWL1D
>>> from symrel.exact import Q
>>> [str(p) for p in check_points(CPWL1D([0, 1, 2], [0, 1, 0]), Q(-1), Q(3))]
['-1', '0', '1', '2', '3']
"""

from __future__ import annotations

from ..exact import Rational, format_rational
from ..fileformat.models_io import write_maxout
from ..lowering import lower
from ..models import CPWL1D
from ..certificates import OPEN, PROVED
from .execution import Context
from ..exact.forms import AffineForm
from .maxout_to_forms import maxout_program_forms


def check_points(f: CPWL1D, lo: Rational, hi: Rational) -> list[Rational]:
    """The sorted points of D = [lo, hi] where f and its lattice form are compared."""
    pieces = list(dict.fromkeys(f.exact_pieces()))
    pts = {lo, hi} | {x for x in f.exact_x if lo < x < hi}
    for i, (a, c) in enumerate(pieces):
        for b, d in pieces[i + 1:]:
            if a != b:
                x = (d - c) / (a - b)
                if lo < x < hi:
                    pts.add(x)
    return sorted(pts)


def cpwl_forms(f: CPWL1D, ctx: Context) -> list[AffineForm]:
    """The output of f as a form (through its lattice form, after the lattice lemma)."""
    (lo, hi), = ctx.registry.ranges[:1]
    lattice = lower(f).lattice      # the program of the lattice form g
    g = lattice.source
    pts = check_points(f, lo, hi)
    fv, gv = f.evaluate_points([[p] for p in pts]), g.evaluate_points([[p] for p in pts])
    bad = [p for p, u, v in zip(pts, fv, gv) if u != v]
    # the lattice form the lemma relies on is recorded, so a checker reads it rather than rebuilding it
    cert = {"points": [format_rational(p) for p in pts], "values": [format_rational(v[0]) for v in fv],
            "lattice": write_maxout(g)}
    step = ctx.add_step(f"For all x in D, the CPWL function {ctx.name.upper()} equals its lattice form "
                        "max_i min_(j in S_i) l_j (a two-layer maxout net)", "cpwl-lattice-check", cert,
                        OPEN if bad else PROVED,
                        f"compared at {len(pts)} points: the ends of D, the breakpoints and the crossings of pieces")
    if bad:  # cannot happen for a correct lattice form; a guard: never proved
        step.note = f"the lattice form differs from f at x = {bad[0]}"
        from .execution import Obstacle

        raise Obstacle(step.note)
    return maxout_program_forms(lattice, ctx)
