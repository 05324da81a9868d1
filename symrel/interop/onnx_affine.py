"""Input-dependent tensors of the ONNX importer: sparse exact affine functions of a layer.

An :class:`AffineTensor` of shape ``S`` over the vector ``h`` (of ``width`` entries) that the
``base``-th operator of the net outputs is, entry by entry in row-major order,

    ``t_i = sum_k vals[k] h_{cols[k]} + const[i]``   over the ``k`` with ``rows[k] = i``,

stored as three parallel numpy arrays sorted by ``(row, column)``, each pair once, no zero
value: the compressed rows of the map (CSR with the row of every entry spelled out). Memory
is proportional to the stored entries, never to ``size x width``.

The primitives below are what every ONNX operation is made of
(:mod:`symrel.interop.onnx_ir`); each is exact, and costs a few numpy passes over the entries
it reads plus one exact operation per entry made:

* :meth:`AffineTensor.gather`: ``t'_i = t_{src_i}`` (or a constant): every index operation
  (reshape, transpose, broadcast, pad, squeeze, ...), no arithmetic;
* :meth:`AffineTensor.scale`, :meth:`AffineTensor.shift`: entrywise times or plus a constant;
* :meth:`AffineTensor.plus`: the sum of two tensors over the same layer;
* :meth:`AffineTensor.compose`: ``t'_o = b_o + sum w_t t_{in_t}`` over triples
  ``(o, in_t, w_t)``: matrix products, convolutions, pooling; an entry of the result is made
  per (triple, entry of the row it reads), then equal columns are summed.

>>> import numpy as np
>>> x = AffineTensor.identity((2,), base=0)               # (h0, h1)
>>> y = x.compose(np.array([0, 0, 1]), np.array([0, 1, 1]), object_array([Q(1), Q(2), Q(-1)]),
...               object_array([Q(0), Q(1, 2)]), (2,))      # (h0 + 2 h1, -h1 + 1/2)
>>> y.rows_as_pairs()
[[(0, 1), (1, 2)], [(1, -1)]]
>>> [str(c) for c in y.const], y.plus(y.scale(object_array([Q(-1), Q(-1)]))).entries
(['0', '1/2'], 0)
"""

from __future__ import annotations

from math import prod

from ..errors import LimitError
from ..exact import Q
from .onnx_values import ONE, ZERO, np, object_array


def _nonzero(vals):
    """The mask of nonzero entries of an object array of rationals."""
    return vals != ZERO if vals.size else np.zeros(0, dtype=bool)


def _expand(ptr, sources):
    """For each source row ``s`` (in order), the positions ``ptr[s] .. ptr[s+1]-1``:
    ``(repeats, positions)``, ``repeats[j]`` the number of positions of source ``j``."""
    counts = ptr[sources + 1] - ptr[sources]
    total = int(counts.sum())
    starts = np.repeat(ptr[sources] - (np.cumsum(counts) - counts), counts)
    return counts, starts + np.arange(total, dtype=np.int64)


