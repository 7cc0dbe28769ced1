"""Untrusted text stays text: strip what a terminal would obey instead of print.

Everything a renderer shows comes from outside (tool outputs, TensorFlow's log, a saved report
someone sent): an `os` of "\\x1b]0;pwned\\x07" would retitle the window, "\\x1b[2J" would clear the
screen, a U+202E would print the rest of a line backwards. `clean` removes, from every string
in a value (dict keys too):

- escape sequences: CSI (ESC [ ... final, and 8-bit CSI U+009B), OSC (ESC ] ... BEL/ST, and
  U+009D), DCS/SOS/PM/APC strings (ESC P/X/^/_ ... ST, and U+0090/0098/009E/009F), and the
  two-character ESC sequences; a string that never ends stops at the end of its line;
- the other C0 controls except newline and tab (a lone carriage return too: it would overwrite
  the line), DEL, and the C1 controls U+0080-U+009F;
- bidirectional overrides, embeddings, isolates and marks (U+202A-U+202E, U+2066-U+2069,
  U+200E, U+200F, U+061C).

Every pattern is linear in its input: a payload stops at the first character that may end it,
so no input costs more than one pass. `clean` is idempotent and returns the same object when
nothing needed cleaning.
"""

from __future__ import annotations

import re
from typing import Any

# A string-type payload (OSC, DCS, SOS, PM, APC) ends at BEL, ST (ESC \ or U+009C), or the line.
_STRING_BODY = r"[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"  # CSI: parameters, intermediates, final byte
    r"|\x9b[0-?]*[ -/]*[@-~]?"  # 8-bit CSI
    r"|\x1b[\]PX^_]" + _STRING_BODY  # OSC, DCS, SOS, PM, APC
    + r"|[\x9d\x90\x98\x9e\x9f]" + _STRING_BODY  # their 8-bit forms
    + r"|\x1b[ -/]*[0-~]?"  # nF / Fp / Fe / Fs two-character sequences (ESC 7, ESC c, ESC ( B ...)
)
_CONTROLS = dict.fromkeys(
    [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0),
     *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]
)
_SUSPECT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def text(value: str) -> str:
    """One string with escape sequences and control characters removed (newline and tab kept)."""
    if not _SUSPECT.search(value):
        return value
    value = value.replace("\r\n", "\n")
    value = _SEQUENCE.sub("", value)
    return value.translate(_CONTROLS)


def clean(value: Any) -> Any:
    """A copy of value (dicts, lists and tuples walked, keys too) with every string cleaned."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, dict):
        return {clean(k) if isinstance(k, str) else k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(clean(v) for v in value)
    return value


def line(value: Any) -> str:
    """A value shown on one line: cleaned, with newlines and tabs as spaces."""
    return text(str(value)).replace("\n", " ").replace("\t", " ")
