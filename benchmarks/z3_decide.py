"""z3 on one equivalence claim, as a whole process: ``python benchmarks/z3_decide.py A.json B.json D.json``.

Prints ``proved``, ``refuted`` or ``unknown`` (z3's answer on the QF_LRA encoding of
:mod:`symrel.crossval.z3_claims`, read straight from the file-format JSON). The encoder's
module is loaded from its file alone, without the symrel package, so the time of this
process is z3's: the interpreter, ``import z3``, reading the JSON, the encoding and the
search. Used by :mod:`benchmarks.decision_processes`.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ENCODER = Path(__file__).resolve().parents[1] / "symrel" / "crossval" / "z3_claims.py"


def main(argv) -> int:
    spec = importlib.util.spec_from_file_location("z3_claims", ENCODER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    a, b, d = (json.loads(Path(p).read_text(encoding="utf-8")) for p in argv[:3])
    timeout = float(argv[3]) if len(argv) > 3 else 600.0
    print(module.decide_with_z3(a, b, d, timeout=timeout)["result"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
