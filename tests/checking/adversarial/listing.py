"""Write the list of adversarial cases into docs/checker.md, between its markers:
``python -m tests.checking.adversarial.listing`` (a test checks the list is current)."""

from __future__ import annotations

from .harness import ROOT, cases

PAGE = ROOT / "docs" / "checker.md"
BEGIN = "<!-- adversarial cases: begin (python -m tests.checking.adversarial.listing) -->"
END = "<!-- adversarial cases: end -->"


def section() -> str:
    """The Markdown list of the cases, grouped by claim kind."""
    rows = cases()
    out = [BEGIN, "", "## Certificates written by an adversary", "",
           "Hand-written certificates (tests/checking/adversarial/), each written reading the checker's",
           "code to get a false claim accepted or to exhaust time or memory. Every one is refused, with",
           "exit 1 (rejected) or 2 (malformed, or a limit reached, named), within one second of CPU",
           "under a 4 GB address-space limit.", "",
           f"{len(rows)} cases.", "",
           "| case | claim kind | attack | what it tries | exit |", "|---|---|---|---|---|"]
    for case in sorted(rows, key=lambda c: (c.kind, c.attack, c.name)):
        tries = case.tries.replace("|", "\\|")
        out.append(f"| `{case.name}` | {case.kind} | {case.attack} | {tries} | {case.exit} |")
    out += ["", END]
    return "\n".join(out)


def updated(page: str) -> str:
    """``page`` with its adversarial section replaced (appended when it has none)."""
    if BEGIN in page and END in page:
        head, rest = page.split(BEGIN, 1)
        return head + section() + rest.split(END, 1)[1]
    return page.rstrip("\n") + "\n\n" + section() + "\n"


def main() -> None:
    PAGE.write_text(updated(PAGE.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
