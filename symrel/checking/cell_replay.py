"""The models of a cell certificate run on a symbolic input with their decisions forced
(the semantics :mod:`symrel.checking.regions` checks cells against), and the limits that
keep that replay bounded.

An affine quantity is kept by its values at the ``d + 1`` points ``0, e_1, .., e_d`` (the
prover keeps coefficients); a model's interpreter is a generator that yields the
outcomes of each decision (label, rows) and receives the label taken (the decision
order and rows: :mod:`symrel.checking.regions`). Hardmax scores are checked to be affine
through second differences.

**Limits, checked before anything is computed** (docs/format.md, "Limits of the
checker"). A replay multiplies the input by every layer in turn, so the size of its
numbers grows with depth x digits of the weights x log(width); the number of replays is
the number of paths the certificate lists. Before replaying, the checker bounds

* the path length by the number of decisions of the models (:func:`decisions`);
* the digits of every quantity a replay computes (:func:`growth_digits`, an upper bound
  from the weights' numerators, common denominators and fan-ins) by
  :data:`MAX_VALUE_DIGITS` (the growth limit);
* the work, paths x (arithmetic operations per replay x digits + the path's prefixes), by
  :data:`MAX_REPLAY_WORK` (the work limit).

Beyond one of them the check ends with :class:`~symrel.errors.LimitError` (exit 2) naming
the limit.

>>> from symrel.checking.inputs import read_input
>>> def relu_net(weight, acts):
...     layers = [{"W": [[weight]], "b": [0], "activation": a} for a in acts]
...     return read_input({"symrel": 1, "kind": "relu", "input_dim": 1, "layers": layers})
>>> net = relu_net("1e100", ["relu", "none"])
>>> growth_digits(net, 1) > 200, decisions([net])
(True, 1)
>>> deep = relu_net("1e9999", ["relu"] * 12)
>>> try:
...     check_limits([deep], 1, paths=1)
... except LimitError as err:
...     print(str(err)[:76])
inputs: the replay would compute numbers of up to 120000 digits (the growth 
"""

from __future__ import annotations

from math import gcd

from ..errors import LimitError
from ..exact import Q
from ..exact.numbers import GROUND_TYPES, denominator, numerator
from . import CertificateError, model_class

ZERO, ONE = Q(0), Q(1)
#: the model kinds (:func:`symrel.checking.model_class`), as their files name them
RELU, MAXOUT, CPWL1D, MESH, TRANSFORMER = "relu", "maxout", "cpwl1d", "cpwl", "transformer"
CONTINUOUS = (RELU, MAXOUT, CPWL1D, MESH)

#: the growth limit: decimal digits of any numerator or denominator a replay may compute
MAX_VALUE_DIGITS = 100_000
#: the work limit: paths replayed x operations per replay x (1 + digits // 1000)
MAX_REPLAY_WORK = 400_000_000

#: flint's ``fmpq_mat`` when python-flint is the ground type (its ``fmpq`` are then the
#: rationals), else None; a matrix of at least FLINT_ENTRIES entries is multiplied there
FMPQ_MAT = None
if GROUND_TYPES == "flint":
    from flint import fmpq_mat as FMPQ_MAT
FLINT_ENTRIES = 24


# -- affine quantities as values at 0, e_1, .., e_d -----------------------------------------


def coefficients_of_values(values):
    """Coefficients ``(a_1..a_d, c)`` of the affine function with these values."""
    v0 = values[0]
    return tuple(v - v0 for v in values[1:]) + (v0,)


def neg(f):
    return tuple(-v for v in f)


def minus(f, g):
    return tuple(a - b for a, b in zip(f, g))


def _points(d):
    """The inputs x_1 .. x_d as rows of their values at the points 0, e_1, .., e_d."""
    return [[ONE if j == i + 1 else ZERO for j in range(d + 1)] for i in range(d)]


