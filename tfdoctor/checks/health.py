"""GPU health from NVML (or nvidia-smi -q -x when NVML is unusable), the driver/library version
mismatch, and which physical GPU each TensorFlow device is. Pure functions: facts in, findings out.
"""

from __future__ import annotations

import re
from typing import Any

from tfdoctor.checks import check
from tfdoctor.checks import fixes as fx
from tfdoctor.model import Finding, Status

DOCS_MEM_ERRORS = "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html"
DOCS_PAGE_RETIREMENT = "https://docs.nvidia.com/deploy/dynamic-page-retirement/index.html"
DOCS_XID = "https://docs.nvidia.com/deploy/xid-errors/index.html"
DOCS_MIG = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/index.html"
DOCS_NVSMI = "https://docs.nvidia.com/deploy/nvidia-smi/index.html"
DOCS_CLOCK_REASONS = "https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html"
DOCS_PERSISTENCE = "https://docs.nvidia.com/deploy/driver-persistence/index.html"
DOCS_NVML_PY = "https://pypi.org/project/nvidia-ml-py/"

SLOWING = ("hw_slowdown", "hw_thermal", "sw_thermal", "hw_power_brake", "power_cap")
REASON_WORDS = {
    "hw_slowdown": "hardware slowdown",
    "hw_thermal": "hardware thermal slowdown",
    "sw_thermal": "software thermal slowdown",
    "hw_power_brake": "external power brake",
    "power_cap": "power cap",
    "sync_boost": "sync boost",
}
HOT_MARGIN_C = 3  # warn this close to the slowdown temperature
HELD_FRACTION = 0.5  # warn when other processes hold this much of a GPU's memory
MIN_FREE_MIB = 1024  # below this TensorFlow cannot even set up cuBLAS/cuDNN workspaces


# --- reading the GPU facts ----------------------------------------------------------------------


