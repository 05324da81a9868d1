"""plot_regions: matplotlib's idiom (draws on an Axes, leaves the backend alone),
neighbouring regions in different colours, labels, decision boundaries, PDF/SVG."""

import pytest

matplotlib = pytest.importorskip("matplotlib")

from symrel.models import Box, DenseLayer, ReLUNet  # noqa: E402
from symrel.regions import count_regions  # noqa: E402
from symrel.regions.plot import BIG, cell_polygon, plot_regions, polygon_adjacency, save_regions_plot  # noqa: E402


def _five_lines(outputs=1):
    W2 = [[1, -2, 3, 1, -1]] + ([[-1, 1, 0, 2, 1]] if outputs == 2 else [])
    return ReLUNet(2, [DenseLayer([[1, 0], [0, 1], [1, 1], [1, -1], [1, 2]],
                                  ["-1/10", "1/5", "-1/3", "1/7", "1/4"], "relu"),
                       DenseLayer(W2, [0] * outputs, "none")])


def test_draws_on_the_given_axes_and_leaves_the_backend():
    from matplotlib.figure import Figure

    backend = matplotlib.get_backend()
    res = count_regions(_five_lines(), Box.cube(2, -2, 2))
    ax = Figure().add_subplot()
    assert plot_regions(res, ax) is ax
    assert matplotlib.get_backend() == backend
    assert ax.get_xlabel() == "$x_1$" and ax.get_ylabel() == "$x_2$"
    assert len(ax.patches) == res.activation_cells + 1  # every cell and the domain outline


def test_neighbouring_regions_have_different_colours():
    from matplotlib.figure import Figure

    res = count_regions(_five_lines(), Box.cube(2, -2, 2), kind="activation")
    ax = plot_regions(res, Figure().add_subplot(), boundary=False)
    start = [(-BIG, -BIG), (BIG, -BIG), (BIG, BIG), (-BIG, BIG)]
    polys = [cell_polygon(c.rows, start) for c in res.cells]
    pairs = polygon_adjacency(polys)
    assert len(pairs) >= res.activation_cells - 1  # the cells tile the square: it is connected
    colours = [p.get_facecolor() for p in ax.patches[:-1]]
    for i, j in pairs:
        if tuple(res.cells[i].outputs[0]) != tuple(res.cells[j].outputs[0]):
            assert colours[i] != colours[j], (i, j)


def test_labels_boundary_and_formats(tmp_path):
    from matplotlib.figure import Figure

    res = count_regions(_five_lines(outputs=2), Box.cube(2, -2, 2))
    ax = plot_regions(res, Figure().add_subplot(), labels=("$x_3$", "$x_5$"))
    assert ax.get_xlabel() == "$x_3$" and ax.lines  # the decision boundary of the two outputs
    assert not plot_regions(res, Figure().add_subplot(), boundary=False).lines
    svg, pdf = tmp_path / "r.svg", tmp_path / "r.pdf"
    assert save_regions_plot(res, svg) == str(svg) and b"<svg" in svg.read_bytes()[:400]
    save_regions_plot(res, pdf)
    assert pdf.read_bytes().startswith(b"%PDF")
    assert plot_regions(res, str(tmp_path / "old.png")) == str(tmp_path / "old.png")  # the older form


def test_one_dimensional_plot(tmp_path):
    from matplotlib.figure import Figure

    from symrel.models import CPWL1D

    res = count_regions(CPWL1D([0, 1, 2, 3], [0, 1, 0, 1]), Box([[0, 3]]))
    ax = plot_regions(res, Figure().add_subplot())
    colours = [line.get_color() for line in ax.lines if len(line.get_xdata()) == 2 and line.get_linewidth() == 2]
    assert len(colours) == 3 and colours[0] != colours[1] != colours[2]


def test_cli_slice_of_a_three_dimensional_net(run_cli, tmp_path):
    import json

    net = ReLUNet(3, [DenseLayer([[1, 0, 1], [0, 1, -1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])
    from symrel.fileformat import to_json

    (tmp_path / "n.json").write_text(json.dumps(to_json(net)))
    (tmp_path / "d.json").write_text(json.dumps({"symrel": 1, "kind": "box", "bounds": [[-1, 1]] * 3}))
    out = tmp_path / "s.svg"
    code, stdout, err = run_cli("regions", tmp_path / "n.json", "--domain", tmp_path / "d.json", "--slice", "1,3",
                                "--at", "0,1/2,0", "--plot", out)
    assert code == 0, err
    assert stdout.strip().splitlines()[-1] == "4" and "slice" in err and out.is_file()
    code, _, err = run_cli("regions", tmp_path / "n.json", "--domain", tmp_path / "d.json", "--slice", "1,4")
    assert code == 2 and "--slice" in err
    code, _, err = run_cli("regions", tmp_path / "n.json", "--domain", tmp_path / "d.json", "--plot", out)
    assert code == 2 and "--slice" in err
