import json

import pytest

from symrel.errors import InputError
from symrel.fileformat import dumps, from_json, loads_object, save, load
from symrel.constructions.interpolate import interpolating_relu_net
from symrel.relations import Relation, RelationFeatures


def test_relation_round_trip(tmp_path):
    rel = Relation([["1/2", 0], [1, 1]], [[1, "-2/3", 0], [0, 4, 1]], y=[[0], [1], ["7/3"]])
    back = loads_object(dumps(rel))
    assert back == rel
    obj = json.loads(dumps(rel))
    assert obj["kind"] == "relation" and obj["r"][0][1] == "-2/3" and obj["y"][2] == ["7/3"]
    save(rel, tmp_path / "r.json")
    assert load(tmp_path / "r.json", kinds=("relation",)) == rel


def test_relation_on_one_set_omits_y():
    rel = from_json({"symrel": 1, "kind": "relation", "x": [[0], [1]], "r": [[1, 0], [0, 1]]})
    assert rel.y is None
    assert "y" not in json.loads(dumps(rel))


@pytest.mark.parametrize(
    "obj, path",
    [
        ({"x": [[0]], "r": [[0.5]]}, "r[0][0]"),
        ({"x": [[0]]}, "r"),
        ({"r": [[1]]}, "x"),
        ({"x": [[0], [1]], "r": [[1, 2]]}, "r"),
        ({"x": [[0]], "y": [[0], [1]], "r": [[1]]}, "r[0]"),
        ({"x": [[0], [0]], "r": [[1, 2], [3, 4]]}, "x[1]"),
    ],
)
def test_bad_relations_name_the_path(obj, path):
    from symrel.fileformat.jsonio import loads

    text = json.dumps({"symrel": 1, "kind": "relation", **obj})
    with pytest.raises(InputError) as info:
        from_json(loads(text))
    assert info.value.path == path


def test_features_round_trip():
    phi = interpolating_relu_net([[0], [1], [2]], [[1, 0], [0, 1], [1, 1]])
    psi = interpolating_relu_net([[0, 0], [1, 1]], [[1, 2], [3, 4]])
    f = RelationFeatures(phi, psi)
    obj = json.loads(dumps(f))
    assert obj["kind"] == "relation-features" and obj["phi"]["kind"] == "relu"
    assert loads_object(dumps(f)) == f


def test_features_with_wrong_model_kind():
    with pytest.raises(InputError) as info:
        from_json({"symrel": 1, "kind": "relation-features",
                   "phi": {"symrel": 1, "kind": "box", "bounds": [[0, 1]]},
                   "psi": {"symrel": 1, "kind": "box", "bounds": [[0, 1]]}})
    assert info.value.path == "phi.kind"
