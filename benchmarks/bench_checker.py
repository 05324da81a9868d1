"""Time of the trusted checker, ``check_certificate``, on the certificates of the bench_prove
depths and of ACAS Xu 1_1 against its compiled Transformer; before and after a change.

Certificates: the layer-by-layer proofs of :mod:`benchmarks.bench_prove` (maxout net, input
dim 8, width 32, rank 4, on [-1, 1]^8, depths 1 to 8) and the proof that ACAS Xu 1_1 (the
``.nnet`` in ``../shared/data/acasxu``, 5 inputs, 6 ReLU layers of 50) equals its compiled
Transformer on its whole normalised input box. Each is written to JSON, read back, and
``check_certificate`` runs on the parsed dict; the time is the best of ``repeat`` calls, in
CPU seconds of the process (``time.process_time``) and in wall seconds, with the load
average before and after. CPU time is the steadier figure on a shared machine: it does not
count the time other processes hold the core, though it still varies with cache sharing.

``python -m benchmarks.bench_checker``: this tree only (also a section of ``python -m
benchmarks``). ``python -m benchmarks.bench_checker --compare-commit ba53797 [--rounds 3]``:
commit C (``git archive`` into a temporary directory) and this tree each prove and write
their own certificates, since a newer prover may write fields an older checker refuses;
then in ``rounds`` alternating rounds, each a fresh process, C's checker checks C's
certificates, this tree's checker checks this tree's, and this tree's checker checks C's
(reported as "refused" when the format no longer allows it). Each figure keeps its best
round. Cost: about 30 s of proving per tree, and about 10 s per round per tree on an idle
machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEPTHS = tuple(range(1, 9))

# Runs in a fresh process against one tree (sys.path[0] is that tree); the standard library
# and that tree's symrel only, and only names that exist in every tree compared.
_WORKER = r'''
import json, os, random, sys, time
tree, mode, out = sys.argv[1:4]
sys.path.insert(0, tree)
load = lambda: round(os.getloadavg()[0], 2)


def write(folder, nnet, depths):
    from symrel.certificates.io import certificate_of
    from symrel.compiler import compile_maxout, compile_model
    from symrel.models import Box
    from symrel.prover import prove_equivalence
    try:
        from symrel.constructions.random import random_maxout_net
    except ImportError:  # before the constructions left models/
        from symrel.models.random import random_maxout_net
    names = []
    for depth in depths:
        net = random_maxout_net(random.Random(0), 8, [32] * depth, rank=4, max_num=8, max_den=4)
        D = Box.cube(8)
        proof = prove_equivalence(net, compile_maxout(net, D).transformer, D)
        assert proof.result == "proved", proof.obstacle
        names.append((f"bench_prove depth {depth}", certificate_of(proof)))
    if nnet:
        from symrel.interop.nnet import read_nnet
        from symrel.mutation.decision import acas_box
        net, D = read_nnet(nnet), acas_box(nnet)
        proof = prove_equivalence(net, compile_model(net, D).transformer, D)
        assert proof.result == "proved", proof.obstacle
        names.append(("ACAS Xu 1_1 = its compiled Transformer", certificate_of(proof)))
    index = []
    for i, (name, cert) in enumerate(names):
        path = os.path.join(folder, f"cert{i}.json")
        with open(path, "w") as f:
            json.dump(cert, f)
        index.append({"name": name, "path": path, "kB": os.path.getsize(path) // 1024})
    return index


def check(index, repeat):
    from symrel.checking import check_certificate
    rows = []
    for entry in index:
        with open(entry["path"]) as f:
            text = f.read()
        row = {"name": entry["name"], "load_before": load()}
        cpu, wall = [], []
        try:
            for _ in range(repeat):
                cert = json.loads(text)
                w, c = time.perf_counter(), time.process_time()
                check_certificate(cert)
                cpu.append(time.process_time() - c)
                wall.append(time.perf_counter() - w)
            row.update(cpu_s=min(cpu), wall_s=min(wall))
        except Exception as err:  # a refusal (a newer field an older checker does not know)
            row.update(refused=f"{type(err).__name__}: {str(err)[:200]}")
        row["load_after"] = load()
        rows.append(row)
    return rows


args = json.loads(sys.argv[4])
result = write(args["folder"], args["nnet"], args["depths"]) if mode == "write" else check(args["index"], args["repeat"])
with open(out, "w") as f:
    json.dump(result, f)
'''


def nnet_path() -> str | None:
    """The ACAS Xu 1_1 ``.nnet`` beside this tree (``../shared``) or in ``/work/shared``, or None."""
    for shared in (ROOT.parent / "shared", Path("/work/shared")):
        p = shared / "data" / "acasxu" / "ACASXU_experimental_v2a_1_1.nnet"
        if p.exists():
            return str(p)
    return None


def _run(tree: Path, mode: str, args: dict, timeout: float = 1800):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = Path(f.name)
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
    try:
        proc = subprocess.run([sys.executable, "-c", _WORKER, str(tree), mode, str(out), json.dumps(args)],
                              cwd=str(tree), env=env, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"{mode} on {tree} failed: {proc.stderr.strip().splitlines()[-1:]}")
        return json.loads(out.read_text())
    finally:
        out.unlink(missing_ok=True)


def write_certificates(tree: Path, folder: Path, depths=DEPTHS, acas: bool = True) -> list[dict]:
    """Prove with ``tree``'s prover and write the certificates into ``folder``; their index."""
    folder.mkdir(parents=True, exist_ok=True)
    return _run(tree, "write", {"folder": str(folder), "nnet": nnet_path() if acas else None,
                                "depths": list(depths)})


