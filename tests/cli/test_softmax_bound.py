import json
import random

import pytest

from symrel.compiler import compile_maxout
from symrel.exact import Q, rational
from symrel.fileformat import save
from symrel.models import Box, MaxoutLayer, MaxoutNet, MaxoutUnit, Polytope
from symrel.constructions.random import random_maxout_net
from symrel.softmax.examples import selection_transformer


@pytest.fixture
def abs_files(tmp_path):
    net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, 0])])])
    D = Box([[-1, 1]])
    save(compile_maxout(net, D).transformer, tmp_path / "T.json")
    save(D, tmp_path / "D.json")
    save(net, tmp_path / "net.json")
    return tmp_path


def test_prints_steps_then_the_lambda_alone(run_cli, abs_files):
    code, out, err = run_cli("softmax-bound", abs_files / "T.json", "--domain", abs_files / "D.json", "--eps", "1/1000")
    lines = out.strip().splitlines()
    assert code == 0 and err == ""
    assert lines[-1] == "735759/1000"
    assert any("max head over 3 tokens" in l for l in lines)
    assert rational(lines[-1]) > 0


def test_json_and_empirical_check(run_cli, abs_files):
    code, out, _ = run_cli("softmax-bound", abs_files / "T.json", "--domain", abs_files / "D.json",
                           "--eps", "1e-3", "--json", "--check", "12")
    obj = json.loads(out)
    assert code == 0 and obj["proved"] and obj["lambda"] == "735759/1000"
    assert obj["empirical"]["violations"] == 0
    assert rational(obj["bound_at_lambda"]) <= Q(1, 1000) < rational(obj["lambda"])


def test_eval_at_the_certified_lambda_is_within_eps(run_cli, abs_files):
    _, out, _ = run_cli("softmax-bound", abs_files / "T.json", "--domain", abs_files / "D.json", "--eps", "1/1000")
    lam = out.strip().splitlines()[-1]
    code, out, _ = run_cli("eval", abs_files / "T.json", "--input", "-1/3", "--scale", lam, "--precision", "60")
    assert code == 0
    assert abs(float(out.strip()) - 1 / 3) <= 1e-3


def test_exit_3_when_no_margin_absorbs_the_error(run_cli, tmp_path):
    T, D = selection_transformer(query_reads_x=True)  # no key wins by a margin
    save(T, tmp_path / "T.json")
    save(D, tmp_path / "D.json")
    code, out, err = run_cli("softmax-bound", tmp_path / "T.json", "--domain", tmp_path / "D.json", "--eps", "1/10")
    assert code == 3 and "margin" in err and "undecided" in err
    assert not out.strip().splitlines()[-1].replace("/", "").isdigit()


def test_strict_gating_says_which_compile_margin_would_do(run_cli, tmp_path):
    net = random_maxout_net(random.Random(2), 2, [3, 3], rank=3, max_num=8, max_den=4)
    D = Box.cube(2)
    save(compile_maxout(net, D).transformer, tmp_path / "T.json")
    save(D, tmp_path / "D.json")
    code, out, err = run_cli("softmax-bound", tmp_path / "T.json", "--domain", tmp_path / "D.json",
                             "--eps", "1/1000", "--strict-gating")
    assert code == 3 and "symrel compile --margin" in err
    code, out, _ = run_cli("softmax-bound", tmp_path / "T.json", "--domain", tmp_path / "D.json",
                           "--eps", "1/1000", "--strict-gating", "--json")
    assert code == 3 and json.loads(out)["needed_margin"]


@pytest.mark.parametrize("args,fragment", [
    (["--eps", "2"], "--eps"),
    (["--eps", "abc"], "--eps"),
    (["--eps", "1/10", "--check", "-1"], "--check"),
])
def test_bad_input_exits_2(run_cli, abs_files, args, fragment):
    code, out, err = run_cli("softmax-bound", abs_files / "T.json", "--domain", abs_files / "D.json", *args)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1


def test_bad_files_exit_2(run_cli, abs_files):
    code, _, err = run_cli("softmax-bound", abs_files / "net.json", "--domain", abs_files / "D.json", "--eps", "1/10")
    assert code == 2 and "transformer" in err
    save(Polytope([[1], [-1]], [1, 1]), abs_files / "P.json")
    code, _, err = run_cli("softmax-bound", abs_files / "T.json", "--domain", abs_files / "P.json", "--eps", "1/10")
    assert code == 2 and "box" in err


def test_plot_option_writes_a_png(run_cli, abs_files):
    pytest.importorskip("matplotlib")
    code, out, _ = run_cli("softmax-bound", abs_files / "T.json", "--domain", abs_files / "D.json",
                           "--eps", "1/100", "--plot", abs_files / "p.png")
    assert code == 0 and (abs_files / "p.png").read_bytes()[:4] == b"\x89PNG"


def test_certificate_is_written_and_checks(run_cli, abs_files, tmp_path):
    out_file = tmp_path / "cert.json"
    code, _, _ = run_cli("softmax-bound", abs_files / "T.json", "--domain", abs_files / "D.json",
                         "--eps", "1/1000", "--certificate", out_file)
    assert code == 0
    code, out, _ = run_cli("check-certificate", out_file)
    assert code == 0


def test_no_certificate_file_when_undecided(run_cli, tmp_path):
    T, D = selection_transformer(query_reads_x=True)  # no key wins by a margin
    save(T, tmp_path / "T.json")
    save(D, tmp_path / "D.json")
    code, _, _ = run_cli("softmax-bound", tmp_path / "T.json", "--domain", tmp_path / "D.json", "--eps", "1/10",
                         "--certificate", tmp_path / "c.json")
    assert code == 3 and not (tmp_path / "c.json").exists()
