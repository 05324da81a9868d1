"""crossvalidate: ACAS Xu in onnxruntime against exact evaluation, and the report."""

import pytest

from symrel.errors import InputError
from symrel.exact import Q, rational
from symrel.interop.floats import FORMATS, is_representable, ulp
from symrel.models import Box, DenseLayer, Polytope, ReLUNet

np = pytest.importorskip("numpy")
from symrel.crossval.compare import crossvalidate  # noqa: E402


def test_acas_xu_onnxruntime_float32_on_1000_points(shared_dir):
    pytest.importorskip("onnxruntime")
    from symrel.interop.nnet import load_nnet
    from symrel.interop.onnx_export import OnnxFileRunner
    from symrel.interop.onnx_import import read_onnx

    base = shared_dir / "data" / "acasxu" / "ACASXU_experimental_v2a_1_1"
    net = read_onnx(base.with_suffix(".onnx")).model
    box = load_nnet(base.with_suffix(".nnet")).normalised_input_box()  # the network's input ranges
    runner = OnnxFileRunner(base.with_suffix(".onnx"))  # the MATLAB file run as it is
    rep = crossvalidate(net, dtype="float32", points=1000, domain=box, runner=runner, special=False, seed=7)
    assert len(rep.points.points) == 1000 and rep.reference == "exact rational evaluation"
    assert not rep.nonfinite and len(rep.outputs) == 5
    # the worst input is an exact float32 point of the box; its error is exact and small
    x = rep.worst_input
    assert box.contains(x) and all(is_representable(v, FORMATS["float32"]) for v in x)
    y = net(x)
    i = max(range(5), key=lambda k: rep.outputs[k].max_abs_error)
    f = runner.trace(np.array([[float(v) for v in x]]))[-1][1][0, i]
    assert abs(Q(*float(f).as_integer_ratio()) - y[i]) == rep.max_abs_error
    assert 0 < rep.max_abs_error < Q(1, 10**5)
    ulps = rep.outputs[i].max_ulp_error
    assert ulps >= rep.outputs[i].max_abs_error / ulp(y[i], FORMATS["float32"])
    js = rep.to_json()
    assert rational(js["max_abs_error"]) == rep.max_abs_error and rational(js["max_ulp_error"]) == rep.max_ulp_error
    assert [rational(v) for v in js["worst_input"]] == x
    text = rep.to_markdown()
    assert "worst input (exact)" in text and "onnxruntime" in text


def _net():
    return ReLUNet(2, [DenseLayer([[1, "1/3"], [2, -1]], [0, "1/7"]), DenseLayer([[1, 1], [1, -1]], [0, 0], "none")])


def test_numpy_report_per_stage_and_bound():
    rep = crossvalidate(_net(), "numpy", "float16", 100, seed=1)
    assert [s.name for s in rep.stages] == ["layers[0]", "layers[1]"]
    assert rep.weight_rounding.max_error > 0  # 1/3 and 1/7 are not float16
    assert rep.error_bound["violations"] == [] and rep.ok
    assert rational(rep.error_bound["max_error_over_bound"]) <= 1


def test_given_points_are_rounded_to_the_dtype():
    rep = crossvalidate(_net(), "numpy", "float16", [[Q(1, 3), 0], ["1/2", "-1/4"]])
    assert rep.points.points[0][0] == Q(1365, 4096) and rep.points.sources == ["given", "given"]


def test_bad_domains_and_points():
    with pytest.raises(InputError, match="box domains only"):
        crossvalidate(_net(), points=3, domain=Polytope([[1, 0], [0, 1]], [1, 1]))
    with pytest.raises(InputError, match="dimension 2"):
        crossvalidate(_net(), points=3, domain=Box([[0, 1]]))
    with pytest.raises(InputError, match="points >= 0"):
        crossvalidate(_net(), points=-1)
    with pytest.raises(InputError, match="backend"):
        crossvalidate(_net(), "jax", points=3)
