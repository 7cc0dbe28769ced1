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


STATIC_TIMEOUT = 10.0  # seconds for each short external command (nvidia-smi, nvcc, ldconfig, ...)
PYTHON_CHECK_TIMEOUT = 10.0
_PY_MARK = "TFDOCTOR-PYTHON"
# Python 2 and 3 alike: a marker and the version, nothing else.
_PY_CHECK = (
    "import sys; sys.stdout.write('%s %d.%d.%d\\n' % (('TFDOCTOR-PYTHON',) + tuple(sys.version_info[:3])))"
)


def _same_interpreter(path: str) -> bool:
    return os.path.abspath(path) == os.path.abspath(sys.executable)


def resolve_python(value: str, env: dict[str, str] | None = None) -> str:
    """--python as an absolute path to a working Python interpreter; UsageError (one line) otherwise.

    A bare name (`python3`) is looked up on PATH; a directory, a file that is not executable and
    a program that does not answer as Python does (run with a short `-c`, its output capped) are
    refused before any probe starts.
    """
    import shutil

    env = dict(os.environ if env is None else env)
    shown = f"--python {value}"
    if not value.strip():
        raise UsageError("tfdoctor: --python: the interpreter path is empty")
    if os.sep not in value and not (os.altsep and os.altsep in value):
        found = shutil.which(value, path=env.get("PATH", os.defpath))
        if not found:
            raise UsageError(
                f"tfdoctor: {shown}: not found on PATH (give a path, e.g. /path/to/venv/bin/python)"
            )
        path = os.path.abspath(found)
    else:
        path = os.path.abspath(value)
    if os.path.isdir(path):
        inside = os.path.join(path, "bin", "python")
        hint = f" (did you mean {inside}?)" if os.access(inside, os.X_OK) else ""
        raise UsageError(f"tfdoctor: {shown}: is a directory, not an executable file{hint}")
    if not os.path.exists(path):
        raise UsageError(f"tfdoctor: {shown}: not an executable file (no such file)")
    if not os.access(path, os.X_OK):
        raise UsageError(f"tfdoctor: {shown}: not an executable file (permission denied)")
    if _same_interpreter(path):
        return path
    import tempfile

    from tfdoctor import proc

    res = proc.run([path, "-c", _PY_CHECK], timeout=PYTHON_CHECK_TIMEOUT, env=env, max_bytes=4096,
                   cwd=tempfile.gettempdir(), head_bytes=4096, tail_bytes=4096)
    first = next((line for line in res.stdout.splitlines() if line.strip()), "")
    if res.ok and first.startswith(_PY_MARK + " "):
        return path
    if res.timed_out or res.output_limit or res.error:
        why = res.describe()
    elif res.returncode:
        why = f"it exited with status {res.returncode} instead of answering as Python does"
    else:
        why = "it did not answer as Python does"
    raise UsageError(f"tfdoctor: {shown}: not a Python interpreter ({why})")


def context(args: argparse.Namespace) -> Any:
    """The probes' Context from the command line (every value already validated by cli.py)."""
    from tfdoctor.probes import Context

    python = resolve_python(args.python) if args.python else sys.executable
    return Context(
        python=python,
        timeout=STATIC_TIMEOUT,
        worker_timeout=args.timeout if args.timeout is not None else DEFAULT_TIMEOUT,
        memory_limit_mib=args.memory_limit,
        multiworker=bool(getattr(args, "multiworker", False)),
    )


DEFAULT_TIMEOUT = 300.0
NOT_WITH_FROM = (("python", "--python"), ("quick", "--quick"), ("timeout", "--timeout"),
                 ("memory_limit", "--memory-limit"), ("multiworker", "--multiworker"))


def _from_options(args: argparse.Namespace, saved: dict[str, Any], only: tuple[str, ...],
                  skip: tuple[str, ...]) -> dict[str, Any]:
    """The saved run's options, with what this command line gives instead."""
    options = dict(saved) if isinstance(saved, dict) else {}
    if getattr(args, "require_gpus", None) is not None:
        options["require_gpus"] = args.require_gpus
    if getattr(args, "allow_cpu", False):
        options["allow_cpu"] = True
    if only or skip:
        for key in ("only", "skip", "checks_run"):
            options.pop(key, None)
    return options


def make_report(args: argparse.Namespace) -> Any:
    """The Report for `check` and `report`: this machine's, or a saved report's facts judged again.

    Every input is checked here, before any slow work: --only/--skip names, --from and the flags
    it cannot honour, --python (run once, briefly).
    """
    only, skip = selection(args)
    if args.from_report:
        given = [flag for attr, flag in NOT_WITH_FROM if getattr(args, attr, None) is not None]
        if given:
            raise UsageError(
                f"tfdoctor: --from judges a saved report's facts; it cannot honour {', '.join(given)} "
                "(those apply to probing a machine): leave them out"
            )
        from tfdoctor.report import build_report, load_report

        saved = load_report(args.from_report)
        if saved.get("mode") == "explain":
            raise UsageError(
                f"tfdoctor: {args.from_report} is an `explain` report (facts read from a pasted log, not "
                "probed); --from needs a report from `tfdoctor check --json` or `tfdoctor report`"
            )
        facts = dict(saved["facts"])
        facts["options"] = _from_options(args, facts.get("options"), only, skip)
        from tfdoctor.compat import load_matrix

        mode = saved.get("mode") or "full"
        return build_report(mode, facts, load_matrix(), only, skip, saved.get("timings"))
    ctx = context(args)
    from tfdoctor import pipeline
    from tfdoctor.compat import load_matrix

    opts = pipeline.Options(
        context=ctx,
        quick=bool(args.quick),
        only=only,
        skip=skip,
        require_gpus=getattr(args, "require_gpus", None),
        allow_cpu=bool(getattr(args, "allow_cpu", False)),
    )
    return pipeline.run(opts, load_matrix)  # loaded while the probes work
