"""How symrel objects show themselves: short reprs and rich notebook display.

An object that mixes in :class:`~symrel.exact.displayed.Displayed` describes itself once, as a
:class:`Card` (a title, labelled fields, an optional table), and gets from it a
short ``repr`` (at most :data:`REPR_LIMIT` characters, whatever its size) and
Jupyter's ``_repr_html_``, ``_repr_markdown_`` and ``_repr_latex_``. Exact
rationals are shown exactly, with a decimal view beside them; a rational too
long to read is shortened in the display only (the object keeps it whole).

>>> q = Q(-1525, 10000)
>>> number_text(q)
'-61/400 (-0.1525)'
>>> decimal_text(Q(1, 3), 4), decimal_text(Q(1, 10**6)), decimal_text(Q(10**10, 3), 4)
('0.3333', '1e-6', '3.333e+9')
>>> short_text("x" * 100, 10)
'xxxxxxxxx…'
"""

from __future__ import annotations

import sys

from .numbers import Q, denominator, numerator, rational_str

#: The longest ``repr`` a symrel object prints.
REPR_LIMIT = 300
#: Significant digits of the decimal views.
DIGITS = 6


def is_number(v) -> bool:
    """Whether ``v`` is an exact rational (an int, a QQ element, a sympy or
    fractions Rational), not a bool or a string."""
    if isinstance(v, (bool, str)):
        return False
    if isinstance(v, int) or Q.of_type(v):
        return True
    if isinstance(v, getattr(sys.modules.get("sympy"), "Rational", ())):  # none without sympy
        return True
    return (
        hasattr(v, "numerator") and hasattr(v, "denominator") and not isinstance(v, float))


