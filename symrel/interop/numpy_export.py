"""Any symrel model as a numpy function in a chosen float dtype.

The model is lowered to a :class:`~symrel.lowering.program.Program`, every weight
is rounded to the dtype exactly (:func:`~symrel.interop.floats.round_matrix`),
and the rounding error of the weights is reported exactly
(:class:`WeightRounding`). :func:`rounded_stages` is shared with the PyTorch and
ONNX exporters, so all three run the same rounded weights.

Float arithmetic semantics are the library's: numpy computes in the dtype of
its arrays (float16 products included). Hardmax attention averages over the
scores that are equal *in floats* (symrel's rule applied to float scores).

(needs numpy, so not run as a doctest)

>>> from symrel.models import ReLUNet, DenseLayer
>>> net = ReLUNet(1, [DenseLayer([["1/3"]], [0], "none")])
>>> f = NumpyModel(net, "float16")                    # doctest: +SKIP
>>> str(f.rounding.max_error)                          # doctest: +SKIP
'1/12288'
"""

from __future__ import annotations

from dataclasses import dataclass

from ..exact import Public, Q, Rational, format_rational, inner, to_public
from .extras import require
from .floats import FloatFormat, float_format, round_matrix
from ..lowering import Affine, AttentionOp, Embed, FeedForwardOp, Program, ReadoutOp, Relu
from .float_program import GroupMax, float_program


@dataclass
class WeightRounding:
    """The exact error of rounding every parameter of a program to a format."""

    format: str
    #: (path, max |rounded - exact|, number of overflowing entries); numbers read as sympy Rationals
    entries: list = Public()

    @property
    def max_error(self) -> Rational:
        return to_public(max((e for _, e, _ in inner(self, "entries")), default=Q(0)))

    @property
    def worst(self) -> str | None:
        """The parameter with the largest rounding error (None when every weight is exact)."""
        best = max(self.entries, key=lambda t: t[1], default=None)
        return best[0] if best and best[1] else None

    @property
    def overflows(self) -> int:
        return sum(n for _, _, n in self.entries)

    def to_json(self) -> dict:
        return {
            "dtype": self.format,
            "max_weight_error": format_rational(self.max_error),
            "worst_parameter": self.worst,
            "overflowing_weights": self.overflows,
            "parameters": [{"path": p, "max_error": format_rational(e), "overflows": n} for p, e, n in self.entries],
        }


def rounded_stages(program: Program, fmt: FloatFormat):
    """The program's stages with every exact matrix replaced by a numpy array of
    ``fmt`` (biases as 1-D arrays, offsets as ``T x m``), and the rounding report."""
    entries = []

    def arr(M, path, vector=False, transpose=False):
        R = round_matrix(M, fmt)
        entries.append((path, R.max_error, len(R.overflows)))
        a = R.to_numpy(fmt)
        if transpose:
            a = a.T.copy()
        return a.reshape(-1) if vector else a

    stages = []
    for st in program.stages:
        ops = []
        for k, op in enumerate(st.ops):
            p = st.name  # at most one operation with parameters per stage
            if isinstance(op, Affine):
                op = Affine(arr(op.W, f"{p}.W"), arr(op.b, f"{p}.b", vector=True))
            elif isinstance(op, Embed):
                op = Embed(arr(op.E, f"{p}.E"), arr(op.offsets, f"{p}.offsets", transpose=True), op.input_rows)
            elif isinstance(op, FeedForwardOp):
                op = FeedForwardOp(arr(op.W1, f"{p}.W1"), arr(op.b1, f"{p}.b1", vector=True),
                                   arr(op.W2, f"{p}.W2"), arr(op.b2, f"{p}.b2", vector=True))
            elif isinstance(op, ReadoutOp):
                op = ReadoutOp(op.token, arr(op.W, f"{p}.W"), arr(op.b, f"{p}.b", vector=True))
            elif isinstance(op, AttentionOp):
                heads = [tuple(arr(M, f"{p}.heads[{h}].{nm}") for nm, M in zip(("WQ", "WK", "WV", "WO"), mats))
                         for h, mats in enumerate(op.heads)]
                scale = None
                if op.scale is not None:
                    from ..exact import from_rationals

                    scale = arr(from_rationals([[op.scale]], (1, 1)), f"{p}.scale", vector=True)[0]
                op = AttentionOp(heads, op.rule, scale)
            ops.append(op)
        stages.append(st._replace(ops=ops))
    return stages, WeightRounding(fmt.name, entries)


class NumpyModel:
    """A symrel model (or program) evaluated by numpy in one float dtype.

    ``trace(X)`` gives the state after every stage as ``(name, N x features)``
    arrays, ``__call__(X)`` the outputs; ``X`` is an ``N x input_dim`` array
    (converted to the dtype). ``rounding`` reports the weight rounding exactly.
    """

    def __init__(self, model, dtype: str = "float32"):
        self.np = require("numpy", "numeric")
        self.program = float_program(model)
        self.format = float_format(dtype)
        from .floats import numpy_dtype

        self.dtype = numpy_dtype(self.format)
        self.stages, self.rounding = rounded_stages(self.program, self.format)

    def trace(self, X) -> list:
        np = self.np
        Z = np.asarray(X).astype(self.dtype)
        out = []
        with np.errstate(all="ignore"):  # overflow to inf / nan is what we want to see
            for st in self.stages:
                for op in st.ops:
                    # back to the dtype: ml_dtypes computes bfloat16 products in float32
                    Z = self._apply(op, Z).astype(self.dtype)
                out.append((st.name, Z.reshape(Z.shape[0], -1)))
        return out

    def __call__(self, X):
        return self.trace(X)[-1][1]

    def _apply(self, op, Z):
        np = self.np
        if isinstance(op, Affine):
            return Z @ op.W.T + op.b
        if isinstance(op, Relu):
            return np.maximum(Z, np.zeros((), dtype=Z.dtype))
        if isinstance(op, GroupMax):
            return Z.reshape(Z.shape[0], -1, op.rank).max(axis=-1)
        if isinstance(op, Embed):
            return (Z @ op.E.T)[:, None, :] + op.offsets[None, :, :]
        c = self._cast  # every intermediate back to the dtype (ml_dtypes computes bfloat16 in float32)
        if isinstance(op, FeedForwardOp):
            H = np.maximum(c(c(Z @ op.W1.T) + op.b1), np.zeros((), dtype=Z.dtype))
            return Z + c(c(H @ op.W2.T) + op.b2)
        if isinstance(op, ReadoutOp):
            return Z[:, op.token, :] @ op.W.T + op.b
        if isinstance(op, AttentionOp):
            out = Z
            for WQ, WK, WV, WO in op.heads:
                S = c(c(Z @ WQ.T) @ np.swapaxes(c(Z @ WK.T), 1, 2))  # S[n, t, s]: query t, key s
                A = c(self._weights(S, op))
                out = out + c(c(A @ c(Z @ WV.T)) @ WO.T)
            return out
        raise TypeError(f"unknown operation {op!r}")  # pragma: no cover

    def _cast(self, a):
        return a.astype(self.dtype)

    def _weights(self, S, op):
        np, c = self.np, self._cast
        if op.rule == "softmax":
            s = c(S * op.scale)
            s = c(s - s.max(axis=-1, keepdims=True))
            e = c(np.exp(s))
            return c(e / c(e.sum(axis=-1, keepdims=True)))
        top = S == S.max(axis=-1, keepdims=True)
        return (top / top.sum(axis=-1, keepdims=True)).astype(S.dtype)
