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
:func:`exact_simplex` solves (D) over ``QQ`` by the simplex method (Dantzig's
rule, switching to Bland's rule after a run of degenerate pivots, so it never
cycles). Cost: each pivot is O((n + 1)(m + 2p)) exact operations.

Floating point only ever *proposes* (the design of SoPlex and QSopt_ex):

* ``method="float"`` (and ``"auto"`` for small systems): the same simplex runs
  in Python floats; its final basis is inverted exactly on ``DomainMatrix`` and
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

from dataclasses import dataclass, field
from typing import Sequence

from .numbers import Q, Rational

ZERO, ONE = Q(0), Q(1)

#: Systems at least this large go through HiGHS under ``method="auto"``.
AUTO_FLOAT_MIN_ROWS = 400


@dataclass
class LPResult:
    """The outcome of :func:`feasibility`.

    ``feasible``; ``point`` (a witness) and ``slack`` (the smallest slack of the
    rows carrying the slack variable, capped at 1) when feasible; ``farkas`` =
    ``(y, z)`` when not; ``method`` says which path produced the answer."""

    feasible: bool
    point: list | None = None
    slack: Rational | None = None
    farkas: tuple[list, list] | None = None
    method: str = ""
    stats: dict = field(default_factory=dict)


# -- exact verification -----------------------------------------------------------------


def _dot(u, v, zero=ZERO) -> Rational:
    s = zero
    for a, c in zip(u, v):
        if a and c:
            s += a * c
    return s


def is_witness(A, b, x, C=(), d=(), strict=None) -> bool:
    """Whether ``x`` satisfies every row exactly (strict rows strictly).

    >>> from symrel.exact import rational as r
    >>> is_witness([[r(1)]], [r(1)], [r(1)]), is_witness([[r(1)]], [r(1)], [r(1)], strict=[True])
    (True, False)
    """
    for i, (row, bi) in enumerate(zip(A, b)):
        lhs = _dot(row, x)
        if strict is not None and strict[i]:
            if not lhs < bi:
                return False
        elif not lhs <= bi:
            return False
    return all(_dot(row, x) == di for row, di in zip(C, d))


def is_farkas(A, b, y, z=(), C=(), d=(), strict=None) -> bool:
    """Whether ``(y, z)`` certifies that the system is empty (see the module docstring).

    >>> from symrel.exact import rational as r
    >>> is_farkas([[r(1)], [r(-1)]], [r(-1), r(0)], [r(1), r(1)])
    True
    >>> is_farkas([[r(1)], [r(-1)]], [r(-1), r(0)], [r(1), r(2)])   # y^T A != 0
    False
    """
    m, n = len(A), (len(A[0]) if A else (len(C[0]) if C else 0))
    if len(y) != m or len(z) != len(C) or any(v < 0 for v in y):
        return False
    for j in range(n):
        s = ZERO
        for i in range(m):
            if y[i]:
                s += y[i] * A[i][j]
        for k in range(len(C)):
            if z[k]:
                s += z[k] * C[k][j]
        if s != 0:
            return False
    value = _dot(y, b) + _dot(z, d)
    if value < 0:
        return True
    strict_weight = strict is not None and any(strict[i] and y[i] > 0 for i in range(m))
    return value == 0 and strict_weight


# -- the exact simplex on the dual (D) ----------------------------------------------------


