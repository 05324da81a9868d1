"""Independent checker of cell-enumeration certificates (claim kinds ``equivalence-cells``
and ``regions``).

Written apart from :mod:`symrel.regions`: it shares nothing with it beyond the
exact layer and the models. It re-derives, from the embedded models and domain
alone, every constraint row of every branch of the decision tree, and checks:

* **support**: for a CPWL mesh function, Farkas vectors put the domain inside the
  half-space of each boundary facet, hence inside the union of its simplices;
* **coverage**: the branches form a complete tree; at every internal node the
  children are exactly the outcomes of that node's decision (ReLU sign, maxout
  winner, segment, simplex, or the comparison of a key with the current argmax
  representative), so the leaves cover the domain (the exact mode: a
  partition, but for a mesh's closed simplices, which overlap on common faces where
  the function has one value; the open mode, allowed only for continuous models: the open cells,
  whose union is dense in the domain, with at least one cell);
* **empty branches**: the Farkas vector ``(row, multiplier)``, in normal form (the
  absolute values add up to 1, and an entry names the first of identical rows, so that no
  recorded number can change alone), is non-negative on
  inequality rows and cancels the x-part, and the constants give
  ``sum mult * const > 0`` (or ``= 0`` with weight on a strict row), which no
  point of the branch can satisfy;
* **cells**: the witness satisfies every row exactly, and the recorded value of
  every row at it is recomputed and compared (so an altered witness fails even
  where it would still lie in the cell); for every output the two
  models' affine maps on the cell are the same form, or the two recorded Farkas
  vectors show that neither ``a > b`` nor ``a < b`` meets the cell.

For ``regions`` (a count of open cells, or of linear regions): the same tree with one
model; the claimed activation count is the number of cells; for a linear count every
merge names two same-map cells, a row of each on one hyperplane from both sides, and a
point of that hyperplane inside both closures with every other non-parallel row
strict (so the common facet has dimension d-1); every same-map pair left apart has,
for every hyperplane the two could share, a Farkas vector for that system or a
parallel row that keeps the closures off it; the count is the number of merged classes.

Here an affine quantity is kept by its values at the ``d + 1`` points ``0, e_1,
.., e_d`` (the prover keeps coefficients), and models run with their decisions
forced; hardmax scores are checked to be affine through second differences.

Decision order and rows (the contract shared with the prover, see
:mod:`symrel.regions.model_to_program`): domain rows first (``a.x - b`` with
``<`` in the open mode, ``<=`` in the exact mode); then per decision, in model
order, stage order, unit/token order: ReLU ``+`` (``-z < 0`` open, ``-z <= 0``
exact) / ``-`` (``z < 0``) / ``0`` (open, z identically 0); maxout winner j
(open: ``l_i - l_j < 0`` for pieces different from l_j, j the first of its
equals; exact: ``l_i - l_j < 0`` for i < j, ``<= 0`` for i > j); segment ``s``
(``x_s - x``, ``x - x_(s+1) < 0``); simplex ``s<k>`` of a mesh (``-lambda_i < 0`` open,
``<= 0`` exact, for its barycentric coordinates); attention compare of key k with the
representative r, ``diff = score_k - score_r``: ``<`` (``diff < 0``), ``=``
(``diff = 0``; in the open mode only when diff is identically 0), ``>``
(``-diff < 0``).
"""

from __future__ import annotations

from ..exact import Q, affine_batch, from_rationals, rational, rows
from ..models import CPWL1D, CPWLMesh, MaxoutNet, ReLUNet, Transformer
from . import CertificateError, at_step, claim_checker

ZERO, ONE = Q(0), Q(1)
CONTINUOUS = (ReLUNet, MaxoutNet, CPWL1D, CPWLMesh)


# -- affine quantities as values at 0, e_1, .., e_d -----------------------------------------


def _coefficients_of_values(values):
    """Coefficients ``(a_1..a_d, c)`` of the affine function with these values."""
    v0 = values[0]
    return tuple(v - v0 for v in values[1:]) + (v0,)


