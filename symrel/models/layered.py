"""Layered nets: a sequence of operators on a vector, sparse affine maps among them.

Definition. A layered net with ``input_dim = n`` is a list of operators applied in turn to
``x in Q^n``:

* ``SparseAffine(rows, b)``: ``y_i = sum_{(j, w) in rows[i]} w * x_j + b_i``; each row lists
  its nonzero entries as ``(column, value)`` pairs, columns strictly increasing;
* ``Relu(width)``: ``y_i = max(0, x_i)``;
* ``MaxGroups(groups)``: ``y_i = max_{j in groups[i]} x_j``, each group a non-empty set of
  distinct indices of the vector before it (max pooling, a maxout unit's max).

It is the one form in which symrel holds a net whose dense matrices would not fit: a
convolution over a 28 x 28 image with 32 channels of 2 x 2 kernels is 23,328 rows of four
entries each (93,312 numbers), where its dense matrix has 18 million. A ReLU net and a
maxout net are layered nets too (:func:`from_relu_net`, :func:`from_maxout_net`).

Cost of evaluation: one product per stored entry, one comparison per ReLU and per group
member.

>>> net = LayeredNet(2, [SparseAffine([[(0, 1)], [(0, -1)], [(1, 1)]], [0, 0, "-1/2"]),
...                      Relu(3), MaxGroups([[0, 1], [2]])])
>>> [str(v) for v in net(["-3/4", 2])]          # max(relu(x0), relu(-x0)) = |x0|; relu(x1 - 1/2)
['3/4', '3/2']
>>> net.sizes()["ops"]
['affine 2 -> 3 (3 entries)', 'relu 3', 'max 3 -> 2']
"""

from __future__ import annotations

from typing import Sequence

from ..errors import DimensionError, InputError
from ..exact import Matrix, Q, Rational, columns, from_columns, rational
from .base import Model, check_dim, require_seq

ZERO = Q(0)


_Q = type(Q(0))   # an exact rational already: taken as it is (rational() would return it)
_PAIR_TYPES = (list, tuple)


def _column_and_value(pair, last: int, input_dim, where: str) -> tuple:
    """A row's pair ``(column, value)`` held to the rules (the column an int >= 0 beyond
    ``last``, below ``input_dim`` when known), or the InputError naming what breaks one."""
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise InputError("expected a pair [column, value]", path=where)
    col, value = pair
    if isinstance(col, bool) or not isinstance(col, int) or col < 0:
        raise InputError(f"expected a column index (an integer >= 0), got {col!r}", path=f"{where}[0]")
    if col <= last:
        raise InputError(f"expected columns in increasing order, each once; got {col} after {last}",
                         path=f"{where}[0]")
    if input_dim is not None and col >= input_dim:
        raise DimensionError(f"expected a column below the input width {input_dim}, got {col}", path=f"{where}[0]")
    return col, value


