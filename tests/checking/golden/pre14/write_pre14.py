"""Wrote the certificates of tests/checking/golden/pre14 with the code of commit 23e6b14,
before issue #14's refactor (kept fixed: they stand for certificates users wrote then).
They lack records added later: the lattice form of a CPWL function (equivalence-cpwl)
and the ReLU pairing of a feed-forward sublayer (softmax-bound); the checker derives
these itself. To write them again: ``git worktree add /tmp/old 23e6b14`` and
``PYTHONPATH=/tmp/old python tests/checking/golden/pre14/write_pre14.py tests/checking/golden/pre14``.
"""

import sys
from pathlib import Path


def main(out):
    from symrel.certificates.io import certificate_of
    from symrel.compiler import compile_model
    from symrel.exact import rational
    from symrel.fileformat import canonical_dumps
    from symrel.models import Box, CPWL1D, MaxoutLayer, MaxoutNet, MaxoutUnit
    from symrel.constructions import cpwl_to_maxout
    from symrel.prover import prove_equivalence
    from symrel.softmax import lambda_min

    tent = CPWL1D([0, "1/2", 1], [0, 1, 0])
    cpwl = certificate_of(prove_equivalence(tent, cpwl_to_maxout(tent), Box([(0, 1)])))
    (Path(out) / "equivalence-cpwl.json").write_text(canonical_dumps(cpwl))
    unit = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [0]], [0, 0])])])   # max(x, 0)
    box = Box([(-1, 1)])
    soft = lambda_min(compile_model(unit, box).transformer, box, rational("1/10")).certificate()
    (Path(out) / "softmax-bound.json").write_text(canonical_dumps(soft))


if __name__ == "__main__":
    main(sys.argv[1])
