"""A rigorous a-posteriori bound on the float error of a ReLU or maxout net.

For one affine layer computed in floats with weights ``W~, b~`` (the rounded
``W, b``) on the float input ``h~`` (known exactly: it is a vector of floats),
the textbook bound for a dot product of n terms in any summation order gives
``|fl(W~ h~ + b~) - (W~ h~ + b~)| <= gamma_(n+1) (|W~| |h~| + |b~|) + (n+1) eta``
with ``gamma_k = k u / (1 - k u)``, ``u = 2^-p`` and ``eta`` the smallest
subnormal (underflow). Adding the weight rounding and the error ``e`` already
in the input, the float state ``h~'`` and the exact state ``h'`` satisfy,
entrywise,

``|h~' - h'| <= |W| e + gamma_(n+1) (|W~||h~| + |b~|) + (n+1) eta + |W~ - W||h~| + |b~ - b|``

and ReLU and max are 1-Lipschitz in each entry, so the bound passes through
them. With the exact pre-activation z at hand the bound tightens: where
``z_i < -e_i`` both ReLUs output 0 (error 0); a group max can only be taken by a
piece k with ``z_k + e_k >= z_w - e_w`` (w the exact winner), so its error is
at most the largest ``e_k`` of those. Everything is exact rational arithmetic
on the float trace.

>>> str(gamma(3, Q(1, 2**24)))
'3/16777213'
"""

from __future__ import annotations

from ..exact import Q, Rational, from_rationals, rows
from ..interop.floats import FloatFormat, exact_array
from ..interop.float_program import GroupMax
from ..lowering import Affine, Relu


def gamma(n: int, u: Rational) -> Rational:
    """``n u / (1 - n u)`` (requires ``n u < 1``)."""
    return n * u / (1 - n * u)


def _abs(M):
    return from_rationals([[abs(v) for v in r] for r in rows(M)], M.shape)


def forward_error_bounds(program, rounded_stages, inputs, float_trace, fmt: FloatFormat, *, tighten: bool = True) -> list:
    """Entrywise bounds (``features x N`` exact matrices, one per stage) on
    ``|float state - exact state|`` for a relu/maxout program.

    ``inputs`` is the exact ``d x N`` matrix of the (float) inputs, ``float_trace``
    the runner's ``[(name, N x features array)]``.
    """
    u, eta = fmt.unit_roundoff, fmt.min_subnormal
    H = inputs  # exact value of the float state entering the stage
    X = inputs  # the exact state (for the exact pre-activations)
    E = from_rationals([[Q(0)] * inputs.shape[1] for _ in range(inputs.shape[0])], inputs.shape)
    bounds = []
    for st, rst, (_, F) in zip(program.stages, rounded_stages, float_trace):
        Zx = X
        for op, rop in zip(st.ops, rst.ops):
            if isinstance(op, Affine):
                Zx = op.W * Zx + op.b * from_rationals([[Q(1)] * Zx.shape[1]], (1, Zx.shape[1])) if tighten else None
                n = op.W.shape[1]
                Wt = _exact(rop.W)
                bt = _exact(rop.b.reshape(-1, 1))
                N = H.shape[1]
                ones = from_rationals([[Q(1)] * N], (1, N))
                absH = _abs(H)
                E = (_abs(op.W) * E
                     + (_abs(Wt) * absH + _abs(bt) * ones) * gamma(n + 1, u)
                     + _abs(Wt - op.W) * absH + _abs(bt - op.b) * ones)
                E = from_rationals([[v + (n + 1) * eta for v in r] for r in rows(E)], E.shape)
            elif isinstance(op, GroupMax):
                R = rows(E)
                if tighten:
                    Zr = rows(Zx)
                    E = from_rationals([[_max_bound([z[j] for z in Zr[g:g + op.rank]], [e[j] for e in R[g:g + op.rank]])
                                         for j in range(E.shape[1])] for g in range(0, len(R), op.rank)],
                                       (len(R) // op.rank, E.shape[1]))
                    Zx = from_rationals([list(map(max, *Zr[g:g + op.rank])) for g in range(0, len(Zr), op.rank)],
                                        (len(Zr) // op.rank, Zx.shape[1]))
                else:
                    E = from_rationals([list(map(max, *R[g:g + op.rank])) for g in range(0, len(R), op.rank)],
                                       (len(R) // op.rank, E.shape[1]))
            elif isinstance(op, Relu):
                if tighten:
                    zero = Q(0)
                    E = from_rationals([[zero if z < -e else e for z, e in zip(zr, er)] for zr, er in zip(rows(Zx), rows(E))], E.shape)
                    Zx = from_rationals([[z if z > zero else zero for z in zr] for zr in rows(Zx)], Zx.shape)
            else:
                raise TypeError(f"no error bound for {type(op).__name__}")
        bounds.append(E)
        X = Zx
        H = from_rationals([list(r) for r in zip(*exact_array(F))], (F.shape[1], F.shape[0])) if F.shape[0] else H
    return bounds


def _max_bound(z, e):
    """The error bound of ``max z~`` given ``|z~_k - z_k| <= e_k``."""
    w = max(range(len(z)), key=lambda k: z[k])
    return max([e[w]] + [e[k] for k in range(len(z)) if z[k] + e[k] >= z[w] - e[w]])


def _exact(a):
    from ..interop.floats import exact_matrix

    return exact_matrix(a)
