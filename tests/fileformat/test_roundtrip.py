"""load -> save -> load gives identical objects and byte-identical canonical files."""

import random

import pytest

from symrel.fileformat import dumps, load, loads_object, save
from symrel.fileformat.models_io import Points, Values
from symrel.models import Attention, AttentionHead, Block, Box, Embedding, FeedForward, Polytope, Readout, Transformer
from symrel.constructions.random import random_cpwl1d, random_maxout_net, random_relu_net


def small_transformer(rule="hardmax", scale=None):
    emb = Embedding([0, 1], [[0, 0, 1, 0], ["1/2", 0, 1, 0]], width=4, tokens=2)
    head = AttentionHead([[0, 0, 1, 0]], [[1, 0, 0, 0]], [[1, 0, 0, 0]], [[0], [0], [0], [1]])
    ff = FeedForward([[1, -1, 0, "2/3"]], [-1], [[0], [0], [0], [1]], [0, 0, 0, "-1/9"])
    return Transformer(2, 4, 2, emb, [Block(Attention([head], rule, scale), ff), Block(None, ff)], Readout(1, [[0, 0, 0, 1]], [3], width=4, tokens=2))


def objects():
    rng = random.Random(3)
    yield random_maxout_net(rng, 3, [4, 2], rank=(1, 3))
    yield random_maxout_net(rng, 2, [2], rank=2, readout_dim=None)
    yield random_relu_net(rng, 2, [3, 3], output_dim=2)
    yield random_cpwl1d(rng, 5)
    yield small_transformer()
    yield small_transformer("softmax", "7/2")
    yield Box([[-1, 1], ["-1/2", "3/7"]])
    yield Polytope([[1, 1], [-1, 0], [0, -1]], [1, 0, 0])
    yield Points([[rng.randint(-5, 5), "1/3"], ["-2/9", 0]])
    yield Values([["1/2"], [4]])


@pytest.mark.parametrize("obj", list(objects()), ids=lambda o: type(o).__name__)
def test_round_trip_is_identical_and_byte_identical(obj, tmp_path):
    path = tmp_path / "a.json"
    save(obj, path)
    first = path.read_bytes()
    again = load(path)
    assert again == obj
    save(again, tmp_path / "b.json")
    assert (tmp_path / "b.json").read_bytes() == first
    assert loads_object(dumps(obj)) == obj


def test_canonical_numbers_in_lowest_terms(tmp_path):
    p = tmp_path / "m.json"
    p.write_text('{"symrel": 1, "kind": "cpwl1d", "x": ["0.0", "2/4", "1e0"], "y": ["-0", "3/6", 1]}')
    save(load(p), p)
    assert '"1/2"' in p.read_text() and "0.0" not in p.read_text()


def test_exact_floats_opt_in(tmp_path):
    p = tmp_path / "m.json"
    p.write_text('{"symrel": 1, "kind": "cpwl1d", "x": [0, 0.1], "y": [0, 1]}')
    with pytest.raises(Exception, match=r"x\[1\]: expected an exact rational"):
        load(p)
    f = load(p, exact_floats=True)
    assert str(f.x[1]) == "3602879701896397/36028797018963968"


def test_written_files_follow_the_umask(tmp_path):
    import os

    from symrel.fileformat import write_text_atomic

    old = os.umask(0o022)
    try:
        write_text_atomic(tmp_path / "r.md", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "r.md").stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["r.md"]
