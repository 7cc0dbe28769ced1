"""`tfdoctor check`: probe this machine, prove TensorFlow on the GPU, report pass/fail with fixes."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from tfdoctor.commands import EXIT_FAIL, EXIT_OK, color, emit, make_report


def live_view(args: argparse.Namespace) -> bool:
    """Whether to show what runs while it runs: a person at a terminal, not a script or a file."""
    if args.json or args.markdown or getattr(args, "from_report", None):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def run(args: argparse.Namespace) -> int:
    from tfdoctor.model import Status

    console: Any = None
    if live_view(args):
        from tfdoctor.render.progress import Progress
        from tfdoctor.render.terminal import console as make_console

        console = make_console(color(args))
        with Progress(console) as progress:
            report = make_report(args, progress=progress)
    else:
        report = make_report(args)
    data = report.to_dict()
    if getattr(args, "anonymize", False):
        from tfdoctor.privacy import anonymize

        data = anonymize(data)
    if args.json:
        from tfdoctor.render.json import dumps

        emit(dumps(data))
    elif args.markdown:
        from tfdoctor.render.markdown import render

        emit(render(data))
    else:
        from tfdoctor.render.terminal import render

        render(data, verbose=args.verbose, color=color(args), out=console)
    worst = report.status
    if worst == Status.FAIL or (args.strict and worst == Status.WARN):
        return EXIT_FAIL
    return EXIT_OK
