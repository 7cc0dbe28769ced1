"""Reading facts, written once: every reader answers None (or an empty container) for a missing,
null or failed probe section, so callers never raise on partial facts.

Facts are the probes' JSON-able dicts (shapes in tfdoctor/probes/__init__.py); `explain` fills the
same sections from pasted text. The readers here are the only place that decides precedence
between sources (e.g. NVML before nvidia-smi before /proc for the driver version).
"""

from __future__ import annotations

import re
from typing import Any

from tfdoctor import versions as v
from tfdoctor.compat import not_nvidia


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def section(facts: dict[str, Any], name: str) -> dict[str, Any] | None:
    """A probe's facts, or None when absent, not a dict, or the probe failed."""
    sec = facts.get(name) if isinstance(facts, dict) else None
    if not isinstance(sec, dict) or sec.get("probe_failed"):
        return None
    return sec


def probe_error(facts: dict[str, Any], name: str) -> str:
    """Plain words for why a probe's facts are missing."""
    sec = facts.get(name) if isinstance(facts, dict) else None
    if isinstance(sec, dict) and sec.get("error"):
        return f"the {name} probe failed: {sec['error']}"
    return f"no {name} facts were gathered"


def get(facts: dict[str, Any], name: str, key: str) -> Any:
    sec = section(facts, name)
    return sec.get(key) if sec else None


def text(value: Any) -> str | None:
    """A non-empty stripped string, or None."""
    return value.strip() or None if isinstance(value, str) else None


def from_log(facts: dict[str, Any]) -> bool:
    """Whether these facts were read from pasted text (explain) rather than probed."""
    return as_dict(facts.get("log")).get("source") == "explain"


# --- the machine -------------------------------------------------------------------------------


def platform(facts: dict[str, Any]) -> str | None:
    """linux | wsl2 | windows | macos, or None when unknown."""
    value = get(facts, "system", "platform")
    return value if isinstance(value, str) else None


def env(facts: dict[str, Any]) -> dict[str, str]:
    return as_dict(get(facts, "system", "env"))


def in_conda(facts: dict[str, Any]) -> bool:
    return bool(env(facts).get("CONDA_PREFIX")) or bool(get(facts, "system", "conda"))


def container(facts: dict[str, Any]) -> str | None:
    return text(get(facts, "system", "container"))


def container_without_gpus(facts: dict[str, Any]) -> bool:
    """A container started without the GPU (a run command with no --gpus, NVIDIA runtime or CDI device),
    and no driver seen inside it: CUDA there finds no driver, whatever the host has."""
    return (bool(container(facts)) and get(facts, "system", "container_gpu_access") is False
            and not driver_version(facts)[0] and not gpus(facts)[0])


def no_gpu_attached(facts: dict[str, Any]) -> bool:
    """The PCI bus has no NVIDIA GPU (probed; containers see the host's bus): on such a machine every
    GPU-software problem is moot, and the absent GPU is the one root cause. Never on WSL2, whose GPU
    is reached through /dev/dxg, not PCI."""
    return get(facts, "system", "pci_nvidia") == [] and platform(facts) != "wsl2"


def driver_version(facts: dict[str, Any]) -> tuple[str | None, str | None]:
    """(version, source): NVML first, then nvidia-smi, then /proc/driver/nvidia/version."""
    for probe, key in (
        ("nvml", "driver_version"),
        ("nvidia_smi", "driver_version"),
        ("system", "proc_driver_version"),
    ):
        value = text(get(facts, probe, key))
        if value:
            return value, probe
    return None, None


def cuda_driver_version(facts: dict[str, Any]) -> str | None:
    """The newest CUDA the driver supports (NVML, else the nvidia-smi banner)."""
    return text(get(facts, "nvml", "cuda_driver_version")) or text(get(facts, "nvidia_smi", "cuda_version"))


def gpus(facts: dict[str, Any], dev_nodes: bool = False) -> tuple[list[dict[str, Any]], str | None]:
    """GPUs as the driver sees them, and the source: NVML (even an empty list when NVML works),
    else nvidia-smi, else (with dev_nodes) the /dev/nvidiaN nodes."""
    nvml = section(facts, "nvml") or {}
    listed = nvml.get("gpus")
    if isinstance(listed, list) and (listed or nvml.get("available") is True):
        return [g for g in listed if isinstance(g, dict)], "NVML"
    listed = get(facts, "nvidia_smi", "gpus")
    if isinstance(listed, list) and listed:
        return [g for g in listed if isinstance(g, dict)], "nvidia-smi"
    if dev_nodes:
        nodes = sorted(
            int(n[6:])
            for n in (str(d).rsplit("/", 1)[-1] for d in as_list(get(facts, "system", "dev_nvidia")))
            if n.startswith("nvidia") and n[6:].isdigit() and len(n) < 12
        )
        if nodes:
            return [{"index": i, "name": None} for i in nodes], "/dev/nvidia*"
    return [], None


