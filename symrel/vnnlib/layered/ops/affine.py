"""The affine operator ``y = W x + b`` of a layered net: exact and float transfer functions.

Definition. :class:`IntAffine` holds a :class:`~symrel.models.layered.SparseAffine` in
integer form: every weight and bias over one common denominator ``D`` (the lcm of their
denominators; a power of two for float32 weights), each row its ``(column, integer)``
pairs. On bounds and coefficient vectors given as integers over one denominator:

* :func:`interval`: the exact bounds of ``y`` on a box of ``x``: ``lo_i = sum_{w > 0} w lo_j
  + sum_{w < 0} w hi_j + b_i`` (``hi_i`` the other way round), the best bounds an affine
  map of a box has;
* :func:`backward`: for a lower (or upper) bound ``mu . y``, the same function of ``x``:
  ``mu . y = (W^T mu) . x + mu . b``, exactly (no relaxation: the map is affine).

Both cost one multiply-add per stored entry (:func:`backward`: per entry of a row whose
coefficient is not 0): a 2 x 2 convolution of 23,328 rows is 93,312 of them, never the
18 million of its dense matrix.

The float counterparts (:class:`FloatAffine`: scipy.sparse rows) compute the same in
float64; they only propose.

>>> from symrel.models.layered import SparseAffine
>>> op = int_affine(SparseAffine([[(0, 1), (1, "-1/2")], [(1, 3)]], [0, "1/4"], input_dim=2))
>>> op.D, op.rows, op.b
(4, (((0, 4), (1, -2)), ((1, 12),)), (0, 1))
>>> interval(op, [0, -1], [1, 1], 1)          # x0 in [0, 1], x1 in [-1, 1]: over 4 * 1
([-2, -11], [6, 13], 4)
>>> backward(op, [1, 2], 1)                   # (1, 2) . y = (W^T (1, 2)) . x + 1/2
([4, 22], 4, 2, 4)
"""

from __future__ import annotations

from dataclasses import dataclass
from math import lcm


@dataclass(frozen=True)
class IntAffine:
    """A sparse affine map over the integers (module docstring): ``rows[i]`` the pairs
    ``(column, weight * D)``, ``b[i] * D``; ``pos`` and ``neg``: each row's pairs with a
    positive and a negative weight (the interval bounds read them apart)."""

    rows: tuple
    b: tuple
    D: int
    input_dim: int
    pos: tuple = ()
    neg: tuple = ()

    @property
    def output_dim(self) -> int:
        return len(self.rows)


def int_affine(op, where: str = "network") -> IntAffine:
    """The integer form of a :class:`~symrel.models.layered.SparseAffine`; its common
    denominator bounded first (the ``denominator bits`` limit of :mod:`symrel.exact.sizes`)."""
    from ....exact.sizes import lcm_bits

    dens = {int(w.denominator) for row in op.rows for _, w in row} | {int(c.denominator) for c in op.b}
    # the distinct denominators have the same lcm as all of them
    lcm_bits(sorted(dens), where=where, what="the common denominator of an affine op's weights")
    D = lcm(*dens)
    times = {d: D // d for d in dens}   # D / den, per distinct denominator
    rows = tuple(tuple((j, int(w.numerator) * times[int(w.denominator)]) for j, w in row) for row in op.rows)
    b = tuple(int(c.numerator) * times[int(c.denominator)] for c in op.b)
    return IntAffine(rows, b, D, op.input_dim, tuple(tuple(p for p in r if p[1] > 0) for r in rows),
                     tuple(tuple(p for p in r if p[1] < 0) for r in rows))


def interval(op: IntAffine, lo, hi, den: int):
    """``(lo', hi', den * D)``: the exact bounds of ``y`` when ``lo[j] / den <= x_j <= hi[j] /
    den`` (integers over ``den``), over the denominator ``den * D``."""
    out_lo, out_hi = [], []
    for pos, neg, c in zip(op.pos, op.neg, op.b):
        a = b = c * den
        for j, w in pos:
            a += w * lo[j]
            b += w * hi[j]
        for j, w in neg:
            a += w * hi[j]
            b += w * lo[j]
        out_lo.append(a)
        out_hi.append(b)
    return out_lo, out_hi, den * op.D


def backward(op: IntAffine, mu, M: int):
    """``(nu, M * D, c, M * D)``: ``mu . y = nu . x + c`` exactly, for ``mu`` integers over
    ``M`` (``nu = W^T mu`` and the constant ``c = mu . b``, both integers over ``M * D``)."""
    nu = [0] * op.input_dim
    c = 0
    for v, row, bi in zip(mu, op.rows, op.b):
        if v:
            c += v * bi
            for j, w in row:
                nu[j] += v * w
    return nu, M * op.D, c, M * op.D


# -- floats (proposals) ----------------------------------------------------------------------------
class FloatAffine:
    """The map in float64: ``W`` (CSR), its positive and negative parts, ``b``."""

    op = "affine"

    def __init__(self, op):
        import numpy as np
        import scipy.sparse as sp

        lengths = np.fromiter(map(len, op.rows), dtype=np.int64, count=op.output_dim)
        n = int(lengths.sum())
        r = np.repeat(np.arange(op.output_dim, dtype=np.int64), lengths)
        c = np.fromiter((j for row in op.rows for j, _ in row), dtype=np.int64, count=n)
        v = np.fromiter((int(w.numerator) / int(w.denominator) for row in op.rows for _, w in row), dtype=float, count=n)
        self.W = sp.csr_matrix((v, (r, c)), shape=(op.output_dim, op.input_dim))
        self.WT = self.W.T.tocsr()
        self.Wp = self.W.maximum(0).tocsr()
        self.Wn = self.W.minimum(0).tocsr()
        self.b = np.array([int(v.numerator) / int(v.denominator) for v in op.b], dtype=float)
        self.input_dim, self.output_dim = op.input_dim, op.output_dim


def float_interval(fop: FloatAffine, lo, hi):
    """The float bounds of ``y`` on the box ``[lo, hi]`` of ``x``."""
    return fop.Wp @ lo + fop.Wn @ hi + fop.b, fop.Wp @ hi + fop.Wn @ lo + fop.b


def float_forward(fop: FloatAffine, X):
    """``W x + b`` for each column of ``X`` (shape ``(input_dim, points)``)."""
    return fop.W @ X + fop.b[:, None]


def float_backward(fop: FloatAffine, C):
    """``(C W, C b)`` for the rows ``C`` (a dense array, rows of coefficients over ``y``)."""
    import numpy as np

    # (a C-ordered copy: the transposed product's strides make the elementwise work after it
    # some twenty times slower)
    return np.ascontiguousarray((fop.WT @ C.T).T), C @ fop.b
