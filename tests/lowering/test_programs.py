"""Every model kind lowers to one program; the registry is the seam for new kinds."""

import pytest

from symrel.errors import InputError
from symrel.exact import Q, rows
from symrel import model_kinds
from symrel.lowering import Affine, AttentionOp, Embed, FeedForwardOp, Maxout, ReadoutOp, Relu, Segment, lower
from symrel.lowering.program import Program, Stage
from symrel.models import CPWL1D, AffineMap, DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet
from symrel.compiler import compile_maxout
from symrel.models import Box


def _ops(program):
    return [[type(op) for op in st.ops] for st in program.stages]


def test_nets_lower_to_affine_relu_and_maxout_stages():
    relu = ReLUNet(2, [DenseLayer([[1, 2], [-1, 1]], [0, "1/3"]), DenseLayer([[1, -1]], [0], "none")])
    p = lower(relu)
    assert (p.kind, p.input_dim, p.output_dim, p.source) == ("relu", 2, 1, relu)
    assert _ops(p) == [[Affine, Relu], [Affine]] and p.stages[0].ops[0].W is relu.layers[0].affine.exact_W
    net = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 0], [-1, 0], [0, 1]], [0, 0, "1/4"]), MaxoutUnit([[1, 1]], ["1/2"])])],
                    AffineMap([[1, -2]], [1]))
    p = lower(net)
    assert _ops(p) == [[Affine, Maxout], [Affine]] and [s.name for s in p.stages] == ["layers[0]", "readout"]
    assert p.stages[0].ops[1].ranks == (3, 1) and p.stages[0].ops[0].W.shape == (4, 2)


def test_cpwl_lowers_to_segments_and_its_lattice_program():
    f = CPWL1D([0, 1, 3], [0, 2, 0])
    p = lower(f)
    seg, = p.stages[0].ops
    assert isinstance(seg, Segment) and seg.x == f.exact_x and seg.pieces == [(Q(2), Q(0)), (Q(-1), Q(3))]
    assert p.lattice.kind == "maxout" and p.lattice.source.evaluate([Q(2)]) == f.evaluate([Q(2)])


def test_cpwl_mesh_lowers_to_simplices_and_a_lazy_lattice_program():
    from symrel.interop.float_program import float_program
    from symrel.lowering import Simplices
    from symrel.models import CPWLMesh

    f = CPWLMesh([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 2], [1, 3, 2]], [[0], [1], [1], ["1/2"]])
    p = lower(f)
    op, = p.stages[0].ops
    assert (p.kind, p.input_dim, p.output_dim, p.source) == ("cpwl", 2, 1, f)
    assert isinstance(op, Simplices) and op.barycentric == [g.inverse for g in f.exact_geometry] and op.pieces == f.exact_pieces()
    assert p.lattice is None                          # built on first use only
    lat = p.lattice_program()
    assert lat.kind == "maxout" and p.lattice is lat
    x = [Q(3, 4), Q(1, 2)]
    assert lat.source.evaluate(x) == f.evaluate(x)
    assert float_program(f).kind == "maxout"


def test_transformer_lowers_to_embed_sublayers_and_readout():
    net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]])])])
    t = compile_maxout(net, Box([[-1, 1]])).transformer
    p = lower(t)
    assert (p.tokens, p.width, p.blocks) == (t.tokens, t.width, len(t.blocks))
    assert isinstance(p.stages[0].ops[0], Embed) and isinstance(p.stages[-1].ops[0], ReadoutOp)
    assert p.stages[0].ops[0].input_rows == tuple(t.embedding.input_rows)
    for b, block in enumerate(t.blocks):
        kinds = [type(op) for st in p.block_stages(b) for op in st.ops]
        assert kinds == [AttentionOp] * (block.attention is not None) + [FeedForwardOp] * (block.feedforward is not None)
    b, att = next((st.block, op) for st in p.stages for op in st.ops if isinstance(op, AttentionOp))
    WQ, WK, WV, WO = att.heads[0]
    assert rows(WQ) == rows(t.blocks[b].attention.heads[0].exact_WQ) and att.rule == t.blocks[b].attention.rule


def test_unknown_kinds_are_refused_and_new_kinds_register():
    with pytest.raises(InputError, match="expected a model"):
        lower(object())

    class Constant:
        kind, input_dim, output_dim = "constant", 1, 1

    with pytest.raises(InputError, match="expected a model"):
        lower(Constant())
    model_kinds.register(model_kinds.ModelKind("constant", Constant, "a constant",
                                               lower=lambda m: Program("constant", 1, 1, [Stage("c", [])], source=m)))
    try:
        assert lower(Constant()).kind == "constant"
    finally:
        model_kinds.unregister("constant")
    model_kinds.register(model_kinds.ModelKind("constant", Constant, "a constant"))   # no lowering: said so
    try:
        with pytest.raises(InputError, match="cannot lower a model of kind constant"):
            lower(Constant())
    finally:
        model_kinds.unregister("constant")
