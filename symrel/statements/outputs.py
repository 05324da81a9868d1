"""Writing what a statement's run produced: reports, certificates, their re-check.

For a statement with key ``K`` in the output folder ``OUT``:
``OUT/K.md``, ``OUT/K.tex``, ``OUT/K.html`` (the formats asked for) and, with
``json``, ``OUT/K/<instance>.json`` for each proved instance (its certificate,
read back from disk and re-checked by :func:`symrel.checking.check_certificate`,
then an altered copy that must be rejected) and ``OUT/K/<instance>.counterexample.json``
(a ``points`` file) for each refuted control. Every file is written atomically.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import SymrelError
from ..fileformat import write_json_atomic, write_text_atomic
from ..fileformat.jsonio import read_json
from ..certificates import PROVED, REFUTED
from ..report import render_outcome
from ..report.document import slug
from ..report.statement import Outcome
from ..report.statement import ACCEPTED_ALTERED, CHECKED, REJECTED
from ..mutation.tamper import altered, pick_number


def probe(cert: dict, check) -> tuple[str | None, bool]:
    """Alter one number (see :func:`symrel.mutation.tamper.pick_number`) and run
    ``check`` on the copy: returns (the altered path, whether the checker rejected the copy)."""
    from ..checking import CertificateError

    path = pick_number(cert)
    if path is None:
        return None, False
    try:
        check(altered(cert, path))
    except CertificateError:
        return path, True
    return path, False


def _counterexample_points(proof) -> dict:
    from ..exact import format_rational, rational

    return {"symrel": 1, "kind": "points",
            "x": [[v if isinstance(v, (int, str)) else format_rational(rational(v)) for v in proof.counterexample]]}


def write_certificates(outcome: Outcome, out: Path) -> None:
    """Certificates of the proved instances (re-checked, tamper-probed) and
    counterexamples of the refuted controls, under ``out/<key>/``."""
    from ..checking import CertificateError, check_certificate
    from ..certificates.io import certificate_of
    from ..checking import stated

    folder = out / outcome.statement.key
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.json"):  # certificates of an earlier run must not pass for this one's
        stale.unlink()
    used: set = set()
    for inst in outcome.instances:
        name = slug(inst.name)
        while name in used:
            name += "-"
        used.add(name)
        if inst.proof.result == REFUTED and inst.proof.counterexample is not None:
            path = folder / f"{name}.counterexample.json"
            write_json_atomic(path, _counterexample_points(inst.proof))
            outcome.files.append(str(path))
            continue
        if inst.proof.result != PROVED:
            continue
        try:
            path = folder / f"{name}.json"
            write_json_atomic(path, stated(certificate_of(inst.proof)))
            outcome.files.append(str(path))
            cert = read_json(path)
            check_certificate(cert)
            altered_at, rejected = probe(cert, check_certificate)
            if altered_at is None:
                verdict = f"{ACCEPTED_ALTERED}: it records no number to alter"
            elif not rejected:
                verdict = f"{ACCEPTED_ALTERED}: {altered_at} + 1/10^6 was accepted too"
            else:
                verdict = CHECKED
        except CertificateError as err:
            verdict = f"{REJECTED}: {err}"
        except SymrelError as err:
            verdict = f"{REJECTED}: it could not be written: {err}"
        outcome.certificate_checks[inst.name] = verdict


def write_outcome(outcome: Outcome, out, formats) -> list[str]:
    """Write every requested output of one statement; returns the files written."""
    out = Path(out)
    if "json" in formats:
        write_certificates(outcome, out)
    for fmt in formats:
        if fmt != "json":
            path = out / f"{outcome.statement.key}.{fmt}"
            write_text_atomic(path, render_outcome(outcome, fmt))
            outcome.files.append(str(path))
    if {"md", "tex"} & set(formats):  # the figures they include (HTML embeds its own)
        from ..fileformat import write_bytes_atomic
        from ..report import outcome_figures

        for name, png in outcome_figures(outcome):
            write_bytes_atomic(out / name, png)
            outcome.files.append(str(out / name))
    return outcome.files
