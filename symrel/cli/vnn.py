"""What ``symrel verify`` needs around :func:`symrel.verify`: the float runtime of the
referee, the counterexample file, and the competition's instance lists.
"""

from __future__ import annotations

import contextlib
import csv
import io
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, InternalError
from ..exact.number_text import BLANKS, shown_text, why_not_ascii
from .common import seconds


def float_outputs(net_path, x):
    """onnxruntime's outputs at ``x`` (float32, the file's own graph), or None when the
    network is not an ``.onnx`` file or onnxruntime is not installed."""
    if Path(str(net_path)).suffix.lower() != ".onnx":
        return None
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return None
    from ..interop.onnx_export import OnnxFileRunner
    from ..vnnlib.referee import competition_float

    runner = OnnxFileRunner(net_path, "float32")
    ((_, out),) = runner.trace([[competition_float(v) for v in x]])
    return [float(v) for v in out[0]]


def write_counterexample(path, x, y) -> bool:
    """Write the VNN-COMP file; whether every value in it is exact."""
    from ..fileformat.jsonio import write_text_atomic
    from ..vnnlib.witness import format_witness

    text, exact = format_witness(x, y)
    write_text_atomic(path, text)
    return exact


@contextlib.contextmanager
def verify_executor(spec):
    """``--executor SPEC`` opened (:func:`symrel.cli.executors.open_executor`); without it the
    default of verify: one worker process per usable core, started when the work outlasts a
    second (:func:`symrel.verification.api.open_executor`). Yields what :func:`symrel.verify`
    takes: an executor, or ``"serial"``."""
    if spec is None:
        from ..verification.api import open_executor as default
    else:
        from .executors import open_executor as default
    with default(spec) as executor:
        yield "serial" if executor is None else executor


# -- instance lists ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Instance:
    """One line of a competition instance list: network, property, timeout (seconds)."""

    onnx: Path
    vnnlib: Path
    timeout: float
    line: int


def read_instances(path, text: str | None = None) -> list[Instance]:
    """The instances of a VNN-COMP ``instances.csv`` (``onnx,vnnlib,timeout`` per line, paths
    relative to the file); errors name the file and the line. ``text``, when given, is the
    file's text (``path`` then only names it and its folder)."""
    path = Path(path)
    if text is None:
        from ..fileformat.reading import read_utf8

        text = read_utf8(path, "an instance list")   # bounded: a device is refused
    out = []
    rows = csv.reader(io.StringIO(text, newline=""))   # CSV's line breaks (CR, LF), not str.splitlines' U+2028
    while True:
        try:
            row = next(rows, None)
        except csv.Error as err:   # a field beyond csv's size limit, say
            raise InputError(f"expected CSV ({err})", path=f"line {rows.line_num}", file=str(path)) from None
        if row is None:
            break
        number = rows.line_num
        if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
            continue
        if len(row) != 3:
            raise InputError(f"expected onnx,vnnlib,timeout, got {len(row)} fields", path=f"line {number}",
                             file=str(path))
        timeout = seconds(row[2])   # the number grammar, ASCII only ("١٠" is no timeout)
        if timeout is None:
            raise InputError(f"expected a positive timeout in seconds, got {shown_text(row[2].strip(BLANKS))}"
                             f"{why_not_ascii(row[2])}", path=f"line {number}", file=str(path))
        out.append(Instance(path.parent / row[0].strip(), path.parent / row[1].strip(), timeout, number))
    if not out:
        raise InputError("expected at least one instance", file=str(path))
    return out


#: the columns of the results file: the competition's (network, property, result, time) and the
#: certificate, its independent check and that check's time
RESULT_COLUMNS = ("onnx", "vnnlib", "result", "time", "certificate", "check", "check_time")


def run_instances(args) -> int:
    """``symrel verify --instances L.csv [--out R.csv] [--certificate-dir D] [--timeout S]``:
    every instance decided in turn by :func:`symrel.verify` (``--timeout`` caps each
    instance's own timeout, which bounds all of its work, the check included); one row per
    instance written as it finishes (:data:`RESULT_COLUMNS`). An instance whose files are
    malformed is a row ``error`` (the reason on standard error), not the end of the run."""
    import sys

    from ..verification.api import CertificateRejected, verify
    from .common import print_json

    instances = read_instances(args.instances)
    out = Path(args.out or "results.csv")
    cert_dir = Path(args.certificate_dir) if args.certificate_dir else out.with_name(out.name + ".d")
    cert_dir.mkdir(parents=True, exist_ok=True)
    rows, rejected, undecided = [], False, False
    with verify_executor(args.executor) as executor, open(out, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(RESULT_COLUMNS)
        for k, inst in enumerate(instances):
            timeout = min(inst.timeout, args.timeout) if args.timeout else inst.timeout
            stem = f"{k:03d}_{inst.onnx.stem}_{inst.vnnlib.stem}"
            row = {"onnx": str(inst.onnx), "vnnlib": str(inst.vnnlib), "result": "error", "time": "",
                   "certificate": "", "check": "", "check_time": ""}
            path = cert_dir / f"{stem}.json"
            try:
                verdict = verify(inst.onnx, inst.vnnlib, timeout=timeout, executor=executor, certificate=path,
                                 check=not args.no_check)
            except InputError as err:
                print(f"symrel: instance on line {inst.line}: {err.one_line()}", file=sys.stderr)
                undecided = True
            except CertificateRejected as err:
                print(f"symrel: instance on line {inst.line}: certificate rejected: {err}", file=sys.stderr)
                rejected = True
                row.update(result="unsat", check="rejected")
            except InternalError as err:   # a witness that fails its exact check: a bug, never a verdict
                print(f"symrel: instance on line {inst.line}: {err}", file=sys.stderr)
                rejected = True
                row["check"] = "failed"
            else:
                stats = verdict.stats
                row.update(result=verdict.result, time=f"{stats.get('seconds', 0.0):.3f}")
                if verdict.certificate is not None:
                    row.update(certificate=str(path), check="checked" if verdict.checked else "not checked")
                    if "check_seconds" in stats:
                        row["check_time"] = f"{stats['check_seconds']:.3f}"
                if verdict.result == "sat":
                    ce = cert_dir / f"{stem}.counterexample.txt"
                    write_counterexample(ce, verdict.witness.exact_x, verdict.witness.exact_y)
                    row.update(certificate=str(ce), check="witness exact")
                elif verdict.result == "unknown":
                    undecided = True
            writer.writerow([row[c] for c in RESULT_COLUMNS])
            fh.flush()
            rows.append(row)
            if not args.json:
                print(f"{inst.onnx.name} {inst.vnnlib.name}: {row['result']} {row['time'] or '-'} s"
                      + (f" (certificate {row['check']} in {row['check_time']} s)" if row["check_time"] else ""),
                      file=sys.stderr)
    decided = sum(r["result"] in ("sat", "unsat") and r["check"] != "rejected" for r in rows)
    if args.json:
        print_json({"results": str(out), "instances": len(rows), "decided": decided, "rows": rows})
    else:
        print(f"{decided} of {len(rows)} decided; results in {out}")
    return 1 if rejected else 3 if undecided else 0
