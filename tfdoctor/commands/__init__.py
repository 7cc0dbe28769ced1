"""One module per subcommand (`run(args) -> exit code`); what they share lives here.

Exit codes (a contract): 0 nothing failed (with --strict: nothing warned either), 1 something
failed, 2 a usage or input error (one line on stderr, before any slow work), 3 tfdoctor's own
internal error.
"""

from __future__ import annotations

import argparse
import os
import sys
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


def make_report(args: argparse.Namespace, progress: Any = None) -> Any:
    """The Report for `check` and `report`: this machine's, or a saved report's facts judged again.
    `progress` (pipeline.Options.progress) hears the probes and the worker's steps as they run."""
    from tfdoctor.compat import load_matrix

    only, skip = selection(args)
    matrix = load_matrix()
    if args.from_report:
        from tfdoctor.report import build_report, load_report

        saved = load_report(args.from_report)
        facts = saved["facts"]
        if getattr(args, "require_gpus", None) is not None:
            facts = {**facts, "options": {**(facts.get("options") or {}), "require_gpus": args.require_gpus}}
        return build_report(saved.get("mode") or "full", facts, matrix, only, skip, saved.get("timings"))
    from tfdoctor import pipeline

    opts = pipeline.Options(
        context=context(args),
        quick=args.quick,
        only=only,
        skip=skip,
        require_gpus=getattr(args, "require_gpus", None),
        progress=progress,
    )
    return pipeline.run(opts, matrix)