def tf_gpus(facts: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    """GPUs without the driver's list (a pasted log): TensorFlow's devices and those it ignored, else
    the GPU a person named (an issue template's "GPU model and memory"), and the source."""
    runtime = section(facts, "runtime") or {}
    listed = [g for key in ("gpus", "gpus_ignored") for g in as_list(runtime.get(key)) if isinstance(g, dict)]
    if listed:
        return listed, "TensorFlow's device list"
    stated = [g for g in as_list(runtime.get("gpus_stated")) if isinstance(g, dict)]
    return stated, "the GPU named in the text" if stated else None


def ray_trials_see_a_gpu(facts: dict[str, Any]) -> bool:
    """Ray's running trials requested no GPU, yet TensorFlow in its workers found one: Ray hid none from them,
    and nothing keeps them apart on it."""
    return (get(facts, "runtime", "ray_gpus_requested") == 0 and bool(tf_gpus(facts)[0])
            and get(facts, "runtime", "tf_visible_gpus") != 0)


def gpu_label(g: dict[str, Any]) -> str:
    return f"GPU {g.get('index', '?')} ({g.get('name') or 'unknown GPU'})"


def cuda_visible(value: str, gpus_: list[dict[str, Any]]) -> list[int] | None:
    """Positions in `gpus_` that CUDA exposes under CUDA_VISIBLE_DEVICES=value, in order; None when it
    cannot be told (MIG UUIDs, UUIDs without a GPU list, indices without a GPU count).

    CUDA reads the comma-separated indices or UUID prefixes in order and stops at the first invalid
    or repeated entry; an empty value hides every device.
    """
    count = len(gpus_)
    uuids = [str(g.get("uuid") or "") for g in gpus_]
    chosen: list[int] = []
    for token in (t.strip() for t in str(value)[:4096].split(",")):
        if token.lstrip("-").isdigit() and len(token) < 6:
            index = int(token)
            if index < 0 or (count and index >= count) or index in chosen:
                break
            chosen.append(index)
        elif token.startswith(("GPU-", "MIG-")):
            if token.startswith("MIG-") or not any(uuids):
                return None
            match = [i for i, u in enumerate(uuids) if u and u.startswith(token)]
            if len(match) != 1 or match[0] in chosen:
                break
            chosen.append(match[0])
        else:
            break
    if not count and chosen:
        return None
    return chosen


_PCI = re.compile(r"(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])")


def normalize_pci(bus_id: Any) -> str | None:
    """'00000000:3B:00.0' (NVML), '0000:3b:00.0' (TensorFlow), '3b:00.0' -> '0000:3b:00.0'."""
    if not isinstance(bus_id, str) or len(bus_id) > 40:
        return None
    m = _PCI.fullmatch(bus_id.strip())
    if not m:
        return None
    domain, bus, dev, fn = m.groups()
    return f"{int(domain or '0', 16):04x}:{int(bus, 16):02x}:{int(dev, 16):02x}.{fn}"


# --- TensorFlow and its packages ------------------------------------------------------------


def norm_name(name: str) -> str:
    """PEP 503 normalisation of a distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def distributions(facts: dict[str, Any]) -> dict[str, str]:
    """Installed distributions of the target env, names normalized (PEP 503)."""
    merged: dict[str, str] = {}
    for raw in (get(facts, "libraries", "pip_nvidia"), get(facts, "tensorflow", "distributions")):
        for name, version in as_dict(raw).items():
            merged[norm_name(str(name))] = str(version)
    return merged


# conda packages that carry one CUDA release each (conda-forge's and NVIDIA's channels)
CONDA_CUDA = ("cudatoolkit", "cuda-version", "cuda-nvcc", "cuda-cudart", "cuda-runtime", "cuda-toolkit")


def conda_cuda_majors(facts: dict[str, Any]) -> dict[str, str]:
    """{conda CUDA package: version} when those installed belong to more than one CUDA major, else {}."""
    dists = distributions(facts)
    found = {name: dists[name] for name in CONDA_CUDA if name in dists}
    majors = {version.split(".")[0] for version in found.values() if version[:1].isdigit()}
    return found if len(majors) > 1 else {}


def tf_from_user_site(facts: dict[str, Any]) -> str | None:
    """Where TensorFlow is imported from, when that is the user's own site-packages (pip install --user:
    ~/.local, %APPDATA%\\Python) while a conda environment is active: Python searches the user site first."""
    where = str(get(facts, "tensorflow", "location") or "")
    user = "/.local/lib/python" in where or "\\appdata\\roaming\\python\\" in where.lower()
    return where if user and in_conda(facts) else None


def device_asserts(facts: dict[str, Any]) -> list[dict[str, Any]]:
    """A kernel's assertion that failed on the device (the program's error): every CUDA call after it in that
    process fails with it, a cuBLAS handle or a cuDNN call too (a paste may show that failure first)."""
    return [i for i in log_items(facts, "cuda-error")
            if i.get("code") in ("cudaErrorAssert", "CUDA_ERROR_ASSERT")]


def tf_installed(facts: dict[str, Any]) -> bool:
    return bool(get(facts, "tensorflow", "installed"))


def tf_imported(facts: dict[str, Any]) -> bool:
    """Whether TensorFlow was imported in the interpreter whose Python is known: the worker's import step
    passed, a pasted session printed TensorFlow's own __version__, or its GPU device code logged a device
    (its native library loaded, which it does not under a Python it was not built for)."""
    steps = [s for s in as_list(get(facts, "runtime", "steps")) if isinstance(s, dict)]
    return any(s.get("name") == "import" and s.get("status") == "pass" for s in steps) or bool(
        get(facts, "runtime", "tf_imported") or get(facts, "runtime", "tf_native"))


def tf_version(facts: dict[str, Any]) -> str | None:
    return text(get(facts, "tensorflow", "version"))


def build_info(facts: dict[str, Any]) -> dict[str, Any]:
    return as_dict(get(facts, "tensorflow", "build_info"))


def tf_release(matrix: Any, facts: dict[str, Any]) -> Any:
    """The matrix row of the installed TensorFlow's minor release, or None."""
    version = tf_version(facts)
    if not version or matrix is None:
        return None
    try:
        return matrix.tf_release(version)
    except Exception:  # noqa: BLE001 - an unparsable version is "not in the matrix"
        return None


