"""An independent second opinion on equivalence claims: z3 on a QF_LRA encoding.

"For all x in D, A(x) = B(x)" is refuted iff ``x in D and A_r(x) != B_r(x)`` for some
output r is satisfiable. This module encodes the models straight from their file-format
JSON (FORMAT.md), with nothing of symrel beyond reading numbers: every ReLU and max is
a fresh real with an ``If``, a hardmax head (average over the argmax set) a case split
over the possible argmax sets; scores are products of a constant and a linear term
(compiled Transformers have constant queries or keys) or the claim is refused as not
linear. z3 is an optional extra (``pip install z3-solver``); :func:`decide_with_z3`
raises ImportError without it. Cost: the encoding is linear in the models' size; z3's
search is exponential in the worst case.

>>> import pytest; z3 = pytest.importorskip("z3")
>>> a = {"symrel": 1, "kind": "cpwl1d", "x": [0, 1, 2], "y": [0, 1, 0]}
>>> b = {"symrel": 1, "kind": "relu", "input_dim": 1, "layers": [
...     {"W": [[1], [1], [1]], "b": [0, -1, -2], "activation": "relu"},
...     {"W": [[1, -2, 1]], "b": [0], "activation": "none"}]}
>>> decide_with_z3(a, b, {"symrel": 1, "kind": "box", "bounds": [[0, 2]]})["result"]
'proved'
>>> decide_with_z3(a, b, {"symrel": 1, "kind": "box", "bounds": [[0, 3]]})["result"]
'refuted'
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction


class NotLinear(ValueError):
    """A score multiplies two non-constant terms: not QF_LRA."""


def _q(v) -> Fraction:
    return Fraction(str(v))


class _Encoder:
    def __init__(self, z3, solver, prefix, nonlinear=False):
        self.z3, self.s, self.prefix, self.n, self.nonlinear = z3, solver, prefix, 0, nonlinear

    def fresh(self, expr):
        """A fresh real equal to ``expr`` (constants stay Fractions)."""
        if isinstance(expr, Fraction):
            return expr
        self.n += 1
        v = self.z3.Real(f"{self.prefix}{self.n}")
        self.s.add(v == expr)
        return v

    def val(self, v):
        return self.z3.RealVal(str(v)) if isinstance(v, Fraction) else v

    def lin(self, row, vec, bias=Fraction(0)):
        """``bias + sum row_j vec_j`` (row: numbers)."""
        const, terms = _q(bias), []
        for c, v in zip(row, vec):
            c = _q(c)
            if c == 0:
                continue
            if isinstance(v, Fraction):
                const += c * v
            else:
                terms.append(v if c == 1 else self.z3.RealVal(str(c)) * v)
        if not terms:
            return const
        e = self.z3.Sum(terms) if len(terms) > 1 else terms[0]
        return e + self.z3.RealVal(str(const)) if const else e

    def mul(self, u, v):
        if isinstance(u, Fraction) and isinstance(v, Fraction):
            return u * v
        if isinstance(u, Fraction):
            return self.z3.RealVal(str(u)) * v if u else Fraction(0)
        if isinstance(v, Fraction):
            return self.z3.RealVal(str(v)) * u if v else Fraction(0)
        if self.nonlinear:
            return u * v
        raise NotLinear("a score multiplies two non-constant terms")

    def add(self, u, v):
        if isinstance(u, Fraction) and isinstance(v, Fraction):
            return u + v
        return self.val(u) + self.val(v)

    def relu(self, z):
        if isinstance(z, Fraction):
            return max(z, Fraction(0))
        return self.fresh(self.z3.If(z > 0, z, self.z3.RealVal(0)))

    def maximum(self, terms):
        if all(isinstance(t, Fraction) for t in terms):
            return max(terms)
        m = self.val(terms[0])
        for t in terms[1:]:
            t = self.val(t)
            m = self.z3.If(t > m, t, m)
        return self.fresh(m)

    # -- models ------------------------------------------------------------------------------
    def model(self, obj, x):
        kind = obj["kind"]
        if kind == "relu":
            h = x
            for layer in obj["layers"]:
                h = [self.lin(row, h, c) for row, c in zip(layer["W"], layer["b"])]
                if layer.get("activation", "relu") == "relu":
                    h = [self.relu(z) for z in h]
                else:
                    h = [self.fresh(z) for z in h]
            return h
        if kind == "maxout":
            h = x
            for layer in obj["layers"]:
                h = [self.maximum([self.lin(p["w"], h, p["b"]) for p in unit["pieces"]]) for unit in layer["units"]]
            if obj.get("readout"):
                h = [self.lin(row, h, c) for row, c in zip(obj["readout"]["W"], obj["readout"]["b"])]
            return h
        if kind == "cpwl1d":
            return [self.cpwl1d(obj, x[0])]
        if kind == "transformer":
            return self.transformer(obj, x)
        raise ValueError(f"no z3 encoding for models of kind {kind!r}")

    def cpwl1d(self, obj, x):
        xs, ys = [_q(v) for v in obj["x"]], [_q(v) for v in obj["y"]]

        def piece(i):   # the line through breakpoints i, i+1
            s = (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i])
            return self.lin([s], [x], ys[i] - s * xs[i])

        out = self.val(piece(len(xs) - 2))
        for i in range(len(xs) - 3, -1, -1):     # x <= x_(i+1): piece i
            out = self.z3.If(self.val(x) <= self.val(xs[i + 1]), self.val(piece(i)), out)
        return self.fresh(out)

    def transformer(self, obj, x):
        T, m = obj["tokens"], obj["width"]
        Z = [[_q(v) for v in obj["embedding"]["offsets"][t]] for t in range(T)]
        for t in range(T):
            for i, r in enumerate(obj["embedding"]["input_rows"]):
                Z[t][r] = self.add(Z[t][r], x[i])
        for block in obj["blocks"]:
            att, ff = block.get("attention"), block.get("feedforward")
            if att is not None:
                if att.get("rule", "hardmax") != "hardmax":
                    raise ValueError("z3 encoding: hardmax attention only")
                delta = [[Fraction(0)] * m for _ in range(T)]
                for head in att["heads"]:
                    q = [[self.lin(row, Z[t]) for row in head["WQ"]] for t in range(T)]
                    k = [[self.lin(row, Z[t]) for row in head["WK"]] for t in range(T)]
                    v = [[self.fresh(self.lin(row, Z[t])) for row in head["WV"]] for t in range(T)]
                    for t in range(T):
                        scores = []
                        for s in range(T):
                            acc = Fraction(0)
                            for a, b in zip(k[s], q[t]):
                                acc = self.add(acc, self.mul(a, b))
                            scores.append(self.fresh(acc))
                        out = self.hardmax(scores, v)
                        for r, row in enumerate(head["WO"]):
                            delta[t][r] = self.add(delta[t][r], self.lin(row, out))
                Z = [[self.fresh(self.add(Z[t][r], delta[t][r])) for r in range(m)] for t in range(T)]
            if ff is not None:
                newZ = []
                for t in range(T):
                    hid = [self.relu(self.lin(row, Z[t], c)) for row, c in zip(ff["W1"], ff["b1"])]
                    newZ.append([self.fresh(self.add(Z[t][r], self.lin(ff["W2"][r], hid, ff["b2"][r])))
                                 for r in range(m)])
                Z = newZ
        ro = obj["readout"]
        col = Z[ro["token"]]
        return [self.lin(row, col, c) for row, c in zip(ro["W"], ro["b"])]

    def hardmax(self, scores, values):
        """The average of ``values[s]`` over the argmax set of ``scores`` (one list per row)."""
        z3, T = self.z3, len(scores)
        dv = len(values[0])
        if all(isinstance(s, Fraction) for s in scores):
            top = max(scores)
            win = [s for s in range(T) if scores[s] == top]
            return [self.lin([Fraction(1, len(win))] * len(win), [values[s][r] for s in win]) for r in range(dv)]
        mx = self.maximum(scores)
        wins = [self.val(s) == self.val(mx) for s in scores]
        outs = []
        for r in range(dv):
            expr = None
            for size in range(T, 0, -1):
                for S in itertools.combinations(range(T), size):
                    avg = self.val(self.lin([Fraction(1, size)] * size, [values[s][r] for s in S]))
                    cond = z3.And([wins[s] for s in S] + [z3.Not(wins[s]) for s in range(T) if s not in S])
                    expr = avg if expr is None else z3.If(cond, avg, expr)
            outs.append(self.fresh(expr))
        return outs


def decide_with_z3(a: dict, b: dict, domain: dict, timeout: float = 60.0) -> dict:
    """``{"result": "proved" | "refuted" | "unknown", "seconds", "point", "logic"}`` for
    "for all x in domain, a(x) = b(x)" (file-format objects), decided by z3 on QF_LRA
    (or, when a score multiplies two non-constant terms, on z3's general nonlinear
    solver: ``logic`` says which). ``point`` (refuted) is z3's model, as Fractions."""
    try:
        return _decide(a, b, domain, timeout, False)
    except NotLinear:
        return _decide(a, b, domain, timeout, True)


