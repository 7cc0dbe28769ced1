"""Run the probes concurrently (the worker first: it is the slowest), then the checks."""

from __future__ import annotations

import importlib
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from tfdoctor.model import Report
from tfdoctor.probes import NAMES, Context
from tfdoctor.report import build_report

PROBE_GRACE = 5.0  # seconds a probe may run past its own command timeout


@dataclass(frozen=True)
class Options:
    context: Context
    quick: bool = False
    only: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    require_gpus: int | None = None
    allow_cpu: bool = False


def _probe_fn(name: str) -> Callable[[Context], dict]:
    return importlib.import_module(f"tfdoctor.probes.{name}").probe


def _start(name: str, ctx: Context, results: dict, timings: dict) -> threading.Thread:
    def target() -> None:
        start = time.monotonic()
        try:
            results[name] = _probe_fn(name)(ctx)
        except Exception as exc:  # noqa: BLE001 - a probe failure is a fact, never a crash
            results[name] = {"error": f"{type(exc).__name__}: {exc}", "probe_failed": True}
        timings[name] = round(time.monotonic() - start, 3)

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
        slow["runtime"] = _start("runtime", ctx, results, timings)
    else:
        results["runtime"] = {"ran": False, "skipped": "--quick: the TensorFlow worker was not run"}
    slow["collective"] = _start("collective", ctx, results, timings)
    probes = {name: _start(name, ctx, results, timings) for name in NAMES}
    if meanwhile is not None:
        meanwhile()
    # Each probe runs a few commands, each bounded by ctx.timeout.
    _join(probes, time.monotonic() + 3 * ctx.timeout + PROBE_GRACE, results)
    _join(slow, time.monotonic() + ctx.worker_timeout + PROBE_GRACE, results)
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
    facts["options"] = {"require_gpus": opts.require_gpus, "allow_cpu": opts.allow_cpu}
    timings["probes_total"] = round(time.monotonic() - start, 3)
    return build_report("quick" if opts.quick else "full", facts, matrix, opts.only, opts.skip, timings)
