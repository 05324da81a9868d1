"""Float (numpy) CROWN bounds of a ReLU net on a box with fixed ReLU phases: proposals only.

Definition. :meth:`FloatBounds.run` computes, in float64, what :mod:`symrel.vnnlib.symbolic`
computes exactly, by backward (CROWN/DeepPoly) substitution alone: for every ReLU layer the
pre-activation bounds ``[l, u]`` of each neuron (the first layer's by interval arithmetic,
the others by substituting the layers below), each neuron's relaxation (active, inactive,
fixed by a ReLU split: ``h = 0`` on its side ``z <= 0``, ``h = z`` on ``z >= 0``, as
:func:`~symrel.vnnlib.symbolic.propagate` takes it; or unstable: ``h >= alpha z`` with
``alpha = 1`` when ``u >= -l`` else 0, ``h <= s z + t`` with ``s = u / (u - l)``,
``t = -s l``), and the linear forms of the pre-activations over the input. :meth:`FloatBounds.lower` then gives the lower bound of a
linear function of outputs and inputs, with optional ``beta`` multipliers of the splits
(beta-CROWN: where a split set ``z >= 0`` the function gains ``-beta z``, where it set
``z <= 0`` it gains ``+beta z``, which lowers it on the split's part only).

Nothing here is trusted: the engine uses these numbers to choose what to split and which
leaves are worth an exact check, and a leaf closes only on :mod:`symrel.vnnlib.symbolic`'s
exact bounds. :mod:`symrel.vnnlib.betas` proposes the splits' betas by float LPs (the dual values of the
split constraints, Neumaier-Shcherbina style: floats propose, the exact recomputation of the
bound with the rounded betas decides).

Cost: per run ``O(L^2 w^2)`` float operations (``L`` layers of width ``w``), a few
milliseconds on ACAS Xu.

>>> import pytest; _ = pytest.importorskip("numpy")
>>> from symrel.models import DenseLayer, ReLUNet
>>> from symrel.vnnlib.symbolic import integer_net
>>> net = ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])  # |x|
>>> fb = FloatBounds(integer_net(net))
>>> r = fb.run([-1.0], [2.0], {})
>>> [round(float(v), 3) for v in r.pre[0][0]], [round(float(v), 3) for v in r.pre[0][1]]
([-1.0, -2.0], [2.0, 1.0])
>>> round(fb.lower(r, [1.0], [0.0])[0], 3)          # |x| >= -1 from the relaxation
-1.0
>>> r = fb.run([-1.0], [2.0], {(0, 0): 1, (0, 1): 0})  # x >= 0 fixed: |x| = x there
>>> round(fb.lower(r, [1.0], [0.0])[0], 3)
-1.0
>>> round(fb.lower(r, [1.0], [0.0], [(0, 0, 1, 1.0)])[0], 3)  # with beta = 1 on z = x >= 0
0.0
>>> r = fb.run([-1.0], [2.0], {}, within=[(np.array([0.0, -2.0]), np.array([2.0, 0.5]))])
>>> [float(v) for v in r.pre[0][0]], [float(v) for v in r.pre[0][1]]  # a part's known bounds: intersected
([0.0, -2.0], [2.0, 0.5])
"""

from __future__ import annotations

from dataclasses import dataclass

try:  # the "numeric" extra; the engine imports this module only where numpy is installed
    import numpy as np
except ImportError:  # pragma: no cover - a core-only install (the doctests below skip there)
    np = None


@dataclass
class FloatRun:
    """The result of :meth:`FloatBounds.run`: ``pre[k] = (l, u)`` of ReLU layer ``k``;
    ``relax[k] = (aL, aU, tU)`` its lines (``aL z <= h <= aU z + tU``); ``forms[k] = (Al, cl,
    Au, cu)`` the pre-activations' lower and upper forms over ``x``; ``lo``, ``hi``: the box."""

    pre: list
    relax: list
    forms: list
    lo: np.ndarray
    hi: np.ndarray
    tight: object = None  # the intermediate bounds' slopes this run's node re-optimised (symrel.vnnlib.relu_branch)


_WORK: dict = {}  # (shape, slot) -> a float array that _back_stacked overwrites at each use


def _work(shape, slot: int):
    """A work array of ``shape`` for :meth:`FloatBounds._back_stacked`, kept between calls.

    Why: a stacked pass's arrays are some 400 KB (20 boxes' 50 x 50 maps on ACAS Xu), and a
    fresh array of that size cost ten times its computation: glibc returns the top of its heap
    to the system at each free and faults the pages in again at the next allocation (measured:
    280 microseconds for ``C - np.maximum(C, 0.0)``, 30 with ``MALLOC_TOP_PAD_`` set)."""
    got = _WORK.get((shape, slot))
    if got is None:
        if len(_WORK) > 64:
            _WORK.clear()
        got = _WORK[(shape, slot)] = np.empty(shape)
    return got


