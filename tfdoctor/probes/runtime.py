"""The runtime probe: run the TensorFlow worker in the target interpreter and read its answer.

The worker (tfdoctor/worker/worker.py) is passed by file path, so the target environment needs
TensorFlow but not tfdoctor. It prints `TFDOCTOR-STEP <json>` lines as it goes and one
`TFDOCTOR-RESULT <json>` at the end; a crash, hang or garbage output becomes facts here
(error, signal, timed_out) and the steps are rebuilt from the STEP lines that did arrive.

Facts beyond the shape in tfdoctor/probes/__init__.py: gpus [{tf_device, name,
compute_capability, pci_bus_id, memory_mib}], gpu_reason (TensorFlow's words for seeing no GPU),
tf_version, memory {device: {memory_current_mib, memory_peak_mib}}, seconds, result_line (bool),
stdout_junk (what stdout held besides the protocol, trimmed), worker (path), argv,
keras {api, module, version, major, path, tf_use_legacy_keras, error} (what tf.keras trained with),
loaded_libraries [{path, name, soname, version, dist, dist_version, since}] (from /proc/self/maps),
peer_access {devices, pairs} (TensorFlow's GPU edge matrix; null without one).
These survive a crash or timeout: they are read back from the STEP lines that did arrive.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any, Callable

from tfdoctor import jsonsafe, proc
from tfdoctor.privacy import trim_redacted
from tfdoctor.probes import Context

RESULT = "TFDOCTOR-RESULT "
STEP = "TFDOCTOR-STEP "
WORKER = Path(__file__).resolve().parent.parent / "worker" / "worker.py"


def worker_env(ctx: Context) -> dict[str, str]:
    """The user's environment, plus what the worker needs to report TensorFlow's own reasons."""
    env = dict(ctx.env)
    env["TF_CPP_MIN_LOG_LEVEL"] = "0"  # cuInit / dlopen reasons are INFO..ERROR lines
    # which library a dlopen failed on: TensorFlow 2.21 says only "Cannot dlopen some GPU libraries" unless
    # its loader's VLOG(1) is on (seen on a real H200: "Could not load dynamic library 'libcusolver.so.11'")
    env.setdefault("TF_CPP_VMODULE", "dso_loader=1")
    env["KERAS_BACKEND"] = "tensorflow"
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    return env


def worker_argv(ctx: Context, extra: tuple[str, ...] = ()) -> list[str]:
    argv = [ctx.python, str(WORKER)]
    if ctx.memory_limit_mib:
        argv += ["--memory-limit", str(ctx.memory_limit_mib)]
    return argv + list(extra)


def _signal_name(returncode: int | None) -> str | None:
    if returncode is None or returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def _json(text: str) -> Any:
    """A line's JSON, or None: bounded nesting and numbers (a hostile line costs that line only)."""
    try:
        return jsonsafe.loads(text)
    except jsonsafe.InputError:
        return None


def parse_output(stdout: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]], list[str]]:
    """(result or None, steps rebuilt from STEP lines, other stdout lines)."""
    result = None
    latest: dict[tuple[str, Any], dict[str, Any]] = {}
    junk: list[str] = []
    for line in stdout.splitlines():
        if line.startswith(RESULT):
            value = _json(line[len(RESULT):])
            if isinstance(value, dict):
                result = value
                continue
        elif line.startswith(STEP):
            value = _json(line[len(STEP):])
            if isinstance(value, dict) and isinstance(value.get("name"), str):
                latest[(value["name"], value.get("device"))] = value
                continue
        if line.strip():
            junk.append(line)
    return result, list(latest.values()), junk


def latest_from_steps(steps: list[dict[str, Any]], key: str) -> Any:
    """The last value a step reported under key (a crashed run's result line never came)."""
    for step in reversed(steps):
        if isinstance(step, dict) and step.get(key) is not None:
            return step[key]
    return None


def _interrupted(steps: list[dict[str, Any]], what: str) -> list[dict[str, Any]]:
    """A step left "running" is the one the worker died in: mark it failed, in plain words."""
    out = []
    for step in steps:
        if step.get("status") == "running":
            step = {**step, "status": "fail", "interrupted": True, "error": f"{what} during this step"}
        out.append(step)
    return out


