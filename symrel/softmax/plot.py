"""Observed worst error and certified bound against lambda, on log-log axes (needs matplotlib).

For lambdas spread around the certified one (factors 1/100 .. 100), the certified bound is
the whole-network error propagation (:func:`symrel.softmax.network.propagate`) and the
observed error the worst over random and near-tie points (:mod:`symrel.softmax.empirical`).
A max head gives two parallel lines of slope -1 (the bound is O(1/lambda)).

>>> from symrel.softmax.examples import selection_transformer
>>> from symrel.exact import rational as r
>>> T, D = selection_transformer()
>>> rows = bound_vs_lambda_rows(T, D, r(10), points=4, factors=(r(1), r(2)))
>>> [lam for lam, _, _ in rows], all(worst <= bound for _, bound, worst in rows)
([10.0, 20.0], True)
"""

from __future__ import annotations

from ..exact import Q, rational, to_float
from .empirical import empirical_check
from .network import propagate
from .ranges import analyse

FACTORS = (Q(1, 100), Q(1, 30), Q(1, 10), Q(1, 3), Q(1), Q(3), Q(10), Q(30), Q(100))


def bound_vs_lambda_rows(T, domain, lam, *, points: int = 40, factors=FACTORS) -> list[tuple[float, float, float]]:
    """``(lambda, certified bound, worst observed error)`` for ``lam`` times each factor.
    Cost: ``len(factors)`` propagations and ``len(factors) x points`` mpmath evaluations."""
    plan = analyse(T, domain)
    out = []
    for f in factors:
        lam_f = rational(lam) * f
        tr = propagate(plan, lam_f)
        if tr.total is None:
            continue
        chk = empirical_check(T, domain, lam_f, tr.total, points=points)
        out.append((to_float(lam_f), to_float(tr.total), float(chk.worst)))
    return out


def plot_bound_vs_lambda(T, domain, lam, path, *, points: int = 40, title: str | None = None) -> list:
    """Write the log-log plot of bound and observed error against lambda to ``path`` (PNG)
    and return its rows. matplotlib is imported here, lazily."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..fileformat import write_bytes_atomic

    rows = bound_vs_lambda_rows(T, domain, lam, points=points)
    fig, ax = plt.subplots(figsize=(6, 4.2))
    ax.loglog([r[0] for r in rows], [r[1] for r in rows], "o-", label="certified bound")
    ax.loglog([r[0] for r in rows], [r[2] for r in rows], "s--", label="worst observed error (mpmath, 50 digits)")
    ax.axvline(to_float(rational(lam)), color="grey", lw=0.8, ls=":", label="certified lambda")
    ax.set_xlabel("lambda")
    ax.set_ylabel("sup-norm error, softmax vs hardmax")
    ax.set_title(title or "softmax vs hardmax: bound and observed error")
    ax.grid(True, which="both", lw=0.3)
    ax.legend(fontsize=8)
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    write_bytes_atomic(path, buf.getvalue())
    return rows
