"""`tfdoctor fleet`: many nodes' saved reports side by side, with the values that drift.

Fast by design: each file is read once with `json.load`, reduced to one row and dropped (no
checks re-run; a node's status is re-derived from its saved findings), so a thousand reports
take well under two seconds. A file that cannot be read or is not a tfdoctor report becomes a
row with an `error`; the table is still printed, and the exit status is then 2.

Exit status: 2 when any input could not be read (the view is incomplete), else 1 when any node
failed, else 0.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from tfdoctor.environment import KEYS
from tfdoctor.model import SCHEMA_VERSION

STATUSES = ("skip", "pass", "warn", "fail")
DRIFT_KEYS = tuple(k for k in KEYS if k != "hostname")  # hostnames always differ


class BadReport(Exception):
    """One file that is not a readable tfdoctor report (a row, not the end of the run)."""


def expand(paths: list[str]) -> list[tuple[str, str | None]]:
    """Files named, and the *.json files under directories named: (path, error or None)."""
    out: list[tuple[str, str | None]] = []
    seen: set[str] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(str(p) for p in path.rglob("*.json") if p.is_file())
            if not found:
                out.append((raw, "directory holds no *.json reports"))
            files = found
        else:
            files = [raw]
        for f in files:
            if f not in seen:
                seen.add(f)
                out.append((f, None))
    return out


def _load(path: str) -> dict[str, Any]:
    from tfdoctor.jsonsafe import InputError, loads, read_capped

    try:
        data = loads(read_capped(path))  # size, numbers and nesting bounded; NaN/Infinity read as null
    except FileNotFoundError:
        raise BadReport("no such file") from None
    except OSError as exc:
        raise BadReport(exc.strerror or str(exc)) from None
    except InputError as exc:
        raise BadReport(str(exc)) from None
    if not isinstance(data, dict) or "schema_version" not in data:
        raise BadReport("not a tfdoctor report (no schema_version)")
    version = data["schema_version"]
    if not isinstance(version, int) or isinstance(version, bool) or version > SCHEMA_VERSION:
        raise BadReport(f"report schema {version!r} is newer than this tfdoctor reads ({SCHEMA_VERSION})")
    if not isinstance(data.get("environment"), dict) or not isinstance(data.get("findings"), list):
        raise BadReport("not a tfdoctor report (environment/findings missing)")
    return data


def _blank(path: str, error: str | None = None) -> dict[str, Any]:
    return {"file": path, "host": Path(path).stem, "status": "error", "error": error, "failing": [],
            "warning": [], "created_at": None, "tool_version": None, "environment": {}, "drifted": []}


def node_row(path: str) -> dict[str, Any]:
    """One node from one saved report; `error` set (and status "error") when it cannot be read."""
    row = _blank(path)
    try:
        data = _load(path)
        worst = 1  # no findings (or only skips) is a pass, as in model.summarize
        for f in data["findings"]:
            status = f.get("status") if isinstance(f, dict) else None
            if status not in STATUSES:
                raise BadReport(f"finding with status {status!r}")
            worst = max(worst, STATUSES.index(status))
            if status == "fail":
                row["failing"].append(str(f.get("id")))
            elif status == "warn":
                row["warning"].append(str(f.get("id")))
    except BadReport as exc:
        row["error"] = str(exc)
        return row
    env = data["environment"]
    row["environment"] = {k: env.get(k) for k in KEYS}
    if isinstance(env.get("hostname"), str) and env["hostname"] and env["hostname"] != "<hostname>":
        row["host"] = env["hostname"]
    tool = data.get("tool")
    row["tool_version"] = tool.get("version") if isinstance(tool, dict) else None
    row["created_at"] = data.get("created_at")
    row["status"] = STATUSES[worst]
    return row


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def find_drift(nodes: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Environment keys whose values differ across the readable nodes -> the values seen,
    most common first; each node's `drifted` lists the keys where it is not with the majority."""
    readable = [n for n in nodes if not n["error"]]
    drift: dict[str, list[Any]] = {}
    for key in DRIFT_KEYS:
        counts = Counter(_canon(n["environment"].get(key)) for n in readable)
        if len(counts) < 2:
            continue
        ordered = [v for v, _ in counts.most_common()]  # ties keep first-seen order
        drift[key] = [json.loads(v) for v in ordered]
        for n in readable:
            if _canon(n["environment"].get(key)) != ordered[0]:
                n["drifted"].append(key)
    return drift


