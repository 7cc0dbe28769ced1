"""Build a Report from facts (live or saved), and read saved reports back."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tfdoctor import __version__
from tfdoctor.checks import run_checks
from tfdoctor.environment import environment
from tfdoctor.model import SCHEMA_VERSION, Report, Status
from tfdoctor.privacy import redact_report


class ReportError(Exception):
    """A saved report that cannot be read: unreadable, not JSON, or from a newer schema."""


def now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def tool_info(matrix: Any) -> dict[str, Any]:
    return {"name": "tfdoctor", "version": __version__, "compat_data": getattr(matrix, "version", None)}


def worker_log(facts: dict[str, Any]) -> str:
    """What TensorFlow printed in the worker, and the errors its steps raised: one text to read."""
    runtime = facts.get("runtime") if isinstance(facts.get("runtime"), dict) else {}
    parts = [str(runtime.get("log") or "")]
    for step in runtime.get("steps") or []:
        if isinstance(step, dict) and step.get("status") == "fail" and step.get("error"):
            parts.append(str(step["error"]))
    return "\n".join(p for p in parts if p)


def build_report(
    mode: str,
    facts: dict[str, Any],
    matrix: Any,
    only: tuple[str, ...] = (),
    skip: tuple[str, ...] = (),
    timings: dict[str, float] | None = None,
) -> Report:
    """The one report builder, for every mode: redact, read the worker's log, judge, link causes."""
    from tfdoctor import logs

    facts = redact_report(facts)  # secrets never reach a check, a finding or any output format
    if mode != "explain":
        text = worker_log(facts)
        facts = {**facts, "log": logs.read_text(text, source="worker")["log"]} if text else facts
    start = time.monotonic()
    findings = run_checks(facts, matrix, only, skip)
    if mode == "explain":  # a paste answers what it shows: checks it cannot inform are left out
        findings = [f for f in findings if f.status != Status.SKIP]
    timings = dict(timings or {})
    timings["checks"] = round(time.monotonic() - start, 3)
    return Report(
        mode=mode,
        environment=environment(facts),
        facts=facts,
        findings=findings,
        timings=timings,
        created_at=now_iso(),
        tool=tool_info(matrix),
    )


def explain_report(text: str | Iterable[str], matrix: Any = None) -> Report:
    """`tfdoctor explain` and `tfdoctor.explain(text)`: pasted text read into facts, judged by the checks."""
    from tfdoctor import logs
    from tfdoctor.compat import load_matrix

    facts = logs.read_text(text) if isinstance(text, str) else logs.read(text)
    return build_report("explain", facts, matrix if matrix is not None else load_matrix())


def load_report(path: str | Path) -> dict[str, Any]:
    """Read a saved report as a dict; raise ReportError with one plain line on any problem."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path} is not a tfdoctor JSON report (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict) or "schema_version" not in data or "facts" not in data:
        raise ReportError(f"{path} is not a tfdoctor JSON report (no schema_version/facts)")
    version = data["schema_version"]
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        raise ReportError(
            f"{path} has report schema {version!r}; this tfdoctor {__version__} reads schema "
            f"{SCHEMA_VERSION} and older: upgrade tfdoctor"
        )
    from tfdoctor.shape import ShapeError, check

    try:
        check(data, required=("facts",))
    except ShapeError as exc:
        raise ReportError(f"{path} is not a valid tfdoctor report: {exc}") from None
    return data
