"""The decision campaign: every equivalence claim decided, with symrel's and z3's times side by side.

``python -m symrel.mutation.decision --out docs/decision.md`` builds the claims of
:mod:`symrel.mutation.decision_claims` (compiled pairs, single-number mutants of the
Transformers, equal-but-different pairs, the tie pair) and, when the data is present, ACAS
Xu 1_1 against single-weight mutants of its compiled Transformer on a box of side 1/100;
decides each with :func:`symrel.prover.prove_equivalence` (a time limit per claim) and
with z3 (:mod:`symrel.crossval.z3_claims`, when z3-solver is installed), and writes the
Markdown report. Every symrel answer is confirmed: a refutation's counterexample by exact
evaluation of both models, a proof by :func:`symrel.checking.check_certificate` on its
certificate. A claim is *function-changing* when it is refuted by a confirmed point.
Times are those of the decision alone (models already read), measured with
``time.perf_counter``.

>>> rows = run_claims(campaign_claims(seeds=[5], mutants_per_pair=2, equal_seeds=()), use_z3=False)
>>> sorted({r["symrel"] for r in rows}) <= ["proved", "refuted"]
True
"""

from __future__ import annotations

import json
import os
import random
import statistics
import time

from .decision_claims import campaign_claims, mutant_paths

ACAS = "ACASXU_experimental_v2a_1_1.nnet"


def _confirmed(proof, a, b, D) -> bool:
    from ..certificates.io import certificate_of
    from ..checking import check_certificate

    if proof.result == "refuted":
        x = proof.counterexample
        return D.contains(x) and a.evaluate_exact(x) != b.evaluate_exact(x)
    if proof.result == "proved":
        return check_certificate(json.loads(json.dumps(certificate_of(proof))))["result"] == "checked"
    return False


def decide_claim(claim: dict, timeout: float = 60.0, use_z3: bool = True) -> dict:
    """One claim through symrel (and z3): results, times, confirmation, the deciding rule."""
    from ..fileformat import from_json
    from ..prover import prove_equivalence

    a, b, D = from_json(claim["a"]), from_json(claim["b"]), from_json(claim["domain"])
    t0 = time.perf_counter()
    proof = prove_equivalence(a, b, D, timeout=timeout)
    seconds = time.perf_counter() - t0
    row = {"name": claim["name"], "group": claim["group"], "symrel": proof.result, "seconds": seconds,
           "rule": proof.steps[-1].rule if proof.steps else "", "confirmed": _confirmed(proof, a, b, D),
           "note": proof.obstacle if proof.result == "open" else "", "load": _load()}
    if proof.result == "refuted":
        row["proposed_by"] = proposer(proof.steps[-1].note)
    if use_z3:
        from ..crossval.z3_claims import decide_with_z3

        z = decide_with_z3(claim["a"], claim["b"], claim["domain"], timeout=timeout)
        row["z3"], row["z3_seconds"], row["z3_logic"] = z["result"], z["seconds"], z["logic"]
    return row


def proposer(note: str) -> str:
    """Which float-guided search proposed a refutation's point (``"HiGHS's MILP"``, ``"the
    float ascent"``), read from the refuting step's note; ``""`` for a candidate point or a cell.

    >>> proposer("... Counterexample x = (1): proposed by HiGHS's MILP; exact evaluation: A(x) = (0), B(x) = (1)")
    "HiGHS's MILP"
    """
    head, sep, tail = note.partition("proposed by ")
    return tail.split(";", 1)[0] if sep else ""


