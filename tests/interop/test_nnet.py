"""The .nnet reader on the real ACAS Xu network 1_1 and on broken files."""

from pathlib import Path

import pytest

from symrel.errors import InputError
from symrel.exact import Q, rational, rows, flat
from symrel.interop.nnet import load_nnet, nnet_input_box, read_nnet
from symrel.models import Box



@pytest.fixture(scope="module")
def acas_path():
    shared = Path(__file__).resolve().parents[2].parent / "shared"
    path = shared / "data" / "acasxu" / "ACASXU_experimental_v2a_1_1.nnet"
    if not path.exists():
        pytest.skip("ACAS Xu data not present")
    return path


@pytest.fixture(scope="module")
def acas(acas_path):
    return load_nnet(acas_path)


def test_acas_shape_and_header(acas, acas_path):
    net = acas.net()
    assert net.input_dim == 5 and net.output_dim == 5
    assert net.widths == [50] * 6 + [5]
    assert [layer.activation for layer in net.layers] == ["relu"] * 6 + ["none"]
    assert acas.mins[1] == rational("-3.141593") and acas.maxs[0] == 60760
    assert acas.means[0] == rational("19791.091")          # written 1.9791091e+04
    assert acas.ranges[1] == rational("6.28318530718")
    assert nnet_input_box(acas_path) == Box([[0, 60760], ["-3.141593", "3.141593"], ["-3.141593", "3.141593"], [100, 1200], [0, 1200]])


def test_acas_weights_are_the_exact_decimals(acas, acas_path):
    # first weight row and the last bias, as printed in the file
    text = [t for t in acas_path.read_text().splitlines() if not t.startswith("//")]
    first_row = [rational(v) for v in text[7].rstrip(",").split(",")]
    assert acas.weights[0][0] == first_row
    assert acas.biases[-1][-1] == rational(text[-1].rstrip(","))
    net = acas.net()
    assert rows(net.layers[0].affine.exact_W)[0] == first_row


def test_normalise_folds_the_header_exactly(acas):
    raw = acas.net(normalise=True)
    net = acas.net()
    x = [Q(30000), rational("1/3"), rational("-2/5"), Q(500), Q(700)]
    xn = [(v - mu) / r for v, mu, r in zip(x, acas.means, acas.ranges)]
    expect = [v * acas.ranges[-1] + acas.means[-1] for v in net.evaluate(xn)]
    assert raw.evaluate(x) == expect


def test_agrees_with_a_float_reading(acas, acas_path):
    np = pytest.importorskip("numpy")
    text = [t for t in acas_path.read_text().splitlines() if not t.startswith("//")]
    vals = [float(v) for line in text[7:] for v in line.rstrip(",").split(",")]
    x = [Q(1, 10), Q(-1, 5), Q(3, 10), Q(-2, 5), Q(1, 2)]
    h = np.array([float(v) for v in x])
    pos = 0
    sizes = acas.sizes
    for k in range(len(sizes) - 1):
        n = sizes[k + 1] * sizes[k]
        W = np.array(vals[pos:pos + n]).reshape(sizes[k + 1], sizes[k])
        pos += n
        b = np.array(vals[pos:pos + sizes[k + 1]])
        pos += sizes[k + 1]
        h = W @ h + b
        if k < len(sizes) - 2:
            h = np.maximum(h, 0)
    exact = read_nnet(acas_path).evaluate(x)
    assert max(abs(float(e) - f) for e, f in zip(exact, h)) < 1e-9


def _write(tmp_path, text):
    p = tmp_path / "bad.nnet"
    p.write_text(text)
    return p


GOOD = "// c\n1,1,1,1,\n1,1,\n0,\n-1,\n1,\n0,0,\n1,1,\n2,\n3,\n"


def test_small_file_round_trip(tmp_path):
    net = read_nnet(_write(tmp_path, GOOD))
    assert net.evaluate(["1/2"]) == [Q(4)] and net.layers[-1].activation == "none"


@pytest.mark.parametrize(
    "text, line, words",
    [
        (GOOD.replace("2,\n3,", "2,x,\n3,"), "line 9", "1 numbers, got 2"),
        (GOOD.replace("2,\n3,", "abc,\n3,"), "line 9", "exact rational"),
        (GOOD.replace("1,1,\n2,", "1,0,\n2,"), "line 8", "nonzero"),
        (GOOD.replace("3,\n", ""), "line 10", "end of the file"),
        (GOOD + "7,\n", "line 11", "end of the file after"),
        (GOOD.replace("1,1,\n0,", "1,2,\n0,"), "line 3", "layer sizes"),
        (GOOD.replace("1,1,1,1,", "1,a,1,1,"), "line 2", "integers"),
    ],
)
def test_errors_name_the_line(tmp_path, text, line, words):
    with pytest.raises(InputError) as err:
        read_nnet(_write(tmp_path, text))
    msg = str(err.value)
    assert "bad.nnet" in msg and line in msg and words in msg


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="none.nnet: no such file"):
        read_nnet(tmp_path / "none.nnet")
