"""``symrel.verify(net, prop)``: decide a VNN-LIB property of a ReLU network exactly (or of a
layered or maxout net: :mod:`symrel.vnnlib.layered`).

Definition. ``verify`` answers whether some input ``x`` of the property's input region has
outputs ``y = net(x)`` meeting its unsafe condition, as a :class:`~symrel.verification.verdict.Verdict`:
``"sat"`` with an exact witness, ``"unsat"`` with a ``vnnlib-unsat`` certificate that the
trusted checker (:mod:`symrel.checking`) accepted before the verdict was made, or
``"unknown"`` naming the limit and the stage where it came. ``symrel verify`` on the command
line runs this same function.

The stages, all under one clock: reading the network and the property (``import``), the
branch-and-bound search of :func:`symrel.vnnlib.engine.decide` (``search``), and, for an
unsat answer, the trusted check of the certificate as it is written (``check``).
``timeout`` bounds the three together: the search gets what the import left, the check what
the search left, and a check that cannot finish in it leaves the verdict unknown, naming the
check (the certificate is kept). Each stage watches the clock itself (per node, per leaf);
as a backstop, a timer one second past the limit stops whatever runs (on the main thread).

The search and the check run on ``executor``: by default a pool of one worker process per
usable core (``os.sched_getaffinity``) when there are several, started only when the work
outlasts a second (:class:`~symrel.parallel.WarmingProcessPool`); ``"serial"`` runs it all
here. The verdict, the certificate and any failure are those of the serial run whatever
the executor (the engine's tree depends on the property alone; the checker's leaves are
independent, and the first failing one is reported).

Cost: that of the search (exponential in the worst case) plus the check, linear in the
certificate's leaves times the network's weights.

>>> from symrel.models import DenseLayer, ReLUNet
>>> from symrel.vnnlib import read_vnnlib_text
>>> net = ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])   # |x|
>>> prop = read_vnnlib_text('''(declare-const X_0 Real) (declare-const Y_0 Real)
... (assert (>= X_0 -1)) (assert (<= X_0 1)) (assert (<= Y_0 -0.01))''')
>>> verdict = verify(net, prop, executor="serial")
>>> verdict.result, bool(verdict), verdict.checked
('unsat', True, True)
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from ..errors import InputError, InternalError, UndecidedError
from ..exact import ZERO, format_rational

#: seconds past the limit at which the backstop timer stops whatever runs
ALARM_SLACK = 1.0


class CertificateRejected(InternalError):
    """The trusted checker refused the engine's certificate: a bug, never an unsat verdict."""


def verify(net, prop, *, timeout: float | None = None, executor=None, certificate=None, progress=None,
           check: bool = True):
    """Decide ``prop`` on ``net`` exactly (module docstring); a :class:`~symrel.verification.verdict.Verdict`.

    ``net``: a path (``.onnx``, ``.nnet``, a symrel JSON ReLU, layered or maxout net), a
    :class:`~symrel.models.ReLUNet` (or a layered or maxout net), or an imported model (its ``.model``). ``prop``: a path
    to a ``.vnnlib`` file or a :class:`~symrel.vnnlib.VnnProperty`. ``timeout``: seconds for
    everything (None: no limit). ``executor``: None (the default pool, module docstring),
    ``"serial"``, ``"processes[:N]"``, or a ``concurrent.futures`` executor of yours (left
    running). ``certificate``: a path where the certificate is written (an unsat verdict's,
    once checked; an unknown one's whose check did not finish, unchecked). ``progress``:
    True for progress lines on standard error (:mod:`symrel.progress`), or a function called
    with a dict of figures (``stage``, and ``nodes``, ``open``, ``covered``, ``seconds`` during
    the search, ``leaves_checked`` and ``leaves`` during the check). ``check=False`` skips
    the trusted check (the verdict then says ``checked=False``)."""
    from ..budget import Budget, BudgetExceeded

    clock = Budget(timeout)
    run = _Run(clock, _reporter(progress))
    try:
        with clock.alarm(ALARM_SLACK):
            return run.verify(net, prop, executor, certificate, check)
    except BudgetExceeded:   # the backstop: a stage that did not watch the clock closely enough
        return run.unknown("time")
    finally:
        run.report.close()


