"""Affine forms over the proof's variables: ``c + sum_v a_v y_v`` with exact rationals.

The variables ``y_v`` are the inputs ``x_1..x_d`` and the max nodes of
:mod:`symrel.prover.nodes`; every entry of a symbolic Transformer state and every
output of a symbolic net is such a form. Forms are immutable, sparse (only nonzero
coefficients are stored) and hashable through :meth:`Form.key`, so "equal as affine
forms" (the *linear identity* rule, coefficient by coefficient) is ``f.key() == g.key()``.

>>> x0, x1 = Form.var(0), Form.var(1)
>>> f = combine([(Q(2), x0), (Q(-1), x1)], Q(1))
>>> f.to_json()
[1, [[0, 2], [1, -1]]]
>>> [str(v) for v in f.range([(Q(-1), Q(1)), (Q(0), Q(3))])]
['-4', '3']
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ..exact import Q, Rational, affine_range_on_box, format_rational, rational

ZERO = Q(0)


class Form:
    """The affine form ``const + sum coeffs[v] * y_v`` (``coeffs`` without zeros)."""

    __slots__ = ("const", "coeffs", "_key")

    def __init__(self, const: Rational = ZERO, coeffs: dict[int, Rational] | None = None):
        self.const = const
        self.coeffs = coeffs or {}
        self._key = None

    @classmethod
    def var(cls, v: int) -> "Form":
        """The variable ``y_v``."""
        return cls(ZERO, {v: Q(1)})

    @classmethod
    def constant(cls, c: Rational) -> "Form":
        return cls(c)

    def is_constant(self) -> bool:
        return not self.coeffs

    def key(self) -> tuple:
        """A hashable canonical key: equal keys iff equal forms."""
        if self._key is None:
            self._key = (self.const, tuple(sorted(self.coeffs.items())))
        return self._key

    def __eq__(self, other):
        return isinstance(other, Form) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def __sub__(self, other: "Form") -> "Form":
        return combine([(Q(1), self), (Q(-1), other)])

    def __neg__(self) -> "Form":
        return Form(-self.const, {v: -a for v, a in self.coeffs.items()})

    def scaled(self, a: Rational) -> "Form":
        return combine([(a, self)])

    def coefficient(self, v: int) -> Rational:
        return self.coeffs.get(v, ZERO)

    def range(self, ranges: Sequence[tuple[Rational, Rational]]) -> tuple[Rational, Rational]:
        """The exact ``(min, max)`` over the box of the variables' ranges."""
        items = sorted(self.coeffs.items())
        return affine_range_on_box([a for _, a in items], self.const, [ranges[v] for v, _ in items])

    def value(self, values: Sequence[Rational]) -> Rational:
        """The value when ``y_v = values[v]``."""
        total = self.const
        for v, a in self.coeffs.items():
            total += a * values[v]
        return total

    def to_json(self) -> list:
        """``[const, [[v, a_v], ...]]`` with canonical rationals, variables in order."""
        return [format_rational(self.const), [[v, format_rational(a)] for v, a in sorted(self.coeffs.items())]]

    @classmethod
    def from_json(cls, obj) -> "Form":
        c, items = obj
        return cls(rational(c), {int(v): rational(a) for v, a in items})

    def __repr__(self):
        return f"Form({self.to_json()})"


def combine(terms: Iterable[tuple[Rational, Form]], const: Rational = ZERO) -> Form:
    """``const + sum a * f`` over ``(a, f)`` in ``terms``, exactly. Cost O(total size)."""
    acc: dict[int, Rational] = {}
    for a, f in terms:
        if not a:
            continue
        const += a * f.const
        for v, x in f.coeffs.items():
            acc[v] = acc.get(v, ZERO) + a * x
    return Form(const, {v: x for v, x in acc.items() if x})
