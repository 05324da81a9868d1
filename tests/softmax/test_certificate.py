"""softmax-bound certificates and their independent checker (symrel.checking.softmax)."""

import copy
import json
import random

import pytest

from symrel.checking import CertificateError, check_certificate
from symrel.compiler import compile_maxout
from symrel.errors import SymrelError
from symrel.exact import Q, rational, rational_str
from symrel.fileformat import sha256_of
from symrel.models import Box
from symrel.constructions.random import random_maxout_net
from symrel.softmax import lambda_min
from symrel.softmax.examples import selection_transformer


def roundtrip(cert):
    return json.loads(json.dumps(cert))


@pytest.fixture(scope="module")
def max_cert():
    net = random_maxout_net(random.Random(2), 2, [3, 3], rank=3, max_num=8, max_den=4)
    D = Box.cube(2)
    return roundtrip(lambda_min(compile_maxout(net, D).transformer, D, Q(1, 1000)).certificate())


@pytest.fixture(scope="module")
def sel_cert():
    T, D = selection_transformer(delta=Q(1, 2))
    return roundtrip(lambda_min(T, D, Q(1, 10**8)).certificate())


def step(cert, rule, block=None):
    return next(s for s in cert["steps"] if s["rule"] == rule and (block is None or s["certificate"]["block"] == block))


def test_certificates_check(max_cert, sel_cert):
    assert check_certificate(max_cert)["result"] == "checked"
    assert check_certificate(sel_cert)["result"] == "checked"


def tampered(cert, fn):
    c = copy.deepcopy(cert)
    fn(c)
    return c


def scale(text, factor):
    return rational_str(rational(text) * factor)


@pytest.mark.parametrize("change", [
    lambda c: c["claim"].update({"lambda": scale(c["claim"]["lambda"], Q(9, 10))}),
    lambda c: c["claim"].update({"eps": scale(c["claim"]["eps"], Q(1, 2))}),
    lambda c: step(c, "series-constants")["certificate"].update({"e_lower": "2719/1000"}),
    lambda c: step(c, "series-constants")["certificate"]["log_upper"].update({"4": "1386/1000"}),
    lambda c: step(c, "block-error", 1)["certificate"]["errors"][0].__setitem__(-1, "0"),
    lambda c: step(c, "block-error", 4)["certificate"]["gap_upper"].update({"4": "1/10000000"}),
    lambda c: step(c, "readout-bound")["certificate"].update({"bound": "1/10000"}),
])
def test_any_altered_number_fails(max_cert, change):
    with pytest.raises(CertificateError):
        check_certificate(tampered(max_cert, change))


def test_an_exp_bound_below_the_true_value_fails(sel_cert):
    def halve(c):
        exps = step(c, "block-error", 0)["certificate"]["exp_upper"]
        for k in exps:
            exps[k] = scale(exps[k], Q(1, 2))
    with pytest.raises(CertificateError, match="exp_upper|error matrix"):
        check_certificate(tampered(sel_cert, halve))


def test_a_changed_model_is_caught(max_cert):
    def change(c):
        obj = c["inputs"]["transformer"]["object"]
        obj["readout"]["W"][0][0] = 5
        c["inputs"]["transformer"]["sha256"] = sha256_of(obj)
    with pytest.raises(CertificateError):
        check_certificate(tampered(max_cert, change))


def test_no_certificate_for_an_undecided_bound():
    T, D = selection_transformer(query_reads_x=True)
    res = lambda_min(T, D, Q(1, 10))
    with pytest.raises(SymrelError, match="open"):
        res.certificate()


def test_malformed_steps_are_certificate_errors(max_cert):
    for change in (lambda c: c["steps"].append(None),
                   lambda c: step(c, "block-error", 0).update({"certificate": []}),
                   lambda c: step(c, "block-error", 0)["certificate"].update({"errors": "x"})):
        with pytest.raises(CertificateError):
            check_certificate(tampered(max_cert, change))


# -- tied keys: token 0 loses by 1, tokens 1 and 2 have one constant key and share the weight --
@pytest.fixture(scope="module")
def tie_cert():
    T, D = selection_transformer(delta=-1)
    return roundtrip(lambda_min(T, D, Q(1, 1000)).certificate())


def test_a_tied_certificate_checks_and_records_its_ties(tie_cert):
    assert check_certificate(tie_cert)["result"] == "checked"
    assert step(tie_cert, "block-error", 0)["certificate"]["tied_keys"] == {f"0,0,{t}": [1, 2] for t in range(3)}


@pytest.mark.parametrize("change, message", [
    (lambda c: step(c, "block-error", 0)["certificate"].pop("tied_keys"), "neither a max head nor a selection"),
    (lambda c: step(c, "block-error", 0)["certificate"]["tied_keys"].pop("0,0,1"), "neither a max head nor a selection"),
    (lambda c: step(c, "block-error", 0)["certificate"]["tied_keys"].update({"0,0,0": [1]}), "two or more"),
    (lambda c: step(c, "block-error", 0)["certificate"]["tied_keys"].update({"0,0,0": [1, 1]}), "two or more|not listed before"),
    (lambda c: step(c, "block-error", 0)["certificate"]["tied_keys"].update({"0,0,0": [0, 1, 2]}), "not one constant"),
    (lambda c: step(c, "block-error", 0)["certificate"]["tied_keys"].update({"0,0,0": [1, 3]}), "two or more|an index in 0..2"),
    (lambda c: step(c, "block-error", 0)["certificate"]["tied_keys"].update({"0,1,0": [1, 2]}), "tied keys only|no key '0,1,0'"),
    (lambda c: step(c, "block-error", 0)["certificate"].update({"tied_keys": {}}), "neither a max head"),
    (lambda c: step(c, "block-error", 0)["certificate"].update({"tied_keys": [[1, 2]]}), "block,head,token|expected an object"),
    (lambda c: step(c, "block-error", 0)["certificate"]["errors"][0].__setitem__(-1, "0"), "errors differ"),
])
def test_any_tampered_tie_fails(tie_cert, change, message):
    with pytest.raises(CertificateError, match=message):
        check_certificate(tampered(tie_cert, change))


def test_a_tie_broken_by_a_tiny_rational_is_not_recorded():
    """Token 2's key moved by 10^-6: it now wins alone, by a margin of 10^-6 (a longer lambda)."""
    from symrel.mutation.mutants import mutant

    T, D = selection_transformer(delta=-1)
    broken = mutant(T, "embedding.offsets[2][1]", "+tiny")
    res = lambda_min(broken, D, Q(1, 1000))
    cert = roundtrip(res.certificate())
    assert "tied_keys" not in step(cert, "block-error", 0)["certificate"]
    assert check_certificate(cert)["result"] == "checked"
    assert res.lam > 10**6 * lambda_min(T, D, Q(1, 1000)).lam
