"""PyTorch interop (optional extra ``torch``): export any symrel model as a plain
``nn.Sequential`` with its weights rounded to a float dtype (the error reported
exactly, :func:`torch_weight_rounding`), and import ReLU networks exactly
(every float weight is a dyadic rational, read bit for bit).

The import reads the module's real forward graph with ``torch.fx``: what it
imports is what the module computes, or it refuses (never a different
function). The export runs the lowered program (:mod:`symrel.lowering`)
layer by layer; hardmax attention averages over the scores that are equal in
floats (symrel's rule).
"""

from __future__ import annotations

from ..errors import InputError
from .extras import require
from .floats import float_format
from .numpy_export import rounded_stages
from ..lowering import Affine, AttentionOp, Embed, FeedForwardOp, Program, ReadoutOp, Relu
from .float_program import GroupMax, float_program


def _torch_dtype(torch, fmt):
    return getattr(torch, fmt.name)


def _sequential(program: Program, fmt):
    """The rounded program as an ``nn.Sequential``, the index of the layer that
    ends every stage, and the weight rounding report."""
    torch = require("torch", "torch")
    from . import torch_modules as tm

    stages, rounding = rounded_stages(program, fmt)
    dtype = _torch_dtype(torch, fmt)
    layers, ends = [], []
    for st in stages:
        for op in st.ops:
            if isinstance(op, Affine):
                lin = torch.nn.Linear(op.W.shape[1], op.W.shape[0], dtype=dtype)
                with torch.no_grad():
                    lin.weight.copy_(tm.as_tensor(op.W, dtype))
                    lin.bias.copy_(tm.as_tensor(op.b, dtype))
                layers.append(lin)
            elif isinstance(op, Relu):
                layers.append(torch.nn.ReLU())
            elif isinstance(op, GroupMax):
                layers.append(tm.GroupMax(op.rank))
            elif isinstance(op, Embed):
                layers.append(tm.Embed(op.E, op.offsets, dtype))
            elif isinstance(op, FeedForwardOp):
                layers.append(tm.FeedForward(op.W1, op.b1, op.W2, op.b2, dtype))
            elif isinstance(op, ReadoutOp):
                layers.append(tm.Readout(op.token, op.W, op.b, dtype))
            elif isinstance(op, AttentionOp):
                layers.append(tm.Attention(op.heads, op.rule, op.scale, dtype))
            else:  # pragma: no cover - float_program() makes only the operations above
                raise InputError(f"cannot export {type(op).__name__} to torch", path=st.name)
        ends.append(len(layers) - 1)
    return torch.nn.Sequential(*layers).eval(), ends, rounding


def to_torch(model, dtype: str = "float32"):
    """A plain ``nn.Sequential`` computing ``model`` with its weights rounded to
    ``dtype`` (feed it inputs of that dtype).

    A ReLU net becomes ``Linear``/``ReLU`` layers, so its state dict loads into
    any ``nn.Sequential`` of the same shape; maxout nets and Transformers use the
    layers of :mod:`symrel.interop.torch_modules`. Every weight is an
    ``nn.Parameter`` and ``torch.save(module)`` works. The exact error of the
    rounding is :func:`torch_weight_rounding`.
    """
    fmt = float_format(dtype)
    program = float_program(model)
    return _sequential(program, fmt)[0]


def torch_weight_rounding(model, dtype: str = "float32"):
    """The exact weight rounding report of :func:`to_torch` (a
    :class:`~symrel.interop.numpy_export.WeightRounding`)."""
    fmt = float_format(dtype)
    program = float_program(model)
    return rounded_stages(program, fmt)[1]


class TorchRunner:
    """A symrel model exported to PyTorch (:func:`to_torch`), as a cross-validation runner."""

    def __init__(self, model, dtype: str = "float32"):
        self.torch = require("torch", "torch")
        self.format = float_format(dtype)
        self.program = float_program(model)
        self.module, self.stage_ends, self.rounding = _sequential(self.program, self.format)
        self.stages, _ = rounded_stages(self.program, self.format)
        self.name = f"torch {self.torch.__version__}"

    def trace(self, X):
        """The state after every stage, as ``(name, N x features)`` float64 arrays."""
        import numpy as np

        torch = self.torch
        z = torch.from_numpy(np.asarray(X, dtype=np.float64)).to(_torch_dtype(torch, self.format))
        out, names = [], iter(s.name for s in self.program.stages)
        ends = set(self.stage_ends)
        with torch.no_grad():
            for i, layer in enumerate(self.module):
                z = layer(z)
                if i in ends:
                    out.append((next(names), z.reshape(z.shape[0], -1).to(torch.float64).numpy()))
        return out


def save_torch(model, path, dtype: str = "float32"):
    """Save :func:`to_torch`'s ``state_dict`` with the symrel model it came from
    (``torch.save``), atomically; returns the weight rounding report."""
    torch = require("torch", "torch")
    import io

    from ..fileformat import write_bytes_atomic
    from ..fileformat import to_json

    program = float_program(model)
    module, ends, rounding = _sequential(program, float_format(dtype))
    buf = io.BytesIO()
    torch.save({"symrel_model": to_json(model), "dtype": dtype, "state_dict": module.state_dict(),
                "stage_ends": ends, "stages": [s.name for s in program.stages]}, buf)
    write_bytes_atomic(path, buf.getvalue())
    return rounding