def _neg(f):
    return tuple(-v for v in f)


def _minus(f, g):
    return tuple(a - b for a, b in zip(f, g))


def _points(d):
    """The ``d x (d+1)`` matrix of the points 0, e_1, .., e_d."""
    return from_rationals([[ONE if j == i + 1 else ZERO for j in range(d + 1)] for i in range(d)], (d, d + 1))


def _relu_choices(f, mode):
    if mode == "open":
        if not any(f):
            return [("0", [])]
        return [("+", [(_neg(f), "<")]), ("-", [(f, "<")])]
    return [("+", [(_neg(f), "<=")]), ("-", [(f, "<")])]


def _max_choices(pieces, mode):
    out = []
    for j, lj in enumerate(pieces):
        if mode == "open":
            if lj in pieces[:j]:
                continue
            out.append((str(j), [(_minus(li, lj), "<") for i, li in enumerate(pieces) if i != j and li != lj]))
        else:
            out.append((str(j), [(_minus(li, lj), "<" if i < j else "<=") for i, li in enumerate(pieces) if i != j]))
    return out


def _compare_choices(diff, mode):
    if mode == "open":
        if not any(diff):
            return [("=", [])]
        return [("<", [(diff, "<")]), (">", [(_neg(diff), "<")])]
    return [("<", [(diff, "<")]), ("=", [(diff, "=")]), (">", [(_neg(diff), "<")])]


def _relu_net(net, d, mode):
    V = _points(d)
    for layer in net.layers:
        V = affine_batch(layer.affine.exact_W, layer.affine.exact_b, V)
        if layer.activation == "relu":
            out = []
            for z in rows(V):
                label = yield _relu_choices(_coefficients_of_values(z), mode)
                out.append(z if label == "+" else [ZERO] * (d + 1))
            V = from_rationals(out, V.shape)
    return [_coefficients_of_values(r) for r in rows(V)]


def _maxout_net(net, d, mode):
    V = _points(d)
    for layer in net.layers:
        out = []
        for unit in layer.units:
            P = rows(affine_batch(unit.pieces.exact_W, unit.pieces.exact_b, V))
            label = yield _max_choices([_coefficients_of_values(p) for p in P], mode)
            out.append(P[int(label)])
        V = from_rationals(out, (len(out), d + 1))
    if net.readout is not None:
        V = affine_batch(net.readout.exact_W, net.readout.exact_b, V)
    return [_coefficients_of_values(r) for r in rows(V)]


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
    label = yield [(f"s{k}", [(_neg(tuple(row)), rel) for row in g.inverse]) for k, g in enumerate(f.exact_geometry)]
    return [tuple(a) + (c,) for a, c in f.exact_pieces()[int(label[1:])]]


def _score_values(K, Qm, where):
    """Values at 0, e_i of ``sum_j K_j(x) Q_j(x)``, after checking it is affine
    (every second difference at 0, e_i, e_i + e_j vanishes)."""
    Kr, Qr = rows(K), rows(Qm)
    d = len(Kr[0]) - 1 if Kr else 0

    def at(coeffs):  # coeffs: the point as a combination of the columns 0, e_1, .., e_d
        total = ZERO
        for kr, qr in zip(Kr, Qr):
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


