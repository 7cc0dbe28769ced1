"""The types of a saved report, checked field by field before anything reads it (`fleet`, `--from`).

A saved report is untrusted input: a wrong type must become an input error that names the field
("environment.gpus: expected a list or null, not int (5)"), never an exception deep inside a check
or a renderer. Contract fields are checked (tfdoctor/schema/report.schema.json, schema 1 and 2);
unknown keys are allowed, so older and newer tfdoctor versions' extra fields do not reject a file;
probe sections inside `facts` are only required to be objects (checks read them defensively).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tfdoctor.model import READABLE_SCHEMAS, SCHEMA_VERSION

STATUSES = ("skip", "pass", "warn", "fail")
MODES = ("full", "quick", "explain")
ENV_STRINGS = ("platform", "os", "kernel", "python_version", "container", "hostname", "driver_version",
               "cuda_driver_version", "nvcc_version", "tensorflow_version", "tf_cuda_version",
               "tf_cudnn_version", "cudnn_version")
ENV_COUNTS = ("gpu_count", "tf_visible_gpus")


class ShapeError(ValueError):
    """A field of a saved report has the wrong type: the message names the field."""


def _kind(value: Any) -> str:
    names = {dict: "object", list: "list", str: "string", bool: "true/false", type(None): "null"}
    name = names.get(type(value), type(value).__name__)
    shown = repr(value)
    if name in ("object", "list"):
        return name
    return f"{name} ({shown[:40]}{'...' if len(shown) > 40 else ''})"


def _fail(field: str, expected: str, value: Any) -> ShapeError:
    return ShapeError(f"{field}: expected {expected}, not {_kind(value)}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _string_or_null(data: dict[str, Any], key: str, field: str) -> None:
    if key in data and data[key] is not None and not isinstance(data[key], str):
        raise _fail(field, "a string or null", data[key])


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 date-time ("2026-11-03T06:00:00+00:00", "...Z"); None when not one."""
    if not isinstance(value, str) or not 10 <= len(value) <= 64:
        return None
    try:
        return datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None


def _environment(env: Any) -> None:
    if not isinstance(env, dict):
        raise _fail("environment", "an object", env)
    for key in ENV_STRINGS:
        _string_or_null(env, key, f"environment.{key}")
    built = env.get("tf_built_with_cuda")
    if built is not None and not isinstance(built, bool):
        raise _fail("environment.tf_built_with_cuda", "true, false or null", built)
    for key in ENV_COUNTS:
        value = env.get(key)
        if value is not None and not (_is_int(value) and value >= 0):
            raise _fail(f"environment.{key}", "a count (0 or more) or null", value)
    gpus = env.get("gpus")
    if gpus is None:
        return
    if not isinstance(gpus, list):
        raise _fail("environment.gpus", "a list or null", gpus)
    for i, gpu in enumerate(gpus):
        where = f"environment.gpus[{i}]"
        if not isinstance(gpu, dict):
            raise _fail(where, "an object", gpu)
        if "index" in gpu and gpu["index"] is not None and not _is_int(gpu["index"]):
            raise _fail(f"{where}.index", "a whole number", gpu["index"])
        for key in ("name", "compute_capability"):
            _string_or_null(gpu, key, f"{where}.{key}")
        mem = gpu.get("memory_total_mib")
        if mem is not None and (isinstance(mem, bool) or not isinstance(mem, (int, float))):
            raise _fail(f"{where}.memory_total_mib", "a number or null", mem)


def _findings(findings: Any) -> None:
    if not isinstance(findings, list):
        raise _fail("findings", "a list", findings)
    for i, f in enumerate(findings):
        where = f"findings[{i}]"
        if not isinstance(f, dict):
            raise _fail(where, "an object", f)
        if not isinstance(f.get("id"), str):
            raise _fail(f"{where}.id", "a string", f.get("id"))
        if f.get("status") not in STATUSES:
            expected = ", ".join(STATUSES)
            raise ShapeError(f"{where}.status: expected one of {expected}, not {_kind(f.get('status'))}")
        for key in ("title", "detail", "fix", "docs", "caused_by"):
            _string_or_null(f, key, f"{where}.{key}")


def check(data: Any, required: tuple[str, ...] = ()) -> None:
    """Raise ShapeError naming the first field of a saved report with the wrong type (or a
    `required` top-level field that is missing). Returns None when the report can be read."""
    if not isinstance(data, dict):
        raise _fail("the report", "a JSON object", data)
    if "schema_version" not in data:
        raise ShapeError("schema_version: missing (not a tfdoctor report)")
    version = data["schema_version"]
    if not _is_int(version):
        raise _fail("schema_version", "a whole number", version)
    if version > SCHEMA_VERSION:
        raise ShapeError(f"report schema {version} is newer than this tfdoctor reads ({SCHEMA_VERSION})")
    if version not in READABLE_SCHEMAS:
        raise ShapeError(f"schema_version: {version} is not a tfdoctor report schema ({READABLE_SCHEMAS})")
    for key in required:
        if key not in data:
            raise ShapeError(f"{key}: missing")
    tool = data.get("tool")
    if tool is not None:
        if not isinstance(tool, dict):
            raise _fail("tool", "an object", tool)
        for key in ("name", "version", "compat_data"):
            _string_or_null(tool, key, f"tool.{key}")
    created = data.get("created_at")
    if created is not None and parse_time(created) is None:
        raise _fail("created_at", "an ISO 8601 date-time such as 2026-11-03T06:00:00+00:00", created)
    mode = data.get("mode")
    if mode is not None and mode not in MODES:
        raise ShapeError(f"mode: expected one of {', '.join(MODES)}, not {_kind(mode)}")
    if "environment" in data:
        _environment(data["environment"])
    if "findings" in data:
        _findings(data["findings"])
    facts = data.get("facts")
    if "facts" in data:
        if not isinstance(facts, dict):
            raise _fail("facts", "an object", facts)
        for name, section in facts.items():
            if section is not None and not isinstance(section, dict):
                raise _fail(f"facts.{name}", "an object or null", section)
    for key in ("summary", "timings"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise _fail(key, "an object", data[key])
    timings = data.get("timings") or {}
    for name, seconds in timings.items():
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise _fail(f"timings.{name}", "a number of seconds", seconds)
