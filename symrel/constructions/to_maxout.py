"""Any model with a maxout form as a maxout net: its kind's ``to_maxout`` (:mod:`symrel.model_kinds`)."""

from __future__ import annotations

from ..errors import InputError
from ..model_kinds import expected, kind_of
from ..models.maxout import MaxoutNet


def to_maxout(model) -> MaxoutNet:
    """Any model with a maxout form (maxout, ReLU, CPWL1D, CPWL on a mesh) as a maxout net.

    The net itself for a maxout net; otherwise its kind's construction:
    :func:`~symrel.constructions.relu_to_maxout`, :func:`~symrel.constructions.cpwl_to_maxout`
    or the lattice form :func:`~symrel.constructions.cpwl_mesh_to_maxout` (cost: that
    construction's).

    >>> from symrel.models import CPWL1D
    >>> to_maxout(CPWL1D([0, 1], [0, 1])).widths
    [1, 1]
    >>> to_maxout("a string")
    Traceback (most recent call last):
    ...
    symrel.errors.InputError: kind: expected a cpwl, cpwl1d, maxout or relu model, got str
    """
    kind = kind_of(model)
    if kind is None or kind.to_maxout is None:
        raise InputError(f"expected {expected('to_maxout')}, got {getattr(model, 'kind', type(model).__name__)}",
                         path="kind")
    return kind.to_maxout(model)
