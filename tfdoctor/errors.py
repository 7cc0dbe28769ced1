"""Turn the exceptions that end a command into one line on stderr and an exit code."""

from __future__ import annotations


def describe(exc: BaseException) -> tuple[str, int]:
    """Input errors (compat data, saved reports, files) exit 2; anything else is a bug (exit 3)."""
    from tfdoctor.compat import CompatError
    from tfdoctor.report import ReportError

    if isinstance(exc, (CompatError, ReportError)):
        return f"tfdoctor: {exc}", 2
    if isinstance(exc, OSError):
        return f"tfdoctor: {exc.filename or ''}: {exc.strerror or exc}".replace(": :", ":"), 2
    return (
        f"tfdoctor: internal error: {type(exc).__name__}: {exc} "
        "(set TFDOCTOR_DEBUG=1 for the traceback, and please report it)",
        3,
    )
