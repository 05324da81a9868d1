"""Exact verification of VNN-LIB properties (docs/tutorials/acasxu.md).

* :mod:`symrel.vnnlib.property` — :class:`VnnProperty`, an input region and an unsafe
  condition in disjunctive normal form over exact rationals;
* :mod:`symrel.vnnlib.reader` — :func:`read_vnnlib`, VNN-LIB 1.0 read exactly;
* :mod:`symrel.vnnlib.engine` — ``decide``, the exact branch and bound (imported by name,
  it is the heavy part).
"""

from .property import Conjunction, LinearAtom, VnnProperty, conjunction_holds
from .reader import read_vnnlib, read_vnnlib_text

__all__ = ["Conjunction", "LinearAtom", "VnnProperty", "conjunction_holds", "read_vnnlib", "read_vnnlib_text"]
