"""``symrel retrieval R.json [--report R.md] [--json] [--eps E] [--max-subset L] [-o F.json | --check F.json] [--executor SPEC]``.

Builds attention realising a retrieval task (Debreu utilities, exact rank
factorisation, ReLU feature maps interpolating it) and proves that hardmax
attention returns exactly the maximal keys, averaged over ties, for every query
and every set of at most L keys; with ``--eps``, also that softmax puts weight
``>= 1 - eps`` on them (beta from the certified bound). ``--check F.json`` proves
given features instead (a ``relation-features`` file with ``phi`` = query map and
``psi`` = key map). Exit 0 proved, 1 refuted (the query and keys that break are
printed), 2 bad input, 3 undecided. Nothing is written unless proved.
"""

from __future__ import annotations

import sys

from ..common import add_json_flag, add_progress_option, fmt, integer_option, print_json, shown
from ..executors import add_executor_option, open_executor
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("retrieval", help=SUMMARIES["retrieval"],
                       description=__doc__.splitlines()[0])
    p.add_argument("task", help="retrieval task file (kind: retrieval)")
    p.add_argument("--eps", help="also prove softmax weight >= 1 - eps on the maximal keys (e.g. 1/100)")
    p.add_argument("--beta", help="scale of the query features (default: the certified beta for --eps, else 1)")
    p.add_argument("--max-subset", type=integer_option, default=3, metavar="L", help="enumerate every set of at most L keys (default 3)")
    p.add_argument("--factorisation", choices=("rank", "one-hot"), default="rank",
                   help="exact rank factorisation of the utility matrix (default) or one-hot key features")
    g = p.add_mutually_exclusive_group()
    g.add_argument("-o", "--output", metavar="F.json", help="write the features (relation-features: phi = query map, psi = key map)")
    g.add_argument("--check", metavar="F.json", help="prove given features instead of building them")
    p.add_argument("--jobs", type=integer_option, default=None, metavar="N", help="check the queries in N processes (--executor processes:N)")
    add_executor_option(p, "the queries' checks")
    add_progress_option(p, "a line per checked query on standard error")
    p.add_argument("--report", metavar="R.md", help="write the proof in the format the extension names (.md, .tex, "
                   ".html; .json: the certificate)")
    p.add_argument("--certificate", metavar="C.json", help="write the certificate")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...errors import InputError
    from ...exact import rational
    from ...fileformat import load, to_json, write_json_atomic
    from ...preorders import IncompletePreorderError, build_retrieval_attention
    from ...certificates.io import certificate_of
    from ...checking import stated
    from ...relations.table import RelationFeatures

    if args.report:  # a name whose extension names no format is refused before the work
        from ...report import report_format

        report_format(args.report)

    task = load(args.task, kinds=("retrieval",))
    eps = None
    if args.eps is not None:
        eps = rational(args.eps, path="--eps")
        if not 0 < eps < 1:
            raise InputError(f"expected 0 < eps < 1, got {fmt(eps)}", path="--eps")
    if args.max_subset < 1:
        raise InputError(f"expected a limit >= 1, got {args.max_subset}", path="--max-subset")
    try:
        if args.check:
            attention = _load_features(args.check)
        else:
            beta = rational(args.beta, path="--beta") if args.beta is not None else None
            attention = build_retrieval_attention(task, beta=beta, eps=eps, factorisation=args.factorisation)
        proof = _prove(task, attention, args, eps)
    except IncompletePreorderError as err:
        return _refuted(args, str(err), {"query": err.query, "incomparable": [str(x) for x in err.pair]})
    except InputError as err:
        if err.path == "max_subset":
            raise InputError(err.message, path="--max-subset") from None
        features_error = args.check and str(err.path or "").startswith(("phi_q", "phi_k"))
        raise err.in_file(args.check if features_error else args.task) from None
    summary = {
        "result": proof.result,
        "queries": len(task.exact_queries),
        "keys": len(task.exact_keys),
        "max_subset": proof.claim_data["max_subset"],
        "feature_dim": attention.feature_dim,
        "factorisation": attention.factorisation or "given",
        "beta": fmt(attention.beta) if attention.beta is not None else None,
        "relus": {"phi_q": getattr(attention.phi_q, "num_relus", None), "phi_k": getattr(attention.phi_k, "num_relus", None)},
        "maximal": {q: [str(y) for y in task.preorders[q].maximal_elements()] for q in task.exact_queries},
    }
    if proof.result == "refuted":
        cx = proof.extra.get("counterexample")
        return _refuted(args, proof.counterexample_note or proof.obstacle, {**summary, "counterexample": cx})
    if proof.result != "proved":
        summary["open"] = proof.obstacle
        if args.json:
            print_json(summary)
        else:
            _print_steps(proof)
        print(f"symrel: undecided: {proof.obstacle}", file=sys.stderr)
        return 3
    if args.output:
        write_json_atomic(args.output, to_json(RelationFeatures(attention.phi_q, attention.phi_k)))
    if args.certificate:
        write_json_atomic(args.certificate, stated(certificate_of(proof)))
    if args.report:
        from ...report import write_markdown_report

        write_markdown_report(args.report, _report(proof, summary), "symrel retrieval", proof=proof)
    if args.json:
        print_json(summary)
    else:
        _print_steps(proof)
        print(f"proved: hardmax attention (feature dimension {attention.feature_dim}, "
              f"{summary['relus']['phi_q']} + {summary['relus']['phi_k']} ReLUs) returns the maximal keys for all "
              f"{len(task.exact_queries)} queries" + (f"; softmax with beta = {shown(attention.beta)}"
                                                 if attention.beta is not None else ""))
    return 0


def _prove(task, attention, args, eps):
    from ...preorders import prove_retrieval

    with open_executor(args.executor, args.jobs) as executor:
        return prove_retrieval(task, attention, max_subset=args.max_subset, eps=eps, executor=executor, progress=args.progress)


def _load_features(path):
    from ...fileformat import load
    from ...preorders import RetrievalAttention

    features = load(path, kinds=("relation-features",))
    return RetrievalAttention(features.phi, features.psi)


def _refuted(args, message: str, data: dict) -> int:
    if args.json:
        print_json({**data, "result": "refuted", "message": message})
    else:
        print(f"symrel: refuted: {message}", file=sys.stderr)
    return 1


def _print_steps(proof) -> None:
    for i, step in enumerate(proof.steps, 1):
        print(f"{i}. {step.lemma} [{step.rule}: {step.status}]" + (f" {step.note}" if step.note else ""))


def _report(proof, summary: dict) -> str:
    lines = [proof.to_markdown(), "## Maximal keys per query\n", "| query | maximal keys |", "| --- | --- |"]
    lines += [f"| {q} | {', '.join(keys)} |" for q, keys in summary["maximal"].items()]
    lines.append(f"\nFeature dimension {summary['feature_dim']} ({summary['factorisation']} factorisation), "
                 f"beta = {summary['beta']}, ReLUs: phi_q {summary['relus']['phi_q']}, phi_k {summary['relus']['phi_k']}.")
    return "\n".join(lines) + "\n"
