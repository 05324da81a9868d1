"""The words of a report: rules said in the papers' vocabulary, certificates summarised.

Every prover names the rule that establishes a step (``Step.rule``). A report
says, for each step, *why* it holds: the rule in words, in the vocabulary of the
papers (maxout unit, rank, token-wise shift, hardmax, region, utility). Rules not
listed here are still reported, by name, with the prover's note.

A certificate is plain JSON data; :func:`summarise_certificate` turns it into a
few readable lines: scalars in full, vectors and matrices by their size, a few
entries and their extremes.

>>> rule_in_words("affine-bound-box")[:44]
'an affine form attains its extremes over a b'
>>> summarise_certificate({"lower": "-3/2", "farkas": ["1/2", 0, 0, 0, 0, 0, 0, 3]})
[['lower = ', '-3/2'], ['farkas: ', 'vector of 8 rationals (', '1/2, 0, 0, 0, …, 3', ')']]
"""

from __future__ import annotations

from ..exact import is_rational_text

#: rule name -> why a step established by it holds, in words
RULES: dict[str, str] = {
    # exact facts about affine forms and cells (docs/theory.md#proofs-and-certificates)
    "affine-bound-box": "an affine form attains its extremes over a box at a vertex, so its exact range is "
    "the constant plus, for each coordinate, the coefficient times the matching endpoint",
    "affine-bound-polytope": "an affine form is bounded over a polytope by an exact LP; the dual solution "
    "(a nonnegative combination of the constraints) certifies the bound",
    "linear-identity": "two affine maps are equal when they agree coefficient by coefficient, checked exactly",
    "affine-identity": "two affine maps are equal when they agree coefficient by coefficient, checked exactly",
    "farkas": "a cell is empty when a nonnegative combination y of its inequalities gives 0 <= y.b < 0 "
    "(Farkas' lemma)",
    "empty-cell": "a cell is empty when a nonnegative combination y of its inequalities gives 0 <= y.b < 0 "
    "(Farkas' lemma)",
    "witness": "a cell is non-empty because it contains the witness point, checked by exact substitution",
    "counterexample": "the claim fails at the counterexample point, checked by plain exact evaluation",
    "polynomial-identity": "two polynomials are equal when all their coefficients agree exactly",
    # Paper A: the compiled Transformer (docs/theory.md#maxout-layer--three-transformer-blocks-theorems-31-and-32)
    "embedding": "the embedding writes x into the input slots and the token-wise shift (the position one-hot "
    "and the constant 1) into every token, exactly as the construction prescribes",
    "relu-fixed-sign": "a ReLU whose argument has a fixed sign on the domain acts linearly there "
    "(identity when the argument is >= 0, zero when it is <= 0); the sign follows from an exact bound",
    "domain-box": "the domain is a box: each input ranges over its own interval, which gives every exact "
    "bound below",
    "maxout-unit-normal-form": "each maxout unit is the max of its affine pieces; a piece dominated on the "
    "domain by another (by an exact lower bound of their difference) is dropped, and equal pieces are merged, "
    "so units that agree up to the order and repetition of pieces become the same max",
    "relu-as-max-node": "a ReLU whose argument changes sign on the domain is kept as max(0, z), the rank-2 "
    "maxout unit",
    "relu-pair-identity": "two hidden ReLU units with arguments z and -z and opposite output weights "
    "contribute ReLU(z) - ReLU(-z) = z, a linear move written with ReLUs",
    "drop-dominated": "a term of a max that is below another term everywhere on the domain (exact bound) is "
    "dropped; this is how max(-B, l_1, ..., l_k) loses the carrier's -B",
    "hardmax-argmax-set": "a set of tokens whose common score beats every other token's by a proved positive "
    "margin on the domain is the argmax set, so the hardmax head returns the mean of their values "
    "(a selection head when the winner is unique)",
    "regions-decision": "the complete decision procedure: the domain is split into regions (ReLU signs and "
    "argmax sets, ties as equalities), each certified non-empty by a witness point or empty by a Farkas "
    "vector, and the two affine maps are compared exactly on every region",
    "cpwl-lattice-check": "the CPWL function and its lattice form max_i min_(j in S_i) l_j are both affine "
    "between consecutive breakpoints and crossings of pieces, so equality at all those points (exact "
    "evaluation) gives equality on the whole interval",
    "gating": "on the piece-token of a maxout piece the gated ReLU passes that piece plus B, on every other "
    "token the token-wise shift pushes its argument below 0, so the feed-forward block writes each piece "
    "of each maxout unit onto its own token",
    "hardmax-max-head": "a hardmax head whose value equals its score returns the maximum score, "
    "whatever the ties (an average of equal maximal values is that maximum)",
    "max-head": "a hardmax head whose value equals its score returns the maximum score, "
    "whatever the ties (an average of equal maximal values is that maximum)",
    "selection-head": "a hardmax head with a proved unique winner (its score beats every other by a "
    "positive margin on the domain) returns the winner's value",
    "drop-carrier": "the carrier token holds -B, and every piece is >= -B on the domain, "
    "so max(-B, l_1, ..., l_k) is the maxout unit max(l_1, ..., l_k)",
    "readout": "the read-out of the last token is an affine map, compared with the net's read-out "
    "coefficient by coefficient",
    "composition": "the lemmas of consecutive blocks compose: the state after one block is the state "
    "the next block is proved for",
    "decision-procedure": "the domain is split into activation regions (ReLU signs and argmax sets, ties "
    "as equalities); on every non-empty region the two affine maps agree exactly, and the regions cover "
    "the domain",
    # Paper A: regions and softmax (docs/theory.md#linear-regions-theorem-44 and docs/theory.md#softmax-instead-of-hardmax)
    "region-count": "linear regions are counted by enumerating the cells of the domain with exact LP "
    "(a witness for each non-empty cell, a Farkas vector for each empty one) and merging neighbouring "
    "cells with the same affine map",
    "softmax-max-head": "for scores s_1..s_n, 0 <= max s - softmax average <= min((n-1)/(e lambda), ln(n)/lambda), "
    "evaluated with rigorous interval arithmetic",
    "softmax-selection": "with winner margin delta the softmax weight on the winner is at least "
    "1 - (n-1) exp(-lambda delta), evaluated with rigorous interval arithmetic",
    "interval-ranges-box": "every hardmax state of the Transformer has an exact interval range over the box "
    "(interval arithmetic on rationals), which classifies each head as a max head or a selection head and "
    "gives the margins the later steps use",
    "inf-norm-lipschitz": "a feed-forward sublayer moves an error by at most its exact inf-norm Lipschitz "
    "constant; a ReLU whose sign is fixed by a gating margin larger than the error stays exact, any other "
    "obeys |ReLU a - ReLU b| <= |a - b|",
    "max-head-gap": "for a max head (value = score) over n tokens, 0 <= max s - softmax average <= "
    "min((n-1)/(e lambda), ln(n)/lambda), plus the error already in the scores; evaluated with rigorous "
    "interval arithmetic",
    "selection-margin": "a selection head whose winner beats the others by a margin delta has softmax "
    "output error at most 2(n-1) exp(-lambda delta) max|v|, evaluated with rigorous interval arithmetic",
    "readout-bound": "the error reaching the read-out, times the read-out's exact inf-norm, is at most eps",
    "lambda-search": "a lambda whose propagated error bound is at most eps",
    "series-constants": "the constants e and ln n are enclosed by rational series with an explicit "
    "remainder, so every later bound is exact rational arithmetic",
    "block-error": "the entrywise error after a block is bounded from the error before it: attention heads by "
    "the max-head or selection-head bound (rational upper bounds of exp), feed-forward sublayers by their "
    "exact inf-norm Lipschitz constants, with ReLU signs kept by the gating margin",
    "cell-cover": "the complete decision procedure: the branches of the search over ReLU signs, maxout winners "
    "and hardmax argmax sets (ties as equalities) cover the domain; each region is non-empty by its witness "
    "point or empty by a Farkas vector, and on each region the two affine maps agree exactly (as forms, or "
    "by two Farkas vectors on a tie region)",
    "cell-maps-equal": "on the region the two affine maps agree exactly",
    "table-psd": "an exact LDL^T factorisation R = L diag(D) L^T with every pivot D_k >= 0 shows the relation "
    "table is positive semidefinite",
    "feature-values": "the feature vectors at the table's points are computed by exact evaluation of the "
    "ReLU MLPs",
    "table-row": "each entry of the row equals the inner product of the two feature vectors, computed exactly",
    "same-net": "a symmetric relation is realised with one feature map, psi = phi",
    "lipschitz": "errors propagate through later blocks with their exact inf-norm Lipschitz constants",
    # Paper B (docs/theory.md#relation-functions-as-inner-products-paper-b and docs/theory.md#preorders-debreu-utilities-and-retrieval-paper-b)
    "ldl": "an exact LDL^T factorisation with nonnegative pivots shows the relation matrix is positive "
    "semidefinite",
    "lagrange-four-squares": "each nonnegative rational pivot is a sum of four rational squares (Lagrange), "
    "which gives rational feature rows",
    "rank-factorisation": "an exact rank factorisation R = P Q^T gives query and key features of dimension rank R",
    "interpolation": "a ReLU MLP interpolates finitely many points exactly: project onto a separating "
    "direction, then a piecewise-linear interpolant per output coordinate",
    "inner-product": "each table entry equals the inner product of the two feature vectors, "
    "evaluated exactly",
    "utility": "on a complete finite preorder the rank of the indifference class in the chain of classes is "
    "a utility: x <= y iff u(x) <= u(y), checked on every pair",
    "debreu-utility": "on a complete finite preorder the rank of the indifference class in the chain of "
    "classes is a utility: x <= y iff u(x) <= u(y), checked on every pair",
    "complete-preorder": "the relation is reflexive and transitive (a preorder) and every two elements are "
    "comparable (complete), so its indifference classes form a chain",
    "utility-pairwise": "the utility represents the preorder: x <= y iff u(x) <= u(y), checked on every "
    "ordered pair of elements",
    "utility-gap": "consecutive indifference classes have utilities differing by exactly 1, the utility gap "
    "the softmax bound uses",
    "richter-peleg-pairwise": "x < y implies u(x) < u(y) and indifferent elements have equal utility, "
    "checked on every related pair (a Richter-Peleg utility, which exists for every preorder)",
    "exact-evaluation": "the values are computed by exact rational evaluation of the feature maps",
    "score-order-pairwise": "the attention scores order the keys as the query's preorder does, checked on "
    "every pair; hence the argmax set of any set of keys is exactly its set of maximal keys",
    "hardmax-subsets": "hardmax attention over each set of keys, evaluated exactly, puts weight 1/|M| on each "
    "maximal key and 0 elsewhere",
    "softmax-retrieval-margin": "with least score gap g, softmax puts weight at least 1/(1 + (n-1) exp(-g)) on "
    "the maximal keys, which is >= 1 - eps once g is at least the certified bound on "
    "ln((n-1)(1-eps)/eps) (rigorous enclosures)",
    "hardmax-retrieval": "the attention scores are beta times the utility, so hardmax attention puts "
    "equal weight on exactly the maximal keys",
    "softmax-retrieval": "with utility gap eta, softmax attention puts weight at least "
    "1/(1 + (n-1) exp(-beta eta)) on the maximal keys; beta >= ln((n-1)(1-eps)/eps)/eta gives 1 - eps",
}


