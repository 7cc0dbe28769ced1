"""Writing files safely: atomically, beside the target, never through a symlink at the target."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class OutputError(Exception):
    """The output file cannot be written: one plain line naming it."""


def check_writable(path: str | os.PathLike[str]) -> Path:
    """Validate an output path before any slow work: not a directory nor a device, pipe or socket,
    its folder exists and is writable. Returns the path; raises OutputError with the reason."""
    if not str(path).strip():
        raise OutputError("the output file name is empty")
    if "\x00" in str(path):
        raise OutputError("the output file name contains a NUL character")
    target = Path(path)
    if target.is_dir():
        raise OutputError(f"{target} is a directory, not a file")
    try:
        mode: int | None = os.lstat(target).st_mode
    except FileNotFoundError:
        mode = None  # absent: created
    except OSError as exc:
        raise OutputError(f"{target}: {exc.strerror or exc}") from None
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise OutputError(f"{target} is not a regular file (a device, pipe or socket would be replaced)")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise OutputError(f"{target}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{target}: folder {folder} is not writable")
    return target


def atomic_write(path: str | os.PathLike[str], text: str) -> None:
    """Write text to a temporary file in the target's folder, then rename it over the target.

    A symlink at the target is replaced, not followed; a failed write leaves the previous file
    intact and no temporary file behind.
    """
    target = check_writable(path)
    folder = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
        raise