class _RevisedSimplex:
    """Revised simplex on (D) in standard form ``min c u, E u = f, u >= 0``.

    Columns: ``y_1..y_m, z+_1..z+_p, z-_1..z-_p, w``, then one artificial per row
    (never allowed to enter). Only the ``(n+1) x (n+1)`` basis inverse is kept;
    the simplex multipliers ``pi = c_B B^-1`` are exactly the primal ``(x, t)`` of
    (P), and the reduced cost of column ``y_i`` is the slack of row i at that
    point, so pricing is one pass over the rows of A with their original
    (small) entries."""

    zero, one, eps = ZERO, ONE, 0

    def __init__(self, A, b, C, d, sigma):
        ZERO, ONE = self.zero, self.one
        m, p = len(A), len(C)
        n = len(A[0]) if m else len(C[0])
        self.A, self.b, self.C, self.d, self.sigma = A, b, C, d, sigma
        self.m, self.p, self.n = m, p, n
        self.ncol = m + 2 * p + 1  # structural columns; artificials follow
        k = n + 1
        self.Binv = [[ONE if i == j else ZERO for j in range(k)] for i in range(k)]
        self.basis = [self.ncol + j for j in range(n)] + [self.ncol - 1]
        self.u = [ZERO] * n + [ONE]  # basic values B^-1 f
        self.pivots = 0

    def column(self, j):
        ZERO, ONE = self.zero, self.one
        m, p, n = self.m, self.p, self.n
        if j < m:
            return self.A[j] + [ONE if self.sigma[j] else ZERO]
        if j < m + p:
            return self.C[j - m] + [ZERO]
        if j < m + 2 * p:
            return [-v for v in self.C[j - m - p]] + [ZERO]
        if j == self.ncol - 1:
            return [ZERO] * n + [ONE]
        e = [ZERO] * (n + 1)
        e[j - self.ncol] = ONE
        return e

    def cost(self, j):
        ZERO, ONE = self.zero, self.one
        m, p = self.m, self.p
        if j < m:
            return self.b[j]
        if j < m + p:
            return self.d[j - m]
        if j < m + 2 * p:
            return -self.d[j - m - p]
        return ONE if j == self.ncol - 1 else ZERO

    def multipliers(self):
        k = self.n + 1
        pi = [self.zero] * k
        for r, j in enumerate(self.basis):
            c = self.cost(j)
            if c:
                row = self.Binv[r]
                for i in range(k):
                    if row[i]:
                        pi[i] += c * row[i]
        return pi

    def ftran(self, col):
        return [_dot(row, col, self.zero) for row in self.Binv]

    def pivot(self, r, j, dcol):
        k = self.n + 1
        piv = dcol[r]
        inv = self.one / piv
        Binv, u = self.Binv, self.u
        prow = [v * inv if v else v for v in Binv[r]]
        Binv[r] = prow
        ur = u[r] * inv
        u[r] = ur
        for i in range(k):
            f = dcol[i]
            if i != r and f:
                row = Binv[i]
                for c in range(k):
                    if prow[c]:
                        row[c] -= f * prow[c]
                u[i] -= f * ur
        self.basis[r] = j
        self.pivots += 1

    def drive_out_artificials(self):
        for r in range(self.n):
            if self.basis[r] < self.ncol:
                continue
            for j in range(self.ncol):
                if j in self.basis:
                    continue
                dcol = self.ftran(self.column(j))
                if dcol[r]:
                    self.pivot(r, j, dcol)
                    break
            # otherwise the row is redundant (a direction no constraint sees); the
            # artificial stays basic at value 0 and never blocks a ratio test

    def reduced_costs(self, pi):
        """Reduced cost of every structural column (the slacks of (P) at ``pi``)."""
        n, m, p = self.n, self.m, self.p
        x, t = pi[:n], pi[n]
        red = []
        for i in range(m):
            s = self.b[i] - _dot(self.A[i], x, self.zero)
            if self.sigma[i]:
                s -= t
            red.append(s)
        for k in range(p):
            s = self.d[k] - _dot(self.C[k], x, self.zero)
            red.append(s)
        red.extend(-v for v in red[m : m + p])
        red.append(self.one - t)
        return red

    def solve(self, max_pivots: int = 100_000):
        """Run phase II. Returns ``("optimal", pi)`` or ``("unbounded", (column, dcol))``."""
        degenerate = 0
        while self.pivots < max_pivots:
            pi = self.multipliers()
            red = self.reduced_costs(pi)
            bland = degenerate > 20
            enter, best, eps = -1, -self.eps, self.eps
            for j, rj in enumerate(red):
                if rj < -eps:
                    if j in self.basis:
                        continue
                    if bland:
                        enter = j
                        break
                    if rj < best:
                        best, enter = rj, j
            if enter < 0:
                return "optimal", pi
            dcol = self.ftran(self.column(enter))
            leave, ratio = -1, None
            for i, a in enumerate(dcol):
                if a > eps:
                    q = self.u[i] / a
                    if ratio is None or q < ratio or (q == ratio and self.basis[i] < self.basis[leave]):
                        ratio, leave = q, i
            if leave < 0:
                return "unbounded", (enter, dcol)
            degenerate = degenerate + 1 if ratio <= eps else 0
            self.pivot(leave, enter, dcol)
        raise RuntimeError("exact simplex: pivot limit reached")  # pragma: no cover

    def split(self, u):
        m, p = self.m, self.p
        y = u[:m]
        z = [u[m + k] - u[m + p + k] for k in range(p)]
        return y, z

    def full(self, entries):
        u = [self.zero] * (self.ncol + self.n + 1)
        for j, v in entries:
            u[j] += v
        return u


