"""Independent checker of equivalence certificates ("for all x in D, A(x) = B(x)").

Written apart from :mod:`symrel.prover`: it shares nothing with it beyond the exact
layer (:mod:`symrel.exact`) and the models' structure (:mod:`symrel.models`). It replays
both models symbolically over the box D, step by step, using each step's record only
to know *which* rule was used, and recomputes every number the step asserts:

* variables and max nodes: every declared node's terms reference earlier variables and
  its range is recomputed (``[max lo, max hi]`` of its terms over the variables' box);
* a max in normal form: the terms computed here, minus the dropped ones, are exactly the
  node's terms (rule ``max-scale-shift``: exactly ``c u + k`` for the node's terms u, with
  the recorded ``c > 0`` and k, and the result is ``c y + k``); each dropped term has the
  recorded exact lower bound of ``kept - dropped`` over the box, and that bound is >= 0;
* ReLU signs: the recorded lower (upper) bound is the exact minimum (maximum) over the
  box and is >= 0 (<= 0); pairs ``c ReLU(z) + c' ReLU(-z) = c z + (c + c') max(0, -z)``
  have opposite pre-activations; a ReLU of undetermined sign is the node ``max(0, z)``;
* hardmax heads: ``value = alpha * score + beta`` coefficient by coefficient (then the
  head returns ``alpha * max + beta``), or an argmax set with the recorded positive margins;
* every intermediate state (Transformer), layer output and read-out is compared with the
  recorded forms; the final outputs of A and B are the same forms;
* a CPWL function equals its lattice form at the recorded points, which are recomputed
  (ends of D, breakpoints, crossings of pieces);
* a CPWL function on a mesh: the box lies in the half-space of every boundary facet (the
  exact minima are recomputed), and on every simplex the recorded lattice form has a term
  with every piece ``>= f`` and, in every term, a piece (or the recorded convex
  combination) ``<= f``, at the simplex's vertices (the table of pieces minus vertex values
  is recomputed); the recorded lattice form is then replayed as a two-layer maxout net.

Any altered number, form or index makes the check fail with a message naming the step.
"""

from __future__ import annotations

import itertools
from math import gcd, isqrt

from ..errors import SymrelError
from ..exact import Q, flat, from_rationals, rational, rational_ints, rows
from ..fileformat.trusted import read_input
from ..models import CPWL1D, Box, CPWLMesh, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet, Transformer
from . import CertificateError, at_step, claim_checker
from .kernel import (ONE, ZERO_FORM, bounds, lower_bound, upper_bound, combine, constant, key, neg, pair, read_form, single_var, to_q,
                     var)

RULES = {"domain-box", "maxout-unit-normal-form", "linear-identity", "relu-fixed-sign", "cpwl-lattice-check",
         "embedding", "hardmax-max-head", "drop-dominated", "hardmax-argmax-set", "relu-pair-identity",
         "relu-as-max-node", "cpwl-mesh-lattice", "hardmax-select", "node-cells", "max-scale-shift"}

ZERO = Q(0)
ONE_Q = Q(1)
MINUS_ONE = (-1, 1)