def _transformer(tf, d, mode):
    T, m = tf.tokens, tf.width
    X = _points(d)
    E = [[ZERO] * d for _ in range(m)]
    for k, r in enumerate(tf.embedding.input_rows):
        E[r][k] += ONE
    EX = from_rationals(E, (m, d)) * X
    off = rows(tf.embedding.exact_offsets)
    Z = [EX + from_rationals([[off[i][t]] * (d + 1) for i in range(m)], (m, d + 1)) for t in range(T)]
    for bi, block in enumerate(tf.blocks):
        if block.attention is not None:
            if block.attention.rule != "hardmax":
                raise CertificateError(f"blocks[{bi}]: only hardmax attention has polyhedral cells")
            new = list(Z)
            for h, head in enumerate(block.attention.heads):
                Ks = [head.exact_WK * Z[s] for s in range(T)]
                Qs = [head.exact_WQ * Z[t] for t in range(T)]
                for t in range(T):
                    S = [_score_values(Ks[s], Qs[t], f"blocks[{bi}].heads[{h}]") for s in range(T)]
                    M = [0]
                    for key in range(1, T):
                        diff = _coefficients_of_values([u - v for u, v in zip(S[key], S[M[0]])])
                        label = yield _compare_choices(diff, mode)
                        if label == "=":
                            M.append(key)
                        elif label == ">":
                            M = [key]
                    mean = Z[M[0]]
                    for s in M[1:]:
                        mean = mean + Z[s]
                    new[t] = new[t] + head.exact_WO * (head.exact_WV * mean) * Q(1, len(M))
            Z = new
        ff = block.feedforward
        if ff is not None:
            out = []
            for t in range(T):
                H = affine_batch(ff.exact_W1, ff.exact_b1, Z[t])
                kept = []
                for z in rows(H):
                    label = yield _relu_choices(_coefficients_of_values(z), mode)
                    kept.append(z if label == "+" else [ZERO] * (d + 1))
                out.append(Z[t] + affine_batch(ff.exact_W2, ff.exact_b2, from_rationals(kept, H.shape)))
            Z = out
    ro = tf.readout
    return [_coefficients_of_values(r) for r in rows(affine_batch(ro.exact_W, ro.exact_b, Z[ro.token]))]


def _interpreter(model, d, mode):
    if isinstance(model, ReLUNet):
        return _relu_net(model, d, mode)
    if isinstance(model, MaxoutNet):
        return _maxout_net(model, d, mode)
    if isinstance(model, CPWL1D):
        return _cpwl(model, d, mode)
    if isinstance(model, CPWLMesh):
        return _mesh(model, d, mode)
    if isinstance(model, Transformer):
        return _transformer(model, d, mode)
    raise CertificateError(f"inputs: no cell semantics for models of kind {getattr(model, 'kind', '?')}")


class _PathReplay:
    """Both models run on the same input with decisions forced by a path."""

    def __init__(self, models, d, mode):
        self.gens = [_interpreter(m, d, mode) for m in models]
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


# -- exact checks -----------------------------------------------------------------------------


def _holds(f, rel, x):
    v = f[-1] + sum((a * xi for a, xi in zip(f, x)), ZERO)
    return v < 0 if rel == "<" else (v <= 0 if rel == "<=" else v == 0)


def _check_empty(rows_, farkas, where, first_of_repeats=False):
    if not isinstance(farkas, list) or not farkas:
        raise CertificateError(f"{where}: expected a non-empty Farkas vector")
    n = len(rows_[0][0])
    total = [ZERO] * n
    strict_weight, seen = False, set()
    for k, item in enumerate(farkas):
        idx, value = item
        if isinstance(idx, bool) or not isinstance(idx, int) or not 0 <= idx < len(rows_) or idx in seen:
            raise CertificateError(f"{where}: Farkas entry {k} names no row (or a row twice)")
        seen.add(idx)
        mult = rational(value, path=f"{where}.farkas[{k}]")
        f, rel = rows_[idx]
        if first_of_repeats and (f, rel) in rows_[:idx]:  # a repeated row: the entry names its first occurrence
            raise CertificateError(f"{where}: Farkas entry {k} names row {idx}, a repeat of row "
                                   f"{rows_.index((f, rel))}; name the first")
        if rel != "=" and mult < 0:
            raise CertificateError(f"{where}: negative multiplier on the inequality row {idx}")
        if rel == "<" and mult > 0:
            strict_weight = True
        for i in range(n):
            total[i] += mult * f[i]
    if sum((abs(rational(v, path=where)) for _, v in farkas), ZERO) != 1:
        raise CertificateError(f"{where}: expected a Farkas vector in normal form (absolute values adding up to 1)")
    if any(total[:-1]):
        raise CertificateError(f"{where}: the Farkas combination does not cancel the x-part")
    if not (total[-1] > 0 or (total[-1] == 0 and strict_weight)):
        raise CertificateError(f"{where}: the Farkas combination does not give a contradiction")


