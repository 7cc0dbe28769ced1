"""`tfdoctor report`: everything a maintainer needs (JSON by default, Markdown, or Prometheus
textfile metrics), secrets redacted."""

from __future__ import annotations

import argparse

from tfdoctor.commands import EXIT_FAIL, EXIT_OK, UsageError, emit, make_report


def _writable(path: str, flag: str) -> None:
    """Validate an output file before any slow work (a run can take minutes on a GPU)."""
    from tfdoctor.files import OutputError, check_writable

    try:
        check_writable(path)
    except OutputError as exc:
        raise UsageError(f"tfdoctor: {flag}: {exc}") from None


def _write(path: str, text: str, flag: str) -> None:
    from tfdoctor.files import OutputError, atomic_write

    try:
        atomic_write(path, text)
    except OutputError as exc:
        raise UsageError(f"tfdoctor: {flag}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    from tfdoctor.model import Status

    prometheus = getattr(args, "prometheus", None)
    if prometheus is not None and args.output is not None:
        raise UsageError("tfdoctor: report: --prometheus FILE names its own file; drop --output")
    for path, flag in ((prometheus, "--prometheus"), (args.output, "--output")):
        if path is not None:
            _writable(path, flag)
    report = make_report(args)
    data = report.to_dict()
    if args.anonymize:
        from tfdoctor.privacy import anonymize

        data = anonymize(data)
    if prometheus is not None:
        from tfdoctor.compat import load_matrix
        from tfdoctor.render.prometheus import render as metrics

        _write(prometheus, metrics(data, load_matrix()), "--prometheus")
        return EXIT_FAIL if report.status == Status.FAIL else EXIT_OK
    if args.markdown:
        from tfdoctor.render.markdown import render

        text = render(data)
    else:
        from tfdoctor.render.json import dumps

        text = dumps(data)
    if args.output is not None:
        _write(args.output, text, "--output")
    else:
        emit(text)
    return EXIT_FAIL if report.status == Status.FAIL else EXIT_OK
