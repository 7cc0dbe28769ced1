"""The report as Markdown to paste into a GitHub issue.

On top the verdict and each root failure with its fix (the commands in a shell block) and the
findings that follow from it; then the facts table (OS, Python, driver, CUDA, TensorFlow, GPUs);
everything else (warnings, passes, raw captures, facts, timings) folded in `<details>`. GitHub
issue bodies stop at 65,536 characters, so captures and facts are trimmed to fit.

Every value is untrusted text: sanitized (tfdoctor.render.sanitize), then escaped for where it
goes (`text` in prose, `cell` in a table, `code`/`code_span` for literal text, `link` for docs),
so nothing in a report can close a block, open HTML or break the table.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tfdoctor.privacy import redact_report, redact_text
from tfdoctor.render import fixtext, sanitize
from tfdoctor.render.terminal import plural, verdict

MARKS = {"pass": "✓", "warn": "⚠️", "fail": "❌", "skip": "–"}
CAPTURES = (  # (probe, key, label): raw outputs a maintainer re-reads
    ("nvidia_smi", "raw", "nvidia-smi"),
    ("nvidia_smi", "raw_xml", "nvidia-smi -q -x"),
    ("nvcc", "raw", "nvcc --version"),
    ("runtime", "log", "TensorFlow worker log"),
)
PLATFORMS = {"wsl2": "WSL2", "windows": "native Windows", "macos": "macOS"}
CAPTURE_LIMIT = 6_000
FACTS_LIMIT = 24_000
_INLINE = re.compile(r"([\\`*_\[\]|~])")
_LINE_START = re.compile(r"^(\s*)([#>+=-]|\d+[.)])", re.MULTILINE)
_URL = re.compile(r"https?://[^\s<>\"'`\\]+")


def _inline(value: Any) -> str:
    s = sanitize.text(str(value)).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _INLINE.sub(r"\\\1", s)


def text(value: Any) -> str:
    """Plain text made safe for Markdown: shown as written, never taken for markup. No HTML
    (&, <, > as entities: <redacted> stays visible and </details> closes nothing), no code,
    emphasis, links or table cells (backslash escapes), no heading, quote, list or rule at the
    start of a line."""
    return _LINE_START.sub(_escape_start, _inline(value))


def _escape_start(m: re.Match) -> str:
    lead, mark = m.group(1), m.group(2)
    return f"{lead}{mark[:-1]}\\{mark[-1]}" if mark[0].isdigit() else f"{lead}\\{mark}"


def cell(value: Any) -> str:
    """One table cell: inline text on one line (`|` escaped); an em dash when empty."""
    return _inline(value).replace("\r", " ").replace("\n", " ") if value not in (None, "") else "—"


def code_span(value: str) -> str:
    """Inline code: literal on GitHub (no HTML, no entities); the fence is longer than any
    backtick run inside, so nothing in it can end it early."""
    value = sanitize.line(value)
    longest = max((len(m) for m in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") or not value.strip() else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def prose(value: str) -> str:
    """Text in which `code spans` stay code and everything else is escaped text."""
    value = sanitize.text(str(value))
    out, i = [], 0
    for a, b in fixtext.backtick_spans(value):
        out += [text(value[i:a]), code_span(value[a + 1:b - 1])]
        i = b
    out.append(text(value[i:]))
    return "".join(out)


def link(url: Any) -> str:
    """A docs link as an autolink when it is a plain http(s) URL, else escaped text."""
    url = sanitize.line(url or "").strip()
    return f"<{url}>" if _URL.fullmatch(url) else text(url)


def code(value: str, lang: str = "") -> str:
    """A fenced block whose fence is longer than any backtick run inside (nothing closes it)."""
    value = sanitize.text(value)
    longest = max((len(m) for m in re.findall(r"`+", value)), default=0)
    fence = "`" * max(3, longest + 1)
    lang = lang if re.fullmatch(r"[a-z]*", lang) else ""
    return f"{fence}{lang}\n{value.rstrip()}\n{fence}"


def trim(value: str, limit: int) -> str:
    """Head and tail of a long text, with a note of what was cut."""
    if len(value) <= limit:
        return value
    head, tail = value[: limit * 2 // 3], value[-(limit // 3) :]
    return f"{head}\n… [{len(value) - len(head) - len(tail)} characters trimmed] …\n{tail}"


def details(summary: str, body: str) -> str:
    return f"<details>\n<summary>{summary}</summary>\n\n{body.strip()}\n\n</details>"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _join(*parts: Any) -> str:
    return " · ".join(str(p) for p in parts if p not in (None, "", False))


def headline(env: dict[str, Any]) -> str:
    """The facts table a maintainer reads first."""
    platform = PLATFORMS.get(str(env.get("platform") or ""))
    container = f"container: {env['container']}" if env.get("container") else None
    gpus = [g for g in env.get("gpus") or [] if isinstance(g, dict)]
    names: dict[str, int] = {}
    for g in gpus:
        label = str(g.get("name") or "unknown GPU")
        if g.get("compute_capability"):
            label += f" (cc {g['compute_capability']}"
            label += f", {g['memory_total_mib']} MiB)" if g.get("memory_total_mib") else ")"
        names[label] = names.get(label, 0) + 1
    gpu_text = ", ".join(f"{n} × {label}" for label, n in names.items()) if gpus else None
    if gpu_text is None and env.get("gpu_count") == 0:
        gpu_text = "none found"
    visible = env.get("tf_visible_gpus")
    built = None
    if env.get("tf_built_with_cuda") is False:
        built = "CPU-only build"
    elif env.get("tf_cuda_version") or env.get("tf_cudnn_version"):
        built = "built for " + _join(
            env.get("tf_cuda_version") and f"CUDA {env['tf_cuda_version']}",
            env.get("tf_cudnn_version") and f"cuDNN {env['tf_cudnn_version']}",
        ).replace(" · ", ", ")
    rows = [
        ("OS", _join(env.get("os"), platform, env.get("kernel") and f"kernel {env['kernel']}", container)),
        ("Python", env.get("python_version")),
        ("NVIDIA driver", _join(
            env.get("driver_version"),
            env.get("cuda_driver_version") and f"supports CUDA {env['cuda_driver_version']}",
        )),
        ("CUDA toolkit (nvcc)", _nvcc(env)),
        ("TensorFlow", _join(env.get("tensorflow_version"), built,
                             env.get("cudnn_version") and f"cuDNN wheel {env['cudnn_version']}")),
        ("GPUs", _join(gpu_text, isinstance(visible, int) and f"TensorFlow sees {visible}")),
    ]
    return "\n".join(["| Component | Found |", "|---|---|", *(f"| **{k}** | {cell(v)} |" for k, v in rows)])


def _nvcc(env: dict[str, Any]) -> str | None:
    nvcc, tf_cuda = env.get("nvcc_version"), env.get("tf_cuda_version")
    if nvcc and tf_cuda and str(nvcc).split(".")[:2] != str(tf_cuda).split(".")[:2]:
        return f"{nvcc} — pip TensorFlow uses its own CUDA {tf_cuda} libraries, not this"
    return nvcc


def _id(f: dict[str, Any]) -> str:
    return code_span(str(f.get("id") or "?"))


def _fix(f: dict[str, Any]) -> str:
    """The commands to paste in a shell block first, then the prose around them."""
    parts = fixtext.parts(f)
    out = []
    if parts.commands:
        out.append(code("\n".join(parts.commands), "sh"))
    if parts.prose:
        out.append(prose(parts.prose))
    return "\n\n".join(out)


def _docs(f: dict[str, Any]) -> str | None:
    from tfdoctor.catalogue import docs

    return f.get("docs") or docs(str(f.get("id") or ""))


def finding_block(f: dict[str, Any], follows: list[dict[str, Any]] = (), level: str = "####") -> str:
    """One warning or failure: title, detail, the fix (commands as a block to copy), docs,
    evidence, and the findings that follow from it."""
    status = str(f.get("status", "skip"))
    title = f"{MARKS.get(status, '?')} {text(sanitize.line(f.get('title', '')))} ({_id(f)})"
    if f.get("confidence") == "likely":
        title += " — likely"
    parts = [f"{level} {title}"]
    if f.get("detail"):
        parts.append(prose(str(f["detail"])).replace("\n", "  \n"))
    if f.get("fix"):
        parts.append("**Fix:**\n\n" + _fix(f))
    if _docs(f):
        parts.append(f"Docs: {link(_docs(f))}")
    evidence = [str(e) for e in f.get("evidence") or []]
    if evidence:
        parts.append("Evidence from the log:\n\n" + code("\n".join(evidence), "text"))
    if follows:
        lines = [_item(c) for c in follows]
        parts.append("**Follows from it** (fixed with it):\n\n" + "\n".join(lines))
    return "\n\n".join(parts)


def _one_line(f: dict[str, Any]) -> str:
    first = sanitize.text(str(f.get("detail") or "")).strip().splitlines()
    return _item(f) + (f" — {text(first[0])}" if first else "")


def _item(f: dict[str, Any]) -> str:
    """A finding as a list item: mark, title, id."""
    mark = MARKS.get(str(f.get("status", "")), "?")
    return f"- {mark} {text(sanitize.line(f.get('title', '')))} ({_id(f)})"


def _captures(facts: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """The raw outputs as <details> blocks, and the facts without them (no duplicates)."""
    blocks: list[str] = []
    rest = dict(facts)
    for probe, key, label in CAPTURES:
        section = rest.get(probe)
        if not isinstance(section, dict) or not section.get(key):
            continue
        raw = section[key]
        items = raw.items() if isinstance(raw, dict) else [("", raw)]
        for sub, value in items:
            if isinstance(value, str) and value.strip():
                name = f"{label} ({sub})" if sub else label
                body = code(trim(value, CAPTURE_LIMIT), "text")
                blocks.append(details(f"Captured output: {text(name)}", body))
        rest[probe] = {k: v for k, v in section.items() if k != key}
    return blocks, rest


Findings = list[dict[str, Any]]


def _structure(findings: Findings) -> tuple[Findings, dict[int, Findings]]:
    """(root failures and warnings worst first, {id(root): the findings that follow from it})."""
    from tfdoctor.render.terminal import _root_of, _roots

    by_id: dict[str, dict[str, Any]] = {}
    for f in findings:
        by_id.setdefault(str(f.get("id")), f)
    follows: dict[int, list[dict[str, Any]]] = {}
    for f in findings:
        root = _root_of(f, by_id)
        if root is not None:
            follows.setdefault(id(root), []).append(f)
    return _roots(findings), follows


def render(report: dict[str, Any]) -> str:
    """The whole report as Markdown (secrets redacted again and untrusted text sanitized here,
    whatever the input): the verdict with the root cause and its fix on top, the facts table,
    the rest folded."""
    report = sanitize.clean(redact_report(report))
    env = report.get("environment") if isinstance(report.get("environment"), dict) else {}
    findings = [f for f in report.get("findings") or [] if isinstance(f, dict)]
    tool = report.get("tool") if isinstance(report.get("tool"), dict) else {}
    roots, follows = _structure(findings)
    fails = [f for f in roots if f.get("status") == "fail"]
    warns = [f for f in roots if f.get("status") == "warn"]
    explained = sum(len(v) for v in follows.values())
    worst = "fail" if fails else "warn" if warns else "pass"
    cause = "it" if len(roots) == 1 else "them"
    counts = _join(plural(len(fails), "failure"), plural(len(warns), "warning"),
                   explained and f"{plural(explained, 'more follows', 'more follow')} from {cause}")
    if report.get("mode") == "explain":
        out = [f"### tfdoctor explain: {MARKS[worst]} {text(verdict(report))}", counts]
    else:
        out = [f"### tfdoctor: {MARKS[worst]} {text(verdict(report))}", counts]
    if fails:
        if len(fails) > 1:
            out[-1] += " — fix them in this order"
        out += [finding_block(f, follows.get(id(f), [])) for f in fails]
    elif report.get("mode") != "explain":
        out.append("Nothing failed." if warns else "Nothing failed; no warnings.")
    out.append(headline(env))
    if warns:
        out.append(details(f"Warnings ({len(warns)})",
                           "\n\n".join(finding_block(f, follows.get(id(f), [])) for f in warns)))
    others = [f for f in findings if f.get("status") not in ("fail", "warn")]
    if others:
        counted = _join(*(plural(n, s) for s, n in (
            ("passed check", sum(f.get("status") == "pass" for f in others)),
            ("skipped check", sum(f.get("status") == "skip" for f in others)),
        ) if n))
        out.append(details(text(counted), "\n".join(_one_line(f) for f in others)))
    facts = report.get("facts") if isinstance(report.get("facts"), dict) else {}
    blocks, rest = _captures(facts)
    out += blocks
    facts_json = trim(json.dumps(rest, indent=1, ensure_ascii=False, default=str), FACTS_LIMIT)
    out.append(details("Facts (JSON)", code(facts_json, "json")))
    timings = report.get("timings") if isinstance(report.get("timings"), dict) else {}
    if timings:
        rows = "\n".join(f"| {cell(k)} | {cell(v)} |" for k, v in timings.items())
        out.append(details("Timings (seconds)", "| phase | seconds |\n|---|---|\n" + rows))
    out.append(
        "<sub>"
        + text(_join(f"tfdoctor {tool.get('version', '?')}", tool.get("compat_data") and
                     f"compat data {tool['compat_data']}", f"mode {report.get('mode', '?')}",
                     report.get("created_at"), f"report schema {report.get('schema_version', '?')}"))
        + "</sub>"
    )
    return redact_text("\n\n".join(out) + "\n")
