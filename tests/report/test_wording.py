from symrel.certificates.rules import RULES
from symrel.report.wording import rule_in_words, summarise_certificate


def test_rules_in_the_papers_vocabulary():
    text = " ".join(rule.wording for rule in RULES.values())
    for word in ("maxout unit", "token-wise shift", "hardmax", "region", "utility", "rank"):
        assert word in text
    assert rule_in_words("no-such-rule") == ""


def test_certificate_summaries():
    lines = summarise_certificate({
        "bound": "5/2",
        "point": ["1/2", "-1/3"],
        "L": [[1, 0], [0, "1/2"], ["3/4", 0]],
        "flag": True,
        "pieces": [{"w": [1], "b": 0}, {"w": [2], "b": 1}],
    })
    assert lines[0] == ["bound = ", "5/2"]
    assert lines[1] == ["point: ", "vector of 2 rationals (", "1/2, -1/3", ")"]
    assert lines[2] == ["L: ", "3 x 2 matrix of rationals, 3 nonzero"]
    assert lines[3] == ["flag: ", "true"]
    assert lines[4] == ["pieces: ", "2 records (b, w), 4 numbers from 0 to 2"]
    many = summarise_certificate({f"k{i}": i for i in range(12)}, limit=8)
    assert len(many) == 9 and many[-1] == ["… and 4 more entries"]
