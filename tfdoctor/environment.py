"""The report's `environment`: flat headline values derived from the facts (probed or read)."""

from __future__ import annotations

from typing import Any

from tfdoctor import facts as fc
from tfdoctor import versions as v

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


def _gpus(facts: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The driver's GPU list, else TensorFlow's or the one a person named (a pasted log)."""
    gpus, source = fc.gpus(facts)
    if not gpus:
        gpus = fc.tf_gpus(facts)[0]
    if not gpus and source is None:
        return [] if fc.get(facts, "system", "pci_nvidia") == [] else None  # none on the PCI bus: 0
    out = []
    for i, g in enumerate(gpus):
        cc = g.get("compute_capability")
        total = g.get("memory_total_mib")
        out.append({
            "index": g["index"] if isinstance(g.get("index"), int) and g["index"] >= 0 else i,
            "name": g.get("name") if isinstance(g.get("name"), str) else None,
            "compute_capability": cc if isinstance(cc, str) and v.major_minor(cc) == cc else None,
            "memory_total_mib": total if isinstance(total, (int, float)) and total >= 0 else None,
        })
    return out


def _cudnn_loaded(facts: dict[str, Any]) -> str | None:
    """The cuDNN TensorFlow loaded (its own log or the worker), else the installed pip wheel."""
    loaded = fc.text(fc.get(facts, "runtime", "cudnn_version"))
    if loaded:
        return loaded
    for lib in fc.as_list(fc.get(facts, "runtime", "loaded_libraries")):
        if (isinstance(lib, dict) and "cudnn" in str(lib.get("soname") or lib.get("path") or "")
                and lib.get("version")):
            return str(lib["version"])
    dists = fc.distributions(facts)
    return next((dists[n] for n in ("nvidia-cudnn-cu12", "nvidia-cudnn-cu13", "nvidia-cudnn-cu11")
                 if n in dists),
                None)


def _visible(facts: dict[str, Any]) -> int | None:
    seen = fc.get(facts, "runtime", "tf_visible_gpus")
    return seen if isinstance(seen, int) and not isinstance(seen, bool) and seen >= 0 else None


def environment(facts: dict[str, Any]) -> dict[str, Any]:
    """Flatten facts into the contract's headline keys (null when unknown)."""
    build = fc.build_info(facts)
    gpus = _gpus(facts)
    built = build.get("is_cuda_build")
    env = {
        "platform": (fc.platform(facts) if fc.platform(facts) in ("linux", "wsl2", "windows", "macos")
                     else None),
        "os": fc.text(fc.get(facts, "system", "os")),
        "kernel": fc.text(fc.get(facts, "system", "kernel")),
        "python_version": fc.python_version(facts) or fc.text(fc.get(facts, "system", "python_version")),
        "container": fc.container(facts),
        "hostname": fc.text(fc.get(facts, "system", "hostname")),
        "driver_version": fc.driver_version(facts)[0],
        "cuda_driver_version": fc.cuda_driver_version(facts),
        "nvcc_version": fc.text(fc.get(facts, "nvcc", "version")),
        "tensorflow_version": fc.tf_version(facts),
        "tf_built_with_cuda": built if isinstance(built, bool) else None,
        "tf_cuda_version": v.norm_cuda(build.get("cuda_version")),
        "tf_cudnn_version": v.norm_cudnn(build.get("cudnn_version")),
        "cudnn_version": _cudnn_loaded(facts),
        "gpu_count": len(gpus) if gpus is not None else None,
        "gpus": gpus,
        "tf_visible_gpus": _visible(facts),
    }
    return {k: env.get(k) for k in KEYS}
