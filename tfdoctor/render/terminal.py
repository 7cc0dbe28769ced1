"""The report for a person at a terminal: grouped by area, one line per finding, fixes to paste."""

from __future__ import annotations

from typing import Any

MARKS = {"pass": ("✓", "green"), "warn": ("!", "yellow"), "fail": ("✗", "bold red"), "skip": ("–", "dim")}
AREAS = {
    "platform": "Platform",
    "system": "Platform",
    "driver": "Driver",
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


def area(finding_id: str) -> str:
    prefix = finding_id.split(".", 1)[0]
    return AREAS.get(prefix, prefix.capitalize())


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def system_line(env: dict[str, Any]) -> str:
    """The headline facts of the machine, in one line."""
    parts = [
        env.get("os"),
        f"kernel {env['kernel']}" if env.get("kernel") else None,
        f"Python {env['python_version']}" if env.get("python_version") else None,
        {"wsl2": "WSL2", "windows": "native Windows", "macos": "macOS"}.get(env.get("platform") or ""),
        (f"container: {env['container']}" if env.get("container") else None),
        f"driver {env['driver_version']}" if env.get("driver_version") else None,
        f"CUDA (driver) {env['cuda_driver_version']}" if env.get("cuda_driver_version") else None,
        f"nvcc {env['nvcc_version']}" if env.get("nvcc_version") else None,
        f"TensorFlow {env['tensorflow_version']}" if env.get("tensorflow_version") else None,
    ]
    gpus = env.get("gpus") or []
    if gpus:
        names = sorted({g.get("name") or "unknown GPU" for g in gpus})
        parts.append(f"{len(gpus)} × {', '.join(names)}" if len(names) == 1 else f"{len(gpus)} GPUs")
    return " · ".join(p for p in parts if p)


def verdict(report: dict[str, Any]) -> str:
    """One sentence: where TensorFlow really runs, and what to do first."""
    env = report.get("environment") or {}
    summary = report.get("summary") or {}
    findings = report.get("findings") or []
    fails = [f for f in findings if f.get("status") == "fail"]
    if report.get("mode") == "explain":
        if not findings:
            return "Nothing in this output points to a problem tfdoctor knows."
        return f"Fix first: {fails[0]['title']}" if fails else "No failure; see the warnings."
    visible = env.get("tf_visible_gpus")
    if not env.get("tensorflow_version"):
        where = "TensorFlow is not installed"
    elif visible:
        where = f"TensorFlow sees {_plural(visible, 'GPU')}"
    elif visible == 0:
        where = "TensorFlow runs on the CPU only"
    else:
        where = f"TensorFlow {env['tensorflow_version']} (not run: quick check)"
    if fails:
        return f"{where}. Fix first: {fails[0]['title']}"
    if summary.get("warn"):
        return f"{where}. Nothing failed; read the warnings."
    return f"{where}. All good."


def _lines(text: str) -> list[str]:
    return [line for line in (text or "").splitlines() if line.strip()]


def render(report: dict[str, Any], verbose: bool = False, color: bool = True) -> None:
    """Print the report to stdout with rich (colour off when asked or NO_COLOR is set)."""
    from rich.console import Console
    from rich.text import Text

    console = Console(color_system="auto" if color else None, highlight=False, emoji=False, soft_wrap=True)
    tool = report.get("tool") or {}
    seconds = (report.get("timings") or {}).get("probes_total")
    head = Text(
        f"tfdoctor {tool.get('version', '')} · {TITLES.get(report.get('mode'), 'TensorFlow GPU check')}",
        style="bold",
    )
    if isinstance(seconds, (int, float)):
        head.append(f"   {seconds:.1f} s", style="dim")
    console.print(head)
    env = report.get("environment") or {}
    known = system_line(env) or (
        "no versions or names found in this output" if report.get("mode") == "explain" else "nothing known"
    )
    console.print(Text(f"{'System':<{LABEL_WIDTH}}{known}"))

    groups: dict[str, list[dict[str, Any]]] = {}
    for f in report.get("findings") or []:
        groups.setdefault(area(f.get("id", "")), []).append(f)
    indent = " " * (LABEL_WIDTH + 2)
    for name in sorted(groups, key=lambda a: (ORDER.index(a) if a in ORDER else len(ORDER), a)):
        for i, f in enumerate(groups[name]):
            status = f.get("status", "skip")
            mark, style = MARKS.get(status, ("?", ""))
            line = Text(f"{name if i == 0 else '':<{LABEL_WIDTH}}")
            line.append(mark, style=style)
            line.append(f" {f.get('title', '')}")
            if f.get("confidence") == "likely":
                line.append(" (likely)", style="dim")
            if verbose:
                line.append(f"  [{f.get('id')}]", style="dim")
            console.print(line)
            detail = _lines(f.get("detail", ""))
            if detail and (verbose or status in ("fail", "warn")):
                for d in detail if verbose else detail[:3]:
                    console.print(Text(indent + d, style="dim"))
            fix = _lines(f.get("fix") or "")
            if fix and status in ("fail", "warn"):
                console.print(Text(indent + "fix: ", style="bold").append(fix[0], style="cyan"))
                for extra in fix[1:]:
                    console.print(Text(indent + "     " + extra, style="cyan"))
            if verbose and f.get("docs"):
                console.print(Text(indent + "docs: " + f["docs"], style="dim"))

    summary = report.get("summary") or {}
    status = summary.get("status", "pass")
    mark, style = MARKS.get(status, ("?", ""))
    tail = Text()
    tail.append(mark, style=style)
    tail.append(
        f" {_plural(summary.get('fail', 0), 'failure')} · {_plural(summary.get('warn', 0), 'warning')}"
        f" — {verdict(report)}",
        style="bold",
    )
    console.print(tail)
