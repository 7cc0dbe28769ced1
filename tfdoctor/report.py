"""Build a Report from facts (live or saved), and read saved reports back.

`build_report` is the one builder for every mode: secrets are redacted before any check sees the
facts, the selected checks run, the command line's options are applied to their findings
(`--allow-cpu`, `--require-gpus 0`: a post-step on finding ids, so the checks stay pure), and the
facts kept in the report are cleaned for strict JSON.

facts["options"] (from the command line, not a probe): require_gpus (int or null), allow_cpu
(bool), and with --only/--skip: only [names], skip [names], checks_run [the checks that ran].
"""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tfdoctor import __version__
from tfdoctor.checks import root_of, run_checks, selected
from tfdoctor.environment import environment
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
        options.update(only=list(only), skip=list(skip), checks_run=[c.name for c in selected(only, skip)])
    return options


def apply_options(findings: list[Finding], options: dict[str, Any]) -> list[Finding]:
    """The command line's say on the findings: `--require-gpus 0` asks for nothing, so it passes;
    `--allow-cpu` turns GPU absence (and every failure it explains) into a warning, unless
    `--require-gpus N` (N > 0) asks for GPUs all the same."""
    require = options.get("require_gpus")
    out = list(findings)
    if require == 0 and not isinstance(require, bool):
        out = [
            Finding(
                "gpu.count-ok",
                Status.PASS,
                "No GPU required (--require-gpus 0)",
                detail="--require-gpus 0 asks for no GPU, so the GPU count cannot fall short.",
                facts=("options.require_gpus",),
            )
            if f.id == "gpu.count-below-required"
            else f
            for f in out
        ]
    if options.get("allow_cpu") is True and not require:
        absent = set(GPU_ABSENCE)
        out = [
            replace(f, status=Status.WARN, detail=f"{f.detail}\n{ALLOW_CPU_NOTE}".strip())
            if f.status == Status.FAIL and (f.id in absent or root_of(f.id, out) in absent)
            else f
            for f in out
        ]
    return out


def build_report(
    mode: str,
    facts: dict[str, Any],
    matrix: Any,
    only: tuple[str, ...] = (),
    skip: tuple[str, ...] = (),
    timings: dict[str, float] | None = None,
) -> Report:
    facts = redact_report(facts)  # secrets never reach a check, a finding or any output format
    options = _options(facts, tuple(only), tuple(skip))
    if options or "options" in facts:
        facts["options"] = options
    start = time.monotonic()
    findings = apply_options(run_checks(facts, matrix, only, skip), options)
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


# --- reading saved reports ---------------------------------------------------------------------

MODES = ("full", "quick", "explain")
PLATFORMS = ("linux", "wsl2", "windows", "macos")
SECTIONS = (
    "system", "nvml", "nvidia_smi", "nvcc", "libraries", "tensorflow", "runtime", "collective", "options",
)
_TEXT = {  # (section, key): the facts the report's environment and renderers show as text
    "system": ("os", "kernel", "python_version", "container", "hostname", "proc_driver_version"),
    "nvml": ("driver_version", "cuda_driver_version"),
    "nvidia_smi": ("driver_version", "cuda_version"),
    "nvcc": ("version",),
    "tensorflow": ("version", "python_version"),
}
_KINDS = {
    dict: "an object", list: "a list", str: "a string", bool: "true or false", int: "an integer",
    float: "a number", type(None): "null",
}


def _kind(value: Any) -> str:
    return _KINDS.get(type(value), type(value).__name__)


