"""The vnnlib-unsat checker of layered nets (symrel.checking.vnnlib_layered): honest
certificates accepted; tampered ones (a number moved, a subtree removed, a step set open, a
split's index duplicated or out of range, a wrong slope, unknown keys) refused."""

import copy
import json
import random

import pytest

from symrel.checking import CertificateError, CheckLimit, check_certificate
from symrel.exact import format_rational, rational as q

pytest.importorskip("scipy")

from symrel.vnnlib.layered.search import decide  # noqa: E402

from ..vnnlib.layered.oracle import random_net, random_property  # noqa: E402

# (seed, property) of random nets whose certificates use every kind of tree entry and close key
CASES = [(28, 2), (41, 2), (228, 1), (45, 2), (30, 0), (34, 0)]


def _make(seed, which):
    rng = random.Random(seed)
    net = random_net(rng, rng.randint(1, 3))
    pts = [[q(f"{rng.randint(-8, 8)}/8") for _ in range(net.input_dim)] for _ in range(40)]
    ys = [net.evaluate_exact(p) for p in pts]
    lo = [min(y[j] for y in ys) for j in range(net.output_dim)]
    hi = [max(y[j] for y in ys) for j in range(net.output_dim)]
    props = [random_property(rng, net, lo, hi) for _ in range(3)]
    v = decide(net, props[which])
    assert v.status == "unsat"
    return json.loads(json.dumps(v.certificate))


@pytest.fixture(scope="module", params=CASES, ids=[f"{s}-{w}" for s, w in CASES])
def cert(request):
    return _make(*request.param)


def tree(c):
    return c["steps"][0]["certificate"]["tree"]


def refused(cert, edit, words="", error=CertificateError):
    bad = copy.deepcopy(cert)
    edit(bad)
    with pytest.raises(error) as err:
        check_certificate(bad)
    assert words in str(err.value), str(err.value)
    return err.value


def test_honest_certificates_are_checked(cert):
    assert check_certificate(copy.deepcopy(cert))["result"] == "checked"


def test_the_fixtures_use_every_entry_and_key():
    text = json.dumps([_make(*c)["steps"] for c in CASES])
    for word in ('"relu"', '"max"', "each_unsafe", '"beta"', '"lambda"', '"alpha"', '"piece"', '"empty"', '"split"',
                 '"refine"', '"hull"'):
        assert word in text, word


def _numbers(entry, path):
    """Paths of every number a leaf or split records (bounds, multipliers, slopes, split points)."""
    if isinstance(entry, dict):
        for k, v in entry.items():
            if k in ("atom", "op", "entry", "group", "refine", "piece"):
                continue
            yield from _numbers(v, path + [k])
    elif isinstance(entry, list):
        for i, v in enumerate(entry):
            yield from _numbers(v, path + [i])
    elif isinstance(entry, (int, str)) and not isinstance(entry, bool) and path[-1] not in ("split", "each_unsafe"):
        yield path


def _set(c, path, value):
    holder = c
    for k in path[:-1]:
        holder = holder[k]
    holder[path[-1]] = value


def _get(c, path):
    for k in path:
        c = c[k]
    return c


def test_every_number_moved_is_refused(cert):
    base = ["steps", 0, "certificate", "tree"]
    paths = [base + p for p in _numbers(tree(cert), [])]
    assert paths
    for path in paths:
        if path[-1] in ("relu", "max") or (len(path) >= 2 and path[-2] in ("relu", "max")):
            continue
        old = q(_get(cert, path))
        if old == 0 and "bound" not in path:   # a zero multiplier of an entry no bound reads may move
            continue
        for new in (old + q("1/3"), old - 1 if old >= 1 else old + 1):
            bad = copy.deepcopy(cert)
            _set(bad, path, format_rational(new))
            with pytest.raises(CertificateError):
                check_certificate(bad)


def test_a_subtree_removed_or_an_entry_added_is_refused(cert):
    refused(cert, lambda c: tree(c).pop(), "still to cover")
    refused(cert, lambda c: tree(c).append(copy.deepcopy(tree(c)[-1])), "unexpected entries")


def test_a_step_set_open_is_refused(cert):
    refused(cert, lambda c: c["steps"][0].update(status="open"), 'expected "proved"')


