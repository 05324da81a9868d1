"""tracr's compiled models as exact symrel sequence Transformers.

``from_tracr(assembled)`` reads a tracr ``AssembledTransformerModel`` (the result of
``compiling.compile_rasp_to_model``) into a
:class:`~symrel.models.SequenceTransformer`, every float32 weight as its exact dyadic
value (:func:`symrel.interop.floats.exact_array`). The layout is tracr's own
(``tracr/compiler/assemble.py``, ``tracr/transformer/model.py`` and ``attention.py``):

* ``token_embed`` and ``pos_embed`` tables (row-vector convention, transposed here to
  act on columns); BOS sits at position 0, whose position row tracr leaves zero;
* per layer, one haiku ``MultiHeadAttention`` (``query``, ``key``, ``value`` of shape
  ``D x H k``, ``linear`` of shape ``H k x D``, each with a bias), then an MLP
  (``linear_1``, ReLU, ``linear_2``), each with its residual; no layer norm;
* tracr divides the logits by ``sqrt(key_size)`` in float32: the exact logit scale is
  ``1 / s`` with ``s`` the float32 value of ``sqrt(key_size)`` (a dyadic rational);
  tracr's softmax coldness (100 by default) is already inside the query weights;
* causal masking sets masked logits to ``-1e30``; their weight underflows to 0 in the
  float model, and the symrel model leaves masked keys out;
* the unembedding is ``x @ res_to_out`` (a projection held in a closure, not in the
  parameters), read by applying tracr's own unembedding to the identity matrix; the
  output is categorical (argmax, decoded with the output encoder's labels) or numerical.

Every departure from the float model is written to ``model.notes``.
"""

from __future__ import annotations

from ...errors import InputError
from ...exact import Q
from ...models import SequenceAttention, SequenceHead, SequenceLayer, SequenceMLP, SequenceTransformer
from ..extras import require
from ..floats import exact_array

INSTALL = "pip install 'symrel[tracr]'"


def require_tracr():
    """Import tracr (with jax and haiku), or raise MissingExtra with the install line."""
    return require("tracr", "tracr")


def _T(M):
    return [list(r) for r in zip(*M)] if M else M


def _unembedding(assembled, width: int):
    """``res_to_out`` (D x k) as tracr's unembed module computes it on the identity."""
    import haiku as hk
    import jax.numpy as jnp
    import numpy as np

    @hk.without_apply_rng
    @hk.transform
    def project(x):
        return assembled.get_compiled_model().unembed(x, use_unembed_argmax=False)

    @hk.without_apply_rng
    @hk.transform
    def flags(x):
        m = assembled.get_compiled_model()
        return m.use_unembed_argmax, m.pad_token

    U = np.asarray(project.apply({}, jnp.eye(width, dtype=jnp.float32)))
    if U.ndim == 1:
        U = U.reshape(width, 1)
    argmax, pad = flags.apply({}, jnp.zeros(1))
    return exact_array(U, path="unembed"), bool(argmax), pad


def from_tracr(assembled, *, name: str = "") -> SequenceTransformer:
    """The exact symrel model of a tracr ``AssembledTransformerModel``.

    Complexity: linear in the number of parameters (plus one haiku call for the unembedding).
    """
    require_tracr()
    import jax
    import numpy as np

    cfg = assembled.model_config
    params = assembled.params
    if cfg.layer_norm:
        raise InputError("expected a model without layer norm (tracr compiles without it)", path="model_config.layer_norm")
    if cfg.activation_function is not jax.nn.relu:
        raise InputError("expected ReLU MLPs (tracr compiles with jax.nn.relu)", path="model_config.activation_function")
    enc = assembled.input_encoder
    if enc is None or enc.bos_token is None:
        raise InputError("expected a model compiled with a BOS token (compiler_bos)", path="input_encoder")
    tokens = [v for v, _ in sorted(enc.encoding_map.items(), key=lambda kv: kv[1])]
    tok = exact_array(np.asarray(params["token_embed"]["embeddings"]), path="token_embed.embeddings")
    pos = exact_array(np.asarray(params["pos_embed"]["embeddings"]), path="pos_embed.embeddings")
    width = len(tok[0])
    H, k = cfg.num_heads, cfg.key_size
    sqrt_k = np.sqrt(k).astype(np.float32)  # exactly the divisor tracr's attention uses
    scale = 1 / Q(*float(sqrt_k).as_integer_ratio())
    notes = [
        f"{sum(int(np.asarray(a).size) for v in params.values() for a in v.values())} float32 parameters "
        "read as their exact dyadic values",
        f"logit scale 1/{float(sqrt_k)!r}: tracr divides the logits by the float32 value of sqrt(key_size = {k})",
    ]
    if float(sqrt_k) ** 2 != k:
        notes.append(f"sqrt({k}) is irrational: the exact model uses its float32 value, as tracr does")
    layers = []
    for i in range(cfg.num_layers):
        base = f"transformer/layer_{i}"

        def get(name, part):
            return exact_array(np.asarray(params[f"{base}/{name}"][part]), path=f"{base}/{name}.{part}")

        wq, wk, wv, wo = (get(f"attn/{n}", "w") for n in ("query", "key", "value", "linear"))
        bq, bk, bv, bo = (get(f"attn/{n}", "b") for n in ("query", "key", "value", "linear"))
        heads = []
        for h in range(H):
            cols = slice(h * k, (h + 1) * k)
            WQ, WK, WV = (_T([r[cols] for r in w]) for w in (wq, wk, wv))
            WO = _T(wo[cols])
            if not any(any(r) for M in (WQ, WK, WV, WO) for r in M) and not any(bq[cols] + bk[cols] + bv[cols]):
                continue  # a padding head tracr filled with zeros
            heads.append(SequenceHead(WQ, WK, WV, WO, bq[cols], bk[cols], bv[cols], width=width,
                                      path=f"{base}/attn.head[{h}]"))
        attention = None
        if heads or any(bo):
            if not heads:  # only a bias: keep one zero head so that the sublayer adds bO
                z = [[0] * width]
                heads = [SequenceHead(z, z, z, _T(z), width=width)]
            attention = SequenceAttention(heads, bo, scale, width=width, path=f"{base}/attn")
        w1, b1, w2, b2 = get("mlp/linear_1", "w"), get("mlp/linear_1", "b"), get("mlp/linear_2", "w"), get("mlp/linear_2", "b")
        mlp = None
        if any(any(r) for r in w1) or any(b1) or any(any(r) for r in w2) or any(b2):
            mlp = SequenceMLP(_T(w1), b1, _T(w2), b2, width=width, path=f"{base}/mlp")
        layers.append(SequenceLayer(attention, mlp))
    U, categorical, pad = _unembedding(assembled, width)
    if pad is not None:
        raise InputError("expected a model without a padding mask (pad_token is set)", path="pad_token")
    if categorical:
        labels = [v for v, _ in sorted(assembled.output_encoder.encoding_map.items(), key=lambda kv: kv[1])]
        output = "categorical"
    else:
        labels, output = None, "numerical"
    if cfg.causal:
        notes.append("causal: masked logits are -1e30 in tracr (weight 0 after float32 underflow); "
                     "the exact model leaves masked keys out")
    notes.append(f"unembedding read by applying tracr's unembed to the {width} x {width} identity; "
                 f"{output} output")
    return SequenceTransformer(tokens=tokens, bos=enc.bos_token, token_embedding=tok, position_embedding=pos,
                               layers=layers, unembedding=_T(U), output=output, output_labels=labels,
                               causal=cfg.causal, notes=notes)
