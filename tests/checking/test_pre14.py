"""Certificates written before issue #14's refactor (tests/checking/golden/pre14, by the code
of commit 23e6b14) still check: the records they lack (a CPWL function's lattice form, a
feed-forward sublayer's ReLU pairing) are derived by the checker's own code and then checked
as recorded ones, and tampering with them is rejected."""

import copy
import json
from pathlib import Path

import pytest

from symrel.checking import CertificateError, check_certificate

PRE14 = Path(__file__).resolve().parent / "golden" / "pre14"


def _old(name):
    return json.loads((PRE14 / f"{name}.json").read_text())


def _index(cert, rule):
    return next(k for k, s in enumerate(cert["steps"]) if s["rule"] == rule)


def test_the_old_files_lack_the_records_later_added():
    cpwl, soft = _old("equivalence-cpwl"), _old("softmax-bound")
    assert "lattice" not in cpwl["steps"][_index(cpwl, "cpwl-lattice-check")]["certificate"]
    assert not any("relu_pairs" in s["certificate"] for s in soft["steps"])


@pytest.mark.parametrize("name", ["equivalence-cpwl", "softmax-bound"])
def test_certificates_written_before_the_change_still_check(name):
    cert = _old(name)
    summary = check_certificate(cert)
    assert summary["result"] == "checked" and sum(summary["rules"].values()) == len(cert["steps"])


def _cpwl_changed_value(c):
    c["steps"][_index(c, "cpwl-lattice-check")]["certificate"]["values"][1] = "1000001/1000000"


def _cpwl_changed_node_range(c):   # a number of the derived lattice form's replay
    c["steps"][_index(c, "cpwl-lattice-check") + 1]["certificate"]["nodes"][0]["range"][0] = "-1999999/1000000"


def _cpwl_removed_replay_step(c):
    del c["steps"][_index(c, "cpwl-lattice-check") + 1]


def _cpwl_removed_lattice_step(c):
    del c["steps"][_index(c, "cpwl-lattice-check")]


def _cpwl_open_status(c):
    c["steps"][_index(c, "cpwl-lattice-check")]["status"] = "open"


def _soft_block(c):   # the block-error step of the last feed-forward sublayer, the one with linear pairs
    T = c["inputs"]["transformer"]["object"]
    k = max(b for b, blk in enumerate(T["blocks"]) if blk.get("feedforward") is not None)
    return 2 + k


def _soft_changed_error(c):
    errors = c["steps"][_soft_block(c)]["certificate"]["errors"]
    errors[0][0] = "1/1000000007"


def _soft_removed_block_step(c):
    del c["steps"][_soft_block(c)]


def _soft_open_status(c):
    c["steps"][_soft_block(c)]["status"] = "open"


def _soft_changed_bound(c):
    c["steps"][-1]["certificate"]["bound"] = "1/1000000007"


TAMPERS = {
    "equivalence-cpwl": [_cpwl_changed_value, _cpwl_changed_node_range, _cpwl_removed_replay_step,
                         _cpwl_removed_lattice_step, _cpwl_open_status],
    "softmax-bound": [_soft_changed_error, _soft_removed_block_step, _soft_open_status, _soft_changed_bound],
}


@pytest.mark.parametrize("name, tamper", [(n, t) for n, ts in TAMPERS.items() for t in ts],
                         ids=[t.__name__ for ts in TAMPERS.values() for t in ts])
def test_tampered_old_certificates_are_rejected(name, tamper):
    cert = copy.deepcopy(_old(name))
    tamper(cert)
    with pytest.raises(CertificateError):
        check_certificate(cert)


def test_the_derived_pairing_is_checked_like_a_recorded_one():
    """A pairing the old certificate's bound does not rest on (here: none) fails on the errors."""
    cert = _old("softmax-bound")
    k = _soft_block(cert)
    cert["steps"][k]["certificate"]["relu_pairs"] = []
    with pytest.raises(CertificateError, match="errors"):
        check_certificate(cert)