def _first(c, key):
    return next(i for i, e in enumerate(tree(c)) if key in e)


def test_split_entries_are_held_to_their_ranges():
    c = _make(28, 2)
    i = _first(c, "max")
    k, g = tree(c)[i]["max"]
    refused(c, lambda x: tree(x)[i].update(max=[k, 10 ** 6]), "expected an index")
    refused(c, lambda x: tree(x)[i].update(max=[0, g]), "is not a max")
    refused(c, lambda x: tree(x)[i].update(max=[k, g, 0]), "a list of 2 entries")
    j = _first(c, "relu")
    k2, e = tree(c)[j]["relu"]
    refused(c, lambda x: tree(x)[j].update(relu=[k2 + 1, e]), "is not a ReLU")
    refused(c, lambda x: tree(x)[j].update(relu=[k2, -1]), "expected an index")
    refused(c, lambda x: tree(x)[j].update(relu=[k2, True]), "expected an index")


def test_a_split_twice_on_one_path_is_refused():
    c = _make(28, 2)
    j = _first(c, "relu")
    refused(c, lambda x: tree(x).insert(j, copy.deepcopy(tree(x)[j])), "split twice")
    i = _first(c, "max")
    refused(c, lambda x: tree(x).insert(i, copy.deepcopy(tree(x)[i])), "split twice")


def test_each_unsafe_is_held_to_the_count_and_once_a_path():
    c = _make(41, 2)
    i = _first(c, "each_unsafe")
    m = tree(c)[i]["each_unsafe"]
    refused(c, lambda x: tree(x)[i].update(each_unsafe=m + 1), "number of unsafe disjuncts")
    refused(c, lambda x: tree(x)[i].update(each_unsafe=True), "number of unsafe disjuncts")
    refused(c, lambda x: tree(x).insert(i, {"each_unsafe": m}), "on a path at most")


def _leaf_with(c, key):
    for i, e in enumerate(tree(c)):
        if "leaf" in e:
            for u, close in enumerate(e["leaf"].get("closes", [])):
                if key in close:
                    return i, u
    raise AssertionError(key)


def test_multipliers_are_held_to_their_shape():
    c = _make(28, 2)
    i, u = _leaf_with(c, "lambda")
    lam = tree(c)[i]["leaf"]["closes"][u]["lambda"]
    k, g, p = next((e["max"][0], e["max"][1], None) for e in tree(c) if "max" in e)
    refused(c, lambda x: tree(x)[i]["leaf"]["closes"][u]["lambda"][0].append("0"), "entries")
    refused(c, lambda x: tree(x)[i]["leaf"]["closes"][u]["lambda"][0].__setitem__(0, "-1"), "multiplier >= 0")
    winner = next(m for m, v in enumerate(lam[0]) if v in (0, "0"))
    refused(c, lambda x: tree(x)[i]["leaf"]["closes"][u]["lambda"][0].__setitem__(winner, "1"), "")
    i, u = _leaf_with(c, "beta")
    refused(c, lambda x: tree(x)[i]["leaf"]["closes"][u]["beta"].__setitem__(0, "-1/2"), "multiplier >= 0")
    refused(c, lambda x: tree(x)[i]["leaf"]["closes"][u]["beta"].append("0"), "entries")


def test_slopes_and_pieces_are_held_to_their_entries():
    c = _make(28, 2)
    i, u = _leaf_with(c, "alpha")
    close = lambda x: tree(x)[i]["leaf"]["closes"][u]  # noqa: E731
    k, e, a = close(c)["alpha"][0]
    refused(c, lambda x: close(x)["alpha"].append([k, e, a]), "increasing order")
    refused(c, lambda x: close(x)["alpha"][0].__setitem__(2, "3/2"), "0 <= alpha <= 1")
    refused(c, lambda x: close(x)["alpha"][0].__setitem__(2, "1/7"), "the bound recomputed")
    refused(c, lambda x: close(x)["alpha"][0].__setitem__(0, 0), "is not a ReLU")
    i, u = _leaf_with(c, "piece")
    k, g, p = close(c)["piece"][0] if "piece" in close(c) else tree(c)[i]["leaf"]["closes"][u]["piece"][0]
    piece = lambda x: tree(x)[i]["leaf"]["closes"][u]["piece"]  # noqa: E731
    refused(c, lambda x: piece(x).append(list(piece(x)[0])), "increasing order")
    refused(c, lambda x: piece(x)[0].__setitem__(2, 99), "expected an index")


