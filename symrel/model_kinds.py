"""The model kinds: one :class:`ModelKind` record per kind, the one place a kind says how it
is read, written, lowered, executed by the prover and described.

A kind's record lives in a module of its own, ``PACKAGE.NAME`` (``-`` in the name read as
``_``), in a package of kind modules named with :func:`register_kind_package` (the package
root names :mod:`symrel.kinds`). The record is found by the kind's name the first time it
is asked for: :func:`get` imports the module, whose :func:`register` call fills the table.
So a new kind is one new module; the analyses below the kind modules (the file format, the
lowering, the region enumeration, the prover) look their kind's functions up here, and never
import the kind modules by name. (The certificate checker keeps its own table of model
semantics on purpose: see docs/trust.md.)

Every function of a record may be a :class:`Lazy` reference, imported when first called, so
that looking a kind up loads nothing of the analyses it does not run.

This module imports only :mod:`symrel.errors` and :mod:`symrel.kind_plugins`.

>>> kind = get("maxout")
>>> kind.name, kind.summary, kind.continuous
('maxout', 'a maxout net', True)
>>> from symrel.models import CPWL1D
>>> model_kind(CPWL1D([0, 1], [0, 1])).name
'cpwl1d'
>>> model_kind("a string")
Traceback (most recent call last):
...
symrel.errors.InputError: kind: expected a model (one of cpwl, cpwl1d, layered, maxout, relu, transformer), got str
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from typing import Any, Callable, NamedTuple

from . import kind_plugins
from .errors import InputError


class Lazy:
    """A function named by its module and name, imported on its first call.

    >>> f = Lazy("fractions", "Fraction")
    >>> f(1, 2), f
    (Fraction(1, 2), Lazy('fractions', 'Fraction'))
    """

    __slots__ = ("module", "name", "_fn")

    def __init__(self, module: str, name: str):
        self.module, self.name, self._fn = module, name, None

    def __call__(self, *args, **kwargs):
        if self._fn is None:
            self._fn = getattr(importlib.import_module(self.module), self.name)
        return self._fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Lazy({self.module!r}, {self.name!r})"


class ModelKind(NamedTuple):
    """What symrel knows about one model kind. Only ``name``, ``model`` and ``summary`` are
    required; a missing function means the kind does not support that operation (the caller
    says so with an :class:`~symrel.errors.InputError` naming the kind).

    - ``name``: the file format's ``kind``; ``model``: the class of its models (its ``kind``
      attribute is ``name``); ``summary``: what one model is, in words ("a maxout net").
    - ``read(obj, path) -> model`` and ``write(model) -> dict``: the file format's reader and
      writer (a kind of the file format's own is read by :mod:`symrel.fileformat.models_io`,
      which the checker's reader shares, and names nothing here).
    - ``lower(model) -> Program``: its program (:mod:`symrel.lowering`), which the region
      enumeration, the softmax ranges and the float back-ends read.
    - ``forms(model, ctx) -> [AffineForm]``: the prover's symbolic execution
      (:mod:`symrel.prover.equivalence`), certifying its own steps into ``ctx``.
    - ``describe(model) -> str``: the model in a claim's words ("a maxout net (widths [2], ...)").
    - ``info(model, budget) -> dict``: what ``symrel info`` prints (default: ``model.sizes()``).
    - ``to_maxout(model) -> MaxoutNet``: its maxout form (the compiler, the float back-ends).
    - ``to_layered(model) -> LayeredNet``: its layered form (the layered verification engine).
    - ``trace(model, X, hardmax_rule) -> [(stage, matrix)]``: the exact state after each stage
      of its program on a batch (:mod:`symrel.interop.exact_trace`).
    - ``restrict_to_slice(model, inner) -> model``: the model composed with an affine map
      ``u -> x0 + P u`` (:mod:`symrel.regions.slices`).
    - ``continuous``: every model of the kind is continuous (a hardmax Transformer need not be).
    - ``support``: its models are defined on a part of R^d only (a CPWL mesh): then
      ``check_domain(model, domain)`` refuses a domain that leaves it, and
      ``candidate_points(model, domain)`` lists points where two such models are likely to
      differ (the prover's counterexample search).
    """

    name: str
    model: type
    summary: str
    read: Callable | None = None
    write: Callable | None = None
    lower: Callable | None = None
    forms: Callable | None = None
    describe: Callable | None = None
    info: Callable | None = None
    to_maxout: Callable | None = None
    to_layered: Callable | None = None
    trace: Callable | None = None
    restrict_to_slice: Callable | None = None
    continuous: bool = False
    support: bool = False
    check_domain: Callable | None = None
    candidate_points: Callable | None = None

    def has(self, facet: str) -> bool:
        """Whether the kind supplies ``facet`` (a field name of the record).

        >>> get("transformer").has("to_maxout"), get("relu").has("to_maxout")
        (False, True)
        """
        return getattr(self, facet) is not None

    def function(self, facet: str, doing: str) -> Callable:
        """The kind's ``facet`` function; an InputError saying it cannot ``doing`` when missing."""
        fn = getattr(self, facet)
        if fn is None:
            raise InputError(f"cannot {doing} a model of kind {self.name}", path="kind")
        return fn

    def facets(self) -> list[str]:
        """The names of the functions the kind supplies.

        >>> get("cpwl").facets()
        ['read', 'write', 'lower', 'forms', 'describe', 'info', 'to_maxout', 'trace', 'check_domain', 'candidate_points']
        """
        return [name for name in self._fields[3:] if callable(getattr(self, name))]  # after name, model, summary


#: kind name -> its record (filled by the kind modules' :func:`register` as they are imported)
KINDS: dict[str, ModelKind] = {}
_names: tuple[str, ...] | None = None


def register_kind_package(package: str) -> None:
    """Name ``package`` as a package of kind modules (one module per kind, named after it)."""
    global _names
    if package not in kind_plugins.MODEL_KIND_PACKAGES:
        kind_plugins.MODEL_KIND_PACKAGES.append(package)
    _names = None


def register(kind: ModelKind) -> ModelKind:
    """Enter ``kind`` in the table (called once by its kind module); returns it."""
    global _names
    if getattr(kind.model, "kind", None) != kind.name:
        raise ValueError(f"the models of kind {kind.name!r} say kind {getattr(kind.model, 'kind', None)!r}")
    old = KINDS.get(kind.name)
    if old is not None and old.model is not kind.model:
        raise ValueError(f"kind {kind.name!r} is registered already, for {old.model.__qualname__}")
    KINDS[kind.name] = kind
    _names = None
    return kind


def unregister(name: str) -> None:
    """Take the kind ``name`` out of the table (tests that register a kind of their own)."""
    global _names
    KINDS.pop(name, None)
    _names = None


def _module_name(name: str) -> str:
    return name.replace("-", "_")


def get(name: str) -> ModelKind | None:
    """The record of the kind ``name`` (importing its kind module on first use), or None."""
    if name in KINDS:
        return KINDS[name]
    if not isinstance(name, str) or not name.replace("-", "_").isidentifier():
        return None
    for package in kind_plugins.MODEL_KIND_PACKAGES:
        module = f"{package}.{_module_name(name)}"
        if _spec(module) is not None:
            importlib.import_module(module)
            if name in KINDS:
                return KINDS[name]
    return None


def _spec(module: str):
    """The import spec of ``module`` (None when it, or its package, is not there)."""
    try:
        return importlib.util.find_spec(module)
    except ModuleNotFoundError:
        return None


def names() -> tuple[str, ...]:
    """The names of every model kind, sorted: those registered and those of the kind packages'
    modules (found without importing them)."""
    global _names
    if _names is None:
        found = set(KINDS)
        for package in kind_plugins.MODEL_KIND_PACKAGES:
            spec = _spec(package)
            paths = spec.submodule_search_locations if spec is not None else None
            found.update(m.name.replace("_", "-") for m in pkgutil.iter_modules(paths or [])
                         if not m.name.startswith("_"))
        _names = tuple(sorted(found))
    return _names


def supporting(facet: str) -> list[str]:
    """The names of the kinds that supply ``facet`` (imports each kind's module).

    >>> supporting("to_maxout")
    ['cpwl', 'cpwl1d', 'maxout', 'relu']
    """
    return [name for name in names() if (kind := get(name)) is not None and kind.has(facet)]


def expected(facet: str) -> str:
    """The kinds that supply ``facet``, as an error message says what it expected.

    >>> expected("to_maxout")
    'a cpwl, cpwl1d, maxout or relu model'
    """
    found = supporting(facet)
    return "a " + (f"{', '.join(found[:-1])} or {found[-1]}" if len(found) > 1 else "".join(found)) + " model"


def model_kind(model: Any) -> ModelKind:
    """The record of ``model``'s kind; an InputError when ``model`` is not a model of a known kind.

    Cost: a dictionary look-up once the kind's module is loaded."""
    name = getattr(model, "kind", None)
    kind = get(name) if isinstance(name, str) else None
    if kind is None or not isinstance(model, kind.model):
        raise InputError(f"expected a model (one of {', '.join(names())}), got {name if isinstance(name, str) else type(model).__name__}",
                         path="kind")
    return kind


def kind_of(model: Any) -> ModelKind | None:
    """Like :func:`model_kind`, but None for anything that is not a model of a known kind.

    >>> kind_of(3) is None
    True
    """
    try:
        return model_kind(model)
    except InputError:
        return None
