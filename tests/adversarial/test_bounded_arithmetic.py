"""Arithmetic bounded before it is done (issue 39, item 5): files of about 1 MB crafted to make
exact arithmetic explode (:mod:`tests.adversarial.arithmetic`) through ``check-certificate``,
``eval``, ``prove`` and ``verify``, each in a process of its own under a 2 GB address-space limit
and 10 s of CPU (``resource.setrlimit``: CPU time, not wall time, so that a loaded machine
passes). Each must answer with its exit code (2, or 3 for ``verify``) and one line naming the
limit, never a traceback, a ``MemoryError`` or the kill of a resource limit.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from . import arithmetic

ROOT = Path(__file__).resolve().parents[2]
FILES = Path(__file__).resolve().parent / "files"
MEMORY = 2 << 30  # bytes of address space
CPU = 10  # seconds of CPU time


def _limits():  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU, CPU))


def symrel(*argv, cwd):
    """``python -m symrel ARGV`` in a child under the limits: ``(exit code, stdout, stderr)``; a
    child killed by a limit has a negative code (the signal)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-m", "symrel", *map(str, argv)], capture_output=True, text=True, cwd=cwd,
                          env=env, preexec_fn=_limits, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Every generated file, written once, and the small ones of files/ beside them."""
    folder = tmp_path_factory.mktemp("arithmetic")
    for name in arithmetic.FILES:
        arithmetic.write(name, folder)
    for helper in FILES.glob("arith-*"):
        (folder / helper.name).write_bytes(helper.read_bytes())
    return folder


def _refused(result, limit: str) -> None:
    """Exit 2 and one line on standard error, naming the limit."""
    code, out, err = result
    assert code == 2, (code, err[-2000:])
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("symrel: error: ") and f"limit '{limit}'" in lines[0], err[-2000:]
    assert "Traceback" not in err + out


def _unknown(result, limit: str) -> None:
    """``verify``: exit 3, ``unknown``, and one line naming the limit."""
    code, out, err = result
    assert code == 3, (code, err[-2000:])
    assert out.splitlines()[0] == "unknown"
    named = [line for line in out.splitlines() if limit in line]
    assert len(named) == 1 and named[0].startswith(f"stopped at the limit: {limit}"), out
    assert "Traceback" not in err + out


def test_the_files_are_about_a_megabyte_or_within_the_digit_limit(made):
    sizes = {p.name: p.stat().st_size for p in made.iterdir()}
    for name in ("huge-denominator-net.json", "product-chain-net.json", "long-points.json",
                 "huge-denominator-certificate.json", "product-chain-certificate.json"):
        assert 500_000 < sizes[name] < 1_300_000, (name, sizes[name])


@pytest.mark.parametrize("name, limit", [("huge-denominator-certificate.json", "denominator bits"),
                                         ("product-chain-certificate.json", "product bits"),
                                         ("long-split-certificate.json", "denominator bits")])
def test_check_certificate_refuses_before_the_arithmetic(made, name, limit):
    _refused(symrel("check-certificate", name, cwd=made), limit)


@pytest.mark.parametrize("argv, limit", [(("huge-denominator-net.json", "--input", "1/3,1/7,1/11,1/13,1/17"), "denominator bits"),
                                         (("product-chain-net.json", "--input", "1/3,1/7"), "product bits"),
                                         (("arith-net-5.json", "--inputs", "long-points.json"), "denominator bits")])
def test_eval_refuses_before_the_arithmetic(made, argv, limit):
    _refused(symrel("eval", *argv, cwd=made), limit)


@pytest.mark.parametrize("net, box, limit", [("huge-denominator-net.json", "arith-box-5.json", "denominator bits"),
                                             ("product-chain-net.json", "arith-box-2.json", "product bits")])
def test_prove_refuses_before_the_arithmetic(made, net, box, limit):
    _refused(symrel("prove", net, net, "--domain", box, cwd=made), limit)


@pytest.mark.parametrize("net, prop, limit", [("huge-denominator-net.json", "arith-prop-5-inputs.vnnlib", "denominator bits"),
                                              ("product-chain-net.json", "arith-prop-2-inputs.vnnlib", "product bits"),
                                              ("arith-net-5.json", "long-bounds-property.vnnlib", "product bits")])
def test_verify_answers_unknown_at_the_limit(made, net, prop, limit):
    _unknown(symrel("verify", net, prop, "--timeout", "10", cwd=made), limit)


def test_verify_answers_within_its_time_with_the_limits_lifted(made):
    """With the arithmetic limits lifted, the network's integers alone take longer than the
    timeout: the budget's alarm ends the work, and the answer is unknown at the time limit
    (within the CPU limit of the child, so within about T + 1 s of work)."""
    result = symrel("--max-denominator-bits", "100000000", "--max-product-bits", "100000000", "verify",
                    "huge-denominator-net.json", "arith-prop-5-inputs.vnnlib", "--timeout", "2", cwd=made)
    _unknown(result, "time")


def test_the_limits_are_flags_that_also_lift_a_refusal(made):
    """The flags move the limit: below what the ordinary helper net needs, it is refused too."""
    _refused(symrel("--max-product-bits", "8", "eval", "arith-net-5.json", "--input", "0,0,0,0,0", cwd=made),
             "product bits")
    code, out, _ = symrel("eval", "arith-net-5.json", "--input", "1/2,0,0,0,0", cwd=made)
    assert code == 0 and out.split()[0] == "1/2"