class _FloatSimplex(_RevisedSimplex):
    """The same simplex in floating point, with tolerances: it only proposes a basis."""

    zero, one, eps = 0.0, 1.0, 1e-9

    def __init__(self, A, b, C, d, sigma):
        from .numbers import to_float

        fl = lambda rows_: [[to_float(v) for v in r] for r in rows_]  # noqa: E731
        super().__init__(fl(A), [to_float(v) for v in b], fl(C), [to_float(v) for v in d], sigma)


def _warm_start(A, b, C, d, sigma, basis):
    """An exact simplex positioned at ``basis`` (None when it is singular or infeasible)."""
    from sympy.polys.matrices import DomainMatrix

    lp = _RevisedSimplex(A, b, C, d, sigma)
    k = lp.n + 1
    cols = [lp.column(j) for j in basis]
    B = DomainMatrix([[cols[c][r] for c in range(k)] for r in range(k)], (k, k), Q).to_dense()
    try:
        Binv = B.inv().to_list()
    except Exception:  # singular (a float pivot on a tiny number)
        return None
    u = [row[k - 1] for row in Binv]  # B^-1 f with f = e_(n+1)
    if any(v < 0 for v in u):
        return None
    lp.Binv, lp.u, lp.basis = Binv, u, list(basis)
    return lp


def exact_simplex(A, b, C=(), d=(), sigma=None, float_start: bool = False) -> dict:
    """Solve (D) exactly (module docstring). Returns a dict with ``status``
    (``"optimal"`` or ``"unbounded"``) and: ``x, t`` (primal optimum of (P)) and
    ``y, z, w`` (dual optimum) when optimal; ``y, z`` (an unbounded ray, a Farkas
    vector for the non-strict system) when unbounded; ``pivots``.

    >>> from symrel.exact import rational as r
    >>> out = exact_simplex([[r(1)], [r(-1)]], [r(2), r(0)])
    >>> out["status"], [str(v) for v in out["x"]], str(out["t"])
    ('optimal', ['1'], '1')

    With ``float_start`` the same simplex runs first in floating point; its final
    basis is inverted exactly and the exact simplex continues from there (usually
    with no pivot at all: one exact pricing pass verifies optimality).
    """
    m = len(A)
    sigma = [ONE] * m if sigma is None else sigma
    A, b, C, d = [list(r) for r in A], list(b), [list(r) for r in C], list(d)
    lp = None
    if float_start:
        try:  # the float start only proposes a basis; any float trouble falls back to exact
            fl = _FloatSimplex(A, b, C, d, sigma)
            fl.drive_out_artificials()
            fl.solve(max_pivots=10_000)
            lp = _warm_start(A, b, C, d, sigma, fl.basis)
        except (RuntimeError, ZeroDivisionError, OverflowError):
            lp = None
    if lp is None:
        lp = _RevisedSimplex(A, b, C, d, sigma)
        lp.drive_out_artificials()
    status, info = lp.solve()
    if status == "unbounded":
        col, dcol = info
        ray = lp.full([(col, ONE)] + [(j, -a) for j, a in zip(lp.basis, dcol)])
        y, z = lp.split(ray)
        return {"status": status, "y": y, "z": z, "pivots": lp.pivots}
    u = lp.full(list(zip(lp.basis, lp.u)))
    y, z = lp.split(u)
    return {"status": status, "x": info[: lp.n], "t": info[lp.n], "y": y, "z": z,
            "w": u[lp.ncol - 1], "pivots": lp.pivots}


