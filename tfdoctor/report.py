"""Build a Report from facts (live, saved or read from pasted text), and read saved reports back.

`build_report` is the one builder for every mode: secrets are redacted before any check sees the
facts, the worker's log is read into evidence, the selected checks run and their causes are linked,
the command line's options are applied to the findings (`--allow-cpu`: a post-step on finding
ids, so the checks stay pure), and the facts kept in the report are cleaned for strict JSON.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tfdoctor import __version__
from tfdoctor.checks import NOTHING_VERIFIED, checks_run, root_of, run_checks
from tfdoctor.environment import environment
from tfdoctor.facts import gpus
from tfdoctor.jsonsafe import InputError, clean, loads, read_capped
from tfdoctor.model import SCHEMA_VERSION, Finding, Report, Status
from tfdoctor.privacy import redact_report

# What "no GPU here" looks like; with --allow-cpu these, and what they explain, only warn.
GPU_ABSENCE = ("runtime.no-gpu-visible", "driver.missing", "cuda.init-failed", "gpu.count-below-required")
ALLOW_CPU_NOTE = "--allow-cpu: running on the CPU only is expected here, so this does not fail the check."


class ReportError(Exception):
    """A saved report that cannot be read: unreadable, not JSON, or from a newer schema."""


def now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def tool_info(matrix: Any) -> dict[str, Any]:
    return {"name": "tfdoctor", "version": __version__, "compat_data": getattr(matrix, "version", None)}


def _options(facts: dict[str, Any], only: tuple[str, ...], skip: tuple[str, ...]) -> dict[str, Any]:
    options = facts.get("options")
    options = dict(options) if isinstance(options, dict) else {}
    if only or skip:
        options.update(only=list(only), skip=list(skip),
                       checks_run=[c.name for c in checks_run(only, skip, options)])
    return options


def apply_options(findings: list[Finding], options: dict[str, Any], no_gpu: bool = False) -> list[Finding]:
    """`--allow-cpu` turns GPU absence (and every failure it explains; with `no_gpu`, a selection that
    judged nothing on a machine with no GPU) into a warning, unless `--require-gpus N` (N > 0) asks
    for GPUs all the same."""
    if options.get("allow_cpu") is not True or options.get("require_gpus"):
        return findings
    absent = set(GPU_ABSENCE) | ({NOTHING_VERIFIED} if no_gpu else set())
    return [
        replace(f, status=Status.WARN, detail=f"{f.detail}\n{ALLOW_CPU_NOTE}".strip())
        if f.status == Status.FAIL and (f.id in absent or root_of(f.id, findings) in absent)
        else f
        for f in findings
    ]


def worker_log(facts: dict[str, Any]) -> str:
    """What TensorFlow printed in the worker, and the errors its steps raised: one text to read."""
    runtime = facts.get("runtime") if isinstance(facts.get("runtime"), dict) else {}
    parts = [str(runtime.get("log") or "")]
    for step in runtime.get("steps") if isinstance(runtime.get("steps"), list) else []:
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
    """The one report builder, for every mode."""
    facts = redact_report(facts)  # secrets never reach a check, a finding or any output format
    text = worker_log(facts) if mode != "explain" else ""
    if text:  # a quick check has no worker log: the log engine is not even imported
        from tfdoctor import logs

        facts = {**facts, "log": logs.read_text(text, source="worker")["log"]}
    options = _options(facts, tuple(only), tuple(skip))
    if options or "options" in facts:
        facts["options"] = options
    start = time.monotonic()
    verdict = mode != "explain"  # a check of a machine judges something, or does not pass
    findings = run_checks(facts, matrix, only, skip, verdict=verdict)
    findings = apply_options(findings, options, no_gpu=gpus(facts, dev_nodes=True)[1] is None)
    if mode == "explain":  # a paste answers what it shows: checks it cannot inform are left out
        findings = [f for f in findings if f.status != Status.SKIP]
    timings = dict(timings or {})
    timings["checks"] = round(time.monotonic() - start, 3)
    facts = clean(facts)  # strict JSON: no NaN, Infinity or unprintable integer reaches a renderer
    return Report(
        mode=mode,
        environment=environment(facts),
        facts=facts,
        findings=findings,
        timings=clean(timings),
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
    """Read a saved report as a dict; raise ReportError with one plain line on any problem (too
    large, not JSON, a newer schema, a field of the wrong type, named)."""
    from tfdoctor.shape import ShapeError, check, check_facts

    try:
        raw = read_capped(path)
    except InputError as exc:
        raise ReportError(f"{path} is {exc}") from None
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        data = loads(raw.decode("utf-8", errors="replace"))
    except InputError as exc:
        raise ReportError(f"{path} is not a tfdoctor JSON report ({exc})") from None
    if not isinstance(data, dict) or "schema_version" not in data or "facts" not in data:
        raise ReportError(f"{path} is not a tfdoctor JSON report (no schema_version/facts)")
    version = data["schema_version"]
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        raise ReportError(
            f"{path} has report schema {version!r}; this tfdoctor {__version__} reads schema "
            f"{SCHEMA_VERSION} and older: upgrade tfdoctor"
        )
    try:
        check(data, required=("facts",))
        check_facts(data["facts"])
    except ShapeError as exc:
        raise ReportError(f"{path} is not a valid tfdoctor report: {exc}") from None
    return data