def facts_from(res: proc.Result, python: str, timeout: float) -> dict[str, Any]:
    """Turn the worker's exit and output into runtime facts (pure: no I/O)."""
    result, steps, junk = parse_output(res.stdout)
    sig = _signal_name(res.returncode)
    log = res.stderr + ("\n" + "\n".join(junk) if junk else "")
    facts: dict[str, Any] = {
        "ran": res.error is None,
        "python": python,
        "returncode": res.returncode,
        "timed_out": res.timed_out,
        "signal": sig,
        "seconds": round(res.seconds, 3),
        "result_line": result is not None,
        "log": trim_redacted(log.strip(), 20_000),
        "stdout_junk": trim_redacted("\n".join(junk), 4000) if junk else None,
        "error": None,
    }
    if result is not None:
        facts["steps"] = result.get("steps") if isinstance(result.get("steps"), list) else steps
        for key in ("tf_version", "gpus", "gpu_reason", "memory", "python_version", "keras",
                    "loaded_libraries", "peer_access"):
            facts[key] = result.get(key)
        facts["tf_visible_gpus"] = result.get("tf_visible_gpus")
        if result.get("error"):
            facts["error"] = f"the TensorFlow worker stopped early: {result['error']}"
    else:
        facts["steps"] = steps
        devices = next((s for s in steps if s.get("name") == "devices" and s.get("status") == "pass"), None)
        facts["gpus"] = devices.get("gpus") if devices else None
        listed = devices.get("gpus") if devices else None
        facts["tf_visible_gpus"] = len(listed) if isinstance(listed, list) else None
    for key in ("keras", "loaded_libraries", "peer_access"):
        if facts.get(key) is None:
            facts[key] = latest_from_steps(facts["steps"], key)
    if res.error:
        facts["error"] = f"the TensorFlow worker could not be started: {res.error}"
    elif res.timed_out:
        facts["error"] = (f"the TensorFlow worker did not finish within {proc.seconds(timeout)} and was"
                          " killed with its process group")
        facts["steps"] = _interrupted(facts["steps"], f"timed out after {proc.seconds(timeout)} (--timeout)")
    elif sig:
        facts["error"] = f"the TensorFlow worker was killed by {sig} (exit status {res.returncode})"
        facts["steps"] = _interrupted(facts["steps"], f"killed by {sig}")
    elif result is None and res.returncode:
        facts["error"] = f"the TensorFlow worker exited with status {res.returncode} without a result"
        facts["steps"] = _interrupted(facts["steps"], f"exited with status {res.returncode}")
    elif result is None:
        said = "printed no output" if not res.stdout.strip() else "printed no result line"
        facts["error"] = f"the TensorFlow worker {said} (exit status 0)"
        facts["steps"] = _interrupted(facts["steps"], "stopped answering")
    return facts


def step_events(progress: Callable[[dict[str, Any]], None]) -> Callable[[str], None]:
    """A stdout-line listener turning the worker's STEP lines into progress events:
    {"event": "step", "name", "device", "status" (running|pass|fail|skip), "seconds"}, plus
    "gpus" [{tf_device, name, compute_capability}] when the devices step ends."""

    def on_line(line: str) -> None:
        if not line.startswith(STEP):
            return
        value = _json(line[len(STEP):])
        if not isinstance(value, dict) or not isinstance(value.get("name"), str):
            return
        event = {"event": "step", "name": value["name"], "device": value.get("device"),
                 "status": value.get("status"), "seconds": value.get("seconds")}
        if isinstance(value.get("gpus"), list):
            event["gpus"] = [{k: g.get(k) for k in ("tf_device", "name", "compute_capability")}
                             for g in value["gpus"] if isinstance(g, dict)]
        progress(event)

    return on_line


def probe(
    ctx: Context, extra: tuple[str, ...] = (), progress: Callable[[dict[str, Any]], None] | None = None
) -> dict[str, Any]:
    """Run the worker with the target interpreter; never raises. `progress`, when given, gets
    the worker's steps as they start and end (see step_events)."""
    if not WORKER.is_file():
        error = f"the worker script is missing: {WORKER}"
        return {"ran": False, "python": ctx.python, "steps": [], "error": error}
    on_line = step_events(progress) if progress is not None else None
    res = proc.run(worker_argv(ctx, extra), timeout=ctx.worker_timeout, env=worker_env(ctx), on_line=on_line,
                   max_rss=ctx.worker_memory_mib << 20)
    facts = facts_from(res, ctx.python, res.limit or ctx.worker_timeout)
    if res.memory_limit:
        facts["memory_exceeded_mib"] = ctx.worker_memory_mib
        facts["error"] = (f"the TensorFlow worker held more than {ctx.worker_memory_mib} MiB of host memory"
                          " and was stopped with its process group")
    facts["worker"] = str(WORKER)
    return facts
