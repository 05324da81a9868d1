"""``symrel.bounds(net, region)``: exact, certified bounds of a ReLU network's outputs over a box.

Definition. For each output ``Y_j`` asked (all by default) and every input ``x`` of the region,
``lower_j <= Y_j(x) <= upper_j``: the tightest bounds the branch and bound of
:func:`symrel.vnnlib.output_bounds.search_bounds` certifies within the budget, as an
:class:`~symrel.verification.bounds_result.OutputBounds`. Each bound is a checked claim: the
``output-bounds`` certificate (docs/format.md) is checked by the trusted checker
(:mod:`symrel.checking.output_bounds`) before the result is made. A bound reached at an exact
point of the region is *attained* (the minimum or maximum itself), with the point; otherwise the
points found nearest to it are given, so the true minimum lies in ``[lower, least.y]``.

The region: a box file (``{"symrel": 1, "kind": "box", "bounds": [[lo, hi], ...]}``), the input
region of a ``.vnnlib`` file (one box; its output constraints are ignored, and ``notes`` says
so), a :class:`~symrel.models.Box`, a :class:`~symrel.vnnlib.VnnProperty`, or a list of
``(lo, hi)`` pairs (read exactly).

The budget: ``timeout`` seconds for everything (reading the files, the search, the trusted
check), under one clock, as :func:`symrel.verify` does. The bounds of the whole box are
checked first: they are the answer to fall back on, and their check gives the checker's
seconds per leaf, from which the search keeps the time the check of its leaves will need
(:data:`symrel.vnnlib.output_bounds.CHECK_MARGIN`). Should that check still not finish, the
checked bounds of the whole box are the answer (``notes`` says so); a limit that comes before
even those are checked leaves the bounds unchecked, naming the check. ``nodes``: most
branch-and-bound nodes (a budget that does not depend on the machine). Neither: no branching,
the bounds of the whole box (one propagation, one check).

The search and the check run on ``executor`` (:func:`symrel.verification.api.open_executor`:
by default one worker process per usable core, started when the work outlasts a second); with
a node budget the result is the same on every executor.

Cost: that of the search (what the budget allows) plus the check, linear in the certificate's
leaves times the network's weights.

>>> from symrel.models import DenseLayer, ReLUNet
>>> net = ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])   # |x|
>>> found = bounds(net, [(-1, 2)], nodes=50, executor="serial")
>>> found[0].lower, found[0].upper, found[0].lower_attained, found.checked
(0, 2, True, True)
"""

from __future__ import annotations

import time
from pathlib import Path

from ..errors import InputError, InternalError, UndecidedError
from .api import (ALARM_SLACK, CertificateRejected, _canonical_text, _Quiet, _reporter, _sha256, _write,
                  open_executor)

def bounds(net, region, *, timeout: float | None = None, executor=None, certificate=None, progress=None,
           outputs=None, nodes: int | None = None, check: bool = True):
    """Certified bounds of the outputs of ``net`` over ``region`` (module docstring); an
    :class:`~symrel.verification.bounds_result.OutputBounds`.

    ``net``: a path (``.onnx``, ``.nnet``, a symrel JSON ReLU net), a
    :class:`~symrel.models.ReLUNet`, or an imported model. ``region``: a path (a box file, a
    ``.vnnlib`` file), a :class:`~symrel.models.Box`, a :class:`~symrel.vnnlib.VnnProperty` or
    ``(lo, hi)`` pairs. ``timeout``: seconds for everything (None: no limit); ``nodes``: most
    branch-and-bound nodes; neither: no branching. ``executor``: None (the default pool),
    ``"serial"``, ``"processes[:N]"`` or an executor of yours (left running).
    ``certificate``: a path where the certificate is written (once checked; unchecked when its
    check did not finish). ``progress``: True for progress lines on standard error, or a
    function called with a dict of figures (``stage``; ``nodes``, ``leaves``, ``attained``,
    ``bounds``, ``gap``, ``seconds`` during the search; ``leaves_checked`` and ``leaves``
    during the check). ``outputs``: the indices of the outputs to bound (all when None).
    ``check=False`` skips the trusted check (the result then says ``checked=False``)."""
    from ..budget import Budget, BudgetExceeded

    clock = Budget(timeout)
    run = _Run(clock, _reporter(progress, lines=_Lines, calls=_Calls))
    try:
        with clock.alarm(ALARM_SLACK):
            return run.bounds(net, region, executor, certificate, check, outputs, nodes)
    except BudgetExceeded:   # the backstop: a stage that did not watch the clock closely enough
        return run.stopped()
    finally:
        run.report.close()


