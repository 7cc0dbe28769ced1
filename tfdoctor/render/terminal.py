"""The report for a person at a terminal: one line per area, the root cause first, fixes to paste.

```
tfdoctor 0.1.0 · TensorFlow GPU check                                      9.1 s
System      Debian GNU/Linux 12 (bookworm) · kernel 6.18.44 · Python 3.11.7 ·
            container: docker
Driver      ✗ This docker container has no access to the NVIDIA driver
                why: ...
                fix: sudo nvidia-ctk runtime configure --runtime=docker && \\
                       sudo systemctl restart docker
                     The host needs the NVIDIA driver and the NVIDIA Container
                     Toolkit.
                ↳ TensorFlow sees no GPU — because of the above
CUDA        ✓ CUDA 12 runtime libraries: ...
...
✗ 1 failure, 0 warnings (2 more follow from it) — TensorFlow runs on the CPU only
  Do first (Driver): sudo nvidia-ctk runtime configure ...
```

The screen is laid out here line by line (rich only prints and colours it), so that: commands
stand on their own lines and are broken, if at all, between shell words with a trailing
backslash (tfdoctor.render.fixtext); prose wraps at word boundaries with a hanging indent; no
line is wider than the console, except a single command word or URL longer than the whole line
(never folded: it would not paste or open). Every value is sanitized first
(tfdoctor.render.sanitize): nothing from outside reaches the terminal as a control sequence.
"""

from __future__ import annotations

import re
from typing import Any

from tfdoctor.render import fixtext, sanitize

MARKS = {"pass": ("✓", "green"), "warn": ("!", "yellow"), "fail": ("✗", "bold red"), "skip": ("–", "dim")}
INFO = ("•", "dim")
COMMAND = "bold cyan"  # a command to paste (a `code span` in prose is plain cyan)
RANK = {"skip": 0, "pass": 1, "warn": 2, "fail": 3}
AREAS = {
    "platform": "Platform",
    "system": "Platform",
    "driver": "Driver",
    "nvml": "Driver",
    "gpu": "GPU",
    "cuda": "CUDA",
    "cudnn": "CUDA",
    "tensorflow": "TensorFlow",
    "runtime": "Runtime",
    "xla": "Runtime",
    "nccl": "Runtime",
    "distributed": "Distributed",
    "tfdoctor": "tfdoctor",
}
ORDER = ("Platform", "Driver", "GPU", "CUDA", "TensorFlow", "Runtime", "Distributed", "tfdoctor")
LABEL_WIDTH = 12
TITLES = {"explain": "explain: what the pasted output says", "quick": "TensorFlow GPU check (quick)"}
BODY = LABEL_WIDTH + 4  # where a finding's why, evidence and fix start
EVIDENCE_CHARS = 240  # one quoted log line, without -v
# "line 4: E0000 00:00:1795446592.29 13476 cuda_platform.cc:52] " (absl/glog): dropped without -v
_GLOG = re.compile(r"(?<=: )[IWEF]\d{4} [\d:.]+ \d+ [\w.]+:\d+\] ")

# A terminal is no place for megabytes: longer values (a saved report may hold anything) are cut.
CLIPS = {"id": 200, "title": 500, "detail": 4000, "fix": 4000, "evidence": 2000, "caused_by": 200}

Segment = tuple[str, str]  # (text, style)
Line = list[Segment]


# --- words ----------------------------------------------------------------------------------------