def weights(M, cols: int) -> tuple:
    """The matrix ``M`` (a list of rows of ``cols`` rationals) as the replay multiplies by it:
    ``(its rows as their nonzero (column, entry) pairs, flint's fmpq_mat of it or None)``;
    the second only under python-flint and for a matrix of :data:`FLINT_ENTRIES` entries or
    more, whose products are then taken by flint (exact too, and faster)."""
    big = FMPQ_MAT is not None and len(M) * cols >= FLINT_ENTRIES
    return ([[(j, a) for j, a in enumerate(r) if a] for r in M],
            FMPQ_MAT(len(M), cols, [a for r in M for a in r]) if big else None)


def affine_values(W, b, V, n):
    """The rows of ``W V + b 1^T``: ``W`` as :func:`weights`, ``V`` rows of ``n`` values (the
    quantities at the ``n`` points), ``b`` one number per row of W or None (no bias). Each
    output row adds up the rows of V its row of W weighs, O(n) exact operations per nonzero
    weight, or flint multiplies the two matrices."""
    rows_, big = W
    if big is not None and V:
        e = (big * FMPQ_MAT(len(V), n, [v for r in V for v in r])).entries()
        out = [e[i * n:(i + 1) * n] for i in range(len(rows_))]
        return out if b is None else [[x + c for x in r] for r, c in zip(out, b)]
    out = []
    for i, r in enumerate(rows_):
        acc = [b[i]] * n if b is not None else [ZERO] * n
        for j, a in r:
            acc = [x + a * y for x, y in zip(acc, V[j])] if a != ONE else [x + y for x, y in zip(acc, V[j])]
        out.append(acc)
    return out


def _relu_choices(f, mode):
    if mode == "open":
        if not any(f):
            return [("0", [])]
        return [("+", [(neg(f), "<")]), ("-", [(f, "<")])]
    return [("+", [(neg(f), "<=")]), ("-", [(f, "<")])]


def _max_choices(pieces, mode):
    out = []
    for j, lj in enumerate(pieces):
        if mode == "open":
            if lj in pieces[:j]:
                continue
            out.append((str(j), [(minus(li, lj), "<") for i, li in enumerate(pieces) if i != j and li != lj]))
        else:
            out.append((str(j), [(minus(li, lj), "<" if i < j else "<=") for i, li in enumerate(pieces) if i != j]))
    return out


def _compare_choices(diff, mode):
    if mode == "open":
        if not any(diff):
            return [("=", [])]
        return [("<", [(diff, "<")]), (">", [(neg(diff), "<")])]
    return [("<", [(diff, "<")]), ("=", [(diff, "=")]), (">", [(neg(diff), "<")])]


def _relu_net(net, d, mode):
    V = _points(d)
    for layer in net.layers:
        V = affine_values(layer.affine.replay_weights, layer.affine.b_list, V, d + 1)
        if layer.activation == "relu":
            out = []
            for z in V:
                label = yield _relu_choices(coefficients_of_values(z), mode)
                out.append(z if label == "+" else [ZERO] * (d + 1))
            V = out
    return [coefficients_of_values(r) for r in V]


def _maxout_net(net, d, mode):
    V = _points(d)
    for layer in net.layers:
        out = []
        for unit in layer.units:
            P = affine_values(unit.pieces.replay_weights, unit.pieces.b_list, V, d + 1)
            label = yield _max_choices([coefficients_of_values(p) for p in P], mode)
            out.append(P[int(label)])
        V = out
    if net.readout is not None:
        V = affine_values(net.readout.replay_weights, net.readout.b_list, V, d + 1)
    return [coefficients_of_values(r) for r in V]


def _cpwl(f, d, mode):
    x = (ONE, ZERO)  # the form of the input itself
    choices = []
    pieces = f.exact_pieces()
    for s in range(len(pieces)):
        rs = []
        if s > 0:
            rs.append(((-ONE, f.exact_x[s]), "<" if mode == "open" else "<="))
        if s < len(pieces) - 1:
            rs.append(((ONE, -f.exact_x[s + 1]), "<"))
        choices.append((f"s{s}", rs))
    label = yield choices
    a, c = pieces[int(label[1:])]
    return [(a * x[0], c)]


