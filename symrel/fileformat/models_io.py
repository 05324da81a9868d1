"""Readers and writers of the model, domain, points and values kinds (docs/format.md)."""

from __future__ import annotations

from ..errors import InputError
from ..exact import Q, format_matrix, format_rational, format_vector, from_rationals, rows
from .. import models  # each model kind's module is imported when its kind is first read or written
from .fields import expect_object, get, get_int, get_list, get_str, join, number, number_rows, numbers
from .registry import reader, writer

HEADER = {"symrel": 1}


def _affine(obj, path, in_dim, out_dim=None) -> AffineMap:
    expect_object(obj, path)
    W = number_rows(get(obj, "W", path), join(path, "W"), rows=out_dim, cols=in_dim)
    m = len(W)
    b = numbers(get(obj, "b", path), join(path, "b"), length=m) if "b" in obj else [Q(0)] * m
    return models.AffineMap(from_rationals(W, (m, in_dim)), b, input_dim=in_dim, path=path)


# -- maxout -----------------------------------------------------------------------------
@reader("maxout")
def read_maxout(obj, path=""):
    input_dim = get_int(obj, "input_dim", path, minimum=1)
    layers = []
    width = input_dim
    for li, L in enumerate(get_list(obj, "layers", path, "layers", min_len=1)):
        lp = join(join(path, "layers"), li)
        expect_object(L, lp)
        units = []
        for ui, U in enumerate(get_list(L, "units", lp, "units", min_len=1)):
            up = join(join(lp, "units"), ui)
            expect_object(U, up)
            ws, bs = [], []
            for pi, P in enumerate(get_list(U, "pieces", up, "pieces", min_len=1)):
                pp = join(join(up, "pieces"), pi)
                expect_object(P, pp)
                ws.append(numbers(get(P, "w", pp), join(pp, "w"), length=width))
                bs.append(number(get(P, "b", pp), join(pp, "b")))
            units.append(models.MaxoutUnit(from_rationals(ws, (len(ws), width)), bs, input_dim=width, path=up))
        layers.append(models.MaxoutLayer(units, path=lp))
        width = len(units)
    readout = None
    if obj.get("readout") is not None:
        readout = _affine(obj["readout"], join(path, "readout"), width)
    return models.MaxoutNet(input_dim, layers, readout, path=path)


@writer("symrel.models.maxout.MaxoutNet")
def write_maxout(net: MaxoutNet) -> dict:
    out = {**HEADER, "kind": "maxout", "input_dim": net.input_dim, "layers": []}
    for layer in net.layers:
        units = []
        for u in layer.units:
            units.append({"pieces": [{"w": [format_rational(v) for v in w], "b": format_rational(c)} for w, c in u.pieces.exact_pieces()]})
        out["layers"].append({"units": units})
    if net.readout is not None:
        out["readout"] = net.readout.to_json()
    return out


# -- relu ---------------------------------------------------------------------------------
@reader("relu")
def read_relu(obj, path=""):
    input_dim = get_int(obj, "input_dim", path, minimum=1)
    layers, width = [], input_dim
    for li, L in enumerate(get_list(obj, "layers", path, "layers", min_len=1)):
        lp = join(join(path, "layers"), li)
        aff = _affine(L, lp, width)
        if aff.output_dim == 0:
            raise InputError("expected a layer with at least one row", path=join(lp, "W"))
        act = get_str(L, "activation", lp, choices=("relu", "none"))
        layers.append(models.DenseLayer(aff.exact_W, aff.exact_b, act, input_dim=width, path=lp))
        width = aff.output_dim
    return models.ReLUNet(input_dim, layers, path=path)


@writer("symrel.models.relu.ReLUNet")
def write_relu(net: ReLUNet) -> dict:
    return {
        **HEADER,
        "kind": "relu",
        "input_dim": net.input_dim,
        "layers": [{**layer.affine.to_json(), "activation": layer.activation} for layer in net.layers],
    }


