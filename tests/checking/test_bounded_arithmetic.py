"""The checker bounds the arithmetic it does on a certificate's numbers before doing it
(issue 39, item 5; symrel.exact.sizes): every golden certificate of a kind with such a bound
is refused at a tiny limit, naming it, and accepted at the defaults (test_golden.py); the
paths one at a time with numbers chosen to explode."""

import json
import random
import time
from pathlib import Path

import pytest

from symrel.checking import CertificateError, MalformedCertificate, check_certificate
from symrel.errors import LimitError
from symrel.exact import Q, number_limits
from symrel.exact.sizes import arithmetic_limits

GOLDEN = Path(__file__).resolve().parent / "golden" / "valid"


@pytest.mark.parametrize("name, limits, says", [
    ("equivalence-cells", {"denominator_bits": 1}, "limit 'denominator bits'"),      # Farkas multipliers
    ("regions", {"denominator_bits": 1}, "limit 'denominator bits'"),
    ("regions-hardmax", {"denominator_bits": 1}, "limit 'denominator bits'"),
    ("equivalence-node-cells", {"denominator_bits": 1}, "limit 'denominator bits'"),
    ("equivalence-cpwl-mesh", {"product_bits": 16}, "limit 'product bits'"),          # a simplex's inverse
    ("regions-cpwl-mesh", {"product_bits": 16}, "limit 'product bits'"),
    ("equivalence-polytope", {"product_bits": 4}, "limit 'product bits'"),            # the domain's duals
    ("relation", {"product_bits": 16}, "limit 'product bits'"),                       # features, inner products
    ("retrieval", {"product_bits": 16}, "limit 'product bits'"),
    ("tracr-audit", {"product_bits": 16}, "limit 'product bits'"),                    # a run of the model
    ("vnnlib-unsat", {"product_bits": 16}, "limit 'product bits'"),                   # a leaf's bounds
    ("vnnlib-unsat", {"denominator_bits": 1}, "limit 'denominator bits'"),
])
def test_a_tiny_limit_refuses_the_golden_certificate_naming_it(name, limits, says):
    cert = json.loads((GOLDEN / f"{name}.json").read_text())
    with arithmetic_limits(**limits), pytest.raises(MalformedCertificate, match=says):
        check_certificate(cert)


def test_a_recorded_form_with_many_coprime_denominators_stops_at_form_digits():
    from symrel.checking.kernel import read_form

    rng = random.Random(1)
    terms = [[v, f"1/{rng.randrange(10 ** 99, 10 ** 100) | 1}"] for v in range(60)]   # 60 x 332 bits
    with number_limits(max_digits=100), pytest.raises(MalformedCertificate, match="form-digits"):
        read_form([0, terms])
    assert read_form([0, terms[:2]]).den > 1


def test_farkas_multipliers_of_coprime_denominators_are_refused_before_the_sum():
    from symrel.checking.regions import _check_empty

    rng = random.Random(2)
    rows = [((Q(1), Q(0)), "<=") for _ in range(400)]
    farkas = [[k, f"1/{rng.randrange(10 ** 99, 10 ** 100) | 1}"] for k in range(400)]   # 130,000 bits
    with pytest.raises(LimitError, match="limit 'denominator bits'"):
        _check_empty(rows, farkas, "steps[0].certificate.branches[0].farkas")


def test_an_ldl_of_long_entries_is_refused_before_the_products():
    from symrel.checking.relations import _check_ldl

    rng = random.Random(3)
    n = 6
    L = [[1 if i == j else (f"1/{rng.randrange(10 ** 2999, 10 ** 3000) | 1}" if j < i else 0) for j in range(n)]
         for i in range(n)]
    data = {"L": L, "D": [1] * n}
    table = [[Q(0)] * n for _ in range(n)]
    with arithmetic_limits(product_bits=20_000), pytest.raises(LimitError, match="limit 'product bits'"):
        _check_ldl(data, table, n, "steps[0].certificate")


def test_the_softmax_growth_sees_a_row_of_distinct_denominators():
    from symrel.checking.softmax import _bits

    row = [[Q(1, 10 ** 30 + 2 * k + 1) for k in range(50)]]
    assert _bits(row) > 50 * 90       # the old bound, the longest entry, was about 200 bits


def test_an_exp_of_a_long_argument_is_enclosed_at_its_neighbours_quickly():
    from symrel.checking.exp_bounds import exp_bounds

    rng = random.Random(4)
    q = rng.randrange(10 ** 9999, 10 ** 10000) | 1
    a = Q(q // 3 + 1, q)                             # about 1/3, 33,000 bits each way
    start = time.process_time()
    lo, hi = exp_bounds(a)
    assert time.process_time() - start < 5           # the series on the exact argument took 0.3 s, growing
    assert exp_bounds(Q(1, 3) - Q(1, 10 ** 30))[0] <= lo <= hi <= exp_bounds(Q(1, 3) + Q(1, 10 ** 30))[1]
    assert hi - lo < Q(1, 2 ** 90)


def test_a_simplex_of_long_coordinates_is_refused_before_its_inverse():
    from symrel.checking.meshes import inverse_bits

    rng = random.Random(5)
    points = [[Q(1, rng.randrange(10 ** 2999, 10 ** 3000) | 1) for _ in range(6)] for _ in range(7)]
    with pytest.raises(LimitError, match="limit 'product bits'"):
        inverse_bits(points, "inputs.a.object.simplices[0]")
    assert inverse_bits([[Q(0), Q(0)], [Q(1), Q(0)], [Q(0), Q(1)]], "s") < 100


def test_a_vnnlib_network_of_huge_denominators_is_refused_before_its_layers_are_scaled():
    from tests.adversarial.arithmetic import huge_denominator_net, vnnlib_certificate

    cert = vnnlib_certificate(huge_denominator_net())
    start = time.process_time()
    with pytest.raises(CertificateError, match=r"inputs.network.object.layers\[1\]: limit 'denominator bits'"):
        check_certificate(cert)
    assert time.process_time() - start < 5
