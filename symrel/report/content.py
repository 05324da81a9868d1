"""What a lemma proved, as lines of mathematics read from its certificate.

A step's certificate holds the exact objects the checker recomputes: affine forms
``[c, [[v, a], ...]]`` (``c + sum a y_v``), max nodes, ReLU signs with their bounds,
hardmax argmax sets, Farkas vectors (docs/format.md). :func:`content_lines` shows
each of them in one line of TeX: at most :data:`MAX_LINES` lines per record and
:data:`MAX_TERMS` terms per line; what does not fit is pointed to by its JSON path in
the certificate (``steps[5].certificate.hidden``), never rounded. The records that
only say where a step is (``model``, ``layer``, ``block``) are in the lemma's text.
Cost: linear in the part shown.

>>> form_tex(["-3/2", [[0, 1], [2, "1/4"]]])
'-\\\\frac{3}{2} + y_{0} + \\\\frac{1}{4} y_{2}'
>>> content_lines({"box": [[-1, 1], [0, "1/2"]]}, "steps[0].certificate")
[[Math(tex='D = [-1, 1] \\\\times [0, \\\\frac{1}{2}]')]]
>>> content_lines({"scores": {"q0": {"k0": 0, "k1": "1/2"}}}, "steps[0].certificate")
[[Math(tex='\\\\mathrm{scores}(\\\\mathrm{q0}, \\\\cdot):\\\\ \\\\mathrm{k0} \\\\mapsto 0, \\\\mathrm{k1} \\\\mapsto \\\\frac{1}{2}')]]
"""

from __future__ import annotations

from .document import Code, Math

#: records shown per key, and terms shown per line
MAX_LINES, MAX_TERMS = 4, 8
#: keys that only locate a step (its lemma says where)
_LOCATION = ("model", "layer", "block")


def number_tex(v) -> str:
    """A rational (int or ``"p/q"`` text) as TeX."""
    text = str(v)
    sign = "-" if text.startswith("-") else ""
    body = text.lstrip("-")
    if "/" in body:
        p, q = body.split("/", 1)
        return f"{sign}\\frac{{{p}}}{{{q}}}"
    return text


def key_tex(key: str) -> str:
    """A record's name as a TeX symbol: one letter in italics, a word upright."""
    if len(key) == 1 and key.isalpha():
        return key
    return "\\mathrm{" + key.replace("_", "\\_") + "}"


def _is_number(v) -> bool:
    from ..exact import is_rational_text

    return not isinstance(v, bool) and is_rational_text(v)


def _is_form(v) -> bool:
    return (isinstance(v, list) and len(v) == 2 and _is_number(v[0]) and isinstance(v[1], list)
            and all(isinstance(t, list) and len(t) == 2 and isinstance(t[0], int) for t in v[1]))


def form_tex(form, limit: int = MAX_TERMS) -> str:
    """An affine form ``[c, [[v, a], ...]]`` as TeX in the variables ``y_v`` (at most
    ``limit`` terms, then ``\\ldots``)."""
    const, terms = form
    text = number_tex(const) if str(const) != "0" or not terms else ""
    for k, (v, a) in enumerate(terms):
        if k >= limit:
            return text + " + \\ldots"
        mag = str(a).lstrip("-")
        term = ("" if mag == "1" else number_tex(mag) + " ") + f"y_{{{v}}}"
        neg = str(a).startswith("-")
        text = (text + (" - " if neg else " + ") + term) if text else ("-" if neg else "") + term
    return text


def _seq(items: list, limit: int = MAX_TERMS) -> str:
    shown = items if len(items) <= limit else items[:limit - 1] + ["\\ldots"]
    return ", ".join(shown)


def _vector(values) -> str:
    return "(" + _seq([number_tex(v) for v in values]) + ")"


def _lines(items: list, render, path: str, noun: str) -> list:
    """``render(k, item)`` for the first items, then a pointer to the rest."""
    out = []
    for k, item in enumerate(items[:MAX_LINES]):
        tex = render(k, item)
        if tex is not None:
            out.append([Math(tex)])
    if len(items) > MAX_LINES:
        more = len(items) - MAX_LINES
        out.append([f"… {more} more {noun if more > 1 else noun[:-1]} at ", Code(path)])
    return out