# -- layered ------------------------------------------------------------------------------
@reader("layered")
def read_layered(obj, path=""):
    """A layered net (docs/format.md): ``input_dim`` and ``ops``, each ``{"op": "affine", "rows":
    [[[column, value], ...], ...], "b": [...]}``, ``{"op": "relu"}`` or ``{"op": "max", "groups":
    [[index, ...], ...]}``; an operator object holds its listed keys only."""
    from ..models import layered

    input_dim = get_int(obj, "input_dim", path, minimum=1)
    ops, width = [], input_dim
    for k, O in enumerate(get_list(obj, "ops", path, "operators", min_len=1)):
        op_path = join(join(path, "ops"), k)
        expect_object(O, op_path)
        name = get_str(O, "op", op_path, choices=("affine", "relu", "max"))
        allowed = {"affine": {"op", "rows", "b"}, "relu": {"op"}, "max": {"op", "groups"}}[name]
        extra = sorted(set(O) - allowed)
        if extra:
            raise InputError(f"expected only the keys {', '.join(sorted(allowed))} of a {name} operator, got "
                             f"{extra[0]!r}", path=join(op_path, extra[0]))
        if name == "affine":
            rows_ = get_list(O, "rows", op_path, "rows", min_len=1)
            b = numbers(get(O, "b", op_path), join(op_path, "b"), length=len(rows_))
            op = layered.SparseAffine(rows_, b, input_dim=width, path=op_path)
        elif name == "relu":
            op = layered.Relu(width, path=op_path)
        else:
            op = layered.MaxGroups(get_list(O, "groups", op_path, "groups", min_len=1), input_dim=width, path=op_path)
        ops.append(op)
        width = op.output_dim
    return layered.LayeredNet(input_dim, ops, path=path)


def _formatted(qs) -> list:
    """:func:`~symrel.exact.format_rational` of each of ``qs``, under one lifting of Python's
    digit limit; an object met again (a convolution's kernel weight, in every row) is formatted
    once. Objects are recognised by their id, each kept alive meanwhile, so that no id is
    reused within the call.

    >>> from symrel.exact import rational as q
    >>> half = q("1/2"); _formatted([half, q(3), half, q("-7/4")])
    ['1/2', 3, '1/2', '-7/4']
    """
    from ..exact.numbers import unlimited_int_digits

    written: dict = {}
    out = []
    put = out.append
    with unlimited_int_digits():
        for q in qs:
            got = written.get(id(q))
            if got is None:
                p, d = int(q.numerator), int(q.denominator)
                got = written[id(q)] = (p if d == 1 else f"{p}/{d}", q)
            put(got[0])
    return out


@writer("symrel.models.layered.LayeredNet")
def write_layered(net) -> dict:
    ops = []
    for op in net.ops:
        if op.op == "affine":
            written = iter(_formatted(v for row in op.rows for _, v in row))   # in one pass
            ops.append({"op": "affine", "rows": [[[j, next(written)] for j, _ in row] for row in op.rows],
                        "b": _formatted(op.b)})
        elif op.op == "relu":
            ops.append({"op": "relu"})
        else:
            ops.append({"op": "max", "groups": [list(g) for g in op.groups]})
    return {**HEADER, "kind": "layered", "input_dim": net.input_dim, "ops": ops}


# -- cpwl1d -------------------------------------------------------------------------------
@reader("cpwl1d")
def read_cpwl1d(obj, path=""):
    x = numbers(get_list(obj, "x", path, "breakpoints", min_len=2), join(path, "x"))
    y = numbers(get(obj, "y", path), join(path, "y"), length=len(x))
    extend = get_str(obj, "extend", path, choices=("linear",), default="linear")
    return models.CPWL1D(x, y, extend, path=path)


@writer("symrel.models.cpwl.CPWL1D")
def write_cpwl1d(f: CPWL1D) -> dict:
    return {**HEADER, "kind": "cpwl1d", "x": [format_rational(v) for v in f.exact_x], "y": [format_rational(v) for v in f.exact_y]}


