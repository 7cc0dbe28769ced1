"""A fake `pynvml` (the nvidia-ml-py API surface tfdoctor calls) replaying a recorded scenario.

Put this directory first on PYTHONPATH of a child process and point TFDOCTOR_FAKE_NVML at a JSON
scenario under tests/data/nvml/. Names, error classes and codes follow nvidia-ml-py (nvml.h).
A scenario value that is a string "NVML_ERROR_<NAME>" makes that call raise NVMLError(<code>).
"""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

NVML_SUCCESS = 0
NVML_ERROR_UNINITIALIZED = 1
NVML_ERROR_INVALID_ARGUMENT = 2
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_NO_PERMISSION = 4
NVML_ERROR_NOT_FOUND = 6
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_GPU_IS_LOST = 15
NVML_ERROR_RESET_REQUIRED = 16
NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18
NVML_ERROR_NO_DATA = 21
NVML_ERROR_UNKNOWN = 999

NVML_FEATURE_DISABLED, NVML_FEATURE_ENABLED = 0, 1
NVML_TEMPERATURE_GPU = 0
NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1
NVML_VOLATILE_ECC, NVML_AGGREGATE_ECC = 0, 1
NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 0, 1
NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0
NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1
NVML_DEVICE_MIG_DISABLE, NVML_DEVICE_MIG_ENABLE = 0, 1

_STRINGS = {
    1: "Uninitialized",
    2: "Invalid Argument",
    3: "Not Supported",
    4: "Insufficient Permissions",
    6: "Not Found",
    9: "Driver Not Loaded",
    12: "NVML Shared Library Not Found",
    13: "Function Not Found",
    15: "GPU is lost",
    16: "GPU requires restart",
    18: "RM has detected an NVML/RM version mismatch.",
    21: "No data",
    999: "Unknown Error",
}


class NVMLError(Exception):
    """Same contract as nvidia-ml-py: NVMLError(value) builds the NVMLError_<Name> subclass."""

    _classes: dict = {}

    def __new__(cls, value):
        if cls is NVMLError:
            cls = NVMLError._classes.get(value, NVMLError)
        obj = Exception.__new__(cls)
        obj.value = value
        return obj

    def __init__(self, value):
        self.value = value

    def __str__(self):
        return _STRINGS.get(self.value, f"Unknown Error {self.value}")


for _name, _code in list(globals().items()):
    if _name.startswith("NVML_ERROR_"):
        _cls_name = "NVMLError_" + "".join(p.capitalize() for p in _name[11:].split("_"))
        _cls = type(_cls_name, (NVMLError,), {})
        NVMLError._classes[_code] = _cls
        globals()[_cls_name] = _cls

_SCENARIO: dict = {}
_INIT = False


def _load() -> dict:
    path = os.environ.get("TFDOCTOR_FAKE_NVML")
    if not path:
        raise NVMLError(NVML_ERROR_LIBRARY_NOT_FOUND)
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _value(value):
    if isinstance(value, str) and value.startswith("NVML_ERROR_"):
        raise NVMLError(globals()[value])
    return value


def _need_init():
    if not _INIT:
        raise NVMLError(NVML_ERROR_UNINITIALIZED)


def _gpu(handle) -> dict:
    _need_init()
    return handle


def _get(handle, key):
    gpu = _gpu(handle)
    if "lost" in gpu:
        raise NVMLError(NVML_ERROR_GPU_IS_LOST)
    if key not in gpu:
        raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
    return _value(gpu[key])


def nvmlInit():
    global _SCENARIO, _INIT
    _SCENARIO = _load()
    _value(_SCENARIO.get("init", 0) or 0)
    _INIT = True


def nvmlShutdown():
    global _INIT
    _need_init()
    _INIT = False


def nvmlErrorString(value):
    return _STRINGS.get(value, "Unknown Error")


def nvmlSystemGetDriverVersion():
    _need_init()
    return _value(_SCENARIO["driver_version"])


def nvmlSystemGetCudaDriverVersion_v2():
    _need_init()
    return _value(_SCENARIO["cuda_driver_version"])


