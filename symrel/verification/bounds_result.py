"""The answer of :func:`symrel.bounds`: :class:`OutputBounds`, one :class:`OutputBound` per output.

For each output ``j`` asked, ``lower <= Y_j(x) <= upper`` for every ``x`` of the region: exact
rationals, certified by the ``output-bounds`` certificate that the trusted checker accepted
(``checked``). Beside them, the exact points found nearest to each bound: ``least`` (the least
value of ``Y_j`` found at a point of the region, with the point) and ``greatest``; so the true
minimum lies in ``[lower, least.y]`` and the true maximum in ``[greatest.y, upper]``. A bound
equal to its point's value is *attained*: it is the minimum (maximum) itself.

``bool(result)`` is true when the bounds were checked by the trusted checker. ``limit`` says
what stopped the search before every bound was attained (``"time"``, ``"nodes"``, a size limit
of the trusted checker, ``"no branching"`` without a timeout or node budget; None: every
bound attained), and ``stage`` where a limit came that left the bounds unchecked (``"import"``:
no bounds at all; ``"check"``: bounds computed, their check not finished).

>>> from symrel.exact import Q
>>> b = OutputBound(0, Q(-1), Q(2), (Q(-1), (Q(0),)), (Q(3, 2), (Q(1),)))
>>> b.lower_attained, b.upper_attained, b.lower, b.least.x
(True, False, -1, (0,))
>>> r = OutputBounds([b], checked=True, limit="nodes", stats={"leaves": 5, "seconds": 0.5})
>>> r, bool(r)
(<OutputBounds: 1 output, 1 of 2 bounds attained, certificate checked, 5 leaves, 0.5 s>, True)
"""

from __future__ import annotations

from ..exact import format_rational
from ..exact.displayed import Displayed

#: what each limit of the search is, in words
LIMIT_WORDS = {
    "time": "the time limit (timeout)",
    "nodes": "the node budget",
    "no branching": "no time limit or node budget given: the bounds of the whole box, without branching",
    "tree entries": "the trusted checker's limit on a certificate's tree: a larger one would be refused",
    "leaf operations": "the trusted checker's limit on the cost of a certificate's leaves: a larger one would be "
                       "refused",
    "relaxation bits": "the trusted checker's limit on the size of a leaf's numbers",
}


class Point:
    """An exact point of the region, ``x``, and the output's exact value there, ``y`` (sympy
    ``Rational``; ``exact_x``, ``exact_y``: symrel's own rationals)."""

    __slots__ = ("exact_x", "exact_y")

    def __init__(self, y, x):
        self.exact_y, self.exact_x = y, tuple(x)

    @property
    def x(self) -> tuple:
        from ..exact import to_sympy

        return tuple(to_sympy(v) for v in self.exact_x)

    @property
    def y(self):
        from ..exact import to_sympy

        return to_sympy(self.exact_y)

    def __eq__(self, other):
        return type(other) is Point and (self.exact_x, self.exact_y) == (other.exact_x, other.exact_y)

    __hash__ = None

    def __repr__(self):
        x = ", ".join(str(format_rational(v)) for v in self.exact_x)
        return f"Point(y = {format_rational(self.exact_y)} at x = ({x}))"

    def to_json(self) -> dict:
        return {"value": format_rational(self.exact_y), "x": [format_rational(v) for v in self.exact_x]}


class OutputBound:
    """The bounds of one output ``j``: ``lower``, ``upper`` (sympy ``Rational``; ``exact_lower``,
    ``exact_upper``: symrel's), the points ``least`` and ``greatest`` found (:class:`Point`, or
    None), and whether each bound is attained."""

    def __init__(self, output: int, lower, upper, least=None, greatest=None):
        self.output = output
        self.exact_lower, self.exact_upper = lower, upper
        self.least = None if least is None or isinstance(least, Point) else Point(*least)
        self.greatest = None if greatest is None or isinstance(greatest, Point) else Point(*greatest)

    @property
    def lower(self):
        from ..exact import to_sympy

        return to_sympy(self.exact_lower)

    @property
    def upper(self):
        from ..exact import to_sympy

        return to_sympy(self.exact_upper)

    @property
    def lower_attained(self) -> bool:
        """Whether ``lower`` is the minimum of ``Y_j`` over the region (reached at ``least.x``)."""
        return self.least is not None and self.least.exact_y == self.exact_lower

    @property
    def upper_attained(self) -> bool:
        """Whether ``upper`` is the maximum of ``Y_j`` over the region (reached at ``greatest.x``)."""
        return self.greatest is not None and self.greatest.exact_y == self.exact_upper

    def __repr__(self):
        return f"OutputBound({self.output}: {format_rational(self.exact_lower)} <= Y_{self.output} <= " \
               f"{format_rational(self.exact_upper)})"

    def to_json(self) -> dict:
        out = {"output": self.output, "lower": format_rational(self.exact_lower),
               "upper": format_rational(self.exact_upper), "lower_attained": self.lower_attained,
               "upper_attained": self.upper_attained}
        if self.least is not None:
            out["least"] = self.least.to_json()
        if self.greatest is not None:
            out["greatest"] = self.greatest.to_json()
        return out


