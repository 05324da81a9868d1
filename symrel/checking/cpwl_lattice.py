"""The equivalence replay of a CPWL function of one variable (:mod:`symrel.checking.equivalence`
loads it for a certificate with such a function only).

f equals its lattice form ``max_i min_(j in S_i) l_j`` over its pieces (docs/theory.md,
Theorem 4.2): the certificate records the form as a two-layer maxout net (older ones leave it
to the checker, which derives it by its own rule), the checker checks its shape and pieces,
and that f and the form agree at the recorded check points: the ends of the domain, the
breakpoints inside it and the crossings of pieces, between which both are affine. The
equivalence replay then replays the form as a maxout net, step by step.
"""

from __future__ import annotations

import itertools

from ..errors import SymrelError
from ..exact import Q
from . import CertificateError, MalformedCertificate
from .inputs import read_input
from .read import rationals

ZERO, ONE = Q(0), Q(1)


def _check_lattice(f, g, replay):
    """g is a lattice form ``max_i min_{j in S_i} l_j`` of pieces l_j of f: layer 1 has
    units ``max_{j in S_i} (-l_j)``, layer 2 the one unit ``max_i (-y_i)`` over all of them."""
    pieces = set(f.exact_pieces())
    if g.input_dim != 1 or len(g.layers) != 2 or g.readout is not None:
        replay.fail("the lattice form must be a two-layer maxout net of one input without read-out", ".certificate.lattice")
    first, second = g.layers
    for u, unit in enumerate(first.units):
        for w, c in unit.pieces.exact_pieces():
            if (-w[0], -c) not in pieces:
                replay.fail(f"unit {u} of layer 1 has a piece that is not minus a piece of f", ".certificate.lattice")
    q = len(first.units)
    if len(second.units) != 1:
        replay.fail("layer 2 of the lattice form must be one unit", ".certificate.lattice")
    terms = sorted((tuple(w), c) for w, c in second.units[0].pieces.exact_pieces())
    want = sorted((tuple(-Q(1) if k == i else ZERO for k in range(q)), ZERO) for i in range(q))
    if terms != want:
        replay.fail("layer 2 of the lattice form must be max_i (-y_i) over the units of layer 1", ".certificate.lattice")


def _lattice_form(f):
    """The lattice form of the CPWL function f of one variable (docs/theory.md#cpwl-functions-theorem-42),
    derived by the checker itself for certificates written before it was recorded:
    ``f = max_i min_(j in S_i) l_j`` with the distinct pieces l_j of f (in order of first
    segment) and ``S_i = {j : l_j >= l_i on segment i}``, decided exactly at the segment's
    ends (the outer segments extend to infinity, so there by the slope); repeated sets count
    once. As a two-layer maxout net: layer 1 has one unit ``max_(j in S_i) (-l_j)`` per set,
    layer 2 the unit ``max_i (-y_i)``. Nothing rests on this derivation: the net is then
    checked exactly as a recorded one (shape, pieces, values at the check points, the steps).

    O(n^2) comparisons for n segments.

    >>> from symrel.checking.semantics import CPWL1D
    >>> from symrel.exact import rational as r
    >>> g = _lattice_form(CPWL1D([r(0), r(1), r(2), r(3)], [r(0), r(1), r(0), r(1)]))
    >>> g.widths, [str(g.evaluate_exact([r(t)])[0]) for t in ("-1", "3/2", "4")]
    ([2, 1], ['-1', '1/2', '2'])
    """
    pieces, own = [], []
    for p in f.exact_pieces():
        if p not in pieces:
            pieces.append(p)
        own.append(pieces.index(p))
    xs, n = f.exact_x, len(f.exact_x) - 1
    sets = []
    for i in range(n):
        a, c = pieces[own[i]]
        ends = [xs[i]] * (i > 0) + [xs[i + 1]] * (i < n - 1)
        s = [j for j, (b, d) in enumerate(pieces)
             if all(b * t + d >= a * t + c for t in ends) and (i > 0 or b <= a) and (i < n - 1 or b >= a)]
        if s not in sets:
            sets.append(s)
    q = len(sets)
    from .semantics import Affine, MaxoutLayer, MaxoutNet, MaxoutUnit  # the checker's own semantics of the net

    first = MaxoutLayer([MaxoutUnit(Affine([[-pieces[j][0]] for j in s], [-pieces[j][1] for j in s], 1)) for s in sets])
    second = MaxoutLayer([MaxoutUnit(Affine([[-ONE if k == i else ZERO for k in range(q)] for i in range(q)], [ZERO] * q,
                                            q))])
    return MaxoutNet(1, [first, second])


def checked_lattice_form(f, replay, name):
    """Replay a CPWL function of one variable (rule ``cpwl-lattice-check``): the recorded check
    points (the ends of D, the breakpoints inside it, the crossings of pieces) are recomputed, f
    and its lattice form (recorded, or derived by :func:`_lattice_form`) take the recorded values
    there, and the form has the shape :func:`_check_lattice` checks. Returns the form (a maxout
    net), which the equivalence replay then replays."""
    cert = replay.next("cpwl-lattice-check", name, ("model", "points", "values", "lattice"))
    (lo, hi), = replay.ranges[:1]
    pieces = list(dict.fromkeys(f.exact_pieces()))
    pts = {lo, hi} | {x for x in f.exact_x if lo < x < hi}
    for (a, c), (b, d) in itertools.combinations(pieces, 2):
        if a != b and lo < (d - c) / (a - b) < hi:
            pts.add((d - c) / (a - b))
    pts = sorted(pts)
    here = f"{replay.here}.certificate"
    if "points" not in cert or "values" not in cert:
        replay.fail(f"expected a key {'points' if 'points' not in cert else 'values'!r} (missing)",
                    f".certificate.{'points' if 'points' not in cert else 'values'}", error=MalformedCertificate)
    if rationals(cert["points"], f"{here}.points") != pts:
        replay.fail(f"expected the {len(pts)} check points: the ends of D, the breakpoints and the crossings of pieces, "
                    "in increasing order", ".certificate.points")
    if "lattice" in cert:
        try:
            g = read_input(cert["lattice"], path=f"{replay.here}.certificate.lattice", kinds=("maxout",))
        except SymrelError as err:
            raise CertificateError(str(err), path=f"{replay.here}.certificate.lattice") from None
    else:   # written before the lattice form was recorded: derived here, then checked as a recorded one
        g = _lattice_form(f)
    _check_lattice(f, g, replay)
    vals = rationals(cert["values"], f"{here}.values", length=len(pts))   # one value per check point
    for i, (p, v) in enumerate(zip(pts, vals)):
        if f.evaluate_exact([p]) != [v] or g.evaluate_exact([p]) != [v]:
            replay.fail(f"expected the value of f and of its lattice form at the check point {p}; they do not both "
                        f"equal {v}", f".certificate.values[{i}]")
    return g
