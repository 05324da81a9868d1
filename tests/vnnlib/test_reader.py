"""The VNN-LIB reader: the competition's files read exactly, and every malformed file
refused with one line naming the file, the line and what was expected."""

import pytest
from hypothesis import given, settings, strategies as st

from symrel.errors import InputError, LimitError
from symrel.exact import rational as q
from symrel.vnnlib import reader
from symrel.vnnlib.reader import read_vnnlib, read_vnnlib_text

HEADER = "".join(f"(declare-const X_{i} Real)\n" for i in range(2)) + \
    "".join(f"(declare-const Y_{j} Real)\n" for j in range(2))


def test_acas_property_3_is_read_exactly(shared_dir):
    prop = read_vnnlib(shared_dir / "data" / "vnncomp2021" / "acasxu" / "prop_3.vnnlib", 5, 5)
    ((lower, upper),) = prop.boxes()
    assert lower[0] == q("-0.303531156") and upper[0] == q("-0.298552812")
    assert lower[2] == q("0.493380324") and upper[2] == q(1) / 2
    (conj,) = prop.unsafe
    assert len(conj) == 4 and all(a.y[0] == 1 and sum(a.y) == 0 and a.rhs == 0 for a in conj)
    assert len(prop.sha256) == 64 and prop.source.endswith("prop_3.vnnlib")


def test_long_decimals_of_the_test_set_are_exact(shared_dir):
    prop = read_vnnlib(shared_dir / "data" / "vnncomp2021" / "test" / "test_prop.vnnlib")
    ((lower, upper),) = prop.boxes()
    assert upper[2] == q("49999999998567607/100000000000000000")
    assert (prop.n_inputs, prop.n_outputs) == (5, 5)


def test_every_shipped_property_reads_as_a_box(shared_dir):
    files = sorted((shared_dir / "data" / "vnncomp2021").glob("*/*.vnnlib"))
    assert len(files) >= 8
    for path in files:
        prop = read_vnnlib(path)
        assert prop.is_box_union() and prop.unsafe, path


def test_or_form_with_box_and_output_condition(shared_dir):
    # test_tiny.vnnlib: (assert (or (and X-box (>= Y_0 100)))): region from the X part
    prop = read_vnnlib(shared_dir / "data" / "vnncomp2021" / "test" / "test_tiny.vnnlib")
    assert prop.boxes() == (((q(-1),), (q(1),)),)
    assert prop.unsafe == ((reader.LinearAtom((q(0),), (q(-1),), q(-100)),),)


def test_input_union_keeps_x_atoms_in_the_unsafe_disjuncts():
    text = HEADER + """
    (assert (or (and (>= X_0 0) (<= X_0 1) (>= X_1 0) (<= X_1 1) (>= Y_0 1))
                (and (>= X_0 2) (<= X_0 3) (>= X_1 0) (<= X_1 1) (>= Y_1 1))))"""
    prop = read_vnnlib_text(text)
    assert len(prop.input_region) == 2 and len(prop.boxes()) == 2
    # x in the first box with Y_1 >= 1 is no counterexample: the pairing is kept
    assert not prop.holds([q("1/2"), q(0)], [q(0), q(5)])
    assert prop.holds([q("5/2"), q(0)], [q(0), q(5)])
    # atoms common to every region disjunct (0 <= X_1 <= 1) are dropped from unsafe
    assert all(len(c) == 3 for c in prop.unsafe)


def test_and_or_distribute_into_dnf():
    text = HEADER + """
    (assert (and (<= X_0 1) (>= X_0 -1) (<= X_1 1) (>= X_1 -1)))
    (assert (or (<= Y_0 Y_1) (<= Y_0 -3)))
    (assert (or (>= (+ Y_0 (* 0.5 Y_1) -2) 0) (<= (/ Y_1 4) (- 1e-2))))"""
    prop = read_vnnlib_text(text)
    assert len(prop.input_region) == 1 and len(prop.unsafe) == 4
    assert prop.holds([q(0), q(0)], [q(-3), q(-1)])      # Y_0 <= -3, Y_1/4 <= -1/100
    assert not prop.holds([q(0), q(0)], [q(-3), q(0)])


