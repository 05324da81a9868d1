"""The checker's own semantics of maxout and ReLU nets and CPWL functions of one variable.

A certificate check reads the maxout nets, ReLU nets and CPWL functions of one variable it
embeds into the small classes below (:mod:`symrel.checking.inputs` reads
them), not into the library's models (:mod:`symrel.models`, with their display, public
views and batched evaluation): the checker keeps its own, independent table of what these
objects mean. Each class holds the numbers of its file (elements of ``QQ``, and lists of
rows of them: no matrix class) under the names the checkers read (``W_rows``, ``layers``,
``exact_x``, ...) and its ``kind``, the file's kind, on which the checkers dispatch.

The definitions (docs/format.md, docs/theory.md):

* an affine map ``x -> W x + b``;
* a ReLU net: layers ``z -> act(W z + b)`` with ``act`` the ReLU ``max(0, .)`` on every
  coordinate, or the identity (``"none"``);
* a maxout net: each unit of a layer is ``max_j (w_j . z + b_j)`` over its pieces; an
  optional affine read-out follows the last layer;
* a CPWL function of one variable: the line through ``(x_i, y_i)`` and ``(x_(i+1), y_(i+1))``
  on ``[x_i, x_(i+1)]``, the first and last pieces extended beyond ``x_0`` and ``x_n``.

Each kind is read (:data:`READERS`, called by :mod:`symrel.checking.inputs`) with the field
checks of the file-format readers: the types (a boolean is not a number), the dimensions
(each layer reads the previous layer's width, a read-out the last width, one value per
breakpoint), strictly increasing breakpoints; a refusal names the JSON
path. Evaluation is exact, one point at a time, on lists of ``QQ`` elements. Cost: one pass
over the weights per point.

>>> from symrel.exact import rational as r
>>> net = ReLUNet(2, [ReLULayer(Affine([[r(1), r(-1)]], [r(0)]), "relu")])
>>> [str(v) for v in net.evaluate_exact([r(1), r(3)])], [str(v) for v in net.evaluate_exact([r(3), r(1)])]
(['0'], ['2'])
>>> f = CPWL1D([r(0), r(1)], [r(0), r(2)])
>>> [str(v) for v in f.evaluate_exact([r(-1)])], f.exact_pieces() == [(r(2), r(0))]
(['-2'], True)
"""

from __future__ import annotations

from bisect import bisect_right

from ..exact import Q
from . import MalformedCertificate
from . import read
from .inputs import listed, matrix, need, positive, record_of, vector
from .read import join

ZERO = Q(0)


class Affine:
    """``x -> W x + b``: ``W_rows`` (``output_dim`` rows of ``input_dim`` elements of ``QQ``) and
    ``b_list``; ``replay_weights``, W as the cell replay multiplies by it
    (:func:`symrel.checking.cell_replay.weights`), built there on first use."""

    kind = "affine"

    def __init__(self, W: list, b: list, input_dim: int | None = None):
        self.input_dim = len(W[0]) if input_dim is None else input_dim
        self.output_dim = len(W)
        self.W_rows = self._rows = [list(r) for r in W]
        self.b_list = self._b = list(b)
        self._replay_weights = None

    @property
    def replay_weights(self) -> tuple:
        if self._replay_weights is None:
            from .cell_replay import weights

            self._replay_weights = weights(self._rows, self.input_dim)
        return self._replay_weights

    def exact_pieces(self) -> list:
        """Each output as ``(w, c)``, the form ``w . x + c``."""
        return [(list(r), c) for r, c in zip(self._rows, self._b)]

    def apply(self, x: list) -> list:
        return [sum((w * v for w, v in zip(row, x)), ZERO) + c for row, c in zip(self._rows, self._b)]

    def num_parameters(self) -> int:
        return self.output_dim * (self.input_dim + 1)

    def key(self) -> tuple:
        """The defining data, for equality."""
        return self.input_dim, tuple(map(tuple, self._rows)), tuple(self._b)


class _Model:
    """What the checkers ask of every model: its dimensions and exact outputs."""

    kind = "model"
    input_dim: int
    output_dim: int

    def evaluate_exact(self, x) -> list:
        """The outputs at the point ``x`` (``input_dim`` elements of ``QQ``)."""
        if len(x) != self.input_dim:
            raise ValueError(f"expected a point of {self.input_dim} coordinates, got {len(x)}")
        return self._evaluate(list(x))

    def key(self) -> tuple:  # pragma: no cover - each model kind's own
        raise NotImplementedError

    def __eq__(self, other):
        """Two models are equal when they are of one kind with the same defining data."""
        return type(other) is type(self) and other.key() == self.key()

    __hash__ = None


class ReLULayer:
    """``z -> act(W z + b)``, ``activation`` ``"relu"`` or ``"none"``."""

    def __init__(self, affine: Affine, activation: str):
        self.affine, self.activation = affine, activation


class ReLUNet(_Model):
    """A feed-forward ReLU net (module docstring)."""

    kind = "relu"

    def __init__(self, input_dim: int, layers: list):
        self.input_dim, self.layers = input_dim, layers
        self.output_dim = layers[-1].affine.output_dim

    def _evaluate(self, z):
        for layer in self.layers:
            z = layer.affine.apply(z)
            if layer.activation == "relu":
                z = [v if v > 0 else ZERO for v in z]
        return z

    def num_parameters(self) -> int:
        return sum(layer.affine.num_parameters() for layer in self.layers)

    def key(self) -> tuple:
        return self.input_dim, tuple((layer.affine.key(), layer.activation) for layer in self.layers)


