"""Command line: argparse only at module level; every heavy import happens in a handler."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from tfdoctor import __version__

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A usage or input problem: one line on stderr, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, as the contract says
        raise UsageError(f"{self.prog}: {message}")


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def _ids(text: str) -> list[str]:
    return [p for p in text.replace(",", " ").split() if p]


def _add_probe_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quick", action="store_true", help="static facts only; never imports TensorFlow")
    p.add_argument(
        "--python", metavar="PATH", help="the interpreter whose TensorFlow to check (default: this one)"
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="S",
        help="time limit for the TensorFlow worker (default 300)",
    )
    p.add_argument(
        "--memory-limit", type=int, metavar="MiB", help="cap the worker's GPU memory instead of memory growth"
    )
    p.add_argument(
        "--from",
        dest="from_report",
        metavar="REPORT.json",
        help="judge a saved report's facts instead of this machine",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tfdoctor",
        description="Does TensorFlow really train on this machine's NVIDIA GPU? If not, why, and the fix.",
    )
    parser.add_argument("--version", action="version", version=f"tfdoctor {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    check = sub.add_parser(
        "check", help="probe this machine, prove TensorFlow on the GPU, report pass/fail with fixes"
    )
    fmt = check.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="the report as JSON (schema in tfdoctor/schema/)")
    fmt.add_argument("--markdown", action="store_true", help="the report as Markdown for a bug tracker")
    _add_probe_options(check)
    check.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    check.add_argument(
        "--require-gpus", type=_count, metavar="N", help="fail unless TensorFlow can use at least N GPUs"
    )
    check.add_argument(
        "--only",
        type=_ids,
        action="extend",
        default=[],
        metavar="ID",
        help="only these finding ids or prefixes (e.g. driver)",
    )
    check.add_argument(
        "--skip",
        type=_ids,
        action="extend",
        default=[],
        metavar="ID",
        help="leave out these finding ids or prefixes",
    )
    check.add_argument(
        "--multiworker", action="store_true", help="also run a real collective across the TF_CONFIG cluster"
    )
    check.add_argument("-v", "--verbose", action="store_true", help="details and passing checks' facts")
    check.add_argument("--no-color", action="store_true", help="no colour (NO_COLOR is honoured too)")

    report = sub.add_parser(
        "report", help="everything a maintainer needs, for a bug report or a fleet (JSON by default)"
    )
    fmt = report.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="JSON (the default)")
    fmt.add_argument("--markdown", action="store_true", help="Markdown ready to paste into a GitHub issue")
    report.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of stdout")
    report.add_argument(
        "--anonymize", action="store_true", help="replace hostname, user, home, GPU UUIDs and serials"
    )
    _add_probe_options(report)

    explain = sub.add_parser("explain", help="diagnose a pasted log or command output (FILE, or - for stdin)")
    explain.add_argument("file", nargs="?", default="-", metavar="FILE|-")
    explain.add_argument("--json", action="store_true")
    explain.add_argument("--no-color", action="store_true")

    matrix = sub.add_parser("matrix", help="the bundled compatibility matrix")
    matrix.add_argument("--tensorflow", metavar="V", help="what this TensorFlow release needs")
    matrix.add_argument("--driver", metavar="V", help="which TensorFlow releases this driver can run")
    matrix.add_argument(
        "--cuda", metavar="V", help="minimum driver for this CUDA, and TF releases built with it"
    )
    matrix.add_argument(
        "--platform", choices=("linux", "wsl2", "windows"), default="linux", help="which driver column to use"
    )
    matrix.add_argument("--json", action="store_true")

    fleet = sub.add_parser("fleet", help="many nodes' reports side by side, drift highlighted")
    fleet.add_argument("reports", nargs="+", metavar="REPORT.json|DIR")
    fleet.add_argument("--json", action="store_true")
    fleet.add_argument("--no-color", action="store_true")

    sub.add_parser("checks", help="the catalogue: every finding id and what it means")
    return parser


def _color(args: argparse.Namespace) -> bool:
    return not getattr(args, "no_color", False) and "NO_COLOR" not in os.environ


def _context(args: argparse.Namespace) -> Any:
    from tfdoctor.probes import Context

    python = args.python or sys.executable
    if args.python and not os.access(python, os.X_OK):
        raise UsageError(f"tfdoctor: --python {python}: not an executable file")
    if args.timeout <= 0:
        raise UsageError("tfdoctor: --timeout must be positive")
    return Context(
        python=python,
        timeout=min(10.0, args.timeout),
        worker_timeout=args.timeout,
        memory_limit_mib=args.memory_limit,
        multiworker=getattr(args, "multiworker", False),
    )


def _make_report(args: argparse.Namespace, mode_default: str = "full") -> Any:
    from tfdoctor.compat import load_matrix

    matrix = load_matrix()
    only = tuple(getattr(args, "only", ()) or ())
    skip = tuple(getattr(args, "skip", ()) or ())
    if args.from_report:
        from tfdoctor.report import build_report, load_report

        saved = load_report(args.from_report)
        facts = saved["facts"]
        if getattr(args, "require_gpus", None) is not None:
            facts = {**facts, "options": {**(facts.get("options") or {}), "require_gpus": args.require_gpus}}
        return build_report(
            saved.get("mode") or mode_default, facts, matrix, only, skip, saved.get("timings")
        )
    from tfdoctor import pipeline

    opts = pipeline.Options(
        context=_context(args),
        quick=args.quick,
        only=only,
        skip=skip,
        require_gpus=getattr(args, "require_gpus", None),
    )
    return pipeline.run(opts, matrix)


def _emit(text: str, output: str | None = None) -> None:
    if output:
        try:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise UsageError(f"tfdoctor: cannot write {output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def cmd_check(args: argparse.Namespace) -> int:
    from tfdoctor.model import Status

    report = _make_report(args)
    data = report.to_dict()
    if args.json:
        from tfdoctor.render.json import dumps

        _emit(dumps(data))
    elif args.markdown:
        from tfdoctor.render.markdown import render

        _emit(render(data))
    else:
        from tfdoctor.render.terminal import render

        render(data, verbose=args.verbose, color=_color(args))
    worst = report.status
    if worst == Status.FAIL or (args.strict and worst == Status.WARN):
        return EXIT_FAIL
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from tfdoctor.model import Status

    report = _make_report(args)
    data = report.to_dict()
    if args.anonymize:
        from tfdoctor.privacy import anonymize

        data = anonymize(data)
    if args.markdown:
        from tfdoctor.render.markdown import render

        _emit(render(data), args.output)
    else:
        from tfdoctor.render.json import dumps

        _emit(dumps(data), args.output)
    return EXIT_FAIL if report.status == Status.FAIL else EXIT_OK


def cmd_explain(args: argparse.Namespace) -> int:
    from tfdoctor.explain import explain_command

    return explain_command(args.file, as_json=args.json, color=_color(args))


def cmd_matrix(args: argparse.Namespace) -> int:
    from tfdoctor.compat import matrix_command

    return matrix_command(
        tensorflow=args.tensorflow,
        driver=args.driver,
        cuda=args.cuda,
        as_json=args.json,
        platform=args.platform,
    )


def cmd_fleet(args: argparse.Namespace) -> int:
    from tfdoctor.fleet import fleet_command

    return fleet_command(args.reports, as_json=args.json, color=_color(args))


def cmd_checks(args: argparse.Namespace) -> int:
    from tfdoctor.checks import catalogue_text

    sys.stdout.write(catalogue_text())
    return EXIT_OK


HANDLERS = {
    "check": cmd_check,
    "report": cmd_report,
    "explain": cmd_explain,
    "matrix": cmd_matrix,
    "fleet": cmd_fleet,
    "checks": cmd_checks,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help()
            return EXIT_USAGE
        return HANDLERS[args.command](args)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("tfdoctor: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - never a traceback for a user
        from tfdoctor.errors import describe

        message, code = describe(exc)
        print(message, file=sys.stderr)
        if os.environ.get("TFDOCTOR_DEBUG"):
            raise
        return code
