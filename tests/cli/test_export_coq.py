"""symrel export-coq: writes the Coq folder of an equivalence certificate (exit 0), refuses
anything else with exit 2 and no folder."""

import json

from tests.interop.test_coq import BOX, MAXOUT, certificate, compiled


def test_export_writes_the_folder(run_cli, tmp_path):
    cert = tmp_path / "c.json"
    cert.write_text(json.dumps(certificate(MAXOUT, compiled(MAXOUT, BOX), BOX)))
    code, out, err = run_cli("export-coq", cert, "-o", tmp_path / "coq", "--json")
    assert code == 0, err
    files = json.loads(out)["files"]
    assert files == ["Semantics.v", "Sparse.v", "Compiler.v", "Bounds.v", "Correctness.v", "Linalg.v", "Blocks.v", "Move.v", "Embed.v",
                     "Assembly.v", "Gating.v", "MaxBlock.v", "Relu.v", "Theorems.v", "Instance.v", "_CoqProject"]
    text = (tmp_path / "coq" / "Instance.v").read_text()
    assert "Lemma transformer_is_compiled : transformer = compile net Bs." in text
    assert "Definition box : Box := [((-1#2), 1); (0, 2)]." in text


def test_a_non_equivalence_certificate_is_refused(run_cli, tmp_path):
    cert = tmp_path / "c.json"
    cert.write_text(json.dumps({"claim": {"kind": "softmax-bound"}, "inputs": {}}))
    code, out, err = run_cli("export-coq", cert, "-o", tmp_path / "coq")
    assert code == 2
    assert "c.json" in err and "claim.kind" in err and "equivalence" in err
    assert not (tmp_path / "coq").exists()
