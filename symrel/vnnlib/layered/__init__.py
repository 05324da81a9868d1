"""Exact verification of VNN-LIB properties on layered nets: convolutions, ReLUs, max pooling.

A layered net (:mod:`symrel.models.layered`) is a list of operators: sparse affine maps,
ReLUs and maxima over groups of entries. The modules, from the bottom up:

* :mod:`.ops` -- one module per operator (:mod:`.ops.affine`, :mod:`.ops.relu`,
  :mod:`.ops.max_groups`), each with its exact transfer functions (interval bounds, the
  states of its relaxation, the backward substitution) and their float counterparts;
* :mod:`.network` -- the net in integer form (exact) and in scipy.sparse (floats);
* :mod:`.bounds` -- the exact bounds of a node: the facts a leaf of a certificate rests on,
  the computation the trusted checker repeats (:mod:`symrel.checking.vnnlib_layered`);
* :mod:`.floatbounds`, :mod:`.lp` -- float CROWN bounds, split scores, and the LP over the
  relaxed net whose duals propose a close's multipliers and lines: proposals only;
* :mod:`.attack`, :mod:`.region` -- counterexamples: PGD with restarts, then the linear region
  of a refuted point, confirmed by exact evaluation;
* :mod:`.problem` (the property prepared once), :mod:`.node` (the records: nodes, splits,
  outcomes, tree entries), :mod:`.worker` (the work on one node), :mod:`.search` (the driver:
  rounds of nodes on any executor, budgets, the verdict), :mod:`.certificate` (the writer);
* :mod:`.dispatch` -- :func:`~.dispatch.decide_any`, the one function ``symrel verify``
  calls: a ReLU net to :mod:`symrel.vnnlib.engine`, a layered or maxout net here.

A new operator is one module in :mod:`.ops` (and its counterpart in the checker), plus its
case in :mod:`.bounds` and :mod:`.floatbounds`.
"""
