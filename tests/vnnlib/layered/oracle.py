"""An independent second opinion for the layered engine's tests: z3 on the exact net, and
random small layered nets and properties (seeded)."""

from __future__ import annotations

import random

from symrel.exact import rational as q
from symrel.models.layered import LayeredNet, MaxGroups, Relu, SparseAffine
from symrel.vnnlib import LinearAtom, VnnProperty


def z3_sat(net: LayeredNet, prop: VnnProperty):
    """Whether z3 finds an input of the region meeting the unsafe condition (exact rationals)."""
    import z3

    def rv(v):
        return z3.RealVal(f"{int(v.numerator)}/{int(v.denominator)}")

    xs = [z3.Real(f"x{i}") for i in range(net.input_dim)]
    v = list(xs)
    for op in net.ops:
        if op.op == "affine":
            v = [z3.Sum([rv(w) * v[j] for j, w in row] + [rv(c)]) for row, c in zip(op.rows, op.b)]
        elif op.op == "relu":
            v = [z3.If(e > 0, e, 0) for e in v]
        else:
            out = []
            for group in op.groups:
                m = v[group[0]]
                for j in group[1:]:
                    m = z3.If(v[j] > m, v[j], m)
                out.append(m)
            v = out
    ys = [z3.Real(f"y{j}") for j in range(len(v))]
    s = z3.Solver()
    s.add(*[y == e for y, e in zip(ys, v)])

    def atom(a):
        return z3.Sum([rv(c) * x for c, x in zip(a.x, xs) if c] + [rv(c) * y for c, y in zip(a.y, ys) if c]
                      + [z3.RealVal(0)]) <= rv(a.rhs)

    s.add(z3.Or([z3.And([atom(a) for a in conj]) for conj in prop.input_region]))
    s.add(z3.Or([z3.And([atom(a) for a in conj] or [z3.BoolVal(True)]) for conj in prop.unsafe]))
    return s.check() == z3.sat


def _value(rng, denominator=8, size=2):
    return q(f"{rng.randint(-size * denominator, size * denominator)}/{denominator}")


def random_net(rng: random.Random, n: int) -> LayeredNet:
    """A small layered net: affine, ReLU, then (by coin) a max over groups or an affine mix
    and a ReLU, then an affine read-out of one or two outputs."""
    width = rng.randint(3, 5)
    ops = [SparseAffine([[(j, _value(rng)) for j in range(n) if rng.random() < 0.8] for _ in range(width)],
                        [_value(rng) for _ in range(width)], input_dim=n), Relu(width)]
    if rng.random() < 0.6:
        idx = list(range(width))
        rng.shuffle(idx)
        groups = [sorted(idx[:2]), sorted(idx[2:])] if width > 2 else [idx]
        if rng.random() < 0.3:
            groups.append(sorted(rng.sample(range(width), 2)))   # overlapping windows
        ops.append(MaxGroups(groups, input_dim=width))
        width = len(groups)
    else:
        w2 = rng.randint(2, 4)
        ops += [SparseAffine([[(j, _value(rng)) for j in range(width)] for _ in range(w2)],
                             [_value(rng) for _ in range(w2)], input_dim=width), Relu(w2)]
        width = w2
    m = rng.randint(1, 2)
    ops.append(SparseAffine([[(j, _value(rng)) for j in range(width)] for _ in range(m)],
                            [_value(rng) for _ in range(m)], input_dim=width))
    return LayeredNet(n, ops)


def box_conj(lo, hi):
    n = len(lo)
    conj = []
    for i in range(n):
        e = [q(0)] * n
        e[i] = q(1)
        conj.append(LinearAtom(tuple(e), (), q(hi[i])))
        e = [q(0)] * n
        e[i] = q(-1)
        conj.append(LinearAtom(tuple(e), (), -q(lo[i])))
    return tuple(conj)


def random_property(rng: random.Random, net: LayeredNet, y_lo, y_hi) -> VnnProperty:
    """A box of the inputs and one or two unsafe disjuncts of one or two atoms ``Y_j <= t`` or
    ``Y_j >= t`` over the outputs, ``t`` drawn about the outputs' sampled range ``[y_lo, y_hi]``
    (about as often outside it, where the answer is unsat, as inside)."""
    n, m = net.input_dim, net.output_dim
    lo = [q(-1)] * n
    hi = [q(1)] * n
    region = (tuple(LinearAtom(a.x, (q(0),) * m, a.rhs) for a in box_conj(lo, hi)),)
    unsafe = []
    for _ in range(rng.randint(1, 2)):
        conj = []
        for _ in range(rng.randint(1, 2)):
            j = rng.randrange(m)
            sign = rng.choice((1, -1))
            y = [q(0)] * m
            y[j] = q(sign)
            spread = y_hi[j] - y_lo[j] + 1
            t = (y_lo[j] - spread / 2 + spread * q(f"{rng.randint(0, 8)}/16")) if sign == 1 else \
                -(y_hi[j] + spread / 2 - spread * q(f"{rng.randint(0, 8)}/16"))
            conj.append(LinearAtom((q(0),) * n, tuple(y), t))
        unsafe.append(tuple(conj))
    return VnnProperty(n, m, region, tuple(unsafe), "0" * 64, "random")
