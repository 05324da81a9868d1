"""Softmax Transformers evaluated with mpmath at a chosen precision.

This is evaluation, not proof: the rigorous softmax-vs-hardmax bounds live in
:mod:`symrel.softmax`. Weights are exact rationals converted to mpmath numbers
at the working precision; ``exp`` is shifted by the column maximum so that no
overflow happens for any lambda.
"""

from __future__ import annotations

import mpmath

from ..exact import denominator, numerator, rows


def _mp(q):
    return mpmath.mpf(numerator(q)) / denominator(q)


def _mat(M):
    return [[_mp(v) for v in r] for r in rows(M)]


def _matmul(A, B):
    if not A:
        return []
    n = len(B[0]) if B else 0
    return [[mpmath.fsum(a * B[k][j] for k, a in enumerate(Ar)) for j in range(n)] for Ar in A]


def _add(A, B):
    return [[a + b for a, b in zip(ra, rb)] for ra, rb in zip(A, B)]


def softmax_weights(scores, lam):
    """``softmax_lambda`` of a list of mpf scores (shifted by the maximum)."""
    top = max(scores)
    e = [mpmath.exp(lam * (s - top)) for s in scores]
    total = mpmath.fsum(e)
    return [v / total for v in e]


def hardmax_weights(scores):
    top = max(scores)
    idx = [i for i, s in enumerate(scores) if s == top]
    return [mpmath.mpf(1) / len(idx) if i in idx else mpmath.mpf(0) for i in range(len(scores))]


def evaluate_softmax(model, x, dps: int = 50, scale=None):
    """See :meth:`symrel.models.Transformer.evaluate_softmax`."""
    with mpmath.workdps(dps):
        Z = _mat(model.embedding.embed(x))
        T = len(Z[0])
        lam_override = _mp(scale) if scale is not None else None
        for block in model.blocks:
            att = block.attention
            if att is not None:
                out = [row[:] for row in Z]
                for head in att.heads:
                    Q = _matmul(_mat(head.exact_WQ), Z)
                    K = _matmul(_mat(head.exact_WK), Z)
                    V = _matmul(_mat(head.exact_WV), Z)
                    S = [[mpmath.fsum(K[r][s] * Q[r][t] for r in range(len(K))) for t in range(T)] for s in range(T)]
                    A = [[None] * T for _ in range(T)]
                    for t in range(T):
                        col = [S[s][t] for s in range(T)]
                        if lam_override is not None:
                            w = softmax_weights(col, lam_override)
                        elif att.rule == "softmax":
                            w = softmax_weights(col, _mp(att.exact_scale))
                        else:
                            w = hardmax_weights(col)
                        for s in range(T):
                            A[s][t] = w[s]
                    out = _add(out, _matmul(_mat(head.exact_WO), _matmul(V, A)))
                Z = out
            ff = block.feedforward
            if ff is not None:
                H = _matmul(_mat(ff.exact_W1), Z)
                b1 = [r[0] for r in _mat(ff.exact_b1)]
                H = [[max(v + b1[i], mpmath.mpf(0)) for v in r] for i, r in enumerate(H)]
                U = _matmul(_mat(ff.exact_W2), H)
                b2 = [r[0] for r in _mat(ff.exact_b2)]
                Z = [[z + u + b2[i] for z, u in zip(rz, ru)] for i, (rz, ru) in enumerate(zip(Z, U))]
        col = [[Z[i][model.readout.token]] for i in range(len(Z))]
        out = _matmul(_mat(model.readout.exact_W), col)
        b = [r[0] for r in _mat(model.readout.exact_b)]
        return [+(out[i][0] + b[i]) for i in range(len(b))]