class _ProofReplay:
    """The variables of the proof (ranges, nodes) and the step cursor."""

    def __init__(self, steps, box):
        self.steps = steps
        self.pos = 0
        self.ranges = list(box)
        self.dim = len(box)
        self.node_terms: dict[int, list] = {}
        self.node_of: dict[tuple, int] = {}
        self.node_keys: dict[int, set] = {}  # the term keys of each node, computed once
        self.drops = 0  # terms dropped from a max as dominated (rule drop-dominated)
        self.scaled = 0  # maxes that are c y + k for an earlier node y (rule max-scale-shift)
        self.node_select: dict[int, tuple] = {}   # select nodes: (scores, values)

    # steps
    def next(self, rule=None, model=None):
        if self.pos >= len(self.steps):
            raise CertificateError(f"ends after {len(self.steps)} steps; the argument needs a step next", path="steps")
        step = self.steps[self.pos]
        self.here = f"steps[{self.pos}]"
        self.where = ""  # the field being checked, inside the step (named on failure)
        at_step(self.pos)
        if rule is not None and step.get("rule") != rule:
            self.fail(f"expected rule {rule!r} here, got {step.get('rule')!r}", ".rule")
        cert = step.get("certificate")
        if not isinstance(cert, dict):
            self.fail("certificate missing")
        if model is not None and cert.get("model") != model:
            self.fail(f"expected a step of model {model!r}, got {cert.get('model')!r}")
        self.pos += 1
        return cert

    def fail(self, msg, field=None):
        where = self.where if field is None else field
        if isinstance(where, tuple):   # (format, values): formatted only on failure
            where = where[0].format(*where[1:])
        raise CertificateError(msg, path=self.here + where)

    def expect_rule(self, parts, scaled_before=None):
        """The step just read names exactly the rules its records used (``a+b``, in the prover's order);
        with ``scaled_before`` (the count of scaled maxes before the step), ``max-scale-shift`` last
        when the step's records hold a scaled max."""
        if scaled_before is not None and self.scaled > scaled_before:
            parts = list(parts) + ["max-scale-shift"]
        want = "+".join(parts) or "linear-identity"
        got = self.steps[self.pos - 1].get("rule")
        if got != want:
            self.fail(f"the records use the rules {want!r}, the step names {got!r}", ".rule")

    # exact bounds
    def bounds(self, f, end=None):
        """The exact range of the form f over the variables' box (``end`` 0 or 1: only its
        lower or upper end)."""
        try:
            return bounds(f, self.ranges) if end is None else (lower_bound, upper_bound)[end](f, self.ranges)
        except IndexError as err:
            self.fail(f"variable y{err.args[0]} is not defined here")

    # nodes
    def declare(self, cert):
        for k, nd in enumerate(cert.get("nodes", [])):
            self.where = f".certificate.nodes[{k}]"
            nid = nd["id"]
            if nid != len(self.ranges):
                self.fail(f"node id {nid}: expected the next id {len(self.ranges)}")
            terms = [read_form(t) for t in nd["terms"]]
            if "scores" in nd:       # a select node: values averaged over the argmax set of scores
                scores = [read_form(t) for t in nd["scores"]]
                if len(scores) != len(terms) or not terms:
                    self.fail(f"node y{nid}: a select node needs one value per score")
                sel = ("select", tuple(key(t) for t in scores), tuple(key(t) for t in terms))
                if sel in self.node_of:
                    self.fail(f"node y{nid}: an existing node declared again")
                for t in scores:
                    self.bounds(t)
                rs = [self.bounds(t) for t in terms]
                rng = (min(lo for lo, _ in rs), max(hi for _, hi in rs))
                if (rational(nd["range"][0]), rational(nd["range"][1])) != rng:
                    self.fail(f"node y{nid}: range {nd['range']} differs from the recomputed [{rng[0]}, {rng[1]}]")
                self.ranges.append(rng)
                self.node_select[nid] = (scores, terms)
                self.node_of[sel] = nid
                continue
            if len(terms) < 2:
                self.fail(f"node y{nid}: a max node needs two terms or more")
            keys = tuple(sorted(key(t) for t in terms))
            if len(set(keys)) != len(keys) or keys in self.node_of:
                self.fail(f"node y{nid}: repeated terms or an existing node declared again")
            rs = [self.bounds(t) for t in terms]
            rng = (max(lo for lo, _ in rs), max(hi for _, hi in rs))
            if (rational(nd["range"][0]), rational(nd["range"][1])) != rng:
                self.fail(f"node y{nid}: range {nd['range']} differs from the recomputed [{rng[0]}, {rng[1]}]")
            self.ranges.append(rng)
            self.node_terms[nid] = terms
            self.node_keys[nid] = set(keys)
            self.node_of[keys] = nid

    def max_of(self, raw, facts):
        """Check a max in normal form against the recorded facts; returns the result form."""
        raw_keys = {key(t): t for t in raw}
        result = read_form(facts["result"])
        dropped = [(read_form(d[0]), int(d[1]), rational(d[2])) for d in facts["dropped"]]
        dropped_keys = {key(d) for d, _, _ in dropped}
        kept_keys = set(raw_keys) - dropped_keys
        if len(dropped_keys) != len(dropped) or not dropped_keys <= set(raw_keys):
            self.fail("a dropped term is not among the terms of the max (or is repeated)")
        scale = facts.get("scale")
        if len(kept_keys) == 1:
            kept = [raw_keys[next(iter(kept_keys))]]
            if result != kept[0] or scale is not None:
                self.fail("the max of a single kept term is not that term")
        elif scale is None:
            v = single_var(result)
            if v not in self.node_terms:
                self.fail("the result of a max of several terms is not a node")
            kept = self.node_terms[v]
            if self.node_keys[v] != kept_keys:
                self.fail(f"node y{v} does not have the kept terms of this max")
        else:   # max-scale-shift: the kept terms are c u + k for the terms u of node y_v, so the max is c y_v + k
            c, k = rational_ints(scale[0]), rational_ints(scale[1])
            if c[0] <= 0 or (c == ONE and k == (0, 1)):
                self.fail(f"scale {scale}: expected c > 0 and not the identity (c, k) = (1, 0)", ".scale")
            v = next(iter(result[2])) if len(result[2]) == 1 else None
            if v not in self.node_terms or combine([(c, var(v))], k) != result:
                self.fail(f"the result of a scaled max is not {to_q(c)} * node + {to_q(k)}")
            kept = [combine([(c, u)], k) for u in self.node_terms[v]]
            if {key(t) for t in kept} != kept_keys:
                self.fail(f"node y{v} scaled by {to_q(c)} and shifted by {to_q(k)} does not give the kept terms "
                          "of this max")
            self.scaled += 1
        for d, i, bound in dropped:
            if not 0 <= i < len(kept):
                self.fail("a dominating term index is out of range")
            lows = [self.bounds(combine([(ONE, k), (MINUS_ONE, d)]), 0) for k in kept[: i + 1]]
            if lows[i] != bound or lows[i] < 0:
                self.fail(f"dominance bound {bound} differs from the exact lower bound {lows[i]} (or is negative)")
            if any(lo >= 0 for lo in lows[:i]):
                self.fail(f"kept term {i} is not the first kept term that dominates the dropped one")
            self.drops += 1
        return result

    def relu(self, z, rec):
        kind = rec[0]
        if kind == "+":
            lo = self.bounds(z, 0)
            if lo != rational(rec[1]) or lo < 0:
                self.fail(f"ReLU lower bound {rec[1]} differs from the exact {lo} (or is negative)")
            return z
        if kind == "-":
            hi = self.bounds(z, 1)
            if hi != rational(rec[1]) or hi > 0:
                self.fail(f"ReLU upper bound {rec[1]} differs from the exact {hi} (or is positive)")
            return ZERO_FORM
        if kind == "node":
            return self.max_of([ZERO_FORM, z], rec[1])
        self.fail(f"unknown ReLU record {kind!r}")

    def compare(self, got, recorded, what):
        self.where = ".certificate.outputs"
        if len(got) != len(recorded) or any(g != read_form(r) for g, r in zip(got, recorded)):
            self.fail(f"{what} differ from the recomputed forms")


