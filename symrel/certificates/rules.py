"""The rules a proof step can name: what each records and why it holds, in words.

Every :class:`~symrel.certificates.Step` names the rule that establishes it
(``Step.rule``; a step established by several rules names them joined by ``+``,
e.g. ``relu-fixed-sign+relu-pair-identity``). This module is the one list of
those rules. For each it says

* ``records``: the keys that the certificate of a proved step of the rule always holds;
* ``optional``: the keys that it holds in some cases only (said in ``cases``);
* ``certifies``: whether a step of the rule can be proved at all. Some rules only
  ever end a proof refuted or open (they say why), so they never occur in a certificate;
* ``wording``: why a step established by the rule holds, in the papers' vocabulary, with
  its mathematics as TeX between dollars (``$\\max(0, z)$``), which reports typeset.
  Reports print it beside each step (:mod:`symrel.report.wording`).

A step established by several rules records the union of their keys. Refuted and open
steps record what explains them (a counterexample, the failing entry), or nothing.
The provers produce exactly these names: ``tests/certificates/test_rules.py`` reads
the names from the provers' source and the recorded keys from their proofs.

>>> RULES["domain-box"].records, RULES["domain-box"].optional
(('box',), ('duals', 'witness', 'lex'))
>>> [r.name for r in rules_of("relu-fixed-sign+relu-pair-identity")]
['relu-fixed-sign', 'relu-pair-identity']
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One rule: its name, the keys its proved steps record, and its wording."""

    name: str
    records: tuple[str, ...]
    wording: str
    optional: tuple[str, ...] = ()
    cases: str = ""
    certifies: bool = True


_MODEL_STATE = ("block", "model", "nodes", "state")