def _check_values(rows_, x, recorded, where):
    """The recorded value of every row at the point, recomputed and compared exactly."""
    if not isinstance(recorded, list) or len(recorded) != len(rows_):
        raise CertificateError(f"{where}: expected the value of each of the {len(rows_)} rows at the point")
    for idx, ((f, _), v) in enumerate(zip(rows_, recorded)):
        if f[-1] + sum((a * xi for a, xi in zip(f, x)), ZERO) != rational(v, path=f"{where}.values[{idx}]"):
            raise CertificateError(f"{where}: the recorded value of row {idx} at the point is not its value")


def _check_witness(rows_, entry, where, d):
    x = [rational(v, path=f"{where}.witness[{i}]") for i, v in enumerate(entry["witness"])]
    if len(x) != d:
        raise CertificateError(f"{where}: expected a witness with {d} coordinates")
    for idx, (f, rel) in enumerate(rows_):
        if not _holds(f, rel, x):
            raise CertificateError(f"{where}: the witness violates row {idx}")
    _check_values(rows_, x, entry.get("values"), where)


def _check_equal_maps(rows_, entry, outputs, where):
    fa, fb = outputs
    equal = entry["equal"]
    if len(equal) != len(fa) or len(fa) != len(fb):
        raise CertificateError(f"{where}: expected one entry of 'equal' per output")
    for r, (u, v, eq) in enumerate(zip(fa, fb, equal)):
        g = _minus(u, v)
        if eq is None:
            if any(g):
                raise CertificateError(f"{where}: output {r}: the two affine maps differ on the cell")
            continue
        _check_empty(rows_ + [(_neg(g), "<")], eq["pos"], f"{where}.equal[{r}].pos")
        _check_empty(rows_ + [(g, "<")], eq["neg"], f"{where}.equal[{r}].neg")


def _cover_step(cert, mode):
    at_step(0)
    body = cert["steps"][0]["certificate"]
    if body.get("mode") != mode:
        raise CertificateError("differs from the claim's mode", path="steps[0].certificate.mode")
    return body


def _check_support(models, domain, body):
    """For every CPWL mesh function among the models, the domain lies in its support: for
    each boundary facet (in the model's order), a Farkas vector empties
    ``{x : A x <= b, lambda(x) < 0}`` (lambda the barycentric coordinate of the facet's
    opposite vertex); the intersection of these half-spaces lies in the support, which the
    simplices then cover."""
    meshes = [isinstance(m, CPWLMesh) for m in models]
    recorded = body.get("support")
    if not any(meshes):
        if recorded is not None:
            raise CertificateError("support: recorded, but no model is a CPWL mesh function")
        return
    if not isinstance(recorded, list) or len(recorded) != len(models):
        raise CertificateError(f"support: expected one entry per model ({len(models)}), null for a model that is "
                               "not a CPWL mesh function")
    A, bb = domain.exact_halfspaces()
    closed = [(tuple(r) + (-c,), "<=") for r, c in zip(A, bb)]
    for p, (m, is_mesh, entries) in enumerate(zip(models, meshes, recorded)):
        where = f"support[{p}]"
        if not is_mesh:
            if entries is not None:
                raise CertificateError(f"{where}: expected null (the model is not a CPWL mesh function)")
            continue
        facets = m.support_halfspaces()
        if not isinstance(entries, list) or len(entries) != len(facets):
            raise CertificateError(f"{where}: expected one entry per boundary facet ({len(facets)})")
        for n, ((a, c, k, i), entry) in enumerate(zip(facets, entries)):
            if not isinstance(entry, list) or len(entry) != 3 or entry[:2] != [k, i]:
                raise CertificateError(f"{where}[{n}]: expected [{k}, {i}, farkas] (the boundary facet of simplex {k} "
                                       f"opposite local vertex {i})")
            _check_empty(closed + [(tuple(a) + (c,), "<")], entry[2], f"{where}[{n}]")


