"""A finding's fix as the views lay it out: the commands to paste, then the words around them (pure
functions, shared by the terminal, markdown and notebook views).

The commands and words come from the finding's plan (tfdoctor.plan), never parsed out of text: every
view shows the same lines. A report saved before plans existed (report JSON v1/v2 without `plan`, read
by `check --from` or `fleet`) has only its fix text, shown as it was written, as prose.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_OPERATORS = ("&&", "||", "|", ";")


@dataclass(frozen=True)
class Parts:
    commands: tuple[str, ...]
    prose: str
    windows: bool = False  # cmd/PowerShell commands: no backslash continues a line there


def parts(finding: dict[str, Any]) -> Parts:
    """A finding's fix as commands and prose: from its plan (the commands exactly as planned, each
    once; its reasons and notes as prose); a finding without a plan shows its fix text as prose."""
    from tfdoctor.plan import Plan

    plan = Plan.from_dict(finding.get("plan"))
    if plan is None:
        fix = finding.get("fix")
        return Parts((), fix.strip() if isinstance(fix, str) else "")
    return Parts(tuple(dict.fromkeys(c for c in plan.commands() if c.strip())), plan.prose(), plan.windows)


def backtick_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each `...` span, backticks included (one linear scan; unclosed: none)."""
    out, i = [], 0
    while True:
        a = text.find("`", i)
        if a < 0:
            return out
        b = text.find("`", a + 1)
        if b < 0:
            return out
        out.append((a, b + 1))
        i = b + 1


def shell_words(text: str, start: int = 0) -> list[tuple[int, int]]:
    """(start, end) of each shell word in text from `start`: spaces inside quotes or after a
    backslash do not separate words. An unclosed quote runs to the end."""
    return list(_iter_words(text, start))


def _iter_words(text: str, i: int = 0) -> Iterator[tuple[int, int]]:
    n = len(text)
    while i < n:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            break
        start, quote = i, None
        while i < n:
            c = text[i]
            if quote:
                if c == quote:
                    quote = None
                elif c == "\\" and quote == '"':
                    i += 1
            elif c in "'\"":
                quote = c
            elif c == "\\":
                i += 1
            elif c in " \t":
                break
            i += 1
        yield start, min(i, n)


def command_lines(command: str, width: int, hang: int = 2, windows: bool = False) -> list[str]:
    """A command as lines of at most `width` cells where it can, broken only between shell words
    with a trailing backslash (so it still pastes as one command), after `&&`, `||`, `|` or `;`
    where it can; continuation lines are indented by `hang`. A single word longer than the
    width stands alone on its line and is never broken. A Windows command (cmd, PowerShell) stays one
    line: a backslash continues nothing there."""
    from rich.cells import cell_len

    if windows or cell_len(command) <= width:
        return [command]
    words = [command[a:b] for a, b in shell_words(command)]
    segments: list[list[str]] = [[]]
    for word in words:
        segments[-1].append(word)
        if word in _OPERATORS or word.endswith(";"):
            segments.append([])
    lines: list[list[str]] = []
    current: list[str] = []
    room = width - 2  # " \\" ends every line but the last

    def fits(items: list[str]) -> bool:
        return cell_len((" " * hang if lines else "") + " ".join(items)) <= room

    for segment in (s for s in segments if s):
        if fits([*current, *segment]):
            current += segment
            continue
        if current and not all(w in _OPERATORS for w in current):
            lines.append(current)
            current = []
        for word in segment:
            if current and not fits([*current, word]):
                if word in _OPERATORS and len(current) > 1:
                    lines.append(current[:-1])  # an operator does not end a line alone: its
                    current = current[-1:]  # last word goes with it
                else:  # (after a single word too long for any line, the operator starts the next)
                    lines.append(current)
                    current = []
            current.append(word)
    if current:
        lines.append(current)
    text = [(" " * hang if k else "") + " ".join(line) for k, line in enumerate(lines)]
    return [line + " \\" for line in text[:-1]] + text[-1:]
