"""Exact affine forms ``c + sum_v a_v y_v`` and rows ``form rel 0``: the one algebra of
affine functions every analysis of symrel shares (the certificate checker keeps its own
small kernel on purpose, :mod:`symrel.checking`).

Definitions. The variables ``y_0, y_1, ...`` are indexed by integers: the inputs
``x_1..x_d`` of a model (indices ``0..d-1``) and, in the prover, the max nodes after them.
An :class:`AffineForm` is the function ``f(y) = const + sum_v coeffs[v] y_v``, stored
sparsely (only nonzero coefficients) and never changed after it is made, so forms are
hashable values: ``f == g`` iff they are equal coefficient by coefficient (the
*linear identity* of two affine maps). A :class:`Row` is a form with a relation ``"<="``,
``"<"`` or ``"="``, meaning the constraint ``form(y) rel 0``.

The range of ``f`` over a box ``prod_v [l_v, u_v]`` is attained at a vertex: the
maximum takes ``u_v`` where ``a_v > 0`` and ``l_v`` otherwise, so both ends are exact
sums of coefficient-times-endpoint (docs/theory.md#proofs-and-certificates); :meth:`AffineForm.range_on_box`
is the one definition of it outside the checker.

>>> from symrel.exact import Q
>>> x0, x1 = AffineForm.var(0), AffineForm.var(1)
>>> f = linear_combination([(Q(2), x0), (Q(-1), x1)], Q(1))      # 1 + 2 y0 - y1
>>> f.to_json(), str(f.value_at([Q(1), Q(5)]))
([1, [[0, 2], [1, -1]]], '-2')
>>> [str(v) for v in f.range_on_box([(Q(-1), Q(1)), (Q(0), Q(3))])]
['-4', '3']
>>> Row(f, "<").holds_at([Q(1), Q(5)])
True
"""

from __future__ import annotations

from typing import Iterable, Mapping, NamedTuple, Sequence, Union

from .matrices import FMPQ_MAT, rows, sparse_rows
from .numbers import Q, Rational, format_rational

ZERO, ONE = Q(0), Q(1)
RELATIONS = ("<=", "<", "=")