# -- cpwl (a mesh in R^d) ------------------------------------------------------------------
@reader("cpwl")
def read_cpwl(obj, path=""):
    d = get_int(obj, "input_dim", path, minimum=1)
    vertices = number_rows(get_list(obj, "vertices", path, "vertices", min_len=1), join(path, "vertices"), cols=d)
    simplices = get_list(obj, "simplices", path, "simplices", min_len=1)
    values = get_list(obj, "values", path, "values")
    if len(values) != len(vertices):
        raise InputError(f"expected {len(vertices)} values (one per vertex), got {len(values)}", path=join(path, "values"))
    rows_ = []
    for i, y in enumerate(values):
        yp = join(join(path, "values"), i)
        rows_.append(numbers(y, yp))
        if not rows_[-1]:
            raise InputError("expected at least one output value", path=yp)
    return models.CPWLMesh(vertices, simplices, rows_, input_dim=d, path=path)


@writer("symrel.models.cpwl_mesh.CPWLMesh")
def write_cpwl(f: CPWLMesh) -> dict:
    return {**HEADER, "kind": "cpwl", "input_dim": f.input_dim,
            "vertices": [[format_rational(v) for v in x] for x in f.exact_vertices],
            "simplices": [list(s) for s in f.simplices],
            "values": [[format_rational(v) for v in y] for y in f.exact_values]}


# -- transformer --------------------------------------------------------------------------
def _matrix(obj, key, path, rows_=None, cols=None):
    data = number_rows(get(obj, key, path), join(path, key), rows=rows_, cols=cols)
    r = len(data)
    c = cols if cols is not None else (len(data[0]) if data else 0)
    return from_rationals(data, (r, c))


@reader("transformer")
def read_transformer(obj, path=""):
    input_dim = get_int(obj, "input_dim", path, minimum=1)
    m = get_int(obj, "width", path, minimum=1)
    T = get_int(obj, "tokens", path, minimum=1)
    ep = join(path, "embedding")
    E = get(obj, "embedding", path)
    expect_object(E, ep)
    input_rows = get_list(E, "input_rows", ep, "input rows")
    if len(input_rows) != input_dim:
        raise InputError(f"expected {input_dim} input rows (one per input), got {len(input_rows)}", path=join(ep, "input_rows"))
    for i, r in enumerate(input_rows):
        if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r < m:
            raise InputError(f"expected a row index from 0 to {m - 1}, got {r!r}", path=join(join(ep, "input_rows"), i))
    offsets = _matrix(E, "offsets", ep, rows_=T, cols=m)
    embedding = models.Embedding(input_rows, offsets, width=m, tokens=T, path=ep)
    blocks = []
    for bi, B in enumerate(get_list(obj, "blocks", path, "blocks")):
        bp = join(join(path, "blocks"), bi)
        expect_object(B, bp)
        att = ff = None
        A = get(B, "attention", bp, default=None)
        if A is not None:
            ap = join(bp, "attention")
            expect_object(A, ap)
            rule = get_str(A, "rule", ap, choices=("hardmax", "softmax"))
            scale = number(get(A, "scale", ap), join(ap, "scale")) if rule == "softmax" else None
            if rule == "hardmax" and A.get("scale") is not None:
                raise InputError("a hardmax sublayer takes no scale", path=join(ap, "scale"))
            heads = []
            for hi, H in enumerate(get_list(A, "heads", ap, "heads", min_len=1)):
                hp = join(join(ap, "heads"), hi)
                expect_object(H, hp)
                WQ = _matrix(H, "WQ", hp, cols=m)
                WK = _matrix(H, "WK", hp, rows_=WQ.shape[0], cols=m)
                WV = _matrix(H, "WV", hp, cols=m)
                WO = _matrix(H, "WO", hp, rows_=m, cols=WV.shape[0])
                heads.append(models.AttentionHead(WQ, WK, WV, WO, width=m, path=hp))
            att = models.Attention(heads, rule, scale, path=ap)
        F = get(B, "feedforward", bp, default=None)
        if F is not None:
            fp = join(bp, "feedforward")
            expect_object(F, fp)
            W1 = _matrix(F, "W1", fp, cols=m)
            h = W1.shape[0]
            b1 = numbers(get(F, "b1", fp), join(fp, "b1"), length=h)
            W2 = _matrix(F, "W2", fp, rows_=m, cols=h)
            b2 = numbers(get(F, "b2", fp), join(fp, "b2"), length=m)
            ff = models.FeedForward(W1, b1, W2, b2, width=m, path=fp)
        blocks.append(models.Block(att, ff))
    rp = join(path, "readout")
    R = get(obj, "readout", path)
    expect_object(R, rp)
    token = get_int(R, "token", rp, minimum=0)
    if token >= T:
        raise InputError(f"expected a token index below {T}, got {token}", path=join(rp, "token"))
    W = _matrix(R, "W", rp, cols=m)
    b = numbers(get(R, "b", rp), join(rp, "b"), length=W.shape[0]) if "b" in R else None
    readout = models.Readout(token, W, b, width=m, tokens=T, path=rp)
    return models.Transformer(input_dim, m, T, embedding, blocks, readout, path=path)