def test_terms_and_numbers():
    text = HEADER + "(assert (<= X_0 1)) (assert (>= X_0 +.5e1)) (assert (<= X_1 -0)) (assert (>= X_1 (- 2.5E-1)))" \
        "(assert (<= (- Y_0 Y_1 (* -3 X_0)) (* 2 (+ 1 1))))"
    prop = read_vnnlib_text(text)
    ((lower, upper),) = prop.boxes()
    assert lower == (q(5), q("-1/4")) and upper == (q(1), q(0))     # an empty box, kept
    (conj,) = prop.unsafe
    assert conj[0].x == (q(3), q(0)) and conj[0].y == (q(1), q(-1)) and conj[0].rhs == q(4)


def test_constant_comparisons():
    box = "(assert (<= X_0 1)) (assert (>= X_0 0)) (assert (<= X_1 1)) (assert (>= X_1 0))"
    # a false constant in an output assert empties the unsafe condition: the property holds
    prop = read_vnnlib_text(HEADER + box + "(assert (and (<= Y_0 1) (<= 1 0)))")
    assert prop.unsafe == () and len(prop.input_region) == 1
    # a true one is dropped
    prop = read_vnnlib_text(HEADER + box + "(assert (and (<= Y_0 1) (<= 0 1)))")
    assert [len(c) for c in prop.unsafe] == [1]
    # an input region emptied by constants is refused: nothing to verify
    with pytest.raises(InputError, match="line 7: expected an input region that is not empty"):
        read_vnnlib_text(HEADER + "\n" + box + "\n(assert (or (<= 1 0) (<= 2 1)))\n(assert (>= Y_0 0))")
    with pytest.raises(InputError, match="line 5: expected an input region that is not empty"):
        read_vnnlib_text(HEADER + "(assert (or (and (<= X_0 1) (>= X_0 0) (>= Y_0 1) (<= 1 0))))")


def test_version_2_header():
    text = """(vnnlib-version <2.0>)
    (declare-network f
        (declare-input X Real [1, 2])
        (declare-output Y float32 [2]))
    (assert (<= X[0,0] 1)) (assert (>= X[0,0] 0)) (assert (<= X[0, 1] 1)) (assert (>= X[0,1] 0))
    (assert (== Y[1] 0.5))"""
    prop = read_vnnlib_text(text, n_inputs=2, n_outputs=2)
    assert prop.boxes() == (((q(0), q(0)), (q(1), q(1))),)
    assert prop.holds([q(0), q(0)], [q(7), q("1/2")]) and not prop.holds([q(0), q(0)], [q(7), q(0)])


MALFORMED = [
    ("(declare-const X_0 Real)\n(assert (< X_0 1))", 2, "expected <=, >=, and or or, got '<'"),
    ("(declare-const X_0 Real)\n(assert (<= X_0 1)", 2, "expected ')'"),
    ("(declare-const X_0 Real))", 1, "expected '(' before this ')'"),
    ("(declare-const X_0 Int)", 1, "expected the sort Real"),
    ("(declare-const Z Real)", 1, "expected a variable named X_i"),
    ("(declare-const X_0 Real)\n\n(assert (<= X_1 1))", 3, "X_1 is not declared"),
    ("(declare-const X_0 Real)\n(declare-const X_9 Real)", 2, "which has 5 inputs (X_0 to X_4), got X_9"),
    ("(declare-const X_0 Real)\n(declare-const X_0 Real)", 2, "declared once"),
    ("(declare-const X_0 Real)\n(assert (<= (* X_0 X_0) 1))", 2, "expected a linear term"),
    ("(declare-const X_0 Real)\n(assert (not (<= X_0 1)))", 2, "got 'not'"),
    ("(declare-const X_0 Real)\n(assert (<= X_0 0x1F))", 2, "expected a number or a variable"),
    ("(declare-const X_0 Real)\n(check-sat)", 2, "expected (declare-const ...) or (assert ...)"),
    ("(declare-const X_0 Real)\n(assert (<= X_0 (/ 1 0)))", 2, "nonzero constant"),
    ("(declare-const X_0 Real)\nX_0", 2, "outside any form"),
    ("(vnnlib-version <3.0>)", 1, "expected (vnnlib-version <2.0>)"),
]


