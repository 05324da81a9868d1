"""A certified lambda for a whole Transformer: softmax at lambda within eps of hardmax.

Claim (for a Transformer T, a box D and eps > 0): with every attention sublayer of T
switched to softmax at scale lambda, ``sup_{x in D} |T_softmax(x) - T_hardmax(x)|_inf <= eps``.

Proof, followed block by block (:func:`propagate`): the hardmax states have the exact
ranges of :mod:`symrel.softmax.ranges`; an entrywise error bound ``E_b[t][r]`` on
``|Z_softmax - Z_hardmax|`` starts at 0 and grows as follows.

* **max head** (value ``= mu * score``, ``score = k . Z_s``, the constant query error-free):
  the output moves by at most
  ``|W_O mu| (max_s |k| E_s + gap(T, lambda))``, because ``max`` is 1-Lipschitz in the
  inf-norm and ``0 <= max s - softmax-average <= gap(T, lambda) = min((T-1)/(e lambda), ln T/lambda)``
  for any scores (:func:`~symrel.softmax.lemmas.max_head_gap`).
* **selection head** (key ``w(t)`` wins by ``delta_t`` on the box): the score errors are
  bounded from the key/query ranges and errors, the margin left is
  ``delta' = delta_t - err(w) - max_s err(s)``, which must be positive, and the output moves
  by at most ``|W_O| (|W_V| E_w + 2 (T-1) exp(-lambda delta') Vmax)``
  (:func:`~symrel.softmax.lemmas.selection_weight_loss`).
  **Tied keys** (the argmax set W(t) is several keys with one constant key vector,
  :func:`~symrel.softmax.ranges.tied_keys`): when their keys carry no error their softmax
  scores stay equal, so they share the weight ``1 - L`` equally, and each other key has
  weight ``<= exp(-lambda delta')/|W|``; with ``delta' = delta_t - max_W err - max_{s not in W} err``
  the output moves by at most ``|W_O| (mean_W |W_V| E_w + 2 L Vmax)``,
  ``L = (T-|W|)/|W| exp(-lambda delta')`` (``L = 0`` when every key is tied).
* **feed-forward**: a unit with pre-activation error ``e_a = |W1_h| E_t``: if its exact
  range keeps a margin ``>= e_a`` from 0 (a *gating margin*), both versions are on the same
  side, so it is exactly linear or exactly 0; the linear units are folded,
  ``E' = |I + W2_L W1_L| E + sum_{other h} |W2_h| e_a`` (``|ReLU a - ReLU b| <= |a - b|``).
  With ``strict_gating`` a gate whose margin cannot absorb ``e_a`` is an obstacle instead.
* **read-out**: ``|W| E_token``; the claim holds when every entry is ``<= eps``.

Every number is an exact rational; exp, e and log enter only through the rational referee
of :mod:`symrel.softmax.taylor` (cross-checked against mpmath.iv and arb at the returned
lambda). :func:`lambda_min` searches lambda by bisection and certifies the rational it returns
by re-running the whole propagation at that rational.

>>> from symrel.compiler import compile_maxout
>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit, Box
>>> from symrel.exact import rational as r
>>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1], [0]], [0, 0, "1/2"])])])
>>> D = Box([[-1, 1]])
>>> res = lambda_min(compile_maxout(net, D).transformer, D, r("1/100"))
>>> res.proved, str(res.lam), res.bound <= r("1/100")
(True, '27591/250', True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..exact import Public, Q, Rational, inner, rational, rational_str, to_public
from ..exact.display import Card, number_text, short_text
from ..exact.displayed import Displayed
from ..certificates import OPEN, PROVED, Proof, Step
from .taylor import e_bounds, log_bounds
from .lemmas import DIGITS, _eps, ceil_significant, max_head_gap, selection_weight_loss
from ..exact.forms import AffineForm
from .ranges import FeedForwardPlan, Plan, analyse, linear_fold, max_abs

#: lambda beyond which the search gives up (the claim stays open).
MAX_LAMBDA = Q(10) ** 40

CLAIM_KIND = "softmax-bound"


@dataclass
class GateRecord:
    """A ReLU whose hardmax sign is fixed on the box (distance ``margin`` from 0) but whose
    pre-activation error ``error`` exceeds that margin at this lambda."""

    block: int
    token: int
    unit: int
    margin: Rational
    error: Rational


@dataclass
class ErrorTrace:
    """The error propagation at one lambda: entrywise bound per block, the lemma bounds used,
    the output error per component, and what stopped it (``obstacle``)."""

    lam: Rational
    block_errors: list[Rational] = field(default_factory=list)
    heads: list[dict] = field(default_factory=list)
    feedforwards: list[dict] = field(default_factory=list)
    gates: list[GateRecord] = field(default_factory=list)
    output_error: list[Rational] = field(default_factory=list)
    obstacle: str | None = None
    #: the obstacle stays at every lambda (an error that is positive at one lambda is at all)
    hopeless: bool = False
    #: the entrywise bound after every block (token-major ``E[t][r]``)
    states: list[list[list[Rational]]] = field(default_factory=list)
    #: the referee's upper bounds used: gap(n, lambda) per n, exp(-lambda delta') per "block,head,token"
    gap_upper: dict[int, Rational] = field(default_factory=dict)
    exp_upper: dict[str, Rational] = field(default_factory=dict)
    #: the argmax sets of two or more tied keys, per "block,head,token"
    tied_keys: dict[str, list[int]] = field(default_factory=dict)

    @property
    def total(self) -> Rational | None:
        """The bound on the sup-norm error of the output (None when the proof stopped)."""
        if self.obstacle is not None:
            return None
        return max(self.output_error) if self.output_error else Q(0)


def _fold(ff: FeedForwardPlan, linear: frozenset) -> dict[int, AffineForm]:
    """The rows of ``I + W2_L W1_L`` that differ from the identity, as linear forms, cached
    per set of linear units."""
    cache = ff.__dict__.setdefault("_fold_cache", {})
    if linear not in cache:
        M = linear_fold(ff, sorted(linear))
        rows_ = {}
        for r, row in M.items():
            row = dict(row)
            row[r] = row.get(r, Q(0)) + 1
            rows_[r] = AffineForm(Q(0), {c: v for c, v in row.items() if v})
        cache[linear] = rows_
    return cache[linear]


def _propagate_feedforward(b: int, ff: FeedForwardPlan, E, trace: ErrorTrace, strict: bool):
    out = []
    fixed = lipschitz = 0
    for t, Et in enumerate(E):
        pre = ff.pre[t]
        ea = {h: ff.W1[h].error_bound(Et) for h in ff.singles}
        linear, loose = [p for p, _ in ff.pairs], []
        for h in ff.singles:
            lo, hi = pre[h]
            if lo >= ea[h]:
                linear.append(h)
                fixed += 1
            elif hi <= -ea[h]:
                fixed += 1
            else:
                loose.append(h)
                lipschitz += 1
                if lo >= 0 or hi <= 0:
                    trace.gates.append(GateRecord(b, t, h, lo if lo >= 0 else -hi, ea[h]))
                elif strict:
                    trace.obstacle = (f"block {b}, token {t}: hidden unit {h} has no fixed sign on the box "
                                      f"(pre-activation range [{lo}, {hi}])")
                    trace.hopeless = True
        if strict and trace.gates:
            g = trace.gates[0]
            trace.obstacle = (f"block {g.block}, token {g.token}: gating margin {_short(g.margin)} of hidden "
                              f"unit {g.unit} cannot absorb the accumulated error "
                              + ("(positive at every lambda)" if g.margin == 0 else
                                 f"{_short(g.error)} at lambda = {_short(trace.lam)}"))
        folded = _fold(ff, frozenset(linear))
        Et2 = []
        for r in range(len(Et)):
            row = folded.get(r)
            Et2.append(Et[r] if row is None else row.error_bound(Et))
        for h in loose:
            if ea[h]:
                for r, w2 in ff.W2cols[h]:
                    Et2[r] += abs(w2) * ea[h]
        out.append(Et2)
    trace.feedforwards.append({"block": b, "sign_fixed": fixed, "lipschitz": lipschitz, "pairs": len(ff.pairs)})
    return out


def _propagate_attention(b: int, heads, E, lam: Rational, trace: ErrorTrace, backends):
    T = len(E)
    out = [list(r) for r in E]
    for hp in heads:
        if hp.kind == "max":
            if any(row.error_bound(E[t]) for row in hp.WQ for t in range(T)):
                # the constant query is what makes value = score; an error in it breaks the lemma
                trace.obstacle = (f"block {b}, head {hp.index}: the constant query of a max head carries an "
                                  "error, so value = score is not known for the softmax version")
                trace.hopeless = True
                return out
            score_err = max(hp.k.error_bound(E[s]) for s in range(T))
            gap = max_head_gap(T, lam, backends=backends).hi
            trace.gap_upper[T] = gap
            c = score_err + gap
            for t in range(T):
                for r, v in hp.w:
                    out[t][r] += abs(v) * c
            trace.heads.append({"block": b, "head": hp.index, "kind": "max", "tokens": T, "gap": gap,
                                "score_error": score_err, "output_error": c * max((abs(v) for _, v in hp.w), default=Q(0))})
            continue
        worst = Q(0)
        least_margin = None
        for t in range(T):
            eQ = [row.error_bound(E[t]) for row in hp.WQ]
            qabs = [max_abs(iv) for iv in hp.query_ranges[t]]
            serr = []
            for s in range(T):
                eK = [row.error_bound(E[s]) for row in hp.WK]
                kabs = [max_abs(iv) for iv in hp.key_ranges[s]]
                serr.append(sum((ek * (qa + eq) + ka * eq for ek, ka, qa, eq in zip(eK, kabs, qabs, eQ)), Q(0)))
            W, where = hp.winners[t], f"{b},{hp.index},{t}"
            others = [s for s in range(T) if s not in W]
            if len(W) > 1:
                if any(row.error_bound(E[w]) for row in hp.WK for w in W):
                    # the tie holds for the hardmax keys; keys that err may no longer tie
                    trace.obstacle = (f"block {b}, head {hp.index}, query token {t}: the tied keys {W} carry an "
                                      "error, so their softmax weights are not known to be equal")
                    return out
                trace.tied_keys[where] = list(W)
            loss = Q(0)
            if others:
                margin = hp.margins[t] - max(serr[w] for w in W) - max(serr[s] for s in others)
                if margin <= 0:
                    trace.obstacle = (f"block {b}, head {hp.index}, query token {t}: selection margin "
                                      f"{_short(hp.margins[t])} cannot absorb the score error "
                                      f"{_short(hp.margins[t] - margin)}")
                    return out
                least_margin = margin if least_margin is None else min(least_margin, margin)
                exp_up = selection_weight_loss(T, lam, margin, backends=backends).hi / (T - 1)
                trace.exp_upper[where] = exp_up
                loss = len(others) * exp_up / len(W)
            eV = [[row.error_bound(E[s]) for row in hp.WV] for s in range(T)]
            vmax = [max(max_abs(hp.value_ranges[s][j]) + eV[s][j] for s in range(T)) for j in range(len(hp.WV))]
            for j, col in enumerate(hp.WO):
                ej = sum((eV[w][j] for w in W), Q(0)) / len(W) + 2 * loss * vmax[j]
                worst = max(worst, ej)
                for r, v in col:
                    out[t][r] += abs(v) * ej
        trace.heads.append({"block": b, "head": hp.index, "kind": "selection", "tokens": T,
                            "margin": least_margin, "output_error": worst})
    return out


def propagate(plan: Plan, lam, *, strict_gating: bool = False, backends=("taylor",)) -> ErrorTrace:
    """The certified error propagation through ``plan`` at scale ``lam`` (module doc).
    Cost: O(blocks x tokens x nonzeros), plus a few series evaluations per head."""
    lam = rational(lam, path="lambda")
    backends = list(backends) if backends is not None else None
    trace = ErrorTrace(lam)
    T, m = plan.transformer.tokens, plan.transformer.width
    E = [[Q(0)] * m for _ in range(T)]
    if plan.obstacles:
        trace.obstacle = plan.obstacles[0]
        return trace
    for bp in plan.blocks:
        if bp.heads is not None:
            E = _propagate_attention(bp.index, bp.heads, E, lam, trace, backends)
        if trace.obstacle is None and bp.feedforward is not None:
            E = _propagate_feedforward(bp.index, bp.feedforward, E, trace, strict_gating)
        if trace.obstacle is not None:
            return trace
        trace.block_errors.append(max(max(r) for r in E))
        trace.states.append(E)
    R = plan.transformer.readout
    trace.output_error = [row.error_bound(E[R.token]) for row in plan.readout]
    return trace


@dataclass(repr=False)
class NetworkBound(Displayed):
    """The result of :func:`lambda_min`: ``lam`` (certified, exact) or an obstacle.

    ``eps``, ``lam``, ``bound`` and the other numbers read as sympy Rationals (the public
    number type, :mod:`symrel.exact.public`); ``trace`` and ``plan`` are the working
    record the certificate is written from, in symrel's inner numbers."""

    def _summary(self) -> str:
        if self.lam is None:
            return f"eps = {number_text(self.eps)}: no lambda certified ({short_text(self.obstacle or '', 150)})"
        return f"eps = {number_text(self.eps)}: lambda = {number_text(self.lam)} certified"

    def _card(self) -> Card:
        fields = [("eps", self.eps), ("certified lambda", self.lam), ("error bound at lambda", self.bound)]
        if self.obstacle:
            fields.append(("obstacle", self.obstacle))
        return Card(f"Softmax bound: {'proved' if self.proved else 'open'}", [f for f in fields if f[1] is not None])

    eps: Rational = Public()
    lam: Rational | None = Public()
    trace: ErrorTrace | None
    below: Rational | None = Public(default=None)
    below_bound: Rational | None = Public(default=None)
    obstacle: str | None = None
    needed_margin: Rational | None = Public(default=None)
    #: the lambda certified without strict gating, at which ``needed_margin`` was measured
    loose_lambda: Rational | None = Public(default=None)
    strict_gating: bool = False
    plan: Plan | None = None
    domain: object = None

    @property
    def proved(self) -> bool:
        return self.lam is not None

    @property
    def bound(self) -> Rational | None:
        return to_public(self.trace.total) if self.trace is not None and self.lam is not None else None

    def proof(self) -> Proof:
        """The claim and its steps (:class:`symrel.certificates.Proof`)."""
        claim = (f"for all x in the box: |T_softmax(lambda)(x) - T_hardmax(x)|_inf <= {rational_str(self.eps)}"
                 + (f" at lambda = {rational_str(self.lam)}" if self.lam is not None else ""))
        p = Proof(claim=claim, construction="softmax-vs-hardmax error propagation (docs/theory.md#softmax-instead-of-hardmax)",
                  claim_data={"kind": CLAIM_KIND, "eps": rational_str(self.eps),
                              "lambda": rational_str(self.lam) if self.lam is not None else None})
        if self.plan is not None:
            kinds = [f"block {bp.index}: " + ", ".join(h.kind for h in bp.heads) for bp in self.plan.blocks if bp.heads]
            p.add(Step("exact interval ranges of the hardmax states over the box; heads classified ("
                       + "; ".join(kinds) + ")", "interval-ranges-box",
                       {"blocks": len(self.plan.blocks)}, OPEN if self.plan.obstacles else PROVED,
                       "; ".join(self.plan.obstacles)))
        if self.trace is not None and self.lam is not None:
            tr = self.trace
            e_lower = e_bounds()[0]
            p.add(Step("series constants: e >= e_lower and ln n <= log_upper (rational series with remainder)",
                       "series-constants", {"e_lower": rational_str(e_lower),
                                            "log_upper": {str(n): rational_str(log_bounds(Q(n))[1]) for n in tr.gap_upper}},
                       PROVED))
            for b, E in enumerate(tr.states):
                said = []
                for h in tr.heads:
                    if h["block"] != b:
                        continue
                    if h["kind"] == "max":
                        said.append(f"head {h['head']}: max head over {h['tokens']} tokens, error at most the score error "
                                    f"{_upper(h['score_error'])} plus the gap {_upper(h['gap'])}")
                    else:
                        left = "no other key" if h["margin"] is None else f"least margin left {_short(h['margin'])}"
                        said.append(f"head {h['head']}: selection head, {left}, "
                                    f"output error at most {_upper(h['output_error'])}")
                for f in tr.feedforwards:
                    if f["block"] == b:
                        said.append(f"feed-forward: {f['pairs']} linear pairs, {f['sign_fixed']} (unit, token) signs "
                                    f"fixed by a gating margin, {f['lipschitz']} bounded by |ReLU a - ReLU b| <= |a-b|")
                cert = {"block": b, "errors": [[rational_str(v) for v in row] for row in E]}
                ffp = self.plan.blocks[b].feedforward if self.plan is not None else None
                if ffp is not None:  # the linear pairs ReLU(u) - ReLU(-u) = u the bound relied on
                    cert["relu_pairs"] = [[h, g] for h, g in ffp.pairs]
                gaps = {str(n): rational_str(g) for n, g in tr.gap_upper.items()
                        if any(h["block"] == b and h["kind"] == "max" and h["tokens"] == n for h in tr.heads)}
                if gaps:
                    cert["gap_upper"] = gaps
                exps = {k: rational_str(v) for k, v in tr.exp_upper.items() if k.split(",")[0] == str(b)}
                if exps:
                    cert["exp_upper"] = exps
                ties = {k: W for k, W in tr.tied_keys.items() if k.split(",")[0] == str(b)}
                if ties:
                    cert["tied_keys"] = ties
                p.add(Step(f"block {b}: entrywise error <= {_upper(tr.block_errors[b])}"
                           + (" (" + "; ".join(said) + ")" if said else ""), "block-error", cert, PROVED))
            p.add(Step(f"read-out error <= {_upper(tr.total)} <= eps = {rational_str(self.eps)}",
                       "readout-bound", {"output_error": [rational_str(v) for v in tr.output_error],
                                         "bound": rational_str(tr.total), "eps": rational_str(self.eps)},
                       PROVED if tr.total <= self.eps else OPEN))
            if self.plan is not None:
                p.inputs = {"transformer": self.plan.transformer, "domain": self.domain}
        else:
            note = self.obstacle or "no lambda found"
            if self.needed_margin is not None:
                note += (f"; symrel compile --margin M with M > {rational_str(self.needed_margin)} would absorb "
                         f"it at lambda = {rational_str(self.loose_lambda)}")
            p.add(Step("a lambda with error <= eps", "lambda-search", {}, OPEN, note))
        return p

    def certificate(self) -> dict:
        """The certificate (docs/format.md) of a proved bound, re-checked by
        :mod:`symrel.checking.softmax`; refused for an undecided one."""
        from ..certificates.io import certificate_of
        from ..checking import stated

        return stated(certificate_of(self.proof()))

    def to_json(self) -> dict:
        out = {"eps": rational_str(self.eps), "proved": self.proved,
               "lambda": rational_str(self.lam) if self.lam is not None else None,
               "strict_gating": self.strict_gating}
        if self.lam is not None:
            out["bound_at_lambda"] = rational_str(self.bound)
            out["block_errors"] = [rational_str(v) for v in self.trace.block_errors]
        if self.below is not None:
            out["fails_at"] = rational_str(self.below)
        if self.obstacle:
            out["obstacle"] = self.obstacle
        if self.needed_margin is not None:
            out["needed_margin"] = rational_str(self.needed_margin)
            out["at_lambda"] = rational_str(self.loose_lambda)
        out["steps"] = [s.to_json() for s in self.proof().steps]
        return out


