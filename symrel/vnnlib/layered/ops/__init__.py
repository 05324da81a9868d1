"""One module per operator of a layered net, each with its exact transfer functions (bounds,
states, backward substitution) and their float counterparts: :mod:`.affine`, :mod:`.relu`,
:mod:`.max_groups`. The trusted checker has its own counterpart of each
(:mod:`symrel.checking.vnnlib_layered`)."""
