"""The report's `environment`: flat headline values derived from the probes' facts."""

from __future__ import annotations

from typing import Any

KEYS = (
    "platform",
    "os",
    "kernel",
    "python_version",
    "container",
    "hostname",
    "driver_version",
    "cuda_driver_version",
    "nvcc_version",
    "tensorflow_version",
    "tf_built_with_cuda",
    "tf_cuda_version",
    "tf_cudnn_version",
    "cudnn_version",
    "gpu_count",
    "gpus",
    "tf_visible_gpus",
)


PLATFORMS = ("linux", "wsl2", "windows", "macos")


def _get(facts: dict[str, Any], probe: str, key: str) -> Any:
    section = facts.get(probe)
    return section.get(key) if isinstance(section, dict) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _count(value: Any) -> int | None:
    """A GPU count: an integer of 0 or more, or the length of a list of GPUs; None otherwise."""
    if isinstance(value, list):
        return len(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _number(value: Any) -> float | int | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
    return value if ok and value == value and value != float("inf") else None


def _cc(value: Any) -> str | None:
    if not isinstance(value, str) or len(value) > 8:
        return None
    major, dot, minor = value.partition(".")
    return value if dot and major.isdigit() and minor.isdigit() and value.isascii() else None


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def _gpus(facts: dict[str, Any]) -> list[dict[str, Any]] | None:
    gpus = _get(facts, "nvml", "gpus") or _get(facts, "nvidia_smi", "gpus")
    if not isinstance(gpus, list):
        return None
    return [
        {
            "index": _count(g.get("index")) if _count(g.get("index")) is not None else i,
            "name": _str(g.get("name")),
            "compute_capability": _cc(g.get("compute_capability")),
            "memory_total_mib": _number(g.get("memory_total_mib")),
        }
        for i, g in enumerate(gpus)
        if isinstance(g, dict)
    ]


def _cudnn_loaded(facts: dict[str, Any]) -> str | None:
    """The cuDNN the target environment would load: pip wheel first, else None."""
    dists = _get(facts, "tensorflow", "distributions")
    if not isinstance(dists, dict):
        return None
    for name in ("nvidia-cudnn-cu12", "nvidia-cudnn-cu13", "nvidia-cudnn-cu11"):
        if name in dists:
            return _str(dists[name])
    return None


def environment(facts: dict[str, Any]) -> dict[str, Any]:
    """Flatten facts into the contract's headline keys (null when unknown, or of the wrong type)."""
    build = _get(facts, "tensorflow", "build_info")
    build = build if isinstance(build, dict) else {}
    cuda_build = build.get("is_cuda_build")
    gpus = _gpus(facts)
    env = {
        "platform": _get(facts, "system", "platform"),
        "os": _get(facts, "system", "os"),
        "kernel": _get(facts, "system", "kernel"),
        "python_version": _first(
            _get(facts, "tensorflow", "python_version"), _get(facts, "system", "python_version")
        ),
        "container": _get(facts, "system", "container"),
        "hostname": _get(facts, "system", "hostname"),
        "driver_version": _first(
            _get(facts, "nvml", "driver_version"),
            _get(facts, "nvidia_smi", "driver_version"),
            _get(facts, "system", "proc_driver_version"),
        ),
        "cuda_driver_version": _first(
            _get(facts, "nvml", "cuda_driver_version"), _get(facts, "nvidia_smi", "cuda_version")
        ),
        "nvcc_version": _get(facts, "nvcc", "version"),
        "tensorflow_version": _get(facts, "tensorflow", "version"),
        "tf_built_with_cuda": cuda_build if isinstance(cuda_build, bool) else None,
        "tf_cuda_version": build.get("cuda_version"),
        "tf_cudnn_version": build.get("cudnn_version"),
        "cudnn_version": _cudnn_loaded(facts),
        "gpu_count": len(gpus) if gpus is not None else None,
        "gpus": gpus,
        "tf_visible_gpus": _count(_get(facts, "runtime", "tf_visible_gpus")),
    }
    out = {k: env.get(k) for k in KEYS}
    for key in KEYS:  # every headline value but these is text
        if key not in ("tf_built_with_cuda", "gpu_count", "gpus", "tf_visible_gpus"):
            out[key] = _str(out[key])
    if out["platform"] not in PLATFORMS:
        out["platform"] = None
    return out