def _check_tree(models, domain, mode, branches):
    """Coverage and every branch of the tree (module docstring). Returns, for the
    witness branches in certificate order, ``(branch, rows, outputs per model)``."""
    d = domain.dim
    A, bb = domain.exact_halfspaces()
    root_rows = [(tuple(r) + (-c,), "<" if mode == "open" else "<=") for r, c in zip(A, bb)]
    entries = {}
    for k, e in enumerate(branches):
        path = tuple(e["path"])
        if path in entries:
            raise CertificateError(f"branches[{k}]: the path appears twice")
        entries[path] = (k, e)
    internal = {}
    for path in entries:
        for i in range(len(path)):
            internal.setdefault(path[:i], None)
    clash = [p for p in entries if p in internal]
    if clash:
        raise CertificateError(f"branches: the path {list(clash[0])} is both a leaf and an inner node")
    cells = [tuple(e["path"]) for e in branches if "witness" in e]
    if mode == "open" and not cells:
        raise CertificateError("branches: the open mode needs at least one cell (a full-dimensional domain)")
    checked = set()

    def walk(path, stop_before_last):
        rp = _PathReplay(models, d, mode)
        rows_ = list(root_rows)
        steps_ = len(path) - 1 if stop_before_last else len(path)
        for i in range(steps_ + (1 if stop_before_last else 0)):
            if rp.pending is None:
                raise CertificateError(f"branch {list(path)}: longer than the decisions of the models")
            node = path[:i]
            if internal.get(node) is None:
                internal[node] = [lab for lab, _ in rp.pending]
            by_label = dict(rp.pending)
            # empty siblings hanging off this node
            for lab, rs in rp.pending:
                child = node + (lab,)
                if child in entries and child not in checked and "farkas" in entries[child][1]:
                    _check_empty(rows_ + list(rs), entries[child][1]["farkas"], f"branches[{entries[child][0]}]",
                                 first_of_repeats=True)
                    checked.add(child)
            if path[i] not in by_label:
                raise CertificateError(f"branch {list(path)}: {path[i]!r} is not an outcome of decision {i}")
            rows_ += list(by_label[path[i]])
            if i < len(path) - 1 or not stop_before_last:
                rp.send(path[i])
        return rp, rows_

    out = []
    for path in cells:
        k, e = entries[path]
        rp, rows_ = walk(path, False)
        if rp.pending is not None:
            raise CertificateError(f"branches[{k}]: a cell must decide every decision of the models")
        _check_witness(rows_, e, f"branches[{k}]", d)
        checked.add(path)
        out.append((e, rows_, rp.outputs))
    for path, (k, e) in entries.items():
        if path in checked:
            continue
        if "farkas" not in e:
            raise CertificateError(f"branches[{k}]: expected a witness or a Farkas vector")
        walk(path, True)
        if path not in checked:  # pragma: no cover - walk checks it at its parent
            raise CertificateError(f"branches[{k}]: not reached")
    for node, labels in internal.items():
        if labels is None:
            raise CertificateError(f"branches: the inner node {list(node)} was never reached")
        for lab in labels:
            child = node + (lab,)
            if child not in entries and child not in internal:
                raise CertificateError(f"branches: outcome {lab!r} after {list(node)} is not covered")
    if () not in internal and () not in entries:
        raise CertificateError("branches: the root is not covered")
    return out


