"""The report as JSON (the contract's shape: see tfdoctor/schema/report.schema.json).

Strings keep their content (JSON is data, not a screen), but the characters a terminal would
obey and JSON leaves raw with ensure_ascii=False (DEL, the C1 controls such as the 8-bit CSI,
bidirectional overrides, line/paragraph separators) are written as \\uXXXX escapes, so
`tfdoctor ... --json` printed to a terminal stays inert; C0 controls are escaped by json itself.
"""

from __future__ import annotations

import json
import re
from typing import Any

_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def dumps(report: Any) -> str:
    text = json.dumps(report, indent=2, ensure_ascii=False, default=str)
    # These characters can only stand inside JSON strings, where \uXXXX means the same character.
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"
