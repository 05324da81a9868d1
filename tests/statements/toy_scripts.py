"""A tiny folder of proof scripts: one that proves, one whose instance is refuted, one that crashes."""

import textwrap

import pytest

GOOD = '''
from symrel.certificates import Proof, Step, PROVED
from symrel.report import Statement, Instance

STATEMENT = Statement("toy-good", "A", "Toy 1", "max(x, 0) = x on [0, k]", "paper", "symrel", "narrowing")

def run():
    for k in (1, 2):
        p = Proof(f"for all x in [0,{k}]: max(x, 0) = x", construction="toy construction")
        p.add(Step(f"x >= 0 on [0,{k}]", "affine-bound-box", {"lower": 0, "upper": k}, PROVED))
        yield Instance(f"k={k}", p, facts={"k": k})
'''

REFUTED = '''
from symrel.certificates import Proof, Step, REFUTED

from symrel.report import Statement
STATEMENT = Statement("toy-refuted", "B", "Toy 2", "max(x, 0) = x on [-1, 1]", "paper", "symrel", "narrowing")

def run():
    p = Proof("for all x in [-1,1]: max(x, 0) = x")
    p.add(Step("x >= 0 on [-1,1]", "affine-bound-box", {"lower": -1}, REFUTED, note="lower bound -1 < 0"))
    p.refute(["-1/2"], "max(-1/2, 0) = 0 differs from -1/2")
    return [("x in [-1,1]", p)]
'''

CRASH = '''
from symrel.report import Statement
STATEMENT = Statement("toy-crash", "A", "Toy 3", "crashes", "paper", "symrel", "narrowing")

def run():
    raise ValueError("a prover is missing")
'''


@pytest.fixture
def script_dir(tmp_path):
    d = tmp_path / "scripts"
    d.mkdir()
    (d / "a_good.py").write_text(textwrap.dedent(GOOD))
    (d / "b_refuted.py").write_text(textwrap.dedent(REFUTED))
    (d / "c_crash.py").write_text(textwrap.dedent(CRASH))
    (d / "_helper.py").write_text("raise RuntimeError('never imported')\n")
    return d


@pytest.fixture
def good_dir(script_dir):
    for name in ("b_refuted.py", "c_crash.py"):
        (script_dir / name).unlink()
    return script_dir