class OutputBounds(Displayed):
    """The answer of :func:`symrel.bounds` (module docstring). ``outputs``: the
    :class:`OutputBound` of each output asked, in order; ``certificate`` (a dict),
    ``checked``, ``certificate_sha256`` (of its canonical text, the bytes of the file
    written); ``limit``, ``stage``; ``stats`` (JSON values: ``nodes``, ``leaves``, the times of
    the stages ``import_seconds``, ``search_seconds``, ``check_seconds``, ``seconds`` in all,
    ``workers``); ``files``: the network's and the region's file names and the sha256 of their
    bytes; ``notes``: what was read but not used (a property's output constraints)."""

    def __init__(self, outputs, *, certificate: dict | None = None, checked: bool = False,
                 certificate_sha256: str | None = None, limit: str | None = None, stage: str | None = None,
                 stats: dict | None = None, files: dict | None = None, notes=()):
        self.outputs = list(outputs)
        self.certificate, self.checked, self.certificate_sha256 = certificate, checked, certificate_sha256
        self.limit, self.stage = limit, stage
        self.stats = {} if stats is None else stats
        self.files = {} if files is None else files
        self.notes = list(notes)

    def __bool__(self) -> bool:
        """True when the bounds were checked by the trusted checker."""
        return bool(self.checked)

    def __getitem__(self, j: int) -> OutputBound:
        """The bounds of output ``j`` (by its index in the network, not its place in the list)."""
        for b in self.outputs:
            if b.output == j:
                return b
        raise KeyError(f"output {j} was not bounded (bounded: {[b.output for b in self.outputs]})")

    def __eq__(self, other):
        return type(other) is OutputBounds and self.to_json() == other.to_json()

    __hash__ = None

    @property
    def attained(self) -> int:
        """How many bounds (lower and upper sides counted apart) are attained."""
        return sum(b.lower_attained + b.upper_attained for b in self.outputs)

    def why(self) -> str:
        """What stopped the search, in words ('' when every bound is attained)."""
        words = LIMIT_WORDS.get(self.limit or "", str(self.limit)) if self.limit else ""
        if self.stage == "check":
            done = self.stats.get("leaves_checked")
            words += ("; " if words else "") + "the trusted check of the certificate did not finish in the time left" \
                + (f" ({done} of {self.stats.get('leaves', '?')} leaves checked)" if done is not None else "")
        elif self.stage == "import":
            words = "the time ran out while reading the network and the region: no bounds"
        return words

    def _summary(self) -> str:
        n = len(self.outputs)
        parts = [f"{n} output{'s' if n != 1 else ''}"]
        if n:
            parts.append(f"{self.attained} of {2 * n} bounds attained")
        parts.append("certificate checked" if self.checked else
                     "not checked" + (f" ({self.stage})" if self.stage else ""))
        if "leaves" in self.stats:
            parts.append(f"{self.stats['leaves']} leaves")
        if "seconds" in self.stats:
            parts.append(f"{self.stats['seconds']} s")
        return ", ".join(parts)

    def _card(self):
        from ..exact.display import Card

        fields = []
        for role in ("network", "region"):
            f = self.files.get(role)
            if f:
                fields.append((role, f"{f['name']} (sha256 {f['sha256'][:16]})"))
        fields.append(("certificate", ("checked by the trusted checker" if self.checked else "not checked")
                       + (f", sha256 {self.certificate_sha256}" if self.certificate_sha256 else "")))
        if self.limit or self.stage:
            fields.append(("stopped", self.why()))
        fields += [("note", note) for note in self.notes]
        rows = []
        for b in self.outputs:
            rows.append([f"Y_{b.output}", b.exact_lower, _found(b.least), _found(b.greatest), b.exact_upper,
                         _exact_words(b)])
        return Card(f"Output bounds: {self._summary()}", fields,
                    ["output", "lower", "least found", "greatest found", "upper", "attained"], rows)

    def to_json(self) -> dict:
        """The result as JSON data (exact numbers as strings, docs/format.md): what ``symrel
        bounds --json`` prints, without the command's own keys."""
        out = {"bounds": [b.to_json() for b in self.outputs], "checked": bool(self.checked),
               "stats": dict(self.stats)}
        if self.certificate_sha256:
            out["certificate_sha256"] = self.certificate_sha256
        if self.files:
            out["files"] = {role: dict(f) for role, f in self.files.items()}
        if self.limit:
            out["limit"] = self.limit
        if self.stage:
            out["stage"] = self.stage
        if self.notes:
            out["notes"] = list(self.notes)
        return out


def _found(point) -> object:
    return "" if point is None else point.exact_y


def _exact_words(b: OutputBound) -> str:
    sides = [s for s, yes in (("min", b.lower_attained), ("max", b.upper_attained)) if yes]
    return " and ".join(sides) if sides else "no"