@pytest.mark.parametrize("text, line, expected", MALFORMED)
def test_malformed_file_names_file_line_and_expectation(tmp_path, text, line, expected):
    path = tmp_path / "bad.vnnlib"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_vnnlib(path, n_inputs=5, n_outputs=5)
    message = str(info.value)
    assert message.startswith(f"{path}: line {line}: ") and expected in message
    assert "\n" not in message


def test_normal_form_size_is_limited(monkeypatch):
    monkeypatch.setattr(reader, "MAX_DISJUNCTS", 8)
    disj = "(or (<= Y_0 1) (<= Y_0 2) (<= Y_0 3))"
    with pytest.raises(LimitError, match="at most 8 conjunctions"):
        read_vnnlib_text(HEADER + f"(assert (and {disj} {disj}))")


def test_nesting_depth_is_limited():
    deep = "(assert " + "(and " * 5000 + "(<= X_0 1)" + ")" * 5001
    with pytest.raises(LimitError, match="line 5: expected at most 200 nested parentheses"):
        read_vnnlib_text(HEADER + deep)


def test_unreadable_and_non_utf8_files(tmp_path):
    with pytest.raises(InputError, match="missing.vnnlib: no such file"):
        read_vnnlib(tmp_path / "missing.vnnlib")
    bad = tmp_path / "latin.vnnlib"
    bad.write_bytes(b"; ok\n; caf\xe9\n")
    with pytest.raises(InputError, match="line 2: expected UTF-8"):
        read_vnnlib(bad)


ALPHABET = "()<=>-+*/.;eEXY_0123456789 \nandorassertdeclare-constReal\x00é"
VALID = HEADER + "(assert (and (<= X_0 1) (>= X_0 -1) (<= X_1 1.5e0) (>= X_1 -0.25)))\n" \
    "(assert (or (<= (+ Y_0 (* 2 Y_1)) 3) (>= (- Y_1 Y_0) 0.5)))\n"


@given(st.data())
@settings(max_examples=200, deadline=None, derandomize=True, database=None)
def test_mutated_files_are_read_or_refused_in_one_line(data):
    """Any mutation of a valid file is either read or refused with one InputError line naming
    the line: never another exception (and so never a traceback on the command line)."""
    text = VALID
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(text)))
        j = data.draw(st.integers(i, min(len(text), i + 12)))
        text = text[:i] + data.draw(st.text(ALPHABET, max_size=6)) + text[j:]
    try:
        prop = read_vnnlib_text(text, source="fuzz.vnnlib", n_inputs=2, n_outputs=2)
    except InputError as err:
        line = str(err)
        assert line.startswith("fuzz.vnnlib: ") and "\n" not in line
    else:
        assert prop.n_inputs == 2 and prop.n_outputs == 2


def test_many_inputs_and_a_product_of_disjunctions():
    n = 100
    text = "".join(f"(declare-const X_{i} Real)\n" for i in range(n)) + \
        "".join(f"(declare-const Y_{j} Real)\n" for j in range(10))
    text += "".join(f"(assert (<= X_{i} 0.{i + 1}))\n(assert (>= X_{i} -0.{i + 1}))\n" for i in range(n))
    text += "(assert (<= X_0 0.1))\n"                                   # a repeated bound, kept once
    text += "(assert (or " + " ".join(f"(>= Y_{j} Y_0)" for j in range(1, 10)) + "))\n"
    text += "(assert (or (<= Y_0 5) (<= Y_1 6) (<= Y_0 5)))\n"          # a repeated disjunct, kept once
    prop = read_vnnlib_text(text)
    assert [len(c) for c in prop.input_region] == [2 * n]
    assert len(prop.unsafe) == 18 and all(len(c) == 2 for c in prop.unsafe)
    assert len({frozenset(map(str, c)) for c in prop.unsafe}) == 18
