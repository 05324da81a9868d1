"""Which engine decides a property of which net: the one function the command line calls.

Definition. :func:`decide_any` sends a :class:`~symrel.models.ReLUNet` to the dense engine
(:func:`symrel.vnnlib.engine.decide`, tuned to ACAS Xu) and a
:class:`~symrel.models.layered.LayeredNet` or :class:`~symrel.models.MaxoutNet` to the
layered engine (:func:`symrel.vnnlib.layered.search.decide`; a maxout net converted by
:func:`~symrel.models.layered.from_maxout_net`); both return a
:class:`~symrel.vnnlib.engine.Verdict` with the same outcomes and take the same ``timeout``,
``executor`` and ``progress``. :func:`verifiable` says whether a net is one of these kinds.

>>> from symrel.models import DenseLayer, ReLUNet
>>> verifiable(ReLUNet(1, [DenseLayer([[1]], [0], "none")])), verifiable("a net")
(True, False)
"""

from __future__ import annotations

from ...errors import InputError

#: the model kinds ``symrel verify`` decides
KINDS = ("relu", "layered", "maxout")


def verifiable(net) -> bool:
    """Whether ``net`` is a ReLU, layered or maxout net."""
    return getattr(net, "kind", None) in KINDS


def decide_any(net, prop, *, timeout=None, executor=None, progress=None):
    """The verdict of the engine for ``net``'s kind (module docstring)."""
    kind = getattr(net, "kind", None)
    if kind == "relu":
        from ..engine import decide

        return decide(net, prop, timeout=timeout, executor=executor, progress=progress)
    if kind in ("layered", "maxout"):
        from .search import decide

        return decide(net, prop, timeout=timeout, executor=executor, progress=progress)
    raise InputError(f"expected a ReLU, layered or maxout net, got {kind or type(net).__name__}", path="network")
