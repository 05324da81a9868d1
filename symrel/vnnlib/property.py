"""A VNN-LIB property, exactly: an input region and an unsafe output condition.

A VNN-LIB file asks whether some input ``X`` in a region has outputs ``Y = f(X)``
that meet a condition; the condition describes the *unsafe* outputs, so the
property holds ("unsat") when no input of the region meets it, and fails ("sat")
when one does.

* :class:`LinearAtom` is one inequality ``sum_i x[i]*X_i + sum_j y[j]*Y_j <= rhs``
  with exact rational coefficients (elements of ``QQ``, the numbers models hold);
  ``x`` has one entry per network input and ``y`` one per output, zero where a
  variable is absent.
* a ``Conjunction`` is a tuple of atoms (all must hold); the empty tuple is true.
* :class:`VnnProperty` holds ``input_region``, a disjunction of conjunctions over
  ``X`` alone (a union of polytopes; each one must be covered), and ``unsafe``, a
  disjunction of conjunctions whose atoms may mention ``X`` and ``Y``. The
  property fails exactly when some ``x`` with :meth:`VnnProperty.in_region` has
  :meth:`VnnProperty.holds` ``(x, f(x))``.

Cost: :meth:`~VnnProperty.holds` and :meth:`~VnnProperty.in_region` are
``O(atoms * (n_inputs + n_outputs))`` exact multiply-adds; :meth:`~VnnProperty.boxes`
is ``O(atoms)``.

>>> from symrel.exact import format_rational, rational
>>> q = rational
>>> lo = LinearAtom((q(-1),), (q(0),), q(0))        # -X_0 <= 0, that is X_0 >= 0
>>> hi = LinearAtom((q(1),), (q(0),), q(1))         #  X_0 <= 1
>>> bad = LinearAtom((q(0),), (q(-1),), q(-5))      # -Y_0 <= -5, that is Y_0 >= 5
>>> p = VnnProperty(1, 1, ((lo, hi),), ((bad,),), sha256="0" * 64, source="inline")
>>> [[format_rational(v) for v in side] for side in p.boxes()[0]]
[[0], [1]]
>>> p.in_region([q("1/2")]), p.in_region([q(2)])
(True, False)
>>> p.holds([q("1/2")], [q(5)]), p.holds([q("1/2")], [q("4.999")])
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from ..exact import ONE, ZERO, Rational, format_rational


@dataclass(frozen=True)
class LinearAtom:
    """``sum_i x[i]*X_i + sum_j y[j]*Y_j <= rhs``, every number an exact rational.

    >>> from symrel.exact import rational as q
    >>> a = LinearAtom((q(1), q(0)), (q(-1),), q(0))    # X_0 - Y_0 <= 0
    >>> a.holds([q(1), q(7)], [q(1)]), a.holds([q(2), q(7)], [q(1)])
    (True, False)
    >>> str(a)
    'X_0 - Y_0 <= 0'
    """

    x: tuple
    y: tuple
    rhs: Rational

    def lhs(self, x, y=()) -> Rational:
        """The exact value of the left-hand side at inputs ``x`` and outputs ``y``
        (``y`` may be omitted when the atom does not mention ``Y``)."""
        total = ZERO
        for c, v in zip(self.x, x):
            if c:
                total += c * v
        if any(self.y):
            if len(y) != len(self.y):
                raise InputError(f"expected {len(self.y)} output values, got {len(y)}", path="y")
            for c, v in zip(self.y, y):
                if c:
                    total += c * v
        return total

    def holds(self, x, y=()) -> bool:
        """Whether the inequality holds exactly at ``(x, y)``."""
        return self.lhs(x, y) <= self.rhs

    def mentions_outputs(self) -> bool:
        """Whether some ``Y_j`` has a nonzero coefficient."""
        return any(self.y)

    def __str__(self) -> str:
        terms = []
        for name, coeffs in (("X", self.x), ("Y", self.y)):
            for i, c in enumerate(coeffs):
                if not c:
                    continue
                mag = -c if c < 0 else c
                text = f"{name}_{i}" if mag == 1 else f"{format_rational(mag)}*{name}_{i}"
                terms.append(("-" if c < 0 else "+", text))
        if not terms:
            left = "0"
        else:
            left = ("-" if terms[0][0] == "-" else "") + terms[0][1]
            left += "".join(f" {s} {t}" for s, t in terms[1:])
        return f"{left} <= {format_rational(self.rhs)}"


#: A conjunction of atoms; the empty conjunction is true.
Conjunction = tuple  # tuple[LinearAtom, ...]


def conjunction_holds(conj, x, y=()) -> bool:
    """Whether every atom of ``conj`` holds exactly at ``(x, y)``."""
    return all(atom.holds(x, y) for atom in conj)


@dataclass(frozen=True)
class VnnProperty:
    """A VNN-LIB property read exactly (see the module docstring for the meaning).

    ``sha256`` is the hex digest of the property file's bytes and ``source`` its
    path (or ``"inline"``): certificates name the property by them.
    """

    n_inputs: int
    n_outputs: int
    input_region: tuple  # tuple[Conjunction, ...], atoms over X alone
    unsafe: tuple  # tuple[Conjunction, ...], atoms over X and Y
    sha256: str
    source: str

    def in_region(self, x) -> bool:
        """Whether the input ``x`` lies in some disjunct of the input region (exact)."""
        self._check_len(x, self.n_inputs, "X")
        return any(conjunction_holds(conj, x) for conj in self.input_region)

    def holds(self, x, y) -> bool:
        """Whether the unsafe condition holds exactly at inputs ``x`` and outputs ``y``
        (some disjunct of ``unsafe`` has every atom true). It says nothing about the
        region: a counterexample needs :meth:`in_region` too."""
        self._check_len(x, self.n_inputs, "X")
        self._check_len(y, self.n_outputs, "Y")
        return any(conjunction_holds(conj, x, y) for conj in self.unsafe)

    def is_box_union(self) -> bool:
        """Whether every input disjunct is a box: each atom bounds one ``X_i`` and
        every input has a lower and an upper bound."""
        try:
            self.boxes()
        except InputError:
            return False
        return True

    def boxes(self) -> tuple:
        """The input region as boxes: one ``(lower, upper)`` pair of tuples of rationals
        per input disjunct, in order, the tightest bound of each input taken. A
        disjunct with ``lower[i] > upper[i]`` is empty (kept, so that indices match
        ``input_region``). Raises :class:`~symrel.errors.InputError` naming the
        disjunct when an atom mentions two inputs or an input lacks a bound."""
        return tuple(self._box(k, conj) for k, conj in enumerate(self.input_region))

    def _box(self, k: int, conj) -> tuple:
        lower = [None] * self.n_inputs
        upper = [None] * self.n_inputs
        where = f"input disjunct {k}"
        for atom in conj:
            if atom.mentions_outputs():
                raise InputError(f"expected atoms over X alone, got {atom}", path=where, file=self.source)
            nonzero = [i for i, c in enumerate(atom.x) if c]
            if len(nonzero) == 0:
                if not ZERO <= atom.rhs:  # 0 <= rhs false: an empty disjunct
                    lower[0], upper[0] = ONE, ZERO
                continue
            if len(nonzero) > 1:
                raise InputError(f"expected a bound on one input (a box), got {atom}", path=where,
                                 file=self.source)
            i = nonzero[0]
            c = atom.x[i]
            bound = atom.rhs / c
            if c > 0:
                upper[i] = bound if upper[i] is None else min(upper[i], bound)
            else:
                lower[i] = bound if lower[i] is None else max(lower[i], bound)
        for i in range(self.n_inputs):
            for name, side in (("lower", lower), ("upper", upper)):
                if side[i] is None:
                    raise InputError(f"expected a bounded input region, X_{i} has no {name} bound",
                                     path=where, file=self.source)
        return tuple(lower), tuple(upper)

    @staticmethod
    def _check_len(values, n: int, name: str) -> None:
        if len(values) != n:
            raise InputError(f"expected {n} values of {name}, got {len(values)}", path=name)

    def describe(self) -> str:
        """The property in words, one disjunct per line."""
        lines = [f"{self.source}: {self.n_inputs} inputs, {self.n_outputs} outputs"]
        lines.append(f"input region ({len(self.input_region)} disjunct(s)):")
        lines += ["  " + (" and ".join(map(str, c)) or "true") for c in self.input_region]
        lines.append(f"unsafe if ({len(self.unsafe)} disjunct(s)):")
        lines += ["  " + (" and ".join(map(str, c)) or "true") for c in self.unsafe]
        return "\n".join(lines)
