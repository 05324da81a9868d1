"""The answer of :func:`symrel.verify`: a :class:`Verdict`.

``result`` is one of

* ``"unsat"``: no input of the property's region meets its unsafe condition; the
  ``vnnlib-unsat`` ``certificate`` was checked by the trusted checker (``checked``) before
  the verdict was made;
* ``"sat"``: ``witness`` is an exact input of the region whose exact outputs (the network's
  own exact semantics, evaluated once more after the search) meet the unsafe condition;
* ``"unknown"``: a limit came first: ``limit`` names it (``"time"``, or one of the trusted
  checker's size limits, docs/format.md) and ``stage`` where it came (``"import"``,
  ``"search"`` or ``"check"``: a search that closed the whole region and whose certificate's
  check did not finish in the time left is unknown, naming the check).

``bool(verdict)`` is true only for ``"unsat"``, so that ``if symrel.verify(net, prop):``
takes the proved branch alone. ``stats`` holds JSON values: the search's figures (``nodes``,
``splits``, ``leaves``, ``covered``: the exact fraction of the region's volume closed, written
as in a JSON file, ``1`` or ``"3/4"``) and the times of each stage (``import_seconds``,
``search_seconds``, ``check_seconds``, ``seconds`` in all), measured by the verification's own
clock, and the CPU time this process spent in each (``import_cpu_seconds``, ``search_cpu_seconds``,
``check_cpu_seconds``: worker processes not counted, so the figures of a serial run). Beside ``stats``, other results (output bounds,
say) can be added to a verdict as further fields without changing these.

>>> v = Verdict("unknown", limit="time", stage="search", open_leaves=3, covered=Q(3, 4),
...             stats={"nodes": 9, "seconds": 1.5})
>>> v, bool(v)
(<Verdict: unknown (time, during the search), 3/4 of the region covered, 3 leaves open, 9 nodes, 1.5 s>, False)
>>> print(Verdict("sat", witness=((Q(1, 2),), (Q(3),)), stats={"nodes": 1}).witness)
x = (1/2), y = (3)
"""

from __future__ import annotations

from ..exact import Q, ZERO, format_rational
from ..exact.displayed import Displayed

RESULTS = ("unsat", "sat", "unknown")

#: what each limit is, in words (the verdict's ``limit``)
LIMIT_WORDS = {
    "time": "the time limit (timeout)",
    "tree entries": "the trusted checker's limit on a certificate's tree: a larger one would be refused",
    "leaf operations": "the trusted checker's limit on the cost of a certificate's leaves: a larger one would be "
                       "refused",
    "relaxation bits": "the trusted checker's limit on the size of a leaf's numbers: the network's or the region's "
                       "numbers are too large for a certificate it accepts",
}

#: what each stage is, in words (the verdict's ``stage``)
STAGE_WORDS = {"import": "reading the network and the property", "search": "the search",
               "check": "the trusted check of the certificate"}


class Witness:
    """An exact counterexample: ``x`` the input, ``y = N(x)`` the exact outputs, as sympy
    ``Rational`` (``exact_x``, ``exact_y``: symrel's own rationals)."""

    __slots__ = ("exact_x", "exact_y")

    def __init__(self, x, y):
        self.exact_x, self.exact_y = tuple(x), tuple(y)

    @property
    def x(self) -> tuple:
        from ..exact import to_sympy

        return tuple(to_sympy(v) for v in self.exact_x)

    @property
    def y(self) -> tuple:
        from ..exact import to_sympy

        return tuple(to_sympy(v) for v in self.exact_y)

    def __eq__(self, other):
        return type(other) is Witness and (self.exact_x, self.exact_y) == (other.exact_x, other.exact_y)

    __hash__ = None

    def __repr__(self):
        return "Witness(" + str(self) + ")"

    def __str__(self):
        def point(values):
            return "(" + ", ".join(str(format_rational(v)) for v in values) + ")"

        return f"x = {point(self.exact_x)}, y = {point(self.exact_y)}"


