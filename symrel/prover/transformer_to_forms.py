"""Symbolic execution of a hardmax Transformer: an embedding lemma, one lemma per block,
a read-out lemma.

The state is a list of T token columns, each a list of m affine forms over the proof's
variables (inputs and max nodes). A block's lemma: "for all x in D, block b maps the
state Sigma_b to Sigma_(b+1)", established by

* feed-forward sublayer, per hidden unit and token (token-wise, shared weights):
  ``relu-fixed-sign`` (exact bound), ``relu-pair-identity`` (two hidden units with
  pre-activations z and -z and output columns c, c' contribute
  ``c ReLU(z) + c' ReLU(-z) = c z + (c + c') ReLU(-z)``, so ``c z`` when ``c' = -c``: the
  linear move ``u = ReLU(u) - ReLU(-u)``), or ``relu-as-max-node``;
* attention sublayer, per head and query token, with scores affine (a constant query or
  constant keys):
  ``hardmax-max-head``: every value coordinate is ``alpha * score + beta``; hardmax
  averages over the argmax set, where all scores equal the max, so the head returns
  ``alpha * max_s score_s + beta`` whatever the ties; the max is a node in normal form
  (``drop-dominated``: e.g. ``max(-B, l_1, .., l_k)`` drops ``-B`` on D);
  ``hardmax-query-sign``: a one-dimensional query of fixed sign on D scales the scores
  without moving the argmax;
  ``hardmax-argmax-set``: a set of keys with one score form beats every other key by a
  proved positive margin, so the head returns the mean of their values (a selection
  head when the winner is unique).

A max that is a scaled or shifted copy ``c y + k`` of an earlier node y comes out as that
form (``max-scale-shift``, :mod:`symrel.prover.nodes`). Anything else is an obstacle (the
proof ends open). Cost: O(blocks x T x sublayer
size), linear in depth.
"""

from __future__ import annotations

from typing import Sequence

from ..exact import Q, flat, format_rational, matrix_image, rows, sparse_columns, sparse_rows
from ..lowering import AttentionOp, Embed, FeedForwardOp, lower
from ..models import Transformer
from ..certificates import PROVED
from .execution import ZERO_FORM, Context, Obstacle, count_rules
from ..exact.forms import AffineForm, linear_combination

State = list[list[AffineForm]]  # state[t][r]: token t, slot r


def state_json(state: State) -> list:
    """The nonzero rows of a state: ``[r, form]`` when every token holds the same form,
    ``[r, [form_0, .., form_(T-1)]]`` otherwise."""
    out = []
    for r in range(len(state[0])):
        col = [state[t][r] for t in range(len(state))]
        keys = {f.key() for f in col}
        if len(keys) == 1:
            if col[0].const or col[0].coeffs:
                out.append([r, col[0].to_json()])
        else:
            out.append([r, [f.to_json() for f in col]])
    return out


def embed_state_text(state: State) -> str:
    """When ``state`` is an embed-state (every token holds the same variables in the same
    slots, coefficient 1, on top of constant offsets), say which: e.g. ``slots 0, 1 hold
    y7, y8``; else the empty string."""
    slots = []
    for r in range(len(state[0])):
        col = [state[t][r] for t in range(len(state))]
        if all(f.is_constant() for f in col):
            continue
        f = col[0]
        if any(g.key() != f.key() for g in col) or f.const or len(f.coeffs) != 1 or list(f.coeffs.values()) != [1]:
            return ""
        slots.append((r, next(iter(f.coeffs))))
    if not slots:
        return ""
    return (f"Sigma is an embed-state: the token-wise shift plus the variables "
            f"{', '.join(f'y{v}' for _, v in slots)} in slots {', '.join(str(r) for r, _ in slots)} of every token")


def embedding_state(embed: Embed, tokens: int) -> State:
    """Token t: ``offsets[t] + sum_i x_i e_(input_rows[i])``, as forms in x."""
    off = rows(embed.offsets)  # m x T
    state = []
    for tok in range(tokens):
        col = [AffineForm(off[r][tok]) if off[r][tok] else ZERO_FORM for r in range(len(off))]
        for i, r in enumerate(embed.input_rows):
            col[r] = linear_combination([(Q(1), col[r]), (Q(1), AffineForm.var(i))])
        state.append(col)
    return state