class AffineForm:
    """The affine form ``const + sum_v coeffs[v] * y_v``.

    ``coeffs`` maps variable indices to nonzero rationals (the constructor trusts its
    caller on that; :meth:`from_dense` and :func:`linear_combination` drop zeros). A form
    is never modified after construction. Cost of every operation: O(number of terms).

    >>> f = AffineForm(Q(3), {2: Q(1, 2)})
    >>> f, f.is_constant(), str(f.coefficient(2)), str(f.coefficient(0))
    (AffineForm([3, [[2, '1/2']]]), False, '1/2', '0')
    >>> f - f == AffineForm.constant(Q(0)), hash(f) == hash(AffineForm(Q(3), {2: Q(1, 2)}))
    (True, True)
    """

    __slots__ = ("const", "coeffs", "_canonical")

    def __init__(self, const: Rational = ZERO, coeffs: dict[int, Rational] | None = None):
        self.const = const
        self.coeffs = coeffs if coeffs is not None else {}
        self._canonical = None

    # -- construction -------------------------------------------------------------------
    @classmethod
    def var(cls, v: int) -> "AffineForm":
        """The variable ``y_v``."""
        return cls(ZERO, {v: ONE})

    @classmethod
    def constant(cls, c: Rational) -> "AffineForm":
        """The constant form ``c``."""
        return cls(c)

    @classmethod
    def from_dense(cls, coeffs: Sequence[Rational], const: Rational = ZERO) -> "AffineForm":
        """``const + sum_i coeffs[i] y_i`` from a dense coefficient list.

        >>> AffineForm.from_dense([Q(0), Q(-1)], Q(2))
        AffineForm([2, [[1, -1]]])
        """
        return cls(const, {v: a for v, a in enumerate(coeffs) if a})

    # -- reading ------------------------------------------------------------------------
    def is_constant(self) -> bool:
        """Whether no variable occurs."""
        return not self.coeffs

    def is_zero(self) -> bool:
        """Whether the form is identically zero."""
        return not self.coeffs and not self.const

    def coefficient(self, v: int) -> Rational:
        """The coefficient of ``y_v`` (0 when it does not occur)."""
        return self.coeffs.get(v, ZERO)

    def key(self) -> tuple:
        """A hashable canonical key: equal keys iff equal forms."""
        if self._canonical is None:
            self._canonical = (self.const, tuple(sorted(self.coeffs.items())))
        return self._canonical

    def __eq__(self, other):
        if self is other:
            return True
        # coefficient dicts hold no zeros, so equal forms have equal dicts (compared in C)
        return isinstance(other, AffineForm) and self.const == other.const and self.coeffs == other.coeffs

    def __hash__(self):
        return hash(self.key())

    def to_dense(self, n: int) -> list[Rational]:
        """The coefficients of ``y_0..y_(n-1)`` as a list (every variable must be < n).

        >>> [str(a) for a in AffineForm(Q(5), {1: Q(2)}).to_dense(3)]
        ['0', '2', '0']
        """
        out = [ZERO] * n
        for v, a in self.coeffs.items():
            out[v] = a
        return out

    # -- evaluation ---------------------------------------------------------------------
    def value_at(self, point: Sequence[Rational]) -> Rational:
        """The value when ``y_v = point[v]``, exactly."""
        total = self.const
        for v, a in self.coeffs.items():
            total += a * point[v]
        return total

    def range_on_box(self, box: Sequence[tuple[Rational, Rational]]) -> tuple[Rational, Rational]:
        """The exact ``(min, max)`` over the box ``prod_v [box[v][0], box[v][1]]``.

        >>> [str(v) for v in AffineForm(Q(1), {0: Q(1), 1: Q(-2)}).range_on_box([(Q(-1), Q(1)), (Q(0), Q(2))])]
        ['-4', '2']
        """
        lo = hi = self.const
        for v, a in self.coeffs.items():
            l, u = box[v]
            if a > ZERO:
                lo += a * l
                hi += a * u
            else:
                lo += a * u
                hi += a * l
        return lo, hi

    def minimum_on_box(self, box: Sequence[tuple[Rational, Rational]]) -> Rational:
        """``range_on_box(box)[0]`` at half the cost: the region search's cheap emptiness
        test (is ``f >= 0`` on a cell's bounding box?) reads only that end.

        >>> str(AffineForm(Q(1), {0: Q(1), 1: Q(-2)}).minimum_on_box([(Q(-1), Q(1)), (Q(0), Q(2))]))
        '-4'
        """
        lo = self.const
        for v, a in self.coeffs.items():
            l, u = box[v]
            lo += a * (l if a > ZERO else u)
        return lo

    def error_bound(self, e: Sequence[Rational]) -> Rational:
        """``sum_v |a_v| e_v``: the most ``|f(y') - f(y)|`` can be when every ``|y'_v - y_v| <=
        e_v`` (the constant cancels). It is the half-width of the form's range over any box
        of half-widths ``e``; the softmax error propagation (:mod:`symrel.softmax.network`)
        moves entrywise error bounds through linear maps with it. Cost O(terms).

        >>> str(AffineForm(Q(7), {0: Q(2), 2: Q(-3)}).error_bound([Q(1, 2), Q(5), Q(1)]))
        '4'
        """
        total = ZERO
        for v, a in self.coeffs.items():
            ev = e[v]
            if ev:
                total += abs(a) * ev
        return total

    # -- arithmetic ---------------------------------------------------------------------
    def __add__(self, other: "AffineForm") -> "AffineForm":
        return linear_combination([(ONE, self), (ONE, other)])

    def __sub__(self, other: "AffineForm") -> "AffineForm":
        return linear_combination([(ONE, self), (-ONE, other)])

    def __neg__(self) -> "AffineForm":
        return AffineForm(-self.const, {v: -a for v, a in self.coeffs.items()})

    def scaled(self, a: Rational) -> "AffineForm":
        """``a * self``."""
        if not a:
            return AffineForm()
        return AffineForm(a * self.const, {v: a * c for v, c in self.coeffs.items()})

    def __mul__(self, a: Rational) -> "AffineForm":
        return self.scaled(a)

    __rmul__ = __mul__

    def substitute(self, images: Union[Mapping[int, "AffineForm"], Sequence["AffineForm"]]) -> "AffineForm":
        """The form with every variable ``y_v`` replaced by the form ``images[v]``
        (a mapping or a sequence; every variable of the form must have an image).

        >>> y = AffineForm(Q(1), {0: Q(2), 1: Q(1)})                 # 1 + 2 y0 + y1
        >>> y.substitute([AffineForm(Q(3)), AffineForm.var(0)])      # 1 + 6 + y0
        AffineForm([7, [[0, 1]]])
        """
        return linear_combination([(a, images[v]) for v, a in self.coeffs.items()], self.const)

    # -- parallel forms -----------------------------------------------------------------
    def direction_key(self) -> tuple | None:
        """A key of the linear part up to a positive factor: two forms have the same
        key iff their linear parts are positive multiples of each other (None for a
        constant form). Cost O(terms log terms).

        >>> AffineForm(Q(1), {0: Q(2), 1: Q(-4)}).direction_key() == AffineForm(Q(9), {0: Q(1), 1: Q(-2)}).direction_key()
        True
        """
        return self.normalised(linear_only=True)

    def normalised(self, linear_only: bool = False) -> tuple | None:
        """The key of the form divided by the absolute value of its first nonzero
        coefficient (lowest variable): equal for two rows ``f rel 0`` iff they bound the
        same halfspace (None for a constant form). ``linear_only`` drops the constant."""
        if not self.coeffs:
            return None
        items = sorted(self.coeffs.items())
        s = abs(items[0][1])
        lin = tuple((v, a / s) for v, a in items)
        return lin if linear_only else (self.const / s, lin)

    def parallel_offset(self, other: "AffineForm") -> Rational | None:
        """When the linear part of ``self`` is ``lam`` times that of ``other`` (``other``
        not constant): the constant ``self - lam * other``; else None.

        >>> h = AffineForm(Q(1), {0: Q(1), 1: Q(1)})
        >>> str(AffineForm(Q(5), {0: Q(-2), 1: Q(-2)}).parallel_offset(h)), AffineForm(Q(5), {0: Q(1)}).parallel_offset(h)
        ('7', None)
        """
        if not other.coeffs or any(v not in other.coeffs for v in self.coeffs):
            return None
        v0, b0 = next(iter(other.coeffs.items()))
        lam = self.coeffs.get(v0, ZERO) / b0
        if any(self.coeffs.get(v, ZERO) != lam * b for v, b in other.coeffs.items()):
            return None
        return self.const - lam * other.const

    # -- JSON (the prover's certificates) -----------------------------------------------
    def to_json(self) -> list:
        """``[const, [[v, a_v], ...]]`` with canonical rationals, variables in order."""
        return [format_rational(self.const), [[v, format_rational(a)] for v, a in sorted(self.coeffs.items())]]

    def __repr__(self):
        return f"AffineForm({self.to_json()})"