def _int_rows(M):
    """A matrix's rows as their nonzero ``(column, (p, q))`` entries (read once per matrix)."""
    return [[(j, pair(a)) for j, a in enumerate(row) if a] for row in (M if isinstance(M, list) else rows(M))]


def _add_sparse(u, v):
    """The sum of two sparse vectors of pairs (as :func:`_int_rows` rows)."""
    out = dict(u)
    for j, (p, q) in v:
        a, b = out.get(j, (0, 1))
        n, d = a * q + p * b, b * q
        g = gcd(n, d)
        out[j] = (n // g, d // g)
    return sorted((j, a) for j, a in out.items() if a[0])


def _int_vector(b):
    return [pair(a) for a in (b if isinstance(b, list) else flat(b))]


def _affine(W, b, cur):
    """``W cur + b`` for ``W`` as :func:`_int_rows` and ``b`` as :func:`_int_vector`."""
    return [combine([(a, cur[j]) for j, a in row], c) for row, c in zip(W, b)]


# -- the models ---------------------------------------------------------------------------
def _maxout(net, R, name):
    layers = [[(_int_rows(u.pieces.exact_W), _int_vector(u.pieces.exact_b)) for u in layer.units] for layer in net.layers]
    readout = (_int_rows(net.readout.exact_W), _int_vector(net.readout.exact_b)) if net.readout is not None else None
    return _maxout_layers(layers, readout, net.input_dim, R, name)


def _maxout_layers(layers, readout, input_dim, R, name):
    """Replay the layers of a maxout net, each a list of units ``(W, b)`` (their pieces as
    :func:`_int_rows`, :func:`_int_vector`), then the read-out ``(W, b)`` or None."""
    cur = [var(i) for i in range(input_dim)]
    for li, layer in enumerate(layers):
        rule = R.steps[R.pos].get("rule") if R.pos < len(R.steps) and isinstance(R.steps[R.pos], dict) else None
        scaled = R.scaled
        cert = R.next(rule if rule == "maxout-unit-normal-form+max-scale-shift" else "maxout-unit-normal-form", name)
        if cert.get("layer") != li or len(cert["units"]) != len(layer):
            R.fail(f"expected layer {li} with {len(layer)} units")
        R.declare(cert)
        terms = [_affine(W, b, cur) for W, b in layer]
        cur = []
        for u, (raw, facts) in enumerate(zip(terms, cert["units"])):
            R.where = (".certificate.units[{}]", u)
            cur.append(R.max_of(raw, facts))
        R.expect_rule(["maxout-unit-normal-form"], scaled)
    if readout is not None:
        cert = R.next("linear-identity", name)
        cur = _affine(*readout, cur)
        R.compare(cur, cert["outputs"], "read-out forms")
    return cur


def _relu(net, R, name):
    cur = [var(i) for i in range(net.input_dim)]
    for li, layer in enumerate(net.layers):
        rule = R.steps[R.pos].get("rule") if R.pos < len(R.steps) and isinstance(R.steps[R.pos], dict) else None
        scaled = R.scaled
        want = "linear-identity" if layer.activation != "relu" else (
            rule if rule == "relu-fixed-sign+max-scale-shift" else "relu-fixed-sign")
        cert = R.next(want, name)
        if cert.get("layer") != li:
            R.fail(f"expected layer {li}")
        R.declare(cert)
        pre = _affine(_int_rows(layer.affine.exact_W), _int_vector(layer.affine.exact_b), cur)
        if layer.activation == "relu":
            if len(cert["units"]) != len(pre):
                R.fail("one ReLU record per unit expected")
            cur = []
            for u, (z, rec) in enumerate(zip(pre, cert["units"])):
                R.where = (".certificate.units[{}]", u)
                cur.append(R.relu(z, rec))
            R.expect_rule(["relu-fixed-sign"], scaled)
        else:
            cur = pre
        R.compare(cur, cert["outputs"], f"layer {li} forms")
    return cur


def _check_lattice(f, g, R):
    """g is a lattice form ``max_i min_{j in S_i} l_j`` of pieces l_j of f: layer 1 has
    units ``max_{j in S_i} (-l_j)``, layer 2 the one unit ``max_i (-y_i)`` over all of them."""
    pieces = set(f.exact_pieces())
    if g.input_dim != 1 or len(g.layers) != 2 or g.readout is not None:
        R.fail("the lattice form must be a two-layer maxout net of one input without read-out", ".certificate.lattice")
    first, second = g.layers
    for u, unit in enumerate(first.units):
        for w, c in unit.pieces.exact_pieces():
            if (-w[0], -c) not in pieces:
                R.fail(f"unit {u} of layer 1 has a piece that is not minus a piece of f", ".certificate.lattice")
    q = len(first.units)
    if len(second.units) != 1:
        R.fail("layer 2 of the lattice form must be one unit", ".certificate.lattice")
    terms = sorted((tuple(w), c) for w, c in second.units[0].pieces.exact_pieces())
    want = sorted((tuple(-Q(1) if k == i else ZERO for k in range(q)), ZERO) for i in range(q))
    if terms != want:
        R.fail("layer 2 of the lattice form must be max_i (-y_i) over the units of layer 1", ".certificate.lattice")


def _lattice_form(f):
    """The lattice form of the CPWL function f of one variable (docs/theory.md#cpwl-functions-theorem-42),
    derived by the checker itself for certificates written before it was recorded:
    ``f = max_i min_(j in S_i) l_j`` with the distinct pieces l_j of f (in order of first
    segment) and ``S_i = {j : l_j >= l_i on segment i}``, decided exactly at the segment's
    ends (the outer segments extend to infinity, so there by the slope); repeated sets count
    once. As a two-layer maxout net: layer 1 has one unit ``max_(j in S_i) (-l_j)`` per set,
    layer 2 the unit ``max_i (-y_i)``. Nothing rests on this derivation: the net is then
    checked exactly as a recorded one (shape, pieces, values at the check points, the steps).

    O(n^2) comparisons for n segments.

    >>> from symrel.models import CPWL1D
    >>> g = _lattice_form(CPWL1D([0, 1, 2, 3], [0, 1, 0, 1]))
    >>> g.widths, [str(g.evaluate_exact([t])[0]) for t in ("-1", "3/2", "4")]
    ([2, 1], ['-1', '1/2', '2'])
    """
    pieces, own = [], []
    for p in f.exact_pieces():
        if p not in pieces:
            pieces.append(p)
        own.append(pieces.index(p))
    xs, n = f.exact_x, len(f.exact_x) - 1
    sets = []
    for i in range(n):
        a, c = pieces[own[i]]
        ends = [xs[i]] * (i > 0) + [xs[i + 1]] * (i < n - 1)
        s = [j for j, (b, d) in enumerate(pieces)
             if all(b * t + d >= a * t + c for t in ends) and (i > 0 or b <= a) and (i < n - 1 or b >= a)]
        if s not in sets:
            sets.append(s)
    q = len(sets)
    first = MaxoutLayer([MaxoutUnit([[-pieces[j][0]] for j in s], [-pieces[j][1] for j in s], input_dim=1) for s in sets])
    second = MaxoutLayer([MaxoutUnit([[-ONE_Q if k == i else ZERO for k in range(q)] for i in range(q)], [ZERO] * q,
                                     input_dim=q)])
    return MaxoutNet(1, [first, second])


def _cpwl(f, R, name):
    cert = R.next("cpwl-lattice-check", name)
    (lo, hi), = R.ranges[:1]
    pieces = list(dict.fromkeys(f.exact_pieces()))
    pts = {lo, hi} | {x for x in f.exact_x if lo < x < hi}
    for (a, c), (b, d) in itertools.combinations(pieces, 2):
        if a != b and lo < (d - c) / (a - b) < hi:
            pts.add((d - c) / (a - b))
    pts = sorted(pts)
    if [rational(p) for p in cert["points"]] != pts:
        R.fail("the check points differ from the ends of D, the breakpoints and the crossings of pieces")
    if "lattice" in cert:
        try:
            g = read_input(cert["lattice"], path=f"{R.here}.certificate.lattice", kinds=("maxout",))
        except SymrelError as err:
            raise CertificateError(str(err), path=f"{R.here}.certificate.lattice") from None
    else:   # written before the lattice form was recorded: derived here, then checked as a recorded one
        g = _lattice_form(f)
    _check_lattice(f, g, R)
    vals = [rational(v) for v in cert["values"]]
    for p, v in zip(pts, vals):
        if f.evaluate_exact([p]) != [v] or g.evaluate_exact([p]) != [v]:
            R.fail(f"f and its lattice form do not both equal {v} at {p}")
    if len(vals) != len(pts):
        R.fail("one value per check point expected")
    return _maxout(g, R, name)


def _cpwl_mesh(f, R, name):
    cert = R.next("cpwl-mesh-lattice", name)
    box = R.ranges[:f.input_dim]
    want = [(a, c, k, i) for a, c, k, i in f.support_halfspaces()]
    got = cert["support"]
    if len(got) != len(want):
        R.fail(f"expected {len(want)} boundary facets, got {len(got)}")
    for (a, c, k, i), rec in zip(want, got):
        lo = c + sum((ai * (l if ai > 0 else u) for ai, (l, u) in zip(a, box)), ZERO)   # the minimum over the box
        if [int(rec[0]), int(rec[1])] != [k, i] or rational(rec[2]) != lo or lo < 0:
            R.fail(f"boundary facet of simplex {k} opposite local vertex {i}: recorded {rec}, exact minimum {lo} "
                   "(must be >= 0)")
    lattices = cert["lattice"]
    if len(lattices) != f.output_dim:
        R.fail(f"expected one lattice form per output ({f.output_dim})")
    parsed = [_check_mesh_lattice(f, o, lat, R) for o, lat in enumerate(lattices)]
    return _maxout_layers(_lattice_layers(parsed, f.input_dim), None, f.input_dim, R, name)


def _lattice_layers(lattices, d):
    """The maxout layers of the lattice forms ``f_o = max_t min_(j in S_t) l_j`` (a list of
    ``(pieces, terms)`` per output), as the prover's proof steps walk them (``min = -max(-.)``):
    layer 1 has one unit ``g_t = max_(j in S_t) (-l_j)`` per term (outputs in order); layer 2
    one unit ``max_t (-g_t)`` per output, or, when an output has more terms than
    ``k = max(largest term, ceil(sqrt(terms)), 2)``, one per group of at most k of its
    terms, and then layer 3 the maximum of each output's groups."""
    first, owner = [], []
    for o, (pieces, terms) in enumerate(lattices):
        for term in terms:
            first.append(([[(i, pair(-a[i])) for i in range(d) if a[i]] for a in (pieces[j][0] for j in term)],
                          [pair(-pieces[j][1]) for j in term]))
            owner.append(o)
    widest = max(len(t) for _, terms in lattices for t in terms)
    k = max(widest, max(isqrt(len(terms) - 1) + 1 for _, terms in lattices), 2)
    grouped = any(len(terms) > k for _, terms in lattices)
    groups, group_owner = [], []
    for o in range(len(lattices)):
        mine = [t for t in range(len(first)) if owner[t] == o]
        size = k if grouped else len(mine)
        for g in range(0, len(mine), size):
            groups.append(mine[g:g + size])
            group_owner.append(o)
    second = [([[(t, MINUS_ONE)] for t in group], [(0, 1)] * len(group)) for group in groups]
    if not grouped:
        return [first, second]
    third = []
    for o in range(len(lattices)):
        mine = [g for g in range(len(groups)) if group_owner[g] == o]
        third.append(([[(g, ONE)] for g in mine], [(0, 1)] * len(mine)))
    return [first, second, third]


def _check_mesh_lattice(f, o, rec, R):
    """The recorded lattice form of output o equals f on every simplex (vertex table)."""
    if rec.get("output") != o:
        R.fail(f"lattice {o}: expected output {o}")
    d, n = f.input_dim, len(f.simplices)
    pieces = [([rational(v) for v in a], rational(c)) for a, c in rec["pieces"]]
    if not pieces or any(len(a) != d for a, _ in pieces):
        R.fail(f"lattice {o}: pieces need {d} coefficients each")
    terms = [[int(j) for j in t] for t in rec["terms"]]
    if not terms or any(not t or not all(0 <= j < len(pieces) for j in t) for t in terms):
        R.fail(f"lattice {o}: a term is empty or names a piece out of range")
    lower = rec["lower"]
    if len(lower) != n:
        R.fail(f"lattice {o}: expected one lower term (an index or a split tree) per simplex")
    at, under = _vertex_table(f, o, pieces)
    for k, tree in enumerate(lower):
        _check_lower(f, o, k, tree, pieces, terms, at, [], R)
    combos = {}
    for t, k, ws in rec["combos"]:
        t, k = int(t), int(k)
        weights = [(int(j), rational(w)) for j, w in ws]
        if not (0 <= t < len(terms) and 0 <= k < n) or (t, k) in combos:
            R.fail(f"lattice {o}: combination ({t}, {k}) out of range or repeated")
        if any(j not in terms[t] or w < 0 for j, w in weights) or sum((w for _, w in weights), ZERO) != 1:
            R.fail(f"lattice {o}: the combination for term {t} on simplex {k} is not a convex combination of its pieces")
        if any(sum((w * at[v][j] for j, w in weights), ZERO) > 0 for v in f.simplices[k]):
            R.fail(f"lattice {o}: the combination for term {t} lies above f at a vertex of simplex {k}")
        combos[(t, k)] = weights
    for t, term in enumerate(terms):
        mine = sum(1 << j for j in set(term))
        for k in range(n):
            if not under[k] & mine and (t, k) not in combos:
                R.fail(f"lattice {o}: term {t} has no piece below f on simplex {k}")
    return pieces, terms


def _vertex_table(f, o, pieces):
    """``at[v][j] = l_j(x_v) - f_o(x_v)`` for every vertex v and piece j, as one exact
    matrix product ``[x_v, 1, -f_o(x_v)] [a_j; c_j; 1]`` (V x P entries, the bulk of the
    rule's time on large meshes), and ``under[k]``, the bit set of the pieces ``<= f`` at
    every vertex of simplex k (the AND of its vertices' bit sets)."""
    d, P = f.input_dim, len(pieces)
    left = from_rationals([list(x) + [Q(1), -y[o]] for x, y in zip(f.exact_vertices, f.exact_values)], (len(f.exact_vertices), d + 2))
    right = from_rationals([[a[i] for a, _ in pieces] for i in range(d)] + [[c for _, c in pieces]] + [[Q(1)] * P],
                           (d + 2, P))
    at = rows(left * right)
    below = [int("".join("1" if e <= 0 else "0" for e in reversed(row)), 2) for row in at]
    under = []
    for s in f.simplices:
        m = -1
        for v in s:
            m &= below[v]
        under.append(m)
    return at, under


def _check_lower(f, o, k, tree, pieces, terms, at, path, R):
    """On the part of simplex k cut out by ``path`` (``(j, True)``: ``l_j >= f``, ``(j, False)``:
    ``l_j < f``), the recorded lower tree gives a term whose pieces are all ``>= f``, or splits,
    or shows the part empty by a Farkas vector (Motzkin's form for the strict rows)."""
    where = f"lattice {o}: simplex {k}"
    if isinstance(tree, dict) and "split" in tree:
        j = int(tree["split"])
        if not 0 <= j < len(pieces) or any(j == i for i, _ in path):
            R.fail(f"{where}: split on piece {j} out of range or repeated")
        _check_lower(f, o, k, tree["above"], pieces, terms, at, path + [(j, True)], R)
        _check_lower(f, o, k, tree["below"], pieces, terms, at, path + [(j, False)], R)
        return
    if isinstance(tree, dict) and "empty" in tree:
        rows = _part_rows(f, o, k, pieces, path)
        y = {int(i): rational(w) for i, w in tree["empty"]}
        if not y or any(not 0 <= i < len(rows) or w < 0 for i, w in y.items()):
            R.fail(f"{where}: a Farkas vector needs weights >= 0 on the rows of the part")
        d = f.input_dim
        if any(sum((w * rows[i][0][c] for i, w in y.items()), ZERO) != 0 for c in range(d)):
            R.fail(f"{where}: the Farkas vector does not cancel the rows (y^T A != 0)")
        total = sum((w * rows[i][1] for i, w in y.items()), ZERO)
        strict = any(rows[i][2] and w > 0 for i, w in y.items())
        if not (total < 0 or (total == 0 and strict)):
            R.fail(f"{where}: the Farkas vector does not show the part empty (y^T b = {total})")
        return
    t = int(tree)
    if not 0 <= t < len(terms):
        R.fail(f"{where}: lower term {t} out of range")
    up = {j for j, side in path if side}
    for j in terms[t]:
        if j not in up and min(at[v][j] for v in f.simplices[k]) < 0:
            R.fail(f"{where}: piece {j} of its lower term {t} lies below f at a vertex, and no split puts it above")


def _part_rows(f, o, k, pieces, path):
    """``(a, b, strict)`` rows of the part: ``-lambda_i <= 0`` for simplex k, then per split
    ``f - l_j <= 0`` (above) or ``l_j - f < 0`` (below), with f's affine piece on simplex k."""
    rows = [([-a for a in row[:-1]], row[-1], False) for row in f.exact_geometry[k].inverse]
    ak, ck = f.exact_pieces()[k][o]
    for j, up in path:
        aj, cj = pieces[j]
        if up:
            rows.append(([x - y for x, y in zip(ak, aj)], cj - ck, False))
        else:
            rows.append(([y - x for x, y in zip(ak, aj)], ck - cj, True))
    return rows


class _RecordedStates:
    """Compares the replayed state with each block's recorded one. A row recorded exactly as
    before (the same ``repr`` of its JSON value: an int, a string and a bool never share one)
    whose replayed forms are the very objects that matched it then is not read again: most
    rows of a state pass through a block unchanged."""

    def __init__(self, tokens):
        self.T = tokens
        self.seen = {}   # row -> (repr of the recorded entry, the replayed forms it matched)

    def matches(self, state, obj) -> bool:
        T, seen, listed = self.T, self.seen, set()
        for r, entry in obj:
            r = int(r)
            if r in listed or not 0 <= r < len(state[0]):
                return False
            listed.add(r)
            forms = tuple(state[t][r] for t in range(T))
            last = seen.get(r)
            text = repr(entry)
            if last is not None and last[0] == text and all(f is g for f, g in zip(forms, last[1])):
                continue
            if isinstance(entry[0], list):
                if len(entry) != T:
                    raise CertificateError(f"state row {r}: expected {T} token forms")
                want = [read_form(e) for e in entry]
            else:
                want = [read_form(entry)] * T
            if all(w == ZERO_FORM for w in want) or list(forms) != want:
                return False
            seen[r] = (text, forms)
        return all(r in listed or (not f[1] and not f[2]) for col in state for r, f in enumerate(col))


def _mat_apply(M, col, bias=None):
    """``M col (+ bias)`` for ``M`` as :func:`_int_rows` and ``bias`` as :func:`_int_vector`."""
    b = bias if bias is not None else [(0, 1)] * len(M)
    return [combine([(a, col[j]) for j, a in row], c) for row, c in zip(M, b)]


def _attention(att, state, recs_all, R):
    if att.rule != "hardmax" or len(recs_all) != len(att.heads):
        R.fail("expected one record per hardmax head")
    T = len(state)
    add = [dict() for _ in range(T)]
    for hi, (head, recs) in enumerate(zip(att.heads, recs_all)):
        WQ, WK, WV = _int_rows(head.exact_WQ), _int_rows(head.exact_WK), _int_rows(head.exact_WV)
        qs = [_mat_apply(WQ, c) for c in state]
        ks = [_mat_apply(WK, c) for c in state]
        vs = [_mat_apply(WV, c) for c in state]
        const_q = all(not f[2] for q in qs for f in q)
        const_k = all(not f[2] for k in ks for f in k)
        if not (const_q or const_k or len(qs[0]) == 1) or len(recs) != T:
            R.fail("a head with quadratic scores, or without one record per query token")
        WO = {}   # the head's output rows, by their nonzero entries (read from the columns)
        for r, column in enumerate(_int_rows(head.exact_WO.transpose())):
            for row, a in column:
                WO.setdefault(row, []).append((r, a))
        WO = sorted(WO.items())
        for t, rec in enumerate(recs):
            R.where = f".certificate.heads[{hi}][{t}]"
            if const_q:    # a constant form (d, c, {}) is the number c / d
                scores = [combine([((q[1], q[0]), k) for q, k in zip(qs[t], ks[s])]) for s in range(T)]
            elif const_k:
                scores = [combine([((k[1], k[0]), q) for q, k in zip(qs[t], ks[s])]) for s in range(T)]
            else:   # a one-dimensional query of fixed sign: the argmax of q k_s is that of sign * k_s
                sign, bound = rec["query_sign"][0], rational(rec["query_sign"][1])
                lo, hi = R.bounds(qs[t][0])
                if not ((sign == "+" and lo == bound and lo > 0) or (sign == "-" and hi == bound and hi < 0)):
                    R.fail(f"query sign bound {bound} of token {t} is not the exact bound of a fixed sign")
                scores = [k[0] if sign == "+" else neg(k[0]) for k in ks]
            if rec["rule"] == "max":
                alphas, betas = [rational_ints(a) for a in rec["alpha"]], [rational_ints(b) for b in rec["beta"]]
                if len(alphas) != len(vs[0]) or len(betas) != len(vs[0]):
                    R.fail("one alpha and one beta per value coordinate expected")
                for r, (al, be) in enumerate(zip(alphas, betas)):
                    if any(vs[s][r] != combine([(al, scores[s])], be) for s in range(T)):
                        R.fail(f"value coordinate {r} is not {to_q(al)} * score + {to_q(be)} on every token")
                m = R.max_of(scores, rec["max"])
                out = [combine([(al, m)], be) for al, be in zip(alphas, betas)]
            elif rec["rule"] == "argmax-set":
                win = [int(s) for s in rec["winners"]]
                if not win or any(scores[s] != scores[win[0]] for s in win):
                    R.fail("the winners do not share one score form")
                margins = {int(s): rational(m) for s, m in rec["margins"]}
                if set(margins) != set(range(T)) - set(win):
                    R.fail("one margin per losing token expected")
                for s, m in margins.items():
                    lo = R.bounds(combine([(ONE, scores[win[0]]), (MINUS_ONE, scores[s])]), 0)
                    if lo != m or lo <= 0:
                        R.fail(f"margin {m} over token {s} differs from the exact {lo} (or is not positive)")
                share = (1, len(win))
                out = [combine([(share, vs[s][r]) for s in win]) for r in range(len(vs[0]))]
            elif rec["rule"] == "select":
                out = [read_form(f) for f in rec["result"]]
                if len(out) != len(vs[0]):
                    R.fail("one select node per value coordinate expected")
                for r, f in enumerate(out):
                    sel = R.node_select.get(single_var(f))
                    if sel is None or sel[0] != scores or sel[1] != [vs[s][r] for s in range(T)]:
                        R.fail(f"value coordinate {r}: not the select node of these scores and values")
            else:
                R.fail(f"unknown head rule {rec['rule']!r}")
            for row, entries in WO:
                for r, a in entries:
                    add[t].setdefault(row, []).append((a, out[r]))
    new = []
    for t, col in enumerate(state):
        col = list(col)
        for row, pairs in add[t].items():
            col[row] = combine([(ONE, col[row])] + pairs)
        new.append(col)
    return new


def _feedforward(ff, state, recs_all, R):
    if len(recs_all) != ff.hidden:
        R.fail("expected one record list per hidden unit")
    int_cols = _int_rows(ff.exact_W2.transpose())   # the output column of each hidden unit
    residuals = {}   # (h, g) -> the column of the residual max(0, -z) of a pair (the same on every token)
    b2 = _int_vector(ff.exact_b2)
    new, W1, b1 = [], _int_rows(ff.exact_W1), _int_vector(ff.exact_b1)
    for t, col in enumerate(state):
        pre = _mat_apply(W1, col, b1)
        out, outcols = [], list(int_cols)
        for h, z in enumerate(pre):
            rec = recs_all[h][t]
            R.where = (".certificate.hidden[{}][{}]", h, t)
            if rec[0] == "pair":    # c_h ReLU(z) + c_g ReLU(-z) = c_h z + (c_h + c_g) max(0, -z)
                g = int(rec[1])
                if not (0 <= g < ff.hidden) or g == h or recs_all[g][t][:2] != ["pair", h]:
                    R.fail(f"hidden unit {h}, token {t}: pair partner {g} does not name it back")
                if pre[g] != neg(z):
                    R.fail(f"hidden units {h} and {g}, token {t}: pre-activations are not z and -z")
                if h < g:
                    out.append(z)
                    continue
                if (h, g) not in residuals:
                    residuals[h, g] = _add_sparse(int_cols[h], int_cols[g])
                residual = residuals[h, g]
                if residual:
                    if len(rec) != 3:
                        R.fail(f"hidden unit {h}, token {t}: columns not opposite, the max(0, -z) facts are missing")
                    out.append(R.max_of([ZERO_FORM, z], rec[2]))
                    outcols[h] = residual
                else:
                    if len(rec) != 2:
                        R.fail(f"hidden unit {h}, token {t}: unexpected facts for an exact pair")
                    out.append(ZERO_FORM)
            else:
                out.append(R.relu(z, rec))
        col = list(col)
        add: dict[int, list] = {}
        for h, v in enumerate(out):
            if v[1] or v[2]:
                for r, a in outcols[h]:
                    add.setdefault(r, []).append((a, v))
        for r in range(ff.width):
            if r in add or b2[r][0]:
                col[r] = combine([(ONE, col[r])] + add.get(r, []), b2[r])
        new.append(col)
    return new


def _transformer(tf, R, name):
    off = rows(tf.embedding.exact_offsets)
    state = []
    for t in range(tf.tokens):
        col = [constant(pair(off[r][t])) for r in range(tf.width)]
        for i, r in enumerate(tf.embedding.input_rows):
            col[r] = combine([(ONE, col[r]), (ONE, var(i))])
        state.append(col)
    cert = R.next("embedding", name)
    R.where = ".certificate.state"
    recorded = _RecordedStates(tf.tokens)
    if not recorded.matches(state, cert["state"]):
        R.fail("the embedded state differs from the recorded Sigma_0")
    for b, block in enumerate(tf.blocks):
        scaled = R.scaled
        cert = R.next(None, name)
        if cert.get("block") != b:
            R.fail(f"expected block {b}")
        R.declare(cert)
        parts = []
        if block.attention is not None:
            state = _attention(block.attention, state, cert["heads"], R)
            recs = [r for head in cert["heads"] for r in head]
            parts += ["hardmax-max-head"] if any(r["rule"] == "max" for r in recs) else []
            parts += ["drop-dominated"] if any(r["max"]["dropped"] for r in recs if r["rule"] == "max") else []
            parts += ["hardmax-argmax-set"] if any(r["rule"] == "argmax-set" for r in recs) else []
            parts += ["hardmax-select"] if any(r["rule"] == "select" for r in recs) else []
        if block.feedforward is not None:
            state = _feedforward(block.feedforward, state, cert["hidden"], R)
            recs = [r[0] for unit in cert["hidden"] for r in unit]
            parts += ["relu-fixed-sign"] if any(k in ("+", "-") for k in recs) else []
            parts += ["relu-pair-identity"] if "pair" in recs else []
            parts += ["relu-as-max-node"] if "node" in recs else []
        R.expect_rule(parts, scaled)
        R.where = ".certificate.state"
        if not recorded.matches(state, cert["state"]):
            R.fail(f"the state after block {b} differs from the recorded Sigma_{b + 1}")
    cert = R.next("linear-identity", name)
    outs = _mat_apply(_int_rows(tf.readout.exact_W), state[tf.readout.token], _int_vector(tf.readout.exact_b))
    R.compare(outs, cert["outputs"], "read-out forms")
    return outs


def _check_polytope_box(P, box, duals, R):
    """The polytope ``{x : A x <= b}`` lies in the box: for each coordinate i, vectors
    ``y, y' >= 0`` with ``A^T y = -e_i``, ``A^T y' = e_i``, ``b^T y = -lo_i``, ``b^T y' = hi_i``."""
    A, b = P.exact_halfspaces()
    if len(box) != P.dim or len(duals) != P.dim:
        R.fail("one interval and one pair of dual vectors per coordinate expected")
    for i, ((lo, hi), pair) in enumerate(zip(box, duals)):
        R.where = f".certificate.duals[{i}]"
        for sense, bound, y in ((-1, -lo, pair[0]), (1, hi, pair[1])):
            y = [rational(v) for v in y]
            if len(y) != len(A) or any(v < 0 for v in y):
                R.fail(f"coordinate {i}: a dual vector must have one entry >= 0 per inequality")
            if any(sum((yr * row[k] for yr, row in zip(y, A)), ZERO) != (sense if k == i else 0) for k in range(P.dim)):
                R.fail(f"coordinate {i}: A^T y is not {'+' if sense > 0 else '-'}e_{i}")
            if sum((yr * br for yr, br in zip(y, b)), ZERO) != bound:
                R.fail(f"coordinate {i}: b^T y differs from the recorded bound")


_REPLAY = {MaxoutNet: _maxout, ReLUNet: _relu, CPWL1D: _cpwl, CPWLMesh: _cpwl_mesh, Transformer: _transformer}


@claim_checker("equivalence", rules=RULES)
def check_equivalence(cert: dict, inputs: dict) -> None:
    """Replay the certificate of "for all x in D, A(x) = B(x)"; raises CertificateError."""
    claim = cert["claim"]
    a, b, domain = inputs[claim["a"]], inputs[claim["b"]], inputs[claim["domain"]]
    steps = cert["steps"]
    R = _ProofReplay(steps, [])
    first = R.next("domain-box")
    R.where = ".certificate.box"
    box = [(rational(lo), rational(hi)) for lo, hi in first["box"]]
    if isinstance(domain, Box):
        if box != list(domain.exact_bounds):
            R.fail("the box differs from the domain")
    else:
        _check_polytope_box(domain, box, first["duals"], R)
    R.ranges, R.dim = list(box), len(box)
    outs = []
    for model, name in ((a, "a"), (b, "b")):
        if type(model) not in _REPLAY:
            raise CertificateError(f"inputs.{name}: no replay for a model of kind {getattr(model, 'kind', '?')}")
        outs.append(_REPLAY[type(model)](model, R, name))
    if R.pos < len(steps) and isinstance(steps[R.pos], dict) and steps[R.pos].get("rule") == "node-cells":
        from .node_cells import check_node_cells

        last = R.next("node-cells")
        check_node_cells(last, R, outs, domain)
    else:
        last = R.next("linear-identity")
        R.compare(outs[0], last["outputs"], "outputs of A")
        R.compare(outs[1], last["outputs"], "outputs of B")
    if R.pos != len(steps):
        raise CertificateError("unexpected step after the final identity", path=f"steps[{R.pos}]")