class Verdict(Displayed):
    """The answer of a verification (module docstring). ``certificate``: the
    ``vnnlib-unsat`` certificate (a dict) of an unsat verdict, and of an unknown one whose
    check did not finish; ``checked``: whether the trusted checker accepted it (None: no
    certificate); ``certificate_sha256``: the sha256 of its canonical text, the bytes of the
    file :func:`symrel.verify` writes; ``files``: ``{"network": {"name", "sha256"}, "property":
    {...}}`` for the inputs read from files (the bytes' sha256); ``open_leaves``: the boxes
    left open (a count); ``covered``: the exact fraction of the region closed."""

    def __init__(self, result: str, *, witness=None, certificate: dict | None = None, checked: bool | None = None,
                 certificate_sha256: str | None = None, limit: str | None = None, stage: str | None = None,
                 open_leaves: int = 0, covered=ZERO, stats: dict | None = None, files: dict | None = None):
        if result not in RESULTS:
            raise ValueError(f"result must be one of {RESULTS}, got {result!r}")
        if witness is not None and not isinstance(witness, Witness):
            witness = Witness(*witness)
        self.result, self.exact_witness = result, witness
        self.certificate, self.checked, self.certificate_sha256 = certificate, checked, certificate_sha256
        self.limit, self.stage = limit, stage
        self.open_leaves, self.exact_covered = open_leaves, covered
        self.stats = {} if stats is None else stats
        self.files = {} if files is None else files

    @property
    def witness(self) -> Witness | None:
        """The counterexample of a sat verdict (:class:`Witness`), else None."""
        return self.exact_witness

    @property
    def covered(self):
        """The fraction of the region's volume closed by the search, a sympy ``Rational``."""
        from ..exact import to_sympy

        return to_sympy(self.exact_covered)

    def __bool__(self) -> bool:
        """True only for an unsat verdict.

        >>> bool(Verdict("unsat", checked=True)), bool(Verdict("sat", witness=((Q(0),), (Q(0),))))
        (True, False)
        """
        return self.result == "unsat"

    def __eq__(self, other):
        return type(other) is Verdict and self.to_json() == other.to_json()

    __hash__ = None

    def why(self) -> str:
        """Why an unknown verdict is unknown, in words ('' otherwise)."""
        if self.result != "unknown":
            return ""
        words = LIMIT_WORDS.get(self.limit or "", str(self.limit))
        where = f", during {STAGE_WORDS.get(self.stage, self.stage)}" if self.stage else ""
        done = self.stats.get("leaves_checked")
        if self.stage == "check" and done is not None:
            where += f" ({done} of {self.stats.get('leaves', '?')} leaves checked)"
        return f"stopped at {words}{where}"

    def _summary(self) -> str:
        parts = [self.result]
        if self.result == "unsat":
            parts[0] += ", certificate " + ("checked" if self.checked else "not checked")
        elif self.result == "unknown":
            parts[0] += f" ({self.limit}, during the {self.stage})" if self.stage else f" ({self.limit})"
            parts.append(f"{_fraction_text(self.exact_covered)} of the region covered")
            parts.append(f"{self.open_leaves} leaves open")
        if "nodes" in self.stats:
            parts.append(f"{self.stats['nodes']} nodes")
        if "seconds" in self.stats:
            parts.append(f"{self.stats['seconds']} s")
        return ", ".join(parts)

    def _card(self):
        from ..exact.display import Card

        fields = []
        for role in ("network", "property"):
            f = self.files.get(role)
            if f:
                fields.append((role, f"{f['name']} (sha256 {f['sha256'][:16]})"))
        if self.result == "unsat":
            fields.append(("result", "unsat: no input of the region meets the unsafe condition"))
            fields.append(("certificate", ("checked by the trusted checker" if self.checked else "not checked")
                           + (f", sha256 {self.certificate_sha256}" if self.certificate_sha256 else "")))
        elif self.result == "sat":
            fields += [("result", "sat: an exact counterexample"), ("x", list(self.witness.exact_x)),
                       ("y = N(x)", list(self.witness.exact_y))]
        else:
            fields += [("result", "unknown: " + self.why()), ("covered", self.exact_covered),
                       ("open leaves", self.open_leaves)]
        rows = [(k, _stat_text(v)) for k, v in self.stats.items()]
        return Card(f"Verdict: {self.result}", fields, ["statistic", "value"], rows)

    def to_json(self) -> dict:
        """The verdict as JSON data (exact numbers as strings, docs/format.md): what
        ``symrel verify --json`` prints, without the command's own keys."""
        out = {"result": self.result, "stats": {k: _stat_json(v) for k, v in self.stats.items()}}
        if self.files:
            out["files"] = {role: dict(f) for role, f in self.files.items()}
        if self.witness is not None:
            out["witness"] = [format_rational(v) for v in self.witness.exact_x]
            out["outputs"] = [format_rational(v) for v in self.witness.exact_y]
        if self.certificate is not None:
            out["certificate_sha256"] = self.certificate_sha256
            out["checked"] = bool(self.checked)
        if self.result == "unknown":
            out.update(limit=self.limit, stage=self.stage, open_leaves=self.open_leaves,
                       covered=format_rational(self.exact_covered))
        return out


def _fraction_text(q) -> str:
    text = str(format_rational(q))
    if len(text) <= 12:
        return text
    from ..exact.display import decimal_text

    return f"~{decimal_text(q * 100, 4)}%"


def _stat_text(v) -> str:
    """A statistic for reading: an exact fraction too long to read as a percentage."""
    from ..exact import rational
    from ..exact import is_rational_text

    if Q.of_type(v):
        return _fraction_text(v)
    if isinstance(v, str) and len(v) > 12 and is_rational_text(v):
        return _fraction_text(rational(v))
    return str(v)


def _stat_json(v):
    return format_rational(v) if Q.of_type(v) else v
