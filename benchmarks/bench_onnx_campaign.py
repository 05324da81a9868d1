"""ONNX differential campaign: 1,100 seeded random graphs over every operation and attribute
the importer reads, each refused with one line for a documented reason or imported, then
equal to an independent exact evaluator and within float error of onnxruntime.

The graphs and the reference evaluator are the tests' (``tests/interop/onnx_random.py``,
``tests/interop/onnx_reference.py``; ``tests/interop/test_onnx_differential.py`` runs the
same campaign and fails on a crash, an undocumented refusal or any disagreement). Rows:
the counts, the refusals by reason, the operations covered (graphs in which each was
imported and agreed), the input ranks and batch axes.
Run: ``python -m benchmarks.bench_onnx_campaign`` from the repository's root.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run() -> list:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.interop.test_onnx_differential import GRAPHS, run_campaign

    with tempfile.TemporaryDirectory() as tmp:
        c = run_campaign(range(GRAPHS), Path(tmp))
    rows = [{"what": "graphs", "count": c.graphs, "detail": "seeds 0 to %d" % (GRAPHS - 1)},
            {"what": "agreed", "count": c.agreed,
             "detail": ", ".join(f"{k} {v}" for k, v in sorted(c.kinds.items()))},
            {"what": "refused", "count": sum(c.refused.values()),
             "detail": ", ".join(f"{k} {v}" for k, v in c.refused.most_common())},
            {"what": "operations covered", "count": len(c.ops),
             "detail": ", ".join(f"{k} {v}" for k, v in sorted(c.ops.items()))},
            {"what": "attribute variants covered", "count": len(c.features), "detail": ""},
            {"what": "inputs (rank, batch axis)", "count": len(c.inputs),
             "detail": ", ".join(f"{r}/{b} {v}" for (r, b), v in sorted(c.inputs.items()))}]
    return rows


if __name__ == "__main__":
    for r in run():
        print(r)
