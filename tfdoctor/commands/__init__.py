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


def context(args: argparse.Namespace) -> Any:
    from tfdoctor.probes import Context

    python = args.python or sys.executable
    if args.python and not os.access(python, os.X_OK):
        raise UsageError(f"tfdoctor: --python {python}: not an executable file")
    if not args.timeout > 0:
        raise UsageError("tfdoctor: --timeout must be positive")
    return Context(
        python=python,
        timeout=min(10.0, args.timeout),
        worker_timeout=args.timeout,
        memory_limit_mib=args.memory_limit,
        multiworker=getattr(args, "multiworker", False),
    )


@dataclass(frozen=True)
class Request:
    """What a check asks for, whichever the front end: the CLI's flags (`request_from_args`) or the
    keywords of `tfdoctor.check()`. Field names match the CLI's argparse destinations, so the
    validators above (`context`, `selection`) read either."""

    quick: bool = False
    python: str | None = None
    timeout: float = 300.0
    memory_limit: int | None = None
    require_gpus: int | None = None
    allow_cpu: bool = False
    only: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    multiworker: bool = False
    from_report: str | None = None


def request_from_args(args: argparse.Namespace) -> Request:
    """The Request a parsed command line makes (`report` has no --require-gpus, --only, ...)."""
    return Request(
        quick=bool(getattr(args, "quick", False)),
        python=getattr(args, "python", None),
        timeout=getattr(args, "timeout", 300.0),
        memory_limit=getattr(args, "memory_limit", None),
        require_gpus=getattr(args, "require_gpus", None),
        allow_cpu=bool(getattr(args, "allow_cpu", False)),
        only=tuple(getattr(args, "only", ()) or ()),
        skip=tuple(getattr(args, "skip", ()) or ()),
        multiworker=bool(getattr(args, "multiworker", False)),
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


def report_for(req: Request, interface: str = "cli", progress: Any = None) -> Any:
    """The Report for `check`, `report` and `tfdoctor.check()`: this machine's, or a saved report's
    facts judged again. Raises UsageError (before any slow work) on a bad request. `progress`
    (pipeline.Options.progress) hears the probes and the worker's steps as they run."""
    from tfdoctor.compat import load_matrix

    only, skip = selection(req)
    matrix = load_matrix()
    who = caller(interface)
    options = {"require_gpus": req.require_gpus, "allow_cpu": req.allow_cpu,
               "caller_pids": [who["pid"], who["ppid"]], "caller": who}
    if req.from_report:
        from tfdoctor.report import build_report, load_report

        saved = load_report(req.from_report)
        facts = saved["facts"]
        if req.require_gpus is not None or req.allow_cpu:
            extra = {"require_gpus": req.require_gpus} if req.require_gpus is not None else {}
            if req.allow_cpu:
                extra["allow_cpu"] = True
            facts = {**facts, "options": {**(facts.get("options") or {}), **extra}}
        return build_report(saved.get("mode") or "full", facts, matrix, only, skip, saved.get("timings"))
    from tfdoctor import pipeline

    opts = pipeline.Options(
        context=context(req),
        quick=req.quick,
        only=only,
        skip=skip,
        require_gpus=req.require_gpus,
        options=options,
        progress=progress,
    )
    return pipeline.run(opts, matrix)


def make_report(args: argparse.Namespace, progress: Any = None) -> Any:
    """The Report for the `check` and `report` commands."""
    return report_for(request_from_args(args), progress=progress)