# -- the float proposal (HiGHS through scipy), rebuilt exactly ---------------------------


def _float_proposal(A, b, C, d, sigma):
    """HiGHS on (P). Returns the float solution and duals, or None when scipy is missing."""
    try:
        import numpy as np
        from scipy.optimize import linprog
    except ImportError:  # pragma: no cover - optional dependency
        return None
    from .numbers import to_float

    try:
        return _highs(np, linprog, to_float, A, b, C, d, sigma)
    except OverflowError:  # coefficients beyond float range: no proposal, the exact simplex decides
        return None


def _highs(np, linprog, to_float, A, b, C, d, sigma):
    m, p = len(A), len(C)
    n = len(A[0]) if m else len(C[0])
    Aub = np.zeros((m + 1, n + 1))
    bub = np.zeros(m + 1)
    for i in range(m):
        Aub[i, :n] = [to_float(v) for v in A[i]]
        Aub[i, n] = 1.0 if sigma[i] else 0.0
        bub[i] = to_float(b[i])
    Aub[m, n] = 1.0
    bub[m] = 1.0
    Aeq = beq = None
    if p:
        Aeq = np.zeros((p, n + 1))
        Aeq[:, :n] = [[to_float(v) for v in row] for row in C]
        beq = np.array([to_float(v) for v in d])
    c = np.zeros(n + 1)
    c[n] = -1.0
    res = linprog(c, A_ub=Aub, b_ub=bub, A_eq=Aeq, b_eq=beq, bounds=[(None, None)] * (n + 1), method="highs")
    return res


def _exact_solve(M, rhs):
    """Solve the square system ``M v = rhs`` exactly (None when singular)."""
    from sympy.polys.matrices import DomainMatrix
    from sympy.polys.matrices.exceptions import DMNonInvertibleMatrixError

    k = len(M)
    DM = DomainMatrix([list(r) for r in M], (k, k), Q)
    R = DomainMatrix([[v] for v in rhs], (k, 1), Q)
    try:
        return [r[0] for r in DM.to_dense().lu_solve(R.to_dense()).to_list()]
    except (DMNonInvertibleMatrixError, ZeroDivisionError, ValueError):
        return None


def _independent_rows(rows, want):
    """Indices of a maximal set of linearly independent ``rows`` (first come first)."""
    from sympy.polys.matrices import DomainMatrix

    if not rows:
        return []
    k = len(rows[0])
    M = DomainMatrix([list(r) for r in rows], (len(rows), k), Q).to_dense().transpose()
    _, pivots = M.rref()
    return list(pivots)[:want]


