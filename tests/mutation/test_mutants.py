from symrel.compiler import compile_maxout
from symrel.models import Box, MaxoutLayer, MaxoutNet, MaxoutUnit
from symrel.mutation.mutants import mutant, parameters


def test_parameters_of_a_transformer_are_its_weights_and_offsets():
    t = compile_maxout(MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]])])]), Box([[-1, 1]])).transformer
    paths = [p for p, _ in parameters(t)]
    assert len(paths) == t.num_parameters() + t.tokens * t.width
    assert not any(p.startswith(("input_dim", "width", "tokens", "embedding.input_rows")) for p in paths)
    assert [str(v) for v in mutant(t, "readout.b[0]", "+tiny")([0])] == ["1/1000000"]
