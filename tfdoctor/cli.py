"""Command line: argparse and dispatch to tfdoctor/commands/<name>.py; nothing heavy at import."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from tfdoctor import __version__
from tfdoctor.commands import EXIT_OK, EXIT_USAGE, UsageError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, as the contract says
        raise UsageError(f"{self.prog}: {message}")


MAX_TIMEOUT = 86400.0  # one day: anything longer is a typo, not a time limit


def _count(text: str) -> int:
    text = text.strip()
    if not text.lstrip("-").isdigit() or len(text) > 6:
        raise argparse.ArgumentTypeError(f"expected a count of GPUs (0 or more), not {text[:20]!r}")
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def _timeout(text: str) -> float:
    """Seconds for the TensorFlow worker: finite, positive, at most a day."""
    import math

    try:
        value = float(text) if len(text) < 40 else math.nan
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, not {text[:20]!r}") from None
    if not math.isfinite(value) or value <= 0 or value > MAX_TIMEOUT:
        raise argparse.ArgumentTypeError(
            f"{text[:20]!r} is not a time limit: give seconds above 0 and at most {MAX_TIMEOUT:.0f} (a day)"
        )
    return value


def _mib(text: str) -> int:
    text = text.strip()
    if not text.isdigit() or len(text) > 9 or int(text) == 0:
        raise argparse.ArgumentTypeError(
            f"expected MiB of GPU memory (a positive integer), not {text[:20]!r}"
        )
    return int(text)


def _ids(text: str) -> list[str]:
    return [p for p in text.replace(",", " ").split() if p]


def _add_probe_options(p: argparse.ArgumentParser) -> None:
    # Defaults of None tell "given" from "not given" (--from refuses what it cannot honour).
    p.add_argument(
        "--quick", action="store_true", default=None, help="static facts only; never imports TensorFlow"
    )
    p.add_argument(
        "--python", metavar="PATH", help="the interpreter whose TensorFlow to check (default: this one)"
    )
    p.add_argument(
        "--timeout",
        type=_timeout,
        default=None,
        metavar="S",
        help="time limit for the TensorFlow worker, in seconds (default 300; other probes keep their own"
        " short limits)",
    )
    p.add_argument(
        "--memory-limit",
        type=_mib,
        metavar="MiB",
        help="cap the worker's GPU memory instead of memory growth",
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
        "--allow-cpu",
        action="store_true",
        help="running on the CPU only is expected: GPU absence warns instead of failing",
    )
    check.add_argument(
        "--only",
        type=_ids,
        action="extend",
        default=[],
        metavar="ID",
        help="run only these checks: a finding id, a prefix (e.g. driver) or a check name",
    )
    check.add_argument(
        "--skip",
        type=_ids,
        action="extend",
        default=[],
        metavar="ID",
        help="leave out these checks (id, prefix or check name)",
    )
    check.add_argument(
        "--multiworker",
        action="store_true",
        default=None,
        help="also run a real collective across the TF_CONFIG cluster",
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


COMMANDS = ("check", "report", "explain", "matrix", "fleet", "checks")
PROBING = ("check", "report")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help()
            return EXIT_USAGE
        module = importlib.import_module(f"tfdoctor.commands.{args.command}")
        if args.command in PROBING and not getattr(args, "from_report", None):
            from tfdoctor import proc

            proc.enable_subreaper()  # grandchildren that setsid away from a probe are ours to kill
        return module.run(args)
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
    finally:
        proc_module = sys.modules.get("tfdoctor.proc")
        if proc_module is not None:
            proc_module.shutdown()  # nothing tfdoctor started outlives it
