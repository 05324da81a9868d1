"""The float implementations a model can be cross-validated against.

A runner has ``trace(X) -> [(stage name, N x features array)]`` (the last entry
is the output), a ``format`` and, when it rounded symrel's exact weights, a
``rounding`` report; ``name`` says what it is.
"""

from __future__ import annotations

from ..errors import InputError

BACKENDS = ("numpy", "torch", "onnxruntime")


def make_runner(model, backend: str, dtype: str):
    """The runner of ``backend`` for a symrel model in ``dtype``."""
    if backend == "numpy":
        from ..interop.numpy_export import NumpyModel

        runner = NumpyModel(model, dtype)
        runner.name = f"numpy {runner.np.__version__}"
        return runner
    if backend == "torch":
        from ..interop.torch_io import TorchRunner

        return TorchRunner(model, dtype)
    if backend == "onnxruntime":
        from ..interop.onnx_export import OnnxRuntimeRunner

        return OnnxRuntimeRunner(model, dtype)
    raise InputError(f"expected a backend among {', '.join(BACKENDS)}, got {backend!r}", path="--backend")
