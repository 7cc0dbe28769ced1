"""Is an NVIDIA driver loaded, and is it new enough for the CUDA TensorFlow was built with?

`driver.library-mismatch` belongs to the NVML checks; here a mismatch only means "loaded".
"""

from __future__ import annotations

from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import versions as v
from tfdoctor.checks import check, skipped
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status

SMI_NO_DRIVER = "couldn't communicate with the nvidia driver"


def _evidence(facts: dict[str, Any]) -> tuple[list[str], bool]:
    """Plain-words evidence that no driver is loaded, and whether any of it is direct."""
    plat = fc.platform(facts)
    notes: list[str] = []
    strong = False
    nvml = fc.section(facts, "nvml")
    if nvml and nvml.get("error_kind") == "driver-not-loaded":
        notes.append("NVML: driver not loaded")
        strong = True
    elif nvml and nvml.get("error_kind") == "library-not-found":
        notes.append("NVML: libnvidia-ml not found")
    smi = fc.section(facts, "nvidia_smi")
    if smi:
        err = str(smi.get("error") or "")
        if SMI_NO_DRIVER in err.lower():
            notes.append("nvidia-smi: couldn't communicate with the NVIDIA driver")
            strong = True
        elif smi.get("found") is False:
            notes.append("nvidia-smi not on PATH")
    system = fc.section(facts, "system")
    if system and plat == "linux":
        modules = fc.as_dict(system.get("modules"))
        if modules.get("nouveau") is True:
            notes.append("nouveau module loaded")
            strong = True
        if modules.get("nvidia") is False:
            notes.append("nvidia kernel module not loaded")
            strong = True
        devs = system.get("dev_nvidia")
        if isinstance(devs, list):
            names = [str(n).rsplit("/", 1)[-1] for n in devs]
            if not names:
                notes.append("/dev/nvidia* absent")
                strong = True
            elif not any(n.startswith("nvidia") and n[6:].isdigit() for n in names):
                notes.append("no /dev/nvidiaN GPU device nodes")
                strong = True
    if system and plat == "wsl2" and system.get("wsl_libcuda") == []:
        notes.append("/usr/lib/wsl/lib has no libcuda")
        strong = True
    return notes, strong