# -- feed-forward --------------------------------------------------------------------------
def feedforward_step(ff: FeedForwardOp, state: State, ctx: Context) -> tuple[State, list]:
    """The feed-forward sublayer on every token; returns the new state and, per hidden
    unit, the record of each token (``["+", lo]``, ``["-", hi]``, ``["pair", h']`` (the
    second of a pair carries the facts of ``max(0, -z)`` when the columns are not
    opposite), ``["node", facts]``)."""
    W1, W2cols = sparse_rows(ff.W1), sparse_columns(ff.W2)
    b1, b2 = flat(ff.b1), flat(ff.b2)
    neg_cols = [tuple((r, -a) for r, a in col) for col in W2cols]
    records: list[list] = [[] for _ in range(ff.hidden)]
    reg, new_state = ctx.registry, []
    for col in state:
        pre = matrix_image(W1, col, b1)
        values: list[AffineForm | None] = [None] * ff.hidden
        open_units: dict[tuple, list[int]] = {}
        recs: list = [None] * ff.hidden
        for h, z in enumerate(pre):
            lo, hi = z.range_on_box(reg.ranges)
            if lo >= 0:
                values[h], recs[h] = z, ["+", format_rational(lo)]
            elif hi <= 0:
                values[h], recs[h] = ZERO_FORM, ["-", format_rational(hi)]
            else:
                open_units.setdefault(z.key(), []).append(h)
        extra: list[tuple[list, AffineForm]] = []    # (output column, value) beyond W2's own columns
        for h, z in enumerate(pre):            # pairs: ReLU(z) = z + ReLU(-z)
            if recs[h] is not None:
                continue
            partners = open_units.get((-z).key(), [])
            mate = next((g for g in partners if recs[g] is None and g != h), None)
            if mate is None:
                continue
            values[h], recs[h] = z, ["pair", mate]
            values[mate], recs[mate] = ZERO_FORM, ["pair", h]
            if tuple(W2cols[mate]) != neg_cols[h]:   # c_h ReLU(z) + c_g ReLU(-z) = c_h z + (c_h + c_g) ReLU(-z)
                ctx.hints.append(z)
                node, facts = reg.max_of([ZERO_FORM, pre[mate]])
                recs[mate].append(facts)
                residual: dict[int, object] = {}
                for r, a in W2cols[h] + W2cols[mate]:
                    residual[r] = residual.get(r, 0) + a
                extra.append(([(r, a) for r, a in sorted(residual.items()) if a], node))
        for h, z in enumerate(pre):
            if recs[h] is None:
                ctx.hints.append(z)
                values[h], facts = reg.max_of([ZERO_FORM, z])
                recs[h] = ["node", facts]
        acc: dict[int, list] = {}
        for column, v in [(W2cols[h], v) for h, v in enumerate(values)] + extra:
            if v is not ZERO_FORM and (v.coeffs or v.const):
                for r, a in column:
                    acc.setdefault(r, []).append((a, v))
        new_col = list(col)
        for r in set(acc) | {r for r, c in enumerate(b2) if c}:
            new_col[r] = linear_combination([(Q(1), col[r])] + acc.get(r, []), b2[r])
        new_state.append(new_col)
        for h in range(ff.hidden):
            records[h].append(recs[h])
    return new_state, records


# -- attention -----------------------------------------------------------------------------
def head_rule(scores: list[AffineForm], values: list[list[AffineForm]], ctx: Context) -> tuple[list[AffineForm], dict]:
    """The output of one hardmax head for one query (``dv`` forms) and its record."""
    reg = ctx.registry
    s0 = next((s for s, f in enumerate(scores) if not f.is_constant()), None)
    if s0 is not None:                          # hardmax-max-head: value = alpha * score + beta
        v0 = min(scores[s0].coeffs)
        alphas, betas, ok = [], [], True
        for r in range(len(values[s0])):
            alpha = values[s0][r].coefficient(v0) / scores[s0].coefficient(v0)
            beta = values[s0][r].const - alpha * scores[s0].const
            if any(values[s][r].key() != linear_combination([(alpha, scores[s])], beta).key() for s in range(len(scores))):
                ok = False
                break
            alphas.append(alpha)
            betas.append(beta)
        if ok:
            m, facts = reg.max_of(scores)
            out = [linear_combination([(a, m)], b) for a, b in zip(alphas, betas)]
            return out, {"rule": "max", "alpha": [format_rational(a) for a in alphas],
                         "beta": [format_rational(b) for b in betas], "max": facts}
    groups: dict[tuple, list[int]] = {}
    for s, f in enumerate(scores):
        groups.setdefault(f.key(), []).append(s)
    for members in groups.values():             # hardmax-argmax-set: proved winners
        w = scores[members[0]]
        margins = []
        for s, f in enumerate(scores):
            if s in members:
                continue
            lo = (w - f).range_on_box(reg.ranges)[0]
            if lo <= 0:
                break
            margins.append([s, format_rational(lo)])
        else:
            n = Q(len(members))
            out = [linear_combination([(1 / n, values[s][r]) for s in members]) for r in range(len(values[0]))]
            return out, {"rule": "argmax-set", "winners": members, "margins": margins}
    # hardmax-select: no rule settles the head; one select node per value coordinate, decided later
    out = [reg.select_of(scores, [values[s][r] for s in range(len(scores))]) for r in range(len(values[0]))]
    return out, {"rule": "select", "result": [f.to_json() for f in out]}


