"""A stand-in for symrel.vnnlib.engine in the command-line tests: the CLI's behaviour
around each verdict, independent of the engine's search. ``ANSWER`` says what it answers."""

import sys
import types
from dataclasses import dataclass, field


@dataclass
class Verdict:
    status: str
    witness_x: tuple | None = None
    witness_y: tuple | None = None
    certificate: dict | None = None
    open_leaves: tuple = ()
    covered: object = None
    stats: dict = field(default_factory=dict)
    limit: str | None = None


def install(monkeypatch, answer):
    """Put a module whose ``decide`` returns ``answer(net, prop)`` in place of the engine;
    returns the list of calls it records."""
    calls = []
    module = types.ModuleType("symrel.vnnlib.engine")

    def decide(net, prop, *, timeout=None, executor=None, progress=None):
        calls.append({"timeout": timeout, "executor": executor, "progress": callable(progress)})
        return answer(net, prop)

    module.decide = decide
    module.Verdict = Verdict
    monkeypatch.setitem(sys.modules, "symrel.vnnlib.engine", module)
    return calls
