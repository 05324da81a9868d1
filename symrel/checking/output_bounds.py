"""Checker for ``claim.kind == "output-bounds"`` certificates (docs/format.md, "output-bounds").

The claim: for every input ``x`` of the box ``B`` (the input ``region``) and every listed
output ``j``, ``lower_j <= N(x)_j <= upper_j``, where ``N`` is the embedded ReLU net (the input
``network``); a side listed in ``attained`` is reached at a point of ``B``, so it is the
minimum (maximum) of ``N_j`` over ``B`` itself.

Two steps ``output-bound-branch-and-bound`` per listed output, in the claim's order: its lower
side, then its upper side. A step's tree covers ``B`` as a ``vnnlib-unsat`` tree does (input
splits, ReLU splits, leaves: :func:`symrel.checking.relu_leaves._tree_leaves`), and a leaf's
``phases`` and ``relaxations`` are checked by the same rules (:func:`symrel.checking.relu_leaves._states`).
What differs is the close: a leaf records one ``bound``, recomputed by backward substitution
from ``mu = e_j`` (lower side) or ``mu = -e_j`` (upper side) at the outputs, minimised over the
leaf's box (:func:`symrel.checking.relu_leaves._backward_min`, with the leaf's optional ``beta`` and
``alpha``; a slope of ``alpha`` that the substitution does not take, its neuron's coefficient
not being positive, must be the relaxation's, so that the certificate holds no number its
check does not fix); on the lower side the leaf's ``bound`` is that minimum and must be ``>= lower_j``,
on the upper side it is minus that minimum and must be ``<= upper_j``. The comparison is not
strict (``vnnlib-unsat`` needs ``bound > rhs``): a bound equal to the exact minimum of a leaf is
the point. An ``attained`` point is checked by exact evaluation: in ``B``, and ``N(x)_j``
equal to the bound.

Bounded cost: at most :data:`MAX_TREE_ENTRIES` tree entries over all steps; the leaves are
counted before any is checked, and again with their boxes as the trees are walked, each
costing about (weights) x (inputs + 2) operations times the weight of its numbers' bits
(:data:`MAX_LEAF_OPERATIONS` in all, :func:`symrel.checking.relu_leaves.leaf_operations`); the numbers
of a relaxation, a slope or a beta have at most
:data:`~symrel.checking.vnnlib_limits.MAX_RELAXATION_BITS` bits, and a leaf's numbers are bounded
(:func:`symrel.checking.relu_leaves.leaf_bits`) before its bound is computed.

Shares no code with :mod:`symrel.vnnlib`; its leaves are checked by the ``vnnlib-unsat``
checker's own machinery (:mod:`symrel.checking.relu_leaves`), here or on an executor's workers
(:func:`symrel.checking.leaf_runs.leaves_checked_on`); it does not load the ``vnnlib-unsat``
claim's module (:mod:`symrel.checking.vnnlib`).
"""

from __future__ import annotations

from ..exact import Q
from ..exact.sizes import check_product_bits, number_bits
from . import CertificateError, at_step, beyond_limit, claim_checker
from .read import array, index, rational, record, string
from .leaf_runs import run_leaves
from .network_file import file_name, read_network_file, sha256_text
from .relu_leaves import (_backward_min, _layers, _row_times, _slopes, _states, _tree_leaves, box_bits,
                          leaf_bits, leaf_operations, split_betas)
from .vnnlib_limits import MAX_LEAF_OPERATIONS, MAX_RELAXATION_BITS, MAX_TREE_ENTRIES

RULE = "output-bound-branch-and-bound"
SIDES = ("lower", "upper")
__all__ = ["RULE", "SIDES", "MAX_TREE_ENTRIES", "MAX_LEAF_OPERATIONS", "MAX_RELAXATION_BITS", "check_output_bounds",
           "read_bounds"]


