"""The tamper campaign of the certificate checker (``python -m symrel.statements.campaign``).

For certificates of every claim kind the command line and ``symrel proofs`` write,
each tamper below is applied one at a time, and the tampered copy is handed to
:func:`symrel.checking.check_certificate`; it must be refused (a
:class:`~symrel.checking.CertificateError`), and every untouched original must be
accepted:

* ``status``: one step's status set to ``"open"`` (each step);
* ``removed``: one step removed (each step);
* ``truncated``: the steps cut to their first k, for each ``1 <= k < n``;
* ``reordered``: two neighbouring steps swapped (each neighbouring pair of different steps);
* ``step-number``: one number in a step's data moved by 1 (each number);
* ``claim-number``: one number of the claim moved by 1 (each number);
* ``sha256``: one input's sha256 changed (each input).

The report (docs/checker.md) gives the counts per claim kind and per tamper; a
``vnnlib-unsat`` certificate of a layered net has its own row (:func:`row`), its trees and
leaves being another checker's (:mod:`symrel.checking.vnnlib_layered`).

>>> cert = {"claim": {"kind": "k", "n": 2}, "inputs": {"a": {"sha256": "00"}},
...         "steps": [{"rule": "r", "status": "proved", "certificate": {"v": 1}},
...                   {"rule": "s", "status": "proved", "certificate": {}}]}
>>> sorted({name for name, _, _ in tampers(cert)})
['claim-number', 'removed', 'reordered', 'sha256', 'status', 'step-number', 'truncated']
"""

from __future__ import annotations

import copy
import json
import sys
from collections import Counter, defaultdict

from ..exact import format_rational, rational
from ..mutation.tamper import altered, numbers_in

TAMPERS = ("status", "removed", "truncated", "reordered", "step-number", "claim-number", "sha256")


def tampers(cert: dict):
    """Every tampered copy of ``cert``: ``(tamper, where, copy)`` (module docstring)."""
    steps = cert["steps"]
    for i in range(len(steps)):
        new = copy.deepcopy(cert)
        new["steps"][i]["status"] = "open"
        yield "status", f"steps[{i}]", new
    for i in range(len(steps)):
        new = copy.deepcopy(cert)
        del new["steps"][i]
        yield "removed", f"steps[{i}]", new
    for k in range(1, len(steps)):
        new = copy.deepcopy(cert)
        new["steps"] = new["steps"][:k]
        yield "truncated", f"steps[:{k}]", new
    for i in range(len(steps) - 1):
        if steps[i] != steps[i + 1]:
            new = copy.deepcopy(cert)
            new["steps"][i], new["steps"][i + 1] = new["steps"][i + 1], new["steps"][i]
            yield "reordered", f"steps[{i}] <-> steps[{i + 1}]", new
    for path, _ in numbers_in(cert):
        yield ("claim-number" if path.startswith("claim") else "step-number"), path, altered(cert, path, 1)
    for name in cert.get("inputs", {}):
        new = copy.deepcopy(cert)
        digest = new["inputs"][name]["sha256"]
        new["inputs"][name]["sha256"] = ("1" if digest[:1] != "1" else "2") + digest[1:]
        yield "sha256", f"inputs.{name}.sha256", new


def row(cert: dict) -> str:
    """The report's row of ``cert``: its claim kind, with ``(layered net)`` for a
    ``vnnlib-unsat`` certificate whose network is a layered net.

    >>> row({"claim": {"kind": "vnnlib-unsat"}, "inputs": {"network": {"object": {"kind": "layered"}}}})
    'vnnlib-unsat (layered net)'
    >>> row({"claim": {"kind": "utility"}, "inputs": {}})
    'utility'
    """
    kind = cert["claim"]["kind"]
    network = cert.get("inputs", {}).get("network", {})
    if kind == "vnnlib-unsat" and isinstance(network, dict) and network.get("object", {}).get("kind") == "layered":
        return f"{kind} (layered net)"
    return kind


def run_campaign(certs, check=None):
    """Run every tamper on every certificate of ``certs`` (an iterable of ``(label, cert)``).

    Returns ``{"counts": {(kind, tamper): [tried, rejected]}, "originals": {kind: [n, accepted]},
    "accepted": [(label, tamper, where), ...]}`` (the tampered copies the checker let through),
    ``kind`` the certificate's :func:`row`.
    """
    from ..checking import CertificateError, check_certificate

    check = check or check_certificate
    counts: dict = defaultdict(lambda: [0, 0])
    originals: dict = defaultdict(lambda: [0, 0])
    accepted, refused_originals = [], []
    for label, cert in certs:
        kind = row(cert)
        originals[kind][0] += 1
        try:
            check(cert)
            originals[kind][1] += 1
        except CertificateError as err:
            refused_originals.append((label, str(err)))
        for name, where, new in tampers(cert):
            cell = counts[(kind, name)]
            cell[0] += 1
            try:
                check(new)
            except CertificateError:
                cell[1] += 1
            else:
                accepted.append((label, name, where))
    return {"counts": dict(counts), "originals": dict(originals), "accepted": accepted,
            "refused_originals": refused_originals}


