"""The report as Markdown to paste into a GitHub issue.

A headline table (OS, Python, driver, CUDA, TensorFlow, GPUs), failures with their fixes in the
open, and everything else (warnings, passes, raw captures, facts, timings) in `<details>`.
GitHub issue bodies stop at 65,536 characters, so captures and facts are trimmed to fit.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tfdoctor.privacy import redact_report, redact_text

MARKS = {"pass": "✓", "warn": "⚠️", "fail": "❌", "skip": "–"}
CAPTURES = (  # (probe, key, label): raw outputs a maintainer re-reads
    ("nvidia_smi", "raw", "nvidia-smi"),
    ("nvidia_smi", "raw_xml", "nvidia-smi -q -x"),
    ("nvcc", "raw", "nvcc --version"),
    ("runtime", "log", "TensorFlow worker log"),
)
CAPTURE_LIMIT = 6_000
FACTS_LIMIT = 24_000
_MD_SPECIAL = re.compile(r"([\\*_\[\]|])")


def text(value: Any) -> str:
    """Plain text made safe for Markdown: no HTML tags (<redacted> stays visible), no tables broken."""
    s = str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", s)


def cell(value: Any) -> str:
    return text(value).replace("\n", " ") if value not in (None, "") else "—"


def code(value: str, lang: str = "") -> str:
    """A fenced block whose fence is longer than any backtick run inside."""
    longest = max((len(m) for m in re.findall(r"`+", value)), default=0)
    fence = "`" * max(3, longest + 1)
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
    """The table a maintainer reads first."""
    platform = {"wsl2": "WSL2", "windows": "native Windows", "macos": "macOS"}.get(env.get("platform") or "")
    container = f"container: {env['container']}" if env.get("container") else None
    gpus = env.get("gpus") or []
    names: dict[str, int] = {}
    for g in gpus:
        label = g.get("name") or "unknown GPU"
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
        ("CUDA toolkit (nvcc)", env.get("nvcc_version")),
        ("TensorFlow", _join(env.get("tensorflow_version"), built,
                             env.get("cudnn_version") and f"cuDNN wheel {env['cudnn_version']}")),
        ("GPUs", _join(gpu_text, visible is not None and f"TensorFlow sees {visible}")),
    ]
    return "\n".join(["| | |", "|---|---|", *(f"| **{k}** | {cell(v)} |" for k, v in rows)])


def finding_block(f: dict[str, Any]) -> str:
    """One warning or failure: title, detail, the fix (as a block to copy), docs."""
    status = f.get("status", "skip")
    title = f"{MARKS.get(status, '?')} {text(f.get('title', ''))} (`{f.get('id', '?')}`)"
    if f.get("confidence") == "likely":
        title += " — likely"
    parts = [f"#### {title}"]
    if f.get("detail"):
        parts.append(text(f["detail"]).replace("\n", "  \n"))
    fix = (f.get("fix") or "").strip()
    if fix:
        # A fix written with inline `code` is prose; anything else is a command to copy.
        parts.append("**Fix:** " + fix if "`" in fix else "**Fix:**\n\n" + code(fix, "sh"))
    if f.get("docs"):
        parts.append(f"Docs: <{f['docs']}>")
    return "\n\n".join(parts)


def _one_line(f: dict[str, Any]) -> str:
    first = (f.get("detail") or "").strip().splitlines()
    tail = f" — {text(first[0])}" if first else ""
    return f"- {MARKS.get(f.get('status', ''), '?')} {text(f.get('title', ''))} (`{f.get('id', '?')}`){tail}"


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


def render(report: dict[str, Any]) -> str:
    """The whole report as Markdown (secrets redacted again here, whatever the input)."""
    report = redact_report(report)
    env = report.get("environment") or {}
    findings = [f for f in report.get("findings") or [] if isinstance(f, dict)]
    summary = report.get("summary") or {}
    tool = report.get("tool") or {}
    fails = [f for f in findings if f.get("status") == "fail"]
    warns = [f for f in findings if f.get("status") == "warn"]
    others = [f for f in findings if f.get("status") not in ("fail", "warn")]
    status = summary.get("status", "pass")
    out = [
        f"### tfdoctor: {MARKS.get(status, '?')} {_plural(len(fails), 'failure')} · "
        f"{_plural(len(warns), 'warning')}",
        headline(env),
    ]
    if fails:
        out.append("### Failures")
        out += [finding_block(f) for f in fails]
    elif report.get("mode") != "explain":
        out.append("Nothing failed.")
    if warns:
        out.append(details(f"Warnings ({len(warns)})", "\n\n".join(finding_block(f) for f in warns)))
    if others:
        counts = _join(*(f"{_plural(n, s)}" for s, n in (
            ("passed check", sum(f.get("status") == "pass" for f in others)),
            ("skipped check", sum(f.get("status") == "skip" for f in others)),
        ) if n))
        out.append(details(text(counts), "\n".join(_one_line(f) for f in others)))
    facts = report.get("facts") if isinstance(report.get("facts"), dict) else {}
    blocks, rest = _captures(facts)
    out += blocks
    facts_json = trim(json.dumps(rest, indent=1, ensure_ascii=False, default=str), FACTS_LIMIT)
    out.append(details("Facts (JSON)", code(facts_json, "json")))
    timings = report.get("timings") or {}
    if timings:
        rows = "\n".join(f"| {cell(k)} | {v} |" for k, v in timings.items())
        out.append(details("Timings (seconds)", "| phase | s |\n|---|---|\n" + rows))
    out.append(
        "<sub>"
        + text(_join(f"tfdoctor {tool.get('version', '?')}", tool.get("compat_data") and
                     f"compat data {tool['compat_data']}", f"mode {report.get('mode', '?')}",
                     report.get("created_at"), f"report schema {report.get('schema_version', '?')}"))
        + "</sub>"
    )
    return redact_text("\n\n".join(out) + "\n")