def read_bounds(claim, n_out: int):
    """``claim.bounds``: ``[(j, lower, upper, attained sides), ...]``, the outputs ``j`` strictly
    increasing (each listed once) and in range, ``lower <= upper``."""
    entries = array(claim.get("bounds"), "claim.bounds")
    if not entries:
        raise CertificateError("expected at least one output", path="claim.bounds")
    out = []
    for k, entry in enumerate(entries):
        where = f"claim.bounds[{k}]"
        entry = record(entry, where, keys=("output", "lower", "upper"), optional=("attained",))
        j = index(entry["output"], n_out, f"{where}.output")
        if out and j <= out[-1][0]:
            raise CertificateError(f"expected an output after {out[-1][0]} (each output once, in increasing order), "
                                   f"got {j}", path=f"{where}.output")
        lo, hi = rational(entry["lower"], f"{where}.lower"), rational(entry["upper"], f"{where}.upper")
        if lo > hi:
            raise CertificateError(f"expected lower <= upper, got {lo} > {hi}", path=where)
        attained = ()
        if "attained" in entry:
            sides = array(entry["attained"], f"{where}.attained")
            attained = tuple(string(s, f"{where}.attained[{i}]", choices=SIDES) for i, s in enumerate(sides))
            if list(attained) not in (["lower"], ["upper"], ["lower", "upper"]):
                raise CertificateError("expected the sides reached, each once, lower first: [\"lower\"], [\"upper\"] "
                                       "or [\"lower\", \"upper\"]", path=f"{where}.attained")
        out.append((j, lo, hi, attained))
    return out


def _order(claim, inputs):
    try:
        entries = array(claim.get("bounds"), "claim.bounds")
    except CertificateError:
        return [RULE]
    return [RULE] * max(1, 2 * len(entries))


def _objectives(bounds):
    """Per step, in order: ``(j, side, the claimed bound)``."""
    return [(j, side, lo if side == "lower" else hi) for j, lo, hi, _ in bounds for side in SIDES]


def check_bound_leaf(layers, facts, lo, hi, step, objectives, _unused, where, splits=()):
    """One leaf of step ``step`` (module docstring): its phases and relaxations
    (:func:`symrel.checking.relu_leaves._states`), then its recorded ``bound`` recomputed exactly
    and compared with the step's claimed bound. The arguments are those of the
    ``vnnlib-unsat`` leaf check (:func:`symrel.checking.leaf_runs.run_leaves` calls either):
    ``objectives`` is the claim's ``(j, side, bound)`` per step. Returns True."""
    j, side, claimed = objectives[step]
    facts = record(facts, where, keys=("phases", "relaxations", "bound"), optional=("beta", "alpha"))
    states = _states(layers, lo, hi, facts, where, {(k, i): c for k, i, c in splits})
    betas = split_betas(facts, splits, where)
    slopes = _slopes(states, facts["alpha"], f"{where}.alpha") if "alpha" in facts else states
    n_out = len(layers[-1]["b"])
    sign = 1 if side == "lower" else -1
    mu = [Q(sign if o == j else 0) for o in range(n_out)]
    # the leaf's own slopes and betas, at every ReLU layer, join its numbers (as a vnnlib-unsat
    # close's do): bounded before the substitution multiplies them through the layers
    chosen = [b[3] for b in betas] + [st[0] for layer in slopes for st in layer if isinstance(st, tuple)]
    relus = sum(1 for layer in layers if layer["relu"])
    close_bits = number_bits([claimed], where=where) + relus * number_bits(chosen, where=where)
    check_product_bits(leaf_bits([layer["sizes"] for layer in layers], box_bits(lo, hi, where), close_bits),
                       where=where, what="the numbers of this leaf's bound")
    least = _backward_min(layers, slopes, mu, [Q(0)] * len(lo), lo, hi, betas)
    if "alpha" in facts:   # a slope the bound does not take is the relaxation's: no free number
        used = _slopes_taken(layers, slopes, mu, betas)
        at = 0
        for k, (layer, own) in enumerate(zip(states, slopes)):
            for i, (st, chosen) in enumerate(zip(layer, own)):
                if isinstance(st, tuple):
                    if (k, i) not in used and chosen[0] != st[0]:
                        raise CertificateError(f"the bound does not take this slope (neuron {i} of ReLU layer {k} "
                                               f"has no positive coefficient): expected the relaxation's alpha "
                                               f"{st[0]}, got {chosen[0]}", path=f"{where}.alpha[{at}]")
                    at += 1
    got = least if side == "lower" else -least
    bound = rational(facts["bound"], f"{where}.bound")
    if got != bound:
        raise CertificateError(f"the bound recomputed is {got}, not {bound}", path=f"{where}.bound")
    if side == "lower" and not bound >= claimed:
        raise CertificateError(f"bound {bound} is below the claimed lower bound {claimed} of output {j}: Y_{j} may be "
                               "smaller on this leaf", path=f"{where}.bound")
    if side == "upper" and not bound <= claimed:
        raise CertificateError(f"bound {bound} is above the claimed upper bound {claimed} of output {j}: Y_{j} may be "
                               "larger on this leaf", path=f"{where}.bound")
    return True


