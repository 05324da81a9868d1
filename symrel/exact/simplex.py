"""The revised simplex method on the dual (D) of the feasibility programme of
:mod:`symrel.exact.lp`, in any ordered field given by the class attributes ``zero``,
``one``, ``eps`` (exact rationals here; floats in :mod:`symrel.exact.float_simplex`). Dantzig's rule,
switching to Bland's rule after a run of degenerate pivots, so it never cycles.
Cost: each pivot is O((n + 1)(m + 2p)) operations.

A ``budget`` (anything with a ``check()`` method that raises to stop the work, such as
:class:`symrel.budget.Budget`) is checked before every pivot: a pivot of a large LP costs far
more than one clock read, and a single LP of the equivalence prover can run for seconds, so
checking only between LPs overran its time limit. The budget never changes a pivot.
"""

from __future__ import annotations

from .lp_certificates import sparse_dot
from .numbers import Q

ZERO, ONE = Q(0), Q(1)


class RevisedSimplex:
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
        return [sparse_dot(row, col, self.zero) for row in self.Binv]

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

    def drive_out_artificials(self, budget=None):
        for r in range(self.n):
            if self.basis[r] < self.ncol:
                continue
            if budget is not None:
                budget.check()
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
        n, m, p, zero = self.n, self.m, self.p, self.zero
        x, t = pi[:n], pi[n]
        # the dot products are sparse_dot's, written out: this loop is most of a small LP's time
        xs = [(j, c) for j, c in enumerate(x) if c]
        red = []
        for row, bi, strict in zip(self.A, self.b, self.sigma):
            s = zero
            for j, c in xs:
                a = row[j]
                if a:
                    s += a * c
            s = bi - s
            if strict:
                s -= t
            red.append(s)
        for row, dk in zip(self.C, self.d):
            s = zero
            for j, c in xs:
                a = row[j]
                if a:
                    s += a * c
            red.append(dk - s)
        red.extend(-v for v in red[m : m + p])
        red.append(self.one - t)
        return red

    def solve(self, max_pivots: int = 100_000, budget=None):
        """Run phase II. Returns ``("optimal", pi)`` or ``("unbounded", (column, dcol))``.
        ``budget``: checked before every pivot (module docstring)."""
        degenerate = 0
        while self.pivots < max_pivots:
            if budget is not None:
                budget.check()
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