class SparseAffine:
    """``x -> W x + b`` with ``W`` stored by rows of ``(column, value)`` pairs (module docstring).

    Zero values are dropped; a row may be empty (its output is ``b_i``).

    >>> A = SparseAffine([[(0, 2), (2, "1/2")], []], [1, 0], input_dim=3)
    >>> [str(v) for v in A.apply([1, 5, 2])], A.entries
    (['4', '0'], 2)
    >>> SparseAffine([[(1, 1), (0, 1)]])
    Traceback (most recent call last):
    ...
    symrel.errors.InputError: affine.rows[0][1][0]: expected columns in increasing order, each once; got 0 after 1
    """

    op = "affine"

    def __init__(self, rows, b=None, *, input_dim: int | None = None, path: str = "affine"):
        require_seq(rows, "rows", f"{path}.rows")
        out = []
        width = 0
        # a column's bound for the fast test (-1: every pair to the full rules, input_dim not an int)
        limit = float("inf") if input_dim is None else input_dim if type(input_dim) is int else -1
        for i, row in enumerate(rows):
            require_seq(row, "a row of (column, value) pairs", f"{path}.rows[{i}]")
            entries, last = [], -1
            for k, pair in enumerate(row):
                # the common pair (an int column in order, in range) at once; any other is held to
                # every rule below, where it is named (the path is built only then)
                if type(pair) in _PAIR_TYPES and len(pair) == 2 and type(pair[0]) is int and last < pair[0] < limit:
                    col, value = pair
                else:
                    col, value = _column_and_value(pair, last, input_dim, f"{path}.rows[{i}][{k}]")
                last = col
                v = value if type(value) is _Q else rational(value, path=f"{path}.rows[{i}][{k}][1]")
                if v:
                    entries.append((col, v))
            width = max(width, last + 1)
            out.append(tuple(entries))
        self.rows: tuple = tuple(out)
        self.output_dim = len(out)
        if self.output_dim == 0:
            raise InputError("expected at least one row", path=f"{path}.rows")
        #: one past the largest column read; the width of the vector read, once known (the net sets it)
        self.reads = width
        self.input_dim = check_dim(input_dim, "input_dim", f"{path}.input_dim") if input_dim is not None else None
        if b is None:
            self.b = (ZERO,) * self.output_dim
        else:
            require_seq(b, "b", f"{path}.b")
            if len(b) != self.output_dim:
                raise DimensionError(f"expected {self.output_dim} biases (one per row), got {len(b)}", path=f"{path}.b")
            self.b = tuple(rational(v, path=f"{path}.b[{i}]") for i, v in enumerate(b))

    @property
    def entries(self) -> int:
        """The number of stored (nonzero) weights."""
        return sum(map(len, self.rows))

    def apply(self, x: Sequence[Rational]) -> list:
        return [sum((w * x[j] for j, w in row), c) for row, c in zip(self.rows, self.b)]

    def describe(self) -> str:
        return f"affine {self.input_dim} -> {self.output_dim} ({self.entries} entries)"

    def __eq__(self, other):
        return isinstance(other, SparseAffine) and (self.input_dim, self.rows, self.b) == (other.input_dim, other.rows,
                                                                                             other.b)


class Relu:
    """``y_i = max(0, x_i)`` on a vector of ``width`` entries."""

    op = "relu"

    def __init__(self, width: int, *, path: str = "relu"):
        self.input_dim = self.output_dim = self.reads = check_dim(width, "width", f"{path}.width")

    def apply(self, x):
        return [v if v > ZERO else ZERO for v in x]

    def describe(self) -> str:
        return f"relu {self.input_dim}"

    def __eq__(self, other):
        return isinstance(other, Relu) and self.input_dim == other.input_dim


class MaxGroups:
    """``y_i = max_{j in groups[i]} x_j`` (module docstring); ``input_dim`` defaults to one
    past the largest index."""

    op = "max"

    def __init__(self, groups, *, input_dim: int | None = None, path: str = "max"):
        require_seq(groups, "groups", f"{path}.groups", min_len=1)
        out = []
        for i, group in enumerate(groups):
            require_seq(group, "a group of indices", f"{path}.groups[{i}]", min_len=1)
            seen = set()
            for k, j in enumerate(group):
                where = f"{path}.groups[{i}][{k}]"
                if isinstance(j, bool) or not isinstance(j, int) or j < 0:
                    raise InputError(f"expected an index (an integer >= 0), got {j!r}", path=where)
                if input_dim is not None and j >= input_dim:
                    raise DimensionError(f"expected an index below the input width {input_dim}, got {j}", path=where)
                if j in seen:
                    raise InputError(f"expected each index once in a group, got {j} again", path=where)
                seen.add(j)
            out.append(tuple(group))
        self.groups: tuple = tuple(out)
        self.output_dim = len(out)
        self.reads = max(max(g) for g in out) + 1
        self.input_dim = check_dim(input_dim, "input_dim", f"{path}.input_dim") if input_dim is not None else None

    def apply(self, x):
        return [max(x[j] for j in group) for group in self.groups]

    def describe(self) -> str:
        return f"max {self.input_dim} -> {self.output_dim}"

    def __eq__(self, other):
        return isinstance(other, MaxGroups) and (self.input_dim, self.groups) == (other.input_dim, other.groups)


OPERATORS = (SparseAffine, Relu, MaxGroups)


