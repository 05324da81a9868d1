"""Float-guided proposals of counterexamples: where do the normal forms of A and B differ most?

After the layer-by-layer execution both models are affine forms over the shared
variables (inputs and max or select nodes, :mod:`symrel.prover.nodes`). Evaluating the
registry in float64 on many points is cheap (one small matrix product per node, all
points at once), far cheaper than an exact evaluation of a large Transformer. The points
where the float value of ``|A_r - B_r|`` is largest are *proposed* (and the given candidates
where it is not zero come first); every proposal is a
rational point of the box (a grid of step ``1 / 2^20`` of each side) and counts only after
exact evaluation confirms it (:func:`symrel.prover.counterexamples.find_counterexample`).
Nothing here decides anything.

Needs numpy (an optional extra); without it there are no proposals. Cost: O(points x size
of the registry) float operations.

>>> import pytest; np = pytest.importorskip("numpy")
>>> from symrel.exact import Q
>>> from symrel.exact.forms import AffineForm
>>> from symrel.prover.nodes import Registry
>>> reg = Registry([(Q(-1), Q(1))])
>>> x = AffineForm.var(0)
>>> y, _ = reg.max_of([x, AffineForm.constant(Q(1, 2))])    # max(x, 1/2) differs from 1/2 for x > 1/2
>>> pts = ranked(reg, [y - AffineForm.constant(Q(1, 2))], [[Q(0)], [Q(1)]], reg.ranges[:1], points=64)
>>> [str(v) for v in pts[0]], len(pts), all(p[0] > Q(1, 2) for p in pts[1:9])   # x = 1 differs, x = 0 last
(['1'], 10, True)
"""

from __future__ import annotations

import random

from ..exact import Q

GRID = 2 ** 20


def _numpy():
    try:
        import numpy
    except ImportError:       # the core install: no float proposals
        return None
    return numpy


def _dense(np, forms, column=None):
    """Forms as ``(columns, matrix, constants)``: the columns of the variables they use (the
    variable ids, or ``column[id]``), one matrix row of coefficients per form over those
    columns, and the constants (floats)."""
    at = (lambda v: v) if column is None else column.__getitem__
    used = sorted({at(v) for f in forms for v in f.coeffs})
    where = {j: k for k, j in enumerate(used)}
    M = np.zeros((len(forms), len(used)))
    c = np.zeros(len(forms))
    for i, f in enumerate(forms):
        c[i] = float(f.const)
        for v, a in f.coeffs.items():
            M[i, where[at(v)]] = float(a)
    return used, M, c


def _apply(V, dense):
    used, M, c = dense
    return (V[:, used] @ M.T + c) if used else c + 0 * V[:, :1]


class ForwardPass:
    """Float64 values, and with ``gradients`` the input gradients, of the inputs and of
    ``nodes`` (a dependency closure, sorted) at many points at once; the forms' matrices are
    built once. Column ``d + k`` holds ``nodes[k]`` (the node's own id when ``nodes`` is
    every node). A max node's value is its float maximising term's, a select node's the
    term of a float maximiser of its scores; the gradient is that term's."""

    def __init__(self, np, registry, nodes, gradients: bool = True):
        self.np, self.d, self.gradients = np, registry.dim, gradients
        self.col = {i: i for i in range(self.d)}
        for k, v in enumerate(nodes):
            self.col[v] = self.d + k
        self.plan = []
        for v in nodes:
            node = registry.nodes[v]
            scores = _dense(np, node.scores, self.col) if node.scores else None
            self.plan.append((self.col[v], _dense(np, node.terms, self.col), scores))

    def run(self, X):
        """``(V, J)``: values (points x columns) and gradients (points x columns x inputs;
        None without ``gradients``)."""
        np, d = self.np, self.d
        N = X.shape[0]
        V = np.zeros((N, d + len(self.plan)), order="F")   # columns contiguous: a node reads a few of them
        J = None
        if self.gradients:
            J = np.zeros((N, d + len(self.plan), d))
            J[:, :d, :] = np.eye(d)
        V[:, :d] = X
        rows = np.arange(N)
        for j, dense, scores in self.plan:
            T = _apply(V, dense)
            win = np.argmax(T if scores is None else _apply(V, scores), axis=1)
            V[:, j] = T[rows, win]
            if J is not None:
                used, M, _ = dense
                J[:, j, :] = np.einsum("nu,nud->nd", M[win], J[:, used, :])
        return V, J

    def forms(self, V, J, dense):
        """Values (points x forms) and gradients (points x forms x inputs) of forms."""
        used, M, c = dense
        return V[:, used] @ M.T + c, self.np.einsum("fu,nud->nfd", M, J[:, used, :])


def float_values(registry, X):
    """The float64 value of every variable of ``registry`` at the rows of ``X`` (points x
    variables): :class:`ForwardPass` over every node, without gradients."""
    return ForwardPass(_numpy(), registry, range(registry.dim, len(registry.nodes)), gradients=False).run(X)[0]


def ranked(registry, diffs, candidates, box, points: int = 2048, top: int = 8, seed: int = 0,
           tol: float = 1e-9) -> list[list]:
    """The ``candidates`` (rational points) reordered, and float proposals added: first the
    candidates where the float ``max_r |diffs[r]|`` exceeds ``tol`` (in their order), then up
    to ``top`` seeded grid points of ``box`` (step ``1 / 2^20`` of each side) where it is
    largest, largest first, then the other candidates. Without numpy: the candidates as given."""
    np = _numpy()
    if np is None or not candidates and not points or all(g.is_zero() for g in diffs):
        return list(candidates)
    rng = random.Random(seed)
    grid = [[rng.randrange(GRID + 1) for _ in box] for _ in range(points)]
    try:
        lo = np.array([float(a) for a, _ in box])
        width = np.array([float(b - a) for a, b in box])
        X = np.vstack([np.array([[float(v) for v in p] for p in candidates]).reshape(-1, len(box)),
                       lo + width * (np.array(grid, dtype=float).reshape(-1, len(box)) / GRID)])
        gap = np.abs(_apply(float_values(registry, X), _dense(np, diffs))).max(axis=1)
    except OverflowError:    # numbers beyond float range: no float screen, the candidates as given
        return list(candidates)
    m = len(candidates)
    first = [p for p, g in zip(candidates, gap[:m]) if g > tol]
    order = [int(i) for i in np.argsort(-gap[m:], kind="stable")[:top] if gap[m + i] > tol]
    proposed = [[a + (b - a) * Q(k, GRID) for k, (a, b) in zip(grid[i], box)] for i in order]
    return first + proposed + [p for p, g in zip(candidates, gap[:m]) if not g > tol]
