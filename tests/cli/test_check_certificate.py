"""``symrel check-certificate`` (issue 29): exit 2 and one line for any malformed value (the
file, the JSON path, what was expected), long numbers shortened, no Python class names, no
option it does not accept; it prints the statement the checker derives, never the free text."""

import json
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "checking" / "golden" / "valid"


def golden(name: str) -> dict:
    return json.loads((GOLDEN / f"{name}.json").read_text())


def write(tmp_path, cert, name="c.json") -> Path:
    path = tmp_path / name
    path.write_text(cert if isinstance(cert, str) else json.dumps(cert))
    return path


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Error" not in lines[0] and "Traceback" not in lines[0], lines[0]  # no InputError, LimitError, ...
    return lines[0]


def test_a_genuine_certificate_prints_the_derived_statement(run_cli, tmp_path):
    cert = golden("equivalence-cpwl")
    cert["claim"].pop("statement")  # the free text is optional: what is printed is derived
    code, out, err = run_cli("check-certificate", write(tmp_path, cert))
    assert code == 0, err
    first = out.splitlines()[0]
    assert first.startswith("claim (equivalence): for all x in D, A(x) = B(x)") and "D is [0, 1]" in first
    assert out.split()[-1] == "checked"


def test_an_edited_statement_is_rejected(run_cli, tmp_path):
    cert = golden("equivalence-cpwl")
    cert["claim"]["statement"] = cert["claim"]["statement"].replace("[0, 1]", "[-1, 1]")
    code, out, err = run_cli("check-certificate", write(tmp_path, cert))
    assert code == 1 and out.strip() == "rejected"
    assert "claim.statement" in one_line(err) and str(tmp_path / "c.json") in err


def test_the_json_summary_holds_the_derived_statement(run_cli, tmp_path):
    cert = golden("utility")
    code, out, _ = run_cli("check-certificate", write(tmp_path, cert), "--json")
    summary = json.loads(out)
    assert code == 0 and summary["result"] == "checked" and summary["statement"] == cert["claim"]["statement"]


@pytest.mark.parametrize("edit, path", [
    (lambda c: c.__setitem__("symrel", True), "symrel"),
    (lambda c: c["claim"].__setitem__("extra", 1), "claim.extra"),
    (lambda c: c["steps"][0].__setitem__("weight", 1), "steps[0].weight"),
    (lambda c: c["steps"][0]["certificate"].__setitem__("weight", 1), "steps[0].certificate.weight"),
    (lambda c: c["steps"][0].__setitem__("status", 1), "steps[0].status"),
    (lambda c: c["inputs"]["preorder"].__setitem__("sha256", None), "inputs.preorder.sha256"),
])
def test_a_malformed_frame_exits_2_with_file_and_path(run_cli, tmp_path, edit, path):
    cert = golden("utility")
    edit(cert)
    code, _, err = run_cli("check-certificate", write(tmp_path, cert))
    line = one_line(err)
    assert code == 2 and f"{tmp_path / 'c.json'}: {path}" in line and "expected" in line


def test_malformed_data_inside_a_step_exits_2_not_1(run_cli, tmp_path):
    """A rule's check that meets a Python error on the step's data (here a missing key) says
    so in words, exit 2, naming the step; the generic path every claim kind goes through."""
    from symrel.checking import CLAIM_KINDS, at_step, claim_checker

    def check(cert, inputs):
        at_step(0)
        return cert["steps"][0]["certificate"]["bound"] + 1

    claim_checker("test-malformed-step", rules={"test-rule"})(check)
    try:
        cert = {"symrel": 1, "kind": "certificate", "claim": {"kind": "test-malformed-step"}, "inputs": {},
                "steps": [{"rule": "test-rule", "status": "proved", "certificate": {}}]}
        code, _, err = run_cli("check-certificate", write(tmp_path, cert))
        line = one_line(err)
        assert code == 2 and "steps[0].certificate (test-rule): expected a key 'bound'" in line
        cert["steps"][0]["certificate"]["bound"] = "x"
        code, _, err = run_cli("check-certificate", write(tmp_path, cert))
        assert code == 2 and "expected a value of another type" in one_line(err)
    finally:
        CLAIM_KINDS.pop("test-malformed-step", None)


def test_a_json_float_in_a_step_names_no_option_the_command_lacks(run_cli, tmp_path):
    cert = golden("softmax-bound")
    text = json.dumps(cert).replace('"eps": "1/10"', '"eps": 0.1')
    code, _, err = run_cli("check-certificate", write(tmp_path, text))
    line = one_line(err)
    assert code == 2 and "JSON float" in line and "--exact-floats" not in line


