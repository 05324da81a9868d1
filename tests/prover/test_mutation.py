"""Soundness under mutation: one parameter of a compiled Transformer changed by 1/10^6, or
the gating bound B set too small. A mutant that exact evaluation shows to differ from
the net at a witness point is never proved; a refuted mutant's counterexample is
confirmed by exact evaluation. (The complete regions procedure is switched off here, so
this tests the layer-by-layer prover alone.)"""

import random

import pytest

from symrel.compiler import compile_maxout
from symrel.mutation.mutants import mutant, parameters
from symrel.exact import Q
from symrel.models import Box
from symrel.constructions.random import random_maxout_net
from symrel.prover import prove_equivalence

NETS = 4
MUTANTS_PER_NET = 50


def _nets():
    for seed in range(NETS):
        rng = random.Random(100 + seed)
        d = rng.randint(1, 3)
        widths = [rng.randint(1, 3) for _ in range(rng.randint(1, 2))]
        yield rng, random_maxout_net(rng, d, widths, rank=(2, 3), max_num=6, max_den=3), Box.cube(d)


def _classify(net, m, D, witness, proof):
    """Whether m differs from net on D, decided by exact evaluation (the counterexample of a
    refutation is a witness of its own, checked here again)."""
    if proof.result == "refuted":
        x = proof.counterexample
        assert D.contains(x), "counterexample outside the domain"
        assert net.evaluate(x) != m.evaluate(x), "counterexample not confirmed by exact evaluation"
        return True
    return m.evaluate_points(witness) != net.evaluate_points(witness)


def _run_mutants(nets, per_net):
    outcomes, total = {}, 0
    for rng, net, D in nets:
        comp = compile_maxout(net, D)
        t = comp.transformer
        witness = D.sample(8, seed=999, denominator=37) + list(D.vertices())
        every = [p for p, _ in parameters(t)]
        nonzero = [p for p, v in parameters(t) if v not in (0, "0")]
        mutants = []
        for k in range(per_net):   # half on nonzero parameters, half anywhere
            path = rng.choice(nonzero if k % 2 == 0 else every)
            mutants.append(mutant(t, path, rng.choice(["+tiny", "-tiny"])))
        for bounds in ([g.bound / 2 for g in comp.gates], [g.bound - Q(1, 10**6) for g in comp.gates],
                       [Q(0)] * len(comp.gates)):   # gating bound B too small for the domain
            mutants.append(compile_maxout(net, D, bounds=bounds).transformer)
        for m in mutants:
            proof = prove_equivalence(net, m, D)
            changed = _classify(net, m, D, witness, proof)
            assert not (changed and proof.result == "proved"), "a function-changing mutant was proved"
            outcomes[(changed, proof.result)] = outcomes.get((changed, proof.result), 0) + 1
            total += 1
    return outcomes, total


def test_mutants_of_one_net(without_complete_procedure):
    outcomes, total = _run_mutants(list(_nets())[:1], 20)
    assert total == 23 and outcomes.get((True, "refuted"), 0) >= 5, outcomes


@pytest.mark.slow
def test_no_function_changing_mutant_is_proved(without_complete_procedure):
    outcomes, total = _run_mutants(_nets(), MUTANTS_PER_NET)
    assert total >= 200
    changed = sum(v for (c, _), v in outcomes.items() if c)
    refuted = outcomes.get((True, "refuted"), 0)
    assert changed >= 40 and outcomes.get((False, "proved"), 0) >= 40     # both kinds occur
    assert refuted >= 0.9 * changed, outcomes                           # and the changed are caught
