"""Make the ACAS Xu properties of ``benchmarks/data/acasxu_heldout/``: a tuning set and a held-out set.

``python -m benchmarks.make_acas_heldout [--out benchmarks/data/acasxu_heldout]``

The VNN-COMP 2021 properties 1 to 4 are what the exact engine was developed on. These are other
properties of the same 45 nets (``ACASXU_run2a_I_J``, inputs normalised as in ``prop_1..4``),
in five families, each written so that nnenum's VNN-LIB reader (boxes, comparisons of two
variables or of a variable and a constant, disjunctions of conjunctions) reads it too:

* ``classic``: the classic properties 5 to 10 (Katz et al. 2017, as in nnenum's snapshot
  ``examples/acasxu/data``), on the net each was stated for (1_1, 1_1, 1_9, 2_9, 3_3, 4_5), and
  on another net drawn at random;
* ``wideadv``: a wide box (each input a random interval of 1/2 to all of its range) and an
  unsafe condition of two or three disjuncts "advisory k is the minimum score" (as property 7);
* ``widethr``: a wide box (1/4 to 1/2 of each range) and "``Y_j`` beyond its float extreme over
  the box plus a margin of 2 to 5% of its float range": unsat unless the float search missed a
  higher extreme;
* ``narrow``: a box of 1/16 to 1/4 of each range and three disjuncts ``Y_j >= t`` or ``Y_j <=
  t`` on three outputs: two beyond their float extremes by 2 to 5% of their ranges, one just
  inside its extreme by 1e-6 of its range (a counterexample exists, checked exactly here, in a
  region about that narrow), or in half of them just beyond it by 1e-4 (a tight property);
* ``inputdisj``: an input region of two or three disjoint boxes (1/16 to 1/8 of each range)
  and one threshold on one output: just inside its extreme over the union (a narrow
  counterexample in one box) or beyond it by 1% of the range.

An extreme is found by a float search (random starts and projected sign-gradient steps, float64
numpy); a counterexample this script promises is checked with the net's exact evaluation. A
threshold is a decimal of 9 places.

The split, made before any verifier ran: within each family, the instances are drawn with the
seed ``SEED``, then shuffled with it and cut in half, the first half the TUNING set and the
second the HELD-OUT set (for ``classic``: the classic pairs are the tuning set, they had been
run before; the same properties on the other nets are held out). ``instances.csv`` lists
them: ``set, family, onnx`` (a file of ``../shared/data/vnncomp2021/acasxu``), ``vnnlib`` (a
file of this folder), ``timeout``, ``expect`` (``sat`` where this script checked a
counterexample exactly, else empty) and ``note``.
"""

from __future__ import annotations

import argparse
import csv
import random
from fractions import Fraction
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "data" / "acasxu_heldout"
NETS_FROM_LISTS = "../../../../shared/data/vnncomp2021/acasxu"  # from OUT to the nets, as a list names them
NETS = Path(__file__).resolve().parents[2] / "shared" / "data" / "vnncomp2021" / "acasxu"
NNENUM = Path("/work/.mirror/stanleybak+nnenum/repo")
SEED = 20261208
TIMEOUT = 116
PER_FAMILY = 8
#: the inputs' ranges (properties 7 and 1: the normalised state space)
DOMAIN_LO = (-0.328422877, -0.499999896, -0.499999896, -0.5, -0.5)
DOMAIN_HI = (0.679857769, 0.499999896, 0.499999896, 0.5, 0.5)
#: the nets the classic properties 5 to 10 were stated for
CLASSIC = {5: "1_1", 6: "1_1", 7: "1_9", 8: "2_9", 9: "3_3", 10: "4_5"}
ALL_NETS = [f"{a}_{b}" for a in range(1, 6) for b in range(1, 10)]


def net_file(net: str) -> str:
    return f"ACASXU_run2a_{net}_batch_2000.onnx"


class FloatNet:
    """The net in float64 numpy, with the gradient of a linear function of the outputs."""

    def __init__(self, path):
        from symrel.interop.onnx_import import read_onnx

        self.exact = read_onnx(path).model
        self.layers = []
        for layer in self.exact.layers:
            W = np.array([[float(v) for v in r] for r in layer.affine.exact_W.to_list()])
            b = np.array([float(r[0]) for r in layer.affine.exact_b.to_list()])
            self.layers.append((W, b, layer.activation == "relu"))

    def value_grad(self, X, c):
        """``c . f(x)`` per row of X and its gradient."""
        h, masks = X, []
        for W, b, relu in self.layers:
            h = h @ W.T + b
            m = h > 0 if relu else None
            masks.append(m)
            if relu:
                h = h * m
        g = np.tile(c, (X.shape[0], 1))
        for (W, _, _), m in zip(reversed(self.layers), reversed(masks)):
            if m is not None:
                g = g * m
            g = g @ W
        return h @ c, g

    def outputs(self, X):
        h = X
        for W, b, relu in self.layers:
            h = h @ W.T + b
            if relu:
                h = np.maximum(h, 0)
        return h


