import itertools
import random

import pytest

from symrel.exact import Q, affine_range_on_box
from symrel.exact import sparse_rows
from symrel.exact.forms import AffineForm, FormMap, Row, holds, linear_combination, matrix_image


def _random_form(rng, n, density=0.6):
    coeffs = {v: Q(rng.randint(-9, 9), rng.randint(1, 5)) for v in range(n) if rng.random() < density}
    return AffineForm(Q(rng.randint(-9, 9), rng.randint(1, 4)), {v: a for v, a in coeffs.items() if a})


def _random_point(rng, n):
    return [Q(rng.randint(-20, 20), rng.randint(1, 6)) for _ in range(n)]


def _random_box(rng, n):
    box = []
    for _ in range(n):
        a, b = sorted([Q(rng.randint(-20, 20), rng.randint(1, 6)) for _ in range(2)])
        box.append((a, b))
    return box


@pytest.mark.parametrize("seed", range(20))
def test_range_on_box_is_the_min_and_max_over_the_vertices(seed):
    rng = random.Random(seed)
    n = rng.randint(0, 4)
    f, box = _random_form(rng, n), _random_box(rng, n)
    values = [f.value_at(list(v)) for v in itertools.product(*box)]
    assert f.range_on_box(box) == (min(values), max(values))
    assert f.minimum_on_box(box) == min(values)
    assert affine_range_on_box(f.to_dense(n), f.const, box) == (min(values), max(values))


@pytest.mark.parametrize("seed", range(20))
def test_arithmetic_and_substitution_agree_with_values(seed):
    rng = random.Random(seed)
    n = 4
    f, g = _random_form(rng, n), _random_form(rng, n)
    x = _random_point(rng, n)
    a, b = Q(rng.randint(-5, 5), 3), Q(rng.randint(-5, 5), 2)
    assert (f + g).value_at(x) == f.value_at(x) + g.value_at(x)
    assert (f - g).value_at(x) == f.value_at(x) - g.value_at(x)
    assert (-f).value_at(x) == -f.value_at(x)
    assert (a * f).value_at(x) == (f * a).value_at(x) == a * f.value_at(x)
    h = linear_combination([(a, f), (b, g)], Q(7))
    assert h.value_at(x) == a * f.value_at(x) + b * g.value_at(x) + 7
    assert all(c for c in h.coeffs.values())          # no stored zeros
    images = [_random_form(rng, 3) for _ in range(n)]
    z = _random_point(rng, 3)
    assert f.substitute(images).value_at(z) == f.value_at([im.value_at(z) for im in images])
    assert f.substitute(dict(enumerate(images))) == f.substitute(images)


def test_equality_hash_and_dense_conversion():
    f = AffineForm.from_dense([Q(1), Q(0), Q(-2)], Q(3))
    assert f.coeffs == {0: Q(1), 2: Q(-2)} and f.to_dense(3) == [Q(1), Q(0), Q(-2)]
    g = linear_combination([(Q(1), AffineForm.var(2)), (Q(-1), AffineForm.var(2))], Q(0))
    assert g.is_zero() and g == AffineForm() and hash(g) == hash(AffineForm())
    assert f == AffineForm(Q(3), {2: Q(-2), 0: Q(1)}) and f != f + AffineForm.constant(Q(1))
    assert len({f, AffineForm(Q(3), {2: Q(-2), 0: Q(1)})}) == 1
    assert f.to_json() == [3, [[0, 1], [2, -2]]]
    assert (f - f).is_zero() and f.scaled(Q(0)).is_zero()


def test_direction_key_and_parallel_offset():
    h = AffineForm(Q(1), {0: Q(2), 1: Q(-1)})
    assert h.direction_key() == (3 * h + AffineForm.constant(Q(5))).direction_key()
    assert h.direction_key() != (-h).direction_key()
    assert h.normalised() == (Q(4) * h).normalised() and h.normalised() != (h + AffineForm.constant(Q(1))).normalised()
    assert AffineForm.constant(Q(2)).direction_key() is None
    assert h.parallel_offset(h) == 0
    assert (Q(-3) * h + AffineForm.constant(Q(2))).parallel_offset(h) == Q(2)   # f - (-3) h = 2
    assert AffineForm(Q(0), {0: Q(2)}).parallel_offset(h) is None
    assert AffineForm(Q(0), {0: Q(2), 1: Q(-1), 2: Q(1)}).parallel_offset(h) is None
    assert AffineForm.constant(Q(4)).parallel_offset(h) == 4                   # lam = 0
    assert h.parallel_offset(AffineForm.constant(Q(1))) is None


def test_rows_hold_exactly():
    f = AffineForm(Q(-1), {0: Q(1)})
    assert [Row(f, rel).holds_at([Q(1)]) for rel in ("<=", "<", "=")] == [True, False, True]
    assert [Row(f, rel).holds_at([Q(0)]) for rel in ("<=", "<", "=")] == [True, True, False]
    form, rel = Row(f, "<")                                                     # a row unpacks
    assert form is f and rel == "<" and Row(AffineForm.constant(Q(1)), "<").is_constant()
    assert holds(Q(0), "=") and not holds(Q(0), "<")


@pytest.mark.parametrize("seed", range(12))
def test_form_map_is_the_matrix_image(seed):
    """FormMap (one flint product when the forms are dense in few variables, the sparse
    sums otherwise) gives the forms matrix_image gives, and their values at a point."""
    rng = random.Random(seed)
    n_in, n_out, n = rng.randint(1, 6), rng.randint(1, 6), rng.randint(0, 5)
    W = [[Q(rng.randint(-5, 5), rng.randint(1, 3)) if rng.random() < 0.7 else Q(0) for _ in range(n_in)]
         for _ in range(n_out)]
    b = None if seed % 3 == 0 else [Q(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(n_out)]
    density = (0.0, 0.3, 1.0)[seed % 3]
    forms = [_random_form(rng, n, density) if rng.random() < 0.8 else AffineForm() for _ in range(n_in)]
    got, want = FormMap(W, b).image(forms), matrix_image(sparse_rows(W), forms, b)
    assert got == want
    x = _random_point(rng, n)
    assert [f.value_at(x) for f in got] == [sum((a * g.value_at(x) for a, g in zip(r, forms)), b[i] if b else Q(0))
                                           for i, r in enumerate(W)]
    assert all(a for f in got for a in f.coeffs.values())   # no zero coefficient is kept
