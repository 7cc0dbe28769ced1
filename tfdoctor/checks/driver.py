"""Is an NVIDIA driver loaded, and is it new enough for the CUDA TensorFlow was built with?

`driver.library-mismatch` belongs to the NVML checks; here a mismatch only means "loaded".
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor import stackerrors
from tfdoctor import versions as v
from tfdoctor.checks import check, skipped
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status

# The first Windows build that gives WSL 2 the GPU: Windows 10 21H2 (Windows 11 is 22000 and up);
# https://learn.microsoft.com/en-us/windows/ai/directml/gpu-cuda-in-wsl
WSL_GPU_BUILD = 19044
# the oldest driver the NVIDIA Container Toolkit supports (https://github.com/NVIDIA/nvidia-docker/issues/1681)
TOOLKIT_MIN_DRIVER = "418.81.07"


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
        if smi.get("error_kind") == "driver-not-loaded":
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


# What each piece of log evidence says about the driver: (plain words, strong, kind of absence).
_WHY = {
    "smi": ("nvidia-smi couldn't communicate with the NVIDIA driver", True, None),
    "kernel": ("the NVIDIA kernel driver is not running", True, None),
    "container": ("the container sees no NVIDIA driver", True, "container"),
    "wsl-no-gpu": ("WSL passes no GPU adapter to Linux", True, None),
    "smi-missing": ("nvidia-smi is not installed", False, None),
    "nv-files": ("Apptainer/Singularity's --nv found no NVIDIA driver library on this host (a login node, or"
                 " a node without GPUs?)", True, None),
    "no-gpu": ("no NVIDIA GPU was found on this machine", True, "no-gpu"),
    "nouveau": ("the nouveau driver is in use", True, "nouveau"),
    "devnodes": ("the GPU device files (/dev/nvidia0, ...) do not exist", True, None),
    "libcuda": ("libcuda (the driver's CUDA library) was not found", True, None),
    "libnvml": ("libnvidia-ml (the driver's NVML library) was not found", True, None),
    "container-runtime": ("the container engine has no NVIDIA runtime to hand it the GPU", True, "container"),
    "cdi": ("the container engine found no CDI specification for the NVIDIA GPUs", True, "cdi"),
    "toolkit-driver": ("the NVIDIA Container Toolkit's request to the host's driver failed", True,
                       "toolkit-driver"),
    "adapter": ("the NVIDIA kernel driver could not initialise the GPU (NVRM)", True, "no-devices"),
    "conda-virtual": ("conda found no NVIDIA driver (no __cuda virtual package)", True, "conda-virtual"),
    "module-build": ("the NVIDIA kernel module did not build for this kernel, or the kernel refused it"
                     " (Secure Boot)", True, "module-build"),
    "open-module": ("NVIDIA's open kernel module refused a GPU older than Turing (it has no GSP)", True,
                    "open-module"),
    "gpu-unsupported": ("no driver release the distribution has supports this GPU", True, "gpu-unsupported"),
    "package": ("the NVIDIA driver's package failed to install", True, "package"),
}


def _log_absence(facts: dict[str, Any]) -> tuple[list[str], bool, set[str], list[dict[str, Any]]]:
    """What the log says about a missing driver: notes, whether direct, kinds, the items."""
    notes: list[str] = []
    strong = False
    kinds: set[str] = set()
    items = fc.log_items(facts, "no-driver")
    if fc.gpus(facts)[0]:  # a GPU is listed: the driver took one on, whatever failed with another
        items = [i for i in items if i.get("why") != "adapter"]
    if fc.platform(facts) == "wsl2":  # NGC images look for /proc/driver/nvidia, which WSL 2 has not: their
        # start-up warning is wrong there (https://docs.nvidia.com/cuda/wsl-user-guide/index.html)
        items = [i for i in items if not i.get("ngc")]
    for item in items:
        words, direct, kind = _WHY.get(str(item.get("why")), ("no NVIDIA driver", False, None))
        if words not in notes:
            notes.append(words)
        strong = strong or direct
        if kind:
            kinds.add(kind)
    libcuda = fc.failed_libraries(facts, "driver")
    if libcuda:
        notes.append(f"{libcuda[0].get('library')} (the driver's CUDA library) could not be loaded")
        strong = True
        items += libcuda
    stub = fc.cuda_errors(facts, *stackerrors.errors_for("driver.missing"))
    if stub:
        notes.append("cuInit failed to load the driver (CUDA error 303/34)")
        items += stub
        if fc.container(facts) and fc.cuda_errors(facts, "SHARED_OBJECT_INIT_FAILED"):
            # a driver the host has (its version stated), but no libcuda that starts inside the container
            strong = True
            kinds.add("container")
    named = fc.other_vendor_only(facts)
    if named and (fc.log_items(facts, "cuinit") or fc.cuda_errors(facts, "INSUFFICIENT_DRIVER")
                  or fc.get(facts, "runtime", "tf_visible_gpus") == 0):
        notes.append(f"the GPU here is not an NVIDIA GPU ({named[0]})")  # a ROCm or oneAPI build saw it
        strong = True
        kinds.add("other-vendor")
    insufficient = fc.cuda_errors(facts, "INSUFFICIENT_DRIVER")
    if insufficient and fc.log_items(facts, "nvml-init-failed"):  # an old driver's NVML still starts
        notes.append("NVML cannot start and CUDA finds no usable driver: no driver is reachable here")
        strong = True
        items += [i for i in insufficient if i not in items]
    failed = (fc.log_items(facts, "cuinit", "cuda-error", "image-gpu-check")
              or fc.get(facts, "runtime", "tf_visible_gpus") == 0
              or fc.get(facts, "runtime", "cuda_unavailable_stated"))  # (another framework's words)
    if fc.container_without_gpus(facts) and (failed or items):
        how = ("--nv or --nvccli" if fc.container(facts) in ("singularity", "apptainer")
               else "--gpus, NVIDIA runtime or CDI device")
        notes.append(f"the container was started without the GPU (no {how})")
        strong = True
        kinds.add("container")
        items += [i for i in fc.log_items(facts, "cuinit", "cuda-error", "image-gpu-check") if i not in items]
    return notes, strong, kinds, items


@check("driver.missing", "driver.ok")
def driver_present(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = (
        "system.dev_nvidia",
        "system.modules",
        "system.pci_nvidia",
        "system.proc_driver_version",
        "nvml.error_kind",
        "nvml.driver_version",
        "nvidia_smi.error",
        "nvidia_smi.driver_version",
        "log.evidence",
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
    build = fc.get(facts, "system", "windows_build")
    if plat == "wsl2" and isinstance(build, int) and build < WSL_GPU_BUILD:
        return [Finding(
            "driver.missing", Status.FAIL, f"Windows build {build} gives WSL 2 no GPU",
            detail="CUDA in WSL 2 needs Windows 11 or Windows 10 21H2 (build 19044) or newer: older Windows"
            " builds do not pass the GPU into WSL, whatever NVIDIA driver is installed.",
            plan=rm.plan(facts, P.note("Update Windows (Settings > Windows Update) to Windows 11 or Windows"
                                       " 10 21H2 or newer, then install NVIDIA's current Windows driver (no"
                                       " Linux driver inside WSL) and run `wsl --update`")),
            docs=cat.NV_WSL, facts=("system.platform", "system.windows_build"))]
    listed = fc.gpus(facts)[0]
    tcc = [g for g in listed if g.get("driver_model") == "TCC"]
    # NVML's answer in WSL 2 when Windows passes no GPU in (NVML_ERROR_OPERATING_SYSTEM)
    blocked = "blocked by the operating system" in str(fc.get(facts, "nvml", "error") or "").lower()
    if plat == "wsl2" and (tcc and len(tcc) == len(listed) or blocked and not tcc):
        said = ", ".join(f"GPU {g.get('index')} ({g.get('name')}) is in TCC mode" for g in tcc[:4]) if tcc \
            else "NVML says \"GPU access blocked by the operating system\""
        return [Finding(
            "driver.missing", Status.FAIL, "WSL 2 reaches no GPU in TCC mode",
            detail=f"{said}: Windows passes only GPUs in WDDM mode into WSL 2, not those in TCC"
            " (compute-only) mode, the default of data-center GPUs.",
            plan=rm.plan(facts, P.note("In an administrator PowerShell on Windows: `nvidia-smi -i 0 -dm WDDM`"
                                       " (for each GPU), then reboot; or run TensorFlow on a GPU in WDDM"
                                       " mode")),
            docs=cat.NV_WSL, facts=("system.platform", "nvidia_smi.gpus"))]
    version, source = fc.driver_version(facts)
    nvml = fc.section(facts, "nvml") or {}
    notes, strong = _evidence(facts)
    log_notes, log_strong, kinds, items = _log_absence(facts)
    if fc.get(facts, "nvidia_smi", "error_kind") == "no-devices" and not fc.gpus(facts)[0]:
        notes.append("nvidia-smi: No devices were found")  # it reached the driver, which drives no GPU
        kinds.add("no-devices")
        strong = True
    # nvidia-smi's word alone, with no NVIDIA device on the PCI bus, in /dev or through NVML, is not
    # a driver: a stray or fake `nvidia-smi` on PATH prints a banner just the same
    lone_smi = source == "nvidia_smi" and nvml.get("available") is not True and fc.no_gpu_attached(facts) \
        and not fc.as_list(fc.get(facts, "system", "dev_nvidia"))
    if lone_smi:
        notes.append(f"nvidia-smi answered (driver {version}) but no NVIDIA device is on the PCI bus,"
                     " in /dev or through NVML")
    direct = source == "nvml" or nvml.get("available") is True or (source == "nvidia_smi" and not lone_smi)
    if version and not log_strong and not lone_smi and (direct or not strong) and "no-devices" not in kinds:
        cuda = fc.cuda_driver_version(facts)
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
    if nvml.get("error_kind") in ("lib-mismatch", "no-permission") or fc.log_items(facts, "lib-mismatch"):
        why = nvml.get("error_kind") or "lib-mismatch"
        return [
            skipped(
                "driver.missing",
                "NVIDIA driver presence not decided",
                f"The driver is there but unusable ({why}: see driver.library-mismatch /"
                " nvml.no-permission).",
                used,
            )
        ]
    notes += [n for n in log_notes if n not in notes]
    if fc.no_gpu_attached(facts):
        kinds.add("no-gpu")
        strong = True
    if not notes and "no-gpu" not in kinds:
        if not any(fc.section(facts, p) for p in ("system", "nvml", "nvidia_smi")) and not items:
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
    finding = _missing(facts, notes, strong or log_strong, kinds, used)
    return [replace(finding, evidence=fc.quote(facts, items))]


def _missing(
    facts: dict[str, Any], notes: list[str], strong: bool, kinds: set[str], used: tuple[str, ...]
) -> Finding:
    plat = fc.platform(facts)
    container = fc.container(facts) or ("docker" if kinds & {"container", "cdi"} else None)
    nouveau = "nouveau module loaded" in notes or "nouveau" in kinds
    detail = " · ".join(notes)
    confidence = "certain" if strong else "likely"

    def found(title: str, why: str, *steps: P.Action, docs: str | None) -> Finding:
        detail_text = f"{detail}. {why}" if detail else why
        return Finding("driver.missing", Status.FAIL, title, detail=detail_text, plan=rm.plan(facts, *steps),
                       docs=docs, facts=used, confidence=confidence)

    if fc.get(facts, "system", "wsl_version") == 1:
        return found(
            "WSL 1 cannot use the GPU",
            "Only WSL 2 gives Linux access to the Windows NVIDIA driver.",
            P.system("wsl --set-version <distribution> 2", "in PowerShell; then reopen the"
                     " distribution (wsl -l -v"
                     " lists them)"),
            docs=cat.NV_WSL,
        )
    if plat == "wsl2":
        step, docs = rm.driver_action(facts)
        return found(
            "WSL2 sees no NVIDIA driver from Windows",
            "On WSL2 the Windows driver provides /usr/lib/wsl/lib/libcuda.so.",
            step,
            docs=docs,
        )
    if "other-vendor" in kinds:
        return found(
            "The GPU here is not an NVIDIA GPU",
            "CUDA (and every CUDA build of TensorFlow, JAX or PyTorch, and CUDA container images) runs only"
            " on NVIDIA GPUs.",
            P.note("Use the build for this GPU's vendor (AMD: tensorflow-rocm and ROCm images; Intel:"
                   " intel-extension-for-tensorflow), or run on a machine with an NVIDIA GPU"),
            docs=cat.NV_GPUS,
        )
    if "no-gpu" in kinds and not nouveau:
        where = f"this {container} container's host" if container else "this machine"
        return found(
            "No NVIDIA GPU is attached to this machine",
            f"The PCI bus of {where} has no NVIDIA device, so no driver or CUDA library can give TensorFlow a"
            " GPU. TensorFlow runs on the CPU here.",
            P.note("Run on a machine with an NVIDIA GPU (a GPU instance type in the cloud, or a GPU passed"
                   " through to this VM). If the CPU is what you expect here, say so:"
                   " `tfdoctor check --allow-cpu`."),
            docs=cat.NV_GPUS,
        )
    if "conda-virtual" in kinds:
        digits = next((str(i["cuda"]) for i in fc.log_items(facts, "no-driver") if i.get("cuda")),
                      "122")  # ("102": the CUDA 10.2 of the build conda was asked for)
        return found(
            "conda sees no NVIDIA driver: it will not install a CUDA build",
            "conda installs a CUDA build only where its __cuda virtual package names the CUDA the driver"
            " supports; a docker build, a CI runner or a login node has no driver, so no __cuda.",
            P.note("On the machine with the GPU, install its NVIDIA driver; to build without one (an image"
                   " for GPU hosts), tell conda the CUDA the hosts' driver supports:"
                   f" `CONDA_OVERRIDE_CUDA={digits[:-1]}.{digits[-1]} conda install ...`"),
            docs=cat.CONDA_VIRTUAL,
        )
    if "cdi" in kinds:
        return found(
            f"This {container} container has no access to the NVIDIA driver: no CDI specification",
            "Podman (and Docker in CDI mode) hand a container the GPUs a CDI specification lists; without"
            " one, nvidia.com/gpu=all names nothing.",
            P.system("sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml && nvidia-ctk cdi list",
                     "on the host; it must list nvidia.com/gpu=all; regenerate it after each driver upgrade"),
            docs=cat.NV_CONTAINER,
        )
    if "toolkit-driver" in kinds:
        return found(
            "The NVIDIA Container Toolkit could not reach the host's NVIDIA driver",
            "nvidia-container-cli asks the host's driver for its GPUs before a GPU container starts;"
            " without an answer no container gets one. Under WSL 2 (Docker Desktop, or Docker in a"
            " distribution) the Windows build, the Windows NVIDIA driver or the Docker Desktop release does"
            " not pass the GPU to Linux; on Linux the driver is not running (or was upgraded without a"
            " reboot).",
            P.system("nvidia-smi", "on the host (under WSL 2, inside the distribution): it must list the GPU"
                     " before any container can;"),
            P.note("under WSL 2: update Windows and the NVIDIA Windows driver, and try another Docker Desktop"
                   " release if one broke it; on Linux: load (or reinstall) the NVIDIA driver and reboot"),
            docs=cat.NV_CONTAINER,
        )
    if container in ("singularity", "apptainer") and not nouveau:
        return found(
            f"This {container} container has no access to the NVIDIA driver",
            f"{container.capitalize()} binds the host's driver libraries and GPU devices into a container"
            " only when asked to.",
            P.system(f"{container} exec --nv IMAGE.sif ...", "pass --nv (or --nvccli, with the NVIDIA"
                     " Container Toolkit) to every exec, run or shell; the host needs the NVIDIA driver"),
            docs=cat.NV_CONTAINER,
        )
    if container == "podman" and not nouveau:
        return found(
            "This podman container has no access to the NVIDIA driver",
            "Podman hands a container the GPUs, and the driver files with them, through CDI; without a CDI"
            " device (--device nvidia.com/gpu=all) it gets neither (its --gpus flag, kept for Docker's CLI,"
            " does nothing on older releases).",
            P.system("sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml && nvidia-ctk cdi list",
                     "on the host, once (and after each driver upgrade)"),
            P.system("podman run --device nvidia.com/gpu=all ...", "Podman 4.1 or newer"),
            docs=cat.NV_CONTAINER,
        )
    if container and not nouveau:
        return found(
            f"This {container} container has no access to the NVIDIA driver",
            "Containers get the host's driver only when started with GPU access.",
            P.system("docker run --gpus all ...", "podman: --device nvidia.com/gpu=all; Kubernetes:"
                     " resources.limits: nvidia.com/gpu: 1"),
            P.system("sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker",
                     "on the host, which needs the NVIDIA driver and the NVIDIA Container Toolkit"),
            docs=cat.NV_CONTAINER,
        )
    step, docs = rm.driver_action(facts)
    if "module-build" in kinds and not container:
        return found(
            "The NVIDIA kernel module is not loaded: it did not build for this kernel, or was refused",
            "A driver built with DKMS must be rebuilt for each new kernel; an old driver branch may not build"
            " against a newer kernel at all, and with Secure Boot the kernel loads only a module signed with"
            " an enrolled key.",
            P.system("sudo dkms status; uname -r; mokutil --sb-state", "which kernels the module was built"
                     " for, and whether Secure Boot is on;"),
            P.note("with Secure Boot, enroll the module's key (`sudo mokutil --import` the DKMS MOK key, then"
                   " reboot) or turn Secure Boot off; for a kernel this driver branch does not support,"
                   " install a newer branch or boot the older kernel:"),
            step,
            docs=docs,
        )
    if "open-module" in kinds and not container:
        return found(
            "NVIDIA's open kernel module is loaded, and this GPU needs the proprietary one",
            "The open kernel modules drive Turing and newer GPUs only: they run on the GPU System"
            " Processor (GSP) that Turing introduced. A Maxwell, Pascal or Volta GPU needs the proprietary"
            " kernel module of the same driver release.",
            P.note("install the proprietary flavour of this driver, then reboot: on Ubuntu the"
                   " nvidia-driver-NNN package (not nvidia-driver-NNN-open), on Debian nvidia-kernel-dkms"
                   " (not nvidia-open-kernel-dkms), with negativo17's Fedora packages the proprietary module"
                   " variant in /etc/nvidia/kernel.conf and `sudo akmods --force`"),
            docs=cat.NV_OPEN_MODULES,
        )
    if "gpu-unsupported" in kinds:
        newest = next((str(i["newest"]) for i in fc.log_items(facts, "no-driver") if i.get("newest")), "")
        return found(
            f"No driver release the distribution has{f' (up to {newest})' if newest else ''} supports"
            " this GPU",
            "A GPU newer than a driver branch is not driven by it: it needs a newer driver release than the"
            " distribution's packages hold.",
            P.note("install a newer driver branch: from the distribution's backports or newer release, or"
                   " NVIDIA's own repository or installer"),
            step,
            docs=docs,
        )
    if "package" in kinds and not container:
        return found(
            "The NVIDIA driver's package did not install",
            "The package manager stopped while installing the driver (a file another package owns, a"
            " package left half-configured), so the driver is not in place.",
            P.system("sudo apt-get -f install", "finishes or undoes what was left half-installed, and prints"
                     " the error again"),
            P.note("install the driver from one source: the distribution's packages (`sudo ubuntu-drivers"
                   " install`) or NVIDIA's repository, not both, whose packages claim the same files"),
            step,
            docs=docs,
        )
    if nouveau:
        blacklist = (P.system(rm.nouveau_blacklist(facts)),) if plat == "linux" and not container else ()
        return found(
            "The open-source nouveau driver is loaded instead of NVIDIA's",
            "CUDA needs NVIDIA's driver; nouveau must be blacklisted first.",
            *blacklist,
            step,
            docs=docs,
        )
    if "no-devices" in kinds:
        loaded = fc.driver_version(facts)[0]
        return found(
            f"The NVIDIA driver{f' {loaded}' if loaded else ''} is loaded but drives no GPU",
            "nvidia-smi reached the driver, and the driver has taken on no GPU: this driver branch does not"
            " support the GPU (a new GPU needs a newer driver, and GeForce RTX 50 / Blackwell GPUs its open"
            " kernel modules; an old one a legacy branch), the GPU failed to initialise, or it is not passed"
            " through to this VM. The kernel log says which.",
            P.system("sudo dmesg | grep -i -e NVRM -e nvidia", "the driver's own reason, e.g. 'RmInitAdapter"
                     " failed' or 'is not supported by the NVIDIA ... driver release'"),
            step,
            docs=docs,
        )
    return found("No NVIDIA driver is loaded", "TensorFlow cannot use the GPU without it.", step, docs=docs)


def _driver_platform(facts: dict[str, Any]) -> str:
    plat = fc.platform(facts)
    return plat if plat in ("wsl2", "windows") else "linux"


def _newest_runnable(matrix: Any, facts: dict[str, Any], driver: str, platform: str) -> Any:
    """The newest TF release this driver runs that also has a wheel for the target's Python."""
    try:
        pairs = matrix.releases_for_driver(driver, platform) or []
    except Exception:  # noqa: BLE001 - an unparsable driver version runs nothing we know of
        return None
    py = v.vtuple(fc.python_version(facts))[:2]
    fits = [(rel, caveat) for rel, caveat in pairs
            if len(py) < 2 or v.vtuple(rel.python_min)[:2] <= py <= v.vtuple(rel.python_max)[:2]]
    clean = [rel for rel, caveat in fits if caveat is None] or [rel for rel, _ in fits]
    return max(clean, key=lambda r: v.vtuple(r.version), default=None)


