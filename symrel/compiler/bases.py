"""The named slots of the residual stream (docs/theory.md#maxout-layer--three-transformer-blocks-theorems-31-and-32).

Every token column of the compiled Transformer is ``[X | P | C | S | O]``:

* ``X_0 .. X_(dx-1)``: the input slots, holding the current layer's input (zero padded);
* ``P_0 .. P_(T-1)``: the one-hot position, the *token-wise shift* (token 0 is the carrier,
  token j holds piece j of every unit);
* ``C``: the constant 1;
* ``S_0 .. S_(q-1)``: scratch, one slot per maxout unit;
* ``O_0 .. O_(q-1)``: outputs, one slot per maxout unit.

Weight matrices are built as "slot S_i <- slot O_i" through :class:`SlotMatrix`, so
no stage module ever computes a row index by hand.

>>> L = Layout(input_dim=2, x_width=3, tokens=4, units=3)
>>> L.width, L.X(0), L.P(0), L.C, L.S(0), L.O(2)
(14, 0, 3, 7, 8, 13)
>>> L.name(7), L.name(9)
('C', 'S_1')
"""

from __future__ import annotations

from dataclasses import dataclass

from ..exact import Matrix, Q, Rational, from_rationals


@dataclass(frozen=True)
class Layout:
    """Widths of the slot groups: ``dx`` input slots, ``T`` tokens (positions), ``q`` units."""

    input_dim: int
    x_width: int
    tokens: int
    units: int

    @property
    def width(self) -> int:
        """The width m of the residual stream: ``dx + T + 1 + 2q``."""
        return self.x_width + self.tokens + 1 + 2 * self.units

    def X(self, i: int) -> int:
        """Row of input slot ``X_i``."""
        return self._check(i, self.x_width, "X")

    def P(self, t: int) -> int:
        """Row of position slot ``P_t``."""
        return self.x_width + self._check(t, self.tokens, "P")

    @property
    def C(self) -> int:
        """Row of the constant slot."""
        return self.x_width + self.tokens

    def S(self, i: int) -> int:
        """Row of scratch slot ``S_i``."""
        return self.C + 1 + self._check(i, self.units, "S")

    def O(self, i: int) -> int:
        """Row of output slot ``O_i``."""
        return self.C + 1 + self.units + self._check(i, self.units, "O")

    @staticmethod
    def _check(i: int, n: int, group: str) -> int:
        if not 0 <= i < n:
            raise IndexError(f"slot {group}_{i} does not exist (the group has {n} slots)")
        return i

    def name(self, row: int) -> str:
        """The slot name of a row: ``X_i``, ``P_t``, ``C``, ``S_i`` or ``O_i``."""
        if row < self.x_width:
            return f"X_{row}"
        row -= self.x_width
        if row < self.tokens:
            return f"P_{row}"
        row -= self.tokens
        if row == 0:
            return "C"
        row -= 1
        if row < self.units:
            return f"S_{row}"
        row -= self.units
        if row < self.units:
            return f"O_{row}"
        raise IndexError("row beyond the layout")

    def names(self) -> list[str]:
        """All slot names, row by row."""
        return [self.name(r) for r in range(self.width)]

    def to_json(self) -> dict:
        return {"input_dim": self.input_dim, "x_width": self.x_width, "tokens": self.tokens,
                "units": self.units, "slots": self.names()}


class SlotMatrix:
    """A matrix assembled entry by entry: rows and columns are slot rows (or hidden
    units), entries exact rationals; everything else is 0.

    >>> M = SlotMatrix(2, 3)
    >>> M.set(0, 2, "1/2"); M.add(0, 2, 1)
    >>> from symrel.exact import format_matrix
    >>> format_matrix(M.build())
    [[0, 0, '3/2'], [0, 0, 0]]
    """

    def __init__(self, n_rows: int, n_cols: int):
        self.shape = (n_rows, n_cols)
        self.entries: dict[tuple[int, int], Rational] = {}

    def set(self, i: int, j: int, value) -> None:
        from ..exact import rational

        self.entries[(i, j)] = rational(value)

    def add(self, i: int, j: int, value) -> None:
        from ..exact import rational

        self.entries[(i, j)] = self.entries.get((i, j), Q(0)) + rational(value)

    def build(self) -> Matrix:
        n, m = self.shape
        data = [[Q(0)] * m for _ in range(n)]
        for (i, j), v in self.entries.items():
            data[i][j] = v
        return from_rationals(data, (n, m))