@check("driver.missing", "driver.ok")
def driver_present(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = (
        "system.dev_nvidia",
        "system.modules",
        "system.proc_driver_version",
        "nvml.error_kind",
        "nvml.driver_version",
        "nvidia_smi.error",
        "nvidia_smi.driver_version",
    )
    plat = fc.platform(facts)
    if plat == "macos":
        return [
            skipped(
                "driver.missing",
                "NVIDIA driver not checked on macOS",
                "macOS has no NVIDIA CUDA driver; see tensorflow.cpu-only-build.",
                used,
            )
        ]
    version, source = fc.driver_version(facts)
    nvml = fc.section(facts, "nvml") or {}
    cuda = nvml.get("cuda_driver_version") or fc.get(facts, "nvidia_smi", "cuda_version")
    notes, strong = _evidence(facts)
    direct = source in ("nvml", "nvidia_smi") or nvml.get("available") is True
    if version and (direct or not strong):
        cuda_text = f" (CUDA {cuda})" if cuda else ""
        via = {"nvml": "NVML", "nvidia_smi": "nvidia-smi", "system": "/proc/driver/nvidia/version"}[source]
        return [
            Finding(
                "driver.ok",
                Status.PASS,
                f"NVIDIA driver {version}{cuda_text}",
                detail=f"Read from {via}.",
                facts=used,
            )
        ]
    if nvml.get("error_kind") in ("lib-mismatch", "no-permission"):
        return [
            skipped(
                "driver.missing",
                "NVIDIA driver presence not decided",
                f"NVML reports {nvml.get('error_kind')}: {nvml.get('error') or ''}".strip(),
                used,
            )
        ]
    if not notes:
        if not any(fc.section(facts, p) for p in ("system", "nvml", "nvidia_smi")):
            return [
                skipped(
                    "driver.missing",
                    "NVIDIA driver not checked",
                    "; ".join(fc.probe_error(facts, p) for p in ("system", "nvml", "nvidia_smi")),
                    used,
                )
            ]
        return [
            skipped(
                "driver.missing",
                "NVIDIA driver presence not decided",
                "No driver version was found, but nothing showed it missing either.",
                used,
            )
        ]
    return [_missing(facts, notes, strong, used)]


def _missing(facts: dict[str, Any], notes: list[str], strong: bool, used: tuple[str, ...]) -> Finding:
    plat = fc.platform(facts)
    container = fc.get(facts, "system", "container")
    nouveau = "nouveau module loaded" in notes
    detail = " · ".join(notes)
    confidence = "certain" if strong else "likely"
    if plat == "wsl2":
        fix, docs = rm.driver_install(facts)
        return Finding(
            "driver.missing",
            Status.FAIL,
            "WSL2 sees no NVIDIA driver from Windows",
            detail=detail + ". On WSL2 the Windows driver provides /usr/lib/wsl/lib/libcuda.so.",
            fix=fix,
            docs=docs,
            facts=used,
            confidence=confidence,
        )
    if container and not nouveau:
        return Finding(
            "driver.missing",
            Status.FAIL,
            f"This {container} container has no access to the NVIDIA driver",
            detail=detail + ". Containers get the host's driver only when started with GPU access.",
            fix="Start the container with `docker run --gpus all ...` (podman: `--device nvidia.com/gpu=all`;"
            " Kubernetes: `resources.limits: nvidia.com/gpu: 1`). The host needs the NVIDIA driver and"
            " the NVIDIA Container Toolkit: `sudo nvidia-ctk runtime configure --runtime=docker &&"
            " sudo systemctl restart docker`.",
            docs=cat.NV_CONTAINER,
            facts=used,
            confidence=confidence,
        )
    fix, docs = rm.driver_install(facts)
    if nouveau:
        return Finding(
            "driver.missing",
            Status.FAIL,
            "The open-source nouveau driver is loaded instead of NVIDIA's",
            detail=detail + ". CUDA needs NVIDIA's driver; nouveau must be blacklisted first.",
            fix=f"{rm.nouveau_blacklist(facts)} && {fix}" if plat == "linux" and not container else fix,
            docs=docs,
            facts=used,
            confidence=confidence,
        )
    return Finding(
        "driver.missing",
        Status.FAIL,
        "No NVIDIA driver is loaded",
        detail=detail,
        fix=fix,
        docs=docs,
        facts=used,
        confidence=confidence,
    )


def _driver_platform(facts: dict[str, Any]) -> str:
    plat = fc.platform(facts)
    return plat if plat in ("wsl2", "windows") else "linux"


def _newest_runnable(matrix: Any, driver: str, platform: str) -> Any:
    try:
        pairs = matrix.releases_for_driver(driver, platform) or []
    except Exception:  # noqa: BLE001 - an unparsable driver version runs nothing we know of
        return None
    clean = [rel for rel, caveat in pairs if caveat is None] or [rel for rel, _ in pairs]
    return max(clean, key=lambda r: v.vtuple(r.version), default=None)


@check("driver.too-old", "driver.minor-version-compat", "driver.cuda-compatible")
def driver_new_enough(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = (
        "nvml.driver_version",
        "nvidia_smi.driver_version",
        "system.proc_driver_version",
        "tensorflow.build_info.cuda_version",
        "tensorflow.version",
        "system.platform",
    )
    driver, _ = fc.driver_version(facts)
    if not driver:
        return [
            skipped(
                "driver.too-old",
                "Driver version not compared with TensorFlow's CUDA",
                "No driver version is known (see driver.missing).",
                used,
            )
        ]
    if fc.platform(facts) in ("macos",) or fc.build_info(facts).get("is_cuda_build") is False:
        return [
            skipped(
                "driver.too-old",
                "Driver version not compared with TensorFlow's CUDA",
                "The installed TensorFlow is not a CUDA build.",
                used,
            )
        ]
    cuda, cuda_source = fc.tf_cuda(facts, matrix)
    if not cuda:
        why = (
            "TensorFlow is not installed"
            if not fc.tf_installed(facts)
            else "TensorFlow's CUDA version is unknown"
        )
        return [
            skipped("driver.too-old", "Driver version not compared with TensorFlow's CUDA", why + ".", used)
        ]
    platform = _driver_platform(facts)
    try:
        ok, caveat = matrix.driver_supports_cuda(driver, cuda, platform)
        minimum = matrix.min_driver(cuda, platform)
    except Exception as exc:  # noqa: BLE001 - malformed versions become a skip with the reason
        return [
            skipped(
                "driver.too-old",
                "Driver version not compared with TensorFlow's CUDA",
                f"Could not compare driver {driver!r} with CUDA {cuda!r}: {exc}",
                used,
            )
        ]
    tfv = fc.tf_version(facts) or "(not installed)"
    column = {"wsl2": "Windows (WSL2)", "windows": "Windows"}.get(platform, "Linux")
    if ok and caveat is None:
        return [
            Finding(
                "driver.cuda-compatible",
                Status.PASS,
                f"Driver {driver} runs CUDA {cuda}, which TensorFlow {tfv} was built for",
                detail=f"Minimum {column} driver for CUDA {cuda}: {minimum or 'unknown'}"
                f" (CUDA version from {cuda_source}).",
                docs=cat.NV_COMPAT,
                facts=used,
            )
        ]
    branch = minimum.split(".")[0] if minimum else None
    upgrade, docs = rm.driver_install(facts, branch)
    newest = _newest_runnable(matrix, driver, platform)
    if ok:
        return [
            Finding(
                "driver.minor-version-compat",
                Status.WARN,
                f"Driver {driver} runs CUDA {cuda} only through minor-version compatibility",
                detail=f"{caveat.rstrip('.')}. The full-support minimum {column} driver for CUDA {cuda}"
                f" is {minimum} (CUDA version from {cuda_source}).",
                fix=f"Upgrade the driver to {minimum} or newer: {upgrade}",
                docs=cat.NV_COMPAT,
                facts=used,
            )
        ]
    alt = ""
    if newest is not None:
        alt = (
            f" Or keep the driver and install TensorFlow {newest.version} (CUDA {newest.cuda}), the newest"
            f" release it runs: {rm.pip_install(facts, rm.tf_requirement(newest.version))}"
        )
    detail = (
        f"TensorFlow {tfv} was built for CUDA {cuda} (from {cuda_source}), which needs a {column}"
        f" driver >= {minimum or 'unknown'}; this driver is {driver}."
    )
    if newest is None:
        detail += " No TensorFlow release in the bundled matrix runs on this driver."
    else:
        detail += f" The newest TensorFlow this driver can run is {newest.version}."
    return [
        Finding(
            "driver.too-old",
            Status.FAIL,
            f"NVIDIA driver {driver} is too old for CUDA {cuda}",
            detail=detail,
            fix=f"Upgrade the driver to {minimum or 'a newer branch'}+: {upgrade}.{alt}",
            docs=docs,
            facts=used,
        )
    ]


def _mismatch_fix(facts: dict[str, Any]) -> str:
    plat = fc.platform(facts)
    if plat == "wsl2":
        return (
            "Restart WSL so it picks up the updated Windows driver: run `wsl --shutdown` in PowerShell, then "
            "reopen the distribution (never install a Linux NVIDIA driver inside WSL2)"
        )
    if fc.get(facts, "system", "container"):
        return (
            "Reboot the host (its kernel module and driver libraries differ), or on the host reload the "
            "module: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia; then "
            "restart the container"
        )
    return (
        "sudo reboot  # or, without a reboot, after stopping every GPU process, the display manager and "
        "nvidia-persistenced: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia"
    )


@check("driver.library-mismatch")
def library_mismatch(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    nvml = fc.section(facts, "nvml") or {}
    smi = fc.section(facts, "nvidia_smi") or {}
    kernel = fc.get(facts, "system", "proc_driver_version")
    out: list[Finding] = []
    evidence = []
    if nvml.get("error_kind") == "lib-mismatch":
        evidence.append("NVML: Driver/library version mismatch")
    if smi.get("error_kind") == "lib-mismatch":
        evidence.append(f"nvidia-smi: {smi.get('error')}")
    user = nvml.get("driver_version") or smi.get("driver_version")
    if kernel and user and kernel != user:
        evidence.append(f"kernel module {kernel} (/proc/driver/nvidia/version) but driver library {user}")
    if evidence:
        out.append(
            Finding(
                "driver.library-mismatch",
                Status.FAIL,
                "The NVIDIA kernel module and driver library are different versions",
                detail=" · ".join(evidence)
                + ". This happens after a driver update until the new kernel module is "
                "loaded; until then CUDA, NVML and nvidia-smi all fail.",
                fix=_mismatch_fix(facts),
                docs=cat.NV_SMI,
                facts=(
                    "nvml.error_kind",
                    "nvidia_smi.error_kind",
                    "system.proc_driver_version",
                    "nvml.driver_version",
                ),
            )
        )
    return out