class AffineTensor:
    """A tensor affine in the output of one operator of the net (module docstring)."""

    __slots__ = ("shape", "base", "width", "rows", "cols", "vals", "const", "unit", "_ptr")

    def __init__(self, shape, base, width, rows, cols, vals, const, unit=False):
        self.shape, self.base, self.width = tuple(shape), base, width
        self.rows, self.cols, self.vals, self.const = rows, cols, vals, const
        #: True when every stored value is known to be 1 (products by them are skipped)
        self.unit = unit
        self._ptr = None

    @classmethod
    def identity(cls, shape, base) -> "AffineTensor":
        """``t_i = h_i``: the output of operator ``base`` itself, of ``shape``."""
        n = prod(shape)
        idx = np.arange(n, dtype=np.int64)
        return cls(shape, base, n, idx, idx.copy(), np.full(n, ONE, dtype=object), np.full(n, ZERO, dtype=object),
                   unit=True)

    @classmethod
    def constant(cls, values, shape, base, width) -> "AffineTensor":
        """A tensor that reads nothing: ``t_i = values[i]``."""
        empty = np.zeros(0, dtype=np.int64)
        return cls(shape, base, width, empty, empty.copy(), np.zeros(0, dtype=object), values.reshape(-1).copy(),
                   unit=True)

    @property
    def size(self) -> int:
        return int(self.const.size)

    @property
    def entries(self) -> int:
        return int(self.rows.size)

    def ptr(self):
        """``ptr[i] .. ptr[i+1]-1`` are the positions of row i's entries."""
        if self._ptr is None:
            self._ptr = np.searchsorted(self.rows, np.arange(self.size + 1, dtype=np.int64))
        return self._ptr

    def reads_directly(self) -> bool:
        """Whether every entry is one entry of ``h`` itself (``t_i = h_{c_i}``, no constant)."""
        return (self.entries == self.size and bool((self.rows == np.arange(self.size)).all())
                and (self.unit or all(v == ONE for v in self.vals)) and not _nonzero(self.const).any())

    def is_identity(self) -> bool:
        """Whether ``t = h`` entry by entry."""
        return self.size == self.width and self.reads_directly() and bool((self.cols == self.rows).all())

    def with_base(self, base, width) -> "AffineTensor":
        """A tensor that reads nothing, seen over another layer (an entry-free tensor is one
        over every layer)."""
        return AffineTensor(self.shape, base, width, self.rows, self.cols, self.vals, self.const, self.unit)

    def reshaped(self, shape) -> "AffineTensor":
        """The same entries seen with another shape of the same size."""
        return AffineTensor(shape, self.base, self.width, self.rows, self.cols, self.vals, self.const, self.unit)

    def rows_as_pairs(self) -> list:
        """Each row as a list of ``(column, value)`` pairs, columns increasing."""
        ptr, cols, vals = self.ptr(), self.cols.tolist(), self.vals.tolist()
        return [list(zip(cols[ptr[i]:ptr[i + 1]], vals[ptr[i]:ptr[i + 1]])) for i in range(self.size)]

    def dense(self):
        """The ``size x width`` matrix of coefficients as a numpy object array (for the dense
        model kinds only: their matrices are dense anyway)."""
        W = np.full((self.size, self.width), ZERO, dtype=object)
        W[self.rows, self.cols] = self.vals
        return W

    # -- the primitives
    def gather(self, src, fill=ZERO) -> "AffineTensor":
        """``t'_i = t_{src_i}``, or the constant ``fill`` where ``src_i = -1``; shape ``src.shape``."""
        flat = src.reshape(-1).astype(np.int64)
        valid = flat >= 0
        take = np.where(valid, flat, 0)
        sources = np.where(valid, take, self.size)  # row `size` is empty: ptr[size] = ptr[size + 1]
        ptr = np.append(self.ptr(), self.entries)
        counts, pos = _expand(ptr, sources)
        rows = np.repeat(np.arange(flat.size, dtype=np.int64), counts)
        const = self.const[take]
        if not valid.all():
            const = const.copy()
            const[~valid] = fill
        return AffineTensor(src.shape, self.base, self.width, rows, self.cols[pos], self.vals[pos], const, self.unit)

    def scale(self, s) -> "AffineTensor":
        """``t'_i = s_i t_i`` for an object array ``s`` of the tensor's size."""
        s = np.asarray(s, dtype=object).reshape(-1)
        keep = _nonzero(s)
        vals = self.vals * s[self.rows]
        rows, cols = self.rows, self.cols
        if not keep.all():
            k = keep[rows]
            rows, cols, vals = rows[k], cols[k], vals[k]
        return AffineTensor(self.shape, self.base, self.width, rows, cols, vals, self.const * s)

    def shift(self, c) -> "AffineTensor":
        """``t'_i = t_i + c_i``."""
        return AffineTensor(self.shape, self.base, self.width, self.rows, self.cols, self.vals,
                            self.const + c.reshape(-1), self.unit)

    def plus(self, other: "AffineTensor") -> "AffineTensor":
        """``t + t'`` (same shape, same layer)."""
        rows = np.concatenate([self.rows, other.rows])
        cols = np.concatenate([self.cols, other.cols])
        vals = np.concatenate([self.vals, other.vals])
        return self._summed(rows, cols, vals, self.const + other.const, self.shape, unit=self.unit and other.unit)

    def compose(self, out_idx, in_idx, w, bias, shape, *, limit: int | None = None) -> "AffineTensor":
        """``t'_o = bias_o + sum_t w_t t_{in_t}`` over the triples ``(out_idx, in_idx, w)``
        (``bias`` None: zero; ``w`` without zeros); the result has ``shape``. ``limit`` bounds
        the entries made before equal columns are summed (a :class:`~symrel.errors.LimitError`
        beyond it)."""
        n_out = prod(shape)
        ptr = self.ptr()
        counts = ptr[in_idx + 1] - ptr[in_idx]
        made = int(counts.sum())
        if limit is not None and made > limit:
            raise LimitError(f"composing would make {made} entries, beyond {limit}")
        counts, pos = _expand(ptr, in_idx)
        rows = np.repeat(out_idx, counts)
        cols = self.cols[pos]
        vals = np.repeat(w, counts)
        if not self.unit:
            vals = vals * self.vals[pos]
        const = np.full(n_out, ZERO, dtype=object) if bias is None else bias.reshape(-1).copy()
        c = self.const[in_idx]
        live = _nonzero(c)
        if live.any():
            prods = w[live] * c[live]
            outs = out_idx[live]
            order = np.argsort(outs, kind="stable")
            outs, prods = outs[order], prods[order]
            starts = np.flatnonzero(np.r_[True, outs[1:] != outs[:-1]])
            const[outs[starts]] = const[outs[starts]] + np.add.reduceat(prods, starts)
        return self._summed(rows, cols, vals, const, shape)

    def _summed(self, rows, cols, vals, const, shape, unit=False) -> "AffineTensor":
        """The tensor with the nonzero entries ``(rows, cols, vals)``, equal pairs summed (and
        dropped where they cancel)."""
        key = rows * self.width + cols
        if key.size and not bool((key[1:] > key[:-1]).all()):
            order = np.argsort(key, kind="stable")
            key, vals = key[order], vals[order]
            starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
            if starts.size != key.size:
                vals = np.add.reduceat(vals, starts)
                key = key[starts]
                unit = False
                keep = _nonzero(vals)
                if not keep.all():
                    key, vals = key[keep], vals[keep]
        return AffineTensor(shape, self.base, self.width, key // self.width, key % self.width, vals, const, unit)


def concat(parts) -> AffineTensor:
    """The flat concatenation of tensors over the same layer."""
    first = parts[0]
    rows, cols, vals, consts, offset = [], [], [], [], 0
    for t in parts:
        rows.append(t.rows + offset)
        cols.append(t.cols)
        vals.append(t.vals)
        consts.append(t.const)
        offset += t.size
    return AffineTensor((offset,), first.base, first.width, np.concatenate(rows), np.concatenate(cols),
                        np.concatenate(vals), np.concatenate(consts))


__all__ = ["AffineTensor", "Q", "concat", "object_array"]
