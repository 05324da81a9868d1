"""The equivalence checker's replay of a hardmax Transformer (:mod:`symrel.checking.equivalence`).

The embedding puts the inputs ``x_i`` into their rows on top of the token-wise offsets; each
block is an attention sublayer then a feed-forward one, and the state after it is compared
with the recorded one (:class:`_RecordedStates`); the read-out takes its token's column. The
replay ``replay`` (:class:`symrel.checking.equivalence._ProofReplay`) holds the variables'
ranges, the nodes and the step cursor; this module only reads the Transformer's records:

* a hardmax head, per query token, by its record's rule: ``max`` (every value coordinate is
  ``alpha * score + beta``, the head gives ``alpha * max + beta``), ``argmax-set`` (the same
  winners, a set, on the whole box, by positive exact margins) or ``select`` (a select node
  of these scores and values);
* a ReLU hidden unit by its sign record, as a node ``max(0, z)``, or as half of a pair
  ``c ReLU(z) + c' ReLU(-z) = c z + (c + c') max(0, -z)``.
"""

from __future__ import annotations

from . import CertificateError, MalformedCertificate
from .kernel import (PAIR_MINUS_ONE, PAIR_ONE, READOUT_KEYS, ZERO_FORM, add_sparse, combine, constant, int_rows,
                     int_vector, mat_apply, neg, pair, read_form, to_q, var)
from .read import indices, natural, rational_pair, record
from .transformers import columns

#: the keys of a hardmax head's record, by its rule
HEAD_KEYS = {"max": ("rule", "alpha", "beta", "max", "query_sign"),
             "argmax-set": ("rule", "winners", "margins", "query_sign"),
             "select": ("rule", "result", "query_sign")}


class _RecordedStates:
    """Compares the replayed state with each block's recorded one. A row recorded exactly as
    before (the same ``repr`` of its JSON value: an int, a string and a bool never share one)
    whose replayed forms are the very objects that matched it then is not read again: most
    rows of a state pass through a block unchanged."""

    def __init__(self, tokens):
        self.T = tokens
        self.seen = {}   # row -> (repr of the recorded entry, the replayed forms it matched)

    def matches(self, state, obj, path: str) -> bool:
        """Whether the recorded state ``obj`` (rows ``[r, form]`` or ``[r, [form per token]]``,
        each row at most once, zero rows left out) is exactly the replayed ``state``."""
        if not isinstance(obj, list):
            raise MalformedCertificate("expected a state as a list of rows [row, forms]")
        T, seen, listed = self.T, self.seen, set()
        for i, item in enumerate(obj):
            if not isinstance(item, list) or len(item) != 2 or not isinstance(item[1], list) or not item[1]:
                raise MalformedCertificate(f"expected a state row [row, forms], got {item!r:.80}")
            r, entry = item[0], item[1]
            if type(r) is not int or r < 0:   # the path is built only for a refusal
                natural(r, f"{path}[{i}][0]")
            if r in listed or not 0 <= r < len(state[0]):
                return False
            listed.add(r)
            forms = tuple(state[t][r] for t in range(T))
            last = seen.get(r)
            text = repr(entry)
            if last is not None and last[0] == text and all(f is g for f, g in zip(forms, last[1])):
                continue
            if isinstance(entry[0], list):
                if len(entry) != T:
                    raise CertificateError(f"state row {r}: expected {T} token forms")
                want = [read_form(e) for e in entry]
            else:
                want = [read_form(entry)] * T
            if all(w == ZERO_FORM for w in want) or list(forms) != want:
                return False
            seen[r] = (text, forms)
        return all(r in listed or (not f[1] and not f[2]) for col in state for r, f in enumerate(col))


