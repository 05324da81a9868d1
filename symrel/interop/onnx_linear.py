"""Which entries the linear ONNX operations combine: index triples of MatMul, Conv and pooling.

Each function here is pure index arithmetic on shapes (numpy integer arrays, no rationals):
the importer (:mod:`symrel.interop.onnx_import`) pairs the indices with the exact weights.
A linear operation ``y_o = sum_t w_t x_{in_t}`` is given as triples ``(out_idx, in_idx,
w_idx)`` of flat (row-major) indices into ``y``, ``x`` and the weight tensor, sorted by
``out_idx``. A max over windows (MaxPool, ReduceMax) is given as groups: ``ptr`` and
``members``, the flat indices of group ``g`` being ``members[ptr[g]:ptr[g+1]]``.

Spatial geometry follows the ONNX operator specifications (Conv, AveragePool, MaxPool;
opsets 7 to 22), with onnxruntime's reading where the text leaves room (the divisor of an
average over a window that overhangs the padding with ``ceil_mode``):

* explicit ``pads`` ``[b_1..b_D, e_1..e_D]``; ``auto_pad`` ``SAME_UPPER``/``SAME_LOWER``
  pads to ``ceil(S / s)`` outputs (the odd pad at the end, resp. the beginning); ``VALID`` pads
  nothing;
* output size ``floor((S + b + e - ((K - 1) d + 1)) / s) + 1`` (``ceil`` with ``ceil_mode``,
  dropping a last window that would start past ``S + b``);
* window ``o`` reads input positions ``o s - b + k d``, ``k = 0..K-1``, those inside ``[0, S)``.

>>> out, left, right, shape, k = matmul_triples((2, 3), (3,))     # (2x3) @ (3,): a vector of 2
>>> shape, k, out.tolist(), left.tolist(), right.tolist()
((2,), 3, [0, 0, 0, 1, 1, 1], [0, 1, 2, 3, 4, 5], [0, 1, 2, 0, 1, 2])
>>> geometry((5,), (2,), {"strides": [2], "ceil_mode": 1}, "pool")[:2]    # 5 cells, windows of 2
((3,), [0])
"""

from __future__ import annotations

from math import ceil, prod

from .onnx_values import np


class GeometryError(ValueError):
    """Attributes or shapes that the operation does not accept (the message says which)."""


#: the most index triples one operation may spell out (a larger product or convolution is
#: refused before any array is made)
TRIPLES_LIMIT = 20_000_000


def _check_size(count, what):
    if count > TRIPLES_LIMIT:
        raise GeometryError(f"{what} has {count} products, beyond the limit of {TRIPLES_LIMIT} (the importer's size "
                            "limit)")


def matmul_triples(sl, sr):
    """numpy's ``matmul`` of tensors of shapes ``sl`` and ``sr`` as triples: ``(out_idx,
    left_idx, right_idx, out_shape, k)``: ``y_o = sum left_{left_idx} right_{right_idx}`` over
    the triples of ``o``; ``k`` terms each. A 1-D operand is a row (left) or a column (right)
    vector whose axis is dropped from the result; other leading axes broadcast."""
    if not sl or not sr:
        raise GeometryError("expected operands of rank 1 or more")
    a2 = (1,) + tuple(sl) if len(sl) == 1 else tuple(sl)
    b2 = tuple(sr) + (1,) if len(sr) == 1 else tuple(sr)
    (n, k), (k2, m) = a2[-2:], b2[-2:]
    if k != k2:
        raise GeometryError(f"cannot multiply shapes {tuple(sl)} and {tuple(sr)}: inner sizes {k} and {k2}")
    try:
        batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    except ValueError:
        raise GeometryError(f"the leading axes of shapes {tuple(sl)} and {tuple(sr)} do not broadcast") from None
    _check_size(prod(batch) * n * m * k, "the product")
    ia = np.broadcast_to(np.arange(prod(sl), dtype=np.int64).reshape(a2), batch + (n, k))
    ib = np.broadcast_to(np.arange(prod(sr), dtype=np.int64).reshape(b2), batch + (k, m))
    full = batch + (n, m, k)
    left = np.broadcast_to(ia[..., :, None, :], full).reshape(-1)
    right = np.broadcast_to(np.swapaxes(ib, -1, -2)[..., None, :, :], full).reshape(-1)
    out = np.repeat(np.arange(prod(batch) * n * m, dtype=np.int64), k)
    shape = batch + ((n,) if len(sl) > 1 else ()) + ((m,) if len(sr) > 1 else ())
    return out, left, right, shape, k


