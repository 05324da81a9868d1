"""Exact verification of VNN-LIB properties on layered nets: convolutions, ReLUs, max pooling.

A layered net (:mod:`symrel.models.layered`) is a list of operators: sparse affine maps,
ReLUs and maxima over groups of entries. The modules, from the bottom up:

* :mod:`~symrel.vnnlib.layered.ops` -- one module per operator (:mod:`~symrel.vnnlib.layered.ops.affine`, :mod:`~symrel.vnnlib.layered.ops.relu`,
  :mod:`~symrel.vnnlib.layered.ops.max_groups`), each with its exact transfer functions (interval bounds, the
  states of its relaxation, the backward substitution) and their float counterparts;
* :mod:`~symrel.vnnlib.layered.network` -- the net in integer form (exact) and in scipy.sparse (floats);
* :mod:`~symrel.vnnlib.layered.bounds` -- the exact bounds of a node: the facts a leaf of a certificate rests on,
  the computation the trusted checker repeats (:mod:`symrel.checking.vnnlib_layered`);
* :mod:`~symrel.vnnlib.layered.floatbounds`, :mod:`~symrel.vnnlib.layered.lp` -- float CROWN bounds, split scores, and the LP over the
  relaxed net whose duals propose a close's multipliers and lines: proposals only;
* :mod:`~symrel.vnnlib.layered.attack`, :mod:`~symrel.vnnlib.layered.region` -- counterexamples: PGD with restarts, then the linear region
  of a refuted point, confirmed by exact evaluation;
* :mod:`~symrel.vnnlib.layered.problem` (the property prepared once), :mod:`~symrel.vnnlib.layered.node` (the records: nodes, splits,
  outcomes, tree entries), :mod:`~symrel.vnnlib.layered.worker` (the work on one node), :mod:`~symrel.vnnlib.layered.search` (the driver:
  rounds of nodes on any executor, budgets, the verdict), :mod:`~symrel.vnnlib.layered.certificate` (the writer);
* :mod:`~symrel.vnnlib.layered.dispatch` -- :func:`~symrel.vnnlib.layered.dispatch.decide_any`, the one function ``symrel verify``
  calls: a ReLU net to :mod:`symrel.vnnlib.engine`, a layered or maxout net here.

A new operator is one module in :mod:`~symrel.vnnlib.layered.ops` (and its counterpart in the checker), plus its
case in :mod:`~symrel.vnnlib.layered.bounds` and :mod:`~symrel.vnnlib.layered.floatbounds`.
"""