@writer("symrel.models.transformer.Transformer")
def write_transformer(t: Transformer) -> dict:
    blocks = []
    for b in t.blocks:
        att = None
        if b.attention is not None:
            att = {"rule": b.attention.rule,
                   "heads": [{"WQ": format_matrix(h.exact_WQ), "WK": format_matrix(h.exact_WK), "WV": format_matrix(h.exact_WV), "WO": format_matrix(h.exact_WO)} for h in b.attention.heads]}
            if b.attention.exact_scale is not None:
                att["scale"] = format_rational(b.attention.exact_scale)
        ff = None
        if b.feedforward is not None:
            f = b.feedforward
            ff = {"W1": format_matrix(f.exact_W1), "b1": format_vector(f.exact_b1), "W2": format_matrix(f.exact_W2), "b2": format_vector(f.exact_b2)}
        blocks.append({"attention": att, "feedforward": ff})
    return {
        **HEADER,
        "kind": "transformer",
        "input_dim": t.input_dim,
        "width": t.width,
        "tokens": t.tokens,
        "embedding": {"input_rows": list(t.embedding.input_rows), "offsets": format_matrix(t.embedding.exact_offsets.transpose())},
        "blocks": blocks,
        "readout": {"token": t.readout.token, "W": format_matrix(t.readout.exact_W), "b": format_vector(t.readout.exact_b)},
    }


# -- domains --------------------------------------------------------------------------------
@reader("box")
def read_box(obj, path=""):
    bounds = get_list(obj, "bounds", path, "intervals", min_len=1)
    parsed = []
    for i, iv in enumerate(bounds):
        ip = join(join(path, "bounds"), i)
        parsed.append(numbers(iv, ip, length=2))
    return models.Box(parsed, path=join(path, "bounds"))


@writer("symrel.models.domain.Box")
def write_box(box: Box) -> dict:
    return box.to_json()


@reader("polytope")
def read_polytope(obj, path=""):
    A = number_rows(get_list(obj, "A", path, "inequalities", min_len=1), join(path, "A"))
    b = numbers(get(obj, "b", path), join(path, "b"), length=len(A))
    return models.Polytope(from_rationals(A, (len(A), len(A[0]))), b, path=path)


@writer("symrel.models.domain.Polytope")
def write_polytope(p: Polytope) -> dict:
    return p.to_json()


# -- points and values ------------------------------------------------------------------------
class Points(list):
    """A batch of exact input points (``kind: "points"``), a list of lists of rationals.

    >>> Points([[1, "1/2"]])[0][1] == Q(1, 2)
    True
    """

    field = "x"

    def __init__(self, data=()):
        super().__init__(numbers(list(r), join(self.field, i)) for i, r in enumerate(data))


class Values(Points):
    """A batch of exact outputs (``kind: "values"``), in the order of their points."""

    field = "y"


@reader("points")
def read_points(obj, path=""):
    return Points(number_rows(get_list(obj, "x", path, "points"), join(path, "x")))


@writer(Points)
def write_points(p: Points) -> dict:
    return {**HEADER, "kind": "points", "x": [[format_rational(v) for v in pt] for pt in p]}


@reader("values")
def read_values(obj, path=""):
    return Values(number_rows(get_list(obj, "y", path, "values"), join(path, "y")))


@writer(Values)
def write_values(v: Values) -> dict:
    return {**HEADER, "kind": "values", "y": [[format_rational(x) for x in row] for row in v]}


_ = rows
