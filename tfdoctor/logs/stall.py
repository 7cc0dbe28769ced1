"""The time TensorFlow takes to create its GPU devices, read from its log's timestamps.

Between "Adding visible gpu devices: 0" and its next line TensorFlow creates a CUDA context on each
GPU. A CUDA runtime that loads its kernels eagerly (before CUDA 11.7's lazy loading) loads them all
there, and on a GPU the build has no native kernels (SASS) for, the driver JIT-compiles every
kernel from PTX first: minutes instead of a second or two. A gap of that size is the JIT's own
signature, seen in logs that name neither the GPU's compute capability nor TensorFlow's build.
The timestamps are absl's ("2024-05-01 10:58:31.228142: I ..."); the record's own is the last one
before its words, the next record's the first one after them (pasted logs join records on a line).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

PHRASE = "Adding visible gpu device"
TRIGGER = PHRASE.lower()
STALL_S = 30.0  # healthy start-ups in the corpus take at most 12 s here, on Windows with several GPUs
_WITHIN = 8  # lines after the record where the next timestamp is looked for
_SCAN = 4096  # characters of a line searched for a timestamp
_EPOCH = datetime(1970, 1, 1)
_STAMP = re.compile(r"(?<!\d)(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?")


def _seconds(m: re.Match[str]) -> float | None:
    try:
        at = datetime(*(int(m.group(i)) for i in range(1, 7)))
    except ValueError:  # "2024-13-45 ...": no date
        return None
    fraction = m.group(7) or ""
    # (seconds from a fixed naive moment: no local time zone, so no daylight-saving hour in a gap)
    return (at - _EPOCH).total_seconds() + (int(fraction) / 10 ** len(fraction) if fraction else 0.0)


class DeviceStall:
    """Fed every raw line while `pending`, and each line holding PHRASE; `feed` returns an evidence
    item ("cc-jit") when the next record came STALL_S or more after the devices were added."""

    def __init__(self) -> None:
        self._added: tuple[float, int, str] | None = None  # (its time, its line, its text)

    @property
    def pending(self) -> bool:
        return self._added is not None

    def feed(self, raw: str, line_no: int) -> dict[str, Any] | None:
        at = raw.find(PHRASE, 0, _SCAN)
        rest = raw[:_SCAN]
        if at >= 0:
            stamps = list(_STAMP.finditer(raw, max(0, at - 200), at))
            when = _seconds(stamps[-1]) if stamps else None
            self._added = None if when is None else (when, line_no, raw[at:at + 200].strip())
            rest = raw[at:_SCAN]
        if self._added is None:
            return None
        when, added_at, text = self._added
        m = _STAMP.search(rest)
        after = _seconds(m) if m else None
        if after is None:
            if line_no - added_at >= _WITHIN:
                self._added = None
            return None
        self._added = None
        gap = after - when
        if not STALL_S <= gap < 86400:
            return None
        return {"kind": "cc-jit", "line": added_at, "text": text, "stall_s": round(gap, 1),
                "via": f"{gap:.0f} s between TensorFlow adding its GPU devices and its next log line"}
