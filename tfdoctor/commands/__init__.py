"""One module per subcommand (`run(args) -> exit code`); what they share lives here.

Exit codes (a contract): 0 nothing failed (with --strict: nothing warned either), 1 something
failed, 2 a usage or input error (one line on stderr, before any slow work), 3 tfdoctor's own
internal error.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import Any

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class UsageError(Exception):
    """A usage or input problem: one line on stderr, exit 2."""


def color(args: argparse.Namespace) -> bool:
    """Colour unless --no-color, or NO_COLOR set to a non-empty value (no-color.org)."""
    return not getattr(args, "no_color", False) and not os.environ.get("NO_COLOR")


def emit(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def selection(args: argparse.Namespace) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """--only/--skip as check names; an unknown name is a usage error naming the closest ones."""
    only = tuple(getattr(args, "only", ()) or ())
    skip = tuple(getattr(args, "skip", ()) or ())
    if only or skip:
        from tfdoctor.checks import unknown_names

        bad = unknown_names(only + skip)
        if bad:
            raise UsageError(f"tfdoctor: no check named {'; '.join(bad)} (see `tfdoctor checks`)")
    return only, skip


STATIC_TIMEOUT = 10.0  # seconds for each short external command (nvidia-smi, nvcc, ldconfig, ...)
PYTHON_CHECK_TIMEOUT = 10.0
_PY_MARK = "TFDOCTOR-PYTHON"
# Python 2 and 3 alike: a marker and the version, nothing else.
_PY_CHECK = (
    "import sys; sys.stdout.write('%s %d.%d.%d\\n' % (('TFDOCTOR-PYTHON',) + tuple(sys.version_info[:3])))"
)


def _same_interpreter(path: str) -> bool:
    return os.path.abspath(path) == os.path.abspath(sys.executable)


def resolve_python(value: str, env: dict[str, str] | None = None) -> str:
    """--python as an absolute path to a working Python interpreter; UsageError (one line) otherwise.

    A bare name (`python3`) is looked up on PATH; a directory, a file that is not executable and
    a program that does not answer as Python does (run with a short `-c`, its output capped) are
    refused before any probe starts.
    """
    import shutil

    env = dict(os.environ if env is None else env)
    shown = f"--python {value}"
    if not value.strip():
        raise UsageError("tfdoctor: --python: the interpreter path is empty")
    if os.sep not in value and not (os.altsep and os.altsep in value):
        found = shutil.which(value, path=env.get("PATH", os.defpath))
        if not found:
            raise UsageError(
                f"tfdoctor: {shown}: not found on PATH (give a path, e.g. /path/to/venv/bin/python)"
            )
        path = os.path.abspath(found)
    else:
        path = os.path.abspath(value)
    if os.path.isdir(path):
        inside = os.path.join(path, "bin", "python")
        hint = f" (did you mean {inside}?)" if os.access(inside, os.X_OK) else ""
        raise UsageError(f"tfdoctor: {shown}: is a directory, not an executable file{hint}")
    if not os.path.exists(path):
        raise UsageError(f"tfdoctor: {shown}: not an executable file (no such file)")
    if not os.access(path, os.X_OK):
        raise UsageError(f"tfdoctor: {shown}: not an executable file (permission denied)")
    if _same_interpreter(path):
        return path
    import tempfile

    from tfdoctor import proc

    res = proc.run([path, "-c", _PY_CHECK], timeout=PYTHON_CHECK_TIMEOUT, env=env, max_bytes=4096,
                   cwd=tempfile.gettempdir(), head_bytes=4096, tail_bytes=4096)
    first = next((line for line in res.stdout.splitlines() if line.strip()), "")
    if res.ok and first.startswith(_PY_MARK + " "):
        return path
    if res.timed_out or res.output_limit or res.error:
        why = res.describe()
    elif res.returncode:
        why = f"it exited with status {res.returncode} instead of answering as Python does"
    else:
        why = "it did not answer as Python does"
    raise UsageError(f"tfdoctor: {shown}: not a Python interpreter ({why})")


MAX_TIMEOUT = 86_400.0  # a day: beyond it a number is a typo, not a time limit
DEFAULT_TIMEOUT = 300.0


def run_timeout(req: Any) -> float:
    """The request's --timeout in seconds (checked: above 0, at most a day), or the default."""
    import math

    timeout = DEFAULT_TIMEOUT if req.timeout is None else req.timeout
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) \
            or not 0 < timeout <= MAX_TIMEOUT:
        raise UsageError(f"tfdoctor: --timeout {timeout!r}: give seconds above 0, at most {MAX_TIMEOUT:.0f}")
    return float(timeout)


def context(req: Any) -> Any:
    """The probes' Context for a request (the CLI's flags or the API's keywords), every value checked
    here, before any probe starts: the interpreter answers as Python, the timeout is a time limit.
    The timeout bounds the whole run (see report_for); each short external command has at most
    STATIC_TIMEOUT of it."""
    from tfdoctor.probes import Context

    timeout = run_timeout(req)
    python = resolve_python(req.python) if req.python else sys.executable
    return Context(
        python=python,
        timeout=STATIC_TIMEOUT,
        worker_timeout=timeout,
        memory_limit_mib=req.memory_limit,
        multiworker=bool(req.multiworker),
    )


