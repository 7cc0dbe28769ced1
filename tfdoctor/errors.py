"""Turn the exceptions that end a command into one line on stderr and an exit code.

2: the input is at fault (compat data, a saved report, a file that cannot be read or written);
3: tfdoctor itself is (a bug): the line says so and how to report it.
"""

from __future__ import annotations


def describe(exc: BaseException) -> tuple[str, int]:
    """Input errors (compat data, saved reports, files) exit 2; anything else is a bug (exit 3)."""
    from tfdoctor.compat import CompatError
    from tfdoctor.files import OutputError
    from tfdoctor.jsonsafe import InputError
    from tfdoctor.report import ReportError

    if isinstance(exc, (CompatError, ReportError, OutputError, InputError)):
        return f"tfdoctor: {exc}", 2
    if isinstance(exc, OSError):
        return f"tfdoctor: {exc.filename or ''}: {exc.strerror or exc}".replace(": :", ":"), 2
    text = " ".join(str(exc).split())[:300]
    return (
        f"tfdoctor: internal error: {type(exc).__name__}: {text} "
        "(a bug in tfdoctor: set TFDOCTOR_DEBUG=1 for the traceback, and please report it with that "
        "traceback and `tfdoctor report` attached)",
        3,
    )
