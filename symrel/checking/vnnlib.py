"""Checker for ``claim.kind == "vnnlib-unsat"`` certificates (docs/format.md, "vnnlib-unsat").

The claim: no input ``x`` of the property's input region has outputs ``y = N(x)`` of the
embedded ReLU net ``N`` meeting the unsafe condition (of a layered net: the trees and leaves
are those of :mod:`symrel.checking.vnnlib_layered`, the rest as here). The claim holds the property
(its input region and unsafe condition in disjunctive normal form, exact rationals) and the
sha256 of the property file and of the network; the network is the input ``network``.

One step ``vnnlib-branch-and-bound`` per input disjunct ``d``, in order. Its box is the
tightest single-variable bounds of the disjunct's atoms (recomputed here; the step records
it and must agree). Its tree, a preorder list, covers the box: a split entry
``{"split": i, "at": c}`` with ``lo_i < c < hi_i`` is followed by the tree of the part
``x_i <= c`` and then by that of the part ``x_i >= c`` (the two parts' union is the node);
a ReLU split ``{"relu": [k, i]}`` is followed by the tree of the part where neuron ``i`` of
ReLU layer ``k`` has ``z <= 0`` and then by that of the part where ``z >= 0`` (same box; the
sides are inherited down the path, and clip that neuron's range ``[lz, uz]`` in step 1);
a leaf entry ``{"leaf": facts}`` closes its box ``B`` (its part where the sides hold):

1. forward symbolic intervals: every neuron ``z`` gets affine forms ``L_z <= z <= U_z``
   on ``B`` (rounded outward after each ReLU layer), and, where these leave a phase open,
   backward bounds (docs/format.md); with ``[lz, uz]`` the tighter of the two, the recorded
   phase of each ReLU must follow: ``a`` (active) needs ``lz >= 0``, ``i`` ``uz <= 0``, and ``u``
   (unstable) takes the next recorded relaxation ``[alpha, s, t]`` with ``0 <= alpha <= 1``,
   ``s >= 0`` and ``s w + t >= max(0, w)`` at ``w = lz`` and ``w = uz``;
   then ``h`` has the forms ``L_z, U_z`` (a), ``0, 0`` (i), ``alpha L_z, s U_z + t`` (u);
2. for every unsafe disjunct, in order, the recorded atom (one of the disjunct's, or a
   constraint of the input disjunct) has the recorded ``bound``, recomputed by substituting
   the layers backwards (``h = z``, ``h = 0``, ``h >= alpha z`` under a coefficient >= 0,
   ``h <= s z + t`` under one < 0; with a close's ``beta``, one multiplier >= 0 per ReLU
   split on the path, the split neuron's coefficient gains ``-beta`` (side ``z >= 0``) or
   ``+beta`` (side ``z <= 0``); with a close's ``alpha``, one lower slope in ``[0, 1]`` per
   unstable neuron replaces the relaxations' in this substitution) and minimising over ``B``;
   and ``bound > rhs``, so the atom fails on all of the leaf's part and the unsafe disjunct
   with it.

An empty box (``lo_i > hi_i``) has the tree ``[{"empty": i}]``.

Bounded cost: at most :data:`MAX_TREE_ENTRIES` tree entries in all; each leaf costs
``O(layers * width^2 * inputs)`` rational operations on numbers read from the file.

This module reads the claim, the property and the steps' boxes; a ReLU net's leaves are
:mod:`symrel.checking.relu_leaves`'s, a layered net's :mod:`symrel.checking.vnnlib_layered`'s,
each loaded for a certificate of such a net only, and checked here or on an executor's
workers (:mod:`symrel.checking.leaf_runs`).

Shares no code with :mod:`symrel.vnnlib`.
"""

from __future__ import annotations

from itertools import compress

from . import CertificateError, at_step, claim_checker
from .leaf_runs import LEAVES_PER_TASK, LeafRun, leaves_checked_on, run_leaves  # noqa: F401 (named here by callers)
from .network_file import file_name, read_network_file, sha256_text  # noqa: F401 (named here by callers)
from .read import array, index, natural, rational, record, string
from .vnnlib_limits import (BOUND_BITS, MAX_ATOMS, MAX_LEAF_OPERATIONS, MAX_RELAXATION_BITS,  # noqa: F401
                            MAX_TREE_ENTRIES, SLOPE_BITS)

RULE = "vnnlib-branch-and-bound"
#: the names of a ReLU net's leaf check that the engines read from here (FORM_BITS, leaf_bits,
#: ...), loaded from :mod:`symrel.checking.relu_leaves` on first use, so that a check of a
#: layered net does not load that module
_OF_RELU_LEAVES = ("FORM_BITS", "leaf_bits", "box_bits", "leaf_operations", "leaf_operations_limit", "relaxation")


