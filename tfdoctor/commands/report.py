"""`tfdoctor report`: everything a maintainer needs (JSON by default, or Markdown), secrets redacted;
or, with --prometheus FILE, node_exporter textfile-collector metrics written atomically."""

from __future__ import annotations

import argparse

from tfdoctor.commands import EXIT_FAIL, EXIT_OK, UsageError, emit, make_report


def _write(text: str, output: str) -> None:
    try:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise UsageError(f"tfdoctor: cannot write {output}: {exc.strerror or exc}") from None


def _prometheus_target(path: str) -> str:
    """Validate the metrics file before any slow work (exit 2 with one line)."""
    from tfdoctor.files import OutputError, check_writable

    try:
        check_writable(path)
    except OutputError as exc:
        raise UsageError(f"tfdoctor: --prometheus: {exc}") from None
    return path


def _write_prometheus(data: dict, path: str) -> None:
    from tfdoctor.compat import load_matrix
    from tfdoctor.files import OutputError, atomic_write
    from tfdoctor.render.prometheus import render

    try:
        atomic_write(path, render(data, load_matrix()))
    except OutputError as exc:
        raise UsageError(f"tfdoctor: --prometheus: {exc}") from None


def run(args: argparse.Namespace) -> int:
    from tfdoctor.model import Status

    prometheus = getattr(args, "prometheus", None)
    if prometheus is not None:
        if args.output:
            raise UsageError("tfdoctor: report: --prometheus FILE names its own file; drop --output")
        _prometheus_target(prometheus)
    report = make_report(args)
    data = report.to_dict()
    if args.anonymize:
        from tfdoctor.privacy import anonymize

        data = anonymize(data)
    if prometheus is not None:
        _write_prometheus(data, prometheus)
        return EXIT_FAIL if report.status == Status.FAIL else EXIT_OK
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