def _head_scores(qs, ks, t, rec, replay):
    """The scores of query token t over the keys, as forms whose argmax set is that of
    ``q_t . k_s``: the products themselves when the queries or the keys are constant (a
    constant form ``Form(den, const, {})`` is the number const / den), else, for a
    one-dimensional query of a fixed sign on the box (the recorded bound is its exact
    minimum > 0 or maximum < 0), ``k_s`` or ``-k_s``."""
    T = len(ks)
    if all(not f.coeffs for q in qs for f in q):
        return [combine([((q.const, q.den), k) for q, k in zip(qs[t], ks[s])]) for s in range(T)]
    if all(not f.coeffs for k in ks for f in k):
        return [combine([((k.const, k.den), q) for q, k in zip(qs[t], ks[s])]) for s in range(T)]
    if len(qs[0]) != 1:
        replay.fail("a head with quadratic scores (neither queries nor keys constant, queries not one-dimensional)")
    fact = rec.get("query_sign")
    if not isinstance(fact, list) or len(fact) != 2:
        replay.fail("expected the query's sign as [sign, exact bound]")
    sign, bound = fact[0], replay.number(fact[1], ".query_sign[1]")
    lo, hi = replay.bounds(qs[t][0])
    if not ((sign == "+" and lo == bound and lo > 0) or (sign == "-" and hi == bound and hi < 0)):
        replay.fail(f"query sign bound {bound} of token {t} is not the exact bound of a fixed sign")
    return [k[0] if sign == "+" else neg(k[0]) for k in ks]


def _argmax_set_head(scores, values, rec, replay):
    """The head's output when the argmax set is the same on the whole box.

    Rule: the winners are a set (distinct token indices in range, not empty) sharing one
    score form, and every other token has a recorded margin, the exact minimum of
    ``winner - its score`` over the box, > 0. Then the winners are exactly the argmax set at
    every point, and the hardmax output is the average of their values, each counted once
    (a repeated winner would weigh its value twice)."""
    T = len(scores)
    winners = rec.get("winners")
    if not isinstance(winners, list) or not winners:
        replay.fail("expected the winners as a non-empty list of token indices")
    win = indices(winners, T, replay.here + replay.field() + ".winners")     # a set: no token twice
    if any(scores[s] != scores[win[0]] for s in win):
        replay.fail("the winners do not share one score form")
    margins = rec.get("margins")
    if not isinstance(margins, list) or any(not isinstance(m, list) or len(m) != 2 for m in margins):
        replay.fail("expected the margins as a list of [token, margin]")
    losers = indices([s for s, _ in margins], T, replay.here + replay.field() + ".margins")
    if set(losers) != set(range(T)) - set(win):
        replay.fail("one margin per losing token expected")
    for e, (s, (_, m)) in enumerate(zip(losers, margins)):
        m = replay.number(m, f".margins[{e}][1]")
        lo = replay.bounds(combine([(PAIR_ONE, scores[win[0]]), (PAIR_MINUS_ONE, scores[s])]), 0)
        if lo != m:
            replay.fail(f"margin {m} over token {s} differs from the exact {lo}")
        if lo <= 0:
            replay.fail(f"margin over token {s}: the winners' exact minimum lead {lo} is not positive")
    share = (1, len(win))
    return [combine([(share, values[s][r]) for s in win]) for r in range(len(values[0]))]


def _max_head(scores, values, rec, replay):
    """The head's output when every value coordinate is ``alpha * score + beta`` on every
    token (checked coefficient by coefficient): the argmax tokens share the top score, so
    their average value is ``alpha * max(scores) + beta``, with the max checked by
    :meth:`_ProofReplay.max_of`."""
    dim = len(values[0])
    if not isinstance(rec.get("alpha"), list) or not isinstance(rec.get("beta"), list):
        replay.fail("expected alpha and beta as lists")
    alphas, betas = [rational_pair(a) for a in rec["alpha"]], [rational_pair(b) for b in rec["beta"]]
    if len(alphas) != dim or len(betas) != dim:
        replay.fail("one alpha and one beta per value coordinate expected")
    for r, (al, be) in enumerate(zip(alphas, betas)):
        if any(v[r] != combine([(al, score)], be) for v, score in zip(values, scores)):
            replay.fail(f"value coordinate {r} is not {to_q(al)} * score + {to_q(be)} on every token")
    top = replay.max_of(scores, rec.get("max"), ".max")
    return [combine([(al, top)], be) for al, be in zip(alphas, betas)]


def _select_head(scores, values, rec, replay):
    from .node_cells import select_head   # select nodes are decided by the node-cells step: loaded with it

    return select_head(scores, values, rec, replay)


_HEAD_RULES = {"max": _max_head, "argmax-set": _argmax_set_head, "select": _select_head}