def tf_cuda(facts: dict[str, Any], matrix: Any) -> tuple[str | None, str]:
    """The CUDA version the installed TF was built for, and where that came from."""
    built = v.norm_cuda(build_info(facts).get("cuda_version"))
    if built:
        return built, "tensorflow.build_info.cuda_version"
    if any(mark in (tf_version(facts) or "") for mark in ("dev", "nightly", "+")):
        return None, ""  # a nightly or source build: its CUDA is not the release's (it may move before it)
    release = tf_release(matrix, facts)
    if release is not None and getattr(release, "cuda", None):
        return str(release.cuda), "compat matrix"
    version = tf_version(facts)
    older = matrix.older_release(version) if version and hasattr(matrix, "older_release") else None
    if older is not None:
        return older.cuda, "compat matrix (older releases)"
    return None, ""


def cudnn_for_other_cuda(facts: dict[str, Any], matrix: Any) -> tuple[list[dict[str, Any]], str | None]:
    """cuDNN's loader missing the cuBLAS/NVRTC of one CUDA major where the environment's CUDA (TensorFlow's
    build, else the toolkit shown) is of another: a cuDNN built for that other CUDA. (items, CUDA shown)"""
    items = log_items(facts, "cudnn-needs")
    cuda = (tf_cuda(facts, matrix)[0] or text(get(facts, "nvcc", "version"))) if items else None
    major = v.major(cuda)
    if not major:
        return [], None
    return [i for i in items if str(i.get("major")) != str(major)], cuda


def tf_cudnn(facts: dict[str, Any], matrix: Any) -> str | None:
    """The cuDNN the installed TensorFlow was built with: its build info, else its matrix row."""
    release = tf_release(matrix, facts)
    return v.norm_cudnn(build_info(facts).get("cudnn_version")) or (
        str(release.cudnn) if release is not None and getattr(release, "cudnn", None) else None)


