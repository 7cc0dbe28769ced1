"""`tfdoctor explain FILE|-`: diagnose a pasted log or command output.

Exit 0 when nothing failed, 1 when a finding failed, 2 when the input is unreadable, empty or binary.
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import BinaryIO

from tfdoctor.commands import EXIT_FAIL, EXIT_OK, UsageError, color, emit

HEAD = 8192  # bytes looked at to tell text from binary


def _open(file: str) -> tuple[BinaryIO, str]:
    if file == "-":
        if sys.stdin is None:
            raise UsageError("tfdoctor: explain: no standard input to read")
        if sys.stdin.isatty():
            print("Paste the output to explain, then press Ctrl-D (Ctrl-Z Enter on Windows):",
                  file=sys.stderr)
        return sys.stdin.buffer, "standard input"
    try:
        return open(file, "rb"), file  # noqa: SIM115 - closed by the caller
    except IsADirectoryError:
        raise UsageError(f"tfdoctor: explain: {file} is a directory, not a file") from None
    except OSError as exc:
        raise UsageError(f"tfdoctor: explain: cannot read {file}: {exc.strerror or exc}") from None


def read_input(file: str) -> tuple[BinaryIO, str]:
    """The input as a binary stream, its first bytes checked: empty or binary input is an input error."""
    from tfdoctor.logs.lines import looks_binary

    fh, name = _open(file)
    try:
        head = fh.read(HEAD)
    except OSError as exc:
        raise UsageError(f"tfdoctor: explain: cannot read {name}: {exc.strerror or exc}") from None
    if not head.strip():
        raise UsageError(f"tfdoctor: explain: {name} is empty: paste the output of the failing command")
    if looks_binary(head):
        raise UsageError(f"tfdoctor: explain: {name} looks binary, not text: "
                         "give a log or a command's output")
    # Fewer bytes than asked means the input ended (on a terminal, Ctrl-D is not sticky: reading
    # on would wait for more): then the head is all there is.
    rest = fh if len(head) >= HEAD else io.BytesIO(b"")
    if rest is not fh and fh is not sys.stdin.buffer:
        fh.close()
    return _Chain(head, rest), name


class _Chain(io.RawIOBase):
    """The bytes already read, then the rest of the stream (so nothing read twice or lost)."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = io.BytesIO(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:  # type: ignore[override]
        data = self._head.read(size if size is not None and size >= 0 else -1)
        if size is None or size < 0:
            return data + self._rest.read()
        return data + self._rest.read(size - len(data)) if len(data) < size else data

    def readline(self, size: int | None = -1) -> bytes:  # type: ignore[override]
        line = self._head.readline(size if size is not None and size >= 0 else -1)
        if line.endswith(b"\n") or (size is not None and size >= 0 and len(line) >= size):
            return line
        more = self._rest.readline((size - len(line)) if size is not None and size >= 0 else -1)
        return line + more

    def close(self) -> None:
        if self._rest is not sys.stdin.buffer:
            self._rest.close()
        super().close()


def run(args: argparse.Namespace) -> int:
    from tfdoctor.logs.lines import read_chunks
    from tfdoctor.model import Status
    from tfdoctor.report import explain_report

    fh, name = read_input(args.file)
    try:
        report = explain_report(read_chunks(fh))
    except OSError as exc:
        raise UsageError(f"tfdoctor: explain: cannot read {name}: {exc.strerror or exc}") from None
    finally:
        fh.close()
    data = report.to_dict()
    if args.json:
        from tfdoctor.render.json import dumps

        emit(dumps(data))
    else:
        from tfdoctor.render.terminal import render

        render(data, verbose=getattr(args, "verbose", False), color=color(args))
        if not report.findings:
            lines = (data["facts"].get("log") or {}).get("lines_read")
            print(f"tfdoctor explain: read {lines} lines of {name}; no known failure signature found.")
    return EXIT_FAIL if report.status == Status.FAIL else EXIT_OK
