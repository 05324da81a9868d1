"""tracr audit at scale: every input of a 4-layer compiled model (tracr's ``make_reverse``,
vocabulary of 10 tokens, lengths 1..4: 11,110 inputs), serial against 2 worker processes.

Each input is evaluated three ways (tracr's RASP evaluator in the driver; the exact
hardmax model and the certified softmax enclosure on the executor). The rows give the
wall time of the whole audit (without the coldness search, without tracr's compile,
timed apart, and without the start of the worker processes, ``startup_s``), inputs per
second, and the load average when the run ended, since the machine is shared. The two
runs must give the same result.

Run: ``python -m benchmarks.bench_tracr [vocab_size] [max_seq_len]``. Needs the tracr extra.
"""

from __future__ import annotations

import os
import sys
import time


def run(vocab_size: int = 10, max_seq_len: int = 4) -> list[dict]:
    from tracr.compiler import compiling, lib
    from tracr.rasp import rasp

    from symrel.cli.executors import open_executor
    from symrel.interop.tracr import audit_tracr, from_tracr

    vocab = list(range(vocab_size))
    program = lib.make_reverse(rasp.tokens)
    t = time.perf_counter()
    assembled = compiling.compile_rasp_to_model(program, vocab=set(vocab), max_seq_len=max_seq_len, compiler_bos="BOS")
    model = from_tracr(assembled)
    compile_s = time.perf_counter() - t
    rows = []
    results = []
    for spec in ("serial", "processes:2"):
        t = time.perf_counter()
        # as `symrel audit-tracr --executor processes:2` runs it: spawned workers (jax's threads
        # do not survive a fork), which import the evaluation before the clock starts
        with open_executor(spec, start_method="spawn", preload=("symrel.interop.tracr.evaluation",)) as pool:
            startup = time.perf_counter() - t
            t = time.perf_counter()
            proof = audit_tracr(program, vocab, max_seq_len, model=model, executor=pool, coldness=False)
            took = time.perf_counter() - t
        results.append((proof.result, [s.to_json() for s in proof.steps]))
        n = proof.extra["inputs"]
        rows.append({"program": "make_reverse", "layers": model.sizes()["layers"], "width": model.width,
                     "inputs": n, "executor": spec, "startup_s": round(startup, 2),
                     "result": proof.result, "audit_s": took, "inputs_per_s": n / took,
                     "compile_and_import_s": compile_s, "load_avg_1min": os.getloadavg()[0]})
    assert results[0] == results[1], "the parallel audit differs from the serial one"
    rows[1]["speedup"] = rows[0]["audit_s"] / rows[1]["audit_s"]
    return rows


def main():
    args = [int(a) for a in sys.argv[1:3]]
    for r in run(*args):
        print(", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in r.items()))


if __name__ == "__main__":
    main()
