"""Reader and writer of ``kind: "sequence-transformer"`` (docs/format.md), and of token labels.

Token and output labels are JSON strings, integers, booleans or null; a float label
(a tracr value such as ``0.5``) is written ``{"float": "1/2"}`` with its exact value.

>>> label_to_json(0.5), label_from_json({"float": "1/2"}, "x"), label_to_json("BOS")
({'float': '1/2'}, 0.5, 'BOS')
"""

from __future__ import annotations

from ..errors import InputError
from ..exact import FloatLiteral, format_rational, rational, to_fraction
from ..models import SequenceAttention, SequenceHead, SequenceLayer, SequenceMLP, SequenceTransformer
from .fields import expect_object, get, get_list, get_str, join, number, number_rows, numbers
from .registry import reader, writer


def label_to_json(label):
    """A token or output label as JSON (floats by their exact value)."""
    if label is None or isinstance(label, (str, bool, int)):
        return label
    if isinstance(label, float):
        return {"float": format_rational(rational(label, exact_floats=True))}
    raise InputError(f"expected a label that is a string, integer, boolean, float or None, got {type(label).__name__}",
                     path="label")


def label_from_json(obj, path: str):
    """The label ``obj`` stands for (inverse of :func:`label_to_json`)."""
    if isinstance(obj, FloatLiteral):
        raise InputError(f'expected a label; write the float {obj} as {{"float": "p/q"}}', path=path)
    if obj is None or isinstance(obj, (str, bool, int)):
        return obj
    if isinstance(obj, dict) and set(obj) == {"float"}:
        q = rational(obj["float"], path=join(path, "float"))
        try:
            f = float(to_fraction(q))
        except OverflowError:   # beyond the largest float: no float has this value
            f = None
        if f is None or rational(f, exact_floats=True) != q:
            raise InputError("expected the exact value of a binary float", path=join(path, "float"))
        return f
    raise InputError('expected a label: a string, integer, boolean, null or {"float": "p/q"}', path=path)


def _rows(M):
    return [[format_rational(v) for v in r] for r in M]


def _vec(v):
    return [format_rational(x) for x in v]


@writer(SequenceTransformer)
def write_sequence_transformer(m: SequenceTransformer) -> dict:
    layers = []
    for layer in m.layers:
        att = mlp = None
        if layer.attention is not None:
            a = layer.attention
            att = {"scale": format_rational(a.exact_scale), "bO": _vec(a.exact_bO), "heads": [
                {"WQ": _rows(h.exact_WQ), "bQ": _vec(h.exact_bQ), "WK": _rows(h.exact_WK), "bK": _vec(h.exact_bK),
                 "WV": _rows(h.exact_WV), "bV": _vec(h.exact_bV), "WO": _rows(h.exact_WO)} for h in a.heads]}
        if layer.mlp is not None:
            f = layer.mlp
            mlp = {"W1": _rows(f.exact_W1), "b1": _vec(f.exact_b1), "W2": _rows(f.exact_W2), "b2": _vec(f.exact_b2)}
        layers.append({"attention": att, "mlp": mlp})
    out = {"symrel": 1, "kind": "sequence-transformer", "tokens": [label_to_json(t) for t in m.tokens],
           "bos": label_to_json(m.bos), "causal": m.causal, "token_embedding": _rows(m.exact_token_embedding),
           "position_embedding": _rows(m.exact_position_embedding), "layers": layers,
           "unembedding": _rows(m.exact_unembedding), "output": m.output}
    if m.output_labels is not None:
        out["output_labels"] = [label_to_json(v) for v in m.output_labels]
    if m.notes:
        out["notes"] = list(m.notes)
    return out


@reader("sequence-transformer")
def read_sequence_transformer(obj, path=""):
    tokens = [label_from_json(t, join(join(path, "tokens"), i))
              for i, t in enumerate(get_list(obj, "tokens", path, "tokens", min_len=1))]
    bos = label_from_json(get(obj, "bos", path), join(path, "bos"))
    causal = get(obj, "causal", path, default=False)
    if not isinstance(causal, bool):
        raise InputError("expected true or false", path=join(path, "causal"))
    tok = number_rows(get(obj, "token_embedding", path), join(path, "token_embedding"), rows=len(tokens))
    if not tok or not tok[0]:
        raise InputError("expected a non-empty embedding table", path=join(path, "token_embedding"))
    width = len(tok[0])
    pos = number_rows(get(obj, "position_embedding", path), join(path, "position_embedding"), cols=width)
    layers = []
    for i, L in enumerate(get_list(obj, "layers", path, "layers")):
        lp = join(join(path, "layers"), i)
        expect_object(L, lp)
        att = mlp = None
        A = L.get("attention")
        if A is not None:
            ap = join(lp, "attention")
            expect_object(A, ap)
            heads = []
            for h, H in enumerate(get_list(A, "heads", ap, "heads", min_len=1)):
                hp = join(join(ap, "heads"), h)
                expect_object(H, hp)
                mats = {k: number_rows(get(H, k, hp), join(hp, k), cols=None if k == "WO" else width)
                        for k in ("WQ", "WK", "WV", "WO")}
                vecs = {k: numbers(get(H, k, hp), join(hp, k)) if k in H else None for k in ("bQ", "bK", "bV")}
                heads.append(SequenceHead(mats["WQ"], mats["WK"], mats["WV"], mats["WO"], vecs["bQ"], vecs["bK"],
                                          vecs["bV"], width=width, path=hp))
            bO = numbers(get(A, "bO", ap), join(ap, "bO"), length=width) if "bO" in A else None
            att = SequenceAttention(heads, bO, number(get(A, "scale", ap), join(ap, "scale")), width=width, path=ap)
        F = L.get("mlp")
        if F is not None:
            fp = join(lp, "mlp")
            expect_object(F, fp)
            W1 = number_rows(get(F, "W1", fp), join(fp, "W1"), cols=width)
            mlp = SequenceMLP(W1, numbers(get(F, "b1", fp), join(fp, "b1"), length=len(W1)),
                              number_rows(get(F, "W2", fp), join(fp, "W2"), rows=width),
                              numbers(get(F, "b2", fp), join(fp, "b2"), length=width), width=width, path=fp)
        layers.append(SequenceLayer(att, mlp))
    output = get_str(obj, "output", path, choices=("categorical", "numerical"))
    labels = None
    if output == "categorical":
        labels = [label_from_json(v, join(join(path, "output_labels"), i))
                  for i, v in enumerate(get_list(obj, "output_labels", path, "output labels", min_len=1))]
    notes = obj.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise InputError("expected a list of strings", path=join(path, "notes"))
    return SequenceTransformer(tokens=tokens, bos=bos, token_embedding=tok, position_embedding=pos, layers=layers,
                               unembedding=number_rows(get(obj, "unembedding", path), join(path, "unembedding"),
                                                       cols=width),
                               output=output, output_labels=labels, causal=causal, notes=notes, path=path)
