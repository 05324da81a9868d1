"""``symrel preorder P.json [--json] [--certificate C.json] [--draw P.png]``.

Prints the indifference classes (lowest first), whether the preorder is complete,
and its Debreu utility (rank of the class, gap 1), checked on every pair. Exit 2
with a witness triple when the relation is not transitive (unless the file says
``"close": true``: then the transitive closure is taken, and said so); exit 1
with an incomparable pair when it is not complete (a Richter-Peleg utility is
printed instead). Witnesses go to standard error, or into the JSON object.
"""

from __future__ import annotations

import sys

from ...exact import rational
from ..common import add_json_flag, fmt, print_json, shown
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("preorder", help=SUMMARIES["preorder"],
                       description=__doc__.splitlines()[0])
    p.add_argument("preorder", help="preorder file (kind: preorder)")
    p.add_argument("--certificate", metavar="C.json", help="write the utility's certificate (complete preorders only)")
    p.add_argument("--draw", metavar="PNG", help="draw the Hasse diagram with utility levels (needs matplotlib); "
                   "drawn for an incomplete preorder too, where it shows the incomparable classes")
    add_json_flag(p)
    p.set_defaults(func=run)


def _names(xs) -> list[str]:
    return [str(x) for x in xs]


def run(args) -> int:
    from ...fileformat import load, write_json_atomic
    from ...preorders import NotAPreorderError, debreu_utility, richter_peleg_utility
    from ...certificates.io import certificate_of
    from ...checking import stated

    P = load(args.preorder, kinds=("preorder",))
    closed = P.added_by_closure
    try:
        P.check_preorder()
    except NotAPreorderError as err:
        err.in_file(args.preorder)
        if args.json:
            print_json({"error": err.one_line(), "witness": _witness_json(err.witness)})
        print(f"symrel: error: {err.one_line()}", file=sys.stderr)
        return 2
    classes = [_names(c) for c in P.indifference_classes()]
    pair = P.incomparable_pair()
    out = {"classes": classes, "complete": pair is None}
    if closed is not None:
        out["closure_added"] = closed
    if pair is None:
        rep = debreu_utility(P)
        out["utility"] = {str(x): fmt(v) for x, v in rep.utility.items()}
        if args.certificate:
            write_json_atomic(args.certificate, stated(certificate_of(rep.proof)))
    else:
        rep = richter_peleg_utility(P)
        out["utility"] = None
        out["incomparable"] = _names(pair)
        out["richter_peleg_utility"] = {str(x): fmt(v) for x, v in rep.utility.items()}
    if args.draw:
        from ...preorders.draw import draw_preorder

        draw_preorder(P, args.draw)
    if args.json:
        print_json(out)
    else:
        _print_text(out, closed)
    if pair is not None:
        if not args.json:
            print(f"symrel: incomplete: {pair[0]} and {pair[1]} are incomparable, so no utility represents the preorder; "
                  "a Richter-Peleg utility (x < y implies u(x) < u(y)) is printed instead", file=sys.stderr)
        return 1
    return 0


def _witness_json(witness: tuple) -> dict:
    if len(witness) == 3:
        return dict(zip(("x", "y", "z"), _names(witness)))
    return {"x": str(witness[0])}


def _print_text(out: dict, closed) -> None:
    if closed is not None:
        print(f"took the transitive closure (\"close\": true): {closed} pair(s) added")
    print(f"indifference classes ({len(out['classes'])}, lowest first):")
    for i, c in enumerate(out["classes"], 1):
        print(f"  {i}: {', '.join(c)}")
    print(f"complete: {'yes' if out['complete'] else 'no'}")
    if out["complete"]:
        print("utility (x <= y iff u(x) <= u(y), checked on every pair):")
        table = out["utility"]
    else:
        print("Richter-Peleg utility (x < y implies u(x) < u(y), checked on every related pair):")
        table = out["richter_peleg_utility"]
    for x, v in table.items():
        print(f"  {x}: {shown(rational(v))}")