def query_sign_scores(q: AffineForm, keys: list[AffineForm], ctx: Context, head: int) -> tuple[list[AffineForm], list]:
    """Rule ``hardmax-query-sign``: for a one-dimensional query q with a fixed sign on D
    (an exact bound), the argmax set of ``q * k_s`` over s is that of ``sign * k_s``."""
    lo, hi = q.range_on_box(ctx.registry.ranges)
    if lo > 0:
        return keys, ["+", format_rational(lo)]
    if hi < 0:
        return [-k for k in keys], ["-", format_rational(hi)]
    raise Obstacle(f"head {head + 1}: the scores multiply two non-constant forms and the query's sign is "
                   "not fixed on D")


def attention_step(att: AttentionOp, state: State, ctx: Context) -> tuple[State, list]:
    """The attention sublayer: every head reads the same state; returns the new state and
    per head the record of each query token."""
    if att.rule != "hardmax":
        raise Obstacle(f"{att.rule} attention: the layer-by-layer rules are for hardmax attention")
    T = len(state)
    acc: list[dict[int, list]] = [{} for _ in range(T)]
    head_records = []
    for hi, head in enumerate(att.heads):
        WQ, WK, WV, WOc = (sparse_rows(head.WQ), sparse_rows(head.WK), sparse_rows(head.WV),
                           sparse_columns(head.WO))
        qs = [matrix_image(WQ, col) for col in state]
        ks = [matrix_image(WK, col) for col in state]
        vs = [matrix_image(WV, col) for col in state]
        const_q = all(f.is_constant() for q in qs for f in q)
        const_k = all(f.is_constant() for k in ks for f in k)
        if not (const_q or const_k or len(head.WQ.to_list()) == 1):
            raise Obstacle(f"head {hi + 1}: the scores multiply two non-constant forms (quadratic on D)")
        cache: dict[tuple, tuple] = {}
        recs = []
        for t in range(T):
            ckey = tuple(f.key() for f in qs[t]) if const_q else ("t", t)
            if ckey not in cache:
                sign = None
                if const_q:
                    scores = [linear_combination([(q.const, k) for q, k in zip(qs[t], ks[s])]) for s in range(T)]
                elif const_k:
                    scores = [linear_combination([(k.const, q) for q, k in zip(qs[t], ks[s])]) for s in range(T)]
                else:  # one query coordinate of fixed sign on D: hardmax of q * k_s is hardmax of sign * k_s
                    scores, sign = query_sign_scores(qs[t][0], [k[0] for k in ks], ctx, hi)
                out, rec = head_rule(scores, vs, ctx)
                if sign is not None:
                    rec = {**rec, "query_sign": sign}
                cache[ckey] = out, rec
            out, rec = cache[ckey]
            recs.append(rec)
            for r, f in enumerate(out):
                if f.coeffs or f.const:
                    for row, a in WOc[r]:
                        acc[t].setdefault(row, []).append((a, f))
        head_records.append(recs)
    new_state = []
    for t, col in enumerate(state):
        new_col = list(col)
        for row, terms in acc[t].items():
            new_col[row] = linear_combination([(Q(1), col[row])] + terms)
        new_state.append(new_col)
    return new_state, head_records


def scaled_maxes(cert: dict) -> int:
    """How many maxes of a block's records are ``c y + k`` for an earlier node (``scale`` facts)."""
    facts = [r["max"] for recs in cert.get("heads", []) for r in recs if r["rule"] == "max"]
    facts += [r[-1] for recs in cert.get("hidden", []) for r in recs
              if (r[0] == "node" or r[0] == "pair" and len(r) == 3)]
    return sum("scale" in f for f in facts)


