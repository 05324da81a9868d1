import os

import pytest

from benchmarks.decision_processes import BEGIN, END, _tree_at, _z3, claims, replace_section, section


def _row(name, symrel, z3, s, zs):
    return {"name": name, "symrel": symrel, "z3": z3, "symrel_s": s, "z3_s": zs, "symrel_cpu": s, "z3_cpu": zs,
            "load": [1.5]}


def test_the_section_gives_both_medians_and_maxima_and_names_a_disagreement():
    rows = [_row("c1", "proved", "proved", 0.1, 0.3), _row("c2", "refuted", "proved", 0.5, 0.2),
            _row("c3", "proved", "proved", 0.2, 0.4)]
    text = section(rows, "--claims 3", 1.0)
    assert text.startswith(BEGIN) and text.rstrip().endswith(END)
    assert "| symrel prove | 0.200 | 0.500 |" in text and "| z3 (z3_decide.py) | 0.300 | 0.400 |" in text
    assert "z3 agrees on 2, disagrees on 1" in text and "- c2: symrel refuted, z3 proved" in text
    assert "1.5 to 1.5" in text


def test_a_before_column_is_timed_and_compared_with_z3():
    rows = [{**_row("c1", "proved", "proved", 0.1, 0.2), "before": "proved", "before_s": 0.6, "before_cpu": 0.6}]
    text = section(rows, "--before abc", 1.0, "abc")
    assert "| symrel prove, before (commit abc) | 0.600 | 0.600 |" in text
    assert "Ratio symrel prove / z3 in this session: median 0.50, max 0.50." in text
    assert "Ratio symrel prove, before (commit abc) / z3 in this session: median 3.00, max 3.00." in text


def test_an_earlier_commit_is_unpacked_without_touching_the_repository(tmp_path):
    tree = _tree_at("HEAD", tmp_path / "before")
    assert (tree / "symrel" / "__init__.py").exists() and (tree / "symrel" / "prover" / "equivalence.py").exists()


def test_the_section_is_replaced_and_the_rest_of_the_page_kept():
    page = "# Decision campaign\n\nbody\n\n" + BEGIN + "\nold\n" + END + "\n\ntail\n"
    new = replace_section(page, BEGIN + "\nnew\n" + END + "\n")
    assert "new" in new and "old" not in new and new.startswith("# Decision campaign") and new.endswith("tail\n")
    assert replace_section("# A\n", BEGIN + "\nx\n" + END + "\n") == "# A\n\n" + BEGIN + "\nx\n" + END + "\n"


def test_the_claims_are_small_compiled_pairs_and_mutants():
    cs = claims(7)
    assert len(cs) == 7 and cs[0]["name"] == "seed 1000: compiled" and cs[6]["name"] == "seed 1001: compiled"
    assert all(c["group"] in ("compiled", "mutant") for c in cs)


def test_the_z3_process_reads_the_files_without_symrel(tmp_path):
    pytest.importorskip("z3")
    import json

    a = {"symrel": 1, "kind": "cpwl1d", "x": [0, 1, 2], "y": [0, 1, 0]}
    b = {"symrel": 1, "kind": "cpwl1d", "x": [0, 2], "y": [0, 0]}
    paths = []
    for name, obj in (("a", a), ("b", b), ("d", {"symrel": 1, "kind": "box", "bounds": [[0, 2]]})):
        (tmp_path / f"{name}.json").write_text(json.dumps(obj))
        paths.append(str(tmp_path / f"{name}.json"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}    # symrel is not importable there
    (seconds, cpu), result = _z3({**env, "PYTHONSAFEPATH": "1"})(paths)
    assert result == "refuted" and seconds > 0 and cpu >= 0
