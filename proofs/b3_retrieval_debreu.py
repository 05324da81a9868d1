"""Paper B: retrieval by hardmax attention through Debreu utilities.

A runnable copy: the script lives in symrel/statements/papers/b3_retrieval_debreu.py (shipped with the
package, so that `symrel proofs` works from any install); its claim, as symrel checks
it, and where it narrows the paper's claim are stated at the top of that file.
Run: `python proofs/b3_retrieval_debreu.py` (Markdown report on stdout, exit 0 when proved).
"""

import sys
from pathlib import Path

try:
    import symrel  # noqa: F401
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symrel.statements.papers.b3_retrieval_debreu import STATEMENT, run  # noqa: E402,F401

if __name__ == "__main__":
    from symrel.statements import standalone

    raise SystemExit(standalone(__file__))