def nvmlSystemGetProcessName(pid):
    _need_init()
    names = _SCENARIO.get("process_names", {})
    if str(pid) not in names:
        raise NVMLError(NVML_ERROR_NOT_FOUND)
    return _value(names[str(pid)])


def nvmlDeviceGetCount():
    _need_init()
    return len(_SCENARIO["gpus"])


def nvmlDeviceGetHandleByIndex(index):
    _need_init()
    gpus = _SCENARIO["gpus"]
    if not 0 <= index < len(gpus):
        raise NVMLError(NVML_ERROR_INVALID_ARGUMENT)
    _value(gpus[index].get("handle", 0) or 0)
    return gpus[index]


def nvmlDeviceGetName(h):
    return _get(h, "name")


def nvmlDeviceGetUUID(h):
    return _get(h, "uuid")


def nvmlDeviceGetSerial(h):
    return _get(h, "serial")


def nvmlDeviceGetPciInfo(h):
    return SimpleNamespace(busId=_get(h, "pci_bus_id"))


def nvmlDeviceGetCudaComputeCapability(h):
    return tuple(_get(h, "compute_capability"))


def nvmlDeviceGetMemoryInfo(h):
    mem = _get(h, "memory")
    return SimpleNamespace(total=mem["total"], used=mem["used"], free=mem["free"])


def nvmlDeviceGetEccMode(h):
    return list(_get(h, "ecc_mode"))


def nvmlDeviceGetTotalEccErrors(h, error_type, counter_type):
    counts = _get(h, "ecc_errors")
    block = _value(counts["volatile" if counter_type == NVML_VOLATILE_ECC else "aggregate"])
    return _value(block["corrected" if error_type == NVML_MEMORY_ERROR_TYPE_CORRECTED else "uncorrected"])


def nvmlDeviceGetRetiredPages(h, cause):
    pages = _get(h, "retired_pages")
    return list(_value(pages["single_bit" if cause == 0 else "double_bit"]))


def nvmlDeviceGetRetiredPagesPendingStatus(h):
    return _value(_get(h, "retired_pages")["pending"])


def nvmlDeviceGetRemappedRows(h):
    return tuple(_get(h, "remapped_rows"))


def nvmlDeviceGetCurrentClocksEventReasons(h):
    return _get(h, "clocks_event_reasons")


nvmlDeviceGetCurrentClocksThrottleReasons = nvmlDeviceGetCurrentClocksEventReasons


def nvmlDeviceGetCurrPcieLinkGeneration(h):
    return _get(h, "pcie")["gen"]


def nvmlDeviceGetMaxPcieLinkGeneration(h):
    return _get(h, "pcie")["max_gen"]


def nvmlDeviceGetCurrPcieLinkWidth(h):
    return _get(h, "pcie")["width"]


def nvmlDeviceGetMaxPcieLinkWidth(h):
    return _get(h, "pcie")["max_width"]


def nvmlDeviceGetPersistenceMode(h):
    return _get(h, "persistence_mode")


def nvmlDeviceGetComputeMode(h):
    return _get(h, "compute_mode")


def nvmlDeviceGetMigMode(h):
    return list(_get(h, "mig_mode"))


def nvmlDeviceGetMaxMigDeviceCount(h):
    return _get(h, "max_mig_device_count")


def nvmlDeviceGetMigDeviceHandleByIndex(h, index):
    devices = _get(h, "mig_devices")
    if index >= len(devices) or devices[index] is None:
        raise NVMLError(NVML_ERROR_NOT_FOUND)
    return devices[index]


def _procs(h, key):
    return [SimpleNamespace(pid=p["pid"], usedGpuMemory=p.get("used_memory")) for p in _get(h, key)]


def nvmlDeviceGetComputeRunningProcesses(h):
    return _procs(h, "compute_processes")


def nvmlDeviceGetGraphicsRunningProcesses(h):
    return _procs(h, "graphics_processes")


def nvmlDeviceGetTemperature(h, sensor):
    return _get(h, "temperature")


def nvmlDeviceGetTemperatureThreshold(h, threshold):
    return _get(h, "temperature_slowdown")


def nvmlDeviceGetPowerUsage(h):
    return _get(h, "power_usage_mw")


def nvmlDeviceGetEnforcedPowerLimit(h):
    return _get(h, "power_limit_mw")