class _Run:
    """One verification: the clock, the stage it is in, the times of the stages."""

    def __init__(self, clock, report):
        self.clock, self.report = clock, report
        self.stage = "import"
        self.times: dict = {}
        self.files: dict = {}
        self.paths: dict = {}
        self.stats: dict = {}
        self.cover = (ZERO, 0)   # (covered, open leaves) as the search left them
        self._at = clock.start
        self._cpu_at = time.process_time()

    def enter(self, stage: str) -> None:
        now, cpu = time.monotonic(), time.process_time()
        self.times[f"{self.stage}_seconds"] = round(now - self._at, 3)
        self.times[f"{self.stage}_cpu_seconds"] = round(cpu - self._cpu_at, 3)
        self.stage, self._at, self._cpu_at = stage, now, cpu

    def finish_stats(self) -> dict:
        self.times.setdefault(f"{self.stage}_seconds", round(time.monotonic() - self._at, 3))
        self.times.setdefault(f"{self.stage}_cpu_seconds", round(time.process_time() - self._cpu_at, 3))
        return {**self.stats, **self.times, "seconds": round(self.clock.elapsed(), 3)}

    def unknown(self, limit: str, certificate=None, certificate_sha256=None):
        from .verdict import Verdict

        covered, open_leaves = self.cover
        return Verdict("unknown", limit=limit, stage=self.stage, certificate=certificate,
                       checked=False if certificate is not None else None, certificate_sha256=certificate_sha256,
                       open_leaves=open_leaves, covered=covered, stats=self.finish_stats(), files=self.files)

    def verify(self, net, prop, executor, certificate_path, check):
        from .verdict import Verdict

        self.paths = {role: str(p) for role, p in (("network", net), ("property", prop)) if isinstance(p, (str, Path))}
        from .files import network_or_property_error   # the property's own error before a missing extra

        net, net_file = network_or_property_error(lambda: _network(net), prop)
        prop, prop_file = _property(prop, net)
        self.files = {role: f for role, f in (("network", net_file), ("property", prop_file)) if f}
        if self.clock.expired():
            return self.unknown("time")
        with open_executor(executor) as pool:
            self.stats["workers"] = _workers(pool)
            self.enter("search")
            verdict = self.search(net, prop, pool)
            self.stats.update(_search_stats(verdict))
            self.cover = (verdict.covered, len(verdict.open_leaves))
            if verdict.status == "unknown":
                return self.unknown(verdict.limit)
            if verdict.status == "sat":
                y = _confirmed(net, prop, tuple(verdict.witness_x))
                return Verdict("sat", witness=(tuple(verdict.witness_x), y), stats=self.finish_stats(),
                               files=self.files)
            if verdict.status != "unsat" or verdict.certificate is None:
                raise InternalError(f"the engine answered {verdict.status!r}"
                                    + (" without a certificate" if verdict.status == "unsat" else ""))
            cert = verdict.certificate
            if net_file is not None:   # the bytes the network was read from, beside the canonical hash
                cert["claim"]["network_file"] = dict(net_file)
            text = _canonical_text(cert)
            sha = _sha256(text)
            checked = False
            if check:
                self.enter("check")
                checked = self.check(text, pool)
                if not checked:
                    if certificate_path is not None:
                        _write(certificate_path, text)
                    return self.unknown("time", cert, sha)
            if certificate_path is not None:
                _write(certificate_path, text)
            return Verdict("unsat", certificate=cert, checked=checked, certificate_sha256=sha, covered=verdict.covered,
                           stats=self.finish_stats(), files=self.files)

    def search(self, net, prop, pool):
        from ..vnnlib.layered.dispatch import decide_any as decide   # a ReLU net's engine, or the layered one

        def on_round(stats):
            self.report.search(stats)

        try:
            return decide(net, prop, timeout=self.clock.remaining(), executor=pool, progress=on_round)
        except InputError as err:   # what the engine cannot take is the property's (an unbounded region)
            where = self.paths.get("network" if err.path == "network" else "property")   # or the network's
            raise (err.in_file(where) if where else err) from None

    def check(self, text: str, pool) -> bool:
        """The trusted checker on the certificate's text; False when its time ran out."""
        from ..checking import CertificateError, check_certificate
        from ..checking.vnnlib import leaves_checked_on
        from ..fileformat.jsonio import loads

        left = self.clock.remaining()
        deadline = None if left is None else time.time() + left
        done = {"k": 0, "n": None}

        def on_leaves(k, n):
            done.update(k=k, n=n)
            self.report.check(k, n)

        try:
            with leaves_checked_on(pool, on_leaves, deadline):
                summary = check_certificate(loads(text))
        except CertificateError as err:
            raise CertificateRejected(f"the trusted checker rejects the engine's certificate: {err}") from None
        except UndecidedError:
            self.stats.update(leaves_checked=done["k"])
            return False
        if summary.get("vacuous"):   # checked, and true of no point: the property asks nothing
            self.stats["vacuous"] = summary["vacuous"]
        return True


