"""``prove_equivalence(a, b, domain)``: "for all x in D, A(x) = B(x)", layer by layer.

Both models are executed symbolically over D into one registry of variables (inputs
and max nodes in normal form, :mod:`symrel.prover.nodes`): a maxout net one lemma per
layer, a ReLU net one per dense layer, a CPWL function through its lattice form, a
hardmax Transformer an embedding lemma, one lemma per block and a read-out lemma
(:mod:`symrel.prover.transformer_to_forms`). When the layers correspond (up to the
order and duplication of pieces and units) the outputs come out as the same affine
forms, checked coefficient by coefficient (``linear-identity``): proved. Otherwise an
exact counterexample is searched from the failing bounds (refuted), then the complete
decision procedure :func:`symrel.regions.decide_equivalence` is tried, and failing
that the proof ends open with the obstacle, never guessed.

Cost: linear in depth (every block touches only its own layer's forms), plus the
counterexample search on failure.

>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit, Box
>>> from symrel.compiler import compile_maxout
>>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [2]], [0, 0])])])   # max(x, 2x)
>>> D = Box([[-1, 1]])
>>> proof = prove_equivalence(net, compile_maxout(net, D).transformer, D)
>>> proof.result, len(proof.steps)
('proved', 8)
>>> bad = prove_equivalence(net, compile_maxout(net, D).transformer, Box([[-3, 3]]))
>>> bad.result, [str(v) for v in bad.counterexample]      # B = 2 is too small there
('refuted', ['3'])
"""

from __future__ import annotations

from ..budget import Budget, BudgetExceeded
from ..errors import InputError, SymrelError
from ..exact import format_rational
from ..model_kinds import expected, model_kind
from ..models import Box
from ..certificates import OPEN, PROVED, REFUTED, Proof, Step
from .execution import Context, Obstacle
from .nodes import Registry

CONSTRUCTION = "symrel construction realising Theorem 3.1 (Paper A), checked layer by layer"
FEW_NODES = 32      # a dependency closure this small is decided exactly first ...
FIRST_CELLS = 64    # ... on at most this many cells, before the float searches


def symbolic_execution(model):
    """The layer-by-layer executor of ``model``'s kind (its ``forms``: :mod:`symrel.model_kinds`).
    A kind names it lazily, so a claim imports only its two kinds' executors (a whole-process
    `symrel prove` on small models is mostly imports; see docs/decision.md)."""
    return model_kind(model).function("forms", "prove a claim about")


def decide_equivalence(a, b, domain, **kwargs):
    """:func:`symrel.regions.decide_equivalence` (the complete procedure), imported when a
    claim needs it."""
    from ..regions import decide_equivalence as decide

    return decide(a, b, domain, **kwargs)


def decision_step(proof, registry, outs_a, outs_b, domain, a, b, budget, reason, max_cells=None):
    """:func:`symrel.prover.normal_form_decision.decision_step`, imported when the outputs differ as forms."""
    from .normal_form_decision import decision_step as step

    return step(proof, registry, outs_a, outs_b, domain, a, b, budget, reason, max_cells=max_cells)


def _describe(model) -> str:
    return model_kind(model).function("describe", "describe")(model)


def _box_text(box) -> str:
    return " x ".join(f"[{format_rational(lo)}, {format_rational(hi)}]" for lo, hi in box)


def _check_inputs(a, b, domain):
    for name, m in (("a", a), ("b", b)):
        try:
            symbolic_execution(m)
        except InputError as err:
            raise InputError(f"expected {expected('forms')}, got {getattr(m, 'kind', type(m).__name__)}",
                             path=name) from err
    if a.input_dim != b.input_dim:
        raise InputError(f"the models read {a.input_dim} and {b.input_dim} inputs", path="b.input_dim")
    if a.output_dim != b.output_dim:
        raise InputError(f"the models have {a.output_dim} and {b.output_dim} outputs", path="b")
    if domain.dim != a.input_dim:
        raise InputError(f"expected a domain of dimension {a.input_dim}, got {domain.dim}", path="domain")
    for m in (a, b):
        if model_kind(m).support:     # defined on part of R^d: the domain must lie in it
            model_kind(m).check_domain(m, domain)


def prove_equivalence(a, b, domain, *, complete: bool = False, executor=None, max_cells=None, timeout=None,
                      progress: bool = False, budget: Budget | None = None) -> Proof:
    """Prove or refute "for all x in domain, a(x) = b(x)"; returns a :class:`~symrel.certificates.Proof`
    (proved with every step certified, refuted with an exactly verified counterexample, or
    open with the obstacle). ``timeout`` (seconds) and ``max_cells`` (cells of a decision
    procedure) bound the work: at the limit the proof ends open saying what stayed open
    (the lemma, the nodes, the cells done of the cells known); ``progress`` prints a
    progress line on stderr; ``budget`` (a :class:`~symrel.budget.Budget`) replaces the three."""
    budget = budget or Budget(timeout, max_cells, progress)
    try:
        return _prove(a, b, domain, complete, executor, budget)
    except BudgetExceeded as err:
        proof = _proof_of(a, b, domain)
        proof.add(Step("For all x in D, A(x) = B(x)", "budget", {"state": _state_json(err.state)}, OPEN, str(err)))
        return proof
    finally:
        if budget.progress:
            import sys

            print(file=sys.stderr)


