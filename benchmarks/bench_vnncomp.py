"""VNN-COMP instance lists decided by symrel with the competition's limits, beside the 2021 entrants' verdicts.

``python -m benchmarks.bench_vnncomp --instances L.csv [--data DIR] [--only PATTERN] [--limit N]
[--timeout-scale F] [--workers N] [--rows R.jsonl] [--out docs/benchmarks.md]``

Each line of the instance list (``onnx,vnnlib,timeout``, paths relative to the list's folder, or
to ``--data DIR``) is run as the competition runs a tool: in a fresh process (its start-up and
imports count), with the line's timeout (times ``--timeout-scale``) as the limit on the whole
run's wall time, the search on a pool of one worker process per usable core (``--workers``);
the process is killed 60 s past the limit, as the competition's harness kills a tool. symrel's
answer is the one ``symrel verify`` gives: ``unsat`` only after the trusted checker accepted the
certificate (read back from its file), ``sat`` only with an exact witness; an answer after the
limit counts as ``timeout``. Each row gives the answer, the wall time of the whole run and of
reading the files, the search's and the check's wall and CPU time (the CPU time of this
process and of its reaped workers), the search's nodes, the peak resident memory of the main
process and of the largest worker, the load, and the 2021 entrants' verdicts on the instance.

The 2021 verdicts are ``benchmarks/data/vnncomp2021_results.csv``, made by
``--import-2021-results DIR`` from the folder ``results_csv/`` of the competition's results
repository (see ``benchmarks/data/README.md``): one row per instance, one column per tool, each
verdict renamed as the competition's scorer renames it (``holds``, ``violated``, ``timeout``,
``error``, ``unknown``) and a decided one followed by the tool's run time in seconds. An
instance is a *conflict* when some entrant said holds and another violated; symrel *settles* it
by deciding it (an exact witness says who claimed ``holds`` wrongly, a checked certificate who
claimed ``violated`` wrongly).

``python -m benchmarks`` (:func:`run`) runs the competition's test set.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS_2021 = HERE / "data" / "vnncomp2021_results.csv"
SHARED = ROOT.parent / "shared" / "data" / "vnncomp2021"
#: seconds past an instance's timeout at which its process is killed (the competition's harness)
KILL_AFTER = 60

# -- the 2021 entrants' verdicts ---------------------------------------------------------------------

#: the scorer's renamings (process_results.py of stanleybak/vnncomp2021_results), in its order
SUBSTITUTIONS = (("unsat", "holds"), ("sat", "violated"), ("no_result_in_file", "unknown"),
                 ("prepare_instance_error_", "unknown"), ("run_instance_timeout", "timeout"),
                 ("error_exit_code_", "error"))
VERDICTS = ("holds", "violated", "timeout", "error", "unknown")
#: symrel's answer in the competition's words
AS_2021 = {"unsat": "holds", "sat": "violated"}


def scorer_verdict(raw: str) -> str:
    """The verdict the 2021 scorer reads in a results CSV's result column.

    >>> [scorer_verdict(r) for r in ("UNSAT", "sat", "", "error_exit_code_1", "run_instance_timeout")]
    ['holds', 'violated', 'unknown', 'error', 'timeout']
    """
    out = raw.strip().lower()
    for prefix, name in SUBSTITUTIONS:
        if out == "":
            out = "unknown"
        elif out.startswith(prefix):
            out = name
    if out not in VERDICTS:
        raise ValueError(f"expected a competition result, got {raw!r}")
    return out


def instance_key(category: str, onnx: str, vnnlib: str) -> tuple[str, str, str]:
    """``(category, onnx, vnnlib)`` with the paths relative to the category's folder, normalised
    (the results CSVs write ``./benchmarks/verivital/./specs/x.vnnlib``, the instance lists
    ``./specs/x.vnnlib``).

    >>> instance_key("verivital", "./benchmarks/verivital/C.onnx", "./benchmarks/verivital/./specs/p.vnnlib")
    ('verivital', 'C.onnx', 'specs/p.vnnlib')
    """
    def rel(path: str) -> str:
        path = os.path.normpath(path.strip())
        prefix = os.path.join("benchmarks", category) + os.sep
        return path[len(prefix):] if path.startswith(prefix) else path
    return category, rel(onnx), rel(vnnlib)


def import_2021_results(folder, out=RESULTS_2021, categories=("test", "acasxu", "mnistfc", "verivital")) -> int:
    """Write the data file from the competition's ``results_csv/*.csv`` (one per tool; columns:
    category, onnx, vnnlib, prepare time, result, run time): the instances of ``categories``,
    the first row of each (a category's lists end with an overhead run of the test set's
    networks, which is skipped outside ``test``). Returns the number of instances."""
    tools, table = [], {}
    for path in sorted(Path(folder).glob("*.csv"), key=lambda p: p.stem.lower()):
        tools.append(path.stem)
        for number, row in enumerate(csv.reader(path.read_text(encoding="utf-8").splitlines()), 1):
            if len(row) != 6:
                raise ValueError(f"{path}: line {number}: expected 6 columns, got {len(row)}")
            category, onnx, vnnlib, _, result, seconds = row
            if category not in categories or (category != "test" and "/benchmarks/test/" in onnx):
                continue
            key = instance_key(category, onnx, vnnlib)
            cells = table.setdefault(key, {})
            if path.stem not in cells:
                verdict = scorer_verdict(result)
                cells[path.stem] = f"{verdict} {float(seconds):.2f}" if verdict in ("holds", "violated") else verdict
    with open(out, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["category", "onnx", "vnnlib", *tools])
        for key in sorted(table, key=lambda k: (k[0], _natural(k[1]), _natural(k[2]))):
            writer.writerow([*key, *(table[key].get(t, "") for t in tools)])
    return len(table)


def _natural(text: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


@dataclass(frozen=True)
class Entrant:
    """One tool's 2021 verdict on an instance: ``seconds`` is its run time when it decided."""

    tool: str
    verdict: str
    seconds: float | None = None