def is_cuda_build(facts: dict[str, Any]) -> bool | None:
    value = build_info(facts).get("is_cuda_build")
    return value if isinstance(value, bool) else None


def python_version(facts: dict[str, Any]) -> str | None:
    """The target interpreter's Python version (the one TensorFlow runs in)."""
    return text(get(facts, "tensorflow", "python_version")) or text(get(facts, "runtime", "python_version"))


def all_releases(matrix: Any) -> list[Any]:
    """Every TF release in the matrix, newest first."""
    releases = getattr(matrix, "tensorflow", None)
    if isinstance(releases, (list, tuple)):
        return sorted(releases, key=lambda r: v.vtuple(r.version), reverse=True)
    return []


# --- evidence read from a log (tfdoctor/logs) ------------------------------------------------


def log_items(facts: dict[str, Any], *kinds: str) -> list[dict[str, Any]]:
    """Evidence items of these mechanisms, in the order the log showed them."""
    items = as_list(as_dict(facts.get("log")).get("evidence"))
    return [i for i in items if isinstance(i, dict) and i.get("kind") in kinds]


def hinted(facts: dict[str, Any], name: str) -> bool:
    """Whether a pasted text showed this hint (tfdoctor/logs/values.py's `hints`: "wsl2", "jetson", ...)."""
    return name in as_list(as_dict(facts.get("log")).get("platform_hints"))


def plugin_libraries_shadowed(facts: dict[str, Any]) -> list[dict[str, Any]]:
    """JAX's CUDA plugin failing to load a library its pip wheels ship, where the text shows LD_LIBRARY_PATH
    set: another CUDA's copies on that path load first, or their absence there hides the wheels' (JAX's
    installation guide: unset LD_LIBRARY_PATH). The failed loads, or none."""
    if not hinted(facts, "jax-cuda-plugin") or not (env(facts).get("LD_LIBRARY_PATH")
                                                     or hinted(facts, "ld-path-named")):
        return []
    return log_items(facts, "dlopen-failed")


def noise_seen(facts: dict[str, Any], name: str) -> bool:
    """Whether the log showed this harmless notice (by its name in tfdoctor.stackerrors.NOISE)."""
    return bool(as_dict(as_dict(facts.get("log")).get("noise")).get(name))


def quote(facts: dict[str, Any], items: list[dict[str, Any]], limit: int = 3) -> tuple[str, ...]:
    """Evidence lines as shown to a person: "line 12: Could not load ..." (in `check`, lines of
    TensorFlow's log as the worker captured it)."""
    where = "line" if from_log(facts) else "TensorFlow log line"
    shown: list[str] = []
    seen: set[Any] = set()
    for item in items:
        if item.get("line") in seen:
            continue
        seen.add(item.get("line"))
        text = str(item.get("text") or "")
        text = text if len(text) <= 200 else text[:199] + "…"
        shown.append(f"{where} {item.get('line')}: {text}" if item.get("line") else text)
        if len(shown) == limit:
            break
    return tuple(shown)


# What the driver says of code compiled by a newer CUDA (of its major) than its own: no kernel it can load
PAST_DRIVER_ERRORS = ("NO_BINARY_FOR_GPU", "UNSUPPORTED_PTX_VERSION", "INVALID_PTX")


def toolkit_past_driver(facts: dict[str, Any]) -> tuple[str, str] | None:
    """(the driver's CUDA, a newer CUDA of the same major that compiled the code: the toolkit's nvcc/ptxas or
    TensorFlow's build), where both are known: that code loads only if the driver can JIT or link it, which
    minor-version compatibility does not promise."""
    driver = v.norm_cuda(cuda_driver_version(facts))
    newest = max((c for c in (v.norm_cuda(get(facts, "nvcc", "version")),
                              v.norm_cuda(build_info(facts).get("cuda_version"))) if c),
                 key=v.vtuple, default=None)
    same_major = driver and newest and v.major(driver) == v.major(newest)
    if same_major and v.vtuple(newest)[:2] > v.vtuple(driver)[:2]:
        return driver, newest
    return None


def cuda_errors(facts: dict[str, Any], *names: str) -> list[dict[str, Any]]:
    """cuInit failures and CUDA errors by name ("NO_DEVICE", "SHARED_OBJECT_INIT_FAILED", ...)."""
    return [i for i in log_items(facts, "cuinit", "cuda-error") if i.get("error") in names]


