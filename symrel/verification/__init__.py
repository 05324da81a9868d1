"""Exact verification of VNN-LIB properties from Python: :func:`verify` and its
:class:`Verdict` (docs/api.md); the files it reads and their hashes (:mod:`.files`).

>>> import symrel
>>> symrel.verify is verify
True
"""

from ..lazy_names import lazy_names

_FROM = {"verify": "api", "Verdict": "verdict", "Witness": "verdict", "file_hashes": "files",
         "read_network": "files", "read_model": "files"}

__getattr__, __dir__ = lazy_names(__name__, _FROM, globals())
__all__ = sorted(_FROM)