def _attention(att, state, recs_all, replay):
    """A hardmax attention sublayer: ``state + sum over heads of W_O (hardmax-weighted values)``,
    every head reading the same input state; each head and query token by its record's rule
    (:data:`_HEAD_RULES`)."""
    if att.rule != "hardmax" or not isinstance(recs_all, list) or len(recs_all) != len(att.heads):
        replay.fail("expected one record per hardmax head")
    T = len(state)
    add = [dict() for _ in range(T)]
    for hi, (head, recs) in enumerate(zip(att.heads, recs_all)):
        WQ, WK, WV = int_rows(head.exact_WQ), int_rows(head.exact_WK), int_rows(head.exact_WV)
        qs = [mat_apply(WQ, c) for c in state]
        ks = [mat_apply(WK, c) for c in state]
        vs = [mat_apply(WV, c) for c in state]
        if not isinstance(recs, list) or len(recs) != T:
            replay.fail("expected one record per query token")
        WO = {}   # the head's output rows, by their nonzero entries (read from the columns)
        for r, column in enumerate(int_rows(columns(head.exact_WO, len(head.exact_WV)))):
            for row, a in column:
                WO.setdefault(row, []).append((r, a))
        WO = sorted(WO.items())
        for t, rec in enumerate(recs):
            replay.where = f".certificate.heads[{hi}][{t}]"
            if not isinstance(rec, dict) or rec.get("rule") not in _HEAD_RULES:
                replay.fail(f"expected a head record with a rule among {sorted(_HEAD_RULES)}")
            record(rec, replay.here + replay.where, optional=HEAD_KEYS[rec["rule"]])
            scores = _head_scores(qs, ks, t, rec, replay)
            out = _HEAD_RULES[rec["rule"]](scores, vs, rec, replay)
            for row, entries in WO:
                for r, a in entries:
                    add[t].setdefault(row, []).append((a, out[r]))
    new = []
    for t, col in enumerate(state):
        col = list(col)
        for row, pairs in add[t].items():
            col[row] = combine([(PAIR_ONE, col[row])] + pairs)
        new.append(col)
    return new


def _relu_pair(h, t, z, pre, recs_all, rec, residuals, int_cols, replay):
    """Hidden unit h of a pair ``c_h ReLU(z) + c_g ReLU(-z) = c_h z + (c_h + c_g) max(0, -z)``
    (partner g naming h back, ``pre[g] = -z``): the first of the two gives z through its own
    column, the second ``max(0, -z_first)`` (checked by :meth:`_ProofReplay.max_of`) through
    the sum of the two columns, or nothing when the columns are opposite. Returns the unit's
    output form and its column (None: its own)."""
    if len(rec) not in (2, 3):
        replay.fail(f"hidden unit {h}, token {t}: expected [\"pair\", partner] or [\"pair\", partner, facts]")
    g = replay.index(rec[1], len(pre), "[1]")
    partner = recs_all[g][t] if isinstance(recs_all[g], list) and t < len(recs_all[g]) else None
    if g == h or not isinstance(partner, list) or len(partner) < 2 or partner[0] != "pair" \
            or type(partner[1]) is not int or partner[1] != h:
        replay.fail(f"hidden unit {h}, token {t}: pair partner {g} does not name it back")
    if pre[g] != neg(z):
        replay.fail(f"hidden units {h} and {g}, token {t}: pre-activations are not z and -z")
    if h < g:
        if len(rec) != 2:
            replay.fail(f"hidden unit {h}, token {t}: the first unit of a pair has no facts")
        return z, None
    if (h, g) not in residuals:
        residuals[h, g] = add_sparse(int_cols[h], int_cols[g])
    residual = residuals[h, g]
    if not residual:
        if len(rec) != 2:
            replay.fail(f"hidden unit {h}, token {t}: unexpected facts for an exact pair")
        return ZERO_FORM, None
    if len(rec) != 3:
        replay.fail(f"hidden unit {h}, token {t}: columns not opposite, the max(0, -z) facts are missing")
    return replay.max_of([ZERO_FORM, z], rec[2], "[2]"), residual


