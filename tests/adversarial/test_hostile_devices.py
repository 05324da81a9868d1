"""A device under the name of every format (hostile.py, README.md "A fresh round"): refused before
a byte is read; a pipe is still read (bounded)."""

import os
import threading

import pytest

from .hostile import D, rows, run_row, working_folder


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return working_folder(tmp_path_factory.mktemp("hostile-devices"))


@pytest.mark.parametrize("row", rows(D), ids=lambda row: row.file)
def test_each_file(row, folder, run_cli, monkeypatch):
    run_row(run_cli, row, folder, monkeypatch)


def test_a_pipe_is_read(tmp_path):
    """A named pipe (what ``<(...)`` gives) is read, up to the file-size limit."""
    from symrel.errors import LimitError
    from symrel.fileformat.reading import read_bytes

    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    fifo = tmp_path / "p.vnnlib"
    os.mkfifo(fifo)

    def write(data):
        with open(fifo, "wb") as fh:
            try:
                fh.write(data)
            except BrokenPipeError:
                pass

    writer = threading.Thread(target=write, args=(b"(declare-const X_0 Real)",))
    writer.start()
    assert read_bytes(fifo) == b"(declare-const X_0 Real)"
    writer.join()
    writer = threading.Thread(target=write, args=(b"x" * 100,))
    writer.start()
    with pytest.raises(LimitError, match="expected a file of at most 10 bytes"):
        read_bytes(fifo, limit=10)
    writer.join()
