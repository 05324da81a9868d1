"""docs/cli.md, the option reference of every command, generated from the argument parser
(:func:`symrel.cli.build_parser`): ``python -m symrel.cli.reference`` rewrites the page, and a
test checks that the page on disk is current. Nothing of it is copied by hand.

>>> text = page()
>>> "## `symrel prove`" in text and "--domain DOMAIN" in text
True
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "cli.md"

INTRO = """# Command line

The `symrel` command is one program with a subcommand per task. This page is generated
from the argument parser itself by `python -m symrel.cli.reference` (do not edit by hand), so
it lists exactly the options of this version; `symrel COMMAND --help` prints the same.

**Exit codes** (every command): `0` the claim holds (proved, checked); `1` the claim is
refuted (a counterexample is printed, and written when asked); `2` bad input or usage (one
line naming the file, the field path and what was expected), or a limit reached (named);
`3` undecided within the limits given (what stayed open is printed). Outputs are written to
a temporary file and renamed, so nothing is ever half-written, and a command that fails or
refutes writes no output file (unless the refutation file is asked for).

**Output**: commands that compute one figure print it on the last line of standard output
and accept `--json` to print one JSON object instead; errors and witnesses go to standard
error in plain mode and into the JSON object in `--json` mode. Negative numbers work in both
`--input=-1/2,3` and `--input -1/2,3`.
"""


def _plain(text: str | None) -> str:
    return " ".join((text or "").replace("``", "`").split())


def _help_text(action: argparse.Action) -> str:
    text = action.help or ""
    if "%(" in text:
        params = {k: (v.__name__ if hasattr(v, "__name__") else v) for k, v in dict(vars(action), prog="symrel").items()}
        text = text % params
    default = action.default
    shown = default not in (None, False, argparse.SUPPRESS) and not isinstance(action, argparse._StoreConstAction)
    if shown and "default" not in text:
        text = f"{text} (default: `{default}`)" if text else f"default: `{default}`"
    return _plain(text)


def _options(parser: argparse.ArgumentParser, skip=()) -> list[str]:
    formatter = parser._get_formatter()
    out = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) or action.dest in skip:
            continue
        out.append(f"- `{formatter._format_action_invocation(action)}`: {_help_text(action) or '(no help)'}")
    return out


def _usage(parser: argparse.ArgumentParser) -> list[str]:
    text = parser.format_usage().strip()
    return ["```text", text[len("usage: "):] if text.startswith("usage: ") else text, "```"]


def page() -> str:
    """The text of docs/cli.md (usage lines wrapped at 80 columns, as a terminal shows them)."""
    from . import build_parser

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"
    try:
        parser = build_parser()
        glob = {a.dest for a in parser._actions}
        out = [INTRO, "## `symrel`", ""] + _usage(parser) + ["", "Options of every command (before or after it):", ""]
        out += _options(parser) + [""]
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        for choice in sub._choices_actions:
            subparser = sub.choices[choice.dest]
            out += [f"## `symrel {choice.dest}`", "", _plain(choice.help), ""] + _usage(subparser) + [""]
            # a description that only repeats the usage line (a module docstring's first line) is left out
            if subparser.description and _plain(subparser.description) != _plain(choice.help) \
                    and not _plain(subparser.description).startswith("`symrel "):
                out += [_plain(subparser.description), ""]
            out += _options(subparser, skip=glob - {"json"}) + [""]
            if subparser.epilog:
                out += [_plain(subparser.epilog), ""]
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    return "\n".join(out).rstrip() + "\n"


def main() -> None:
    from ..fileformat import write_text_atomic

    write_text_atomic(PAGE, page())
    print(f"wrote {PAGE}")


if __name__ == "__main__":
    main()
