"""The exact LP of a search node: its constraint rows in, a witness or a Farkas vector out.

A node of the cell search (:mod:`symrel.regions.search`) is a set ``{x in D : rows}``, each row
``(form, rel)`` meaning ``form(x) rel 0``. :func:`cell_lp` hands the rows to the exact
LP (:func:`symrel.exact.lp.feasibility`) and maps the Farkas vector of an empty set back
to row indices; :func:`box_farkas` settles a row that needs no LP (one row that fails on
the whole box; a constant row settles itself, :meth:`~symrel.exact.forms.Row.constant_status`).

>>> from symrel.exact import rational as r
>>> from symrel.exact.forms import AffineForm, Row
>>> rows = [Row(AffineForm(r(-1), {0: r(1)}), "<"), Row(AffineForm(r(2), {0: r(-1)}), "<")]   # x < 1 and x > 2
>>> point, farkas = cell_lp(rows, [0, 1], {}, 1)
>>> point, [(i, str(v)) for i, v in farkas]
(None, [(0, '1/2'), (1, '1/2')])
"""

from __future__ import annotations

from ..exact import Q, to_float
from ..exact.numbers import denominator, numerator
from ..exact.forms import AffineForm, Row
from ..exact.lp import feasibility

ZERO, ONE = Q(0), Q(1)


def domain_rows(domain, mode: str):
    """The domain's halfspaces ``a.x <= b`` as rows ``a.x - b rel 0`` (``rel`` strict in the open mode)."""
    A, b = domain.exact_halfspaces()
    rel = "<" if mode == "open" else "<="
    return [Row(AffineForm.from_dense(a, -bi), rel) for a, bi in zip(A, b)]


class DenseRows:
    """Each row's LP data made once per row object: :meth:`of` gives ``(rel, a, -const,
    float a, float -const)``, ``a`` the dense coefficients of the row's form.

    The search tree hands the same row objects to many LPs (a node's rows are its parent's
    plus an outcome's), so converting them once per LP (AffineForm -> dense list -> floats for
    the float simplex's proposal) cost more than the search itself. Entries are keyed by the
    row object's id and keep the row, so an id cannot be reused while the cache lives.
    Cost: O(dim) per new row, O(1) per known one.

    >>> dense = DenseRows(2)
    >>> [str(v) for v in dense.of(Row(AffineForm(Q(-1), {1: Q(3)}), "<"))[1]]
    ['0', '3']
    """

    def __init__(self, dim: int):
        self.dim = dim
        self.entries: dict = {}
        self.first: dict = {}   # id(row) -> index of the first row identical to it (first_of_repeats)
        self.by_const: dict = {}   # (numerator, denominator) of a constant -> [(index, row)] registered

    def register(self, rows, start: int = 0):
        """Record the rows ``rows[start:]`` at their indices, each with the first row of
        ``rows`` identical to it (:attr:`first`, which :func:`first_of_repeats` reads).

        In a search a row object has one index in every row list that holds it (a child's
        rows are its parent's plus its own), so registering each row once, when the first
        list holding it is built, settles it for all of them. A row identical to an earlier
        one has the same constant, so only the registered rows with that constant are
        compared; the constant's key is its numerator and denominator, exact (hashing a
        flint ``fmpq`` costs microseconds). Cost O(1) per row, plus the rows with the same
        constant. Before, :func:`first_of_repeats` compared the new row's constant with
        every earlier one in each empty LP: about a tenth of an ACAS Xu region count.

        >>> dense = DenseRows(1)
        >>> rows = [Row(AffineForm(Q(-1), {0: Q(1)}), "<"), Row(AffineForm(Q(2), {0: Q(-1)}), "<")]
        >>> rows.append(Row(AffineForm(Q(-1), {0: Q(1)}), "<"))     # the same row as rows[0]
        >>> dense.register(rows)
        >>> [dense.first[id(r)] for r in rows]
        [0, 1, 0]
        """
        first, by_const = self.first, self.by_const
        for i in range(start, len(rows)):
            row = rows[i]
            if id(row) in first:
                continue
            c = row.form.const
            bucket = by_const.setdefault((numerator(c), denominator(c)), [])
            j = i
            for k, other in bucket:
                if k < j and rows[k] is other and other == row:   # Row equality: same form, same relation
                    j = k
            bucket.append((i, row))   # the bucket keeps the row alive, so its id is not reused
            first[id(row)] = j

    def of(self, row):
        entry = self.entries.get(id(row))
        return self.add(row) if entry is None else entry

    def add(self, row):
        f = row.form
        a, c = f.to_dense(self.dim), -f.const
        try:
            fa, fc = [to_float(v) for v in a], to_float(c)
        except OverflowError:  # beyond float range: no float copy, this row's LPs run exact from the start
            fa = fc = None
        entry = self.entries[id(row)] = (row.rel, a, c, fa, fc, row)
        return entry


