"""What every symrel model shares: exact evaluation on one point or a batch.

A model maps R^input_dim to R^output_dim. The user-facing methods speak one
number type whatever extras are installed, sympy's ``Rational`` (a
:class:`numbers.Rational`; it equals :class:`fractions.Fraction`, ``int`` and
symrel's inner numbers, adds to a Fraction, prints with ``sympy.latex`` and
gives decimals with ``.evalf(n)``):

* ``model(x)`` / ``evaluate(x)``: one point (a sequence of numbers anything
  :func:`symrel.exact.rational` reads, or a 1-D numpy array) -> a list of
  ``output_dim`` Rationals;
* ``evaluate_batch(points)``: N points (a list of points or an ``N x input_dim``
  numpy array) -> a list of N lists of ``output_dim`` Rationals (points x
  outputs, the layout of ML libraries).

numpy integer arrays are read exactly; float arrays (and floats) only with
``exact_floats=True``, which reads each float's binary value exactly. Inside,
symrel computes on elements of sympy's ``QQ`` (flint / gmpy2 / pure Python,
whatever is installed): ``evaluate_exact`` and ``evaluate_matrix`` give those
(the ``output_dim x N`` matrix) to the rest of the library.

A model's defining data are read the same way: ``W``, ``b``, ``x``, ``vertices``, ... are
read-only public views (a ``sympy.ImmutableMatrix`` of Rationals for a matrix, lists of
Rationals otherwise), and ``exact_W``, ``exact_b``, ``exact_x``, ``exact_vertices``, ...
hold the inner data the library computes with (:class:`symrel.exact.PublicView`).

>>> from fractions import Fraction
>>> from symrel.models import ReLUNet, DenseLayer
>>> net = ReLUNet(2, [DenseLayer([[1, -1]], ["1/2"], "none")])
>>> net(["1/4", 0])
[3/4]
>>> net.evaluate_batch([[0, 0], [1, "1/3"]])
[[1/2], [7/6]]
>>> net([0.25, 0], exact_floats=True) == [Fraction(3, 4)]
True
>>> net.layers[0].affine.W, net.layers[0].affine.b[0] == Fraction(1, 2)
(Matrix([[1, -1]]), True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..errors import DimensionError, InputError

from ..exact import Matrix, Rational, columns, flat, from_columns, rational, to_sympy, vector
from ..exact.displayed import Displayed

if TYPE_CHECKING:  # sympy is the public number type, loaded only when a view is made
    import sympy


def from_array(x, path: str):
    """A numpy array (anything with ``dtype`` and ``tolist``) as nested lists of
    Python ints / floats; booleans and complex numbers refused."""
    kind = getattr(getattr(x, "dtype", None), "kind", None)
    if kind is None or not hasattr(x, "tolist"):
        return x
    if kind in "bcOUSV":
        raise InputError(f"expected an array of numbers, got dtype {x.dtype}", path=path)
    return x.tolist()


def as_point(x, dim: int, *, path: str = "input", exact_floats: bool = False) -> list[Rational]:
    """``x`` as a list of ``dim`` exact rationals (one input point)."""
    if isinstance(x, Matrix):
        x = flat(x)
    x = from_array(x, path)
    if not isinstance(x, (list, tuple)):
        raise InputError(f"expected a point (a list of {dim} numbers), got {type(x).__name__}", path=path)
    if len(x) != dim:
        raise DimensionError(f"expected a point with {dim} coordinates, got {len(x)}", path=path)
    return [rational(v, path=f"{path}[{i}]", exact_floats=exact_floats) for i, v in enumerate(x)]


def as_batch(points, dim: int, *, path: str = "inputs", exact_floats: bool = False) -> Matrix:
    """A batch of points as a ``dim x N`` matrix (points as columns)."""
    if isinstance(points, Matrix):
        if points.shape[0] != dim:
            raise DimensionError(f"expected points with {dim} coordinates, got {points.shape[0]}", path=path)
        return points
    points = from_array(points, path)
    if not isinstance(points, (list, tuple)):
        raise InputError(f"expected a list of points, got {type(points).__name__}", path=path)
    cols = [as_point(p, dim, path=f"{path}[{i}]", exact_floats=exact_floats) for i, p in enumerate(points)]
    return from_columns(cols, dim)


class Model(Displayed):
    """Base class: subclasses define ``input_dim``, ``output_dim`` and
    ``_evaluate_batch(X)`` on a ``input_dim x N`` matrix. In a notebook a model
    shows its kind, dimensions and sizes (``sizes()``)."""

    kind: str = "model"
    input_dim: int
    output_dim: int

    def evaluate(self, x, *, exact_floats: bool = False) -> list[sympy.Rational]:
        """The exact output at one point, as sympy Rationals (see the module docstring)."""
        return [to_sympy(v) for v in self.evaluate_exact(x, exact_floats=exact_floats)]

    __call__ = evaluate

    def evaluate_batch(self, points, *, path: str = "inputs", exact_floats: bool = False) -> list[list[sympy.Rational]]:
        """The exact outputs at N points: N lists of ``output_dim`` Rationals
        (points x outputs). ``path`` names the batch in error messages."""
        return [[to_sympy(v) for v in r] for r in columns(self.evaluate_matrix(points, path=path,
                                                                                  exact_floats=exact_floats))]

    evaluate_points = evaluate_batch

    def evaluate_exact(self, x, *, exact_floats: bool = False) -> list[Rational]:
        """The exact output at one point as elements of ``QQ`` (symrel's inner type)."""
        X = vector(as_point(x, self.input_dim, exact_floats=exact_floats))
        return flat(self._evaluate_batch(X))

    def evaluate_matrix(self, points, *, path: str = "inputs", exact_floats: bool = False) -> Matrix:
        """The exact outputs at a batch of points (a list, an array, or an
        ``input_dim x N`` matrix) as the ``output_dim x N`` matrix over ``QQ``."""
        X = as_batch(points, self.input_dim, path=path, exact_floats=exact_floats)
        if X.shape[1] == 0:
            from ..exact import zeros

            return zeros(self.output_dim, 0)
        return self._evaluate_batch(X)

    def _card(self):
        from ..exact.display import Card

        sizes = self.sizes() if hasattr(self, "sizes") else {"parameters": self.num_parameters()}
        fields = [(k.replace("_", " "), ", ".join(map(str, v)) if isinstance(v, list) else v)
                  for k, v in sizes.items() if k not in ("kind", "input_dim", "output_dim")]
        return Card(f"{type(self).__name__}: Q^{self.input_dim} -> Q^{self.output_dim}", fields)

    def _summary(self) -> str:
        return self._card().title

    def _evaluate_batch(self, X: Matrix) -> Matrix:  # pragma: no cover - abstract
        raise NotImplementedError

    def num_parameters(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError


def input_symbols(dim: int):
    """The sympy symbols ``x1 .. xd`` used by the symbolic views."""
    import sympy

    return sympy.symbols(f"x1:{dim + 1}") if dim else ()


def check_dim(value, name: str, path: str, minimum: int = 1) -> int:
    """``value`` as an int >= minimum, or an InputError naming ``path``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"expected {name} as an integer, got {type(value).__name__}", path=path)
    if value < minimum:
        raise InputError(f"expected {name} >= {minimum}, got {value}", path=path)
    return value


def require_seq(value, what: str, path: str, min_len: int = 0) -> Sequence:
    """``value`` as a list with at least ``min_len`` items, or an InputError."""
    if not isinstance(value, (list, tuple)):
        raise InputError(f"expected {what} (a list), got {type(value).__name__}", path=path)
    if len(value) < min_len:
        raise InputError(f"expected at least {min_len} {what}, got {len(value)}", path=path)
    return value


def chain_widths(input_dim: int, layers, wanted: str, path: str, field: str = "") -> int:
    """The output width of ``layers`` applied in turn to ``input_dim`` inputs: each layer
    must read the width the one before it writes, else a DimensionError naming
    ``{path}layers[i]{field}`` (``wanted`` says what was expected, with ``{width}``).

    >>> from types import SimpleNamespace as L
    >>> chain_widths(2, [L(input_dim=2, output_dim=3), L(input_dim=3, output_dim=1)], "{width} inputs", "")
    1
    """
    width = input_dim
    for i, layer in enumerate(layers):
        if layer.input_dim != width:
            raise DimensionError(f"expected {wanted.format(width=width)}, got {layer.input_dim}",
                                 path=f"{path}layers[{i}]{field}")
        width = layer.output_dim
    return width
