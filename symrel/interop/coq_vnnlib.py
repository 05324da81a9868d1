"""vnnlib-unsat certificates -> a Coq folder whose ``Instance.v`` Coq's kernel replays
(docs/coq.md, "VNN-LIB: the unsat checker in Coq").

The folder holds ``Semantics.v`` (ReLU nets, ``eval_relu``), ``VnnProp.v`` (a property:
atoms ``a . X + c . Y <= r`` in disjunctive normal form, and ``vnnlib_unsat``),
``VnnCheck.v`` (the computable checker ``check`` over the branch-and-bound tree),
``VnnSound.v`` (``check_sound : check N P steps = true -> vnnlib_unsat N P``, proved once)
and ``Instance.v``: the net, the property and the steps as exact rational data, the lemma
``checked : check net prop steps = true`` proved by ``vm_compute``, and ``Theorem claim :
vnnlib_unsat net prop``. Nothing is decided here: the certificate's numbers are written as
they are, so a tampered relaxation, phase, split, ReLU split, beta or bound gives an
``Instance.v`` that ``coqc`` rejects. A ReLU split ``{"relu": [k, i]}`` is written
``RSplit`` with ``k`` counted over every layer of the net (the file counts the ReLU layers
only), and a close's ``beta`` (none: ``[]``) follows its bound.

The Coq checker recomputes every pre-activation bound by back-substitution through the
layers below, exactly (docs/format.md's step 2 without the rounding, and for every neuron,
not only those the forward forms leave open), which is at least as tight as the Python
checker's forward and backward bounds: it accepts every certificate the Python checker
accepts, at a higher cost (per leaf, ``O(layers^2 x width^3)`` rational operations).

A certificate whose network is a layered net (``kind: "layered"``) is written by
:mod:`symrel.interop.coq_layered` and replayed by ``LayeredCheck.v`` (``check_layered_sound``).

Cost here: linear in the size of the certificate and the net.

>>> coq_phases(["aiu"], [["1/2", 1, 0]], [True, False])
['[Act; Inact; Unst (1#2) 1 0]', '[]']
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..exact import rational
from .coq import LOGICAL, VNN_LIBRARY, _list, coq_q, coq_relu_net, coq_vec, write_coq_folder

__all__ = ["VNN_LIBRARY", "export_vnnlib_coq", "instance_text", "is_layered", "is_vnnlib",
           "replay_vnnlib_certificate"]


def _need(cond, message, path):
    if not cond:
        raise InputError(message, path=path)


def _q(v, path):
    try:
        return coq_q(rational(v))
    except (InputError, ValueError, TypeError, ZeroDivisionError):
        raise InputError(f"expected an exact rational, got {v!r}", path=path) from None


def _qvec(v, path):
    _need(isinstance(v, list), "expected a list of rationals", path)
    return "[" + "; ".join(_q(a, f"{path}[{i}]") for i, a in enumerate(v)) + "]"


def coq_atom(a, path) -> str:
    _need(isinstance(a, dict) and {"x", "y", "rhs"} <= set(a), "expected an atom {x, y, rhs}", path)
    return (f"{{| at_x := {_qvec(a['x'], path + '.x')}; at_y := {_qvec(a['y'], path + '.y')}; "
            f"at_rhs := {_q(a['rhs'], path + '.rhs')} |}}")


def coq_dnf(d, path) -> str:
    _need(isinstance(d, list), "expected a list of conjunctions", path)
    out = []
    for k, conj in enumerate(d):
        _need(isinstance(conj, list), "expected a list of atoms", f"{path}[{k}]")
        out.append(_list(coq_atom(a, f"{path}[{k}][{j}]") for j, a in enumerate(conj)))
    return _list(out)


def coq_phases(phases, relaxations, relu, path="leaf") -> list:
    """One Coq list of phases per layer of the net (``relu[k]``: layer k has ReLUs; ``[]``
    for the others): ``Act``, ``Inact``, ``Unst alpha s t`` (the relaxations in order)."""
    _need(isinstance(phases, list) and isinstance(relaxations, list), "expected lists phases and relaxations", path)
    _need(len(phases) == sum(relu), f"expected {sum(relu)} strings of phases (one per ReLU layer)", f"{path}.phases")
    out, at, li = [], 0, 0
    for k, r in enumerate(relu):
        if not r:
            out.append("[]")
            continue
        s = phases[li]
        _need(isinstance(s, str) and set(s) <= set("aiu"), "expected a string of a, i and u", f"{path}.phases[{li}]")
        items = []
        for c in s:
            if c == "u":
                rw = f"{path}.relaxations[{at}]"
                _need(at < len(relaxations) and isinstance(relaxations[at], list) and len(relaxations[at]) == 3,
                      "expected a relaxation [alpha, s, t] for each u", rw)
                items.append("Unst " + " ".join(_q(v, f"{rw}[{j}]") for j, v in enumerate(relaxations[at])))
                at += 1
            else:
                items.append({"a": "Act", "i": "Inact"}[c])
        out.append(_list(items))
        li += 1
    _need(at == len(relaxations), f"expected {at} relaxations (one per u)", f"{path}.relaxations")
    return out


def coq_slopes(phases, alphas, relu, path) -> str:
    """A close's lower slopes (one per ``u`` of the leaf, in order) as VnnCheck.v's ``list
    (list Q)``: one list per layer, the top layer first, with one entry per neuron (its slope
    when it is unstable, else 0, which ``slope_ph`` does not read)."""
    _need(isinstance(alphas, list), "expected a list of slopes", path)
    out, at, li = [], 0, 0
    for r in relu:
        if not r:
            out.append("[]")
            continue
        row = []
        for c in phases[li]:
            if c == "u":
                _need(at < len(alphas), "expected one slope per u of the leaf", path)
                row.append(_q(alphas[at], f"{path}[{at}]"))
                at += 1
            else:
                row.append("0")
        out.append(_list(row))
        li += 1
    _need(at == len(alphas), f"expected {at} slopes (one per u of the leaf)", path)
    return _list(reversed(out))


def coq_tree(tree, relu, path) -> str:
    """The preorder tree as a nested ``tree`` term (VnnCheck.v); a ReLU split ``[k, i]`` of the
    file (``k`` counts the ReLU layers) becomes ``RSplit`` with ``k`` counted over every layer."""
    relu_layers = [k for k, r in enumerate(relu) if r]
    _need(isinstance(tree, list) and tree, "expected a non-empty list of tree entries", path)
    pos = 0

    def node() -> str:
        nonlocal pos
        _need(pos < len(tree), "the tree ends with nodes still to cover", path)
        e, ew = tree[pos], f"{path}[{pos}]"
        pos += 1
        _need(isinstance(e, dict), "expected a tree entry (split, leaf or empty)", ew)
        if "split" in e:
            i = e["split"]
            _need(type(i) is int and i >= 0, "expected an input index", f"{ew}.split")
            at = _q(e.get("at"), f"{ew}.at")
            left = node()
            right = node()
            return f"(Split {i} {at} {left} {right})"
        if "relu" in e:  # a ReLU split: VnnCheck.v counts every layer, the file only the ReLU layers
            ref = e["relu"]
            _need(isinstance(ref, list) and len(ref) == 2 and all(type(v) is int and v >= 0 for v in ref)
                  and ref[0] < len(relu_layers), f"expected [k, i]: neuron i of ReLU layer k < {len(relu_layers)}",
                  f"{ew}.relu")
            le = node()
            ge = node()
            return f"(RSplit {relu_layers[ref[0]]} {ref[1]} {le} {ge})"
        if "empty" in e:
            i = e["empty"]
            _need(type(i) is int and i >= 0, "expected an input index", f"{ew}.empty")
            return f"(Empty {i})"
        _need(isinstance(e.get("leaf"), dict), "expected split, leaf or empty", ew)
        leaf, lw = e["leaf"], f"{ew}.leaf"
        ps = coq_phases(leaf.get("phases"), leaf.get("relaxations"), relu, lw)
        closes = leaf.get("closes")
        _need(isinstance(closes, list), "expected a list closes", f"{lw}.closes")
        cl = []
        for u, c in enumerate(closes):
            cw = f"{lw}.closes[{u}]"
            _need(isinstance(c, dict) and isinstance(c.get("atom"), list) and len(c["atom"]) == 2
                  and c["atom"][0] in ("unsafe", "region") and type(c["atom"][1]) is int and c["atom"][1] >= 0,
                  'expected {"atom": ["unsafe" or "region", k], "bound": b}', cw)
            betas = _qvec(c["beta"], f"{cw}.beta") if "beta" in c else "[]"
            slopes = coq_slopes(leaf["phases"], c["alpha"], relu, f"{cw}.alpha") if "alpha" in c else "[]"
            side = "true" if c["atom"][0] == "unsafe" else "false"
            cl.append(f"({side}, {c['atom'][1]}%nat, {_q(c.get('bound'), cw + '.bound')}, {betas}, {slopes})")
        return f"(Leaf {_list(ps)} {_list(cl)})"

    t = node()
    _need(pos == len(tree), f"unexpected entries after the tree's last leaf ({len(tree) - pos} more)", f"{path}[{pos}]")
    return t


def instance_text(cert: dict) -> str:
    """``Instance.v`` for a vnnlib-unsat certificate of a ReLU net (its JSON object; a layered net's:
    :func:`symrel.interop.coq_layered.instance_text`)."""
    from ..fileformat import from_json

    claim = cert.get("claim") if isinstance(cert, dict) else None
    _need(isinstance(claim, dict) and claim.get("kind") == "vnnlib-unsat",
          'expected a vnnlib-unsat certificate (claim.kind "vnnlib-unsat")', "claim.kind")
    net_entry = (cert.get("inputs") or {}).get("network") if isinstance(cert.get("inputs"), dict) else None
    _need(isinstance(net_entry, dict) and "object" in net_entry, "expected the input network", "inputs.network")
    net = from_json(net_entry["object"])
    _need(net.kind == "relu", "expected a ReLU net (kind relu; a layered net's certificate: "
          "symrel.interop.coq_layered)", "inputs.network.object.kind")
    prop = claim.get("property")
    _need(isinstance(prop, dict), "expected the property", "claim.property")
    n_in = prop.get("inputs")
    _need(type(n_in) is int and n_in >= 0, "expected the number of inputs", "claim.property.inputs")
    relu = [layer.activation == "relu" for layer in net.layers]
    steps = cert.get("steps")
    _need(isinstance(steps, list), "expected a list of steps", "steps")
    coq_steps = []
    for d, step in enumerate(steps):
        where = f"steps[{d}].certificate"
        data = step.get("certificate") if isinstance(step, dict) else None
        _need(isinstance(data, dict) and isinstance(data.get("box"), dict), "expected a box and a tree", where)
        lo, hi = data["box"].get("lower"), data["box"].get("upper")
        _need(isinstance(lo, list) and isinstance(hi, list) and len(lo) == len(hi),
              "expected lists lower and upper of one length", f"{where}.box")
        box = _list(f"({_q(a, f'{where}.box.lower[{i}]')}, {_q(b, f'{where}.box.upper[{i}]')})"
                    for i, (a, b) in enumerate(zip(lo, hi)))
        coq_steps.append(f"({box},\n  {coq_tree(data.get('tree'), relu, where + '.tree')})")
    region = coq_dnf(prop.get("input_region"), "claim.property.input_region")
    # VnnProp.v reads an atom of the region over X and Y alike, so a region atom on the outputs
    # would be proved as part of the claim; the format allows only atoms over X there
    for d, conj in enumerate(prop["input_region"]):
        for k, a in enumerate(conj):
            _need(all(rational(v) == 0 for v in a["y"]), "expected an atom over X alone",
                  f"claim.property.input_region[{d}][{k}].y")
    unsafe = coq_dnf(prop.get("unsafe"), "claim.property.unsafe")
    lines = [
        "(* Instance.v, written by symrel export-coq: a vnnlib-unsat certificate replayed by",
        "   Coq's kernel. The claim is stated in VnnProp.v's terms (vnnlib_unsat, eval_relu of",
        "   Semantics.v); VnnSound.check_sound turns the checker's true into the claim. *)",
        "From Coq Require Import QArith List.",
        f"From {LOGICAL} Require Import Semantics VnnProp VnnCheck VnnSound.",
        "Import ListNotations.",
        "Open Scope Q_scope.",
        "",
        f"Definition net : ReluNet := {coq_relu_net(net)}.",
        "",
        f"Definition prop : Property := {{| p_inputs := {n_in}; p_region := {region};\n  p_unsafe := {unsafe} |}}.",
        "",
        "Definition steps : list (Box * tree) := [" + ";\n".join(coq_steps) + "].",
        "",
        "Lemma checked : check net prop steps = true.",
        "Proof. vm_compute. reflexivity. Qed.",
        "",
        "(* no input x of the region has outputs eval_relu net x meeting the unsafe condition *)",
        "Theorem claim : vnnlib_unsat net prop.",
        "Proof. exact (check_sound net prop steps checked). Qed.",
    ]
    return "\n".join(lines) + "\n"


def is_layered(cert) -> bool:
    """Whether the network of ``cert`` (a JSON object) is a layered net (``kind: "layered"``)."""
    net = ((cert.get("inputs") or {}).get("network") or {}) if isinstance(cert, dict) and isinstance(
        cert.get("inputs"), dict) and isinstance(cert["inputs"].get("network"), dict) else {}
    return isinstance(net.get("object"), dict) and net["object"].get("kind") == "layered"


def export_vnnlib_coq(cert: dict, out_dir) -> list[Path]:
    """Write the Coq folder of a vnnlib-unsat certificate into ``out_dir``; returns the paths. A
    layered net's certificate is replayed by LayeredCheck.v (:mod:`symrel.interop.coq_layered`)."""
    if is_layered(cert):
        from .coq import LAYERED_LIBRARY
        from .coq_layered import instance_text as layered_text

        return write_coq_folder(out_dir, LAYERED_LIBRARY, layered_text(cert))
    return write_coq_folder(out_dir, VNN_LIBRARY, instance_text(cert))


