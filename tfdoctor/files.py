"""Writing files safely: a regular file is replaced atomically (a temporary file beside it, then a
rename), never written through a symlink at the target; a character device or FIFO (`/dev/stdout`,
`/proc/self/fd/1`, a terminal, a pipe) is written through, never replaced. A new file gets the
umask's mode, a replaced one keeps its own."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path


class OutputError(Exception):
    """The output file cannot be written: one plain line naming it."""


def _stream(target: Path) -> bool:
    """Whether the output is written through: the target (its symlinks followed) is a character
    device or a FIFO, or a link to this process's own stdout or stderr (`/dev/stdout` redirected to
    a file)."""
    try:
        st = os.stat(target)
    except OSError:
        return False
    if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        return True
    return target.is_symlink() and any(_same(st, fd) for fd in (1, 2))


def _same(st: os.stat_result, fd: int) -> bool:
    try:
        own = os.fstat(fd)
    except OSError:
        return False
    return (own.st_dev, own.st_ino) == (st.st_dev, st.st_ino)


def check_writable(path: str | os.PathLike[str]) -> Path:
    """Validate an output path before any slow work: a regular file (or none yet) in a folder where
    a file can really be created, or a character device or FIFO that opens for writing. Returns the
    path; raises OutputError with the reason."""
    if not str(path).strip():
        raise OutputError("the output file name is empty")
    if "\x00" in str(path):
        raise OutputError("the output file name contains a NUL character")
    target = Path(path)
    if target.is_dir():
        raise OutputError(f"{target} is a directory, not a file")
    if _stream(target):  # opened only to write: a FIFO's reader would see an end of file here
        if not os.access(target, os.W_OK):
            raise OutputError(f"{target} is not writable")
        return target
    try:
        mode: int | None = os.lstat(target).st_mode
    except FileNotFoundError:
        mode = None  # absent: created
    except OSError as exc:
        raise OutputError(f"{target}: {exc.strerror or exc}") from None
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise OutputError(f"{target} is not a regular file, a character device or a FIFO")
    folder = _folder(target)
    if not folder.is_dir():
        raise OutputError(f"{target}: folder {folder} does not exist")
    try:  # what the write will do, tried now: /proc, a read-only mount, a full quota all say no here
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OutputError(f"{target}: cannot create a file in {folder}: {exc.strerror or exc}") from None
    os.close(fd)
    os.unlink(tmp)
    return target


def _folder(target: Path) -> Path:
    return target.parent if str(target.parent) else Path(".")


def _open_stream(target: Path) -> int:
    """Open a character device or FIFO for writing; a FIFO nobody reads is an error, not a hang."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OutputError(f"{target} is a FIFO that nobody reads") from None
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
    os.set_blocking(fd, True)
    return fd


def _umask() -> int:
    """This process's umask, read without setting it (Linux), else set and put back at once."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike[str], text: str) -> None:
    """Write text to the output: through a character device or FIFO; else to a temporary file in
    the target's folder, renamed over the target, with the mode the target had (a new file: 0666
    less the umask).

    A symlink at the target is replaced, not followed (unless it leads to a device or FIFO); a
    failed write leaves the previous file intact and no temporary file behind.
    """
    target = check_writable(path)
    if _stream(target):
        fd = _open_stream(target)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
        return
    try:
        old = os.lstat(target)
        mode = stat.S_IMODE(old.st_mode) if stat.S_ISREG(old.st_mode) else None
    except OSError:
        mode = None
    if mode is None:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=_folder(target))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
        raise