def maximise(net: FloatNet, c, boxes, rng: np.random.Generator, starts=400, steps=200):
    """The best point (and value) of ``c . f`` found in the union of ``boxes`` by random starts
    and projected sign-gradient ascent with a per-start step halved on failure."""
    best_x, best_v = None, -np.inf
    for lo, hi in boxes:
        lo, hi = np.array(lo), np.array(hi)
        X = rng.uniform(lo, hi, size=(starts, len(lo)))
        X[0] = (lo + hi) / 2
        step = np.tile((hi - lo) / 4, (starts, 1))
        v, g = net.value_grad(X, c)
        for _ in range(steps):
            Xn = np.clip(X + step * np.sign(g), lo, hi)
            vn, gn = net.value_grad(Xn, c)
            up = vn > v
            X[up], v[up], g[up] = Xn[up], vn[up], gn[up]
            step[~up] /= 2
        k = int(v.argmax())
        if v[k] > best_v:
            best_x, best_v = X[k].copy(), float(v[k])
    return best_x, best_v


def dec(v: float, places=9) -> str:
    return f"{v:.{places}f}"


def exact_value(net: FloatNet, x, c) -> Fraction:
    """``c . f(x)`` exactly at the decimal point ``x`` (the strings written)."""
    from symrel.exact import rational

    y = net.exact.evaluate_exact([rational(v) for v in x])
    return sum((Fraction(str(ci)) * Fraction(int(yi.numerator), int(yi.denominator)) for ci, yi in zip(c, y)),
               Fraction(0))


def random_box(rng: random.Random, lo_frac, hi_frac):
    lo, hi = [], []
    for a, b in zip(DOMAIN_LO, DOMAIN_HI):
        w = (b - a) * rng.uniform(lo_frac, hi_frac)
        s = rng.uniform(a, b - w)
        lo.append(float(dec(s, 6)))
        hi.append(float(dec(s + w, 6)))
    return lo, hi


def output_range(net: FloatNet, boxes, j, nrng):
    """The float maximum and minimum of ``Y_j`` over the boxes, with their points."""
    c = np.eye(5)[j]
    xmax, vmax = maximise(net, c, boxes, nrng)
    xmin, vmin = maximise(net, -c, boxes, nrng)
    return (xmax, vmax), (xmin, -vmin)


# -- writing ----------------------------------------------------------------------------------------

HEADER = "".join(f"(declare-const X_{i} Real)\n" for i in range(5)) + "\n" + \
    "".join(f"(declare-const Y_{i} Real)\n" for i in range(5)) + "\n"


def box_atoms(lo, hi):
    return " ".join(f"(<= X_{i} {dec(b, 6)}) (>= X_{i} {dec(a, 6)})" for i, (a, b) in enumerate(zip(lo, hi)))


def write_prop(path: Path, comment: str, boxes, disjuncts) -> None:
    """``boxes``: the input region's boxes; ``disjuncts``: lists of atoms ``"(<= Y_0 Y_1)"``."""
    text = "".join(f"; {line}\n" for line in comment.splitlines()) + "\n" + HEADER
    if len(boxes) == 1:
        lo, hi = boxes[0]
        for i, (a, b) in enumerate(zip(lo, hi)):
            text += f"(assert (<= X_{i} {dec(b, 6)}))\n(assert (>= X_{i} {dec(a, 6)}))\n"
    else:
        text += "(assert (or\n" + "".join(f"    (and {box_atoms(lo, hi)})\n" for lo, hi in boxes) + "))\n"
    text += "\n(assert (or\n" + "".join(f"    (and {' '.join(d)})\n" for d in disjuncts) + "))\n"
    path.write_text(text)


def threshold_atom(j, direction, t):
    return f"(>= Y_{j} {dec(t)})" if direction > 0 else f"(<= Y_{j} {dec(t)})"