def gpus_with_source(facts: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    """Per-GPU facts from NVML, else from nvidia-smi -q -x; with the source's name."""
    nvml = fx.section(facts, "nvml") or {}
    if nvml.get("available") and isinstance(nvml.get("gpus"), list) and nvml["gpus"]:
        return [g for g in nvml["gpus"] if isinstance(g, dict)], "NVML"
    smi = fx.section(facts, "nvidia_smi") or {}
    if isinstance(smi.get("gpus"), list) and smi["gpus"]:
        return [g for g in smi["gpus"] if isinstance(g, dict)], "nvidia-smi"
    return [], None


def _label(g: dict[str, Any]) -> str:
    return f"GPU {g.get('index', '?')} ({g.get('name') or 'unknown GPU'})"


def _d(g: dict[str, Any], key: str) -> dict[str, Any]:
    return fx.as_dict(g.get(key))


def _finding(
    fid: str,
    status: Status,
    hits: list[tuple[dict[str, Any], str]],
    what: str,
    fix: str,
    docs: str | None,
    source: str | None,
    detail: str = "",
) -> Finding:
    """One finding per id, naming every GPU it concerns."""
    lines = [f"{_label(g)}: {text}" for g, text in hits]
    title = f"{_label(hits[0][0])}: {what}" if len(hits) == 1 else f"{len(hits)} GPUs: {what}"
    body = "\n".join(lines) + (f"\n{detail}" if detail else "") + f"\n(read from {source})"
    return Finding(
        fid, status, title, detail=body, fix=fix, docs=docs, facts=("nvml.gpus", "nvidia_smi.gpus")
    )


def _index_args(hits: list[tuple[dict[str, Any], str]]) -> str:
    return ",".join(str(g.get("index")) for g, _ in hits)


# --- NVML bindings, driver/library mismatch -----------------------------------------------------


def _mismatch_fix(facts: dict[str, Any]) -> str:
    plat = fx.platform(facts)
    if plat == "wsl2":
        return (
            "Restart WSL so it picks up the updated Windows driver: run `wsl --shutdown` in PowerShell, then "
            "reopen the distribution (never install a Linux NVIDIA driver inside WSL2)"
        )
    if fx.get(facts, "system", "container"):
        return (
            "Reboot the host (its kernel module and driver libraries differ), or on the host reload the "
            "module: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia; then "
            "restart the container"
        )
    return (
        "sudo reboot  # or, without a reboot, after stopping every GPU process, the display manager and "
        "nvidia-persistenced: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia"
    )


@check(
    {
        "driver.library-mismatch": "The loaded NVIDIA kernel module and the user-space driver library are "
        "different versions (Driver/library version mismatch).",
        "nvml.unofficial-pynvml": "`import pynvml` comes from the unofficial pynvml fork, not NVIDIA's "
        "nvidia-ml-py, so tfdoctor did not read NVML.",
        "nvml.no-permission": "NVML was denied access to the NVIDIA driver (/dev/nvidia* permissions).",
        "nvml.nvidia-smi-disagrees": "NVML and nvidia-smi report different driver versions (two driver "
        "libraries on this machine).",
    }
)
def nvml_and_driver_library(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    nvml = fx.section(facts, "nvml") or {}
    smi = fx.section(facts, "nvidia_smi") or {}
    kernel = fx.get(facts, "system", "proc_driver_version")
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
                docs=DOCS_NVSMI,
                facts=(
                    "nvml.error_kind",
                    "nvidia_smi.error_kind",
                    "system.proc_driver_version",
                    "nvml.driver_version",
                ),
            )
        )
    if nvml.get("error_kind") == "fork":
        out.append(
            Finding(
                "nvml.unofficial-pynvml",
                Status.WARN,
                "The unofficial `pynvml` package shadows nvidia-ml-py",
                detail=f"{nvml.get('error')}. GPU health (ECC, PCIe, throttling, processes) came from "
                       "nvidia-smi, "
                "if at all.",
                fix="python -m pip uninstall -y pynvml && python -m pip install nvidia-ml-py  # in "
                    "tfdoctor's "
                "environment",
                docs=DOCS_NVML_PY,
                facts=("nvml.error_kind", "nvml.bindings"),
            )
        )
    if nvml.get("error_kind") == "no-permission":
        out.append(
            Finding(
                "nvml.no-permission",
                Status.WARN,
                "No permission to query the NVIDIA driver through NVML",
                detail=str(nvml.get("error") or ""),
                docs=DOCS_NVSMI,
                facts=("nvml.error_kind",),
                fix="ls -l /dev/nvidia*  # they should be crw-rw-rw-; if they are group-restricted: "
                'sudo usermod -aG video "$USER" and log in again (containers: start with --gpus all)',
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
                fix="ldconfig -p | grep libnvidia-ml  # keep only the library that matches the loaded kernel "
                "module (cat /proc/driver/nvidia/version); in containers do not install a driver in the "
                "image",
                docs=DOCS_NVSMI,
                facts=("nvml.driver_version", "nvidia_smi.driver_version"),
            )
        )
    return out


# --- per-GPU health ---------------------------------------------------------------------------------


