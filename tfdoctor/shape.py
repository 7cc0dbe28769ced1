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
FINDING_TEXT = ("title", "detail", "fix", "docs", "caused_by")


class ShapeError(ValueError):
    """A field of a saved report has the wrong type: the message names the field."""


def _kind(value: Any) -> str:
    names = {dict: "object", list: "list", str: "string", bool: "true/false", type(None): "null"}
    name = names.get(type(value), type(value).__name__)
    if name in ("object", "list"):
        return name  # never repr'd: it may nest deeper than repr can go
    shown = repr(value)
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
        value = env.get(key)
        if value is not None and type(value) is not str:
            raise _fail(f"environment.{key}", "a string or null", value)
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
        if not isinstance(f, dict):
            raise _fail(f"findings[{i}]", "an object", f)
        if not isinstance(f.get("id"), str):
            raise _fail(f"findings[{i}].id", "a string", f.get("id"))
        if f.get("status") not in STATUSES:
            expected, got = ", ".join(STATUSES), _kind(f.get("status"))
            raise ShapeError(f"findings[{i}].status: expected one of {expected}, not {got}")
        for key in FINDING_TEXT:  # inline rather than _string_or_null: a fleet checks millions
            value = f.get(key)
            if value is not None and type(value) is not str:
                raise _fail(f"findings[{i}].{key}", "a string or null", value)
        plan = f.get("plan")
        if plan is not None and not isinstance(plan, dict):
            raise _fail(f"findings[{i}].plan", "an object or null", plan)


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


# --- facts a saved report hands to the checks (`check --from`) ----------------------------

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
def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_facts(facts: dict[str, Any]) -> None:
    """Raise ShapeError naming the first fact whose type the checks and the environment cannot use
    (`--from` judges a saved report's facts again). The checks read the rest defensively, and a
    check that still trips becomes a failing finding."""
    for name in SECTIONS:
        if facts.get(name) is not None and not isinstance(facts[name], dict):
            raise _fail(f"facts.{name}", "an object or null", facts[name])
    section = {name: facts.get(name) or {} for name in SECTIONS}
    for name, keys in _TEXT.items():
        for key in keys:
            value = section[name].get(key)
            if value is not None and not isinstance(value, str):
                raise _fail(f"facts.{name}.{key}", "a string or null", value)
    platform = section["system"].get("platform")
    if platform is not None and platform not in PLATFORMS:
        raise ShapeError(f"facts.system.platform is {platform!r}, expected one of {', '.join(PLATFORMS)}")
    _check_options(section["options"])
    _check_tensorflow(section["tensorflow"])
    for name in ("nvml", "nvidia_smi"):
        _check_gpus(f"facts.{name}.gpus", section[name].get("gpus"))
    visible = section["runtime"].get("tf_visible_gpus")
    if visible is not None and not isinstance(visible, list) and not (_is_int(visible) and visible >= 0):
        raise _fail("facts.runtime.tf_visible_gpus", "a count of GPUs or null", visible)


def _check_options(options: dict[str, Any]) -> None:
    need = options.get("require_gpus")
    if need is not None and not (_is_int(need) and need >= 0):
        raise _fail("facts.options.require_gpus", "a count of GPUs (0 or more) or null", need)
    if options.get("allow_cpu") is not None and not isinstance(options["allow_cpu"], bool):
        raise _fail("facts.options.allow_cpu", "true or false", options["allow_cpu"])
    for key in ("only", "skip", "checks_run"):
        value = options.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise _fail(f"facts.options.{key}", "a list of check names", value)


def _check_tensorflow(tf: dict[str, Any]) -> None:
    build = tf.get("build_info")
    if build is not None:
        if not isinstance(build, dict):
            raise _fail("facts.tensorflow.build_info", "an object or null", build)
        if build.get("is_cuda_build") is not None and not isinstance(build["is_cuda_build"], bool):
            field = "facts.tensorflow.build_info.is_cuda_build"
            raise _fail(field, "true, false or null", build["is_cuda_build"])
        for key in ("cuda_version", "cudnn_version"):
            if build.get(key) is not None and not isinstance(build[key], str):
                raise _fail(f"facts.tensorflow.build_info.{key}", "a string or null", build[key])
    dists = tf.get("distributions")
    if dists is not None:
        if not isinstance(dists, dict):
            raise _fail("facts.tensorflow.distributions", "an object of name: version", dists)
        for name, version in dists.items():
            if not isinstance(version, str):
                raise _fail(f"facts.tensorflow.distributions.{name}", "a version string", version)


def _check_gpus(field: str, gpus: Any) -> None:
    if gpus is None:
        return
    if not isinstance(gpus, list):
        raise _fail(field, "a list of GPUs or null", gpus)
    for i, gpu in enumerate(gpus):
        where = f"{field}[{i}]"
        if not isinstance(gpu, dict):
            raise _fail(where, "an object", gpu)
        index = gpu.get("index")
        if index is not None and not (_is_int(index) and index >= 0):
            raise _fail(f"{where}.index", "a GPU index (0 or more)", index)
        if gpu.get("name") is not None and not isinstance(gpu["name"], str):
            raise _fail(f"{where}.name", "a string or null", gpu["name"])
        cc = gpu.get("compute_capability")
        if cc is not None and not (isinstance(cc, str) and _is_cc(cc)):
            raise ShapeError(
                f"{where}.compute_capability is {str(cc)[:40]!r}, expected MAJOR.MINOR such as 8.6"
            )
        memory = gpu.get("memory_total_mib")
        if memory is not None and not (_is_number(memory) and memory >= 0):
            raise _fail(f"{where}.memory_total_mib", "a number of MiB or null", memory)


def _is_cc(text: str) -> bool:
    major, dot, minor = text.partition(".")
    return bool(dot) and major.isdigit() and minor.isdigit() and len(text) <= 8 and text.isascii()



