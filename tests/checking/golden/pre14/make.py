"""Wrote the certificates of tests/checking/golden/pre14 with the code of commit 23e6b14,
before issue #14's refactor (kept fixed: they stand for certificates users wrote then).
They lack records later added: the lattice form of a CPWL function (equivalence-cpwl)
and the ReLU pairing of a feed-forward sublayer (softmax-bound); the checker derives
these itself. To write them again: ``git worktree add /tmp/old 23e6b14`` and
``PYTHONPATH=/tmp/old python tests/checking/golden/pre14/make.py tests/checking/golden/pre14``.
"""
import json, sys
from symrel.certificates.io import certificate_of
from symrel.compiler import compile_model
from symrel.exact import rational
from symrel.fileformat import canonical_dumps
from symrel.models import Box, CPWL1D, MaxoutNet, MaxoutLayer, MaxoutUnit, cpwl_to_maxout
from symrel.prover import prove_equivalence
from symrel.softmax import lambda_min
out = sys.argv[1]
tent = CPWL1D([0, "1/2", 1], [0, 1, 0])
c = certificate_of(prove_equivalence(tent, cpwl_to_maxout(tent), Box([(0, 1)])))
open(out + "/equivalence-cpwl.json", "w").write(canonical_dumps(c))
unit = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [0]], [0, 0])])])
box = Box([(-1, 1)])
s = lambda_min(compile_model(unit, box).transformer, box, rational("1/10")).certificate()
open(out + "/softmax-bound.json", "w").write(canonical_dumps(s))
