"""symrel.interop.coq_layered: vnnlib-unsat certificates of layered nets (sparse affine ops, ReLU,
max over groups) replayed by Coq's kernel (LayeredCheck.v's checker, LayeredSound.v's theorem).
Honest certificates replay; tampered ones (a bound, a max split's parts or a close's piece
moved, a multiplier changed, a line pushed below the ReLU, an empty leaf claimed where the part
is not empty) are refused by the Python checker and by coqc. The library is built once per
module; each instance is one coqc run of Instance.v. The replays need coqc (skipped without
it); the refusals of malformed input do not."""

import copy
import json
import os
import shutil
import subprocess
from fractions import Fraction

import pytest

from symrel.errors import InputError
from symrel.interop.coq import LIBRARY_DIR, LOGICAL, print_assumptions
from symrel.interop.coq_layered import LAYERED_LIBRARY, instance_text
from symrel.interop.coq_vnnlib import export_vnnlib_coq as export_coq

pytest.importorskip("scipy")    # the layered engine writes the certificates

from tests.checking.test_vnnlib_layered import CASES, _make  # noqa: E402

needs_coqc = pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc is not installed")


@pytest.fixture(scope="module")
def certs():
    """The checker's test certificates of random layered nets: together they use every kind of
    tree entry (input, ReLU and max splits, splits by unsafe disjunct, empty leaves) and every
    key of a close (beta, lambda, alpha, piece, hull) and of a leaf (refine)."""
    return {case: _make(*case) for case in CASES}


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    folder = tmp_path_factory.mktemp("layered-coq")
    for name in LAYERED_LIBRARY:
        shutil.copy(LIBRARY_DIR / name, folder / name)
        r = subprocess.run(["coqc", "-R", ".", LOGICAL, name], cwd=folder, capture_output=True, text=True,
                           timeout=1200)
        assert r.returncode == 0, r.stdout + r.stderr
    return folder


