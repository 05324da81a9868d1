"""The mutation campaign: every prover against single-parameter mutants of correct instances.

For each prover a few correct instances are built (claims the prover proves); every
mutant changes one number of one input (:mod:`symrel.mutation.mutants`) and the prover
runs again. Outcomes: ``refuted`` (its counterexample is confirmed here by plain exact
evaluation), ``open``, or ``proved``. A proved mutant is sound only when an independent
exact check shows the mutant keeps the claim (an *equivalent mutant*); otherwise it is a
**defect**. So is a refuted mutant whose refutation the independent check contradicts (a
counterexample at which both sides agree, a relation whose every entry is realised): a
plain ``if``, not an ``assert``, so that it is counted under ``python -O`` too. (For the
softmax bound, "keeps the claim" is checked at sample points only, see
:func:`softmax_campaign`.) Independent checks: exact evaluation at witness points plus the other
equivalence procedure (layer-by-layer prover vs complete cell enumeration); the score
order of every pair of keys for retrieval; entrywise products for relations; and for the
softmax bound, the error at sample points (mpmath, 50 digits) against the certified eps.

>>> rows = run_campaign(provers=("relations",), per_instance=6)
>>> rows[0].prover, rows[0].defects
('relations (prove_relation)', 0)
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field

from ..exact import Q
from ..models import Box
from ..constructions import to_maxout
from ..constructions.random import random_relu_net
from .mutants import HOW, delta_of, mutant, parameters


@dataclass
class Tally:
    """Outcomes of one prover's mutants."""

    prover: str
    mutants: int = 0
    refuted: int = 0
    open: int = 0
    equivalent_proved: int = 0
    defects: int = 0
    defect_paths: list = field(default_factory=list)

    def add(self, result: str, preserved: bool | None, where: str) -> None:
        """Count one outcome. ``preserved``: whether the independent check finds the claim
        kept (None: not checked); a refutation it contradicts is a defect, as is a proof of a
        claim it finds broken."""
        self.mutants += 1
        if result == "refuted" and preserved:
            self.defects += 1
            self.defect_paths.append(f"{where} (refuted, yet the independent check keeps the claim)")
        elif result == "refuted":
            self.refuted += 1
        elif result == "proved" and preserved:
            self.equivalent_proved += 1
        elif result == "proved":
            self.defects += 1
            self.defect_paths.append(where)
        else:
            self.open += 1


def _choose(rng, thing, count):
    """``count`` random (path, how) pairs over the parameters of ``thing`` (no sign flip of 0)."""
    pairs = [(p, h) for p, v in parameters(thing) for h in HOW if delta_of(v, h) is not None]
    rng.shuffle(pairs)
    return pairs[:count]


