"""Preorders, Debreu utilities and attention that retrieves (docs/theory.md#preorders-debreu-utilities-and-retrieval-paper-b).

* :class:`Preorder`: a relation on a finite set as a networkx DiGraph, with its
  axioms checked (witnesses on failure) and its structure (indifference classes,
  strict part, Hasse diagram, maximal elements) from networkx's algorithms;
* :func:`debreu_utility`, :func:`richter_peleg_utility`, :func:`multi_utility`:
  utilities with proofs checked on every pair;
* :class:`RetrievalTask`, :func:`build_retrieval_attention`,
  :func:`prove_retrieval`: one preorder per query, realised by attention with
  exact ReLU feature maps, proved for hardmax (and softmax with its beta).
"""

from .preorder import IncompletePreorderError, NotAPreorderError, Preorder
from .retrieval import (
    RetrievalAttention,
    build_retrieval_attention,
    prove_retrieval,
    score_order_mismatch,
    softmax_beta,
)
from .task import RetrievalTask
from .utility import (
    UtilityRepresentation,
    debreu_utility,
    format_utility,
    multi_utility,
    realiser,
    representation_mismatch,
    richter_peleg_utility,
)

__all__ = [n for n in dir() if not n.startswith("_")]