def plural(n: int, word: str, many: str | None = None) -> str:
    """"1 GPU", "2 GPUs", "0 failures" ("1 more follows", "2 more follow" via `many`)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def area(finding_id: str) -> str:
    prefix = finding_id.split(".", 1)[0]
    return AREAS.get(prefix, prefix.capitalize())


def sentence(text: str) -> str:
    """The first sentence of text (the short why), with its full stop."""
    text = " ".join((text or "").split())
    m = re.search(r"(?<=[a-z0-9)\]%'\"])\. (?=[A-Z(])", text)
    return text[: m.start() + 1] if m else text


def _major_minor(version: Any) -> str:
    parts = re.findall(r"\d+", str(version or ""))
    return ".".join(parts[:2])


def system_line(env: dict[str, Any]) -> str:
    """The machine in one line: OS, kernel, Python, platform, container, GPUs."""
    gpus = [g for g in env.get("gpus") or [] if isinstance(g, dict)]
    names = sorted({str(g.get("name") or "unknown GPU") for g in gpus})
    if gpus:
        gpu_text = f"{len(gpus)} × {names[0]}" if len(names) == 1 else plural(len(gpus), "GPU")
    elif env.get("gpu_count") == 0:
        gpu_text = "no NVIDIA GPU found"
    else:
        gpu_text = None
    parts = [
        env.get("os"),
        f"kernel {env['kernel']}" if env.get("kernel") else None,
        f"Python {env['python_version']}" if env.get("python_version") else None,
        {"wsl2": "WSL2", "windows": "native Windows", "macos": "macOS"}.get(str(env.get("platform") or "")),
        f"container: {env['container']}" if env.get("container") else None,
        gpu_text,
    ]
    return " · ".join(str(p) for p in parts if p)


def title(f: dict[str, Any], env: dict[str, Any]) -> str:
    """A finding's one line; the system toolkit's, when it does not matter, in plain words."""
    text = str(f.get("title") or f.get("id") or "")
    if f.get("id") == "cuda.nvcc-differs" and f.get("status") == "pass":
        nvcc, tf_cuda = env.get("nvcc_version"), env.get("tf_cuda_version")
        if nvcc and tf_cuda and _major_minor(nvcc) != _major_minor(tf_cuda):
            return (f"system toolkit: CUDA {nvcc} (nvcc) — pip TensorFlow uses its own CUDA {tf_cuda}"
                    " libraries, not this")
    return text.rstrip(".") if text.endswith(".") and not text.endswith("..") else text


def verdict(report: dict[str, Any]) -> str:
    """Where TensorFlow really runs, in a few words (the first thing to do follows it)."""
    env = report.get("environment") or {}
    if report.get("mode") == "explain":
        findings = report.get("findings") or []
        if not findings:
            return "nothing in this output points to a problem tfdoctor knows"
        return "in the pasted output" if _roots(findings) else "no failure in the pasted output"
    visible = env.get("tf_visible_gpus")
    if not env.get("tensorflow_version"):
        return "TensorFlow is not installed"
    if visible:
        return f"TensorFlow sees {plural(visible, 'GPU')}"
    if visible == 0:
        return "TensorFlow runs on the CPU only"
    return f"TensorFlow {env['tensorflow_version']} (not run: quick check)"


# --- structure ------------------------------------------------------------------------------------


def _roots(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Failures and warnings no other finding explains, worst first."""
    ids = {f.get("id") for f in findings}
    roots = [f for f in findings if f.get("status") in ("fail", "warn") and f.get("caused_by") not in ids]
    return sorted(roots, key=lambda f: -RANK.get(f.get("status"), 0))


