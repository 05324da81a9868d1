"""PyTorch interop (optional extra ``torch``): export any symrel model as an
``nn.Module`` with its weights rounded to a float dtype (error reported
exactly), and import ReLU networks built from ``nn.Linear`` / ``nn.ReLU``
exactly (every float weight is a dyadic rational, read bit for bit).

The exported module runs the lowered program (:mod:`symrel.interop.program`)
with torch operations in the chosen dtype; ``module.trace(x)`` returns the
state after every stage, for layer-by-layer cross-validation. Hardmax attention
averages over the scores that are equal in floats (symrel's rule).
"""

from __future__ import annotations

from ..errors import InputError
from ..exact import from_rationals
from .extras import require
from .floats import float_format
from .numpy_export import rounded_stages
from .program import Affine, AttentionOp, Embed, FeedForwardOp, GroupMax, Program, ReadoutOp, Relu, lower


def _torch_dtype(torch, fmt):
    return getattr(torch, fmt.name)


def to_torch(model, dtype: str = "float32"):
    """``(module, rounding)``: an ``nn.Module`` computing the model in ``dtype``
    and the exact weight rounding report."""
    torch = require("torch", "torch")
    fmt = float_format(dtype)
    program = model if isinstance(model, Program) else lower(model)
    stages, rounding = rounded_stages(program, fmt)
    tdtype = _torch_dtype(torch, fmt)

    def t(a):
        import numpy as np

        return torch.from_numpy(np.asarray(a).astype(np.float64)).to(tdtype)

    class SymrelModule(torch.nn.Module):
        """A symrel model run by PyTorch (weights rounded to one dtype)."""

        def __init__(self):
            super().__init__()
            self.stage_names = [s.name for s in stages]
            self.kind = program.kind
            self._ops = []
            for k, st in enumerate(stages):
                ops = []
                for j, op in enumerate(st.ops):
                    ops.append(self._register(f"s{k}_{j}", op))
                self._ops.append(ops)

        def _register(self, prefix, op):
            def buf(name, a):
                self.register_buffer(f"{prefix}_{name}", t(a))
                return f"{prefix}_{name}"

            if isinstance(op, Affine):
                return ("affine", buf("W", op.W), buf("b", op.b))
            if isinstance(op, Relu):
                return ("relu",)
            if isinstance(op, GroupMax):
                return ("groupmax", op.rank)
            if isinstance(op, Embed):
                return ("embed", buf("E", op.E), buf("offsets", op.offsets))
            if isinstance(op, FeedForwardOp):
                return ("ff", buf("W1", op.W1), buf("b1", op.b1), buf("W2", op.W2), buf("b2", op.b2))
            if isinstance(op, ReadoutOp):
                return ("readout", op.token, buf("W", op.W), buf("b", op.b))
            if isinstance(op, AttentionOp):
                heads = [tuple(buf(f"h{h}_{nm}", M) for nm, M in zip(("WQ", "WK", "WV", "WO"), mats))
                         for h, mats in enumerate(op.heads)]
                scale = buf("scale", [op.scale]) if op.scale is not None else None
                return ("attention", heads, op.rule, scale)
            raise InputError(f"cannot export {type(op).__name__} to torch")  # pragma: no cover

        def trace(self, x):
            z = x.to(tdtype)
            out = []
            for name, ops in zip(self.stage_names, self._ops):
                for op in ops:
                    z = self._apply(op, z)
                out.append((name, z.reshape(z.shape[0], -1)))
            return out

        def forward(self, x):
            return self.trace(x)[-1][1]

        def _apply(self, op, z):
            g = lambda n: getattr(self, n)  # noqa: E731
            kind = op[0]
            if kind == "affine":
                return z @ g(op[1]).T + g(op[2])
            if kind == "relu":
                return torch.relu(z)
            if kind == "groupmax":
                return z.reshape(z.shape[0], -1, op[1]).amax(dim=-1)
            if kind == "embed":
                return (z @ g(op[1]).T)[:, None, :] + g(op[2])[None, :, :]
            if kind == "ff":
                h = torch.relu(z @ g(op[1]).T + g(op[2]))
                return z + (h @ g(op[3]).T + g(op[4]))
            if kind == "readout":
                return z[:, op[1], :] @ g(op[2]).T + g(op[3])
            if kind == "attention":
                out = z
                for WQ, WK, WV, WO in op[1]:
                    s = (z @ g(WQ).T) @ (z @ g(WK).T).transpose(1, 2)
                    if op[2] == "softmax":
                        a = torch.softmax(s * g(op[3]), dim=-1)
                    else:
                        top = (s == s.amax(dim=-1, keepdim=True)).to(z.dtype)
                        a = top / top.sum(dim=-1, keepdim=True)
                    out = out + (a @ (z @ g(WV).T)) @ g(WO).T
                return out
            raise ValueError(kind)  # pragma: no cover

    module = SymrelModule()
    # the offsets were stored T x m by rounded_stages; E, W as out x in
    return module.eval(), rounding


class TorchRunner:
    """A symrel model exported to PyTorch, as a cross-validation runner."""

    def __init__(self, model, dtype: str = "float32"):
        self.torch = require("torch", "torch")
        self.format = float_format(dtype)
        self.program = model if isinstance(model, Program) else lower(model)
        self.module, self.rounding = to_torch(self.program, dtype)
        self.stages, _ = rounded_stages(self.program, self.format)
        self.name = f"torch {self.torch.__version__}"

    def trace(self, X):
        import numpy as np

        with self.torch.no_grad():
            out = self.module.trace(self.torch.from_numpy(np.asarray(X, dtype=np.float64)))
        return [(n, v.to(self.torch.float64).numpy()) for n, v in out]


