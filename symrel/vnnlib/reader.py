"""Read a VNN-LIB property exactly into a :class:`~symrel.vnnlib.property.VnnProperty`.

VNN-LIB 1.0 is a subset of SMT-LIB: ``(declare-const X_i Real)`` and
``(declare-const Y_j Real)`` name the network's inputs and outputs, and each
``(assert F)`` adds a constraint, ``F`` built from ``and``, ``or``, ``<=`` and
``>=`` (chains ``(<= a b c)`` too) over linear terms: decimal constants (signs and
exponents allowed, read as exact rationals: ``0.1`` is ``1/10``), variables,
``(+ t ...)``, ``(- t)``, ``(- t u ...)``, ``(* c t)`` with every factor but one
constant, ``(/ t c)``. ``;`` starts a comment, to the line feed (a CR alone inside a
comment is refused: Python's line readers, the competition's, end the comment there, SMT-LIB
does not). The VNN-LIB 2.0 form is read too
when it is linear and names one network: the header ``(vnnlib-version <2.0>)``,
``(declare-network N (declare-input X T [shape]) (declare-output Y T [shape]))``,
variables ``X[i,j]`` (flattened in row-major order) and ``==``.

The conjunction of all asserts is put in disjunctive normal form. Asserts over
``X`` alone make the input region; the rest make the unsafe condition (whose
disjuncts keep their ``X`` atoms, except those every region disjunct has). When
no assert is over ``X`` alone (the ``(assert (or (and X-box Y-condition) ...))``
form), the region is the union of the disjuncts' ``X`` parts. Either way an input
``x`` is a counterexample exactly when it satisfies every assert with ``y = f(x)``.

Anything else (another sort, an undeclared variable, one the network lacks, a
product of two variables, ``not``, a strict ``<``) is refused with one
:class:`~symrel.errors.InputError` naming the file, the line and what was
expected (exit 2 on the command line). Cost: linear in the file, times the size
of the normal form (at most :data:`MAX_DISJUNCTS` conjunctions and
:data:`MAX_NORMAL_FORM_ATOMS` atoms, bounded before it is built, and :data:`MAX_DEPTH` nested
parentheses, else a :class:`~symrel.errors.LimitError`).

>>> p = read_vnnlib_text('''
... (declare-const X_0 Real)
... (declare-const Y_0 Real)
... (declare-const Y_1 Real)
... (assert (>= X_0 -0.5)) (assert (<= X_0 1e-1))  ; a box
... (assert (or (<= Y_0 Y_1) (>= (- Y_0 (* 2 Y_1)) 3)))
... ''')
>>> print(p.describe())
inline: 1 inputs, 2 outputs
input region (1 disjunct(s)):
  -X_0 <= 1/2 and X_0 <= 1/10
unsafe if (2 disjunct(s)):
  Y_0 - Y_1 <= 0
  -Y_0 + 2*Y_1 <= -3
>>> read_vnnlib_text('(declare-const X_0 Real)\\n(assert (< X_0 1))')
Traceback (most recent call last):
...
symrel.errors.InputError: inline: line 2: expected <=, >=, and or or, got '<'
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..errors import InputError, LimitError
from ..exact import ZERO, denominator, numerator, rational
from ..exact.number_text import BLANKS, integer_from_text, not_a_number, number_from_text, why_not_ascii
from .property import LinearAtom, VnnProperty

#: The largest disjunctive normal form read (conjunctions in one side).
MAX_DISJUNCTS = 100_000
#: The most atoms of a disjunctive normal form (summed over its conjunctions), and the most steps
#: of building it: a conjunction of disjunctions multiplies, so a few kilobytes could otherwise
#: spell gigabytes of atoms, or hours of merging one atom into many conjunctions
MAX_NORMAL_FORM_ATOMS = 2_000_000
#: The deepest nesting of parentheses read (the formulas are read recursively).
MAX_DEPTH = 200

#: a decimal constant (ASCII: \d and str.isdigit also take other scripts' digits); read exactly
#: by the number grammar (symrel.exact.number_text)
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_VAR_1 = re.compile(r"([XY])_([0-9]+)")
_VAR_2 = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\[([0-9, \t\r\n]*)\]")
#: SMT-LIB's blanks (space, tab, line feed, carriage return; form feed and vertical tab too): a
#: Unicode space is no separator but part of a token, which is then refused (a thin space in
#: "1 000" would otherwise make two constants of one number)
_BLANKS = frozenset(BLANKS)


class _Term(NamedTuple):
    """A linear term ``sum coeffs[v] * v + const`` (``coeffs``: ``{(kind, index): c}``, kind
    ``"X"`` or ``"Y"``)."""

    coeffs: dict
    const: object


class _Atom(NamedTuple):
    """``sum coeffs[v] * v <= rhs`` as read, and ``key``: what makes two atoms the same (the
    coefficients and ``rhs`` as integers, computed once: hashing a rational costs a Fraction's
    hash)."""

    key: tuple
    coeffs: dict
    rhs: object


@dataclass
class _Node:
    """An S-expression: ``atom`` (a token) or ``items`` (a list), and its line."""

    line: int
    atom: str | None = None
    items: list | None = None

    def head(self) -> str | None:
        if self.items and self.items[0].atom is not None:
            return self.items[0].atom
        return None

    def text(self) -> str:
        if self.atom is not None:
            return self.atom
        return "(" + " ".join(i.text() for i in self.items) + ")"


def _short(node: _Node) -> str:
    t = node.text()
    return repr(t if len(t) <= 60 else t[:57] + "...")


class _Reader:
    def __init__(self, text: str, source: str, n_inputs, n_outputs):
        self.text = text
        self.source = source
        self.n_in = n_inputs
        self.n_out = n_outputs
        self.declared: dict[tuple[str, int], int] = {}  # (X|Y, index) -> line
        self.v2_names: dict[str, tuple[str, tuple[int, ...]]] = {}  # VNN-LIB 2.0 tensors
        self.version2 = False

    def fail(self, line: int, message: str, cls=InputError):
        raise cls(message, path=f"line {line}", file=self.source)

    def number(self, text: str, line: int):
        """A constant, read exactly by the number grammar; a refusal names the file and line."""
        try:
            return number_from_text(text, path=f"line {line}")
        except InputError as err:
            raise err.in_file(self.source) from None

    def integer(self, text: str, line: int, what: str = "an index"):
        """An index or a size: an ASCII integer >= 0; a refusal names the file and line."""
        try:
            return integer_from_text(text, path=f"line {line}", minimum=0)
        except LimitError as err:
            raise err.in_file(self.source) from None
        except InputError:
            self.fail(line, f"expected {what} (ASCII digits 0-9), got {text!r}{why_not_ascii(text)}")

    def index(self, digits: str, name: str, line: int) -> int:
        """The index of a variable ``X_i`` / ``Y_j``: ``i`` without a leading zero (``X_01`` is
        another symbol than ``X_1`` in SMT-LIB, undeclared, where ``int`` reads 1)."""
        if len(digits) > 1 and digits[0] == "0":
            self.fail(line, f"expected a variable named without a leading zero, got {name!r} (SMT-LIB reads it as "
                            f"another symbol than {name[:2]}{digits.lstrip('0') or '0'})")
        return self.integer(digits, line)

    # -- tokens and S-expressions ---------------------------------------------------------

    def tokens(self):
        text, i, line, n = self.text, 0, 1, len(self.text)
        while i < n:
            c = text[i]
            if c == "\n":
                line += 1
                i += 1
            elif c in _BLANKS:
                i += 1
            elif c == ";":
                while i < n and text[i] != "\n":
                    if text[i] == "\r" and text[i + 1:i + 2] != "\n":
                        # SMT-LIB (and z3) end a comment at a line feed only; the competition's reader
                        # (Python's universal newlines) also at a CR alone: what follows it would be
                        # read by one and not by the other
                        self.fail(line, "expected a comment to end at a line feed, got a carriage return alone "
                                        "inside it (read as a line break by some VNN-LIB readers, not by others)")
                    i += 1
            elif c in "()":
                yield line, c
                i += 1
            else:
                start, start_line = i, line
                while i < n and text[i] not in _BLANKS and text[i] not in "();":
                    if text[i] == "[":  # a 2.0 shape or index: spaces allowed up to "]"
                        close = text.find("]", i)
                        if close < 0:
                            self.fail(line, "expected ']' closing '['")
                        line += text.count("\n", i, close)
                        i = close
                    i += 1
                yield start_line, text[start:i]

    def forms(self) -> list[_Node]:
        stack: list[_Node] = []
        top: list[_Node] = []
        for line, tok in self.tokens():
            if tok == "(":
                if len(stack) >= MAX_DEPTH:
                    self.fail(line, f"expected at most {MAX_DEPTH} nested parentheses", cls=LimitError)
                stack.append(_Node(line, items=[]))
            elif tok == ")":
                if not stack:
                    self.fail(line, "expected '(' before this ')' (unbalanced parentheses)")
                node = stack.pop()
                (stack[-1].items if stack else top).append(node)
            else:
                node = _Node(line, atom=tok)
                if not stack:
                    self.fail(line, f"expected '(', got {tok!r} outside any form")
                stack[-1].items.append(node)
        if stack:
            self.fail(stack[-1].line, "expected ')' closing the '(' opened on this line (unbalanced parentheses)")
        return top

    # -- declarations -------------------------------------------------------------------

    def declare_const(self, form: _Node) -> None:
        items = form.items
        if len(items) != 3 or items[1].atom is None or items[2].atom is None:
            self.fail(form.line, f"expected (declare-const NAME Real), got {_short(form)}")
        name, sort = items[1].atom, items[2].atom
        if sort != "Real":
            self.fail(form.line, f"expected the sort Real for {name}, got {sort!r}")
        m = _VAR_1.fullmatch(name)
        if not m:
            self.fail(form.line, f"expected a variable named X_i (input) or Y_j (output), got {name!r}{why_not_ascii(name)}")
        key = (m.group(1), self.index(m.group(2), name, form.line))
        self.check_in_network(form.line, *key)
        if key in self.declared:
            self.fail(form.line, f"expected each variable declared once, {name} was declared on line "
                                 f"{self.declared[key]}")
        self.declared[key] = form.line

    def check_in_network(self, line: int, kind: str, index: int) -> None:
        limit = self.n_in if kind == "X" else self.n_out
        if limit is not None and index >= limit:
            what = "inputs" if kind == "X" else "outputs"
            span = f"{kind}_0 to {kind}_{limit - 1}" if limit else "none"
            self.fail(line, f"expected a variable of the network, which has {limit} {what} ({span}), "
                            f"got {kind}_{index}")

    def declare_network(self, form: _Node) -> None:
        if self.v2_names:
            self.fail(form.line, "expected one declare-network (properties over several networks are not supported)")
        if len(form.items) < 2 or form.items[1].atom is None:
            self.fail(form.line, f"expected (declare-network NAME (declare-input ...) (declare-output ...)), "
                                 f"got {_short(form)}")
        for part in form.items[2:]:
            head = part.head()
            if head not in ("declare-input", "declare-output"):
                self.fail(part.line, f"expected declare-input or declare-output, got {_short(part)}")
            if len(part.items) != 4 or any(i.atom is None for i in part.items):
                self.fail(part.line, f"expected ({head} NAME TYPE [shape]), got {_short(part)}")
            name, shape_text = part.items[1].atom, part.items[3].atom
            if not (shape_text.startswith("[") and shape_text.endswith("]")):
                self.fail(part.line, f"expected a shape such as [1, 5], got {shape_text!r}")
            shape = tuple(self.integer(s.strip(BLANKS), part.line, "a shape of integers such as [1, 5]")
                          for s in shape_text[1:-1].split(",") if s.strip(BLANKS))
            kind = "X" if head == "declare-input" else "Y"
            if any(k == kind for k, _ in self.v2_names.values()):
                self.fail(part.line, f"expected one {head} (several tensors are not supported)")
            if name in self.v2_names:
                self.fail(part.line, f"expected each variable declared once, {name} is declared twice")
            self.v2_names[name] = (kind, shape)
            size = 1
            for s in shape:
                size *= s
            self.check_in_network(part.line, kind, size - 1)
            for k in range(size):
                self.declared[(kind, k)] = part.line

    # -- terms and formulas ---------------------------------------------------------------

    def variable(self, node: _Node):
        """``(kind, index)`` of a variable token, or None when the token is not one."""
        tok = node.atom
        m = _VAR_1.fullmatch(tok)
        if m and not self.version2:
            key = (m.group(1), self.index(m.group(2), tok, node.line))
        else:
            m2 = _VAR_2.fullmatch(tok)
            if not (m2 and self.version2):
                return None
            name = m2.group(1)
            if name not in self.v2_names:
                self.fail(node.line, f"expected a declared input or output tensor, got {name!r}")
            kind, shape = self.v2_names[name]
            idx = [self.integer(s.strip(BLANKS), node.line, "integer indices") for s in m2.group(2).split(",")]
            if len(idx) != len(shape) and not (len(idx) == 1):
                self.fail(node.line, f"expected {len(shape)} indices for {name} of shape {list(shape)}, got {tok!r}")
            flat = 0
            if len(idx) == len(shape):
                for i, s in zip(idx, shape):
                    if not 0 <= i < s:
                        self.fail(node.line, f"expected indices within the shape {list(shape)} of {name}, got {tok!r}")
                    flat = flat * s + i
            else:
                flat = idx[0]
            key = (kind, flat)
        if key not in self.declared:
            self.check_in_network(node.line, *key)
            self.fail(node.line, f"expected a declared variable, {tok} is not declared")
        return key

    def term(self, node: _Node) -> _Term:
        """The linear term ``node``."""
        if node.atom is not None:
            tok = node.atom
            if _NUMBER.fullmatch(tok):
                return _Term({}, self.number(tok, node.line))
            key = self.variable(node)
            if key is None:
                if not tok.isascii():  # name the character: a Unicode digit, minus sign or space
                    raise not_a_number(tok, f"line {node.line}", "a number or a variable X_i / Y_j").in_file(self.source)
                self.fail(node.line, f"expected a number or a variable X_i / Y_j, got {tok!r}")
            return _Term({key: rational(1)}, ZERO)
        head = node.head()
        args = [self.term(a) for a in node.items[1:]]
        if head in ("+", "-", "*", "/") and not args:
            self.fail(node.line, f"expected arguments to {head}, got {_short(node)}")
        if head == "+":
            return _sum(args)
        if head == "-":
            if len(args) == 1:
                return _scale(args[0], rational(-1))
            return _sum([args[0]] + [_scale(a, rational(-1)) for a in args[1:]])
        if head == "*":
            var_args = [a for a in args if a.coeffs]
            if len(var_args) > 1:
                self.fail(node.line, f"expected a linear term (every factor but one a constant), got {_short(node)}")
            factor = rational(1)
            for coeffs, const in args:
                if not coeffs:
                    factor *= const
            return _scale(var_args[0], factor) if var_args else _Term({}, factor)
        if head == "/":
            if len(args) != 2 or args[1].coeffs or args[1].const == 0:
                self.fail(node.line, f"expected (/ term c) with a nonzero constant c, got {_short(node)}")
            return _scale(args[0], 1 / args[1].const)
        self.fail(node.line, f"expected a linear term (a number, a variable, +, -, * or /), got {_short(node)}")

    def formula(self, node: _Node) -> list:
        """The formula in disjunctive normal form: a list of lists of atoms (deduplicated)."""
        head = node.head() if node.atom is None else None
        if head == "and":
            return _product([(node, self.formula(arg)) for arg in node.items[1:]], self.too_big)
        if head == "or":
            result, atoms = [], 0
            for arg in node.items[1:]:
                part = self.formula(arg)
                result.extend(part)
                atoms += sum(map(len, part))
                if len(result) > MAX_DISJUNCTS:
                    self.too_big(node)
                if atoms > MAX_NORMAL_FORM_ATOMS:
                    self.too_big(node, atoms=True)
            return _dedupe(result)
        ops = ("<=", ">=") + (("==",) if self.version2 else ())
        if head in ops:
            if len(node.items) < 3:
                self.fail(node.line, f"expected ({head} a b), got {_short(node)}")
            terms = [self.term(a) for a in node.items[1:]]
            atoms = []
            for a, b in zip(terms, terms[1:]):
                if head in ("<=", "=="):
                    atoms.append(self.atom(a, b))
                if head in (">=", "=="):
                    atoms.append(self.atom(b, a))
            if any(a is False for a in atoms):
                return []  # a comparison of constants that fails: no disjunct
            return [_merge([], [a for a in atoms if a is not True])]
        got = node.atom if node.atom is not None else (head or _short(node))
        self.fail(node.line, f"expected {', '.join(ops)}, and or or, got {got!r}")

    def too_big(self, node: _Node, atoms: bool = False):
        what = f"{MAX_NORMAL_FORM_ATOMS} atoms" if atoms else f"{MAX_DISJUNCTS} conjunctions"
        self.fail(node.line, f"expected a normal form of at most {what}", cls=LimitError)

    def mentions_outputs(self, node: _Node) -> bool:
        """Whether an output variable occurs anywhere under ``node`` (an assert over outputs
        belongs to the unsafe condition even where its comparisons are constant)."""
        if node.atom is not None:
            key = self.variable(node) if _VAR_1.fullmatch(node.atom) or _VAR_2.fullmatch(node.atom) else None
            return key is not None and key[0] == "Y"
        return any(self.mentions_outputs(item) for item in node.items)

    def atom(self, a: _Term, b: _Term):
        """``a <= b`` as an :class:`_Atom`, or True / False when no variable is left."""
        coeffs, const = _sum([a, _scale(b, rational(-1))])
        coeffs = {k: c for k, c in coeffs.items() if c}
        if not coeffs:
            return const <= 0
        rhs = -const
        key = (tuple((k, numerator(c), denominator(c)) for k, c in sorted(coeffs.items())),
               numerator(rhs), denominator(rhs))
        return _Atom(key, coeffs, rhs)

    # -- the whole file -------------------------------------------------------------------

    def read(self) -> tuple:
        forms = self.forms()
        asserts = []
        for i, form in enumerate(forms):
            head = form.head()
            if head == "vnnlib-version" and i == 0:
                version = form.items[1].atom if len(form.items) == 2 else None
                if version not in ("<2.0>", "2.0", "<2>", "2"):
                    self.fail(form.line, f"expected (vnnlib-version <2.0>), got {_short(form)}")
                self.version2 = True
            elif head == "declare-network" and self.version2:
                self.declare_network(form)
            elif head == "declare-const" and not self.version2:
                self.declare_const(form)
            elif head == "assert":
                if len(form.items) != 2:
                    self.fail(form.line, f"expected (assert FORMULA), got {_short(form)}")
                asserts.append(form)
            else:
                decl = "declare-network" if self.version2 else "declare-const"
                self.fail(form.line, f"expected ({decl} ...) or (assert ...), got {_short(form)}")
        n_in = self.n_in if self.n_in is not None else 1 + max((i for k, i in self.declared if k == "X"), default=-1)
        n_out = self.n_out if self.n_out is not None else 1 + max((i for k, i in self.declared if k == "Y"), default=-1)
        if n_in == 0:
            self.fail(forms[0].line if forms else 1, "expected at least one input variable X_0")
        region_forms, unsafe_forms = [], []
        for form in asserts:
            dnf = self.formula(form.items[1])
            (unsafe_forms if self.mentions_outputs(form) else region_forms).append((form, dnf))

        unsafe = _product(unsafe_forms, self.too_big)
        if region_forms:
            region = _product(region_forms, self.too_big)
            if not region:  # only constant comparisons can empty a DNF: the file says nothing to verify
                line = next((f.line for f, dnf in region_forms if not dnf), region_forms[0][0].line)
                self.fail(line, "expected an input region that is not empty by its constant comparisons")
        else:  # the (or (and X-box Y-condition) ...) form: the region is the union of the X parts
            region = _dedupe([[a for a in conj if all(k == "X" for k, _ in a.coeffs)] for conj in unsafe])
            if not region:
                self.fail(asserts[0].line if asserts else 1,
                          "expected an input region that is not empty by its constant comparisons")
        common = set.intersection(*(set(_key(a) for a in conj) for conj in region)) if region else set()
        unsafe = _dedupe([[a for a in conj if _key(a) not in common] for conj in unsafe])

        def build(conj):
            out = []
            for _, coeffs, rhs in conj:
                x = [ZERO] * n_in
                y = [ZERO] * n_out
                for (kind, idx), c in coeffs.items():
                    (x if kind == "X" else y)[idx] = c
                out.append(LinearAtom(tuple(x), tuple(y), rhs))
            return tuple(out)

        return n_in, n_out, tuple(build(c) for c in region), tuple(build(c) for c in unsafe)


def _sum(terms) -> _Term:
    coeffs: dict = {}
    const = ZERO
    for c, k in terms:
        for key, v in c.items():
            coeffs[key] = coeffs.get(key, ZERO) + v
        const += k
    return _Term(coeffs, const)


def _scale(term: _Term, factor) -> _Term:
    coeffs, const = term
    return _Term({k: v * factor for k, v in coeffs.items()}, const * factor)


def _key(atom: _Atom):
    """What makes two atoms the same (computed once, when the atom is made)."""
    return atom.key


def _product(parts, too_big) -> list:
    """The conjunction of DNFs, as a DNF: ``parts`` is ``[(node, dnf), ...]``; ``too_big(node)``
    is called (and raises) when the product would pass :data:`MAX_DISJUNCTS` conjunctions, and
    ``too_big(node, atoms=True)`` when it would pass :data:`MAX_NORMAL_FORM_ATOMS` atoms or take
    more than :data:`MAX_NORMAL_FORM_ATOMS` steps (each conjunction so far meeting each atom of
    a part: an atom repeated on many conjunctions costs as much, added or not). Each conjunction
    grows with the set of its atoms' keys, so an atom is hashed once, not once per merge."""
    result = [([], set())]
    total = steps = 0   # the atoms of result, the atoms met so far
    for node, dnf in parts:
        if len(result) * len(dnf) > MAX_DISJUNCTS:
            too_big(node)
        # every conjunction so far meets every conjunction of dnf: bounded before it is done
        meets = len(result) * sum(map(len, dnf))
        steps += meets
        if total * len(dnf) + meets > MAX_NORMAL_FORM_ATOMS or steps > MAX_NORMAL_FORM_ATOMS:
            too_big(node, atoms=True)
        grown = []
        for base_atoms, base_keys in result:
            for k, conj in enumerate(dnf):
                # a copy for each disjunct but the last, which may take the conjunction itself
                atoms, keys = (list(base_atoms), set(base_keys)) if k < len(dnf) - 1 else (base_atoms, base_keys)
                for atom in conj:
                    if atom.key not in keys:
                        keys.add(atom.key)
                        atoms.append(atom)
                grown.append((atoms, keys))
        result = grown
        total = sum(len(atoms) for atoms, _ in result)
    return _dedupe([atoms for atoms, _ in result])


