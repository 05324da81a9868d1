"""Continuous relations on a box: CPWL features with a certified sup-norm error.

Given a kernel ``k(x, y)`` (a sympy expression in two symbols, e.g.
``exp(-(x - y)**2)`` or ``Min(x, y)``) on ``[a, b] x [c, d]`` and a uniform grid
with N cells per side (nodes ``x_0 .. x_N``, ``y_0 .. y_N``):

* ``h_i(x)`` is the hat function of node ``x_i`` (CPWL, ``sum_i h_i = 1``,
  ``h_i >= 0``); ``phi(x) = (h_0(x) .. h_N(x))`` and
  ``psi(y) = K~ g(y)`` with ``g`` the hats of the y nodes and ``K~_ij`` a
  rational value within ``rho`` of ``k(x_i, y_j)``. Both are exact ReLU nets
  (:func:`~symrel.constructions.interpolate.interpolating_relu_net` of the nodes),
  N hidden ReLUs each, feature dimension N + 1, and
  ``<phi(x), psi(y)>`` is the bilinear interpolant of ``K~`` on every cell.
* Error, per cell ``C = [x_i, x_i+1] x [y_j, y_j+1]`` (interval arithmetic,
  :mod:`mpmath.iv`, with a padded exp, see :func:`interval_exp`): the
  interpolant at a point of C is a convex combination of corner values, so
  ``|k - B| <= sup_C k - inf_C k`` (first order); when k is C^2 on C,
  ``|k - B| <= h_x^2/8 sup_C |k_xx| + h_y^2/8 sup_C |k_yy|`` (interpolate in x,
  then in y; the second interpolation is a convex combination). The smaller is
  taken. With the node rounding, ``sup |k - <phi, psi>| <= max_C e_C + rho``.

So the certified error halves on refinement for a Lipschitz kernel (``Min``)
and quarters for a smooth one (the Gaussian), while the neurons double: the
accuracy-versus-neurons trade-off of Paper B (there with Mercer/Schmidt
truncation; here a tensor-product CPWL construction, symrel's own).

>>> import sympy
>>> x, y = sympy.symbols("x y")
>>> fit = cpwl_kernel_features(sympy.Min(x, y), (x, y), grid=4)
>>> fit.neurons, fit.dimension, str(fit.certified_error)
(8, 5, '1/4')
>>> str(fit.approximant(rational("1/3"), rational("1/2")))
'1/3'
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import sympy
from mpmath import iv

from ..errors import InputError, UndecidedError
from ..exact import Q, Rational, floor, rational, to_float
from ..exact.display import decimal_upper_text
from ..constructions.interpolate import interpolating_relu_net
from .table import RelationFeatures

#: Working precision (bits) of the interval arithmetic.
PRECISION = 113
#: Functions whose presence in a second derivative rules out the h^2 bound.
_NONSMOOTH = (sympy.Heaviside, sympy.DiracDelta, sympy.Piecewise, sympy.Min, sympy.Max, sympy.Abs, sympy.sign)


def _raw_to_rational(raw) -> Rational:
    sign, man, exp, bc = raw
    if not man and bc:  # inf or nan
        raise UndecidedError("interval arithmetic produced an unbounded enclosure")
    value = Q(int(man) * 2**exp) if exp >= 0 else Q(int(man), 2 ** (-exp))
    return -value if sign else value


def interval_bounds(v) -> tuple[Rational, Rational]:
    """The endpoints of an :mod:`mpmath.iv` interval as exact rationals."""
    lo, hi = v._mpi_
    return _raw_to_rational(lo), _raw_to_rational(hi)


def interval_of(q: Rational):
    """An :mod:`mpmath.iv` interval enclosing the rational q (exact when dyadic)."""
    return iv.mpf(int(q.numerator)) / iv.mpf(int(q.denominator))


def interval_exp(v):
    """An enclosure of ``exp`` over the interval v, padded outward.

    exp is increasing: the ends are exp of the ends, computed with directed
    rounding by :func:`mpmath.libmp.mpf_exp`, then widened by the relative
    factor ``1 +- 2^-(PRECISION - 10)`` so that a few ulps of error in mpmath's
    exp (whose interval version has had enclosure bugs) cannot break the
    enclosure. The tests cross-check against rational Taylor bounds."""
    from mpmath import libmp

    lo, hi = v._mpi_
    prec = iv.prec
    elo = mpmath.mp.make_mpf(libmp.mpf_exp(lo, prec, libmp.round_floor))
    ehi = mpmath.mp.make_mpf(libmp.mpf_exp(hi, prec, libmp.round_ceiling))
    slack = mpmath.mpf(2) ** (-(prec - 10))
    return iv.mpf([elo, ehi]) * iv.mpf([1 - slack, 1 + slack])


def enclose(expr, box: dict):
    """An interval enclosing ``expr`` over ``box`` (symbol -> iv interval).

    Supports rational constants, symbols, +, *, integer powers, square roots
    (correctly rounded in mpmath), exp (padded, :func:`interval_exp`), Min, Max,
    Abs; anything else (log, sin, ...) is refused with an InputError rather than
    trusted to an unchecked enclosure."""
    if expr.is_Symbol:
        if expr not in box:
            raise InputError(f"the kernel uses the symbol {expr}, which is not a variable", path="kernel")
        return box[expr]
    if expr.is_Rational:
        return interval_of(Q(int(expr.p), int(expr.q)))
    if expr.is_Float:
        raise InputError(f"expected exact constants in the kernel, got the float {expr}", path="kernel")
    args = [enclose(a, box) for a in expr.args] if not expr.is_Pow else None
    if expr.is_Add:
        return sum(args[1:], args[0])
    if expr.is_Mul:
        out = args[0]
        for a in args[1:]:
            out = out * a
        return out
    if expr.is_Pow:
        base, e = expr.args
        b = enclose(base, box)
        if e.is_Integer:
            return b ** int(e) if e >= 0 else 1 / (b ** int(-e))
        if e == sympy.Rational(1, 2):
            return iv.sqrt(b)
        raise InputError(f"unsupported power {expr} in the kernel", path="kernel")
    if isinstance(expr, sympy.exp):
        return interval_exp(args[0])
    if isinstance(expr, (sympy.Min, sympy.Max)):
        ends = [interval_bounds(a) for a in args]
        pick = min if isinstance(expr, sympy.Min) else max
        lo, hi = pick(e[0] for e in ends), pick(e[1] for e in ends)
        return iv.mpf([interval_of(lo).a, interval_of(hi).b])
    if isinstance(expr, sympy.Abs):
        lo, hi = interval_bounds(args[0])
        if lo >= 0:
            return args[0]
        if hi <= 0:
            return -args[0]
        return iv.mpf([0, interval_of(max(-lo, hi)).b])
    raise InputError(f"unsupported function {type(expr).__name__} in the kernel", path="kernel")


def _smooth(derivative) -> bool:
    return not derivative.has(*_NONSMOOTH)


def _cell_box(xv, yv, x0, x1, y0, y1):
    return {xv: iv.mpf([interval_of(x0).a, interval_of(x1).b]), yv: iv.mpf([interval_of(y0).a, interval_of(y1).b])}


@dataclass
class KernelFit:
    """The CPWL features of a kernel on a grid and their certified error."""

    kernel: object
    variables: tuple
    box: tuple
    grid: int
    x_nodes: list
    y_nodes: list
    values: list  # K~[i][j], rational
    features: RelationFeatures
    cell_error: Rational  # max over cells of the interpolation bound
    node_error: Rational  # rho: max |k(x_i, y_j) - K~_ij|
    second_order: bool  # whether the h^2 bound was available

    @property
    def certified_error(self) -> Rational:
        """A rational upper bound of ``sup_box |k(x, y) - <phi(x), psi(y)>|``."""
        return self.cell_error + self.node_error

    @property
    def neurons(self) -> int:
        return self.features.phi.num_relus + self.features.psi.num_relus

    @property
    def dimension(self) -> int:
        return self.features.dimension

    def approximant(self, x: Rational, y: Rational) -> Rational:
        """``<phi(x), psi(y)>`` for (x, y) in the box, by the bilinear formula
        (the same value as the nets, faster: used to sample the error)."""
        i, u = _locate(self.x_nodes, x)
        j, v = _locate(self.y_nodes, y)
        K = self.values
        return ((1 - u) * ((1 - v) * K[i][j] + v * K[i][j + 1])
                + u * ((1 - v) * K[i + 1][j] + v * K[i + 1][j + 1]))


def _locate(nodes, t):
    """The cell index i with ``nodes[i] <= t <= nodes[i+1]`` and the local coordinate."""
    n = len(nodes) - 1
    h = nodes[1] - nodes[0]
    i = min(max(floor((t - nodes[0]) / h), 0), n - 1)
    return i, (t - nodes[i]) / h


def _round_node(value_iv, bits: int) -> tuple[Rational, Rational]:
    """A rational with denominator 2^bits near the enclosed value, and its error bound."""
    lo, hi = interval_bounds(value_iv)
    scale = 2**bits
    mid = (lo + hi) / 2
    approx = Q(floor(mid * scale + Q(1, 2)), scale)
    return approx, max(approx - lo, hi - approx)


def cpwl_kernel_features(kernel, variables=None, *, box=((0, 1), (0, 1)), grid: int = 8, node_bits: int = 48) -> KernelFit:
    """CPWL ReLU features of ``kernel`` on ``box`` with ``grid`` cells per side
    and a certified sup-norm error (see the module docstring).

    ``kernel``: a sympy expression or a string; ``variables``: its two symbols
    ``(x, y)`` (default: the symbols named x and y). Cost: O(grid^2) interval
    evaluations of k and its second derivatives, plus two interpolations.
    """
    if isinstance(kernel, str):
        kernel = sympy.sympify(kernel, rational=True)
    if variables is None:
        variables = sympy.symbols("x y")
    xv, yv = variables
    if not isinstance(grid, int) or grid < 1:
        raise InputError(f"expected a positive number of grid cells, got {grid!r}", path="grid")
    (a, b), (c, d) = [(rational(lo, path=f"box[{k}][0]"), rational(hi, path=f"box[{k}][1]")) for k, (lo, hi) in enumerate(box)]
    if not (a < b and c < d):
        raise InputError("expected intervals with lower < upper", path="box")
    xs = [a + (b - a) * Q(i, grid) for i in range(grid + 1)]
    ys = [c + (d - c) * Q(j, grid) for j in range(grid + 1)]
    old_prec = iv.prec
    iv.prec = PRECISION
    try:
        values, node_error = [], Q(0)
        for xi in xs:
            row = []
            for yj in ys:
                approx, err = _round_node(enclose(kernel, {xv: interval_of(xi), yv: interval_of(yj)}), node_bits)
                row.append(approx)
                node_error = max(node_error, err)
            values.append(row)
        kxx, kyy = sympy.diff(kernel, xv, 2), sympy.diff(kernel, yv, 2)
        second = _smooth(kxx) and _smooth(kyy)
        hx, hy = (b - a) / grid, (d - c) / grid
        cell_error = Q(0)
        for i in range(grid):
            for j in range(grid):
                cell = _cell_box(xv, yv, xs[i], xs[i + 1], ys[j], ys[j + 1])
                lo, hi = interval_bounds(enclose(kernel, cell))
                bound = hi - lo
                if second:
                    sxx = max(abs(v) for v in interval_bounds(enclose(kxx, cell)))
                    syy = max(abs(v) for v in interval_bounds(enclose(kyy, cell)))
                    bound = min(bound, hx * hx / 8 * sxx + hy * hy / 8 * syy)
                cell_error = max(cell_error, bound)
    finally:
        iv.prec = old_prec
    identity = [[Q(int(i == k)) for k in range(grid + 1)] for i in range(grid + 1)]
    phi = interpolating_relu_net([[t] for t in xs], identity)
    psi = interpolating_relu_net([[t] for t in ys], [[values[i][j] for i in range(grid + 1)] for j in range(grid + 1)])
    return KernelFit(kernel, (xv, yv), ((a, b), (c, d)), grid, xs, ys, values, RelationFeatures(phi, psi),
                     cell_error, node_error, second)


def sampled_error(fit: KernelFit, samples: int = 10_000, seed: int = 0, dps: int = 40) -> float:
    """The largest ``|k - <phi, psi>|`` seen at random rational points of the box,
    with k evaluated by mpmath at ``dps`` digits (numeric cross-validation only)."""
    import random

    rng = random.Random(seed)
    (a, b), (c, d) = fit.box
    f = sympy.lambdify(fit.variables, fit.kernel, modules="mpmath")
    worst = mpmath.mpf(0)
    denominator = 2**30
    with mpmath.workdps(dps):
        for _ in range(samples):
            x = a + (b - a) * Q(rng.randrange(denominator + 1), denominator)
            y = c + (d - c) * Q(rng.randrange(denominator + 1), denominator)
            approx = fit.approximant(x, y)
            exact = f(mpmath.mpf(int(x.numerator)) / int(x.denominator), mpmath.mpf(int(y.numerator)) / int(y.denominator))
            worst = max(worst, abs(exact - mpmath.mpf(int(approx.numerator)) / int(approx.denominator)))
    return float(worst)


def tradeoff_rows(kernel, variables=None, *, box=((0, 1), (0, 1)), grids=(2, 4, 8, 16, 32), samples: int = 0) -> list[dict]:
    """One row per grid size: neurons, feature dimension, certified error (and
    the sampled error when ``samples > 0``), with the ratio to the previous row."""
    out, previous = [], None
    for n in grids:
        fit = cpwl_kernel_features(kernel, variables, box=box, grid=n)
        row = {"grid": n, "neurons": fit.neurons, "dimension": fit.dimension,
               "certified_error": fit.certified_error, "second_order": fit.second_order}
        if samples:
            row["sampled_error"] = sampled_error(fit, samples)
        row["ratio"] = None if previous is None else to_float(previous / fit.certified_error)
        previous = fit.certified_error
        out.append(row)
    return out


def tradeoff_markdown(rows: list[dict], title: str = "") -> str:
    """The trade-off table in Markdown (errors shown rounded up to 3 digits)."""
    head = "| grid | neurons | feature dim | certified error | sampled error | ratio to previous |\n|---|---|---|---|---|---|\n"
    lines = []
    for r in rows:
        sampled = f"{r['sampled_error']:.3e}" if "sampled_error" in r else "-"
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "-"
        lines.append(f"| {r['grid']} | {r['neurons']} | {r['dimension']} | {decimal_upper_text(r['certified_error'], 3)} | {sampled} | {ratio} |")
    return (f"### {title}\n\n" if title else "") + head + "\n".join(lines) + "\n"


def plot_tradeoff(series: dict[str, list[dict]], path: str) -> None:
    """Neurons against certified error, log-log, one line per kernel (matplotlib,
    imported here only)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    for name, rows in series.items():
        ax.loglog([r["neurons"] for r in rows], [to_float(r["certified_error"]) for r in rows], "o-", label=name)
    ax.set_xlabel("hidden ReLUs (phi + psi)")
    ax.set_ylabel("certified sup error")
    ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
