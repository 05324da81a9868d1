"""symrel.progress: whole lines when the stream is not a terminal; tqdm on a terminal."""

import io

from symrel.progress import Progress


def test_whole_lines_only_when_not_a_terminal():
    out = io.StringIO()
    with Progress("cells", stream=out, every=0, delay=0) as bar:
        for _ in range(5):
            bar.update(lps=1)
    text = out.getvalue()
    assert "\r" not in text and text.endswith("\n")
    assert text.splitlines()[-1].startswith("cells: 5, lps 1, done in")


def test_total_gives_percentage_and_eta():
    out = io.StringIO()
    bar = Progress("statements", total=4, stream=out, every=1e-9, delay=0)
    bar.update()
    import time

    time.sleep(0.001)
    bar.update()
    assert "/4 (" in out.getvalue() and "ETA" in out.getvalue()
    bar.close()


def test_disabled_prints_nothing():
    out = io.StringIO()
    with Progress("x", stream=out, enabled=False) as bar:
        bar.update()
    assert out.getvalue() == ""


def test_tqdm_on_a_terminal():
    import pytest

    pytest.importorskip("tqdm")

    class Tty(io.StringIO):
        def isatty(self):
            return True

    out = Tty()
    with Progress("cells", total=2, stream=out, delay=0) as bar:
        bar.update()
        bar.update()
    assert "2/2" in out.getvalue() and "cells" in out.getvalue()


def test_nothing_shows_before_the_delay():
    out = io.StringIO()
    with Progress("cells", total=3, stream=out, every=0, delay=60) as bar:
        for _ in range(3):
            bar.update()
    assert out.getvalue() == ""


def test_region_progress_is_whole_lines(capsys, monkeypatch):
    monkeypatch.setattr("symrel.progress.DELAY", 0.0)
    from symrel.models import Box, DenseLayer, ReLUNet
    from symrel.regions import count_regions

    net = ReLUNet(2, [DenseLayer([[1, 0], [0, 1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])
    count_regions(net, Box.cube(2), progress=True)
    err = capsys.readouterr().err
    assert "\r" not in err and err.strip().splitlines()[-1].startswith("cells: 4")
