"""`tfdoctor report`: everything a maintainer needs (JSON by default, or Markdown), secrets redacted."""

from __future__ import annotations

import argparse

from tfdoctor.commands import EXIT_FAIL, EXIT_OK, UsageError, emit, make_report


def _write(text: str, output: str) -> None:
    try:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise UsageError(f"tfdoctor: cannot write {output}: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    from tfdoctor.model import Status

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
    if args.output:
        _write(text, args.output)
    else:
        emit(text)
    return EXIT_FAIL if report.status == Status.FAIL else EXIT_OK