def sample_certificates():
    """Small certificates of every claim kind, written by the provers the command line
    and ``symrel proofs`` use (``(label, certificate)`` pairs, as read back from JSON)."""
    import random

    from ..certificates.io import certificate_of
    from ..checking import stated
    from ..compiler import compile_model
    from ..fileformat import canonical_dumps, loads
    from ..models import Box, CPWL1D, DenseLayer, Polytope, ReLUNet
    from ..constructions import relu_to_maxout
    from ..constructions.random import random_maxout_net
    from ..preorders import debreu_utility, multi_utility, prove_retrieval, richter_peleg_utility
    from ..preorders import build_retrieval_attention
    from ..preorders.generators import random_complete_preorder, random_preorder, random_retrieval_task
    from ..prover import prove_equivalence
    from ..regions import certify_regions, decide_equivalence
    from ..relations import factor_relation, factors_to_features, prove_relation
    from ..relations.examples import random_gram_relation, random_relation
    from ..softmax import lambda_min

    def as_file(cert):
        return loads(canonical_dumps(stated(cert)))

    out = []
    relu = ReLUNet(2, [DenseLayer([[1, -1], [1, 1], [2, -1]], [0, "-1/2", "1/3"]),
                       DenseLayer([[1, -1, 1]], [0], "none")])
    box2 = Box([(-1, 1), (-1, 1)])
    out.append(("relu = its maxout form", as_file(certificate_of(prove_equivalence(relu, relu_to_maxout(relu), box2)))))
    net = random_maxout_net(random.Random(3), 1, [2], rank=2, max_num=4, max_den=2)
    box1 = Box([(0, 1)])
    comp = compile_model(net, box1)
    out.append(("maxout = its compiled transformer", as_file(certificate_of(prove_equivalence(net, comp.transformer, box1)))))
    tent = CPWL1D([0, "1/2", 1], [0, 1, 0])
    out.append(("cpwl = its compiled transformer",
                as_file(certificate_of(prove_equivalence(tent, compile_model(tent, box1).transformer, box1)))))
    tri = Polytope([[-1, 0], [0, -1], [1, 1]], [0, 0, 1])
    out.append(("relu on a polytope", as_file(certificate_of(prove_equivalence(relu, relu_to_maxout(relu), tri)))))
    out.append(("equivalence by cells", as_file(certificate_of(decide_equivalence(relu, relu_to_maxout(relu), box2)))))
    out.append(("linear regions", as_file(certificate_of(certify_regions(relu, box2, "linear")))))
    out.append(("activation regions", as_file(certificate_of(certify_regions(relu, box2, "activation")))))
    found = lambda_min(comp.transformer, box1, rational("1/100"))
    out.append(("softmax bound", as_file(found.certificate())))
    out.append(("utility", as_file(certificate_of(debreu_utility(random_complete_preorder(6, classes=3, seed=1)).proof))))
    P = random_preorder(6, seed=2)
    out.append(("richter-peleg utility", as_file(certificate_of(richter_peleg_utility(P).proof))))
    out.append(("multi-utility", as_file(certificate_of(multi_utility(P).proof))))
    task = random_retrieval_task(2, 4, dim=2, seed=1)
    att = build_retrieval_attention(task)
    out.append(("retrieval", as_file(certificate_of(prove_retrieval(task, att, max_subset=2)))))
    eps = rational("1/100")
    att = build_retrieval_attention(task, eps=eps)
    out.append(("softmax retrieval", as_file(certificate_of(prove_retrieval(task, att, max_subset=2, eps=eps)))))
    for symmetric, rel in ((True, random_gram_relation(4, 2, seed=1)), (False, random_relation(3, 4, 2, seed=1))):
        fac = factor_relation(rel, symmetric=symmetric)
        proof = prove_relation(rel, factors_to_features(rel, fac), symmetric=symmetric, ldl=fac.ldl)
        out.append((f"relation ({'symmetric' if symmetric else 'asymmetric'})", as_file(certificate_of(proof))))
    out.append(("vnnlib-unsat", as_file(_vnnlib_unsat_certificate())))
    out.append(("vnnlib-unsat of a layered net", as_file(_layered_vnnlib_unsat_certificate())))
    out.append(("output-bounds", as_file(_output_bounds_certificate())))
    return out


