"""Progress shows by default on a terminal, and never when the output is piped."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def files(tmp_path):
    net = {"symrel": 1, "kind": "relu", "input_dim": 2,
           "layers": [{"W": [[1, 0], [0, 1], [1, -1]], "b": [0, 0, "1/3"], "activation": "relu"},
                      {"W": [[1, 1, 1]], "b": [0], "activation": "none"}]}
    box = {"symrel": 1, "kind": "box", "bounds": [[-1, 1], [-1, 1]]}
    (tmp_path / "net.json").write_text(json.dumps(net))
    (tmp_path / "box.json").write_text(json.dumps(box))
    return tmp_path


def _env(delay: str) -> dict:
    return {**os.environ, "SYMREL_PROGRESS_DELAY": delay, "PYTHONPATH": str(ROOT)}


def _on_a_terminal(argv, env) -> tuple[int, str]:
    """Run ``argv`` with standard output and error on a pseudo-terminal: (exit code, what it showed)."""
    pty = pytest.importorskip("pty")
    import select

    import fcntl
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 24 rows, 100 columns
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, env=env, cwd=ROOT)
    os.close(follower)
    shown = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            proc.kill()
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the command ended
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return proc.wait(timeout=60), shown.decode(errors="replace")


def test_progress_shows_by_default_on_a_terminal(files):
    argv = [sys.executable, "-m", "symrel", "regions", str(files / "net.json"), "--domain", str(files / "box.json")]
    code, shown = _on_a_terminal(argv, _env("0"))
    assert code == 0 and "cells" in shown, shown
    code, shown = _on_a_terminal(argv + ["--no-progress"], _env("0"))
    assert code == 0 and "cells:" not in shown and "cell/s" not in shown, shown


def test_a_short_run_shows_no_progress_even_on_a_terminal(files):
    argv = [sys.executable, "-m", "symrel", "regions", str(files / "net.json"), "--domain", str(files / "box.json")]
    code, shown = _on_a_terminal(argv, _env("30"))
    assert code == 0 and "cells:" not in shown and "cell/s" not in shown, shown


def test_no_progress_when_piped(files):
    argv = [sys.executable, "-m", "symrel", "regions", str(files / "net.json"), "--domain", str(files / "box.json")]
    proc = subprocess.run(argv, capture_output=True, text=True, env=_env("0"), cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and "cells: " not in proc.stderr, proc.stderr
    forced = subprocess.run(argv + ["--progress"], capture_output=True, text=True, env=_env("0"), cwd=ROOT, timeout=120)
    assert forced.returncode == 0 and "cells: " in forced.stderr