def decimal_text(q, digits: int = DIGITS) -> str:
    """``q`` as a decimal with ``digits`` significant digits (for reading only;
    the exact value is what symrel uses): the exact quotient rounded half away from zero
    (:mod:`decimal`, no float), in fixed point when the exponent e of the first digit has
    ``min(-(digits // 3), -5) < e < digits``, else as ``d.ddde-7`` (mpmath's ``nstr`` layout).

    >>> decimal_text(Q(1, 3), 4), decimal_text(Q(1, 400000)), decimal_text(Q(-1234567)), decimal_text(Q(1, 80), 2)
    ('0.3333', '2.5e-6', '-1.23457e+6', '0.013')
    """
    import decimal

    p, d = int(numerator(q)), int(denominator(q))
    if d == 1 and len(str(abs(p))) <= digits:
        return str(p)
    ctx = decimal.Context(prec=digits, rounding=decimal.ROUND_HALF_UP, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    sign, digs, exp = ctx.divide(decimal.Decimal(p), decimal.Decimal(d)).as_tuple()
    first = len(digs) + exp - 1                   # the exponent of the first significant digit
    text = "".join(map(str, digs)).rstrip("0") or "0"
    if min(-(digits // 3), -5) < first < digits:
        if first >= 0:
            text = text.ljust(first + 1, "0")
            whole, frac = text[:first + 1], text[first + 1:]
        else:
            whole, frac = "0", "0" * (-first - 1) + text
        out = whole + ("." + frac if frac else "")
    else:
        out = text[0] + ("." + text[1:] if len(text) > 1 else "") + (f"e+{first}" if first > 0 else f"e{first}")
    return ("-" if sign else "") + out


def decimal_upper_text(q, digits: int = DIGITS) -> str:
    """The least decimal of ``digits`` significant digits that is ``>= q``, as text: what to
    print after "<=" for a certified upper bound (a nearest rounding could print a number
    below it). Exact: :mod:`decimal` rounds the exact quotient with ``ROUND_CEILING``.

    >>> decimal_upper_text(Q(12301, 10000), 3), decimal_upper_text(Q(-1, 3), 3), decimal_upper_text(Q(1, 10**7), 3)
    ('1.24', '-0.333', '1e-7')
    """
    import decimal

    ctx = decimal.Context(prec=digits, rounding=decimal.ROUND_CEILING)
    value = ctx.divide(decimal.Decimal(int(numerator(q))), decimal.Decimal(int(denominator(q))))
    mantissa, e, exp = f"{value:g}".partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return mantissa + (e + str(int(exp)) if e else "")


def short_text(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def exact_text(q, limit: int = 40) -> str:
    """``q`` exactly (``"-2/7"``), or, when longer than ``limit``, its digit
    counts (``"<53 digits>/<50 digits>"``) so a display stays readable."""
    text = rational_str(q)
    if len(text) <= limit:
        return text
    p, d = abs(int(numerator(q))), int(denominator(q))
    sign = "-" if numerator(q) < 0 else ""
    return f"{sign}<{len(str(p))} digits>" + (f"/<{len(str(d))} digits>" if d != 1 else "")


def number_text(q, digits: int = DIGITS) -> str:
    """``q`` exactly with its decimal view: ``"-61/400 (-0.1525)"`` (an integer
    or a short decimal alone)."""
    exact, dec = exact_text(q), decimal_text(q, digits)
    return exact if exact == dec else f"{exact} ({dec})"


def value_text(v, digits: int = DIGITS) -> str:
    """A value for display: numbers by :func:`number_text`, lists of numbers
    as ``(a, b, ...)``, anything else as ``str``."""
    if is_number(v):
        return number_text(v, digits)
    if isinstance(v, (list, tuple)) and v and all(is_number(x) for x in v):
        return "(" + ", ".join(number_text(x, digits) for x in v) + ")"
    return str(v)


def latex_value(v) -> str:
    """A value as LaTeX math: rationals via ``sympy.latex``, lists as tuples,
    text in ``\\text{}``."""
    if is_number(v):
        p, d = int(numerator(v)), int(denominator(v))
        if len(str(abs(p))) + len(str(d)) > 40:
            return r"\text{" + latex_text(exact_text(v)) + r"}\approx " + decimal_text(v)
        import sympy

        return sympy.latex(sympy.Rational(p, d))
    if isinstance(v, (list, tuple)) and v and all(is_number(x) for x in v):
        return r"\left(" + ", ".join(latex_value(x) for x in v) + r"\right)"
    return r"\text{" + latex_text(str(v)) + "}"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
                  "^": r"\^{}", "_": r"\_", "%": r"\%", "~": r"\~{}"}


def latex_text(text: str) -> str:
    """``text`` with LaTeX's special characters escaped (for ``\\text{}``)."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


class Card:
    """What an object shows: ``title`` (one line), ``fields`` (label, value)
    and an optional table (``header``, ``rows``) of values; ``more_rows``: the rows left out
    of the table."""

    def __init__(self, title: str, fields: list | None = None, header: list | None = None,
                 rows: list | None = None, more_rows: int = 0):
        self.title, self.more_rows = title, more_rows
        self.fields = [] if fields is None else fields
        self.header = [] if header is None else header
        self.rows = [] if rows is None else rows

    def __eq__(self, other):
        return type(other) is Card and vars(self) == vars(other)

    __hash__ = None

    def __repr__(self):
        return f"Card({self.title!r}, fields={self.fields!r}, header={self.header!r}, rows={self.rows!r})"

    def markdown(self) -> str:
        out = [f"**{self.title}**", ""]
        out += [f"- {k}: {value_text(v)}" for k, v in self.fields]
        if self.header:
            esc = lambda t: str(t).replace("|", r"\|").replace("\n", " ")  # noqa: E731
            out += ["", "| " + " | ".join(esc(h) for h in self.header) + " |",
                    "| " + " | ".join("---" for _ in self.header) + " |"]
            out += ["| " + " | ".join(esc(value_text(c)) for c in r) + " |" for r in self.rows]
            if self.more_rows:
                out.append(f"\n({self.more_rows} more rows)")
        return "\n".join(out) + "\n"

    def html(self) -> str:
        import html     # here: html.entities is a large table, not needed to print text

        e = html.escape
        out = ['<div class="symrel">', f"<p><strong>{e(self.title)}</strong></p>"]
        if self.fields:
            out.append("<ul>" + "".join(f"<li>{e(k)}: {e(value_text(v))}</li>" for k, v in self.fields) + "</ul>")
        if self.header:
            out.append("<table><thead><tr>" + "".join(f"<th>{e(str(h))}</th>" for h in self.header) + "</tr></thead><tbody>")
            out += ["<tr>" + "".join(f"<td>{e(value_text(c))}</td>" for c in r) + "</tr>" for r in self.rows]
            out.append("</tbody></table>")
            if self.more_rows:
                out.append(f"<p>({self.more_rows} more rows)</p>")
        out.append("</div>")
        return "\n".join(out)

    def latex(self) -> str:
        lines = [r"\text{" + latex_text(self.title) + "}"]
        lines += [r"\text{" + latex_text(k) + ":}\\ " + latex_value(v) for k, v in self.fields]
        body = r" \\ ".join(lines)
        table = ""
        if self.header:
            cols = "l" * len(self.header)
            head = " & ".join(r"\text{" + latex_text(str(h)) + "}" for h in self.header)
            rows = [" & ".join(latex_value(c) for c in r) for r in self.rows]
            table = r" \\ \begin{array}{" + cols + "}" + head + r" \\ \hline " + r" \\ ".join(rows) + r"\end{array}"
            if self.more_rows:
                table += r" \\ \text{(" + str(self.more_rows) + " more rows)}"
        return r"$\begin{array}{l}" + body + table + r"\end{array}$"