def test_a_slope_no_positive_coefficient_meets_is_refused():
    """-ReLU(x) on [-1, 1] is at least -1: the lower bound takes the chord of the (unstable)
    entry, whose coefficient is -1; a lower slope for it is a number no bound reads."""
    from symrel.models.layered import LayeredNet, Relu, SparseAffine
    from symrel.vnnlib import LinearAtom, VnnProperty

    net = LayeredNet(1, [SparseAffine([[(0, 1)]]), Relu(1), SparseAffine([[(0, -1)]])])
    region = ((LinearAtom((q(1),), (q(0),), q(1)), LinearAtom((q(-1),), (q(0),), q(1))),)
    v = decide(net, VnnProperty(1, 1, region, ((LinearAtom((q(0),), (q(1),), q(-2)),),), "0" * 64, "x"))
    c = json.loads(json.dumps(v.certificate))
    assert tree(c) == [{"leaf": {"closes": [{"atom": ["unsafe", 0], "bound": -1}]}}]
    refused(c, lambda x: tree(x)[0]["leaf"]["closes"][0].update(alpha=[[1, 0, "1/2"]]), "unused")
    refused(c, lambda x: tree(x)[0]["leaf"]["closes"][0].update(alpha=[[0, 0, "1/2"]]), "is not a ReLU")
    refused(c, lambda x: tree(x)[0]["leaf"]["closes"][0].update(piece=[[1, 0, 0]]), "is not a max")
    refused(c, lambda x: tree(x)[0]["leaf"]["closes"][0].update(beta=["0"]), "no ReLU split")
    refused(c, lambda x: tree(x)[0]["leaf"]["closes"][0].update(**{"lambda": [["0"]]}), "no max split")


def test_empty_leaves_are_recomputed():
    c = _make(28, 2)
    i = next(i for i, e in enumerate(tree(c)) if "leaf" in e and "empty" in e["leaf"])
    emp = tree(c)[i]["leaf"]["empty"]
    what = "entry" if "entry" in emp else "group"
    refused(c, lambda x: tree(x)[i]["leaf"]["empty"].update({what: emp[what] + 1}), "")
    refused(c, lambda x: tree(x)[i]["leaf"]["empty"].update(op=emp["op"] + 2), "")
    refused(c, lambda x: tree(x)[i]["leaf"].update(closes=[]), "exactly one of")
    j = next(j for j, e in enumerate(tree(c)) if "leaf" in e and "closes" in e["leaf"])
    refused(c, lambda x: tree(x)[j]["leaf"].update(empty=emp), "exactly one of")
    refused(c, lambda x: tree(x)[j]["leaf"].pop("closes") and tree(x)[j]["leaf"].update(empty=emp), "the bounds")


def test_refinements_are_held_to_their_ops_and_entries():
    c = _make(41, 2)
    i = next(i for i, e in enumerate(tree(c)) if "leaf" in e and "refine" in e["leaf"])
    r = tree(c)[i]["leaf"]["refine"]
    k, entries = r[0]
    refused(c, lambda x: tree(x)[i]["leaf"]["refine"][0].__setitem__(0, 0), "affine")
    refused(c, lambda x: tree(x)[i]["leaf"]["refine"][0][1].append(entries[0]), "increasing order")
    refused(c, lambda x: tree(x)[i]["leaf"]["refine"][0].__setitem__(1, []), "at least one entry")


def test_unknown_keys_are_refused(cert):
    i = _first(cert, "leaf")
    refused(cert, lambda c: tree(c)[i]["leaf"].update(phases=["a"]), "phases")
    refused(cert, lambda c: tree(c)[i].update(extra=1), "")
    j = next(j for j, e in enumerate(tree(cert)) if "leaf" in e and "closes" in e["leaf"])
    refused(cert, lambda c: tree(c)[j]["leaf"]["closes"][0].update(gamma=["1"]), "gamma")


