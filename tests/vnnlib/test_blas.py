"""numpy's OpenBLAS on one thread in a block (symrel.vnnlib.blas), restored after."""

import pytest

pytest.importorskip("numpy")
from symrel.vnnlib import blas  # noqa: E402


def test_one_thread_inside_and_the_count_restored():
    fns = blas._functions()
    if fns is None:
        pytest.skip("no OpenBLAS found in this process")
    set_threads, get_threads = fns
    before = int(get_threads())
    with blas.one_thread():
        assert int(get_threads()) == 1
    assert int(get_threads()) == before


def test_restored_after_an_error():
    fns = blas._functions()
    if fns is None:
        pytest.skip("no OpenBLAS found in this process")
    before = int(fns[1]())
    with pytest.raises(ValueError):
        with blas.one_thread():
            raise ValueError
    assert int(fns[1]()) == before
