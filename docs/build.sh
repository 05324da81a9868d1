#!/usr/bin/env bash
# Build the symrel documentation (see docs/README.md).
#   docs/build.sh           the HTML site with warnings as errors, then every example as a doctest
#   docs/build.sh html      only the HTML site   (docs/_build/html/index.html)
#   docs/build.sh doctest   only the doctests    (docs/_build/doctest/output.txt)
# Needs the docs extra: pip install -e ".[docs]"
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
if [[ "$what" == all || "$what" == html ]]; then
    python -m sphinx -W --keep-going -b html docs docs/_build/html
fi
if [[ "$what" == all || "$what" == doctest ]]; then
    python -m sphinx -W --keep-going -b doctest docs docs/_build/doctest
fi
