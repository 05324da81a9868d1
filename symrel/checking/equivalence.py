"""Independent checker of equivalence certificates ("for all x in D, A(x) = B(x)").

Written apart from :mod:`symrel.prover`: it shares nothing with it beyond the exact
layer (:mod:`symrel.exact`); the models are the checker's own reading of them
(:mod:`symrel.checking.inputs`). It replays
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
  head returns ``alpha * max + beta``), or an argmax set with the recorded positive margins
  (the Transformer's replay: :mod:`symrel.checking.transformer_replay`);
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
from math import isqrt

from ..errors import InputError, SymrelError
from ..exact import Q, rational, rational_ints
from .inputs import read_input
from . import CertificateError, MalformedCertificate, at_step, claim_checker, model_class
from .read import array, index, indices, natural, rational as strict_rational, rationals, record
from .kernel import (PAIR_MINUS_ONE, PAIR_ONE, PAIR_ZERO, READOUT_KEYS, ZERO_FORM, bounds, combine, extreme, int_rows,
                     int_vector, key, mat_apply, pair, read_form, single_var, to_q, var)

RULES = {"domain-box", "maxout-unit-normal-form", "linear-identity", "relu-fixed-sign", "cpwl-lattice-check",
         "embedding", "hardmax-max-head", "drop-dominated", "hardmax-argmax-set", "relu-pair-identity",
         "relu-as-max-node", "cpwl-mesh-lattice", "hardmax-select", "node-cells", "max-scale-shift"}

ZERO = Q(0)
ONE = Q(1)

#: the keys a step's certificate may hold (docs/format.md); any other key is refused (exit 2)
LAYER_KEYS = ("model", "layer", "nodes", "units", "outputs")
NODE_KEYS = ("id", "terms", "range", "scores")
MAX_KEYS = ("result", "dropped", "scale")


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
    def peek_rule(self, rule, extra):
        """``rule+extra`` when the next step names exactly that, else ``rule`` (a step whose
        records may add a rule; :meth:`expect_rule` then checks that they did)."""
        both = f"{rule}+{extra}"
        step = self.steps[self.pos] if self.pos < len(self.steps) else None
        return both if isinstance(step, dict) and step.get("rule") == both else rule

    def next(self, rule=None, model=None, keys=None):
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
        if keys is not None:
            record(cert, f"{self.here}.certificate", optional=keys)
        if model is not None and cert.get("model") != model:
            self.fail(f"expected a step of model {model!r}, got {cert.get('model')!r}", ".certificate.model")
        self.pos += 1
        return cert

    def field(self) -> str:
        """The path of the field being checked, inside the step."""
        return self.where[0].format(*self.where[1:]) if isinstance(self.where, tuple) else self.where

    def fail(self, msg, field=None, error=CertificateError):
        """Raise ``error`` (a rejection, exit 1; :class:`MalformedCertificate`: exit 2) at the
        field being checked, or at ``field`` inside the step."""
        where = self.where if field is None else field
        if isinstance(where, tuple):   # (format, values): formatted only on failure
            where = where[0].format(*where[1:])
        raise error(msg, path=self.here + where)

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
            return bounds(f, self.ranges) if end is None else extreme(f, self.ranges, end)
        except IndexError as err:
            self.fail(f"variable y{err.args[0]} is not defined here")

    # strict fields
    def integer(self, value, want, what, field=None):
        """``value`` (at ``field`` inside the step) must be the integer ``want`` (a JSON
        integer: not a boolean or a string)."""
        if type(value) is not int:
            self.fail(f"expected {what} {want} (an integer), got {value!r}", field, error=MalformedCertificate)
        if value != want:
            self.fail(f"expected {what} {want}, got {value!r}", field)

    def index(self, value, bound, sub=""):
        """``value`` as an index below ``bound`` (any integer >= 0 when ``bound`` is None): a
        JSON integer, not a boolean or a string (:mod:`symrel.checking.read`); ``sub`` is its
        path inside the field being checked."""
        path = self.here + self.field() + sub
        return natural(value, path) if bound is None else index(value, bound, path)

    def number(self, value, sub=""):
        """``value`` (at ``sub`` inside the field being checked) as an exact rational; the path
        is built only when the value is refused (:func:`symrel.checking.read.rational`)."""
        try:
            return rational(value)
        except InputError:
            return strict_rational(value, self.here + self.field() + sub)

    def rational_range(self, rec, what):
        """A recorded ``[lo, hi]`` (the field being checked) as two rationals."""
        if not isinstance(rec, list) or len(rec) != 2:
            self.fail(f"expected {what} as [lo, hi], got {rec!r:.80}", error=MalformedCertificate)
        at = self.here + self.field()
        return strict_rational(rec[0], f"{at}[0]"), strict_rational(rec[1], f"{at}[1]")

    # nodes
    def declare(self, cert):
        """Declare the step's new nodes, in order, after checking them.

        Rule: node ids are consecutive, each the next variable (so a node refers only to earlier
        ones); a max node ``max(t_0, .., t_k)`` has two terms or more, none repeated, and its
        range is ``[max lo_i, max hi_i]`` over the terms' exact ranges on the box; a select node
        (values averaged over the argmax set of the scores) has one value per score and the range
        ``[min lo_i, max hi_i]`` of its values. The recorded range must equal the recomputed one:
        every later bound rests on it. A node declared twice (same terms) is refused, so that
        equal maxes are one variable and compare equal as forms."""
        nodes = array(cert.get("nodes", []), f"{self.here}.certificate.nodes")
        for k, nd in enumerate(nodes):
            self.where = f".certificate.nodes[{k}]"
            at = self.here + self.where
            record(nd, at, keys=NODE_KEYS[:3], optional=NODE_KEYS)
            nid = len(self.ranges)
            self.integer(nd["id"], nid, "the next node id", self.where + ".id")
            terms = [read_form(t, ("{}.terms[{}]", at, j)) for j, t in enumerate(array(nd["terms"], f"{at}.terms"))]
            self.where = f".certificate.nodes[{k}].range"
            recorded = self.rational_range(nd["range"], "the node's range")
            self.where = f".certificate.nodes[{k}]"
            if "scores" in nd:       # a select node: values averaged over the argmax set of scores
                scores = [read_form(t, ("{}.scores[{}]", at, j)) for j, t in enumerate(array(nd["scores"], f"{at}.scores"))]
                if len(scores) != len(terms) or not terms:
                    self.fail(f"node y{nid}: a select node needs one value per score")
                sel = ("select", tuple(key(t) for t in scores), tuple(key(t) for t in terms))
                if sel in self.node_of:
                    self.fail(f"node y{nid}: an existing node declared again")
                for t in scores:
                    self.bounds(t)
                rs = [self.bounds(t) for t in terms]
                rng = (min(lo for lo, _ in rs), max(hi for _, hi in rs))
                if recorded != rng:
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
            if recorded != rng:
                self.fail(f"node y{nid}: range {nd['range']} differs from the recomputed [{rng[0]}, {rng[1]}]")
            self.ranges.append(rng)
            self.node_terms[nid] = terms
            self.node_keys[nid] = set(keys)
            self.node_of[keys] = nid

    def max_of(self, raw, facts, sub=""):
        """Check a max of the forms ``raw`` in normal form against the recorded facts (at
        ``sub`` inside the field being checked); returns the result form.

        Rule: each dropped term is one of ``raw`` and is dominated on the whole box by the kept
        term it names (the recorded bound is the exact minimum of ``kept - dropped``, >= 0, and
        no earlier kept term dominates it, so the record is canonical); the max of the kept terms
        is then the one kept term itself, or the node whose terms are exactly the kept ones
        (``max-scale-shift``: ``c y + k`` with ``c > 0`` for the node y whose terms, times c plus
        k, are the kept ones). Dropping a dominated term does not change the max, and a node is
        the max of its terms by definition, so the result is the max of ``raw``."""
        raw_keys = {key(t): t for t in raw}
        rel = self.field() + sub
        at = self.here + rel
        record(facts, at, keys=("result", "dropped"), optional=MAX_KEYS)
        result = read_form(facts["result"], at + ".result")
        dropped = []
        for j, d in enumerate(array(facts["dropped"], f"{at}.dropped")):
            array(d, f"{at}.dropped[{j}]", 3)   # [form, dominating term, bound]
            dropped.append((read_form(d[0], ("{}.dropped[{}][0]", at, j)), self.index(d[1], None, f"{sub}.dropped[{j}][1]"),
                            strict_rational(d[2], f"{at}.dropped[{j}][2]")))
        dropped_keys = {key(d) for d, _, _ in dropped}
        kept_keys = set(raw_keys) - dropped_keys
        if len(dropped_keys) != len(dropped) or not dropped_keys <= set(raw_keys):
            self.fail("expected dropped terms among the terms of the max, each once", rel + ".dropped")
        scale = facts.get("scale")
        if len(kept_keys) == 1:
            kept = [raw_keys[next(iter(kept_keys))]]
            if result != kept[0] or scale is not None:
                self.fail("expected the one kept term as the result (and no scale): the max of a single term is that term", rel + ".result")
        elif scale is None:
            v = single_var(result)
            if v not in self.node_terms:
                self.fail("expected a node as the result of a max of several kept terms", rel + ".result")
            kept = self.node_terms[v]
            if self.node_keys[v] != kept_keys:
                self.fail(f"expected a node whose terms are the kept terms of this max; node y{v} has others", rel + ".result")
        else:   # max-scale-shift: the kept terms are c u + k for the terms u of node y_v, so the max is c y_v + k
            if not isinstance(scale, list) or len(scale) != 2:
                self.fail("expected a scale [c, k]", rel + ".scale")
            try:
                c, k = rational_ints(scale[0]), rational_ints(scale[1])
            except InputError:
                c, k = (strict_rational(scale[e], f"{at}.scale[{e}]") for e in (0, 1))
            if c[0] <= 0 or (c == PAIR_ONE and k == PAIR_ZERO):
                self.fail(f"scale {scale}: expected c > 0 and not the identity (c, k) = (1, 0)", rel + ".scale")
            v = next(iter(result[2])) if len(result[2]) == 1 else None
            if v not in self.node_terms or combine([(c, var(v))], k) != result:
                self.fail(f"expected the result of a scaled max as {to_q(c)} * node + {to_q(k)}", rel + ".result")
            kept = [combine([(c, u)], k) for u in self.node_terms[v]]
            if {key(t) for t in kept} != kept_keys:
                self.fail(f"expected a node that, scaled by {to_q(c)} and shifted by {to_q(k)}, gives the kept terms "
                          f"of this max; node y{v} does not", rel + ".result")
            self.scaled += 1
        for j, (d, i, bound) in enumerate(dropped):
            if not 0 <= i < len(kept):
                self.fail(f"expected the index of a kept term in 0..{len(kept) - 1}, got {i}", f"{rel}.dropped[{j}][1]")
            lows = [self.bounds(combine([(PAIR_ONE, k), (PAIR_MINUS_ONE, d)]), 0) for k in kept[: i + 1]]
            if lows[i] != bound:
                self.fail(f"expected the exact lower bound {lows[i]} of kept - dropped, got {bound}", f"{rel}.dropped[{j}][2]")
            if lows[i] < 0:
                self.fail(f"the dropped term is not dominated: the exact lower bound {lows[i]} is negative", f"{rel}.dropped[{j}]")
            if any(lo >= 0 for lo in lows[:i]):
                self.fail(f"expected the first kept term that dominates the dropped one, got kept term {i}", f"{rel}.dropped[{j}][1]")
            self.drops += 1
        return result

    def relu(self, z, rec):
        """``ReLU(z)`` by its record: ``["+", lo]`` (z >= 0 on the box: lo is z's exact minimum,
        >= 0), ``["-", hi]`` (z <= 0: its exact maximum, <= 0) or ``["node", facts]`` (the node
        ``max(0, z)``, checked by :meth:`max_of`)."""
        if not isinstance(rec, list) or len(rec) != 2:
            self.fail(f"expected a ReLU record [kind, fact], got {rec!r:.80}")
        kind = rec[0]
        if kind == "+":
            lo = self.bounds(z, 0)
            if lo != self.number(rec[1], "[1]"):
                self.fail(f"ReLU lower bound {rec[1]} differs from the exact {lo}")
            if lo < 0:
                self.fail(f"ReLU recorded as fixed positive, but its exact minimum {lo} is negative")
            return z
        if kind == "-":
            hi = self.bounds(z, 1)
            if hi != self.number(rec[1], "[1]"):
                self.fail(f"ReLU upper bound {rec[1]} differs from the exact {hi}")
            if hi > 0:
                self.fail(f"ReLU recorded as fixed zero, but its exact maximum {hi} is positive")
            return ZERO_FORM
        if kind == "node":
            return self.max_of([ZERO_FORM, z], rec[1], "[1]")
        self.fail(f"unknown ReLU record {kind!r}")

    def compare(self, got, recorded, what, field="outputs"):
        """The recorded forms (the step's ``field``) are exactly the replayed ``got``."""
        self.where = f".certificate.{field}"
        at = self.here + self.where
        if recorded is None:
            self.fail(f"expected a key {field!r} (missing)", error=MalformedCertificate)
        array(recorded, at)
        if len(got) != len(recorded):
            self.fail(f"expected {len(got)} forms ({what}), got {len(recorded)}")
        for i, (g, r) in enumerate(zip(got, recorded)):
            if g != read_form(r, ("{}[{}]", at, i)):
                self.fail(f"{what} differ from the recomputed forms (first at entry {i})", f"{self.where}[{i}]")


# -- the models ---------------------------------------------------------------------------
def _maxout(net, replay, name):
    layers = [[(int_rows(u.pieces.W_rows), int_vector(u.pieces.b_list)) for u in layer.units] for layer in net.layers]
    readout = (int_rows(net.readout.W_rows), int_vector(net.readout.b_list)) if net.readout is not None else None
    return _maxout_layers(layers, readout, net.input_dim, replay, name)


def _maxout_layers(layers, readout, input_dim, replay, name):
    """Replay the layers of a maxout net, each a list of units ``(W, b)`` (their pieces as
    :func:`int_rows`, :func:`int_vector`), then the read-out ``(W, b)`` or None."""
    cur = [var(i) for i in range(input_dim)]
    for li, layer in enumerate(layers):
        scaled = replay.scaled
        cert = replay.next(replay.peek_rule("maxout-unit-normal-form", "max-scale-shift"), name, LAYER_KEYS)
        replay.integer(cert.get("layer"), li, "layer", ".certificate.layer")
        units = cert.get("units")
        if not isinstance(units, list) or len(units) != len(layer):
            replay.fail(f"expected layer {li} with {len(layer)} units (one record each)", ".certificate.units")
        replay.declare(cert)
        terms = [mat_apply(W, cur, b) for W, b in layer]
        cur = []
        for u, (raw, facts) in enumerate(zip(terms, units)):
            replay.where = (".certificate.units[{}]", u)
            cur.append(replay.max_of(raw, facts))
        replay.expect_rule(["maxout-unit-normal-form"], scaled)
    if readout is not None:
        cert = replay.next("linear-identity", name, READOUT_KEYS)
        cur = mat_apply(readout[0], cur, readout[1])
        replay.compare(cur, cert.get("outputs"), "read-out forms")
    return cur


def _relu(net, replay, name):
    """Replay a ReLU net layer by layer: ``z = W cur + b``, then each ReLU by its record."""
    cur = [var(i) for i in range(net.input_dim)]
    for li, layer in enumerate(net.layers):
        scaled = replay.scaled
        relu = layer.activation == "relu"
        cert = replay.next(replay.peek_rule("relu-fixed-sign", "max-scale-shift") if relu else "linear-identity", name,
                           LAYER_KEYS)
        replay.integer(cert.get("layer"), li, "layer", ".certificate.layer")
        replay.declare(cert)
        pre = mat_apply(int_rows(layer.affine.W_rows), cur, int_vector(layer.affine.b_list))
        if relu:
            units = cert.get("units")
            if not isinstance(units, list) or len(units) != len(pre):
                replay.fail(f"expected one ReLU record per unit ({len(pre)})", ".certificate.units")
            cur = []
            for u, (z, rec) in enumerate(zip(pre, units)):
                replay.where = (".certificate.units[{}]", u)
                cur.append(replay.relu(z, rec))
            replay.expect_rule(["relu-fixed-sign"], scaled)
        else:
            cur = pre
        replay.compare(cur, cert.get("outputs"), f"layer {li} forms")
    return cur


def _check_lattice(f, g, replay):
    """g is a lattice form ``max_i min_{j in S_i} l_j`` of pieces l_j of f: layer 1 has
    units ``max_{j in S_i} (-l_j)``, layer 2 the one unit ``max_i (-y_i)`` over all of them."""
    pieces = set(f.exact_pieces())
    if g.input_dim != 1 or len(g.layers) != 2 or g.readout is not None:
        replay.fail("the lattice form must be a two-layer maxout net of one input without read-out", ".certificate.lattice")
    first, second = g.layers
    for u, unit in enumerate(first.units):
        for w, c in unit.pieces.exact_pieces():
            if (-w[0], -c) not in pieces:
                replay.fail(f"unit {u} of layer 1 has a piece that is not minus a piece of f", ".certificate.lattice")
    q = len(first.units)
    if len(second.units) != 1:
        replay.fail("layer 2 of the lattice form must be one unit", ".certificate.lattice")
    terms = sorted((tuple(w), c) for w, c in second.units[0].pieces.exact_pieces())
    want = sorted((tuple(-Q(1) if k == i else ZERO for k in range(q)), ZERO) for i in range(q))
    if terms != want:
        replay.fail("layer 2 of the lattice form must be max_i (-y_i) over the units of layer 1", ".certificate.lattice")


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

    >>> from symrel.checking.semantics import CPWL1D
    >>> from symrel.exact import rational as r
    >>> g = _lattice_form(CPWL1D([r(0), r(1), r(2), r(3)], [r(0), r(1), r(0), r(1)]))
    >>> g.widths, [str(g.evaluate_exact([r(t)])[0]) for t in ("-1", "3/2", "4")]
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
    from .semantics import Affine, MaxoutLayer, MaxoutNet, MaxoutUnit  # the checker's own semantics of the net

    first = MaxoutLayer([MaxoutUnit(Affine([[-pieces[j][0]] for j in s], [-pieces[j][1] for j in s], 1)) for s in sets])
    second = MaxoutLayer([MaxoutUnit(Affine([[-ONE if k == i else ZERO for k in range(q)] for i in range(q)], [ZERO] * q,
                                            q))])
    return MaxoutNet(1, [first, second])


def _cpwl(f, replay, name):
    cert = replay.next("cpwl-lattice-check", name, ("model", "points", "values", "lattice"))
    (lo, hi), = replay.ranges[:1]
    pieces = list(dict.fromkeys(f.exact_pieces()))
    pts = {lo, hi} | {x for x in f.exact_x if lo < x < hi}
    for (a, c), (b, d) in itertools.combinations(pieces, 2):
        if a != b and lo < (d - c) / (a - b) < hi:
            pts.add((d - c) / (a - b))
    pts = sorted(pts)
    here = f"{replay.here}.certificate"
    if "points" not in cert or "values" not in cert:
        replay.fail(f"expected a key {'points' if 'points' not in cert else 'values'!r} (missing)",
                    f".certificate.{'points' if 'points' not in cert else 'values'}", error=MalformedCertificate)
    if rationals(cert["points"], f"{here}.points") != pts:
        replay.fail(f"expected the {len(pts)} check points: the ends of D, the breakpoints and the crossings of pieces, "
                    "in increasing order", ".certificate.points")
    if "lattice" in cert:
        try:
            g = read_input(cert["lattice"], path=f"{replay.here}.certificate.lattice", kinds=("maxout",))
        except SymrelError as err:
            raise CertificateError(str(err), path=f"{replay.here}.certificate.lattice") from None
    else:   # written before the lattice form was recorded: derived here, then checked as a recorded one
        g = _lattice_form(f)
    _check_lattice(f, g, replay)
    vals = rationals(cert["values"], f"{here}.values", length=len(pts))   # one value per check point
    for i, (p, v) in enumerate(zip(pts, vals)):
        if f.evaluate_exact([p]) != [v] or g.evaluate_exact([p]) != [v]:
            replay.fail(f"expected the value of f and of its lattice form at the check point {p}; they do not both "
                        f"equal {v}", f".certificate.values[{i}]")
    return _maxout(g, replay, name)


def _cpwl_mesh(f, replay, name):
    """Replay a CPWL function on a mesh: the box lies in its support (one ``[simplex, i, min]``
    per boundary facet, in :meth:`~symrel.models.cpwl_mesh.CPWLMesh.support_halfspaces` order,
    ``min`` the exact minimum of the facet's half-space form over the box, >= 0), then the
    recorded lattice form of each output (:func:`_check_mesh_lattice`) as a maxout net."""
    cert = replay.next("cpwl-mesh-lattice", name, ("model", "support", "lattice"))
    here = f"{replay.here}.certificate"
    box = replay.ranges[:f.input_dim]
    want = [(a, c, k, i) for a, c, k, i in f.support_halfspaces()]
    got = array(cert.get("support"), f"{here}.support")
    if len(got) != len(want):
        replay.fail(f"expected {len(want)} boundary facets (one [simplex, i, minimum] each), got {len(got)}", ".certificate.support")
    for e, ((a, c, k, i), rec) in enumerate(zip(want, got)):
        at = f"{here}.support[{e}]"
        rec = array(rec, at, 3)
        lo = c + sum((ai * (l if ai > 0 else u) for ai, (l, u) in zip(a, box)), ZERO)   # the minimum over the box
        if (natural(rec[0], f"{at}[0]"), natural(rec[1], f"{at}[1]")) != (k, i):
            replay.fail(f"expected the boundary facet of simplex {k} opposite its local vertex {i} here, got "
                        f"[{rec[0]}, {rec[1]}]", f".certificate.support[{e}]")
        if strict_rational(rec[2], f"{at}[2]") != lo or lo < 0:
            replay.fail(f"boundary facet of simplex {k} opposite local vertex {i}: expected its exact minimum over the "
                        f"box, {lo} (which must be >= 0), got {rec[2]}", f".certificate.support[{e}][2]")
    lattices = array(cert.get("lattice"), f"{here}.lattice")
    if len(lattices) != f.output_dim:
        replay.fail(f"expected one lattice form per output ({f.output_dim}), got {len(lattices)}", ".certificate.lattice")
    parsed = [_check_mesh_lattice(f, o, lat, replay, f"{here}.lattice[{o}]") for o, lat in enumerate(lattices)]
    return _maxout_layers(_lattice_layers(parsed, f.input_dim), None, f.input_dim, replay, name)


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
    second = [([[(t, PAIR_MINUS_ONE)] for t in group], [PAIR_ZERO] * len(group)) for group in groups]
    if not grouped:
        return [first, second]
    third = []
    for o in range(len(lattices)):
        mine = [g for g in range(len(groups)) if group_owner[g] == o]
        third.append(([[(g, PAIR_ONE)] for g in mine], [PAIR_ZERO] * len(mine)))
    return [first, second, third]


#: the keys of a mesh's recorded lattice form, of a split and of an empty part (docs/format.md)
MESH_LATTICE_KEYS = ("output", "pieces", "terms", "lower", "combos")
SPLIT_KEYS, EMPTY_KEYS = ("split", "above", "below"), ("empty",)


def _check_mesh_lattice(f, o, rec, replay, where):
    """The recorded lattice form of output o (at the JSON path ``where``) equals f on every
    simplex (vertex table): pieces of d coefficients, terms of distinct piece indices, one
    lower tree per simplex (:func:`_check_lower`) and convex combinations ``[term, simplex,
    [[piece, weight], ..]]`` below f, so that every term has a piece (or a combination of
    its pieces) ``<= f`` on every simplex."""
    record(rec, where, keys=MESH_LATTICE_KEYS)
    rel = where[len(replay.here):]
    if natural(rec["output"], f"{where}.output") != o:
        replay.fail(f"expected the lattice form of output {o} here, got output {rec['output']}", f"{rel}.output")
    d, n = f.input_dim, len(f.simplices)
    pieces = []
    for j, piece in enumerate(array(rec["pieces"], f"{where}.pieces")):
        at = f"{where}.pieces[{j}]"
        a, c = array(piece, at, 2)
        pieces.append((rationals(a, f"{at}[0]", length=d), strict_rational(c, f"{at}[1]")))
    if not pieces:
        replay.fail("expected at least one piece [coefficients, constant]", f"{rel}.pieces")
    terms = [indices(t, len(pieces), f"{where}.terms[{t_i}]") for t_i, t in enumerate(array(rec["terms"], f"{where}.terms"))]
    for t_i, t in enumerate(terms):
        if not t:
            replay.fail("expected a term of at least one piece index, got an empty list", f"{rel}.terms[{t_i}]")
    if not terms:
        replay.fail("expected at least one term (a list of piece indices)", f"{rel}.terms")
    lower = array(rec["lower"], f"{where}.lower")
    if len(lower) != n:
        replay.fail(f"expected one lower term (an index or a split tree) per simplex ({n}), got {len(lower)}",
                    f"{rel}.lower")
    at, under = _vertex_table(f, o, pieces)
    for k, tree in enumerate(lower):
        _check_lower(f, o, k, tree, pieces, terms, at, [], replay, f"{where}.lower[{k}]")
    combos = {}
    for e, combo in enumerate(array(rec["combos"], f"{where}.combos")):
        path = f"{where}.combos[{e}]"
        t, k, ws = array(combo, path, 3)
        t, k = index(t, len(terms), f"{path}[0]"), index(k, n, f"{path}[1]")
        if (t, k) in combos:
            replay.fail(f"expected each (term, simplex) once, got ({t}, {k}) again", f"{path[len(replay.here):]}")
        weights = []
        for m, entry in enumerate(array(ws, f"{path}[2]")):
            j, w = array(entry, f"{path}[2][{m}]", 2)
            weights.append((index(j, len(pieces), f"{path}[2][{m}][0]"), strict_rational(w, f"{path}[2][{m}][1]")))
        if len({j for j, _ in weights}) != len(weights):
            replay.fail("expected each piece once in a convex combination", f"{path[len(replay.here):]}[2]")
        if any(j not in terms[t] or w < 0 for j, w in weights) or sum((w for _, w in weights), ZERO) != 1:
            replay.fail(f"expected a convex combination of the pieces of term {t} (weights >= 0, sum 1)",
                        f"{path[len(replay.here):]}[2]")
        if any(sum((w * at[v][j] for j, w in weights), ZERO) > 0 for v in f.simplices[k]):
            replay.fail(f"the combination for term {t} lies above f at a vertex of simplex {k}", f"{path[len(replay.here):]}")
        combos[(t, k)] = weights
    for t, term in enumerate(terms):
        mine = sum(1 << j for j in set(term))
        for k in range(n):
            if not under[k] & mine and (t, k) not in combos:
                replay.fail(f"term {t} has no piece below f on simplex {k} (nor a combination in combos)",
                            f"{rel}.terms[{t}]")
    return pieces, terms


def _vertex_table(f, o, pieces):
    """``at[v][j] = l_j(x_v) - f_o(x_v)`` for every vertex v and piece j, as one exact
    matrix product ``[x_v, 1, -f_o(x_v)] [a_j; c_j; 1]`` (V x P entries, the bulk of the
    rule's time on large meshes), and ``under[k]``, the bit set of the pieces ``<= f`` at
    every vertex of simplex k (the AND of its vertices' bit sets)."""
    from ..exact import from_rationals, rows   # the matrix layer, for a mesh's certificates only

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


def _check_lower(f, o, k, tree, pieces, terms, at, path, replay, where):
    """On the part of simplex k cut out by ``path`` (``(j, True)``: ``l_j >= f``, ``(j, False)``:
    ``l_j < f``), the recorded lower tree (at the JSON path ``where``) gives a term whose pieces
    are all ``>= f`` (an index), or splits (``{split: j, above, below}``), or shows the part
    empty by a Farkas vector (``{empty: [[row, weight], ..]}``, Motzkin's form for the strict
    rows). A split repeats no piece, so the depth is at most the number of pieces."""
    rel = where[len(replay.here):]
    if isinstance(tree, dict) and "split" in tree:
        record(tree, where, keys=SPLIT_KEYS)
        j = index(tree["split"], len(pieces), f"{where}.split")
        if any(j == i for i, _ in path):
            replay.fail(f"expected a piece not split on above this part, got piece {j} again", f"{rel}.split")
        _check_lower(f, o, k, tree["above"], pieces, terms, at, path + [(j, True)], replay, f"{where}.above")
        _check_lower(f, o, k, tree["below"], pieces, terms, at, path + [(j, False)], replay, f"{where}.below")
        return
    if isinstance(tree, dict):
        record(tree, where, keys=EMPTY_KEYS)
        rows = _part_rows(f, o, k, pieces, path)
        y = {}
        for m, entry in enumerate(array(tree["empty"], f"{where}.empty")):
            i, w = array(entry, f"{where}.empty[{m}]", 2)
            i = index(i, len(rows), f"{where}.empty[{m}][0]")
            if i in y:
                replay.fail(f"expected each row of the part once, got row {i} again", f"{rel}.empty[{m}][0]")
            y[i] = strict_rational(w, f"{where}.empty[{m}][1]")
        if not y or any(w < 0 for w in y.values()):
            replay.fail(f"expected a Farkas vector of weights >= 0 on the {len(rows)} rows of the part", f"{rel}.empty")
        d = f.input_dim
        if any(sum((w * rows[i][0][c] for i, w in y.items()), ZERO) != 0 for c in range(d)):
            replay.fail("the Farkas vector does not cancel the rows (y^T A != 0)", f"{rel}.empty")
        total = sum((w * rows[i][1] for i, w in y.items()), ZERO)
        strict = any(rows[i][2] and w > 0 for i, w in y.items())
        if not (total < 0 or (total == 0 and strict)):
            replay.fail(f"the Farkas vector does not show the part empty (y^T b = {total})", f"{rel}.empty")
        return
    t = index(tree, len(terms), where)
    up = {j for j, side in path if side}
    for j in terms[t]:
        if j not in up and min(at[v][j] for v in f.simplices[k]) < 0:
            replay.fail(f"piece {j} of its lower term {t} lies below f at a vertex of simplex {k}, and no split "
                        "puts it above", rel)


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


def _check_polytope_box(P, box, duals, replay):
    """The polytope ``{x : A x <= b}`` lies in the box: for each coordinate i, vectors
    ``y, y' >= 0`` with ``A^T y = -e_i``, ``A^T y' = e_i``, ``b^T y = -lo_i``, ``b^T y' = hi_i``."""
    A, b = P.exact_halfspaces()
    if len(box) != P.dim or not isinstance(duals, list) or len(duals) != P.dim:
        replay.fail("one interval and one pair of dual vectors per coordinate expected")
    for i, ((lo, hi), pair) in enumerate(zip(box, duals)):
        replay.where = f".certificate.duals[{i}]"
        if not isinstance(pair, list) or len(pair) != 2:
            replay.fail(f"coordinate {i}: expected a pair of dual vectors [y, y']")
        for sense, bound, y in ((-1, -lo, pair[0]), (1, hi, pair[1])):
            if not isinstance(y, list) or len(y) != len(A):
                replay.fail(f"coordinate {i}: a dual vector must have one entry >= 0 per inequality")
            y = [replay.number(v, f"[{(sense + 1) // 2}][{r}]") for r, v in enumerate(y)]
            if any(v < 0 for v in y):
                replay.fail(f"coordinate {i}: a dual vector must have one entry >= 0 per inequality")
            if any(sum((yr * row[k] for yr, row in zip(y, A)), ZERO) != (sense if k == i else 0) for k in range(P.dim)):
                replay.fail(f"coordinate {i}: A^T y is not {'+' if sense > 0 else '-'}e_{i}")
            if sum((yr * br for yr, br in zip(y, b)), ZERO) != bound:
                replay.fail(f"coordinate {i}: b^T y differs from the recorded bound")


def _check_witness(P, box, first, replay):
    """The recorded witness w is the lexicographically smallest point of the polytope
    ``D = {x : A x <= b}``: it lies in D; ``w_0`` is the box's lower bound ``lo_0`` (the minimum
    of x_0 over D, by the box's dual); and for k >= 1 the recorded ``[y, mu]`` (``y >= 0``, one
    entry per inequality; ``mu``, k entries of any sign) has ``A^T y + sum_(j<k) mu_j e_j = -e_k``
    and ``b^T y + sum_(j<k) mu_j w_j = -w_k``, so ``x_k >= w_k`` on the points of D that agree
    with w before k.

    So D is not empty (a claim "for all x in D" over an empty D would hold of any two models),
    and the point is canonical: no number of the record can move without notice. Cost:
    O(d^2 m) operations for d coordinates and m inequalities."""
    replay.where = ".certificate.witness"
    point = first.get("witness")
    if not isinstance(point, list) or len(point) != P.dim:
        replay.fail(f"a polytope domain needs a recorded point of it (witness: {P.dim} coordinates, its "
                    "lexicographic minimum), so that the claim is not vacuous")
    w = [replay.number(v, f"[{i}]") for i, v in enumerate(point)]
    A, b = P.exact_halfspaces()
    for r, (row, c) in enumerate(zip(A, b)):
        if sum((a * v for a, v in zip(row, w)), ZERO) > c:
            replay.fail(f"the witness is not a point of the domain: it violates inequality {r}")
    if w[0] != box[0][0]:
        replay.fail(f"the witness's first coordinate {w[0]} is not the box's lower bound {box[0][0]}")
    lex = first.get("lex")
    replay.where = ".certificate.lex"
    if not isinstance(lex, list) or len(lex) != P.dim - 1:
        replay.fail(f"expected {P.dim - 1} pairs [y, mu] showing the witness lexicographically smallest")
    for k, entry in enumerate(lex, start=1):
        replay.where = f".certificate.lex[{k - 1}]"
        if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], list) \
                or not isinstance(entry[1], list) or len(entry[0]) != len(A) or len(entry[1]) != k:
            replay.fail(f"expected [y, mu]: y with one entry per inequality, mu with {k} entries")
        y = [replay.number(v, f"[0][{r}]") for r, v in enumerate(entry[0])]
        mu = [replay.number(v, f"[1][{j}]") for j, v in enumerate(entry[1])]
        if any(v < 0 for v in y):
            replay.fail("y must be >= 0")
        for c in range(P.dim):
            total = sum((yr * row[c] for yr, row in zip(y, A) if yr), ZERO) + (mu[c] if c < k else ZERO)
            if total != (-1 if c == k else 0):
                replay.fail(f"A^T y + sum mu_j e_j is not -e_{k} (coordinate {c})")
        if sum((yr * br for yr, br in zip(y, b)), ZERO) + sum((mj * wj for mj, wj in zip(mu, w)), ZERO) != -w[k]:
            replay.fail(f"b^T y + sum mu_j w_j is not -w_{k}: the witness is not the lexicographic minimum")


