"""Per-GPU health from NVML (or nvidia-smi -q -x when NVML is unusable): memory errors, the bus,
clocks and temperature, sharing and compute modes, MIG."""

from __future__ import annotations

from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor import stackerrors
from tfdoctor.checks import check, skipped
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status

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
# A CUDA context (with cuDNN's and cuBLAS's kernels loaded) is the process's own memory too, though neither
# TensorFlow's free figure nor PyTorch's allocated one counts it: some 300 MiB that no other process holds
CONTEXT_MIB = 300
SCARCE_FRACTION = 0.1  # this little free at start is held by others, whether or not the log shows a failure
_INTEGRATED = ("tegra", "jetson", "xavier", "orin")  # GPUs that share the system's memory


def _d(g: dict[str, Any], key: str) -> dict[str, Any]:
    return fc.as_dict(g.get(key))


def _finding(
    fid: str,
    status: Status,
    hits: list[tuple[dict[str, Any], str]],
    what: str,
    plan: P.Plan,
    docs: str | None,
    source: str | None,
    detail: str = "",
) -> Finding:
    """One finding per id, naming every GPU it concerns."""
    lines = [f"{fc.gpu_label(g)}: {text}" for g, text in hits]
    title = f"{fc.gpu_label(hits[0][0])}: {what}" if len(hits) == 1 else f"{len(hits)} GPUs: {what}"
    body = "\n".join(lines) + (f"\n{detail}" if detail else "") + f"\n(read from {source})"
    return Finding(
        fid, status, title, detail=body, docs=docs, facts=("nvml.gpus", "nvidia_smi.gpus"), plan=plan
    )


def _index_args(hits: list[tuple[dict[str, Any], str]]) -> str:
    return ",".join(str(g.get("index")) for g, _ in hits)


# --- per-GPU health ---------------------------------------------------------------------------------