def _mesh(f, d, mode):
    """One decision, the simplex: ``s<k>`` has the rows ``-lambda_i < 0`` (open) or
    ``<= 0`` (exact: closed simplices, which cover the support) for the barycentric
    coordinates of simplex k; then its affine piece."""
    rel = "<" if mode == "open" else "<="
    label = yield [(f"s{k}", [(neg(tuple(row)), rel) for row in g.inverse]) for k, g in enumerate(f.exact_geometry)]
    return [tuple(a) + (c,) for a, c in f.exact_pieces()[int(label[1:])]]


def _score_values(K, Qm, where):
    """Values at 0, e_i of ``sum_j K_j(x) Q_j(x)`` (``K``, ``Qm``: rows of values at the
    points), after checking it is affine (every second difference at 0, e_i, e_i + e_j vanishes)."""
    d = len(K[0]) - 1 if K else 0

    def at(coeffs):  # coeffs: the point as a combination of the columns 0, e_1, .., e_d
        total = ZERO
        for kr, qr in zip(K, Qm):
            kv = sum((c * v for c, v in zip(coeffs, kr)), ZERO)
            qv = sum((c * v for c, v in zip(coeffs, qr)), ZERO)
            total += kv * qv
        return total

    base = [ONE] + [ZERO] * d
    vals = [at(base)]
    for i in range(d):
        e = [ZERO] * (d + 1)
        e[i + 1] = ONE
        vals.append(at(e))
    for i in range(d):
        for j in range(i, d):
            pt = [-ONE] + [ZERO] * d  # e_i + e_j = e_i + e_j - 0, as an affine combination
            pt[i + 1] += ONE
            pt[j + 1] += ONE
            if at(pt) - vals[i + 1] - vals[j + 1] + vals[0] != 0:
                raise CertificateError(f"{where}: the attention score is not affine in x; no polyhedral cells")
    return vals


def _add(A, B):
    """The entrywise sum of two lists of rows."""
    return [[x + y for x, y in zip(r, s)] for r, s in zip(A, B)]


def _transformer(tf, d, mode):
    """The state is one list of ``width`` rows per token, each row a quantity's values at the
    points 0, e_1, .., e_d; matrices act on it by :func:`affine_values`."""
    T, m, n = tf.tokens, tf.width, d + 1
    X = _points(d)
    off = tf.embedding.exact_offsets
    Z = []
    for t in range(T):
        Z.append([[off[i][t]] * n for i in range(m)])
        for k, r in enumerate(tf.embedding.input_rows):
            Z[t][r] = [a + b for a, b in zip(Z[t][r], X[k])]
    for bi, block in enumerate(tf.blocks):
        if block.attention is not None:
            if block.attention.rule != "hardmax":
                raise CertificateError(f"blocks[{bi}]: only hardmax attention has polyhedral cells")
            new = list(Z)
            for h, head in enumerate(block.attention.heads):
                WQ, WK, WV, WO = (weights(M, c) for M, c in zip(head.exact_matrices(), (m, m, m, len(head.exact_WV))))
                Ks = [affine_values(WK, None, Z[s], n) for s in range(T)]
                Qs = [affine_values(WQ, None, Z[t], n) for t in range(T)]
                for t in range(T):
                    S = [_score_values(Ks[s], Qs[t], f"blocks[{bi}].heads[{h}]") for s in range(T)]
                    M = [0]
                    for key in range(1, T):
                        diff = coefficients_of_values([u - v for u, v in zip(S[key], S[M[0]])])
                        label = yield _compare_choices(diff, mode)
                        if label == "=":
                            M.append(key)
                        elif label == ">":
                            M = [key]
                    mean = Z[M[0]]
                    for s in M[1:]:
                        mean = _add(mean, Z[s])
                    w = Q(1, len(M))
                    mixed = affine_values(WO, None, affine_values(WV, None, mean, n), n)
                    new[t] = _add(new[t], [[w * v for v in r] for r in mixed])
            Z = new
        ff = block.feedforward
        if ff is not None:
            W1, W2 = weights(ff.exact_W1, m), weights(ff.exact_W2, ff.hidden)
            out = []
            for t in range(T):
                kept = []
                for z in affine_values(W1, ff.exact_b1, Z[t], n):
                    label = yield _relu_choices(coefficients_of_values(z), mode)
                    kept.append(z if label == "+" else [ZERO] * n)
                out.append(_add(Z[t], affine_values(W2, ff.exact_b2, kept, n)))
            Z = out
    ro = tf.readout
    return [coefficients_of_values(r) for r in affine_values(weights(ro.exact_W, m), ro.exact_b, Z[ro.token], n)]


