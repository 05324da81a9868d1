"""Exact integer matrices as numpy int64 limbs: the fast path of the backward bounds.

Definition. A *limb matrix* is an int64 array ``X`` of shape ``(L, m, n)`` standing for the
integer matrix ``sum_l X[l] * 2^(B l)`` with ``B = LIMB_BITS``. It is *normalized* when
``0 <= X[l] < 2^B`` for ``l < L - 1`` and ``-2^B <= X[L-1] < 2^B``: then an entry is
negative exactly when its top limb is, and every limb fits a product of two limbs summed
``2^(62 - 2B)`` times in an int64. The operations (:func:`normalize`, :func:`floor_shift`,
:func:`scale`, :func:`matmul`) are integer arithmetic on int64 arrays whose magnitudes are
bounded beforehand, so they are exact: no float is involved, and an operation whose bound
cannot be guaranteed raises :class:`TooWide` (the caller then uses Python integers).

Why: python-flint's products are fast, but converting Python integers to and from its
matrices costs more than the products (about a microsecond an entry); limbs stay in numpy
across the layers of a backward pass, and only a few entries per row (the constants, the
final input coefficients) become Python integers.

Cost: :func:`matmul` of an ``(La, m, k)`` by an ``(Lw, k, n)`` limb matrix is one product of
``(La m) x k`` by ``k x (Lw n)``, in doubles where ``k 2^(2B) <= 2^53`` (then every partial
sum is an integer a double holds exactly, so the product is exact; ``k <= 512``), else in
int64; the other operations are linear in the size.

>>> import pytest; _ = pytest.importorskip("numpy")
>>> X = from_ints([[3, -5], [2**70 + 1, -(2**50)]])
>>> to_ints(floor_shift(X, 1))
[[1, -3], [590295810358705651712, -562949953421312]]
>>> to_ints(matmul(X, from_ints([[1], [1]]))) == [[-2], [2**70 + 1 - 2**50]]
True
"""

from __future__ import annotations

try:  # the "numeric" extra; symbolic imports this module only where numpy is installed
    import numpy as np
    _least, _most = np.minimum.reduce, np.maximum.reduce  # (the array methods add a Python call)
except ImportError:  # pragma: no cover - a core-only install (the doctests below skip there)
    np = None

#: bits of a limb
LIMB_BITS = 22
_MASK = (1 << LIMB_BITS) - 1
_BASE = 1 << LIMB_BITS
_PAIR_MASK = (1 << (2 * LIMB_BITS)) - 1
#: the bound every int64 intermediate stays under
_LIMIT = 1 << 61
#: the integers a double holds exactly (each one of magnitude at most this)
_FLOAT_EXACT = 1 << 53
#: most multiply-adds of one double product: OpenBLAS runs larger ones on threads, which on a
#: shared machine cost some 50 times the CPU of the product itself (measured: 7.8 ms against
#: 0.1 ms for 240 x 50 x 102 at load 6 on 2 cores)
_BLAS_CHUNK = 1 << 17
#: multiply-adds from which a product is one call all the same: cut into single rows (the chunks
#: of ``_BLAS_CHUNK``), a 768 x 512 by 512 x 4710 product (a layer of the MNIST nets' forward
#: forms) took 3.8 s of CPU against 0.08 s in one call; below it, a product whose rows are each
#: more than a chunk is cut into columns instead (20 x 256 by 256 x 2355: 2 ms against 58 ms
#: row by row and 15 ms in one call, at load 6 on 2 cores)
_BLAS_WHOLE = 1 << 26


class TooWide(ArithmeticError):
    """An operation whose int64 intermediates could overflow (the caller falls back)."""


def from_ints(rows) -> np.ndarray:
    """The normalized limb matrix of a list of rows of Python integers."""
    m = len(rows)
    n = len(rows[0]) if m else 0
    O = np.array(rows, dtype=object).reshape(m, n)
    bits = max(int(O.max()), -int(O.min())).bit_length() if O.size else 0
    L = bits // LIMB_BITS + 1
    X = np.empty((L, m, n), dtype=np.int64)
    # two limbs at a time leave the Python integers (the object operations are the cost)
    for l in range(0, L - 1, 2):
        if l + 1 < L - 1:
            pair = ((O >> (LIMB_BITS * l)) & _PAIR_MASK).astype(np.int64)
            X[l], X[l + 1] = pair & _MASK, pair >> LIMB_BITS
        else:
            X[l] = ((O >> (LIMB_BITS * l)) & _MASK).astype(np.int64)
    X[L - 1] = (O >> (LIMB_BITS * (L - 1))).astype(np.int64)  # in [-2^B, 2^B) by the choice of L
    return X


def to_ints(X) -> list:
    """The rows of Python integers of a limb matrix (normalized: below the top, a limb and
    the one above it make an int64 of ``2 B`` bits, two limbs a step)."""
    L = X.shape[0]
    acc = X[L - 1].astype(object)
    l = L - 2
    while l >= 1:
        acc = (acc << (2 * LIMB_BITS)) + (X[l - 1] + (X[l] << LIMB_BITS)).astype(object)
        l -= 2
    if l == 0:
        acc = (acc << LIMB_BITS) + X[0].astype(object)
    return acc.tolist()