def test_a_network_changed_is_refused(cert):
    from symrel.fileformat import sha256_of

    def edit(c):
        ops = c["inputs"]["network"]["object"]["ops"]
        aff = next(op for op in ops if op["op"] == "affine")
        aff["b"][0] = format_rational(q(aff["b"][0]) + q("1/2"))
        c["inputs"]["network"]["sha256"] = c["claim"]["network_sha256"] = sha256_of(c["inputs"]["network"]["object"])

    with pytest.raises(CertificateError):
        bad = copy.deepcopy(cert)
        edit(bad)
        check_certificate(bad)


def test_the_leaf_operations_are_bounded_before_any_leaf_is_checked(cert, monkeypatch):
    from symrel.checking import vnnlib_layered

    monkeypatch.setattr(vnnlib_layered, "MAX_LEAF_OPERATIONS", 1)
    refused(cert, lambda c: None, "leaf operations", CheckLimit)


def test_lines_over_the_inputs_box_are_held_to_their_rows_and_vertices():
    c = _make(30, 0)
    i, u = _leaf_with(c, "hull")
    close = lambda x: tree(x)[i]["leaf"]["closes"][u]  # noqa: E731
    k, e, a, cc = close(c)["hull"][0]
    refused(c, lambda x: close(x)["hull"][0].__setitem__(3, format_rational(q(cc) - 10)), "below ReLU at a vertex")
    refused(c, lambda x: close(x)["hull"][0].__setitem__(2, a + ["0"]), "entries")
    refused(c, lambda x: close(x)["hull"][0].__setitem__(0, 0), "not a ReLU reading an affine op")
    refused(c, lambda x: close(x)["hull"].append(list(close(x)["hull"][0])), "increasing order")
    refused(c, lambda x: close(x)["hull"][0].__setitem__(3, format_rational(q(cc) + 1)), "the bound recomputed")


def test_a_line_for_a_row_of_many_entries_is_beyond_the_limit():
    from symrel.models.layered import LayeredNet, Relu, SparseAffine
    from symrel.vnnlib import LinearAtom, VnnProperty

    n = 11
    net = LayeredNet(n, [SparseAffine([[(j, 1) for j in range(n)]]), Relu(1), SparseAffine([[(0, -1)]])])
    box = tuple(LinearAtom(tuple(q(int(j == i) * s) for j in range(n)), (q(0),), q(1)) for i in range(n) for s in (1, -1))
    v = decide(net, VnnProperty(n, 1, (box,), ((LinearAtom((q(0),) * n, (q(1),), q(-12)),),), "0" * 64, "x"))
    c = json.loads(json.dumps(v.certificate))
    assert v.status == "unsat" and "hull" not in json.dumps(c["steps"])
    refused(c, lambda x: tree(x)[-1]["leaf"]["closes"][0].update(hull=[[1, 0, ["1"] * n, n]]), "hull entries", CheckLimit)


def test_long_numbers_are_bounded_before_the_arithmetic():
    """A net whose weights' common denominator, or a close whose slopes' common denominator, would
    be longer than the 'denominator bits' limit is refused naming it, before any product."""
    from symrel.errors import LimitError
    from symrel.exact.sizes import arithmetic_limits
    from symrel.fileformat import sha256_of

    c = _make(28, 2)
    with arithmetic_limits(denominator_bits=500):
        def primes_net(x):
            aff = x["inputs"]["network"]["object"]["ops"][0]
            for r, row in enumerate(aff["rows"]):
                for m, pair in enumerate(row):
                    pair[1] = f"1/{10 ** 100 + 2 * (r * 7 + m) + 1}"
            x["inputs"]["network"]["sha256"] = x["claim"]["network_sha256"] = sha256_of(x["inputs"]["network"]["object"])
        bad = copy.deepcopy(c)
        primes_net(bad)
        with pytest.raises((CertificateError, LimitError), match="denominator bits"):
            check_certificate(bad)
        i, u = _leaf_with(c, "alpha")
        bad = copy.deepcopy(c)
        tree(bad)[i]["leaf"]["closes"][u]["alpha"] = [[k, e, f"1/{10 ** 200 + 1}"] for k, e, _ in
                                                      tree(bad)[i]["leaf"]["closes"][u]["alpha"]][:1]
        with pytest.raises((CertificateError, LimitError)):
            check_certificate(bad)
