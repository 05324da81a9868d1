"""The hostile input files of a fresh round (issue 39): what each tries, the command that reads
it, the exit code and the one line symrel answers, and, where the file found a bug, what symrel
did before. One table, from which README.md's section and docs/checker.md's section "Hostile
input files" are written (``python -m tests.adversarial.hostile``; a test checks they are
current), and which the test module of each class (test_hostile_*.py) runs.

The files are written by hostile_files.py; every command runs in a copy of ``files/`` (where
the large files and the devices are made first).
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILES = HERE / "files"
ROOT = HERE.parents[1]
README = HERE / "README.md"
CHECKER_PAGE = ROOT / "docs" / "checker.md"


@dataclass(frozen=True)
class Row:
    """One hostile file: ``command`` starts with ``symrel``; ``says`` is a regular expression the
    output (standard output, then standard error) must match; ``before`` what symrel did before
    the fix this file found (empty when it found none)."""

    kind: str
    file: str
    tries: str
    command: str
    exit: int
    answer: str
    says: str
    before: str = ""

    @property
    def argv(self) -> list[str]:
        return self.command.split()[1:]

    @property
    def reads_onnx(self) -> bool:
        """Whether the command names an ``.onnx`` file (imported with the onnx extra only)."""
        return any(arg.endswith(".onnx") for arg in self.argv)


V, O, N, J, W, C, D = "vnnlib", "onnx", "nnet", "json", "witness and instance lists", "certificates", "devices"
#: the network of the VNN-LIB, witness and device rows: the JSON model, so that symrel's core (no
#: numpy, no onnx) reads every hostile file of those formats (the ONNX rows read their own files)
NET = "helper-net-2.json"
VERIFY = f"symrel verify {NET} {{}} --executor serial"

ROWS = [
    # -- VNN-LIB --------------------------------------------------------------------------------------
    Row(V, "vnnlib-cr-in-comment.vnnlib",
        "a comment holding a CR alone, then `(assert (>= Y_1 100))` on the same line: SMT-LIB (and z3) end a "
        "comment at LF only and read one unsafe assert (sat); the competition's reader (Python's universal "
        "newlines) ends it at the CR and reads two (unsat)",
        VERIFY.format("vnnlib-cr-in-comment.vnnlib"), 2,
        "refused, naming the line: a CR alone inside a comment", r"line 8: expected a comment to end at a line feed",
        "`sat` (read as z3 reads it, while the competition's scripts answer unsat)"),
    Row(V, "vnnlib-declared-twice.vnnlib", "`(declare-const X_1 Real)` twice (z3 refuses a redeclaration)",
        VERIFY.format("vnnlib-declared-twice.vnnlib"), 2, "refused, naming both lines",
        r"line 5: expected each variable declared once, X_1 was declared on line 2"),
    Row(V, "vnnlib-leading-zero-index.vnnlib",
        "`(assert (<= X_01 0))`: in SMT-LIB `X_01` is another symbol than `X_1` (undeclared: z3 refuses), "
        "which `int` reads as 1",
        VERIFY.format("vnnlib-leading-zero-index.vnnlib"), 2, "refused: a variable index with a leading zero",
        r"line 9: expected a variable named without a leading zero, got 'X_01'",
        "`unsat`, with `X_01` read as `X_1` (the region cut to X_1 = 0)"),
    Row(V, "vnnlib-or-of-boxes.vnnlib",
        "one `(assert (or (and X-box Y-condition) (and X-box Y-condition)))` over two disjoint boxes, the "
        "counterexample in the second only: a reader that merges the boxes, or keeps the first, misses it",
        VERIFY.format("vnnlib-or-of-boxes.vnnlib"), 1, "`sat`, the witness in the second box (X_0 = X_1 = 7/8)",
        r"^sat\nX_0 = 7/8"),
    Row(V, "vnnlib-negative-zero.vnnlib", "bounds `-0.0`, `-0` and `0e5`, a box of one point, unsafe if Y_0 >= -0.0",
        VERIFY.format("vnnlib-negative-zero.vnnlib"), 1, "`sat` at the point (0, 0): every zero is 0",
        r"^sat\nX_0 = 0\nX_1 = 0\n"),
    Row(V, "vnnlib-string-literal.vnnlib",
        "an SMT-LIB string literal `\"(assert (>= Y_1 100))\"` in a `set-info`: parentheses inside a string, "
        "which a reader counting parentheses by line takes for an assert",
        VERIFY.format("vnnlib-string-literal.vnnlib"), 2, "refused: only declare-const and assert are read",
        r"line 9: expected \(declare-const \.\.\.\) or \(assert \.\.\.\), got '\(set-info"),
    Row(V, "vnnlib-quoted-symbol.vnnlib", "`(declare-const |X_0| Real)`: SMT-LIB's quoted symbol, the same as X_0",
        VERIFY.format("vnnlib-quoted-symbol.vnnlib"), 2, "refused, naming the symbol (never taken for another)",
        r"line 1: expected a variable named X_i \(input\) or Y_j \(output\), got '\|X_0\|'"),
    Row(V, "vnnlib-bom.vnnlib", "a UTF-8 byte order mark before the first form",
        VERIFY.format("vnnlib-bom.vnnlib"), 2, "refused, naming the character", r"line 1: expected '\(', got '\\ufeff'"),
    Row(V, "vnnlib-nul-in-number.vnnlib", "a NUL byte inside a bound (`1\\x00`), where C readers stop",
        VERIFY.format("vnnlib-nul-in-number.vnnlib"), 2, "refused, naming the line",
        r"line 6: expected a number or a variable X_i / Y_j, got '1\\x00'"),
    Row(V, "vnnlib-vacuous-unsafe.vnnlib", "the unsafe condition `(<= (- Y_0 Y_0) -1)`, false by its constants: an "
        "`unsat` that says nothing of the network",
        VERIFY.format("vnnlib-vacuous-unsafe.vnnlib"), 0, "`unsat`, checked, and a line `vacuous:` saying why",
        r"^unsat\n.*checked.*\nvacuous: the unsafe condition is an empty disjunction",
        "`unsat` alone (only `check-certificate` said the claim was vacuous)"),
    Row(V, "vnnlib-input-only-disjunct.vnnlib", "an unsafe disjunct over the inputs alone, `(or (<= X_0 0.25) (>= Y_0 "
        "100))`: every input with X_0 <= 1/4 is a counterexample, whatever the outputs",
        VERIFY.format("vnnlib-input-only-disjunct.vnnlib"), 1, "`sat` with a witness of X_0 <= 1/4",
        r"^sat\nX_0 = (0|\d+/\d+ \(~0\.(0|1|2[0-4])\d*\))\n"),
    Row(V, "vnnlib-unbounded-input.vnnlib", "X_1 declared and never bounded (the competition's reader asserts every "
        "input bounded)", VERIFY.format("vnnlib-unbounded-input.vnnlib"), 2, "refused, naming the input",
        r"expected a bounded input region: X_1 has no lower bound"),
    Row(V, "vnnlib-input-beyond-net.vnnlib", "a third input X_2, bounded, for a network of two inputs",
        VERIFY.format("vnnlib-input-beyond-net.vnnlib"), 2, "refused, naming the network's inputs",
        r"line 5: expected a variable of the network, which has 2 inputs \(X_0 to X_1\), got X_2"),
    Row(V, "vnnlib-normal-form-blowup.vnnlib",
        "(generated, 85 KB) 16 disjunctions of two atoms and 2,000 atoms common to all: a normal form of 65,536 "
        "conjunctions of 2,016 atoms", "symrel info vnnlib-normal-form-blowup.vnnlib", 2,
        "refused before it is built: `expected a normal form of at most 2000000 atoms`",
        r"line 35: expected a normal form of at most 2000000 atoms", "2.4 GB and more than 2 minutes (stopped)"),
    Row(V, "vnnlib-repeated-atom.vnnlib",
        "(generated, 2.2 MB) 16 disjunctions of two atoms, then one atom 100,000 times: merged into each of "
        "65,536 conjunctions every time, 6.5 billion merges that add nothing", "symrel info vnnlib-repeated-atom.vnnlib",
        2, "refused once its merges pass the same bound", r"expected a normal form of at most 2000000 atoms",
        "hours of merging (stopped after 60 s)"),
    Row(V, "vnnlib-deep-nesting.vnnlib", "(generated, 0.6 MB) 100,000 nested `(and`",
        "symrel info vnnlib-deep-nesting.vnnlib", 2, "refused at 200 levels (the depth limit)",
        r"line 9: expected at most 200 nested parentheses"),
    # -- ONNX -----------------------------------------------------------------------------------------
    Row(O, "onnx-external-data.onnx", "the first weight in a file beside it (`onnx-external-data.bin`, ONNX's "
        "external data): the sha256 of the .onnx bytes, which certificates record, would not cover the weights",
        "symrel import onnx-external-data.onnx -o out.json", 2, "refused unread: every tensor must be in the file itself",
        r"the data of tensor 'W1' is in another file \('onnx-external-data.bin', ONNX external data\)",
        "read the weights from the other file (edit it, and the network changes under the same file hash)"),
    Row(O, "onnx-external-data-outside.onnx", "external data at `../../../../../../etc/hostname`, outside the folder",
        "symrel import onnx-external-data-outside.onnx -o out.json", 2, "refused before any file is opened",
        r"the data of tensor 'W' is in another file \('\.\./\.\./"),
    Row(O, "onnx-two-default-opsets.onnx", "the default opset imported twice, as `''` 13 and `'ai.onnx'` 18: ReduceMax "
        "takes its axes as an attribute at 13 and as an input at 18, and onnxruntime takes the last",
        "symrel import onnx-two-default-opsets.onnx -o out.json", 2, "refused: which version applies is ambiguous",
        r"expected one version of the default ONNX opset, got \[13, 18\]",
        "read at opset 13 (the first), refused only by the onnxruntime guard; without onnxruntime, read"),
    Row(O, "onnx-sparse-initializer.onnx", "the weight as a sparse initializer (onnxruntime densifies it)",
        "symrel import onnx-sparse-initializer.onnx -o out.json", 2, "refused, naming it",
        r"sparse initializers are not read \(got 'W'\)", "refused with `ONNX shape inference fails ... wrong rank (0)`"),
    Row(O, "onnx-nan-weight.onnx", "a NaN weight", "symrel import onnx-nan-weight.onnx -o out.json", 2,
        "refused, naming the file, the initializer and the entry",
        r"onnx-nan-weight\.onnx: initializer W: expected finite values, got nan at index \[0, 0\]",
        "the same line without the file's name"),
    Row(O, "onnx-raw-data-short.onnx", "a weight's `raw_data` one byte short of its dims",
        "symrel import onnx-raw-data-short.onnx -o out.json", 2, "refused, naming the file and the initializer",
        r"onnx-raw-data-short\.onnx: initializer W: cannot read the tensor", "the same line without the file's name"),
    Row(O, "onnx-initializer-named-as-input.onnx", "an initializer named as the input `x` (onnxruntime lets a fed "
        "value override it)", "symrel import onnx-initializer-named-as-input.onnx -o out.json", 2,
        "refused: no input besides initializers", r"expected one graph input \(besides initializers\), got 0"),
    Row(O, "onnx-initializer-listed-as-input.onnx", "the weight `W` listed among the graph inputs, before `x` (as IR "
        "version 3 had it): a reader taking the first input would feed the weight",
        "symrel eval onnx-initializer-listed-as-input.onnx --input 1,-2", 0,
        "`x` is the input and `W` the constant, as onnxruntime reads it: (1, -2) gives (-5, -6)", r"^-5\n-6\n"),
    Row(O, "onnx-output-is-input.onnx", "no nodes, the graph output named as the input",
        "symrel eval onnx-output-is-input.onnx --input 1/3,-2", 0, "the identity, as onnxruntime computes",
        r"^1/3.*\n-2\n"),
    Row(O, "onnx-duplicate-initializer.onnx", "two initializers named `W` (onnxruntime takes the last, 2I)",
        "symrel import onnx-duplicate-initializer.onnx -o out.json", 2, "refused by the ONNX checker",
        r"not a valid ONNX model: W initializer name is not unique"),
    Row(O, "onnx-constant-shadows-initializer.onnx", "a Constant node writing `W`, an initializer's name "
        "(onnxruntime takes the Constant, 3I)", "symrel import onnx-constant-shadows-initializer.onnx -o out.json", 2,
        "refused by the ONNX checker (static single assignment)", r"not a valid ONNX model: Graph must be in single "
        r"static assignment"),
    Row(O, "onnx-float16.onnx", "float16 input and weights, one weight 0.1", "symrel eval onnx-float16.onnx --input 1,1",
        0, "the weight read bit for bit: 819/8192, the float16 nearest to 0.1", r"^819/8192.*\n1\n"),
    Row(O, "onnx-float64.onnx", "float64 input and weights, one weight 0.1", "symrel eval onnx-float64.onnx --input 1,1",
        0, "the weight read bit for bit: 3602879701896397/36028797018963968", r"^3602879701896397/36028797018963968"),
    Row(O, "onnx-dead-node-unknown-domain.onnx", "a node of an unknown domain whose output nothing reads (symrel skips "
        "nodes the output does not need; onnxruntime cannot load the graph)",
        "symrel import onnx-dead-node-unknown-domain.onnx -o out.json", 2,
        "refused by the onnxruntime guard: the file is not a model onnxruntime runs",
        r"onnxruntime cannot load the graph: .*com\.example\.evil"),
    Row(O, "onnx-scalar-input.onnx", "an input of rank 0 (a scalar)", "symrel eval onnx-scalar-input.onnx --input -3",
        0, "one input X_0: relu(-3) = 0", r"^0\n"),
    Row(O, "onnx-huge-declared-input.onnx", "an input declared (1, 2^40)",
        "symrel import onnx-huge-declared-input.onnx -o out.json", 2, "refused before anything of that size is made",
        r"beyond the limit of 10000000 \(the importer's size limit\)"),
    Row(O, "onnx-nodes-reversed.onnx", "the helper net's nodes in reverse order (onnxruntime sorts them and runs it)",
        "symrel import onnx-nodes-reversed.onnx -o out.json", 2, "refused by the ONNX checker",
        r"Nodes in a graph must be topologically sorted"),
    Row(O, "onnx-dangling-input.onnx", "`Add(x, ghost)`, `ghost` made by nothing",
        "symrel import onnx-dangling-input.onnx -o out.json", 2, "refused by the ONNX checker",
        r"not a valid ONNX model: .*'ghost'"),
    Row(O, "onnx-crossval-other-input.onnx", "the helper net with a fixed input (2, 2), run by `crossval --onnx-file` "
        "beside a JSON model of two inputs",
        "symrel crossval helper-net-2.json --backend onnxruntime --onnx-file onnx-crossval-other-input.onnx --points 3",
        2, "refused, naming the option and the shape", r"--onnx-file: expected an input of 2 entries, as the model has, "
        r"got the shape \(2, 2\)", "a numpy `ValueError` traceback (cannot reshape), exit 1"),
    Row(O, "onnx-attention-negative-dim.onnx", "an attention graph (Softmax or Hardmax, read by the attention importer) "
        "whose input is declared (N, -2)", "symrel import onnx-attention-negative-dim.onnx -o out.json", 2,
        "refused: the attention importer now runs the ONNX checker, the input's shape and shape inference first",
        r"input x: axis 1 has size -2: expected a positive size",
        "a numpy `ValueError` traceback (negative dimensions), exit 1"),
    # -- .nnet ----------------------------------------------------------------------------------------
    Row(N, "nnet-cr-in-comment.nnet", "the header behind a comment's CR alone: a line of its own for Python's "
        "universal newlines, part of the comment for the C readers' `fgets` (which then take the sizes line for "
        "the header)", "symrel import nnet-cr-in-comment.nnet -o out.json", 2, "refused: lines end at LF or CR LF",
        r"line 1: expected lines ending in LF or CR LF, got a CR alone", "read as Python reads it"),
    Row(N, "nnet-header-more-layers.nnet", "a header of 3 layers over the data of 2",
        "symrel import nnet-header-more-layers.nnet -o out.json", 2, "refused at the end of the data",
        r"expected row 1 of the weights of layer 3, got the end of the file"),
    Row(N, "nnet-header-fewer-layers.nnet", "a header of 1 layer over the data of 2",
        "symrel import nnet-header-fewer-layers.nnet -o out.json", 2, "refused: data after the last bias",
        r"expected the end of the file after the last bias"),
    Row(N, "nnet-max-width-lie.nnet", "the header's max width 1 where a layer has 2 neurons (the C readers size their "
        "buffers by it)", "symrel import nnet-max-width-lie.nnet -o out.json", 2, "refused, naming the largest layer",
        r"line 2: expected the header's max width to be the largest layer size 2, got 1", "read (the field ignored)"),
    Row(N, "nnet-extra-value-in-row.nnet", "a third value in a row of two weights (the format's own readers take the "
        "first two)", "symrel import nnet-extra-value-in-row.nnet -o out.json", 2, "refused, naming the line",
        r"line 9: expected row 1 of the weights of layer 1: 2 numbers, got 3"),
    Row(N, "nnet-negative-range.nnet", "input ranges of -1: `(x - mean) / range` turns [0, 1] into [-1, 0]",
        "symrel import nnet-negative-range.nnet -o out.json --box box.json", 0,
        "read; the box of the normalised inputs is [-1, 0] twice", r"out\.json",
        "refused: `input bounds[0]: expected lower <= upper, got [0, -1]`"),
    # -- JSON -----------------------------------------------------------------------------------------
    Row(J, "json-exact-float-overflow.json", "a JSON float weight `1e400` read with `--exact-floats`: no double has it",
        "symrel eval json-exact-float-overflow.json --input 1 --exact-floats", 2, "refused, naming the field",
        r"json-exact-float-overflow\.json: layers\[0\]\.W\[0\]\[0\]: expected a finite number, got 1e400",
        "refused with the path `value` instead of the field"),
    Row(J, "json-exact-float-underflow.json", "a JSON float weight `1e-400` with `--exact-floats`: the double the text "
        "denotes is 0 (as json and numpy read it)", "symrel eval json-exact-float-underflow.json --input 1 --exact-floats",
        0, "read as that double, 0: the output is 0 (write `\"1e-400\"` for the decimal)", r"^0\n"),
    Row(J, "json-bom.json", "a UTF-8 byte order mark before the object", "symrel eval json-bom.json --input 1", 2,
        "refused", r"Unexpected UTF-8 BOM"),
    Row(J, "json-nan-weight.json", "a `NaN` token as a weight", "symrel eval json-nan-weight.json --input 1 --exact-floats",
        2, "refused, naming the token", r"got the non-standard JSON token NaN"),
    Row(J, "json-duplicate-key.json", "the key `b` twice in a layer (Python's json keeps the last)",
        "symrel eval json-duplicate-key.json --input 1", 2, "refused, naming the key", r"duplicate key 'b'"),
    Row(J, "json-domain-beyond-double.json", "a `crossval` domain bound `1e309`, beyond every float format",
        "symrel crossval helper-net-2.json --domain json-domain-beyond-double.json --points 3", 2,
        "refused, naming the bound", r"domain\.bounds\[1\]\[1\]: expected a domain within the finite range of float32",
        "an `OverflowError` traceback, exit 1 (a bound beyond float32 only: a numpy overflow warning, exit 1)"),
    # -- counterexamples and instance lists -----------------------------------------------------------
    Row(W, "witness-beyond-double.txt", "a counterexample value `1e400`, beyond the doubles the competition's float "
        "check reads it into", "symrel verify helper-net-2.json helper-sat-2.vnnlib --check-witness "
        "witness-beyond-double.txt", 1, "refuted exactly (outside the region); the float check reads it as infinity "
        "and fails", r"^refuted\ninput in the region: no",
        "an `OverflowError` traceback, exit 1: the code of a refuted witness"),
    Row(W, "witness-cr-in-comment.txt", "`(X_0 0.5) ; was\\r(X_0 1.0)`: a second X_0 behind a CR in a comment, seen "
        "by Python's line readers only", "symrel verify helper-net-2.json helper-sat-2.vnnlib --check-witness "
        "witness-cr-in-comment.txt", 2, "refused: a CR alone inside a comment",
        r"line 2: expected a comment to end at a line feed"),
    Row(W, "witness-pair-after-close.txt", "a pair `(X_0 0)` after the assignment's closing parenthesis",
        "symrel verify helper-net-2.json helper-sat-2.vnnlib --check-witness witness-pair-after-close.txt", 2,
        "refused, naming the line", r"line 6: expected an assignment"),
    Row(W, "witness-index-beyond.txt", "a pair for `X_` followed by 30 nines",
        "symrel verify helper-net-2.json helper-sat-2.vnnlib --check-witness witness-index-beyond.txt", 2,
        "refused, naming the network's inputs", r"expected a variable of the network \(2 inputs\)"),
    Row(W, "instances-nul-in-path.csv", "a NUL character inside an instance's property path",
        "symrel verify --instances instances-nul-in-path.csv --out results.csv --executor serial", 3,
        "the instance is an error row, its reason on one line", r"instance on line 1: .*expected a path without NUL",
        "a `ValueError` traceback (embedded null byte), exit 1"),
    Row(W, "instances-device-path.csv", "an instance whose property is `/dev/zero`",
        "symrel verify --instances instances-device-path.csv --out results.csv --executor serial", 3,
        "the instance is an error row: a device is not read", r"instance on line 1: /dev/zero: expected a regular file "
        r"or a pipe, got a character device", "read `/dev/zero` until memory ran out"),
    Row(W, "instances-dotdot.csv", "paths through `..` (relative to the list, as the competition reads them)",
        "symrel verify --instances instances-dotdot.csv --out results.csv --executor serial", 0,
        "decided, `unsat`; the certificate records file names, never the `..` path", r"1 of 1 decided"),
    # -- certificates ---------------------------------------------------------------------------------
    Row(C, "certificate-network-file-stripped.json", "a `verify` certificate without `claim.network_file` (optional), "
        "bound to `onnx-reserialized.onnx`: other bytes (another producer) of the same network",
        "symrel check-certificate certificate-network-file-stripped.json --input network=onnx-reserialized.onnx", 0,
        "checked, bound by the network imported again, and the output says so (no claim about the bytes)",
        r"bound: input 'network' is the file onnx-reserialized\.onnx: the object imported exactly from it"),
    Row(C, "onnx-reserialized.onnx", "the same network as other bytes, against a certificate that records the bytes "
        "(`claim.network_file`)", "symrel check-certificate helper-certificate-2.json --input "
        "network=onnx-reserialized.onnx", 1, "rejected: not the file the verification read",
        r"rejected at claim\.network_file\.sha256: the file onnx-reserialized\.onnx has sha256"),
    Row(C, "certificate-property-source-dotdot.json", "`claim.property_source` set to `../helper-prop-2.vnnlib`",
        "symrel check-certificate certificate-property-source-dotdot.json", 2,
        "refused: certificates record file names, never paths",
        r"claim\.property_source: expected a file name without a directory"),
    Row(C, "certificate-property-of-other-file.json", "`claim.property_sha256` set to the sha256 of "
        "`helper-sat-2.vnnlib`, the claim's atoms those of the property verified: bound to that file by its bytes",
        "symrel check-certificate certificate-property-of-other-file.json --input property=helper-sat-2.vnnlib", 1,
        "rejected: the file's bytes match, the property read from it does not",
        r"rejected at claim\.property\.unsafe: the file helper-sat-2\.vnnlib reads as 1 disjuncts here, the claim has 2"),
    # -- devices --------------------------------------------------------------------------------------
    *[Row(D, f"device-zero.{ext}", f"`/dev/zero` under the name of a{'n' if ext[0] in 'aeio' else ''} .{ext} file "
          "(a symbolic link the test makes): a file without end", command, 2,
          "refused before a byte is read", r"device-zero\.\w+: expected a regular file or a pipe, got a character "
          r"device", before)
      for ext, command, before in (
          ("vnnlib", "symrel info device-zero.vnnlib", "read until memory ran out"),
          ("onnx", "symrel verify device-zero.onnx helper-prop-2.vnnlib", "hashed forever (stopped after 60 s)"),
          ("json", "symrel eval device-zero.json --input 1", "read until memory ran out"),
          ("nnet", "symrel import device-zero.nnet -o out.json", "read until memory ran out"),
          ("txt", "symrel verify helper-net-2.json helper-sat-2.vnnlib --check-witness device-zero.txt",
           "read until memory ran out"),
          ("csv", "symrel verify --instances device-zero.csv", "read until memory ran out"))],
]

BY_FILE = {}
for _row in ROWS:
    BY_FILE.setdefault(_row.file, _row)


def rows(kind: str) -> list[Row]:
    return [row for row in ROWS if row.kind == kind]


def working_folder(tmp_path: Path) -> Path:
    """A copy of ``files/`` with the generated files and the devices made in it."""
    from .hostile_files import write_generated

    folder = tmp_path / "files"
    shutil.copytree(FILES, folder, symlinks=True)
    write_generated(folder)
    return folder


#: what the commands write in the working folder (removed before each run)
OUTPUTS = ("out.json", "box.json", "results.csv", "results.csv.d")


def run_row(run_cli, row: Row, folder: Path, monkeypatch) -> tuple:
    """The row's command in process, in ``folder``; its exit code, output and error, checked."""
    for name in OUTPUTS:
        path = folder / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    monkeypatch.chdir(folder)
    code, out, err = run_cli(*row.argv)
    check_row(row, code, out, err, folder)
    return code, out, err


