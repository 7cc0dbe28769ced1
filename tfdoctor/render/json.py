"""The report as JSON (the contract's shape: see tfdoctor/schema/report.schema.json).

Strings keep their content (JSON is data, not a screen), but the characters a terminal would
obey and JSON leaves raw with ensure_ascii=False (DEL, the C1 controls such as the 8-bit CSI,
bidirectional overrides, line/paragraph separators) are written as \\uXXXX escapes, so
`tfdoctor ... --json` printed to a terminal stays inert; C0 controls are escaped by json itself.
"""

from __future__ import annotations

import re
from typing import Any

from tfdoctor.jsonsafe import dumps as strict_dumps

_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def dumps(report: Any, indent: int | None = 2, bounded: bool = False) -> str:
    """Strict JSON: no NaN or Infinity, whatever the facts hold (see tfdoctor/jsonsafe.py); characters
    that could steer a terminal are written as \\uXXXX escapes (the same characters to a JSON reader).
    indent=None: on one line. bounded: see jsonsafe.dumps."""
    return inert(strict_dumps(report, bounded=bounded, indent=indent, ensure_ascii=False)) + "\n"


def inert(text: str) -> str:
    """JSON text with the characters a terminal would obey written as \\uXXXX escapes."""
    if text.isascii() and "\x7f" not in text:
        return text
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
