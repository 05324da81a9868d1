"""Any model with a maxout form as a maxout net: one dispatch over the model kinds."""

from __future__ import annotations

from ..errors import InputError
from ..models.cpwl import CPWL1D
from ..models.cpwl_mesh import CPWLMesh
from ..models.maxout import MaxoutNet
from ..models.relu import ReLUNet


def to_maxout(model) -> MaxoutNet:
    """Any model with a maxout form (maxout, ReLU, CPWL1D, CPWL on a mesh) as a maxout net.

    The net itself for a maxout net; otherwise :func:`~symrel.constructions.relu_to_maxout`,
    :func:`~symrel.constructions.cpwl_to_maxout` or the lattice form
    :func:`~symrel.constructions.cpwl_mesh_to_maxout` (cost: that construction's).

    >>> from symrel.models import CPWL1D
    >>> to_maxout(CPWL1D([0, 1], [0, 1])).widths
    [1, 1]
    """
    if isinstance(model, MaxoutNet):
        return model
    if isinstance(model, ReLUNet):
        from .relu_to_maxout import relu_to_maxout

        return relu_to_maxout(model)
    if isinstance(model, CPWL1D):
        from .cpwl_to_maxout import cpwl_to_maxout

        return cpwl_to_maxout(model)
    if isinstance(model, CPWLMesh):
        from .cpwl_mesh_lattice import cpwl_mesh_to_maxout

        return cpwl_mesh_to_maxout(model)
    raise InputError(f"expected a maxout, relu, cpwl1d or cpwl model, got {getattr(model, 'kind', type(model).__name__)}", path="kind")