def _feedforward(ff, state, recs_all, replay):
    """A ReLU feed-forward sublayer ``state + W2 ReLU(W1 state + b1) + b2``, token by token;
    each hidden unit by its record (:meth:`_ProofReplay.relu`, or :func:`_relu_pair`)."""
    T = len(state)
    if not isinstance(recs_all, list) or len(recs_all) != ff.hidden \
            or any(not isinstance(unit, list) or len(unit) != T for unit in recs_all):
        replay.fail("expected one record list per hidden unit, one record per token")
    int_cols = int_rows(columns(ff.exact_W2, ff.hidden))   # the output column of each hidden unit
    residuals = {}   # (h, g) -> the column of the residual max(0, -z) of a pair (the same on every token)
    b2 = int_vector(ff.exact_b2)
    new, W1, b1 = [], int_rows(ff.exact_W1), int_vector(ff.exact_b1)
    for t, col in enumerate(state):
        pre = mat_apply(W1, col, b1)
        out, outcols = [], list(int_cols)
        for h, z in enumerate(pre):
            rec = recs_all[h][t]
            replay.where = (".certificate.hidden[{}][{}]", h, t)
            if isinstance(rec, list) and rec and rec[0] == "pair":
                form, column = _relu_pair(h, t, z, pre, recs_all, rec, residuals, int_cols, replay)
                out.append(form)
                if column is not None:
                    outcols[h] = column
            else:
                out.append(replay.relu(z, rec))
        col = list(col)
        add: dict[int, list] = {}
        for h, v in enumerate(out):
            if v[1] or v[2]:
                for r, a in outcols[h]:
                    add.setdefault(r, []).append((a, v))
        for r in range(ff.width):
            if r in add or b2[r][0]:
                col[r] = combine([(PAIR_ONE, col[r])] + add.get(r, []), b2[r])
        new.append(col)
    return new


def _block_rules(cert, block):
    """The rules a block's records use, in the prover's order (the step must name them)."""
    parts = []
    if block.attention is not None:
        recs = [r for head in cert["heads"] for r in head]
        parts += ["hardmax-max-head"] if any(r["rule"] == "max" for r in recs) else []
        parts += ["drop-dominated"] if any(r["max"]["dropped"] for r in recs if r["rule"] == "max") else []
        parts += ["hardmax-argmax-set"] if any(r["rule"] == "argmax-set" for r in recs) else []
        parts += ["hardmax-select"] if any(r["rule"] == "select" for r in recs) else []
    if block.feedforward is not None:
        kinds = [r[0] for unit in cert["hidden"] for r in unit]
        parts += ["relu-fixed-sign"] if any(k in ("+", "-") for k in kinds) else []
        parts += ["relu-pair-identity"] if "pair" in kinds else []
        parts += ["relu-as-max-node"] if "node" in kinds else []
    return parts


def replay_transformer(tf, replay, name):
    """Replay a hardmax Transformer: the embedding (the inputs x_i added to their rows of the
    offsets), each block (attention, then feed-forward; the state after it compared with the
    recorded one), then the read-out of its token."""
    off = tf.embedding.exact_offsets
    state = []
    for t in range(tf.tokens):
        col = [constant(pair(off[r][t])) for r in range(tf.width)]
        for i, r in enumerate(tf.embedding.input_rows):
            col[r] = combine([(PAIR_ONE, col[r]), (PAIR_ONE, var(i))])
        state.append(col)
    cert = replay.next("embedding", name, ("model", "state"))
    replay.where = ".certificate.state"
    recorded = _RecordedStates(tf.tokens)
    if not recorded.matches(state, cert.get("state"), f"{replay.here}.certificate.state"):
        replay.fail("the embedded state differs from the recorded Sigma_0")
    for b, block in enumerate(tf.blocks):
        scaled = replay.scaled
        cert = replay.next(None, name, ("model", "block", "nodes", "heads", "hidden", "state"))
        replay.integer(cert.get("block"), b, "block")
        replay.declare(cert)
        if block.attention is not None:
            state = _attention(block.attention, state, cert.get("heads"), replay)
        if block.feedforward is not None:
            state = _feedforward(block.feedforward, state, cert.get("hidden"), replay)
        replay.expect_rule(_block_rules(cert, block), scaled)
        replay.where = ".certificate.state"
        if not recorded.matches(state, cert.get("state"), f"{replay.here}.certificate.state"):
            replay.fail(f"the state after block {b} differs from the recorded Sigma_{b + 1}")
    cert = replay.next("linear-identity", name, READOUT_KEYS)
    outs = mat_apply(int_rows(tf.readout.exact_W), state[tf.readout.token], int_vector(tf.readout.exact_b))
    replay.compare(outs, cert["outputs"], "read-out forms")
    return outs
