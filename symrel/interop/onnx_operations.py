"""The ONNX operations the importer reads, each by its specification on full tensor shapes.

:class:`Operations` holds one method ``op_<OpType>(node)`` per operation (the tracer of
:mod:`symrel.interop.onnx_import` dispatches to them); each turns its node into the tracer's
primitives (index moves, entrywise arithmetic with constants, sparse linear maps, ReLU, max
over groups), with the index geometry of :mod:`symrel.interop.onnx_linear`. A constant
operand is folded exactly. What the specification leaves open, or what is not affine, is
refused naming the node (docs/format.md, "ONNX networks").
"""

from __future__ import annotations

from math import isqrt, prod

from ..exact import Q, denominator, numerator
from .onnx_linear import (average_pool_triples, conv_triples, matmul_triples, max_pool_groups,
                          reduce_groups)
from .onnx_values import ONE, ZERO, Const, Var, np, object_array


def _exact_sqrt(q):
    """The rational square root of ``q >= 0`` when there is one, else None."""
    p, d = int(numerator(q)), int(denominator(q))
    rp, rd = isqrt(p), isqrt(d)
    return Q(rp, rd) if rp * rp == p and rd * rd == d else None


class Operations:
    """The ``op_<OpType>`` methods of the tracer (module docstring)."""

    # -- operations: identity, arithmetic
    def op_Identity(self, node):
        return self.arg(0)

    def op_Dropout(self, node):
        training = self.const_arg(2, "training_mode", required=False)
        if training is not None and any(v != ZERO for v in training.a.reshape(-1)):
            self.fail("Dropout in training mode is random: not read")
        return self.arg(0)

    def op_Add(self, node):
        return self.add(self.arg(0), self.arg(1))

    def op_Sub(self, node):
        return self.add(self.arg(0), self.negate(self.arg(1)))

    def op_Mul(self, node):
        return self.mul(self.arg(0), self.arg(1))

    def op_Div(self, node):
        return self.div(self.arg(0), self.arg(1))

    def op_Relu(self, node):
        x = self.arg(0)
        if isinstance(x, Const):
            self.need_float(x)
            return Const(np.where(x.a > ZERO, x.a, ZERO), np.maximum(x.f, 0), x.dtype, x.err)
        return self.var("relu", (x,), x.shape)

    # -- products
    def op_MatMul(self, node):
        return self.matmul(self.arg(0), self.arg(1))[0]

    def matmul(self, a, b, *, scale=None, bias=None, extra_terms=0):
        if isinstance(a, Var) and isinstance(b, Var):
            self.fail("a product of two tensors that depend on the input is not affine: not read")
        out_idx, left, right, shape, k = matmul_triples(a.shape, b.shape)
        x, xi, w, wi = (a, left, b, right) if isinstance(a, Var) or isinstance(b, Const) else (b, right, a, left)
        self.need_float(w)
        wt = w.gather(wi)
        if scale is not None and scale != ONE:
            wt = Const(wt.a * scale, wt.f * float(scale), wt.dtype, None if wt.err is None else wt.err * abs(float(scale)))
        return self.linear(x, out_idx, xi, wt, bias, shape, k + extra_terms), shape

    def op_Gemm(self, node):
        at = self.attrs()
        a, b = self.arg(0), self.arg(1)
        if len(a.shape) != 2 or len(b.shape) != 2:
            self.fail(f"expected matrices, got shapes {a.shape} and {b.shape}")
        if at.get("transA", 0):
            a = self.index(a, self.positions(a).T)
        if at.get("transB", 0):
            b = self.index(b, self.positions(b).T)
        alpha = Q(*float(at.get("alpha", 1.0)).as_integer_ratio())
        beta = Q(*float(at.get("beta", 1.0)).as_integer_ratio())
        c = self.arg(2, required=False)
        shape = (a.shape[0], b.shape[1])
        bias = None
        if isinstance(c, Const):
            self.need_float(c)
            if not self._broadcasts(shape, c.shape) or tuple(np.broadcast_shapes(shape, c.shape)) != shape:
                self.fail(f"expected C broadcastable to {shape}, got {c.shape}")
            cb = self.broadcast(c, shape)
            bias = Const(cb.a.reshape(-1) * beta, cb.f.reshape(-1) * float(beta), cb.dtype,
                         None if cb.err is None else cb.err.reshape(-1) * abs(float(beta)))
        y, _ = self.matmul(a, b, scale=alpha, bias=bias, extra_terms=3)
        if isinstance(c, Var):
            if not self._broadcasts(shape, c.shape) or tuple(np.broadcast_shapes(shape, c.shape)) != shape:
                self.fail(f"expected C broadcastable to {shape}, got {c.shape}")
            y = self.add(y, self.mul(c, self.full(beta, (), "float32")))
        return y

    @staticmethod
    def _broadcasts(*shapes) -> bool:
        try:
            np.broadcast_shapes(*shapes)
            return True
        except ValueError:
            return False

    # -- shapes
    def op_Reshape(self, node):
        x = self.arg(0)
        spec = self.ints_arg(1, "shape")
        allowzero = int(self.attrs().get("allowzero", 0))
        target, infer = [], None
        for i, s in enumerate(spec):
            if s == 0 and not allowzero:
                if i >= len(x.shape):
                    self.fail(f"shape entry {i} is 0 (copy) but the input has rank {len(x.shape)}")
                s = x.shape[i]
            if s == -1:
                if infer is not None:
                    self.fail(f"expected at most one -1 in the shape, got {spec}")
                infer = i
                s = 1
            elif s <= 0:
                self.fail(f"expected a shape of positive sizes (0 copies, -1 infers), got {spec}")
            target.append(s)
        size = prod(x.shape)
        if infer is not None:
            if size % prod(target):
                self.fail(f"cannot reshape {x.shape} to {spec}")
            target[infer] = size // prod(target)
        if prod(target) != size:
            self.fail(f"cannot reshape {x.shape} ({size} entries) to {tuple(target)}")
        return self.index(x, self.positions(x).reshape(target))

    def op_Flatten(self, node):
        x = self.arg(0)
        r = len(x.shape)
        axis = int(self.attrs().get("axis", 1))
        if not -r <= axis <= r:
            self.fail(f"expected an axis in [{-r}, {r}], got {axis}")
        if axis < 0:
            axis += r
        shape = (prod(x.shape[:axis]), prod(x.shape[axis:]))
        return self.index(x, self.positions(x).reshape(shape))

    def op_Transpose(self, node):
        x = self.arg(0)
        r = len(x.shape)
        perm = [int(p) for p in self.attrs().get("perm", range(r - 1, -1, -1))]
        if sorted(perm) != list(range(r)):
            self.fail(f"expected perm a permutation of 0..{r - 1}, got {perm}")
        return self.index(x, np.transpose(self.positions(x), perm))

    def _axes(self, what, rank):
        """The axes of Squeeze, Unsqueeze, ReduceMax: the attribute before opset 13 (18 for
        ReduceMax), the optional input 1 after; normalised into ``0..rank-1``."""
        new = self.g.opset >= (18 if what == "ReduceMax" else 13)
        axes = self.ints_arg(1, "axes", required=False) if new else self.attrs().get("axes")
        if axes is None:
            return None
        axes = [int(a) for a in axes]
        if any(not -rank <= a < rank for a in axes):
            self.fail(f"expected axes in [{-rank}, {rank - 1}], got {axes}")
        norm = [a % rank for a in axes]
        if len(set(norm)) != len(norm):
            self.fail(f"expected distinct axes, got {axes}")
        return norm

    def op_Squeeze(self, node):
        x = self.arg(0)
        axes = self._axes("Squeeze", len(x.shape))
        if axes is None:
            axes = [i for i, s in enumerate(x.shape) if s == 1]
        if any(x.shape[a] != 1 for a in axes):
            self.fail(f"expected axes of size 1 to squeeze, got axes {axes} of shape {x.shape}")
        shape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
        return self.index(x, self.positions(x).reshape(shape))

    def op_Unsqueeze(self, node):
        x = self.arg(0)
        axes = self._axes("Unsqueeze", len(x.shape) + len(self._raw_axes()))
        if not axes:
            self.fail("expected axes to unsqueeze")
        shape, it = [], iter(x.shape)
        for i in range(len(x.shape) + len(axes)):
            shape.append(1 if i in axes else next(it))
        return self.index(x, self.positions(x).reshape(shape))

    def _raw_axes(self):
        axes = self.ints_arg(1, "axes", required=False) if self.g.opset >= 13 else self.attrs().get("axes")
        return list(axes or [])

    # -- maxima
    def op_Max(self, node):
        args = [self.arg(i) for i in range(len(node.input)) if node.input[i]]
        if not args:
            self.fail("expected at least one input")
        shape = self.common_shape(*args)
        args = [self.broadcast(a, shape) for a in args]
        if len(args) == 1:
            return args[0]
        n = prod(shape)
        if all(isinstance(a, Const) for a in args):
            for a in args:
                self.need_float(a)
            stacked = Const(np.stack([a.a for a in args]), np.stack([a.f for a in args]), args[0].dtype,
                            None if all(a.err is None for a in args) else np.stack([a.errs() for a in args]))
        else:
            parts = [a if isinstance(a, Var) else self.var("const", (), a.shape, c=a) for a in args]
            stacked = self.var("concat", parts, (len(args) * n,))
        members = (np.arange(len(args), dtype=np.int64) * n + np.arange(n, dtype=np.int64)[:, None]).reshape(-1)
        ptr = np.arange(0, len(args) * n + 1, len(args), dtype=np.int64)
        return self.groups_max(stacked, ptr, members, shape)

    def op_ReduceMax(self, node):
        x = self.arg(0)
        at = self.attrs()
        axes = self._axes("ReduceMax", len(x.shape))
        if not axes:
            if int(at.get("noop_with_empty_axes", 0)):
                return x
            axes = list(range(len(x.shape)))
        ptr, members, shape = reduce_groups(x.shape, axes, int(at.get("keepdims", 1)))
        return self.groups_max(x, ptr, members, shape)

    # -- convolutional operations
    def op_Conv(self, node):
        x = self.arg(0)
        w = self.const_arg(1, "the weights")
        b = self.const_arg(2, "the bias", required=False)
        self.need_float(w)
        out_idx, in_idx, w_idx, channel, shape, terms = conv_triples(x.shape, w.shape, self.attrs())
        bias = None
        if b is not None:
            self.need_float(b)
            if b.shape != (w.shape[0],):
                self.fail(f"expected a bias of shape ({w.shape[0]},), got {b.shape}")
            bias = b.gather(channel)
        self.convolutional |= isinstance(x, Var)
        return self.linear(x, out_idx, in_idx, w.gather(w_idx), bias, shape, terms)

    def op_AveragePool(self, node):
        x = self.arg(0)
        out_idx, in_idx, divisor, shape, terms = average_pool_triples(x.shape, self.attrs(), self.g.opset)
        distinct, where = np.unique(divisor[out_idx], return_inverse=True)
        inverses = object_array([Q(1, int(d)) for d in distinct.tolist()])
        w = Const(inverses[where.reshape(-1)], 1.0 / distinct.astype(np.float64)[where.reshape(-1)], "float32")
        self.convolutional |= isinstance(x, Var)
        return self.linear(x, out_idx, in_idx, w, None, shape, terms)

    def op_MaxPool(self, node):
        x = self.arg(0)
        ptr, members, shape = max_pool_groups(x.shape, self.attrs(), self.g.opset)
        self.convolutional |= isinstance(x, Var)
        return self.groups_max(x, ptr, members, shape)

    def op_Pad(self, node):
        at = self.attrs()
        x = self.arg(0)
        mode = at.get("mode", "constant")
        if mode != "constant":
            self.fail(f"pad mode {mode!r} is not read (only 'constant')")
        r = len(x.shape)
        if self.g.opset < 11:
            pads, fill = [int(p) for p in at.get("pads", [])], Q(*float(at.get("value", 0.0)).as_integer_ratio())
            axes = list(range(r))
        else:
            pads = self.ints_arg(1, "pads")
            value = self.const_arg(2, "constant_value", required=False)
            fill = ZERO
            if value is not None:
                if value.size != 1:
                    self.fail(f"expected a scalar constant_value, got shape {value.shape}")
                fill = value.a.reshape(-1)[0]
            axes = self.ints_arg(3, "axes", required=False)
            axes = list(range(r)) if axes is None else [a % r if -r <= a < r else self.fail(f"axis {a} out of range")
                                                        for a in axes]
        if len(pads) != 2 * len(axes) or len(set(axes)) != len(axes):
            self.fail(f"expected 2 pads per padded axis ({len(axes)}), got {pads}")
        begin, end = [0] * r, [0] * r
        for j, a in enumerate(axes):
            begin[a], end[a] = pads[j], pads[len(axes) + j]
        shape = tuple(s + b + e for s, b, e in zip(x.shape, begin, end))
        if any(s <= 0 for s in shape):
            self.fail(f"padding {pads} leaves no entries of {x.shape}")
        self._check_size(shape)
        idx = np.zeros(shape, dtype=np.int64)
        valid = np.ones(shape, dtype=bool)
        for a in range(r):
            c = (np.arange(shape[a]) - begin[a]).reshape([-1 if j == a else 1 for j in range(r)])
            valid &= (c >= 0) & (c < x.shape[a])
            idx = idx * x.shape[a] + c
        return self.index(x, np.where(valid, idx, -1), fill)

    def op_BatchNormalization(self, node):
        at = self.attrs()
        if int(at.get("training_mode", 0)):
            self.fail("BatchNormalization in training mode is not read")
        if int(at.get("spatial", 1)) != 1:
            self.fail("BatchNormalization with spatial=0 is not read")
        x = self.arg(0)
        if len(x.shape) < 2:
            self.fail(f"expected an input (N, C, ...), got shape {x.shape}")
        C = x.shape[1]
        scale, bias, mean, var = (self.const_arg(i, what) for i, what in
                                  ((1, "scale"), (2, "B"), (3, "mean"), (4, "var")))
        for c in (scale, bias, mean, var):
            self.need_float(c)
            if c.shape != (C,):
                self.fail(f"expected parameters of shape ({C},), got {c.shape}")
        eps = Q(*float(at.get("epsilon", 1e-5)).as_integer_ratio())
        factors = []
        for c in range(C):
            v = var.a[c] + eps
            root = _exact_sqrt(v) if v > ZERO else None
            if root is None or root == ZERO:
                self.fail(f"scale / sqrt(var + epsilon) of channel {c} is not rational (var + epsilon = {v}): "
                          "not read exactly")
            factors.append(scale.a[c] / root)
        shape = (1, C) + (1,) * (len(x.shape) - 2)
        s = Const.of(object_array(factors).reshape(shape), scale.dtype)
        s.err = 5 * self.bounds.u * np.abs(s.f)  # the runtime computes the factor: a few roundings
        centred = self.add(x, self.negate(mean.reshape(shape)))
        return self.add(self.mul(centred, s), bias.reshape(shape))