def load_2021(path=RESULTS_2021) -> dict:
    """``{(category, onnx, vnnlib): [Entrant, ...]}`` from the data file (tools that did not run
    the instance are left out)."""
    rows = list(csv.reader(Path(path).read_text(encoding="utf-8").splitlines()))
    tools = rows[0][3:]
    out = {}
    for row in rows[1:]:
        entrants = []
        for tool, cell in zip(tools, row[3:]):
            if not cell:
                continue
            verdict, *seconds = cell.split()
            if verdict not in VERDICTS:
                raise ValueError(f"{path}: expected a verdict, got {cell!r}")
            entrants.append(Entrant(tool, verdict, float(seconds[0]) if seconds else None))
        out[tuple(row[:3])] = entrants
    return out


def conflict(entrants) -> tuple[list[str], list[str]]:
    """``(tools that said holds, tools that said violated)``; a conflict when both are non-empty.

    >>> conflict([Entrant("a", "holds", 1.0), Entrant("b", "violated", 2.0), Entrant("c", "timeout")])
    (['a'], ['b'])
    """
    holds = [e.tool for e in entrants if e.verdict == "holds"]
    violated = [e.tool for e in entrants if e.verdict == "violated"]
    return holds, violated


def judgement(symrel: str, entrants) -> dict:
    """What symrel's answer says of the entrants: ``conflict`` (yes/no), ``settled`` (which side
    symrel's exact answer proves right, when the entrants conflicted), ``wrong`` (the tools whose
    decided verdict symrel's answer refutes, conflict or not).

    >>> e = [Entrant("a", "holds", 1.0), Entrant("b", "violated", 2.0), Entrant("c", "holds", 3.0)]
    >>> judgement("sat", e)
    {'conflict': True, 'settled': 'violated', 'wrong': ['a', 'c']}
    >>> judgement("unknown", e)["settled"], judgement("unsat", e[:1])
    (None, {'conflict': False, 'settled': None, 'wrong': []})
    """
    holds, violated = conflict(entrants)
    is_conflict = bool(holds and violated)
    side = AS_2021.get(symrel)
    wrong = violated if side == "holds" else holds if side == "violated" else []
    return {"conflict": is_conflict, "settled": side if is_conflict else None, "wrong": list(wrong)}


# -- the instance list -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Instance:
    category: str
    onnx: Path
    vnnlib: Path
    rel_onnx: str
    rel_vnnlib: str
    timeout: float

    @property
    def name(self) -> str:
        """A short name: ``1_1 prop_3`` for ACAS Xu, else the two stems."""
        net = Path(self.rel_onnx).stem
        m = re.fullmatch(r"ACASXU_run2a_(\d_\d)_batch_2000", net)
        return f"{m.group(1) if m else net} {Path(self.rel_vnnlib).stem}"