# cuda-compat's refusals (803, 804): a driver too old for the CUDA in use, unless versions show a split
_COMPAT = ("COMPAT_NOT_SUPPORTED_ON_DEVICE", "SYSTEM_DRIVER_MISMATCH")


def _too_old_evidence(facts: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(hard evidence the driver is too old, soft evidence: it works with limits)."""
    hard = (fc.cuda_errors(facts, *(e for e in stackerrors.errors_for("driver.too-old") if e not in _COMPAT))
            + fc.log_items(facts, "ngc-driver", "container-cuda"))
    if not _version_split(facts):
        # the forward-compatibility libcuda (cuda-compat) stands in for a driver too old for the CUDA in
        # use, and is refused on GPUs it does not support (804) or by a driver branch it does not
        # cover (803); with the library and kernel versions shown to differ, that split says more
        hard += fc.cuda_errors(facts, *_COMPAT)
    if (fc.container_without_gpus(facts) or fc.log_items(facts, "nvml-init-failed")
            or fc.other_vendor_only(facts)):
        # CUDA's "insufficient driver" there is no driver at all (an old driver's NVML still starts; the only
        # GPU another vendor's)
        hard = [i for i in hard if i.get("error") != "INSUFFICIENT_DRIVER"]
    soft = fc.log_items(facts, "driver-cuda-older")
    past = fc.toolkit_past_driver(facts)
    if past:  # code of a newer CUDA than the driver's did not load: minor-version compatibility stops there
        soft += [{**i, "driver_cuda": past[0], "need": past[1]}
                 for i in fc.cuda_errors(facts, *fc.PAST_DRIVER_ERRORS)]
    return hard, soft


@check("driver.too-old", "driver.minor-version-compat", "driver.cuda-compatible")
def driver_new_enough(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    found = _against_framework(facts, matrix)
    if not any(f.id in ("driver.too-old", "driver.minor-version-compat") and f.status >= Status.WARN
               for f in found):
        found += _nvcc_newer(facts)
    return found


def _nvcc_newer(facts: dict[str, Any]) -> list[Finding]:
    """The CUDA toolkit's nvcc of a newer minor release than the driver runs: what it compiles (PTX, and
    XLA's kernels through its ptxas) needs the driver to JIT PTX of a newer CUDA, which it cannot."""
    nvcc, cuda = v.vtuple(fc.get(facts, "nvcc", "version"))[:2], v.vtuple(fc.cuda_driver_version(facts))[:2]
    if len(nvcc) < 2 or len(cuda) < 2 or nvcc[0] != cuda[0] or nvcc <= cuda:
        return []
    shown = ".".join(map(str, nvcc)), ".".join(map(str, cuda))
    upgrade, _docs = rm.driver_action(facts, None, f"a driver for CUDA {shown[0]} or newer")
    return [Finding(
        "driver.minor-version-compat",
        Status.WARN,
        f"nvcc {shown[0]} is newer than the CUDA {shown[1]} the driver runs",
        detail=f"CUDA {shown[0]}'s binaries run on a CUDA {shown[1]} driver only through minor-version"
        " compatibility, which excludes PTX: kernels compiled to PTX (nvcc's default for a GPU it was not"
        " told to target, and XLA's through this ptxas) fail to load or launch.",
        plan=rm.plan(facts, upgrade, P.note(f"or compile for the GPU itself (nvcc -arch=sm_XY), or use a CUDA"
                                            f" {shown[1]} toolkit")),
        facts=("nvcc.version", "nvml.cuda_driver_version", "nvidia_smi.cuda_version"),
        confidence="likely",
    )]


def _against_framework(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    """The driver against the CUDA TensorFlow (or PyTorch) was built with."""
    used = (
        "nvml.driver_version",
        "nvidia_smi.driver_version",
        "system.proc_driver_version",
        "tensorflow.build_info.cuda_version",
        "tensorflow.version",
        "system.platform",
        "log.evidence",
    )
    hard, soft = _too_old_evidence(facts)
    driver, _ = fc.driver_version(facts)
    cuda, cuda_source = fc.tf_cuda(facts, matrix)
    tfv = fc.tf_version(facts) or "(not installed)"
    framework = f"TensorFlow {tfv}"
    torch = fc.text(fc.get(facts, "runtime", "pytorch_cuda"))
    if not cuda and not fc.tf_installed(facts) and torch:  # PyTorch's environment report instead
        cuda, cuda_source, framework = torch, "PyTorch's collect_env", "PyTorch"
    why = None
    if not driver:
        why = "No driver version is known (see driver.missing)."
    elif framework != "PyTorch" and (fc.platform(facts) == "macos" or fc.is_cuda_build(facts) is False):
        why = "The installed TensorFlow is not a CUDA build."
    if why is None and not cuda:
        why = ("TensorFlow is not installed." if not fc.tf_installed(facts)
               else "TensorFlow's CUDA version is unknown.")
    platform = _driver_platform(facts)
    ok, caveat, minimum = False, None, None
    if why is None:
        try:
            ok, caveat = matrix.driver_supports_cuda(driver, cuda, platform)
            minimum = matrix.min_driver(cuda, platform)
        except Exception as exc:  # noqa: BLE001 - malformed versions become a skip with the reason
            why = f"Could not compare driver {driver!r} with CUDA {cuda!r}: {exc}"
    if why is not None:
        if hard or soft:
            return [_too_old(facts, matrix, driver, cuda, None, hard, soft, used)]
        return [skipped("driver.too-old", "Driver version not compared with TensorFlow's CUDA", why, used)]
    column = {"wsl2": "Windows (WSL2)", "windows": "Windows"}.get(platform, "Linux")
    if ok and not hard and not (caveat and soft):
        if caveat is None:
            return [
                Finding(
                    "driver.cuda-compatible",
                    Status.PASS,
                    f"Driver {driver} runs CUDA {cuda}, which {framework} was built for",
                    detail=f"Minimum {column} driver for CUDA {cuda}: {minimum or 'unknown'}"
                    f" (CUDA version from {cuda_source}).",
                    facts=used,
                )
            ]
        if fc.get(facts, "nvml", "available") is not True:
            return []  # a risk for this machine's own driver (NVML); in pasted text nothing failed here
        upgrade, _docs = rm.driver_action(facts, minimum.split(".")[0] if minimum else None,
                                          f"upgrade the driver to {minimum} or newer")
        return [
            Finding(
                "driver.minor-version-compat",
                Status.WARN,
                f"Driver {driver} runs CUDA {cuda} only through minor-version compatibility",
                detail=f"{caveat.rstrip('.')}. The full-support minimum {column} driver for CUDA {cuda}"
                f" is {minimum} (CUDA version from {cuda_source}).",
                plan=rm.plan(facts, upgrade),
                facts=used,
                confidence="certain",
            )
        ]
    return [_too_old(facts, matrix, driver, cuda, minimum, hard, soft if ok else [], used, cuda_source,
                     framework)]


def _too_old(
    facts: dict[str, Any],
    matrix: Any,
    driver: str | None,
    cuda: str | None,
    minimum: str | None,
    hard: list[dict[str, Any]],
    soft: list[dict[str, Any]],
    used: tuple[str, ...],
    cuda_source: str = "",
    framework: str = "",
) -> Finding:
    """driver.too-old when CUDA cannot run; driver.minor-version-compat (a warning) when only PTX JIT or XLA
    is limited."""
    platform = _driver_platform(facts)
    column = {"wsl2": "Windows (WSL2)", "windows": "Windows"}.get(platform, "Linux")
    tfv = fc.tf_version(facts)
    ngc = next((i for i in hard if i.get("kind") == "ngc-driver"), None)
    if ngc:  # NVIDIA's image builds TensorFlow on its own CUDA: the image's driver requirement is the one
        minimum, cuda = ngc.get("need") or minimum, None
    if not minimum and any(i.get("why") == "toolkit" for i in hard):
        minimum = TOOLKIT_MIN_DRIVER
    needs = [i.get("need") for i in hard if i.get("kind") == "container-cuda"] + [
        i.get("need") for i in soft]
    image = not cuda and bool(needs)  # the CUDA a container image (or a program) needs, not TensorFlow's
    if image:
        cuda = needs[0]
        if not minimum and cuda and matrix is not None:
            try:
                minimum = matrix.min_driver(cuda, platform)
            except Exception:  # noqa: BLE001 - a CUDA version the matrix does not know: no minimum
                minimum = None
    branch = minimum.split(".")[0] if minimum else None
    upgrade, docs = rm.driver_action(facts, branch, f"driver {minimum or 'of a newer branch'} or newer")
    limit = rm.driver_branch_limit(facts, matrix)
    parts = []
    if cuda:
        who = framework or f"TensorFlow {tfv or ''}"
        parts.append(f"This needs CUDA {cuda}" if image else
                     f"{who} was built for CUDA {cuda}".replace("  ", " ")
                     + (f" (from {cuda_source})" if cuda_source else ""))
    if minimum:
        parts.append(f"which needs a {column} driver >= {minimum}" if parts else
                     f"It needs a {column} driver >= {minimum}")
    if driver:
        parts.append(f"this driver is {driver}")
    detail = ", ".join(parts) + "." if parts else "The CUDA runtime reported the driver as too old."
    if ngc:  # (its own words say it all)
        detail = (f"The container image was built for NVIDIA driver {ngc.get('need')} or later; the host runs"
                  f" {ngc.get('have') or driver or 'an older one'}.")
    if any(i.get("why") == "toolkit" for i in hard):
        detail += (" The NVIDIA Container Toolkit itself calls NVML functions this driver's NVML lacks: it"
                   f" needs a driver >= {TOOLKIT_MIN_DRIVER}.")
    elif any(i.get("kind") == "container-cuda" for i in hard):
        image = f"an image built for CUDA {cuda}" if cuda else "an image whose CUDA needs a newer driver"
        detail += (f" The NVIDIA Container Toolkit refused to start {image}: the host's driver must be"
                   " upgraded (or use an image of an older CUDA).")
    if fc.cuda_errors(facts, *_COMPAT):
        detail += (" CUDA's forward-compatibility library (cuda-compat, common in container images) stood in"
                   " for the old driver and was refused: it works only on data-center GPUs and on the driver"
                   " branches it lists.")
    steps = [upgrade]
    if limit:
        arch, last = limit
        if branch and last and v.vtuple(last) < v.vtuple(branch):
            steps = [P.note(f"This {arch} GPU's last driver branch is R{last}, too old for CUDA {cuda}: use a"
                            f" TensorFlow release built for the CUDA R{last} supports"
                            " (`tfdoctor matrix --driver"
                            f" {last}`), or a newer GPU")]
    newest = (_newest_runnable(matrix, facts, driver, platform)
              if driver and matrix is not None and framework != "PyTorch" else None)
    if newest is not None and cuda and v.major_minor(newest.cuda) != v.major_minor(cuda):
        detail += (f" The newest TensorFlow this driver runs on this Python is {newest.version}"
                   f" (CUDA {newest.cuda}).")
        steps.append(P.note(f". Or keep the driver and move to TensorFlow {newest.version} (a downgrade from"
                            f" {tfv or 'yours'}):"
                            f" {rm.pip_install(facts, rm.tf_requirement(newest.version))}"))
    elif driver and matrix is not None and cuda and newest is None and framework != "PyTorch":
        detail += " No TensorFlow release in the bundled matrix runs on this driver with this Python."
    status = Status.FAIL if hard or not soft else Status.WARN
    toolkit = any(i.get("why") == "toolkit" for i in hard) and not cuda
    title = (f"NVIDIA driver {driver} is too old for this container image (it needs {minimum})"
             if ngc and driver and minimum
             else f"NVIDIA driver {driver} is too old for CUDA {cuda}" if driver and cuda
             else f"NVIDIA driver {driver or ''} is too old for the NVIDIA Container Toolkit" if toolkit
             else "The NVIDIA driver is too old for TensorFlow's CUDA").replace("  ", " ")
    failed = [i for i in soft if i.get("error") in fc.PAST_DRIVER_ERRORS]
    if failed and not hard:
        status = Status.FAIL
        title = (f"The driver's CUDA ({failed[0]['driver_cuda']}) cannot load code compiled by CUDA"
                 f" {failed[0]['need']}")
        detail += (" Minor-version compatibility runs a newer CUDA's runtime on this driver, but not code its"
                   " newer compiler (nvcc/ptxas, XLA) produced: \"no kernel image\" or a PTX version the"
                   " driver does not know. Use the toolkit of the driver's CUDA (XLA_FLAGS"
                   " --xla_gpu_force_compilation_parallelism=1 avoids XLA's own linking), or upgrade the"
                   " driver.")
    elif status == Status.WARN:
        have, need = soft[0].get("driver_cuda"), soft[0].get("need") or cuda
        title = (f"The driver's CUDA{f' ({have})' if have else ''} is older than XLA's PTX compiler"
                 f"{f' ({need})' if need else ''}: XLA compiles slower")
    # nothing failed, or only code of its newer compiler: the driver runs the newer CUDA through
    # minor-version compatibility
    which = "driver.too-old" if status == Status.FAIL and not failed else "driver.minor-version-compat"
    return Finding(which, status, title, detail=detail, plan=rm.plan(facts, *steps), docs=docs,
                   facts=used,
                   evidence=fc.quote(facts, hard + soft), confidence="certain" if hard else "likely")


_RELOAD = "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia"


def _mismatch_fix(facts: dict[str, Any]) -> P.Plan:
    plat = fc.platform(facts)
    if plat == "wsl2":
        return rm.plan(facts, P.system("wsl --shutdown", "in PowerShell, so WSL picks up the updated Windows"
                                       " driver; then reopen the distribution (never install a Linux NVIDIA"
                                       " driver inside WSL2)"))
    if fc.get(facts, "system", "container"):
        return rm.plan(facts, P.note(
            "Reboot the host (its kernel module and driver libraries differ), or on the host reload the "
            f"module: `{_RELOAD}`; then restart the container"))
    return rm.plan(facts, P.system("sudo reboot", "or, without a reboot, after stopping every GPU process,"
                                   f" the display manager and nvidia-persistenced: `{_RELOAD}`"))


@check("driver.library-mismatch")
def library_mismatch(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    nvml = fc.section(facts, "nvml") or {}
    smi = fc.section(facts, "nvidia_smi") or {}
    kernel = fc.get(facts, "system", "proc_driver_version")
    evidence = []
    if nvml.get("error_kind") == "lib-mismatch":
        evidence.append("NVML: Driver/library version mismatch")
    if smi.get("error_kind") == "lib-mismatch":
        evidence.append(f"nvidia-smi: {smi.get('error')}")
    user = (nvml.get("driver_version") or smi.get("driver_version")
            or fc.get(facts, "system", "libcuda_version"))
    if kernel and user and v.differ(kernel, user):
        evidence.append(f"kernel module {kernel} but driver library {user}")
    items = (fc.log_items(facts, "lib-mismatch")
             + fc.cuda_errors(facts, *stackerrors.errors_for("driver.library-mismatch")))
    # the container toolkit's hook, on the host, calling an NVML function the host's driver lacks: that
    # driver is older than the toolkit (driver.too-old says so), not split from its kernel module
    items = [i for i in items if not (i.get("error") == "FUNCTION_NOT_FOUND"
                                      and "nvidia-container-cli" in str(i.get("text", "")).lower())]
    if evidence or items:  # 803 alone is a forward-compatibility refusal: see driver.too-old
        items += fc.cuda_errors(facts, "SYSTEM_DRIVER_MISMATCH")
    for item in items:
        if item.get("kernel") and item.get("library"):
            text = f"kernel module {item['kernel']} but driver library {item['library']}"
        else:
            text = "Driver/library version mismatch"
        if text not in evidence:
            evidence.append(text)
    if not evidence:
        return []
    return [
        Finding(
            "driver.library-mismatch",
            Status.FAIL,
            "The NVIDIA kernel module and driver library are different versions",
            detail=" · ".join(evidence)
            + ". This happens after a driver update until the new kernel module is loaded; until then CUDA,"
            " NVML and nvidia-smi all fail.",
            plan=_mismatch_fix(facts),
            facts=("nvml.error_kind", "nvidia_smi.error_kind", "system.proc_driver_version",
                   "nvml.driver_version", "log.evidence"),
            evidence=fc.quote(facts, items),
        )
    ]


def _version_split(facts: dict[str, Any]) -> bool:
    """The text shows the user-space driver library and the kernel module at different versions."""
    kernel = fc.get(facts, "system", "proc_driver_version")
    user = fc.get(facts, "system", "libcuda_version")
    return bool(fc.log_items(facts, "lib-mismatch")) or bool(
        isinstance(kernel, str) and isinstance(user, str) and v.differ(kernel, user))
