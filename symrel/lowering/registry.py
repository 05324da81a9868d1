"""Which function lowers which kind of model: :func:`lower`, which every analysis calls,
dispatches on the model's kind record (:mod:`symrel.model_kinds`), where a new model kind
names its lowering (its ``lower`` function).

>>> from symrel.models import CPWL1D
>>> lower(CPWL1D([0, 1], [0, 1])).kind
'cpwl1d'
>>> lower("a string")
Traceback (most recent call last):
    ...
symrel.errors.InputError: kind: expected a model (one of cpwl, cpwl1d, layered, maxout, relu, transformer), got str
"""

from __future__ import annotations

from ..model_kinds import model_kind


def lower(model):
    """The :class:`~symrel.lowering.program.Program` of ``model``. Cost: that of its kind's lowering."""
    return model_kind(model).function("lower", "lower")(model)