def category_of(listing: Path) -> str:
    """The competition's category of an instance list: ``acasxu`` for ``acasxu_instances.csv``
    (and ``instances.csv`` in a folder ``acasxu``)."""
    stem = listing.stem
    return stem[: -len("_instances")] if stem.endswith("_instances") else listing.parent.name


def read_list(listing, data=None) -> list[Instance]:
    """The instances of a competition list (``onnx,vnnlib,timeout``; paths relative to ``data``,
    by default the list's folder)."""
    listing = Path(listing)
    base = Path(data) if data else listing.parent
    category = category_of(listing)
    out = []
    for number, row in enumerate(csv.reader(listing.read_text(encoding="utf-8").splitlines()), 1):
        if not row or row[0].lstrip().startswith("#"):
            continue
        if len(row) != 3:
            raise ValueError(f"{listing}: line {number}: expected onnx,vnnlib,timeout, got {row}")
        onnx, vnnlib, timeout = (c.strip() for c in row)
        _, rel_onnx, rel_vnnlib = instance_key(category, onnx, vnnlib)
        out.append(Instance(category, base / onnx, base / vnnlib, rel_onnx, rel_vnnlib, float(timeout)))
    return out


def select(instances, only=None, limit=None) -> list[Instance]:
    """The instances whose name (``1_1 prop_3``) or file paths match the regular expression
    ``only``, the first ``limit`` of them.

    >>> xs = [Instance("acasxu", Path(f"n{k}.onnx"), Path("p.vnnlib"), f"n{k}.onnx", "p.vnnlib", 1.0) for k in range(3)]
    >>> [i.name for i in select(xs, only="n[12]")], len(select(xs, limit=2))
    (['n1 p', 'n2 p'], 2)
    """
    pattern = re.compile(only) if only else None
    chosen = [i for i in instances if pattern is None or pattern.search(i.name)
              or pattern.search(f"{i.rel_onnx} {i.rel_vnnlib}")]
    return chosen[:limit] if limit is not None else chosen


# -- one instance, in a process of its own ----------------------------------------------------------

def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (the pool's workers,
    once the pool is shut down)."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _peak_mib() -> tuple[float, float]:
    """Peak resident memory, MiB: of this process, and of the largest child that has ended."""
    import resource

    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)


def decide_instance(onnx, vnnlib, timeout: float, workers: int, started: float) -> dict:
    """What ``symrel verify`` does, measured: read, search (on ``workers`` processes, the time
    left of ``timeout`` counted from ``started``, a ``time.time()``), then the trusted check of
    an unsat certificate read back from its file. Runs in the child process."""
    from symrel.checking import CertificateError, check_certificate
    from symrel.cli.executors import open_executor
    from symrel.errors import InputError
    from symrel.fileformat import read_json, write_json_atomic
    from symrel.verification.files import output_dim, read_network as load_net
    from symrel.vnnlib.layered.dispatch import decide_any as decide  # the engine of the net's kind, as verify
    from symrel.vnnlib.reader import read_vnnlib

    out = {"started": started}
    t, c = time.time(), _cpu()
    try:
        net = load_net(onnx)
        prop = read_vnnlib(vnnlib, n_inputs=net.input_dim, n_outputs=output_dim(net))
    except InputError as err:
        return dict(out, result="error", reason=err.one_line())
    out["read_s"] = time.time() - t
    left = timeout - (time.time() - started)
    if left <= 0:
        return dict(out, result="timeout", reason="the limit passed while reading the files")
    t, c = time.time(), _cpu()
    try:
        with open_executor(f"processes:{workers}" if workers > 1 else None) as executor:
            verdict = decide(net, prop, timeout=left, executor=executor)
    except InputError as err:
        return dict(out, result="error", reason=err.one_line())
    out.update(search_s=time.time() - t, search_cpu_s=_cpu() - c, nodes=verdict.stats.get("nodes"),
               result=verdict.status, limit=verdict.limit)
    if verdict.status == "unsat":
        with tempfile.TemporaryDirectory(prefix="bench-vnncomp-") as scratch:
            path = Path(scratch) / "certificate.json"
            write_json_atomic(path, verdict.certificate)
            t, c = time.time(), _cpu()
            try:   # here, serially: the CPU of a pool's workers is counted only once it is shut down
                check_certificate(read_json(path))
                message = None
            except CertificateError as err:
                message = str(err)
            out.update(check_s=time.time() - t, check_cpu_s=_cpu() - c)
        if message is not None:
            out.update(result="error", reason=f"certificate rejected: {message}")
    out["rss_mib"], out["worker_rss_mib"] = _peak_mib()
    return out


