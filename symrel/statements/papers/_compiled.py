"""What the Paper A scripts share: compile a model, prove it equal to its Transformer,
and the two controls every such statement needs (a tampered weight, a domain too large).

Not a proof script itself (its name starts with ``_``, so the runner skips it).
"""

from __future__ import annotations

from ...fileformat import from_json, to_json
from ...certificates import REFUTED
from ...mutation.tamper import altered
from ...report import Instance


def compiled_instance(name: str, model, domain, *, facts: dict | None = None, margin=0) -> Instance:
    """Compile ``model`` for ``domain`` (symrel construction realising Theorem 3.1,
    stacked as in Theorem 3.2) and prove ``T(x) = model(x)`` for all x in the domain."""
    from ...compiler import compile_model
    from ...prover import prove_equivalence

    comp = compile_model(model, domain, margin)
    proof = prove_equivalence(model, comp.transformer, domain)
    if not proof.construction:
        proof.construction = comp.construction
    sizes = comp.sizes()
    t = sizes["transformer"]
    info = {"tokens T": t.get("tokens", comp.transformer.tokens), "width": t.get("width", comp.transformer.width),
            "blocks": len(comp.transformer.blocks), "parameters of T": t["parameters"], "parameters of the net": sizes["maxout"]["parameters"],
            "gating B": "; ".join(str(g.bound) for g in comp.gates)}
    info.update(facts or {})
    return Instance(name, proof, facts=info)


def tampered_instance(name: str, model, domain, path: str = "readout.b[0]", delta="1/1000000") -> Instance:
    """A control: the compiled Transformer with one number (at ``path`` of its JSON
    form) changed by ``delta``; the prover must refute it with a counterexample."""
    from ...compiler import compile_model
    from ...prover import prove_equivalence

    comp = compile_model(model, domain)
    broken = from_json(altered(to_json(comp.transformer), path, delta))
    proof = prove_equivalence(model, broken, domain)
    facts = {"changed": f"{path} + {delta}"}
    if proof.counterexample is not None:
        x = proof.counterexample
        facts["T(x) - N(x) at the counterexample"] = ", ".join(
            str(u - v) for u, v in zip(broken(x), model(x)))
    return Instance(name, proof, facts=facts, expect=REFUTED)


def too_large_domain_instance(name: str, model, compiled_for, checked_on) -> Instance:
    """A control: a Transformer compiled for one box and checked on a larger box where
    its gating bound B is too small; the prover must refute it, outside the first box."""
    from ...compiler import compile_model
    from ...prover import prove_equivalence

    comp = compile_model(model, compiled_for)
    proof = prove_equivalence(model, comp.transformer, checked_on)
    facts = {"compiled for": _box_text(compiled_for), "checked on": _box_text(checked_on)}
    if proof.counterexample is not None:
        facts["counterexample inside the first box"] = "yes" if compiled_for.contains(proof.counterexample) else "no"
    return Instance(name, proof, facts=facts, expect=REFUTED)


def _box_text(box) -> str:
    return " x ".join(f"[{lo}, {hi}]" for lo, hi in box.exact_bounds)
