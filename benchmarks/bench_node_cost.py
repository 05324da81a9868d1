"""The cost of one node of the exact engine at 784 inputs (MNIST): its CPU, the memory its state holds, and the numbers of the certificate.

``python -m benchmarks.bench_node_cost [--only PATTERN] [--no-traced] [--limit S] [--out docs/benchmarks.md]``

What a node is. On a net of at least 64 inputs the engine splits on ReLUs only
(:mod:`symrel.vnnlib.relu_branch`), so every node of the search has the root's box; the driver
keeps for each open node a :class:`~symrel.vnnlib.node.Node` (the box, shared with the root:
two tuples of 784 rationals; its path and its ReLU splits) and for each decided node its tree
entry (a ``ReluSplit``, or a ``Leaf`` holding the leaf's facts as the certificate writes them:
phases, relaxations, closes and the ``tighten`` slopes). Evaluating a node
(:func:`symrel.vnnlib.worker.evaluate`) makes, and mostly drops: a float run
(:class:`~symrel.vnnlib.floatbounds.FloatRun`: per ReLU layer the pre-activation bounds, the
relaxation lines and the lower and upper forms over the inputs, ``256 x 784`` doubles each, and
the intermediate slopes re-optimised below the node's splits), where the floats say closed the
exact bounds (:func:`symrel.vnnlib.symbolic.propagate`: the forward forms of each ReLU layer as
int64 limb matrices ``(limbs, 256, 784)``, kept in a cache of at most 96 MiB per process, and
the output forms as Python integers over ``2^40``), and the leaf's facts. The worker keeps the
last 12 float runs (``relu_branch._RUNS``) and the forward passes (``symbolic._FORWARD``).

What is measured, in one process per instance (``symrel.verify(..., executor="serial")``, the
search and the trusted check of the certificate as ``symrel verify --executor serial`` runs
them), by wrappers this module puts around the engine's functions in that process only
(nothing in the engine changes):

* time: the nodes, the search's CPU time, the CPU time of preparing the problem (the integer
  net, the float net, the root's optimised intermediate slopes: once per process), the CPU
  time of evaluating each node (``process_time`` around ``worker.evaluate``: mean and most),
  the check's CPU time;
* the memory a node's state holds, by sizes of the objects (``sys.getsizeof`` over the
  object graph, numpy arrays by ``nbytes``, objects shared with the problem or the root box
  not counted): the node's record as a worker gets it (the box left out), its float run, its
  exact bounds (the output forms as integers, the neurons' states and relaxations), the
  exact limb forms it added to the cache, and the leaf's facts the tree keeps until the
  certificate is made (mean over the nodes that made one, and the most);
* with tracing (a second process per instance, the search alone, ``tracemalloc``, which sees
  Python's and numpy's allocations): the peak of the memory allocated while one node is
  evaluated, above what was allocated when it began (mean and most), and what it left
  allocated (mostly the caches' growth); its times are not reported (tracing slows the run);
* the process: its peak resident memory (``ru_maxrss``) before the search (imports and
  reading), at the end of the search, and at the end (the check included);
* the certificate: its size as written (canonical JSON, indented: one number per line), and
  per part (the network it carries, the claim with the property's input box, the proof: the
  trees) its size as compact JSON, how many numbers it holds (integers and fractions ``p/q``)
  and the decimal digits of the largest numerator and of the largest denominator.

Every row gives the 1-minute load average before its process started; the machine is in the
note under the tables. The machine is shared: CPU times are inflated by a load above the
core count much less than wall times, and the sizes do not depend on it.

``python -m benchmarks`` (:func:`run`) does not run this (minutes); the command above does.
Needs ``../shared/data/vnncomp2021/mnistfc``, onnx and numpy.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "vnncomp2021" / "mnistfc"
#: (net, property): unsat instances of the three depths that end in well under 2 minutes
#: serially, and one sat instance of many nodes
INSTANCES = (("256x2", "prop_0_0.03"), ("256x2", "prop_13_0.03"), ("256x2", "prop_0_0.05"),
             ("256x4", "prop_13_0.03"), ("256x6", "prop_2_0.03"))
LIMIT_S = 120
MIB = 1 << 20

# -- sizes ---------------------------------------------------------------------------------------------


def deep_bytes(obj, skip=frozenset()) -> int:
    """The bytes of ``obj`` and of every object it reaches (containers, instances' fields,
    a fraction's numerator and denominator), each counted once; a numpy array counts its
    ``nbytes`` (a view: its base's, once). Objects whose ``id`` is in ``skip`` (and what only
    they reach) are left out; modules, classes and functions are not followed.

    >>> deep_bytes([1, 1]) == sys.getsizeof([1, 1]) + sys.getsizeof(1)
    True
    >>> big = (10 ** 30,)
    >>> deep_bytes([big]) - deep_bytes([big], skip={id(big)}) == deep_bytes(big)
    True
    """
    import types

    seen = set(skip)
    total = 0
    todo = [obj]
    while todo:
        o = todo.pop()
        if id(o) in seen or isinstance(o, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                                           types.MethodType)):
            continue
        seen.add(id(o))
        if type(o).__module__ == "numpy" and hasattr(o, "nbytes"):
            base = getattr(o, "base", None)
            total += sys.getsizeof(o) if base is not None else max(sys.getsizeof(o), o.nbytes)
            if base is not None:
                todo.append(base)
            continue
        total += sys.getsizeof(o)
        if isinstance(o, dict):
            todo.extend(o.keys())
            todo.extend(o.values())
        elif isinstance(o, (list, tuple, set, frozenset)):
            todo.extend(o)
        elif isinstance(o, (int, float, str, bytes, bool)) or o is None:
            continue
        else:
            todo.extend(getattr(o, "__dict__", {}).values())
            for cls in type(o).__mro__:
                for name in getattr(cls, "__slots__", ()):
                    if hasattr(o, name):
                        todo.append(getattr(o, name))
    return total


def reachable_ids(*objs) -> set:
    """The ids of every object ``objs`` reach (as :func:`deep_bytes` walks them)."""
    import types

    seen: set = set()
    todo = list(objs)
    while todo:
        o = todo.pop()
        if id(o) in seen or isinstance(o, (type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(o))
        if isinstance(o, dict):
            todo.extend(o.keys())
            todo.extend(o.values())
        elif isinstance(o, (list, tuple, set, frozenset)):
            todo.extend(o)
        elif not isinstance(o, (int, float, str, bytes, bool)) and o is not None and type(o).__module__ != "numpy":
            todo.extend(getattr(o, "__dict__", {}).values())
    return seen


_NUMBER = re.compile(r"-?([0-9]+)(?:/([0-9]+))?")


def number_digits(obj) -> dict:
    """How many numbers ``obj`` (a certificate as JSON) holds, the decimal digits of the
    largest numerator and of the largest denominator, and per field (its last two keys, as
    ``closes.bound``) the most digits of a numerator or denominator there: ``{"numbers",
    "numerator", "denominator", "fields"}``, the fields by most digits first. A number is a
    JSON integer or a string ``p`` or ``p/q`` (docs/format.md writes rationals so); values
    under keys ending in ``sha256`` are hashes, not numbers.

    >>> number_digits({"a": [3, "-12345/678", "uu"], "network_sha256": "1234567890", "b": {"c": True, "d": 10}})
    {'numbers': 3, 'numerator': 5, 'denominator': 3, 'fields': {'a': 5, 'b.d': 2}}
    """
    count, top_num, top_den = 0, 0, 0
    fields: dict = {}
    todo = [((), obj)]
    while todo:
        keys, o = todo.pop()
        if isinstance(o, dict):
            todo.extend((keys + (k,), v) for k, v in o.items())
            continue
        if isinstance(o, list):
            todo.extend((keys, v) for v in o)
            continue
        if keys and keys[-1].endswith("sha256"):
            continue
        if isinstance(o, int) and not isinstance(o, bool):
            num, den = len(str(abs(o))), 1
        elif isinstance(o, str) and (m := _NUMBER.fullmatch(o)):
            num = len(m.group(1).lstrip("0") or "0")
            den = len(m.group(2).lstrip("0") or "0") if m.group(2) else 1
        else:
            continue
        count += 1
        top_num, top_den = max(top_num, num), max(top_den, den)
        field = ".".join(keys[-2:])
        fields[field] = max(fields.get(field, 0), num, den)
    fields = dict(sorted(fields.items(), key=lambda kv: (-kv[1], kv[0])))
    return {"numbers": count, "numerator": top_num, "denominator": top_den, "fields": fields}


#: the parts of a vnnlib-unsat certificate measured apart: the network it carries, the claim
#: (the property: its input box), the proof (the trees)
PARTS = (("network", "inputs"), ("property", "claim"), ("proof", "steps"))


def certificate_numbers(cert: dict) -> dict:
    """Per part of the certificate (:data:`PARTS`): :func:`number_digits` and its size in
    bytes as compact JSON.

    >>> certificate_numbers({"claim": {"rhs": "1/3"}, "inputs": {}, "steps": [7]})["property"]
    {'numbers': 1, 'numerator': 1, 'denominator': 1, 'fields': {'rhs': 1}, 'bytes': 13}
    """
    out = {}
    for name, key in PARTS:
        part = cert.get(key, {})
        out[name] = dict(number_digits(part), bytes=len(json.dumps(part, separators=(",", ":"))))
    return out


# -- the child process: one instance, measured from inside ---------------------------------------------


def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


class NodeMeter:
    """Wrappers around the engine's per-node functions in this process (the module docstring):
    ``worker.evaluate`` (the node's CPU time; with ``traced``, its tracemalloc peak),
    ``worker.relu_node_run`` and ``worker.exact_bounds`` (the node's float run and exact
    bounds, held until the node is done, then sized), ``symbolic._remember`` (the limb forms
    the node adds to the cache) and ``engine.prepare`` (the problem, once)."""

    def __init__(self, traced: bool):
        self.traced = traced
        self.nodes: list[dict] = []
        self.prepare_cpu = 0.0
        self.certificate_cpu = 0.0  # making the certificate and its canonical text (in the search's time)
        self.overhead_cpu = 0.0  # this meter's own CPU time inside the search (sizing), taken off
        self.rss_before_search = self.rss_after_search = None
        self.box_bytes = None
        self.problem = None
        self._current: dict | None = None
        self._skip: set = set()
        self._box_ids: set = set()

    def install(self) -> None:
        from symrel.verification import api
        from symrel.vnnlib import engine, symbolic, worker

        for module, name in ((worker, "evaluate"), (worker, "relu_node_run"), (worker, "exact_bounds"),
                             (symbolic, "_remember"), (engine, "prepare"), (engine, "certificate"),
                             (api, "_canonical_text")):
            if not callable(getattr(module, name, None)):
                raise RuntimeError(f"{module.__name__}.{name} is gone: bench_node_cost measures through it")
        evaluate, node_run, exact = worker.evaluate, worker.relu_node_run, worker.exact_bounds
        remember, prepare = symbolic._remember, engine.prepare
        make_certificate, canonical_text = engine.certificate, api._canonical_text

        def timed(fn):
            def wrapped(*args, **kw):
                if self.traced:  # the search is over: the certificate is not traced (it is timed untraced)
                    import tracemalloc

                    tracemalloc.stop()
                t = time.process_time()
                try:
                    return fn(*args, **kw)
                finally:
                    self.certificate_cpu += time.process_time() - t
            return wrapped

        def prepare_(*args, **kw):
            self.rss_before_search = _maxrss_mib()
            t = time.process_time()
            self.problem = prepare(*args, **kw)
            self.prepare_cpu = time.process_time() - t
            if not self.traced:
                t = time.process_time()
                p = self.problem
                fb = p.float_bounds   # None in symrel's core (no numpy): no float run to leave out
                self._skip = reachable_ids(p.tight, *((fb.tighten, fb.layers) if fb is not None else ()))
                self.overhead_cpu += time.process_time() - t
            return self.problem

        def node_run_(*args, **kw):
            run = node_run(*args, **kw)
            if self._current is not None:
                self._current["run"] = run
            return run

        def exact_(*args, **kw):
            bounds = exact(*args, **kw)
            if self._current is not None:
                self._current["bounds"] = bounds
            return bounds

        def remember_(key, value, size):
            if self._current is not None:
                self._current["limb_bytes"] += size
                self._current["limbs"] = max(self._current["limbs"], value[1].shape[0])
            return remember(key, value, size)

        def evaluate_(problem, task):
            import tracemalloc

            self._current = cur = {"limb_bytes": 0, "limbs": 0}
            if self.traced:
                tracemalloc.reset_peak()
                before = tracemalloc.get_traced_memory()[0]
            t = time.process_time()
            result = evaluate(problem, task)
            cpu = time.process_time() - t
            self._current = None
            row = {"cpu": cpu, "kind": type(result).__name__}
            if self.traced:
                now, peak = tracemalloc.get_traced_memory()
                row.update(peak=peak - before, kept=now - before)
            else:
                t = time.process_time()
                row.update(self._sizes(task, result, cur))
                self.overhead_cpu += time.process_time() - t
            self.nodes.append(row)
            self.rss_after_search = _maxrss_mib()
            return result

        worker.evaluate, worker.relu_node_run, worker.exact_bounds = evaluate_, node_run_, exact_
        symbolic._remember, engine.prepare = remember_, prepare_
        engine.certificate, api._canonical_text = timed(make_certificate), timed(canonical_text)

    def _sizes(self, task, result, cur) -> dict:
        if not self._box_ids:  # the root's box, shared by every node of a ReLU-split search
            self._box_ids = {id(task.lo), id(task.hi)} | {id(v) for v in task.lo + task.hi}
            self.box_bytes = deep_bytes((task.lo, task.hi))
        out = {"task": deep_bytes(task, self._box_ids), "limb_bytes": cur["limb_bytes"], "limbs": cur["limbs"]}
        if "run" in cur:
            out["run"] = deep_bytes(cur["run"], self._skip)
        bounds = cur.get("bounds")
        if bounds is not None:
            out["bounds"] = deep_bytes(bounds, self._skip | {id(bounds.net)})
            bits = max((abs(v).bit_length() for col in bounds.L + bounds.U for v in col), default=0)
            out["form_digits"] = math.ceil(bits * math.log10(2))
        facts = getattr(result, "facts", None)
        if facts is not None:
            out["facts"] = deep_bytes(facts)
        return out


def measure_one(net: str, prop: str, traced: bool, limit: float) -> dict:
    """Verify one instance here, serially, with the :class:`NodeMeter` in place: the figures
    of the module docstring (the child process's work)."""
    import tracemalloc

    import symrel
    from symrel.vnnlib import relu_branch, symbolic

    meter = NodeMeter(traced)
    meter.install()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "certificate.json"
        if traced:
            tracemalloc.start()
        # traced: the search alone (no check, no certificate file: tracing is stopped when the certificate is made)
        verdict = symrel.verify(str(DATA / f"mnist-net_{net}.onnx"), str(DATA / f"{prop}.vnnlib"), executor="serial",
                                timeout=limit, certificate=None if traced else str(path), check=not traced)
        if tracemalloc.is_tracing():
            tracemalloc.stop()
        stats = verdict.stats
        out = {"result": verdict.result, "nodes": stats.get("nodes"), "leaves": stats.get("leaves"),
               "relu_splits": stats.get("relu_splits"), "search_cpu": stats.get("search_cpu_seconds"),
               "check_cpu": stats.get("check_cpu_seconds"), "import_cpu": stats.get("import_cpu_seconds"),
               "prepare_cpu": meter.prepare_cpu, "certificate_cpu": meter.certificate_cpu,
               "overhead_cpu": meter.overhead_cpu, "nodes_measured": meter.nodes,
               "rss_before_search": meter.rss_before_search, "rss_after_search": meter.rss_after_search,
               "rss_end": _maxrss_mib(), "box_bytes": meter.box_bytes}
        if meter.nodes and not traced:
            out["runs_kept"] = deep_bytes([run for _, run in relu_branch._RUNS.values()], meter._skip)
            out["forward_kept"] = symbolic._FORWARD_BYTES[0]
            out["int_net"] = deep_bytes(meter.problem.int_net)
        if path.exists():
            out["certificate_bytes"] = path.stat().st_size
            out["numbers"] = certificate_numbers(json.loads(path.read_text(encoding="utf-8")))
    return out


# -- the parent: one process per instance, one after the other -----------------------------------------


def _children_cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def measure(net: str, prop: str, traced: bool, limit: float = LIMIT_S) -> dict:
    """One instance in a fresh process (``--one``): its figures, the load before it and the
    process's whole CPU time (imports included)."""
    from benchmarks.__main__ import load

    before = load()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "row.json"
        cpu = _children_cpu()
        done = subprocess.run([sys.executable, "-m", "benchmarks.bench_node_cost", "--one", net, prop,
                               "traced" if traced else "plain", str(limit), str(out)], capture_output=True, text=True)
        cpu = _children_cpu() - cpu
        if done.returncode != 0 or not out.exists():
            return {"result": f"error (exit {done.returncode}): {done.stderr.strip()[-300:]}", "load": before}
        got = json.loads(out.read_text())
    got.update(load=before, process_cpu=cpu)
    return got


def _mean_max(values, scale=1.0, digits=3):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return f"{round(statistics.fmean(values) / scale, digits):g} / {round(max(values) / scale, digits):g}"


def rows(net: str, prop: str, plain: dict, traced: dict | None) -> tuple[dict, dict, dict]:
    """The three tables' rows of one instance: time, memory per node, the process and the certificate.

    >>> plain = {"result": "unsat", "nodes": 2, "leaves": 1, "relu_splits": 1, "search_cpu": 4.0, "overhead_cpu": 1.0,
    ...          "check_cpu": 2.0, "prepare_cpu": 1.0, "certificate_cpu": 0.5, "load": 1.5, "box_bytes": 100,
    ...          "nodes_measured": [
    ...          {"cpu": 1.0, "kind": "Open", "task": 300, "run": 2 * MIB, "limb_bytes": 0, "limbs": 0},
    ...          {"cpu": 0.5, "kind": "Closed", "task": 400, "run": 4 * MIB, "bounds": MIB, "form_digits": 20,
    ...           "limb_bytes": MIB, "limbs": 3, "facts": 1024}]}
    >>> t, m, c = rows("256x2", "prop_0_0.03", plain, None)
    >>> t["search CPU s"], t["CPU s per node"], t["node CPU s mean / most"], m["float run MiB"], m["leaf facts KiB"]
    (3.0, 1.5, '0.75 / 1', '3 / 4', '1 / 1')
    """
    name = f"{net} {prop}"
    nodes = plain.get("nodes_measured", [])
    search = plain.get("search_cpu")
    search = None if search is None else round(search - plain.get("overhead_cpu", 0), 2)
    n = plain.get("nodes")
    time_row = {"instance": name, "symrel": plain.get("result"), "nodes": n,
                "leaves / ReLU splits": f"{plain.get('leaves')} / {plain.get('relu_splits')}",
                "search CPU s": search, "CPU s per node": round(search / n, 2) if search is not None and n else None,
                "of which: prepare": round(plain.get("prepare_cpu", 0), 2),
                "of which: nodes": round(sum(r["cpu"] for r in nodes), 2),
                "of which: certificate": round(plain.get("certificate_cpu", 0), 2),
                "node CPU s mean / most": _mean_max([r["cpu"] for r in nodes], 1, 2),
                "check CPU s": plain.get("check_cpu"), "load": plain.get("load")}
    leaves = [r for r in nodes if r["kind"] == "Closed"]
    mem_row = {"instance": name, "node record B (box apart)": _mean_max([r.get("task") for r in nodes], 1, 0),
               "box KiB (shared)": round(plain["box_bytes"] / 1024, 1) if plain.get("box_bytes") else None,
               "float run MiB": _mean_max([r.get("run") for r in nodes], MIB, 1),
               "exact bounds KiB": _mean_max([r.get("bounds") for r in nodes], 1024, 0),
               "limb forms added MiB": _mean_max([r.get("limb_bytes") for r in nodes if r.get("bounds")], MIB, 1),
               "limbs": max((r.get("limbs", 0) for r in nodes), default=None) or None,
               "output form digits": max((r["form_digits"] for r in nodes if "form_digits" in r), default=None),
               "leaf facts KiB": _mean_max([r.get("facts") for r in leaves], 1024, 0)}
    if traced is not None:
        tn = traced.get("nodes_measured", [])
        mem_row["traced peak MiB"] = _mean_max([r["peak"] for r in tn], MIB, 1)
        mem_row["traced kept MiB"] = _mean_max([r["kept"] for r in tn], MIB, 1)
        mem_row["load (traced)"] = traced.get("load")
    nums = plain.get("numbers") or {}
    rss = [plain.get(k) for k in ("rss_before_search", "rss_after_search", "rss_end")]
    cert_row = {"instance": name,
                "RSS MiB: before search / last node / end": " / ".join(f"{v:.0f}" for v in rss if v is not None),
                "kept MiB: 12 float runs / limb cache": None if "runs_kept" not in plain else
                f"{plain['runs_kept'] / MIB:.0f} / {plain['forward_kept'] / MIB:.0f}",
                "exact net MiB": round(plain["int_net"] / MIB) if "int_net" in plain else None,
                "certificate MB": round(plain["certificate_bytes"] / 1e6, 1) if "certificate_bytes" in plain else None}
    for part, _ in PARTS:
        got = nums.get(part)
        if got:
            cert_row[f"{part}: MB / numbers / digits num, den"] = (
                f"{got['bytes'] / 1e6:.2f} / {got['numbers']} / {got['numerator']}, {got['denominator']}")
    proof = nums.get("proof", {}).get("fields")
    if proof:  # where the proof's longest numbers are: its fields by most digits
        cert_row["proof: most digits by field"] = "; ".join(f"{k} {v}" for k, v in list(proof.items())[:4])
    cert_row["load"] = plain.get("load")
    return time_row, mem_row, cert_row


#: the page's words before each table (what its columns are; the figures are the tables')
PAGE_TEXT = (
    ["A node of this search is a set of ReLU phases on the root's box (the nets split on ReLUs only at 784",
     "inputs); the command's process measures it through wrappers around the engine's functions, the engine",
     "unchanged (`benchmarks/bench_node_cost.py` says exactly what is counted). Time, in CPU seconds of the",
     "process: `search CPU s` is the verdict's search time (without this benchmark's own sizing), `CPU s per",
     "node` that over the nodes; it holds, once per process, `prepare` (the integer and float nets and the",
     "root's optimised intermediate slopes) and `certificate` (making it and its canonical text), and `nodes`,",
     "the evaluation of every node (`node CPU s`: of one node, mean / most); `check CPU s` is the trusted",
     "checker's on the certificate."],
    ["Memory per node, mean / most over the nodes, by sizes of the objects (`sys.getsizeof` over the",
     "object graph, numpy arrays by their data, what is shared with the problem left out): `node record` the",
     "node as a worker gets it, without the box every node shares (`box KiB`, 2 x 784 rationals); `float run`",
     "the node's float bounds (per ReLU layer the bounds, relaxations and lower and upper forms over the",
     "inputs, 256 x 784 doubles each, the first layer's shared with the net); `exact bounds` the exact",
     "propagation's result (output forms as Python integers over 2^40, the neurons' states and relaxations);",
     "`limb forms added` the int64 limb matrices (`limbs` x 256 x 784, lower and upper) of the exact forward",
     "pass the node computed and cached, over the nodes with exact bounds; `output form digits` the longest",
     "integer of the exact output forms; `leaf facts` what the tree keeps of a leaf until the certificate is",
     "made. `traced peak`: with tracemalloc on (a second process, the search alone), the most memory",
     "allocated during one node's evaluation above what was allocated when it began, all temporaries",
     "included; `traced kept` what it left allocated (the caches: 12 float runs, the limb forms up to 96",
     "MiB)."],
    ["The process: its peak resident memory (`ru_maxrss`) before the search (imports and reading the",
     "files), after the last node, and at the end (the certificate and its check included); the caches as",
     "the search left them; the exact net (its weights as Python integers, once per process). The",
     "certificate: its size as written (canonical JSON, indented), and per part (the network it carries,",
     "the claim with the property, the proof) its size as compact JSON, its numbers and the decimal digits",
     "of its largest numerator and denominator; `most digits by field` says where the proof's longest",
     "numbers are. The forward forms are rounded to 40 fractional bits at each ReLU layer (docs/format.md),",
     "but a close's `bound` is the exact minimum of the backward substitution through every layer, which",
     "the checker must find equal, so its digits grow with the depth."],
)


def run():
    """``python -m benchmarks``: too long for the page's run; the command is in the module's docstring."""
    return {"instance": "run by hand: python -m benchmarks.bench_node_cost (see docs/benchmarks.md)"}


def main(argv=None) -> int:  # pragma: no cover - a script
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_node_cost", description=__doc__.splitlines()[0])
    ap.add_argument("--only", metavar="PATTERN", help="only the instances whose name (256x2 prop_0_0.03) matches this")
    ap.add_argument("--no-traced", action="store_true", help="no second, traced process per instance")
    ap.add_argument("--limit", type=float, default=LIMIT_S, help="each run's timeout in seconds (default 120)")
    ap.add_argument("--out", metavar="PAGE", help="write the section into this page (e.g. docs/benchmarks.md)")
    ap.add_argument("--one", nargs=5, help=argparse.SUPPRESS)  # the child: net prop traced|plain limit out
    args = ap.parse_args(argv)
    if args.one:
        net, prop, mode, limit, out = args.one
        got = measure_one(net, prop, mode == "traced", float(limit))
        Path(out).write_text(json.dumps(got))
        return 0
    if not DATA.is_dir():
        print(f"{DATA} is not present", file=sys.stderr)
        return 2
    from datetime import datetime, timezone

    from benchmarks.__main__ import _machine, _table, cores, load, load_note

    chosen = [(n, p) for n, p in INSTANCES if not args.only or re.search(args.only, f"{n} {p}")]
    before, start = load(), time.time()
    tables: tuple[list, list, list] = ([], [], [])
    for net, prop in chosen:
        plain = measure(net, prop, False, args.limit)
        shown_row = {k: v for k, v in plain.items() if k != "nodes_measured"}
        print(f"[bench_node_cost] {net} {prop}: {json.dumps(shown_row)}", file=sys.stderr, flush=True)
        traced = None if args.no_traced else measure(net, prop, True, args.limit)
        for table, row in zip(tables, rows(net, prop, plain, traced)):
            table.append(row)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    shown = " ".join(argv if argv is not None else sys.argv[1:])
    body = [__doc__.strip().splitlines()[0], "", *PAGE_TEXT[0], ""] + _table(tables[0])
    body += ["", *PAGE_TEXT[1], ""] + _table(tables[1])
    body += ["", *PAGE_TEXT[2], ""] + _table(tables[2]) + [""]
    body += [f"`python -m benchmarks.bench_node_cost {shown}`, {stamp}: {len(chosen)} instances in "
             f"{time.time() - start:.0f} s, one process each, one after the other, search and check serial; "
             f"{_machine()}; {load_note(before, load(), cores())}."]
    if args.out:
        from benchmarks.bench_vnncomp import write_section

        write_section(args.out, "bench_node_cost: mnistfc", body)
        print(f"wrote {args.out}")
    else:
        print("\n".join(body))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