@claim_checker("equivalence-cells", rules={"cell-cover"}, order=lambda claim, inputs: ["cell-cover"])
def check_equivalence_cells(cert: dict, inputs: dict) -> None:
    """Verify an ``equivalence-cells`` certificate (module docstring)."""
    a, b, domain = inputs["a"], inputs["b"], inputs["domain"]
    mode = cert["claim"].get("mode")
    if mode not in ("open", "exact"):
        raise CertificateError("claim.mode: expected 'open' or 'exact'")
    if mode == "open" and not all(isinstance(m, CONTINUOUS) for m in (a, b)):
        raise CertificateError("claim.mode: open cells decide only continuous models; hardmax needs the exact mode")
    d = domain.dim
    if a.input_dim != d or b.input_dim != d or a.output_dim != b.output_dim:
        raise CertificateError("inputs: the models and the domain do not fit together")
    body = _cover_step(cert, mode)
    _check_support([a, b], domain, body)
    cells = _check_tree([a, b], domain, mode, body["branches"])
    for k, (e, rows_, outputs) in enumerate(cells):
        _check_equal_maps(rows_, e, outputs, f"cells[{k}]")
    n_empty = sum(1 for e in body["branches"] if "farkas" in e)
    if body.get("cells") != len(cells) or body.get("empty") != n_empty:
        raise CertificateError(f"steps[cell-cover]: the tree has {len(cells)} cells and {n_empty} empty branches, "
                               f"the step says {body.get('cells')} and {body.get('empty')}")


# -- region counts ------------------------------------------------------------------------


def _hyperplane_key(f):
    for a in f[:-1]:
        if a:
            s = abs(a)
            return tuple(v / s for v in f)
    return None


def _offset_on(f, h):
    """If f's x-part is a multiple lam of h's, the constant ``f - lam h``; else None."""
    lam = None
    for a, b in zip(f[:-1], h[:-1]):
        if b:
            lam = a / b if lam is None else lam
            if a != lam * b:
                return None
        elif a:
            return None
    return None if lam is None else f[-1] - lam * h[-1]


def _facet_system(P, Qr, i):
    """Rows of P and Q on the hyperplane of P's row i: that row an equality, the
    others strict, rows parallel to it (read as constants on it) kept as they are."""
    h = P[i][0]
    out = []
    for k, (f, rel) in enumerate(P + Qr):
        if k == i:
            out.append((f, "="))
        elif not any(f[:-1]) or _offset_on(f, h) is not None:
            out.append((f, "parallel"))
        else:
            out.append((f, "<"))
    return out


def _check_facet_rows(P, Qr, ri, rj, where):
    if not (0 <= ri < len(P) and 0 <= rj < len(Qr)):
        raise CertificateError(f"{where}: no such rows")
    kp, kq = _hyperplane_key(P[ri][0]), _hyperplane_key(_neg(Qr[rj][0]))
    if kp is None or kp != kq:
        raise CertificateError(f"{where}: the two rows are not one hyperplane seen from both sides")


def _regions_order(claim, inputs):
    return ["cell-cover"] + (["facet-merge"] if claim.get("count_kind") == "linear" else [])


