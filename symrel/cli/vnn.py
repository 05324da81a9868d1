"""What ``symrel verify`` needs around the engine: the network read exactly, the
verdict checked once more before it is printed, the float runtime of the referee,
and the competition's instance lists.

A network is a ``.onnx`` file (float tensors read bit for bit; an input ``Sub``
normalisation folded in), a ``.nnet`` file (decimals; inputs in the file's
normalised units, as VNN-COMP's ``.onnx`` conversions read them) or a symrel
JSON model; it must be a ReLU net.
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, InternalError


def load_net(path):
    """The exact ReLU net in the file ``path`` (see the module docstring)."""
    from ..models import ReLUNet

    path = str(path)
    ext = Path(path).suffix.lower()
    if ext == ".onnx":
        from ..interop.onnx_import import read_onnx

        net = read_onnx(path).model
    elif ext == ".nnet":
        from ..interop.nnet import load_nnet

        net = load_nnet(path).net(normalise=False)
    elif ext == ".json":
        from ..fileformat import load_model

        net = load_model(path)
    else:
        raise InputError(f"expected a network ending in .onnx, .nnet or .json, got {Path(path).name!r}", file=path)
    if not isinstance(net, ReLUNet):
        raise InputError(f"expected a ReLU network, got {getattr(net, 'kind', type(net).__name__)}", file=path)
    return net


def output_dim(net) -> int:
    return net.widths[-1] if net.widths else net.input_dim


def float_outputs(net_path, x):
    """onnxruntime's outputs at ``x`` (float32, the file's own graph), or None when the
    network is not an ``.onnx`` file or onnxruntime is not installed."""
    if Path(str(net_path)).suffix.lower() != ".onnx":
        return None
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return None
    from ..exact import to_float
    from ..interop.onnx_export import OnnxFileRunner

    runner = OnnxFileRunner(net_path, "float32")
    ((_, out),) = runner.trace([[to_float(v) for v in x]])
    return [float(v) for v in out[0]]


def confirm_witness(net, prop, x):
    """The exact outputs at ``x`` when ``x`` is a counterexample (in the region, unsafe at
    ``f(x)``), else None: a sat verdict is printed only after this exact check."""
    if len(x) != prop.n_inputs or not prop.in_region(x):
        return None
    y = net.evaluate_exact(list(x))
    return y if prop.holds(x, y) else None


def decide_one(net, prop, *, timeout, executor, progress=None):
    """The engine's verdict, a sat verdict re-checked exactly here: ``(verdict, outputs, seconds)``."""
    from ..vnnlib.engine import decide
    
    start = time.perf_counter()
    verdict = decide(net, prop, timeout=timeout, executor=executor, progress=progress)
    seconds = time.perf_counter() - start
    outputs = None
    if verdict.status == "sat":
        outputs = confirm_witness(net, prop, tuple(verdict.witness_x))
        if outputs is None:
            raise InternalError("the engine's counterexample fails its exact check")
    elif verdict.status == "unsat":
        if verdict.certificate is None:
            raise InternalError("the engine answered unsat without a certificate")
    elif verdict.status != "unknown":
        raise InternalError(f"the engine answered {verdict.status!r}")
    return verdict, outputs, seconds


def write_counterexample(path, x, y) -> bool:
    """Write the VNN-COMP file; whether every value in it is exact."""
    from ..fileformat.jsonio import write_text_atomic
    from ..vnnlib.witness import format_witness

    text, exact = format_witness(x, y)
    write_text_atomic(path, text)
    return exact


def check_certificate_file(path) -> tuple[bool, float, str]:
    """The trusted checker on the certificate file at ``path``: ``(checked, seconds, message)``."""
    from ..checking import CertificateError, MalformedCertificate, check_certificate
    from ..fileformat import read_json

    start = time.perf_counter()
    try:
        check_certificate(read_json(path))
    except (CertificateError, MalformedCertificate) as err:
        return False, time.perf_counter() - start, str(err)
    return True, time.perf_counter() - start, "checked"


# -- instance lists ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Instance:
    """One line of a competition instance list: network, property, timeout (seconds)."""

    onnx: Path
    vnnlib: Path
    timeout: float
    line: int