class _Made:
    """A search's outcome written as a certificate: ``found``, ``cert``, its canonical ``text``
    and ``sha``, the ``outputs`` (:class:`~symrel.verification.bounds_result.OutputBound`)."""

    def __init__(self, net, lo, hi, found, files):
        from ..vnnlib.output_bounds import certificate

        self.found = found
        self.cert = certificate(net, lo, hi, found, network_file=files.get("network"), region_file=files.get("region"))
        self.text = _canonical_text(self.cert)
        self.sha = _sha256(self.text)
        self.outputs = _outputs(net, found)


class _Run:
    """One computation of bounds: the clock, the stage it is in, the times of the stages, and
    what is known so far: ``roots``, the bounds of the whole box once checked (the answer to
    fall back on), and ``made``, the search's outcome (a backstop stop returns the best of them)."""

    def __init__(self, clock, report):
        self.clock, self.report = clock, report
        self.stage = "import"
        self.times: dict = {}
        self.files: dict = {}
        self.paths: dict = {}
        self.stats: dict = {}
        self.notes: list = []
        self.roots = self.made = None
        self.cert_path = None
        self._at = clock.start

    def enter(self, stage: str) -> None:
        now = time.monotonic()
        self.times[f"{self.stage}_seconds"] = round(now - self._at, 3)
        self.stage, self._at = stage, now

    def finish_stats(self) -> dict:
        self.times.setdefault(f"{self.stage}_seconds", round(time.monotonic() - self._at, 3))
        return {**self.stats, **self.times, "seconds": round(self.clock.elapsed(), 3)}

    def result(self, made, checked: bool, limit, stage=None):
        from .bounds_result import OutputBounds

        if self.cert_path is not None:
            _write(self.cert_path, made.text)
        return OutputBounds(made.outputs, certificate=made.cert, checked=checked, certificate_sha256=made.sha,
                            limit=limit, stage=stage, stats=self.finish_stats(), files=self.files, notes=self.notes)

    def stopped(self):
        """The result when the time ran out in ``self.stage``: the bounds of the whole box when
        they were checked (the search's tighter ones could not be), else the search's bounds
        unchecked, else no bounds (the certificate written when asked)."""
        from .bounds_result import OutputBounds

        if self.roots is not None:
            if self.made is not None:
                self.notes.append(f"the search's tighter bounds ({self.made.found.stats['leaves']} leaves) could not "
                                  "be checked in the time left: these are the bounds of the whole box, checked")
            return self.result(self.roots, True, "time", "check" if self.made is not None else None)
        if self.made is None:
            return OutputBounds([], limit="time", stage=self.stage, stats=self.finish_stats(), files=self.files,
                                notes=self.notes)
        return self.result(self.made, False, self.made.found.limit, "check")

    def bounds(self, net, region, executor, certificate_path, check, outputs, nodes):
        from .api import _network

        self.paths = {role: str(p) for role, p in (("network", net), ("region", region)) if isinstance(p, (str, Path))}
        if nodes is not None and (type(nodes) is not int or nodes < 1):
            raise InputError(f"expected a positive number of nodes, got {nodes!r}", path="nodes")
        net, net_file = _network(net)
        from ..models import ReLUNet

        if not isinstance(net, ReLUNet):   # the layered engine bounds no outputs yet
            err = InputError(f"expected a ReLU net (kind relu): symrel bounds does not take a "
                             f"{getattr(net, 'kind', type(net).__name__)} net yet (symrel verify decides its properties)",
                             path="net")
            raise err.in_file(self.paths["network"]) if "network" in self.paths else err
        lo, hi, region_file, self.notes = read_region(region, net)
        self.files = {role: f for role, f in (("network", net_file), ("region", region_file)) if f}
        self.cert_path = certificate_path
        if self.clock.expired():
            return self.stopped()
        with open_executor(executor) as pool:
            from ..parallel import worker_count

            self.stats["workers"] = worker_count(pool)
            self.enter("search")

            def check_roots(found):   # the bounds of the whole box, checked: the fallback, and the check's speed
                start = time.monotonic()
                made = _Made(net, lo, hi, found, self.files)
                if not self.check(made.text, pool):
                    return None
                self.roots = made
                self.stats["roots_check_seconds"] = round(time.monotonic() - start, 3)
                return (time.monotonic() - start) / max(1, found.stats["leaves"])

            found = self.search(net, lo, hi, outputs, nodes, pool, check_roots if check else None)
            self.stats.update({k: v for k, v in found.stats.items() if k != "seconds"})
            if self.roots is not None and found.stats["rounds"] == 0:   # no branching: the roots' check is the check
                self.stats["check_seconds"] = self.stats.pop("roots_check_seconds")
                return self.result(self.roots, True, found.limit)
            self.made = _Made(net, lo, hi, found, self.files)
            if check:
                self.enter("check")
                if not self.check(self.made.text, pool):
                    return self.stopped()
            return self.result(self.made, check, found.limit)

    def search(self, net, lo, hi, outputs, nodes, pool, after_roots):
        from ..vnnlib.output_bounds import search_bounds

        try:
            return search_bounds(net, lo, hi, outputs, timeout=self.clock.remaining(), nodes=nodes, executor=pool,
                                 progress=self.report.search, after_roots=after_roots)
        except InputError as err:   # the region's or the outputs' (the search reads no file)
            where = self.paths.get("region") if err.path == "region" else None
            raise (err.in_file(where) if where else err) from None

    def check(self, text: str, pool) -> bool:
        """The trusted checker on the certificate's text; False when its time ran out."""
        from ..checking import CertificateError, check_certificate
        from ..checking.vnnlib import leaves_checked_on
        from ..fileformat.jsonio import loads

        left = self.clock.remaining()
        deadline = None if left is None else time.time() + left
        done = {"k": 0}

        def on_leaves(k, n):
            done["k"] = k
            self.report.check(k, n)

        try:
            with leaves_checked_on(pool, on_leaves, deadline):
                check_certificate(loads(text))
        except CertificateError as err:
            raise CertificateRejected(f"the trusted checker rejects the engine's certificate: {err}") from None
        except UndecidedError:
            self.stats.update(leaves_checked=done["k"])
            return False
        return True


