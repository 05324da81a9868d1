"""Certificates -> a Coq folder that Coq's kernel replays (docs/coq.md).

:func:`export_coq` writes the library of ``symrel/coq`` (``Semantics.v``: what a claim
means; ``Compiler.v``: symrel's construction as a Coq function ``compile`` and the
computable check ``certify`` of its hypotheses; ``Bounds.v``: the proof that ``certify``'s
true means every piece lies within its gating bound on the box; ``Correctness.v``: the
general theorem), then ``Instance.v`` and a ``_CoqProject``, so that
``coq_makefile -f _CoqProject -o Makefile && make`` builds it. ``Instance.v`` holds the
claim's net, box and Transformer as exact rational data (the Transformer by its nonzero
entries, which ``Sparse.v``'s ``decode`` puts in place) and proves, by computation in
Coq's virtual machine, that the Transformer *is* ``compile net Bs`` and that
``certify net box Bs`` returns ``true``. Nothing here decides anything: a Transformer
that is not the compiler's output, or gating bounds B too small for the box, give an
``Instance.v`` that ``coqc`` rejects. The bounds ``Bs`` are read off the Transformer
(block 3l's bias on the scratch slots is ``-B_l``), never recomputed.

Cost: linear in the number of the Transformer's nonzero entries and in the net's size
(ACAS Xu 1_1's 18 blocks: about 1 MB of ``Instance.v``, 3.5 MB if written dense).

>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit
>>> coq_net(MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], ["-1/2"]], [0, 3])])]))
'{| mx_input := 1; mx_layers := [[[([1], 0); ([(-1#2)], 3)]]]; mx_readout := None |}'
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InputError
from ..exact import flat, rows
from ..fileformat import write_text_atomic

#: the library files, in build order (symrel/coq/)
LIBRARY = ("Semantics.v", "Sparse.v", "Compiler.v", "Bounds.v", "Correctness.v", "Linalg.v", "Blocks.v", "Move.v", "Embed.v",
           "Assembly.v", "Gating.v", "MaxBlock.v", "Relu.v", "Theorems.v")
#: the library files of a vnnlib-unsat replay of a ReLU net, in build order
VNN_LIBRARY = ("Semantics.v", "VnnProp.v", "VnnCheck.v", "VnnSound.v")
#: the library files of a vnnlib-unsat replay of a layered net, in build order
LAYERED_LIBRARY = VNN_LIBRARY + ("Layered.v", "LayeredData.v", "LayeredCheck.v", "LayeredSound.v")
LIBRARY_DIR = Path(__file__).resolve().parents[1] / "coq"
#: the logical name of the library (``-R . Symrel`` in the _CoqProject)
LOGICAL = "Symrel"


def coq_q(v) -> str:
    """A rational as a Coq ``Q`` literal in canonical form (what ``Qred`` gives).

    >>> from fractions import Fraction
    >>> coq_q(Fraction(0)), coq_q(Fraction(-3)), coq_q(Fraction(-3, 2))
    ('0', '-3', '(-3#2)')
    """
    n, d = int(v.numerator), int(v.denominator)
    return str(n) if d == 1 else f"({n}#{d})"


def _list(items) -> str:
    return "[" + "; ".join(items) + "]"


def coq_vec(v) -> str:
    return _list(coq_q(x) for x in v)


def coq_mat(M) -> str:
    return _list(coq_vec(r) for r in rows(M))


def coq_net(net) -> str:
    """A maxout net as a ``MaxoutNet`` record (Semantics.v)."""
    layers = _list(_list(_list(f"({coq_vec(w)}, {coq_q(c)})" for w, c in zip(rows(u.pieces.exact_W), flat(u.pieces.exact_b)))
                         for u in layer.units) for layer in net.layers)
    r = net.readout
    readout = "None" if r is None else f"Some ({coq_mat(r.exact_W)}, {coq_vec(flat(r.exact_b))})"
    return f"{{| mx_input := {net.input_dim}; mx_layers := {layers}; mx_readout := {readout} |}}"


def coq_relu_net(net) -> str:
    """A ReLU net as a ``ReluNet`` record (Semantics.v)."""
    layers = _list(f"{{| dn_W := {coq_mat(l.affine.exact_W)}; dn_b := {coq_vec(flat(l.affine.exact_b))}; "
                   f"dn_relu := {'true' if l.activation == 'relu' else 'false'} |}}" for l in net.layers)
    return f"{{| rn_input := {net.input_dim}; rn_layers := {layers} |}}"


def coq_box(box) -> str:
    return _list(f"({coq_q(lo)}, {coq_q(hi)})" for lo, hi in box.exact_bounds)


class Table:
    """The values table of Sparse.v's runs: the net's own numbers in ``relu_values`` /
    ``maxout_values`` order, then ``extras`` (the instance's repeated long values). A row
    that copies a stretch of the table is written as one ``Run col k len``, not value by
    value: Coq reads a number literal in about 0.3 ms, and a compiled Transformer copies
    every weight of its net. Building it costs one pass over the values; :meth:`row` looks
    up each nonzero value (at most 64 places where it occurs).

    >>> from fractions import Fraction as F
    >>> Table([F(1, 2), F(3), F(-1)]).row([F(0), F(1, 2), F(3), F(0), F(7)])
    '[Run 1 0 2; At 4 7]'
    """

    def __init__(self, values, extras=()):
        self.values = list(values) + list(extras)
        self.positions: dict = {}
        for k, v in enumerate(self.values):
            self.positions.setdefault(v, []).append(k)

    def row(self, row) -> str:
        row, out, c = list(row), [], 0
        while c < len(row):
            v = row[c]
            if not v:
                c += 1
                continue
            length, start = 0, 0
            for k in self.positions.get(v, ())[:64]:
                n = 1
                while c + n < len(row) and k + n < len(self.values) and row[c + n] == self.values[k + n]:
                    n += 1
                if n > length:
                    length, start = n, k
            if length >= 2 or (length == 1 and len(coq_q(v)) > 12):
                out.append(f"Run {c} {start} {length}")
                c += length
            else:
                q = coq_q(v)
                out.append(f"At {c} ({q})" if q.startswith("-") else f"At {c} {q}")
                c += 1
        return _list(out)


def coq_srow(row, table: Table | None = None) -> str:
    """The nonzero entries of a row as a Sparse.v ``srow``: ``At column value`` entries,
    or runs of the values table (:class:`Table`).

    >>> from fractions import Fraction
    >>> coq_srow([Fraction(0), Fraction(1, 2), Fraction(0), Fraction(-3)])
    '[At 1 (1#2); At 3 (-3)]'
    """
    return (table or Table(())).row(row)


def net_values(net) -> list:
    """The net's numbers in the order of Sparse.v's ``relu_values`` (each layer: the rows of
    W, then b) or ``maxout_values`` (each piece: w, then c; then the read-out's W and b)."""
    if net.kind == "relu":
        return [x for l in net.layers for x in flat(l.affine.exact_W) + flat(l.affine.exact_b)]
    values = [x for layer in net.layers for u in layer.units
              for w, c in zip(rows(u.pieces.exact_W), flat(u.pieces.exact_b)) for x in list(w) + [c]]
    r = net.readout
    return values + ([] if r is None else flat(r.exact_W) + flat(r.exact_b))


def _vectors(t):
    """Every row and vector :func:`coq_transformer` writes, as lists of rationals."""
    for b in t.blocks:
        for h in (b.attention.heads if b.attention is not None else ()):
            for M in (h.exact_WQ, h.exact_WK, h.exact_WV, h.exact_WO):
                yield from (list(r) for r in rows(M))
        f = b.feedforward
        if f is not None:
            for M in (f.exact_W1, f.exact_W2):
                yield from (list(r) for r in rows(M))
            yield flat(f.exact_b1)
            yield flat(f.exact_b2)
    yield from (list(c) for c in rows(t.embedding.exact_offsets.transpose()))
    yield from (list(r) for r in rows(t.readout.exact_W))
    yield flat(t.readout.exact_b)


def extras_of(t, values) -> list:
    """The Transformer's long values (over 12 characters in Coq) that occur twice or more
    and are not among ``values``, in the order they first occur: the tail of the table."""
    known, counts = set(values), {}
    for vec in _vectors(t):
        for v in vec:
            if v and v not in known and len(coq_q(v)) > 12:
                counts[v] = counts.get(v, 0) + 1
    return [v for v, n in counts.items() if n >= 2]


def coq_svec(M, table: Table | None = None) -> str:
    """A vector (any matrix, its entries row by row) as a Sparse.v ``svec``: its length and
    its nonzero entries."""
    v = flat(M)
    return f"({len(v)}%nat, {coq_srow(v, table)})"


def coq_smat(M, table: Table | None = None) -> str:
    """A matrix as a Sparse.v ``smat``: its number of columns and its rows' nonzero entries."""
    return f"({M.shape[1]}%nat, {_list(coq_srow(r, table) for r in rows(M))})"


def coq_transformer(t, path: str = "transformer", table: Table | None = None) -> str:
    """A hardmax Transformer as a ``SparseTransformer`` record (Sparse.v), whose ``decode``
    (with the values table ``table``) is the ``Transformer`` of Semantics.v: every matrix
    and vector by its nonzero entries (a compiled Transformer is mostly zeros), the offsets
    token by token (``t_offsets[t]`` is token t's starting column)."""
    def smat(M):
        return coq_smat(M, table)

    def svec(M):
        return coq_svec(M, table)

    blocks = []
    for i, b in enumerate(t.blocks):
        if b.attention is None:
            attn = "None"
        elif b.attention.rule != "hardmax":
            raise InputError("Coq's semantics is the hardmax Transformer; this block uses softmax",
                             path=f"{path}.blocks[{i}].attention.rule")
        else:
            attn = "Some " + _list(f"{{| sWQ := {smat(h.exact_WQ)}; sWK := {smat(h.exact_WK)}; "
                                   f"sWV := {smat(h.exact_WV)}; sWO := {smat(h.exact_WO)} |}}"
                                   for h in b.attention.heads)
        f = b.feedforward
        ff = "None" if f is None else (f"Some {{| sW1 := {smat(f.exact_W1)}; sb1 := {svec(f.exact_b1)}; "
                                       f"sW2 := {smat(f.exact_W2)}; sb2 := {svec(f.exact_b2)} |}}")
        blocks.append(f"{{| sattn := {attn}; sff := {ff} |}}")
    emb, out = t.embedding, t.readout
    offsets = _list(f"({len(col)}%nat, {coq_srow(col, table)})" for col in rows(emb.exact_offsets.transpose()))
    return (f"{{| s_rows := {_list(str(r) for r in emb.input_rows)}%nat;\n   s_offsets := {offsets};\n"
            f"   s_blocks := {_list(blocks)};\n   s_out_token := {out.token};\n"
            f"   s_out_W := {smat(out.exact_W)};\n   s_out_b := {svec(out.exact_b)} |}}")


def gating_bounds_of(t, depth: int, path: str = "transformer") -> list:
    """The gating bound B of every layer, read off the Transformer: the first nonzero
    entry of block 3l's ``b2`` is ``-B`` (0 when there is none). Coq then checks that
    the whole Transformer is ``compile net Bs``, so a misreading can only make it fail."""
    if len(t.blocks) != 3 * depth:
        raise InputError(f"expected {3 * depth} blocks (three per layer of the net's maxout form), "
                         f"got {len(t.blocks)}: not the shape of a compiled Transformer", path=f"{path}.blocks")
    bounds = []
    for layer in range(depth):
        f = t.blocks[3 * layer].feedforward
        if f is None:
            raise InputError("expected a feed-forward gating block", path=f"{path}.blocks[{3 * layer}].feedforward")
        nonzero = [v for v in flat(f.exact_b2) if v]
        bounds.append(-nonzero[0] if nonzero else 0 * flat(f.exact_b2)[0])
    return bounds


def instance_text(net, box, transformer, bounds) -> str:
    """``Instance.v``: the data, the two computations, and the claim."""
    relu = net.kind == "relu"
    evaluate = "eval_relu" if relu else "eval_maxout"
    maxout = "(relu_to_maxout net)" if relu else "net"
    general = "compile_relu_correct" if relu else "compile_correct"
    values = "relu_values" if relu else "maxout_values"
    extras = extras_of(transformer, net_values(net))
    table = Table(net_values(net), extras)
    lines = [
        "(* Instance.v, written by `symrel export-coq`: one claim of a certificate, replayed by Coq.",
        "   The claim is stated in Semantics.v's terms alone; the proof is by computation: the",
        "   Transformer is compile " + maxout + " Bs and the hypotheses' check returns true. *)",
        "From Coq Require Import QArith List.",
        "Import ListNotations.",
        f"From {LOGICAL} Require Import Semantics Sparse Compiler Correctness Theorems.",
        "Open Scope Q_scope.",
        "",
        f"Definition net : {'ReluNet' if relu else 'MaxoutNet'} :=\n  {coq_relu_net(net) if relu else coq_net(net)}.",
        "",
        f"Definition box : Box := {coq_box(box)}.",
        "",
        "(* the values the Transformer's runs copy (Sparse.v): the net's numbers, then these *)",
        f"Definition extras : list Q := {coq_vec(extras)}.",
        "",
        f"Definition table : list Q := {values} net ++ extras.",
        "",
        "(* the Transformer's nonzero entries (Sparse.v: decode puts them in place, zeros elsewhere) *)",
        f"Definition transformer_data : SparseTransformer :=\n  {coq_transformer(transformer, table=table)}.",
        "",
        "Definition transformer : Transformer := decode table transformer_data.",
        "",
        "(* the gating bound B of every layer, as read off the Transformer *)",
        f"Definition Bs : list Q := {coq_vec(bounds)}.",
        "",
        "(* by computation in Coq's virtual machine, checked by the kernel at Qed (the two sides",
        "   are compared as values: no normal form is printed back into a term) *)",
        f"Lemma transformer_is_compiled : transformer = compile {maxout} Bs.",
        "Proof. vm_cast_no_check (eq_refl transformer). Qed.",
        "",
        f"Lemma hypotheses_checked : {'certify_relu net' if relu else 'certify net'} box Bs = true.",
        "Proof. vm_cast_no_check (eq_refl true). Qed.",
        "",
        f"Theorem claim : forall x, in_box box x -> agree (eval_transformer transformer x) ({evaluate} net x).",
        "Proof.",
        "  intros x Hx. rewrite transformer_is_compiled.",
        f"  exact ({general}_proof net box Bs hypotheses_checked x Hx).",
        "Qed.",
    ]
    return "\n".join(lines) + "\n"


def claim_parts(cert: dict, path: str = "certificate"):
    """The net (maxout or relu), the box and the Transformer of an equivalence certificate."""
    from ..fileformat import from_json

    claim = cert.get("claim") if isinstance(cert, dict) else None
    if not isinstance(claim, dict) or claim.get("kind") != "equivalence":
        raise InputError("expected an equivalence certificate (claim.kind \"equivalence\")", path="claim.kind")
    inputs = cert.get("inputs")
    if not isinstance(inputs, dict):
        raise InputError("expected the inputs of the claim", path="inputs")
    objects = {}
    for name in ("a", "b", "domain"):
        key = claim.get(name)
        entry = inputs.get(key) if isinstance(key, str) else None
        if not isinstance(entry, dict) or "object" not in entry:
            raise InputError(f"expected inputs[{key!r}] with an object", path=f"claim.{name}")
        objects[name] = (from_json(entry["object"]), f"inputs.{key}.object")
    models = [objects["a"], objects["b"]]
    nets = [m for m in models if m[0].kind in ("maxout", "relu")]
    transformers = [m for m in models if m[0].kind == "transformer"]
    if len(nets) != 1 or len(transformers) != 1:
        kinds = ", ".join(m[0].kind for m in models)
        raise InputError(f"expected a maxout or relu net and a transformer, got {kinds}", path="claim")
    domain, dpath = objects["domain"]
    if domain.kind != "box":
        raise InputError(f"expected a box domain (Coq's claims are over boxes), got {domain.kind}",
                         path=f"{dpath}.kind")
    return nets[0], domain, transformers[0]


def export_coq(cert: dict, out_dir) -> list[Path]:
    """Write the Coq folder for the certificate ``cert`` (its JSON object) into ``out_dir``;
    returns the paths written."""
    (net, _), box, (transformer, tpath) = claim_parts(cert)
    # the depth of the maxout form: one layer per ReLU layer (one for a purely affine net)
    depth = max(1, sum(l.activation == "relu" for l in net.layers)) if net.kind == "relu" else net.depth
    bounds = gating_bounds_of(transformer, depth, tpath)
    return write_coq_folder(out_dir, LIBRARY, instance_text(net, box, transformer, bounds))


def write_coq_folder(out_dir, library, instance: str) -> list[Path]:
    """Write the library files ``library`` (names under :data:`LIBRARY_DIR`), ``Instance.v``
    and a ``_CoqProject`` into ``out_dir``; returns the paths. Everything is computed before
    the first file is written, and each file is written atomically."""
    texts = {name: (LIBRARY_DIR / name).read_text(encoding="utf-8") for name in library}
    texts["Instance.v"] = instance
    texts["_CoqProject"] = f"-R . {LOGICAL}\n" + "\n".join(list(library) + ["Instance.v"]) + "\n"
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in texts.items():
        write_text_atomic(out / name, text)
        written.append(out / name)
    return written


def general_theorem_proved(relu: bool = False) -> bool:
    """Whether the library proves the general theorem outright (some file defines
    ``compile_correct_proof``, or ``compile_relu_correct_proof`` for ReLU nets)."""
    name = "compile_relu_correct_proof" if relu else "compile_correct_proof"
    return any(f"Theorem {name} " in (LIBRARY_DIR / f).read_text(encoding="utf-8") for f in LIBRARY)


def coqc_available() -> str | None:
    """The path of ``coqc`` when it is installed."""
    import shutil

    return shutil.which("coqc")


def _coqc(folder: Path, name: str, timeout):
    import subprocess

    return subprocess.run(["coqc", "-R", ".", LOGICAL, name], cwd=folder, capture_output=True, text=True,
                          timeout=timeout)


def every_library_file() -> tuple:
    """The files of every replay (the Transformer's, then the vnnlib-unsat checkers' of ReLU and
    layered nets), each once, in build order."""
    return tuple(dict.fromkeys(LIBRARY + VNN_LIBRARY + LAYERED_LIBRARY))


def build_library(folder, timeout: float | None = None, files=None) -> Path:
    """Copy the library into ``folder`` and compile it with ``coqc``, file by file: a
    built library that :func:`replay` reuses (``library=folder``), so that many instances
    cost one build of the general proofs (about 20 CPU seconds) instead of one each.
    ``files``: the files to build (in build order; default :func:`every_library_file`).
    Raises ``RuntimeError`` with coqc's message when a file does not compile."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name in files or every_library_file():
        write_text_atomic(folder / name, (LIBRARY_DIR / name).read_text(encoding="utf-8"))
        r = _coqc(folder, name, timeout)
        if r.returncode != 0:
            raise RuntimeError(f"coqc rejected the library file {name}: {(r.stdout + r.stderr).strip()}")
    return folder


def _reuse_compiled(folder: Path, library: Path, name: str) -> bool:
    """Copy ``library/name``'s compiled ``.vo`` into ``folder`` when both hold the same
    ``.v`` text (Coq checks the digests of a ``.vo``'s dependencies when it loads it)."""
    import shutil

    vo = (library / name).with_suffix(".vo")
    if not vo.is_file() or not (library / name).is_file():
        return False
    if (library / name).read_bytes() != (folder / name).read_bytes():
        return False
    shutil.copyfile(vo, (folder / name).with_suffix(".vo"))
    return True


def replay(folder, timeout: float | None = None, library=None) -> dict:
    """Build the folder with ``coqc`` (file by file, in ``_CoqProject``'s order) and ask
    Coq for the assumptions of the instance's theorem ``claim``. With ``library``, a
    folder made by :func:`build_library`, a library file whose text is the same there is
    not compiled again: its ``.vo`` is copied. Returns ``{"ok", "seconds", "assumptions",
    "log", "compiled"}``; ``ok`` is true only when every file compiles and the theorem is
    closed."""
    import time

    folder = Path(folder)
    project = (folder / "_CoqProject").read_text(encoding="utf-8").split("\n")
    files = [f for f in project[1:] if f.strip()]
    start = time.monotonic()
    log, compiled = [], []
    for f in files:
        if library is not None and f != "Instance.v" and _reuse_compiled(folder, Path(library), f):
            continue
        r = _coqc(folder, f, timeout)
        compiled.append(f)
        log.append(r.stdout + r.stderr)
        if r.returncode != 0:
            return {"ok": False, "seconds": time.monotonic() - start, "failed": f, "assumptions": None,
                    "log": "".join(log), "compiled": compiled}
    seconds = time.monotonic() - start
    assumptions = print_assumptions(folder, "Instance.claim", timeout=timeout)
    return {"ok": assumptions == "Closed under the global context", "seconds": seconds, "theorem": "claim",
            "assumptions": assumptions, "log": "".join(log), "compiled": compiled}


def print_assumptions(folder, qualified: str, timeout: float | None = None) -> str:
    """Coq's ``Print Assumptions`` of ``Symrel.<qualified>`` in a built folder (one line
    when closed: ``Closed under the global context``)."""
    import subprocess
    import tempfile

    module, _, _ = qualified.partition(".")
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "Probe.v"
        probe.write_text(f"From {LOGICAL} Require {module}.\nPrint Assumptions {LOGICAL}.{qualified}.\n",
                         encoding="utf-8")
        r = subprocess.run(["coqc", "-R", os.fspath(Path(folder).resolve()), LOGICAL, os.fspath(probe)],
                           capture_output=True, text=True, timeout=timeout, cwd=tmp)
    return " ".join((r.stdout + r.stderr).split())


def replay_certificate(cert: dict, timeout: float | None = None, library=None) -> dict:
    """Export ``cert`` into a temporary folder and replay it with coqc: what ``symrel
    check-certificate --coq`` runs (``library``: a folder of :func:`build_library` to
    reuse, see :func:`replay`). Returns ``{"ok", "checks", "seconds", ...}`` where
    ``checks`` names each check with its result (``checked``, ``rejected``, ``not run``);
    the general theorem is listed as proved when the library proves it (Theorems.v:
    ``compile_correct_proof``, ``compile_relu_correct_proof``)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="symrel-coq-") as tmp:
        export_coq(cert, tmp)
        relu = "relu_to_maxout" in (Path(tmp) / "Instance.v").read_text(encoding="utf-8")
        r = replay(tmp, timeout=timeout, library=library)
    proved = general_theorem_proved(relu)
    net = "(relu_to_maxout net)" if relu else "net"
    general = "compile_relu_correct" if relu else "compile_correct"
    status = "checked" if r["ok"] else ("rejected" if r.get("failed") else "not closed")
    checks = {
        f"transformer = compile {net} Bs (computed by Coq's VM)": status,
        f"{'certify_relu net' if relu else 'certify net'} box Bs = true (computed by Coq's VM)": status,
        f"general theorem {general}": "proved in Coq" if proved else "not proved in this library",
        "claim: Print Assumptions": r["assumptions"] or "not run",
    }
    return {"ok": r["ok"], "formal": r["ok"] and proved, "checks": checks, "seconds": r["seconds"],
            "theorem": r.get("theorem"), "log": r["log"] if not r["ok"] else ""}