def replayed(library, tmp_path, cert) -> subprocess.CompletedProcess:
    """coqc on the certificate's Instance.v against the built library."""
    shutil.copytree(library, tmp_path, dirs_exist_ok=True)
    (tmp_path / "Instance.v").write_text(instance_text(cert))
    return subprocess.run(["coqc", "-R", ".", LOGICAL, "Instance.v"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=1200)


def tree(c):
    return c["steps"][0]["certificate"]["tree"]


@needs_coqc
def test_the_checker_is_proved_sound_with_no_assumption(library):
    assert print_assumptions(library, "LayeredSound.check_layered_sound") == "Closed under the global context"
    assert print_assumptions(library, "Layered.layered_unsat") == "Closed under the global context"


@needs_coqc
@pytest.mark.parametrize("case", CASES, ids=[f"{s}-{w}" for s, w in CASES])
def test_a_layered_certificate_replays_and_its_claim_is_closed(library, tmp_path, certs, case):
    r = replayed(library, tmp_path, certs[case])
    assert r.returncode == 0, r.stdout + r.stderr
    assert print_assumptions(tmp_path, "Instance.claim") == "Closed under the global context"
    text = (tmp_path / "Instance.v").read_text()
    assert "Theorem claim : layered_unsat net prop." in text
    assert "Proof. exact (check_layered_sound net prop steps checked). Qed." in text


def rejected_by_coqc(library, tmp_path, bad, words="") -> None:
    """The Python checker refuses ``bad`` (with ``words``), and coqc rejects its Instance.v at
    the proof of ``checked`` (the kernel's VM computes the check false), not elsewhere."""
    from symrel.checking import CertificateError, check_certificate

    with pytest.raises(CertificateError) as err:            # the Python checker refuses it too
        check_certificate(copy.deepcopy(bad))
    assert words in str(err.value), str(err.value)
    r = replayed(library, tmp_path, bad)
    lines = (tmp_path / "Instance.v").read_text().splitlines()
    proof = lines.index("Lemma checked : check_layered net prop steps = true.") + 2   # the proof's line, 1-based
    assert lines[proof - 1] == "Proof. vm_cast_no_check (eq_refl true). Qed."
    assert r.returncode != 0 and f'line {proof},' in r.stderr and \
        'while it is expected to have type\n "check_layered net prop steps = true"' in r.stderr, r.stdout + r.stderr


def _bound_moved(c):            # 28-2: the leaf after the ReLU split's first input split
    close = tree(c)[4]["leaf"]["closes"][0]
    close["bound"] = str(Fraction(close["bound"]) + Fraction(1, 1024))


def _max_parts_swapped(c):      # 28-2: group [2, 3, 4] of op 2; its first part empty, its last a leaf
    t = tree(c)
    assert t[0] == {"max": [2, 1]} and "empty" in t[1]["leaf"] and "closes" in t[7]["leaf"], t
    t[1], t[7] = t[7], t[1]


def _piece_moved(c):            # 28-2: the close's lower piece of group 0 of op 2, position 1 -> 0
    close = tree(c)[5]["leaf"]["closes"][0]
    assert close["piece"] == [[2, 0, 1]], close
    close["piece"] = [[2, 0, 0]]


def _empty_claimed(c):          # 28-2: a leaf whose part holds points said empty
    tree(c)[6] = {"leaf": {"empty": {"op": 2, "group": 1}}}


@needs_coqc
@pytest.mark.parametrize("tamper, words", [(_bound_moved, "recomputed"), (_max_parts_swapped, ""),
                                           (_piece_moved, ""), (_empty_claimed, "")])
def test_a_tampered_max_split_or_bound_is_rejected_by_coqc(library, tmp_path, certs, tamper, words):
    bad = copy.deepcopy(certs[(28, 2)])
    tamper(bad)
    rejected_by_coqc(library, tmp_path, bad, words)


def _lambda_changed(c):         # 228-1: a max split's multiplier
    lam = tree(c)[2]["leaf"]["closes"][0]["lambda"][0]
    lam[1] = str(Fraction(lam[1]) + 1)


def _line_below_relu(c):        # 30-0: a close's line over the pixels of the affine op below, lowered
    hull = tree(c)[0]["leaf"]["closes"][0]["hull"][0]
    hull[3] = str(Fraction(hull[3]) - 10)


def _refine_dropped(c):         # 41-2: a leaf's refined entries, without which its ReLUs' lines differ
    del tree(c)[3]["leaf"]["refine"]


@needs_coqc
@pytest.mark.parametrize("case, tamper, words", [((228, 1), _lambda_changed, "recomputed"),
                                                 ((30, 0), _line_below_relu, "below ReLU"),
                                                 ((41, 2), _refine_dropped, "")])
def test_a_tampered_multiplier_line_or_refinement_is_rejected_by_coqc(library, tmp_path, certs, case, tamper, words):
    bad = copy.deepcopy(certs[case])
    tamper(bad)
    rejected_by_coqc(library, tmp_path, bad, words)


@needs_coqc
def test_an_empty_box_replays(library, tmp_path):
    """x0 <= -1 and x0 >= 1: the box [1, -1] is empty, its tree [{"empty": 0}]; Coq needs the
    atoms that give the box (the hints) and hi_0 < lo_0."""
    from symrel.checking import check_certificate
    from symrel.fileformat import sha256_of, to_json
    from symrel.models.layered import LayeredNet, Relu, SparseAffine

    obj = to_json(LayeredNet(1, [SparseAffine([[(0, 1)]], [0]), Relu(1), SparseAffine([[(0, 1)]], [0])]))
    prop = {"inputs": 1, "outputs": 1, "input_region": [[{"x": [1], "y": [0], "rhs": -1}, {"x": [-1], "y": [0], "rhs": -1}]],
            "unsafe": [[{"x": [0], "y": [-1], "rhs": 0}]]}
    c = {"symrel": 1, "kind": "certificate",
         "claim": {"kind": "vnnlib-unsat", "network_sha256": sha256_of(obj), "property_sha256": "0" * 64,
                   "property_source": "inline", "property": prop},
         "inputs": {"network": {"object": obj, "sha256": sha256_of(obj)}},
         "steps": [{"rule": "vnnlib-branch-and-bound", "status": "proved",
                    "certificate": {"disjunct": 0, "box": {"lower": [1], "upper": [-1]}, "tree": [{"empty": 0}]}}]}
    assert check_certificate(copy.deepcopy(c))["result"] in ("checked", "vacuous")
    r = replayed(library, tmp_path, c)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "(LEmpty 0%nat)" in (tmp_path / "Instance.v").read_text()


def test_export_writes_the_layered_library_and_instance(tmp_path, certs):
    names = [p.name for p in export_coq(certs[(28, 2)], tmp_path)]
    assert names == list(LAYERED_LIBRARY) + ["Instance.v", "_CoqProject"]
    text = (tmp_path / "Instance.v").read_text()
    assert "(LMSplit 2%nat 1%N (FCons (LLeaf [] None) " in text       # the max split, its empty part first
    assert "LMax (groups_of " in text and "LAffine " in text and "rows_of " in text


def test_a_convolution_is_written_as_one_pattern_per_channel():
    from symrel.fileformat import to_json
    from symrel.interop.coq_layered import coq_layered_net
    from symrel.models.layered import LayeredNet, MaxGroups, Relu, SparseAffine

    # a 2 x 2 convolution over a 4 x 4 image: 9 rows of one pattern (two runs of two columns)
    rows = [[(4 * i + j, "1/2"), (4 * i + j + 1, -1), (4 * i + j + 4, 3), (4 * i + j + 5, "1/4")]
            for i in range(3) for j in range(3)]
    net = LayeredNet(16, [SparseAffine(rows, ["1/8"] * 9), Relu(9), MaxGroups([[0, 1, 3, 4], [4, 5, 7, 8]])])
    text = coq_layered_net(net)
    # the 9 offsets 0, 1, 2, 4, 5, 6, 8, 9, 10 as three progressions of step 1
    assert "(LAffine 8 (rows_of [([(0%N, [4; (-8)]); (4%N, [24; 2])], [(0%N, 3%N, 1%N); (4%N, 3%N, 1%N); " \
           "(8%N, 3%N, 1%N)])]) (ints_of [(9%N, 1)]))" in text, text
    assert "(LMax (groups_of [([(0%N, 2%N); (3%N, 2%N)], [(0%N, 2%N, 4%N)])]))" in text, text
    assert to_json(net)["kind"] == "layered"


@pytest.mark.parametrize("edit, path", [
    (lambda c: tree(c).pop(), "steps[0].certificate.tree"),
    (lambda c: tree(c)[0].update(max=[1, 0]), "steps[0].certificate.tree[0].max[0]"),
    (lambda c: tree(c)[0].update(max=[2, 9]), "steps[0].certificate.tree[0].max[1]"),
    (lambda c: tree(c)[2].update(relu=[1]), "steps[0].certificate.tree[2].relu"),
    (lambda c: tree(c)[5]["leaf"]["closes"][0].update(alpha=[[1, "a", 2]]),
     "steps[0].certificate.tree[5].leaf.closes[0].alpha[0][1]"),
    (lambda c: tree(c)[5]["leaf"]["closes"][0].update(bound=0.5), "steps[0].certificate.tree[5].leaf.closes[0].bound"),
    (lambda c: tree(c)[5]["leaf"]["closes"][0].update(hull=[[1, 1]]),
     "steps[0].certificate.tree[5].leaf.closes[0].hull[0]"),
    (lambda c: tree(c)[5]["leaf"].update(refine=[[1, [-1]]]), "steps[0].certificate.tree[5].leaf.refine[0][1][0]"),
    (lambda c: c["claim"]["property"]["unsafe"][0][0].update(x=[]), "claim.property.unsafe[0][0]"),
    (lambda c: c["claim"]["property"]["input_region"][0][0].update(y=[1]), "claim.property.input_region[0][0].y"),
])
def test_a_malformed_layered_certificate_gets_a_message_and_no_file(tmp_path, certs, edit, path):
    bad = copy.deepcopy(certs[(28, 2)])
    edit(bad)
    with pytest.raises(InputError) as err:
        export_coq(bad, tmp_path / "out")
    assert err.value.path == path and not (tmp_path / "out").exists()


def test_no_admitted_or_axiom_in_the_layered_library():
    for name in LAYERED_LIBRARY:
        text = (LIBRARY_DIR / name).read_text()
        for word in ("Admitted", "admit", "Axiom", "Parameter", "Hypothesis", "Variable"):
            assert word not in text, f"{name} contains {word}"


@needs_coqc
def test_the_cli_exports_and_replays_a_layered_certificate(library, tmp_path, certs, run_cli, monkeypatch):
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(certs[(45, 2)]))
    code, out, err = run_cli("export-coq", path, "-o", tmp_path / "out")
    assert code == 0 and "Instance.v" in out and (tmp_path / "out" / "LayeredSound.v").is_file(), err
    monkeypatch.setenv("SYMREL_COQ_LIBRARY", os.fspath(library))   # the built library's .vo files reused
    code, out, err = run_cli("check-certificate", path, "--coq")
    assert code == 0, err
    assert "coq: check_layered net prop steps = true (vm_compute): checked" in out
    assert "coq: general theorem check_layered_sound (LayeredSound.v): proved in Coq" in out
    assert "coq: claim: Print Assumptions: Closed under the global context" in out


