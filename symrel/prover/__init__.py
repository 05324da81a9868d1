"""The layer-by-layer exact prover of "for all x in D, A(x) = B(x)" (docs/theory.md#maxout-layer--three-transformer-blocks-theorems-31-and-32 and docs/theory.md#proofs-and-certificates).

:func:`prove_equivalence` executes both models symbolically over the domain, one lemma
per layer or block, with named rules (relu-fixed-sign, relu-pair-identity,
hardmax-max-head, hardmax-argmax-set, drop-dominated, linear-identity), and compares
the outputs coefficient by coefficient; on failure it looks for an exact
counterexample. Certificates are re-checked by :mod:`symrel.checking.equivalence`.
"""

from .equivalence import prove_equivalence

__all__ = ["prove_equivalence"]