def _lines(k, l, u, fixed):
    """The lines ``(aL, aU, tU)`` of ReLU layer ``k`` (``aL z <= h <= aU z + tU``) for the bounds
    ``l``, ``u`` and the phases ``fixed`` (module docstring); ``l``, ``u``: a layer's bounds, or
    those of several boxes as the rows of a matrix (entry by entry the same floats)."""
    aL = np.zeros_like(l)
    aU = np.zeros_like(l)
    tU = np.zeros_like(l)
    act = l >= 0
    unst = (l < 0) & (u > 0)
    aL[act] = aU[act] = 1.0
    if unst.any():
        lu, uu = l[unst], u[unst]
        s = uu / (uu - lu)
        aU[unst] = s
        tU[unst] = -s * lu
        aL[unst] = (uu >= -lu).astype(float)
    for (fk, fi), ph in fixed.items():
        if fk != k:
            continue
        if ph == 0:  # z <= 0 on the split's part: h = 0
            aL[..., fi] = aU[..., fi] = tU[..., fi] = 0.0
        else:  # z >= 0 there: h = z (the exact bounds' phase a)
            aL[..., fi] = aU[..., fi] = 1.0
            tU[..., fi] = 0.0
    return aL, aU, tU


def _scatter(base, rows, values):
    """A copy of ``base`` with ``values`` at ``rows``."""
    out = base.copy()
    out[rows] = values
    return out


