"""The words of a report: rules said in the papers' vocabulary, certificates summarised.

Every prover names the rule that establishes a step (``Step.rule``). A report
says, for each step, *why* it holds: the rule in words, in the vocabulary of the
papers (maxout unit, rank, token-wise shift, hardmax, region, utility), as the rule
registry :mod:`symrel.certificates.rules` has it. A rule not in the registry (a
step made outside symrel's provers) is still reported, by name, with its note.

A certificate is plain JSON data; :func:`summarise_certificate` turns it into a
few readable lines: scalars in full, vectors and matrices by their size, a few
entries and their extremes.

>>> rule_in_words("relu-as-max-node")[:44]
'a ReLU whose argument changes sign on the do'
>>> summarise_certificate({"lower": "-3/2", "farkas": ["1/2", 0, 0, 0, 0, 0, 0, 3]})
[['lower = ', '-3/2'], ['farkas: ', 'vector of 8 rationals (', '1/2, 0, 0, 0, …, 3', ')']]
"""

from __future__ import annotations

from ..certificates.rules import RULES
from ..exact import is_rational_text


def rule_in_words(rule: str) -> str:
    """Why a step established by ``rule`` holds, in words ('' when unknown). A step
    established by several rules names them joined by ``+``; their words are joined.

    >>> rule_in_words("relu-fixed-sign+relu-pair-identity").count("; and ")
    1
    """
    words = [RULES[r].wording if r in RULES else "" for r in rule.split("+")]
    if not all(words):
        return ""
    return "; and ".join(words)


def _shown(values, head: int = 4) -> str:
    texts = [str(v) for v in values]
    if len(texts) <= head + 2:
        return ", ".join(texts)
    return ", ".join(texts[:head]) + ", …, " + texts[-1]


def _leaves(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    elif is_rational_text(value):
        yield value


def _numbers_note(value) -> str:
    """``", 14 numbers from -7/3 to 5"`` for nested data ('' when it holds none)."""
    from ..exact import rational, rational_str

    numbers = [rational(v) for v in _leaves(value)]
    if not numbers:
        return ""
    if len(numbers) == 1:
        return f", holding the number {rational_str(numbers[0])}"
    return f", {len(numbers)} numbers from {rational_str(min(numbers))} to {rational_str(max(numbers))}"


def summarise_value(value) -> list:
    """One value of a certificate as inline text (without its key)."""
    if is_rational_text(value):
        return [str(value)]
    if isinstance(value, bool) or value is None:
        return [str(value).lower()]
    if isinstance(value, str):
        return [value if len(value) <= 80 else value[:77] + "…"]
    if isinstance(value, list):
        if not value:
            return ["empty list"]
        if all(is_rational_text(v) for v in value):
            return [f"vector of {len(value)} rationals (", _shown(value), ")"]
        if all(isinstance(v, list) and all(is_rational_text(e) for e in v) for v in value):
            cols = {len(v) for v in value}
            shape = f"{len(value)} x {cols.pop()}" if len(cols) == 1 else f"{len(value)} rows"
            nonzero = sum(1 for v in value for e in v if str(e) != "0")
            return [f"{shape} matrix of rationals, {nonzero} nonzero"]
        if all(isinstance(v, dict) for v in value):
            keys = sorted({k for v in value for k in v})
            return [f"{len(value)} record{'s' if len(value) > 1 else ''} ({', '.join(keys[:6])}"
                    f"{', …' if len(keys) > 6 else ''}){_numbers_note(value)}"]
        return [f"list of {len(value)} entr{'ies' if len(value) != 1 else 'y'}{_numbers_note(value)}"]
    if isinstance(value, dict):
        if not value:
            return ["empty"]
        if len(value) <= 4 and all(is_rational_text(v) for v in value.values()):
            out: list = []
            for i, (k, v) in enumerate(value.items()):
                out += ([", "] if i else []) + [f"{k} = ", str(v)]
            return out
        return [f"{len(value)} entries ({', '.join(list(map(str, value))[:6])}{', …' if len(value) > 6 else ''})"
                f"{_numbers_note(value)}"]
    return [str(value)]


def summarise_certificate(certificate: dict, limit: int = 8) -> list[list]:
    """A certificate as at most ``limit`` lines of inline text, one per key."""
    lines = []
    for key, value in list(certificate.items())[:limit]:
        body = summarise_value(value)
        sep = " = " if is_rational_text(value) else ": "
        lines.append([f"{key}{sep}"] + body)
    if len(certificate) > limit:
        lines.append([f"… and {len(certificate) - limit} more entries"])
    return lines
