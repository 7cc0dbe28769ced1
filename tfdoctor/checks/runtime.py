"""Judge the TensorFlow worker's steps (facts["runtime"]): did TensorFlow compute and train?

What TensorFlow printed (its log, each failed step's error) is read into facts["log"] by the report
builder and judged by the checks that own each mechanism (driver, cuda, cudnn, gpu, ...); a runtime
finding they explain carries `caused_by`.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor.checks import check, skipped
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status

SLOW_FRACTION = 0.2  # a matmul this far below the datasheet peak is not a tuning matter
USED = ("runtime.steps", "runtime.log", "runtime.error")

IDS = {
    "runtime.skipped": "The TensorFlow worker was not run (--quick), so nothing was proven at run time.",
    "runtime.worker-not-started": "The target interpreter could not be started to run the TensorFlow worker.",
    "runtime.worker-crashed": "The TensorFlow worker died (a signal such as SIGSEGV, or an exit) before"
    " answering.",
    "runtime.worker-timeout": "The TensorFlow worker did not finish within --timeout; its process group was"
    " killed.",
    "runtime.worker-garbage": "The TensorFlow worker exited without its result line (junk or no output).",
    "runtime.import-failed": "`import tensorflow` raised in the target interpreter.",
    "runtime.cpu-verified": "TensorFlow computed a correct matmul and trained a small model on the CPU.",
    "runtime.gpu-verified": "TensorFlow computed a correct matmul and trained on this GPU, placement"
    " verified.",
    "runtime.no-gpu-visible": "TensorFlow lists no GPU; its own reason is quoted.",
    "runtime.matmul-mismatch": "A matmul result differs from the NumPy reference: silent data corruption.",
    "runtime.placement-mismatch": "TensorFlow's placement log shows the work ran on another device than"
    " asked.",
    "runtime.train-failed": "A short Keras training run failed: an error, a non-finite loss or no learning.",
    "runtime.step-failed": "A runtime step (devices, throughput, mixed precision, XLA) raised or was wrong.",
    "runtime.slow-throughput": "Matmul throughput is far below the GPU's datasheet peak (throttling, power"
    " cap).",
    "runtime.throughput-ok": "Matmul throughput measured on the GPU, within reach of its datasheet peak.",
    "runtime.multi-gpu-verified": "A MirroredStrategy all-reduce and training step ran across all GPUs.",
    "runtime.multi-gpu-failed": "The MirroredStrategy step across all GPUs failed.",
}


def _finding(
    fid: str, status: Status, title: str, detail: str = "", docs: str | None = None,
    plan: P.Plan | None = None,
) -> Finding:
    return Finding(fid, status, title, detail=detail, docs=docs, facts=USED, plan=plan)


def _worker_cmd(facts: dict[str, Any], rt: dict[str, Any]) -> str:
    python = rt.get("python") or fc.get(facts, "tensorflow", "python") or "python"
    worker = rt.get("worker") or "tfdoctor/worker/worker.py"
    return f"PYTHONFAULTHANDLER=1 {shlex.quote(str(python))} {shlex.quote(str(worker))}"


def _steps(rt: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in fc.as_list(rt.get("steps")) if isinstance(s, dict)]


def _first_line(text: Any, limit: int = 300) -> str:
    line = next((ln.strip() for ln in str(text or "").splitlines() if ln.strip()), "")
    return line if len(line) <= limit else line[:limit] + "…"


def _is_gpu(device: Any) -> bool:
    return "GPU" in str(device or "").upper()


def _interrupted_step(rt: dict[str, Any]) -> str:
    step = next((s for s in _steps(rt) if s.get("interrupted")), None)
    return f" during the {step['name']} step" if step else ""


def _worker_failure(facts: dict[str, Any], rt: dict[str, Any]) -> Finding | None:
    """The worker itself failed: could not start, crashed, hung, or answered garbage."""
    error = str(rt.get("error") or "")
    cmd = _worker_cmd(facts, rt)
    if not rt.get("ran"):
        return _finding(
            "runtime.worker-not-started",
            Status.FAIL,
            "The TensorFlow worker could not be started",
            detail=error,
            plan=rm.plan(facts, P.system(f"{shlex.quote(str(rt.get('python')))} -V",
                                         "check that the interpreter runs")),
        )
    if rt.get("timed_out"):
        where = _interrupted_step(rt)
        if "import" in where:  # nothing has touched a GPU yet: a slow disk, not a sick GPU
            why = ("The first import after an install compiles Python files and loads about 1 GB of"
                   " libraries: on a slow or network disk, or a busy machine, it can take minutes.")
            fix = rm.plan(facts, P.system(f"time {rm.python_cmd(facts)} -c 'import tensorflow'",
                                          "time it; then re-run with more time:"
                                          " `tfdoctor check --timeout 900`"))
        else:
            why = "A hang in the first GPU step often means a GPU in a bad state (Xid errors)."
            fix = rm.plan(facts, P.system("tfdoctor check --timeout 900", "re-run with more time"),
                          P.note("; if it hangs again, look for GPU errors with `nvidia-smi` and"
                                 f" `sudo dmesg | grep -i xid`, and run `{cmd}` to see where it stops"))
        return _finding(
            "runtime.worker-timeout",
            Status.FAIL,
            f"The TensorFlow worker hung{where} and was killed",
            detail=f"{error}. {why}",
            plan=fix,
            docs=cat.NV_SMI,
        )
    if rt.get("memory_exceeded_mib"):
        return _finding(
            "runtime.worker-crashed",
            Status.FAIL,
            f"The TensorFlow worker used too much memory{_interrupted_step(rt)} and was stopped",
            detail=f"{error}. A few GiB is what TensorFlow needs with the CUDA libraries loaded; far more"
            " means something in the environment runs away (a sitecustomize.py, a huge TF_* setting).",
            plan=rm.plan(facts, P.system(cmd, "watch its memory (`top -p PID`)")),
        )
    if rt.get("signal") or (not rt.get("result_line") and rt.get("returncode")):
        where = _interrupted_step(rt)
        hint: tuple[P.Action, ...] = ()
        if "import" in where:
            hint = (P.note(
                "; a crash while importing TensorFlow usually means a broken or mismatched install:"
                f" `{rm.pip_install(facts, '--force-reinstall', rm.keep_tf_version(facts))}`"),)
        return _finding(
            "runtime.worker-crashed",
            Status.FAIL,
            f"The TensorFlow worker crashed{where}",
            detail=f"{error}.",
            plan=rm.plan(facts, P.system(cmd, "see the crash and its Python stack"), *hint),
            docs=cat.TF_PIP,
        )
    if not rt.get("result_line"):
        junk = _first_line(rt.get("stdout_junk"), 200)
        said = f' It printed: "{junk}"' if junk else ""
        return _finding(
            "runtime.worker-garbage",
            Status.FAIL,
            "The TensorFlow worker gave no result",
            detail=f"{error}.{said}",
            plan=rm.plan(facts, P.system(cmd, f"check that {rt.get('python')} is a real Python interpreter"
                                         " and that nothing (a wrapper script, sitecustomize.py) replaces its"
                                         " output: look for a TFDOCTOR-RESULT line")),
        )
    return None


def _no_gpu_fix(facts: dict[str, Any], matrix: Any, reason: str) -> tuple[P.Plan, str]:
    low = reason.lower()
    plat = fc.platform(facts)
    if plat == "macos":
        return rm.plan(facts, P.note("TensorFlow has no GPU support on macOS: use a Linux or WSL2 machine"
                                     " with an NVIDIA GPU.")), cat.TF_PIP
    if plat == "windows":
        return rm.plan(facts, P.system("wsl --install", "TensorFlow >= 2.11 has no GPU support on native"
                                       " Windows: install it inside WSL2"),
                       P.note(f"; then `{rm.pip_install({}, rm.keep_tf_version(facts))}` there")), cat.TF_PIP
    if "no cuda support" in low or "built without cuda" in low:
        return rm.plan(facts, rm.uninstall("tensorflow-cpu", "tensorflow"),
                       rm.install(rm.keep_tf_version(facts)), *rm.conda_action(facts)), cat.TF_PIP
    if "dlopen" in low or "cannot open shared object" in low:
        return rm.cuda_plan(facts, matrix), cat.TF_PIP
    if "cuinit" in low or "driver" in low or "no cuda-capable" in low:
        step, docs = rm.driver_action(facts)
        return rm.plan(facts, step), docs
    probe = "import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))"
    return rm.plan(facts, P.system(f'{rm.python_cmd(facts)} -c "{probe}"', "fix the driver and CUDA"
                                   " findings in this report, then check")), cat.TF_GPU


def _no_gpu_visible(facts: dict[str, Any], matrix: Any, rt: dict[str, Any]) -> list[Finding]:
    """TensorFlow listed its GPUs, and there were none."""
    if rt.get("tf_visible_gpus") != 0:
        return []
    reason = str(rt.get("gpu_reason") or "no reason logged")
    plan, docs = _no_gpu_fix(facts, matrix, reason)
    return [_finding("runtime.no-gpu-visible", Status.FAIL, "TensorFlow sees no GPU",
                     detail=f"TensorFlow says: {reason}", plan=plan, docs=docs)]


def _fmt_losses(losses: Any) -> str:
    vals = [v for v in fc.as_list(losses) if isinstance(v, (int, float))]
    return f"loss {vals[0]:.3g} → {vals[-1]:.3g}" if vals else "no loss recorded"


def _health_fix(facts: dict[str, Any]) -> P.Plan:
    return rm.plan(facts, P.system("nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER"),
                   P.system("dcgmi diag -r 3"),
                   P.system("sudo dmesg | grep -i xid", "check the GPU's health; update the driver, then"
                            " reset (`sudo nvidia-smi -r -i N`) or replace the GPU if it fails again"))


def _failed_step(facts: dict[str, Any], step: dict[str, Any]) -> Finding:
    """The runtime finding for one failed step (a specific finding about the same error explains it)."""
    name, device, kind = step.get("name"), step.get("device"), step.get("failure")
    error = str(step.get("error") or "")
    on = f" on {device}" if device else ""
    if kind == "mismatch" and name == "matmul":
        return _finding(
            "runtime.matmul-mismatch",
            Status.FAIL,
            f"Wrong matmul result{on}: silent data corruption",
            detail=error,
            plan=_health_fix(facts),
            docs=cat.NV_DCGM,
        )
    if kind == "placement":
        return _finding(
            "runtime.placement-mismatch",
            Status.FAIL,
            f"TensorFlow did not run the {name} step{on}",
            detail=f"{error}. TensorFlow fell back to another device (soft placement).",
            plan=rm.plan(facts, rm.install("--force-reinstall", rm.keep_tf_version(facts),
                                           why="a CUDA build whose kernels cover this GPU"),
                         P.note("; then run with `tf.debugging.set_log_device_placement(True)` to see"
                                " which ops fall back")),
            docs=cat.TF_GPU,
        )
    if name == "train":
        cpu_hint = " The same training passed on the CPU." if _is_gpu(device) else ""
        if not _is_gpu(device):
            fix = rm.plan(facts, P.system(_worker_cmd(facts, {}), "see the full error"),
                          P.system(f"{rm.python_cmd(facts)} -m pip check", "on the CPU this is not a CUDA"
                                   " problem: pip check lists packages that do not fit together (TensorFlow,"
                                   " Keras, NumPy, protobuf)"))
        elif kind == "loss":
            fix = _health_fix(facts)
        else:
            fix = rm.plan(facts, rm.install("--force-reinstall", rm.keep_tf_version(facts),
                                            why="reinstall TensorFlow and its CUDA libraries together, same"
                                            " version"))
        return _finding(
            "runtime.train-failed",
            Status.FAIL,
            f"Training{on} failed: {_first_line(error, 160)}",
            detail=f"{error}.{cpu_hint}"
            + (f" It trained{k}." if (k := _keras(fc.as_dict(facts.get("runtime")))) else ""),
            plan=fix,
            docs=cat.TF_GPU,
        )
    if name == "multi_gpu":
        return _finding(
            "runtime.multi-gpu-failed",
            Status.FAIL,
            "MirroredStrategy across all GPUs failed",
            detail=error,
            plan=rm.plan(facts, P.env("NCCL_DEBUG", "INFO", "to see the collective's error"),
                         P.system("nvidia-smi topo -m", "GPU peer access"),
                         P.note("; in containers pass `--ipc=host` (or a larger `--shm-size`)")),
            docs=cat.TF_DIST,
        )
    docs = {"mixed_precision": cat.TF_MIXED, "xla": cat.TF_XLA}.get(str(name), cat.TF_GPU)
    return _finding(
        "runtime.step-failed",
        Status.FAIL,
        f"The {name} step{on} failed: {_first_line(error, 160)}",
        detail=error,
        plan=rm.plan(facts, rm.install("--force-reinstall", rm.keep_tf_version(facts),
                                       why="reinstall TensorFlow with matching CUDA libraries"),
                     P.note(f"; if it persists, run `{_worker_cmd(facts, {})}` and report the output")),
        docs=docs,
    )


def _peak(matrix: Any, name: str | None, dtype: str, tf32: bool) -> float | None:
    """The datasheet peak (TFLOP/s) for this GPU and dtype from compat data, if known."""
    if not name or matrix is None or not hasattr(matrix, "gpu"):
        return None
    model = matrix.gpu(name)
    if model is None:
        return None

    def value(key: str) -> float | None:
        got = model.get(key) if isinstance(model, dict) else getattr(model, key, None)
        return float(got) if isinstance(got, (int, float)) and got > 0 else None

    if dtype == "float32":
        return (value("tf32_tflops") if tf32 else None) or value("fp32_tflops")
    return value({"float16": "fp16_tflops", "bfloat16": "bf16_tflops"}.get(dtype, ""))


def _throughput(step: dict[str, Any], matrix: Any) -> Finding | None:
    tflops = fc.as_dict(step.get("tflops"))
    if not tflops or not _is_gpu(step.get("device")):
        return None
    name, device, tf32 = step.get("gpu_name"), step.get("device"), bool(step.get("tf32"))
    parts, slow = [], []
    for dtype, got in tflops.items():
        if not isinstance(got, (int, float)):
            continue
        peak = _peak(matrix, name, dtype, tf32)
        label = "float32 (TF32)" if dtype == "float32" and tf32 else dtype
        if peak:
            parts.append(f"{label} {got:.1f} of {peak:g} TFLOP/s ({got / peak:.0%})")
            if got < SLOW_FRACTION * peak:
                slow.append(label)
        else:
            parts.append(f"{label} {got:.1f} TFLOP/s")
    measured = "; ".join(parts)
    if slow:
        return _finding(
            "runtime.slow-throughput",
            Status.WARN,
            f"{name or device}: matmul throughput far below peak ({', '.join(slow)})",
            detail=f"{measured}, {step.get('n')}x{step.get('n')} matmul. Below {SLOW_FRACTION:.0%} of the"
            " datasheet peak points at clock throttling, a power cap, a busy GPU or a narrow PCIe link.",
            plan=rm.plan({}, P.system("nvidia-smi -q -d PERFORMANCE,POWER,CLOCK",
                                      "throttle reasons and power"),
                         P.system("nvidia-smi", "other processes"),
                         P.system("nvidia-smi -q | grep -A4 'Link Width'", "the PCIe link"),
                         P.note("; reset a lowered power limit: `sudo nvidia-smi -pl <default W>`")),
            docs=cat.NV_SMI,
        )
    known = "" if any(" of " in p for p in parts) else " (no datasheet peak for this GPU in the compat data)"
    return _finding(
        "runtime.throughput-ok", Status.PASS, f"{name or device}: matmul throughput{known}", detail=measured
    )


def _keras(rt: dict[str, Any]) -> str:
    """' with tf_keras 2.16.0 (what tf.keras is here)': the Keras the training step ran on."""
    keras = fc.as_dict(rt.get("keras"))
    module, version = keras.get("module"), keras.get("version")
    if not module:
        return ""
    return f" with {module} {version or ''}".rstrip() + f" (what {keras.get('api') or 'tf.keras'} is here)"


def _verified(steps: list[dict[str, Any]], device: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    mm = next((s for s in steps if s.get("name") == "matmul" and s.get("device") == device), None)
    tr = next((s for s in steps if s.get("name") == "train" and s.get("device") == device), None)
    if mm and tr and mm.get("status") == "pass" and tr.get("status") == "pass":
        return mm, tr
    return None


def _gpu_passes(rt: dict[str, Any], steps: list[dict[str, Any]]) -> list[Finding]:
    out = []
    for gpu in fc.as_list(rt.get("gpus")):
        dev = str(fc.as_dict(gpu).get("tf_device") or "")
        ok = _verified(steps, dev)
        if not ok:
            continue
        mm, tr = ok
        speed = f", {tr['speedup_vs_cpu']}x the CPU's speed" if tr.get("speedup_vs_cpu") else ""
        mem = f"; memory peak {tr['memory_peak_mib']} MiB" if tr.get("memory_peak_mib") is not None else ""
        out.append(
            _finding(
                "runtime.gpu-verified",
                Status.PASS,
                f"TensorFlow computes and trains on {dev} ({gpu.get('name') or 'GPU'})",
                detail=(
                    f"matmul max rel. error {mm.get('max_rel_error', 0):.2g} vs NumPy; "
                    f"{len(fc.as_list(tr.get('losses')))} training steps, {_fmt_losses(tr.get('losses'))},"
                    f" {tr.get('steps_per_second')} steps/s{speed}{mem}{_keras(rt)}; placement verified from"
                    " TensorFlow's log"
                ),
            )
        )
    return out


@check(*IDS)
def runtime(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    raw = facts.get("runtime") if isinstance(facts, dict) else None
    if not isinstance(raw, dict):
        return []
    if not {"ran", "probe_failed"} & raw.keys():  # no worker ran: TensorFlow's own device list, if shown
        expected = (fc.gpus(facts)[0] or fc.driver_version(facts)[0] or fc.is_cuda_build(facts)
                    or fc.tf_gpus(facts)[0]  # (a GPU the text names)
                    or fc.get(facts, "runtime", "gpu_asked")  # (the program placed work on a GPU)
                    or fc.log_items(facts, "nccl-unsupported"))  # (NCCL's ops run on GPUs alone)
        return _no_gpu_visible(facts, matrix, raw) if expected else []
    if raw.get("skipped"):
        return [skipped("runtime.skipped", "TensorFlow was not run", str(raw["skipped"]), USED)]
    rt = fc.section(facts, "runtime")
    if rt is None:
        return [
            _finding(
                "runtime.worker-crashed",
                Status.FAIL,
                "The TensorFlow worker gave no facts",
                detail=fc.probe_error(facts, "runtime"),
                plan=rm.plan(facts, P.system(_worker_cmd(facts, {}), "run it by hand to see what happens")),
            )
        ]
    findings: list[Finding] = []
    failure = _worker_failure(facts, rt)
    if failure:
        findings.append(failure)
    steps = _steps(rt)
    by_name = {s.get("name"): s for s in steps}
    imp = by_name.get("import")
    if imp and imp.get("status") == "fail":
        error = str(imp.get("error") or "")
        if re.search(r"No module named '?tensorflow'?$", _first_line(error)):
            findings.append(
                skipped(
                    "runtime.import-failed",
                    "TensorFlow is not installed in the target interpreter",
                    error,
                    USED,
                )
            )
        else:
            findings.append(
                _finding(
                    "runtime.import-failed",
                    Status.FAIL,
                    f"import tensorflow failed: {_first_line(error, 160)}",
                    detail=error,
                    plan=rm.plan(facts, rm.install("--force-reinstall", rm.keep_tf_version(facts)),
                                 *rm.conda_action(facts)),
                    docs=cat.TF_PIP,
                )
            )
    for step in steps:
        if step.get("status") != "fail" or step.get("name") == "import" or step.get("interrupted"):
            continue
        findings.append(_failed_step(facts, step))
    cpu = _verified(steps, "/device:CPU:0")
    if cpu:
        mm, tr = cpu
        findings.append(
            _finding(
                "runtime.cpu-verified",
                Status.PASS,
                f"TensorFlow computes and trains on the CPU: matmul max rel. error "
                f"{mm.get('max_rel_error', 0):.1g}, {_fmt_losses(tr.get('losses'))}",
                detail=(
                    f"matmul on /device:CPU:0 max rel. error {mm.get('max_rel_error', 0):.2g} vs NumPy; "
                    f"{len(fc.as_list(tr.get('losses')))} training steps, {_fmt_losses(tr.get('losses'))},"
                    f" {tr.get('steps_per_second')} steps/s{_keras(rt)}"
                ),
            )
        )
    findings += _gpu_passes(rt, steps)
    devices = by_name.get("devices")
    if devices and devices.get("status") == "pass":
        reason = rt.get("gpu_reason") or devices.get("gpu_reason")
        findings += _no_gpu_visible(facts, matrix, {**rt, "gpu_reason": reason})
    for step in steps:
        if step.get("name") == "throughput" and step.get("status") == "pass":
            found = _throughput(step, matrix)
            if found:
                findings.append(found)
    multi = next((s for s in steps if s.get("name") == "multi_gpu" and s.get("status") == "pass"), None)
    if multi and _is_gpu(multi.get("device")):
        findings.append(
            _finding(
                "runtime.multi-gpu-verified",
                Status.PASS,
                f"MirroredStrategy ran across {multi.get('replicas')} GPUs",
                detail=(
                    f"all-reduce sum {multi.get('all_reduce_sum')} as expected"
                    f" ({multi.get('cross_device_ops')}); {_fmt_losses(multi.get('losses'))}"
                ),
            )
        )
    return findings