@check(
    "gpu.lost", "gpu.ecc-errors", "gpu.row-remap-pending", "gpu.row-remap-failed", "gpu.retired-pages-pending"
)
def memory_and_bus_errors(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    gpus, source = fc.gpus(facts)
    lost = [(g, str(g.get("error"))) for g in gpus if g.get("error_kind") == "gpu-lost"]
    live = [g for g in gpus if not g.get("error")]
    out = []
    logged = (fc.log_items(facts, "gpu-lost")
              + [i for i in fc.log_items(facts, "xid") if i.get("code") in _XID_LOST])
    if logged and not lost:
        out.append(
            Finding(
                "gpu.lost",
                Status.FAIL,
                "A GPU stopped answering and needs a reset (fallen off the bus, Xid 79, or a reset required)",
                detail="The driver lost contact with the GPU, or its firmware halted: overheating, power, a"
                " PCIe/riser fault or a driver bug. Every CUDA call on it fails until it is reset.",
                plan=rm.plan(facts, P.system("sudo nvidia-smi -r", "or reboot; if it recurs check seating,"
                             " power cables and cooling, and collect `sudo nvidia-bug-report.sh` for your"
                             " vendor")),
                facts=("log.evidence",),
                evidence=fc.quote(facts, logged),
            )
        )
    if lost:
        out.append(
            _finding(
                "gpu.lost",
                Status.FAIL,
                lost,
                "the GPU no longer answers",
                source=source,
                plan=rm.plan(facts, P.system("sudo dmesg | grep -i xid", "Xid 79 = fallen off the bus"),
                             P.system(f"sudo nvidia-smi -r -i {_index_args(lost)}", "or reboot; if it recurs"
                                      " check seating, power cables and cooling")),
                docs=cat.NV_XID,
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

    def fix_ecc(i: str) -> P.Plan:
        return rm.plan(facts, P.system(f"sudo nvidia-smi -r -i {i}", "stop the jobs on it first, or reboot;"
                                       " if errors come back, collect"
                                       f" `nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER -i {i}` for your"
                                       " vendor"))

    ecc_logged = (fc.cuda_errors(facts, *stackerrors.errors_for("gpu.ecc-errors"))
                  + [i for i in fc.log_items(facts, "xid") if i.get("code") in _XID_ECC])
    if ecc_logged and not now:  # CUDA or the driver said so, where no NVML counters are shown
        xids = sorted({str(i["code"]) for i in ecc_logged if i.get("kind") == "xid"})
        out.append(Finding(
            "gpu.ecc-errors",
            Status.FAIL,
            f"The driver logged the GPU's memory errors (Xid {', '.join(xids)})" if xids else
            "CUDA hit an uncorrectable ECC memory error on the GPU",
            detail="The GPU's memory returned data its ECC could not correct: the CUDA context is lost, and"
            " results computed since may be corrupt. It recurs on failing memory.",
            plan=fix_ecc("N"),
            docs=cat.NV_MEM_ERRORS,
            facts=("log.evidence",),
            evidence=fc.quote(facts, ecc_logged),
        ))
    if now:
        out.append(
            _finding(
                "gpu.ecc-errors",
                Status.FAIL,
                now,
                "uncorrected ECC memory errors",
                source=source,
                detail="Results computed on this GPU since then may be corrupt.",
                plan=fix_ecc(_index_args(now)),
                docs=cat.NV_MEM_ERRORS,
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
                plan=fix_ecc(_index_args(past)),
                docs=cat.NV_MEM_ERRORS,
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
                docs=cat.NV_MEM_ERRORS,
                detail="The GPU has no spare rows left for a failing memory row.",
                plan=rm.plan(facts, P.note("Take the GPU out of service and open a hardware case with your"
                             " vendor, attaching"
                             f" `nvidia-smi -q -d ROW_REMAPPER -i {_index_args(failed)}` and"
                             " `nvidia-bug-report.sh`")),
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
                docs=cat.NV_MEM_ERRORS,
                detail="The faulty row is replaced only after a GPU reset.",
                plan=rm.plan(facts, P.system(f"sudo nvidia-smi -r -i {_index_args(pending)}",
                                             "stop the jobs on it first, or reboot")),
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
                docs=cat.NV_PAGE_RETIREMENT,
                plan=rm.plan(facts, P.system(f"sudo nvidia-smi -r -i {_index_args(retire)}",
                                             "stop the jobs on it first, or reboot")),
            )
        )
    return out


@check("gpu.pcie-link-degraded", "gpu.throttled", "gpu.temperature-high")
def link_and_clocks(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    gpus, source = fc.gpus(facts)
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
                docs=cat.NV_SMI,
                detail="A narrower link divides host<->GPU bandwidth (input pipelines, multi-GPU all-reduce "
                "without "
                "NVLink). An idle GPU lowers its link generation to save power, which is normal; the width "
                "should not drop. Some cloud instances wire x8 slots by design: then nothing is wrong.",
                plan=rm.plan(facts, P.system(f"nvidia-smi -q -d PCI -i {_index_args(narrow)}",
                                             "confirm under load (or `sudo lspci -vv | grep -A1 LnkCap`)"),
                             P.note("; then check seating, slot and riser (a x16 card in a x4/x8 slot or a"
                                    " damaged riser), and the BIOS PCIe settings")),
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
                docs=cat.NV_SMI,
                detail="Idle GPUs downtrain their link to save power; a busy one normally runs at its "
                "maximum "
                "generation. Judge it under a real load before acting.",
                plan=rm.plan(facts, P.system(f"nvidia-smi -q -d PCI -i {_index_args(slow)}",
                                             "re-check under load; if it stays low, check the BIOS PCIe"
                                             " generation setting and the riser/slot")),
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
        thermal = any("thermal" in t or "slowdown" in t and "power brake" not in t for _, t in throttled)
        fix = rm.plan(facts, P.system(
            f"nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -i {_index_args(throttled)}", "then: " + (
                "improve cooling (airflow, fans, blocked intakes, data-centre inlet temperature)"
                if thermal
                # (the power brake: a signal from outside the GPU, its board or chassis asking it to slow)
                else "the server (its power supplies, or a chassis power policy that does not know this GPU)"
                " asserts the power brake: check its power configuration and firmware"
                if any("power brake" in t for _, t in throttled)
                else "a power cap under load is normal at full load; if the GPU is idle or the limit is "
                "below its default, raise it: `sudo nvidia-smi -i N -pl <default W>`")))
        out.append(
            _finding(
                "gpu.throttled",
                Status.WARN,
                throttled,
                "clocks are being held down",
                source=source,
                plan=fix,
                docs=cat.NV_CLOCK_REASONS,
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
    logged = fc.log_items(facts, "thermal")
    if logged and not hot and not throttled:  # DCGM (or nvidia-smi -q) saw the clocks slowed for heat
        gpu = next((i.get("gpu") or i.get("gpu_total") for i in logged
                    if i.get("gpu") or i.get("gpu_total")), "N")
        out.append(Finding(
            "gpu.temperature-high",
            Status.WARN,
            f"GPU {gpu} slowed its clocks for heat (a thermal violation)" if gpu != "N" else
            "A GPU slowed its clocks for heat (thermal slowdown active)",
            detail="The GPU reached its slowdown temperature at some point and held its clocks down; the"
            " temperature read later may look normal. TensorFlow then runs slower than the GPU can.",
            plan=rm.plan(facts, P.system(f"nvidia-smi -q -d PERFORMANCE,TEMPERATURE -i {gpu} -l 5",
                                         "watch it under load; check the fans, airflow and inlet"
                                         " temperature")),
            docs=cat.NV_CLOCK_REASONS,
            facts=("log.evidence",),
            evidence=fc.quote(facts, logged),
        ))
    if hot:
        out.append(
            _finding(
                "gpu.temperature-high",
                Status.WARN,
                hot,
                "at or near its slowdown temperature",
                source=source,
                docs=cat.NV_CLOCK_REASONS,
                plan=rm.plan(facts, P.system(f"nvidia-smi -q -d TEMPERATURE -i {_index_args(hot)} -l 5",
                                             "watch it; improve cooling (airflow, fan curves, inlet"
                                             " temperature)")),
            )
        )
    return out


def _caller(facts: dict[str, Any]) -> tuple[set[int], str]:
    """The pids of whoever asked for this check (itself and its parent) and what it is, in words."""
    who = fc.as_dict(fc.get(facts, "options", "caller"))
    pids = {p for p in fc.as_list(fc.get(facts, "options", "caller_pids")) if isinstance(p, int) and p > 0}
    name = {"notebook": "this notebook's kernel", "python": "the Python process that called tfdoctor"}.get(
        str(who.get("interface")), "the process that ran tfdoctor")
    if who.get("tensorflow_imported"):
        name += ", which already imported TensorFlow"
    return pids, name


def _process_text(g: dict[str, Any], caller: tuple[set[int], str]) -> str:
    procs = [p for p in g.get("processes") or [] if isinstance(p, dict)]
    if not procs:
        return "no process is visible (another container or user holds it)"
    pids, who = caller
    parts = []
    for p in procs:
        mine = f": {who}" if p.get("pid") in pids else ""
        used = f", {p['used_mib']} MiB" if p.get("used_mib") is not None else ""
        parts.append(f"{p.get('name') or '?'} (pid {p.get('pid')}{used}{mine})")
    return "held by " + ", ".join(parts)


@check(
    "gpu.memory-held-by-other-processes",
    "gpu.persistence-off",
    "gpu.compute-mode-prohibited",
    "gpu.compute-mode-exclusive",
)
def sharing_and_modes(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    gpus, source = fc.gpus(facts)
    live = [g for g in gpus if not g.get("error")]
    out = []
    held = []
    starved = False
    caller = _caller(facts)
    by_caller = False
    for g in live:
        total, used, free = g.get("memory_total_mib"), g.get("memory_used_mib"), g.get("memory_free_mib")
        if not total or used is None or g.get("memory_may_be_own"):
            continue
        free = free if free is not None else total - used
        if used / total >= HELD_FRACTION or free < MIN_FREE_MIB:
            starved = starved or free < MIN_FREE_MIB
            by_caller = by_caller or any(isinstance(p, dict) and p.get("pid") in caller[0]
                                         for p in g.get("processes") or [])
            held.append(
                (g, f"{used} of {total} MiB in use, {free} MiB left for TensorFlow;"
                    f" {_process_text(g, caller)}")
            )
    out += _held_at_start(facts)
    if held:
        if by_caller:
            what = f"{caller[1].split(',')[0]} holds most of its memory"
            fix = rm.plan(facts, P.note(
                "Restart the kernel and run the check first (`tfdoctor.check()` in a fresh kernel, or"
                " `tfdoctor check` in a terminal); in your own code, before TensorFlow first touches the"
                " GPU: `for g in tf.config.list_physical_devices('GPU'):"
                " tf.config.experimental.set_memory_growth(g, True)`"))
        else:
            what = "other processes hold most of its memory"
            fix = rm.plan(facts, P.system(_APPS, "stop what you do not need (kill PID), or give TensorFlow"
                                          " a free GPU: `export CUDA_VISIBLE_DEVICES=<free GPU index>`; to"
                                          " share a GPU: `export TF_FORCE_GPU_ALLOW_GROWTH=true`"))
        out.append(
            _finding(
                "gpu.memory-held-by-other-processes",
                Status.FAIL if starved else Status.WARN,
                held,
                what,
                source=source,
                docs=cat.NV_SMI,
                detail="TensorFlow allocates from what is left and fails with out-of-memory (OOM) errors when"
                " it is not enough (by default TensorFlow takes nearly all of a GPU's memory at its first"
                " use). tfdoctor's own worker enables memory growth and holds little.",
                plan=fix,
            )
        )
    if fc.platform(facts) in (None, "linux"):
        off = [
            (g, "persistence mode Disabled")
            for g in live
            if g.get("persistence_mode") is False and _d(g, "ecc").get("mode_current") is not None
        ]
        logged = fc.log_items(facts, "persistence-off")
        persistence = {
            "docs": cat.NV_PERSISTENCE,
            "detail": "Without it the driver tears the GPU down whenever no process uses it: every TensorFlow"
            " start pays the initialisation again, and settings applied with nvidia-smi can reset.",
            "plan": rm.plan(facts, P.system("sudo systemctl enable --now nvidia-persistenced",
                                            "or: `sudo nvidia-smi -pm 1`")),
        }
        if off:
            out.append(_finding("gpu.persistence-off", Status.WARN, off, "persistence mode is off",
                                source=source, **persistence))
        elif logged:  # DCGM's diagnostic said so
            said = ", ".join(sorted({str(i.get("gpu")) for i in logged}))
            out.append(Finding("gpu.persistence-off", Status.WARN,
                               f"persistence mode is off on GPU {said} (DCGM's diagnostic)",
                               facts=("log.evidence",), evidence=fc.quote(facts, logged), **persistence))
    prohibited = [(g, "compute mode Prohibited") for g in live if g.get("compute_mode") == "prohibited"]
    if prohibited:
        out.append(
            _finding(
                "gpu.compute-mode-prohibited",
                Status.FAIL,
                prohibited,
                "compute mode is Prohibited",
                source=source,
                docs=cat.NV_SMI,
                detail="No process, TensorFlow included, can create a CUDA context on it.",
                plan=rm.plan(facts, P.system(f"sudo nvidia-smi -i {_index_args(prohibited)} -c DEFAULT")),
            )
        )
    # CUDA said the GPUs were busy: an exclusive GPU's holder may be a process nvidia-smi does not show
    busy = fc.cuda_errors(facts, "DEVICE_UNAVAILABLE", "DEVICE_BUSY")
    exclusive = [
        (g, f"Exclusive {'Thread' if g['compute_mode'] == 'exclusive_thread' else 'Process'} mode, "
            + (_process_text(g, _caller(facts)) if g.get("processes") else "busy (CUDA said so)" if busy
               else "which allows one thread of one process, and TensorFlow drives a GPU from several"))
        for g in live
        if g.get("compute_mode") == "exclusive_thread"  # one thread per context: TensorFlow uses several
        or g.get("compute_mode") == "exclusive_process"
        and (busy or any(isinstance(p, dict) and p.get("type") in ("C", "C+G", None)
                         for p in g.get("processes") or []))
    ]
    in_use = fc.cuda_errors(facts, *stackerrors.errors_for("gpu.compute-mode-exclusive"))
    stated = fc.get(facts, "runtime", "compute_mode_stated")
    if stated and not exclusive and not in_use and not any(g.get("compute_mode") for g in live):
        # a person's words, where no listing shows the modes: CUDA's refusals of a second context follow
        refused = fc.cuda_errors(facts, "DEVICE_UNAVAILABLE", "DEVICE_BUSY", "INVALID_DEVICE", "UNKNOWN")
        out.append(Finding(
            "gpu.compute-mode-exclusive",
            Status.FAIL if refused else Status.WARN,
            "The GPUs are in an exclusive compute mode, as written here",
            detail="Only one process (Exclusive Process) or thread (Exclusive Thread) may hold a CUDA context"
            " on such a GPU: TensorFlow fails on a GPU another process uses, and on its own second context.",
            plan=rm.plan(facts, P.system("nvidia-smi --query-gpu=index,compute_mode --format=csv",
                                         "then `sudo nvidia-smi -c DEFAULT`, or give TensorFlow a GPU no"
                                         " other process uses (CUDA_VISIBLE_DEVICES)")),
            docs=cat.NV_SMI,
            facts=("runtime.compute_mode_stated", "log.evidence"),
            evidence=fc.quote(facts, [{"line": fc.as_dict(fc.get(facts, "log", "provenance")).get(
                "runtime.compute_mode_stated"), "text": stated}] + refused),
        ))
    scheduler = fc.get(facts, "system", "scheduler")
    if busy and scheduler and not (exclusive or in_use or stated or any(g.get("compute_mode") for g in live)):
        out.append(Finding(  # a batch node's GPUs: Exclusive Process, each held by one job's process
            "gpu.compute-mode-exclusive",
            Status.FAIL,
            f"CUDA found the GPUs busy on a {scheduler.upper() if scheduler != 'slurm' else 'Slurm'} node:"
            " another process holds a GPU in an exclusive compute mode",
            detail="Batch clusters run their GPUs in Exclusive Process mode, one process per GPU; a GPU the"
            " scheduler gave this job is still held by another process (one left from a killed job, or a job"
            " that overrode CUDA_VISIBLE_DEVICES), so CUDA refuses a context on it.",
            plan=rm.plan(facts, P.system("nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name"
                                         " --format=csv", "in the job: the process holding its GPU; report"
                                         " a stale one to the cluster's admins, or use the GPU the job was"
                                         " given (leave CUDA_VISIBLE_DEVICES as the scheduler set it)")),
            docs=cat.NV_SMI,
            facts=("system.scheduler", "log.evidence"),
            evidence=fc.quote(facts, busy),
            confidence="likely",
        ))
    if in_use and not exclusive:  # CUDA's own word, where no compute mode is shown
        out.append(Finding(
            "gpu.compute-mode-exclusive",
            Status.FAIL,
            "CUDA refused a context already in use: the GPU is in an exclusive compute mode",
            detail="Only a GPU in Exclusive Thread or Exclusive Process mode refuses a second context;"
            " TensorFlow drives a GPU from several threads.",
            plan=rm.plan(facts, P.system("sudo nvidia-smi -c DEFAULT", "or ask the cluster's admins for a"
                                         " shared-mode GPU")),
            docs=cat.NV_SMI,
            facts=("log.evidence",),
            evidence=fc.quote(facts, in_use),
        ))
    if exclusive:
        out.append(
            _finding(
                "gpu.compute-mode-exclusive",
                Status.FAIL if busy else Status.WARN,
                exclusive,
                "exclusive mode and already in use",
                source=source,
                docs=cat.NV_SMI,
                detail="Only one process may hold a CUDA context: TensorFlow will fail with "
                "CUDA_ERROR_DEVICE_BUSY "
                "('all CUDA-capable devices are busy or unavailable') while the other runs.",
                plan=rm.plan(facts, P.system(f"sudo nvidia-smi -i {_index_args(exclusive)} -c DEFAULT",
                                             "or stop the other process, or use another GPU"
                                             " (CUDA_VISIBLE_DEVICES)")),
            )
        )
    return out


_MIG_OFF = "turn MIG off: `sudo nvidia-smi -i N -mig 0 && sudo nvidia-smi -i N -r`"
_ONE_SLICE = ("A CUDA process enumerates a single MIG instance: TensorFlow sees one slice (its memory and SMs"
              " only), and MirroredStrategy cannot span MIG slices.")


def _slice_plan(facts: dict[str, Any]) -> P.Plan:
    return rm.plan(facts, P.system("nvidia-smi -L", "list the slices"),
                   P.env("CUDA_VISIBLE_DEVICES", "MIG-<uuid>",
                         f"one slice per process; for the whole GPU {_MIG_OFF}"))


@check("gpu.mig-enabled")
def mig(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    gpus, source = fc.gpus(facts)
    out = []
    empty, sliced, pending = [], [], []
    for g in gpus:
        m = _d(g, "mig")
        devices = [d for d in m.get("devices") or [] if isinstance(d, dict)]
        if m.get("current"):
            if devices or m.get("devices", []) is None:  # None: a listing that does not show instances
                sizes = ", ".join(f"{d.get('profile') or str(d.get('memory_total_mib')) + ' MiB'}"
                                  for d in devices)
                sliced.append((g, f"MIG on, {len(devices)} instance(s): {sizes}" if devices else "MIG on"))
            else:
                empty.append((g, "MIG on and no GPU instance created"))
        if m.get("pending") is not None and m.get("current") is not None and m["pending"] != m["current"]:
            pending.append((g, f"MIG {'on' if m['pending'] else 'off'} pending until the GPU is reset"))
    said = fc.log_items(facts, "mig-empty")
    if said and not empty:  # a tool's own word for it, where no GPU listing shows the MIG state
        out.append(Finding(
            "gpu.mig-enabled", Status.FAIL, "MIG is on but has no instances, as a tool here reports",
            detail="With MIG on, CUDA can only use MIG instances; with none created the GPU is unusable.",
            plan=rm.plan(facts, P.system("sudo nvidia-smi mig -cgi 1g.10gb -C", "create an instance"
                                         f" (profiles: `nvidia-smi mig -lgip`), or {_MIG_OFF}")),
            docs=cat.NV_MIG, facts=("log.evidence",), evidence=fc.quote(facts, said)))
    if empty:
        out.append(
            _finding(
                "gpu.mig-enabled",
                Status.FAIL,
                empty,
                "MIG is on but has no instances",
                source=source,
                docs=cat.NV_MIG,
                detail="With MIG on, CUDA can only use MIG instances; with none created the GPU is unusable.",
                plan=rm.plan(facts, P.system(f"sudo nvidia-smi mig -i {_index_args(empty)} -cgi 1g.10gb -C",
                                             "create an instance (profiles: `nvidia-smi mig -lgip`), or"
                                             f" {_MIG_OFF}")),
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
                docs=cat.NV_MIG,
                detail=_ONE_SLICE,
                plan=_slice_plan(facts),
            )
        )
    listed = [d.strip() for d in str(fc.env(facts).get("CUDA_VISIBLE_DEVICES") or "").split(",")]
    slices = [d for d in listed if d[:4].upper() == "MIG-"]
    if slices and not (empty or sliced):  # the driver's view, when read, says it already
        out.append(Finding(
            "gpu.mig-enabled",
            Status.WARN,
            f"CUDA_VISIBLE_DEVICES names {len(slices)} MIG instances; a CUDA process uses only the first"
            if len(slices) > 1 else "CUDA_VISIBLE_DEVICES names a MIG instance: TensorFlow sees that slice"
            " only",
            detail=_ONE_SLICE + " CUDA_VISIBLE_DEVICES listing more does not change that.",
            docs=cat.NV_MIG,
            facts=("system.env.CUDA_VISIBLE_DEVICES",),
            plan=_slice_plan(facts),
        ))
    stated = fc.get(facts, "runtime", "mig_stated")
    if stated and not (empty or sliced or slices):  # a person's words, where no listing shows the slices
        out.append(Finding(
            "gpu.mig-enabled",
            Status.WARN,
            "MIG is on, as written here: TensorFlow sees one MIG slice per process",
            detail=_ONE_SLICE,
            docs=cat.NV_MIG,
            facts=("runtime.mig_stated",),
            evidence=fc.quote(facts, [{"line": fc.as_dict(fc.get(facts, "log", "provenance")).get(
                "runtime.mig_stated"), "text": stated}]),
            plan=_slice_plan(facts),
        ))
    if pending and not (empty or sliced):
        out.append(
            _finding(
                "gpu.mig-enabled",
                Status.WARN,
                pending,
                "a MIG mode change is pending",
                source=source,
                docs=cat.NV_MIG,
                plan=rm.plan(facts, P.system(f"sudo nvidia-smi -i {_index_args(pending)} -r",
                                             "stop the GPU's processes first")),
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


@check("gpu.health")
def health_summary(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    gpus, source = fc.gpus(facts)
    if not gpus:
        return [
            skipped(
                "gpu.health",
                "GPU health not read",
                "Neither NVML nor nvidia-smi -q -x answered with GPU details.",
                ("nvml.gpus",),
            )
        ]
    live = [g for g in gpus if not g.get("error")]
    if not live:
        return []
    lines = "\n".join(f"{fc.gpu_label(g)}: {_summary(g)}" for g in live)
    return [
        Finding(
            "gpu.health",
            Status.PASS,
            f"{len(live)} GPU(s) answered the health queries",
            detail=f"{lines}\n(read from {source}; problems, if any, are listed separately)",
            facts=("nvml.gpus", "nvidia_smi.gpus"),
        )
    ]


def _held_at_start(facts: dict[str, Any]) -> list[Finding]:
    """TensorFlow's own device line said little memory was free before it allocated anything."""
    items = []
    last_total: dict[str, Any] = {}
    for item in fc.log_items(facts, "memory-free", "memory-total"):
        if item["kind"] == "memory-total":
            last_total = item
            continue
        if not item.get("total"):  # "Free memory: X" on the line after "Total memory: Y" (TensorFlow 1.x)
            item = {**item, "total": last_total.get("total"), "total_unit": last_total.get("total_unit")}
        try:
            free = _to_mib(item.get("free"), item.get("free_unit"))
            total = _to_mib(item.get("total"), item.get("total_unit"))
            free += _to_mib(item["own"]) if item.get("own") else 0  # this process's own: free before it
            if item.get("cached") and item.get("allocated"):  # (PyTorch < 1.5: cached beyond allocated)
                free += _to_mib(item["allocated"])
        except ValueError:
            continue
        if total and (free + CONTEXT_MIB) / total < HELD_FRACTION:
            items.append((item, free, total))
    items += _uneven_devices(facts)
    ctx = fc.log_items(facts, "ctx-oom")
    if not ctx and fc.log_items(facts, "ctx-fail"):  # no context, on a GPU a snapshot shows full
        gpus, _ = fc.gpus(facts)
        full = [g for g in gpus if g.get("memory_total_mib") and g.get("memory_used_mib") is not None
                and g["memory_total_mib"] - g["memory_used_mib"] < MIN_FREE_MIB]
        ctx = fc.log_items(facts, "ctx-fail") if full else []
    failed = fc.log_items(facts, "oom", "cudnn-failed", "cublas-failed") + ctx
    if failed and fc.ray_trials_see_a_gpu(facts) and fc.get(facts, "runtime", "ray_worker"):
        return [
            Finding(
                "gpu.memory-held-by-other-processes",
                Status.FAIL,
                "Ray runs its trials side by side on the GPU without reserving it: they share its memory",
                detail="The trials request no GPU, so Ray starts as many at once as the CPUs allow, and each"
                " one's TensorFlow takes the GPU it finds (Ray hid none from them): the first takes most of"
                " its memory, and the others fail to start cuDNN or cuBLAS, or run out of memory.",
                plan=rm.plan(facts, P.note(rm.RAY_REQUEST_GPUS + " (a fraction such as 0.5 shares a GPU"
                                           " between two trials, each then with memory growth on)")),
                docs=cat.RAY_GPUS,
                facts=("runtime.ray_gpus_requested", "runtime.gpus", "log.evidence"),
                evidence=fc.quote(facts, failed),
            )
        ]
    said = fc.log_items(facts, "held-said")
    if said and not items and not ctx:
        return [
            Finding(
                "gpu.memory-held-by-other-processes",
                Status.WARN,
                "GPU memory stays held by another (or a finished) process, as written here",
                detail="A process that still holds a CUDA context keeps its GPU memory: an idle notebook"
                " kernel, an interrupted run whose worker processes survive, a zombie. TensorFlow gets only"
                " what is left.",
                plan=rm.plan(facts, *_HELD_FIX),
                facts=("log.evidence",),
                evidence=fc.quote(facts, said),
                confidence="likely",
            )
        ]
    if ctx and not items:  # no context fits: the GPU was full before TensorFlow asked for anything
        return [
            Finding(
                "gpu.memory-held-by-other-processes",
                Status.FAIL,
                "The GPU was full before TensorFlow started: not even a CUDA context fit",
                detail="Creating the CUDA context needs a few hundred MiB; it failed with out-of-memory, so"
                " other processes hold the GPU's memory.",
                plan=rm.plan(facts, *_HELD_FIX),
                facts=("log.evidence",),
                evidence=fc.quote(facts, ctx),
            )
        ]
    # an integrated GPU (Jetson's Tegra) shares the system's memory: the system, not another GPU process,
    # holds what is not free
    names = " ".join(str(g.get("name") or "") for g in fc.tf_gpus(facts)[0]).lower()
    if any(w in names for w in _INTEGRATED):
        items = []
    elif not failed:  # little free memory is a cause only where something then failed, or nearly none was
        # free at all
        items = [(i, free, total) for i, free, total in items if free / total < SCARCE_FRACTION]
    if not items:
        return []
    item, free, total = items[0]
    return [
        Finding(
            "gpu.memory-held-by-other-processes",
            Status.FAIL if free < MIN_FREE_MIB else Status.WARN,
            f"Only {free:.0f} of {total:.0f} MiB of GPU memory were free "
            + ("for this process" if item.get("own") else "when TensorFlow started"),
            detail="Another process (or an earlier session in the same notebook) held the rest, so the"
            " program runs out of memory or cannot start cuDNN/cuBLAS.",
            plan=rm.plan(facts, *_HELD_FIX),
            facts=("log.evidence",),
            evidence=fc.quote(facts, [i for i, _, _ in items]),
        )
    ]


def _uneven_devices(facts: dict[str, Any]) -> list[tuple[dict[str, Any], float, float]]:
    """GPUs of one model for which TensorFlow created its devices with far less memory than for another
    ("GPU:6 with 681 MB memory", "GPU:5 with 10489 MB memory"): it takes what is free, so other processes
    hold the rest of the smaller ones (the largest stands for the model's free memory)."""
    models: dict[str, list[dict[str, Any]]] = {}
    for g in fc.as_list(fc.get(facts, "runtime", "gpus")):
        if isinstance(g, dict) and g.get("name") and isinstance(g.get("memory_mib"), (int, float)):
            models.setdefault(str(g["name"]), []).append(g)
    out = []
    for name, group in models.items():
        top = max(g["memory_mib"] for g in group)
        for g in group:
            if top and (g["memory_mib"] + CONTEXT_MIB) / top < HELD_FRACTION:
                text = (f"TensorFlow's GPU:{g.get('index')} ({name}) has {g['memory_mib']:.0f} MB, another"
                        f" {name} {top:.0f} MB")
                out.append(({"text": text}, float(g["memory_mib"]), float(top)))
    return out


_APPS = "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"
_HELD_FIX = (
    P.system(_APPS, "stop what you do not need (kill PID) or restart the notebook kernel that holds it"),
    P.env("TF_FORCE_GPU_ALLOW_GROWTH", "true", "to share a GPU"),
)


_MIB_PER = {"K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0 ** 2, "B": 1 / 2 ** 20}


def _to_mib(value: Any, unit: Any = None) -> float:
    """MiB of "11.17" "GiB", or of one amount with its unit ("4.88 MiB", "0 bytes")."""
    text = str(value)[:24].strip()
    if unit is None:
        digits = text.rstrip("KMGTiBbytes ")
        text, unit = digits, text[len(digits):].strip()
    return float(text[:12]) * _MIB_PER.get(str(unit or "M")[:1].upper(), 1.0)


@check("gpu.out-of-memory")
def out_of_memory(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    """The GPU ran out of memory (TensorFlow's log or the worker's error says so)."""
    items = fc.log_items(facts, "oom")
    if all(i.get("said") for i in items) and fc.noise_seen(facts, "declared-benign"):
        items = []  # a person calling the allocator's notice, quoted beside it, running out of memory
    if not items:
        return []
    if _whole_gpu_retried(facts, items):
        return [Finding(
            "gpu.out-of-memory", Status.PASS,
            "TensorFlow's first try to reserve all of the GPU's memory failed, and it reserved less",
            detail="TensorFlow 1.x reserves nearly the whole GPU at start; the driver and the display hold a"
            " little of it, so that one request fails and the allocator retries with less. Nothing failed"
            " after it.", facts=("log.evidence",), evidence=fc.quote(facts, items))]
    return [
        Finding(
            "gpu.out-of-memory",
            Status.FAIL,
            "The GPU ran out of memory",
            detail="An allocation on the GPU failed: the model, batch or activations need more memory than"
            " was free.",
            plan=rm.plan(facts, P.env("TF_FORCE_GPU_ALLOW_GROWTH", "true", "let TensorFlow take memory as"
                                      " needed"),
                         P.note("; reduce the batch size (or the model or input size); use mixed precision"
                                " (`keras.mixed_precision.set_global_policy('mixed_float16')`); check for"
                                " other processes holding memory with `nvidia-smi`")),
            facts=("log.evidence",),
            evidence=fc.quote(facts, items),
        )
    ]


def _whole_gpu_retried(facts: dict[str, Any], items: list[dict[str, Any]]) -> bool:
    """The log's one failed allocation asked for the GPU's whole memory (as TensorFlow's device line gives
    it): the allocator's first reservation, which it retries smaller (each further failure is logged)."""
    totals = [_to_mib(i["total"], i.get("total_unit")) for i in fc.log_items(facts, "memory-total")
              if i.get("total")]
    asked = [int(i["bytes"]) for i in items if i.get("bytes")]
    return (len({i.get("line") for i in items}) == 1 and bool(asked) and bool(totals)
            and asked[0] / 2**20 >= 0.99 * max(totals))


_FAULTS = stackerrors.errors_for("gpu.illegal-address")
# The driver's Xid events, by NVIDIA's catalogue (https://docs.nvidia.com/deploy/xid-errors/index.html):
# a kernel's fault (13 graphics engine exception, 31 MMU fault, 43 a channel stopped, 69 graphics engine class
# error); the GPU's memory (48
# double-bit ECC, 63 a row remapped or page retired, 64 a remap failed, 94/95 contained/uncontained ECC)
_XID_FAULTS = ("13", "31", "43", "69")
# ... the GPU gone or its firmware halted until a reset (62 internal micro-controller halt, 79 fallen off the
# bus, 119 GSP RPC timeout, 120 GSP error)
_XID_LOST = ("62", "79", "119", "120")
_XID_ECC = ("48", "63", "64", "94", "95")


@check("gpu.illegal-address")
def kernel_faults(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    """A GPU kernel faulted: the CUDA context is lost and every later call fails."""
    items = (fc.cuda_errors(facts, *_FAULTS)
             + [i for i in fc.log_items(facts, "xid") if i.get("code") in _XID_FAULTS])
    if not items:
        return []
    return [
        Finding(
            "gpu.illegal-address",
            Status.FAIL,
            "A GPU kernel faulted (illegal memory access / launch failure)",
            detail="A kernel read or wrote memory it does not own, or the launch failed (Xid 13/31/43/69 in"
            " the kernel log). Causes: a bug in a custom op or kernel, a library mismatch"
            " (cuDNN/cuBLAS for another CUDA), very rarely failing hardware. The process must restart: its"
            " CUDA context is lost.",
            plan=rm.plan(facts, P.system("CUDA_LAUNCH_BLOCKING=1 python your_script.py", "shows the op that"
                                         " faults; then update TensorFlow's CUDA libraries together (`"
                                         + rm.pip_install(facts, rm.keep_tf_version(facts)) + "`); if it"
                                         " recurs on one GPU only: `sudo dmesg | grep -i xid` and run"
                                         " `dcgmi diag -r 3`")),
            facts=("log.evidence",),
            evidence=fc.quote(facts, items),
        )
    ]
