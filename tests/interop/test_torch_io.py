"""PyTorch: a torch-initialised float32 ReLU net imported exactly; export in every dtype."""

import pytest

from symrel.errors import InputError
from symrel.exact import Q
from symrel.interop.floats import FORMATS
from symrel.crossval.examples import tied_values_hardmax

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
from symrel.interop.torch_io import TorchModuleRunner, from_torch, to_torch, torch_weight_rounding  # noqa: E402
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
    assert net.layers[0].affine.exact_W.to_list()[2][1] == Q(*w.as_integer_ratio())
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
    module, rounding = to_torch(net, dtype), torch_weight_rounding(net, dtype)
    assert rounding.format == dtype
    if dtype in ("float64", "float32"):
        assert rounding.max_error == 0
    else:
        assert 0 < rounding.max_error <= max(abs(v) for L in net.layers for r in L.affine.exact_W.to_list() for v in r) * FORMATS[dtype].unit_roundoff
    x = torch.tensor([[0.5, -0.25, 0.125, 1.0]])
    y = module(x.to(getattr(torch, dtype))).to(torch.float64)
    y_exact = [float(v) for v in net([Q(1, 2), Q(-1, 4), Q(1, 8), 1])]
    tol = {"float64": 1e-12, "float32": 1e-5, "float16": 5e-2, "bfloat16": 2e-1}[dtype]
    assert np.allclose(y.detach().numpy()[0], y_exact, atol=tol)


def test_transformer_export_averages_ties():
    module = to_torch(tied_values_hardmax(), "float32")
    assert module(torch.tensor([[0.0], [0.5]]))[:, 0].tolist() == [0.5, 1.5]


def test_unsupported_layer():
    with pytest.raises(InputError, match="Tanh"):
        from_torch(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh()))


class FunctionalRelu(torch.nn.Module):
    """A net whose ReLUs are in forward (F.relu), not modules: the bug of issue 17."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.fc1, self.fc2 = torch.nn.Linear(3, 8), torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.nn.functional.relu(self.fc1(x)))


def _agrees_with_torch(module, net, dim):
    torch.manual_seed(5)
    X = torch.rand(50, dim, dtype=torch.float64) * 4 - 2
    with torch.no_grad():
        y = module.double()(X).numpy()
    exact = [[float(v) for v in net([Q(*x.as_integer_ratio()) for x in row])] for row in X.tolist()]
    return np.allclose(y, exact, atol=1e-12)


def test_functional_relu_is_imported_with_its_relu():
    m = FunctionalRelu()
    net = from_torch(m).model
    assert [L.activation for L in net.layers] == ["relu", "none"]
    assert _agrees_with_torch(m, net, 3)


class Other(torch.nn.Module):
    def __init__(self, op):
        super().__init__()
        self.fc1, self.fc2, self.op = torch.nn.Linear(3, 4), torch.nn.Linear(4, 1), op

    def forward(self, x):
        return self.fc2(self.op(self.fc1(x)))


@pytest.mark.parametrize("op, named", [
    (torch.tanh, "tanh"),
    (torch.nn.functional.gelu, "gelu"),
    (lambda h: torch.clamp(h, min=0), "clamp"),
    (torch.nn.functional.leaky_relu, "leaky_relu"),
    (lambda h: h * 2, "mul"),
    (torch.nn.LeakyReLU(), "LeakyReLU"),
])
def test_an_op_symrel_lacks_is_refused_naming_it(op, named):
    with pytest.raises(InputError, match=f"Other.*{named}"):
        from_torch(Other(op))


class Residual(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)

    def forward(self, x):
        return x + torch.relu(self.fc(x))


class Branching(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc, self.fc2 = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)

    def forward(self, x):
        return self.fc2(x)  if x.sum() > 0 else self.fc(x)  # data-dependent control flow


def test_branches_and_untraceable_modules_are_refused():
    with pytest.raises(InputError, match="Residual"):
        from_torch(Residual())
    with pytest.raises(InputError, match="Branching.*torch.fx"):
        from_torch(Branching())
    with pytest.raises(InputError, match="torch.nn.Module"):
        from_torch([torch.nn.Linear(2, 2)])


def test_a_forward_hook_is_refused():
    m = _torch_net()
    m[1].register_forward_hook(lambda mod, i, o: o * 0)
    with pytest.raises(InputError, match="hook"):
        from_torch(m)


def test_functional_linear_on_own_parameters_and_method_relu():
    class Lin(torch.nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(2)
            self.w = torch.nn.Parameter(torch.randn(4, 2))
            self.out = torch.nn.Linear(4, 1, bias=False)

        def forward(self, x):
            return self.out(torch.nn.functional.linear(x, self.w).relu())

    m = Lin()
    net = from_torch(m).model
    assert [L.activation for L in net.layers] == ["relu", "none"]
    assert _agrees_with_torch(m, net, 2)


def test_functional_relu_runner_measures_torch_itself():
    m = FunctionalRelu()
    net = from_torch(m).model
    rep = crossvalidate(net, points=30, runner=TorchModuleRunner(m), seed=1)
    assert rep.ok and rep.error_bound["violations"] == []


def test_export_is_a_plain_sequential_that_saves_and_loads(tmp_path):
    import io

    net = from_torch(_torch_net()).model
    module = to_torch(net)
    assert type(module) is torch.nn.Sequential
    assert [type(L).__name__ for L in module] == ["Linear", "ReLU", "Linear", "ReLU", "Linear"]
    assert len(list(module.parameters())) == 6
    plain = _torch_net(seed=9)
    plain.load_state_dict(module.state_dict())  # standard keys: 0.weight, 0.bias, ...
    x = torch.tensor([[0.5, -0.25, 0.125, 1.0]])
    assert torch.equal(plain(x), module(x))
    buf = io.BytesIO()
    torch.save(module, buf)
    buf.seek(0)
    again = torch.load(buf, weights_only=False)
    assert torch.equal(again(x), module(x))


def test_export_of_a_transformer_saves(tmp_path):
    import io

    module = to_torch(tied_values_hardmax())
    assert type(module) is torch.nn.Sequential and list(module.parameters())
    buf = io.BytesIO()
    torch.save(module, buf)
    buf.seek(0)
    assert torch.equal(torch.load(buf, weights_only=False)(torch.tensor([[0.0], [0.5]])),
                       module(torch.tensor([[0.0], [0.5]])))