# -- the region --------------------------------------------------------------------------------
def read_region(region, net):
    """``(lo, hi, {"name", "sha256"} of its file or None, notes)``: the box ``region`` names
    (module docstring), of ``net``'s input dimension."""
    from ..models import Box
    from .files import bytes_sha256, output_dim

    notes: list = []
    record = None
    where = None
    if isinstance(region, (str, Path)):
        where = str(region)
        record = {"name": Path(where).name, "sha256": bytes_sha256(where)}
        if Path(where).suffix.lower() == ".vnnlib":
            from ..vnnlib.reader import read_vnnlib

            region = read_vnnlib(where, n_inputs=net.input_dim, n_outputs=output_dim(net))
        else:
            from ..fileformat import load

            region = load(where, kinds=("box",))
    if hasattr(region, "input_region") and hasattr(region, "unsafe"):
        bounds = _property_box(region, where)
        if region.unsafe:
            notes.append(f"the property's output constraints ({len(region.unsafe)} disjunct"
                         f"{'s' if len(region.unsafe) != 1 else ''}) are ignored: the bounds are over its input region")
    elif isinstance(region, Box):
        bounds = list(region.exact_bounds)
    elif isinstance(region, (list, tuple)):
        try:
            bounds = list(Box(list(region), path="region").exact_bounds)
        except InputError as err:   # bounds takes no exact_floats: a float is given exactly by the caller
            err.message = str(err.message).replace("pass exact_floats=True to convert it exactly",
                                                   "give it as a Fraction or a string such as \"1/2\"")
            err.args = (err.one_line(),)
            raise
    else:
        raise InputError(f"expected a region (a box file, a .vnnlib file, a Box, a VnnProperty or (lo, hi) pairs), got "
                         f"{type(region).__name__}", path="region")
    if len(bounds) != net.input_dim:
        err = InputError(f"expected a box of {net.input_dim} inputs (the network's), got {len(bounds)}",
                         path="region" if where is None else "bounds")
        raise err.in_file(where) if where else err
    return tuple(a for a, _ in bounds), tuple(b for _, b in bounds), record, notes


