"""NVML probe through the official nvidia-ml-py bindings (`import pynvml`, inside functions only).

Facts (see tfdoctor/probes/__init__.py): available, error, error_kind, driver_version,
cuda_driver_version, gpus [per-GPU keys below], bindings {module, distribution, version}.
error_kind: library-not-found | driver-not-loaded | no-permission | lib-mismatch | gpu-lost |
not-supported | unknown | fork | bindings-missing.

Per GPU: index, name, uuid, serial, pci_bus_id, compute_capability, memory_{total,used,free}_mib,
ecc {mode_current, volatile {corrected, uncorrected}, aggregate {...}}, retired_pages {single_bit,
double_bit, pending}, remapped_rows {pending, failure, correctable, uncorrectable},
throttle_reasons [names active now], pcie {gen, max_gen, width, max_width}, persistence_mode,
compute_mode (default|exclusive_process|exclusive_thread|prohibited), mig {current, pending,
devices [{index, uuid, memory_total_mib}]}, processes [{pid, name, type, used_mib}],
temperature_c, temperature_limit_c (slowdown), power_w, power_limit_w, error, error_kind.
A field NVML does not support on that GPU is null; it never fails the probe.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any, Callable

from tfdoctor import stackerrors

MIB = 1024 * 1024

# NVML's error codes by name (their numbers: tfdoctor/stackerrors.py) -> (error_kind, plain words).
_ERRORS_BY_NAME: dict[str, tuple[str, str]] = {
    "NVML_ERROR_LIBRARY_NOT_FOUND": (
        "library-not-found",
        "the NVIDIA driver's NVML library (libnvidia-ml.so.1) was not found: "
        "no NVIDIA driver is installed, or it is not visible here",
    ),
    "NVML_ERROR_DRIVER_NOT_LOADED": ("driver-not-loaded", "the NVIDIA kernel driver is not loaded"),
    "NVML_ERROR_NO_PERMISSION": (
        "no-permission", "no permission to talk to the NVIDIA driver (/dev/nvidia* access denied)"
    ),
    "NVML_ERROR_LIB_RM_VERSION_MISMATCH": (
        "lib-mismatch",
        "the NVIDIA kernel module and the user-space driver library are different "
        "versions (Driver/library version mismatch), typically after a driver update "
        "without a reboot",
    ),
    "NVML_ERROR_GPU_IS_LOST": ("gpu-lost", "the GPU has fallen off the bus and no longer answers"),
    "NVML_ERROR_NOT_SUPPORTED": ("not-supported", "NVML does not support this on this GPU or platform"),
    "NVML_ERROR_FUNCTION_NOT_FOUND": (
        "not-supported", "this NVML function is missing from the installed driver (too old)"
    ),
    "NVML_ERROR_RESET_REQUIRED": ("gpu-lost", "the GPU needs a reset before it can be used again"),
}
ERRORS: dict[int, tuple[str, str]] = {
    stackerrors.BY_NAME[name].number: said for name, said in _ERRORS_BY_NAME.items()
}

# nvmlClocksEventReason* bits (nvml.h) -> the names shared with the nvidia_smi probe.
THROTTLE_BITS = {
    0x1: "idle",
    0x2: "applications_clocks",
    0x4: "power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal",
    0x40: "hw_thermal",
    0x80: "hw_power_brake",
    0x100: "display_clocks",
}
COMPUTE_MODES = {0: "default", 1: "exclusive_thread", 2: "prohibited", 3: "exclusive_process"}


class _GpuLost(Exception):
    pass


def describe_error(value: int | None, text: str = "") -> tuple[str, str]:
    """(error_kind, plain words) for an NVML error code."""
    if value in ERRORS:
        return ERRORS[value]
    return "unknown", f"NVML failed: {text or f'error {value}'}"


def classify_bindings(origin: str | None, owners: dict[str, str]) -> tuple[str | None, str | None]:
    """Judge who provides `import pynvml`: (error_kind, plain words) or (None, None) when usable.

    origin: the file `import pynvml` would load; owners: {distribution: version} owning that file.
    The unofficial `pynvml` fork before 12 ships its own module; from 12 on it defers to nvidia-ml-py.
    """
    if origin is None:
        return "bindings-missing", "the nvidia-ml-py package (import pynvml) is not installed"
    for dist, version in owners.items():
        if dist.lower().replace("_", "-") == "pynvml" and _major(version) < 12:
            return "fork", (
                f"`import pynvml` comes from the unofficial `pynvml` {version} package, not "
                "NVIDIA's nvidia-ml-py; tfdoctor does not read NVML through it"
            )
    return None, None


def _major(version: str) -> int:
    head = version.split(".", 1)[0]
    return int(head) if head.isdigit() else 0


def _bindings() -> dict[str, Any]:
    """Where `import pynvml` would come from, without importing it."""
    try:
        spec = importlib.util.find_spec("pynvml")
    except (ImportError, ValueError):
        spec = None
    origin = getattr(spec, "origin", None) if spec else None
    owners: dict[str, str] = {}
    if origin:
        real = os.path.realpath(origin)
        # Looked up by folder name, not by reading every installed METADATA file.
        from tfdoctor import installed

        found = installed.distributions()
        if found is None:  # an unusual sys.path: importlib.metadata itself
            from importlib import metadata

            found = [d for n in ("pynvml", "nvidia-ml-py") for d in metadata.distributions(name=n)]
        for dist in found:
            name = installed.normalize(dist.name if isinstance(dist, installed.FolderDistribution)
                                       else dist.metadata.get("Name") or "")
            if name not in ("pynvml", "nvidia-ml-py"):
                continue
            if isinstance(dist, installed.FolderDistribution):
                files = [os.path.join(os.path.dirname(dist.path), f) for f in dist.record_files()]
            else:
                files = [str(dist.locate_file(f)) for f in dist.files or ()]
            if any(os.path.realpath(f) == real for f in files):
                owners.setdefault(name, dist.version)
    return {"module": origin, "owners": owners}


def _library_loadable(owners: dict[str, str]) -> bool:
    """False only when the official bindings would fail to load libnvidia-ml.so.1 (Linux): then
    the answer is known without importing pynvml's 5,000 lines (a quick check on a machine without
    a driver spends most of its NVML time there)."""
    import sys

    official = any(n.lower().replace("_", "-") == "nvidia-ml-py" for n in owners)
    if not official or not sys.platform.startswith("linux"):
        return True
    import ctypes

    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return False
    return True


def _s(value: Any) -> Any:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _cuda_version(value: int | None) -> str | None:
    """12040 -> '12.4'."""
    if not isinstance(value, int) or value <= 0:
        return None
    return f"{value // 1000}.{(value % 1000) // 10}"


def _reasons(mask: int | None) -> list[str] | None:
    if mask is None:
        return None
    return [name for bit, name in THROTTLE_BITS.items() if mask & bit]


def _gpu(nv: Any, index: int, field: Callable[..., Any]) -> dict[str, Any]:
    """Read one GPU; `field` turns unsupported reads into None and raises _GpuLost."""
    h = nv.nvmlDeviceGetHandleByIndex(index)
    mem = field(nv.nvmlDeviceGetMemoryInfo, h)
    pci = field(nv.nvmlDeviceGetPciInfo, h)
    cc = field(nv.nvmlDeviceGetCudaComputeCapability, h)
    ecc_mode = field(nv.nvmlDeviceGetEccMode, h)
    ecc_on = bool(ecc_mode and ecc_mode[0])

    def ecc(counter: int) -> dict[str, int | None]:
        if not ecc_on:
            return {"corrected": None, "uncorrected": None}
        return {
            "corrected": field(
                nv.nvmlDeviceGetTotalEccErrors, h, nv.NVML_MEMORY_ERROR_TYPE_CORRECTED, counter
            ),
            "uncorrected": field(
                nv.nvmlDeviceGetTotalEccErrors, h, nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, counter
            ),
        }

    single = field(
        nv.nvmlDeviceGetRetiredPages, h, nv.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS
    )
    double = field(nv.nvmlDeviceGetRetiredPages, h, nv.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR)
    pending_pages = field(nv.nvmlDeviceGetRetiredPagesPendingStatus, h)
    remap = field(nv.nvmlDeviceGetRemappedRows, h)
    reasons_fn = (
        getattr(nv, "nvmlDeviceGetCurrentClocksEventReasons", None)
        or nv.nvmlDeviceGetCurrentClocksThrottleReasons
    )
    mig_mode = field(nv.nvmlDeviceGetMigMode, h)
    power = field(nv.nvmlDeviceGetPowerUsage, h)
    limit = field(nv.nvmlDeviceGetEnforcedPowerLimit, h)
    persistence = field(nv.nvmlDeviceGetPersistenceMode, h)
    return {
        "index": index,
        "name": _s(field(nv.nvmlDeviceGetName, h)),
        "uuid": _s(field(nv.nvmlDeviceGetUUID, h)),
        "serial": _s(field(nv.nvmlDeviceGetSerial, h)),
        "pci_bus_id": _s(getattr(pci, "busId", None)) if pci is not None else None,
        "compute_capability": f"{cc[0]}.{cc[1]}" if cc else None,
        "memory_total_mib": mem.total // MIB if mem else None,
        "memory_used_mib": mem.used // MIB if mem else None,
        "memory_free_mib": mem.free // MIB if mem else None,
        "ecc": {
            "mode_current": bool(ecc_mode[0]) if ecc_mode else None,
            "volatile": ecc(nv.NVML_VOLATILE_ECC),
            "aggregate": ecc(nv.NVML_AGGREGATE_ECC),
        },
        "retired_pages": {
            "single_bit": len(single) if single is not None else None,
            "double_bit": len(double) if double is not None else None,
            "pending": bool(pending_pages) if pending_pages is not None else None,
        },
        "remapped_rows": {
            "correctable": remap[0] if remap else None,
            "uncorrectable": remap[1] if remap else None,
            "pending": bool(remap[2]) if remap else None,
            "failure": bool(remap[3]) if remap else None,
        },
        "throttle_reasons": _reasons(field(reasons_fn, h)),
        "pcie": {
            "gen": field(nv.nvmlDeviceGetCurrPcieLinkGeneration, h),
            "max_gen": field(nv.nvmlDeviceGetMaxPcieLinkGeneration, h),
            "width": field(nv.nvmlDeviceGetCurrPcieLinkWidth, h),
            "max_width": field(nv.nvmlDeviceGetMaxPcieLinkWidth, h),
        },
        "persistence_mode": bool(persistence) if persistence is not None else None,
        "compute_mode": COMPUTE_MODES.get(field(nv.nvmlDeviceGetComputeMode, h)),
        "mig": _mig(nv, h, mig_mode, field),
        "processes": _processes(nv, h, field),
        "temperature_c": field(nv.nvmlDeviceGetTemperature, h, nv.NVML_TEMPERATURE_GPU),
        "temperature_limit_c": field(
            nv.nvmlDeviceGetTemperatureThreshold, h, nv.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN
        ),
        "power_w": round(power / 1000, 2) if power is not None else None,
        "power_limit_w": round(limit / 1000, 2) if limit is not None else None,
    }


def _mig(nv: Any, h: Any, mode: Any, field: Callable[..., Any]) -> dict[str, Any]:
    if not mode:
        return {"current": None, "pending": None, "devices": []}
    current, pending = bool(mode[0]), bool(mode[1])
    devices = []
    if current:
        for i in range(field(nv.nvmlDeviceGetMaxMigDeviceCount, h) or 0):
            mh = field(nv.nvmlDeviceGetMigDeviceHandleByIndex, h, i)
            if mh is None:
                continue  # an empty slot answers NOT_FOUND
            mem = field(nv.nvmlDeviceGetMemoryInfo, mh)
            devices.append(
                {
                    "index": i,
                    "uuid": _s(field(nv.nvmlDeviceGetUUID, mh)),
                    "memory_total_mib": mem.total // MIB if mem else None,
                }
            )
    return {"current": current, "pending": pending, "devices": devices}


def _processes(nv: Any, h: Any, field: Callable[..., Any]) -> list[dict[str, Any]]:
    seen: dict[int, dict[str, Any]] = {}
    for kind, fn in (
        ("C", nv.nvmlDeviceGetComputeRunningProcesses),
        ("G", nv.nvmlDeviceGetGraphicsRunningProcesses),
    ):
        for p in field(fn, h) or ():
            used = getattr(p, "usedGpuMemory", None)
            entry = seen.setdefault(p.pid, {"pid": p.pid, "name": None, "type": kind, "used_mib": None})
            if entry["type"] != kind:
                entry["type"] = "C+G"
            if used is not None:
                entry["used_mib"] = max(entry["used_mib"] or 0, used // MIB)
    for entry in seen.values():
        entry["name"] = _s(field(nv.nvmlSystemGetProcessName, entry["pid"]))
    return list(seen.values())


def probe(ctx: Any) -> dict[str, Any]:
    facts: dict[str, Any] = {
        "available": False,
        "error": None,
        "error_kind": None,
        "driver_version": None,
        "cuda_driver_version": None,
        "gpus": [],
        "bindings": None,
    }
    where = _bindings()
    kind, words = classify_bindings(where["module"], where["owners"])
    facts["bindings"] = {"module": where["module"], "distributions": where["owners"]}
    if kind:
        facts.update(error=words, error_kind=kind)
        return facts
    if not _library_loadable(where["owners"]):
        facts["error_kind"], facts["error"] = describe_error(12)  # what nvmlInit() would say
        return facts
    try:
        import pynvml as nv
    except Exception as exc:  # noqa: BLE001 - broken bindings are a fact
        facts.update(
            error=f"`import pynvml` failed: {type(exc).__name__}: {exc}", error_kind="bindings-missing"
        )
        return facts
    try:
        nv.nvmlInit()
    except nv.NVMLError as exc:
        facts["error_kind"], facts["error"] = describe_error(getattr(exc, "value", None), str(exc))
        return facts
    try:
        _read(nv, facts)
    finally:
        try:
            nv.nvmlShutdown()
        except Exception:  # noqa: BLE001
            pass
    return facts


def _read(nv: Any, facts: dict[str, Any]) -> None:
    def field(fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except nv.NVMLError as exc:
            value = getattr(exc, "value", None)
            if value in (15, 16):
                raise _GpuLost(describe_error(value)[1]) from None
            return None
        except (AttributeError, TypeError, ValueError):  # older bindings without this call
            return None

    try:
        facts["driver_version"] = _s(nv.nvmlSystemGetDriverVersion())
        facts["cuda_driver_version"] = _cuda_version(field(nv.nvmlSystemGetCudaDriverVersion_v2))
        count = nv.nvmlDeviceGetCount()
    except nv.NVMLError as exc:
        facts["error_kind"], facts["error"] = describe_error(getattr(exc, "value", None), str(exc))
        return
    facts["available"] = True
    for i in range(count):
        try:
            facts["gpus"].append(_gpu(nv, i, field))
        except _GpuLost as lost:
            facts["gpus"].append({"index": i, "error": str(lost), "error_kind": "gpu-lost"})
        except nv.NVMLError as exc:
            kind, words = describe_error(getattr(exc, "value", None), str(exc))
            facts["gpus"].append({"index": i, "error": words, "error_kind": kind})
