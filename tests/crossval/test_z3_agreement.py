"""symrel and z3 agree on seeded equivalence claims (compiled pairs, mutants, equal-but-
different pairs, the tie pair). z3 reads the claims from their file-format JSON through
an encoding of its own (symrel.crossval.z3_claims), sharing nothing with the prover."""

import pytest

from symrel.fileformat import from_json
from symrel.mutation.decision_claims import campaign_claims
from symrel.prover import prove_equivalence

z3 = pytest.importorskip("z3")
from symrel.crossval.z3_claims import decide_with_z3  # noqa: E402

ALL = campaign_claims(seeds=range(3000, 3016), mutants_per_pair=6, size="small")
# (query mutants make scores quadratic: z3's nonlinear solver, seconds each; the slow test has them)
FAST = [c for c in campaign_claims(seeds=range(3100, 3103), mutants_per_pair=5, equal_seeds=(), size="small")
        if "WQ" not in c["name"]]


def _agree(claim):
    a, b, D = from_json(claim["a"]), from_json(claim["b"]), from_json(claim["domain"])
    ours = prove_equivalence(a, b, D, timeout=60)
    theirs = decide_with_z3(claim["a"], claim["b"], claim["domain"], timeout=60)
    assert ours.result in ("proved", "refuted"), (claim["name"], ours.obstacle)
    if theirs["result"] == "unknown":
        return False
    assert ours.result == theirs["result"], f"{claim['name']}: symrel {ours.result}, z3 {theirs['result']}"
    if ours.result == "refuted":
        x = ours.counterexample
        assert D.contains(x) and a.evaluate_exact(x) != b.evaluate_exact(x)
    if theirs["point"] is not None:          # z3's point, confirmed by exact evaluation too
        x = [str(v) for v in theirs["point"]]
        assert a.evaluate_exact(x) != b.evaluate_exact(x)
    return True


@pytest.mark.parametrize("claim", FAST, ids=[c["name"] for c in FAST])
def test_symrel_and_z3_agree_on_a_few_claims(claim):
    _agree(claim)


@pytest.mark.slow
def test_symrel_and_z3_agree_on_at_least_100_seeded_claims():
    groups = {c["group"] for c in ALL}
    assert groups == {"compiled", "mutant", "equal", "tie"}
    decided = sum(_agree(c) for c in ALL)
    assert decided >= 100