class MaxoutUnit:
    """``max_j (w_j . z + b_j)``: ``pieces`` is the affine map of the pieces."""

    def __init__(self, pieces: Affine):
        self.pieces = pieces


class MaxoutLayer:
    def __init__(self, units: list):
        self.units = units


class MaxoutNet(_Model):
    """A maxout net (module docstring); ``readout`` an :class:`Affine` or None."""

    kind = "maxout"

    def __init__(self, input_dim: int, layers: list, readout: Affine | None = None):
        self.input_dim, self.layers, self.readout = input_dim, layers, readout
        self.output_dim = readout.output_dim if readout is not None else len(layers[-1].units)

    @property
    def widths(self) -> list:
        return [len(layer.units) for layer in self.layers]

    def _evaluate(self, z):
        for layer in self.layers:
            z = [max(unit.pieces.apply(z)) for unit in layer.units]
        return self.readout.apply(z) if self.readout is not None else z

    def num_parameters(self) -> int:
        total = sum(u.pieces.num_parameters() for layer in self.layers for u in layer.units)
        return total + (self.readout.num_parameters() if self.readout is not None else 0)

    def key(self) -> tuple:
        layers = tuple(tuple(u.pieces.key() for u in layer.units) for layer in self.layers)
        return self.input_dim, layers, self.readout.key() if self.readout is not None else None


class CPWL1D(_Model):
    """A CPWL function of one variable through ``(x_i, y_i)``, breakpoints strictly increasing."""

    kind = "cpwl1d"
    input_dim = output_dim = 1

    def __init__(self, x: list, y: list):
        self.exact_x, self.exact_y = list(x), list(y)

    def exact_pieces(self) -> list:
        """The piece ``(a, c)``, ``a x + c``, of each segment, left to right."""
        xs, ys = self.exact_x, self.exact_y
        out = []
        for i in range(len(xs) - 1):
            a = (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i])
            out.append((a, ys[i] - a * xs[i]))
        return out

    def _evaluate(self, x):
        t = x[0]
        i = min(max(bisect_right(self.exact_x, t) - 1, 0), len(self.exact_x) - 2)
        a, c = self.exact_pieces()[i]
        return [a * t + c]

    def num_parameters(self) -> int:
        return 2 * len(self.exact_x)

    def key(self) -> tuple:
        return tuple(self.exact_x), tuple(self.exact_y)


# -- the readers -------------------------------------------------------------------------------
def _affine(obj, path: str, width: int, also: tuple = ()) -> Affine:
    """``{"W": rows of width numbers, "b": one number per row (zero when absent)}`` (and the
    keys ``also`` a caller reads)."""
    record_of(obj, path, ("W", "b") + also)
    W = matrix(need(obj, "W", path), join(path, "W"), cols=width, min_rows=1)
    b = vector(obj["b"], join(path, "b"), len(W)) if "b" in obj else [Q(0)] * len(W)
    return Affine(W, b, width)


def _maxout(obj, path: str) -> MaxoutNet:
    width = input_dim = positive(need(obj, "input_dim", path), join(path, "input_dim"))
    layers = []
    for li, L in enumerate(listed(obj, "layers", path)):
        lp = f"{path}.layers[{li}]"
        record_of(L, lp, ("units",))
        units = []
        for ui, U in enumerate(listed(L, "units", lp)):
            up = f"{lp}.units[{ui}]"
            record_of(U, up, ("pieces",))
            ws, bs = [], []
            for pi, P in enumerate(listed(U, "pieces", up)):
                pp = f"{up}.pieces[{pi}]"
                record_of(P, pp, ("w", "b"))
                ws.append(vector(need(P, "w", pp), join(pp, "w"), width))
                bs.append(read.rational(need(P, "b", pp), join(pp, "b")))
            units.append(MaxoutUnit(Affine(ws, bs, width)))
        layers.append(MaxoutLayer(units))
        width = len(units)
    readout = _affine(obj["readout"], join(path, "readout"), width) if obj.get("readout") is not None else None
    return MaxoutNet(input_dim, layers, readout)


def _relu(obj, path: str) -> ReLUNet:
    width = input_dim = positive(need(obj, "input_dim", path), join(path, "input_dim"))
    layers = []
    for li, L in enumerate(listed(obj, "layers", path)):
        lp = f"{path}.layers[{li}]"
        affine = _affine(L, lp, width, also=("activation",))
        activation = read.string(need(L, "activation", lp), join(lp, "activation"), choices=("relu", "none"))
        layers.append(ReLULayer(affine, activation))
        width = affine.output_dim
    return ReLUNet(input_dim, layers)


def _cpwl1d(obj, path: str) -> CPWL1D:
    x = vector(listed(obj, "x", path, min_len=2), join(path, "x"))
    y = vector(need(obj, "y", path), join(path, "y"), len(x))
    if "extend" in obj:
        read.string(obj["extend"], join(path, "extend"), choices=("linear",))
    for i in range(1, len(x)):
        if not x[i] > x[i - 1]:
            raise MalformedCertificate("expected strictly increasing breakpoints", path=f"{path}.x[{i}]")
    return CPWL1D(x, y)


READERS = {"maxout": _maxout, "relu": _relu, "cpwl1d": _cpwl1d}
