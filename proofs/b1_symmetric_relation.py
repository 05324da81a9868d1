"""Paper B: a symmetric PSD relation is the inner product of one MLP.

A runnable copy: the script lives in symrel/statements/papers/b1_symmetric_relation.py (shipped with the
package, so that `symrel proofs` works from any install); its claim, as symrel checks
it, and where it narrows the paper's claim are stated at the top of that file.
Run: `python proofs/b1_symmetric_relation.py` (Markdown report on stdout, exit 0 when proved).
"""

import sys
from pathlib import Path

try:
    import symrel  # noqa: F401
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symrel.statements.papers.b1_symmetric_relation import STATEMENT, run  # noqa: E402,F401

if __name__ == "__main__":
    from symrel.statements import standalone

    raise SystemExit(standalone(__file__))
