"""The optional extras of setup.cfg: ``all`` is every extra but ``torch``, ``tracr`` and ``docs``;
``dev`` is ``all`` and ``docs``; README.md and docs/getting-started.md name every extra."""

import configparser
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the extras left out of ``all``: torch and tracr are large (CI installs them on their own), docs is
#: for building the documentation
NOT_IN_ALL = {"torch", "tracr", "docs", "all", "dev"}


def _extras() -> dict[str, set[str]]:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    return {name: {line.strip() for line in value.splitlines() if line.strip()}
            for name, value in cfg["options.extras_require"].items()}


def test_all_is_every_extra_but_the_large_ones_and_dev_adds_the_docs():
    extras = _extras()
    union = set().union(*(reqs for name, reqs in extras.items() if name not in NOT_IN_ALL))
    assert extras["all"] == union, sorted(union ^ extras["all"])
    assert extras["dev"] == union | extras["docs"], sorted((union | extras["docs"]) ^ extras["dev"])
    assert "z3-solver>=4.12" in extras["all"]


def test_the_readme_and_getting_started_name_every_extra():
    names = set(_extras())
    for page in ("README.md", "docs/getting-started.md"):
        named = set(re.findall(r"`([a-z0-9]+)`", (ROOT / page).read_text(encoding="utf-8")))
        assert names <= named, (page, sorted(names - named))
