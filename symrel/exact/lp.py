"""Exact feasibility of polyhedral systems, with certificates both ways.

The system is ``S = {x : A x <= b (rows marked strict: <), C x = d}`` with
rational data. :func:`feasibility` decides whether S is non-empty and returns

* a **witness** ``x`` (exact rationals) that satisfies every row, or
* a **Farkas vector** ``(y, z)`` with ``y >= 0`` (one entry per row of A),
  ``z`` free (one per row of C), ``y^T A + z^T C = 0`` and either
  ``y^T b + z^T d < 0`` (plain Farkas), or ``y^T b + z^T d <= 0`` with
  ``y_i > 0`` on some strict row (Motzkin's transposition theorem). Either
  makes S empty: for x in S, ``0 = (y^T A + z^T C) x <= y^T b + z^T d``, and
  strictly so when a strict row has positive weight.

Both are re-verified exactly (:func:`is_witness`, :func:`is_farkas`) before they
are returned; nothing of the float layer is trusted.

Method. The decision is the linear programme (docs/theory.md#proofs-and-certificates)

    (P)   max t   s.t.  A x + sigma t <= b,  C x = d,  t <= 1,

with ``sigma_i = 1`` on the strict rows (on every row when none is strict, so
the witness is a relative-interior point when there is one). S is non-empty
iff ``t* > 0`` (strict rows present) or ``t* >= 0`` (none). Its dual

    (D)   min b^T y + d^T z + w  s.t.  A^T y + C^T z = 0,  sigma^T y + w = 1,  y, w >= 0

is always feasible (``y = z = 0, w = 1``), has only ``n + 1`` equality rows,
and its optimal basis gives at once the primal optimum ``(x*, t*)`` (simplex
multipliers) and a dual optimum, which is a Farkas vector whenever ``t*`` is
too small; an unbounded ray of (D) is a Farkas vector for the non-strict rows.
:func:`~symrel.exact.exact_simplex.exact_simplex` solves (D) over ``QQ`` by the simplex method (Dantzig's
rule, switching to Bland's rule after a run of degenerate pivots, so it never
cycles). Cost: each pivot is O((n + 1)(m + 2p)) exact operations.

Floating point only ever *proposes* (the design of SoPlex and QSopt_ex):

* ``method="float"`` (and ``"auto"`` for small systems): the same simplex runs
  in Python floats; its final basis is inverted exactly on ``Matrix`` and
  the exact simplex continues from it, usually verifying optimality with one
  exact pricing pass and no pivot;
* ``method="highs"`` (and ``"auto"`` for systems of at least
  ``AUTO_FLOAT_MIN_ROWS`` rows, when scipy is installed): HiGHS solves (P);
  the witness or the Farkas vector is rebuilt from its active set by an exact
  linear solve and verified exactly, and the exact simplex runs whenever the
  proposal fails. (scipy's ``linprog`` costs about 1.5 ms per call before any
  work, more than a whole small exact solve, hence the threshold.)

>>> from symrel.exact import rational as r
>>> A = [[r(1)], [r(-1)]]                  # x <= 1 and -x <= 0: the interval [0, 1]
>>> res = feasibility(A, [r(1), r(0)])
>>> res.feasible, [str(v) for v in res.point], str(res.slack)
(True, ['1/2'], '1/2')
>>> res = feasibility(A, [r(-1), r(0)])    # x <= -1 and x >= 0: empty
>>> res.feasible, [str(v) for v in res.farkas[0]]
(False, ['1/2', '1/2'])
>>> feasibility(A, [r(0), r(0)], strict=[True, False]).feasible   # x < 0 and x >= 0
False
"""

from __future__ import annotations

from typing import Sequence

from .exact_simplex import exact_simplex
from .lp_certificates import LPResult, is_farkas, is_witness
from .numbers import Rational

#: Systems at least this large go through HiGHS under ``method="auto"``.
AUTO_FLOAT_MIN_ROWS = 400


def _decide_exact(A, b, C, d, strict, sigma, interior_mode, float_start=False, floats=None, budget=None):
    out = exact_simplex(A, b, C, d, sigma, float_start=float_start, floats=floats, budget=budget)
    if out["status"] == "unbounded":
        return LPResult(False, farkas=(out["y"], out["z"]), method="exact-simplex", stats={"pivots": out["pivots"]})
    x, t = out["x"], out["t"]
    if (t >= 0) if interior_mode else (t > 0):
        return LPResult(True, point=x, slack=t, method="exact-simplex", stats={"pivots": out["pivots"]})
    return LPResult(False, farkas=(out["y"], out["z"]), method="exact-simplex", stats={"pivots": out["pivots"]})