def _output_bounds_certificate() -> dict:
    """An output-bounds certificate of ``symrel bounds``' search: the 2-5-5-1 net of
    :func:`_vnnlib_unsat_certificate` beside ``|x0| + x1 / 3 - 1/3`` on ``[-1, 1]^2``, with input
    splits, ReLU splits, LP slopes and attained points (each moved coordinate must be refused:
    the extremes are isolated points, not flat segments)."""
    from ..models import DenseLayer, ReLUNet
    from ..vnnlib.output_bounds import certificate, search_bounds

    first = [[3, 0], [3, 0], [-3, -1], [1, 0], [0, 3], [1, 0], [-1, 0], [0, 1], [0, -1]]
    second = [row + [0, 0, 0, 0] for row in ([1, -2, -1, -2, 3], [-3, 1, 3, -1, 1], [2, 3, 1, -2, -1],
                                              [-3, 2, -3, 3, 2], [-1, 0, 1, -3, -1])]
    second.append([0, 0, 0, 0, 0, 1, 1, "1/3", "-1/3"])   # |x0| + x1 / 3 + 1 > 0
    net = ReLUNet(2, [DenseLayer(first, [0, 1, 0, 2, -1, 0, 0, 0, 0]),
                      DenseLayer(second, [1, 0, 2, -1, 2, 1]),
                      DenseLayer([[0, 0, 3, 1, -1, 0], [0, 0, 0, 0, 0, 1]], [0, "-4/3"], "none")])
    lo, hi = [rational(-1), rational(-1)], [rational(1), rational(1)]
    return certificate(net, lo, hi, search_bounds(net, lo, hi, nodes=60))


def _vnnlib_unsat_certificate() -> dict:
    """A vnnlib-unsat certificate of ``symrel verify``'s engine: a 2-5-5-1 ReLU net on
    ``[-1, 1]^2`` never reaches ``y >= 50``; its leaves hold unstable neurons whose relaxation
    no closing bound uses (each changed alpha or intercept must be refused all the same)."""
    from ..models import DenseLayer, ReLUNet
    from ..vnnlib import LinearAtom, VnnProperty
    from ..vnnlib.engine import decide

    net = ReLUNet(2, [DenseLayer([[3, 0], [3, 0], [-3, -1], [1, 0], [0, 3]], [0, 1, 0, 2, -1]),
                      DenseLayer([[1, -2, -1, -2, 3], [-3, 1, 3, -1, 1], [2, 3, 1, -2, -1], [-3, 2, -3, 3, 2],
                                  [-1, 0, 1, -3, -1]], [1, 0, 2, -1, 2]),
                      DenseLayer([[0, 0, 3, 1, -1]], [0], "none")])

    def atom(x, y, rhs):
        return LinearAtom(tuple(map(rational, x)), tuple(map(rational, y)), rational(rhs))

    box = ((atom([1, 0], [0], 1), atom([-1, 0], [0], 1), atom([0, 1], [0], 1), atom([0, -1], [0], 1)),)
    verdict = decide(net, VnnProperty(2, 1, box, ((atom([0, 0], [-1], -50),),), "0" * 64, "inline"))
    return verdict.certificate


def _layered_vnnlib_unsat_certificate() -> dict:
    """A vnnlib-unsat certificate of the layered engine (``symrel verify`` on a net with max
    pooling): affine, ReLU, max over overlapping groups, affine on ``[-1, 1]``; ``y`` has its
    minimum about ``-3.596`` near ``x = 5/16`` and the unsafe condition is the tent ``y - 2 x <=
    -17/4`` and ``2 y + x <= -111/16`` below it, each atom holding alone somewhere, so both close
    leaves (a moved number of either must be refused). Its tree has input, ReLU and max splits,
    betas, lambdas, slopes, pieces and an empty leaf (the net and property of
    tests/checking/golden/valid/vnnlib-unsat-layered.json)."""
    from ..models.layered import LayeredNet, MaxGroups, Relu, SparseAffine
    from ..vnnlib import LinearAtom, VnnProperty
    from ..vnnlib.layered.search import decide

    net = LayeredNet(1, [SparseAffine([[(0, "-5/8")], [(0, "13/8")], [(0, "-3/8")], [(0, "9/8")], [(0, -1)]],
                                      ["-1/2", "-1/2", "-15/8", "5/4", "-1/8"]),
                         Relu(5), MaxGroups([[0, 1], [2, 3, 4], [2, 4]]),
                         SparseAffine([[(0, "3/2"), (1, -1), (2, "-1/2")]], [-2])])

    def atom(x, y, rhs):
        return LinearAtom(tuple(map(rational, x)), tuple(map(rational, y)), rational(rhs))

    region = ((atom([1], [0], 1), atom([-1], [0], 1)),)
    unsafe = ((atom([-2], [1], "-17/4"), atom([1], [2], "-111/16")),)
    return decide(net, VnnProperty(1, 1, region, unsafe, "0" * 64, "inline")).certificate


