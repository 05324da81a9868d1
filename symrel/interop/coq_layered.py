"""vnnlib-unsat certificates of layered nets -> ``Instance.v`` for Coq's kernel (docs/coq.md,
"Layered nets in Coq").

The net is written in the terms of ``Layered.v`` (``LAffine D rows b``: integer weights and
biases over the op's common denominator ``D``; ``LRelu``; ``LMax groups``) through the
decoders of ``LayeredData.v``, so that a convolution's 93,312 weights are a few patterns
and offsets: the rows of an affine op are blocks of consecutive rows sharing one pattern (a
row's weights with its columns counted from its first column) at their own column offsets,
a pattern a list of runs of consecutive columns; biases are runs of equal values; groups are
patterns of runs of consecutive indices at offsets. A property's atoms are sparse vectors
(``satom``). The steps are ``(box, hints, tree)``: the hints name, for every input, an atom
of the disjunct giving its lower and its upper bound. Nothing is decided here: the
certificate's numbers are written as they are, so a tampered certificate gives an
``Instance.v`` that ``coqc`` rejects (at ``checked``).

Cost: linear in the size of the certificate and the net.

>>> coq_blocks([[(0, 3), (1, 5)], [(1, 3), (2, 5)], [(4, 1)]])    # two rows of one pattern, one of another
'[([(0%N, [3; 5])], [(0%N, 2%N, 1%N)]); ([(0%N, [1])], [(4%N, 1%N, 0%N)])]'
>>> coq_runs([7, 7, 7, -1])
'[(3%N, 7); (1%N, (-1))]'
"""

from __future__ import annotations

from math import lcm

from ..errors import InputError
from ..exact import rational
from .coq import LAYERED_LIBRARY, LOGICAL

__all__ = ["LAYERED_LIBRARY", "coq_layered_net", "coq_ltree", "instance_text"]

#: a list literal longer than this is written as chunks joined by ``++`` (coqc's parser
#: overflows its stack on a list of some 100,000 items)
CHUNK = 1000


def _need(cond, message, path):
    if not cond:
        raise InputError(message, path=path)


def _list(items) -> str:
    items = list(items)
    if len(items) <= CHUNK:
        return "[" + "; ".join(items) + "]"
    return "(" + " ++ ".join("[" + "; ".join(items[k:k + CHUNK]) + "]" for k in range(0, len(items), CHUNK)) + ")"


def _n(i) -> str:
    """A natural number as ``N`` (the instance's numbers are ``Z`` by default)."""
    return f"{i}%N"


def _q(v, path) -> str:
    """A rational as ``(num # den)`` (``Z_scope`` is the default in ``Instance.v``)."""
    try:
        v = rational(v)
    except (InputError, ValueError, TypeError, ZeroDivisionError):
        raise InputError(f"expected an exact rational, got {v!r}", path=path) from None
    return f"({int(v.numerator)} # {int(v.denominator)})"


def _z(v) -> str:
    return str(v) if v >= 0 else f"({v})"


def coq_runs(values) -> str:
    """Integers as ``(count, value)`` runs (``LayeredData.ints_of``)."""
    runs = []
    for v in values:
        if runs and runs[-1][1] == v:
            runs[-1][0] += 1
        else:
            runs.append([1, v])
    return _list(f"({_n(c)}, {_z(v)})" for c, v in runs)


def progressions(values) -> list:
    """Integers as progressions ``(start, count, step)`` (``LayeredData.offsets_of``), each as long
    as it goes on.

    >>> progressions([0, 1, 2, 28, 29, 30, 5])
    [(0, 3, 1), (28, 3, 1), (5, 1, 0)]
    """
    out = []
    k = 0
    while k < len(values):
        if k + 1 < len(values) and values[k + 1] >= values[k]:
            d = values[k + 1] - values[k]
            m = 2
            while k + m < len(values) and values[k + m] - values[k + m - 1] == d:
                m += 1
            out.append((values[k], m, d))
            k += m
        else:
            out.append((values[k], 1, 0))
            k += 1
    return out