def _state_json(state) -> dict:
    return {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in state.items()}


def _proof_of(a, b, domain) -> Proof:
    _check_inputs(a, b, domain)
    proof = Proof(
        claim=f"For all x in D, A(x) = B(x), where A is {_describe(a)}, B is {_describe(b)} and D is "
              + (_box_text(domain.exact_bounds) if isinstance(domain, Box)
                 else f"the polytope {{x : A x <= b}} ({len(domain.exact_halfspaces()[1])} inequalities)"),
        construction=CONSTRUCTION,
        claim_data={"kind": "equivalence", "a": "a", "b": "b", "domain": "domain"},
        inputs={"a": a, "b": b, "domain": domain},
    )
    return proof


def _prove(a, b, domain, complete, executor, budget) -> Proof:
    proof = _proof_of(a, b, domain)
    max_cells = budget.max_cells
    if complete:
        return _decide(a, b, domain, executor, max_cells, proof, "asked for the complete decision procedure", budget)
    extra_points: list = []
    box_cert: dict = {}
    if isinstance(domain, Box):
        box = list(domain.exact_bounds)
        names = ", ".join(f"x_{i}" for i in range(1, len(box) + 1)) if len(box) <= 3 else f"x_1, ..., x_{len(box)}"
        lemma = f"D is the box {_box_text(box)}; the input{'s' if len(box) > 1 else ''} {names} range{'' if len(box) > 1 else 's'} over it"
    else:
        from ..models.domain import polytope_box
        from .domain_witness import lexmin_witness

        try:
            box, duals, extra_points = polytope_box(domain)
        except InputError as err:
            return _decide(a, b, domain, executor, max_cells, proof, f"no exact bounding box of the polytope: {err}",
                           budget)
        box_cert["duals"] = [[[format_rational(v) for v in y] for y in pair] for pair in duals]
        witness, lex = lexmin_witness(domain, box)     # D is not empty: its lexicographic minimum
        box_cert["witness"] = [format_rational(v) for v in witness]
        box_cert["lex"] = [[[format_rational(v) for v in y], [format_rational(v) for v in mu]] for y, mu in lex]
        lemma = (f"D is contained in the box {_box_text(box)} (LP duality: for each i, y >= 0 with A^T y = -e_i "
                 "and y' >= 0 with A^T y' = e_i bound x_i below and above), and contains the witness point (its lexicographic minimum); "
                 "the inputs range over it")
    extra_points = list(extra_points) + _mesh_points(a, b, domain)
    registry = Registry(box)
    box_cert["box"] = [[format_rational(lo), format_rational(hi)] for lo, hi in box]
    proof.add(Step(lemma, "domain-box", box_cert, PROVED))
    ctx_a, ctx_b = Context(registry, proof, "a"), Context(registry, proof, "b")
    try:
        budget.at(lemma="the layer-by-layer execution of A")
        outs_a = symbolic_execution(a)(a, ctx_a)
        budget.check()
        budget.at(lemma="the layer-by-layer execution of B")
        outs_b = symbolic_execution(b)(b, ctx_b)
        budget.check()
    except Obstacle as err:
        return _fallback(a, b, domain, box, registry, ctx_a.hints + ctx_b.hints, executor, max_cells, proof, str(err),
                         extra_points, budget)
    same = [fa.key() == fb.key() for fa, fb in zip(outs_a, outs_b)]
    if all(same):
        proof.add(Step("For all x in D, the outputs of A and B are the same affine forms in the variables, "
                       "coefficient by coefficient: A(x) = B(x)", "linear-identity",
                       {"outputs": [f.to_json() for f in outs_a]}, PROVED))
        return proof
    k = same.index(False)
    reason = (f"output {k + 1}: A and B give different forms ({_form_text(outs_a[k])} vs {_form_text(outs_b[k])}); "
              "the layers do not correspond up to the order and duplication of pieces and units")
    from .counterexamples import find_counterexample

    budget.at(lemma="a counterexample among the candidate points")
    search = dict(hints=ctx_a.hints + ctx_b.hints, registry=registry, executor=executor, extra_points=extra_points,
                  budget=budget, forms=(outs_a, outs_b), tried=set())
    if few_nodes(registry, outs_a, outs_b):
        # Few nodes left to decide: the exact candidates, then the exact decision on at most
        # FIRST_CELLS cells, decide most such claims before any float library is imported
        # (numpy, scipy: most of a small claim's time as a whole process). Past that cap the
        # float screen and searches propose points, then the decision runs in full.
        found = find_counterexample(a, b, domain, box, floats=False, **search)
        if _refuted_by(proof, found, a, b, domain, reason):
            return proof
        if decision_step(proof, registry, outs_a, outs_b, domain, a, b, budget, f"output {k + 1} first",
                         max_cells=FIRST_CELLS):
            return proof
    found = find_counterexample(a, b, domain, box, **search)
    if _refuted_by(proof, found, a, b, domain, reason):
        return proof
    if decision_step(proof, registry, outs_a, outs_b, domain, a, b, budget, f"output {k + 1} first"):
        return proof
    return _fallback(a, b, domain, box, registry, ctx_a.hints + ctx_b.hints, executor, max_cells, proof, reason,
                     extra_points, budget)