def save_torch(model, path, dtype: str = "float32"):
    """Save the exported module's ``state_dict`` with its stage layout
    (``torch.save``), atomically; returns the weight rounding report."""
    torch = require("torch", "torch")
    import io

    from ..fileformat import write_bytes_atomic
    from ..fileformat import to_json

    module, rounding = to_torch(model, dtype)
    buf = io.BytesIO()
    torch.save({"symrel_model": to_json(model), "dtype": dtype, "state_dict": module.state_dict(),
                "stages": module.stage_names}, buf)
    write_bytes_atomic(path, buf.getvalue())
    return rounding


def from_torch(module, *, source: str = "torch module"):
    """An ``nn.Sequential`` (nested allowed) of ``Linear``, ``ReLU``,
    ``Identity``, ``Flatten`` and ``Dropout`` as an exact :class:`ReLUNet`.

    Returns an :class:`~symrel.interop.onnx_import.ImportedModel` recording the
    float types read.
    """
    torch = require("torch", "torch")
    from ..models import DenseLayer, ReLUNet
    from .floats import exact_flat
    from .onnx_import import ImportedModel

    flat = []

    def walk(m, path):
        kids = list(m.named_children())
        if isinstance(m, torch.nn.Sequential) or (kids and not isinstance(m, (torch.nn.Linear,))):
            for name, c in kids:
                walk(c, f"{path}.{name}" if path else name)
        else:
            flat.append((path or type(m).__name__, m))

    walk(module, "")
    layers, types, width = [], set(), None
    pending = None
    for path, m in flat:
        if isinstance(m, torch.nn.Linear):
            if pending is not None:
                layers.append(DenseLayer(*pending, "none", input_dim=pending[0].shape[1], path=path))
            W = m.weight.detach().cpu()
            types.add(str(W.dtype).replace("torch.", ""))
            Wd = W.to(torch.float64).numpy()
            vals = exact_flat(Wd, path=f"{path}.weight")
            Wm = from_rationals([vals[i * Wd.shape[1]:(i + 1) * Wd.shape[1]] for i in range(Wd.shape[0])], Wd.shape)
            if m.bias is not None:
                bvals = exact_flat(m.bias.detach().cpu().to(torch.float64).numpy(), path=f"{path}.bias")
            else:
                from ..exact import Q

                bvals = [Q(0)] * Wd.shape[0]
            if width is not None and width != Wd.shape[1]:
                raise InputError(f"expected in_features {width}, got {Wd.shape[1]}", path=path)
            width = Wd.shape[0]
            pending = (Wm, from_rationals([[v] for v in bvals], (len(bvals), 1)))
        elif isinstance(m, torch.nn.ReLU):
            if pending is None:
                raise InputError("expected a Linear layer before ReLU", path=path)
            layers.append(DenseLayer(*pending, "relu", input_dim=pending[0].shape[1], path=path))
            pending = None
        elif isinstance(m, (torch.nn.Identity, torch.nn.Flatten, torch.nn.Dropout)):
            continue
        else:
            raise InputError(f"expected Linear, ReLU, Identity, Flatten or Dropout, got {type(m).__name__}", path=path)
    if pending is not None:
        layers.append(DenseLayer(*pending, "none", input_dim=pending[0].shape[1], path="output"))
    if not layers:
        raise InputError("expected at least one Linear layer", path=source)
    net = ReLUNet(layers[0].input_dim, layers)
    return ImportedModel(net, source, "torch", sorted(types))


class TorchModuleRunner:
    """A user's own ``nn.Sequential`` ReLU network run by PyTorch as it is (not
    re-exported), as a cross-validation runner: forward hooks record the output
    of every ReLU and of the final Linear, which are the stages of the exact
    import :func:`from_torch` gives. Use it to measure the true error of
    PyTorch's own forward pass."""

    def __init__(self, module, dtype: str = "float32"):
        self.torch = require("torch", "torch")
        self.module = module.eval()
        self.format = float_format(dtype)
        net = from_torch(module).model
        self.program = lower(net)
        self.stages, self.rounding = rounded_stages(self.program, self.format)
        self.name = f"torch {self.torch.__version__} ({type(module).__name__} as given)"
        self._taps = []
        mods = [m for m in module.modules() if isinstance(m, (self.torch.nn.Linear, self.torch.nn.ReLU))]
        for i, m in enumerate(mods):
            last = i == len(mods) - 1
            if isinstance(m, self.torch.nn.ReLU) or last:
                self._taps.append(m)
        if len(self._taps) != len(self.program.stages):
            raise InputError("expected the module's ReLUs to follow its Linear layers one to one", path="module")

    def trace(self, X):
        import numpy as np

        torch = self.torch
        seen = []
        hooks = [m.register_forward_hook(lambda mod, inp, out: seen.append(out.detach())) for m in self._taps]
        try:
            with torch.no_grad():
                dtype = next(self.module.parameters()).dtype
                self.module(torch.from_numpy(np.asarray(X, dtype=np.float64)).to(dtype))
        finally:
            for h in hooks:
                h.remove()
        return [(st.name, v.to(torch.float64).numpy().reshape(len(X), -1)) for st, v in zip(self.program.stages, seen)]
