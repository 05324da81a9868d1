"""The rule registry (symrel.certificates.rules) against what the provers produce.

The names come from the source: every call that makes a step (``Step(...)``, and every
function that passes its own ``rule`` parameter on to such a call) is read with ast, and
its rule argument resolved to string constants. The recorded keys come from proofs of
small instances, one or more per prover.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from symrel.certificates import PROVED
from symrel.certificates.rules import RULES, rules_of

SOURCE = Path(__file__).resolve().parents[2] / "symrel"


def _scopes(tree):
    """Every function of a module with the calls directly in it (nested functions apart)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _calls_in(fn):
    return [n for n in ast.walk(fn) if isinstance(n, ast.Call)]


def _name(call):
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _params(fn) -> list[str]:
    names = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    return names[1:] if names and names[0] in ("self", "cls") else names


def _rule_arg(call, position: int):
    for kw in call.keywords:
        if kw.arg == "rule":
            return kw.value
    return call.args[position] if len(call.args) > position else None


def _strings(expr, fn, forwarded: set) -> set | None:
    """The string constants ``expr`` can be inside ``fn``; None when it cannot be resolved."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return {expr.value}
    if isinstance(expr, ast.IfExp):
        parts = [_strings(expr.body, fn, forwarded), _strings(expr.orelse, fn, forwarded)]
    elif isinstance(expr, ast.BoolOp):
        parts = [_strings(v, fn, forwarded) for v in expr.values]
    elif (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "join"
          and isinstance(expr.func.value, ast.Constant) and len(expr.args) == 1 and isinstance(expr.args[0], ast.Name)):
        # "+".join(names): the rules appended to the list ``names``
        target = expr.args[0].id
        parts = [_strings(c.args[0], fn, forwarded) for c in _calls_in(fn)
                 if isinstance(c.func, ast.Attribute) and c.func.attr == "append"
                 and isinstance(c.func.value, ast.Name) and c.func.value.id == target]
        if not parts:
            return None
    elif isinstance(expr, ast.Name):
        if expr.id in forwarded:
            return set()        # a parameter passed on: its callers are read instead
        parts = []
        for node in ast.walk(fn):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == expr.id:
                    parts.append(_strings(node.value, fn, forwarded))
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    for t, v in zip(target.elts, node.value.elts):
                        if isinstance(t, ast.Name) and t.id == expr.id:
                            parts.append(_strings(v, fn, forwarded))
        if not parts:
            return None
    else:
        return None
    if any(p is None for p in parts):
        return None
    return set().union(*parts)


def produced_rules() -> tuple[dict[str, set[str]], list[str]]:
    """Rule name -> the modules that produce it, and the rule arguments that could not be read."""
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(SOURCE.rglob("*.py"))}
    makers = {"Step": 1}                    # step-making function -> position of its rule argument
    forwards: dict[int, set[str]] = {}      # id(function) -> its parameters passed on as a rule
    changed = True
    while changed:                          # functions that pass their own ``rule`` on to a step maker
        changed = False
        for tree in trees.values():
            for fn in _scopes(tree):
                params = _params(fn)
                for call in _calls_in(fn):
                    if _name(call) not in makers:
                        continue
                    arg = _rule_arg(call, makers[_name(call)])
                    if isinstance(arg, ast.Name) and arg.id in params:
                        forwards.setdefault(id(fn), set()).add(arg.id)
                        if fn.name not in makers:
                            makers[fn.name] = params.index(arg.id)
                            changed = True
    found: dict[str, set[str]] = {}
    unread = []
    for path, tree in trees.items():
        for fn in _scopes(tree):
            for call in _calls_in(fn):
                if _name(call) not in makers:
                    continue
                arg = _rule_arg(call, makers[_name(call)])
                names = None if arg is None else _strings(arg, fn, forwards.get(id(fn), set()))
                if names is None:
                    unread.append(f"{path.relative_to(SOURCE.parent)}:{call.lineno}")
                    continue
                for name in names:
                    for part in name.split("+"):
                        found.setdefault(part, set()).add(str(path.relative_to(SOURCE.parent)))
    return found, unread


def test_every_rule_argument_is_read():
    _, unread = produced_rules()
    assert unread == []


def test_the_registry_holds_exactly_the_produced_rules():
    produced, _ = produced_rules()
    assert sorted(set(produced) - set(RULES)) == [], "produced but not in symrel.certificates.rules"
    assert sorted(set(RULES) - set(produced)) == [], "in the registry but produced nowhere"


def test_every_rule_has_wording_and_distinct_keys():
    from symrel.certificates.rule_wording import WORDING

    assert sorted(WORDING) == sorted(RULES)   # the wording of every rule and of no other name
    for rule in RULES.values():
        assert rule.wording and rule.wording[0].islower() and not rule.wording.endswith(".")
        assert len(set(rule.records + rule.optional)) == len(rule.records + rule.optional), rule.name
        assert bool(rule.optional) == bool(rule.cases), rule.name
        if not rule.certifies:
            assert rule.records == () and rule.optional == (), rule.name


def test_rules_of_a_compound_step():
    assert [r.name for r in rules_of("hardmax-max-head+drop-dominated")] == ["hardmax-max-head", "drop-dominated"]
    with pytest.raises(KeyError):
        rules_of("no-such-rule")


# -- the keys proved steps record -------------------------------------------------------------------

def test_proved_steps_record_the_registered_keys():
    """The steps of the sample certificates of every claim kind (those of the checker's
    tamper campaign) record what the registry says."""
    from symrel.statements.campaign import sample_certificates

    seen = set()
    for label, cert in sample_certificates():
        for step in cert["steps"]:
            rules = rules_of(step["rule"])
            always = set().union(*(r.records for r in rules))
            allowed = always.union(*(r.optional for r in rules))
            keys = set(step["certificate"])
            assert step["status"] == PROVED and all(r.certifies for r in rules), (label, step["rule"])
            assert always <= keys <= allowed, (label, step["rule"], sorted(keys))
            seen.update(r.name for r in rules)
    # the samples cover most rules, not all (e.g. every rule of a Transformer block, the tracr
    # audit's when tracr is not installed); the rules they do show record what the registry says
    assert len(seen) >= 25, sorted(seen)