def _slopes_taken(layers, states, mu, betas):
    """``(relu layer, neuron)`` of every unstable neuron whose lower slope the substitution of
    :func:`symrel.checking.relu_leaves._backward_min` takes (its coefficient is positive when the
    substitution reaches its layer): the coefficients alone, substituted the same way."""
    taken = set()
    k = len(states)
    for layer in reversed(layers):
        if layer["relu"]:
            k -= 1
            nu = []
            for i, (v, st) in enumerate(zip(mu, states[k])):
                if st == 1:
                    nu.append(v)
                elif st == 0 or not v:
                    nu.append(Q(0))
                else:
                    if v > 0:
                        taken.add((k, i))
                    nu.append(v * (st[0] if v > 0 else st[1]))
            for bk, bi, bc, beta in betas:
                if bk == k:
                    nu[bi] += -beta if bc == "a" else beta
            mu = nu
        if layer["Wz"] is not None:   # the row vector mu times W, exactly, in C (as _backward_min)
            mu = _row_times(layer, mu)
        else:
            mu = [sum((v * row[c] for v, row in zip(mu, layer["W"]) if v and row[c]), Q(0))
                  for c in range(len(layer["W"][0]))]
    return taken


def _leaf_operations(layers, steps, n_in) -> int:
    """Refuse, before any leaf is checked, a certificate whose leaves would cost more than
    :data:`MAX_LEAF_OPERATIONS` (the leaves counted in the trees as written, each at least
    :func:`symrel.checking.relu_leaves.leaf_operations` of the network's numbers with one close: the
    forward forms and one backward pass; the walk of the trees counts each leaf again with its
    box); the number of leaves."""
    weights = sum(len(layer["bi"]) * layer["sizes"][2] for layer in layers)
    leaves = 0
    for step in steps:
        data = step.get("certificate") if type(step) is dict else None
        tree = data.get("tree") if type(data) is dict else None
        if type(tree) is list:
            leaves += sum(1 for e in tree if type(e) is dict and "leaf" in e)
    work = leaves * leaf_operations(weights, n_in, 1, leaf_bits([layer["sizes"] for layer in layers], 0))
    if work > MAX_LEAF_OPERATIONS:
        raise beyond_limit("leaf operations", work, MAX_LEAF_OPERATIONS, "steps")
    return leaves


