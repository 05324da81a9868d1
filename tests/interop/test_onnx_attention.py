"""Attention graphs: hardmax and softmax Transformers survive export + exact import."""

import pytest

from symrel.errors import InputError
from symrel.crossval.examples import near_tie_softmax, tied_values_hardmax
from symrel.models import Attention, AttentionHead, Block, Embedding, FeedForward, Readout, Transformer

pytest.importorskip("onnx")
from symrel.interop.onnx_export import to_onnx  # noqa: E402
from symrel.interop.onnx_import import read_onnx  # noqa: E402


def _two_blocks():
    emb = Embedding([0, 2], [[0, 1, 0], [0, -1, 0], [0, 0, "1/2"]], width=3, tokens=3)
    h1 = AttentionHead([[1, 0, 0]], [[0, 1, 1]], [[1, 0, 0], [0, 1, 0]], [[0, 0], [0, 0], [1, "1/4"]])
    h2 = AttentionHead([[0, 0, 1]], [[1, 0, 0]], [[0, 0, 1]], [[0], ["-1/2"], [0]])
    ff = FeedForward([[1, 0, 1], [-1, 0, 1]], [0, "1/2"], [[0, 0], [0, 0], [1, -1]], [0, 0, "1/8"])
    ff2 = FeedForward([[0, 1, 0]], [1], [[1], [0], [0]], [0, 0, 0])
    blocks = [Block(Attention([h1, h2]), ff), Block(None, ff2), Block(Attention([h2], "softmax", "3/2"), None)]
    return Transformer(2, 3, 3, emb, blocks, Readout(1, [[1, 0, 1], [0, 1, 1]], [0, "1/16"], width=3, tokens=3))


@pytest.mark.parametrize("make", [_two_blocks, tied_values_hardmax, lambda: near_tie_softmax()[0]])
def test_round_trip_is_exact(tmp_path, make):
    t = make()
    proto, rounding = to_onnx(t, "float64")
    assert rounding.max_error == 0
    p = tmp_path / "t.onnx"
    p.write_bytes(proto.SerializeToString())
    assert read_onnx(p).model == t


def test_bias_on_a_query_is_refused(tmp_path):
    import numpy as np
    from onnx import numpy_helper

    proto, _ = to_onnx(tied_values_hardmax(), "float64")
    g = proto.graph
    # add a bias after the query map: attention scores with biases are not symrel heads
    q_node = next(n for n in g.node if n.op_type == "MatMul" and n.output[0].startswith("q0"))
    g.initializer.append(numpy_helper.from_array(np.array([0.5]), "qbias"))
    old = q_node.output[0]
    q_node.output[0] = old + "_raw"
    import onnx

    idx = list(g.node).index(q_node)
    g.node.insert(idx + 1, onnx.helper.make_node("Add", [old + "_raw", "qbias"], [old], name="qbias_add"))
    p = tmp_path / "b.onnx"
    p.write_bytes(proto.SerializeToString())
    with pytest.raises(InputError, match="bias-free"):
        read_onnx(p)
