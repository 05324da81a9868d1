from symrel.mutation.tamper import altered, numbers_in, pick_number

CERT = {"symrel": 1, "kind": "certificate", "claim": {"kind": "k", "eps": "1/10", "statement": "s"},
        "inputs": {"d": {"object": {"bounds": [[0, 1]]}, "sha256": "x"}},
        "steps": [{"lemma": "l", "rule": "r", "status": "proved",
                   "certificate": {"lower": "-1/2", "farkas": [[0, "3/4"], [2, 1]]}}]}


def test_numbers_of_claim_and_steps_only():
    assert [p for p, _ in numbers_in(CERT)] == [
        "claim.eps", "steps[0].certificate.lower", "steps[0].certificate.farkas[0][0]",
        "steps[0].certificate.farkas[0][1]", "steps[0].certificate.farkas[1][0]",
        "steps[0].certificate.farkas[1][1]"]


def test_altered_changes_one_number_in_a_copy():
    new = altered(CERT, "steps[0].certificate.farkas[0][1]")
    assert new["steps"][0]["certificate"]["farkas"] == [[0, "750001/1000000"], [2, 1]]
    assert CERT["steps"][0]["certificate"]["farkas"][0][1] == "3/4"
    assert altered(CERT, "claim.eps", "-1/10")["claim"]["eps"] == 0


def test_pick_is_deterministic_and_in_the_steps():
    assert pick_number(CERT) == pick_number(dict(CERT))
    assert pick_number(CERT).startswith("steps")
    assert pick_number({"claim": {}, "steps": [{"certificate": {}}]}) is None