def rule_in_words(rule: str) -> str:
    """Why a step established by ``rule`` holds, in words ('' when unknown). A step
    established by several rules names them joined by ``+``; their words are joined.

    >>> rule_in_words("relu-fixed-sign+relu-pair-identity").count("; and ")
    1
    """
    words = [RULES.get(r, "") for r in rule.split("+")]
    if not all(words):
        return ""
    return "; and ".join(words)


def _shown(values, head: int = 4) -> str:
    texts = [str(v) for v in values]
    if len(texts) <= head + 2:
        return ", ".join(texts)
    return ", ".join(texts[:head]) + ", …, " + texts[-1]


def _leaves(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    elif is_rational_text(value):
        yield value


def _numbers_note(value) -> str:
    """``", 14 numbers from -7/3 to 5"`` for nested data ('' when it holds none)."""
    from ..exact import rational, rational_str

    numbers = [rational(v) for v in _leaves(value)]
    if not numbers:
        return ""
    if len(numbers) == 1:
        return f", holding the number {rational_str(numbers[0])}"
    return f", {len(numbers)} numbers from {rational_str(min(numbers))} to {rational_str(max(numbers))}"


def _summarise_value(value) -> list:
    """One value of a certificate as inline text (without its key)."""
    if is_rational_text(value):
        return [str(value)]
    if isinstance(value, bool) or value is None:
        return [str(value).lower()]
    if isinstance(value, str):
        return [value if len(value) <= 80 else value[:77] + "…"]
    if isinstance(value, list):
        if not value:
            return ["empty list"]
        if all(is_rational_text(v) for v in value):
            return [f"vector of {len(value)} rationals (", _shown(value), ")"]
        if all(isinstance(v, list) and all(is_rational_text(e) for e in v) for v in value):
            cols = {len(v) for v in value}
            shape = f"{len(value)} x {cols.pop()}" if len(cols) == 1 else f"{len(value)} rows"
            nonzero = sum(1 for v in value for e in v if str(e) != "0")
            return [f"{shape} matrix of rationals, {nonzero} nonzero"]
        if all(isinstance(v, dict) for v in value):
            keys = sorted({k for v in value for k in v})
            return [f"{len(value)} record{'s' if len(value) > 1 else ''} ({', '.join(keys[:6])}"
                    f"{', …' if len(keys) > 6 else ''}){_numbers_note(value)}"]
        return [f"list of {len(value)} entr{'ies' if len(value) != 1 else 'y'}{_numbers_note(value)}"]
    if isinstance(value, dict):
        if not value:
            return ["empty"]
        if len(value) <= 4 and all(is_rational_text(v) for v in value.values()):
            out: list = []
            for i, (k, v) in enumerate(value.items()):
                out += ([", "] if i else []) + [f"{k} = ", str(v)]
            return out
        return [f"{len(value)} entries ({', '.join(list(map(str, value))[:6])}{', …' if len(value) > 6 else ''})"
                f"{_numbers_note(value)}"]
    return [str(value)]


def summarise_certificate(certificate: dict, limit: int = 8) -> list[list]:
    """A certificate as at most ``limit`` lines of inline text, one per key."""
    lines = []
    for key, value in list(certificate.items())[:limit]:
        body = _summarise_value(value)
        sep = " = " if is_rational_text(value) else ": "
        lines.append([f"{key}{sep}"] + body)
    if len(certificate) > limit:
        lines.append([f"… and {len(certificate) - limit} more entries"])
    return lines