#: the one line of a command that needs the onnx extra, in symrel's core (without numpy or onnx)
MISSING_ONNX = re.compile(r"symrel: error: ([\w.-]+\.onnx: )?(numpy|onnx) is not installed; install the extra: pip install "
                          r"'symrel\[onnx\]'\n")


def check_row(row: Row, code, out: str, err: str, folder: Path) -> None:
    """The row's exit code; its line; one line on standard error when it fails, never a traceback.
    In symrel's core a row that reads an ``.onnx`` file may instead be refused with the one line
    naming the onnx extra (exit 2), when its answer needs the file imported."""
    from .hostile_files import onnx_installed

    if row.reads_onnx and not onnx_installed() and MISSING_ONNX.fullmatch(err):
        assert (code, out) == (2, ""), (row.command, code, out, err)
        assert not (folder / "out.json").exists()
        return
    assert code == row.exit, (row.command, code, out, err)
    assert "Traceback" not in err and "Traceback" not in out, err
    assert re.search(row.says, out + err, re.M), (row.says, out, err)
    lines = [line for line in err.splitlines() if line.strip() and "imported on the fly" not in line]
    if code == 3 and "--instances" in row.command:   # a line for the instance's error, one summing it up
        lines = [line for line in lines if line.startswith("symrel: instance on line")]
        assert len(lines) == 1, err
    elif code == 2:
        assert len(lines) == 1, err
    elif code != 0:   # a refutation or an open verdict: at most the line that sums it up
        assert len(lines) <= 1, err
    if code == 2:
        assert err.startswith("symrel: error: ") or "\nsymrel: error: " in err, err
        assert not (folder / "out.json").exists()


