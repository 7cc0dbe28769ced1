"""Run the probes concurrently (the worker first: it is the slowest), then the checks.

Progress: when `Options.progress` is set, it is called (from the probes' threads) with
  {"event": "probe", "name": NAME, "status": "start"}
  {"event": "probe", "name": NAME, "status": "done", "seconds": S, "facts": {...}}
and, while the TensorFlow worker runs, with its steps as they start and end:
  {"event": "step", "name": "matmul", "device": "/device:GPU:0", "status": "running"|"pass"|
   "fail"|"skip", "seconds": S|None}  (the "devices" step also carries "gpus")
A display must be quick and thread-safe; an exception it raises is ignored (a display never
breaks a run). `facts` are the probe's raw facts, not yet redacted: show only versions and names.
"""

from __future__ import annotations

import importlib
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from tfdoctor import proc
from tfdoctor.model import Report
from tfdoctor.probes import NAMES, Context
from tfdoctor.report import build_report

PROBE_GRACE = 5.0  # seconds a probe may run past its own command timeout
RETURN_GRACE = 0.5  # seconds a probe may take past the run's bound to return its killed command


@dataclass(frozen=True)
class Options:
    context: Context
    quick: bool = False
    only: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    require_gpus: int | None = None
    options: dict[str, Any] | None = None  # facts["options"]: the request's switches and its caller
    progress: Callable[[dict], None] | None = None


def _notify(progress: Callable[[dict], None] | None, event: dict) -> None:
    if progress is None:
        return
    try:
        progress(event)
    except Exception:  # noqa: BLE001 - a display never breaks a run
        pass


def _probe_fn(name: str) -> Callable[[Context], dict]:
    return importlib.import_module(f"tfdoctor.probes.{name}").probe


def _start(
    name: str, ctx: Context, results: dict, timings: dict, progress: Callable[[dict], None] | None = None
) -> threading.Thread:
    def target() -> None:
        start = time.monotonic()
        _notify(progress, {"event": "probe", "name": name, "status": "start"})
        try:
            fn = _probe_fn(name)
            if name == "runtime" and progress is not None:
                results[name] = fn(ctx, progress=lambda event: _notify(progress, event))
            else:
                results[name] = fn(ctx)
        except Exception as exc:  # noqa: BLE001 - a probe failure is a fact, never a crash
            results[name] = {"error": f"{type(exc).__name__}: {exc}", "probe_failed": True}
        timings[name] = round(time.monotonic() - start, 3)
        _notify(progress, {"event": "probe", "name": name, "status": "done", "seconds": timings[name],
                           "facts": results[name]})

    thread = threading.Thread(target=target, name=f"probe-{name}", daemon=True)
    thread.start()
    return thread


def _join(threads: dict[str, threading.Thread], deadline: float, results: dict) -> None:
    for name, thread in threads.items():
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            results.setdefault(
                name, {"error": "probe did not finish in time and was abandoned", "probe_failed": True}
            )


def collect(
    opts: Options, meanwhile: Callable[[], Any] | None = None
) -> tuple[dict[str, Any], dict[str, float]]:
    """Gather facts from every probe; never raises (but `meanwhile`, run in this thread while the
    probes work, may: it is how the caller loads the matrix and the checks without waiting)."""
    ctx = opts.context
    results: dict[str, Any] = {}
    timings: dict[str, float] = {}
    # The TensorFlow child processes are the slowest: start them first.
    slow = {}
    if not opts.quick:
        slow["runtime"] = _start("runtime", ctx, results, timings, opts.progress)
    else:
        results["runtime"] = {"ran": False, "skipped": "--quick: the TensorFlow worker was not run"}
    slow["collective"] = _start("collective", ctx, results, timings, opts.progress)
    probes = {name: _start(name, ctx, results, timings, opts.progress) for name in NAMES}
    if meanwhile is not None:
        meanwhile()
    # Each probe runs a few commands, each bounded by ctx.timeout and all by the run's bound
    # (proc.bounded): a probe gets a moment past it to return what its killed command said.
    _join(probes, time.monotonic() + proc.left(3 * ctx.timeout + PROBE_GRACE) + RETURN_GRACE, results)
    _join(slow, time.monotonic() + proc.left(ctx.worker_timeout + PROBE_GRACE) + RETURN_GRACE, results)
    return {name: results[name] for name in (*NAMES, "runtime", "collective")}, timings


def run(opts: Options, matrix: Any) -> Report:
    """Probe this machine and judge it. `matrix` may be a function that loads it: it then runs
    while the probes wait on their commands, with the import of the checks."""
    start = time.monotonic()
    loaded: dict[str, Any] = {}

    def prepare() -> None:
        from tfdoctor.checks import load_all

        loaded["matrix"] = matrix() if callable(matrix) else matrix
        load_all()

    facts, timings = collect(opts, prepare)
    matrix = loaded["matrix"]
    facts["options"] = {**(opts.options or {}), "require_gpus": opts.require_gpus}
    timings["probes_total"] = round(time.monotonic() - start, 3)
    return build_report("quick" if opts.quick else "full", facts, matrix, opts.only, opts.skip, timings)
