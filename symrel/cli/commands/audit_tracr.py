"""``symrel audit-tracr FILE.py:FUNCTION --vocab 1,2,3 --max-seq-len 5 [--causal] [--report R.md]
[--certificate C.json] [--counterexample X.json] [--executor SPEC] [--max-inputs N] [--no-coldness] [--progress] [--json]``.

Compiles the RASP program that FUNCTION (called without arguments, or with
``max_seq_len=`` when it takes that parameter) returns with tracr, imports the model
exactly and compares RASP, hardmax and certified softmax outputs on every input of
length 1..N over the vocabulary; then certifies the coldness. Exit 0 proved (certificate
and report written when asked), 1 refuted (the input and the three outputs printed, and
written as a ``tracr-counterexample`` file when asked), 3 open (more inputs than
``--max-inputs``, or an enclosure too wide), 2 bad input or tracr missing
(``pip install 'symrel[tracr]'``).
"""

from __future__ import annotations

import sys

from ..common import add_json_flag, add_progress_option, integer_option, print_json
from ..executors import add_executor_option, open_executor
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("audit-tracr", help=SUMMARIES["audit-tracr"],
                       description=__doc__.splitlines()[0])
    p.add_argument("program", metavar="FILE.py:FUNCTION", help="a Python file and a function returning a RASP program")
    p.add_argument("--vocab", required=True, help="comma-separated tokens (integers stay integers), e.g. 1,2,3 or a,b")
    p.add_argument("--max-seq-len", type=integer_option, required=True, help="the longest input (every length 1..N is audited)")
    p.add_argument("--causal", action="store_true", help="compile and audit with causal masking")
    p.add_argument("--compiler-bos", default="BOS", help="tracr's BOS token (default BOS)")
    p.add_argument("--max-inputs", type=integer_option, default=10**6, help="open (exit 3) beyond this many inputs")
    p.add_argument("--no-coldness", action="store_true", help="skip the certified coldness")
    add_progress_option(p, "show the inputs evaluated on standard error")
    p.add_argument("--report", help="write the report in the format the extension names (.md, .tex, .html; "
                   ".json: the certificate of a proved audit)")
    p.add_argument("--certificate", help="write the certificate (proved claims only)")
    p.add_argument("--counterexample", help="write the refuting input and outputs (refuted claims only)")
    add_executor_option(p, "the inputs' checks")
    add_json_flag(p)
    p.set_defaults(func=run)


def parse_vocab(text: str) -> list:
    """``"1,2,3"`` -> ``[1, 2, 3]``; tokens that are not integers (ASCII digits after an optional
    minus: ``"²"`` and ``"٣"`` stay strings) stay strings.

    >>> parse_vocab("1, -2,a,\u00b2")
    [1, -2, 'a', '²']
    """
    from ...errors import InputError
    from ...exact.number_text import BLANKS, integer_from_text

    parts = [t.strip(BLANKS) for t in text.split(",")]
    if not text.strip(BLANKS) or any(t == "" for t in parts):
        raise InputError(f"expected comma-separated tokens such as 1,2,3, got {text!r}", path="--vocab")
    out = [integer_from_text(t, path="--vocab") if t.lstrip("-").isascii() and t.lstrip("-").isdigit() else t
           for t in parts]
    if len(set(map(repr, out))) != len(out):
        raise InputError("a token is listed twice", path="--vocab")
    return out


def load_program(spec: str):
    """``FILE.py:FUNCTION`` -> the function (imported from the file)."""
    import importlib.util
    import os

    from ...errors import InputError

    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise InputError(f"expected FILE.py:FUNCTION, got {spec!r}", path="program")
    if not os.path.isfile(path):
        raise InputError("no such file", path="program").in_file(path)
    module_spec = importlib.util.spec_from_file_location("_symrel_rasp_program", path)
    module = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(module)
    except Exception as err:  # the user's file: any error is bad input
        raise InputError(f"importing it failed: {type(err).__name__}: {err}", path="program").in_file(path) from None
    fn = getattr(module, name, None)
    if not callable(fn):
        raise InputError(f"expected a function {name!r} in the file", path="program").in_file(path)
    return fn


def run(args) -> int:
    import inspect

    from ...errors import InputError
    from ...fileformat import write_json_atomic
    from ...interop.tracr import audit_tracr, require_tracr
    from ...interop.tracr.report import audit_markdown, coldness_line, counterexample_json

    if args.report:  # a name whose extension names no format is refused before the work
        from ...report import report_format

        report_format(args.report)
    require_tracr()
    vocab = parse_vocab(args.vocab)
    if args.max_seq_len < 1:
        raise InputError("expected at least 1", path="--max-seq-len")
    fn = load_program(args.program)
    kwargs = {"max_seq_len": args.max_seq_len} if "max_seq_len" in inspect.signature(fn).parameters else {}
    try:
        program = fn(**kwargs)
    except Exception as err:
        raise InputError(f"calling it failed: {type(err).__name__}: {err}", path="program") from None
    from tracr.rasp import rasp

    if not isinstance(program, rasp.SOp):
        raise InputError(f"expected the function to return a RASP program (an SOp), got {type(program).__name__}",
                         path="program")
    # local worker processes are spawned: jax's threads do not survive a fork
    with open_executor(args.executor, start_method="spawn") as executor:
        try:
            proof = audit_tracr(program, vocab, args.max_seq_len, compiler_bos=args.compiler_bos, causal=args.causal,
                                executor=executor, max_inputs=args.max_inputs, coldness=not args.no_coldness,
                                progress=args.progress)
        except (NotImplementedError, ValueError) as err:  # tracr refuses the program
            raise InputError(f"tracr cannot compile it: {err}".splitlines()[0], path="program") from None
    out = {"result": proof.result, "inputs": proof.extra.get("inputs"), "summary": proof.summary()}
    cold = proof.extra.get("coldness")
    if cold is not None:
        out["coldness"] = cold.to_json()
    if args.report:
        from ...report import write_markdown_report

        said = write_markdown_report(args.report, audit_markdown(proof), "symrel audit-tracr", proof=proof)
        if not said.startswith("report"):
            print(f"symrel: {said}", file=sys.stderr)
    if proof.result == "proved" and args.certificate:
        from ...certificates.io import certificate_of
        from ...checking import stated

        write_json_atomic(args.certificate, stated(certificate_of(proof)))
    if proof.result == "refuted":
        cx = counterexample_json(proof)
        out["counterexample"] = cx
        if args.counterexample:
            write_json_atomic(args.counterexample, cx)
    if proof.result == "open":
        out["obstacle"] = proof.obstacle
    if args.json:
        print_json(out)
        return proof.exit_code
    print(f"inputs: {out['inputs']}")
    if proof.result == "refuted":
        print(f"refuted: input {proof.counterexample}, {proof.counterexample_note}", file=sys.stderr)
    elif proof.result == "open":
        print(f"open: {proof.obstacle}", file=sys.stderr)
    else:
        print(f"coldness: {coldness_line(cold)}")
    print(proof.summary())
    print(proof.result)
    return proof.exit_code