def round_out(v, direction):
    """``v`` rounded to 9 places away from the inside (down for >=, up for <=): the witness stays one."""
    q = Fraction(v).limit_denominator(10 ** 12) if not isinstance(v, Fraction) else v
    scaled = q * 10 ** 9
    n = (scaled.numerator // scaled.denominator) if direction > 0 else -((-scaled.numerator) // scaled.denominator)
    return n / 10 ** 9


def narrow_threshold(net, point, j, direction, rel, spread):
    """A threshold ``rel * spread`` inside the exact value of ``Y_j`` at the decimal ``point``
    (so that ``point`` is a counterexample), rounded outwards; the point's strings."""
    x = [dec(v, 9) for v in point]
    c = [1 if k == j else 0 for k in range(5)]
    v = exact_value(net, x, c)
    t = v - Fraction(rel * spread) if direction > 0 else v + Fraction(rel * spread)
    t = round_out(t, direction)
    assert (v >= Fraction(dec(t))) if direction > 0 else (v <= Fraction(dec(t)))
    return t, x


def clip_point(x, lo, hi):
    return [min(max(float(dec(v, 9)), a), b) for v, a, b in zip(x, lo, hi)]


# -- the families -----------------------------------------------------------------------------------

def family_classic(out: Path, rng: random.Random):
    rows = []
    R = NNENUM
    import subprocess

    for p, net in CLASSIC.items():
        text = subprocess.run(["git", "-C", str(R), "show", f"HEAD:examples/acasxu/data/prop_{p}.vnnlib"],
                              capture_output=True, text=True, check=True).stdout
        (out / f"prop_{p}.vnnlib").write_text(text)
        rows.append(("tuning", "classic", net, f"prop_{p}.vnnlib", "", f"property {p} on its net"))
    for p, net in CLASSIC.items():
        other = rng.choice([n for n in ALL_NETS if n != net])
        rows.append(("heldout", "classic", other, f"prop_{p}.vnnlib", "", f"property {p} on another net"))
    return rows


def family_wideadv(out: Path, rng: random.Random, nrng):
    made = []
    for k in range(PER_FAMILY):
        net = rng.choice(ALL_NETS)
        lo, hi = random_box(rng, 0.5, 1.0)
        advs = sorted(rng.sample([1, 2, 3, 4], rng.choice([2, 3])))
        disj = [[f"(<= Y_{a} Y_{o})" for o in range(5) if o != a] for a in advs]
        name = f"wideadv_{k}.vnnlib"
        write_prop(out / name, f"wideadv {k}: a wide box; unsafe: one of advisories {advs} has the minimum score\n"
                   f"made for net {net} by benchmarks/make_acas_heldout.py", [(lo, hi)], disj)
        made.append((net, name, "", f"advisories {advs}"))
    return made


def family_widethr(out: Path, rng: random.Random, nrng):
    made = []
    for k in range(PER_FAMILY):
        net = rng.choice(ALL_NETS)
        fnet = FloatNet(NETS / net_file(net))
        lo, hi = random_box(rng, 0.25, 0.5)
        j, direction = rng.randrange(5), rng.choice([1, -1])
        (xmax, vmax), (xmin, vmin) = output_range(fnet, [(lo, hi)], j, nrng)
        spread = vmax - vmin
        margin = rng.uniform(0.02, 0.05) * spread
        t = round_out(vmax + margin, 1) if direction > 0 else round_out(vmin - margin, -1)
        name = f"widethr_{k}.vnnlib"
        write_prop(out / name, f"widethr {k}: a wide box; unsafe: Y_{j} {'>=' if direction > 0 else '<='} {dec(t)}, "
                   f"beyond the float {'max' if direction > 0 else 'min'} {vmax if direction > 0 else vmin:.9f} by "
                   f"{margin / spread:.3f} of the float range\nmade for net {net} by benchmarks/make_acas_heldout.py",
                   [(lo, hi)], [[threshold_atom(j, direction, t)]])
        made.append((net, name, "", f"Y_{j} {'max' if direction > 0 else 'min'} + {margin / spread:.3f} range"))
    return made


def family_narrow(out: Path, rng: random.Random, nrng):
    made = []
    for k in range(PER_FAMILY):
        net = rng.choice(ALL_NETS)
        fnet = FloatNet(NETS / net_file(net))
        lo, hi = random_box(rng, 1 / 16, 1 / 4)
        outs = rng.sample(range(5), 3)
        dirs = [rng.choice([1, -1]) for _ in outs]
        narrow = rng.randrange(3)
        tight = k % 2 == 1  # half of them just beyond the extreme: probably unsat, tightly
        disj, expect, notes = [], "", []
        for m, (j, direction) in enumerate(zip(outs, dirs)):
            (xmax, vmax), (xmin, vmin) = output_range(fnet, [(lo, hi)], j, nrng)
            spread = vmax - vmin
            ext, point = (vmax, xmax) if direction > 0 else (vmin, xmin)
            if m == narrow and not tight:
                t, x = narrow_threshold(fnet, clip_point(point, lo, hi), j, direction, 1e-6, spread)
                expect = "sat"
                notes.append(f"Y_{j} narrow at {' '.join(x)}")
            elif m == narrow:
                t = round_out(ext + direction * 1e-4 * spread, direction)
                notes.append(f"Y_{j} tight (+1e-4 range)")
            else:
                rel = rng.uniform(0.02, 0.05)
                t = round_out(ext + direction * rel * spread, direction)
                notes.append(f"Y_{j} +{rel:.3f} range")
            disj.append([threshold_atom(j, direction, t)])
        name = f"narrow_{k}.vnnlib"
        write_prop(out / name, f"narrow {k}: three unsafe disjuncts; " + "; ".join(notes)
                   + f"\nmade for net {net} by benchmarks/make_acas_heldout.py", [(lo, hi)], disj)
        made.append((net, name, expect, "; ".join(n.split(" at ")[0] for n in notes)))
    return made


def family_inputdisj(out: Path, rng: random.Random, nrng):
    made = []
    for k in range(PER_FAMILY):
        net = rng.choice(ALL_NETS)
        fnet = FloatNet(NETS / net_file(net))
        boxes = []
        while len(boxes) < rng.choice([2, 3]):
            lo, hi = random_box(rng, 1 / 16, 1 / 8)
            if all(any(hi[i] < b[0][i] or lo[i] > b[1][i] for i in range(5)) for b in boxes):  # disjoint
                boxes.append((lo, hi))
        j, direction = rng.randrange(5), rng.choice([1, -1])
        (xmax, vmax), (xmin, vmin) = output_range(fnet, boxes, j, nrng)
        spread = vmax - vmin
        ext, point = (vmax, xmax) if direction > 0 else (vmin, xmin)
        if k % 2 == 0:
            box = next(b for b in boxes if all(a - 1e-12 <= v <= c + 1e-12 for v, a, c in zip(point, *b)))
            t, x = narrow_threshold(fnet, clip_point(point, *box), j, direction, 1e-6, spread)
            expect, note = "sat", f"Y_{j} narrow"
        else:
            t = round_out(ext + direction * 0.01 * spread, direction)
            expect, note = "", f"Y_{j} +0.01 range"
        name = f"inputdisj_{k}.vnnlib"
        write_prop(out / name, f"inputdisj {k}: {len(boxes)} boxes; unsafe: {threshold_atom(j, direction, t)} ({note})"
                   f"\nmade for net {net} by benchmarks/make_acas_heldout.py", boxes,
                   [[threshold_atom(j, direction, t)]])
        made.append((net, name, expect, f"{len(boxes)} boxes; {note}"))
    return made


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.make_acas_heldout")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    nrng = np.random.default_rng(SEED)
    rows = family_classic(out, rng)
    for family in (family_wideadv, family_widethr, family_narrow, family_inputdisj):
        made = family(out, rng, nrng)
        order = list(range(len(made)))
        random.Random(SEED + len(rows)).shuffle(order)
        for rank, k in enumerate(order):
            net, name, expect, note = made[k]
            rows.append(("tuning" if rank < len(made) // 2 else "heldout", family.__name__[7:], net, name, expect, note))
    with open(out / "instances.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["set", "family", "onnx", "vnnlib", "timeout", "expect", "note"])
        for s, fam, net, name, expect, note in sorted(rows, key=lambda r: (r[0] != "tuning", r[1], r[3])):
            w.writerow([s, fam, net_file(net), name, TIMEOUT, expect, note])
    write_lists(out)
    print(f"{len(rows)} instances written to {out}")
    return 0


def write_lists(out: Path) -> None:
    """``tuning_instances.csv`` and ``heldout_instances.csv`` beside ``instances.csv``: the two
    sets as competition lists (``onnx,vnnlib,timeout``, paths relative to the list's folder, the
    nets those of ``../shared`` beside the repository), which ``benchmarks.bench_vnncomp`` and
    ``benchmarks.bench_peers`` run."""
    with open(out / "instances.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for which in ("tuning", "heldout"):
        with open(out / f"{which}_instances.csv", "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            for r in rows:
                if r["set"] == which:
                    w.writerow([f"{NETS_FROM_LISTS}/{r['onnx']}", r["vnnlib"], r["timeout"]])


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