@claim_checker("regions", rules={"cell-cover", "facet-merge"}, order=_regions_order)
def check_regions(cert: dict, inputs: dict) -> None:
    """Verify a ``regions`` certificate: the open cells (the activation regions), and
    for a linear count the facet merges and the separations of the other same-map pairs."""
    model, domain = inputs["model"], inputs["domain"]
    claim = cert["claim"]
    kind, count = claim.get("count_kind"), claim.get("count")
    if kind not in ("activation", "linear") or isinstance(count, bool) or not isinstance(count, int):
        raise CertificateError("claim: expected count_kind 'activation' or 'linear' and an integer count")
    if model.input_dim != domain.dim:
        raise CertificateError("inputs: the model and the domain do not fit together")
    body = _cover_step(cert, "open")
    _check_support([model], domain, body)
    cells = _check_tree([model], domain, "open", body["branches"])
    if kind == "activation":
        if len(cells) != count:
            raise CertificateError(f"claim.count: {count}, but the certificate has {len(cells)} cells")
        return
    at_step(1)
    merge = cert["steps"][1]["certificate"]
    rows_of = [r for _, r, _ in cells]
    maps = [tuple(o[0]) for _, _, o in cells]
    parent = list(range(len(cells)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def pair(item, where):
        i, j = item["cells"]
        if not (0 <= i < len(cells) and 0 <= j < len(cells)) or i == j:
            raise CertificateError(f"{where}: no such cells")
        if maps[i] != maps[j]:
            raise CertificateError(f"{where}: the two cells carry different affine maps")
        return i, j

    for k, item in enumerate(merge["merges"]):
        where = f"merges[{k}]"
        i, j = pair(item, where)
        ri, rj = item["rows"]
        P, Qr = rows_of[i], rows_of[j]
        _check_facet_rows(P, Qr, ri, rj, where)
        x = [rational(v, path=f"{where}.point") for v in item["point"]]
        if len(x) != domain.dim:
            raise CertificateError(f"{where}: expected a point with {domain.dim} coordinates")
        _check_values(P + Qr, x, item.get("values"), where)
        for idx, (f, rel) in enumerate(_facet_system(P, Qr, ri)):
            ok = _holds(f, "<=" if rel == "parallel" else rel, x)
            if not ok:
                raise CertificateError(f"{where}: the point is not inside the common facet (row {idx})")
        parent[find(j)] = find(i)
    apart = {}
    for k, item in enumerate(merge["apart"]):
        i, j = pair(item, f"apart[{k}]")
        apart[(min(i, j), max(i, j))] = (k, i, item)
    regions = len({find(i) for i in range(len(cells))})
    if regions != count:
        raise CertificateError(f"claim.count: {count}, but the merges leave {regions} regions")
    for i in range(len(cells)):
        for j in range(i + 1, len(cells)):
            if maps[i] != maps[j] or find(i) == find(j):
                continue
            if (i, j) not in apart:
                raise CertificateError(f"facet-merge: cells {i} and {j} carry the same map and nothing keeps them apart")
            k, first, item = apart[(i, j)]
            P, Qr = (rows_of[i], rows_of[j]) if first == i else (rows_of[j], rows_of[i])
            given = {}
            for h in item["hyperplanes"]:
                _check_facet_rows(P, Qr, h["rows"][0], h["rows"][1], f"apart[{k}]")
                given[_hyperplane_key(P[h["rows"][0]][0])] = h
            wanted = {_hyperplane_key(f) for f, _ in P} & {_hyperplane_key(_neg(f)) for f, _ in Qr}
            wanted.discard(None)
            for key in wanted:
                if key not in given:
                    raise CertificateError(f"apart[{k}]: a hyperplane the two cells could share is not ruled out")
                h = given[key]
                system = _facet_system(P, Qr, h["rows"][0])
                if "parallel" in h:
                    idx = h["parallel"]
                    f, rel = system[idx]
                    if rel != "parallel" or _offset_on(f, P[h["rows"][0]][0]) is None \
                            or not _offset_on(f, P[h["rows"][0]][0]) > 0:
                        raise CertificateError(f"apart[{k}]: row {idx} does not keep the closures off the hyperplane")
                    continue
                strict_rows = [(f, rel) if rel != "parallel" else (f, "skip") for f, rel in system]
                _check_empty_on(strict_rows, h["farkas"], f"apart[{k}]")


def _check_empty_on(rows_, farkas, where):
    """As :func:`_check_empty`, refusing multipliers on rows marked "skip"."""
    for idx, _ in farkas:
        if isinstance(idx, int) and 0 <= idx < len(rows_) and rows_[idx][1] == "skip":
            raise CertificateError(f"{where}: the Farkas vector uses a row parallel to the hyperplane")
    _check_empty([(f, "<=" if rel == "skip" else rel) for f, rel in rows_], farkas, where)