def _root_of(f: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The root finding that explains f (following a chain), or None when f is itself a root."""
    seen = {f.get("id")}
    cause = by_id.get(f.get("caused_by"))
    root = None
    while cause is not None and cause.get("id") not in seen:
        root = cause
        seen.add(cause.get("id"))
        cause = by_id.get(cause.get("caused_by"))
    return root


def _clip(value: Any, limit: int) -> Any:
    """value with every string in it cut to `limit` characters (marked with …)."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[: limit - 1] + "…"
    if isinstance(value, list):
        return [_clip(v, limit) for v in value[:100]]
    if isinstance(value, dict):
        return {k: _clip(v, limit) for k, v in list(value.items())[:100]}
    return value


def _docs(f: dict[str, Any]) -> str | None:
    if f.get("docs"):
        return str(f["docs"])
    from tfdoctor.catalogue import docs

    return docs(str(f.get("id") or ""))


# --- layout ---------------------------------------------------------------------------------------


def _cells(text: str) -> int:
    from rich.cells import cell_len

    return cell_len(text)


Unit = list[Segment]  # a word: printed whole, no space inside it is a place to break


def _units(text: str, style: str, room: int) -> list[Unit]:
    """The words of prose; a `code span` that fits the line is one word, and is cyan."""
    spans = fixtext.backtick_spans(text)
    kept = [(a, b) for a, b in spans if _cells(text[a:b]) <= room]
    tokens: list[tuple[int, int]] = []
    start, k = None, 0
    for i, ch in enumerate(text):
        while k < len(kept) and kept[k][1] <= i:
            k += 1
        inside = k < len(kept) and kept[k][0] <= i
        if ch.isspace() and not inside:
            if start is not None:
                tokens.append((start, i))
                start = None
        elif start is None:
            start = i
    if start is not None:
        tokens.append((start, len(text)))
    units: list[Unit] = []
    k = 0
    for a, b in tokens:
        unit: Unit = []
        i = a
        while i < b:
            while k < len(spans) and spans[k][1] <= i:
                k += 1
            if k < len(spans) and spans[k][0] <= i:
                j = min(b, spans[k][1])
                unit.append((text[i:j], "cyan"))
            else:
                j = min(b, spans[k][0]) if k < len(spans) else b
                unit.append((text[i:j], style))
            i = j
        units.append(unit)
    return units


def _fold(word: str, room: int) -> list[str]:
    """A word longer than a line: a URL or path stays whole; anything else is cut to fit."""
    if room < 8 or "://" in word or word.startswith(("/", "~")):
        return [word]
    from rich.cells import get_character_cell_size

    out, cur, used = [], [], 0
    for ch in word:
        size = get_character_cell_size(ch)
        if cur and used + size > room:
            out.append("".join(cur))
            cur, used = [], 0
        cur.append(ch)
        used += size
    return out + (["".join(cur)] if cur else [])


def wrap_units(units: list[Unit], width: int, first: Line, indent: int) -> list[Line]:
    """Words after `first` (a prefix already on the first line), wrapped at word boundaries;
    continuation lines start at column `indent`. An empty unit starts a new line."""
    lines: list[Line] = []
    current: Line = list(first)
    used = sum(_cells(t) for t, _ in current)
    fresh = True  # nothing but the prefix on this line

    def newline() -> None:
        nonlocal current, used, fresh
        lines.append(current)
        current, used, fresh = [(" " * indent, "")], indent, True

    for unit in units:
        if not unit:
            newline()
            continue
        size = sum(_cells(t) for t, _ in unit)
        gap = 0 if fresh else 1
        if not fresh and used + gap + size > width:
            newline()
            gap = 0
        if used + gap + size > width and size > width - indent:
            text = "".join(t for t, _ in unit)
            for n, piece in enumerate(_fold(text, width - used - gap)):
                if n:
                    newline()
                current.append((" " * gap + piece, unit[0][1]))
                used += gap + _cells(piece)
                gap = 0
            fresh = False
            continue
        if gap:
            current.append((" ", ""))
        current.extend(unit)
        used += gap + size
        fresh = False
    lines.append(current)
    return lines


def wrap(text: str, width: int, first: Line, indent: int, style: str = "") -> list[Line]:
    """Prose after `first`, wrapped at word boundaries with a hanging indent; newlines kept."""
    units: list[Unit] = []
    for n, para in enumerate((text or "").split("\n")):
        if n:
            units.append([])
        units += _units(para, style, width - indent)
    return wrap_units(units, width, first, indent)


def one_line(prefix: Line, text: str, width: int, style: str = "") -> Line:
    """prefix + text cut at a word boundary with "…" so the line fits the width."""
    text = " ".join(text.split())
    room = width - sum(_cells(t) for t, _ in prefix)
    if _cells(text) > room:
        cut = text[: max(room - 1, 0)]
        while _cells(cut) > room - 1:
            cut = cut[:-1]
        if " " in cut[room // 2:]:
            cut = cut[: cut.rindex(" ")]
        text = cut.rstrip(" ,;:·—-") + "…"
    return [*prefix, (text, style)]


class Screen:
    """The lines of one report at one width."""

    def __init__(self, report: dict[str, Any], width: int, verbose: bool) -> None:
        self.report = sanitize.clean(report)
        self.width = max(40, width)
        self.verbose = verbose
        self.lines: list[Line] = []
        env = self.report.get("environment")
        self.env = {k: _clip(v, 300) for k, v in env.items()} if isinstance(env, dict) else {}
        self.findings = [
            {**f, **{k: _clip(f.get(k), n) for k, n in CLIPS.items()}}
            for f in self.report.get("findings") or [] if isinstance(f, dict)
        ]

    # primitives

    def add(self, *lines: Line) -> None:
        self.lines.extend(lines)

    def prose(self, text: str, indent: int, first: Line | None = None, style: str = "") -> None:
        self.add(*wrap(text, self.width, first or [(" " * indent, "")], indent, style))

    def fix(self, finding: dict[str, Any], indent: int) -> None:
        """`fix:` then each command on its own lines, then the prose, all under the label."""
        parts = fixtext.parts(finding)
        label = [(" " * indent, ""), ("fix: ", "bold")]
        inner = indent + 5
        first = True
        for command in parts.commands:
            for text in fixtext.command_lines(command, self.width - inner, windows=parts.windows):
                self.add([*(label if first else [(" " * inner, "")]), (text, COMMAND)])
                first = False
        if parts.prose:
            self.prose(parts.prose, inner, label if first else None)

    # sections

    def header(self) -> None:
        tool = self.report.get("tool") or {}
        left = (f"tfdoctor {tool.get('version', '')} · "
                f"{TITLES.get(str(self.report.get('mode')), 'TensorFlow GPU check')}")
        seconds = (self.report.get("timings") or {}).get("probes_total")
        right = f"{seconds:.1f} s" if isinstance(seconds, (int, float)) and seconds >= 0 else ""
        gap = self.width - _cells(left) - _cells(right)
        line: Line = [(left, "bold")]
        if right and gap >= 2:
            line.append((" " * gap + right, "dim"))
        self.add(line)
        known = system_line(self.env) or (
            "no versions or names found in this output" if self.report.get("mode") == "explain"
            else "nothing known"
        )
        units: list[Unit] = []
        for n, part in enumerate(known.split(" · ")):
            if n:
                units[-1].append((" ·", "dim"))
            if _cells(part) <= self.width - LABEL_WIDTH - 2:
                units.append([(part, "")])
            else:
                units += [[(w, "")] for w in part.split()]
        self.add(*wrap_units(units, self.width, [(f"{'System':<{LABEL_WIDTH}}", "bold")], LABEL_WIDTH))

    def finding(self, f: dict[str, Any], label: str, consequences: list[dict[str, Any]]) -> None:
        """A failing or warning root cause: title, why, evidence, fix, what follows from it."""
        status = f.get("status", "skip")
        mark, style = MARKS.get(status, ("?", ""))
        first: Line = [(f"{label:<{LABEL_WIDTH}}", "bold"), (mark, style), (" ", "")]
        text = title(f, self.env)
        if f.get("confidence") == "likely":
            text += " (likely)"
        if self.verbose:
            text += f"  [{f.get('id')}]"
        self.prose(text, LABEL_WIDTH + 2, first)
        self.details(f, BODY)
        self.fix(f, BODY)
        if self.verbose and _docs(f):
            self.add([(" " * BODY, ""), ("docs: ", "dim"), (_docs(f) or "", "dim")])
        for c in consequences:
            self.consequence(c, f)

    def details(self, f: dict[str, Any], indent: int) -> None:
        detail = str(f.get("detail") or "").strip()
        why = detail if self.verbose else sentence(detail)
        if why:
            self.prose(why, indent + 5, [(" " * indent, ""), ("why: ", "dim")], "dim")
        evidence = [str(e) for e in f.get("evidence") or [] if str(e).strip()]
        for k, quote in enumerate(evidence if self.verbose else evidence[:1]):
            quote = " ".join(quote.split())
            if quote.startswith("TensorFlow log line "):
                quote = quote[len("TensorFlow log "):]
            if not self.verbose:
                quote = _GLOG.sub("", quote, count=1)
                if len(quote) > EVIDENCE_CHARS:
                    quote = quote[: EVIDENCE_CHARS - 1] + "…"
            label = "log: " if k == 0 else "     "
            self.prose(quote, indent + 5, [(" " * indent, ""), (label, "dim")], "dim")
        if not self.verbose and len(evidence) > 1:
            self.add([(" " * (indent + 5), ""), (f"(+{len(evidence) - 1} more: -v)", "dim")])

    def consequence(self, c: dict[str, Any], root: dict[str, Any]) -> None:
        """A finding that follows from the root: one folded line (-v opens it)."""
        prefix: Line = [(" " * BODY, ""), ("↳ ", "dim")]
        text = title(c, self.env)
        if not self.verbose:
            tail = " — because of the above"
            room = self.width - BODY - 2 - _cells(tail)
            head = one_line([], text, room)[0][0] if room > 12 else text
            self.add([*prefix, (head + tail, "dim")])
            return
        mark, style = MARKS.get(c.get("status", ""), ("?", ""))
        self.prose(f"{text}  [{c.get('id')}]", BODY + 2, [*prefix, (mark + " ", style)], "")
        self.details(c, BODY + 2)
        if c.get("fix") and c.get("fix") != root.get("fix"):
            self.fix(c, BODY + 2)

    def compact(self, label: str, findings: list[dict[str, Any]], lead: bool) -> bool:
        """Passes one line each, skips folded into one; -v opens them. Returns whether a line
        carried the area's label."""
        for f in findings:
            if f.get("status") != "pass":
                continue
            mark, style = MARKS["pass"]
            text = title(f, self.env)
            if text.startswith("system toolkit:"):
                mark, style = INFO
            prefix: Line = [(f"{label if lead else '':<{LABEL_WIDTH}}", "bold"), (mark, style), (" ", "")]
            if self.verbose:
                self.prose(f"{text}  [{f.get('id')}]", LABEL_WIDTH + 2, prefix)
                if f.get("detail"):
                    self.prose(str(f["detail"]), BODY, style="dim")
            else:
                self.prose(text, LABEL_WIDTH + 2, prefix)
            lead = False
        skips = [f for f in findings if f.get("status") == "skip"]
        if skips:
            mark, style = MARKS["skip"]
            prefix = [(f"{label if lead else '':<{LABEL_WIDTH}}", "bold"), (mark, style), (" ", "")]
            if self.verbose:
                for f in skips:
                    why = sentence(str(f.get("detail") or ""))
                    self.prose(f"{title(f, self.env)}{': ' + why if why else ''}  [{f.get('id')}]",
                               LABEL_WIDTH + 2, prefix, "dim")
                    prefix = [(" " * LABEL_WIDTH, ""), (mark, style), (" ", "")]
            else:
                names = "; ".join(title(f, self.env) for f in skips)
                self.add(one_line(prefix, names, self.width, "dim"))
            lead = False
        return lead

    def areas(self) -> None:
        by_id: dict[str, dict[str, Any]] = {}
        for f in self.findings:
            by_id.setdefault(str(f.get("id")), f)
        follows: dict[int, list[dict[str, Any]]] = {}
        groups: dict[str, list[dict[str, Any]]] = {}
        for f in self.findings:
            root = _root_of(f, by_id)
            if root is not None:
                follows.setdefault(id(root), []).append(f)
            else:
                groups.setdefault(area(str(f.get("id", ""))), []).append(f)
        for name in sorted(groups, key=lambda a: (ORDER.index(a) if a in ORDER else len(ORDER), a)):
            group = groups[name]
            lead = True
            for f in sorted((f for f in group if f.get("status") in ("fail", "warn")),
                            key=lambda f: -RANK.get(f.get("status"), 0)):
                self.finding(f, name if lead else "", follows.get(id(f), []))
                lead = False
            for f in group:  # a pass or skip that others follow from: rare, shown with them
                if f.get("status") not in ("fail", "warn") and follows.get(id(f)):
                    for c in follows[id(f)]:
                        self.finding(c, name if lead else "", [])
                        lead = False
            self.compact(name, group, lead)

    def footer(self) -> None:
        roots = _roots(self.findings)
        fails = sum(f.get("status") == "fail" for f in roots)
        warns = sum(f.get("status") == "warn" for f in roots)
        explained = sum(1 for f in self.findings if f.get("caused_by") and f not in roots
                        and f.get("status") in ("fail", "warn"))
        worst = "fail" if fails else "warn" if warns else "pass"
        mark, style = MARKS[worst]
        counts = f"{plural(fails, 'failure')} · {plural(warns, 'warning')}"
        if explained:
            cause = "it" if len(roots) == 1 else "them"
            counts += f" ({plural(explained, 'follows', 'follow')} from {cause})"
        where = verdict(self.report)
        joint = " " if where.startswith("in ") else " — "
        self.prose(f"{counts}{joint}{where}", 2, [(mark, style), (" ", "")], "bold")
        if not roots:
            if self.report.get("mode") != "explain":
                self.add([("  ", ""), ("All good." if worst == "pass" else "", "bold")])
            return
        first = roots[0]
        todo = [("  ", ""), ("Do first", "bold"), (f" ({area(str(first.get('id', '')))}): ", "")]
        parts = fixtext.parts(first)
        if parts.commands:
            command = parts.commands[0]
            lines = fixtext.command_lines(command, self.width - 4, windows=parts.windows)
            used = sum(_cells(t) for t, _ in todo)
            if len(lines) == 1 and used + _cells(command) <= self.width:
                self.add([*todo, (command, COMMAND)])
            else:
                self.add(todo)
                self.add(*[[("    ", ""), (t, COMMAND)] for t in lines])
        elif parts.prose:
            self.prose(sentence(parts.prose), 4, todo)
        else:
            self.prose(title(first, self.env), 4, todo)

    def build(self) -> list[Line]:
        self.header()
        self.areas()
        self.footer()
        return self.lines


def _merge(line: Line) -> Line:
    """Neighbouring segments of one style as one (a space between words joins its left word)."""
    out: Line = []
    for chunk, style in line:
        if out and (style == out[-1][1] or (chunk.isspace() and not out[-1][1].startswith("reverse"))):
            out[-1] = (out[-1][0] + chunk, out[-1][1])
        else:
            out.append((chunk, style))
    return out


def screen(report: dict[str, Any], width: int = 80, verbose: bool = False) -> list[Any]:
    """The report as rich Text lines, none wider than width (but an unbreakable word)."""
    from rich.text import Text

    out = []
    for line in Screen(report, width, verbose).build():
        text = Text(no_wrap=True, overflow="ignore", end="")
        for chunk, style in _merge(line):
            text.append(chunk, style=style or None)
        text.rstrip()
        out.append(text)
    return out


def console(color: bool = True, width: int | None = None, **kwargs: Any) -> Any:
    """The Console every terminal output of tfdoctor prints through."""
    from rich.console import Console

    return Console(color_system="auto" if color else None, highlight=False, emoji=False, markup=False,
                   width=width, **kwargs)


def render(report: dict[str, Any], verbose: bool = False, color: bool = True, out: Any = None) -> None:
    """Print the report to stdout (or the given rich Console) at the console's width."""
    out = out or console(color)
    for line in screen(report, out.width, verbose):
        out.print(line, soft_wrap=True)