# -- the whole Transformer -------------------------------------------------------------------
def transformer_forms(t: Transformer, ctx: Context) -> list[AffineForm]:
    """The outputs of ``t`` as forms over the registry's variables (steps added to ctx),
    read off its program (:mod:`symrel.lowering.transformer_to_program`)."""
    program = lower(t)
    reg = ctx.registry
    reg.model = ctx.name
    name = ctx.name.upper()
    embed, = program.stages[0].ops
    state = embedding_state(embed, program.tokens)
    ctx.add_step(f"The embedding of model {name} puts x into slots {list(embed.input_rows)} of every "
                 f"token and adds the token-wise shift (offsets): state Sigma_0", "embedding",
                 {"state": state_json(state)}, PROVED)
    for b in range(program.blocks):
        sublayers = {type(op): op for st in program.block_stages(b) for op in st.ops}
        attention, feedforward = sublayers.get(AttentionOp), sublayers.get(FeedForwardOp)
        cert: dict = {"block": b}
        parts, notes, rules = [], [], []
        try:
            if attention is not None:
                state, cert["heads"] = attention_step(attention, state, ctx)
                parts.append(f"attention, {len(attention.heads)} hardmax head(s)")
                kinds = count_rules([[r["rule"]] for recs in cert["heads"] for r in recs])
                drops = sum(len(r["max"]["dropped"]) for recs in cert["heads"] for r in recs if r["rule"] == "max")
                if kinds.get("max"):
                    rules.append("hardmax-max-head")
                    notes.append(f"{kinds['max']} (head, query) pairs by hardmax-max-head: value = score, so the "
                                 "head returns the max over the tokens whatever the ties")
                if drops:
                    rules.append("drop-dominated")
                    notes.append(f"{drops} term(s) dominated on D dropped from a max (e.g. max(-B, ...) drops -B)")
                if kinds.get("argmax-set"):
                    rules.append("hardmax-argmax-set")
                    notes.append(f"{kinds['argmax-set']} (head, query) pairs by a proved argmax set (selection head)")
                if kinds.get("select"):
                    rules.append("hardmax-select")
                    notes.append(f"{kinds['select']} (head, query) pairs kept as select nodes (the winners' values "
                                 "averaged; decided on the cells of the nodes the outputs depend on)")
            if feedforward is not None:
                state, cert["hidden"] = feedforward_step(feedforward, state, ctx)
                parts.append(f"feed-forward, {feedforward.hidden} hidden unit(s)")
                kinds = count_rules([r for recs in cert["hidden"] for r in recs])
                fixed = kinds.get("+", 0) + kinds.get("-", 0)
                if fixed:
                    rules.append("relu-fixed-sign")
                    notes.append(f"{fixed} (hidden unit, token) pairs by relu-fixed-sign ({kinds.get('+', 0)} "
                                 f"positive, {kinds.get('-', 0)} zero on D, each by an exact bound)")
                if kinds.get("pair"):
                    rules.append("relu-pair-identity")
                    notes.append(f"{kinds['pair'] // 2} pairs by ReLU(u) - ReLU(-u) = u")
                if kinds.get("node"):
                    rules.append("relu-as-max-node")
                    notes.append(f"{kinds['node']} ReLU(s) of undetermined sign kept as max(0, z)")
            scaled = scaled_maxes(cert)
            if scaled:
                rules.append("max-scale-shift")
                notes.append(f"{scaled} max(es) a scaled or shifted copy c y + k of an earlier node y")
        except Obstacle as err:
            ctx.add_step(f"For all x in D, block {b + 1} of model {name} maps Sigma_{b} to an affine state",
                         "none", cert, "open", str(err))
            raise
        cert["nodes"] = reg.drain_new()
        cert["state"] = state_json(state)
        embedded = embed_state_text(state)
        if embedded:
            notes.append(embedded.replace("Sigma", f"Sigma_{b + 1}", 1))
        ctx.add_step(f"For all x in D, block {b + 1} of model {name} ({'; '.join(parts) or 'empty'}) maps the "
                     f"state Sigma_{b} to Sigma_{b + 1}", "+".join(rules) or "linear-identity", cert, PROVED,
                     "; ".join(notes))
    readout, = program.stages[-1].ops
    col = state[readout.token]
    outs = matrix_image(sparse_rows(readout.W), col, flat(readout.b))
    ctx.add_step(f"The read-out of model {name} at token {readout.token} gives its outputs as affine forms",
                 "linear-identity", {"layer": "readout", "outputs": [o.to_json() for o in outs]}, PROVED)
    return outs