def _load() -> float | None:
    """The 1-minute load average (None where the system has none)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def run_claims(claims, timeout: float = 60.0, use_z3: bool = True, progress: bool = False, group=None,
               until=None) -> list[dict]:
    """Every claim through :func:`decide_claim`; ``group`` renames their group; ``until`` (a
    ``time.perf_counter`` value): claims not started by then are left out."""
    rows = []
    for i, c in enumerate(claims):
        if until is not None and time.perf_counter() > until:
            break
        rows.append(decide_claim(c, timeout, use_z3))
        if group is not None:
            rows[-1]["group"] = group
        if progress:
            r = rows[-1]
            print(f"[{i + 1}/{len(claims)}] {r['symrel']:8s} {r['seconds']:6.2f} s  z3 {r.get('z3', '-'):8s} "
                  f"{r.get('z3_seconds', 0):6.2f} s  {c['name']}", flush=True)
    return rows


def acas_box(path: str, side=None):
    """The normalised input box of ACAS Xu (the header's ``[(min - mean) / range, (max - mean) / range]``),
    or, with ``side``, the box of that side around its centre."""
    from ..interop.nnet import load_nnet
    from ..models import Box

    f = load_nnet(path)
    full = [((lo - m) / r, (hi - m) / r) for lo, hi, m, r in zip(f.mins, f.maxs, f.means[:len(f.mins)], f.ranges)]
    if side is None:
        return Box([list(b) for b in full])
    return Box([[(lo + hi) / 2 - side / 2, (lo + hi) / 2 + side / 2] for lo, hi in full])


def acas_claims(path: str, count: int = 20, seed: int = 7, side="1/100") -> list[dict]:
    """ACAS Xu 1_1 (on its normalised inputs) against ``count`` single-weight (+1/10^6) mutants
    of its compiled Transformer (nonzero weights, spread over the parts), on the box of side
    ``side`` around the centre of the normalised input box (``side=None``: the whole box)."""
    from ..compiler import compile_model
    from ..exact import rational
    from ..fileformat import to_json
    from ..interop.nnet import read_nnet
    from .decision_claims import _claim, _set
    from .mutants import TINY

    net = read_nnet(path)
    D = acas_box(path, None if side is None else rational(side))
    T = to_json(compile_model(net, D).transformer)
    rng = random.Random(seed)
    where = "full normalised box" if side is None else f"box of side {side}"
    out = [_claim(f"ACAS Xu 1_1 ({where}): compiled", "acas", net, T, D)]
    for p in mutant_paths(T, rng, count, nonzero=True):
        out.append(_claim(f"ACAS Xu 1_1 ({where}): {p} +1/10^6", "acas", net, _set(T, p, TINY), D))
    return out


def _stats(xs):
    return (statistics.median(xs), max(xs)) if xs else (0.0, 0.0)


def _load_range(rows) -> str:
    loads = [r["load"] for r in rows if r.get("load") is not None]
    return f"{min(loads):.1f} to {max(loads):.1f}" if loads else ""


def acas_full_section(rows: list[dict], asked=None) -> list[str]:
    """The ACAS Xu 1_1 claims on the whole normalised box, one line each, with the load."""
    limit = max((r.get("limit", 600.0) for r in rows), default=600.0)
    mutants = [r for r in rows if not r["name"].endswith(": compiled")]
    refuted = [r for r in mutants if r["symrel"] == "refuted"]
    proved = [r for r in mutants if r["symrel"] == "proved"]
    opened = [r for r in mutants if r["symrel"] == "open"]
    lines = ["", "## ACAS Xu 1_1 on its whole normalised input box", "",
             f"The network (5 inputs, 6 hidden ReLU layers of 50) against its compiled Transformer and against "
             f"single-weight (+1/10^6) mutants of it, on the whole normalised input box, {limit:.0f} s limit per "
             f"claim (`--acas-full N`); times are wall-clock at the load shown. "
             f"**{len(mutants)} mutants"
             + (f" (of the {asked} asked for; the others did not fit in the run)" if asked and asked > len(mutants)
                else "")
             + f": {len(refuted)} refuted (function-changing, each with a confirmed counterexample"
             + (f", max {max(r['seconds'] for r in refuted):.1f} s" if refuted else "")
             + f"), {len(proved)} proved, {len(opened)} left open at the limit.** "
             "An open claim's reason is the proof's own (the lemma, the nodes and the cells when the time ran out); "
             "a refutation whose point a float-guided search proposed names the search.",
             "", "| claim | symrel | s | load | last step, or the reason it stayed open |", "|---|---|---:|---:|---|"]
    for r in rows:
        why = r["rule"] if r["symrel"] != "open" else (r.get("note") or "").replace("|", "/")
        if r.get("proposed_by"):
            why += f" (the point proposed by {r['proposed_by']}, confirmed exactly)"
        load = f"{r['load']:.1f}" if r.get("load") is not None else "-"
        lines.append(f"| {r['name'].split(': ', 1)[-1]} | {r['symrel']} | {r['seconds']:.1f} | {load} | {why} |")
    return lines


def report_markdown(rows: list[dict], seconds: float, load: str = "", acas_full=None,
                    command: str = "--out docs/decision.md") -> str:
    """The report: totals, the required checks, symrel's and z3's times per group."""
    groups = ["compiled", "mutant", "equal", "tie", "acas", "acas-full"]
    names = {"compiled": "compiled pairs", "mutant": "mutants (+1/10^6)", "equal": "equal-but-different pairs",
             "tie": "tie pair", "acas": "ACAS Xu 1_1, box of side 1/100",
             "acas-full": "ACAS Xu 1_1, whole normalised box (%.0f s limit)"
             % max((r.get("limit", 600.0) for r in rows if r["group"] == "acas-full"), default=600.0)}
    have_z3 = any("z3" in r for r in rows)
    lines = ["# Decision campaign", "",
             f"Generated by `python -m symrel.mutation.decision {command}` (symrel.mutation.decision).",
             "Every claim is \"for all x in D, A(x) = B(x)\", decided by `prove_equivalence` with a 60 s limit and,",
             "independently, by z3 on a QF_LRA encoding read from the file format (symrel.crossval.z3_claims;",
             "nonlinear arithmetic when a mutated query makes a score quadratic). symrel's answers are all",
             "confirmed: a counterexample by exact evaluation of both models, a proof by `check-certificate`.",
             "Times are of the decision alone (models already read); a claim is function-changing when it is",
             "refuted.", ""]
    decided = [r for r in rows if r["symrel"] in ("proved", "refuted")]
    mutants = [r for r in rows if r["group"] == "mutant"]
    changing = [r for r in mutants if r["symrel"] == "refuted"]
    equal = [r for r in rows if r["group"] == "equal"]
    lines += [f"**{len(rows)} claims, {len(decided)} decided by symrel, {len(rows) - len(decided)} undecided; "
              f"{sum(not r['confirmed'] for r in decided)} unconfirmed answers.** "
              f"{len(mutants)} mutants ({len(changing)} function-changing, every one refuted with a confirmed point"
              f"{', max ' + format(max(r['seconds'] for r in changing), '.2f') + ' s' if changing else ''}); "
              f"{len(equal)} equal-but-different pairs ({sum(r['symrel'] == 'proved' for r in equal)} proved). "
              f"Run time {seconds:.0f} s{(', load average ' + load) if load else ''}.", ""]
    if have_z3:
        both = [r for r in rows if r.get("z3") in ("proved", "refuted") and r["symrel"] in ("proved", "refuted")]
        disagree = [r for r in both if r["z3"] != r["symrel"]]
        lines += [f"z3 decided {sum(r.get('z3') in ('proved', 'refuted') for r in rows)} of the "
                  f"{sum('z3' in r for r in rows)} claims it was given (its limit is not exact: the encoding and "
                  "the solver's own checks run past it); "
                  f"on the {len(both)} both decided, **{len(disagree)} disagreements**.", ""]
    head = "| claims | n | proved | refuted | open | symrel median s | symrel max s |"
    sep = "|---|---:|---:|---:|---:|---:|---:|"
    if have_z3:
        head += " z3 decided | z3 median s | z3 max s |"
        sep += "---:|---:|---:|"
    lines += [head, sep]
    for g in groups + ["all"]:
        rs = rows if g == "all" else [r for r in rows if r["group"] == g]
        if not rs:
            continue
        med, mx = _stats([r["seconds"] for r in rs])
        cells = [f"**{g}**" if g == "all" else names[g], str(len(rs)),
                 str(sum(r["symrel"] == "proved" for r in rs)), str(sum(r["symrel"] == "refuted" for r in rs)),
                 str(sum(r["symrel"] == "open" for r in rs)), f"{med:.3f}", f"{mx:.3f}"]
        if have_z3:
            zs = [r for r in rs if "z3" in r]
            zmed, zmx = _stats([r["z3_seconds"] for r in zs])
            cells += [f"{sum(r['z3'] in ('proved', 'refuted') for r in zs)} of {len(zs)}", f"{zmed:.3f}", f"{zmx:.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    rules: dict[str, int] = {}
    for r in decided:
        rules[r["rule"]] = rules.get(r["rule"], 0) + 1
    lines += ["", "Last step of each decided claim (which procedure decided it): "
              + ", ".join(f"`{k}` {v}" for k, v in sorted(rules.items())) + "."]
    proposed: dict[str, int] = {}
    for r in rows:
        if r.get("proposed_by"):
            proposed[r["proposed_by"]] = proposed.get(r["proposed_by"], 0) + 1
    if proposed:
        lines += ["Refutations whose point a float-guided search proposed when no candidate point showed a "
                  "difference (each confirmed by exact evaluation of both models): "
                  + ", ".join(f"{k} {v}" for k, v in sorted(proposed.items())) + "."]
    lines += [""]
    slow = sorted(rows, key=lambda r: -r["seconds"])[:8]
    lines += ["Slowest claims for symrel:", "", "| claim | symrel | s | z3 | z3 s |", "|---|---|---:|---|---:|"]
    for r in slow:
        lines.append(f"| {r['name']} | {r['symrel']} | {r['seconds']:.2f} | {r.get('z3', '-')} | "
                     f"{r.get('z3_seconds', 0):.2f} |")
    full = [r for r in rows if r["group"] == "acas-full"]
    if not full:
        lines += ["", "ACAS Xu 1_1 on its whole normalised input box is not in this run (`--acas-full N` adds N "
                  "mutants with a 600 s limit each; building the claims alone takes about a minute)."]
    else:
        lines += acas_full_section(full, acas_full)
    lines += ["", f"Load average (1 min) while the claims ran: {_load_range(rows)}."] if _load_range(rows) else []
    undecided = [r for r in rows if r["symrel"] not in ("proved", "refuted")]
    if undecided:
        lines += ["", "Undecided:", ""] + [f"- {r['name']}: {r['note']}" for r in undecided]
    return "\n".join(lines) + "\n"


def _acas_path():
    for base in (os.environ.get("SYMREL_SHARED", ""), "/work/shared", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared")):
        p = os.path.join(base, "data", "acasxu", ACAS)
        if base and os.path.exists(p):
            return p
    return None


#: where the small claims timed as whole processes against z3 are (benchmarks.decision_processes)
WHOLE_PROCESSES = ("\n## The small claims as whole processes\n\nsymrel against z3, both timed as whole processes "
                   "on the first 65 claims of this campaign: [benchmarks](benchmarks.md#the-small-claims-as-whole-processes) "
                   "(`python -m benchmarks.decision_processes --out docs/benchmarks.md`).\n")


def main(argv=None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m symrel.mutation.decision", description=__doc__.split("\n")[0])
    p.add_argument("--out", help="write the Markdown report here (default: print it)")
    p.add_argument("--seeds", type=int, default=32, help="compiled pairs of small nets (5 mutants each)")
    p.add_argument("--medium", type=int, default=4, help="compiled pairs of medium nets (5 mutants each)")
    p.add_argument("--acas-z3", type=int, default=3, help="ACAS Xu claims also given to z3 (each can take its limit)")
    p.add_argument("--acas-full", type=int, default=0,
                   help="mutants of ACAS Xu on its whole normalised input box (600 s each; not run by default)")
    p.add_argument("--acas-full-timeout", type=float, default=600.0, help="the limit per whole-box claim (s)")
    p.add_argument("--acas-full-until", type=float, default=None,
                   help="start no whole-box claim after this many seconds of the run (the others are left out)")
    p.add_argument("--only-acas-full", action="store_true", help="run the whole-box claims only")
    p.add_argument("--save", help="also write the rows of this run here (JSON)")
    p.add_argument("--rows", action="append", default=[],
                   help="rows saved by an earlier run (--save) to report beside this run's")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--no-z3", action="store_true")
    p.add_argument("--no-acas", action="store_true")
    p.add_argument("--progress", action="store_true")
    args = p.parse_args(argv)
    use_z3 = not args.no_z3
    if use_z3:
        try:
            import z3  # noqa: F401
        except ImportError:
            use_z3 = False
    t0 = time.perf_counter()
    rows, earlier, commands = [], 0.0, []
    for path in args.rows:
        with open(path, encoding="utf-8") as fh:
            saved = json.load(fh)
        rows += saved["rows"]
        earlier += saved.get("seconds", 0.0)
        commands.append(saved.get("command", "--save ..."))
    if not args.only_acas_full:
        claims = campaign_claims(seeds=range(1000, 1000 + args.seeds), mutants_per_pair=5, equal_seeds=(2000, 2001),
                                 size="small")
        claims += campaign_claims(seeds=range(1100, 1100 + args.medium), mutants_per_pair=5, equal_seeds=(),
                                  size="medium")
        claims = list({c["name"]: c for c in claims}.values())      # the fixed equal pairs and the tie pair once
        rows += run_claims(claims, args.timeout, use_z3, args.progress)
    path = None if args.no_acas else _acas_path()
    if path and not args.only_acas_full:
        acas = acas_claims(path)
        rows += run_claims(acas[:args.acas_z3], args.timeout, use_z3, args.progress)
        rows += run_claims(acas[args.acas_z3:], args.timeout, False, args.progress)
    if path and args.acas_full:
        full = acas_claims(path, count=args.acas_full, side=None)
        until = None if args.acas_full_until is None else t0 + args.acas_full_until
        for r in run_claims(full, args.acas_full_timeout, False, args.progress, group="acas-full", until=until):
            r["limit"] = args.acas_full_timeout
            rows.append(r)
    seconds = time.perf_counter() - t0 + earlier
    load = " ".join(f"{v:.2f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else ""
    import sys

    from ..fileformat import write_text_atomic

    if args.save:
        write_text_atomic(args.save, json.dumps({"rows": rows, "seconds": seconds, "command": " ".join(
            sys.argv[1:] if argv is None else argv)}, indent=1) + "\n")
    argv = list(sys.argv[1:] if argv is None else argv)
    command = " ".join(argv) + "".join(f"` after `{c}" for c in commands)
    text = report_markdown(rows, seconds, load, acas_full=args.acas_full or None, command=command)
    if args.out:
        write_text_atomic(args.out, text + WHOLE_PROCESSES)
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