def _upper(q: Rational) -> str:
    """An upper bound for reading after "<=": the least 6-digit decimal >= q (exact values
    are in the step certificates)."""
    from ..exact.display import decimal_upper_text

    return decimal_upper_text(q)


def _short(q: Rational) -> str:
    """A rational for reading, rounded to nearest (exact values are in the step certificates)."""
    from ..exact import to_float

    return f"{to_float(q):.6g}"


def _holds(plan, lam, eps, strict) -> tuple[bool, ErrorTrace]:
    tr = propagate(plan, lam, strict_gating=strict)
    return tr.total is not None and tr.total <= eps, tr


def lambda_min(transformer, domain, eps, *, strict_gating: bool = False, digits: int = DIGITS,
               max_lambda: Rational = MAX_LAMBDA) -> NetworkBound:
    """The smallest lambda (to ``digits`` significant digits, rounded up) at which the error
    propagation proves ``|T_softmax - T_hardmax| <= eps`` on the box, certified by re-running
    the propagation at the returned rational with every interval backend cross-checking the
    rational referee. When no lambda up to ``max_lambda`` works the result carries the
    obstacle (and, for a gating margin, the margin that would absorb the error).
    Cost: O(log(lambda)) propagations."""
    eps = _eps(eps)
    plan = analyse(transformer, domain)
    if plan.obstacles:
        return NetworkBound(eps, None, None, obstacle=plan.obstacles[0], strict_gating=strict_gating, plan=plan,
                            domain=domain)
    lam = Q(1)
    ok, tr = _holds(plan, lam, eps, strict_gating)
    while not ok:
        # a gate at distance 0 from its kink cannot absorb a positive error at any lambda
        hopeless = tr.hopeless or (strict_gating and any(g.margin == 0 and g.error > 0 for g in tr.gates))
        if lam > max_lambda or hopeless:
            return _undecided(transformer, domain, eps, tr, plan, strict_gating, digits, max_lambda)
        lam *= 2
        ok, tr = _holds(plan, lam, eps, strict_gating)
    hi, lo = lam, lam / 2
    while lo > Q(1, 2**40) and _holds(plan, lo, eps, strict_gating)[0]:
        hi, lo = lo, lo / 2
    while hi - lo > hi / 10 ** (digits + 1):
        mid = ceil_significant((lo + hi) / 2, digits + 3)
        if mid >= hi or mid <= lo:
            break
        if _holds(plan, mid, eps, strict_gating)[0]:
            hi = mid
        else:
            lo = mid
    lam = ceil_significant(hi, digits)
    while True:  # certify the rational returned, cross-checking every backend
        final = propagate(plan, lam, strict_gating=strict_gating, backends=None)
        if final.total is not None and final.total <= eps:
            break
        lam = ceil_significant(lam * (1 + Q(1, 10**digits)), digits)
    below = propagate(plan, lo, strict_gating=strict_gating)
    return NetworkBound(eps, lam, final, below=lo, below_bound=below.total, strict_gating=strict_gating, plan=plan,
                        domain=domain)


def _undecided(transformer, domain, eps, tr, plan, strict, digits, max_lambda) -> NetworkBound:
    needed = at = None
    if strict:
        loose = lambda_min(transformer, domain, eps, strict_gating=False, digits=digits, max_lambda=max_lambda)
        if loose.proved:
            gates = propagate(plan, inner(loose, "lam")).gates
            if gates:
                # a margin above every gate's shortfall at that lambda; rounded up, so still enough
                needed, at = ceil_significant(max(g.error - g.margin for g in gates), 3), inner(loose, "lam")
    obstacle = tr.obstacle or f"the error bound stays above eps up to lambda = {rational_str(max_lambda)}"
    return NetworkBound(eps, None, tr, obstacle=obstacle, needed_margin=needed, loose_lambda=at, strict_gating=strict,
                        plan=plan, domain=domain)