def _offsets(offs) -> str:
    return _list(f"({_n(c)}, {_n(m)}, {_n(d)})" for c, m, d in progressions(offs))


def _pattern(row):
    """``(offset, runs)`` of a row of ``(column, integer)`` pairs: the columns counted from the
    first, cut into runs of consecutive columns."""
    if not row:
        return 0, ()
    off = row[0][0]
    runs = []
    for j, w in row:
        if runs and runs[-1][0] + len(runs[-1][1]) == j - off:
            runs[-1][1].append(w)
        else:
            runs.append((j - off, [w]))
    return off, tuple((c, tuple(ws)) for c, ws in runs)


def coq_blocks(rows) -> str:
    """Rows of ``(column, integer)`` pairs as ``LayeredData.rows_of`` blocks: consecutive rows
    with one pattern, each at its offset."""
    blocks = []
    for row in rows:
        off, pat = _pattern(row)
        if blocks and blocks[-1][0] == pat:
            blocks[-1][1].append(off)
        else:
            blocks.append((pat, [off]))
    return _list(f"({_list(f'({_n(c)}, {_list(_z(w) for w in ws)})' for c, ws in pat)}, {_offsets(offs)})"
                 for pat, offs in blocks)


def _group_pattern(group):
    off = min(group)
    runs = []
    for j in group:
        if runs and runs[-1][0] + runs[-1][1] == j - off:
            runs[-1][1] += 1
        else:
            runs.append([j - off, 1])
    return off, tuple(tuple(r) for r in runs)


def coq_group_blocks(groups) -> str:
    """Groups as ``LayeredData.groups_of`` blocks (each group's order kept)."""
    blocks = []
    for g in groups:
        off, pat = _group_pattern(g)
        if blocks and blocks[-1][0] == pat:
            blocks[-1][1].append(off)
        else:
            blocks.append((pat, [off]))
    return _list(f"({_list(f'({_n(c)}, {_n(m)})' for c, m in pat)}, {_offsets(offs)})" for pat, offs in blocks)