# -- the listings ----------------------------------------------------------------------------------------
def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _answer(row: Row) -> str:
    fixed = f" **Fixed:** before, {row.before}." if row.before else ""
    return f"{_cell(row.answer)}.{fixed}"


README_BEGIN = "<!-- hostile files: begin (python -m tests.adversarial.hostile) -->"
README_END = "<!-- hostile files: end -->"
PAGE_BEGIN = "<!-- hostile input files: begin (python -m tests.adversarial.hostile) -->"
PAGE_END = "<!-- hostile input files: end -->"
KIND_TITLES = {V: "VNN-LIB", O: "ONNX", N: ".nnet", J: "symrel JSON", W: "Counterexamples and instance lists",
               C: "Certificates and their bindings", D: "Devices"}


def readme_section() -> str:
    out = [README_BEGIN, "", "## A fresh round: hostile files by format", "",
           "The files of `hostile_files.py` (`python -m tests.adversarial.hostile_files` writes them; the",
           "generated ones and the devices are made by the tests), each run with its command in a copy of `files/`",
           "by `test_hostile_*.py`: the exit code, the line symrel answers, never a traceback. Where the file found",
           "a bug, the row says what symrel did before; the fix is its own commit. This section is written by",
           "`python -m tests.adversarial.hostile` from `hostile.py`.", ""]
    for kind, title in KIND_TITLES.items():
        out += [f"### {title}", "", "| file | what it tries | command | exit | symrel |", "|---|---|---|---|---|"]
        out += [f"| `files/{row.file}` | {_cell(row.tries)} | `{row.command}` | {row.exit} | {_answer(row)} |"
                for row in rows(kind)]
        out.append("")
    out.append(README_END)
    return "\n".join(out)


