"""The report in a notebook (HTML) or a rich console: root cause first.

Layout: the headline and the verdict; then each root cause (a failure or warning no other finding
explains, worst first) with its detail, its fix and the findings it explains; then every finding in
a folded table. Every value is untrusted text: control characters are dropped and everything is
HTML-escaped; only http(s) URLs become links.
"""

from __future__ import annotations

import html as _html
import re
from typing import Any

from tfdoctor.render import fixtext, sanitize
from tfdoctor.render.terminal import TITLES, area, system_line, verdict

MARKS = {"pass": "✓", "warn": "!", "fail": "✗", "skip": "–"}
COLORS = {"pass": "#2e7d32", "warn": "#b26a00", "fail": "#c62828", "skip": "#757575"}
RICH_STYLES = {"pass": "green", "warn": "yellow", "fail": "bold red", "skip": "dim"}
_URL = re.compile(r"^https?://[^\s\"'<>]+$")


def clean(value: Any) -> str:
    """Text as the terminal shows it: escape sequences, control characters and bidirectional
    overrides removed (render/sanitize.py)."""
    return sanitize.text("" if value is None else str(value))


def esc(value: Any) -> str:
    return _html.escape(clean(value), quote=True)


def _findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report.get("findings") or [] if isinstance(f, dict)]


def _status(f: dict[str, Any]) -> str:
    status = f.get("status")
    return status if status in MARKS else "skip"