# -- the inputs ----------------------------------------------------------------------------------
def _network(net):
    """``(the exact net, {"name", "sha256"} of its file or None)``: a ReLU, layered or maxout net."""
    from ..vnnlib.layered.dispatch import verifiable

    if isinstance(net, (str, Path)):
        from .files import bytes_sha256, read_network

        path = str(net)
        digest = bytes_sha256(path)
        return read_network(path), {"name": Path(path).name, "sha256": digest}
    model = getattr(net, "model", net)   # an imported model (symrel.interop.onnx_import.ImportedModel)
    if not verifiable(model):
        raise InputError(f"expected a ReLU, layered or maxout network (or a path to .onnx, .nnet or .json), got "
                         f"{getattr(model, 'kind', type(model).__name__)}", path="net")
    return model, None


def _property(prop, net):
    """``(the property, {"name", "sha256"} of its file or None)``, read with the net's sizes."""
    from .files import output_dim

    if isinstance(prop, (str, Path)):
        from ..vnnlib.reader import read_vnnlib

        read = read_vnnlib(prop, n_inputs=net.input_dim, n_outputs=output_dim(net))
        return read, {"name": Path(str(prop)).name, "sha256": read.sha256}
    if not hasattr(prop, "input_region") or not hasattr(prop, "unsafe"):
        raise InputError(f"expected a VNN-LIB property (a VnnProperty, or a path to a .vnnlib file), got "
                         f"{type(prop).__name__}", path="prop")
    return prop, None


def _confirmed(net, prop, x):
    """The exact outputs at ``x``, a counterexample checked once more here (in the region,
    unsafe at ``f(x)``): a sat verdict is made only after this exact check."""
    if len(x) != prop.n_inputs or not prop.in_region(list(x)):
        raise InternalError("the engine's counterexample fails its exact check (not in the region)")
    y = tuple(net.evaluate_exact(list(x)))
    if not prop.holds(list(x), list(y)):
        raise InternalError("the engine's counterexample fails its exact check")
    return y


def _search_stats(verdict) -> dict:
    s = dict(verdict.stats or {})
    s.pop("seconds", None)
    nodes, leaves = s.get("nodes", 0), s.get("leaves", 0)
    s["splits"] = max(0, nodes - leaves - (1 if verdict.status == "sat" else 0))
    s["covered"] = format_rational(verdict.covered) if verdict.covered is not None else None   # exact, as JSON writes it
    s["open_leaves"] = len(verdict.open_leaves)
    return s


