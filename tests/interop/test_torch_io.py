"""PyTorch: a torch-initialised float32 ReLU net imported exactly; export in every dtype."""

import pytest

from symrel.errors import InputError
from symrel.exact import Q
from symrel.interop.floats import FORMATS
from symrel.crossval.examples import tied_values_hardmax

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
from symrel.interop.torch_io import TorchModuleRunner, from_torch, to_torch  # noqa: E402
from symrel.crossval.compare import crossvalidate  # noqa: E402


def _torch_net(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16), torch.nn.ReLU(),
                               torch.nn.Linear(16, 3))


def test_import_is_bit_for_bit():
    m = _torch_net()
    imported = from_torch(m)
    net = imported.model
    assert imported.provenance()["from_floats"] and imported.number_types == ["float32"]
    w = m[0].weight.detach()[2, 1].item()
    assert net.layers[0].affine.W.to_list()[2][1] == Q(*w.as_integer_ratio())
    assert [L.activation for L in net.layers] == ["relu", "relu", "none"]


def test_pytorch_forward_error_is_within_the_float_bound():
    m = _torch_net()
    net = from_torch(m).model
    rep = crossvalidate(net, points=200, runner=TorchModuleRunner(m), seed=3)
    # the true float32 error of PyTorch's own forward pass, exact, and its rigorous bound
    assert rep.weight_rounding.max_error == 0
    assert rep.error_bound["violations"] == []
    assert 0 < rep.max_abs_error
    assert Q(0) < rep.output_stat.max_abs_error
    from symrel.exact import rational

    assert rational(rep.error_bound["max_error_over_bound"]) <= 1
    assert rep.max_abs_error < Q(1, 10**5)
    assert rep.ok


def test_a_tampered_forward_pass_breaks_the_bound():
    m = _torch_net()
    net = from_torch(m).model
    runner = TorchModuleRunner(m)
    real = runner.trace

    def tampered(X):
        out = real(X)
        name, y = out[-1]
        y = y.copy()
        y[0, 0] += 1e-4  # one output off by 1e-4 (the bound here is about 1e-6)
        return out[:-1] + [(name, y)]

    runner.trace = tampered
    rep = crossvalidate(net, points=20, runner=runner, special=False)
    assert len(rep.error_bound["violations"]) == 1 and not rep.ok
    x = rep.error_bound["violations"][0]
    assert x == [str(v) if not isinstance(v, int) else v for v in x]  # an exact input, as written


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_export_every_dtype(dtype):
    net = from_torch(_torch_net()).model
    module, rounding = to_torch(net, dtype)
    assert rounding.format == dtype
    if dtype in ("float64", "float32"):
        assert rounding.max_error == 0
    else:
        assert 0 < rounding.max_error <= max(abs(v) for L in net.layers for r in L.affine.W.to_list() for v in r) * FORMATS[dtype].unit_roundoff
    x = torch.tensor([[0.5, -0.25, 0.125, 1.0]])
    y = module(x).to(torch.float64)
    y_exact = [float(v) for v in net([Q(1, 2), Q(-1, 4), Q(1, 8), 1])]
    tol = {"float64": 1e-12, "float32": 1e-5, "float16": 5e-2, "bfloat16": 2e-1}[dtype]
    assert np.allclose(y.numpy()[0], y_exact, atol=tol)


def test_transformer_export_averages_ties():
    module, _ = to_torch(tied_values_hardmax(), "float32")
    assert module(torch.tensor([[0.0], [0.5]]))[:, 0].tolist() == [0.5, 1.5]


def test_unsupported_layer():
    with pytest.raises(InputError, match="Tanh"):
        from_torch(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh()))