def _decide(a, b, domain, timeout, nonlinear):
    import z3

    t0 = time.perf_counter()
    s = z3.Solver() if nonlinear else z3.SolverFor("QF_LRA")
    s.set("timeout", int(timeout * 1000))
    d = len(domain["bounds"]) if domain["kind"] == "box" else len(domain["A"][0])
    x = [z3.Real(f"x{i}") for i in range(d)]
    if domain["kind"] == "box":
        for xi, (lo, hi) in zip(x, domain["bounds"]):
            s.add(xi >= z3.RealVal(str(_q(lo))), xi <= z3.RealVal(str(_q(hi))))
    else:
        enc = _Encoder(z3, s, "d")
        for row, c in zip(domain["A"], domain["b"]):
            s.add(enc.val(enc.lin(row, x)) <= z3.RealVal(str(_q(c))))
    ya = _Encoder(z3, s, "a", nonlinear).model(a, x)
    yb = _Encoder(z3, s, "b", nonlinear).model(b, x)
    enc = _Encoder(z3, s, "o")
    s.add(z3.Or([enc.val(u) != enc.val(v) for u, v in zip(ya, yb)]))
    answer = s.check()
    out = {"seconds": time.perf_counter() - t0, "point": None, "logic": "NRA" if nonlinear else "QF_LRA"}
    if answer == z3.unsat:
        out["result"] = "proved"
    elif answer == z3.sat:
        mdl = s.model()
        out["result"] = "refuted"
        try:
            out["point"] = [Fraction(str(mdl.eval(xi, model_completion=True).as_fraction())) for xi in x]
        except Exception:   # an algebraic number (nonlinear models): no rational point to report
            out["point"] = None
    else:
        out["result"] = "unknown"
    return out
