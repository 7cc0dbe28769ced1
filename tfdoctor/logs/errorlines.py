"""Which lines of a paste report an error, by the log's own mechanisms rather than by wording: the
severity letter of TensorFlow's and absl's log prefix (E, F), an exception's final traceback line
(`ValueError: ...`, `tensorflow.python.framework.errors_impl.InternalError: ...`), a tool's
`Error:`/`ERROR:`/`FATAL:` line, and `Failed to ...`. A line tfdoctor reads no evidence from and no
harmless notice explains is then shown as not recognised, never silently passed.

Every regex is anchored at the line's start and bounded.
"""

from __future__ import annotations

import re

# Before prefixes are removed: "E0000 00:00:1700000000.1 123 file.cc:1]", "2023-01-01 12:00:00.1: E ",
# "E tensorflow/core/file.cc:12]", "F0101 ..." (F: fatal).
_SEVERITY = re.compile(
    r"(?:[EF]\d{4} \d\d:\d\d:\d"
    r"|\d{4}[-/]\d\d[-/]\d\d[ T]\d\d:\d\d:\d\d[\d.,]{0,10}(?:Z|[+-]\d\d:?\d\d)?:?\s{1,8}"
    r"[EF]\s{1,4}[\w./-]{1,200}:\d{1,6}\]|[EF] [\w./-]{1,200}\.(?:cc|h|cpp|py):\d{1,6}\])"
)
# After prefixes are removed (the text a person reads).
_ERROR = re.compile(
    r"(?:[A-Za-z_][\w.]{0,120}(?:Error|Exception)(?::\s|:?$)"  # a traceback's last line
    r"|(?:ERROR|FATAL|CRITICAL|Error|Fatal error|Fatal)(?::|\]|\s-\s)"  # a tool's error line
    # "docker: Error response from daemon", "nvidia-container-cli: initialization error"
    r"|[\w.-]{1,40}: (?:[\w ]{1,30} )?(?:error|ERROR|Error|fatal)\b"
    r"|Failed to \w)"
)
_FIRST = frozenset("EF0123456789")
# XLA's autotuner logs at error level the algorithm whose results differ from the reference, and the device,
# driver and cuDNN it ran on (its *_algorithm_picker.cc and buffer_comparator.cc), then leaves that algorithm
# out: its report, not an error of the run
_AUTOTUNER = re.compile(r"(?:buffer_comparator|_algorithm_picker)\.cc:\d{1,6}\]")
# Lower-case words one of which every error line's text holds (a cheap prefilter); the severity prefix
# is told by the raw line's first character.
TRIGGERS = ("error", "exception", "fatal", "failed to", "critical")


def severe(raw: str) -> bool:
    """Whether a raw line carries an error or fatal log prefix."""
    text = raw.lstrip(" \t>`*")
    return (bool(text) and text[0] in _FIRST and _SEVERITY.match(text) is not None
            and _AUTOTUNER.search(text, 0, 400) is None)


def is_error(line: str, severe_prefix: bool) -> bool:
    """Whether a normalised line reports an error (see the module docstring)."""
    return severe_prefix or _ERROR.match(line) is not None
