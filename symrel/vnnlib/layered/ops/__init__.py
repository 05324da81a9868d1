"""One module per operator of a layered net, each with its exact transfer functions (bounds,
states, backward substitution) and their float counterparts: :mod:`~symrel.vnnlib.layered.ops.affine`, :mod:`~symrel.vnnlib.layered.ops.relu`,
:mod:`~symrel.vnnlib.layered.ops.max_groups`. The trusted checker has its own counterpart of each
(:mod:`symrel.checking.vnnlib_layered`)."""