def measure(inst: Instance, timeout: float, workers: int) -> dict:
    """Run :func:`decide_instance` on ``inst`` in a fresh process, killed with its workers
    ``KILL_AFTER`` seconds past ``timeout``; the row's measurements."""
    with tempfile.TemporaryDirectory(prefix="bench-vnncomp-") as scratch:
        result = Path(scratch) / "row.json"
        started = time.time()
        argv = [sys.executable, "-m", "benchmarks.bench_vnncomp", "--one", str(inst.onnx), str(inst.vnnlib),
                repr(timeout), str(workers), repr(started), str(result)]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
                   OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        with open(Path(scratch) / "stderr.txt", "w+") as err:
            proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err,
                                    start_new_session=True)
            try:
                code = proc.wait(timeout=timeout + KILL_AFTER)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait()
                return {"result": "timeout", "wall_s": time.time() - started, "reason": "killed"}
            wall = time.time() - started
            err.seek(0)
            tail = err.read().strip().splitlines()[-1:] or [""]
        if code != 0 or not result.exists():
            return {"result": "error", "wall_s": wall, "reason": f"exit {code}: {tail[0][:200]}"}
        row = json.loads(result.read_text())
    row["wall_s"] = wall
    if row["result"] in ("sat", "unsat") and wall > timeout:
        row.update(result="timeout", late=row["result"])
    elif row["result"] == "unknown" and row.get("limit") == "time":
        row["result"] = "timeout"
    return row


# -- the table ----------------------------------------------------------------------------------------

def _s(v, digits=2):
    return None if v is None else round(v, digits)


def table_row(inst: Instance, m: dict, entrants, load: float) -> dict:
    """One row of the page: the measurements ``m`` of :func:`measure` and the 2021 verdicts."""
    holds, violated = conflict(entrants)
    j = judgement(m["result"], entrants)
    others = len(entrants) - len(holds) - len(violated)
    decided = [e for e in entrants if e.seconds is not None]
    fastest = min(decided, key=lambda e: e.seconds) if decided else None
    result = m["result"] + (f" (a late {m['late']})" if m.get("late") else "")
    return {
        "instance": inst.name, "limit s": _s(m.get("limit_s", inst.timeout), 1), "symrel": result, "wall s": _s(m.get("wall_s")),
        "read s": _s(m.get("read_s")), "search s": _s(m.get("search_s")), "search CPU s": _s(m.get("search_cpu_s")),
        "check s": _s(m.get("check_s")), "check CPU s": _s(m.get("check_cpu_s")), "nodes": m.get("nodes"),
        "RSS MiB": f"{m['rss_mib']:.0f} / {m['worker_rss_mib']:.0f}" if "rss_mib" in m else None,
        "load": load,
        "2021 holds / violated / other": f"{len(holds)} / {len(violated)} / {others}" if entrants else "not run",
        "2021 fastest": f"{fastest.tool} {fastest.seconds:.1f} s" if fastest else None,
        "conflict": ("yes, settled: " + j["settled"] if j["settled"] else "yes, open") if j["conflict"] else "no",
        "refuted by symrel": ", ".join(j["wrong"]) or None,
    }


def conflict_rows(instances, rows, results) -> list[dict]:
    """The conflicts, and the instances where symrel refutes an entrant: who was on which side."""
    out = []
    for inst, row in zip(instances, rows):
        entrants = results.get((inst.category, inst.rel_onnx, inst.rel_vnnlib), [])
        holds, violated = conflict(entrants)
        j = judgement(row["symrel"].split()[0], entrants)
        if j["conflict"] or j["wrong"]:
            out.append({"instance": inst.name, "holds (unsat)": ", ".join(holds) or None,
                        "violated (sat)": ", ".join(violated) or None, "symrel": row["symrel"],
                        "settled": j["settled"] or ("no" if j["conflict"] else "no conflict"),
                        "wrong in 2021": ", ".join(j["wrong"]) or None})
    return out


