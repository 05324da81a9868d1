"""Why a step established by each rule holds, in the papers' vocabulary: the ``wording`` of
every rule of :mod:`symrel.certificates.rules`, with its mathematics as TeX between dollars
(``$\\max(0, z)$``), which reports typeset (:mod:`symrel.report.wording`). Kept apart from the
registry, which the trusted checker reads: the checker reads rule names and keys, never this
text.
"""

#: rule name -> why a step established by the rule holds
WORDING: dict[str, str] = {
    "domain-box": (
        "the inputs range over a box: the domain itself, or the exact bounding box of a polytope domain, "
        "each bound certified by LP duality ($y \\ge 0$ with $A^{\\top} y = \\pm e_{i}$ and $b^{\\top} y$ the bound); it gives every "
        "exact bound below"),
    "embedding": (
        "the embedding writes x into the input slots and the token-wise shift (the position one-hot and the "
        "constant 1) into every token, exactly as the construction prescribes"),
    "maxout-unit-normal-form": (
        "each maxout unit is the max of its affine pieces; a piece dominated on the domain by another (by an "
        "exact lower bound of their difference) is dropped, and equal pieces are merged, so units that agree up "
        "to the order and repetition of pieces become the same max"),
    "relu-fixed-sign": (
        "a ReLU whose argument has a fixed sign on the domain acts linearly there (identity when the argument "
        "is $\\ge 0$, zero when it is $\\le 0$); the sign follows from an exact bound"),
    "relu-pair-identity": (
        "two hidden ReLU units with arguments $z$ and $-z$ and opposite output weights contribute "
        "$\\mathrm{ReLU}(z) - \\mathrm{ReLU}(-z) = z$, a linear move written with ReLUs"),
    "relu-as-max-node": "a ReLU whose argument changes sign on the domain is kept as $\\max(0, z)$, the rank-2 maxout unit",
    "hardmax-max-head": (
        "a hardmax head whose value equals its score returns the maximum score, whatever the ties (an "
        "average of equal maximal values is that maximum)"),
    "drop-dominated": (
        "a term of a max that is below another term everywhere on the domain (exact bound) is dropped; this "
        "is how $\\max(-B, l_{1}, \\ldots, l_{k})$ loses the carrier's $-B$"),
    "max-scale-shift": (
        "a max whose terms are $c u_{i} + k$ for the terms $u_{i}$ of an earlier node $y$ (a rational $c > 0$ "
        "and a constant $k$) equals $c y + k$, since $\\max_{i}(c u_{i} + k) = c \\max_{i} u_{i} + k$; the record's scale $[c, k]$ is "
        "checked term by term, so scaled or shifted copies of a unit are the same node"),
    "hardmax-argmax-set": (
        "a set of tokens whose common score beats every other token's by a proved positive margin on the "
        "domain is the argmax set, so the hardmax head returns the mean of their values (a selection head "
        "when the winner is unique)"),
    "hardmax-select": (
        "a hardmax head that no rule settles on the whole domain returns, in each value coordinate, a select "
        "node: the value of the token whose score is largest, decided later cell by cell"),
    "node-cells": (
        "the outputs of A and B differ as forms, but the differences depend only on a few nodes; on every "
        "cell of those nodes (a decision tree, each branch non-empty by a witness or empty by a Farkas vector) "
        "the differences vanish exactly"),
    "budget": "the time or cell budget ran out before the claim was settled; the step records how far the proof got",
    "cpwl-lattice-check": (
        "the CPWL function and its lattice form $\\max_{i} \\min_{j \\in S_{i}} l_{j}$ are both affine between consecutive "
        "breakpoints and crossings of pieces, so equality at all those points (exact evaluation) gives "
        "equality on the whole interval"),
    "cpwl-mesh-lattice": (
        "a CPWL function on a mesh equals its lattice form $\\max_{t} \\min_{j \\in S_{t}} l_{j}$ on the domain: the domain "
        "lies in the support (every boundary facet's half-space contains the box, by exact bounds), and on "
        "every simplex one term is $\\ge f$ and every term is $\\le f$ at the vertices, hence everywhere on it (a "
        "simplex may be split by the signs of crossing pieces, each part with its own term $\\ge f$, or empty by "
        "a Farkas vector)"),
    "linear-identity": "two affine maps are equal when they agree coefficient by coefficient, checked exactly",
    "regions-decision": (
        "the claim is handed to the complete decision procedure (cells of the domain); this step says why "
        "it stayed open"),
    "none": "no rule applies to this step: it stays open, and its note says what stood in the way",
    "cell-cover": (
        "the complete decision procedure: the branches of the search over ReLU signs, maxout winners, the "
        "simplices of a mesh and hardmax argmax sets (ties as equalities) cover the domain; each region is non-empty by its witness "
        "point or empty by a Farkas vector, and on each region the two affine maps agree exactly (as forms, "
        "or by two Farkas vectors on a tie region)"),
    "facet-merge": (
        "two cells with the same affine map that share a facet (a point of their common boundary, checked "
        "exactly) belong to one linear region; cells kept apart have different maps or meet in no facet (a "
        "Farkas vector); the linear regions are the classes of this relation"),
    "cell-maps-equal": (
        "on the region the two affine maps agree exactly; the step records the cell and the point where "
        "they differ"),
    "interval-ranges-box": (
        "every hardmax state of the Transformer has an exact interval range over the box (interval "
        "arithmetic on rationals), which classifies each head as a max head or a selection head and gives "
        "the margins the later steps use"),
    "series-constants": (
        "the constants e and ln n are enclosed by rational series with an explicit remainder, so every later "
        "bound is exact rational arithmetic"),
    "block-error": (
        "the entrywise error after a block is bounded from the error before it: attention heads by the "
        "max-head or selection-head bound (rational upper bounds of exp), feed-forward sublayers by their "
        "exact $\\ell_{\\infty}$ Lipschitz constants, with ReLU signs kept by the gating margin"),
    "readout-bound": "the error reaching the read-out, times the read-out's exact $\\ell_{\\infty}$ norm, is at most $\\varepsilon$",
    "lambda-search": "a $\\lambda$ whose propagated error bound is at most $\\varepsilon$; this step says why none was found",
    "complete-preorder": (
        "the relation is reflexive and transitive (a preorder) and every two elements are comparable "
        "(complete), so its indifference classes form a chain"),
    "utility-gap": (
        "consecutive indifference classes have utilities differing by exactly 1, the utility gap the "
        "softmax bound uses"),
    "utility-pairwise": (
        "the utility represents the preorder: $x \\preceq y \\iff u(x) \\le u(y)$, checked on every ordered pair of "
        "elements"),
    "richter-peleg-pairwise": (
        "a strict preference $x \\prec y$ implies $u(x) < u(y)$ and indifferent elements have equal utility, checked on every related pair "
        "(a Richter-Peleg utility, which exists for every preorder)"),
    "chain-level": (
        "the utility $u(y)$ is the length of the longest strict chain below $y$: 0 when nothing is strictly below $y$, "
        "else $1 + \\max_{x \\prec y} u(x)$, checked at every element"),
    "multi-utility-pairwise": (
        "the family represents the preorder: $x \\preceq y \\iff u_{k}(x) \\le u_{k}(y)$ for every $k$, checked on every "
        "ordered pair of elements"),
    "exact-evaluation": "the values are computed by exact rational evaluation of the feature maps",
    "score-order-pairwise": (
        "the attention scores order the keys as the query's preorder does, checked on every pair; hence the "
        "argmax set of any set of keys is exactly its set of maximal keys"),
    "hardmax-subsets": (
        "hardmax attention over each set of keys, evaluated exactly, puts weight $1/|M|$ on each maximal key "
        "and 0 elsewhere"),
    "softmax-retrieval-margin": (
        "with least score gap $g$, softmax puts weight at least $1/(1 + (n-1) e^{-g})$ on the maximal keys, "
        "which is $\\ge 1 - \\varepsilon$ once $g$ is at least the certified bound on $\\ln((n-1)(1-\\varepsilon)/\\varepsilon)$ (rigorous "
        "enclosures)"),
    "tracr-exhaustive-inputs": (
        "the inputs are all sequences of length $1, \\ldots, N$ over the vocabulary $V$, $\\sum_{n} |V|^{n}$ of them, so a check on "
        "each of them is a proof for all inputs"),
    "tracr-hardmax-outputs": (
        "on every input the exact hardmax evaluation of the compiled model decodes to the RASP program's "
        "output at every position"),
    "tracr-softmax-enclosures": (
        "on every input the rigorous enclosure of the softmax model's output (rational bounds of exp) decodes "
        "to the RASP program's output at every position"),
    "tracr-softmax-fails": "at the lower coldness factor the enclosure of one input's output certainly decodes to something else",
    "tracr-coldness-bracket": (
        "the least coldness factor at which the softmax model decodes correctly lies in $(\\mathrm{lower}, \\mathrm{upper}]$, with "
        "$(\\mathrm{upper} / \\mathrm{lower})^{8} \\le 2$"),
    "table-psd": (
        "an exact $L D L^{\\top}$ factorisation $R = L \\,\\mathrm{diag}(D)\\, L^{\\top}$ with every pivot $D_{k} \\ge 0$ shows the relation table "
        "is positive semidefinite"),
    "feature-values": "the feature vectors at the table's points are computed by exact evaluation of the ReLU MLPs",
    "table-row": "each entry of the row equals the inner product of the two feature vectors, computed exactly",
    "same-net": "a symmetric relation is realised with one feature map, $\\psi = \\varphi$; this step says it is not",
    "vnnlib-branch-and-bound": (
        "the tree's splits partition the input disjunct's box, and on every leaf box exact symbolic intervals "
        "justify each ReLU's phase or relaxation, and for every unsafe disjunct one of its atoms (or a "
        "constraint of the input disjunct) has an exact lower bound, by backward substitution, above its "
        "right-hand side; so no input of the region meets the unsafe condition"),
    "output-bound-branch-and-bound": (
        "the tree's splits partition the box, and on every leaf exact symbolic intervals justify each ReLU's "
        "phase or relaxation, and backward substitution gives an exact bound of the output on the leaf that is "
        "at least the claimed lower bound (at most the claimed upper bound); so the output lies within the bound "
        "on the whole box, and a point of the box where the exact output equals the bound shows it is attained"),
}