def interpreter(model, d, mode):
    if model_class(model) == RELU:
        return _relu_net(model, d, mode)
    if model_class(model) == MAXOUT:
        return _maxout_net(model, d, mode)
    if model_class(model) == CPWL1D:
        return _cpwl(model, d, mode)
    if model_class(model) == MESH:
        return _mesh(model, d, mode)
    if model_class(model) == TRANSFORMER:
        return _transformer(model, d, mode)
    raise CertificateError(f"inputs: no cell semantics for models of kind {getattr(model, 'kind', '?')}")


class PathReplay:
    """Both models run on the same input with decisions forced by a path."""

    def __init__(self, models, d, mode):
        self.gens = [interpreter(m, d, mode) for m in models]
        self.k = 0
        self.outputs = []
        self.pending = None
        self._next(None)

    def _next(self, label):
        while self.k < len(self.gens):
            try:
                self.pending = self.gens[self.k].send(label) if label is not None else next(self.gens[self.k])
                return
            except StopIteration as stop:
                self.outputs.append(stop.value)
                self.k += 1
                label = None
        self.pending = None

    def send(self, label):
        self._next(label)


# -- limits ----------------------------------------------------------------------------------


def _bits(*matrices) -> int:
    """Bits a product with these entries can add to a quantity: those of the largest
    numerator plus those of a common denominator (the least one while it stays below 4096
    bits, then the bits of every further distinct denominator added: an upper bound)."""
    top, den, extra, seen = 0, 1, 0, set()
    for M in matrices:
        for r in M:
            for v in (r if isinstance(r, (list, tuple)) else (r,)):
                top = max(top, abs(numerator(v)).bit_length())
                q = denominator(v)
                if q == 1 or q in seen:
                    continue
                seen.add(q)
                if extra or den.bit_length() > 4096:
                    extra += q.bit_length()
                else:
                    den = den * q // gcd(den, q)
    return top + den.bit_length() + extra


def _model_growth(model, d: int) -> tuple:
    """``(bits, operations, decisions)`` of one replay of ``model`` on ``d`` inputs: an
    upper bound on the bits of any numerator or denominator it computes, its arithmetic
    operations, and its number of decisions."""
    p = d + 1
    if model_class(model) == RELU:
        bits, ops, dec = 1, 0, 0
        for layer in model.layers:
            A = layer.affine
            bits += _bits(A.W_rows, A.b_list) + (A.input_dim + 1).bit_length()
            ops += (A.output_dim * A.input_dim + A.output_dim) * p
            dec += A.output_dim if layer.activation == "relu" else 0
        return bits, ops, dec
    if model_class(model) == MAXOUT:
        bits, ops, dec = 1, 0, 0
        for layer in model.layers:
            units = [u.pieces for u in layer.units]
            bits += _bits(*[m.W_rows for m in units], *[m.b_list for m in units]) + \
                (max(m.input_dim for m in units) + 1).bit_length() + 1
            ops += sum((m.output_dim * (m.input_dim + 1) + m.output_dim ** 2) * p for m in units)
            dec += len(units)
        if model.readout is not None:
            A = model.readout
            bits += _bits(A.W_rows, A.b_list) + (A.input_dim + 1).bit_length()
            ops += A.output_dim * (A.input_dim + 1) * p
        return bits, ops, dec
    if model_class(model) == CPWL1D:
        return _bits(model.exact_x, [v for piece in model.exact_pieces() for v in piece]) + 2, \
            4 * len(model.exact_x) + 4, 1
    if model_class(model) == MESH:
        inverses = [v for g in model.exact_geometry for r in g.inverse for v in r]
        pieces = [v for simplex in model.exact_pieces() for a, c in simplex for v in (*a, c)]
        return _bits(inverses, pieces) + 2, (len(inverses) + len(pieces)) * 2 + p, 1
    if model_class(model) == TRANSFORMER:
        return _transformer_growth(model, d)
    raise CertificateError(f"inputs: no cell semantics for models of kind {getattr(model, 'kind', '?')}")


