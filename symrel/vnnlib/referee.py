"""Referee another verifier's counterexample: exactly, and as the competition checks it.

Given a network ``f`` (exact), a property and a witness ``x`` (with the outputs
``y_claimed`` the tool printed, if any), :func:`referee` decides exactly

* whether ``x`` lies in the input region (each atom of each disjunct, by how much
  the nearest disjunct's worst atom fails);
* the exact outputs ``f(x)`` against the claimed ones (the largest difference);
* whether the unsafe condition holds at ``(x, f(x))``.

The witness is *confirmed* when ``x`` is in the region and the unsafe condition
holds at ``f(x)``; else it is *refuted*. A refuted witness is *float-only* when it
passes the competition's float check as :func:`float_check` models it (VNN-COMP's
scoring scripts: the input within the box up to ``ATOL``, the float outputs within
``ATOL + RTOL*|y|`` of the claimed ones, the unsafe condition true on the claimed
outputs up to ``ATOL``): a verdict the competition would have counted, and that
is wrong. The float outputs come from the caller (onnxruntime on the ``.onnx``
file); floats only classify here, the exact verdict never depends on them.

Cost: one exact evaluation of the net, ``O(atoms * (n_inputs + n_outputs))`` more.

>>> from symrel.models import ReLUNet, DenseLayer
>>> from symrel.exact import rational as q
>>> from symrel.vnnlib.reader import read_vnnlib_text
>>> net = ReLUNet(1, [DenseLayer([[1]], [0], "none")])        # f(x) = x
>>> prop = read_vnnlib_text("(declare-const X_0 Real)(declare-const Y_0 Real)"
...     "(assert (>= X_0 0)) (assert (<= X_0 1)) (assert (>= Y_0 1))")
>>> referee(net, prop, [q(1)], [q(1)]).verdict
'confirmed'
>>> r = referee(net, prop, [q("0.99999")], [q(1)], float_outputs=[0.99999])
>>> r.verdict, r.in_region, r.unsafe_holds
('float-only', True, False)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..exact import ZERO, Rational, numerator, to_float

#: the competition's absolute tolerance (input box, output match, unsafe condition)
ATOL = 1e-4
#: the competition's relative tolerance on the match of claimed and float outputs
RTOL = 1e-3


@dataclass
class RefereeReport:
    """What :func:`referee` found; ``verdict`` is ``confirmed``, ``refuted`` or ``float-only``."""

    x: tuple
    outputs: tuple  # exact f(x)
    claimed: tuple | None
    in_region: bool
    region_excess: Rational  # 0 when inside: else min over disjuncts of the worst atom's excess
    unsafe_holds: bool
    unsafe_excess: Rational  # 0 when it holds: else min over disjuncts of the worst atom's excess
    claimed_difference: Rational | None  # max |f(x)_j - claimed_j|
    float_check: dict | None = None  # the competition's check, when float outputs were given
    verdict: str = field(default="refuted")

    def to_json(self) -> dict:
        from ..exact import format_rational as f

        out = {"verdict": self.verdict, "in_region": self.in_region, "region_excess": f(self.region_excess),
               "unsafe_holds": self.unsafe_holds, "unsafe_excess": f(self.unsafe_excess),
               "x": [f(v) for v in self.x], "outputs": [f(v) for v in self.outputs]}
        if self.claimed is not None:
            out["claimed"] = [f(v) for v in self.claimed]
            out["claimed_difference"] = f(self.claimed_difference)
        if self.float_check is not None:
            out["float_check"] = self.float_check
        return out


def _excess(disjuncts, x, y=()) -> Rational:
    """0 when some conjunction holds at ``(x, y)``; else the least, over the conjunctions,
    of the largest ``lhs - rhs`` of its atoms (how far the nearest one misses)."""
    best = None
    for conj in disjuncts:
        worst = max((atom.lhs(x, y) - atom.rhs for atom in conj), default=ZERO)
        worst = max(worst, ZERO)
        if best is None or worst < best:
            best = worst
    return ZERO if best is None else best  # no disjunct at all: reported through holds() as false


def _within_limits(net, x) -> None:
    """Refuse (a :class:`~symrel.errors.LimitError` naming the limit, exit 2) a witness whose
    exact evaluation could build numbers beyond the arithmetic limits: its coordinates' common
    denominator, and the bits the network adds to them (:mod:`symrel.lowering.sizes`)."""
    from ..exact.sizes import number_bits
    from ..lowering.sizes import check_model

    check_model(net, number_bits(x, where="witness", what="the common denominator of the witness"),
                  where="witness")


def referee(net, prop, x, claimed=None, *, float_outputs=None) -> RefereeReport:
    """Check the witness ``x`` (exact rationals) of ``prop`` on ``net`` exactly; ``claimed``:
    the outputs the tool printed; ``float_outputs``: the outputs a float runtime computed
    at ``x`` (for :func:`float_check`)."""
    x = tuple(x)
    _within_limits(net, x)
    y = tuple(net.evaluate_exact(list(x)))
    in_region = prop.in_region(x)
    unsafe = prop.holds(x, y)
    diff = None
    if claimed is not None:
        diff = max((abs(a - b) for a, b in zip(y, claimed)), default=ZERO)
    report = RefereeReport(x, y, None if claimed is None else tuple(claimed), in_region,
                           _excess(prop.input_region, x) if prop.input_region else ZERO, unsafe,
                           _excess(prop.unsafe, x, y) if prop.unsafe else ZERO, diff)
    if float_outputs is not None:
        report.float_check = float_check(prop, x, claimed if claimed is not None else None, float_outputs)
    if in_region and unsafe:
        report.verdict = "confirmed"
    elif report.float_check is not None and report.float_check["passes"]:
        report.verdict = "float-only"
    else:
        report.verdict = "refuted"
    return report


def competition_float(q) -> float:
    """``q`` as the competition's scripts read a decimal (Python's ``float``): the nearest double,
    and an infinity beyond their range (where :func:`~symrel.exact.to_float` refuses).

    >>> from symrel.exact import rational
    >>> competition_float(rational("1/4")), competition_float(rational("-1e400"))
    (0.25, -inf)
    """
    try:
        return to_float(q)
    except OverflowError:
        return math.inf if numerator(q) > 0 else -math.inf


def float_check(prop, x, claimed, float_outputs) -> dict:
    """The competition's check of a witness in floats (see the module docstring): whether
    ``x`` is in the region up to :data:`ATOL`, whether the float outputs match the claimed
    ones (the float outputs themselves when none are claimed), and whether the unsafe
    condition holds on the claimed outputs up to :data:`ATOL`. A classification, never a
    proof."""
    f = competition_float
    xf = [f(v) for v in x]
    yf = [float(v) for v in float_outputs]
    yc = [f(v) for v in claimed] if claimed is not None else yf

    def atom_ok(atom, ys):
        lhs = sum(f(c) * v for c, v in zip(atom.x, xf) if c) + sum(f(c) * v for c, v in zip(atom.y, ys) if c)
        return lhs <= f(atom.rhs) + ATOL

    in_box = any(all(atom_ok(a, ()) for a in conj) for conj in prop.input_region)
    match = len(yf) == len(yc) and all(abs(a - b) <= ATOL + RTOL * abs(b) for a, b in zip(yf, yc))
    unsafe = any(all(atom_ok(a, yc) for a in conj) for conj in prop.unsafe)
    return {"in_region": in_box, "outputs_match": match, "unsafe_holds": unsafe,
            "passes": in_box and match and unsafe, "atol": ATOL, "rtol": RTOL,
            "float_outputs": [repr(v) for v in yf]}
