"""The bits of the numbers an exact run of a program computes, bounded before it runs.

Definition. A run keeps its state (a vector, or ``T`` token columns) over one common
denominator: entries ``p_i / D`` with ``|p_i| < 2^s`` and ``D < 2^s``; ``s`` is the state's
*bits*. A stage adds to ``s`` at most what its numbers can add (:func:`stage_bits`): an
affine map ``W x + b`` whose weights over their common denominator ``D_W`` are integers of at
most ``w`` bits gives ``(W D_W) p + (b D_W) D`` over ``D_W D``, so ``s + w + bits(fan-in + 1)``
bits; ReLU and maxout select entries and add nothing; a CPWL function adds its pieces' bits
(a piece and, on a mesh, the barycentric rows of one simplex); an attention block adds its
value and output maps' bits, the averaging over at most ``T`` winners, and compares scores of
about twice the state's bits. :func:`program_bits` adds them up over the program, from the
bits of the inputs (all points of a batch over one common denominator,
:func:`symrel.exact.sizes.number_bits`). The largest is an upper bound on the bits of every
number the run computes; :func:`check_program` refuses beyond the ``product bits`` limit of
:mod:`symrel.exact.sizes` (and every common denominator beyond ``denominator bits``), before
the run, naming the limit.

This bounds an exact evaluation (``symrel eval``) and the forms of a symbolic run (the prover's
layer-by-layer forms have coefficients of the same bits, with the domain's numbers as the
inputs'). Cost: one pass over the program's numbers.

>>> from symrel.lowering import lower
>>> from symrel.models import ReLUNet, DenseLayer
>>> net = ReLUNet(1, [DenseLayer([["1/3"], ["2/5"]], [0, 1]), DenseLayer([[1, -1]], [0], "none")])
>>> program_bits(lower(net), 2)        # 2 + (14 + 2) + (3 + 2): weights and fan-in, layer by layer
23
>>> from symrel.exact.sizes import arithmetic_limits
>>> with arithmetic_limits(product_bits=10):
...     try:
...         check_program(lower(net), 2, where="net.json")
...     except Exception as err:
...         print(err)
net.json: limit 'product bits': an exact run of the model would have up to 23 bits, more than the 10 allowed (--max-product-bits)
"""

from __future__ import annotations

from ..exact.sizes import check_product_bits, fan_in_bits, number_bits
from .program import Affine, AttentionOp, Embed, FeedForwardOp, Maxout, ReadoutOp, Relu, Segment, Simplices


def _entries(*matrices):
    """The entries of exact matrices, columns and lists (of lists) of rationals."""
    for M in matrices:
        rows = M.to_list() if hasattr(M, "to_list") else M
        for r in rows:
            if isinstance(r, (list, tuple)):
                yield from r
            else:
                yield r


def _weights(where: str, *matrices) -> int:
    """The bits ``w`` of the matrices' entries over their common denominator (twice its bits plus
    the largest numerator's: :func:`symrel.exact.sizes.number_bits`)."""
    return number_bits(list(_entries(*matrices)), where=where, what="the common denominator of its weights")


def _width(M) -> int:
    return M.shape[1] if hasattr(M, "shape") else max((len(r) for r in M), default=0)