def __getattr__(name):
    """The names of :data:`_OF_RELU_LEAVES`, from :mod:`symrel.checking.relu_leaves` (PEP 562)."""
    if name in _OF_RELU_LEAVES:
        from . import relu_leaves

        return getattr(relu_leaves, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: the JSON types of a number (a bool, whose type is bool, and a JSON float, a FloatLiteral, are not)
_INT_OR_STR = frozenset((int, str))


def _atom(obj, n_in, n_out, path, seen=None):
    """``(x, y, rhs)`` of an atom; ``seen``: the rationals already read, by their JSON value,
    an int or a string (an MNIST property's 1,568 box atoms hold 1.2 million coefficients,
    nearly all 0)."""
    rec = record(obj, path, keys=("x", "y", "rhs"))
    seen = {} if seen is None else seen

    def read(values, where):
        if all(map(_INT_OR_STR.__contains__, map(type, values))) and seen.keys() >= set(values):
            return list(map(seen.__getitem__, values))   # all read before (1 != "1": one memo serves both)
        out = []
        for i, v in enumerate(values):   # in order, so that the first bad entry is the one named
            got = seen.get(v) if type(v) in _INT_OR_STR else None
            if got is None:
                got = rational(v, f"{where}[{i}]")   # a bool, a float...: refused here
                if type(v) in _INT_OR_STR:
                    seen[v] = got
            out.append(got)
        return out

    x = read(array(rec["x"], f"{path}.x", n_in), f"{path}.x")
    y = read(array(rec["y"], f"{path}.y", n_out), f"{path}.y")
    return x, y, read([rec["rhs"]], f"{path}.rhs")[0]


def read_property(claim):
    """``(n_in, n_out, input_region, unsafe)`` from ``claim.property`` (atoms as ``(x, y, rhs)``)."""
    path = "claim.property"
    obj = record(claim.get("property"), path, keys=("inputs", "outputs", "input_region", "unsafe"))
    n_in, n_out = natural(obj["inputs"], f"{path}.inputs"), natural(obj["outputs"], f"{path}.outputs")
    total = 0
    sides, seen = [], {}
    for side in ("input_region", "unsafe"):
        disjuncts = []
        for d, conj in enumerate(array(obj[side], f"{path}.{side}")):
            atoms = array(conj, f"{path}.{side}[{d}]")
            total += len(atoms)
            if total > MAX_ATOMS:
                raise beyond_limit("property atoms", total, MAX_ATOMS, f"{path}.{side}")
            disjuncts.append([_atom(a, n_in, n_out, f"{path}.{side}[{d}][{k}]", seen) for k, a in enumerate(atoms)])
        sides.append(disjuncts)
    for d, conj in enumerate(sides[0]):
        for k, (_, y, _) in enumerate(conj):
            if any(y):
                raise CertificateError("expected an atom over X alone", path=f"{path}.input_region[{d}][{k}].y")
    return n_in, n_out, sides[0], sides[1]


def disjunct_box(conj, n):
    """The tightest single-variable bounds of an input disjunct; None for an unbounded input."""
    lo, hi = [None] * n, [None] * n
    for x, _, rhs in conj:
        nz = list(compress(range(n), x))   # the inputs of the nonzero coefficients
        if len(nz) != 1:
            continue
        i = nz[0]
        b = rhs / x[i]
        if x[i] > 0:
            hi[i] = b if hi[i] is None else min(hi[i], b)
        else:
            lo[i] = b if lo[i] is None else max(lo[i], b)
    return lo, hi


def _order(claim, inputs):
    try:
        region = array(record(claim.get("property"), "claim.property", optional=(
            "inputs", "outputs", "input_region", "unsafe")).get("input_region"), "claim.property.input_region")
    except CertificateError:
        return [RULE]
    return [RULE] * max(1, len(region))


@claim_checker("vnnlib-unsat", rules={RULE}, order=_order)
def check_vnnlib_unsat(cert: dict, inputs: dict) -> None:
    claim = record(cert["claim"], "claim", keys=("kind", "network_sha256", "property_sha256", "property"),
                   optional=("property_source", "network_file", "statement", "construction"))
    n_in, n_out, region, unsafe = read_property(claim)
    net = inputs.get("network")
    kind = getattr(net, "kind", None)
    if set(inputs) != {"network"} or kind not in ("relu", "layered"):
        raise CertificateError("expected one input 'network', a ReLU net (kind relu) or a layered net (kind layered)",
                               path="inputs")
    if string(claim["network_sha256"], "claim.network_sha256") != cert["inputs"]["network"]["sha256"]:
        raise CertificateError("is not the sha256 of the embedded network", path="claim.network_sha256")
    string(claim["property_sha256"], "claim.property_sha256")
    if "property_source" in claim:
        file_name(claim["property_source"], "claim.property_source")
    read_network_file(claim)
    if net.input_dim != n_in or net.output_dim != n_out:
        raise CertificateError(f"the network has {net.input_dim} inputs and {net.output_dim} outputs, the property "
                               f"{n_in} and {n_out}", path="claim.property")
    if not region:
        raise CertificateError("expected at least one input disjunct", path="claim.property.input_region")
    step_trees = _step_trees(cert["steps"], region, n_in)
    if kind == "layered":   # its trees and leaves: symrel.checking.vnnlib_layered's
        from . import vnnlib_layered as leaf_check

        prepared = leaf_check.prepare(net)
        leaves, total = leaf_check.leaves(prepared, cert["steps"], step_trees, region, unsafe)
    else:   # a ReLU net's: symrel.checking.relu_leaves's
        from . import relu_leaves as leaf_check

        prepared = leaf_check.prepare(net)
        leaves, total = leaf_check.leaves(prepared, cert["steps"], step_trees, region, unsafe, n_in)
    # every step's box empty, or every leaf outside the region by one of its atoms
    empty_region = run_leaves(net, prepared, leaves, region, unsafe, total, leaf_check.check_leaf, leaf_check.prepare)
    if not unsafe:
        return {"vacuous": "the unsafe condition is an empty disjunction (claim.property.unsafe is []): no output "
                           "meets it, whatever the network"}
    if empty_region:
        return {"vacuous": "the input region is empty: every part of it was closed by an atom of the region itself "
                           "(or has an empty box), so no input meets it, whatever the network"}
    return None


def _step_trees(steps, region, n_in):
    """``(d, where, lo, hi, tree)`` of every step whose box is not empty, in order: the step's
    disjunct and box checked against the property, an empty box's tree checked here."""
    for d, conj in enumerate(region):
        at_step(d)
        where = f"steps[{d}].certificate"
        data = record(steps[d]["certificate"], where, keys=("disjunct", "box", "tree"))
        if index(data["disjunct"], len(region), f"{where}.disjunct") != d:
            raise CertificateError(f"expected disjunct {d} (one step per input disjunct, in order)",
                                   path=f"{where}.disjunct")
        lo, hi = disjunct_box(conj, n_in)
        if any(v is None for v in lo + hi):
            raise CertificateError("an input of this disjunct has no lower or upper bound",
                                   path=f"claim.property.input_region[{d}]")
        box = record(data["box"], f"{where}.box", keys=("lower", "upper"))
        if [rational(v, f"{where}.box.lower[{i}]") for i, v in enumerate(array(box["lower"], f"{where}.box.lower", n_in))] != lo \
                or [rational(v, f"{where}.box.upper[{i}]") for i, v in enumerate(array(box["upper"], f"{where}.box.upper", n_in))] != hi:
            raise CertificateError("is not the box of the disjunct's single-variable bounds", path=f"{where}.box")
        tree = array(data["tree"], f"{where}.tree")
        empty = next((i for i in range(n_in) if lo[i] > hi[i]), None)
        if len(tree) == 1 and type(tree[0]) is dict and "empty" in tree[0]:
            record(tree[0], f"{where}.tree[0]", keys=("empty",))
            i = index(tree[0]["empty"], n_in, f"{where}.tree[0].empty")
            if not lo[i] > hi[i]:
                raise CertificateError(f"input {i} has the non-empty range [{lo[i]}, {hi[i]}]",
                                       path=f"{where}.tree[0].empty")
            continue
        if empty is not None:
            raise CertificateError(f"the box is empty (input {empty}); expected the tree [{{\"empty\": {empty}}}]",
                                   path=f"{where}.tree")
        yield d, f"{where}.tree", lo, hi, tree


# -- what a checked certificate proves (symrel.checking.claims) ----------------------------
from .claims import claim_statement, model_words  # noqa: E402  (the hook below the checker)


@claim_statement("vnnlib-unsat", keys=("network_sha256", "property_sha256", "property"),
                 optional=("property_source", "network_file"), inputs=("network",))
def statement(claim, inputs) -> str:
    """No input of the property's region has outputs meeting its unsafe condition. Its sizes
    are read without the atoms' numbers: a check reads them all before it derives this
    sentence (:func:`check_vnnlib_unsat`), and a writer states its own property."""
    path = "claim.property"
    obj = record(claim.get("property"), path, keys=("inputs", "outputs", "input_region", "unsafe"))
    n_in, n_out = natural(obj["inputs"], f"{path}.inputs"), natural(obj["outputs"], f"{path}.outputs")
    region, unsafe = (array(obj[side], f"{path}.{side}") for side in ("input_region", "unsafe"))
    return (f"no input x in R^{n_in} of the property's input region ({len(region)} disjuncts) has outputs "
            f"y = N(x) in R^{n_out} meeting its unsafe condition ({len(unsafe)} disjuncts), where N is "
            f"{model_words(inputs['network'])} and the property is the one of sha256 "
            f"{str(claim['property_sha256'])[:16]}")
