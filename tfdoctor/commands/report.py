"""`tfdoctor report`: everything a maintainer needs (JSON by default, or Markdown), secrets redacted."""

from __future__ import annotations

import argparse

from tfdoctor.commands import EXIT_FAIL, EXIT_OK, UsageError, emit, make_report


def run(args: argparse.Namespace) -> int:
    from tfdoctor.files import OutputError, atomic_write, check_writable
    from tfdoctor.model import Status

    if args.output is not None:  # before the work: a run can take minutes on a GPU
        try:
            check_writable(args.output)
        except OutputError as exc:
            raise UsageError(f"tfdoctor: --output: {exc}") from None
    report = make_report(args)
    data = report.to_dict()
    if args.anonymize:
        from tfdoctor.privacy import anonymize

        data = anonymize(data)
    if args.markdown:
        from tfdoctor.render.markdown import render

        text = render(data)
    else:
        from tfdoctor.render.json import dumps

        text = dumps(data)
    if args.output is not None:
        try:
            atomic_write(args.output, text)
        except OutputError as exc:
            raise UsageError(f"tfdoctor: {exc}") from None
    else:
        emit(text)
    return EXIT_FAIL if report.status == Status.FAIL else EXIT_OK