def build(paths: list[str]) -> dict[str, Any]:
    """The fleet as a dict: nodes, drift, counts."""
    nodes = []
    for path, error in expand(paths):
        nodes.append(_blank(path, error) if error else node_row(path))
    drift = find_drift(nodes)
    counts = Counter(n["status"] for n in nodes)
    return {
        "nodes": nodes,
        "drift": drift,
        "summary": {"nodes": len(nodes), **{s: counts.get(s, 0) for s in ("pass", "warn", "fail", "error")}},
    }


def _gpus(env: dict[str, Any]) -> str:
    gpus = env.get("gpus") or []
    names = sorted({g.get("name") or "?" for g in gpus if isinstance(g, dict)})
    if gpus:
        return f"{len(gpus)} × {names[0]}" if len(names) == 1 else f"{len(gpus)} (mixed: {', '.join(names)})"
    count = env.get("gpu_count")
    return "—" if count is None else str(count)


COLUMNS = (  # (header, environment keys behind it, value)
    ("host", (), lambda n: n["host"]),
    ("driver", ("driver_version",), lambda n: n["environment"].get("driver_version")),
    ("CUDA", ("cuda_driver_version",), lambda n: n["environment"].get("cuda_driver_version")),
    ("TF", ("tensorflow_version",), lambda n: n["environment"].get("tensorflow_version")),
    ("GPUs", ("gpu_count", "gpus"), lambda n: _gpus(n["environment"])),
)
STYLES = {"pass": "green", "warn": "yellow", "fail": "bold red", "error": "bold magenta"}


def _nodes(n: int) -> str:
    return f"{n} node" if n == 1 else f"{n} nodes"


def _short(key: str, value: Any) -> str:
    if value is None:
        return "unknown"
    if key == "gpus" and isinstance(value, list):
        return _gpus({"gpus": value, "gpu_count": len(value)})
    text = _canon(value) if isinstance(value, (list, dict)) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def render_table(fleet: dict[str, Any], color: bool) -> None:
    """The fleet for a terminal: one row per node, drifted cells marked `*` (and coloured)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    # Piped into a file or a pager: one line per node rather than the 80 columns rich assumes.
    width = None if sys.stdout.isatty() else 400
    console = Console(color_system="auto" if color else None, highlight=False, emoji=False, width=width)
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for header, _, _ in COLUMNS:
        table.add_column(header, no_wrap=header != "host", overflow="fold")
    table.add_column("status", no_wrap=True)
    table.add_column("failing", overflow="fold")
    for n in fleet["nodes"]:
        cells = []
        for _, keys, value in COLUMNS:
            if n["error"] and keys:
                cells.append(Text(""))
                continue
            shown = value(n)
            text = Text("—" if shown is None else str(shown))
            if any(k in n["drifted"] for k in keys):
                text.append("*")
                text.stylize("bold yellow")
            cells.append(text)
        cells.append(Text(n["status"], style=STYLES.get(n["status"], "")))
        cells.append(Text(n["error"] or " ".join(n["failing"]), style="magenta" if n["error"] else ""))
        table.add_row(*cells)
    console.print(table)
    for key, values in fleet["drift"].items():
        holders = Counter(_canon(n["environment"].get(key)) for n in fleet["nodes"] if not n["error"])
        seen = "; ".join(f"{_short(key, v)} ({_nodes(holders[_canon(v)])})" for v in values)
        console.print(Text(f"drift  {key}: ", style="bold yellow").append(seen, style=""))
    s = fleet["summary"]
    console.print(Text(
        f"{s['nodes']} nodes · {s['pass']} pass · {s['warn']} warn · {s['fail']} fail · "
        f"{s['error']} unreadable · {len(fleet['drift'])} drifting values"
        + ("  (* = differs from most nodes)" if fleet["drift"] else ""),
        style="bold",
    ))
