"""Relations: exact PSD factorisation and features of random tables, and the
neurons-versus-certified-error trade-off of continuous kernels.

1. Factorisation of a random rank-deficient rational PSD table (60 x 60 by
   default), all in one process, as ratios against symrel's fraction-free
   ``ldl_psd``: DomainMatrix ``rref`` and ``lu`` over QQ, python-flint's
   ``fmpq_mat.rref`` (when installed); sympy ``Matrix.LDLdecomposition`` only on
   a small size (it does not finish in minutes at 40 x 40), against ``ldl_psd``
   on the same small table.
2. The whole pipeline (Gram features, ReLU nets, entrywise proof, independent
   checker) on tables up to 60 x 60, with neurons against table entries.
3. CPWL features of exp(-(x-y)^2) and min(x, y) on [0,1]^2: neurons against
   certified (and sampled) sup error as the grid is refined.

Run: ``python -m benchmarks.bench_relations [n] [--plot PATH]``.
"""

from __future__ import annotations

import sys

from symrel.exact import ground_types

from .bench_eval import _best


def _timed(fn, repeat: int = 1):
    """(best time of ``repeat`` runs, result)."""
    return _best(fn, repeat)


def factorisation_rows(n: int = 60, rank: int | None = None, small: int = 10, seed: int = 0) -> list[dict]:
    from symrel.exact import rows as entries
    from symrel.relations.examples import random_gram_relation
    from symrel.relations.ldl import ldl_psd

    rank = 2 * n // 3 if rank is None else rank
    R = random_gram_relation(n, rank, seed=seed).exact_R
    t_ldl, cert = _timed(lambda: ldl_psd(R), repeat=3)
    assert cert.psd and cert.rank == rank
    out = [{"what": f"symrel ldl_psd (fraction-free) {n}x{n}", "seconds": t_ldl, "ratio": 1.0}]
    for name, fn in (("DomainMatrix rref", R.rref), ("DomainMatrix lu", R.lu)):
        t, _ = _timed(fn, repeat=3)
        out.append({"what": f"{name} {n}x{n} ({type(R.rep).__name__})", "seconds": t, "ratio": t / t_ldl})
    try:
        import flint
    except ImportError:
        out.append({"what": "flint fmpq_mat rref", "seconds": None, "ratio": None, "note": "python-flint not installed"})
    else:
        F = flint.fmpq_mat(n, n, [v for row in entries(R) for v in row]) if ground_types() == "flint" else \
            flint.fmpq_mat(n, n, [flint.fmpq(int(v.numerator), int(v.denominator)) for row in entries(R) for v in row])
        t, _ = _timed(F.rref, repeat=3)
        out.append({"what": f"flint fmpq_mat rref {n}x{n}", "seconds": t, "ratio": t / t_ldl})
    import sympy

    S = random_gram_relation(small, small, seed=seed + 1).exact_R
    t_small, _ = _timed(lambda: ldl_psd(S), repeat=3)
    M = sympy.Matrix([[sympy.Rational(int(v.numerator), int(v.denominator)) for v in row] for row in entries(S)])
    t_sym, _ = _timed(lambda: M.LDLdecomposition(), repeat=1)
    out.append({"what": f"symrel ldl_psd {small}x{small}", "seconds": t_small, "ratio": 1.0})
    out.append({"what": f"sympy Matrix.LDLdecomposition {small}x{small}", "seconds": t_sym, "ratio": t_sym / t_small})
    return out


def pipeline_rows(sizes=(20, 40, 60), seed: int = 0) -> list[dict]:
    import json

    from symrel.checking import check_certificate
    from symrel.certificates.io import certificate_of
    from symrel.relations import factor_relation, factors_to_features, prove_relation
    from symrel.relations.examples import random_gram_relation, random_relation

    out = []
    for n in sizes:
        for symmetric in (True, False):
            rel = (random_gram_relation(n, 2 * n // 3, seed=seed + n, size=2, max_den=1) if symmetric
                   else random_relation(n, n, 2 * n // 3, seed=seed + n))
            t_fac, fac = _timed(lambda: factor_relation(rel, symmetric=symmetric))
            t_net, feats = _timed(lambda: factors_to_features(rel, fac))
            t_proof, proof = _timed(lambda: prove_relation(rel, feats, symmetric=symmetric, ldl=fac.ldl))
            assert proof.proved
            cert = json.loads(json.dumps(certificate_of(proof)))
            t_check, _ = _timed(lambda: check_certificate(cert))
            neurons = feats.phi.num_relus + (0 if feats.psi is feats.phi else feats.psi.num_relus)
            out.append({"n": n, "symmetric": symmetric, "rank": fac.rank, "dimension": fac.dimension,
                        "entries": n * n, "neurons": neurons, "factor_s": t_fac, "nets_s": t_net,
                        "proof_s": t_proof, "checker_s": t_check})
    return out


def tradeoff(grids=(2, 4, 8, 16, 32, 64), samples: int = 2000):
    import sympy

    from symrel.relations.continuous import tradeoff_rows

    x, y = sympy.symbols("x y")
    return {
        "exp(-(x-y)^2)": tradeoff_rows(sympy.exp(-(x - y) ** 2), (x, y), grids=grids, samples=samples),
        "min(x, y)": tradeoff_rows(sympy.Min(x, y), (x, y), grids=grids, samples=samples),
    }


def run(n: int = 60) -> list[dict]:
    return factorisation_rows(n) + pipeline_rows(tuple(s for s in (20, 40, 60) if s <= n))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    plot = None
    if "--plot" in argv:
        plot = argv[argv.index("--plot") + 1]
        argv = [a for a in argv if a not in ("--plot", plot)]
    n = int(argv[0]) if argv else 60
    print(f"Exact PSD factorisation  [ground types: {ground_types()}]")
    for r in factorisation_rows(n):
        secs = f"{r['seconds']:.4f}s" if r["seconds"] is not None else "-"
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] is not None else r.get("note", "-")
        print(f"  {r['what']:<48} {secs:>10} {ratio:>10}")
    print("\nFeatures of random tables (symmetric: Gram/LDL + squares; asymmetric: rank factors)")
    print(f"{'n':>4} {'sym':>5} {'rank':>5} {'dim':>5} {'entries':>8} {'neurons':>8} {'factor':>8} {'nets':>8} {'proof':>8} {'checker':>8}")
    for r in pipeline_rows(tuple(s for s in (20, 40, 60) if s <= n)):
        print(f"{r['n']:>4} {str(r['symmetric']):>5} {r['rank']:>5} {r['dimension']:>5} {r['entries']:>8} {r['neurons']:>8} "
              f"{r['factor_s']:7.2f}s {r['nets_s']:7.2f}s {r['proof_s']:7.2f}s {r['checker_s']:7.2f}s")
    from symrel.relations.continuous import plot_tradeoff, tradeoff_markdown

    series = tradeoff()
    for name, rows in series.items():
        print()
        print(tradeoff_markdown(rows, name))
    if plot:
        plot_tradeoff(series, plot)
        print(f"wrote {plot}")


if __name__ == "__main__":
    main()