def summary(instances, rows, results) -> list[str]:
    """Sentences: how many symrel decided against each 2021 tool on the same instances, and the
    conflicts settled."""
    n = len(rows)
    answers = [r["symrel"].split()[0] for r in rows]
    unsat, sat = answers.count("unsat"), answers.count("sat")
    per_tool: dict[str, int] = {}
    for inst in instances:
        for e in results.get((inst.category, inst.rel_onnx, inst.rel_vnnlib), []):
            per_tool[e.tool] = per_tool.get(e.tool, 0) + (e.verdict in ("holds", "violated"))
    ranked = sorted(per_tool.items(), key=lambda kv: (-kv[1], kv[0]))
    conflicts = [judgement(a, results.get((i.category, i.rel_onnx, i.rel_vnnlib), []))
                 for a, i in zip(answers, instances)]
    n_conf = sum(c["conflict"] for c in conflicts)
    settled = sum(c["settled"] is not None for c in conflicts)
    lines = [f"**symrel decided {unsat + sat} of {n}** ({unsat} unsat, every certificate checked; {sat} sat, "
             f"every witness exact)" + _undecided(answers) + "."]
    if ranked:
        lines.append("The 2021 entrants on the same instances (decided, by the scorer's reading): "
                     + ", ".join(f"{tool} {k}" for tool, k in ranked) + ".")
    lines.append(f"Conflicts among the 2021 entrants: {n_conf}; settled by symrel: {settled}."
                 if n_conf else "No conflict among the 2021 entrants on these instances.")
    return lines


def _undecided(answers) -> str:
    """The instances left undecided, by outcome: ``"; 3 timeout, 1 error"`` (empty when none)."""
    left: dict[str, int] = {}
    for a in answers:
        if a not in ("sat", "unsat"):
            left[a] = left.get(a, 0) + 1
    return "".join(f"; {k} {a}" for a, k in sorted(left.items()))


def section(title: str, body: list[str]) -> str:
    return "\n".join([f"## {title}", "", *body, ""])


def write_section(page, title: str, body: list[str]) -> None:
    """Replace the section ``## title`` of ``page`` (up to the next ``## `` or marker), or add it
    before the hand-run parts (the first ``<!--`` marker); the rest of the page is kept."""
    from symrel.fileformat import write_text_atomic

    page = Path(page)
    text = page.read_text(encoding="utf-8") if page.exists() else "# Benchmarks\n\n"
    new = section(title, body)
    head = f"## {title}\n"
    if head in text:
        start = text.index(head)
        ends = [i for i in (text.find("\n## ", start + 1), text.find("\n<!--", start + 1)) if i >= 0]
        end = min(ends) + 1 if ends else len(text)
        text = text[:start] + new + "\n" + text[end:]
    else:
        at = text.find("\n<!--")
        text = text + "\n" + new if at < 0 else text[:at + 1] + new + "\n" + text[at + 1:]
    write_text_atomic(page, text)


def body(instances, rows, results, note: str) -> list[str]:
    from benchmarks.__main__ import _table

    out = [__doc__.strip().splitlines()[0], "", *summary(instances, rows, results), ""] + _table(rows) + [""]
    conflicts = conflict_rows(instances, rows, results)
    if conflicts:
        out += ["Conflicts among the 2021 entrants, and entrants refuted by symrel's exact answers:", ""]
        out += _table(conflicts) + [""]
    return out + [note]


def kept_rows(rows_file) -> dict:
    """The rows an earlier run appended to ``rows_file``, by instance (category, onnx, vnnlib);
    none when the file does not exist. A later row of the same instance replaces an earlier one.

    >>> kept_rows("no-such-rows-file.jsonl")
    {}
    """
    path = Path(rows_file)
    if not path.exists():
        return {}
    kept = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            kept[tuple(record["instance"])] = record["row"]
    return kept


def run_list(instances, *, scale=1.0, workers=None, rows_file=None, results=None, echo=True, resume=False) -> list[dict]:
    """Measure every instance in turn; the table's rows. ``resume``: an instance that already
    has a row in ``rows_file`` (an interrupted run's) keeps it and is not run again."""
    from benchmarks.__main__ import cores, load

    workers = cores() if workers is None else workers
    results = load_2021() if results is None else results
    kept = kept_rows(rows_file) if resume and rows_file else {}
    rows = []
    for inst in instances:
        if (inst.category, inst.rel_onnx, inst.rel_vnnlib) in kept:
            rows.append(kept[(inst.category, inst.rel_onnx, inst.rel_vnnlib)])
            continue
        limit = inst.timeout * scale
        m = measure(inst, limit, workers)
        m["limit_s"] = limit
        row = table_row(inst, m, results.get((inst.category, inst.rel_onnx, inst.rel_vnnlib), []), load())
        if m.get("reason"):
            row["note"] = m["reason"]
        rows.append(row)
        if echo:
            print(f"[bench_vnncomp] {json.dumps(row)}", file=sys.stderr, flush=True)
        if rows_file:
            with open(rows_file, "a", encoding="utf-8") as fh:
                fh.write(json.dumps({"instance": [inst.category, inst.rel_onnx, inst.rel_vnnlib], "row": row}) + "\n")
    return rows