def feasibility(
    A: Sequence[Sequence[Rational]],
    b: Sequence[Rational],
    C: Sequence[Sequence[Rational]] = (),
    d: Sequence[Rational] = (),
    *,
    strict: Sequence[bool] | None = None,
    method: str = "auto",
    floats=None,
    budget=None,
) -> LPResult:
    """Decide ``{x : A x <= b (strict rows <), C x = d}`` exactly, with a certificate.

    ``A``, ``C`` are lists of rows of ``QQ`` elements, ``b``, ``d`` lists.
    ``strict[i]`` marks row i of A as strict. ``method``: ``"exact"`` (the exact
    simplex from scratch), ``"float"`` (a float simplex proposes the basis, the
    exact simplex verifies and finishes), ``"highs"`` (HiGHS proposes, exact
    rebuild and check, exact simplex as fallback) or ``"auto"`` (module
    docstring). Whatever the method, the returned witness or Farkas vector has
    been verified exactly.

    A witness maximises the slack ``t`` (capped at 1) of the strict rows (of all
    rows when none is strict: then it is a relative-interior point whenever the
    system has one), so it is well inside the set, not on its boundary.

    ``floats``: the data ``(A, b, C, d)`` rounded to floats, when the caller keeps such copies
    (the region search does, per row); the float start reads them instead of rounding again.
    Only a proposal is made from them, so they cannot change what is proved.

    ``budget``: anything with a ``check()`` method (:class:`symrel.budget.Budget`), checked
    before every pivot and between the steps of a HiGHS proposal, so a long LP stops soon after
    its caller's limit (by what ``check`` raises); it changes no answer.

    >>> from symrel.exact import rational as r
    >>> A = [[r(1), r(1)], [r(-1), r(0)], [r(0), r(-1)]]      # a triangle
    >>> res = feasibility(A, [r(1), r(0), r(0)], C=[[r(1), r(-1)]], d=[r(0)])  # on x1 = x2
    >>> res.feasible, [str(v) for v in res.point]
    (True, ['1/3', '1/3'])
    """
    A = [list(r) for r in A]
    C = [list(r) for r in C]
    b, d = list(b), list(d)
    m = len(A)
    if m == 0 and not C:
        raise ValueError("feasibility needs at least one row")
    if strict is not None and len(strict) != m:
        raise ValueError("strict must have one flag per row of A")
    has_strict = strict is not None and any(strict)
    interior_mode = not has_strict
    sigma = [bool(s) for s in strict] if has_strict else [True] * m
    if method not in ("auto", "exact", "float", "highs"):
        raise ValueError(f"unknown method {method!r}")
    use_highs = False
    if method == "highs" or (method == "auto" and m >= AUTO_FLOAT_MIN_ROWS):
        from .highs_proposal import decide_by_highs, has_scipy  # a float proposal: loaded only when asked for

        use_highs = has_scipy()
    result = None
    if use_highs:
        result = decide_by_highs(A, b, C, d, strict, sigma, interior_mode, budget)
    if result is None:
        result = _decide_exact(A, b, C, d, strict, sigma, interior_mode, float_start=method in ("auto", "float", "highs"),
                               floats=floats, budget=budget)
        if use_highs:
            result.method = "exact-simplex (HiGHS proposal rejected)"
        elif method == "highs":
            result.method = "float-start exact simplex (scipy not installed)"
        elif method != "exact":
            result.method = "float-start exact simplex"
    # the exact check decides, whatever produced the answer
    if result.feasible:
        if not is_witness(A, b, result.point, C, d, strict):  # pragma: no cover - would be a bug
            raise AssertionError("internal error: LP witness failed its exact check")
    elif not is_farkas(A, b, result.farkas[0], result.farkas[1], C, d, strict):  # pragma: no cover
        raise AssertionError("internal error: LP Farkas vector failed its exact check")
    return result


__all__ = ["LPResult", "exact_simplex", "feasibility", "is_farkas", "is_witness", "AUTO_FLOAT_MIN_ROWS"]
