"""The numbers a regions certificate records about a search: Farkas vectors in normal
form and the values of rows at a point (:mod:`symrel.checking.regions` recomputes both).

>>> from symrel.exact import rational as r
>>> farkas_json([(0, r(2)), (3, r(-6))])
[[0, '1/4'], [3, '-3/4']]
>>> from symrel.exact.forms import AffineForm, Row
>>> row_values([Row(AffineForm(r(-1), {0: r(1)}), "<")], [r("1/2")])
['-1/2']
"""

from __future__ import annotations

from ..exact import Q, format_rational

ZERO = Q(0)


def farkas_json(cert) -> list:
    """A Farkas vector ``[(row, multiplier)]`` as canonical JSON, scaled so that its
    multipliers' absolute values add up to 1 (a positive multiple of a Farkas vector
    is one; the normal form makes every recorded number checkable)."""
    total = sum((abs(v) for _, v in cert), ZERO)
    return [[i, format_rational(v / total)] for i, v in cert]


def row_values(rows, x) -> list:
    """The value of every row's form at x, as canonical JSON numbers (recorded beside a
    witness so that the checker recomputes them: any altered coordinate shows)."""
    return [format_rational(f.value_at(x)) for f, _ in rows]
