"""Exact verification of VNN-LIB properties from Python: :func:`verify` and its
:class:`Verdict` (docs/api.md); certified bounds of a network's outputs over a box:
:func:`bounds` and its :class:`OutputBounds`; the files they read and their hashes (:mod:`.files`).

>>> import symrel
>>> symrel.verify is verify, symrel.bounds is bounds
(True, True)
"""

from ..lazy_names import lazy_names

_FROM = {"verify": "api", "Verdict": "verdict", "Witness": "verdict", "file_hashes": "files",
         "read_network": "files", "read_model": "files", "bounds": "output_bounds", "OutputBounds": "bounds_result",
         "OutputBound": "bounds_result"}

__getattr__, __dir__ = lazy_names(__name__, _FROM, globals())
__all__ = sorted(_FROM)
