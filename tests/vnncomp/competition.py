"""How VNN-COMP reads a tool's results file: written here from the competition's own scripts,
so that the tests read symrel's files the way the competition would.

- The harness (``run_single_instance.sh`` of stanleybak/vnncomp2021 and of
  ChristopherBrix/vnncomp2022_benchmarks) runs ``run_instance.sh`` with a results file it
  first fills with ``no_result_in_file``; a nonzero exit is ``error_exit_code_N``. Otherwise
  (2022) a first line ``sat (`` is split after ``sat``; the result is the first line with
  every whitespace character removed, ``no_result_in_file`` when empty; after ``sat`` the
  lines from the second on are the counterexample file.
- The scorer (``process_results.py`` of stanleybak/vnncomp2021_results) lower-cases the
  result and renames it by prefix: ``unsat`` -> holds, ``sat`` -> violated,
  ``no_result_in_file`` and ``prepare_instance_error_*`` -> unknown,
  ``run_instance_timeout`` -> timeout, ``error_exit_code_*`` -> error, an empty one ->
  unknown; anything but holds, violated, timeout, error, unknown stops it.
- The counterexample checker (``counterexamples.py`` of ChristopherBrix/vnncomp2022_results)
  joins the file's lines with spaces, wants ``(`` first and ``)`` last, splits the inside at
  every ``)``, and reads each part as ``(NAME VALUE`` with exactly one space, ``X_i`` and
  ``Y_i`` numbered in order from 0, each value parsed by ``float``; then runs the network in
  onnxruntime at X (float32, the input's shape) and accepts when the largest difference from
  the file's Y is below 1e-4 (and the outputs in the file meet the property).
"""

from __future__ import annotations

import re

#: the scorer's renamings, in its order (a prefix of the lower-cased result)
SUBSTITUTIONS = (("unsat", "holds"), ("sat", "violated"), ("no_result_in_file", "unknown"),
                 ("prepare_instance_error_", "unknown"), ("run_instance_timeout", "timeout"),
                 ("error_exit_code_", "error"))
SCORED = ("holds", "violated", "timeout", "error", "unknown")
TOLERANCE = 1e-4


def harness_result(exit_code: int, text: str) -> tuple[str, str | None]:
    """``(result, counterexample text or None)`` as the harness records a run."""
    if exit_code != 0:
        return (f"error_exit_code_{exit_code}", None)
    text = re.sub(r"(?m)^sat \(", "sat\n(", text)
    lines = text.split("\n")
    result = re.sub(r"\s", "", lines[0])
    if result == "sat":
        return result, "\n".join(lines[1:])
    return (result or "no_result_in_file"), None


def scored(result: str) -> str:
    """The scorer's name for a harness result; ValueError where the scorer would stop."""
    out = result.lower()
    for prefix, name in SUBSTITUTIONS:
        if out == "":
            out = "unknown"
        elif out.startswith(prefix):
            out = name
    if out not in SCORED:
        raise ValueError(f"the scorer stops at the result {result!r}")
    return out


def counterexample_values(text: str) -> tuple[list[float], list[float]]:
    """``(x, y)`` read as the counterexample checker reads them (AssertionError or ValueError
    where it would fail)."""
    content = text.replace("\n", " ").strip()
    assert content[0] == "(" and content[-1] == ")", content[:20]
    x, y = [], []
    for part in content[1:-1].split(")"):
        part = part.strip()
        if not part:
            continue
        assert part[0] == "(", part
        name, value = part[1:].split(" ")
        assert name[:2] in ("X_", "Y_"), name
        target = x if name[:2] == "X_" else y
        assert int(name[2:]) == len(target), name
        target.append(float(value))
    return x, y


def onnxruntime_outputs(onnx_path, x) -> list[float]:
    """The network's outputs at ``x`` in onnxruntime, as the checker runs it: the inputs as
    the graph's input type, in the input's shape (a dimension 0 read as 1), flattened in C order."""
    import numpy as np
    import onnx
    import onnxruntime as ort

    model = onnx.load(str(onnx_path))
    initializers = {i.name for i in model.graph.initializer}
    (inp,) = [i for i in model.graph.input if i.name not in initializers]
    dtype = onnx.helper.tensor_dtype_to_np_dtype(inp.type.tensor_type.elem_type)
    shape = tuple(d.dim_value if d.dim_value != 0 else 1 for d in inp.type.tensor_type.shape.dim)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    out = session.run(None, {session.get_inputs()[0].name: np.array(x, dtype=dtype).reshape(shape)})
    return [float(v) for v in np.asarray(out[0]).flatten("C")]