def _merge(a: list, b: list) -> list:
    seen = {_key(x) for x in a}
    out = list(a)
    for x in b:
        if _key(x) not in seen:
            seen.add(_key(x))
            out.append(x)
    return out


def _dedupe(dnf: list) -> list:
    seen, out = set(), []
    for conj in dnf:
        key = frozenset(_key(a) for a in conj)
        if key not in seen:
            seen.add(key)
            out.append(conj)
    return out


def read_vnnlib_text(text: str, *, source: str = "inline", n_inputs: int | None = None,
                     n_outputs: int | None = None, sha256: str | None = None) -> VnnProperty:
    """Read VNN-LIB text (see the module docstring); ``source`` names it in errors.
    ``n_inputs`` / ``n_outputs``, when given, are the network's sizes: a variable
    beyond them is refused, and absent ones get zero coefficients."""
    if sha256 is None:
        sha256 = hashlib.sha256(text.encode("utf-8")).hexdigest()
    n_in, n_out, region, unsafe = _Reader(text, source, n_inputs, n_outputs).read()
    return VnnProperty(n_in, n_out, region, unsafe, sha256=sha256, source=source)


def read_vnnlib(path, n_inputs: int | None = None, n_outputs: int | None = None) -> VnnProperty:
    """Read the VNN-LIB file at ``path`` exactly; ``sha256`` is the digest of its bytes.

    Every error names the file and the line (:class:`~symrel.errors.InputError`).
    """
    from ..fileformat.reading import read_bytes

    path = Path(path)
    data = read_bytes(path)   # bounded: a device is refused, a file beyond the file-size limit too
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise InputError("expected UTF-8 text", path=f"line {line}", file=str(path)) from None
    return read_vnnlib_text(text, source=str(path), n_inputs=n_inputs, n_outputs=n_outputs,
                            sha256=hashlib.sha256(data).hexdigest())
