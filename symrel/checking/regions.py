"""Independent checker of cell-enumeration certificates (claim kinds ``equivalence-cells``
and ``regions``).

Written apart from :mod:`symrel.regions`: it shares nothing with it beyond the
exact layer and the models. It re-derives, from the embedded models and domain
alone (:mod:`symrel.checking.cell_replay` runs them), every constraint row of every
branch of the decision tree, and checks:

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
model; the claimed activation count is the number of cells. A linear count counts the
connected components of the set of interior points of D near which f is affine
(docs/theory.md, "Linear regions"; claim ``definition: "locally-affine"``, which a
hardmax Transformer's certificate must state; for a continuous model it is the old count
and may be left out). For a linear count every merge names two same-map cells, a row of
each on one hyperplane H from both sides, and a point of H inside both closures with
every other non-parallel row strict (so the common facet has dimension d-1); for a model
that is not continuous the merge also gives the tie-aware (exact mode) path of that point:
its rows hold there, its equalities vanish on H, its other rows not constant on H are
strict there, and its map equals the cells' map on H, so f is affine near the point.
Every same-map pair left apart has, for every hyperplane the two could share, a Farkas
vector for that system, a parallel row that keeps the closures off it, or (not
continuous) ``jumps``: a tree of exact-mode decisions over the relatively open common
facet whose every leaf is empty once its rows not constant on H are made strict (no
(d-1)-dimensional part), lower-dimensional (an equality row not vanishing on H) or carries
a map that differs from the cells' map on H; so no point of the facet has a neighbourhood
on which f is affine. The count is the number of merged classes.

Every field is read strictly (:mod:`symrel.checking.read`: one type per field, indices
in range, no index twice, no unknown key), and the size of the replay is bounded before
it starts (:func:`symrel.checking.cell_replay.check_limits`: path lengths, the growth
of numbers, the work).

Decision order and rows (the contract shared with the prover, see
:mod:`symrel.regions.program_to_decisions`): domain rows first (``a.x - b`` with
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

from ..exact import Q
from ..exact.sizes import common_denominator_bits
from . import CertificateError, MalformedCertificate, at_step, claim_checker, model_class
from .cell_replay import CONTINUOUS, MESH, PathReplay, check_limits, minus, neg
from .read import array, index, indices, integer, natural, rational, rationals, record, string

ZERO = Q(0)
#: the claim's name of the linear count symrel makes (docs/theory.md, "Linear regions")
DEFINITION = "locally-affine"


def _fail(where: str, message: str) -> CertificateError:
    return CertificateError(message, path=where)


# -- exact checks -----------------------------------------------------------------------------


def _value(f, x):
    return f[-1] + sum((a * xi for a, xi in zip(f, x)), ZERO)


def _holds(f, rel, x):
    v = _value(f, x)
    return v < 0 if rel == "<" else (v <= 0 if rel == "<=" else v == 0)


def _check_empty(rows_, farkas, where, first_of_repeats=False):
    """``farkas`` (read strictly at ``where``) empties the system ``rows_``."""
    entries = array(farkas, where)
    if not entries:
        raise MalformedCertificate("expected a non-empty Farkas vector", path=where)
    n = len(rows_[0][0])
    total = [ZERO] * n
    strict_weight, seen, size = False, set(), ZERO
    first, terms = {}, []
    if first_of_repeats and len(rows_) > 256:  # many rows: one hash each, not a scan per entry
        for k, row in enumerate(rows_):
            first.setdefault(row, k)
    for k, item in enumerate(entries):
        here = f"{where}[{k}]"
        pair = array(item, here, length=2)
        idx = index(pair[0], len(rows_), f"{here}[0]")
        if idx in seen:
            raise MalformedCertificate(f"expected a row not named before, got row {idx} again", path=f"{here}[0]")
        seen.add(idx)
        mult = rational(pair[1], f"{here}[1]")
        f, rel = rows_[idx]
        if first_of_repeats:  # a repeated row: the entry names its first occurrence
            j = first[rows_[idx]] if first else rows_.index(rows_[idx])
            if j != idx:
                raise _fail(here, f"Farkas entry {k} names row {idx}, a repeat of row {j}; name the first")
        if rel != "=" and mult < 0:
            raise _fail(here, f"negative multiplier on the inequality row {idx}")
        if rel == "<" and mult > 0:
            strict_weight = True
        terms.append((mult, f))
    # the multipliers' common denominator, bounded before they are added up (symrel.exact.sizes)
    common_denominator_bits([mult for mult, _ in terms], where=where, what="the multipliers' common denominator")
    for mult, f in terms:
        size += abs(mult)
        for i in range(n):
            total[i] += mult * f[i]
    if size != 1:
        raise _fail(where, "expected a Farkas vector in normal form (absolute values adding up to 1)")
    if any(total[:-1]):
        raise _fail(where, "the Farkas combination does not cancel the x-part")
    if not (total[-1] > 0 or (total[-1] == 0 and strict_weight)):
        raise _fail(where, "the Farkas combination does not give a contradiction")


def _check_values(rows_, x, recorded, where):
    """The recorded value of every row at the point, recomputed and compared exactly."""
    values = rationals(recorded, where, length=len(rows_))
    for idx, ((f, _), v) in enumerate(zip(rows_, values)):
        if _value(f, x) != v:
            raise _fail(f"{where}[{idx}]", f"the recorded value of row {idx} at the point is not its value")


def _check_witness(rows_, entry, where, d):
    x = rationals(entry["witness"], f"{where}.witness", length=d)
    # the rows' values at x have x's common denominator: bounded first (symrel.exact.sizes)
    common_denominator_bits(x, where=f"{where}.witness", what="the witness's common denominator")
    for idx, (f, rel) in enumerate(rows_):
        if not _holds(f, rel, x):
            raise _fail(f"{where}.witness", f"the witness violates row {idx}")
    _check_values(rows_, x, entry["values"], f"{where}.values")


def _check_equal_maps(rows_, entry, outputs, where):
    fa, fb = outputs
    equal = array(entry["equal"], f"{where}.equal", length=len(fa))
    if len(fa) != len(fb):
        raise _fail(f"{where}.equal", "expected one entry of 'equal' per output")
    for r, (u, v, eq) in enumerate(zip(fa, fb, equal)):
        here = f"{where}.equal[{r}]"
        g = minus(u, v)
        if eq is None:
            if any(g):
                raise _fail(here, f"output {r}: the two affine maps differ on the cell")
            continue
        record(eq, here, keys=("pos", "neg"))
        _check_empty(rows_ + [(neg(g), "<")], eq["pos"], f"{here}.pos")
        _check_empty(rows_ + [(g, "<")], eq["neg"], f"{here}.neg")


def _check_support(models, domain, body, where):
    """For every CPWL mesh function among the models, the domain lies in its support: for
    each boundary facet (in the model's order), a Farkas vector empties
    ``{x : A x <= b, lambda(x) < 0}`` (lambda the barycentric coordinate of the facet's
    opposite vertex); the intersection of these half-spaces lies in the support, which the
    simplices then cover."""
    meshes = [model_class(m) == MESH for m in models]
    where = f"{where}.support"
    if not any(meshes):
        if "support" in body:
            raise _fail(where, "recorded, but no model is a CPWL mesh function")
        return
    if "support" not in body:
        raise MalformedCertificate(f"expected one entry per model ({len(models)})", path=where)
    recorded = array(body["support"], where, length=len(models))
    A, bb = domain.exact_halfspaces()
    closed = [(tuple(r) + (-c,), "<=") for r, c in zip(A, bb)]
    for p, (m, is_mesh, entries) in enumerate(zip(models, meshes, recorded)):
        here = f"{where}[{p}]"
        if not is_mesh:
            if entries is not None:
                raise MalformedCertificate("expected null (the model is not a CPWL mesh function)", path=here)
            continue
        facets = m.support_halfspaces()
        entries = array(entries, here, length=len(facets))
        for n, ((a, c, k, i), entry) in enumerate(zip(facets, entries)):
            entry = array(entry, f"{here}[{n}]", length=3)
            if [integer(entry[0], f"{here}[{n}][0]"), integer(entry[1], f"{here}[{n}][1]")] != [k, i]:
                raise _fail(f"{here}[{n}]", f"expected [{k}, {i}, farkas] (the boundary facet of simplex {k} "
                                            f"opposite local vertex {i})")
            _check_empty(closed + [(tuple(a) + (c,), "<")], entry[2], f"{here}[{n}][2]")


# -- the decision tree ------------------------------------------------------------------------


def _read_branches(branches, where, bound, leaf_keys):
    """The branches as ``{path: (k, entry)}``, each read strictly: a ``path`` of at most
    ``bound`` labels (the models' decisions), then either ``farkas`` or the leaf's keys."""
    entries = {}
    for k, e in enumerate(array(branches, where)):
        here = f"{where}[{k}]"
        record(e, here, keys=("path",), optional=("farkas",) + leaf_keys)
        labels = array(e["path"], f"{here}.path")
        if len(labels) > bound:
            raise MalformedCertificate(f"expected a path of at most {bound} outcomes (the decisions of the models), "
                                       f"got {len(labels)}", path=f"{here}.path")
        path = tuple(string(v, f"{here}.path[{i}]") for i, v in enumerate(labels))
        if path in entries:
            raise _fail(here, f"the path {list(path)} appears twice (as branches[{entries[path][0]}])")
        if "farkas" in e and any(key in e for key in leaf_keys):
            raise MalformedCertificate(f"expected either a Farkas vector or {', '.join(leaf_keys)}, not both",
                                       path=here)
        entries[path] = (k, e)
    return entries


def _check_tree(models, d, mode, root_rows, branches, where, bound, leaf_keys, empty_rows=None):
    """Coverage and every empty branch of the tree (module docstring) below ``root_rows``.
    Returns, for the branches without ``farkas`` in certificate order, ``(k, branch,
    rows, outputs per model)``; each such branch decides every decision. ``empty_rows``
    maps a branch's rows to the system its Farkas vector must empty (default: as they are);
    the Farkas vector is in normal form over that system, naming first rows. Cost: one
    replay per branch."""
    entries = _read_branches(branches, where, bound, leaf_keys)
    internal = {}
    for path in entries:
        for i in range(len(path)):
            internal.setdefault(path[:i], None)
    clash = [p for p in entries if p in internal]
    if clash:
        raise _fail(where, f"the path {list(clash[0])} is both a leaf and an inner node")
    checked = set()

    def walk(path, stop_before_last):
        rp = PathReplay(models, d, mode)
        rows_ = list(root_rows)
        for i in range(len(path)):
            if rp.pending is None:
                raise _fail(f"{where}[{entries[path][0]}].path", f"branch {list(path)}: longer than the decisions "
                                                                  "of the models")
            node = path[:i]
            if internal.get(node) is None:
                internal[node] = [lab for lab, _ in rp.pending]
            by_label = dict(rp.pending)
            for lab, rs in rp.pending:  # empty siblings hanging off this node
                child = node + (lab,)
                if child in entries and child not in checked and "farkas" in entries[child][1]:
                    system = rows_ + list(rs)
                    here = f"{where}[{entries[child][0]}].farkas"
                    if empty_rows is None:
                        _check_empty(system, entries[child][1]["farkas"], here, first_of_repeats=True)
                    else:
                        _check_empty(empty_rows(system), entries[child][1]["farkas"], here, first_of_repeats=True)
                    checked.add(child)
            if path[i] not in by_label:
                raise _fail(f"{where}[{entries[path][0]}].path[{i}]",
                            f"branch {list(path)}: {path[i]!r} is not an outcome of decision {i}")
            rows_ += list(by_label[path[i]])
            if i < len(path) - 1 or not stop_before_last:
                rp.send(path[i])
        return rp, rows_

    out = []
    for path, (k, e) in entries.items():
        if "farkas" in e:
            continue
        rp, rows_ = walk(path, False)
        if rp.pending is not None:
            raise _fail(f"{where}[{k}]", "a cell must decide every decision of the models")
        checked.add(path)
        out.append((k, e, rows_, rp.outputs))
    for path, (k, e) in entries.items():
        if path in checked:
            continue
        if not path:
            raise _fail(f"{where}[{k}]", "the root cannot be empty by a Farkas vector of no decision")
        walk(path, True)
        if path not in checked:  # pragma: no cover - walk checks it at its parent
            raise _fail(f"{where}[{k}]", "not reached")
    for node, labels in internal.items():
        if labels is None:
            raise _fail(where, f"the inner node {list(node)} was never reached")
        for lab in labels:
            child = node + (lab,)
            if child not in entries and child not in internal:
                raise _fail(where, f"outcome {lab!r} after {list(node)} is not covered")
    if () not in internal and () not in entries:
        raise _fail(where, "the root is not covered")
    return sorted(out, key=lambda leaf: leaf[0])


def _replay_path(models, d, mode, root_rows, path, where):
    """The rows and outputs of one complete path (no tree): each label an outcome of its
    decision, every decision made."""
    rp = PathReplay(models, d, mode)
    rows_ = list(root_rows)
    for i, label in enumerate(path):
        if rp.pending is None:
            raise _fail(where, "longer than the decisions of the models")
        by_label = dict(rp.pending)
        if label not in by_label:
            raise _fail(f"{where}[{i}]", f"{label!r} is not an outcome of decision {i}")
        rows_ += list(by_label[label])
        rp.send(label)
    if rp.pending is not None:
        raise _fail(where, "the path must decide every decision of the models")
    return rows_, rp.outputs


def _domain_rows(domain, mode):
    A, bb = domain.exact_halfspaces()
    return [(tuple(r) + (-c,), "<" if mode == "open" else "<=") for r, c in zip(A, bb)]


def _cover_step(cert, mode, keys, optional):
    at_step(0)
    body = record(cert["steps"][0]["certificate"], "steps[0].certificate", keys=keys, optional=optional)
    if string(body["mode"], "steps[0].certificate.mode") != mode:
        raise _fail("steps[0].certificate.mode", "differs from the claim's mode")
    return body


@claim_checker("equivalence-cells", rules={"cell-cover"}, order=lambda claim, inputs: ["cell-cover"])
def check_equivalence_cells(cert: dict, inputs: dict) -> None:
    """Verify an ``equivalence-cells`` certificate (module docstring)."""
    a, b, domain = inputs["a"], inputs["b"], inputs["domain"]
    mode = string(cert["claim"].get("mode"), "claim.mode", choices=("open", "exact"))
    if mode == "open" and not all(model_class(m) in CONTINUOUS for m in (a, b)):
        raise _fail("claim.mode", "open cells decide only continuous models; hardmax needs the exact mode")
    d = domain.dim
    if a.input_dim != d or b.input_dim != d or a.output_dim != b.output_dim:
        raise _fail("inputs", "the models and the domain do not fit together")
    where = "steps[0].certificate"
    body = _cover_step(cert, mode, ("mode", "branches", "cells", "empty"), ("support",))
    branches = array(body["branches"], f"{where}.branches")
    bound = check_limits([a, b], d, paths=len(branches), where=where)
    _check_support([a, b], domain, body, where)
    cells = _check_tree([a, b], d, mode, _domain_rows(domain, mode), branches, f"{where}.branches", bound,
                        ("witness", "values", "equal"))
    if mode == "open" and not cells:
        raise _fail(f"{where}.branches", "the open mode needs at least one cell (a full-dimensional domain)")
    for k, e, rows_, outputs in cells:
        here = f"{where}.branches[{k}]"
        record(e, here, keys=("path", "witness", "values", "equal"))
        _check_witness(rows_, e, here, d)
        _check_equal_maps(rows_, e, outputs, here)
    n_empty = len(branches) - len(cells)
    if natural(body["cells"], f"{where}.cells") != len(cells) or natural(body["empty"], f"{where}.empty") != n_empty:
        raise _fail(where, f"the tree has {len(cells)} cells and {n_empty} empty branches, "
                           f"the step says {body['cells']} and {body['empty']}")


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


def _constant_on(f, h):
    """Whether the form f is constant on the hyperplane ``h = 0``."""
    return not any(f[:-1]) or _offset_on(f, h) is not None


def _vanishes_on(f, h):
    """Whether the form f is 0 on the whole hyperplane ``h = 0``."""
    return not any(f) or (_offset_on(f, h) == 0)


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


def _check_facet_rows(P, Qr, rows_item, where):
    pair = array(rows_item, where, length=2)
    ri, rj = index(pair[0], len(P), f"{where}[0]"), index(pair[1], len(Qr), f"{where}[1]")
    kp, kq = _hyperplane_key(P[ri][0]), _hyperplane_key(neg(Qr[rj][0]))
    if kp is None or kp != kq:
        raise _fail(where, "the two rows are not one hyperplane seen from both sides")
    # normal form: the first row of each cell on that hyperplane, so that no index can change alone
    first_p = next(k for k, (f, _) in enumerate(P) if _hyperplane_key(f) == kp)
    first_q = next(k for k, (f, _) in enumerate(Qr) if _hyperplane_key(neg(f)) == kp)
    if (ri, rj) != (first_p, first_q):
        raise _fail(where, f"expected the first rows of the two cells on the hyperplane, [{first_p}, {first_q}]")
    return ri, rj


def _regions_order(claim, inputs):
    return ["cell-cover"] + (["facet-merge"] if claim.get("count_kind") == "linear" else [])


def _listed_paths(cert) -> int:
    """The number of paths the certificate lists (branches, merge paths, jump branches):
    the replays its check makes. Counted before anything is checked, shapes read loosely
    (the strict reading comes with the check)."""
    def listed(obj, key):
        found = obj.get(key) if isinstance(obj, dict) else None
        return found if isinstance(found, list) else []

    steps = cert["steps"]
    total = len(listed(steps[0]["certificate"], "branches"))
    merge = steps[1]["certificate"] if len(steps) > 1 else {}
    total += sum(isinstance(item, dict) and "facet_path" in item for item in listed(merge, "merges"))
    for item in listed(merge, "apart"):
        total += sum(len(listed(h, "jumps")) for h in listed(item, "hyperplanes"))
    return total


@claim_checker("regions", rules={"cell-cover", "facet-merge"}, order=_regions_order)
def check_regions(cert: dict, inputs: dict) -> None:
    """Verify a ``regions`` certificate: the open cells (the activation regions), and
    for a linear count the facet merges and the separations of the other same-map pairs."""
    model, domain = inputs["model"], inputs["domain"]
    claim = cert["claim"]
    kind = string(claim.get("count_kind"), "claim.count_kind", choices=("activation", "linear"))
    count = natural(claim.get("count"), "claim.count")
    continuous = model_class(model) in CONTINUOUS
    if "definition" in claim:
        string(claim["definition"], "claim.definition", choices=(DEFINITION,))
        if kind != "linear":
            raise MalformedCertificate("expected no definition: an activation count has one meaning",
                                       path="claim.definition")
    elif kind == "linear" and not continuous:
        raise _fail("claim.definition", f"a linear count of a model that is not continuous (hardmax is discontinuous "
                                        f"at ties) must say which count it is: expected definition {DEFINITION!r} "
                                        "(docs/theory.md, linear regions)")
    d = domain.dim
    if model.input_dim != d:
        raise _fail("inputs", "the model and the domain do not fit together")
    where = "steps[0].certificate"
    body = _cover_step(cert, "open", ("mode", "branches"), ("support",))
    branches = array(body["branches"], f"{where}.branches")
    bound = check_limits([model], d, paths=_listed_paths(cert), where=where)
    _check_support([model], domain, body, where)
    cells = _check_tree([model], d, "open", _domain_rows(domain, "open"), branches, f"{where}.branches", bound,
                        ("witness", "values"))
    if not cells:
        raise _fail(f"{where}.branches", "the open mode needs at least one cell (a full-dimensional domain)")
    for k, e, rows_, _ in cells:
        record(e, f"{where}.branches[{k}]", keys=("path", "witness", "values"))
        _check_witness(rows_, e, f"{where}.branches[{k}]", d)
    if kind == "activation":
        if len(cells) != count:
            raise _fail("claim.count", f"{count}, but the certificate has {len(cells)} cells")
        return
    at_step(1)
    _check_linear_count(cert, model, domain, [(rows_, outputs[0]) for _, _, rows_, outputs in cells], count,
                        continuous, bound)


def _check_linear_count(cert, model, domain, cells, count, continuous, bound):
    """The ``facet-merge`` step: merges join same-map cells into classes, the ``apart``
    entries show that no other same-map pair is joined; the classes are ``count``."""
    where = "steps[1].certificate"
    merge = record(cert["steps"][1]["certificate"], where, keys=("merges", "apart"))
    rows_of = [r for r, _ in cells]
    maps = [tuple(o) for _, o in cells]
    parent = list(range(len(cells)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def pair(item, here):
        i, j = indices(array(item["cells"], f"{here}.cells", length=2), len(cells), f"{here}.cells")
        if maps[i] != maps[j]:
            raise _fail(f"{here}.cells", "the two cells carry different affine maps")
        return i, j

    merge_keys = ("cells", "rows", "point", "values") + (() if continuous else ("facet_path",))
    for k, item in enumerate(array(merge["merges"], f"{where}.merges")):
        here = f"{where}.merges[{k}]"
        record(item, here, keys=merge_keys)
        i, j = pair(item, here)
        P, Qr = rows_of[i], rows_of[j]
        ri, _ = _check_facet_rows(P, Qr, item["rows"], f"{here}.rows")
        x = rationals(item["point"], f"{here}.point", length=domain.dim)
        _check_values(P + Qr, x, item["values"], f"{here}.values")
        for idx, (f, rel) in enumerate(_facet_system(P, Qr, ri)):
            if not _holds(f, "<=" if rel == "parallel" else rel, x):
                raise _fail(f"{here}.point", f"the point is not inside the common facet (row {idx})")
        if not continuous:
            _check_affine_near(model, domain, P[ri][0], maps[i], x, item["facet_path"], bound, f"{here}.facet_path")
        parent[find(j)] = find(i)
    regions = len({find(i) for i in range(len(cells))})
    if regions != count:
        raise _fail("claim.count", f"{count}, but the merges leave {regions} regions")
    apart = {}
    for k, item in enumerate(array(merge["apart"], f"{where}.apart")):
        here = f"{where}.apart[{k}]"
        record(item, here, keys=("cells", "hyperplanes"))
        i, j = pair(item, here)
        key = (min(i, j), max(i, j))
        if key in apart:
            raise MalformedCertificate(f"expected each pair once; cells {i} and {j} are already apart[{apart[key][0]}]",
                                       path=f"{here}.cells")
        if find(i) == find(j):
            raise _fail(f"{here}.cells", f"cells {i} and {j} are merged into one region: nothing to keep apart")
        apart[key] = (k, i, item)
    _check_all_apart(maps, find, apart, where)
    for (i, j), (k, first, item) in sorted(apart.items(), key=lambda kv: kv[1][0]):
        P, Qr = (rows_of[i], rows_of[j]) if first == i else (rows_of[j], rows_of[i])
        _check_apart(model, domain, P, Qr, maps[i], item, continuous, bound, f"{where}.apart[{k}]")


def _check_all_apart(maps, find, apart, where):
    """Every same-map pair of cells in two regions is listed apart: the pairs are counted
    first (group by map, then by region), so the check costs the listed pairs, not the square
    of the cells."""
    groups: dict = {}
    for i, m in enumerate(maps):
        groups.setdefault(m, []).append(i)
    needed = 0
    for members in groups.values():
        sizes: dict = {}
        for i in members:
            sizes[find(i)] = sizes.get(find(i), 0) + 1
        needed += len(members) * (len(members) - 1) // 2 - sum(s * (s - 1) // 2 for s in sizes.values())
    if needed == len(apart):
        return
    for members in groups.values():  # stops at the first pair missing: at most len(apart) + 1 pairs looked at
        for a, i in enumerate(members):
            for j in members[a + 1:]:
                if find(i) != find(j) and (i, j) not in apart:
                    raise _fail(f"{where}.apart", f"cells {i} and {j} carry the same map and nothing keeps them apart")
    raise AssertionError("unreachable: counted pairs and listed pairs differ")  # pragma: no cover


def _check_apart(model, domain, P, Qr, L, item, continuous, bound, where):
    """For every hyperplane the closures of the cells P and Q could share, evidence that
    no point of their common facet has a neighbourhood on which f is affine."""
    given = {}
    hyperplanes = array(item["hyperplanes"], f"{where}.hyperplanes")
    options = ("farkas", "parallel") + (() if continuous else ("jumps",))
    for n, h in enumerate(hyperplanes):
        here = f"{where}.hyperplanes[{n}]"
        record(h, here, keys=("rows",), optional=options)
        if sum(key in h for key in options) != 1:
            raise MalformedCertificate(f"expected exactly one of {', '.join(options)}", path=here)
        ri, _ = _check_facet_rows(P, Qr, h["rows"], f"{here}.rows")
        key = _hyperplane_key(P[ri][0])
        if key in given:
            raise MalformedCertificate(f"expected each hyperplane once; the same as hyperplanes[{given[key][0]}]",
                                       path=f"{here}.rows")
        given[key] = (n, ri, h)
    wanted = {_hyperplane_key(f) for f, _ in P} & {_hyperplane_key(neg(f)) for f, _ in Qr}
    wanted.discard(None)
    for key in wanted:
        if key not in given:
            raise _fail(f"{where}.hyperplanes", "a hyperplane the two cells could share is not ruled out")
        n, ri, h = given[key]
        here = f"{where}.hyperplanes[{n}]"
        hf = P[ri][0]
        system = _facet_system(P, Qr, ri)
        if "parallel" in h:
            idx = index(h["parallel"], len(system), f"{here}.parallel")
            f, rel = system[idx]
            off = _offset_on(f, hf) if any(f[:-1]) else f[-1]
            if rel != "parallel" or off is None or not off > 0:
                raise _fail(f"{here}.parallel", f"row {idx} does not keep the closures off the hyperplane")
        elif "farkas" in h:
            for m, entry in enumerate(array(h["farkas"], f"{here}.farkas")):
                if isinstance(entry, list) and entry and type(entry[0]) is int and 0 <= entry[0] < len(system) \
                        and system[entry[0]][1] == "parallel":
                    raise _fail(f"{here}.farkas[{m}]", "the Farkas vector uses a row parallel to the hyperplane")
            _check_empty([(f, "<=" if rel == "parallel" else rel) for f, rel in system], h["farkas"], f"{here}.farkas")
        else:
            _check_jumps(model, domain, hf, L, system, h["jumps"], bound, f"{here}.jumps")


def _strict_off(hf):
    """The rows of a system on the hyperplane ``hf = 0`` made strict where they are not
    constant on it: empty iff the system has no (d-1)-dimensional part there."""
    def strict(rows_):
        return [(f, rel) if rel == "=" or _constant_on(f, hf) else (f, "<") for f, rel in rows_]
    return strict


def _check_jumps(model, domain, hf, L, system, branches, bound, where):
    """A tree of exact-mode decisions over the common facet (``system``: the hyperplane an
    equality, the cells' other rows strict; the rows constant on the hyperplane are left out,
    which only widens the set the tree covers) whose every leaf has no
    (d-1)-dimensional part or a map other than ``L`` on the hyperplane: f jumps across the
    facet, or is not affine along it, at every point (module docstring)."""
    root = [(f, rel) for f, rel in system if rel != "parallel"]  # constants on the hyperplane: left out (widens)
    leaves = _check_tree([model], domain.dim, "exact", root, branches, where, bound, ("lower", "differs"),
                         empty_rows=_strict_off(hf))
    for k, e, rows_, outputs in leaves:
        here = f"{where}[{k}]"
        if ("lower" in e) == ("differs" in e):
            raise MalformedCertificate("expected exactly one of farkas, lower, differs", path=here)
        if "lower" in e:
            idx = index(e["lower"], len(rows_), f"{here}.lower")
            f, rel = rows_[idx]
            if rel != "=" or _vanishes_on(f, hf):
                raise _fail(f"{here}.lower", f"row {idx} is not an equality that cuts the hyperplane")
        else:
            r = index(e["differs"], len(L), f"{here}.differs")
            if _vanishes_on(minus(outputs[0][r], L[r]), hf):
                raise _fail(f"{here}.differs", f"output {r} of the leaf equals the cells' map on the hyperplane")


def _check_affine_near(model, domain, hf, L, x, facet_path, bound, where):
    """f is affine near the point x of the facet (on ``hf = 0``): the exact-mode path of x
    holds there, its equalities vanish on the hyperplane, its other rows not constant on it
    are strict at x (so the path's cell holds a neighbourhood of x in the hyperplane), and
    its map is ``L`` on the hyperplane."""
    labels = array(facet_path, where)
    if len(labels) > bound:
        raise MalformedCertificate(f"expected a path of at most {bound} outcomes (the decisions of the model), "
                                   f"got {len(labels)}", path=where)
    path = [string(v, f"{where}[{i}]") for i, v in enumerate(labels)]
    rows_, outputs = _replay_path([model], domain.dim, "exact", _domain_rows(domain, "exact"), path, where)
    for idx, (f, rel) in enumerate(rows_):
        if not _holds(f, rel, x):
            raise _fail(where, f"the point is not in the path's cell (row {idx})")
        if rel == "=" and not _vanishes_on(f, hf):
            raise _fail(where, f"row {idx}, an equality, cuts the hyperplane: the path's cell is not a facet")
        if rel != "=" and not _constant_on(f, hf) and not _holds(f, "<", x):
            raise _fail(where, f"row {idx} is tight at the point: the path's cell may not hold a neighbourhood of it")
    for r, (u, v) in enumerate(zip(outputs[0], L)):
        if not _vanishes_on(minus(u, v), hf):
            raise _fail(where, f"output {r} on the facet differs from the cells' map: f is not affine across it")


# -- what a checked certificate proves (symrel.checking.claims) ----------------------------
from .claims import claim_statement, domain_words, model_words  # noqa: E402  (the hooks below the checkers)


@claim_statement("equivalence-cells", keys=("mode",), inputs=("a", "b", "domain"))
def cells_statement(claim, inputs) -> str:
    """For all x in D, a(x) = b(x), decided cell by cell (the claim's mode)."""
    return (f"for all x in D, a(x) = b(x), where a is {model_words(inputs['a'])}, b is {model_words(inputs['b'])} "
            f"and D is {domain_words(inputs['domain'])}, decided on every cell of D ({claim['mode']} mode)")


@claim_statement("regions", keys=("count_kind", "count"), optional=("definition",), inputs=("model", "domain"))
def regions_statement(claim, inputs) -> str:
    """The model has exactly ``count`` regions of the claim's kind (and definition) over D."""
    meaning = f" (definition {claim['definition']!r}, docs/theory.md)" if "definition" in claim else ""
    return (f"the model ({model_words(inputs['model'])}) has exactly {claim['count']} {claim['count_kind']} "
            f"regions{meaning} over D = {domain_words(inputs['domain'])}")
