"""Reading ONNX nets exactly: CPU seconds of ``read_onnx`` (best of 3) with and without the
onnxruntime guard, and what it makes.

Nets: VNN-COMP 2021 ACAS Xu 1_1, the three mnistfc nets (784 -> 2, 4 or 6 x 256 ReLU ->
10: their float32 weights copied into exact dyadic rationals) and the two verivital nets
(Conv 2x2 with 32 channels -> 23,328 ReLUs, average or max pooling, Gemm: sparse layered
nets). The guard runs onnxruntime at three points and compares it with the exact model
within a rigorous float error bound. CPU seconds are the process's (onnxruntime runs on
one thread in it); the wall seconds beside them grow with the machine's load.
Run: ``python -m benchmarks.bench_onnx_import``.
"""

from __future__ import annotations

import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "vnncomp2021"
NETS = ["acasxu/ACASXU_run2a_1_1_batch_2000.onnx", "mnistfc/mnist-net_256x2.onnx", "mnistfc/mnist-net_256x4.onnx",
        "mnistfc/mnist-net_256x6.onnx", "verivital/Convnet_avgpool.onnx", "verivital/Convnet_maxpool.onnx"]


def _best(path, guard, repeat=3):
    from symrel.interop.onnx_import import read_onnx

    best = None
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        imported = read_onnx(path, check_runtime=guard)
        took = (time.process_time() - cpu, time.perf_counter() - wall)
        best = took if best is None or took < best else best
    return best, imported


def _entries(model) -> int:
    from symrel.models.layered import SparseAffine

    if hasattr(model, "ops"):
        return sum(op.entries for op in model.ops if isinstance(op, SparseAffine))
    return sum(r != 0 for layer in model.layers for M in (layer.affine.exact_W,) for row in M.to_list() for r in row)


def run() -> list:
    from symrel.interop.onnx_import import read_onnx

    read_onnx(DATA / "test" / "test_nano.onnx")  # imports and onnxruntime loaded once, outside the timings
    rows = []
    for net in NETS:
        path = DATA / net
        if not path.exists():
            continue
        (cpu_g, wall_g), imported = _best(path, True)
        (cpu, wall), _ = _best(path, False)
        m = imported.model
        rows.append({"net": Path(net).stem, "model": repr(m).split("(")[0], "inputs": m.input_dim,
                     "outputs": m.output_dim, "stored weights": _entries(m), "CPU s": cpu_g, "wall s": wall_g,
                     "CPU s, no guard": cpu, "wall s, no guard": wall})
    return rows


def main():
    for r in run():
        print(r)


if __name__ == "__main__":
    main()