def read_instances(path) -> list[Instance]:
    """The instances of a VNN-COMP ``instances.csv`` (``onnx,vnnlib,timeout`` per line, paths
    relative to the file); errors name the file and the line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"expected a readable instance list ({err})", file=str(path)) from None
    out = []
    for number, row in enumerate(csv.reader(text.splitlines()), 1):
        if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
            continue
        if len(row) != 3:
            raise InputError(f"expected onnx,vnnlib,timeout, got {len(row)} fields", path=f"line {number}",
                             file=str(path))
        try:
            timeout = float(row[2])
        except ValueError:
            timeout = -1.0
        if not timeout > 0 or timeout == float("inf"):
            raise InputError(f"expected a positive timeout in seconds, got {row[2].strip()!r}", path=f"line {number}",
                             file=str(path))
        out.append(Instance(path.parent / row[0].strip(), path.parent / row[1].strip(), timeout, number))
    if not out:
        raise InputError("expected at least one instance", file=str(path))
    return out


#: the columns of the results file: the competition's (network, property, result, time) and the
#: certificate, its independent check and that check's time
RESULT_COLUMNS = ("onnx", "vnnlib", "result", "time", "certificate", "check", "check_time")


def run_instances(args) -> int:
    """``symrel verify --instances L.csv [--out R.csv] [--certificate-dir D] [--timeout S]``:
    every instance decided in turn (``--timeout`` caps each instance's own timeout); one
    row per instance written as it finishes (:data:`RESULT_COLUMNS`). An instance whose
    files are malformed is a row ``error`` (the reason on standard error), not the end of
    the run."""
    import sys

    from ..fileformat import write_json_atomic
    from ..vnnlib.reader import read_vnnlib
    from .common import print_json
    from .executors import open_executor

    instances = read_instances(args.instances)
    out = Path(args.out or "results.csv")
    cert_dir = Path(args.certificate_dir) if args.certificate_dir else out.with_name(out.name + ".d")
    cert_dir.mkdir(parents=True, exist_ok=True)
    rows, rejected, undecided = [], False, False
    with open_executor(args.executor) as executor, open(out, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(RESULT_COLUMNS)
        for k, inst in enumerate(instances):
            timeout = min(inst.timeout, args.timeout) if args.timeout else inst.timeout
            stem = f"{k:03d}_{inst.onnx.stem}_{inst.vnnlib.stem}"
            row = {"onnx": str(inst.onnx), "vnnlib": str(inst.vnnlib), "result": "error", "time": "",
                   "certificate": "", "check": "", "check_time": ""}
            try:
                net = load_net(inst.onnx)
                prop = read_vnnlib(inst.vnnlib, n_inputs=net.input_dim, n_outputs=output_dim(net))
                try:
                    verdict, outputs, seconds = decide_one(net, prop, timeout=timeout, executor=executor)
                except InputError as err:  # what the engine cannot take is the property's
                    raise err.in_file(str(inst.vnnlib)) from None
            except InputError as err:
                print(f"symrel: instance on line {inst.line}: {err.one_line()}", file=sys.stderr)
                undecided = True
            except InternalError as err:
                print(f"symrel: instance on line {inst.line}: {err}", file=sys.stderr)
                rejected = True
                row["check"] = "failed"
            else:
                row.update(result=verdict.status, time=f"{seconds:.3f}")
                if verdict.status == "unsat":
                    path = cert_dir / f"{stem}.json"
                    write_json_atomic(path, verdict.certificate)
                    row.update(certificate=str(path), check="not checked")
                    if not args.no_check:
                        ok, check_seconds, message = check_certificate_file(path)
                        row.update(check="checked" if ok else "rejected", check_time=f"{check_seconds:.3f}")
                        if not ok:
                            print(f"symrel: instance on line {inst.line}: certificate rejected: {message}",
                                  file=sys.stderr)
                            rejected = True
                elif verdict.status == "sat":
                    path = cert_dir / f"{stem}.counterexample.txt"
                    write_counterexample(path, tuple(verdict.witness_x), outputs)
                    row.update(certificate=str(path), check="witness exact")
                else:
                    undecided = True
            writer.writerow([row[c] for c in RESULT_COLUMNS])
            fh.flush()
            rows.append(row)
            if not args.json:
                print(f"{inst.onnx.name} {inst.vnnlib.name}: {row['result']} {row['time'] or '-'} s"
                      + (f" (certificate {row['check']} in {row['check_time']} s)" if row["check_time"] else ""),
                      file=sys.stderr)
    decided = sum(r["result"] in ("sat", "unsat") for r in rows)
    if args.json:
        print_json({"results": str(out), "instances": len(rows), "decided": decided, "rows": rows})
    else:
        print(f"{decided} of {len(rows)} decided; results in {out}")
    return 1 if rejected else 3 if undecided else 0
