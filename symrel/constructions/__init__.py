"""Constructions on models: new models built from given ones or from data.

The semantics of the models (the data classes and their exact evaluation) is
:mod:`symrel.models`; this package builds models, above the trusted checker so that
checking a certificate loads none of it (docs/trust.md):

* the maxout forms of the other kinds: :func:`relu_to_maxout`, :func:`cpwl_to_maxout`
  (the lattice form of a CPWL1D), :func:`cpwl_mesh_to_maxout` and :func:`lattice_forms`
  (the lattice form of a CPWL function on a mesh), and :func:`to_maxout` for any of them;
* the Wang-Sun form of a mesh function (:func:`wang_sun_forms`), and the rewriting of a
  max of many affine pieces as maxima of few (:func:`max_as_small_maxes`);
* meshes: :func:`freudenthal_mesh` (a grid), :func:`delaunay_mesh` (exact Delaunay);
* :func:`~symrel.constructions.interpolate.interpolating_relu_net` (exact ReLU
  interpolation) and the seeded random models of :mod:`symrel.constructions.random`.

The other names below are imported from their module on first use (PEP 562).

>>> from symrel.models import CPWL1D
>>> to_maxout(CPWL1D([0, 1], [0, 1])).widths
[1, 1]
"""

from ..lazy_names import lazy_names

# Three functions share their module's name: imported here, first, so that ``symrel.constructions.
# relu_to_maxout`` is the function (a later first import of the submodule would bind the module).
from .cpwl_to_maxout import cpwl_to_maxout
from .relu_to_maxout import relu_to_maxout
from .to_maxout import to_maxout

#: the public names of the package and the submodule each comes from
_FROM = {
    **dict.fromkeys(["Lattice", "cpwl_mesh_to_maxout", "lattice_forms", "lattice_to_maxout"], "cpwl_mesh_lattice"),
    **dict.fromkeys(["WangSunForm", "wang_sun_forms", "wang_sun_mismatch", "wang_sun_to_maxout"], "cpwl_wang_sun"),
    **dict.fromkeys(["delaunay_mesh", "delaunay_triangles"], "delaunay"),
    "freudenthal_mesh": "freudenthal",
    "max_as_small_maxes": "max_to_small_maxes",
    **dict.fromkeys(["cpwl_to_maxout", "lattice_sets"], "cpwl_to_maxout"),
    "relu_to_maxout": "relu_to_maxout",
    "interpolating_relu_net": "interpolate",
    "to_maxout": "to_maxout",
}

__all__ = sorted(_FROM)

__getattr__, __dir__ = lazy_names(__name__, _FROM, globals())