# -- where the work runs ------------------------------------------------------------------------
@contextlib.contextmanager
def open_executor(executor=None):
    """The executor ``executor`` names (module docstring; None: the default pool of one
    worker per usable core, started when the work outlasts a second, or serial on one core),
    as a context manager; the ones made here are shut down on exit, one of the caller's is
    left running."""
    from ..parallel import RestartingProcessPool, WarmingProcessPool, usable_cores

    if executor is not None and not isinstance(executor, str):
        yield executor
        return
    spec = "default" if executor is None else executor.strip()
    if spec == "serial":
        yield None
        return
    if spec == "default":
        n = usable_cores()
        pool = WarmingProcessPool(n) if n > 1 else None
    elif spec == "processes" or (spec.startswith("processes:") and spec[10:].isascii() and spec[10:].isdigit()
                                 and int(spec[10:]) >= 1):   # isascii: "²".isdigit() is true, then int raises
        pool = RestartingProcessPool(int(spec[10:]) if spec != "processes" else None)
    else:
        raise InputError(f"expected serial, processes[:N] or an executor, got {executor!r}", path="executor")
    try:
        yield pool
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _workers(pool) -> int:
    from ..parallel import worker_count

    return worker_count(pool)


# -- the certificate as written -----------------------------------------------------------------
def _canonical_text(cert) -> str:
    from ..fileformat.canonical import canonical_dumps

    return canonical_dumps(cert)


def _sha256(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _write(path, text: str) -> None:
    from ..fileformat.jsonio import write_text_atomic

    write_text_atomic(path, text)


# -- progress -----------------------------------------------------------------------------------
def _reporter(progress, lines=None, calls=None):
    """The progress reporter ``progress`` asks for: none, lines (``lines``, by default this
    module's :class:`_Lines`) or calls of a function (``calls``, by default :class:`_Calls`);
    symrel.bounds passes its own two."""
    if progress is None or progress is False:
        return _Quiet()
    if progress is True:
        return (lines or _Lines)()
    if callable(progress):
        return (calls or _Calls)(progress)
    raise InputError(f"expected True, False, None or a function for progress, got {progress!r}", path="progress")


class _Quiet:
    def search(self, stats):
        pass

    def check(self, done, total):
        pass

    def close(self):
        pass


class _Calls(_Quiet):
    def __init__(self, fn):
        self.fn = fn

    def search(self, stats):
        self.fn({"stage": "search", "nodes": stats.get("nodes", 0), "open": stats.get("open", 0),
                 "covered": stats.get("covered", ZERO), "seconds": round(stats.get("seconds", 0.0), 3)})

    def check(self, done, total):
        self.fn({"stage": "check", "leaves_checked": done, "leaves": total})


class _Lines(_Quiet):
    """Progress lines (:class:`symrel.progress.Progress`): the search's nodes with the covered
    fraction, the open leaves, nodes per second and the time; then the leaves checked."""

    def __init__(self):
        self.bar, self.nodes = None, 0

    def search(self, stats):
        from ..progress import Progress

        if self.bar is None:
            self.bar = Progress("search nodes", unit="nodes", elapsed=True)
        nodes = stats.get("nodes", 0)
        self.bar.update(nodes - self.nodes, covered=_percent(stats.get("covered", ZERO)),
                        **{"open leaves": stats.get("open", 0)})
        self.nodes = nodes

    def check(self, done, total):
        from ..progress import Progress

        if self.bar is None or self.bar.what != "leaves checked":
            self.close()
            self.bar = Progress("leaves checked", total=total, unit="leaves", elapsed=True)
        self.bar.update(done - self.bar.count)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _percent(q) -> str:
    from ..exact import to_float

    return f"{100 * to_float(q):.3g}%"   # for reading: the verdict keeps the exact fraction