def structure(report: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """The root causes, worst first, and for each root id the findings it explains (directly or
    through a chain of caused_by)."""
    findings = _findings(report)
    by_id = {f.get("id"): f for f in findings}
    order = {"fail": 0, "warn": 1}
    roots = [f for f in findings if not f.get("caused_by") and _status(f) in order]
    roots.sort(key=lambda f: order[_status(f)])
    explained: dict[str, list[dict[str, Any]]] = {}
    for f in findings:
        cause, seen = f.get("caused_by"), set()
        while cause in by_id and by_id[cause].get("caused_by") and cause not in seen:
            seen.add(cause)
            cause = by_id[cause].get("caused_by")
        if cause:
            explained.setdefault(str(cause), []).append(f)
    return roots, explained


def _head(report: dict[str, Any]) -> tuple[str, str, str]:
    tool = report.get("tool") or {}
    title = f"tfdoctor {tool.get('version', '')} · {TITLES.get(report.get('mode'), 'TensorFlow GPU check')}"
    summary = report.get("summary") or {}
    fails, warns = summary.get("fail", 0), summary.get("warn", 0)
    count = f"{fails} failure{'' if fails == 1 else 's'} · {warns} warning{'' if warns == 1 else 's'}"
    return title, f"{count} — {verdict(report)}", system_line(report.get("environment") or {})


def _block(text: Any, style: str = "") -> str:
    body = esc(text).strip()
    return f'<div style="white-space:pre-wrap;{style}">{body}</div>' if body else ""


def _link(url: Any) -> str:
    url = clean(url)
    return f'<a href="{esc(url)}" target="_blank" rel="noopener">{esc(url)}</a>' if _URL.match(url) else ""


def _root_html(f: dict[str, Any], explained: list[dict[str, Any]]) -> str:
    status = _status(f)
    color = COLORS[status]
    parts = [
        f'<div class="tfd-root" data-id="{esc(f.get("id"))}" style="border-left:4px solid {color};'
        'padding:4px 10px;margin:6px 0">',
        f'<div><span style="color:{color};font-weight:bold">{MARKS[status]}</span> '
        f'<b>{esc(f.get("title"))}</b> <code style="opacity:.6">{esc(f.get("id"))}</code></div>',
        _block(f.get("detail"), "opacity:.8;margin-top:2px"),
    ]
    if f.get("fix"):
        plan = fixtext.parts(f)
        code = (f'<code style="white-space:pre-wrap">{esc(chr(10).join(plan.commands)).strip()}</code>'
                if plan.commands else "")
        parts.append(f'<div style="margin-top:4px"><b>fix:</b> {code}'
                     + (f" {esc(plan.prose)}" if plan.prose else "") + "</div>")
    link = _link(f.get("docs"))
    if link:
        parts.append(f'<div style="opacity:.8">docs: {link}</div>')
    if explained:
        items = "".join(
            f'<li><span style="color:{COLORS[_status(e)]}">{MARKS[_status(e)]}</span> {esc(e.get("title"))} '
            f'<code style="opacity:.6">{esc(e.get("id"))}</code></li>'
            for e in explained
        )
        parts.append(
            f'<div style="margin-top:4px">It also explains:<ul style="margin:2px 0">{items}</ul></div>'
        )
    parts.append("</div>")
    return "".join(p for p in parts if p)


def html(report: dict[str, Any]) -> str:
    """The report as one self-contained HTML fragment (inline styles only, no script)."""
    title, line, system = _head(report)
    status = (report.get("summary") or {}).get("status", "pass")
    status = status if status in MARKS else "pass"
    roots, explained = structure(report)
    seconds = (report.get("timings") or {}).get("probes_total")
    out = [
        '<div class="tfdoctor-report" '
        'style="font-family:var(--jp-ui-font-family,sans-serif);line-height:1.4">',
        f"<div><b>{esc(title)}</b>"
        + (f' <span style="opacity:.6">{seconds:.1f} s</span>' if isinstance(seconds, (int, float)) else "")
        + "</div>",
        f'<div class="tfd-verdict" style="color:{COLORS[status]};font-weight:bold;margin:4px 0">'
        f"{MARKS[status]} {esc(line)}</div>",
    ]
    if system:
        out.append(f'<div style="opacity:.7">System: {esc(system)}</div>')
    if roots:
        out.append(f'<h4 style="margin:8px 0 2px">Root cause{"s" if len(roots) > 1 else ""}</h4>')
        out += [_root_html(f, explained.get(str(f.get("id")), [])) for f in roots]
    elif report.get("mode") != "explain" or _findings(report):
        out.append('<div style="margin:6px 0">No failure or warning.</div>')
    findings = _findings(report)
    if findings:
        tally = {s: sum(_status(f) == s for f in findings) for s in ("fail", "warn", "pass", "skip")}
        counts = " · ".join(f"{n} {s}" for s, n in tally.items() if n)
        rows = "".join(
            f'<tr><td style="color:{COLORS[_status(f)]};text-align:center">{MARKS[_status(f)]}</td>'
            f'<td style="text-align:left">{esc(area(str(f.get("id", ""))))}</td>'
            f'<td style="text-align:left">{esc(f.get("title"))}'
            + (f' <span style="opacity:.6">(explained by {esc(f.get("caused_by"))})</span>'
               if f.get("caused_by") else "")
            + f'</td><td style="text-align:left"><code>{esc(f.get("id"))}</code></td></tr>'
            for f in findings
        )
        out.append(
            f"<details><summary>All {len(findings)} findings ({esc(counts)})</summary>"
            f'<table class="tfd-findings">{rows}</table></details>'
        )
    out.append("</div>")
    return "".join(out)


def rich_renderable(report: dict[str, Any]) -> Any:
    """The same layout for a rich console (`rich.print(report)`)."""
    from rich.console import Group
    from rich.text import Text

    title, line, system = _head(report)
    status = (report.get("summary") or {}).get("status", "pass")
    status = status if status in MARKS else "pass"
    roots, explained = structure(report)
    items: list[Any] = [Text(clean(title), style="bold"),
                        Text(f"{MARKS[status]} {clean(line)}", style=RICH_STYLES[status])]
    if system:
        items.append(Text(f"System: {clean(system)}", style="dim"))
    for f in roots:
        st = _status(f)
        head = Text(f"{MARKS[st]} ", style=RICH_STYLES[st]).append(clean(f.get("title")), style="bold")
        items.append(head.append(f"  [{clean(f.get('id'))}]", style="dim"))
        for d in clean(f.get("detail")).splitlines()[:3]:
            if d.strip():
                items.append(Text("    " + d, style="dim"))
        if f.get("fix"):
            plan = fixtext.parts(f)
            for k, command in enumerate(plan.commands):
                items.append(Text("    fix: " if k == 0 else "         ", style="bold").append(clean(command),
                                                                                          style="cyan"))
            if plan.prose:
                items.append(Text(("    fix: " if not plan.commands else "         ") + clean(plan.prose)))
        for e in explained.get(str(f.get("id")), []):
            items.append(Text(f"    explains: {clean(e.get('title'))} [{clean(e.get('id'))}]", style="dim"))
    others = [f for f in _findings(report) if f not in roots and not f.get("caused_by")]
    for f in others:
        st = _status(f)
        items.append(Text(f"{MARKS[st]} ", style=RICH_STYLES[st]).append(clean(f.get("title"))))
    return Group(*items)
