"""The VNN-COMP 2021 verivital nets as layered nets, for the tests and the measurements.

Until the ONNX import of convolutional nets lands, this reads the two graphs of
``../shared/data/vnncomp2021/verivital`` by hand: Conv (1 -> 32 channels, 2 x 2 kernel,
stride 1, no padding), ReLU, then AveragePool (after a Pad of zeros, a no-op) or MaxPool
(4 x 4 kernel, stride 4), Flatten in (C, H, W) order and Gemm (``transB = 1``). Every
float32 weight is read exactly (:mod:`symrel.interop.floats`).
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "vnncomp2021" / "verivital"


def _initializers(graph):
    from onnx import numpy_helper

    return {t.name: numpy_helper.to_array(t) for t in graph.initializer}


def verivital_net(path):
    """The layered net of ``Convnet_avgpool.onnx`` or ``Convnet_maxpool.onnx``."""
    import onnx

    from symrel.interop.floats import exact_flat
    from symrel.models.layered import LayeredNet, MaxGroups, Relu, SparseAffine

    graph = onnx.load(str(path)).graph
    ops = [n.op_type for n in graph.node]
    if ops not in (["Conv", "Relu", "Pad", "AveragePool", "Flatten", "Gemm"],
                   ["Conv", "Relu", "MaxPool", "Flatten", "Gemm"]):
        raise ValueError(f"not a verivital graph: {ops}")
    init = _initializers(graph)
    conv = graph.node[0]
    W = exact_flat(init[conv.input[1]])          # (32, 1, 2, 2)
    b = exact_flat(init[conv.input[2]])
    C, H, K = 32, 28, 2
    Ho = H - K + 1                               # 27
    rows, bias = [], []
    for c in range(C):
        for i in range(Ho):
            for j in range(Ho):
                row = {}
                for di in range(K):
                    for dj in range(K):
                        row[(i + di) * H + j + dj] = W[c * K * K + di * K + dj]
                rows.append(sorted(row.items()))
                bias.append(b[c])
    net_ops = [SparseAffine(rows, bias, input_dim=H * H), Relu(C * Ho * Ho)]
    P = 4
    Hp = Ho // P                                 # 6
    windows = [[c * Ho * Ho + (P * p + a) * Ho + P * q + bb for a in range(P) for bb in range(P)]
               for c in range(C) for p in range(Hp) for q in range(Hp)]
    if "MaxPool" in ops:
        net_ops.append(MaxGroups(windows, input_dim=C * Ho * Ho))
    else:
        from symrel.exact import Q

        w = Q(1, P * P)
        net_ops.append(SparseAffine([[(j, w) for j in sorted(win)] for win in windows], input_dim=C * Ho * Ho))
    gemm = graph.node[-1]
    G = init[gemm.input[1]]                      # (10, 1152), transB = 1
    gb = exact_flat(init[gemm.input[2]])
    Gq = exact_flat(G)
    n_out, n_in = G.shape
    net_ops.append(SparseAffine([[(j, Gq[i * n_in + j]) for j in range(n_in)] for i in range(n_out)], gb,
                                input_dim=n_in))
    return LayeredNet(H * H, net_ops)


def instances():
    """``[(net file, property file, timeout)]`` of ``verivital_instances.csv``."""
    out = []
    for line in (DATA / "verivital_instances.csv").read_text().splitlines():
        if line.strip():
            onnx_name, spec, timeout = line.split(",")
            out.append((DATA / onnx_name, DATA / spec, float(timeout)))
    return out