def _from_basis(A, b, C, d, sigma, res):
    """Rebuild the optimum of (P) and of (D) exactly from the float active set."""
    import numpy as np

    m, p = len(A), len(C)
    n = len(A[0]) if m else len(C[0])
    duals = -np.asarray(res.ineqlin.marginals) if res.ineqlin is not None else np.zeros(m + 1)
    slack = np.asarray(res.ineqlin.residual)
    scale = 1.0 + float(np.max(np.abs(slack))) if len(slack) else 1.0
    # the basis: equality rows first, then inequality rows by dual weight, then by tightness
    order = sorted(range(m + 1), key=lambda i: (0 if duals[i] > 1e-9 else 1, float(slack[i]) / scale))
    cand_rows, cand_ids = [], []
    for k in range(p):
        cand_rows.append(list(C[k]) + [ZERO])
        cand_ids.append(("eq", k))
    for i in order:
        if duals[i] <= 1e-9 and slack[i] > 1e-7 * scale:
            break
        cand_rows.append(list(A[i]) + [ONE if sigma[i] else ZERO] if i < m else [ZERO] * n + [ONE])
        cand_ids.append(("le", i))
    pick = _independent_rows(cand_rows, n + 1)
    if len(pick) != n + 1:
        return None
    M = [cand_rows[j] for j in pick]
    ids = [cand_ids[j] for j in pick]
    rhs = [(d[k] if kind == "eq" else (b[k] if k < m else ONE)) for kind, k in ids]
    xt = _exact_solve(M, rhs)
    # dual: M^T u = e_t (gradient of the objective t)
    Mt = [[M[r][c] for r in range(n + 1)] for c in range(n + 1)]
    u = _exact_solve(Mt, [ZERO] * n + [ONE])
    if xt is None or u is None:
        return None
    y, z, w = [ZERO] * m, [ZERO] * p, ZERO
    for (kind, k), val in zip(ids, u):
        if kind == "eq":
            z[k] = val
        elif k < m:
            y[k] = val
        else:
            w = val
    return xt[:n], xt[n], y, z, w


# -- the decision ------------------------------------------------------------------------


def _has_scipy() -> bool:
    try:
        import scipy.optimize  # noqa: F401
    except ImportError:  # pragma: no cover - optional dependency
        return False
    return True


def _decide_exact(A, b, C, d, strict, sigma, interior_mode, float_start=False):
    out = exact_simplex(A, b, C, d, sigma, float_start=float_start)
    if out["status"] == "unbounded":
        return LPResult(False, farkas=(out["y"], out["z"]), method="exact-simplex", stats={"pivots": out["pivots"]})
    x, t = out["x"], out["t"]
    if (t >= 0) if interior_mode else (t > 0):
        return LPResult(True, point=x, slack=t, method="exact-simplex", stats={"pivots": out["pivots"]})
    return LPResult(False, farkas=(out["y"], out["z"]), method="exact-simplex", stats={"pivots": out["pivots"]})


def _decide_float(A, b, C, d, strict, sigma, interior_mode):
    res = _float_proposal(A, b, C, d, sigma)
    if res is None or res.status not in (0, 2):
        return None
    if res.status == 2:  # infeasible in float: ask the exact simplex for the Farkas vector
        return None
    rebuilt = _from_basis(A, b, C, d, sigma, res)
    if rebuilt is None:
        return None
    x, t, y, z, w = rebuilt
    if (t >= 0) if interior_mode else (t > 0):
        if is_witness(A, b, x, C, d, strict):
            return LPResult(True, point=x, slack=t, method="float-basis")
        return None
    if is_farkas(A, b, y, z, C, d, strict):
        return LPResult(False, farkas=(y, z), method="float-basis")
    return None


def feasibility(
    A: Sequence[Sequence[Rational]],
    b: Sequence[Rational],
    C: Sequence[Sequence[Rational]] = (),
    d: Sequence[Rational] = (),
    *,
    strict: Sequence[bool] | None = None,
    method: str = "auto",
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
    use_highs = (method == "highs" or (method == "auto" and m >= AUTO_FLOAT_MIN_ROWS)) and _has_scipy()
    result = None
    if use_highs:
        result = _decide_float(A, b, C, d, strict, sigma, interior_mode)
    if result is None:
        result = _decide_exact(A, b, C, d, strict, sigma, interior_mode, float_start=method in ("auto", "float", "highs"))
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
