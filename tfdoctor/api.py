"""The Python API: `tfdoctor.check(...)` and `tfdoctor.explain(text)`, each returning the Report.

The same work as the command line: `check()` builds a `tfdoctor.commands.Request` from its keywords
and runs the core the CLI's `check` and `report` run (`tfdoctor.commands.report_for`), with the same
validation. A bad argument raises `InputError` (a ValueError) with the CLI's one-line message; a bad
argument type raises TypeError naming the parameter.

In Jupyter the returned Report displays itself, root cause first (`Report._repr_html_`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any

from tfdoctor.model import Report

__all__ = ["InputError", "check", "explain", "fix"]


class InputError(ValueError):
    """An argument, a saved report or the compat data that tfdoctor cannot use (the CLI's exit 2)."""


def _names(value: str | Iterable[str] | None, param: str) -> tuple[str, ...]:
    """Check names as the CLI takes them: "driver,cuda", "driver cuda" or ["driver", "cuda"]."""
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    try:
        items = list(items)
    except TypeError:
        raise TypeError(
            f"{param} must be a check name or a list of them, not {type(value).__name__}"
        ) from None
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{param} must hold check names (str), not {type(item).__name__}")
        out += [p for p in item.replace(",", " ").split() if p]
    return tuple(out)


def _interface() -> str:
    """notebook when called from a Jupyter (or Colab) kernel, else python."""
    ipython = sys.modules.get("IPython")
    if ipython is None or "ipykernel" not in sys.modules:
        return "python"
    try:
        shell = ipython.get_ipython()
    except Exception:  # noqa: BLE001 - an odd IPython is just "python"
        return "python"
    return "notebook" if getattr(shell, "kernel", None) is not None else "python"


def check(
    *,
    quick: bool = False,
    python: str | os.PathLike[str] | None = None,
    timeout: float | None = None,
    require_gpus: int | None = None,
    allow_cpu: bool = False,
    only: str | Iterable[str] | None = None,
    skip: str | Iterable[str] | None = None,
    memory_limit: int | None = None,
    from_report: str | os.PathLike[str] | None = None,
) -> Report:
    """Check this machine (or judge a saved report's facts again) and return the Report.

    quick: static facts only, never imports TensorFlow. python: the interpreter whose TensorFlow to
    check (default: this one). timeout: seconds for the TensorFlow worker. require_gpus: fail unless
    TensorFlow can use at least this many GPUs. allow_cpu: a CPU-only machine is expected. only/skip:
    check ids, prefixes ("driver") or names, as `tfdoctor checks` lists them. memory_limit: MiB of
    GPU memory for the worker instead of memory growth. from_report: a saved JSON report to judge.

    The Report has `.ok` (nothing failed), `.status`, `.findings`, `.root_causes`, `.to_dict()`,
    `.to_json()` and `.to_markdown()`.
    """
    from tfdoctor.commands import Request, UsageError, report_for
    from tfdoctor.compat import CompatError
    from tfdoctor.report import ReportError

    for name, value in (("quick", quick), ("allow_cpu", allow_cpu)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, not {type(value).__name__}")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))):
        raise TypeError(f"timeout must be a number of seconds, not {type(timeout).__name__}")
    for name, value in (("require_gpus", require_gpus), ("memory_limit", memory_limit)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise TypeError(f"{name} must be a whole number or None, not {type(value).__name__}")
    if require_gpus is not None and require_gpus < 0:
        raise InputError(f"require_gpus must be 0 or more, not {require_gpus}")
    request = Request(
        quick=quick or None,
        python=os.fspath(python) if python is not None else None,
        timeout=float(timeout) if timeout is not None else None,
        memory_limit=memory_limit,
        require_gpus=require_gpus,
        allow_cpu=allow_cpu,
        only=_names(only, "only"),
        skip=_names(skip, "skip"),
        from_report=os.fspath(from_report) if from_report is not None else None,
    )
    from tfdoctor import proc

    try:
        with proc.guarded():  # nothing the check starts outlives it, however it ends
            return report_for(request, interface=_interface())
    except proc.Stopped as stop:  # SIGTERM/SIGHUP/SIGQUIT at their default: end as they would have
        proc.die_of(stop.signum)
        raise
    except UsageError as exc:
        raise InputError(str(exc).removeprefix("tfdoctor: ")) from None
    except (ReportError, CompatError) as exc:
        raise InputError(str(exc)) from None


def explain(text: str | bytes) -> Report:
    """Diagnose pasted text (a TensorFlow log, `nvidia-smi`, `nvcc --version`, `pip list` ...): the
    Report of `tfdoctor explain`, with mode "explain"."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not isinstance(text, str):
        raise TypeError(f"explain() takes the pasted text as str, not {type(text).__name__}")
    from tfdoctor.report import explain_report  # the explain engine's one entry point

    return explain_report(text)



def fix(
    *,
    python: str | os.PathLike[str] | None = None,
    dry_run: bool = False,
    yes: bool = False,
    undo: bool = False,
    allow_tensorflow_change: bool = False,
    timeout: float | None = None,
    quiet: bool = False,
) -> Any:
    """`tfdoctor fix` from Python: check, repair the root causes in the target environment (python:
    its interpreter, default this one), check again. Nothing changes unless `yes=True`: without it
    this is a dry run. undo: restore the snapshot the last fix took. Returns a `tfdoctor.repair.Result`
    (`.ok`, `.exit_code`, `.before`, `.after`, `.targets`, `.gone`, `.restored`, `.messages`); raises
    InputError when the environment may not be changed (the system's Python, a prefix not writable,
    another fix running)."""
    from tfdoctor import envstate, repair
    from tfdoctor.commands import UsageError, resolve_python

    for name, value in (("dry_run", dry_run), ("yes", yes), ("undo", undo),
                        ("allow_tensorflow_change", allow_tensorflow_change), ("quiet", quiet)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, not {type(value).__name__}")
    say = (lambda _text: None) if quiet else print
    try:
        target = resolve_python(os.fspath(python)) if python is not None else sys.executable
        if undo:
            return repair.run_undo(target, yes=yes and not dry_run, say=say)
        return repair.run_fix(target, dry_run=dry_run or not yes, yes=yes, timeout=timeout,
                              allow_tensorflow_change=allow_tensorflow_change, say=say)
    except UsageError as exc:
        raise InputError(str(exc).removeprefix("tfdoctor: ")) from None
    except envstate.EnvError as exc:
        raise InputError(str(exc).removeprefix("tfdoctor: ")) from None
