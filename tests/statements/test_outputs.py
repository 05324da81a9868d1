"""Certificates written by the runner (``--format json``): re-checked, tamper-probed,
counterexamples of controls written as points files."""

import json
import textwrap

import pytest

from symrel.checking import CertificateError
from symrel.mutation.tamper import altered
from symrel.statements import run_all
from symrel.statements.outputs import probe

CHECKERS = '''
from symrel.checking import CertificateError, claim_checker
from symrel.exact import rational

@claim_checker("toy-bound", rules={"affine-bound-box"})
def _strict(cert, inputs):
    """The lower end of the box, recomputed and compared exactly."""
    lo = inputs["domain"].exact_bounds[0][0]  # the checker's own box (symrel.checking.domains)
    if rational(cert["steps"][0]["certificate"]["lower"]) != lo:
        raise CertificateError("steps[0].certificate.lower: does not match the box")

@claim_checker("toy-lax", rules={"affine-bound-box"})
def _lax(cert, inputs):
    """A checker that recomputes nothing (what the tamper probe must catch)."""
'''

TOY_KINDS = ("toy-bound", "toy-lax")

SCRIPT = '''
from symrel.models import Box
from symrel.certificates import Proof, Step, PROVED
from symrel.report import Statement, Instance
{checkers}
STATEMENT = Statement("{key}", "A", "Toy", "x >= lower on a box", "paper", "symrel", "narrowing")

def run():
    p = Proof("for all x in [-1, 1]: x >= -1", claim_data={{"kind": "{kind}"}}, inputs={{"domain": Box.cube(1)}})
    p.add(Step("x >= -1 on [-1, 1]", "affine-bound-box", {{"lower": "{lower}"}}, PROVED))
    yield Instance("the box [-1, 1]", p)
    q = Proof("for all x in [-1, 1]: x >= 0")
    q.add(Step("x >= 0 on [-1, 1]", "affine-bound-box", {{"lower": -1}}, "refuted"))
    q.refute(["-1/2"], "-1/2 < 0")
    yield Instance("control: a false bound", q, expect="refuted")
'''


@pytest.fixture
def toy_claim_kinds():
    """The scripts below register the toy claim kinds in symrel.checking's global registry;
    take them out again afterwards (restoring whatever was there), so no later test (the
    checker's golden and independence tests) sees them. Kinds the run registers by importing
    symrel's own checker modules stay: those modules are imported once per process."""
    from symrel.checking import CLAIM_KINDS

    kept = {kind: CLAIM_KINDS[kind] for kind in TOY_KINDS if kind in CLAIM_KINDS}
    yield
    for kind in TOY_KINDS:
        CLAIM_KINDS.pop(kind, None)
    CLAIM_KINDS.update(kept)


def _write(folder, name, kind, lower):
    text = SCRIPT.format(checkers=CHECKERS, key=name.replace("_", "-"), kind=kind, lower=lower)
    (folder / f"{name}.py").write_text(textwrap.dedent(text))


def test_certificates_checked_probed_and_written(tmp_path, toy_claim_kinds):
    scripts = tmp_path / "s"
    scripts.mkdir()
    _write(scripts, "a_strict", "toy-bound", "-1")
    _write(scripts, "b_lax", "toy-lax", "-1")
    _write(scripts, "c_wrong", "toy-bound", "-2")
    out = tmp_path / "o"
    summaries, _ = run_all(scripts, out, ["md", "json"], progress=False)
    assert [(s.statement.key, s.result) for s in summaries] == [
        ("a-strict", "proved"), ("b-lax", "altered certificate accepted"), ("c-wrong", "certificate rejected")]
    cert = json.loads((out / "a-strict" / "the-box-1-1.json").read_text())
    assert cert["kind"] == "certificate" and cert["inputs"]["domain"]["object"]["kind"] == "box"
    points = json.loads((out / "a-strict" / "control-a-false-bound.counterexample.json").read_text())
    assert points == {"symrel": 1, "kind": "points", "x": [["-1/2"]]}
    assert "steps[0].certificate.lower + 1/10^6 was accepted too" in (out / "b-lax.md").read_text()
    assert "does not match the box" in (out / "c-wrong.md").read_text()
    assert "[1 certificate](a-strict/)" in (out / "index.md").read_text()


def test_the_toy_claim_kinds_are_gone_after_their_test():
    from symrel.checking import CLAIM_KINDS

    assert not set(TOY_KINDS) & set(CLAIM_KINDS)


def test_probe_reports_a_lax_checker():
    cert = {"claim": {"kind": "k"}, "steps": [{"certificate": {"lower": "-1/2", "v": [0, "3/4"]}}]}

    def strict(c):
        if c != cert:
            raise CertificateError("changed")

    path, rejected = probe(cert, strict)
    assert rejected and path.startswith("steps")
    assert probe(cert, lambda c: None)[1] is False
    with pytest.raises(CertificateError):
        strict(altered(cert, path))