def linear_combination(terms: Iterable[tuple[Rational, AffineForm]], const: Rational = ZERO) -> AffineForm:
    """``const + sum a * f`` over ``(a, f)`` in ``terms``, exactly. Cost O(total size).

    >>> x = AffineForm.var(0)
    >>> linear_combination([(Q(1), x), (Q(-1), x)], Q(4))
    AffineForm([4, []])
    """
    acc: dict[int, Rational] = {}
    for a, f in terms:
        if not a:
            continue
        const += a * f.const
        for v, c in f.coeffs.items():
            acc[v] = acc.get(v, ZERO) + a * c
    return AffineForm(const, {v: c for v, c in acc.items() if c})


def matrix_image(W_rows: Sequence[Sequence[tuple[int, Rational]]], forms: Sequence[AffineForm],
                 b: Sequence[Rational] | None = None) -> list[AffineForm]:
    """``W f + b`` for a vector of forms ``f``: form i is ``b_i + sum_j W_ij f_j``, with W
    given by its nonzero ``(j, W_ij)`` pairs row by row (:func:`symrel.exact.sparse_rows`).
    Cost O(nonzeros of W x terms of the forms).

    >>> x = AffineForm.var(0)
    >>> matrix_image([[(0, Q(2))], []], [x], [Q(1), Q(5)])
    [AffineForm([1, [[0, 2]]]), AffineForm([5, []])]
    """
    return [linear_combination([(a, forms[j]) for j, a in row], b[i] if b is not None else ZERO)
            for i, row in enumerate(W_rows)]