def _read_box(first, replay):
    """The recorded box ``[[lo, hi], ..]`` of the domain-box step, as pairs of rationals."""
    replay.where = ".certificate.box"
    box = first.get("box")
    if not isinstance(box, list) or not box:
        replay.fail("expected the box as a non-empty list of intervals [lo, hi]")
    out = []
    for i, iv in enumerate(box):
        replay.where = f".certificate.box[{i}]"
        lo, hi = replay.rational_range(iv, f"interval {i}")
        if lo > hi:
            replay.fail(f"interval {i} is empty: [{lo}, {hi}]")
        out.append((lo, hi))
    return out


#: the replay of each model class, by its dotted name (:func:`symrel.checking.model_class`)
def _transformer(tf, replay, name):
    from .transformer_replay import replay_transformer  # loaded only for a certificate with a Transformer

    return replay_transformer(tf, replay, name)


_REPLAY = {"maxout": _maxout, "relu": _relu, "cpwl1d": _cpwl, "cpwl": _cpwl_mesh, "transformer": _transformer}


@claim_checker("equivalence", rules=RULES)
def check_equivalence(cert: dict, inputs: dict) -> None:
    """Replay the certificate of "for all x in D, A(x) = B(x)"; raises CertificateError.

    Rule: the claim names two models and a domain among the inputs; the models' input
    dimension is the domain's and their output dimensions agree (a model of more inputs
    would read node variables as inputs, and a zip of unequal outputs would compare a
    prefix). The first step bounds the domain by a box (the domain itself, or a polytope
    inside it by LP duality, with a recorded point of it so that D is not empty); then both
    models are replayed over the box (module docstring) and the last step shows their
    outputs equal: the same forms (``linear-identity``) or equal on every cell of the nodes
    they depend on (``node-cells``, :mod:`symrel.checking.node_cells`)."""
    claim = cert["claim"]
    names = []
    for field in ("a", "b", "domain"):
        name = claim.get(field)
        if not isinstance(name, str) or name not in inputs:
            raise CertificateError(f"expected the name of an input, got {name!r}", path=f"claim.{field}")
        names.append(name)
    if len(set(names)) != 3:
        raise CertificateError(f"expected three different inputs, got {names}", path="claim")
    a, b, domain = (inputs[n] for n in names)
    if model_class(domain) not in ("box", "polytope"):
        raise CertificateError("expected a box or a polytope", path=f"inputs.{names[2]}")
    for model, field in ((a, "a"), (b, "b")):
        if model_class(model) not in _REPLAY:
            raise CertificateError(f"no replay for a model of kind {getattr(model, 'kind', '?')}",
                                   path=f"inputs.{claim[field]}")
        if model.input_dim != domain.dim:
            raise CertificateError(f"model {field} has {model.input_dim} inputs, the domain has dimension {domain.dim}",
                                   path=f"inputs.{claim[field]}")
    if a.output_dim != b.output_dim:
        raise CertificateError(f"model a has {a.output_dim} outputs, model b {b.output_dim}", path=f"inputs.{claim['b']}")
    steps = cert["steps"]
    replay = _ProofReplay(steps, [])
    first = replay.next("domain-box", keys=("box", "duals", "witness", "lex"))
    box = _read_box(first, replay)
    if model_class(domain) == "box":
        if box != list(domain.exact_bounds):
            replay.fail("the box differs from the domain")
    else:
        _check_polytope_box(domain, box, first.get("duals"), replay)
        _check_witness(domain, box, first, replay)
    replay.ranges, replay.dim = list(box), len(box)
    outs = [_REPLAY[model_class(model)](model, replay, name) for model, name in ((a, "a"), (b, "b"))]
    if replay.pos < len(steps) and steps[replay.pos].get("rule") == "node-cells":
        from .node_cells import check_node_cells

        last = replay.next("node-cells", keys=("outputs_a", "outputs_b", "nodes", "free", "tree", "cells"))
        check_node_cells(last, replay, outs, domain)
    else:
        last = replay.next("linear-identity", keys=("outputs",))
        replay.compare(outs[0], last.get("outputs"), "outputs of A")
        replay.compare(outs[1], last.get("outputs"), "outputs of B")
    if replay.pos != len(steps):
        raise CertificateError("unexpected step after the final identity", path=f"steps[{replay.pos}]")


# -- what a checked certificate proves (symrel.checking.claims) ----------------------------
from .claims import claim_statement, domain_words, model_words  # noqa: E402  (the hook below the checker)
from .read import string as _string  # noqa: E402


@claim_statement("equivalence", keys=("a", "b", "domain"),
                 inputs=lambda claim: tuple(_string(claim[k], f"claim.{k}") for k in ("a", "b", "domain")))
def statement(claim, inputs) -> str:
    """For all x in D, A(x) = B(x): the two models and the domain the claim names."""
    a, b, domain = inputs[claim["a"]], inputs[claim["b"]], inputs[claim["domain"]]
    return (f"for all x in D, A(x) = B(x), where A is {model_words(a)} (input {claim['a']!r}), B is "
            f"{model_words(b)} (input {claim['b']!r}) and D is {domain_words(domain)} (input {claim['domain']!r})")