class FloatBounds:
    """The float copy of an :class:`~symrel.vnnlib.symbolic.IntNet` (module docstring)."""

    def __init__(self, inet):
        self.layers = []
        for layer in inet.layers:
            # each entry rounded from its exact quotient: the integers and the common
            # denominator may each lie beyond a double's range while their quotient does not
            D = layer.D
            W = np.array([[(p + n) / D for p, n in zip(rp, rn)] for rp, rn in zip(layer.Wp, layer.Wn)],
                         dtype=float).reshape(len(layer.b), -1)
            b = np.array([v / D for v in layer.b], dtype=float)
            self.layers.append((W, b, layer.relu))
        self.relu_at = [li for li, (_, _, r) in enumerate(self.layers) if r]
        #: ``{k: (idx, slopes)}``: neurons ``idx`` of ReLU layer ``k`` whose bounds every run
        #: tightens with the given lower slopes of the unstable neurons below (per layer ``kk <
        #: k`` an array of ``2 len(idx)`` rows, the lower bounds' then the upper bounds', by
        #: ``width_kk``, NaN where the rule's slope), as the exact bounds do with the same slopes
        #: (:mod:`symrel.vnnlib.intermediate`)
        self.tighten = {}
        self._cuts = {}

    def _back(self, C, const, top, relax, upper=False, betas=None, alphas=None, lam=None):
        """Substitute rows ``C`` (coefficients over the output of layer ``top``) down to the
        input; returns ``(A, c)`` with ``C . h_top + const >= A x + c`` (``<=`` when ``upper``).
        ``alphas``: ``{(k, i): alpha}``, lower slopes of unstable neurons replacing the run's
        (one row ``C`` only); with ``lam`` (``{k: array}``, per ReLU layer the multipliers of the
        lines ``h >= z``, NaN where the neuron has no such line) they are chosen here instead,
        ``alpha = lam / mu`` for a neuron whose coefficient ``mu`` is positive, and recorded in
        ``alphas``."""
        k = sum(1 for li in range(top + 1) if self.layers[li][2])
        for li in range(top, -1, -1):
            W, b, relu = self.layers[li]
            if relu:
                k -= 1
                aL, aU, tU = relax[k]
                if lam is not None and k in lam:  # the LP's slopes: mu = lam + (the multiplier of h >= 0)
                    pick = ~np.isnan(lam[k]) & (C[0] > 0)
                    aL = aL.copy()
                    aL[pick] = np.clip(lam[k][pick] / C[0][pick], 0.0, 1.0)
                    for i in np.nonzero(pick)[0]:
                        alphas[(k, int(i))] = float(aL[i])
                elif alphas and lam is None:
                    aL = aL.copy()
                    for (ak, ai), a in alphas.items():
                        if ak == k:
                            aL[ai] = a
                Cp, Cn = np.maximum(C, 0.0), np.minimum(C, 0.0)
                if upper:
                    const = const + Cp @ tU
                    C = np.multiply(Cp, aU, out=Cp)  # Cp * aU + Cn * aL, in place
                    C += np.multiply(Cn, aL, out=Cn)
                else:
                    const = const + Cn @ tU
                    C = np.multiply(Cp, aL, out=Cp)  # Cp * aL + Cn * aU, in place
                    C += np.multiply(Cn, aU, out=Cn)
                if betas:
                    for bk, bi, ph, beta in betas:
                        if bk == k:
                            C[:, bi] += -beta if ph == 1 else beta
            const = const + C @ b
            C = C @ W
        return C, const

    def run(self, lo, hi, fixed, base: FloatRun | None = None, start: int = 0, within=None,
            upto: int | None = None) -> FloatRun:
        """The bounds on the box ``[lo, hi]`` with the phases ``fixed`` (``{(k, i): 0 or 1}``).
        ``base``: a run on the same box whose phases agree with ``fixed`` below ReLU layer
        ``start``; its layers below ``start`` and the bounds and forms of layer ``start`` are
        taken as they are (they depend on nothing else), the rest is computed: the same floats
        as a run without ``base``. ``within``: per ReLU layer bounds ``(l, u)`` known to hold on
        the part (a parent's, whose part holds this one), intersected with those computed; such
        a run is an estimate for a score (no exact leaf reproduces the parent's bounds); its
        layers computed here are computed for the neurons ``within`` leaves unstable only (a
        settled neuron's line does not depend on its bounds, which stay ``within``'s), and keep
        no forms.
        ``upto``: the last ReLU layer computed (None: all); the layers above depend on those
        below only, so a caller that changes layer ``upto``'s bounds (:func:`symrel.vnnlib.
        relu_branch.retighten`) computes them once, after.

        Cost: per ReLU layer ``k`` computed two backward passes of its ``w`` rows through the
        ``k`` layers below (``O(k w^2 + w n)`` for ``n`` inputs)."""
        lo = np.asarray(lo, dtype=float)
        hi = np.asarray(hi, dtype=float)
        pre, relax, forms = [], [], []
        if base is not None:
            pre, forms = base.pre[:start + 1], base.forms[:start + 1]
            relax = base.relax[:start]
        k = -1
        for li, (W, b, relu) in enumerate(self.layers):
            if not relu:
                continue
            k += 1
            if upto is not None and k > upto:
                break
            if k < len(relax):  # from ``base``
                continue
            if k < len(pre):  # from ``base``: the bounds; the phases and lines below
                l, u = pre[k]
            elif k == 0 and li == 0:
                rows = None
                Al, cl = W, b.copy()
                Au, cu = W, b.copy()
            else:
                rows = None
                if within is not None and k < len(within):  # the neurons ``within`` leaves unstable
                    rows = np.nonzero((within[k][0] < 0) & (within[k][1] > 0))[0]
                Wr, br = (W, b) if rows is None else (W[rows], b[rows])
                Al, cl = self._back(Wr, br.copy(), li - 1, relax, False)
                Au, cu = self._back(Wr, br.copy(), li - 1, relax, True)
            if k >= len(pre):
                l = np.maximum(Al, 0) @ lo + np.minimum(Al, 0) @ hi + cl
                u = np.maximum(Au, 0) @ hi + np.minimum(Au, 0) @ lo + cu
                if rows is not None:  # a neuron ``within`` settles keeps its bounds (its line is the same)
                    l, u = _scatter(within[k][0], rows, l), _scatter(within[k][1], rows, u)
                    Al = cl = Au = cu = None  # (an estimate's forms: none kept)
                if k in self.tighten:
                    l, u = self._tightened(k, relax, lo, hi, l, u, rows)
                if within is not None and k < len(within):
                    l, u = np.maximum(l, within[k][0]), np.minimum(u, within[k][1])
            relax.append(_lines(k, l, u, fixed))
            if k >= len(pre):
                pre.append((l, u))
                forms.append((Al, cl, Au, cu))
        return FloatRun(pre, relax, forms, lo, hi)

    def run_many(self, los, his, fixed) -> list:
        """``[self.run(lo, hi, fixed) for lo, hi in zip(los, his)]``, the same floats, with the
        backward passes of all the boxes and of both sides (lower, upper) stacked into one.

        Why: a candidate split of a node is scored by the runs of its two parts (on ACAS Xu
        about ten boxes of the same phases per open node), and a run of a net this small is
        mostly numpy's overhead per call, the same for one 50 x 50 product as for twenty. The
        floats are the same as :meth:`run`'s: a stacked ``matmul`` does each box's product
        with the same BLAS call on the same operands (tests/vnnlib/test_floatbounds.py
        compares them bit for bit), and the rest is the same operations element by element.

        Cost: the work of the runs, in ``O(L^2)`` numpy calls instead of ``O(K L^2)``.

        >>> import pytest; np = pytest.importorskip("numpy")   # the "numeric" extra
        >>> from symrel.models import DenseLayer, ReLUNet
        >>> from symrel.vnnlib.symbolic import integer_net
        >>> fb = FloatBounds(integer_net(ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]),
        ...                                          DenseLayer([[1, 1]], [0], "none")])))
        >>> los, his = [[-1.0], [0.5], [0.0]], [[2.0], [1.0], [0.0]]      # the last box a point
        >>> all(np.array_equal(a.pre[0][1], fb.run(lo, hi, {}).pre[0][1])
        ...     for a, lo, hi in zip(fb.run_many(los, his, {}), los, his))
        True
        """
        K = len(los)
        if K < 2 or self.tighten:  # the tightened layers (relu_branch) run box by box
            return [self.run(lo, hi, fixed) for lo, hi in zip(los, his)]
        LO = np.array(los, dtype=float).reshape(K, -1)
        HI = np.array(his, dtype=float).reshape(K, -1)
        LO3, HI3 = LO[:, :, None], HI[:, :, None]  # (a product by a column is run's product by a vector)
        upper = np.zeros((2 * K, 1, 1), dtype=bool)
        upper[K:] = True
        pre, relax, forms = [], [], []  # per ReLU layer, for all the boxes: (K, width) and (K, width, n) arrays
        stacked = []  # per ReLU layer below: (the coefficients' factor where >= 0, where < 0, the intercepts)
        k = -1
        for li, (W, b, relu) in enumerate(self.layers):
            if not relu:
                continue
            k += 1
            if k == 0 and li == 0:
                Al = Au = np.broadcast_to(W, (K,) + W.shape)
                cl, cu = np.repeat(b[None], K, 0), np.repeat(b[None], K, 0)
            else:
                C, c = self._back_stacked(W, b, li - 1, stacked, upper)
                Al, cl, Au, cu = C[:K], c[:K], C[K:], c[K:]
            l = (np.maximum(Al, 0) @ LO3)[:, :, 0] + (np.minimum(Al, 0) @ HI3)[:, :, 0] + cl
            u = (np.maximum(Au, 0) @ HI3)[:, :, 0] + (np.minimum(Au, 0) @ LO3)[:, :, 0] + cu
            aL, aU, tU = _lines(k, l, u, fixed)
            pre.append((l, u))
            relax.append((aL, aU, tU))
            forms.append((Al, cl, Au, cu))
            stacked.append((np.concatenate([aL, aU]), np.concatenate([aU, aL]), np.concatenate([tU, tU])[:, :, None]))
        return [FloatRun([(l[j], u[j]) for l, u in pre], [tuple(a[j] for a in e) for e in relax],
                         [tuple(a[j] for a in e) for e in forms], LO[j], HI[j]) for j in range(K)]

    def _back_stacked(self, W, b, top, stacked, upper):
        """:meth:`_back` of the rows ``W`` (constants ``b``) from layer ``top`` down, for ``K``
        boxes at once, the lower forms (the first ``K`` of the stack) and the upper ones (the
        last ``K``, where ``upper``): the same operations on each, so the same floats."""
        B = len(upper)
        K = B // 2
        C = np.broadcast_to(W, (B,) + W.shape)
        const = np.broadcast_to(b, (B, len(b)))
        k = sum(1 for li in range(top + 1) if self.layers[li][2])
        for li in range(top, -1, -1):
            Wl, bl, relu = self.layers[li]
            if relu:
                k -= 1
                pos, neg, tU = stacked[k]
                Cp, Cn = np.maximum(C, 0.0, out=_work(C.shape, 0)), np.minimum(C, 0.0, out=_work(C.shape, 1))
                # lower: const + Cn @ tU, upper: const + Cp @ tU
                const = const + np.concatenate([(Cn[:K] @ tU[:K])[:, :, 0], (Cp[K:] @ tU[K:])[:, :, 0]])
                C = np.multiply(Cp, pos[:, None, :], out=Cp)  # Cp * pos + Cn * neg, in place
                C += np.multiply(Cn, neg[:, None, :], out=Cn)
            const = const + C @ bl
            if li == 0:  # the forms returned: an array of their own
                C = C @ Wl
            else:
                out = _work((B, C.shape[1], Wl.shape[1]), 2)
                if out is C:  # (two affine layers in a row)
                    out = _work((B, C.shape[1], Wl.shape[1]), 3)
                C = np.matmul(C, Wl, out=out)
        return C, const

    def cut(self, k):
        """This net cut at ReLU layer ``k``: the layers up to the one computing its
        pre-activations, that one without its ReLU."""
        got = self._cuts.get(k)
        if got is None:
            import copy

            got = copy.copy(self)
            at = self.relu_at[k]
            got.layers = self.layers[:at] + [(self.layers[at][0], self.layers[at][1], False)]
            got.relu_at = self.relu_at[:k]
            got.tighten, got._cuts = {}, {}
            self._cuts[k] = got
        return got

    def _tightened(self, k, relax, lo, hi, l, u, only=None):
        """``l``, ``u`` of ReLU layer ``k`` tightened where :attr:`tighten` says (the backward
        bounds of ``+z_i`` and ``-z_i`` with its slopes, the rule's where NaN); ``only``: the
        neurons tightened, of those (None: all)."""
        from .slopes import _bound

        idx, slopes = self.tighten[k]
        if only is not None:
            pick = np.isin(idx, only)
            idx, both = idx[pick], np.concatenate([pick, pick])
            slopes = [s[both] for s in slopes]
            if not len(idx):
                return l, u
        m = len(idx)
        AY = np.zeros((2 * m, len(l)))
        AY[np.arange(m), idx] = 1.0
        AY[m + np.arange(m), idx] = -1.0
        alpha = []
        for kk in range(k):
            aL, _, tU = relax[kk]
            unst = np.nonzero(tU > 0)[0]
            chosen = slopes[kk][:, unst]
            alpha.append(np.where(np.isnan(chosen), aL[unst][None, :], chosen))
        below = FloatRun([], relax[:k], [], lo, hi)
        got, _, _ = _bound(self.cut(k), below, AY, np.zeros((2 * m, len(lo))), alpha, (), np.zeros((2 * m, 0)))
        l, u = l.copy(), u.copy()
        l[idx] = np.maximum(l[idx], got[:m])
        u[idx] = np.minimum(u[idx], -got[m:])
        return l, u

    def lower(self, run: FloatRun, ay, ax, betas=None, alphas=None, lam=None):
        """``(bound, A, c)``: the float lower bound over the box of ``ay . y + ax . x`` and its
        form ``A x + c``; ``betas``: ``(k, i, phase, beta)`` per split; ``alphas``, ``lam``:
        the lower slopes of unstable neurons, given or chosen (:meth:`_back`)."""
        top = len(self.layers) - 1
        C, c = self._back(np.asarray([ay], dtype=float), np.zeros(1), top, run.relax, False, betas, alphas, lam)
        A = C[0] + np.asarray(ax, dtype=float)
        bound = float(np.maximum(A, 0) @ run.lo + np.minimum(A, 0) @ run.hi + c[0])
        return bound, A, float(c[0])

    def lower_many(self, run: FloatRun, AY, AX):
        """The float lower bounds over the box of the rows ``AY[r] . y + AX[r] . x``."""
        top = len(self.layers) - 1
        C, c = self._back(np.asarray(AY, dtype=float), np.zeros(len(AY)), top, run.relax, False)
        A = C + AX
        return np.maximum(A, 0) @ run.lo + np.minimum(A, 0) @ run.hi + c

    def neuron_scores(self, run: FloatRun, ay, fixed):
        """A BaBSR-style score per unstable neuron for the atom ``ay . y``: ``|mu| * (-l u / (u - l))``
        with ``mu`` the backward coefficient of its output (the loss of its relaxation);
        ``[(score, k, i), ...]`` highest first."""
        out = []
        C = np.asarray([ay], dtype=float)
        k = len(run.relax)
        for li in range(len(self.layers) - 1, -1, -1):
            W, b, relu = self.layers[li]
            if relu:
                k -= 1
                l, u = run.pre[k]
                aL, aU, tU = run.relax[k]
                unst = (l < 0) & (u > 0)
                gap = np.where(unst, -l * u / np.where(unst, u - l, 1.0), 0.0)
                sc = np.abs(C[0]) * gap
                for i in np.nonzero(sc > 0)[0]:
                    if (k, int(i)) not in fixed:
                        out.append((float(sc[i]), k, int(i)))
                Cp, Cn = np.maximum(C, 0.0), np.minimum(C, 0.0)
                C = Cp * aL + Cn * aU
            C = C @ W
        out.sort(key=lambda e: (-e[0], e[1], e[2]))
        return out