def property_box(path) -> dict:
    """The box of the input region of the ``.vnnlib`` file at ``path`` (read exactly, as
    :func:`read_region` reads it) as a certificate embeds it: what ``symrel check-certificate
    --input region=FILE.vnnlib`` compares with an ``output-bounds`` certificate's region."""
    from ..vnnlib.output_bounds import box_object
    from ..vnnlib.reader import read_vnnlib

    bounds = _property_box(read_vnnlib(path), str(path))
    return box_object([a for a, _ in bounds], [b for _, b in bounds])


def _property_box(prop, where):
    """The box of a property's input region: one disjunct of single-variable bounds, each input
    bounded on both sides (anything else is refused by name)."""
    def refuse(message, path="input region"):
        err = InputError(message, path=path)
        return err.in_file(where) if where else err

    if len(prop.input_region) != 1:
        raise refuse(f"expected an input region that is one box, got a disjunction of {len(prop.input_region)} "
                     "regions (bound each box apart)")
    n = prop.n_inputs
    lo, hi = [None] * n, [None] * n
    for k, atom in enumerate(prop.input_region[0]):
        nz = [i for i, c in enumerate(atom.x) if c]
        if any(atom.y) or len(nz) != 1:
            raise refuse(f"expected bounds on single inputs (a box), got the constraint {atom}",
                         path=f"input region atom {k}")
        i = nz[0]
        b = atom.rhs / atom.x[i]
        if atom.x[i] > 0:
            hi[i] = b if hi[i] is None else min(hi[i], b)
        else:
            lo[i] = b if lo[i] is None else max(lo[i], b)
    for i in range(n):
        if lo[i] is None or hi[i] is None:
            raise refuse(f"expected a bounded input region: X_{i} has no {'lower' if lo[i] is None else 'upper'} bound")
        if lo[i] > hi[i]:
            raise refuse(f"expected a non-empty input region: X_{i} has lower bound {lo[i]} above upper bound {hi[i]}")
    return list(zip(lo, hi))


# -- the result --------------------------------------------------------------------------------
def _outputs(net, found):
    """One :class:`~symrel.verification.bounds_result.OutputBound` per output, each point's value
    evaluated once more with the network's own exact semantics (a point that fails this is a
    bug, never a result)."""
    from .bounds_result import OutputBound

    by_output: dict = {}
    for b in found.objectives:
        point = None
        if b.point is not None:
            y = net.evaluate_exact(list(b.point))[b.output]
            if y != b.best:
                raise InternalError(f"the search's point for output {b.output} has the value {y}, not {b.best}")
            point = (y, b.point)
        by_output.setdefault(b.output, {})[b.side] = (b.bound, point)
    return [OutputBound(j, sides["lower"][0], sides["upper"][0], sides["lower"][1], sides["upper"][1])
            for j, sides in sorted(by_output.items())]


# -- progress -----------------------------------------------------------------------------------
class _Calls(_Quiet):
    def __init__(self, fn):
        self.fn = fn

    def search(self, stats):
        self.fn({"stage": "search", **stats})

    def check(self, done, total):
        self.fn({"stage": "check", "leaves_checked": done, "leaves": total})


class _Lines(_Quiet):
    """Progress lines (:class:`symrel.progress.Progress`): the search's nodes with the bounds
    attained and the widest gap left, nodes per second and the time; then the leaves checked."""

    def __init__(self):
        self.bar = None

    def search(self, stats):
        from ..progress import Progress

        if self.bar is None or self.bar.what != "search nodes":   # the search goes on after the roots' check
            self.close()
            self.bar = Progress("search nodes", unit="nodes", elapsed=True)
        self.bar.update(stats.get("nodes", 0) - self.bar.count,
                        attained=f"{stats.get('attained', 0)}/{stats.get('bounds', 0)}",
                        gap=f"{stats.get('gap', 0.0):.3g}")

    def check(self, done, total):
        from ..progress import Progress

        if self.bar is None or self.bar.what != "leaves checked" or self.bar.total != total:   # each check its bar
            self.close()
            self.bar = Progress("leaves checked", total=total, unit="leaves", elapsed=True)
        self.bar.update(done - self.bar.count)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None
