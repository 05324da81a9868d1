"""Constant tensors of an ONNX graph, and bounds on what floats make of them.

A :class:`Const` is a tensor that does not depend on the network input: its exact values
(a numpy object array of rationals), its float64 values (for magnitudes only), its ONNX
element type, and ``err``: a bound on the distance between onnxruntime's value of the tensor
and the exact one (None when onnxruntime holds exactly the exact values: an initializer, a
``Constant``, anything only moved by index operations).

:class:`FloatBounds` is the float error analysis of one evaluation by a float runtime, by
the standard model of floating-point arithmetic (Higham, *Accuracy and Stability of Numerical
Algorithms*, 2nd ed., sections 2.2 and 3.1): with unit roundoff ``u`` every operation returns
``(a op b)(1 + d)``, ``|d| <= u``, so a sum of ``n`` products, in any order and with or without
fused multiply-adds, is within ``gamma_n * sum |w_i x_i|`` of the exact sum, where
``gamma_n = n u / (1 - n u)``; an absolute ``tiny`` per operation covers underflow (and
runtimes that flush subnormal numbers to zero). Its rules take *magnitudes* ``mag >= |value|``
of the operands as the runtime holds them and bounds ``err`` on their errors, and return the
same for the result.

>>> import numpy as np
>>> c = Const.of(np.array([Q(1, 3)], dtype=object), "float32")
>>> float(c.f[0]), c.err is None
(0.3333333333333333, True)
>>> B = FloatBounds("float32")
>>> round(float(B.gamma(2) / B.u), 6)          # 2u / (1 - 2u), in units of u
2.0
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from ..exact import Q
from .extras import require
from .floats import FORMATS

np = require("numpy", "onnx")

ZERO, ONE = Q(0), Q(1)


def to_floats(a):
    """An object array of exact rationals as float64 (nearest; for magnitudes)."""
    out = np.empty(np.shape(a), dtype=np.float64)
    flat = out.reshape(-1)
    flat[:] = [float(v) for v in np.asarray(a, dtype=object).reshape(-1)]
    return out


def object_array(values, shape=None):
    """A numpy object array holding ``values`` (a list or array of exact rationals)."""
    values = list(values)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out if shape is None else out.reshape(shape)


@dataclass
class Const:
    """A constant tensor (the module docstring)."""

    a: object
    f: object
    dtype: str
    err: object = None

    def __post_init__(self):
        # numpy gives back a bare number for an operation on 0-d object arrays
        self.a = np.asarray(self.a, dtype=object)
        self.f = np.asarray(self.f, dtype=np.float64)
        if self.err is not None:
            self.err = np.asarray(self.err, dtype=np.float64)

    @classmethod
    def of(cls, a, dtype: str, err=None, f=None) -> "Const":
        """A constant from its exact values (``f`` computed when not given)."""
        a = np.asarray(a, dtype=object)
        return cls(a, to_floats(a) if f is None else f, dtype, err)

    @property
    def shape(self) -> tuple:
        return tuple(self.a.shape)

    @property
    def size(self) -> int:
        return int(self.a.size)

    @property
    def is_float(self) -> bool:
        return self.dtype.startswith(("float", "bfloat"))

    def mag(self):
        """A bound on the magnitude of the runtime's value, entrywise (float64)."""
        return np.abs(self.f) + (0 if self.err is None else self.err)

    def errs(self):
        return np.zeros(self.shape) if self.err is None else self.err

    def gather(self, src, fill=ZERO) -> "Const":
        """``out[i] = self[src[i]]`` (flat indices; ``-1`` gives ``fill``), of ``src``'s shape."""
        flat_src = src.reshape(-1)
        valid = flat_src >= 0
        take = np.where(valid, flat_src, 0)
        a = self.a.reshape(-1)[take]
        f = self.f.reshape(-1)[take]
        if not valid.all():
            a = a.copy()
            a[~valid] = fill
            f = np.where(valid, f, float(fill))
        err = None
        if self.err is not None:
            err = np.where(valid, self.err.reshape(-1)[take], 0.0).reshape(src.shape)
        return Const(a.reshape(src.shape), f.reshape(src.shape), self.dtype, err)

    def reshape(self, shape) -> "Const":
        return Const(self.a.reshape(shape), self.f.reshape(shape), self.dtype,
                     None if self.err is None else self.err.reshape(shape))

    def ints(self) -> list:
        """The entries as Python ints (for shapes, axes, pads)."""
        return [int(v) for v in self.a.reshape(-1)]