def _transformer_growth(tf, d: int) -> tuple:
    """:func:`_model_growth` of a hardmax Transformer: per block, every head adds the bits
    of its value and output maps, of the width and of the number of tokens averaged; the
    scores, products of two such quantities, are bounded too."""
    T, m, p = tf.tokens, tf.width, d + 1
    bits = _bits(tf.embedding.exact_offsets) + 2
    ops, dec, score_bits = (m * d + m) * p * T, 0, 0
    wbits = (m + 1).bit_length()
    for block in tf.blocks:
        if block.attention is not None:
            added = 0
            for head in block.attention.heads:
                k = len(head.exact_WQ)
                score_bits = max(score_bits, 2 * (bits + _bits(head.exact_WK, head.exact_WQ) + wbits)
                                 + (k + 1).bit_length() + (p + 2).bit_length())
                added += _bits(head.exact_WV, head.exact_WO) + 2 * wbits + (T + 1).bit_length() + 1
                ops += T * (2 * k * m + 2 * m * m) * p + T * T * (k * p * (d * d + 2 * d + 1) + p)
                dec += T * (T - 1)
            bits += added
        ff = block.feedforward
        if ff is not None:
            h = len(ff.exact_W1)
            bits += _bits(ff.exact_W1, ff.exact_b1) + _bits(ff.exact_W2, ff.exact_b2) + wbits + (h + 1).bit_length() + 2
            ops += T * (2 * h * m + h + m) * p
            dec += T * h
    ro = tf.readout
    bits += _bits(ro.exact_W, ro.exact_b) + wbits
    ops += len(ro.exact_W) * (m + 1) * p
    return max(bits, score_bits), ops, dec


def _digits(bits: int) -> int:
    return bits * 30103 // 100000 + 1


def evaluation_bits(model, input_bits: int) -> int:
    """An upper bound on the bits of any numerator or denominator an exact evaluation of
    ``model`` computes at points whose coordinates have ``input_bits`` bits over their common
    denominator (:func:`symrel.exact.sizes.number_bits`): the replay's growth added to the
    points' (a replay's inputs, the vertices ``0, e_1, .., e_d``, have one bit). Cost: one pass
    over the model's numbers."""
    return _model_growth(model, model.input_dim)[0] + input_bits


def growth_digits(model, d: int) -> int:
    """An upper bound on the decimal digits of any numerator or denominator one replay of
    ``model`` on ``d`` inputs computes (depth x digits of the weights x log width).
    Cost: one pass over the model's numbers."""
    return _digits(_model_growth(model, d)[0])


def decisions(models) -> int:
    """The number of decisions of the models run jointly: no path of a certificate is longer."""
    return sum(_model_growth(m, 1)[2] for m in models)


def check_limits(models, d: int, paths: int, where: str = "inputs") -> int:
    """Refuse, before any replay, models whose replay would compute numbers beyond
    :data:`MAX_VALUE_DIGITS` digits, or ``paths`` replays beyond :data:`MAX_REPLAY_WORK`;
    returns the models' number of decisions (the bound on a path's length)."""
    grown = [_model_growth(m, d) for m in models]
    digits = max(_digits(g[0]) for g in grown)
    if digits > MAX_VALUE_DIGITS:
        raise LimitError(f"{where}: the replay would compute numbers of up to {digits} digits (the growth limit: "
                         f"at most {MAX_VALUE_DIGITS} digits, from depth x width x digits of the weights)")
    dec = sum(g[2] for g in grown)
    # a path's prefixes are built and hashed: dec^2 label operations, cheap next to arithmetic
    work = paths * (sum(g[1] for g in grown) * (1 + digits // 1000) + dec * dec // 64)
    if work > MAX_REPLAY_WORK:
        raise LimitError(f"{where}: replaying {paths} paths would take about {work} operations (the work limit: at "
                         f"most {MAX_REPLAY_WORK}, paths x operations per replay x digits)")
    return dec