_ALL = (
    # -- equivalence, layer by layer (symrel.prover;
    #    docs/theory.md#maxout-layer--three-transformer-blocks-theorems-31-and-32)
    Rule("domain-box", ("box",),
         "the inputs range over a box: the domain itself, or the exact bounding box of a polytope domain, "
         "each bound certified by LP duality ($y \\ge 0$ with $A^{\\top} y = \\pm e_{i}$ and $b^{\\top} y$ the bound); it gives every "
         "exact bound below",
         optional=("duals", "witness", "lex"),
         cases="duals: a polytope domain; witness, lex: a polytope domain's lexicographically least point, "
         "which shows the domain is not empty"),
    Rule("embedding", ("model", "state"),
         "the embedding writes x into the input slots and the token-wise shift (the position one-hot and the "
         "constant 1) into every token, exactly as the construction prescribes"),
    Rule("maxout-unit-normal-form", ("layer", "model", "nodes", "units"),
         "each maxout unit is the max of its affine pieces; a piece dominated on the domain by another (by an "
         "exact lower bound of their difference) is dropped, and equal pieces are merged, so units that agree up "
         "to the order and repetition of pieces become the same max"),
    Rule("relu-fixed-sign", ("model", "nodes"),
         "a ReLU whose argument has a fixed sign on the domain acts linearly there (identity when the argument "
         "is $\\ge 0$, zero when it is $\\le 0$); the sign follows from an exact bound",
         optional=("block", "hidden", "state", "layer", "outputs", "units"),
         cases="block, hidden, state: a feed-forward block of a Transformer; layer, outputs, units: a layer "
         "of a ReLU net"),
    Rule("relu-pair-identity", _MODEL_STATE + ("hidden",),
         "two hidden ReLU units with arguments $z$ and $-z$ and opposite output weights contribute "
         "$\\mathrm{ReLU}(z) - \\mathrm{ReLU}(-z) = z$, a linear move written with ReLUs"),
    Rule("relu-as-max-node", _MODEL_STATE + ("hidden",),
         "a ReLU whose argument changes sign on the domain is kept as $\\max(0, z)$, the rank-2 maxout unit"),
    Rule("hardmax-max-head", _MODEL_STATE + ("heads",),
         "a hardmax head whose value equals its score returns the maximum score, whatever the ties (an "
         "average of equal maximal values is that maximum)"),
    Rule("drop-dominated", _MODEL_STATE + ("heads",),
         "a term of a max that is below another term everywhere on the domain (exact bound) is dropped; this "
         "is how $\\max(-B, l_{1}, \\ldots, l_{k})$ loses the carrier's $-B$"),
    Rule("max-scale-shift", (),
         "a max whose terms are $c u_{i} + k$ for the terms $u_{i}$ of an earlier node $y$ (a rational $c > 0$ "
         "and a constant $k$) equals $c y + k$, since $\\max_{i}(c u_{i} + k) = c \\max_{i} u_{i} + k$; the record's scale $[c, k]$ is "
         "checked term by term, so scaled or shifted copies of a unit are the same node"),
    Rule("hardmax-argmax-set", _MODEL_STATE + ("heads",),
         "a set of tokens whose common score beats every other token's by a proved positive margin on the "
         "domain is the argmax set, so the hardmax head returns the mean of their values (a selection head "
         "when the winner is unique)"),
    Rule("hardmax-select", _MODEL_STATE + ("heads",),
         "a hardmax head that no rule settles on the whole domain returns, in each value coordinate, a select "
         "node: the value of the token whose score is largest, decided later cell by cell"),
    Rule("node-cells", ("cells", "free", "nodes", "outputs_a", "outputs_b", "tree"),
         "the outputs of A and B differ as forms, but the differences depend only on a few nodes; on every "
         "cell of those nodes (a decision tree, each branch non-empty by a witness or empty by a Farkas vector) "
         "the differences vanish exactly"),
    Rule("budget", (),
         "the time or cell budget ran out before the claim was settled; the step records how far the proof got",
         certifies=False),
    Rule("cpwl-lattice-check", ("lattice", "model", "points", "values"),
         "the CPWL function and its lattice form $\\max_{i} \\min_{j \\in S_{i}} l_{j}$ are both affine between consecutive "
         "breakpoints and crossings of pieces, so equality at all those points (exact evaluation) gives "
         "equality on the whole interval"),
    Rule("cpwl-mesh-lattice", ("lattice", "model", "support"),
         "a CPWL function on a mesh equals its lattice form $\\max_{t} \\min_{j \\in S_{t}} l_{j}$ on the domain: the domain "
         "lies in the support (every boundary facet's half-space contains the box, by exact bounds), and on "
         "every simplex one term is $\\ge f$ and every term is $\\le f$ at the vertices, hence everywhere on it (a "
         "simplex may be split by the signs of crossing pieces, each part with its own term $\\ge f$, or empty by "
         "a Farkas vector)"),
    Rule("linear-identity", (),
         "two affine maps are equal when they agree coefficient by coefficient, checked exactly",
         optional=("outputs", "layer", "model", "nodes", "block", "state", "heads", "hidden"),
         cases="outputs: the outputs of both models compared (no other key), or one layer's read-out "
         "(with layer, model, nodes); block, state: a Transformer block that no other rule is needed for"),
    Rule("regions-decision", (),
         "the claim is handed to the complete decision procedure (cells of the domain); this step says why "
         "it stayed open",
         certifies=False),
    Rule("none", (),
         "no rule applies to this step: it stays open, and its note says what stood in the way",
         certifies=False),
    # -- cells and linear regions (symrel.regions; docs/theory.md#linear-regions-theorem-44)
    Rule("cell-cover", ("branches", "mode"),
         "the complete decision procedure: the branches of the search over ReLU signs, maxout winners, the "
         "simplices of a mesh and hardmax argmax sets (ties as equalities) cover the domain; each region is non-empty by its witness "
         "point or empty by a Farkas vector, and on each region the two affine maps agree exactly (as forms, "
         "or by two Farkas vectors on a tie region)",
         optional=("cells", "empty", "support"), cases="cells, empty: an equivalence decided on the cells; "
         "support: a CPWL function on a mesh (Farkas vectors putting the domain in the half-space of each "
         "boundary facet)"),
    Rule("facet-merge", ("apart", "merges"),
         "two cells with the same affine map that share a facet (a point of their common boundary, checked "
         "exactly) belong to one linear region; cells kept apart have different maps or meet in no facet (a "
         "Farkas vector); the linear regions are the classes of this relation"),
    Rule("cell-maps-equal", (),
         "on the region the two affine maps agree exactly; the step records the cell and the point where "
         "they differ",
         certifies=False),
    # -- softmax against hardmax (symrel.softmax; docs/theory.md#softmax-instead-of-hardmax)
    Rule("interval-ranges-box", ("blocks",),
         "every hardmax state of the Transformer has an exact interval range over the box (interval "
         "arithmetic on rationals), which classifies each head as a max head or a selection head and gives "
         "the margins the later steps use"),
    Rule("series-constants", ("e_lower", "log_upper"),
         "the constants e and ln n are enclosed by rational series with an explicit remainder, so every later "
         "bound is exact rational arithmetic"),
    Rule("block-error", ("block", "errors"),
         "the entrywise error after a block is bounded from the error before it: attention heads by the "
         "max-head or selection-head bound (rational upper bounds of exp), feed-forward sublayers by their "
         "exact $\\ell_{\\infty}$ Lipschitz constants, with ReLU signs kept by the gating margin",
         optional=("exp_upper", "gap_upper", "relu_pairs", "tied_keys"),
         cases="gap_upper: a max head; exp_upper: a selection head; relu_pairs: ReLU(u) - ReLU(-u) = u pairs; "
         "tied_keys: a selection head whose argmax set is several keys with one constant key vector"),
    Rule("readout-bound", ("bound", "eps", "output_error"),
         "the error reaching the read-out, times the read-out's exact $\\ell_{\\infty}$ norm, is at most $\\varepsilon$"),
    Rule("lambda-search", (),
         "a $\\lambda$ whose propagated error bound is at most $\\varepsilon$; this step says why none was found",
         certifies=False),
    # -- preorders and utilities (symrel.preorders;
    #    docs/theory.md#preorders-debreu-utilities-and-retrieval-paper-b)
    Rule("complete-preorder", ("classes", "elements"),
         "the relation is reflexive and transitive (a preorder) and every two elements are comparable "
         "(complete), so its indifference classes form a chain"),
    Rule("utility-gap", ("gap", "levels"),
         "consecutive indifference classes have utilities differing by exactly 1, the utility gap the "
         "softmax bound uses"),
    Rule("utility-pairwise", ("pairs",),
         "the utility represents the preorder: $x \\preceq y \\iff u(x) \\le u(y)$, checked on every ordered pair of "
         "elements"),
    Rule("richter-peleg-pairwise", ("related_pairs",),
         "a strict preference $x \\prec y$ implies $u(x) < u(y)$ and indifferent elements have equal utility, checked on every related pair "
         "(a Richter-Peleg utility, which exists for every preorder)"),
    Rule("chain-level", ("elements",),
         "the utility $u(y)$ is the length of the longest strict chain below $y$: 0 when nothing is strictly below $y$, "
         "else $1 + \\max_{x \\prec y} u(x)$, checked at every element"),
    Rule("multi-utility-pairwise", ("pairs",),
         "the family represents the preorder: $x \\preceq y \\iff u_{k}(x) \\le u_{k}(y)$ for every $k$, checked on every "
         "ordered pair of elements"),
    # -- retrieval by attention (symrel.preorders.retrieval;
    #    docs/theory.md#preorders-debreu-utilities-and-retrieval-paper-b)
    Rule("exact-evaluation", ("scores",),
         "the values are computed by exact rational evaluation of the feature maps"),
    Rule("score-order-pairwise", ("pairs", "query"),
         "the attention scores order the keys as the query's preorder does, checked on every pair; hence the "
         "argmax set of any set of keys is exactly its set of maximal keys"),
    Rule("hardmax-subsets", ("max_subset", "query", "subsets"),
         "hardmax attention over each set of keys, evaluated exactly, puts weight $1/|M|$ on each maximal key "
         "and 0 elsewhere"),
    Rule("softmax-retrieval-margin", ("beta_bound", "eps", "keys", "least_gap"),
         "with least score gap $g$, softmax puts weight at least $1/(1 + (n-1) e^{-g})$ on the maximal keys, "
         "which is $\\ge 1 - \\varepsilon$ once $g$ is at least the certified bound on $\\ln((n-1)(1-\\varepsilon)/\\varepsilon)$ (rigorous "
         "enclosures)"),
    # -- tracr programs (symrel.interop.tracr: the exhaustive audit)
    Rule("tracr-exhaustive-inputs", ("count",),
         "the inputs are all sequences of length $1, \\ldots, N$ over the vocabulary $V$, $\\sum_{n} |V|^{n}$ of them, so a check on "
         "each of them is a proof for all inputs"),
    Rule("tracr-hardmax-outputs", ("expected",),
         "on every input the exact hardmax evaluation of the compiled model decodes to the RASP program's "
         "output at every position"),
    Rule("tracr-softmax-enclosures", ("enclosures", "factor"),
         "on every input the rigorous enclosure of the softmax model's output (rational bounds of exp) decodes "
         "to the RASP program's output at every position",
         optional=("error_bound",), cases="error_bound: a numerical output (the largest error over the inputs)"),
    Rule("tracr-softmax-fails", ("enclosure", "factor", "input"),
         "at the lower coldness factor the enclosure of one input's output certainly decodes to something else"),
    Rule("tracr-coldness-bracket", ("lower", "upper"),
         "the least coldness factor at which the softmax model decodes correctly lies in $(\\mathrm{lower}, \\mathrm{upper}]$, with "
         "$(\\mathrm{upper} / \\mathrm{lower})^{8} \\le 2$"),
    # -- relations as inner products (symrel.relations;
    #    docs/theory.md#relation-functions-as-inner-products-paper-b)
    Rule("table-psd", ("D", "L"),
         "an exact $L D L^{\\top}$ factorisation $R = L \\,\\mathrm{diag}(D)\\, L^{\\top}$ with every pivot $D_{k} \\ge 0$ shows the relation table "
         "is positive semidefinite"),
    Rule("feature-values", ("phi",),
         "the feature vectors at the table's points are computed by exact evaluation of the ReLU MLPs",
         optional=("psi",), cases="psi: a relation that is not symmetric (two feature maps)"),
    Rule("table-row", ("row", "values"),
         "each entry of the row equals the inner product of the two feature vectors, computed exactly"),
    Rule("same-net", (),
         "a symmetric relation is realised with one feature map, $\\psi = \\varphi$; this step says it is not",
         certifies=False),
    # -- VNN-LIB properties (symrel.vnnlib; docs/format.md, "vnnlib-unsat")
    Rule("vnnlib-branch-and-bound", ("box", "disjunct", "tree"),
         "the tree's splits partition the input disjunct's box, and on every leaf box exact symbolic intervals "
         "justify each ReLU's phase or relaxation, and for every unsafe disjunct one of its atoms (or a "
         "constraint of the input disjunct) has an exact lower bound, by backward substitution, above its "
         "right-hand side; so no input of the region meets the unsafe condition"),
)

#: rule name -> :class:`Rule`
RULES: dict[str, Rule] = {rule.name: rule for rule in _ALL}


def rules_of(name: str) -> list[Rule]:
    """The rules a step's ``rule`` names (several joined by ``+``); KeyError for an unknown one."""
    return [RULES[part] for part in name.split("+")]
