"""The limits of the ``vnnlib-unsat`` checks, and the numbers of a relaxation they bound.

Shared by the checks of ReLU nets (:mod:`symrel.checking.relu_leaves`) and of layered nets
(:mod:`symrel.checking.vnnlib_layered`), and read by the engines so that they never write a
certificate beyond them (docs/format.md, "vnnlib-unsat", "Limits").

>>> str(relaxation_number("3/4", "alpha"))
'3/4'
"""

from __future__ import annotations

from . import beyond_limit
from .read import rational

#: most tree entries (splits and leaves) of a certificate, over all steps
MAX_TREE_ENTRIES = 2_000_000
#: most atoms of the property (input and unsafe sides together)
MAX_ATOMS = 100_000
#: most bits of the numerator and of the denominator of a relaxation's alpha, s or t (the
#: backward bounds multiply a layer's denominators together)
MAX_RELAXATION_BITS = 512
#: most operations of the leaves together: a leaf's forward forms cost about (weights) x
#: (inputs + 1) products, and each of its closes one backward pass over the weights, so a
#: few kilobytes of leaves over a large network would otherwise buy hours (ACAS Xu: about
#: 91,000 a leaf, so some 22,000 leaves and minutes of checking: ACAS Xu 3_3 prop_2 needs
#: 10,386 leaves, checked in about 200 s)
MAX_LEAF_OPERATIONS = 2_000_000_000
#: fractional bits of a relaxation's slopes, and of the rounded lower bound behind its intercept
SLOPE_BITS, BOUND_BITS = 16, 24


def relaxation_number(value, where):
    """An exact rational of a relaxation, a slope or a beta, whose numerator and denominator
    have at most ``MAX_RELAXATION_BITS`` bits (else the limit ``relaxation bits``)."""
    v = rational(value, where)
    bits = max(int(v.numerator).bit_length(), int(v.denominator).bit_length())
    if bits > MAX_RELAXATION_BITS:
        raise beyond_limit("relaxation bits", bits, MAX_RELAXATION_BITS, where)
    return v
