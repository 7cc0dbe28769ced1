"""Command line: argparse and dispatch to tfdoctor/commands/<name>.py; nothing heavy at import."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from tfdoctor import __version__
from tfdoctor.commands import EXIT_OK, EXIT_USAGE, MAX_TIMEOUT, UsageError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, as the contract says
        raise UsageError(f"{self.prog}: {message}")




def _count(text: str) -> int:
    text = text.strip()
    if not text.lstrip("-").isdigit() or len(text) > 6:
        raise argparse.ArgumentTypeError(f"expected a count of GPUs (0 or more), not {text[:20]!r}")
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def _timeout(text: str) -> float:
    """Seconds for the whole run: finite, positive, at most a day."""
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


def _add_no_color(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-color", action="store_true", help="no colour (also when NO_COLOR is set and not empty)"
    )


def _add_probe_options(p: argparse.ArgumentParser) -> None:
    # Defaults of None tell "given" from "not given" (--from refuses what it cannot honour).
    p.add_argument(
        "--quick",
        action="store_true",
        default=None,
        help="static facts only (driver, libraries, versions): never imports TensorFlow, so it answers"
        " in about a second but cannot prove that TensorFlow runs on the GPU",
    )
    p.add_argument(
        "--python",
        metavar="PATH",
        help="the Python interpreter whose TensorFlow to check, e.g. ~/venv/bin/python (default: the"
        " one running tfdoctor); tfdoctor need not be installed there",
    )
    p.add_argument(
        "--timeout",
        type=_timeout,
        default=None,
        metavar="S",
        help="seconds the whole run may take, the TensorFlow worker and every other probe included"
        " (default 300; a GPU whose kernels are JIT-compiled on first use can need minutes); each"
        " short command also keeps its own limit of 10 s",
    )
    p.add_argument(
        "--memory-limit",
        type=_mib,
        metavar="MiB",
        help="give the worker at most this much GPU memory instead of growing on demand (for a GPU"
        " shared with other jobs)",
    )
    p.add_argument(
        "--from",
        dest="from_report",
        metavar="REPORT.json",
        help="judge the facts of a saved `tfdoctor report` (another machine's) instead of probing"
        " this one",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tfdoctor",
        description="Does TensorFlow really train on this machine's NVIDIA GPU? If not, why, and the fix.",
    )
    parser.add_argument("--version", action="version", version=f"tfdoctor {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    text = "probe this machine, prove TensorFlow on the GPU, report pass/fail with fixes"
    check = sub.add_parser(
        "check",
        help=text,
        description=f"{text[0].upper()}{text[1:]}. Exit status: 0 nothing failed, 1 something failed,"
        " 2 usage or input error, 3 tfdoctor's own error.",
    )
    fmt = check.add_mutually_exclusive_group()
    fmt.add_argument(
        "--json", action="store_true", help="print the report as JSON (schema: tfdoctor/schema/) for scripts"
    )
    fmt.add_argument(
        "--markdown", action="store_true", help="print the report as Markdown to paste into a GitHub issue"
    )
    _add_probe_options(check)
    check.add_argument("--strict", action="store_true", help="exit 1 on warnings too, not only on failures")
    check.add_argument(
        "--require-gpus",
        type=_count,
        metavar="N",
        help="fail (exit 1) unless TensorFlow can use at least N GPUs; for provisioning scripts",
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
        help="run only these checks, whole: a finding id, a prefix (e.g. driver) or a check name, comma-"
        " or space-separated; `tfdoctor checks` lists them; an unknown name is an error",
    )
    check.add_argument(
        "--skip",
        type=_ids,
        action="extend",
        default=[],
        metavar="ID",
        help="leave out these checks (a finding id, a prefix or a check name, as for --only)",
    )
    check.add_argument(
        "--multiworker",
        action="store_true",
        default=None,
        help="also run a real all-reduce across the cluster that TF_CONFIG describes (opens network"
        " connections to its peers)",
    )
    check.add_argument(
        "--anonymize",
        action="store_true",
        help="with --json/--markdown: replace hostname, user name, home directory, GPU UUIDs and"
        " serials, as `tfdoctor report --anonymize` does",
    )
    check.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="open everything: full details and log evidence, the findings that follow from a cause,"
        " passing and skipped checks' details, finding ids and docs links",
    )
    _add_no_color(check)

    text = "everything a maintainer needs, for a bug report or a fleet (JSON by default)"
    report = sub.add_parser(
        "report",
        help=text,
        description=f"{text[0].upper()}{text[1:]}. Secrets in environment variables and logs are"
        " always redacted.",
    )
    fmt = report.add_mutually_exclusive_group()
    fmt.add_argument(
        "--json", action="store_true", help="JSON (the default): for `tfdoctor fleet` and `check --from`"
    )
    fmt.add_argument("--markdown", action="store_true", help="Markdown ready to paste into a GitHub issue")
    fmt.add_argument(
        "--prometheus",
        metavar="FILE",
        help="write node_exporter textfile-collector metrics to FILE, atomically (e.g. "
        "/var/lib/node_exporter/textfile_collector/tfdoctor.prom); see docs/monitoring.md",
    )
    report.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="write the report to FILE (replaced atomically) instead of printing it",
    )
    report.add_argument(
        "--anonymize",
        action="store_true",
        help="also replace the hostname, user name, home directory, GPU UUIDs and serials",
    )
    _add_probe_options(report)

    text = "diagnose a pasted log or command output (FILE, or - for stdin)"
    explain = sub.add_parser(
        "explain",
        help=text,
        description=f"{text[0].upper()}{text[1:]}: TensorFlow's log, nvidia-smi, nvcc --version, pip"
        " errors. The same checks as `tfdoctor check` judge what the text shows.",
    )
    explain.add_argument(
        "file",
        nargs="?",
        default="-",
        metavar="FILE|-",
        help="the text to read: a file, or - (the default) for standard input",
    )
    explain.add_argument("--json", action="store_true", help="print the report as JSON (same shape as check)")
    _add_no_color(explain)

    text = "the bundled compatibility matrix: TensorFlow × Python, CUDA, cuDNN, driver"
    matrix = sub.add_parser(
        "matrix",
        help=text,
        description=f"{text[0].upper()}{text[1:]}. With no option: every release as a table, this"
        " machine's TensorFlow highlighted. With one option: the answer to one question.",
    )
    matrix.add_argument(
        "--tensorflow", metavar="V", help="what this TensorFlow release (e.g. 2.15) needs: Python, CUDA,"
        " cuDNN, minimum driver, GPUs"
    )
    matrix.add_argument(
        "--python", metavar="V", help="which TensorFlow releases have wheels for this Python (with --driver: "
        "and run on that driver)"
    )
    matrix.add_argument(
        "--gpu",
        metavar="NAME",
        help="what a GPU model can run: compute capability, architecture, last driver branch, newest "
        'TensorFlow with kernels for it (e.g. "GeForce GTX 680")',
    )
    matrix.add_argument(
        "--driver", metavar="V", help="which TensorFlow releases this NVIDIA driver (e.g. 535.104.05) can run"
    )
    matrix.add_argument(
        "--cuda", metavar="V", help="the minimum driver for this CUDA version, and the TensorFlow releases"
        " built with it"
    )
    matrix.add_argument(
        "--platform",
        choices=("linux", "wsl2", "windows"),
        default="linux",
        help="whose driver versions to use: linux (default), or wsl2/windows for a Windows host driver",
    )
    matrix.add_argument("--json", action="store_true", help="print the answer as JSON")

    text = "many nodes' reports side by side, drift highlighted"
    fleet = sub.add_parser(
        "fleet",
        help=text,
        description=f"{text[0].upper()}{text[1:]}. Exit status: 0 all pass, 1 a node failed, 2 a report"
        " could not be read.",
    )
    fleet.add_argument(
        "reports",
        nargs="+",
        metavar="REPORT.json|DIR",
        help="saved `tfdoctor report` files, or directories holding them (*.json, recursively)",
    )
    fleet.add_argument("--json", action="store_true", help="print the table and the drift as JSON")
    _add_no_color(fleet)

    text = "repair the root causes in the target environment, then check again"
    fix = sub.add_parser(
        "fix",
        help=text,
        description=f"{text[0].upper()}{text[1:]}. Runs only pip and activation-script changes inside the"
        " environment's prefix (a venv or conda env), after a snapshot; drivers, containers and reboots are"
        " printed, never run. Exit status: 0 every repaired root cause is gone, 1 otherwise (a failed step"
        " restores the snapshot), 2 usage error.",
    )
    fix.add_argument("--python", metavar="PATH", help="the environment's interpreter (default: this one)")
    mode = fix.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="show the plan and exit (0/1 as check)")
    mode.add_argument("--yes", "-y", action="store_true", help="apply without asking (for scripts)")
    fix.add_argument("--undo", action="store_true", help="restore the snapshot the last fix took")
    fix.add_argument("--allow-tensorflow-change", action="store_true",
                     help="let the plan change TensorFlow's version (refused otherwise)")
    fix.add_argument("--timeout", type=_timeout, metavar="S",
                     help="seconds for each check's TensorFlow worker")

    sub.add_parser(
        "checks",
        help="the catalogue: every finding id and what it means",
        description="The catalogue: every finding id tfdoctor can report, what it means and its docs.",
    )
    return parser


COMMANDS = ("check", "report", "explain", "matrix", "fleet", "fix", "checks")
PROBING = ("check", "report", "fix")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help()
            return EXIT_USAGE
        module = importlib.import_module(f"tfdoctor.commands.{args.command}")
        if args.command not in PROBING:
            return module.run(args)
        from tfdoctor import proc

        if not getattr(args, "from_report", None):
            proc.enable_subreaper()  # grandchildren that setsid away from a probe are ours to kill
        try:
            with proc.guarded():  # SIGTERM, SIGHUP, SIGQUIT unwind the run; its processes die with it
                return module.run(args)
        except proc.Stopped as stop:
            print(f"tfdoctor: stopped by {stop.name}", file=sys.stderr)
            return 128 + stop.signum
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