class FormMap:
    """The map ``f -> W f + b`` on vectors of forms, made once and applied many times (an
    affine stage of a lowered program, applied on every cell of a region search):
    ``image(forms)`` equals :func:`matrix_image` of ``W``'s nonzero pairs, form for form.

    ``W`` is a matrix (Matrix or list of rows) with one column per form, ``b`` a list
    (or None for 0). How: when the numbers are flint's and the nonconstant forms fill at
    least half of their rows of the dense block ``F`` (row j: the coefficients of form j on
    ``y_0..y_(n-1)``, then its constant), as a region search's forms over the d inputs do,
    the images are the rows of the one product ``[W | b] [F; 0 .. 0 1]`` in flint's
    ``fmpq_mat``: the same exact sums, computed in C (each image lists its variables in
    increasing order). Else the sparse sums of :func:`matrix_image`. Cost: O(nonzeros of W
    x terms of the forms), or O(rows x columns of W x (n + 1)) operations in C.

    >>> x0, x1 = AffineForm.var(0), AffineForm.var(1)
    >>> FormMap([[Q(1), Q(1)], [Q(2), Q(0)]], [Q(0), Q(-1)]).image([x0, x1])
    [AffineForm([0, [[0, 1], [1, 1]]]), AffineForm([-1, [[0, 2]]])]
    """

    __slots__ = ("W_rows", "b", "_Wb")

    def __init__(self, W, b: Sequence[Rational] | None = None):
        dense = W if isinstance(W, list) else rows(W)
        self.W_rows, self.b = sparse_rows(dense), b
        self._Wb = None
        if FMPQ_MAT is not None and dense and dense[0]:
            bias = b if b is not None else [ZERO] * len(dense)
            self._Wb = FMPQ_MAT([list(r) + [c] for r, c in zip(dense, bias)])

    def image(self, forms: Sequence[AffineForm]) -> list[AffineForm]:
        """``W forms + b``."""
        if self._Wb is not None:
            live = [f.coeffs for f in forms if f.coeffs]
            n = 1 + max(map(max, live), default=-1)
            if 2 * sum(map(len, live)) >= n * len(live):
                return self._dense_image(forms, n)
        return matrix_image(self.W_rows, forms, self.b)

    def _dense_image(self, forms, n):
        k = n + 1
        F = [ZERO] * ((len(forms) + 1) * k)
        for base, f in zip(range(0, len(F), k), forms):
            for v, a in f.coeffs.items():
                F[base + v] = a
            F[base + n] = f.const
        F[-1] = ONE  # the row [0 .. 0 1] that the column b of [W | b] multiplies
        E = (self._Wb * FMPQ_MAT(len(forms) + 1, k, F)).entries()
        return [AffineForm(E[base + n], {v: a for v, a in enumerate(E[base:base + n]) if a})
                for base in range(0, len(E), k)]


class Row(NamedTuple):
    """The constraint ``form(y) rel 0``, ``rel`` one of ``"<="``, ``"<"``, ``"="``.

    >>> r = Row(AffineForm(Q(-1), {0: Q(1)}), "<=")       # y0 - 1 <= 0
    >>> r.holds_at([Q(1)]), r.holds_at([Q(2)]), r.is_constant()
    (True, False, False)
    """

    form: AffineForm
    rel: str

    def holds_at(self, point: Sequence[Rational]) -> bool:
        """Whether the point satisfies the row, exactly."""
        return holds(self.form.value_at(point), self.rel)

    def is_constant(self) -> bool:
        """Whether the row's form has no variable (the row is then true or false)."""
        return not self.form.coeffs

    def constant_status(self) -> tuple[bool, Rational | None]:
        """For a constant row: ``(True, None)`` when it holds, else ``(False, m)`` with ``m``
        its Farkas multiplier (1, or -1 for an equation whose constant is negative).

        >>> ok, m = Row(AffineForm(Q(-2)), "=").constant_status()
        >>> ok, str(m)
        (False, '-1')
        """
        c, rel = self.form.const, self.rel
        if holds(c, rel):
            return True, None
        return False, (-ONE if rel == "=" and c < 0 else ONE)


def holds(value: Rational, rel: str) -> bool:
    """Whether ``value rel 0``."""
    # the rational ZERO, not the int 0: no conversion per comparison (the region search
    # tests every row of every child node)
    if rel == "<":
        return value < ZERO
    if rel == "<=":
        return value <= ZERO
    return value == ZERO
