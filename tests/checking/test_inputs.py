"""The checker's own reader of embedded inputs (symrel.checking.inputs, .semantics, .tables):
it refuses what the file-format readers refuse, with the JSON path, and its models mean what
the library's models mean."""

import random

import pytest

from symrel.checking import MalformedCertificate
from symrel.checking.inputs import read_input
from symrel.exact import rational

RELU = {"symrel": 1, "kind": "relu", "input_dim": 2,
        "layers": [{"W": [[1, -1], ["1/2", 2]], "b": [0, "-1/3"], "activation": "relu"},
                   {"W": [[1, 1]], "activation": "none"}]}
MAXOUT = {"symrel": 1, "kind": "maxout", "input_dim": 2,
          "layers": [{"units": [{"pieces": [{"w": [1, 0], "b": 0}, {"w": [0, -1], "b": "1/2"}]},
                                {"pieces": [{"w": [-1, 1], "b": 1}]}]}],
          "readout": {"W": [[1, -2]], "b": [3]}}


@pytest.mark.parametrize("obj, path, says", [
    ({**RELU, "input_dim": True}, "x.input_dim", "boolean"),
    ({**RELU, "layers": [{"W": [[1, 2, 3]], "activation": "relu"}]}, "x.layers[0].W[0]", "2 entries"),
    ({**RELU, "layers": [{"W": [[1, 0.5]], "activation": "relu"}]}, "x.layers[0].W[0][1]", "exact rational"),
    ({**RELU, "layers": [{"W": [], "activation": "relu"}]}, "x.layers[0].W", "at least 1 rows"),
    ({**RELU, "layers": [{"W": [[1, 1]], "activation": "tanh"}]}, "x.layers[0].activation", "one of"),
    ({**MAXOUT, "readout": {"W": [[1, 2, 3]]}}, "x.readout.W[0]", "2 entries"),
    ({**MAXOUT, "layers": [{"units": [{"pieces": []}]}]}, "x.layers[0].units[0].pieces", "at least 1"),
    ({"symrel": 1, "kind": "cpwl1d", "x": [0, 1, 1], "y": [0, 1, 2]}, "x.x[2]", "strictly increasing"),
    ({"symrel": 1, "kind": "cpwl1d", "x": [0, 1], "y": [0]}, "x.y", "2 entries"),
    ({"symrel": 1, "kind": "box", "bounds": [[1, 0]]}, "x.bounds[0]", "lower <= upper"),
    ({"symrel": 1, "kind": "polytope", "A": [[]], "b": [0]}, "x.A[0]", "one variable"),
    ({"symrel": True, "kind": "box", "bounds": [[0, 1]]}, "x.symrel", "boolean"),
    ({"symrel": 1, "kind": "preorder", "elements": ["a", "a"], "leq": []}, "x.elements", "twice"),
])
def test_the_reader_refuses_malformed_inputs_naming_the_path(obj, path, says):
    with pytest.raises(MalformedCertificate) as err:
        read_input(obj, "x")
    assert err.value.path == path and says in err.value.message, (err.value.path, err.value.message)


def test_the_checkers_models_evaluate_as_the_librarys():
    """The checker's semantics and the library's models (symrel.models, read by the file
    format) give the same outputs at random rational points, and read the same dimensions."""
    from symrel.fileformat.registry import from_json

    rng = random.Random(1)
    for obj in (RELU, MAXOUT, {"symrel": 1, "kind": "cpwl1d", "x": [0, "1/2", 2], "y": [1, -1, 3]}):
        ours, theirs = read_input(obj, "x"), from_json(obj)
        assert (ours.input_dim, ours.output_dim) == (theirs.input_dim, theirs.output_dim)
        for _ in range(20):
            point = [rational(f"{rng.randint(-9, 9)}/{rng.randint(1, 5)}") for _ in range(ours.input_dim)]
            assert ours.evaluate_exact(point) == theirs.evaluate_exact(point), (obj["kind"], point)


def test_models_are_equal_when_their_data_is():
    assert read_input(RELU, "a") == read_input(RELU, "b") != read_input(MAXOUT, "c")


def test_the_checkers_transformers_evaluate_as_the_librarys():
    """The Transformers of the golden certificates (hardmax, and a sequence Transformer on every
    input the audit lists) mean the same to the checker and to the library."""
    import json
    from pathlib import Path

    from symrel.fileformat.registry import from_json
    from symrel.models import all_sequences

    golden = Path(__file__).parent / "golden" / "valid"
    tf = json.loads((golden / "regions-hardmax.json").read_text())["inputs"]["model"]["object"]
    ours, theirs = read_input(tf, "x"), from_json(tf)
    for t in ("-1", "-1/3", "0", "1/2", "1"):
        point = [rational(t)] * ours.input_dim
        assert ours.evaluate_exact(point) == theirs.evaluate_exact(point), t
    cert = json.loads((golden / "tracr-audit.json").read_text())
    seq = cert["inputs"]["model"]["object"]
    ours, theirs = read_input(seq, "x"), from_json(seq)
    vocab = [v for v in theirs.tokens if v != theirs.bos]
    for s in all_sequences(vocab, cert["claim"]["max_seq_len"]):
        scores = ours.exact_scores(list(s))
        assert scores == theirs.exact_scores(list(s)), s
        assert [ours.decode_scores(x) for x in scores] == [theirs.decode_scores(x) for x in scores], s


@pytest.mark.parametrize("change, path, says", [
    ({"tokens": ["BOS", "a", "a"]}, "x.tokens", "distinct"),
    ({"bos": "c"}, "x.bos", "BOS"),
    ({"causal": 1}, "x.causal", "boolean"),
    ({"output_labels": ["x"]}, "x.output_labels", "2 output labels"),
    ({"tokens": ["BOS", "a", 0.5]}, "x.tokens[2]", "label"),
])
def test_the_sequence_reader_refuses_what_the_library_refuses(change, path, says):
    obj = {"symrel": 1, "kind": "sequence-transformer", "tokens": ["BOS", "a", "b"], "bos": "BOS",
           "token_embedding": [[0, 0], [1, 0], [0, 1]], "position_embedding": [[0, 0], [0, 0], [0, 0]],
           "layers": [], "unembedding": [[1, 0], [0, 1]], "output": "categorical", "output_labels": ["x", "y"]}
    if change.get("tokens") == ["BOS", "a", 0.5]:
        from symrel.exact import FloatLiteral

        change = {"tokens": ["BOS", "a", FloatLiteral("0.5")]}
    with pytest.raises(MalformedCertificate) as err:
        read_input({**obj, **change}, "x")
    assert err.value.path == path and says in err.value.message, (err.value.path, err.value.message)
