"""`tfdoctor check`: probe this machine, prove TensorFlow on the GPU, report pass/fail with fixes."""

from __future__ import annotations

import argparse

from tfdoctor.commands import EXIT_FAIL, EXIT_OK, color, emit, make_report


def run(args: argparse.Namespace) -> int:
    from tfdoctor.model import Status

    report = make_report(args)
    data = report.to_dict()
    if args.json:
        from tfdoctor.render.json import dumps

        emit(dumps(data))
    elif args.markdown:
        from tfdoctor.render.markdown import render

        emit(render(data))
    else:
        from tfdoctor.render.terminal import render

        render(data, verbose=args.verbose, color=color(args))
    worst = report.status
    if worst == Status.FAIL or (args.strict and worst == Status.WARN):
        return EXIT_FAIL
    return EXIT_OK
