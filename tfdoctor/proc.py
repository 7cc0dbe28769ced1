"""The one way tfdoctor runs an external command: argv list, timeout, never raises."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Result:
    argv: tuple[str, ...]
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    error: str | None = None  # could not start (not found, permission denied, ...)

    @property
    def ok(self) -> bool:
        return self.error is None and not self.timed_out and self.returncode == 0

    def describe(self) -> str:
        """Plain words for what went wrong, or "" when the command succeeded."""
        if self.error:
            return self.error
        if self.timed_out:
            return f"{self.argv[0]} did not answer within {self.seconds:.0f} s and was killed"
        if self.returncode is not None and self.returncode < 0:
            try:
                name = signal.Signals(-self.returncode).name
            except ValueError:
                name = f"signal {-self.returncode}"
            return f"{self.argv[0]} was killed by {name}"
        if self.returncode:
            return f"{self.argv[0]} exited with status {self.returncode}"
        return ""


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            proc.kill()
        except OSError:
            pass


def run(
    argv: Sequence[str],
    timeout: float,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    cwd: str | None = None,
    on_line: Callable[[str], None] | None = None,
) -> Result:
    """Run argv (no shell) in its own process group; on timeout kill the whole group.

    `on_line`, when given, is called with each complete line of stdout (decoded, without its
    newline) as it arrives, from a reader thread; the Result is the same as without it."""
    argv = tuple(str(a) for a in argv)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            start_new_session=True,
        )
    except FileNotFoundError:
        return Result(argv, None, "", "", 0.0, error=f"{argv[0]} not found")
    except PermissionError:
        return Result(argv, None, "", "", 0.0, error=f"{argv[0]} is not executable (permission denied)")
    except OSError as exc:
        return Result(argv, None, "", "", 0.0, error=f"{argv[0]} could not be started: {exc.strerror or exc}")
    timed_out = False
    try:
        if on_line is not None:
            out, err = _communicate_lines(proc, stdin, timeout, on_line)
        else:
            out, err = proc.communicate(stdin.encode() if stdin is not None else None, timeout=timeout)
    except _LinesTimedOut as exc:
        timed_out = True
        _kill_group(proc)
        out, err = exc.drain()
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            out, err = b"", b""
    else:
        # Children that outlive their parent (daemons, stuck helpers) go with it.
        _kill_group(proc)
    return Result(
        argv,
        None if timed_out else proc.returncode,
        (out or b"").decode("utf-8", errors="replace"),
        (err or b"").decode("utf-8", errors="replace"),
        time.monotonic() - start,
        timed_out=timed_out,
    )


class _LinesTimedOut(Exception):
    def __init__(self, drain: Callable[[], tuple[bytes, bytes]]) -> None:
        self.drain = drain


def _communicate_lines(
    proc: subprocess.Popen, stdin: str | None, timeout: float, on_line: Callable[[str], None]
) -> tuple[bytes, bytes]:
    """communicate(), with stdout read line by line and each complete line handed to on_line.
    On timeout raises _LinesTimedOut, whose drain() returns what was read once the group is
    killed (the readers end at EOF; 5 s at most)."""
    deadline = time.monotonic() + timeout
    out: list[bytes] = []
    err: list[bytes] = []

    def read_out() -> None:
        for raw in iter(proc.stdout.readline, b""):
            out.append(raw)
            if raw.endswith(b"\n"):
                try:
                    on_line(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
                except Exception:  # noqa: BLE001 - a listener never breaks the run
                    pass

    def read_err() -> None:
        err.append(proc.stderr.read())

    readers = [threading.Thread(target=f, daemon=True) for f in (read_out, read_err)]
    for t in readers:
        t.start()
    if proc.stdin is not None:
        try:
            proc.stdin.write((stdin or "").encode())
            proc.stdin.close()
        except OSError:
            pass

    def drain() -> tuple[bytes, bytes]:
        end = time.monotonic() + 5
        for t in readers:
            t.join(max(0.0, end - time.monotonic()))
        return b"".join(out), b"".join(err)

    for t in readers:
        t.join(max(0.0, deadline - time.monotonic()))
    try:
        if any(t.is_alive() for t in readers):
            raise subprocess.TimeoutExpired(proc.args, timeout)
        proc.wait(max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise _LinesTimedOut(drain) from None
    return b"".join(out), b"".join(err)


def trim(text: str, limit: int = 20_000) -> str:
    """Keep the head and tail of a long capture so a report stays a sane size."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters trimmed ...]\n{text[-half:]}"
