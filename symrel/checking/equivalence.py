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

The parts a certificate needs only for some inputs are modules of their own, loaded for those
certificates only: a polytope's domain step (:mod:`symrel.checking.polytope_domain`), the
lattice forms of CPWL functions of one variable (:mod:`symrel.checking.cpwl_lattice`) and on
meshes (:mod:`symrel.checking.mesh_lattice`), and the replay of a Transformer
(:mod:`symrel.checking.transformer_replay`).
"""

from __future__ import annotations

from ..exact import Q
from . import CertificateError, MalformedCertificate, at_step, claim_checker, model_class
from .read import array, index, natural, rational as strict_rational, rational_pair, record
from .kernel import (PAIR_MINUS_ONE, PAIR_ONE, PAIR_ZERO, READOUT_KEYS, ZERO_FORM, bounds, combine, extreme, int_rows,
                     int_vector, key, mat_apply, read_form, single_var, to_q, var)

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
            return strict_rational(value, None)
        except MalformedCertificate:
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
            if "scores" in nd:   # a select node, decided by the node-cells step: its module reads it
                from .node_cells import declare_select

                declare_select(self, nd, nid, terms, recorded, at)
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
            c, k = (rational_pair(scale[e], f"{at}.scale[{e}]") for e in (0, 1))
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


def _transformer(tf, replay, name):
    from .transformer_replay import replay_transformer  # loaded only for a certificate with a Transformer

    return replay_transformer(tf, replay, name)


def _cpwl(f, replay, name):
    """A CPWL function of one variable: its lattice form, checked, replayed as a maxout net."""
    from .cpwl_lattice import checked_lattice_form  # loaded only for a certificate with such a function

    return _maxout(checked_lattice_form(f, replay, name), replay, name)


def _cpwl_mesh(f, replay, name):
    """A CPWL function on a mesh: its lattice forms, checked, replayed as maxout layers."""
    from .mesh_lattice import checked_lattice_layers  # loaded only for a certificate with such a function

    return _maxout_layers(checked_lattice_layers(f, replay, name), None, f.input_dim, replay, name)


#: the replay of each model class, by its kind (:func:`symrel.checking.model_class`); each but
#: the nets' in its own module, loaded for a certificate with such a model only
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
    else:   # loaded only for a certificate on a polytope
        from .polytope_domain import check_polytope_box, check_witness

        check_polytope_box(domain, box, first.get("duals"), replay)
        check_witness(domain, box, first, replay)
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
