"""symrel beside the field's verifiers (Marabou, nnenum), one process each, in CPU seconds, interleaved.

``python -m benchmarks.bench_peers --instances L.csv [--data DIR] [--tools symrel,marabou]
[--only PATTERN] [--every K] [--limit N] [--sample PRIOR.csv --hardest 10 --typical 10]
[--rows R.jsonl [--resume]] [--out docs/benchmarks.md] [--title T]``

Each instance of a competition list (``onnx,vnnlib,timeout``, as :mod:`benchmarks.bench_vnncomp`
reads it) is run by every tool of ``--tools`` in turn, each in a fresh process with a single
thread of work, the tools' order rotating from one instance to the next so that the machine's
load falls on all alike. The line's timeout is a limit on *CPU* time: the CPU seconds (user +
system) of the tool's whole process tree, read from ``/proc`` four times a second; a tree
past it is killed, and an answer that came with more CPU than the limit counts as ``timeout``.
Each tool is also given a wall-clock limit ``WALL_FACTOR`` times the CPU limit, as its own
timeout argument and as a backstop, so that the CPU limit decides on a loaded machine.

The tools, as a user runs them (none is part of this repository; see docs/benchmarks.md):

- ``symrel``: ``symrel verify NET PROP --timeout T --executor serial --json`` (this tree's
  symrel): ``holds`` only for an unsat verdict whose certificate the trusted checker accepted,
  ``violated`` only with an exact witness. Its JSON gives the CPU seconds of reading, search
  and trusted check apart (``stats.*_cpu_seconds``).
- ``marabou``: Marabou's command line from the ``maraboupy`` package, ``Marabou NET PROP
  --num-workers 1 --verbosity 0 --timeout T`` (its own ONNX and VNN-LIB readers; the default
  DeepSoI procedure, no split-and-conquer), looked for at ``../peers/marabou-venv/bin/Marabou``
  beside the clone or ``--marabou``.
- ``nnenum``: ``python -m nnenum.nnenum NET PROP T RESULT 1`` (one process) from a clone of its
  repository at ``../peers/nnenum`` with its interpreter ``../peers/nnenum-venv/bin/python``, or
  ``--nnenum DIR --nnenum-python PY``; ``OPENBLAS_NUM_THREADS=1``, ``OMP_NUM_THREADS=1``.

Every row records the 1-minute load average read just before it. The verdicts are compared
with one another and with the 2021 entrants' (:func:`agreement`): where symrel decided, its
answer is exact (a checked certificate or an exact witness), so a tool that says otherwise is
refuted; where symrel did not, a disagreement among the others stays open.

``--sample PRIOR.csv`` (a peer's earlier run, ``net,prop,result,user,sys,wall`` as
``benchmarks/data/nnenum_acasxu_cpu.csv``) picks the ``--hardest`` instances by that run's CPU
and ``--typical`` ones around its median; the summary then compares symrel with the peer on
each of the hardest and on the median of the typical ones (:func:`acas_goal`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.bench_vnncomp import Entrant, Instance, conflict, load_2021, read_list, select

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PEERS = ROOT.parent / "peers"      # beside the clone, as ../shared: the peers are not this repository's
NNENUM_PRIOR = HERE / "data" / "nnenum_acasxu_cpu.csv"
#: a tool's wall-clock limit, in CPU limits: on a loaded machine the CPU limit must come first
WALL_FACTOR = 8
#: seconds between two readings of a process tree's CPU time
POLL = 0.25
DECIDED = ("holds", "violated")
NAMES = {"symrel": "symrel", "marabou": "Marabou", "nnenum": "nnenum"}


# -- one process, limited in CPU time --------------------------------------------------------------

def _ticks() -> int:
    return os.sysconf("SC_CLK_TCK")


def group_cpu(pgid: int, proc=Path("/proc")) -> float:
    """CPU seconds (user + system) of the live processes of process group ``pgid``, with the
    children each has reaped (``cutime``, ``cstime``): ``/proc/PID/stat`` fields 14 to 17.

    >>> group_cpu(os.getpgid(0)) > 0
    True
    """
    total = 0
    for stat in proc.glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:        # the process ended while we looked
            continue
        rest = text[text.rindex(")") + 2:].split()   # after the command's name, which may hold spaces
        if int(rest[2]) == pgid:
            total += sum(int(v) for v in rest[11:15])
    return total / _ticks()


@dataclass
class Run:
    """A finished process: its exit code (None when killed), output, CPU and wall seconds, and
    why it was killed (``"cpu"``, ``"wall"`` or None)."""

    code: int | None
    stdout: str
    stderr: str
    cpu_s: float
    wall_s: float
    killed: str | None = None


def run_limited(argv, *, env=None, cwd=None, cpu_limit: float, wall_limit: float) -> Run:
    """Run ``argv`` in a session of its own; kill its process group once its CPU time passes
    ``cpu_limit`` or its wall time ``wall_limit``. The CPU seconds are those of the whole tree:
    the child and the descendants it reaped (``RUSAGE_CHILDREN`` around it), or the last reading
    of the group, whichever is larger (a killed grandchild is not reaped by the child).

    >>> r = run_limited([sys.executable, "-c", "print(6 * 7)"], cpu_limit=30, wall_limit=60)
    >>> r.code, r.stdout.strip(), r.killed
    (0, '42', None)
    >>> r = run_limited([sys.executable, "-c", "while True: pass"], cpu_limit=0.5, wall_limit=60)
    >>> r.code, r.killed, r.cpu_s >= 0.5
    (None, 'cpu', True)
    """
    import resource
    import signal

    def children_cpu() -> float:
        u = resource.getrusage(resource.RUSAGE_CHILDREN)
        return u.ru_utime + u.ru_stime

    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        before, start = children_cpu(), time.monotonic()
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                start_new_session=True)
        killed, seen = None, 0.0
        while proc.poll() is None:
            time.sleep(POLL)
            seen = max(seen, group_cpu(proc.pid))
            if seen > cpu_limit or time.monotonic() - start > wall_limit:
                killed = "cpu" if seen > cpu_limit else "wall"
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:   # it ended just now
                    pass
                proc.wait()
        wall = time.monotonic() - start
        try:   # what the child left behind in its group (a killed tree, or a daemon of a tool)
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        cpu = max(children_cpu() - before, seen)
        out.seek(0)
        err.seek(0)
        return Run(None if killed else proc.returncode, out.read(), err.read(), cpu, wall, killed)


# -- the tools -------------------------------------------------------------------------------------

@dataclass
class Outcome:
    """One tool on one instance: the verdict in the competition's words (``holds``,
    ``violated``, ``timeout``, ``unknown``, ``error``), the process's CPU and wall seconds, and
    what the tool says of its stages (symrel: ``read``, ``search``, ``check`` CPU seconds)."""

    verdict: str
    cpu_s: float
    wall_s: float
    stages: dict = field(default_factory=dict)
    note: str | None = None


@dataclass(frozen=True)
class Paths:
    """Where the peers are (outside this repository)."""

    marabou: Path = PEERS / "marabou-venv" / "bin" / "Marabou"
    nnenum: Path = PEERS / "nnenum"
    nnenum_python: Path = PEERS / "nnenum-venv" / "bin" / "python"

    def missing(self, tool: str) -> str | None:
        """Why ``tool`` cannot run here, or None."""
        need = {"symrel": [], "marabou": [self.marabou], "nnenum": [self.nnenum / "src" / "nnenum", self.nnenum_python]}
        if tool not in need:
            return f"unknown tool {tool!r} (expected one of {', '.join(NAMES)})"
        absent = [str(p) for p in need[tool] if not p.exists()]
        return f"{tool}: not found: {', '.join(absent)}" if absent else None


def _one_thread(extra=None) -> dict:
    return dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", **(extra or {}))


def _tail(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


def symrel_outcome(run: Run) -> Outcome:
    """Read ``symrel verify --json``'s answer (exit 0 unsat, 1 sat, 3 unknown, 2 bad input).

    >>> out = json.dumps({"result": "unsat", "checked": True, "stats": {"import_cpu_seconds": 0.5,
    ...                   "search_cpu_seconds": 2.0, "check_cpu_seconds": 1.0, "nodes": 7}})
    >>> o = symrel_outcome(Run(0, out, "", 3.9, 4.0))
    >>> o.verdict, o.stages
    ('holds', {'read': 0.5, 'search': 2.0, 'check': 1.0, 'nodes': 7})
    >>> symrel_outcome(Run(None, "", "", 120.3, 130, "cpu")).verdict
    'timeout'
    """
    if run.killed:
        return Outcome("timeout", run.cpu_s, run.wall_s, note=f"killed at the {run.killed} limit")
    try:
        answer = json.loads(run.stdout)
    except ValueError:
        return Outcome("error", run.cpu_s, run.wall_s, note=f"exit {run.code}: {_tail(run.stderr)}")
    stats = answer.get("stats", {})
    stages = {name: stats.get(f"{stage}_cpu_seconds") for name, stage in
              (("read", "import"), ("search", "search"), ("check", "check"))}
    stages = {k: v for k, v in stages.items() if v is not None}
    if "nodes" in stats:
        stages["nodes"] = stats["nodes"]
    result = answer.get("result")
    if result == "unsat" and answer.get("checked") is True:
        verdict = "holds"
    elif result == "sat":
        verdict = "violated"
    elif result == "unknown":
        verdict = "timeout" if answer.get("limit") == "time" else "unknown"
    else:
        verdict = "error"
    note = None if verdict != "unknown" else f"limit: {answer.get('limit')}"
    return Outcome(verdict, run.cpu_s, run.wall_s, stages, note)


def marabou_outcome(run: Run) -> Outcome:
    """Read the verdict Marabou's command line prints on a line of its own (``sat``, ``unsat``,
    ``TIMEOUT``, ``UNKNOWN``, ``ERROR``).

    >>> marabou_outcome(Run(0, "Network: n.onnx\\nProperty: p.vnnlib\\n\\nunsat\\n", "", 2.0, 2.1)).verdict
    'holds'
    >>> marabou_outcome(Run(0, "\\nsat\\nInput assignment:\\n\\tx0 = 0.1\\n", "", 2.0, 2.1)).verdict
    'violated'
    >>> marabou_outcome(Run(0, "TIMEOUT\\n", "", 2.0, 2.1)).verdict
    'timeout'
    """
    if run.killed:
        return Outcome("timeout", run.cpu_s, run.wall_s, note=f"killed at the {run.killed} limit")
    words = {"unsat": "holds", "sat": "violated", "timeout": "timeout", "unknown": "unknown", "error": "error"}
    for line in run.stdout.splitlines():
        word = line.strip().lower()
        if word in words:
            return Outcome(words[word], run.cpu_s, run.wall_s)
    return Outcome("error", run.cpu_s, run.wall_s, note=f"exit {run.code}: {_tail(run.stderr) or _tail(run.stdout)}")


def nnenum_outcome(run: Run, result_text: str | None) -> Outcome:
    """Read nnenum's result file (``holds``, ``violated``, ``timeout``, ``error``, ...).

    >>> nnenum_outcome(Run(0, "", "", 3.0, 3.1), "holds").verdict, nnenum_outcome(Run(0, "", "", 3.0, 3.1), None).verdict
    ('holds', 'error')
    """
    if run.killed:
        return Outcome("timeout", run.cpu_s, run.wall_s, note=f"killed at the {run.killed} limit")
    word = (result_text or "").strip().lower()
    if word in ("holds", "violated", "timeout", "error"):
        return Outcome(word, run.cpu_s, run.wall_s)
    if word:
        return Outcome("unknown", run.cpu_s, run.wall_s, note=f"nnenum: {word}")
    return Outcome("error", run.cpu_s, run.wall_s, note=f"exit {run.code}: no result file; {_tail(run.stderr)}")


def run_tool(tool: str, inst: Instance, limit: float, paths: Paths) -> Outcome:
    """Run ``tool`` on ``inst`` with a CPU limit of ``limit`` seconds (module docstring)."""
    wall = limit * WALL_FACTOR
    net, prop = str(Path(inst.onnx).resolve()), str(Path(inst.vnnlib).resolve())   # the peers run in folders of their own
    if tool == "symrel":
        argv = [sys.executable, "-m", "symrel", "verify", net, prop, "--timeout", f"{wall:g}",
                "--executor", "serial", "--json", "--no-progress"]
        env = _one_thread({"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))})
        outcome = symrel_outcome(run_limited(argv, env=env, cwd=ROOT, cpu_limit=limit, wall_limit=wall + 30))
    elif tool == "marabou":
        argv = [str(paths.marabou), net, prop, "--num-workers", "1", "--verbosity", "0",
                "--timeout", str(int(wall))]
        outcome = marabou_outcome(run_limited(argv, env=_one_thread(), cpu_limit=limit, wall_limit=wall + 30))
    elif tool == "nnenum":
        with tempfile.TemporaryDirectory(prefix="bench-peers-") as scratch:
            result = Path(scratch) / "result.txt"
            argv = [str(paths.nnenum_python), "-m", "nnenum.nnenum", net, prop, f"{wall:g}",
                    str(result), "1"]
            env = _one_thread({"PYTHONPATH": str(paths.nnenum / "src")})
            run = run_limited(argv, env=env, cwd=paths.nnenum, cpu_limit=limit, wall_limit=wall + 30)
            outcome = nnenum_outcome(run, result.read_text() if result.exists() else None)
    else:
        raise ValueError(f"unknown tool {tool!r}")
    if outcome.verdict in DECIDED and outcome.cpu_s > limit:   # decided, but with more CPU than allowed
        outcome.note, outcome.verdict = f"a late {outcome.verdict}", "timeout"
    return outcome


# -- the measurements ------------------------------------------------------------------------------

def key_of(inst: Instance) -> tuple[str, str, str]:
    return inst.category, inst.rel_onnx, inst.rel_vnnlib


def rotation(tools, k: int) -> list[str]:
    """The tools' order on the ``k``-th instance: rotated by one each time.

    >>> [rotation(["symrel", "marabou"], k) for k in range(3)]
    [['symrel', 'marabou'], ['marabou', 'symrel'], ['symrel', 'marabou']]
    """
    tools = list(tools)
    k %= len(tools)
    return tools[k:] + tools[:k]


def measure(instances, tools, *, paths=Paths(), rows_file=None, done=None, groups=None, echo=True) -> list[dict]:
    """Run every tool on every instance, interleaved (:func:`rotation`); one record per (instance,
    tool), appended to ``rows_file`` as it is measured. ``done``: records measured before (by
    :func:`read_rows`), not run again."""
    from benchmarks.__main__ import load

    done = {(tuple(r["key"]), r["tool"]): r for r in (done or [])}
    records = []
    for k, inst in enumerate(instances):
        for tool in rotation(tools, k):
            if (key_of(inst), tool) in done:
                records.append(done[(key_of(inst), tool)])
                continue
            before = load()
            o = run_tool(tool, inst, inst.timeout, paths)
            rec = {"key": list(key_of(inst)), "instance": inst.name, "tool": tool, "limit": inst.timeout,
                   "verdict": o.verdict, "cpu": round(o.cpu_s, 2), "wall": round(o.wall_s, 2),
                   **o.stages, "load": before, "note": o.note,
                   "group": (groups or {}).get(inst.name), "at": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}
            records.append(rec)
            if echo:
                print(f"[bench_peers] {json.dumps(rec)}", file=sys.stderr, flush=True)
            if rows_file:
                with open(rows_file, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(rec) + "\n")
    return records


def read_rows(path) -> list[dict]:
    """The records of a rows file (the last of each (instance, tool) wins)."""
    out = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            out[(tuple(rec["key"]), rec["tool"])] = rec
    return list(out.values())


def by_instance(records) -> dict:
    """``{key: {tool: record}}`` in the order the instances first appear."""
    out: dict = {}
    for r in records:
        out.setdefault(tuple(r["key"]), {})[r["tool"]] = r
    return out


# -- who agrees with whom --------------------------------------------------------------------------

def agreement(verdicts: dict, entrants=()) -> dict:
    """What the decided verdicts say of one another. ``verdicts``: ``{tool: verdict}`` of this
    session (symrel's ``holds`` is a checked certificate, its ``violated`` an exact witness);
    ``entrants``: the 2021 verdicts (:class:`~benchmarks.bench_vnncomp.Entrant`).

    Returns ``refuted``: the tools of this session and the 2021 entrants (``2021 NAME``) whose
    decided verdict contradicts symrel's exact one; ``open``: when symrel did not decide, the
    sides of a disagreement among the rest (``{"holds": [...], "violated": [...]}``), else None.

    >>> agreement({"symrel": "holds", "marabou": "violated"}, [Entrant("nnv", "violated", 1.0)])
    {'refuted': ['marabou', '2021 nnv'], 'open': None}
    >>> agreement({"symrel": "timeout", "marabou": "violated"}, [Entrant("ERAN", "holds", 1.0)])
    {'refuted': [], 'open': {'holds': ['2021 ERAN'], 'violated': ['marabou']}}
    >>> agreement({"symrel": "violated", "nnenum": "violated"}, [Entrant("ERAN", "timeout")])
    {'refuted': [], 'open': None}
    """
    others = {t: v for t, v in verdicts.items() if t != "symrel"}
    others.update({f"2021 {e.tool}": e.verdict for e in entrants})
    exact = verdicts.get("symrel")
    if exact in DECIDED:
        return {"refuted": [t for t, v in others.items() if v in DECIDED and v != exact], "open": None}
    sides = {v: [t for t, w in others.items() if w == v] for v in DECIDED}
    return {"refuted": [], "open": sides if all(sides.values()) else None}


# -- the tables ------------------------------------------------------------------------------------

def _cpu(rec) -> float | None:
    return rec["cpu"] if rec and rec["verdict"] in DECIDED else None


def _shown(rec, tool) -> str:
    if rec is None:
        return "not run"
    if tool == "symrel" and rec["verdict"] in DECIDED:
        return {"holds": "unsat (checked)", "violated": "sat (exact)"}[rec["verdict"]]
    return rec["verdict"] + (f" ({rec['note']})" if rec.get("note") and rec["verdict"] not in DECIDED else "")


def instance_rows(records, results, peer: str) -> list[dict]:
    """One row per instance: symrel's verdict and CPU (all, search, check) beside ``peer``'s,
    the 2021 entrants' split, the load and what the verdicts say of one another."""
    rows = []
    for key, tools in by_instance(records).items():
        s, p = tools.get("symrel"), tools.get(peer)
        entrants = results.get(key, [])
        holds, violated = conflict(entrants)
        j = agreement({t: r["verdict"] for t, r in tools.items()}, entrants)
        loads = [r["load"] for r in (s, p) if r]
        rows.append({
            "instance": (s or p)["instance"], "CPU limit s": (s or p)["limit"],
            "symrel": _shown(s, "symrel"), "symrel CPU s": s and s["cpu"],
            "search": s and s.get("search"), "check": s and s.get("check"),
            NAMES[peer]: _shown(p, peer), f"{NAMES[peer]} CPU s": p and p["cpu"],
            "2021 holds / violated": f"{len(holds)} / {len(violated)}" if entrants else "not run",
            "load": " / ".join(f"{x:g}" for x in loads),
            "refuted": ", ".join(j["refuted"]) or None,
        })
    return rows


def decided_summary(records, peer: str) -> dict:
    """Counts and CPU: each tool's decided instances, those both decided and the CPU each spent
    on them (symrel's in all, and its search and check apart), those one alone decided.

    >>> recs = [{"key": ["c", "n", "p1"], "tool": "symrel", "verdict": "holds", "cpu": 4.0, "search": 2.0, "check": 1.5},
    ...         {"key": ["c", "n", "p1"], "tool": "marabou", "verdict": "holds", "cpu": 10.0},
    ...         {"key": ["c", "n", "p2"], "tool": "symrel", "verdict": "violated", "cpu": 3.0, "search": 1.0},
    ...         {"key": ["c", "n", "p2"], "tool": "marabou", "verdict": "timeout", "cpu": 120.4}]
    >>> s = decided_summary(recs, "marabou")
    >>> s["n"], s["decided"], s["both"], s["cpu on both"], s["alone"]
    (2, {'symrel': 2, 'marabou': 1}, 1, {'symrel': 4.0, 'symrel search': 2.0, 'symrel check': 1.5, 'marabou': 10.0}, {'symrel': 1, 'marabou': 0})
    """
    table = by_instance(records)
    complete = {k: t for k, t in table.items() if "symrel" in t and peer in t}
    decided = {tool: sum(t[tool]["verdict"] in DECIDED for t in complete.values()) for tool in ("symrel", peer)}
    both = [t for t in complete.values() if all(t[x]["verdict"] in DECIDED for x in ("symrel", peer))]
    cpu = {"symrel": sum(t["symrel"]["cpu"] for t in both),
           "symrel search": sum(t["symrel"].get("search") or 0 for t in both),
           "symrel check": sum(t["symrel"].get("check") or 0 for t in both),
           peer: sum(t[peer]["cpu"] for t in both)}
    alone = {x: sum(t[x]["verdict"] in DECIDED and t[y]["verdict"] not in DECIDED for t in complete.values())
             for x, y in (("symrel", peer), (peer, "symrel"))}
    return {"n": len(complete), "decided": decided, "both": len(both), "cpu on both": {k: round(v, 2) for k, v in cpu.items()},
            "alone": alone}


def _at_least(rec) -> float:
    """A tool's CPU on an instance, an undecided one as its limit (a lower bound: 'over')."""
    return rec["cpu"] if rec["verdict"] in DECIDED else max(rec["cpu"], rec["limit"])


def acas_goal(records, peer: str = "nnenum", hardest: int = 10) -> dict:
    """The issue's goal against ``peer``: symrel's search at most the peer's CPU on the median
    instance and on each of the ``hardest`` instances (the largest CPU of the peer in this
    session), and search plus check at most twice the peer's. An instance symrel did not decide
    counts as its limit (it fails); one the peer did not decide as the peer's limit.

    ``median``: over the instances whose group is ``typical`` when there are any (a sample
    chosen around a peer's median), else over all: the medians of symrel's search, of its search
    plus check and of the peer's CPU.

    >>> def r(k, tool, cpu, search=None, check=None, group=None):
    ...     return {"key": ["a", "n", str(k)], "instance": str(k), "tool": tool, "verdict": "holds", "cpu": cpu,
    ...             "search": search, "check": check, "limit": 116, "group": group, "load": 1.0}
    >>> recs = [r(1, "nnenum", 5.0), r(1, "symrel", 9.0, 4.0, 3.0), r(2, "nnenum", 50.0), r(2, "symrel", 90.0, 60.0, 20.0)]
    >>> g = acas_goal(recs, hardest=1)
    >>> [(h["instance"], h["search <= peer"], h["search + check <= 2 peer"]) for h in g["hardest"]]
    [('2', False, True)]
    >>> g["median"]["search <= peer"], g["median"]["over"]
    (False, 'all 2')
    """
    table = [t for t in by_instance(records).values() if "symrel" in t and peer in t]

    def search(t):
        s = t["symrel"]
        return s.get("search") if s["verdict"] in DECIDED else max(s["cpu"], s["limit"])

    def search_check(t):
        s = t["symrel"]
        return (s.get("search") or 0) + (s.get("check") or 0) if s["verdict"] in DECIDED else max(s["cpu"], s["limit"])

    ranked = sorted(table, key=lambda t: -_at_least(t[peer]))
    rows = [{"instance": t["symrel"]["instance"], "peer CPU": _at_least(t[peer]), "peer": t[peer]["verdict"],
             "symrel search": search(t), "symrel search + check": search_check(t), "symrel": t["symrel"]["verdict"],
             "search <= peer": t["symrel"]["verdict"] in DECIDED and search(t) <= _at_least(t[peer]),
             "search + check <= 2 peer": t["symrel"]["verdict"] in DECIDED and search_check(t) <= 2 * _at_least(t[peer]),
             "load": max(t["symrel"]["load"], t[peer]["load"])}
            for t in ranked[:hardest]]
    typical = [t for t in table if t["symrel"].get("group") == "typical"]
    pool = typical or table
    median = None
    if pool:
        m_search = statistics.median(search(t) for t in pool)
        m_both = statistics.median(search_check(t) for t in pool)
        m_peer = statistics.median(_at_least(t[peer]) for t in pool)
        median = {"over": f"{'typical' if typical else 'all'} {len(pool)}", "symrel search": round(m_search, 2),
                  "symrel search + check": round(m_both, 2), "peer": round(m_peer, 2),
                  "search <= peer": m_search <= m_peer, "search + check <= 2 peer": m_both <= 2 * m_peer}
    return {"hardest": rows, "median": median}


def sample_by_prior(prior, hardest: int, typical: int) -> dict:
    """``{instance name: "hardest" | "typical"}`` from a peer's earlier run (``net,prop,result,
    user,sys,wall``): the ``hardest`` largest CPU (user + sys) and ``typical`` around the median.

    >>> import io
    >>> text = "net,prop,result,user,sys,wall\\n" + "".join(f"1_{k},1,holds,{k},0,{k}\\n" for k in range(1, 8))
    >>> sample_by_prior(io.StringIO(text), 2, 3)
    {'1_7 prop_1': 'hardest', '1_6 prop_1': 'hardest', '1_5 prop_1': 'typical', '1_4 prop_1': 'typical', '1_3 prop_1': 'typical'}
    """
    import csv

    rows = list(csv.DictReader(prior.read().splitlines() if hasattr(prior, "read")
                               else Path(prior).read_text(encoding="utf-8").splitlines()))
    cost = sorted(((float(r["user"]) + float(r["sys"]), f"{r['net']} prop_{r['prop']}") for r in rows), reverse=True)
    names = [name for _, name in cost]
    out = {name: "hardest" for name in names[:hardest]}
    start = max(hardest, len(names) // 2 - typical // 2)   # centred on the median, none of the hardest
    out.update({name: "typical" for name in names[start:start + typical]})
    return out


def _loads(records) -> str:
    xs = sorted(r["load"] for r in records)
    return f"{xs[0]:g} to {xs[-1]:g}, median {statistics.median(xs):g}" if xs else "none"


def body(records, results, peer: str, note: str, hardest: int = 10) -> list[str]:
    """The section's text: the summary sentences, the goal's table (against nnenum), the
    per-instance table and the list of refuted verdicts."""
    from benchmarks.__main__ import _table

    name = NAMES[peer]
    s = decided_summary(records, peer)
    c = s["cpu on both"]
    lines = [__doc__.strip().splitlines()[0], "",
             f"**Decided, of {s['n']}: symrel {s['decided']['symrel']}, {name} {s['decided'][peer]}** "
             f"(symrel alone {s['alone']['symrel']}, {name} alone {s['alone'][peer]}; every symrel unsat checked by the "
             "trusted checker, every sat an exact witness).",
             f"On the {s['both']} instances both decided, CPU seconds in all: symrel {c['symrel']:.1f} "
             f"(search {c['symrel search']:.1f}, trusted check {c['symrel check']:.1f}), {name} {c[peer]:.1f}"
             + (f": symrel / {name} = {c['symrel'] / c[peer]:.2f} (search alone {c['symrel search'] / c[peer]:.2f})."
                if c[peer] else "."),
             f"The 1-minute load over the rows: {_loads(records)} (2 cores).", ""]
    if peer == "nnenum":
        g = acas_goal(records, peer, hardest)
        if g["median"]:
            m = g["median"]
            lines += [f"Goal on the median instance ({m['over']}): symrel's search {m['symrel search']} CPU s against "
                      f"nnenum's {m['peer']} ({'met' if m['search <= peer'] else 'not met'}); search + check "
                      f"{m['symrel search + check']} against twice nnenum's "
                      f"({'met' if m['search + check <= 2 peer'] else 'not met'}).", ""]
        hard = g["hardest"]
        lines += [f"The {len(hard)} hardest by nnenum's CPU in this session: symrel's search at most nnenum's on "
                  f"{sum(h['search <= peer'] for h in hard)}, search + check at most twice nnenum's on "
                  f"{sum(h['search + check <= 2 peer'] for h in hard)} (an undecided instance counts as its limit "
                  "and fails):", ""]
        yes_no = {True: "yes", False: "no"}
        lines += _table([{k.replace("peer", "nnenum"): yes_no.get(v, v) if isinstance(v, bool) else v
                          for k, v in h.items()} for h in hard]) + [""]
    lines += _table(instance_rows(records, results, peer)) + [""]
    refuted = []
    for key, tools in by_instance(records).items():
        j = agreement({t: r["verdict"] for t, r in tools.items()}, results.get(key, []))
        first = next(iter(tools.values()))
        if j["refuted"]:
            refuted.append({"instance": first["instance"], "symrel (exact)": _shown(tools["symrel"], "symrel"),
                            "refuted": ", ".join(j["refuted"])})
        elif j["open"]:
            refuted.append({"instance": first["instance"], "symrel (exact)": _shown(tools.get("symrel"), "symrel"),
                            "open: holds": ", ".join(j["open"]["holds"]), "open: violated": ", ".join(j["open"]["violated"])})
    if refuted:
        lines += ["Verdicts refuted by symrel's exact answers (this session's tools, and the 2021 entrants as "
                  "`2021 NAME`), and disagreements symrel left open:", ""] + _table(refuted) + [""]
    else:
        lines += ["Every decided verdict agrees with symrel's exact ones and with the 2021 entrants'.", ""]
    return lines + [note]


def run():
    """``python -m benchmarks``: too long for the page's run; the command is in the module's docstring."""
    return {"instance": "run by hand: python -m benchmarks.bench_peers (see docs/benchmarks.md)"}


def main(argv=None) -> int:  # pragma: no cover - a script
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_peers", description=__doc__.splitlines()[0])
    ap.add_argument("--instances", metavar="L.csv", action="append", required=True,
                    help="a competition instance list (onnx,vnnlib,timeout); may be given more than once")
    ap.add_argument("--data", metavar="DIR", help="the folder the lists' paths are relative to (default: each list's)")
    ap.add_argument("--tools", default="symrel,marabou", help="comma-separated: symrel, marabou, nnenum (default symrel,marabou)")
    ap.add_argument("--only", metavar="PATTERN", help="only the instances whose name or paths match this regular expression")
    ap.add_argument("--every", type=int, default=1, metavar="K", help="every K-th instance of each list (after --only)")
    ap.add_argument("--limit", type=int, metavar="N", help="at most N instances of each list (after --every)")
    ap.add_argument("--sample", metavar="PRIOR.csv", help="pick instances from a peer's earlier run (with --hardest, --typical)")
    ap.add_argument("--hardest", type=int, default=10, metavar="N", help="with --sample: the N hardest (default 10)")
    ap.add_argument("--typical", type=int, default=10, metavar="N", help="with --sample: N around the median (default 10)")
    ap.add_argument("--rows", metavar="R.jsonl", help="append each record to this file as it is measured")
    ap.add_argument("--resume", action="store_true", help="with --rows: keep the records already there, run the rest")
    ap.add_argument("--out", metavar="PAGE", help="write the section into this page (e.g. docs/benchmarks.md)")
    ap.add_argument("--title", help="the section's title (default: bench_peers: CATEGORIES against PEER)")
    ap.add_argument("--marabou", type=Path, default=Paths.marabou, help="Marabou's command (default: %(default)s)")
    ap.add_argument("--nnenum", type=Path, default=Paths.nnenum, help="a clone of nnenum (default: %(default)s)")
    ap.add_argument("--nnenum-python", type=Path, default=Paths.nnenum_python, help="its interpreter (default: %(default)s)")
    args = ap.parse_args(argv)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    paths = Paths(args.marabou, args.nnenum, args.nnenum_python)
    problems = [m for m in (paths.missing(t) for t in tools) if m]
    if problems:
        print(f"python -m benchmarks.bench_peers: error: {'; '.join(problems)}", file=sys.stderr)
        return 2
    groups = sample_by_prior(args.sample, args.hardest, args.typical) if args.sample else None
    instances = []
    for listing in args.instances:
        chosen = select(read_list(listing, args.data), args.only)
        if groups is not None:
            chosen = [i for i in chosen if i.name in groups]
        instances += chosen[::args.every][:args.limit]
    done = read_rows(args.rows) if args.resume and args.rows and Path(args.rows).exists() else None
    from benchmarks.__main__ import _machine, load

    print(f"{len(instances)} instances x {tools}; {_machine()}; load {load()}", flush=True)
    results = load_2021()
    records = measure(instances, tools, paths=paths, rows_file=args.rows, done=done, groups=groups)
    import shlex
    import subprocess as sp

    commit = sp.run(["git", "-C", str(ROOT), "log", "-1", "--format=%h %cd", "--date=format:%Y-%m-%d"],
                    capture_output=True, text=True).stdout.strip() or "unknown"
    shown = " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    peers = [t for t in tools if t != "symrel"]
    stamps = sorted(r["at"] for r in records)
    note = (f"`python -m benchmarks.bench_peers {shown}`; measured {stamps[0]} to {stamps[-1]} UTC"
            f" ({sum(r['cpu'] for r in records):.0f} CPU s of the tools in all); symrel at commit {commit}; {_machine()}; "
            "every tool one process, the limit on the CPU time (user + system) of its process tree; the 1-minute "
            "load read before each tool's run in `load` (symrel / the peer).")
    text = []
    for peer in peers:
        text += body(records, results, peer, note, args.hardest) + [""]
    cats = sorted({i.category for i in instances})
    title = args.title or f"bench_peers: {', '.join(cats)} against {', '.join(NAMES[p] for p in peers)}"
    if args.out:
        from benchmarks.bench_vnncomp import write_section

        write_section(args.out, title, text)
        print(f"wrote {args.out}")
    else:
        print("\n".join(text))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