@dataclass(frozen=True)
class Request:
    """What a check asks for, whichever the front end: the CLI's flags (`request_from_args`) or the
    keywords of `tfdoctor.check()`. None means "not given" (so --from can refuse what it cannot
    honour); field names match the CLI's argparse destinations."""

    quick: bool | None = None
    python: str | None = None
    timeout: float | None = None
    memory_limit: int | None = None
    require_gpus: int | None = None
    allow_cpu: bool = False
    only: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    multiworker: bool | None = None
    from_report: str | None = None


def request_from_args(args: argparse.Namespace) -> Request:
    """The Request a parsed command line makes (`report` has no --require-gpus, --only, ...)."""
    return Request(
        quick=getattr(args, "quick", None),
        python=getattr(args, "python", None),
        timeout=getattr(args, "timeout", None),
        memory_limit=getattr(args, "memory_limit", None),
        require_gpus=getattr(args, "require_gpus", None),
        allow_cpu=bool(getattr(args, "allow_cpu", False)),
        only=tuple(getattr(args, "only", ()) or ()),
        skip=tuple(getattr(args, "skip", ()) or ()),
        multiworker=getattr(args, "multiworker", None),
        from_report=getattr(args, "from_report", None),
    )


def caller(interface: str = "cli") -> dict[str, Any]:
    """Who asked: this process and its parent, so a check can tell that a GPU's memory is held by the
    caller itself (a notebook kernel that already imported TensorFlow) rather than by a stranger."""
    return {
        "interface": interface,  # cli | python | notebook
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "tensorflow_imported": "tensorflow" in sys.modules,
    }


NOT_WITH_FROM = (("python", "--python"), ("quick", "--quick"), ("timeout", "--timeout"),
                 ("memory_limit", "--memory-limit"), ("multiworker", "--multiworker"))


def _from_options(req: Request, saved: Any, only: tuple[str, ...], skip: tuple[str, ...]) -> dict[str, Any]:
    """The saved run's options, with what this request gives instead."""
    options = dict(saved) if isinstance(saved, dict) else {}
    if req.require_gpus is not None:
        options["require_gpus"] = req.require_gpus
    if req.allow_cpu:
        options["allow_cpu"] = True
    if only or skip:
        for key in ("only", "skip", "checks_run"):
            options.pop(key, None)
    return options


def _from_report(req: Request, only: tuple[str, ...], skip: tuple[str, ...]) -> Any:
    """A saved report's facts judged again; refused for an explain report or probing flags."""
    given = [flag for attr, flag in NOT_WITH_FROM if getattr(req, attr) not in (None, False)]
    if given:
        raise UsageError(
            f"tfdoctor: --from judges a saved report's facts; it cannot honour {', '.join(given)} "
            "(those apply to probing a machine): leave them out"
        )
    from tfdoctor.compat import load_matrix
    from tfdoctor.report import build_report, load_report

    saved = load_report(req.from_report)
    if saved.get("mode") == "explain":
        raise UsageError(
            f"tfdoctor: {req.from_report} is an `explain` report (facts read from a pasted log, not "
            "probed); --from needs a report from `tfdoctor check --json` or `tfdoctor report`"
        )
    facts = dict(saved["facts"])
    facts["options"] = _from_options(req, facts.get("options"), only, skip)
    return build_report(saved.get("mode") or "full", facts, load_matrix(), only, skip, saved.get("timings"))


def report_for(req: Request, interface: str = "cli", progress: Any = None) -> Any:
    """The Report for `check`, `report` and `tfdoctor.check()`: this machine's, or a saved report's
    facts judged again. Every input is checked before any slow work (UsageError, one line).
    `progress` (pipeline.Options.progress) hears the probes and the worker's steps as they run."""
    only, skip = selection(req)
    if req.from_report:
        return _from_report(req, only, skip)
    from tfdoctor import proc

    with proc.bounded(run_timeout(req)):  # --timeout bounds the whole run, hung tools included
        return _probe(req, only, skip, interface, progress)


def _probe(req: Request, only: tuple[str, ...], skip: tuple[str, ...], interface: str, progress: Any) -> Any:
    from tfdoctor import pipeline
    from tfdoctor.compat import load_matrix

    ctx = context(req)
    who = caller(interface)
    opts = pipeline.Options(
        context=ctx,
        quick=bool(req.quick),
        only=only,
        skip=skip,
        require_gpus=req.require_gpus,
        options={"allow_cpu": req.allow_cpu, "caller_pids": [who["pid"], who["ppid"]], "caller": who},
        progress=progress,
    )
    return pipeline.run(opts, load_matrix)  # loaded while the probes work


def make_report(args: argparse.Namespace, progress: Any = None) -> Any:
    """The Report for the `check` and `report` commands."""
    return report_for(request_from_args(args), progress=progress)
