"""The cheap pass: which lines of a chunk hold any trigger word, before any detailed pattern runs.

Every signature (tfdoctor/logs/evidence.py: its `anchors`), value reader (tfdoctor/logs/values.py:
READERS) and block finder (tfdoctor/logs/blocks.py: TRIGGERS) declares the lower-case literals
without which it cannot match; this module gathers them into one multi-literal search over the
lower-cased bytes of a whole chunk (Aho-Corasick from ahocorasick-rs, a DFA in Rust, where installed,
else one regex alternation factored as a trie), so a line holding none costs no Python at all. A reader that
declares no trigger is tried on every line: then every line is a candidate (correct, slower).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from typing import Any

from tfdoctor.logs.lines import WIDE

PIECE = 1 << 16  # bytes searched at once: bounds the matches held (a chunk of nothing but trigger words)
# Control characters that normalising turns into something a trigger could then match (ANSI colour
# codes split words): a line holding one is always read in full.
ALWAYS = (b"\x1b",)
# The last byte of a CJK character (a UTF-8 continuation byte), and the first (U+2E80-U+D7AF), as they stand
# against a Latin word that normalising parts from them with a space (tfdoctor/logs/lines.py: "显卡gpu" is
# read as "显卡 gpu", "tf的" as "tf 的")
_CJK_LAST = tuple(bytes([b]) for b in range(0x80, 0xC0))
_CJK_FIRST = tuple(bytes([b]) for b in range(0xE2, 0xEE))


def spellings(word: str) -> set[bytes]:
    """The bytes a word the cheap pass looks for may stand as before normalising reads it as the word: itself,
    with its punctuation or spaces full-width or typographic ("driver version："), and a word that starts
    (ends) with a space after (before) a Latin letter or digit, against CJK text."""
    out = set()
    chars = sorted(set(word) & set(WIDE))
    for forms in itertools.product(*((char, *WIDE[char]) for char in chars)):  # (each kind of character
        spelt = word  # written one way throughout the word: a few spellings, not every mix)
        for char, form in zip(chars, forms):
            spelt = spelt.replace(char, form)
        out.add(spelt.encode("utf-8"))
    for wide in WIDE.get(" ", ()):  # (an ideographic space before or after; the inner spaces as they are)
        if word.startswith(" "):
            out.add((wide + word[1:]).encode("utf-8"))
        if word.endswith(" "):
            out.add((word[:-1] + wide).encode("utf-8"))
    if word[:1] == " " and word[1:2].isascii() and word[1:2].isalnum():
        out.update(last + word[1:].encode("utf-8") for last in _CJK_LAST)
    if word[-1:] == " " and word[-2:-1].isascii() and word[-2:-1].isalnum():
        out.update(word[:-1].encode("utf-8") + first for first in _CJK_FIRST)
    return out


def _trie(words: Iterable[bytes]) -> bytes:
    """One regex alternation of literal words, factored by common prefixes (one branch per byte)."""
    tree: dict[int, Any] = {}
    for word in words:
        node = tree
        for byte in word:
            node = node.setdefault(byte, {})
        node[-1] = {}

    def emit(node: dict[int, Any]) -> bytes:
        alts = [re.escape(bytes([b])) + emit(node[b]) for b in sorted(k for k in node if k >= 0)]
        if not alts:
            return b""
        body = alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"
        return b"(?:" + body + b")?" if -1 in node else body

    return emit(tree)


def minimal(words: Iterable[bytes]) -> list[bytes]:
    """The words that hold no other word (a line holding a longer one holds the shorter)."""
    unique = sorted(set(words), key=len)
    kept: list[bytes] = []
    for word in unique:
        if not any(k in word for k in kept):
            kept.append(word)
    return sorted(kept)


def all_starts(chunk: bytes) -> list[int]:
    """The start offset of every line of a chunk."""
    out, pos = [], 0
    while pos < len(chunk):
        out.append(pos)
        nl = chunk.find(b"\n", pos)
        pos = len(chunk) if nl < 0 else nl + 1
    return out


class Finder:
    """Line starts, in a chunk of bytes, of the lines that hold any of the words."""

    def __init__(self, words: Iterable[str] | None, automaton: bool = True) -> None:
        """`words` None: every line is a candidate. `automaton` False: the stdlib regex, as without
        pyahocorasick."""
        self.every_line = words is None
        self.declared = sorted({w.lower() for w in (words or ())})
        # a word's leading space also matches at the start of a line
        kept = minimal([w.encode("utf-8") for w in self.declared]
                       + [b"\n" + w[1:].encode("utf-8") for w in self.declared if w.startswith(" ")]
                       + list(ALWAYS))
        # (and their other spellings, as normalising reads them: not minimised, a look-up per word is enough)
        other = set().union(*(spellings(w) - {w.encode("utf-8")} for w in self.declared))
        self.words = sorted(set(kept) | other)
        self._automaton: Any = None
        self._per_line: Any = None
        self._regex: re.Pattern[bytes] | None = None
        try:
            if not automaton:
                raise ImportError("the stdlib regex was asked for")
            import ahocorasick_rs as ac
        except ImportError:
            if not self.every_line:
                self._regex = re.compile(_trie(self.words))
            return
        if not self.every_line:  # any word ends a match: the first found in a line is enough
            self._automaton = ac.BytesAhoCorasick(self.words, implementation=ac.Implementation.DFA)
            self._longest = max(map(len, self.words))
        self._per_line = ac.AhoCorasick(self.declared) if self.declared else None

    def found(self, low: str) -> frozenset[str]:
        """The declared words in one lower-cased line (a leading space in a word matches at its start)."""
        spaced = " " + low
        if self._per_line is not None:
            return frozenset(self._per_line.find_matches_as_strings(spaced, overlapping=True))
        return frozenset(w for w in self.declared if w in spaced)

    def _ends(self, low: bytes) -> Iterator[int]:
        """The last character of each word the automaton finds in `low`, searched a piece of whole lines
        at a time so that a chunk dense with words never holds all its matches at once. No word holds a
        newline but at its start, so a piece ending before a newline cuts no word; a line longer than a
        piece is cut with an overlap of the longest word."""
        view, pos, size = memoryview(low), 0, len(low)
        while pos < size:
            cut = min(size, pos + PIECE)
            newline = low.rfind(b"\n", pos + 1, cut) if cut < size else -1
            stop = newline if newline > 0 else cut
            for _, _, end in self._automaton.find_matches_as_indexes(view[pos:stop]):
                yield pos + end - 1
            pos = stop if newline > 0 or cut == size else cut - (self._longest - 1)

    def starts(self, chunk: bytes) -> list[int]:
        """Sorted start offsets of the candidate lines of `chunk` (every line when a reader declared no
        trigger)."""
        if self.every_line:
            return all_starts(chunk)
        low = b"\n" + chunk.lower()  # offsets in `low` are one past those in `chunk`
        if self._automaton is not None:
            ends: Iterable[int] = self._ends(low)
        elif self._regex is not None:
            ends = (m.end() - 1 for m in self._regex.finditer(low))
        else:
            return []
        out: list[int] = []
        line_end = 0  # in `low`: the newline that ends the last candidate line
        for end in ends:  # `end`: a word's last character, in `low`
            if end <= line_end:
                continue  # this line is a candidate already
            start = low.rfind(b"\n", 0, end)  # in `low`; the line starts one after it, i.e. here in `chunk`
            out.append(start)
            line_end = low.find(b"\n", end)
            if line_end < 0:
                break
        return out