# -- import ---------------------------------------------------------------------------------------
def _module_name(module) -> str:
    return type(module).__name__


def _traced(module, source: str):
    """``module`` traced by ``torch.fx`` (its real forward graph), or a refusal."""
    torch = require("torch", "torch")
    import torch.fx

    if not isinstance(module, torch.nn.Module):
        raise InputError(f"expected a torch.nn.Module, got {type(module).__name__}", path=source)
    for name, m in module.named_modules():
        if m._forward_hooks or m._forward_pre_hooks:
            raise InputError(f"cannot import {_module_name(m)} exactly: it has forward hooks, which change "
                             "what it computes", path=f"{source}.{name}" if name else source)
    try:
        return torch.fx.symbolic_trace(module)
    except Exception as exc:  # noqa: BLE001 - any tracing failure is a refusal, never a guess
        raise InputError(f"cannot import {_module_name(module)}: torch.fx cannot trace its forward "
                         f"({type(exc).__name__}: {' '.join(str(exc).split())[:200]}); symrel imports only "
                         "graphs it can read exactly", path=source) from None


def _attr(gm, target: str):
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _graph_ops(gm, source: str) -> list[tuple]:
    """The traced graph as a chain of ``("linear", node, weight, bias)``,
    ``("relu", node)`` and ``("same", node)`` (an identity), in order. Anything
    else (another op, a branch, a second input) is refused, naming it."""
    torch = require("torch", "torch")
    F = torch.nn.functional
    relu_functions = {F.relu, torch.relu, torch.relu_, getattr(F, "relu_", F.relu)}
    same_modules = (torch.nn.Identity, torch.nn.Dropout, torch.nn.Flatten)
    name = _module_name(gm)
    ops, current, attrs = [], None, {}

    def refuse(node, what):
        return InputError(f"cannot import {name} exactly: {what} (node {node.name!r}); symrel imports a chain of "
                          "Linear, ReLU (module or F.relu), Identity, Flatten and Dropout (as in eval mode)",
                          path=f"{source}.{node.target}" if isinstance(node.target, str) else source)

    def chained(node, n_args=1):
        args = list(node.args)
        if not args or args[0] is not current or any(isinstance(a, torch.fx.Node) for a in args[n_args:]) \
                or any(isinstance(v, torch.fx.Node) for v in node.kwargs.values()):
            raise refuse(node, "the graph is not a single chain (an input used twice or a branch)")

    for node in gm.graph.nodes:
        if node.op == "placeholder":
            if current is not None:
                raise refuse(node, "a second input")
            current = node
        elif node.op == "get_attr":
            attrs[node] = _attr(gm, node.target)
        elif node.op == "call_module":
            m = gm.get_submodule(node.target)
            chained(node)
            if type(m) is torch.nn.Linear:
                ops.append(("linear", node, m.weight, m.bias))
            elif type(m) is torch.nn.ReLU:
                ops.append(("relu", node))
            elif isinstance(m, same_modules) and type(m) in same_modules:
                if isinstance(m, torch.nn.Flatten) and (m.start_dim, m.end_dim) != (1, -1):
                    raise refuse(node, f"Flatten(start_dim={m.start_dim}, end_dim={m.end_dim})")
                ops.append(("same", node))
            else:
                raise refuse(node, f"the layer {type(m).__name__} is not supported")
        elif node.op == "call_function" and node.target in relu_functions:
            chained(node)
            ops.append(("relu", node))
        elif node.op == "call_function" and node.target is F.linear:
            a, kw = list(node.args), node.kwargs
            x = a[0] if a else kw.get("input")
            w = a[1] if len(a) > 1 else kw.get("weight")
            b = a[2] if len(a) > 2 else kw.get("bias")
            if x is not current or w not in attrs or (b is not None and b not in attrs):
                raise refuse(node, "F.linear on anything but the chain and the module's own tensors")
            ops.append(("linear", node, attrs[w], attrs.get(b)))
        elif node.op == "call_method" and node.target in ("relu", "relu_"):
            chained(node)
            ops.append(("relu", node))
        elif node.op == "output":
            if node.args[0] is not current:
                raise refuse(node, "the output is not the end of the chain (a tuple or an earlier value)")
            continue
        else:
            what = getattr(node.target, "__name__", str(node.target))
            raise refuse(node, f"the operation {what} ({node.op}) is not one symrel models")
        if node.op != "get_attr":
            current = node
    if current is None or current.op == "placeholder":
        raise InputError(f"cannot import {name}: expected at least one Linear layer", path=source)
    return ops


