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
  Reports print it beside each step (:mod:`symrel.report.wording`). The text lives in
  :mod:`symrel.certificates.rule_wording`, read on first use: the trusted checker reads
  the registry, never the wording.

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
    """One rule: its name, the keys its proved steps record, and (read from
    :mod:`symrel.certificates.rule_wording` on first use) its wording."""

    name: str
    records: tuple[str, ...]
    optional: tuple[str, ...] = ()
    cases: str = ""
    certifies: bool = True

    @property
    def wording(self) -> str:
        """Why a step established by the rule holds, in words (for reports; the checker never
        reads it, so the text lives in :mod:`symrel.certificates.rule_wording`)."""
        from .rule_wording import WORDING

        return WORDING[self.name]


_MODEL_STATE = ("block", "model", "nodes", "state")

_ALL = (
    # -- equivalence, layer by layer (symrel.prover;
    #    docs/theory.md#maxout-layer--three-transformer-blocks-theorems-31-and-32)
    Rule("domain-box", ("box",),
         optional=("duals", "witness", "lex"),
         cases="duals: a polytope domain; witness, lex: a polytope domain's lexicographically least point, "
         "which shows the domain is not empty"),
    Rule("embedding", ("model", "state")),
    Rule("maxout-unit-normal-form", ("layer", "model", "nodes", "units")),
    Rule("relu-fixed-sign", ("model", "nodes"),
         optional=("block", "hidden", "state", "layer", "outputs", "units"),
         cases="block, hidden, state: a feed-forward block of a Transformer; layer, outputs, units: a layer "
         "of a ReLU net"),
    Rule("relu-pair-identity", _MODEL_STATE + ("hidden",)),
    Rule("relu-as-max-node", _MODEL_STATE + ("hidden",)),
    Rule("hardmax-max-head", _MODEL_STATE + ("heads",)),
    Rule("drop-dominated", _MODEL_STATE + ("heads",)),
    Rule("max-scale-shift", ()),
    Rule("hardmax-argmax-set", _MODEL_STATE + ("heads",)),
    Rule("hardmax-select", _MODEL_STATE + ("heads",)),
    Rule("node-cells", ("cells", "free", "nodes", "outputs_a", "outputs_b", "tree")),
    Rule("budget", (),
         certifies=False),
    Rule("cpwl-lattice-check", ("lattice", "model", "points", "values")),
    Rule("cpwl-mesh-lattice", ("lattice", "model", "support")),
    Rule("linear-identity", (),
         optional=("outputs", "layer", "model", "nodes", "block", "state", "heads", "hidden"),
         cases="outputs: the outputs of both models compared (no other key), or one layer's read-out "
         "(with layer, model, nodes); block, state: a Transformer block that no other rule is needed for"),
    Rule("regions-decision", (),
         certifies=False),
    Rule("none", (),
         certifies=False),
    # -- cells and linear regions (symrel.regions; docs/theory.md#linear-regions-theorem-44)
    Rule("cell-cover", ("branches", "mode"),
         optional=("cells", "empty", "support"), cases="cells, empty: an equivalence decided on the cells; "
         "support: a CPWL function on a mesh (Farkas vectors putting the domain in the half-space of each "
         "boundary facet)"),
    Rule("facet-merge", ("apart", "merges")),
    Rule("cell-maps-equal", (),
         certifies=False),
    # -- softmax against hardmax (symrel.softmax; docs/theory.md#softmax-instead-of-hardmax)
    Rule("interval-ranges-box", ("blocks",)),
    Rule("series-constants", ("e_lower", "log_upper")),
    Rule("block-error", ("block", "errors"),
         optional=("exp_upper", "gap_upper", "relu_pairs", "tied_keys"),
         cases="gap_upper: a max head; exp_upper: a selection head; relu_pairs: ReLU(u) - ReLU(-u) = u pairs; "
         "tied_keys: a selection head whose argmax set is several keys with one constant key vector"),
    Rule("readout-bound", ("bound", "eps", "output_error")),
    Rule("lambda-search", (),
         certifies=False),
    # -- preorders and utilities (symrel.preorders;
    #    docs/theory.md#preorders-debreu-utilities-and-retrieval-paper-b)
    Rule("complete-preorder", ("classes", "elements")),
    Rule("utility-gap", ("gap", "levels")),
    Rule("utility-pairwise", ("pairs",)),
    Rule("richter-peleg-pairwise", ("related_pairs",)),
    Rule("chain-level", ("elements",)),
    Rule("multi-utility-pairwise", ("pairs",)),
    # -- retrieval by attention (symrel.preorders.retrieval;
    #    docs/theory.md#preorders-debreu-utilities-and-retrieval-paper-b)
    Rule("exact-evaluation", ("scores",)),
    Rule("score-order-pairwise", ("pairs", "query")),
    Rule("hardmax-subsets", ("max_subset", "query", "subsets")),
    Rule("softmax-retrieval-margin", ("beta_bound", "eps", "keys", "least_gap")),
    # -- tracr programs (symrel.interop.tracr: the exhaustive audit)
    Rule("tracr-exhaustive-inputs", ("count",)),
    Rule("tracr-hardmax-outputs", ("expected",)),
    Rule("tracr-softmax-enclosures", ("enclosures", "factor"),
         optional=("error_bound",), cases="error_bound: a numerical output (the largest error over the inputs)"),
    Rule("tracr-softmax-fails", ("enclosure", "factor", "input")),
    Rule("tracr-coldness-bracket", ("lower", "upper")),
    # -- relations as inner products (symrel.relations;
    #    docs/theory.md#relation-functions-as-inner-products-paper-b)
    Rule("table-psd", ("D", "L")),
    Rule("feature-values", ("phi",),
         optional=("psi",), cases="psi: a relation that is not symmetric (two feature maps)"),
    Rule("table-row", ("row", "values")),
    Rule("same-net", (),
         certifies=False),
    # -- VNN-LIB properties (symrel.vnnlib; docs/format.md, "vnnlib-unsat")
    Rule("vnnlib-branch-and-bound", ("box", "disjunct", "tree")),
    Rule("output-bound-branch-and-bound", ("bound", "output", "side", "tree"), optional=("attained",),   # output-bounds
         cases="attained: the bound is reached at a point of the box (the minimum or the maximum itself)"),
)

#: rule name -> :class:`Rule`
RULES: dict[str, Rule] = {rule.name: rule for rule in _ALL}


def rules_of(name: str) -> list[Rule]:
    """The rules a step's ``rule`` names (several joined by ``+``); KeyError for an unknown one."""
    return [RULES[part] for part in name.split("+")]