def test_the_docs_give_the_layered_files_and_the_theorem():
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "coq.md").read_text()
    for name in ("Layered.v", "LayeredData.v"):
        lines = len((LIBRARY_DIR / name).read_text().splitlines())
        assert f"**`{name}` ({lines} lines)**" in docs or f"**`{name}`\n({lines} lines)**" in docs, name
    theorem = "Theorem check_layered_sound : forall N P steps, check_layered N P steps = true -> layered_unsat N P."
    assert theorem in docs and theorem in (LIBRARY_DIR / "LayeredSound.v").read_text()


@needs_coqc
@pytest.mark.slow
def test_a_verivital_maxpool_certificate_replays(library, tmp_path):
    """VNN-COMP 2021 verivital, Convnet_maxpool with prop_0_0.004: a 2 x 2 convolution into 23,328
    ReLUs, 1,152 max groups of 16, a dense read-out; one leaf, nine closes. Coq's VM computes the
    leaf's bounds and the nine backward substitutions (about a minute of CPU in all)."""
    from tests.vnnlib.layered.verivital_nets import DATA, verivital_net

    if not (DATA / "Convnet_maxpool.onnx").exists():
        pytest.skip("the verivital benchmark files are not here")
    pytest.importorskip("onnx")
    from symrel.checking import check_certificate
    from symrel.vnnlib.layered.search import decide
    from symrel.vnnlib.reader import read_vnnlib

    net = verivital_net(DATA / "Convnet_maxpool.onnx")
    prop = read_vnnlib(DATA / "specs" / "maxpool_specs" / "prop_0_0.004.vnnlib", 784, 10)
    v = decide(net, prop, timeout=400)
    assert v.status == "unsat"
    cert = json.loads(json.dumps(v.certificate))
    assert check_certificate(copy.deepcopy(cert))["result"] == "checked"
    r = replayed(library, tmp_path, cert)
    assert r.returncode == 0, r.stdout + r.stderr
    assert print_assumptions(tmp_path, "Instance.claim") == "Closed under the global context"