def check_times(tree: Path, index: list[dict], repeat: int = 3) -> list[dict]:
    """``tree``'s checker on the certificates of ``index``, in a fresh process: a row each."""
    return _run(tree, "check", {"index": index, "repeat": repeat})


def _best(rounds: list[list[dict]]) -> list[dict]:
    """Per certificate, the round with the least CPU time (the loads of that round kept); a
    certificate refused in every round keeps its first refusal.

    >>> _best([[{"cpu_s": 2}, {"refused": "x"}], [{"cpu_s": 1}, {"refused": "y"}]])
    [{'cpu_s': 1}, {'refused': 'x'}]
    """
    best = []
    for rows in zip(*rounds):
        timed = [r for r in rows if "cpu_s" in r]
        best.append(min(timed, key=lambda r: r["cpu_s"]) if timed else rows[0])
    return best


def run(repeat: int = 3) -> list[dict]:
    """This tree only: each certificate's check time (a section of ``python -m benchmarks``)."""
    with tempfile.TemporaryDirectory() as tmp:
        index = write_certificates(ROOT, Path(tmp))
        rows = check_times(ROOT, index, repeat)
    for r, e in zip(rows, index):
        r["certificate_kB"] = e["kB"]
    return rows


def compare(commit: str, rounds: int = 3, repeat: int = 3, depths=DEPTHS) -> list[dict]:
    """Commit ``commit`` against this tree, alternating, each keeping its best round: a row each."""
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "before"
        old.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        old_index = write_certificates(old, Path(tmp) / "before-certs", depths)
        new_index = write_certificates(ROOT, Path(tmp) / "after-certs", depths)
        before, after, cross = [], [], []
        for _ in range(rounds):
            before.append(check_times(old, old_index, repeat))
            after.append(check_times(ROOT, new_index, repeat))
            cross.append(check_times(ROOT, old_index, repeat))
    rows = []
    for b, a, c, oi, ni in zip(_best(before), _best(after), _best(cross), old_index, new_index):
        row = {"certificate": b["name"], "kB before/after": f"{oi['kB']}/{ni['kB']}"}
        for label, r in (("before", b), ("after", a), ("after on before's cert", c)):
            row[f"{label} cpu_s"] = round(r["cpu_s"], 3) if "cpu_s" in r else "refused"
            row[f"{label} load"] = f"{r['load_before']}->{r['load_after']}"
        if "cpu_s" in a and "cpu_s" in b:
            row["after/before"] = round(a["cpu_s"] / b["cpu_s"], 2)
        if "refused" in c:
            row["cross refusal"] = c["refused"]
        rows.append(row)
    return rows


def page_part(rows: list[dict], commit: str, rounds: int, repeat: int) -> list[str]:
    """The "Checker time" part of docs/benchmarks.md, between its markers."""
    from datetime import datetime, timezone

    from benchmarks.__main__ import CHECKER_END, CHECKER_START, _table

    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    slower = [r["certificate"] for r in rows if r.get("after/before", 0) > 1.05]
    refusals = list(dict.fromkeys(r["cross refusal"] for r in rows if "cross refusal" in r))
    rows = [{k: v for k, v in r.items() if k != "cross refusal"} for r in rows]
    return [CHECKER_START, f"## Checker time: {commit} -> {head}", "",
            f"`python -m benchmarks.bench_checker --compare-commit {commit} --rounds {rounds} --repeat {repeat} "
            f"--out docs/benchmarks.md`, {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}, "
            f"{os.cpu_count()} cores: CPU seconds of one `check_certificate` call, best of {repeat} calls in "
            f"each of {rounds} alternating fresh processes per tree; the load (1 minute) around the best "
            "round beside each figure. Each tree checks the certificates its own prover wrote; the last "
            "columns are this tree's checker on the earlier tree's certificate. after / before below 1 "
            "means faster now.", "", *_table(rows), "",
            "Slower by more than 5 %: " + (", ".join(slower) if slower else "none") + ".", "",
            *[f"This tree's checker refused an earlier certificate: `{why}`" for why in refusals[:3]],
            *([""] if refusals else []), CHECKER_END]


def write_page(out: Path, part: list[str]) -> None:
    """Put ``part`` into the page at ``out``, replacing an earlier checker part."""
    from benchmarks.__main__ import CHECKER_END, CHECKER_START

    old = out.read_text() if out.exists() else ""
    if CHECKER_START in old:
        old = old[:old.index(CHECKER_START)] + old[old.index(CHECKER_END) + len(CHECKER_END):].lstrip("\n")
    out.write_text(old.rstrip("\n") + "\n\n" + "\n".join(part) + "\n")


def main(argv=None) -> int:  # pragma: no cover - a script
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_checker")
    ap.add_argument("--compare-commit", metavar="C")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--depths", default=",".join(map(str, DEPTHS)))
    ap.add_argument("--out", help="with --compare-commit: write the table into this page (docs/benchmarks.md)")
    args = ap.parse_args(argv)
    print(f"load before: {os.getloadavg()[0]:.2f}, cores: {os.cpu_count()}", flush=True)
    if args.compare_commit:
        rows = compare(args.compare_commit, args.rounds, args.repeat, [int(d) for d in args.depths.split(",")])
    else:
        rows = run(args.repeat)
    keys = list(dict.fromkeys(k for r in rows for k in r))
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for r in rows:
        print("| " + " | ".join(str(r.get(k, "")) for k in keys) + " |")
    print(f"load after: {os.getloadavg()[0]:.2f}")
    if args.compare_commit and args.out:
        write_page(Path(args.out), page_part(rows, args.compare_commit, args.rounds, args.repeat))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