def _ints(value, length, name, default):
    if value is None:
        return [default] * length
    value = [int(v) for v in value]
    if len(value) != length:
        raise GeometryError(f"expected {name} of length {length}, got {value}")
    return value


def geometry(spatial, kernel, attrs, kind, opset=22):
    """``(out_sizes, pad_begin, strides, dilations, pad_end)`` of a window operation over the
    spatial sizes ``spatial`` with kernel sizes ``kernel`` (the module docstring); ``kind`` is
    ``"conv"`` or ``"pool"`` (pooling has ``ceil_mode``). Before opset 22 the specification
    keeps a last ``ceil_mode`` window that starts in the end padding, where onnxruntime drops
    it: such a window is refused as ambiguous."""
    D = len(spatial)
    strides = _ints(attrs.get("strides"), D, "strides", 1)
    dilations = _ints(attrs.get("dilations"), D, "dilations", 1)
    if any(v < 1 for v in strides + dilations) or any(v < 1 for v in kernel):
        raise GeometryError(f"expected positive kernel sizes, strides and dilations, got {list(kernel)}, "
                            f"{strides}, {dilations}")
    auto_pad = attrs.get("auto_pad", "NOTSET") or "NOTSET"
    ceil_mode = int(attrs.get("ceil_mode", 0)) if kind == "pool" else 0
    span = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    if auto_pad == "NOTSET":
        pads = _ints(attrs.get("pads"), 2 * D, "pads", 0)
        if any(p < 0 for p in pads):
            raise GeometryError(f"expected pads of 0 or more, got {pads}")
        begin, end = pads[:D], pads[D:]
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER", "VALID"):
        if ceil_mode:
            raise GeometryError(f"ceil_mode with auto_pad {auto_pad} is not read (the specification leaves it open)")
        if attrs.get("pads") is not None and any(int(p) for p in attrs["pads"]):
            raise GeometryError(f"expected no pads with auto_pad {auto_pad}")
        if auto_pad != "VALID" and any(d != 1 for d in dilations):
            raise GeometryError(f"dilations with auto_pad {auto_pad} are not read (the specification leaves the "
                                "padding open)")
        begin, end = [0] * D, [0] * D
        if auto_pad != "VALID":
            for i in range(D):
                total = (ceil(spatial[i] / strides[i]) - 1) * strides[i] + span[i] - spatial[i]
                if total < 0 and kind == "pool":
                    raise GeometryError(f"auto_pad {auto_pad} asks for negative padding along spatial axis {i} (a "
                                        "window smaller than the stride): not read")
                total = max(0, total)  # a convolution pads nothing there
                small, big = total // 2, total - total // 2
                begin[i], end[i] = (small, big) if auto_pad == "SAME_UPPER" else (big, small)
    else:
        raise GeometryError(f"expected auto_pad NOTSET, SAME_UPPER, SAME_LOWER or VALID, got {auto_pad!r}")
    out = []
    for i in range(D):
        room = spatial[i] + begin[i] + end[i] - span[i]
        if room < 0:
            raise GeometryError(f"the window ({span[i]} cells) is larger than the padded input ({spatial[i]} + "
                                f"{begin[i]} + {end[i]}) along spatial axis {i}")
        size = (-(-room // strides[i]) if ceil_mode else room // strides[i]) + 1
        if ceil_mode and (size - 1) * strides[i] >= spatial[i] + begin[i]:
            if opset < 22:
                raise GeometryError(f"with ceil_mode the last window along spatial axis {i} starts in the end padding: "
                                    "ONNX before opset 22 keeps it, onnxruntime drops it (ambiguous, not read)")
            size -= 1  # the last window would start in the end padding
        out.append(size)
    return tuple(out), begin, strides, dilations, end


def windows(spatial, kernel, out, begin, strides, dilations):
    """``pos[o, k]``: the flat spatial input index that kernel cell ``k`` of output window ``o``
    reads (``-1`` outside the input), an array of shape ``(prod(out), prod(kernel))``."""
    D = len(spatial)
    flat = np.zeros(tuple(out) + tuple(kernel), dtype=np.int64)
    valid = np.ones(flat.shape, dtype=bool)
    for i in range(D):
        o = np.arange(out[i]).reshape([-1 if j == i else 1 for j in range(D)] + [1] * D)
        k = np.arange(kernel[i]).reshape([1] * D + [-1 if j == i else 1 for j in range(D)])
        p = o * strides[i] - begin[i] + k * dilations[i]
        valid &= (p >= 0) & (p < spatial[i])
        flat = flat * spatial[i] + p
    return np.where(valid, flat, -1).reshape(prod(out), prod(kernel))


def conv_triples(x_shape, w_shape, attrs):
    """Conv of an input ``(N, C, S...)`` with weights ``(M, C/group, K...)``: ``(out_idx,
    in_idx, w_idx, channel_of_output, out_shape, terms)``; ``channel_of_output[o]`` is the
    output channel of ``o`` (for the bias), ``terms`` the products per output."""
    if len(x_shape) < 3 or len(w_shape) != len(x_shape):
        raise GeometryError(f"expected an input (N, C, spatial...) and weights (M, C/group, kernel...) of the same "
                            f"rank, got {tuple(x_shape)} and {tuple(w_shape)}")
    N, C, spatial = x_shape[0], x_shape[1], tuple(x_shape[2:])
    M, Cg, kernel = w_shape[0], w_shape[1], tuple(w_shape[2:])
    group = int(attrs.get("group", 1))
    if group < 1 or C % group or M % group or Cg != C // group:
        raise GeometryError(f"expected group dividing {C} input and {M} output channels, with weights of "
                            f"C/group = {C // group if group >= 1 and C % group == 0 else '?'} channels; got group "
                            f"{group} and weights {tuple(w_shape)}")
    if attrs.get("kernel_shape") is not None and tuple(int(k) for k in attrs["kernel_shape"]) != kernel:
        raise GeometryError(f"kernel_shape {list(attrs['kernel_shape'])} differs from the weights' {list(kernel)}")
    out, begin, strides, dilations, _ = geometry(spatial, kernel, attrs, "conv")
    O, K, S = prod(out), prod(kernel), prod(spatial)
    _check_size(N * M * O * Cg * K, "the convolution")
    pos = windows(spatial, kernel, out, begin, strides, dilations)  # (O, K)
    n = np.arange(N).reshape(N, 1, 1, 1, 1)
    m = np.arange(M).reshape(1, M, 1, 1, 1)
    c = np.arange(Cg).reshape(1, 1, 1, Cg, 1)
    cin = (m // (M // group)) * Cg + c
    p = pos.reshape(1, 1, O, 1, K)
    full = (N, M, O, Cg, K)
    in_idx = np.broadcast_to((n * C + cin) * S + p, full)
    valid = np.broadcast_to(p >= 0, full)
    w_idx = np.broadcast_to((m * Cg + c) * K + np.arange(K).reshape(1, 1, 1, 1, K), full)
    out_idx = np.broadcast_to((n * M + m) * O + np.arange(O).reshape(1, 1, O, 1, 1), full)
    keep = valid.reshape(-1)
    channel = np.broadcast_to(np.arange(M).reshape(1, M, 1), (N, M, O)).reshape(-1)
    return (out_idx.reshape(-1)[keep], in_idx.reshape(-1)[keep], w_idx.reshape(-1)[keep], channel,
            (N, M) + out, Cg * K + 1)


def _pool_setup(x_shape, attrs, opset):
    if len(x_shape) < 3:
        raise GeometryError(f"expected an input (N, C, spatial...), got {tuple(x_shape)}")
    kernel = attrs.get("kernel_shape")
    if kernel is None or len(kernel) != len(x_shape) - 2:
        raise GeometryError(f"expected kernel_shape with one size per spatial axis, got {kernel}")
    kernel = tuple(int(k) for k in kernel)
    spatial = tuple(x_shape[2:])
    out, begin, strides, dilations, end = geometry(spatial, kernel, attrs, "pool", opset)
    N, C = x_shape[0], x_shape[1]
    _check_size(N * C * prod(out) * prod(kernel), "the pooling")
    pos = windows(spatial, kernel, out, begin, strides, dilations)
    base = (np.arange(N * C, dtype=np.int64) * prod(spatial)).reshape(-1, 1, 1)
    return N, C, spatial, kernel, out, begin, strides, end, pos, base


def average_pool_triples(x_shape, attrs, opset=22):
    """AveragePool: ``(out_idx, in_idx, divisor, out_shape, terms)``; output ``o`` is the sum of
    its window's input cells divided by ``divisor[o]``: the cells inside the input, or with
    ``count_include_pad`` the window's cells up to the end of the padding."""
    if any(int(d) != 1 for d in attrs.get("dilations") or []):
        raise GeometryError("AveragePool with dilations is not read")
    N, C, spatial, kernel, out, begin, strides, end, pos, base = _pool_setup(x_shape, attrs, opset)
    valid = pos >= 0  # (O, K)
    if attrs.get("count_include_pad", 0):
        divisor = np.ones(prod(out), dtype=np.int64)
        grids = np.meshgrid(*[np.arange(o) for o in out], indexing="ij")
        for i in range(len(spatial)):
            start = grids[i].reshape(-1) * strides[i] - begin[i]
            divisor *= np.minimum(start + kernel[i], spatial[i] + end[i]) - start
    else:
        divisor = valid.sum(axis=1)
    if (divisor <= 0).any():
        raise GeometryError("a window holds no input cell (its average divides by zero)")
    full = (N * C,) + pos.shape
    in_idx = np.broadcast_to(base + pos[None], full).reshape(-1)
    out_idx = np.broadcast_to(np.arange(N * C * prod(out), dtype=np.int64).reshape(N * C, -1, 1), full).reshape(-1)
    keep = np.broadcast_to(valid[None], full).reshape(-1)
    return out_idx[keep], in_idx[keep], np.tile(divisor, N * C), (N, C) + out, prod(kernel) + 1


def max_pool_groups(x_shape, attrs, opset=22):
    """MaxPool: ``(ptr, members, out_shape)``: output ``g`` is the max of the input cells of its
    window that lie inside the input (padding is never a piece)."""
    if int(attrs.get("storage_order", 0)) not in (0, 1):
        raise GeometryError("expected storage_order 0 or 1")
    N, C, spatial, kernel, out, begin, strides, end, pos, base = _pool_setup(x_shape, attrs, opset)
    valid = pos >= 0
    counts = valid.sum(axis=1)
    if (counts == 0).any():
        raise GeometryError("a window holds no input cell (its max would be -infinity)")
    members = (base + pos[None])[np.broadcast_to(valid[None], (N * C,) + pos.shape)]
    ptr = np.concatenate([[0], np.cumsum(np.tile(counts, N * C))]).astype(np.int64)
    return ptr, members.astype(np.int64), (N, C) + out


def reduce_groups(shape, axes, keepdims):
    """ReduceMax over ``axes`` (normalised, distinct): ``(ptr, members, out_shape)``."""
    shape = tuple(shape)
    keep_axes = [i for i in range(len(shape)) if i not in axes]
    idx = np.arange(prod(shape), dtype=np.int64).reshape(shape)
    moved = np.transpose(idx, keep_axes + sorted(axes))
    r = prod(shape[i] for i in axes)
    if r == 0:
        raise GeometryError("a reduction over an empty axis")
    members = moved.reshape(-1)
    n_out = members.size // r
    ptr = np.arange(0, n_out * r + 1, r, dtype=np.int64)
    out_shape = tuple(1 if i in axes else s for i, s in enumerate(shape)) if keepdims else tuple(shape[i] for i in keep_axes)
    return ptr, members, out_shape