def _exact_tensor(t, path):
    from .floats import exact_flat

    torch = require("torch", "torch")
    if not torch.is_floating_point(t):
        raise InputError(f"expected a float tensor, got dtype {t.dtype}", path=path)
    a = t.detach().cpu().to(torch.float64).numpy()  # every float16/bfloat16/float32 value is a float64
    return exact_flat(a, path=path), str(t.dtype).replace("torch.", ""), tuple(a.shape)


def _import_chain(module, source: str):
    """The exact :class:`ReLUNet` of a traced chain, the dtypes read, and for
    every layer the graph node whose value is that layer's output."""
    from ..exact import Q
    from ..models import DenseLayer, ReLUNet

    gm = _traced(module, source)
    ops = _graph_ops(gm, source)
    layers, taps, types, width = [], [], set(), None
    pending = None  # (W, b, in) of a Linear waiting for its activation
    for op in ops:
        kind, node = op[0], op[1]
        if kind == "same":
            if taps and pending is None:
                taps[-1] = node  # the same value as the layer's output
            continue
        if kind == "linear":
            if pending is not None:
                layers.append(DenseLayer(pending[0], pending[1], "none", input_dim=pending[2], path=pending[3]))
                taps.append(pending[4])
            path = f"{source}.{node.target}" if isinstance(node.target, str) else source
            W, tW, shape = _exact_tensor(op[2], f"{path}.weight")
            out_f, in_f = shape
            types.add(tW)
            if op[3] is not None:
                b, tb, _ = _exact_tensor(op[3], f"{path}.bias")
                types.add(tb)
            else:
                b = [Q(0)] * out_f
            if width is not None and width != in_f:
                raise InputError(f"expected in_features {width}, got {in_f}", path=path)
            width = out_f
            pending = ([W[i * in_f:(i + 1) * in_f] for i in range(out_f)], b, in_f, path, node)
        else:  # relu
            if pending is not None:
                layers.append(DenseLayer(pending[0], pending[1], "relu", input_dim=pending[2], path=pending[3]))
                taps.append(node)
                pending = None
            elif layers and layers[-1].activation == "relu":
                taps[-1] = node  # relu(relu(x)) = relu(x)
            else:
                raise InputError(f"cannot import {_module_name(gm)}: a ReLU before any Linear layer has no known "
                                 "input width", path=f"{source}.{node.name}")
    if pending is not None:
        layers.append(DenseLayer(pending[0], pending[1], "none", input_dim=pending[2], path=pending[3]))
        taps.append(pending[4])
    if not layers:
        raise InputError(f"cannot import {_module_name(gm)}: expected at least one Linear layer", path=source)
    return ReLUNet(layers[0].input_dim, layers), sorted(types), gm, taps


def from_torch(module, *, source: str = "module"):
    """The exact :class:`~symrel.models.ReLUNet` computed by a PyTorch module.

    The module's real forward graph is read with ``torch.fx`` symbolic tracing,
    so what is imported is what ``module(x)`` computes: a chain of ``nn.Linear``
    (or ``F.linear`` on the module's own tensors), ReLU (``nn.ReLU``,
    ``F.relu``, ``torch.relu``, ``x.relu()``), ``Identity``, ``Flatten`` and
    ``Dropout`` (as in eval mode, the identity). Every float weight is read bit
    for bit as a dyadic rational. Anything else (another op, a residual branch,
    a forward hook, a graph torch.fx cannot trace) is refused with an
    :class:`~symrel.errors.InputError` naming the module and the op; nothing is
    ever dropped. Returns an :class:`~symrel.interop.onnx_import.ImportedModel`
    recording the float types read.
    """
    from .imported import ImportedModel

    net, types, _, _ = _import_chain(module, source)
    return ImportedModel(net, source, "torch", types)


class TorchModuleRunner:
    """A user's own PyTorch ReLU network run as it is (not re-exported), as a
    cross-validation runner: its traced graph (the same operations as its
    forward) is run with PyTorch and the value after every ReLU and the final
    Linear is recorded; these are the stages of the exact import
    :func:`from_torch` gives. Use it to measure the true error of PyTorch's own
    forward pass."""

    def __init__(self, module, dtype: str = "float32"):
        self.torch = require("torch", "torch")
        self.module = module.eval()
        self.format = float_format(dtype)
        net, _, self._graph, self._taps = _import_chain(self.module, "module")
        self.program = float_program(net)
        self.stages, self.rounding = rounded_stages(self.program, self.format)
        self.name = f"torch {self.torch.__version__} ({type(module).__name__} as given)"

    def trace(self, X):
        import numpy as np

        torch = self.torch
        taps, seen = set(self._taps), {}

        class Recorder(torch.fx.Interpreter):
            def run_node(self, n):
                value = super().run_node(n)
                if n in taps:
                    seen[n] = value.detach()
                return value

        with torch.no_grad():
            dtype = next(self.module.parameters()).dtype
            Recorder(self._graph).run(torch.from_numpy(np.asarray(X, dtype=np.float64)).to(dtype))
        return [(st.name, seen[n].to(torch.float64).numpy().reshape(len(X), -1))
                for st, n in zip(self.program.stages, self._taps)]