def smallest_per_kind(folder):
    """From a ``symrel proofs --format json`` output folder: the smallest certificate of each
    claim kind (``(label, certificate)`` pairs), so the campaign covers what the runner writes."""
    from pathlib import Path

    best = {}
    for path in sorted(Path(folder).glob("*/*.json")):
        cert = json.loads(path.read_text())
        if cert.get("kind") != "certificate":
            continue
        kind, size = cert["claim"]["kind"], path.stat().st_size
        if kind not in best or size < best[kind][0]:
            best[kind] = (size, f"{path.parent.name}/{path.stem}", cert)
    return [(label, cert) for _, label, cert in best.values()]


def report(result, sources=()) -> str:
    """docs/checker.md: the counts per claim kind and per tamper."""
    counts, originals = result["counts"], result["originals"]
    kinds = sorted(originals)
    lines = [
        "# Tamper campaign of the certificate checker",
        "",
        "Produced by `python -m symrel.statements.campaign --proofs DIR --also tests/checking/golden/valid`,",
        "DIR the output of `symrel proofs --format json` (do not edit by hand). Certificates of every",
        "claim kind, written by the provers behind the command line and `symrel proofs`, are tampered",
        "with one change at a time (a step's status set to open, a step removed, the steps truncated, two",
        "neighbouring steps swapped, one number of a step or of the claim moved by 1, an input's sha256",
        "changed) and handed to `symrel check-certificate`. Each cell reads *rejected / tried*.",
        "",
        "Certificates: " + "; ".join(f"{label} ({kind})" for label, kind in sources) + "." if sources else "",
        "",
        "| claim kind | originals accepted | " + " | ".join(TAMPERS) + " |",
        "|---|---|" + "---|" * len(TAMPERS),
    ]
    total = [0, 0]
    for kind in kinds:
        n, ok = originals[kind]
        cells = []
        for t in TAMPERS:
            tried, rejected = counts.get((kind, t), [0, 0])
            total[0] += tried
            total[1] += rejected
            cells.append(f"{rejected} / {tried}" if tried else "-")
        lines.append(f"| {kind} | {ok} / {n} | " + " | ".join(cells) + " |")
    lines += ["", f"In all: {total[1]} of {total[0]} tampered certificates rejected, "
              f"{sum(v[1] for v in originals.values())} of {sum(v[0] for v in originals.values())} originals accepted."]
    if result["accepted"]:
        lines += ["", "Accepted tampers (defects of the checker):", ""]
        lines += [f"- {label}: {name} at `{where}`" for label, name, where in result["accepted"]]
    return "\n".join(lines) + "\n"


#: the page's sections written by other tools (the adversarial cases of tests/checking/adversarial),
#: kept when the campaign rewrites its own part
KEPT_FROM = "<!-- adversarial cases: begin"


def _kept_sections(out) -> str:
    """What the page ``out`` holds from :data:`KEPT_FROM` on ("" when it has no such part)."""
    from pathlib import Path

    page = Path(out).read_text(encoding="utf-8") if Path(out).exists() else ""
    return "\n" + page[page.index(KEPT_FROM):] if KEPT_FROM in page else ""


def main(argv=None) -> int:
    import argparse

    from ..fileformat import write_text_atomic

    p = argparse.ArgumentParser(prog="python -m symrel.statements.campaign", description=__doc__.split("\n")[0])
    p.add_argument("--out", default="docs/checker.md", help="where to write the report (default docs/checker.md)")
    p.add_argument("--proofs", metavar="DIR", help="also the smallest certificate of each claim kind in the output "
                   "folder of symrel proofs --format json")
    p.add_argument("--also", metavar="DIR", help="also every certificate file in DIR (e.g. tests/checking/golden/valid)")
    args = p.parse_args(argv)
    certs = sample_certificates() + (smallest_per_kind(args.proofs) if args.proofs else [])
    if args.also:
        from pathlib import Path

        certs += [(f"{Path(args.also).name}/{path.stem}", json.loads(path.read_text()))
                  for path in sorted(Path(args.also).glob("*.json"))]
    result = run_campaign(certs)
    text = report(result, [(label, row(cert)) for label, cert in certs])
    write_text_atomic(args.out, text + _kept_sections(args.out))
    print(text)
    bad = result["accepted"] or result["refused_originals"]
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
