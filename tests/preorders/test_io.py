"""The preorder and retrieval file kinds: round trips, closure on request, errors with paths."""

import pytest

from symrel.errors import InputError
from symrel.fileformat import dumps, from_json, loads_object, to_json
from symrel.preorders import Preorder
from symrel.preorders.generators import random_complete_preorder, random_retrieval_task


def test_preorder_round_trip_is_canonical():
    P = random_complete_preorder(25, classes=5, seed=1)
    text = dumps(P)
    Q = loads_object(text)
    assert Q == P and dumps(Q) == text
    assert all(x != y for x, y in to_json(P)["leq"])  # reflexive pairs are implied, not written


def test_close_true_takes_the_closure_and_says_how_much_it_added():
    obj = {"symrel": 1, "kind": "preorder", "elements": ["a", "b", "c", "d"],
           "leq": [["a", "b"], ["b", "c"], ["c", "d"]], "close": True}
    P = from_json(obj)
    assert P.is_transitive() and P.leq("a", "d") and P.added_by_closure == 3
    obj["close"] = False
    R = from_json(obj)
    x, y, z = R.transitivity_witness()
    assert R.leq(x, y) and R.leq(y, z) and not R.leq(x, z)


@pytest.mark.parametrize("change,path", [
    (lambda o: o["leq"].append(["a", "nope"]), "leq[2][1]"),
    (lambda o: o["leq"].append(["a"]), "leq[2]"),
    (lambda o: o["elements"].append("a"), "elements[3]"),
    (lambda o: o["elements"].append(7), "elements[3]"),
    (lambda o: o.update(close="yes"), "close"),
    (lambda o: o.pop("leq"), "leq"),
])
def test_bad_preorders_name_the_path(change, path):
    obj = {"symrel": 1, "kind": "preorder", "elements": ["a", "b", "c"], "leq": [["a", "b"], ["b", "c"]]}
    change(obj)
    with pytest.raises(InputError) as info:
        from_json(obj)
    assert info.value.path == path


def test_retrieval_round_trip_and_nested_forms():
    task = random_retrieval_task(3, 5, seed=2)
    again = from_json(to_json(task))
    assert again == task
    obj = to_json(task)
    obj["preorders"]["q0"] = {"symrel": 1, "kind": "preorder", **obj["preorders"]["q0"]}
    obj["preorders"]["q1"].pop("elements")  # defaults to the key names
    assert from_json(obj) == task


@pytest.mark.parametrize("change,path", [
    (lambda o: o["preorders"]["q0"]["leq"].append(["k0", "k9"]), "preorders.q0.leq"),
    (lambda o: o["preorders"]["q0"]["elements"].append("k9"), "preorders.q0.elements"),
    (lambda o: o["preorders"].pop("q1"), "preorders.q1"),
    (lambda o: o["keys"]["k1"].append(3), "keys.k1"),
    (lambda o: o["queries"]["q1"].__setitem__(0, "1/0"), "queries.q1[0]"),
    (lambda o: o["preorders"]["q0"].update(kind="relation", symrel=1), "preorders.q0.kind"),
])
def test_bad_retrieval_tasks_name_the_path(change, path):
    obj = to_json(random_retrieval_task(2, 4, seed=3))
    change(obj)
    with pytest.raises(InputError) as info:
        from_json(obj)
    assert info.value.path.startswith(path)


def test_a_non_reflexive_relation_is_not_written_as_a_preorder():
    with pytest.raises(InputError):
        to_json(Preorder.from_pairs(["a"], [], reflexive=False))