def stage_bits(op, s: int, where: str, tokens: int = 1) -> tuple[int, int]:
    """``(s', peak)``: the bits of the state after the operation ``op`` on a state of ``s`` bits,
    and the most bits of a number it computes on the way (module docstring)."""
    if isinstance(op, (Relu, Maxout)):
        return s, s
    if isinstance(op, (Affine, ReadoutOp)):
        out = s + _weights(where, op.W, op.b) + fan_in_bits(_width(op.W) + 1)
        return out, out
    if isinstance(op, Segment):
        w = max((number_bits([a, c], where=where, what="a piece") for a, c in op.pieces), default=0)
        out = s + w + 1
        return out, out + number_bits(list(op.x), where=where, what="the breakpoints")
    if isinstance(op, Simplices):
        peak = s
        for k, (rows, pieces) in enumerate(zip(op.barycentric, op.pieces)):
            here = f"{where}.simplices[{k}]"
            d = len(rows[0]) if rows else 1
            bary = number_bits(list(_entries(rows)), where=here, what="the barycentric rows of a simplex")
            piece = number_bits([v for a, c in pieces for v in (*a, c)], where=here, what="the pieces of a simplex")
            peak = max(peak, s + max(bary, piece) + fan_in_bits(d + 1))
        return peak, peak
    if isinstance(op, Embed):
        out = s + _weights(where, op.E, op.offsets) + fan_in_bits(_width(op.E) + 1)
        return out, out
    if isinstance(op, FeedForwardOp):
        hidden = s + _weights(where, op.W1, op.b1) + fan_in_bits(_width(op.W1) + 1)
        out = hidden + _weights(where, op.W2, op.b2) + fan_in_bits(_width(op.W2) + 1) + 1
        return out, out
    if isinstance(op, AttentionOp):
        added, scores = 0, s
        for h, (WQ, WK, WV, WO) in enumerate(op.heads):
            here = f"{where}.heads[{h}]"
            q, k = _weights(here, WQ), _weights(here, WK)
            width = fan_in_bits(_width(WQ) + 1)
            scores = max(scores, 2 * s + q + k + 2 * width + fan_in_bits(len(WQ.to_list()) + 1))
            added += _weights(here, WV) + _weights(here, WO) + width + fan_in_bits(_width(WO) + 1) \
                + 2 * fan_in_bits(tokens + 1)   # the average over at most T winners: a sum, a division
        out = s + added + fan_in_bits(len(op.heads) + 1) + 1
        return out, max(out, scores)
    return s, s


def program_bits(program, input_bits: int) -> int:
    """The most bits of any number an exact run of ``program`` computes from inputs of
    ``input_bits`` bits (module docstring); a common denominator beyond the ``denominator
    bits`` limit is refused on the way (:class:`~symrel.errors.LimitError`)."""
    s = peak = input_bits
    tokens = program.tokens or 1
    for stage in program.stages:
        for op in stage.ops:
            s, top = stage_bits(op, s, stage.name, tokens)
            peak = max(peak, s, top)
    return peak


def check_program(program, input_bits: int, where: str | None = None) -> int:
    """:func:`program_bits`, refused beyond the ``product bits`` limit (the error's path: ``where``)."""
    return check_product_bits(program_bits(program, input_bits), where=where, what="an exact run of the model")


def model_bits(model, input_bits: int) -> int:
    """:func:`program_bits` of ``model``'s program; a layered net (:mod:`symrel.models.layered`)
    bounded from its sparse operators directly (its program is dense: a convolution's would
    have millions of entries), each sparse affine map adding its entries' bits over their
    common denominator and ``bits(longest row + 1)``; a kind without a lowering is not bounded
    (its own evaluation is what it is)."""
    from ..model_kinds import kind_of

    if getattr(model, "kind", None) == "layered":
        s = input_bits
        for k, op in enumerate(model.ops):
            rows = getattr(op, "rows", None)
            if rows is not None:
                s += number_bits([v for row in rows for _, v in row] + list(op.b), where=f"ops[{k}]",
                                 what="the common denominator of its weights") \
                    + fan_in_bits(max((len(row) for row in rows), default=0) + 1)
        return s
    kind = kind_of(model)
    if kind is None or not kind.has("lower"):
        return input_bits
    return program_bits(kind.function("lower", "lower")(model), input_bits)


def check_model(model, input_bits: int, where: str | None = None) -> int:
    """:func:`model_bits`, refused beyond the ``product bits`` limit (the error's path: ``where``)."""
    return check_product_bits(model_bits(model, input_bits), where=where, what="an exact run of the model")

