"""Which function lowers which kind of model: the one place a new model kind adds its
lowering (:func:`register_lowering`), and :func:`lower`, which every analysis calls.

>>> from symrel.models import CPWL1D
>>> lower(CPWL1D([0, 1], [0, 1])).kind
'cpwl1d'
>>> lower("a string")
Traceback (most recent call last):
    ...
symrel.errors.InputError: kind: cannot lower a model of kind str
"""

from __future__ import annotations

from typing import Callable

from ..errors import InputError

#: model class -> function ``model -> Program``
LOWERINGS: dict[type, Callable] = {}


def register_lowering(model_type: type, to_program: Callable) -> None:
    """Let :func:`lower` lower models of ``model_type`` (and its subclasses) with ``to_program``."""
    LOWERINGS[model_type] = to_program


def lower(model):
    """The :class:`~symrel.lowering.program.Program` of ``model``. Cost: that of its kind's lowering."""
    for cls in type(model).__mro__:
        to_program = LOWERINGS.get(cls)
        if to_program is not None:
            return to_program(model)
    raise InputError(f"cannot lower a model of kind {getattr(model, 'kind', type(model).__name__)}", path="kind")