def cell_lp(rows, indices, stats, dim: int, dense: DenseRows | None = None):
    """The LP over ``rows[i] for i in indices`` in ``dim`` variables: ``(witness, None)``
    when feasible, else ``(None, farkas)`` with Farkas entries ``(row index, multiplier)``.
    ``dense``: the caller's :class:`DenseRows` cache of these rows (a search keeps one)."""
    if dense is None:
        dense = DenseRows(dim)
    known, add = dense.entries, dense.add
    A, b, fA, fb, strict, C, d, fC, fd, ineq_ids, eq_ids = [], [], [], [], [], [], [], [], [], [], []
    float_start = True
    for i in indices:
        row = rows[i]
        rel, a, c, fa, fc, _ = known.get(id(row)) or add(row)
        float_start = float_start and fa is not None
        if rel == "=":
            C.append(a)
            d.append(c)
            fC.append(fa)
            fd.append(fc)
            eq_ids.append(i)
        else:
            A.append(a)
            b.append(c)
            fA.append(fa)
            fb.append(fc)
            strict.append(rel == "<")
            ineq_ids.append(i)
    stats["lps"] = stats.get("lps", 0) + 1
    res = feasibility(A, b, C, d, strict=strict, floats=(fA, fb, fC, fd) if float_start else None)
    if res.feasible:
        return res.point, None
    y, z = res.farkas
    cert = [(ineq_ids[k], v) for k, v in enumerate(y) if v] + [(eq_ids[k], v) for k, v in enumerate(z) if v]
    return None, first_of_repeats(rows, cert, dense.first)


def first_of_repeats(rows, cert, known=None):
    """The Farkas vector with each row index moved to the first row identical to it (their
    multipliers added): the same combination, and the one the checker accepts, so that no
    recorded row index can change alone. Cost O(rows) per call: the constants are scanned
    in C (``list.index``), and only rows with the same constant are compared in full.

    ``known``: the caller's answers so far, keyed by the row object's id (a search's
    :attr:`DenseRows.first`, filled by :meth:`DenseRows.register`; it keeps the rows
    alive). A known answer is still checked to be an identical row at an index no later
    than the row's; a row without one is scanned for."""
    consts = None
    merged: dict = {}
    for i, v in cert:
        row = rows[i]
        j = known.get(id(row)) if known is not None else None
        if j is None or j > i or (rows[j] is not row and rows[j] != row):
            if consts is None:
                consts = [r.form.const for r in rows]
            c = consts[i]
            j = consts.index(c)
            while rows[j] is not row and rows[j] != row:   # Row equality: same form, same relation
                j = consts.index(c, j + 1)
            if known is not None:
                known[id(row)] = j
        merged[j] = merged.get(j, ZERO) + v
    return [(i, v) for i, v in merged.items() if v]


def box_farkas(row, index, box):
    """A Farkas vector from the box rows alone, when the row fails on the whole box.

    For ``f = a.x + c``, ``min f`` over the box is ``c + sum a_i (l_i or u_i)``;
    weights ``a_i`` on the lower-bound rows (``a_i > 0``) and ``-a_i`` on the
    upper-bound rows cancel the x-part (rows ``2i``: ``x_i <= u_i``, ``2i+1``:
    ``-x_i <= -l_i``, as :meth:`Box.exact_halfspaces` lists them)."""
    f, rel = row
    if rel == "=":
        lo, hi = f.range_on_box(box)
        sign = ONE if lo > ZERO else (-ONE if hi < ZERO else None)
    else:
        # an inequality fails on the box when its minimum does: the maximum is not needed
        lo = f.minimum_on_box(box)
        sign = ONE if (lo >= ZERO if rel == "<" else lo > ZERO) else None
    if sign is None:
        return None
    cert = [(index, sign)]
    flip = sign < ZERO
    for i, a in sorted(f.coeffs.items()):
        if flip:
            a = -a
        if a > ZERO:
            cert.append((2 * i + 1, a))
        elif a < ZERO:
            cert.append((2 * i, -a))
    return cert