def failed_libraries(facts: dict[str, Any], family: str) -> list[dict[str, Any]]:
    """dlopen failures of one library family (driver, cuda-runtime, cudnn, nccl, ...)."""
    return [i for i in log_items(facts, "dlopen-failed") if i.get("family") == family]


_GPU_KINDS = frozenset({
    "dlopen-failed", "gpu-libs-skipped", "cudart-stub", "dnn-not-found", "no-driver", "lib-mismatch",
    "cuinit", "cuda-error", "cudnn-version", "cudnn-failed", "cublas-failed", "oom", "cc-jit", "cc-ignored",
    "cpu-build", "ptx-target", "xla-tools", "ptxas-old", "nccl-error", "nccl-unsupported", "ctx-oom",
    "cuda-mixed", "cudnn-needs", "tensorrt-needed", "nvcc-differs",
})


# What TensorFlow prints at start-up on any machine without the CUDA libraries, GPU or none.
_STARTUP_FAMILIES = ("cuda-runtime", "cudnn", "tensorrt")
# Evidence about the Python side (the CPU, the C library, packages), not about a GPU.
PACKAGE_KINDS = frozenset({"avx", "glibc", "numpy-abi", "protobuf", "keras3", "tf-missing",
                            "tf-native-failed", "pip-conflict", "pip-no-version", "wheel-python"})


def gpu_shown(facts: dict[str, Any]) -> bool:
    """Whether pasted text shows a GPU or its driver (a device, a driver version, nvidia-smi, a GPU
    error), beyond the CUDA libraries TensorFlow failed to load at start-up, or names TensorFlow's GPU
    package (tensorflow-gpu: a GPU is what was wanted)."""
    if driver_version(facts)[0] or gpus(facts)[0] or get(facts, "runtime", "gpus") or section(facts, "nvcc"):
        return True
    if get(facts, "tensorflow", "gpu_package_named"):  # the GPU package named: a GPU is what was wanted
        return True
    stated = [g for g in as_list(get(facts, "runtime", "gpus_stated")) if isinstance(g, dict)]
    if any(g.get("name") and not not_nvidia(str(g["name"])) for g in stated):  # "with GTX 1080Ti"
        return True
    for item in _evidence(facts):
        kind = item.get("kind")
        startup = kind in ("gpu-libs-skipped", "cudart-stub") or (
            kind == "dlopen-failed" and item.get("family") in _STARTUP_FAMILIES)
        if not startup and kind not in PACKAGE_KINDS and not _program_own(item):
            return True
    return False


def _program_own(item: dict[str, Any]) -> bool:
    """An error of the program's own Python code or data (a KeyError, a missing file, a shape): nothing
    about a GPU."""
    return item.get("kind") == "stack-error" and item.get("reason") in ("python", "data", "shape", "numerics",
                                                                        "tf1")


def other_failure(facts: dict[str, Any]) -> bool:
    """Whether pasted text fails in a way that is not about the GPU (an import, a package, the CPU, the
    program's own code or data): evidence of such a mechanism, or an error line nothing placed."""
    items = _evidence(facts)
    return (bool({i.get("kind") for i in items} & PACKAGE_KINDS)
            or any(map(_program_own, items))
            or bool(as_dict(facts.get("log")).get("unrecognized_count")))


def _evidence(facts: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in as_list(as_dict(facts.get("log")).get("evidence")) if isinstance(i, dict)]


def other_vendor_only(facts: dict[str, Any]) -> list[str]:
    """The GPUs named where every one is another vendor's (Intel Iris, AMD Radeon), else []."""
    named = [str(g["name"]) for g in tf_gpus(facts)[0] if g.get("name")]
    return named if named and all(map(not_nvidia, named)) else []


def gpu_evidence(facts: dict[str, Any]) -> bool:
    """Whether the log shows the GPU side at work or failing (a CUDA library, the driver, a GPU error)."""
    return bool(log_items(facts, *_GPU_KINDS))


def gpu_context(facts: dict[str, Any]) -> bool:
    """Whether pasted text is about using a GPU at all (a device, a driver, a CUDA library, a GPU error)."""
    if gpu_evidence(facts) or hinted(facts, "gpu") or hinted(facts, "jetson"):  # (a Jetson is an NVIDIA GPU)
        return True
    return bool(
        section(facts, "nvidia_smi") or get(facts, "runtime", "gpus") or get(facts, "runtime", "gpus_stated")
        or get(facts, "runtime", "tf_visible_gpus") is not None
        or is_cuda_build(facts) is False
    )
