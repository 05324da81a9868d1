"""The lowered program of a model: the one intermediate representation every analysis reads.

A *program* is a list of named stages, each a short list of typed operations on a state
(a vector of numbers for a net; ``T`` token columns of ``m`` numbers for a Transformer):

* :class:`Affine` ``x -> W x + b``; :class:`Relu` ``max(x, 0)`` entrywise;
* :class:`Maxout` the state split into consecutive groups of sizes ``ranks``, each
  replaced by its maximum (a maxout layer, after the affine map onto all its pieces);
* :class:`Segment` a CPWL function of one variable: which segment holds x, then its piece;
* :class:`Simplices` a CPWL function on a simplicial mesh: which simplex holds x, then its piece;
* :class:`Embed` ``x -> Z``, token t is ``offsets[:, t] + E x``;
* :class:`AttentionOp` ``Z + sum_h W_O V_h sigma(S_h)`` (heads, rule, scale);
* :class:`FeedForwardOp` ``Z + W2 ReLU(W1 Z + b1) + b2`` token by token;
* :class:`ReadoutOp` ``W z_token + b``.

The exact prover (:mod:`symrel.prover`), the region enumeration
(:mod:`symrel.regions.program_to_decisions`), the softmax ranges (:mod:`symrel.softmax.ranges`)
and the float back-ends (:mod:`symrel.interop`) each run these operations their own way
(symbolically, by decisions, by intervals, in floats); none of them lowers a model
itself. Weights are the models' own exact matrices, shared, not copied.

>>> from symrel.lowering import lower
>>> from symrel.models import ReLUNet, DenseLayer
>>> p = lower(ReLUNet(1, [DenseLayer([[2], [2]], [0, -1]), DenseLayer([[1, -2]], [0], "none")]))
>>> [(s.name, [type(op).__name__ for op in s.ops]) for s in p.stages]
[('layers[0]', ['Affine', 'Relu']), ('layers[1]', ['Affine'])]
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from ..exact import Matrix, Rational, from_rationals


class Affine(NamedTuple):
    """``x -> W x + b`` (``b`` a column)."""

    W: Matrix
    b: Matrix


class Relu:
    """``max(x, 0)`` entrywise. (A plain class: a named tuple without fields would be false.)"""

    __slots__ = ()

    def __eq__(self, other):
        return type(other) is Relu

    def __hash__(self):
        return hash(Relu)

    def __repr__(self):
        return "Relu()"


class Maxout(NamedTuple):
    """The state, of size ``sum(ranks)``, split into consecutive groups of sizes
    ``ranks``; group u replaced by its maximum (unit u of a maxout layer)."""

    ranks: tuple[int, ...]


class Segment(NamedTuple):
    """A CPWL function of one variable with breakpoints ``x`` and, on segment s
    (``x[s] <= t <= x[s+1]``), the piece ``pieces[s] = (a, c)``, ``a t + c``."""

    x: list[Rational]
    pieces: list[tuple[Rational, Rational]]


class Simplices(NamedTuple):
    """A CPWL function on a simplicial mesh in R^d: simplex k is ``{x : lambda(x) >= 0}``,
    where ``barycentric[k]`` lists its d + 1 barycentric coordinates as rows ``[a_1 .. a_d, c]``
    (``lambda_i(x) = a . x + c``); on it output o is ``pieces[k][o] = (a, c)``, ``a . x + c``.
    The simplices form a conforming mesh; the function is defined on their union."""

    barycentric: list[list[list[Rational]]]
    pieces: list[list[tuple[list[Rational], Rational]]]


class Embed(NamedTuple):
    """``x (d) -> Z (m x T)``: token t is ``offsets[:, t] + E x``; ``E`` puts input i in
    row ``input_rows[i]``."""

    E: Matrix  # m x d
    offsets: Matrix  # m x T
    input_rows: tuple[int, ...]


class Head(NamedTuple):
    """The four matrices of an attention head (unpacks as ``WQ, WK, WV, WO``)."""

    WQ: Matrix
    WK: Matrix
    WV: Matrix
    WO: Matrix


class AttentionOp(NamedTuple):
    """``Z + sum_h W_O W_V Z sigma(S_h)`` with ``S_h[s, t] = (W_K z_s) . (W_Q z_t)``;
    ``rule`` is ``"hardmax"`` or ``"softmax"`` (with ``scale``)."""

    heads: list[Head]
    rule: str
    scale: Rational | None = None


class FeedForwardOp(NamedTuple):
    """``Z + W2 ReLU(W1 Z + b1) + b2`` token by token."""

    W1: Matrix
    b1: Matrix
    W2: Matrix
    b2: Matrix

    @property
    def hidden(self) -> int:
        return self.W1.shape[0]

    def matrices(self):
        return self.W1, self.b1, self.W2, self.b2


class ReadoutOp(NamedTuple):
    """``W z_token + b``: the outputs read off one token."""

    token: int
    W: Matrix
    b: Matrix


class Stage(NamedTuple):
    """A named step of the program (a layer or a sublayer); ``block`` is the
    Transformer block it belongs to (None elsewhere)."""

    name: str
    ops: list
    block: int | None = None


class Program:
    """A lowered model: ``kind``, ``input_dim``, ``output_dim``, ``stages``; ``tokens``,
    ``width`` and ``blocks`` for Transformers (None for nets); for a CPWL function,
    ``lattice`` is the program of its lattice form (a maxout net), for the consumers
    that do not branch on segments or simplices, read through :meth:`lattice_program`
    (the mesh, whose lattice form is costly, gives ``build_lattice`` instead: built on
    first use). ``source`` is the model lowered (a reference).

    The operations and stages are named tuples and this a plain class, not dataclasses: a
    ``symrel prove`` process creates them all, and a dataclass costs a compilation of its
    methods when it is defined (docs/benchmarks.md, "The small claims as whole processes")."""

    def __init__(self, kind: str, input_dim: int, output_dim: int, stages: list[Stage], tokens: int | None = None,
                 width: int | None = None, blocks: int | None = None, lattice: "Program | None" = None,
                 source: object = None, notes: list[str] | None = None, build_lattice: Callable | None = None):
        self.kind, self.input_dim, self.output_dim, self.stages = kind, input_dim, output_dim, stages
        self.tokens, self.width, self.blocks = tokens, width, blocks
        self.lattice, self.source, self.build_lattice = lattice, source, build_lattice
        self.notes = [] if notes is None else notes

    def _compared(self):
        return (self.kind, self.input_dim, self.output_dim, self.stages, self.tokens, self.width, self.blocks,
                self.lattice, self.source, self.notes)

    def __eq__(self, other):
        return type(other) is type(self) and self._compared() == other._compared()

    __hash__ = None  # mutable (the lattice program is built on first use)

    def __repr__(self):
        return (f"Program(kind={self.kind!r}, input_dim={self.input_dim}, output_dim={self.output_dim}, "
                f"stages=[{len(self.stages)} stages])")

    def with_stages(self, stages: list) -> "Program":
        """A copy of this program with other ``stages`` (the float back-ends' programs)."""
        copy = Program.__new__(Program)
        copy.__dict__.update(self.__dict__, stages=stages)
        return copy

    def lattice_program(self) -> "Program | None":
        """The program of the lattice form (None for kinds without one), built once."""
        if self.lattice is None and self.build_lattice is not None:
            self.lattice = self.build_lattice()
        return self.lattice

    def block_stages(self, b: int) -> list[Stage]:
        """The stages of Transformer block b, in order."""
        return [s for s in self.stages if s.block == b]

    def parameters(self):
        """``(path, matrix)`` for every weight matrix and bias of the program."""
        for st in self.stages:
            for op in st.ops:
                base = st.name  # at most one operation with parameters per stage
                if isinstance(op, (Affine, ReadoutOp)):
                    yield f"{base}.W", op.W
                    yield f"{base}.b", op.b
                elif isinstance(op, Embed):
                    yield f"{base}.E", op.E
                    yield f"{base}.offsets", op.offsets
                elif isinstance(op, FeedForwardOp):
                    for nm in ("W1", "b1", "W2", "b2"):
                        yield f"{base}.{nm}", getattr(op, nm)
                elif isinstance(op, AttentionOp):
                    for h, mats in enumerate(op.heads):
                        for nm, M in zip(("WQ", "WK", "WV", "WO"), mats):
                            yield f"{base}.heads[{h}].{nm}", M
                    if op.scale is not None:
                        yield f"{base}.scale", from_rationals([[op.scale]], (1, 1))