@check(
    {
        "gpu.lost": "A GPU stopped answering (fallen off the bus, or needs a reset).",
        "gpu.ecc-errors": "A GPU counted uncorrected ECC memory errors.",
        "gpu.row-remap-pending": "A GPU has memory row remaps waiting for a GPU reset.",
        "gpu.row-remap-failed": "A GPU ran out of spare memory rows to remap (hardware needs service).",
        "gpu.retired-pages-pending": "A GPU has memory pages waiting to be retired at the next reset.",
    }
)
def memory_and_bus_errors(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    gpus, source = gpus_with_source(facts)
    lost = [(g, str(g.get("error"))) for g in gpus if g.get("error_kind") == "gpu-lost"]
    live = [g for g in gpus if not g.get("error")]
    out = []
    if lost:
        out.append(
            _finding(
                "gpu.lost",
                Status.FAIL,
                lost,
                "the GPU no longer answers",
                source=source,
                fix="sudo dmesg | grep -i xid  # Xid 79 = fallen off the bus; then reset: sudo nvidia-smi "
                    "-r -i "
                f"{_index_args(lost)} or reboot; if it recurs check seating, power cables and cooling",
                docs=DOCS_XID,
            )
        )
    volatile = [
        (
            g,
            _d(_d(g, "ecc"), "volatile").get("uncorrected") or 0,
            _d(_d(g, "ecc"), "aggregate").get("uncorrected") or 0,
        )
        for g in live
    ]
    now = [
        (g, f"{v} uncorrected ECC errors since the last reset ({a} in its lifetime)")
        for g, v, a in volatile
        if v > 0
    ]
    past = [
        (g, f"{a} uncorrected ECC errors in its lifetime, none since the last reset")
        for g, v, a in volatile
        if v == 0 and a > 0
    ]
    fix_ecc = (
        "Stop the jobs on it and reset it: sudo nvidia-smi -r -i {i} (or reboot); if errors come back, "
        "collect `nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER -i {i}` for your vendor"
    )
    if now:
        out.append(
            _finding(
                "gpu.ecc-errors",
                Status.FAIL,
                now,
                "uncorrected ECC memory errors",
                source=source,
                detail="Results computed on this GPU since then may be corrupt.",
                fix=fix_ecc.format(i=_index_args(now)),
                docs=DOCS_MEM_ERRORS,
            )
        )
    elif past:
        out.append(
            _finding(
                "gpu.ecc-errors",
                Status.WARN,
                past,
                "uncorrected ECC errors in the past",
                source=source,
                fix=fix_ecc.format(i=_index_args(past)),
                docs=DOCS_MEM_ERRORS,
            )
        )
    failed = [(g, "row remapping failed") for g in live if _d(g, "remapped_rows").get("failure")]
    pending = [
        (
            g,
            f"{_d(g, 'remapped_rows').get('uncorrectable') or 0} uncorrectable / "
            f"{_d(g, 'remapped_rows').get('correctable') or 0} correctable rows remapped, remap pending",
        )
        for g in live
        if _d(g, "remapped_rows").get("pending")
    ]
    if failed:
        out.append(
            _finding(
                "gpu.row-remap-failed",
                Status.FAIL,
                failed,
                "memory row remapping failed",
                source=source,
                docs=DOCS_MEM_ERRORS,
                detail="The GPU has no spare rows left for a failing memory row.",
                fix="Take the GPU out of service and open a hardware case with your vendor, attaching "
                f"`nvidia-smi -q -d ROW_REMAPPER -i {_index_args(failed)}` and `nvidia-bug-report.sh`",
            )
        )
    if pending:
        out.append(
            _finding(
                "gpu.row-remap-pending",
                Status.WARN,
                pending,
                "memory row remap pending",
                source=source,
                docs=DOCS_MEM_ERRORS,
                detail="The faulty row is replaced only after a GPU reset.",
                fix=f"Stop the jobs on it, then: sudo nvidia-smi -r -i {_index_args(pending)} (or reboot)",
            )
        )
    retire = [(g, "pages pending retirement") for g in live if _d(g, "retired_pages").get("pending")]
    if retire:
        out.append(
            _finding(
                "gpu.retired-pages-pending",
                Status.WARN,
                retire,
                "memory pages pending retirement",
                source=source,
                docs=DOCS_PAGE_RETIREMENT,
                fix=f"Stop the jobs on it, then: sudo nvidia-smi -r -i {_index_args(retire)} (or reboot)",
            )
        )
    return out


@check(
    {
        "gpu.pcie-link-degraded": "A GPU's PCIe link runs narrower (or, under load, slower) than it can.",
        "gpu.throttled": "A GPU's clocks are held down now (thermal, power cap, hardware slowdown, power "
                         "brake).",
        "gpu.temperature-high": "A GPU is at or near its slowdown temperature.",
    }
)
def link_and_clocks(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    gpus, source = gpus_with_source(facts)
    live = [g for g in gpus if not g.get("error")]
    out = []
    narrow, slow = [], []
    for g in live:
        p = _d(g, "pcie")
        width, max_width, gen, max_gen = p.get("width"), p.get("max_width"), p.get("gen"), p.get("max_gen")
        idle = "idle" in (g.get("throttle_reasons") or [])
        reasons = g.get("throttle_reasons")
        if width and max_width and width < max_width:
            narrow.append((g, f"x{width} of x{max_width} (Gen{gen} of Gen{max_gen})"))
        elif gen and max_gen and gen < max_gen and reasons is not None and not idle:
            slow.append((g, f"Gen{gen} of Gen{max_gen} while busy (x{width})"))
    if narrow:
        out.append(
            _finding(
                "gpu.pcie-link-degraded",
                Status.WARN,
                narrow,
                "PCIe link narrower than the GPU supports",
                source=source,
                docs=DOCS_NVSMI,
                detail="A narrower link divides host<->GPU bandwidth (input pipelines, multi-GPU all-reduce "
                       "without "
                "NVLink). An idle GPU lowers its link generation to save power, which is normal; the width "
                "should not drop. Some cloud instances wire x8 slots by design: then nothing is wrong.",
                fix="Check seating, slot and riser (a x16 card in a x4/x8 slot or a damaged riser), and the "
                    "BIOS PCIe "
                "settings; confirm under load: nvidia-smi -q -d PCI -i "
                f"{_index_args(narrow)} or sudo lspci -vv | grep -A1 LnkCap",
            )
        )
    elif slow:
        out.append(
            _finding(
                "gpu.pcie-link-degraded",
                Status.WARN,
                slow,
                "PCIe link generation below its maximum while busy",
                source=source,
                docs=DOCS_NVSMI,
                detail="Idle GPUs downtrain their link to save power; a busy one normally runs at its "
                       "maximum "
                "generation. Judge it under a real load before acting.",
                fix=f"Re-check under load: nvidia-smi -q -d PCI -i {_index_args(slow)}; if it stays low, "
                    "check the "
                "BIOS PCIe generation setting and the riser/slot",
            )
        )
    throttled = []
    for g in live:
        active = [r for r in (g.get("throttle_reasons") or []) if r in SLOWING]
        if active:
            power = ""
            if g.get("power_w") is not None and g.get("power_limit_w"):
                power = f"; {g['power_w']:.0f} W of {g['power_limit_w']:.0f} W"
            temp = f"; {g['temperature_c']:.0f} °C" if g.get("temperature_c") is not None else ""
            throttled.append((g, ", ".join(REASON_WORDS[r] for r in active) + power + temp))
    if throttled:
        thermal = any("thermal" in t or "slowdown" in t for _, t in throttled)
        fix = f"nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -i {_index_args(throttled)}  # then: " + (
            "improve cooling (airflow, fans, blocked intakes, data-centre inlet temperature)"
            if thermal
            else "a power cap under load is normal at full load; if the GPU is idle or the limit is "
            "below its default, raise it: sudo nvidia-smi -i N -pl <default W>"
        )
        out.append(
            _finding(
                "gpu.throttled",
                Status.WARN,
                throttled,
                "clocks are being held down",
                source=source,
                fix=fix,
                docs=DOCS_CLOCK_REASONS,
                detail="TensorFlow runs slower than this GPU can.",
            )
        )
    hot = [
        (g, f"{g['temperature_c']:.0f} °C, slowdown at {g['temperature_limit_c']:.0f} °C")
        for g in live
        if g.get("temperature_c") is not None
        and g.get("temperature_limit_c")
        and g["temperature_c"] >= g["temperature_limit_c"] - HOT_MARGIN_C
    ]
    if hot:
        out.append(
            _finding(
                "gpu.temperature-high",
                Status.WARN,
                hot,
                "at or near its slowdown temperature",
                source=source,
                docs=DOCS_CLOCK_REASONS,
                fix="Improve cooling (airflow, fan curves, inlet temperature); watch it with "
                f"nvidia-smi -q -d TEMPERATURE -i {_index_args(hot)} -l 5",
            )
        )
    return out


def _process_text(g: dict[str, Any]) -> str:
    procs = [p for p in g.get("processes") or [] if isinstance(p, dict)]
    if not procs:
        return "no process is visible (another container or user holds it)"
    parts = [
        f"{p.get('name') or '?'} (pid {p.get('pid')}, {p['used_mib']} MiB)"
        if p.get("used_mib") is not None
        else f"{p.get('name') or '?'} (pid {p.get('pid')})"
        for p in procs
    ]
    return "held by " + ", ".join(parts)


@check(
    {
        "gpu.memory-held-by-other-processes": "Other processes hold much of a GPU's memory; TensorFlow gets "
                                              "the rest.",
        "gpu.persistence-off": "Persistence mode is off on a data-centre GPU (slow CUDA start-up, state "
                               "reset).",
        "gpu.compute-mode-prohibited": "A GPU's compute mode is Prohibited: no CUDA context can be created "
                                       "on it.",
        "gpu.compute-mode-exclusive": "A GPU is in Exclusive Process mode and another process already uses "
                                      "it.",
    }
)
def sharing_and_modes(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    gpus, source = gpus_with_source(facts)
    live = [g for g in gpus if not g.get("error")]
    out = []
    held = []
    starved = False
    for g in live:
        total, used, free = g.get("memory_total_mib"), g.get("memory_used_mib"), g.get("memory_free_mib")
        if not total or used is None:
            continue
        free = free if free is not None else total - used
        if used / total >= HELD_FRACTION or free < MIN_FREE_MIB:
            starved = starved or free < MIN_FREE_MIB
            held.append(
                (g, f"{used} of {total} MiB in use, {free} MiB left for TensorFlow; {_process_text(g)}")
            )
    if held:
        out.append(
            _finding(
                "gpu.memory-held-by-other-processes",
                Status.FAIL if starved else Status.WARN,
                held,
                "other processes hold most of its memory",
                source=source,
                docs=DOCS_NVSMI,
                detail="TensorFlow allocates from what is left and fails with out-of-memory (OOM) errors "
                       "when it "
                "is not enough. tfdoctor's own worker enables memory growth and holds little.",
                fix="nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv  # stop what "
                    "you do not "
                "need (kill PID), or give TensorFlow a free GPU: export CUDA_VISIBLE_DEVICES=<free GPU "
                "index>; "
                "to share a GPU: export TF_FORCE_GPU_ALLOW_GROWTH=true",
            )
        )
    if fx.platform(facts) in (None, "linux"):
        off = [
            (g, "persistence mode Disabled")
            for g in live
            if g.get("persistence_mode") is False and _d(g, "ecc").get("mode_current") is not None
        ]
        if off:
            out.append(
                _finding(
                    "gpu.persistence-off",
                    Status.WARN,
                    off,
                    "persistence mode is off",
                    source=source,
                    docs=DOCS_PERSISTENCE,
                    detail="Without it the driver tears the GPU down whenever no process uses it: every "
                           "TensorFlow "
                    "start pays the initialisation again, and settings applied with nvidia-smi can reset.",
                    fix="sudo systemctl enable --now nvidia-persistenced  # or: sudo nvidia-smi -pm 1",
                )
            )
    prohibited = [(g, "compute mode Prohibited") for g in live if g.get("compute_mode") == "prohibited"]
    if prohibited:
        out.append(
            _finding(
                "gpu.compute-mode-prohibited",
                Status.FAIL,
                prohibited,
                "compute mode is Prohibited",
                source=source,
                docs=DOCS_NVSMI,
                detail="No process, TensorFlow included, can create a CUDA context on it.",
                fix=f"sudo nvidia-smi -i {_index_args(prohibited)} -c DEFAULT",
            )
        )
    exclusive = [
        (g, f"Exclusive Process mode, {_process_text(g)}")
        for g in live
        if g.get("compute_mode") in ("exclusive_process", "exclusive_thread")
        and any(isinstance(p, dict) and p.get("type") in ("C", "C+G", None) for p in g.get("processes") or [])
    ]
    if exclusive:
        out.append(
            _finding(
                "gpu.compute-mode-exclusive",
                Status.WARN,
                exclusive,
                "exclusive mode and already in use",
                source=source,
                docs=DOCS_NVSMI,
                detail="Only one process may hold a CUDA context: TensorFlow will fail with "
                       "CUDA_ERROR_DEVICE_BUSY "
                "('all CUDA-capable devices are busy or unavailable') while the other runs.",
                fix=f"Stop the other process, use another GPU (CUDA_VISIBLE_DEVICES), or: sudo nvidia-smi -i "
                f"{_index_args(exclusive)} -c DEFAULT",
            )
        )
    return out


@check(
    {
        "gpu.mig-enabled": "MIG is on: TensorFlow sees one MIG slice per process, not the whole GPU.",
    }
)
def mig(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    gpus, source = gpus_with_source(facts)
    out = []
    empty, sliced, pending = [], [], []
    for g in gpus:
        m = _d(g, "mig")
        devices = [d for d in m.get("devices") or [] if isinstance(d, dict)]
        if m.get("current"):
            if devices:
                sizes = ", ".join(f"{d.get('memory_total_mib')} MiB" for d in devices)
                sliced.append((g, f"MIG on, {len(devices)} instance(s): {sizes}"))
            else:
                empty.append((g, "MIG on and no GPU instance created"))
        if m.get("pending") is not None and m.get("current") is not None and m["pending"] != m["current"]:
            pending.append((g, f"MIG {'on' if m['pending'] else 'off'} pending until the GPU is reset"))
    if empty:
        out.append(
            _finding(
                "gpu.mig-enabled",
                Status.FAIL,
                empty,
                "MIG is on but has no instances",
                source=source,
                docs=DOCS_MIG,
                detail="With MIG on, CUDA can only use MIG instances; with none created the GPU is unusable.",
                fix=f"Create one: sudo nvidia-smi mig -i {_index_args(empty)} -cgi 1g.10gb -C  (profiles: "
                    "nvidia-smi "
                "mig -lgip), or turn MIG off: sudo nvidia-smi -i N -mig 0 && sudo nvidia-smi -i N -r",
            )
        )
    if sliced:
        out.append(
            _finding(
                "gpu.mig-enabled",
                Status.WARN,
                sliced,
                "MIG is on",
                source=source,
                docs=DOCS_MIG,
                detail="A CUDA process enumerates a single MIG instance: TensorFlow sees one slice (its "
                       "memory and "
                "SMs only), and MirroredStrategy cannot span MIG slices.",
                fix="Pick the slice for TensorFlow: export CUDA_VISIBLE_DEVICES=MIG-<uuid> (list them: "
                    "nvidia-smi -L); "
                "for the whole GPU turn MIG off: sudo nvidia-smi -i N -mig 0 && sudo nvidia-smi -i N -r",
            )
        )
    if pending and not (empty or sliced):
        out.append(
            _finding(
                "gpu.mig-enabled",
                Status.WARN,
                pending,
                "a MIG mode change is pending",
                source=source,
                docs=DOCS_MIG,
                fix=f"Stop the GPU's processes, then reset it: sudo nvidia-smi -i {_index_args(pending)} -r",
            )
        )
    return out


def _summary(g: dict[str, Any]) -> str:
    parts = []
    ecc = _d(g, "ecc")
    if ecc.get("mode_current"):
        parts.append("ECC on, no uncorrected errors")
    p = _d(g, "pcie")
    if p.get("width"):
        parts.append(
            f"PCIe Gen{p.get('gen')} x{p.get('width')} (max Gen{p.get('max_gen')} x{p.get('max_width')}"
            + (", idle downtrain is normal)" if p.get("gen") != p.get("max_gen") else ")")
        )
    if g.get("temperature_c") is not None:
        parts.append(f"{g['temperature_c']:.0f} °C")
    if g.get("power_w") is not None and g.get("power_limit_w"):
        parts.append(f"{g['power_w']:.0f}/{g['power_limit_w']:.0f} W")
    if g.get("memory_free_mib") is not None:
        parts.append(f"{g['memory_free_mib']} MiB free")
    return " · ".join(parts) or "no health fields reported"


@check(
    {"gpu.health": "GPU health read from NVML or nvidia-smi (ECC, PCIe link, clocks, temperature, memory)."}
)
def health_summary(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    gpus, source = gpus_with_source(facts)
    if not gpus:
        return [
            fx.skip(
                "gpu.health",
                "GPU health not read",
                "Neither NVML nor nvidia-smi -q -x answered with GPU details.",
                ("nvml.gpus",),
            )
        ]
    live = [g for g in gpus if not g.get("error")]
    if not live:
        return []
    lines = "\n".join(f"{_label(g)}: {_summary(g)}" for g in live)
    return [
        Finding(
            "gpu.health",
            Status.PASS,
            f"{len(live)} GPU(s) answered the health queries",
            detail=f"{lines}\n(read from {source}; problems, if any, are listed separately)",
            facts=("nvml.gpus", "nvidia_smi.gpus"),
        )
    ]


# --- TensorFlow GPU:n <-> physical GPU ----------------------------------------------------------------


def normalize_pci(bus_id: Any) -> str | None:
    """'00000000:3B:00.0' (NVML), '0000:3b:00.0' (TensorFlow), '3b:00.0' -> '0000:3b:00.0'."""
    if not isinstance(bus_id, str):
        return None
    m = re.match(r"^\s*(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])\s*$", bus_id)
    if not m:
        return None
    domain, bus, dev, fn = m.groups()
    return f"{int(domain or '0', 16):04x}:{int(bus, 16):02x}:{int(dev, 16):02x}.{fn}"


def _tf_name(device: Any, i: int) -> str:
    m = re.search(r"GPU:(\d+)", str(device or ""))
    return f"GPU:{m.group(1)}" if m else f"GPU:{i}"


def map_devices(
    gpus: list[dict[str, Any]], tf_gpus: list[dict[str, Any]] | None, env: dict[str, str]
) -> dict[str, Any]:
    """Which physical GPU (NVML index) each TensorFlow GPU:n is.

    With the worker's devices, match by PCI bus id ("how": "pci"). Without them, predict from
    CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER ("predicted"): CUDA numbers GPUs fastest first unless
    CUDA_DEVICE_ORDER=PCI_BUS_ID, while NVML and nvidia-smi number them by PCI bus id, so with mixed
    models and no PCI_BUS_ID order the prediction is "ambiguous".
    """
    by_pci = {normalize_pci(g.get("pci_bus_id")): g for g in gpus if normalize_pci(g.get("pci_bus_id"))}
    if tf_gpus:
        rows = []
        for i, t in enumerate(tf_gpus):
            g = by_pci.get(normalize_pci(t.get("pci_bus_id")))
            rows.append(
                {
                    "tf_device": _tf_name(t.get("tf_device"), i),
                    "nvml_index": g.get("index") if g else None,
                    "name": (g or {}).get("name") or t.get("name"),
                    "pci_bus_id": normalize_pci(t.get("pci_bus_id")),
                }
            )
        return {"how": "pci", "rows": rows}
    pci_order = sorted(gpus, key=lambda g: normalize_pci(g.get("pci_bus_id")) or "")
    same_model = len({g.get("name") for g in gpus}) <= 1
    known_order = env.get("CUDA_DEVICE_ORDER") == "PCI_BUS_ID" or same_model
    cvd = env.get("CUDA_VISIBLE_DEVICES")
    tokens = None if cvd is None else [t.strip() for t in cvd.split(",") if t.strip()]
    if tokens is None:
        chosen = pci_order
    else:
        chosen = []
        for tok in tokens:
            if tok.isdigit() and int(tok) < len(pci_order):
                if not known_order:
                    return {"how": "ambiguous", "rows": []}
                chosen.append(pci_order[int(tok)])
            elif tok.startswith("GPU-") and len(tok) > 4:
                match = [g for g in gpus if str(g.get("uuid") or "").startswith(tok)]
                if len(match) != 1:
                    break
                chosen.append(match[0])
            else:
                break  # CUDA ignores this entry and everything after it
    if tokens is None and not known_order:
        return {"how": "ambiguous", "rows": []}
    rows = [
        {
            "tf_device": f"GPU:{i}",
            "nvml_index": g.get("index"),
            "name": g.get("name"),
            "pci_bus_id": normalize_pci(g.get("pci_bus_id")),
        }
        for i, g in enumerate(chosen)
    ]
    return {"how": "predicted", "rows": rows}


@check(
    {
        "gpu.mapping": "Which physical GPU (nvidia-smi/NVML index, PCI bus id) each TensorFlow GPU:n is.",
        "gpu.device-order": "Mixed GPU models without CUDA_DEVICE_ORDER=PCI_BUS_ID: CUDA's GPU numbers "
                            "differ "
        "from nvidia-smi's.",
    }
)
def device_mapping(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("nvml.gpus", "runtime.gpus", "system.env.CUDA_VISIBLE_DEVICES", "system.env.CUDA_DEVICE_ORDER")
    gpus, source = gpus_with_source(facts)
    gpus = [g for g in gpus if not g.get("error")]
    if not gpus:
        return []
    env = fx.env(facts)
    tf_gpus = [t for t in fx.as_list(fx.get(facts, "runtime", "gpus")) if isinstance(t, dict)]
    out = []
    mixed = len({g.get("name") for g in gpus}) > 1
    if mixed and env.get("CUDA_DEVICE_ORDER") != "PCI_BUS_ID":
        out.append(
            Finding(
                "gpu.device-order",
                Status.WARN,
                "CUDA numbers these mixed GPUs differently from nvidia-smi",
                detail="CUDA (and TensorFlow's GPU:n, and CUDA_VISIBLE_DEVICES indices) count the fastest "
                       "GPU first; "
                "nvidia-smi and NVML count by PCI bus id. "
                + ", ".join(f"NVML {g.get('index')} = {g.get('name')}" for g in gpus),
                fix="export CUDA_DEVICE_ORDER=PCI_BUS_ID  # then GPU numbers agree with nvidia-smi "
                    "everywhere",
                docs=fx.DOCS_CUDA_ENV,
                facts=used,
            )
        )
    mapping = map_devices(gpus, tf_gpus or None, env)
    rows = mapping["rows"]
    if mapping["how"] == "ambiguous" or not rows:
        return out
    lines = [
        f"{r['tf_device']} = NVML {r['nvml_index'] if r['nvml_index'] is not None else '?'} "
        f"({r['name'] or 'unknown'}, {r['pci_bus_id'] or 'no PCI id'})"
        for r in rows
    ]
    how = (
        "matched by PCI bus id from TensorFlow's device details"
        if mapping["how"] == "pci"
        else "predicted from CUDA_VISIBLE_DEVICES/CUDA_DEVICE_ORDER; a full run (without --quick) "
        "confirms it from TensorFlow's own device list"
    )
    title = lines[0] if len(lines) == 1 else f"{len(lines)} TensorFlow GPUs mapped to physical GPUs"
    return out + [
        Finding(
            "gpu.mapping",
            Status.PASS,
            title,
            detail="\n".join(lines) + f"\n({how}; {source})",
            facts=used,
            confidence="certain" if mapping["how"] == "pci" else "likely",
        )
    ]