def run():
    """``python -m benchmarks``: the competition's test set, with its limits."""
    listing = SHARED / "test" / "test_instances.csv"
    if not listing.exists():
        return {"instance": "skipped: ../shared/data/vnncomp2021 absent"}
    return run_list(read_list(listing))


def main(argv=None) -> int:  # pragma: no cover - a script
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_vnncomp", description=__doc__.splitlines()[0])
    ap.add_argument("--instances", metavar="L.csv", help="a competition instance list (onnx,vnnlib,timeout)")
    ap.add_argument("--data", metavar="DIR", help="the folder the list's paths are relative to (default: the list's)")
    ap.add_argument("--only", metavar="PATTERN", help="only the instances whose name (1_1 prop_3) or paths match this regular expression")
    ap.add_argument("--limit", type=int, metavar="N", help="only the first N instances (after --only)")
    ap.add_argument("--timeout-scale", type=float, default=1.0, metavar="F", help="multiply every timeout by F (default 1)")
    ap.add_argument("--workers", type=int, metavar="N", help="worker processes of each search (default: the usable cores; 1: serial)")
    ap.add_argument("--rows", metavar="R.jsonl", help="append each row to this file as it is measured")
    ap.add_argument("--resume", action="store_true",
                    help="with --rows: keep the rows already there (an interrupted run's), run the other instances")
    ap.add_argument("--out", metavar="PAGE", help="write the table into this page's section (e.g. docs/benchmarks.md)")
    ap.add_argument("--title", help="the section's title (default: bench_vnncomp: CATEGORY)")
    ap.add_argument("--import-2021-results", metavar="DIR",
                    help="write benchmarks/data/vnncomp2021_results.csv from the competition's results_csv/ folder; no run")
    ap.add_argument("--one", nargs=6, help=argparse.SUPPRESS)  # the child process: onnx vnnlib timeout workers started out
    args = ap.parse_args(argv)
    if args.one:
        onnx, vnnlib, timeout, workers, started, out = args.one
        row = decide_instance(onnx, vnnlib, float(timeout), int(workers), float(started))
        Path(out).write_text(json.dumps(row))
        return 0
    if args.import_2021_results:
        n = import_2021_results(args.import_2021_results)
        print(f"wrote {RESULTS_2021} ({n} instances)")
        return 0
    if not args.instances:
        ap.error("give --instances L.csv (or --import-2021-results DIR)")
    from benchmarks.__main__ import _machine, cores, load, load_note

    instances = select(read_list(args.instances, args.data), args.only, args.limit)
    workers = args.workers or cores()
    before, start = load(), time.time()
    print(f"{len(instances)} instances; {_machine()}; {workers} workers per search; load {before}", flush=True)
    results = load_2021()
    if args.resume and not args.rows:
        ap.error("--resume needs --rows R.jsonl")
    kept = kept_rows(args.rows) if args.resume else {}
    before_rows = sum((i.category, i.rel_onnx, i.rel_vnnlib) in kept for i in instances)
    rows = run_list(instances, scale=args.timeout_scale, workers=workers, rows_file=args.rows, results=results,
                    resume=args.resume)
    took = time.time() - start
    from datetime import datetime, timezone

    from benchmarks.__main__ import _table

    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    import shlex

    shown = " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    resumed = (f" ({before_rows} rows kept from earlier runs in the rows file, each with its own load)"
               if before_rows else "")
    note = (f"`python -m benchmarks.bench_vnncomp {shown}`, {stamp}: {len(rows)} instances{resumed}, this run {took:.0f} s; "
            f"{_machine()}; each search on {workers} worker process(es); {load_note(before, load(), cores())}. "
            "`RSS MiB`: peak resident memory of the main process / of the largest worker.")
    text = body(instances, rows, results, note)
    if args.out:
        write_section(args.out, args.title or f"bench_vnncomp: {instances[0].category if instances else 'none'}", text)
        print(f"wrote {args.out}")
    else:
        print("\n".join(text))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
