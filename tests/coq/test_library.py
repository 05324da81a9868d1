"""The Coq library symrel/coq builds (coqc, file by file: the session's coq_library
fixture; tests/interop/test_coq.py builds an exported folder with coq_makefile and make),
and every theorem it proves is closed (Print Assumptions). Skipped without coqc."""

import shutil

import pytest

from symrel.interop.coq import LIBRARY, LIBRARY_DIR, print_assumptions

pytestmark = pytest.mark.skipif(shutil.which("coqc") is None,
                                reason="coqc is not installed")


@pytest.fixture
def built(coq_library):
    return coq_library


def test_library_builds(built):
    for name in LIBRARY:
        assert (built / name).with_suffix(".vo").is_file()


def test_no_admitted_or_axiom_in_the_library():
    for name in LIBRARY:
        text = (LIBRARY_DIR / name).read_text()
        for word in ("Admitted", "admit", "Axiom", "Parameter", "Hypothesis", "Variable"):
            assert word not in text, f"{name} contains {word}"


PROVED = ["Bounds.certify_sound", "Blocks.hardmax_value_is_score", "Move.move_lemma_proof",
          "Embed.embed_lemma_proof", "Embed.readout_lemma_proof", "Assembly.compile_correct_from_blocks",
          "Assembly.compile_relu_correct_from_blocks", "Gating.gating_lemma_proof",
          "Gating.compile_correct_from_open", "Gating.compile_relu_correct_from_open", "MaxBlock.max_lemma_proof",
          "Theorems.compile_correct_proof", "Theorems.compile_relu_correct_from_relu_lemma",
          "Relu.compose_correct", "Relu.relu_layers_correct", "Relu.relu_to_maxout_lemma_proof",
          "Theorems.compile_relu_correct_proof", "Sparse.dense_row_spec", "Sparse.entry_spec"]


@pytest.mark.parametrize("theorem", PROVED)
def test_proved_lemmas_are_closed(built, theorem):
    assert print_assumptions(built, theorem) == "Closed under the global context"


def test_statements_are_closed(built):
    # definitions of the statements: no assumption behind them either
    for name in ("Correctness.compile_correct", "Correctness.compile_relu_correct", "Compiler.certify",
                 "Correctness.relu_to_maxout_lemma",
                 "Correctness.gating_lemma", "Correctness.max_lemma", "Correctness.move_lemma"):
        assert print_assumptions(built, name) == "Closed under the global context"


def test_the_docs_give_the_trusted_line_count():
    from pathlib import Path

    lines = len((LIBRARY_DIR / "Semantics.v").read_text().splitlines())
    docs = (Path(__file__).resolve().parents[2] / "docs" / "coq.md").read_text()
    assert f"**`Semantics.v` ({lines} lines)**" in docs
    sparse = len((LIBRARY_DIR / "Sparse.v").read_text().splitlines())
    assert f"**`Sparse.v`\n  ({sparse} lines)**" in docs or f"**`Sparse.v` ({sparse} lines)**" in docs