def _refuted_by(proof, found, a, b, domain, reason) -> bool:
    """Record the refutation when ``found`` (a proposed ``(x, note)``) is confirmed here by
    exact evaluation of both models; True when it was."""
    if found is None or not (domain.contains(found[0]) and a.evaluate_exact(found[0]) != b.evaluate_exact(found[0])):
        return False
    x, note = found
    proof.add(Step("For all x in D, A(x) = B(x)", "linear-identity",
                   {"counterexample": [format_rational(v) for v in x]}, REFUTED,
                   f"{reason}. Counterexample x = ({', '.join(str(format_rational(v)) for v in x)}): {note}"))
    proof.refute(x, note)
    return True


def few_nodes(registry, outs_a, outs_b) -> bool:
    """Whether the outputs' differences depend on at most :data:`FEW_NODES` nodes (their
    dependency closure), where the exact decision on :data:`FIRST_CELLS` cells comes first."""
    from .normal_form_decision import dependency_closure

    return len(dependency_closure(registry, [fa - fb for fa, fb in zip(outs_a, outs_b)])) <= FEW_NODES


def _mesh_points(a, b, domain, limit: int = 256) -> list:
    """Candidate counterexamples of models defined on a support (a CPWL mesh: its vertices and
    the centroids of its simplices in D, where a changed vertex value shows)."""
    pts = []
    for m in (a, b):
        if model_kind(m).candidate_points is not None:
            pts += model_kind(m).candidate_points(m, domain)
    return pts[:limit]


def _form_text(f) -> str:
    parts = [format_rational(f.const)] if f.const or not f.coeffs else []
    parts += [f"{format_rational(a)}*y{v}" for v, a in sorted(f.coeffs.items())]
    text = " + ".join(str(p) for p in parts)
    return text if len(text) < 200 else text[:200] + "..."


def _fallback(a, b, domain, box, registry, hints, executor, max_cells, proof, reason, extra_points=(),
              budget=None) -> Proof:
    """Search a counterexample; then the complete procedure; else open."""
    from .counterexamples import find_counterexample

    step = proof.add(Step("For all x in D, A(x) = B(x)", "linear-identity", {}, OPEN, reason))
    found = find_counterexample(a, b, domain, box, hints, registry, executor, extra_points=extra_points,
                                budget=budget)
    if found is not None:
        x, note = found
        if domain.contains(x) and a.evaluate_exact(x) != b.evaluate_exact(x):   # confirmed here, exactly
            step.status = REFUTED
            step.certificate = {"counterexample": [format_rational(v) for v in x]}
            step.note = f"{reason}. Counterexample x = ({', '.join(str(format_rational(v)) for v in x)}): {note}"
            proof.refute(x, note)
            return proof
    return _decide(a, b, domain, executor, max_cells, proof, reason + "; no counterexample found among the candidates",
                   budget)


def _decide(a, b, domain, executor, max_cells, proof, reason, budget=None) -> Proof:
    """Hand the claim to the complete decision procedure (:func:`symrel.regions.decide_equivalence`)."""
    kwargs = {} if max_cells is None else {"max_cells": max_cells}
    if budget is not None:
        kwargs["budget"] = budget
    try:
        decided = decide_equivalence(a, b, domain, executor=executor, **kwargs)
    except BudgetExceeded:
        raise
    except SymrelError as err:
        proof.add(Step("Decide A = B on D by the complete linear-regions procedure", "regions-decision", {}, OPEN,
                       f"{reason}; the complete decision procedure does not apply: {err}"))
        return proof
    if isinstance(decided, Proof):
        if decided.exact_counterexample is not None:
            x = decided.exact_counterexample
            if not (domain.contains(x) and a.evaluate_exact(x) != b.evaluate_exact(x)):
                proof.add(Step("Decide A = B on D by the complete linear-regions procedure", "regions-decision", {},
                               OPEN, "its counterexample did not survive exact evaluation"))
                return proof
        return decided
    proof.add(Step("Decide A = B on D by the complete linear-regions procedure", "regions-decision", {}, OPEN,
                   f"{reason}; the decision procedure returned {type(decided).__name__}"))
    return proof
