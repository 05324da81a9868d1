"""Debreu utilities of random complete preorders, verified on every pair, up to 2,000
elements (about 2 million pairs x <= y).

For each size, in one process: building the networkx DiGraph of the relation (the
baseline every step is measured against); ``debreu_utility`` (reflexivity,
transitivity by component counts, completeness, networkx condensation and
topological sort, the iff on all n^2 pairs); a plain Python loop over all n^2 pairs
(the naive check, for comparison with the set-based one); and the independent
certificate checker (hashes and reads back the embedded preorder, then re-checks every
pair), after writing the certificate (canonical JSON of every pair, hashed).
Run: ``python -m benchmarks.bench_preorders [max_n]``.
"""

from __future__ import annotations

import sys
import time

from symrel.exact import ground_types


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def _plain_pairwise(P, u) -> bool:
    G = P.graph
    names = list(G)
    return all((y in G.succ[x]) == (u[x] <= u[y]) for x in names for y in names)


def run(sizes=(250, 500, 1000, 2000), seed: int = 0, check_up_to: int = 1000) -> list[dict]:
    from symrel.checking import check_certificate
    from symrel.preorders import Preorder, debreu_utility
    from symrel.preorders.generators import element_names
    from symrel.certificates.io import certificate_of

    import random

    rows = []
    for n in sizes:
        rng = random.Random(seed + n)
        table = {x: rng.randrange(max(1, n // 3)) for x in element_names(n)}
        t_build, P = _timed(lambda: Preorder.from_utility(table))
        t_util, rep = _timed(lambda: debreu_utility(P))
        assert rep.proof.result == "proved"
        t_plain, ok = _timed(lambda: _plain_pairwise(P, rep.utility))
        assert ok
        row = {"n": n, "pairs": P.graph.number_of_edges(), "classes": len(set(rep.utility.values())),
               "build_s": t_build, "utility_s": t_util, "plain_pairwise_s": t_plain,
               "utility_over_build": t_util / t_build, "ground_types": ground_types()}
        if n <= check_up_to:
            t_cert, cert = _timed(lambda: certificate_of(rep.proof))
            t_check, _ = _timed(lambda: check_certificate(cert))
            row["certificate_s"], row["checker_s"] = t_cert, t_check
        rows.append(row)
    return rows


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    top = int(argv[0]) if argv else 2000
    sizes = [n for n in (250, 500, 1000, 2000, 4000) if n <= top]
    print(f"Debreu utility, verified on all n^2 pairs  [ground types: {ground_types()}]")
    print(f"{'n':>6} {'pairs':>9} {'classes':>7} {'build':>8} {'utility+proof':>14} {'ratio':>6} {'plain loop':>11} {'cert':>8} {'checker':>8}")
    for r in run(sizes):
        check = f"{r['certificate_s']:7.2f}s {r['checker_s']:7.2f}s" if "checker_s" in r else "       -        -"
        print(f"{r['n']:>6} {r['pairs']:>9} {r['classes']:>7} {r['build_s']:7.2f}s {r['utility_s']:13.2f}s "
              f"{r['utility_over_build']:5.1f}x {r['plain_pairwise_s']:10.2f}s {check}")


if __name__ == "__main__":
    main()