def _bad(field: str, value: Any, wanted: str) -> ReportError:
    return ReportError(f"{field} is {_kind(value)}, expected {wanted}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_shape(data: dict[str, Any]) -> None:
    """Raise ReportError naming the first field whose type tfdoctor cannot use.

    Only what the report's structure, its `environment` and the command line rely on is checked;
    the checks read the rest defensively (and a check that still trips becomes a failing finding).
    """
    mode = data.get("mode")
    if mode is not None and mode not in MODES:
        raise ReportError(f"mode is {mode!r}, expected one of {', '.join(MODES)}")
    facts = data["facts"]
    if not isinstance(facts, dict):
        raise _bad("facts", facts, "an object")
    for name in ("tool", "timings"):
        if data.get(name) is not None and not isinstance(data[name], dict):
            raise _bad(name, data[name], "an object")
    for key, value in (data.get("timings") or {}).items():
        if not _is_number(value) or value < 0:
            raise _bad(f"timings.{key}", value, "a number of seconds")
    for name in SECTIONS:
        if facts.get(name) is not None and not isinstance(facts[name], dict):
            raise _bad(f"facts.{name}", facts[name], "an object or null")
    section = {name: facts.get(name) or {} for name in SECTIONS}
    for name, keys in _TEXT.items():
        for key in keys:
            value = section[name].get(key)
            if value is not None and not isinstance(value, str):
                raise _bad(f"facts.{name}.{key}", value, "a string or null")
    platform = section["system"].get("platform")
    if platform is not None and platform not in PLATFORMS:
        raise ReportError(f"facts.system.platform is {platform!r}, expected one of {', '.join(PLATFORMS)}")
    _check_options(section["options"])
    _check_tensorflow(section["tensorflow"])
    for name in ("nvml", "nvidia_smi"):
        _check_gpus(f"facts.{name}.gpus", section[name].get("gpus"))
    visible = section["runtime"].get("tf_visible_gpus")
    if visible is not None and not isinstance(visible, list) and not (_is_int(visible) and visible >= 0):
        raise _bad("facts.runtime.tf_visible_gpus", visible, "a count of GPUs or null")


def _check_options(options: dict[str, Any]) -> None:
    need = options.get("require_gpus")
    if need is not None and not (_is_int(need) and need >= 0):
        raise _bad("facts.options.require_gpus", need, "a count of GPUs (0 or more) or null")
    if options.get("allow_cpu") is not None and not isinstance(options["allow_cpu"], bool):
        raise _bad("facts.options.allow_cpu", options["allow_cpu"], "true or false")
    for key in ("only", "skip", "checks_run"):
        value = options.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise _bad(f"facts.options.{key}", value, "a list of check names")


def _check_tensorflow(tf: dict[str, Any]) -> None:
    build = tf.get("build_info")
    if build is not None:
        if not isinstance(build, dict):
            raise _bad("facts.tensorflow.build_info", build, "an object or null")
        if build.get("is_cuda_build") is not None and not isinstance(build["is_cuda_build"], bool):
            field = "facts.tensorflow.build_info.is_cuda_build"
            raise _bad(field, build["is_cuda_build"], "true, false or null")
        for key in ("cuda_version", "cudnn_version"):
            if build.get(key) is not None and not isinstance(build[key], str):
                raise _bad(f"facts.tensorflow.build_info.{key}", build[key], "a string or null")
    dists = tf.get("distributions")
    if dists is not None:
        if not isinstance(dists, dict):
            raise _bad("facts.tensorflow.distributions", dists, "an object of name: version")
        for name, version in dists.items():
            if not isinstance(version, str):
                raise _bad(f"facts.tensorflow.distributions.{name}", version, "a version string")


def _check_gpus(field: str, gpus: Any) -> None:
    if gpus is None:
        return
    if not isinstance(gpus, list):
        raise _bad(field, gpus, "a list of GPUs or null")
    for i, gpu in enumerate(gpus):
        where = f"{field}[{i}]"
        if not isinstance(gpu, dict):
            raise _bad(where, gpu, "an object")
        index = gpu.get("index")
        if index is not None and not (_is_int(index) and index >= 0):
            raise _bad(f"{where}.index", index, "a GPU index (0 or more)")
        if gpu.get("name") is not None and not isinstance(gpu["name"], str):
            raise _bad(f"{where}.name", gpu["name"], "a string or null")
        cc = gpu.get("compute_capability")
        if cc is not None and not (isinstance(cc, str) and _is_cc(cc)):
            raise ReportError(
                f"{where}.compute_capability is {str(cc)[:40]!r}, expected MAJOR.MINOR such as 8.6"
            )
        memory = gpu.get("memory_total_mib")
        if memory is not None and not (_is_number(memory) and memory >= 0):
            raise _bad(f"{where}.memory_total_mib", memory, "a number of MiB or null")


def _is_cc(text: str) -> bool:
    major, dot, minor = text.partition(".")
    return bool(dot) and major.isdigit() and minor.isdigit() and len(text) <= 8 and text.isascii()


def load_report(path: str | Path) -> dict[str, Any]:
    """Read a saved report as a dict; raise ReportError with one plain line on any problem."""
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
    if not _is_int(version) or version > SCHEMA_VERSION:
        raise ReportError(
            f"{path} has report schema {str(version)[:40]!r}; this tfdoctor {__version__} reads schema "
            f"{SCHEMA_VERSION} and older: upgrade tfdoctor"
        )
    try:
        check_shape(data)
    except ReportError as exc:
        raise ReportError(f"{path}: {exc}") from None
    return data