class LayeredNet(Model):
    """A layered net (module docstring): ``input_dim`` and the operators in order."""

    kind = "layered"

    def __init__(self, input_dim: int, ops, *, path: str = ""):
        p = f"{path}." if path else ""
        self.input_dim = check_dim(input_dim, "input_dim", f"{p}input_dim")
        require_seq(ops, "operators", f"{p}ops", min_len=1)
        width = self.input_dim
        for k, op in enumerate(ops):
            if not isinstance(op, OPERATORS):
                raise InputError(f"expected an operator (affine, relu or max), got {type(op).__name__}",
                                 path=f"{p}ops[{k}]")
            if op.input_dim is None and op.reads <= width:
                op.input_dim = width  # a sparse map or a max may leave the last entries unread
            if op.input_dim != width:
                raise DimensionError(f"expected an operator reading {width} entries, got one of width "
                                     f"{op.input_dim or op.reads}", path=f"{p}ops[{k}]")
            width = op.output_dim
        self.ops = list(ops)
        self.output_dim = width

    def apply(self, x: Sequence[Rational]) -> list:
        """The exact output at one point (a list of exact rationals)."""
        for op in self.ops:
            x = op.apply(x)
        return x

    def _evaluate_batch(self, X: Matrix) -> Matrix:
        return from_columns([self.apply(list(c)) for c in columns(X)], self.output_dim)

    def num_parameters(self) -> int:
        return sum(op.entries + op.output_dim for op in self.ops if isinstance(op, SparseAffine))

    def sizes(self) -> dict:
        return {"kind": self.kind, "input_dim": self.input_dim, "output_dim": self.output_dim,
                "ops": [op.describe() for op in self.ops], "relus": self.num_relus,
                "max_units": sum(op.output_dim for op in self.ops if isinstance(op, MaxGroups)),
                "parameters": self.num_parameters()}

    @property
    def num_relus(self) -> int:
        return sum(op.output_dim for op in self.ops if isinstance(op, Relu))

    def __eq__(self, other):
        return isinstance(other, LayeredNet) and self.input_dim == other.input_dim and self.ops == other.ops

    def __repr__(self):
        return f"LayeredNet(input_dim={self.input_dim}, ops=[{', '.join(op.describe() for op in self.ops)}])"


def _dense_rows(M) -> list:
    return [[(j, v) for j, v in enumerate(r) if v] for r in M.to_list()]


def from_relu_net(net) -> LayeredNet:
    """A :class:`~symrel.models.ReLUNet` as a layered net: each dense layer an affine
    operator, followed by a ReLU where the layer has one.

    >>> from symrel.models import DenseLayer, ReLUNet
    >>> relu = ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])
    >>> L = from_relu_net(relu); [str(v) for v in L(["-2/3"])], L.sizes()["ops"]
    (['2/3'], ['affine 1 -> 2 (2 entries)', 'relu 2', 'affine 2 -> 1 (2 entries)'])
    """
    ops, width = [], net.input_dim
    for layer in net.layers:
        b = [r[0] for r in layer.affine.exact_b.to_list()]
        ops.append(SparseAffine(_dense_rows(layer.affine.exact_W), b, input_dim=width))
        width = layer.output_dim
        if layer.activation == "relu":
            ops.append(Relu(width))
    return LayeredNet(net.input_dim, ops)


def from_maxout_net(net) -> LayeredNet:
    """A :class:`~symrel.models.MaxoutNet` as a layered net: per layer one affine operator
    computing every piece of every unit, then the max over each unit's pieces (and the
    read-out, when there is one).

    >>> from symrel.models import MaxoutLayer, MaxoutNet, MaxoutUnit
    >>> m = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, 0])])])
    >>> L = from_maxout_net(m); [str(v) for v in L(["-3/4"])], L.sizes()["ops"]
    (['3/4'], ['affine 1 -> 2 (2 entries)', 'max 2 -> 1'])
    """
    ops, width = [], net.input_dim
    for layer in net.layers:
        rows, b, groups = [], [], []
        for unit in layer.units:
            start = len(rows)
            for w, c in unit.pieces.exact_pieces():
                rows.append([(j, v) for j, v in enumerate(w) if v])
                b.append(c)
            groups.append(list(range(start, len(rows))))
        ops.append(SparseAffine(rows, b, input_dim=width))
        ops.append(MaxGroups(groups, input_dim=len(rows)))
        width = len(groups)
    if net.readout is not None:
        b = [r[0] for r in net.readout.exact_b.to_list()]
        ops.append(SparseAffine(_dense_rows(net.readout.exact_W), b, input_dim=width))
    return LayeredNet(net.input_dim, ops)
