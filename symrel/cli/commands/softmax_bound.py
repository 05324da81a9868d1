"""``symrel softmax-bound T.json --domain D.json --eps 1/1000 [--json] [--strict-gating] [--check N] [--certificate OUT]``.

Prints the proof steps, then the certified lambda (an exact rational) alone on the last
line: with every attention block softmax at that lambda, the Transformer is within eps of
its hardmax version in sup norm on the whole box. Exit 3 (nothing certified) when some
margin cannot absorb the error: a selection head without a proven margin, or, with
``--strict-gating``, a gating ReLU whose margin is smaller than the accumulated error
(the message says which ``symrel compile --margin`` would absorb it).
"""

from __future__ import annotations

import sys

from ...exact.display import decimal_upper_text
from ..common import add_json_flag, fmt, integer_option, print_json, shown
from ..executors import add_executor_option, open_executor
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("softmax-bound", help=SUMMARIES["softmax-bound"],
                       description=__doc__.splitlines()[0])
    p.add_argument("model", help="transformer file (its attention blocks are read as hardmax)")
    p.add_argument("--domain", required=True, help="box domain file")
    p.add_argument("--eps", required=True, help="target sup-norm error, an exact rational such as 1/1000")
    p.add_argument("--strict-gating", action="store_true",
                   help="require every ReLU to keep its sign (the paper's argument) instead of using |ReLU a - ReLU b| <= |a-b|")
    p.add_argument("--check", type=integer_option, default=0, metavar="N",
                   help="also evaluate the softmax model at N points (mpmath, 50 digits) and report the worst error")
    p.add_argument("--certificate", metavar="OUT", help="write the certificate (only when certified); "
                   "symrel check-certificate re-checks it")
    p.add_argument("--plot", metavar="PNG", help="plot observed error (at --check N points, default 20) and bound against lambda (needs matplotlib)")
    add_executor_option(p, "the --check evaluations")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...errors import InputError
    from ...exact import rational
    from ...fileformat import load_domain
    from ..common import load_model_file
    from ...models import Transformer
    from ...softmax import empirical_check, lambda_min

    model = load_model_file(args.model)
    if not isinstance(model, Transformer):
        raise InputError(f"expected a transformer, got a {model.kind} model", path="kind").in_file(args.model)
    domain = load_domain(args.domain)
    eps = rational(args.eps, path="--eps")
    if not 0 < eps < 1:
        raise InputError(f"expected 0 < eps < 1, got {fmt(eps)}", path="--eps")
    if args.check < 0:
        raise InputError("expected a number of points >= 0", path="--check")
    try:
        result = lambda_min(model, domain, eps, strict_gating=args.strict_gating)
    except InputError as err:
        raise err.in_file(args.domain) from None
    proof = result.proof()
    check = None
    if result.proved and args.check:
        with open_executor(args.executor) as executor:
            check = empirical_check(model, domain, result.lam, result.bound, points=args.check, executor=executor)
    if result.proved and args.certificate:
        from ...fileformat import write_json_atomic

        write_json_atomic(args.certificate, result.certificate())
    if result.proved and args.plot:
        from ...softmax.plot import plot_bound_vs_lambda

        plot_bound_vs_lambda(model, domain, result.lam, args.plot, points=args.check or 20)
    if args.json:
        obj = result.to_json()
        if check is not None:
            obj["empirical"] = check.to_json()
        print_json(obj)
        return 0 if result.proved else 3
    for i, step in enumerate(proof.steps, 1):
        print(f"{i}. {step.lemma} [{step.rule}: {step.status}]" + (f" {step.note}" if step.note else ""))
    if check is not None:
        c = check.to_json()
        print(f"empirical: worst observed error {c['worst_observed']} at {c['points']} points "
              f"(bound / observed = {c['ratio']}), {c['violations']} violations")
    if not result.proved:
        msg = f"symrel: undecided: {result.obstacle}"
        if result.needed_margin is not None:
            msg += (f"; symrel compile --margin M with M > {decimal_upper_text(result.needed_margin)} "
                    f"(exactly {shown(result.needed_margin)}) would absorb it at lambda = {shown(result.loose_lambda)}")
        print(msg, file=sys.stderr)
        return 3
    print(f"certified: sup-norm error <= {decimal_upper_text(result.bound)} <= eps = {shown(eps)} at lambda below")
    print(shown(result.lam))
    return 0
