"""The layered engine on the VNN-COMP 2021 verivital nets (a 2 x 2 convolution into 23,328
ReLUs, then average or max pooling): easy instances decided at the root, the unsat one with a
checked certificate, the sat one with an exact witness the net's exact semantics confirms."""

import json

import pytest

from .verivital_nets import DATA, verivital_net

pytest.importorskip("onnx")
pytest.importorskip("scipy")
if not (DATA / "Convnet_maxpool.onnx").exists():
    pytest.skip("the verivital benchmark files are not here", allow_module_level=True)


@pytest.fixture(scope="module")
def maxpool():
    return verivital_net(DATA / "Convnet_maxpool.onnx")


def test_the_net_is_read_as_onnxruntime_computes_it(maxpool):
    ort = pytest.importorskip("onnxruntime")
    import numpy as np

    from symrel.exact import Q

    x = np.random.RandomState(0).rand(784).astype(np.float32)
    y = ort.InferenceSession(str(DATA / "Convnet_maxpool.onnx")).run(None, {"input": x.reshape(1, 1, 28, 28)})[0][0]
    exact = maxpool([Q(*float(v).as_integer_ratio()) for v in x])
    assert np.allclose([float(v) for v in exact], y, atol=1e-4)
    assert maxpool.sizes()["ops"][:2] == ["affine 784 -> 23328 (93312 entries)", "relu 23328"]


@pytest.mark.parametrize("spec,status", [("prop_0_0.004", "unsat"), ("prop_14_0.004", "sat")])
def test_maxpool_instances(maxpool, spec, status):
    from symrel.checking import check_certificate
    from symrel.vnnlib.layered.search import decide
    from symrel.vnnlib.reader import read_vnnlib

    prop = read_vnnlib(DATA / "specs" / "maxpool_specs" / f"{spec}.vnnlib", 784, 10)
    v = decide(maxpool, prop, timeout=400)
    assert v.status == status
    if status == "unsat":
        assert check_certificate(json.loads(json.dumps(v.certificate)))["result"] == "checked"
    else:
        assert prop.in_region(list(v.witness_x)) and prop.holds(list(v.witness_x), maxpool(list(v.witness_x)))


def test_an_instance_the_triangle_relaxation_leaves_open_closes_with_lines_over_the_pixels():
    """avgpool prop_7_0.04: the LP over the ReLUs' triangles bounds Y_1 - Y_7 below by -0.44 on
    the box; with each open ReLU's concave envelope over its four pixels (the close's "hull"
    lines) the bound is about 0.49 > 0, at the root."""
    from symrel.checking import check_certificate
    from symrel.vnnlib.layered.search import decide
    from symrel.vnnlib.reader import read_vnnlib

    net = verivital_net(DATA / "Convnet_avgpool.onnx")
    prop = read_vnnlib(DATA / "specs" / "avgpool_specs" / "prop_7_0.04.vnnlib", 784, 10)
    v = decide(net, prop, timeout=300)
    assert v.status == "unsat" and v.stats["nodes"] == 1
    cert = json.loads(json.dumps(v.certificate))
    assert '"hull"' in json.dumps(cert["steps"])
    assert check_certificate(cert)["result"] == "checked"
