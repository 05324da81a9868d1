"""The ``symrel`` command line.

Each subcommand lives in its own module of :mod:`symrel.cli.commands` and
defines ``register(subparsers)``; this module parses the arguments and maps
exceptions to the exit codes of docs/format.md:
0 proved/checked, 1 refuted, 2 bad input or usage, 3 undecided.
Only the module of the subcommand named on the command line is imported (the others are
listed by their summary), so ``symrel --version`` and ``symrel --help`` start without
sympy.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import InputError, SymrelError, UndecidedError
from .commands import SUMMARIES, module_name

EXIT_OK, EXIT_REFUTED, EXIT_BAD_INPUT, EXIT_UNDECIDED = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    """argparse that exits with code 2 and one line, as docs/format.md asks."""

    def error(self, message):  # pragma: no cover - exercised through main
        self.exit(EXIT_BAD_INPUT, f"symrel: error: {message}\n")

    def format_help(self):
        # descriptions come from module docstrings, whose ``literals`` are reST markup
        return super().format_help().replace("``", "")


def build_parser(command: str | None = None, *, every: bool = True) -> argparse.ArgumentParser:
    """The argument parser. By default every subcommand is registered in full (the CLI
    documentation is generated from it); with ``every=False`` only ``command`` is, and the
    others are left out (building twenty parsers costs a small claim's proof again); with
    no command either, every subcommand is a placeholder carrying its summary, which is all
    that ``symrel --help`` shows of them."""
    parser = _Parser(prog="symrel", description=__doc__.splitlines()[0])
    from .._version import __version__

    parser.add_argument("--version", action="version", version=f"symrel {__version__}")
    _add_global_options(parser, default=None)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in sorted(SUMMARIES, key=module_name):
        if every or name == command:
            importlib.import_module(f"{__name__}.commands.{module_name(name)}").register(sub)
            _add_global_options(sub.choices[name], default=argparse.SUPPRESS)  # also after the subcommand
        elif command is None:
            sub.add_parser(name, help=SUMMARIES[name])
    return parser


def _command_named(argv: list[str]) -> str | None:
    """The subcommand on the command line: the first word that names one (before it come
    only the global options, whose values are numbers)."""
    return next((word for word in argv if word in SUMMARIES), None)


def _add_global_options(parser, default) -> None:
    """``--max-digits``, ``--max-exponent``, ``--max-denominator-bits``, ``--max-product-bits`` and
    ``--digits``; on a subcommand their default is
    SUPPRESS, so a value given before the subcommand is kept."""
    parser.add_argument("--max-digits", type=_integer, default=default, metavar="N",
                        help="refuse numbers with more than N digits in a numerator or denominator (default 10000)")
    parser.add_argument("--max-exponent", type=_integer, default=default, metavar="N",
                        help="refuse decimal exponents beyond N in absolute value (default 10000)")
    parser.add_argument("--max-denominator-bits", type=_integer, default=default, metavar="N",
                        help="refuse (verify: unknown) a common denominator of numbers read from a file of more than "
                             "N bits, bounded before it is built (default 100000)")
    parser.add_argument("--max-product-bits", type=_integer, default=default, metavar="N",
                        help="refuse (verify: unknown) exact arithmetic whose numbers, bounded before it is done from "
                             "the numbers read, could have more than N bits (default 200000)")
    parser.add_argument("--digits", type=_integer, default=default, metavar="N",
                        help="also show every rational of the text output as a decimal with N significant digits "
                             "(for reading; the exact value comes first, and JSON output keeps it alone)")


def _integer(text: str) -> int:
    """argparse type of an integer option (:func:`symrel.cli.common.integer_option`, loaded only
    when an option is given: ``symrel --version`` loads no number code)."""
    from .common import integer_option

    return integer_option(text)


def _fix_negative_values(argv: list[str]) -> list[str]:
    """Let ``--input -1/2,3`` work: argparse takes ``-1/2,3`` for an option, so a
    value-taking option followed by a token that starts with ``-`` and a digit is
    glued into ``--input=-1/2,3``."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if (
            tok.startswith("--")
            and "=" not in tok
            and i + 1 < len(argv)
            and len(argv[i + 1]) > 1
            and argv[i + 1][0] == "-"
            and argv[i + 1][1] in "0123456789./"
        ):
            out.append(f"{tok}={argv[i + 1]}")
            i += 2
            continue
        out.append(tok)
        i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns (and, as a script, exits with) the exit code."""
    argv = _fix_negative_values(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser(_command_named(argv), every=False)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    from .common import resolve_progress

    resolve_progress(args)
    from ..exact import number_limits
    from ..exact.numbers import unlimited_int_digits
    from ..exact.sizes import arithmetic_limits

    from .common import DISPLAY_DIGITS, check_display_digits

    token = DISPLAY_DIGITS.set(None)
    try:
        check_display_digits(args.digits)
        DISPLAY_DIGITS.set(args.digits)
        # inputs are held to symrel's own digit limits when read; numbers computed from them
        # may then exceed Python's int<->text limit (4,300 digits) and must still print
        with number_limits(args.max_digits, args.max_exponent), unlimited_int_digits(), \
                arithmetic_limits(args.max_denominator_bits, args.max_product_bits):
            code = args.func(args)
    except InputError as err:
        _report_error(args, err.one_line())
        return EXIT_BAD_INPUT
    except UndecidedError as err:
        _report_error(args, str(err), label="undecided")
        return EXIT_UNDECIDED
    except SymrelError as err:
        _report_error(args, str(err))
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("symrel: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (``symrel ... | head``): stop quietly, as Unix tools do
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    finally:
        DISPLAY_DIGITS.reset(token)
    return int(code or 0)


def _report_error(args, line: str, label: str = "error") -> None:
    """One line on standard error, ``symrel: LABEL: line`` (``error`` for exit 2,
    ``undecided`` for exit 3); with ``--json`` also ``{LABEL: line}`` on standard output."""
    if getattr(args, "json", False):
        import json

        print(json.dumps({label: line}))
    print(f"symrel: {label}: {line}", file=sys.stderr)


#: the cyclic collector's thresholds in a ``symrel`` process: CPython's default (700, 10, 10)
#: runs a collection every 700 allocations, and while a command imports its modules (a
#: hundred of them, and python-flint's) the older generations are traversed again and again:
#: about a tenth of a small claim's instructions (docs/benchmarks.md, "The small claims as
#: whole processes"). Later collections stay as they were, only rarer.
PROCESS_GC_THRESHOLDS = (20_000, 20, 20)


def run() -> None:
    """The ``symrel`` process (console script and ``python -m symrel``): :func:`main`, then
    exit with its code. Only a process of its own is tuned: the collector's thresholds are
    :data:`PROCESS_GC_THRESHOLDS`, and at the end every object still alive is frozen
    (``gc.freeze``) so that the interpreter's shut-down does not traverse them all for cycles
    a few more times; files and handlers close as usual. :func:`main` itself, called from
    Python, changes nothing."""
    import gc

    gc.set_threshold(*PROCESS_GC_THRESHOLDS)
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
