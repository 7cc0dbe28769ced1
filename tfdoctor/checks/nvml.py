"""NVIDIA's NVML Python bindings: the official package, permission to use them, agreement with
nvidia-smi."""

from __future__ import annotations

from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor import versions as v
from tfdoctor.checks import check
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status


@check("nvml.unofficial-pynvml", "nvml.no-permission", "nvml.nvidia-smi-disagrees")
def bindings(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    nvml = fc.section(facts, "nvml") or {}
    smi = fc.section(facts, "nvidia_smi") or {}
    out: list[Finding] = []
    if nvml.get("error_kind") == "fork":
        out.append(
            Finding(
                "nvml.unofficial-pynvml",
                Status.WARN,
                "The unofficial `pynvml` package shadows nvidia-ml-py",
                detail=f"{nvml.get('error')}. GPU health (ECC, PCIe, throttling, processes) came from "
                "nvidia-smi, "
                "if at all.",
                plan=rm.plan(facts, P.system("python -m pip uninstall -y pynvml"),
                             P.system("python -m pip install nvidia-ml-py", "in tfdoctor's environment")),
                docs=cat.NVML_PY,
                facts=("nvml.error_kind", "nvml.bindings"),
            )
        )
    denied = fc.as_list(fc.get(facts, "system", "dev_nvidia_denied"))
    # (beside a failed cuInit, "only as root" is the nvidia-uvm device file a first root run creates:
    # cuda.init-failed says so)
    root_only = None if fc.log_items(facts, "cuinit", "cuda-error") else fc.get(facts, "system",
                                                                                "root_only_stated")
    if nvml.get("error_kind") == "no-permission" or denied or root_only:
        title, detail = "No permission to query the NVIDIA driver through NVML", str(nvml.get("error") or "")
        if denied:
            title = "The GPU device files are closed to this user"
            detail = (f"{', '.join(map(str, denied))}: CUDA and NVML open these files; only their owner and"
                      " group can, so a process of another user finds no GPU. " + detail).strip()
        elif root_only:
            title = "The GPU works only as root, as written here"
            detail = "Only root can open the GPU device files (/dev/nvidia*): their mode or group shuts out" \
                     " this user."
        out.append(
            Finding(
                "nvml.no-permission",
                Status.WARN,
                title,
                detail=detail,
                docs=cat.NV_SMI,
                facts=("nvml.error_kind", "system.dev_nvidia_denied", "system.root_only_stated"),
                evidence=fc.quote(facts, [{"line": fc.as_dict(fc.get(facts, "log", "provenance")).get(
                    "system.root_only_stated"), "text": root_only}]) if root_only and not denied else (),
                plan=rm.plan(facts, P.system("ls -l /dev/nvidia*", "they should be crw-rw-rw-; if they are"
                                             ' group-restricted: `sudo usermod -aG video "$USER"` and log in'
                                             " again; a mode that shuts out the owner too was set by a broken"
                                             " udev rule or NVreg_DeviceFileMode (containers: start with"
                                             " --gpus all)")),
            )
        )
    tool, driver = fc.text(smi.get("smi_version")), fc.text(smi.get("driver_version"))
    if tool and driver and (v.major(tool) or 0) > (v.major(driver) or 0):
        # a newer nvidia-smi than the driver it talks to: another, newer driver's user-space files are
        # installed (WSL 2's and a container's injected nvidia-smi are never newer than the driver)
        out.append(
            Finding(
                "nvml.nvidia-smi-disagrees",
                Status.WARN,
                f"nvidia-smi {tool} is newer than the driver it reports ({driver})",
                detail=f"The nvidia-smi binary belongs to driver {tool}, the running driver is {driver}: the"
                " user-space files of two driver releases are installed, so tools and CUDA may load the"
                " wrong ones and report versions the driver does not have.",
                plan=rm.plan(facts, P.system("cat /proc/driver/nvidia/version; which -a nvidia-smi",
                                             "keep the driver files of the running kernel module's release"
                                             " (reinstall that driver, or reboot into the newer one)")),
                docs=cat.NV_SMI,
                facts=("nvidia_smi.smi_version", "nvidia_smi.driver_version"),
            )
        )
    smi_version = smi.get("driver_version")
    if nvml.get("driver_version") and smi_version and nvml["driver_version"] != smi_version:
        out.append(
            Finding(
                "nvml.nvidia-smi-disagrees",
                Status.WARN,
                f"NVML says driver {nvml['driver_version']}, nvidia-smi says {smi_version}",
                detail=f"nvidia-smi at {smi.get('path')} loaded a different libnvidia-ml than tfdoctor did: "
                "two "
                "driver installs, or a container image that ships its own driver libraries.",
                plan=rm.plan(facts, P.system("ldconfig -p | grep libnvidia-ml", "keep only the library that"
                                             " matches the loaded kernel module"
                                             " (`cat /proc/driver/nvidia/version`);"
                                             " in containers do not install a driver in the image")),
                docs=cat.NV_SMI,
                facts=("nvml.driver_version", "nvidia_smi.driver_version"),
            )
        )
    return out
