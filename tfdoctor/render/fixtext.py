"""A fix's text, split into the commands to paste and the prose around them (pure functions).

The checks write a fix as one string that mixes both: "sudo ubuntu-drivers install && sudo
reboot  # needs ...", "Start the container with `docker run --gpus all ...` (podman: ...). The
host needs ...: `sudo nvidia-ctk ...`.", "Upgrade the driver to 535 or newer: sudo apt ...".
Renderers show the commands first, each on its own line and never broken inside a word, and
the prose after them. The checks' wording is not changed; what `split` recognises:

- a command in backticks (its first word is a known command, an interpreter, or a path to one:
  `nvidia-smi`, `sudo ...`, `/venv/bin/python -m pip ...`). A fragment such as `--gpus all` or
  `NCCL_DEBUG=INFO` stays prose. When the command ends a clause after a colon (": `cmd`.") or
  stands alone in parentheses (" (`cmd`)"), it leaves the prose; in the middle of a sentence it
  stays there too, so the sentence still reads;
- a command line without backticks at the start of the fix, or after ": " — up to a shell
  comment (`  # ...`, which becomes prose), a parenthesis that opens prose, or a "; " followed
  by prose. It leaves the prose.

Each piece of text is scanned once (quotes and backticks tracked as it goes): linear in its size.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

COMMANDS = frozenset(
    """
    sudo su doas env export unset source cd ls cat grep tee printf echo rm ln mkdir cp mv chmod
    pip pip3 uv pipx conda mamba micromamba python python3 py docker podman kubectl nvidia-ctk
    nvidia-smi nvidia-container-cli nvcc apt apt-get dpkg dnf yum rpm zypper pacman
    ubuntu-drivers modprobe rmmod lsmod dmesg journalctl systemctl service reboot ldconfig
    update-initramfs dracut wsl tfdoctor curl wget tar git make
    """.split()
)
_PYTHON = re.compile(r"python(?:\d+(?:\.\d+)?)?(?:\.exe)?|pythonw(?:\.exe)?")
_OPERATORS = ("&&", "||", "|", ";")
_SEP = re.compile(r"[/\\]")
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")


@dataclass(frozen=True)
class Split:
    commands: tuple[str, ...]
    prose: str


def shell_words(text: str, start: int = 0) -> list[tuple[int, int]]:
    """(start, end) of each shell word in text from `start`: spaces inside quotes or after a
    backslash do not separate words. An unclosed quote runs to the end."""
    return list(iter_words(text, start))


def iter_words(text: str, i: int = 0) -> Iterator[tuple[int, int]]:
    """shell_words, lazily (a caller that stops early pays only for what it read)."""
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


def _unquote(word: str) -> str:
    return word.replace("'", "").replace('"', "")


def is_command(text: str) -> bool:
    """Whether text starts like a shell command (a known command, an interpreter or a path to one).
    Reads its first words only (at most 256 characters), so callers scanning a text stay linear."""
    text = text[:256]
    for a, b in iter_words(text):
        word = text[a:b]
        if _ASSIGN.fullmatch(word):
            continue  # NAME=value prefixes; an assignment alone is a setting, not a command
        base = _SEP.split(_unquote(word))[-1].lower()
        return base in COMMANDS or bool(_PYTHON.fullmatch(base))
    return False


def _take_command(text: str, start: int = 0) -> tuple[str, int]:
    """(the command at text[start:], where the rest begins): the command stops at a comment, a
    parenthesis opening prose, a `;` or `,` followed by prose, or a bare "and"/"then"/"or"."""
    words = iter_words(text, start)
    end = len(text)
    current = next(words, None)
    k = 0
    while current is not None:
        a, b = current
        following = next(words, None)
        word = text[a:b]
        if k > 0 and (word in ("and", "then", "or") or (word.startswith("(") and not word.startswith("$("))):
            end = a
            break
        if word.startswith("#"):
            end = a
            break
        prose_follows = following is not None and not is_command(text[following[0]:following[0] + 256])
        if word.endswith((";", ",")) and prose_follows:
            end = b - 1
            break
        current, k = following, k + 1
    command = text[start:end].rstrip()
    rest = start + len(command)
    if command.endswith(".") and not command.endswith(("..", " .")) and not text[rest:].strip():
        command = command[:-1]  # the sentence's full stop, not the command's
        rest -= 1
    return command, rest


def _tidy_plain(text: str) -> str:
    text = re.sub(r"[ \t]+", " ", text)
    text = re.sub(r" ([.,;:)])", r"\1", text)
    text = re.sub(r"\(\s*\)", "", text)
    return re.sub(r"([:;,])([.;])", r"\2", text)


def _tidy(prose: str) -> str:
    """Spacing and punctuation left behind where commands were taken out (outside backticks)."""
    parts, i = [], 0
    for a, b in _backtick_spans(prose):
        parts += [_tidy_plain(prose[i:a]), prose[a:b]]
        i = b
    parts.append(_tidy_plain(prose[i:]))
    prose = "".join(parts).strip(" ;,")
    if prose.startswith("#"):
        prose = prose.lstrip("# ")
    if prose.startswith("(") and prose.endswith(")") and prose.count("(") == 1:
        prose = prose[1:-1].strip()
    return prose


def _backtick_spans(text: str) -> list[tuple[int, int]]:
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


CONDITIONAL = frozenset(("if", "or", "otherwise", "alternatively", "else", "unless", "meanwhile", "when"))


def _conditional(before: str) -> bool:
    """Whether the clause that `before` ends in is a condition or an alternative ("If the CPU is
    expected, say so: `cmd`"; "...; if it hangs again, run `cmd`"): its commands are not what to
    do first, so they stay where they are in the prose. Reads at most 300 characters."""
    tail = before[-300:]
    cut = max(tail.rfind(". "), tail.rfind("; "), tail.rfind("? "), tail.rfind("! "))
    if cut < 0 and len(before) > 300:
        return False
    clause = tail[cut + 2:] if cut >= 0 else tail
    words = clause.lstrip(" (#").split(" ", 1)
    return words[0].lower().strip(",:") in CONDITIONAL


def _split_line(line: str, commands: list[str]) -> str:
    """Take the commands out of one line of a fix; return its prose."""
    if is_command(line) and not line.startswith("`"):
        command, rest = _take_command(line)
        commands.append(command)
        line = line[rest:]
    out: list[str] = []
    recent = ""  # the last few hundred characters of prose, for _conditional
    i = 0
    for a, b in _backtick_spans(line):
        out.append(_colon_commands(line[i:a], commands, recent))
        recent = (recent + out[-1])[-300:]
        i = b
        inner = line[a + 1:b - 1].strip()
        if not (inner and is_command(inner)) or _conditional(recent):
            out.append(line[a:b])
            recent = (recent + out[-1])[-300:]
            continue
        commands.append(inner)
        before, after = "".join(out).rstrip(), line[b:]
        if before.endswith(":") and (not after.strip() or after[:1] in ".;,"):
            out = [before[:-1]]  # "...: `cmd`." -> "...."
        elif before.endswith("(") and after.startswith(")"):
            out = [before[:-1].rstrip()]  # "... (`cmd`)" -> "..."
            i = b + 1
        else:
            out.append(line[a:b])  # in the middle of a sentence: it stays, the sentence reads
        recent = "".join(out[-2:])[-300:]
    out.append(_colon_commands(line[i:], commands, recent))
    return "".join(out)


def _colon_commands(text: str, commands: list[str], before: str = "") -> str:
    """Prose in which "...: cmd ..." (a command without backticks after a colon) is taken out;
    in a conditional clause it stays, as `cmd`, so that it is never broken."""
    out: list[str] = []
    recent = before[-300:]
    i = 0
    while True:
        k = text.find(": ", i)
        if k < 0:
            out.append(text[i:])
            return "".join(out)
        if not is_command(text[k + 2:k + 2 + 256]):
            out.append(text[i:k + 2])
            recent = (recent + out[-1])[-300:]
            i = k + 2
            continue
        command, rest = _take_command(text, k + 2)
        inline = f"`{command}`" if "`" not in command else command
        if _conditional(recent + text[max(i, k - 300):k]):
            out.append(text[i:k + 2] + inline)
        else:
            commands.append(command)
            if not text[rest:].strip():
                out.append(text[i:k] + ("" if text[i:k].rstrip().endswith((".", "!", "?")) else "."))
            elif text[rest:rest + 2].strip()[:1] in (".", ";", ","):
                out.append(text[i:k])  # "...: cmd." -> "...."
            else:  # "...: cmd and log in again" / "...: cmd (why)": the sentence needs it
                out.append(text[i:k + 2] + inline)
        recent = (recent + out[-1])[-300:]
        i = rest


def parts(finding: dict[str, Any]) -> Split:
    """A finding's fix as commands and prose: from its plan when it has one (the commands exactly as
    planned, the reasons and notes as prose), else split out of its text."""
    from tfdoctor.plan import Plan

    plan = Plan.from_dict(finding.get("plan"))
    if plan is None:
        return split(finding.get("fix"))
    commands = tuple(dict.fromkeys(c for c in plan.commands() if c.strip()))
    return Split(commands, " ".join(n.strip() for n in plan.notes() if n.strip()).lstrip(" .;,—-"))


def split(fix: str | None) -> Split:
    """The commands in a fix (in order, each once) and the prose left around them."""
    commands: list[str] = []
    prose = [_split_line(line.strip(), commands) for line in (fix or "").strip().splitlines()]
    unique = tuple(dict.fromkeys(c.strip() for c in commands if c.strip()))
    return Split(unique, "\n".join(p for p in (_tidy(p) for p in prose) if p))


def command_lines(command: str, width: int, hang: int = 2) -> list[str]:
    """A command as lines of at most `width` cells where it can, broken only between shell words
    with a trailing backslash (so it still pastes as one command), after `&&`, `||`, `|` or `;`
    where it can; continuation lines are indented by `hang`. A single word longer than the
    width stands alone on its line and is never broken."""
    from rich.cells import cell_len

    if cell_len(command) <= width:
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
