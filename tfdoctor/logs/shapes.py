"""Line shapes: logs print a few messages many times with other numbers (a time, a step, an address).

A picked line's shape is its text with the digits of its log prefixes (times, thread ids, source lines)
masked and every run of five or more digits as one mark (a counter, an address, a size): a shorter
number (an error code, a GPU's index or model, a version's part) stays, for what a line means may hang
on it ("returned 35" is cudaErrorInsufficientDriver).
The reader (tfdoctor/logs/__init__.py) learns what each shape's lines change as it reads them: a shape
whose lines, twice in a row and in what was read so far (its epoch), changed nothing but counters (how
many of an error, of a notice) is "quiet", and its further lines are not read, only counted, until a line
read changes what they may depend on. A near miss repeated with new numbers then costs a look-up.
What a line changes may still depend on its numbers alone; the reader takes a line that gives any value
(a version, a GPU's index) or keeps an item as never quiet. A line read in the light of the one before it
(a value may follow a line naming TensorFlow, a heading) is learnt paired with that line's shape, and
what each shape asks of the next line (to be read whatever it holds, in its light) is learnt with it.
"""

from __future__ import annotations

import re
from operator import attrgetter
from typing import Any

from tfdoctor.logs.lines import PREFIXES

MAX_SHAPES = 100_000  # shapes remembered (by hash); later new ones are read in full
MAX_SHAPED = 1024  # longer lines have no shape: they are always read
_MASK = bytes.maketrans(b"0123456789", b"0" * 10)
_HEAD = re.compile(rb"[\s>`*#]{0,8}(?:" + "|".join(f"(?:{p})" for p in PREFIXES).encode() + rb")")
_LONG_NUMBER = re.compile(rb"\d\d{4,}")  # (a first digit apart: a faster search)

_SIZED = frozenset({dict, list, set})
_GETTERS: dict[tuple[type, frozenset[str]], tuple[int, Any]] = {}  # the fields read, by class
Delta = tuple[tuple[tuple[str, str], int], ...]  # ((counter, name), added), in a stable order


def shape(raw: bytes) -> int | None:
    """The key of a line's shape (None: too long to have one)."""
    if len(raw) > MAX_SHAPED:
        return None
    cut = 0
    for _ in range(3):  # as normalising strips them (tfdoctor/logs/lines.py)
        m = _HEAD.match(raw, cut)
        if not m or m.end() == cut:
            break
        cut = m.end()
    rest = raw[cut:]
    if b"00000" in rest.translate(_MASK):
        rest = _LONG_NUMBER.sub(b"0+", rest)
    return hash((raw[:cut].translate(_MASK), rest))


class Shape:
    """What the lines of one shape changed: the counters the last one read added to (None: it changed
    more than counters), what it asked of the next line (`after`: whether that one is read whatever it
    holds, and in its light), and the epoch in which two in a row did the same (then it is quiet)."""

    __slots__ = ("after", "delta", "epoch")

    def __init__(self) -> None:
        self.delta: Delta | None = None
        self.after = (False, False)
        self.epoch = -1

    def learn(self, delta: Delta | None, epoch: int, after: tuple[bool, bool]) -> None:
        """A line of this shape was read in `epoch`, adding `delta` to the counters (None: more)."""
        same = delta is not None and delta == self.delta and after == self.after
        self.epoch = epoch if same else -1
        self.delta, self.after = delta, after


class Paying:
    """Whether learning shapes pays: it costs each line read a fingerprint; where few lines are skipped
    (a log of distinct messages), it pauses, for longer each time it did not pay."""

    WINDOW = 4096  # lines read between two looks
    MAX_PAUSE = 64  # windows

    def __init__(self) -> None:
        self.on = True
        self.reads = self.skipped = self.paused = 0
        self.pause = 1  # windows the next pause lasts

    def read(self) -> bool:
        """A line was read (not skipped): whether to go on learning shapes."""
        self.reads += 1
        if self.reads < self.WINDOW:
            return self.on
        if self.paused:
            self.paused -= 1
            self.on = not self.paused
        elif self.skipped * 8 < self.reads:  # fewer than one line in eight skipped
            self.paused, self.on = self.pause, False
            self.pause = min(2 * self.pause, self.MAX_PAUSE)
        else:
            self.pause = 1
        self.reads = self.skipped = 0
        return self.on


def fingerprint(obj: object, leave: frozenset[str] = frozenset()) -> list[Any]:
    """What an object's fields hold, cheaply: a mutable container by its size (what fills one goes through
    a counted setter: Values.set, Values._gpu ...), anything else as it is; `leave`: fields left out."""
    fields = vars(obj)
    known = _GETTERS.get((type(obj), leave))
    if known is None or known[0] != len(fields):
        names = [k for k in fields if k not in leave]
        get = attrgetter(*names) if len(names) > 1 else lambda o: tuple(getattr(o, k) for k in names)
        known = _GETTERS[type(obj), leave] = (len(fields), get)
    return [len(v) if type(v) in _SIZED else v for v in known[1](obj)]


def delta(added: list[tuple[str, str]]) -> Delta:
    """What a line added to each counter, from the (counter, name) it added one to each time."""
    counted: dict[tuple[str, str], int] = {}
    for key in added:
        counted[key] = counted.get(key, 0) + 1
    return tuple(sorted(counted.items()))
