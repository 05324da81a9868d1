"""Rigorous softmax-vs-hardmax bounds in lambda (docs/theory.md#softmax-instead-of-hardmax and docs/theory.md#preorders-debreu-utilities-and-retrieval-paper-b).

* :mod:`.taylor`: exact rational enclosures of exp, log and e (the referee);
* :mod:`.intervals`: interval backends (rational referee, mpmath.iv, python-flint arb)
  and :func:`enclose`, which cross-checks them;
* :mod:`.lemmas`: the max-head and selection-head lemmas, forward and inverse;
* :mod:`.retrieval`: the retrieval temperature of Paper B, :func:`retrieval_beta`;
* :mod:`.ranges` and :mod:`.network`: a certified lambda for a whole Transformer on a box,
  :func:`lambda_min`;
* :mod:`.empirical`: high-precision evaluation at random and near-tie points;
* :mod:`.plot`: bound and observed error against lambda (matplotlib, optional);
* :mod:`.examples`: a hand-built selection-head Transformer.

Certificates of :func:`lambda_min` results are re-checked by :mod:`symrel.checking.softmax`.

>>> from symrel.exact import rational as r
>>> str(lambda_for_max_head(2, r("1/10")).lam)     # (n-1)/(e eps) = 3.6788 < ln 2/eps
'9197/2500'
"""

from .empirical import EmpiricalCheck, empirical_check, near_tie_points, softmax_error
from .intervals import Enclosure, EnclosureMismatch, available_backends, enclose
from .lemmas import (
    LambdaBound,
    lambda_for_max_head,
    lambda_for_selection,
    max_head_gap,
    selection_error,
    selection_weight_loss,
    softmax_gap,
)
from .network import NetworkBound, lambda_min, propagate
from .ranges import analyse
from .retrieval import retrieval_beta, retrieval_bound, retrieval_weight_lower

__all__ = [n for n in dir() if not n.startswith("_")]