def _max_tex(m: dict) -> str:
    """A max in normal form ``{"result", "dropped"}``: its result, and each dropped term with its margin."""
    res = m.get("result")
    text = form_tex(res) if _is_form(res) else str(res)
    drops = [f"{form_tex(t)} \\text{{ dropped, margin }} {number_tex(b)}" for t, _, b in m.get("dropped", [])
             if _is_form(t)]
    return text + ("\\quad(" + "; ".join(drops[:2]) + (", \\ldots" if len(drops) > 2 else "") + ")" if drops else "")


def _node(k, n) -> str:
    terms = [form_tex(t) for t in n.get("terms", [])]
    lo, hi = n.get("range", ["?", "?"])
    return f"y_{{{n.get('id')}}} = \\max({_seq(terms, 4)}) \\in [{number_tex(lo)}, {number_tex(hi)}]"


def _relu(rec) -> str:
    kind = rec[0]
    if kind == "+":
        return f"z \\ge {number_tex(rec[1])}"
    if kind == "-":
        return f"z \\le {number_tex(rec[1])}"
    if kind == "pair":
        return f"\\text{{pair with }} h_{{{rec[1] + 1}}}"
    if kind == "node":
        return "\\max(0, z) \\text{ kept}"
    return str(kind)


def _hidden(k, per_token) -> str:
    records = [_relu(r) for r in per_token]
    if len(set(records)) == 1:
        return f"h_{{{k + 1}}}:\\ {records[0]} \\text{{ at every token}}"
    return f"h_{{{k + 1}}}:\\ " + ",\\ ".join(f"{r}\\ (t = {t + 1})" for t, r in enumerate(records[:4])) + (
        ",\\ \\ldots" if len(records) > 4 else "")


def _head_record(r: dict) -> str:
    if r.get("rule") == "argmax-set":
        winners = ", ".join(str(w + 1) for w in r.get("winners", []))
        margins = [m for m in r.get("margins", []) if _is_number(m)]
        least = f",\\ \\text{{margin}} \\ge {number_tex(min(margins, key=_rational))}" if margins else ""
        return f"\\operatorname{{argmax}} = \\{{{winners}\\}}{least}"
    if r.get("rule") == "max":
        return "\\max_{s} \\text{score}_{s} = " + _max_tex(r.get("max", {}))
    return str(r.get("rule"))


def _rational(v):
    from ..exact import rational

    return rational(v)


def _head(k, per_query) -> str:
    records = [_head_record(r) if isinstance(r, dict) else str(r) for r in per_query]
    if len(set(records)) == 1:
        return f"\\text{{head }} {k + 1} \\text{{ (every query)}}:\\ {records[0]}"
    return f"\\text{{head }} {k + 1}:\\ " + ";\\ ".join(f"t = {t + 1}:\\ {r}" for t, r in enumerate(records[:2])) + (
        ";\\ \\ldots" if len(records) > 2 else "")


def _state(k, entry) -> str:
    slot, value = entry
    if _is_form(value):
        return f"\\Sigma[{slot}] = {form_tex(value)}"
    return f"\\Sigma[{slot}] = ({_seq([form_tex(f) if _is_form(f) else str(f) for f in value], 4)})"


def _farkas(values) -> str:
    if all(isinstance(v, list) and len(v) == 2 for v in values):
        return "\\lambda = " + " + ".join(f"{number_tex(m)}\\, r_{{{row + 1}}}" for row, m in values[:MAX_TERMS]) + (
            " + \\ldots" if len(values) > MAX_TERMS else "")
    return "\\lambda = " + _vector(values)


def _is_matrix(value) -> bool:
    """A non-empty list of equal-length non-empty lists of numbers."""
    return (isinstance(value, list) and bool(value) and all(isinstance(r, list) and r for r in value)
            and len({len(r) for r in value}) == 1 and all(_is_number(v) for r in value for v in r))


def _matrix_lines(key: str, rows: list, path: str) -> list:
    """A matrix as one line of maths per row (the first :data:`MAX_LINES`), after its size;
    an all-zero matrix in one line."""
    m, n = len(rows), len(rows[0])
    name = key_tex(key)
    if all(str(v) in ("0", "-0") for r in rows for v in r):
        return [[Math(f"{name} = 0 \\in \\mathbb{{Q}}^{{{m} \\times {n}}}")]]
    head = [[Math(f"{name} \\in \\mathbb{{Q}}^{{{m} \\times {n}}}"),
             f", {sum(str(v) not in ('0', '-0') for r in rows for v in r)} nonzero; rows:"]]
    return head + _lines(rows, lambda k, r: f"{name}_{{{k + 1}, \\cdot}} = {_vector(r)}", path, "rows")


