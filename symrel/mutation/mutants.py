"""Single-parameter mutants of a symrel object, through its canonical JSON form.

A mutant changes exactly one number: by a tiny rational (``+-1/10^6``) or by a sign
flip (``v -> -v``, skipped when ``v = 0``). Paths are those of docs/format.md
(``layers[0].W[1][0]``).

>>> from symrel.models import CPWL1D
>>> f = CPWL1D([0, 1], [0, 1])
>>> [p for p, _ in parameters(f)]
['x[0]', 'x[1]', 'y[0]', 'y[1]']
>>> [str(v) for v in mutant(f, "y[1]", "sign").y]
['0', '-1']
"""

from __future__ import annotations

from ..exact import Q, rational
from ..fileformat import from_json, to_json
from .tamper import altered, number_leaves

TINY = Q(1, 10**6)
HOW = ("+tiny", "-tiny", "sign")
# integers of the format that are shapes or indices, not parameters
STRUCTURE = ("symrel", "input_dim", "width", "tokens", "token", "input_rows")


def parameters(thing) -> list[tuple[str, object]]:
    """``(path, value)`` of every number of ``thing``'s JSON form (its parameters)."""
    return [(p, v) for p, v in number_leaves(to_json(thing))
            if not any(part.split("[")[0] in STRUCTURE for part in p.split("."))]


def delta_of(value, how: str):
    """The change a mutation ``how`` makes to ``value`` (None: no change, skip it)."""
    if how == "+tiny":
        return TINY
    if how == "-tiny":
        return -TINY
    v = rational(value)
    return None if v == 0 else -2 * v


def mutant(thing, path: str, how: str):
    """A copy of ``thing`` with the number at ``path`` changed as ``how`` says."""
    obj = to_json(thing)
    value = dict(number_leaves(obj))[path]
    return from_json(altered(obj, path, delta_of(value, how)))