def page_section() -> str:
    fixed = [row for row in ROWS if row.before]
    out = [PAGE_BEGIN, "", "## Hostile input files", "",
           f"A fresh round of {len(ROWS)} files (issue 39), written reading symrel's readers (JSON, the number",
           "grammar, ONNX, VNN-LIB, `.nnet`, instance lists, counterexamples) and the code that binds a",
           "certificate to files, as an attacker would: each tries to be read as something other than what",
           "its own tools read (onnxruntime, numpy, z3, the competition's Python scripts, the C readers of",
           "`.nnet`), to bind a certificate to another file, to exhaust time or memory, or to crash a reader.",
           "Each ends with the exit code shown and one line, never a traceback",
           "(`tests/adversarial/test_hostile_*.py`; the files, their commands and the lines are listed in",
           f"`tests/adversarial/README.md`). {len(fixed)} of them found a bug, fixed at the reader that had it;",
           "their rows say what symrel did before.", ""]
    for kind, title in KIND_TITLES.items():
        out += [f"### {title}", "", "| file | what it tries | exit | symrel |", "|---|---|---|---|"]
        out += [f"| `{row.file}` | {_cell(row.tries)} | {row.exit} | {_answer(row)} |" for row in rows(kind)]
        out.append("")
    out.append(PAGE_END)
    return "\n".join(out)


def updated(text: str, begin: str, end: str, section: str) -> str:
    """``text`` with the section between ``begin`` and ``end`` replaced (appended when absent)."""
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        return head + section + rest.split(end, 1)[1]
    return text.rstrip("\n") + "\n\n" + section + "\n"


def main() -> None:
    README.write_text(updated(README.read_text(encoding="utf-8"), README_BEGIN, README_END, readme_section()),
                      encoding="utf-8")
    CHECKER_PAGE.write_text(updated(CHECKER_PAGE.read_text(encoding="utf-8"), PAGE_BEGIN, PAGE_END, page_section()),
                            encoding="utf-8")


if __name__ == "__main__":
    main()