def test_a_long_number_is_shortened(run_cli, tmp_path):
    cert = golden("softmax-bound")
    cert["claim"]["lambda"] = "7" * 20_000
    code, _, err = run_cli("check-certificate", write(tmp_path, cert))
    line = one_line(err)
    assert code == 2 and "claim.lambda" in line and "digit limit" in line and len(line) < 400
    cert["claim"]["lambda"] = "7" * 5_000  # within the limits: rejected, and the echo is short
    code, _, err = run_cli("check-certificate", write(tmp_path, cert))
    assert code == 1 and "7" * 30 not in err and "digits)" in err and len(err) < 1000


def test_a_limit_of_the_reader_is_named(run_cli, tmp_path):
    code, _, err = run_cli("check-certificate", write(tmp_path, "[" * 100 + "]" * 100))
    assert code == 2 and "depth limit" in one_line(err)
    code, _, err = run_cli("check-certificate", write(tmp_path, '{"a": ' + "1" * 200_000 + "}"))
    assert code == 2 and "digit limit" in one_line(err)


VNN_PROP = """; box [0,1]^2, unsafe when Y_0 >= 2 (never: Y_0 <= 1 on the box)
(declare-const X_0 Real)
(declare-const X_1 Real)
(declare-const Y_0 Real)
(declare-const Y_1 Real)
(assert (>= X_0 0)) (assert (<= X_0 1))
(assert (>= X_1 0)) (assert (<= X_1 1))
(assert (>= Y_0 2))
"""


@pytest.fixture
def vnn_files(tmp_path, run_cli):
    """A vnnlib-unsat certificate written by ``symrel verify``, with its network and property."""
    from symrel.fileformat import save
    from symrel.models import DenseLayer, ReLUNet

    net = ReLUNet(2, [DenseLayer([[1, -1], [0, 1]], [0, 0]), DenseLayer([[1, 0], [0, 1]], [0, 0], "none")])
    save(net, tmp_path / "net.json")
    (tmp_path / "prop.vnnlib").write_text(VNN_PROP)
    code, out, err = run_cli("verify", tmp_path / "net.json", tmp_path / "prop.vnnlib", "--certificate",
                             tmp_path / "cert.json")
    assert code == 0 and "unsat" in out, err
    return tmp_path / "cert.json", tmp_path / "net.json", tmp_path / "prop.vnnlib"


def test_input_binds_the_vnnlib_property_and_the_network(run_cli, vnn_files, tmp_path):
    cert, net, prop = vnn_files
    code, out, err = run_cli("check-certificate", cert)
    assert code == 0 and "not bound: the property was not read from a file" in out, err
    code, out, err = run_cli("check-certificate", cert, "--input", f"property={prop}", "--input", f"network={net}")
    assert code == 0 and out.split()[-1] == "checked", err
    assert "bound: the property is the file" in out and "bound: input 'network' is the file" in out
    assert "not bound" not in out
    # another file (one byte more): its sha256 is not the claim's
    other = tmp_path / "other.vnnlib"
    other.write_text(VNN_PROP + "\n")
    code, out, err = run_cli("check-certificate", cert, "--input", f"property={other}")
    assert code == 1 and "claim.property_sha256" in err
    # the claim's property edited (a weaker unsafe side, Y_0 >= 3, which the proof still closes), the sha256 kept
    edited = json.loads(cert.read_text())
    edited["claim"]["property"]["unsafe"][0][0]["rhs"] = "-3"
    edited["claim"].pop("statement", None)
    code, _, err = run_cli("check-certificate", write(tmp_path, edited, "edited.json"))
    assert code == 0, err                       # a true claim about some property...
    code, _, err = run_cli("check-certificate", write(tmp_path, edited, "edited.json"), "--input", f"property={prop}")
    assert code == 1 and "claim.property.unsafe[0]" in err   # ...but not about this file's
    # another network, and names or values the command refuses
    from symrel.fileformat import save
    from symrel.models import DenseLayer, ReLUNet

    save(ReLUNet(2, [DenseLayer([[1, 1]], [0], "none")]), tmp_path / "net2.json")
    code, _, err = run_cli("check-certificate", cert, "--input", f"network={tmp_path / 'net2.json'}")
    assert code == 1 and "claim.network_file.sha256" in err   # not the bytes verify read
    older = json.loads(cert.read_text())   # a certificate that records no file: the object read is compared
    older["claim"].pop("network_file")
    code, _, err = run_cli("check-certificate", write(tmp_path, older, "older.json"), "--input",
                           f"network={tmp_path / 'net2.json'}")
    assert code == 1 and "inputs.network.sha256" in err
    for bad in ("nosuch=x.json", "network", f"network={net}"):
        extra = ["--input", f"network={net}"] if bad == f"network={net}" else []
        code, _, err = run_cli("check-certificate", cert, "--input", bad, *extra)
        assert code == 2 and "--input" in one_line(err), err