def normalize(X, fresh: bool = False) -> np.ndarray:
    """``X`` normalized (module docstring), with no more top limbs than needed; entries of
    ``X`` must be below ``2^62`` in magnitude. ``fresh``: ``X`` is the caller's own new
    array, normalized in place (no copy).

    Cost: three operations a limb, then the top limb's least and greatest entries (one
    reduction each: the top limb needs a limb more exactly when they leave ``[-2^B, 2^B)``,
    and folds into the limb below exactly when they lie in ``[-1, 0]``)."""
    if not fresh:
        X = X.copy()
    if X[-1].size == 0:
        return X[:1]
    L = X.shape[0]
    for l in range(L - 1):
        c = X[l] >> LIMB_BITS
        X[l] &= _MASK  # = X[l] - c 2^B (two's complement)
        X[l + 1] += c
    top = X[-1]
    least, most = int(_least(top, axis=None)), int(_most(top, axis=None))
    while least < -_BASE or most >= _BASE:  # top >> B is not in {-1, 0} everywhere: a limb more
        c = top >> LIMB_BITS
        top &= _MASK
        X = np.concatenate([X, c[None]])
        top = X[-1]
        least, most = least >> LIMB_BITS, most >> LIMB_BITS  # (a shift keeps the order)
    # a top limb of 0 or -1 everywhere folds into the limb below
    while X.shape[0] > 1 and least >= -1 and most <= 0:
        below = X[-2] + (X[-1] << LIMB_BITS)
        X = np.concatenate([X[:-2], below[None]])
        top = X[-1]
        least, most = int(_least(top, axis=None)), int(_most(top, axis=None))
    return X


def floor_shift(X, sh: int) -> np.ndarray:
    """``floor(v / 2^sh)`` of every entry of a normalized ``X`` (``sh < 0``: ``v * 2^-sh``),
    normalized. Dropping whole low limbs is exact (they add a part in ``[0, 1)`` after the
    division); the bits below the remaining shift move into the limb beneath."""
    if sh <= 0:
        q, r = divmod(-sh, LIMB_BITS)
        Y = np.concatenate([np.zeros((q,) + X.shape[1:], dtype=np.int64), X << r]) if q else X << r
        return normalize(Y, fresh=True)
    q, r = divmod(sh, LIMB_BITS)
    if q >= X.shape[0]:  # every entry is below 2^(B L) <= 2^sh in magnitude
        return np.where(X[-1] < 0, -1, 0)[None].astype(np.int64)
    Y = X[q:]
    if r == 0:
        return normalize(Y)
    Z = Y >> r
    Z[:-1] += (Y[1:] & ((1 << r) - 1)) << (LIMB_BITS - r)
    return normalize(Z, fresh=True)


def add(X, Y) -> np.ndarray:
    """The entrywise sum of two normalized limb matrices of one shape, normalized."""
    Z = np.zeros((max(X.shape[0], Y.shape[0]) + 1,) + X.shape[1:], dtype=np.int64)
    Z[:X.shape[0]] += X
    Z[:Y.shape[0]] += Y
    return normalize(Z, fresh=True)


def negative(X) -> np.ndarray:
    """The boolean mask of the negative entries of a normalized ``X``."""
    return X[-1] < 0


def scale(X, F) -> np.ndarray:
    """``v * f`` entrywise (``F``: an int64 array broadcasting to an entry's shape, ``|f| <
    2^(61 - B)``), normalized."""
    if F.size and int(np.abs(F).max()) >= _LIMIT >> (LIMB_BITS + 1):
        raise TooWide("factor too large for int64 limbs")
    return normalize(X * F, fresh=True)


def matmul(A, W) -> np.ndarray:
    """The product of the normalized limb matrices ``A`` (``(La, m, k)``) and ``W``
    (``(Lw, k, n)``), normalized: one int64 product of the stacked limbs, then the limb
    products of equal weight summed. Each sum holds at most ``min(La, Lw) * k`` products of
    two limbs of magnitude ``<= 2^B``; :class:`TooWide` when that could reach ``2^61``."""
    La, m, k = A.shape
    Lw, k2, n = W.shape
    if k != k2:
        raise ValueError(f"expected inner dimensions to agree, got {k} and {k2}")
    if min(La, Lw) * max(k, 1) << (2 * LIMB_BITS) >= _LIMIT:
        raise TooWide("too many terms for int64 limbs")
    A2, W2 = A.reshape(La * m, k), W.transpose(1, 0, 2).reshape(k, Lw * n)
    if max(k, 1) << (2 * LIMB_BITS) <= _FLOAT_EXACT:
        # every term and partial sum is an integer of magnitude <= k 2^(2B) <= 2^53, which a
        # double holds exactly: each addition or fused multiply-add of the product is exact
        # whatever the order, so the doubles are the integers (BLAS speed, 10 times numpy's
        # int64 product)
        Wf = W2.astype(np.float64)
        Af = A2.astype(np.float64)
        rows, cols = La * m, Lw * n
        if not rows or not cols:  # no entry (no chunk to join either)
            P = np.zeros((rows, cols), dtype=np.int64)
        elif rows * k * cols > _BLAS_WHOLE:  # a large product: one call (chunks of it cost far more)
            P = (Af @ Wf).astype(np.int64)
        elif k * cols <= _BLAS_CHUNK:  # chunks of rows
            step = max(1, _BLAS_CHUNK // max(k * cols, 1))
            P = np.concatenate([Af[i:i + step] @ Wf for i in range(0, rows, step)]).astype(np.int64)
        else:  # a row is more than a chunk (few rows, a wide W): chunks of columns
            step = max(1, _BLAS_CHUNK // max(k * rows, 1))
            P = np.concatenate([Af @ Wf[:, j:j + step] for j in range(0, cols, step)], axis=1).astype(np.int64)
    else:
        P = A2 @ W2
    P = P.reshape(La, m, Lw, n).transpose(0, 2, 1, 3)  # P[i, j]: limb i of A times limb j of W
    C = np.zeros((La + Lw, m, n), dtype=np.int64)  # one spare limb for the carries
    for i in range(La):  # the products of limb i, of weights i + j, in one addition
        C[i:i + Lw] += P[i]
    return normalize(C, fresh=True)