def _pair_mutants(rng, first, second, count, second_label):
    """Mutants of a pair of feature maps, half changing ``first`` and half ``second``:
    ``(label, how, first', second')``, the second's labels prefixed by ``second_label``."""
    a, b = _choose(rng, first, count // 2), _choose(rng, second, count // 2)
    return ([(path, how, mutant(first, path, how), second) for path, how in a]
            + [(second_label + path, how, first, mutant(second, path, how)) for path, how in b])


# -- equivalence: prove_equivalence (layer by layer) and decide_equivalence (cells) -------------
def _nets(seed):
    rng = random.Random(seed)
    d = rng.randint(1, 2)
    net = random_relu_net(rng, d, [rng.randint(1, 3) for _ in range(rng.randint(1, 2))], max_num=5, max_den=3)
    return rng, net, Box.cube(d)


def _witness(D, seed):
    return D.sample(12, seed=seed, denominator=37) + list(D.vertices())


def _equivalence_outcomes(prove, check, seed, per_instance) -> list:
    rng, a, D = _nets(seed)
    b = to_maxout(a)
    witness = _witness(D, seed)
    out = []
    for path, how in _choose(rng, b, per_instance):
        m = mutant(b, path, how)
        proof = prove(a, m, D)
        preserved = None
        if proof.result == "refuted":  # confirmed, or a defect: both sides agree at the point
            x = proof.counterexample
            preserved = not (D.contains(x) and a.evaluate_exact(x) != m.evaluate_exact(x))
        elif proof.result == "proved":
            same_at_witness = all(a.evaluate_exact(x) == m.evaluate_exact(x) for x in witness)
            preserved = same_at_witness and check(a, m, D).result == "proved"
        out.append((proof.result, preserved, f"seed {seed}: {path} {how}"))
    return out


def equivalence_outcomes(seed, per_instance) -> list:
    """The outcomes ``(result, preserved, where)`` of one instance's mutants (prove_equivalence)."""
    from ..prover import prove_equivalence
    from ..regions import decide_equivalence

    return _equivalence_outcomes(prove_equivalence, decide_equivalence, seed, per_instance)


def regions_outcomes(seed, per_instance) -> list:
    """The outcomes of one instance's mutants (decide_equivalence, checked by prove_equivalence)."""
    from ..prover import prove_equivalence
    from ..regions import decide_equivalence

    return _equivalence_outcomes(decide_equivalence, prove_equivalence, seed, per_instance)


def equivalence_campaign(seeds=None, per_instance=None, executor=None) -> Tally:
    return _campaign("equivalence", seeds, per_instance, executor)


def regions_campaign(seeds=None, per_instance=None, executor=None) -> Tally:
    return _campaign("regions", seeds, per_instance, executor)


# -- retrieval ------------------------------------------------------------------------------------
def _orders_keys(task, att) -> bool:
    """Exact check of the claim: every query's scores order every pair of keys as its preorder."""
    S = att.score_matrix(task)
    keys = task.key_names
    for i, q in enumerate(task.exact_queries):
        P = task.preorders[q]
        for a in range(len(keys)):
            for b in range(len(keys)):
                if (S[i][a] <= S[i][b]) != P.leq(keys[a], keys[b]):
                    return False
    return True


def retrieval_outcomes(seed, per_instance) -> list:
    """The outcomes of one retrieval task's mutants (query or key feature map changed)."""
    from ..preorders.generators import random_retrieval_task
    from ..preorders.retrieval import RetrievalAttention, build_retrieval_attention, prove_retrieval

    out = []
    rng = random.Random(seed)
    task = random_retrieval_task(3, 4, seed=seed)
    att = build_retrieval_attention(task)
    for path, how, phi_q, phi_k in _pair_mutants(rng, att.phi_q, att.phi_k, per_instance, "k:"):
        m = RetrievalAttention(phi_q, phi_k)
        proof = prove_retrieval(task, m, max_subset=2)
        preserved = _orders_keys(task, m) if proof.result == "proved" else None
        out.append((proof.result, preserved, f"seed {seed}: {path} {how}"))
    return out


def retrieval_campaign(seeds=None, per_instance=None, executor=None) -> Tally:
    return _campaign("retrieval", seeds, per_instance, executor)


# -- relations -------------------------------------------------------------------------------------
def _realises(rel, feats) -> bool:
    """Exact check, point by point: <phi(x_i), psi(y_j)> = r[i][j] for every entry."""
    from ..exact import dot, rows

    table = rows(rel.exact_R)
    xs, ys = rel.exact_points()
    for i, x in enumerate(xs):
        u = feats.phi.evaluate_exact(x)
        for j, y in enumerate(ys):
            if dot(u, feats.psi.evaluate_exact(y)) != table[i][j]:
                return False
    return True


def relations_outcomes(seed, per_instance) -> list:
    """The outcomes of one relation's mutants (phi or psi changed)."""
    from ..relations.factors_to_mlp import relation_features
    from ..relations.prove import prove_relation
    from ..relations.table import Relation, RelationFeatures
    from ..constructions.random import random_matrix

    out = []
    rng = random.Random(seed)
    n, m = 3 + seed % 2, 3
    rel = Relation([[Q(i)] for i in range(n)], random_matrix(rng, n, m, max_num=5, max_den=2),
                   [[Q(j, 2)] for j in range(m)])
    feats = relation_features(rel)
    for path, how, phi, psi in _pair_mutants(rng, feats.phi, feats.psi, per_instance, "psi:"):
        f = RelationFeatures(phi, psi)
        proof = prove_relation(rel, f)
        # refuted although every entry is realised: a defect (Tally.add)
        preserved = _realises(rel, f) if proof.result in ("proved", "refuted") else None
        out.append((proof.result, preserved, f"seed {seed}: {path} {how}"))
    return out


def relations_campaign(seeds=None, per_instance=None, executor=None) -> Tally:
    return _campaign("relations", seeds, per_instance, executor)


# -- softmax bounds ---------------------------------------------------------------------------------
SOFTMAX_INSTANCES = ((1, (0, 3, -2), ((-1, 1),)), (2, (1, -1), ((-1, 1),)), ("1/2", (0, 1, 2, -1), ((0, 2),)),
                     (3, (2, 0, -1), ((-3, "1/2"),)))


def _worst_error(T, D, lam, seed=0):
    """The largest observed |softmax - hardmax| (mpmath, 50 digits) over sample points, and the point."""
    from ..softmax.empirical import softmax_error

    points = D.sample(6, seed=seed, denominator=7) + list(D.vertices())
    return max((softmax_error(T, x, lam), x) for x in points)


def softmax_outcomes(seed, per_instance, eps="1/100") -> list:
    """The outcomes of one softmax instance's mutants. Model mutants: one parameter of the
    Transformer changed, then lambda_min; a proved bound is checked against the error
    observed at sample points (a defect when some point exceeds eps). Claim mutants: at
    lambda = 1, 2, ..., 32 the claim "error <= e" with e just below the error observed at a
    sample point, which is false there; proving it (certified bound <= e) is a defect, and
    the point refutes it."""
    from fractions import Fraction

    import mpmath

    from ..exact import denominator, numerator, rational
    from ..softmax.examples import selection_transformer
    from ..softmax.network import lambda_min, propagate
    from ..softmax.ranges import analyse

    out = []
    eps = rational(eps)
    delta, values, box = SOFTMAX_INSTANCES[seed]
    rng = random.Random(seed)
    T, D = selection_transformer(delta, values, box)
    for path, how in _choose(rng, T, per_instance):
        m = mutant(T, path, how)
        bound = lambda_min(m, D, eps)
        preserved = None
        if bound.proved:
            worst, _ = _worst_error(m, D, bound.lam, seed)
            with mpmath.workdps(50):
                preserved = worst <= mpmath.mpf(numerator(eps)) / denominator(eps)
        out.append(("proved" if bound.proved else "open", preserved, f"instance {seed}: {path} {how}"))
    plan = analyse(T, D)
    for k in range(6):
        lam = Q(2**k)
        worst, x = _worst_error(T, D, lam, seed)
        claim = rational(Fraction(float(worst))) * (1 - Q(1, 10**6))
        total = propagate(plan, lam).total
        if total is None:
            out.append(("open", None, f"instance {seed}: eps at lambda {lam}"))
        else:
            out.append(("proved" if total <= claim else "refuted", False,
                        f"instance {seed}: eps below the error at {x}, lambda {lam}"))
    return out


def softmax_campaign(per_instance=None, executor=None) -> Tally:
    """Model and claim mutants of the softmax bound (:func:`softmax_outcomes`)."""
    return _campaign("softmax", None, per_instance, executor)


# -- the campaign: every (prover, instance) is one task -----------------------------------------------
TITLES = {
    "equivalence": "equivalence (prove_equivalence)",
    "regions": "regions (decide_equivalence)",
    "retrieval": "retrieval (prove_retrieval)",
    "relations": "relations (prove_relation)",
    "softmax": "softmax bounds (lambda_min)",
}
OUTCOMES = {
    "equivalence": equivalence_outcomes,
    "regions": regions_outcomes,
    "retrieval": retrieval_outcomes,
    "relations": relations_outcomes,
    "softmax": softmax_outcomes,
}
SEEDS = {"equivalence": range(12), "regions": range(100, 112), "retrieval": range(4), "relations": range(4),
         "softmax": range(len(SOFTMAX_INSTANCES))}
HEAVIEST_FIRST = ("softmax", "equivalence", "regions", "retrieval", "relations")  # time per instance, measured
PER_INSTANCE = {"equivalence": 60, "regions": 50, "retrieval": 60, "relations": 60, "softmax": 40}


def _instance_task(job) -> tuple:
    """One task of a campaign, ``(prover, its outcomes)`` (top level, so any executor can run it)."""
    name, seed, per_instance = job
    return name, OUTCOMES[name](seed, per_instance)


def _tally(name, outcomes) -> Tally:
    tally = Tally(TITLES[name])
    for result, preserved, where in outcomes:
        tally.add(result, preserved, where)
    return tally


def _campaign(name, seeds=None, per_instance=None, executor=None) -> Tally:
    """One prover's campaign over ``seeds`` (default :data:`SEEDS`), ``per_instance`` mutants each."""
    from ..parallel import map_ordered

    seeds = SEEDS[name] if seeds is None else seeds
    per_instance = PER_INSTANCE[name] if per_instance is None else per_instance
    parts = map_ordered(_instance_task, [(name, seed, per_instance) for seed in seeds], executor)
    return _tally(name, [o for _, part in parts for o in part])


CAMPAIGNS = {
    "equivalence": equivalence_campaign,
    "regions": regions_campaign,
    "retrieval": retrieval_campaign,
    "relations": relations_campaign,
    "softmax": softmax_campaign,
}


def run_campaign(provers=tuple(CAMPAIGNS), per_instance=None, progress=False, executor=None) -> list[Tally]:
    """Run the campaign of each named prover; ``per_instance`` overrides the mutants per instance.

    Every (prover, instance) pair is one task of :func:`symrel.parallel.map_ordered`
    on ``executor`` (any :class:`concurrent.futures.Executor`, default in this process);
    the tallies add the outcomes in the serial order, so they (and the report) do not
    depend on the executor. With ``progress``, a line per prover on standard error when
    its last instance is done.
    """
    from ..parallel import map_ordered

    provers = tuple(provers)
    # heaviest instances first, so that no long task starts last on a pool (the tallies
    # below take each prover's outcomes in seed order whatever the order of the tasks)
    jobs = [(name, seed, PER_INSTANCE[name] if per_instance is None else per_instance)
            for name in sorted(provers, key=HEAVIEST_FIRST.index) for seed in SEEDS[name]]
    left = {name: len(SEEDS[name]) for name in provers}
    seen: dict = {name: [] for name in provers}

    def show(done, total, result):
        name, outcomes = result
        left[name] -= 1
        seen[name] += outcomes
        if not left[name]:
            t = _tally(name, seen[name])
            print(f"{t.prover}: {t.mutants} mutants, {t.defects} defects ({done}/{total} instances done)",
                  file=sys.stderr, flush=True)

    results = map_ordered(_instance_task, jobs, executor, progress=show if progress else None)
    return [_tally(name, [o for n, part in results if n == name for o in part]) for name in provers]