def is_vnnlib(cert) -> bool:
    """Whether ``cert`` (a JSON object) is a vnnlib-unsat certificate."""
    return isinstance(cert, dict) and isinstance(cert.get("claim"), dict) and cert["claim"].get("kind") == "vnnlib-unsat"


def replay_vnnlib_certificate(cert: dict, timeout: float | None = None, library=None) -> dict:
    """Export ``cert`` into a temporary folder and replay it with coqc (``symrel
    check-certificate --coq``; ``library``: a built folder whose ``.vo`` files are reused,
    :func:`symrel.interop.coq.replay`); the same keys as
    :func:`symrel.interop.coq.replay_certificate`."""
    import tempfile

    from .coq import replay

    with tempfile.TemporaryDirectory(prefix="symrel-coq-") as tmp:
        export_vnnlib_coq(cert, tmp)
        r = replay(tmp, timeout=timeout, library=library)
    status = "checked" if r["ok"] else ("rejected" if r.get("failed") else "not closed")
    checks = {
        "check_layered net prop steps = true (vm_compute)": status,
        "general theorem check_layered_sound (LayeredSound.v)": "proved in Coq",
        "claim: Print Assumptions": r["assumptions"] or "not run",
    } if is_layered(cert) else {
        "check net prop steps = true (vm_compute)": status,
        "general theorem check_sound (VnnSound.v)": "proved in Coq",
        "claim: Print Assumptions": r["assumptions"] or "not run",
    }
    return {"ok": r["ok"], "formal": r["ok"], "checks": checks, "seconds": r["seconds"], "theorem": r.get("theorem"),
            "log": r["log"] if not r["ok"] else ""}