def _name_tex(name) -> str:
    """A label from the certificate (a key or query name) as upright text."""
    return "\\mathrm{" + str(name).replace("_", "\\_") + "}"


def _named_values(key: str, table: dict, path: str) -> list:
    """A table ``{name: number}`` in one line, or ``{row: {column: number}}`` one line per row."""
    name = key_tex(key)
    if all(_is_number(v) for v in table.values()):
        items = [f"{_name_tex(k)} \\mapsto {number_tex(v)}" for k, v in table.items()]
        return [[Math(f"{name}:\\ " + _seq(items))]]
    rows = list(table.items())

    def row(k, item):
        label, values = item
        items = [f"{_name_tex(c)} \\mapsto {number_tex(v)}" for c, v in values.items()]
        return f"{name}({_name_tex(label)}, \\cdot):\\ {_seq(items)}"
    return _lines(rows, row, path, "rows")


def _is_table(value) -> bool:
    """``{name: number}`` or ``{row: {column: number}}``, non-empty."""
    if not isinstance(value, dict) or not value:
        return False
    if all(_is_number(v) for v in value.values()):
        return True
    return all(isinstance(r, dict) and r and all(_is_number(v) for v in r.values()) for r in value.values())


def _key_lines(key: str, value, path: str, model: str = "") -> list:
    if key == "box" and isinstance(value, list) and all(isinstance(b, list) and len(b) == 2 for b in value):
        sides = [f"[{number_tex(lo)}, {number_tex(hi)}]" for lo, hi in value]
        tex = "D = " + " \\times ".join(sides[:6]) + (" \\times \\cdots" if len(sides) > 6 else "")
        return [[Math(tex)] + (["; in full at ", Code(path)] if len(sides) > 6 else [])]
    if key == "nodes" and isinstance(value, list) and all(isinstance(n, dict) for n in value):
        return _lines(value, _node, path, "max nodes")
    if key == "units" and isinstance(value, list) and all(isinstance(u, dict) for u in value):
        return _lines(value, lambda k, u: f"u_{{{k + 1}}} = {_max_tex(u)}", path, "units")
    if key.startswith("outputs") and isinstance(value, list) and all(_is_form(f) for f in value):
        def output(k, f):
            names = [model] if model else ["A", "B"]
            return " = ".join(f"{n}_{{{k + 1}}}(x)" for n in names) + f" = {form_tex(f)}"
        return _lines(value, output, path, "outputs")
    if key == "state" and isinstance(value, list) and all(isinstance(e, list) and len(e) == 2 for e in value):
        return _lines(value, _state, path, "slots")
    if key == "hidden" and isinstance(value, list) and all(isinstance(h, list) for h in value):
        return _lines(value, _hidden, path, "hidden units")
    if key == "heads" and isinstance(value, list) and all(isinstance(h, list) for h in value):
        return _lines(value, _head, path, "heads")
    if key in ("farkas", "duals") and isinstance(value, list) and value:
        return [[Math(_farkas(value))]]
    if _is_number(value):
        return [[Math(f"{key_tex(key)} = {number_tex(value)}")]]
    if isinstance(value, list) and value and all(_is_number(v) for v in value):
        return [[Math(f"{key_tex(key)} = {_vector(value)}")]]
    if isinstance(value, list) and not value:
        return []
    if _is_matrix(value):
        return _matrix_lines(key, value, path)
    if _is_table(value):
        return _named_values(key, value, path)
    if isinstance(value, str):
        return [[Math(f"{key_tex(key)} = {_name_tex(value)}")]]
    from .wording import summarise_value

    return [[f"{key}: "] + summarise_value(value) + ["; in full at ", Code(path)]]


def content_lines(certificate: dict, path: str) -> list:
    """The lines of mathematics of a step's ``certificate`` found at ``path`` in its file."""
    lines: list = []
    keys = sorted(certificate, key=lambda k: k != "nodes")  # the max nodes first: the lines below use them
    for key in keys:
        value = certificate[key]
        if key in _LOCATION:
            continue
        model = {"outputs_a": "A", "outputs_b": "B"}.get(key, str(certificate.get("model", "")).upper())
        lines += _key_lines(str(key), value, f"{path}.{key}", model)
    return lines


__all__ = ["content_lines", "form_tex", "number_tex", "MAX_LINES", "MAX_TERMS"]
