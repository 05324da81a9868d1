"""Figures for reports: a drawing function run into a temporary PNG, kept as bytes.

Plots need matplotlib (the optional ``plot`` extra); without it a report simply has
no figure, and says nothing false.

>>> figure(lambda path: path.write_bytes(b"PNG"), "a caption", require="json")
[('a caption', b'PNG')]
>>> figure(lambda path: None, "never drawn", require="no_such_module_xyz")
[]
"""

from __future__ import annotations

import importlib
import tempfile
from pathlib import Path
from typing import Callable


def figure(draw: Callable[[Path], object], caption: str, require: str = "matplotlib") -> list:
    """``[(caption, PNG bytes)]`` from ``draw(path)``, or ``[]`` when ``require`` is not installed."""
    try:
        importlib.import_module(require)
    except ImportError:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "figure.png"
        draw(path)
        return [(caption, path.read_bytes())]