@dataclass(frozen=True)
class Var:
    """A tensor that depends on the network input: the id of its value in the importer's
    program (:mod:`symrel.interop.onnx_ir`), and its shape."""

    id: int
    shape: tuple

    @property
    def size(self) -> int:
        return prod(self.shape)


class FloatBounds:
    """The rules of the float error analysis (module docstring) for a format ``fmt``.

    Each rule returns ``(mag, err)`` arrays: ``mag`` bounds the magnitude of the runtime's
    result, ``err`` its distance to the exact result. A ``mag`` of an operand is a bound on
    the magnitude of the runtime's operand, ``err`` a bound on its error.
    """

    def __init__(self, fmt: str):
        f = FORMATS[fmt]
        self.u = 2.0 ** -f.precision
        self.tiny = float(f.min_normal)

    def gamma(self, n):
        """``gamma_n = n u / (1 - n u)`` (infinite when ``n u >= 1``), entrywise for an array ``n``."""
        nu = np.asarray(n, dtype=np.float64) * self.u
        with np.errstate(divide="ignore"):
            return np.where(nu < 1, nu / np.maximum(1 - nu, 0), np.inf)

    def linear(self, x_mag, x_err, out_idx, in_idx, w_abs, w_err, b_abs, b_err, n_out, terms):
        """``y_o = b_o + sum_t w_t x_{in_t}`` over the triples with ``out_t = o``, as a sum of
        ``terms[o]`` rounded operations: the error carried from the operands plus
        ``gamma_terms`` times the magnitude of the terms."""
        xm, xe = x_mag[in_idx], x_err[in_idx]
        wm = w_abs if w_err is None else w_abs + w_err

        def total(weights):
            return np.bincount(out_idx, weights=weights, minlength=n_out).astype(np.float64)

        mag_terms, carried, wsum = total(wm * xm), total(wm * xe), total(wm)
        if w_err is not None:
            carried += total(w_err * (xm + xe))
        if b_abs is not None:
            bm = b_abs if b_err is None else b_abs + b_err
            mag_terms += bm
            if b_err is not None:
                carried += b_err
        g = self.gamma(terms)
        err = carried + g * mag_terms + (np.asarray(terms) + wsum) * self.tiny
        return mag_terms + err, err

    def scale(self, x_mag, x_err, c_abs, c_err):
        """``y = x c`` entrywise, one rounding."""
        ce = 0 if c_err is None else c_err
        err = c_abs * x_err + ce * (x_mag + x_err) + self.u * x_mag * (c_abs + ce) + self.tiny
        return x_mag * (c_abs + ce) + err, err

    def divide(self, x_mag, x_err, c_abs, c_err):
        """``y = x / c`` entrywise, one rounding (``|c| > c_err`` is required: else the bound
        is infinite)."""
        ce = np.zeros_like(c_abs) if c_err is None else c_err
        low = c_abs - ce
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.where(low > 0, x_mag / np.where(low > 0, low, 1), np.inf)
            err = x_err / np.where(low > 0, low, 1) + x_mag * ce / np.where(low > 0, c_abs * low, 1) + self.u * q
            err = np.where(low > 0, err, np.inf) + self.tiny
        return q + err, err

    def add(self, a_mag, a_err, b_mag, b_err):
        """``y = a + b`` entrywise, one rounding."""
        err = a_err + b_err + self.u * (a_mag + b_mag) + self.tiny
        return a_mag + b_mag + err, err