def _leaves(net, steps, objectives, box, widths, attained_sides, cost):
    """Every leaf of every step (:func:`symrel.checking.relu_leaves._tree_leaves`, with ``cost`` as
    it takes it), each step's own records checked when its turn comes: its output, side and
    bound as the claim says, and its ``attained`` point (exactly where the claim lists the side)."""
    lo, hi = [a for a, _ in box], [b for _, b in box]
    n_in = len(lo)
    budget = [MAX_TREE_ENTRIES, MAX_LEAF_OPERATIONS]
    for s, (j, side, claimed) in enumerate(objectives):
        at_step(s)
        where = f"steps[{s}].certificate"
        data = record(steps[s]["certificate"], where, keys=("output", "side", "bound", "tree"), optional=("attained",))
        if index(data["output"], net.output_dim, f"{where}.output") != j:
            raise CertificateError(f"expected output {j} (two steps per listed output, in the claim's order)",
                                   path=f"{where}.output")
        if string(data["side"], f"{where}.side", choices=SIDES) != side:
            raise CertificateError(f"expected side {side!r} (the lower side of each output first)",
                                   path=f"{where}.side")
        if rational(data["bound"], f"{where}.bound") != claimed:
            raise CertificateError(f"is not the claim's {side} bound {claimed} of output {j}", path=f"{where}.bound")
        if (side in attained_sides[s // 2]) != ("attained" in data):
            raise CertificateError(f"expected {'an' if side in attained_sides[s // 2] else 'no'} attained point: the "
                                   f"claim lists the attained sides of output {j} as {list(attained_sides[s // 2])}",
                                   path=f"{where}.attained" if "attained" in data else where)
        if "attained" in data:
            x = [rational(v, f"{where}.attained[{i}]") for i, v in enumerate(array(data["attained"],
                                                                                    f"{where}.attained", n_in))]
            out = next((i for i in range(n_in) if not lo[i] <= x[i] <= hi[i]), None)
            if out is not None:
                raise CertificateError(f"the point is outside the box: x_{out} = {x[out]} not in "
                                       f"[{lo[out]}, {hi[out]}]", path=f"{where}.attained[{out}]")
            y = net.evaluate_exact(x)[j]
            if y != claimed:
                raise CertificateError(f"the network's output {j} at the point is {y}, not the bound {claimed}",
                                       path=f"{where}.attained")
        tree = array(data["tree"], f"{where}.tree")
        yield from _tree_leaves(tree, lo, hi, s, f"{where}.tree", budget, widths, cost)


@claim_checker("output-bounds", rules={RULE}, order=_order)
def check_output_bounds(cert: dict, inputs: dict) -> None:
    claim = record(cert["claim"], "claim", keys=("kind", "network_sha256", "bounds"),
                   optional=("network_file", "region_file", "statement", "construction"))
    net, box = inputs.get("network"), inputs.get("region")
    if set(inputs) != {"network", "region"} or getattr(net, "kind", None) != "relu" \
            or getattr(box, "kind", None) != "box":
        raise CertificateError("expected two inputs: 'network', a ReLU net (kind relu), and 'region', a box",
                               path="inputs")
    if string(claim["network_sha256"], "claim.network_sha256") != cert["inputs"]["network"]["sha256"]:
        raise CertificateError("is not the sha256 of the embedded network", path="claim.network_sha256")
    read_network_file(claim)
    _read_region_file(claim)
    if box.dim != net.input_dim:
        raise CertificateError(f"the region is a box in R^{box.dim}, the network has {net.input_dim} inputs",
                               path="inputs.region")
    bounds = read_bounds(claim, net.output_dim)
    objectives = _objectives(bounds)
    layers = _layers(net)
    total = _leaf_operations(layers, cert["steps"][:len(objectives)], net.input_dim)
    widths = [len(layer["bi"]) for layer in layers if layer["relu"]]
    # one close per leaf, the first layer's weights counted as the others', the global limit
    cost = ([layer["sizes"] for layer in layers], sum(len(layer["bi"]) * layer["sizes"][2] for layer in layers), 1,
            0, MAX_LEAF_OPERATIONS)
    leaves = _leaves(net, cert["steps"], objectives, box.exact_bounds, widths, [b[3] for b in bounds], cost)
    run_leaves(net, layers, leaves, objectives, None, total, check_bound_leaf, _layers)
    return None


def _read_region_file(claim) -> dict | None:
    """``claim.region_file`` (optional): ``{"name", "sha256"}`` of the file the region was
    read from (a box file, or the ``.vnnlib`` file whose input region it is)."""
    if "region_file" not in claim:
        return None
    entry = record(claim["region_file"], "claim.region_file", keys=("name", "sha256"))
    return {"name": file_name(entry["name"], "claim.region_file.name"),
            "sha256": sha256_text(entry["sha256"], "claim.region_file.sha256")}


# -- what a checked certificate proves (symrel.checking.claims) ----------------------------
from .claims import claim_statement, domain_words, model_words, number_words  # noqa: E402

#: outputs named one by one in a statement (more are counted)
OUTPUTS_SHOWN = 8


@claim_statement("output-bounds", keys=("network_sha256", "bounds"), optional=("network_file", "region_file"),
                 inputs=("network", "region"))
def statement(claim, inputs) -> str:
    """For every x in the box, each listed output lies between its bounds."""
    net = inputs["network"]
    bounds = read_bounds(claim, net.output_dim)
    parts = []
    for j, lo, hi, attained in bounds[:OUTPUTS_SHOWN]:
        text = f"{number_words(lo)} <= Y_{j} <= {number_words(hi)}"
        if attained:
            text += " (" + " and ".join({"lower": "the minimum", "upper": "the maximum"}[s] for s in attained) \
                + " attained)"
        parts.append(text)
    if len(bounds) > OUTPUTS_SHOWN:
        parts.append(f"and {len(bounds) - OUTPUTS_SHOWN} more outputs")
    return (f"for every x in {domain_words(inputs['region'])}, the outputs Y = N(x) satisfy " + "; ".join(parts)
            + f", where N is {model_words(net)}")