def coq_op(op) -> str:
    if op.op == "relu":
        return "LRelu"
    if op.op == "max":
        return f"(LMax (groups_of {coq_group_blocks(op.groups)}))"
    D = 1
    for row in op.rows:
        for _, w in row:
            D = lcm(D, int(w.denominator))
    for c in op.b:
        D = lcm(D, int(c.denominator))
    rows = [[(j, int(w.numerator) * (D // int(w.denominator))) for j, w in row if w] for row in op.rows]
    b = [int(c.numerator) * (D // int(c.denominator)) for c in op.b]
    return f"(LAffine {D} (rows_of {coq_blocks(rows)}) (ints_of {coq_runs(b)}))"


def coq_layered_net(net) -> str:
    return f"{{| ln_input := {net.input_dim}; ln_ops := {_list(coq_op(op) for op in net.ops)} |}}"


def _sparse(v, path) -> str:
    return _list(f"({_n(j)}, {_q(a, f'{path}[{j}]')})" for j, a in enumerate(v) if rational(a) != 0)


def coq_satom(a, n, m, path) -> str:
    """An atom over ``n_in`` inputs and ``n_out`` outputs (the instance defines both: a ``nat``
    literal is unary in Coq)."""
    _need(isinstance(a, dict) and {"x", "y", "rhs"} <= set(a) and isinstance(a["x"], list) and len(a["x"]) == n
          and isinstance(a["y"], list) and len(a["y"]) == m, f"expected an atom {{x, y, rhs}} over {n} inputs and "
          f"{m} outputs", path)
    return (f"satom n_in n_out {_sparse(a['x'], path + '.x')} {_sparse(a['y'], path + '.y')} "
            f"{_q(a['rhs'], path + '.rhs')}")


def coq_sdnf(d, n, m, path) -> str:
    _need(isinstance(d, list) and all(isinstance(c, list) for c in d), "expected a list of lists of atoms", path)
    return _list(_list(coq_satom(a, n, m, f"{path}[{k}][{j}]") for j, a in enumerate(conj))
                 for k, conj in enumerate(d))


def hints(conj, lo, hi, path) -> str:
    """For each input ``i``, the positions of an atom of the disjunct that gives ``lo_i`` (``a_i <
    0``, ``r <= a_i lo_i``) and of one that gives ``hi_i`` (``a_i > 0``, ``r <= a_i hi_i``), as
    ``VnnCheck.gives_lower`` and ``gives_upper`` read them."""
    single = {}
    for j, a in enumerate(conj):
        if any(rational(c) != 0 for c in a["y"]):
            continue
        nz = [(i, rational(c)) for i, c in enumerate(a["x"]) if rational(c) != 0]
        if len(nz) == 1:
            single.setdefault(nz[0][0], []).append((j, nz[0][1], rational(a["rhs"])))
    out = []
    for i, (l, h) in enumerate(zip(lo, hi)):
        l, h = rational(l), rational(h)
        low = next((j for j, q, r in single.get(i, ()) if q < 0 and r <= q * l), None)
        up = next((j for j, q, r in single.get(i, ()) if q > 0 and r <= q * h), None)
        _need(low is not None and up is not None, f"expected atoms of the disjunct bounding input {i} by the box",
              f"{path}.box")
        out.append(f"({_n(low)}, {_n(up)})")
    return _list(out)


def _idx(v, path, below=None) -> int:
    _need(type(v) is int and v >= 0 and (below is None or v < below),
          "expected an index" + ("" if below is None else f" below {below}"), path)
    return v


def _items(v, path, length=None) -> list:
    _need(isinstance(v, list) and (length is None or len(v) == length),
          "expected a list" + ("" if length is None else f" of {length} items"), path)
    return v


def _close(c, path) -> str:
    _need(isinstance(c, dict) and isinstance(c.get("atom"), list) and len(c["atom"]) == 2
          and c["atom"][0] in ("unsafe", "region") and type(c["atom"][1]) is int and c["atom"][1] >= 0,
          'expected {"atom": ["unsafe" or "region", k], "bound": b}', path)
    beta = _list(_q(v, f"{path}.beta[{j}]") for j, v in enumerate(_items(c.get("beta", []), f"{path}.beta")))
    lam = _list(_list(_q(v, f"{path}.lambda[{j}][{m}]") for m, v in enumerate(_items(lst, f"{path}.lambda[{j}]")))
                for j, lst in enumerate(_items(c.get("lambda", []), f"{path}.lambda")))
    alpha, piece, hull = [], [], []
    for r, item in enumerate(_items(c.get("alpha", []), f"{path}.alpha")):
        w = f"{path}.alpha[{r}]"
        k, i, a = _items(item, w, 3)
        alpha.append(f"({_idx(k, w + '[0]')}%nat, {_n(_idx(i, w + '[1]'))}, {_q(a, w + '[2]')})")
    for r, item in enumerate(_items(c.get("piece", []), f"{path}.piece")):
        w = f"{path}.piece[{r}]"
        k, g, p = _items(item, w, 3)
        piece.append(f"({_idx(k, w + '[0]')}%nat, {_n(_idx(g, w + '[1]'))}, {_idx(p, w + '[2]')}%nat)")
    for r, item in enumerate(_items(c.get("hull", []), f"{path}.hull")):
        w = f"{path}.hull[{r}]"
        k, i, coef, cc = _items(item, w, 4)
        line = _list(_q(a, f"{w}[2][{m}]") for m, a in enumerate(_items(coef, w + "[2]")))
        hull.append(f"({_idx(k, w + '[0]')}%nat, {_n(_idx(i, w + '[1]'))}, {line}, {_q(cc, w + '[3]')})")
    region = "true" if c["atom"][0] == "region" else "false"
    return (f"Build_lclose {region} {_n(c['atom'][1])} {_q(c.get('bound'), path + '.bound')} {beta} {lam} "
            f"{_list(alpha)} {_list(piece)} {_list(hull)}")


def coq_ltree(tree, net, m_unsafe, path) -> str:
    """The preorder tree as a nested ``ltree`` term (LayeredCheck.v): ``split``, ``relu``, ``max``
    (one part per position of the group), ``each_unsafe`` (one part per unsafe disjunct), a leaf
    (``None`` for ``empty``), and ``empty`` (an empty box)."""
    _need(isinstance(tree, list) and tree, "expected a non-empty list of tree entries", path)
    pos = 0

    def forest(parts):
        out = "FNil"
        for t in reversed(parts):
            out = f"(FCons {t} {out})"
        return out

    def node() -> str:
        nonlocal pos
        _need(pos < len(tree), "the tree ends with nodes still to cover", path)
        e, ew = tree[pos], f"{path}[{pos}]"
        pos += 1
        _need(isinstance(e, dict), "expected a tree entry", ew)
        if "split" in e:
            i = _idx(e["split"], f"{ew}.split")
            at = _q(e.get("at"), f"{ew}.at")
            return f"(LSplit {i}%nat {at} {node()} {node()})"
        if "relu" in e:
            k, i = _items(e["relu"], f"{ew}.relu", 2)
            k, i = _idx(k, f"{ew}.relu[0]", len(net.ops)), _idx(i, f"{ew}.relu[1]")
            return f"(LRSplit {k}%nat {_n(i)} {node()} {node()})"
        if "max" in e:
            k, g = _items(e["max"], f"{ew}.max", 2)
            k = _idx(k, f"{ew}.max[0]", len(net.ops))
            _need(net.ops[k].op == "max", f"expected a max op, got op {k} ({net.ops[k].op})", f"{ew}.max[0]")
            g = _idx(g, f"{ew}.max[1]", len(net.ops[k].groups))
            return f"(LMSplit {k}%nat {_n(g)} {forest([node() for _ in net.ops[k].groups[g]])})"
        if "each_unsafe" in e:
            _need(e["each_unsafe"] == m_unsafe and type(e["each_unsafe"]) is int,
                  f"expected the number of unsafe disjuncts, {m_unsafe}", f"{ew}.each_unsafe")
            return f"(LEach {forest([node() for _ in range(m_unsafe)])})"
        if "empty" in e:
            return f"(LEmpty {_idx(e['empty'], f'{ew}.empty')}%nat)"
        _need(isinstance(e.get("leaf"), dict), "expected split, relu, max, each_unsafe, leaf or empty", ew)
        leaf, lw = e["leaf"], f"{ew}.leaf"
        rf = []
        for r, item in enumerate(_items(leaf.get("refine", []), f"{lw}.refine")):
            rw = f"{lw}.refine[{r}]"
            k, es = _items(item, rw, 2)
            entries = _list(_n(_idx(i, f"{rw}[1][{m}]")) for m, i in enumerate(_items(es, f"{rw}[1]")))
            rf.append(f"({_idx(k, rw + '[0]')}%nat, {entries})")
        if "empty" in leaf:
            return f"(LLeaf {_list(rf)} None)"
        closes = _items(leaf.get("closes"), f"{lw}.closes")
        return f"(LLeaf {_list(rf)} (Some {_list(_close(c, f'{lw}.closes[{u}]') for u, c in enumerate(closes))}))"

    t = node()
    _need(pos == len(tree), f"unexpected entries after the tree's last leaf ({len(tree) - pos} more)", f"{path}[{pos}]")
    return t


def instance_text(cert: dict) -> str:
    """``Instance.v`` for a vnnlib-unsat certificate of a layered net (its JSON object)."""
    from ..fileformat import from_json

    claim = cert.get("claim") if isinstance(cert, dict) else None
    _need(isinstance(claim, dict) and claim.get("kind") == "vnnlib-unsat",
          'expected a vnnlib-unsat certificate (claim.kind "vnnlib-unsat")', "claim.kind")
    net_entry = (cert.get("inputs") or {}).get("network") if isinstance(cert.get("inputs"), dict) else None
    _need(isinstance(net_entry, dict) and "object" in net_entry, "expected the input network", "inputs.network")
    net = from_json(net_entry["object"])
    _need(net.kind == "layered", "expected a layered net (kind layered)", "inputs.network.object.kind")
    prop = claim.get("property")
    _need(isinstance(prop, dict), "expected the property", "claim.property")
    n_in, n_out = prop.get("inputs"), prop.get("outputs")
    _need(type(n_in) is int and n_in >= 0 and type(n_out) is int and n_out >= 0,
          "expected the numbers of inputs and outputs", "claim.property")
    region, unsafe = prop.get("input_region"), prop.get("unsafe")
    _need(isinstance(region, list) and isinstance(unsafe, list), "expected input_region and unsafe", "claim.property")
    # Layered.v reads an atom of the region over X and Y alike: the format allows atoms over X only there
    for d, conj in enumerate(region):
        for k, a in enumerate(conj):
            _need(isinstance(a, dict) and isinstance(a.get("y"), list) and all(rational(v) == 0 for v in a["y"]),
                  "expected an atom over X alone", f"claim.property.input_region[{d}][{k}].y")
    region_text = coq_sdnf(region, n_in, n_out, "claim.property.input_region")
    unsafe_text = coq_sdnf(unsafe, n_in, n_out, "claim.property.unsafe")
    steps = cert.get("steps")
    _need(isinstance(steps, list) and len(steps) == len(region), "expected one step per input disjunct", "steps")
    coq_steps = []
    for d, step in enumerate(steps):
        where = f"steps[{d}].certificate"
        data = step.get("certificate") if isinstance(step, dict) else None
        _need(isinstance(data, dict) and isinstance(data.get("box"), dict), "expected a box and a tree", where)
        lo, hi = data["box"].get("lower"), data["box"].get("upper")
        _need(isinstance(lo, list) and isinstance(hi, list) and len(lo) == len(hi) == n_in,
              f"expected lists lower and upper of {n_in} numbers", f"{where}.box")
        box = _list(f"({_q(a, f'{where}.box.lower[{i}]')}, {_q(b, f'{where}.box.upper[{i}]')})"
                    for i, (a, b) in enumerate(zip(lo, hi)))
        hint = hints(region[d], lo, hi, where)
        coq_steps.append(f"({box},\n  {hint},\n  {coq_ltree(data.get('tree'), net, len(unsafe), where + '.tree')})")
    lines = [
        "(* Instance.v, written by symrel export-coq: a vnnlib-unsat certificate of a layered net",
        "   replayed by Coq's kernel. The claim is stated in Layered.v's terms (layered_unsat,",
        "   eval_layered), the net and the property decoded by LayeredData.v;",
        "   LayeredSound.check_layered_sound turns the checker's true into the claim. *)",
        "From Coq Require Import QArith ZArith NArith List.",
        f"From {LOGICAL} Require Import Semantics VnnProp Layered LayeredData LayeredCheck LayeredSound.",
        "Import ListNotations.",
        "Open Scope Q_scope.",
        "Open Scope Z_scope.",
        "",
        f"Definition net : LNet := {coq_layered_net(net)}.",
        "",
        f"Definition n_in : nat := {n_in}.",
        f"Definition n_out : nat := {n_out}.",
        "",
        f"Definition prop : Property := {{| p_inputs := n_in;\n"
        f"  p_region := {region_text};\n"
        f"  p_unsafe := {unsafe_text} |}}.",
        "",
        "Definition steps : list (Box * list (N * N) * ltree) := [" + ";\n".join(coq_steps) + "].",
        "",
        "(* computed once, by the kernel's VM at Qed (false: the Qed fails) *)",
        "Lemma checked : check_layered net prop steps = true.",
        "Proof. vm_cast_no_check (eq_refl true). Qed.",
        "",
        "(* no input x of the region has outputs eval_layered net x meeting the unsafe condition *)",
        "Theorem claim : layered_unsat net prop.",
        "Proof. exact (check_layered_sound net prop steps checked). Qed.",
    ]
    return "\n".join(lines) + "\n"
