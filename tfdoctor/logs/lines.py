"""Reading pasted text line by line: bounded memory, capped line length, log prefixes removed.

Every regex here is anchored at the start of a line or bounded, so a hostile 64 KB line costs
one linear scan.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO

MAX_LINE = 4096  # characters of one line that are looked at; the rest is dropped
MAX_READ = 256 << 20  # bytes of input read at most; the rest is counted, not parsed

_ANSI = re.compile(r"\x1b(?:\[[0-?]{0,32}[ -/]{0,8}[@-~]|\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)?|[@-Z\\-_])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
PREFIXES = (  # tried in this order, as one alternation
    # absl: I0000 00:00:1700000000.123456  1234 cuda_executor.cc:1015] (absl-py's thread ids run to 15 digits:
    # "I0309 12:51:51.373212 140505975940928 run_docker.py:247]")
    r"[IWEF]\d{4} \d\d:\d\d:\d{1,12}(?:\.\d{1,9})?\s{1,8}\d{1,20}\s{1,8}[\w./-]{1,200}:\d{1,6}\]\s?",
    # 2023-06-01 12:00:00.123456: W tensorflow/core/...cc:123]
    r"\d{4}[-/]\d\d[-/]\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?:?\s{1,8}"
    r"(?:[IWEF]\s{1,4}[\w./-]{1,200}:\d{1,6}\]\s?)?",
    # E tensorflow/stream_executor/cuda/cuda_driver.cc:318]
    r"[IWEF] [\w./-]{1,200}\.(?:cc|h|cpp|py):\d{1,6}\]\s?",
    # [2024-01-01 12:00:00] / [23:28:14 - Predict] / [1,0]<stderr>: (horovodrun)
    r"\[[^\]]{0,40}\d\d:\d\d[^\]]{0,40}\]\s{0,8}",
    r"\[\d{1,5},\d{1,5}\]<std(?:out|err)>:\s?",
    # kernel log: [ 1234.567890] or "Mar 3 10:00:00 host kernel: "
    r"\[\s{0,8}\+?\d{1,10}\.\d{1,9}\]\s?",  # (dmesg -H: "[  +0.000844]")
    r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]{1,64} kernel:\s?",
)
_PREFIX = re.compile("|".join(f"(?:{p})" for p in PREFIXES))
_PREFIX_START = frozenset("IWEF0123456789[ADJMNOS")
_QUOTING = re.compile(r"(?:\s|>|`|\*|#{1,4}\s)+")  # (a shell comment "## " marks output)
# CJK text types full-width punctuation ("显卡：RTX 3080", "cuda＝10.0"): read as its ASCII form
_FULL_WIDTH = {ord(c): ord(c) - 0xFEE0 for c in "\uff01\uff08\uff09\uff0c\uff1a\uff1b\uff1d\uff1f"}
_FULL_WIDTH[0x3000] = " "  # the ideographic space
# typographic quotes a web page or an editor put in pasted text ("these aren’t available")
_FULL_WIDTH.update({0x2018: "'", 0x2019: "'", 0x201C: '"', 0x201D: '"'})
# CJK text written against a Latin word or number ("显卡是A100", "我的tensorflow-gpu=1.13.1") parts with a
# space, so the word stands apart as it would in a Latin sentence
_CJK = "\u2e80-\u9fff\uac00-\ud7af"
# "version" in CJK issue templates ("Python版本: 3.8", "TensorFlow バージョン"), read as the English word
VERSION_WORDS = ("\u7248\u672c", "\u30d0\u30fc\u30b8\u30e7\u30f3", "\ubc84\uc804")
_VERSION_WORD = re.compile(f" ?(?:{'|'.join(VERSION_WORDS)}) ?")
_CJK_EDGE = re.compile(f"(?<=[{_CJK}])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[{_CJK}])")
# ... and "driver" ("驱动版本: 450.102.04", "驅動", "ドライバー", "드라이버")
DRIVER_WORDS = ("\u9a71\u52a8", "\u9a45\u52d5", "\u30c9\u30e9\u30a4\u30d0", "\ub4dc\ub77c\uc774\ubc84")
_DRIVER_WORD = re.compile(f" ?(?:{'|'.join(DRIVER_WORDS)})\u30fc? ?")
# What normalising makes ASCII, by the ASCII it makes: how a word the cheap pass looks for may be spelt
# (tfdoctor/logs/triggers.py)
WIDE: dict[str, tuple[str, ...]] = {}
for _wide, _ascii in _FULL_WIDTH.items():
    _char = _ascii if isinstance(_ascii, str) else chr(_ascii)
    WIDE[_char] = (*WIDE.get(_char, ()), chr(_wide))
# an issue template's field whose whole value is inline code ("- Python: `3.12.3`"): read as plain text
_FIELD_CODE = re.compile(r"^([-*+]\s{1,3})?([\w ./()+-]{1,40}):\s{1,3}`([^`\n]{1,80})`\s{0,3}$")
# a Markdown table's row of two cells, a name and its value ("| python | 3.8.10 |"): read as "name: value"
_TWO_CELLS = re.compile(r"^\|\s{0,40}([A-Za-z][^|]{0,60}?)\s{0,40}\|\s{0,40}(\w[^|]{0,80}?)\s{0,40}\|?$")


def normalize(line: str) -> str:
    """One physical line -> the text signatures look at (no colours, CR, prefixes, quoting)."""
    if len(line) > MAX_LINE:
        line = line[:MAX_LINE]
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    line = _CONTROL.sub(" ", line)
    if "**" in line:  # Markdown bold ("**Nvidia driver** version **465.21**"): never part of a tool's output
        line = line.replace("**", "")
    if not line.isascii():
        line = _VERSION_WORD.sub(" version ", line.translate(_FULL_WIDTH))
        line = _CJK_EDGE.sub(" ", _DRIVER_WORD.sub(" driver ", line))
    if ": `" in line:
        line = _FIELD_CODE.sub(r"\1\2: \3", line.strip())
    line = line.strip().strip("`").strip()
    if line[:1] == "|" and line.count("|") <= 3:
        m = _TWO_CELLS.match(line)
        if m:
            line = f"{m.group(1)}: {m.group(2)}"
    if line and line[0] in "> `*#\t":
        m = _QUOTING.match(line)
        if m and not line.startswith("|"):
            line = line[m.end():]
    for _ in range(3):  # e.g. "2023/10/26 12:12:06 2023-10-26 12:12:06.704113: E ..."
        if not line or line[0] not in _PREFIX_START:
            break
        m = _PREFIX.match(line)
        if not m or not m.end():
            break
        line = line[m.end():]
    return line.strip()


def read_lines(fh: BinaryIO, cap: int = MAX_LINE, limit: int = MAX_READ) -> Iterator[str]:
    """Stream decoded lines from a binary file: bounded memory, over-long lines cut at `cap` bytes,
    at most `limit` bytes read."""
    total = 0
    while total < limit:
        chunk = fh.readline(cap)
        if not chunk:
            return
        total += len(chunk)
        if len(chunk) >= cap and not chunk.endswith(b"\n"):
            while total < limit:  # drop the rest of an over-long line without holding it
                rest = fh.readline(1 << 20)
                total += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
        yield chunk.decode("utf-8", errors="replace")


def read_chunks(fh: BinaryIO, cap: int = MAX_LINE, limit: int = MAX_READ,
                size: int = 1 << 20) -> Iterator[bytes]:
    """Stream a binary file as chunks of whole lines (bytes, each ending in a newline but perhaps the
    last): at most `size` + `cap` bytes held; a line still open after `cap` bytes at the end of a block
    is cut there (the rest dropped unread; the reader looks at MAX_LINE characters of any line); at most
    `limit` bytes read."""
    carry, skipping, total = b"", False, 0
    while total < limit:
        block = fh.read(min(size, limit - total))
        if not block:
            break
        total += len(block)
        if skipping:  # the rest of an over-long line
            nl = block.find(b"\n")
            if nl < 0:
                continue
            block, skipping = block[nl + 1:], False
        data = carry + block if carry else block
        nl = data.rfind(b"\n")
        carry = data[nl + 1:]
        if nl >= 0:
            yield data[:nl + 1]
        if len(carry) >= cap:
            yield carry[:cap] + b"\n"
            carry, skipping = b"", True
    if carry:
        yield carry


def split(text: str) -> Iterator[str]:
    """A string's lines, without copying it whole (also splits on a lone CR, as terminals show it)."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start)
        if end < 0:
            end = size
        yield text[start:end]
        start = end + 1


def looks_binary(head: bytes) -> bool:
    """Whether the first bytes of an input are binary (NUL bytes, or mostly non-text)."""
    if not head:
        return False
    if b"\x00" in head:
        return True
    text = head.decode("utf-8", errors="replace")
    odd = sum(1 for ch in text if ch == "\ufffd" or (ord(ch) < 32 and ch not in "\n\r\t\x1b\x0c"))
    return odd > max(8, len(text) // 10)
