"""The checker's own semantics and reader of layered nets (docs/format.md, "Layered net").

A layered net is a list of operators applied in turn to a vector ``x in Q^n``:

* ``{"op": "affine", "rows": [[[j, w], ...], ...], "b": [...]}``: ``y_i = sum w x_j + b_i``
  over the pairs of row ``i`` (columns strictly increasing, below the width read);
* ``{"op": "relu"}``: ``y_i = max(0, x_i)``;
* ``{"op": "max", "groups": [[j, ...], ...]}``: ``y_i = max_{j in group i} x_j`` (each group
  non-empty, its indices distinct and below the width read).

The reader holds every field to its type, every index to its range, every operator object to
its listed keys, as the file-format reader does; a refusal names the JSON path. The net is
read into :class:`LayeredNet`: ``ops`` a list of ``("affine", rows, b)`` (rows of ``(column,
value)`` pairs, exact), ``("relu", width)`` and ``("max", groups)``; ``widths[k]`` the width
op ``k`` reads. Cost: one pass over the numbers.

>>> net = read_layered({"input_dim": 1, "ops": [{"op": "affine", "rows": [[[0, 1]], [[0, -1]]], "b": [0, 0]},
...                                             {"op": "max", "groups": [[0, 1]]}]}, "inputs.network.object")
>>> from symrel.exact import rational as r
>>> net.kind, net.output_dim, [str(v) for v in net.evaluate_exact([r("-2/3")])]
('layered', 1, ['2/3'])
"""

from __future__ import annotations

from ..exact import Q
from . import MalformedCertificate
from . import read
from .inputs import listed, need, positive, record_of, vector
from .read import join

ZERO = Q(0)


class LayeredNet:
    """A layered net (module docstring)."""

    kind = "layered"

    def __init__(self, input_dim: int, ops: list, widths: list, output_dim: int):
        self.input_dim, self.ops, self.widths, self.output_dim = input_dim, ops, widths, output_dim

    def evaluate_exact(self, x) -> list:
        """The outputs at the point ``x`` (exact)."""
        if len(x) != self.input_dim:
            raise ValueError(f"expected a point of {self.input_dim} coordinates, got {len(x)}")
        v = list(x)
        for op in self.ops:
            if op[0] == "affine":
                v = [sum((w * v[j] for j, w in row), ZERO) + c for row, c in zip(op[1], op[2])]
            elif op[0] == "relu":
                v = [a if a > 0 else ZERO for a in v]
            else:
                v = [max(v[j] for j in group) for group in op[1]]
        return v


def read_layered(obj, path: str) -> LayeredNet:
    """The layered net of an embedded object (module docstring)."""
    width = input_dim = positive(need(obj, "input_dim", path), join(path, "input_dim"))
    ops, widths, numbers = [], [], {}
    for k, O in enumerate(listed(obj, "ops", path)):
        op_path = f"{path}.ops[{k}]"
        if type(O) is not dict:
            raise read.refuse(op_path, "an operator object", O)
        name = read.string(need(O, "op", op_path), join(op_path, "op"), choices=("affine", "relu", "max"))
        record_of(O, op_path, {"affine": ("op", "rows", "b"), "relu": ("op",), "max": ("op", "groups")}[name])
        widths.append(width)
        if name == "affine":
            rows = [_row(R, width, f"{op_path}.rows[{i}]", numbers) for i, R in enumerate(listed(O, "rows", op_path))]
            b = vector(need(O, "b", op_path), join(op_path, "b"), len(rows))
            ops.append(("affine", rows, b))
            width = len(rows)
        elif name == "relu":
            ops.append(("relu", width))
        else:
            groups = []
            for g, G in enumerate(listed(O, "groups", op_path)):
                gp = f"{op_path}.groups[{g}]"
                if type(G) is not list or not G:
                    raise read.refuse(gp, "a non-empty list of indices", G)
                groups.append(read.indices(G, width, gp))
            ops.append(("max", groups))
            width = len(groups)
    return LayeredNet(input_dim, ops, widths, width)


#: the JSON types of a number (a bool's type is bool, a JSON float's FloatLiteral: neither is one)
_INT_OR_STR = frozenset((int, str))


def _row(R, width: int, path: str, numbers: dict) -> list:
    """Row ``path`` of an affine op: its ``(column, value)`` pairs, the columns strictly
    increasing below ``width``. ``numbers`` holds the values read so far by their JSON value
    (1 != "1"; a convolution repeats its kernel's few weights in every row). A pair of an int
    column in order and an int or string value is taken at once; any other is read field by
    field, which names what is wrong."""
    row, last = [], -1
    for m, pair in enumerate(read.array(R, path)):
        if type(pair) is list and len(pair) == 2 and type(pair[0]) is int and last < pair[0] < width:
            j, v = pair
        else:
            pp = f"{path}[{m}]"
            j, v = read.array(pair, pp, 2)
            j = read.index(j, width, f"{pp}[0]")
            if j <= last:
                raise MalformedCertificate(f"expected columns in increasing order, each once; got {j} after {last}",
                                           path=f"{pp}[0]")
        w = numbers.get(v) if type(v) in _INT_OR_STR else None
        if w is None:
            w = read.rational(v, f"{path}[{m}][1]")   # a bool, a float...: refused here
            if type(v) in _INT_OR_STR:
                numbers[v] = w
        row.append((j, w))
        last = j
    return row


READERS = {"layered": read_layered}
