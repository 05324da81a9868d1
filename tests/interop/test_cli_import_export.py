"""``symrel import`` and ``symrel export`` on ACAS Xu and small models."""

import json

import pytest

from symrel.exact import Q
from symrel.fileformat import load, load_model, save
from symrel.interop.floats import FORMATS, round_to_format
from symrel.models import DenseLayer, ReLUNet


@pytest.fixture
def acas(shared_dir):
    return shared_dir / "data" / "acasxu" / "ACASXU_experimental_v2a_1_1"


def test_import_nnet_with_normalisation_and_box(run_cli, acas, tmp_path):
    from symrel.interop.nnet import load_nnet

    out, box = tmp_path / "a.json", tmp_path / "box.json"
    code, so, err = run_cli("import", acas.with_suffix(".nnet"), "-o", out, "--normalise", "--box", box)
    assert code == 0, err
    m = load_model(out)
    assert m == load_nnet(acas.with_suffix(".nnet")).net(normalise=True)
    prov = json.loads(out.read_text())["provenance"]
    assert prov["format"] == "nnet" and not prov["from_floats"]
    assert load(box) == load_nnet(acas.with_suffix(".nnet")).input_box()


def test_import_onnx_records_floats(run_cli, acas, tmp_path):
    pytest.importorskip("onnx")
    out = tmp_path / "a.json"
    code, so, err = run_cli("import", acas.with_suffix(".onnx"), "-o", out, "--json")
    assert code == 0, err
    js = json.loads(so)
    assert js["provenance"]["from_floats"] and js["provenance"]["number_types"] == ["float32"]
    assert load_model(out).widths == [50] * 6 + [5]


def test_import_errors(run_cli, tmp_path, acas):
    code, so, err = run_cli("import", tmp_path / "m.h5", "-o", tmp_path / "o.json")
    assert code == 2 and ".onnx or .nnet" in err
    code, so, err = run_cli("import", acas.with_suffix(".onnx"), "-o", tmp_path / "o.json", "--normalise")
    assert code == 2 and not (tmp_path / "o.json").exists()


def test_export_onnx_and_torch(run_cli, tmp_path):
    pytest.importorskip("onnx")
    p = tmp_path / "net.json"
    save(ReLUNet(1, [DenseLayer([["1/3"]], [0], "none")]), p)
    code, so, err = run_cli("export", p, "--to", "onnx", "-o", tmp_path / "n.onnx", "--dtype", "float16")
    assert code == 0, err
    assert so.strip().splitlines()[-1] == str(abs(round_to_format(Q(1, 3), FORMATS["float16"]) - Q(1, 3)))
    from symrel.interop.onnx_import import read_onnx

    back = read_onnx(tmp_path / "n.onnx")
    assert back.number_types == ["float16"] and back.model.layers[0].affine.exact_W.to_list() == [[Q(1365, 4096)]]
    import importlib.util

    if importlib.util.find_spec("torch") is not None:
        code, so, err = run_cli("export", p, "--to", "torch", "-o", tmp_path / "n.pt", "--json")
        assert code == 0 and json.loads(so)["dtype"] == "float32" and (tmp_path / "n.pt").exists()
