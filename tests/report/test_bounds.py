"""symrel.report.bounds: the report of ``symrel bounds`` leads with the result, in every format."""

import json

import pytest

from symrel.exact import Q
from symrel.report.bounds import bounds_report
from symrel.verification.bounds_result import OutputBound, OutputBounds

CERTIFIED = OutputBounds([OutputBound(0, Q(-1), Q(2), (Q(-1), (Q(0),)), (Q(3, 2), (Q(1),)))], checked=True,
                         certificate_sha256="ab" * 32, limit="nodes", stats={"leaves": 3, "seconds": 0.5},
                         files={"network": {"name": "n.onnx", "sha256": "cd" * 32}})
UNCHECKED = OutputBounds(CERTIFIED.outputs, checked=False, limit="time", stage="check",
                         stats={"leaves": 3, "leaves_checked": 1})
NONE = OutputBounds([], limit="time", stage="import")


@pytest.mark.parametrize("fmt", ["md", "html", "tex"])
def test_the_result_comes_first(fmt):
    text = bounds_report(CERTIFIED, {"net": "n.onnx", "region": "b.json"}, ["Y_0 >= -1"], fmt)
    head = text[:text.index("Y_0")]
    assert "certified" in head and "How to read" in text and text.index("How to read") > text.index("Y_0")
    assert "ab" * 32 in text and "cd" * 32 in text and "the node budget" in text


def test_unchecked_and_empty_results_say_why():
    text = bounds_report(UNCHECKED, {}, [], "md")
    assert text.splitlines()[0] == "# symrel bounds: not checked" and "1 of 3 leaves checked" in text
    text = bounds_report(NONE, {}, [], "md")
    assert text.splitlines()[0] == "# symrel bounds: no bounds" and "reading the network and the region" in text


def test_a_json_report_is_the_info_given():
    info = {"result": "certified", **CERTIFIED.to_json()}
    assert json.loads(bounds_report(CERTIFIED, info, [], "json")) == json.loads(json.dumps(info))
