"""The exact LP of a search node, and the first-of-repeats form of its Farkas vectors.

The checker accepts a Farkas entry only on the first of identical rows (so that no recorded
index can move alone). The region search finds that row through :meth:`DenseRows.register`,
a standalone LP by scanning: both must give the same answer.
"""

import random

import pytest

from symrel.checking import check_certificate
from symrel.exact import Q
from symrel.exact.forms import AffineForm, Row
from symrel.fileformat import canonical_dumps, loads
from symrel.models import Box, DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet
from symrel.certificates.io import certificate_of
from symrel.regions import certify_regions
from symrel.regions.cell_lp import DenseRows, cell_lp


def x_below(c):      # x < c
    return Row(AffineForm(Q(-c), {0: Q(1)}), "<")


def x_above(c):      # x > c
    return Row(AffineForm(Q(c), {0: Q(-1)}), "<")


@pytest.mark.parametrize("registered", [False, True])
def test_a_farkas_entry_on_a_repeated_row_names_its_first_copy(registered):
    rows = [x_below(0), x_above(1), x_below(0)]          # rows[2] repeats rows[0]
    dense = DenseRows(1)
    if registered:
        dense.register(rows)
    point, farkas = cell_lp(rows, [1, 2], {}, 1, dense)   # the LP sees only the repeat
    assert point is None
    assert sorted(i for i, _ in farkas) == [0, 1]
    # still a Farkas vector of the rows: the x-parts cancel and the constants are positive
    assert sum(v * rows[i].form.coefficient(0) for i, v in farkas) == 0
    assert sum(v * rows[i].form.const for i, v in farkas) >= 0 and all(v > 0 for _, v in farkas)


def test_registered_and_scanned_first_copies_agree():
    rng = random.Random(3)
    made = 0
    for _ in range(200):
        rows = [rng.choice((x_below, x_above))(Q(rng.randint(-2, 2), 2)) for _ in range(8)]
        rows += [Row(AffineForm(r.form.const, dict(r.form.coeffs)), r.rel) for r in rng.sample(rows, 3)]  # copies
        indices = sorted(rng.sample(range(len(rows)), 4))
        dense = DenseRows(1)
        dense.register(rows)
        scanned, registered = cell_lp(rows, indices, {}, 1), cell_lp(rows, indices, {}, 1, dense)
        assert scanned == registered
        if scanned[0] is None:
            made += 1
            for i, _ in scanned[1]:
                assert all(rows[k] != rows[i] for k in range(i))   # each entry is the first of its copies
    assert made > 20


def test_register_compares_only_rows_of_the_same_list():
    prefix = [x_above(-1), x_below(1)]
    r = x_below(0)
    a = prefix + [r]                      # one branch holds r at index 2
    b = prefix + [x_above(Q(1, 2)), x_below(0)]   # another holds a copy of r at index 3
    c = a + [x_above(-2), x_below(0)]     # a child of a holds a second copy at index 4
    dense = DenseRows(1)
    for rows in (prefix, a, b, c):
        dense.register(rows, len(prefix) if rows is not prefix else 0)
    assert dense.first[id(r)] == 2
    assert dense.first[id(b[3])] == 3     # r is not in b: the copy is the first of its kind there
    assert dense.first[id(c[4])] == 2


def _checked(model, box):
    proof = certify_regions(model, box, kind="activation")
    cert = loads(canonical_dumps(certificate_of(proof)))
    assert check_certificate(cert)["result"] == "checked"
    return cert


def test_certificates_with_repeated_units_and_pieces_check():
    # two identical ReLU units, and one that is the negation of the first
    relu = ReLUNet(2, [DenseLayer([[1, -1], [1, -1], [-1, 1], [1, 1]], ["1/3", "1/3", "-1/3", "-1/2"]),
                       DenseLayer([[1, 2, -1, 1]], [0], "none")])
    _checked(relu, Box([[-1, 1], [-1, 1]]))
    # maxout units with a repeated piece, and a second unit made of the first one's pieces
    pieces = [[1, 0], [0, 1], [1, 0], [-1, -1]]
    net = MaxoutNet(2, [MaxoutLayer([MaxoutUnit(pieces, [0, 0, 0, "1/4"]), MaxoutUnit(pieces[1:], [0, 0, "1/4"])])])
    _checked(net, Box([[-1, 1], [-1, 1]]))
