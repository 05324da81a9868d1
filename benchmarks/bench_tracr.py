"""tracr audit at scale: every input of a 4-layer compiled model (tracr's ``make_reverse``,
vocabulary of 10 tokens, lengths 1..4: 11,110 inputs), serial against 2 worker processes.

Each input is evaluated three ways (tracr's RASP evaluator in the driver; the exact
hardmax model and the certified softmax enclosure on the executor). The rows give the
wall time of the whole audit (without the coldness search, and without tracr's compile,
timed apart), inputs per second, and the load average when the run ended, since the
machine is shared. The two runs must give the same result.

Run: ``python -m benchmarks.bench_tracr [vocab_size] [max_seq_len]``. Needs the tracr extra.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context


def run(vocab_size: int = 10, max_seq_len: int = 4) -> list[dict]:
    from tracr.compiler import compiling, lib
    from tracr.rasp import rasp

    from symrel.interop.tracr import audit_tracr, from_tracr

    vocab = list(range(vocab_size))
    program = lib.make_reverse(rasp.tokens)
    t = time.perf_counter()
    assembled = compiling.compile_rasp_to_model(program, vocab=set(vocab), max_seq_len=max_seq_len, compiler_bos="BOS")
    model = from_tracr(assembled)
    compile_s = time.perf_counter() - t
    rows = []
    results = []
    for workers in (1, 2):
        pool = ProcessPoolExecutor(workers, mp_context=get_context("spawn")) if workers > 1 else None
        try:
            t = time.perf_counter()
            proof = audit_tracr(program, vocab, max_seq_len, model=model, executor=pool, coldness=False)
            took = time.perf_counter() - t
        finally:
            if pool is not None:
                pool.shutdown()
        results.append((proof.result, [s.to_json() for s in proof.steps]))
        n = proof.extra["inputs"]
        rows.append({"program": "make_reverse", "layers": model.sizes()["layers"], "width": model.width,
                     "inputs": n, "executor": "serial" if workers == 1 else f"processes:{workers}",
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
