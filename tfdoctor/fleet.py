"""`tfdoctor fleet`: many nodes' saved reports side by side, with the values that drift.

Fast by design: each file is read once, by a typed msgspec decoder that checks it whole as JSON of
a report's types and builds only what a row reads (`skim`); a file it refuses goes to the shared
saved-report reader (jsonsafe: the C scanner, then numbers, nesting and text bounded in the sections a
row reads; shape: the types checked), which bounds it or names what is wrong. It is reduced to one row
and dropped (no checks re-run; a node's status is re-derived from its saved
findings), so memory holds the table, never the reports; from `PARALLEL` files on, one process per
CPU reads them. A file that cannot be read or is not a tfdoctor report becomes a row with an
`error`; the table is still printed, and the exit status is then 2. The table is laid out here
(rich's Table measures every cell, too slow for 100,000 rows), each cell made inert and cut to
`CELL` characters so that one huge value cannot push the other columns out of view; `--json` is
written one node per line.

Reports of the same host from different dates (`created_at`) are its history: the table shows each
host's latest report, and the timeline says when each value changed across the fleet ("driver
550.127.05 on 5 nodes on 2026-11-03; still on 535.183.01: gpu-06"). Schema 1 and 2 reports are read
alike. A file with a wrong type is an error row naming the field (tfdoctor/shape.py).

Exit status: 2 when any input could not be read (the view is incomplete), else 1 when any node
failed (in its latest report), else 0.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import sys
from collections import Counter
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

import msgspec

from tfdoctor.environment import KEYS
from tfdoctor.model import READABLE_SCHEMAS
from tfdoctor.shape import ENV_COUNTS, ENV_STRINGS, MODES, STATUSES, ShapeError, parse_time
from tfdoctor.shape import check as check_shape

DRIFT_KEYS = tuple(k for k in KEYS if k != "hostname")  # hostnames always differ


SECTIONS = ("schema_version", "tool", "created_at", "mode", "environment", "findings")  # what a row reads


class BadReport(Exception):
    """One file that is not a readable tfdoctor report (a row, not the end of the run)."""


def _json_files(folder: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The *.json files under folder, sorted (directory entries' types, no stat per file; symbolic links
    to directories not followed), and the directories that could not be listed, with why."""
    found: list[str] = []
    unlisted: list[tuple[str, str]] = []
    stack = [folder]
    while stack:
        where = stack.pop()
        try:
            with os.scandir(where) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.name.endswith(".json") and entry.is_file():
                        found.append(entry.path)
        except OSError as exc:
            unlisted.append((where, f"cannot list this directory: {exc.strerror or exc}"))
    return sorted(found), unlisted


def expand(paths: list[str]) -> list[tuple[str, str | None]]:
    """Files named, and the *.json files under directories named: (path, error or None)."""
    out: list[tuple[str, str | None]] = []
    seen: set[str] = set()
    for raw in paths:
        files = [raw]
        if os.path.isdir(raw):
            files, unlisted = _json_files(str(Path(raw)))
            out += unlisted
            if not files and not unlisted:
                out.append((raw, "directory holds no *.json reports"))
        for f in files:
            if f not in seen:
                seen.add(f)
                out.append((f, None))
    return out


# The skimming reader: msgspec types that accept exactly what `sections` accepts unchanged (anything
# it would reword, bound or refuse is refused here, and the full reader then reads or explains it).
# msgspec evaluates these annotations when the class is made: no `X | None` while Python 3.9 is supported.
_Text = Optional[str]
_Count = Optional[Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]]  # wider: the full reader bounds it
_Scalar = Union[None, bool, int, float, str]  # a number out of a double's range is refused by msgspec


class _Object(msgspec.Struct):
    """A JSON object whose members are checked as JSON and skipped, never built."""


_MaybeObject = Optional[_Object]
_Seconds = Optional[dict[str, float]]


class _Tool(msgspec.Struct):
    name: _Text = None
    version: _Text = None
    compat_data: _Text = None


_Environment = msgspec.defstruct("_Environment", [  # shape's types; unknown keys skipped (a row reads KEYS)
    *((key, _Text, None) for key in ENV_STRINGS), *((key, _Count, None) for key in ENV_COUNTS),
    ("tf_built_with_cuda", Optional[bool], None), ("gpus", Optional[list[dict[str, _Scalar]]], None)])
assert set(_Environment.__struct_fields__) == set(KEYS), "a row reads every environment key typed here"


_MaybeTool = Optional[_Tool]
_Mode = Optional[Literal[MODES]]  # a tuple subscript: one literal per item


class _Finding(msgspec.Struct):
    id: str
    status: Literal[STATUSES]
    title: _Text = None  # the text fields shape.check types, so both readers accept alike
    detail: _Text = None
    fix: _Text = None
    docs: _Text = None
    caused_by: _Text = None
    plan: _MaybeObject = None


class _Report(msgspec.Struct):
    schema_version: int
    environment: _Environment  # type: ignore[valid-type]
    findings: list[_Finding]
    tool: _MaybeTool = None
    created_at: _Text = None
    mode: _Mode = None
    facts: dict[str, _MaybeObject] = msgspec.UNSET
    summary: _MaybeObject = None
    timings: _Seconds = None


_SKIMMER = msgspec.json.Decoder(_Report)
_WIDE = 1 << 128  # an integer the full reader bounds to null


def _gpu_ok(gpu: dict[str, Any]) -> bool:
    """A GPU entry as shape.check types it, with no integer the full reader would bound."""
    index, mem = gpu.get("index"), gpu.get("memory_total_mib")
    return ((index is None or type(index) is int)
            and all(gpu.get(k) is None or type(gpu.get(k)) is str for k in ("name", "compute_capability"))
            and (mem is None or type(mem) in (int, float))
            and not any(type(v) is int and not -_WIDE < v < _WIDE for v in gpu.values()))


def skim(raw: bytes) -> dict[str, Any] | None:
    """What a row reads, by a strict typed decoder that checks the rest of the file as JSON of the
    right types without building it (a saved report's facts are most of its bytes): the same
    sections the full reader gives, or None when the full reader must read (or explain) the file."""
    try:
        report = _SKIMMER.decode(raw)
    except (msgspec.MsgspecError, ValueError, RecursionError):
        return None
    env = report.environment
    if (report.schema_version not in READABLE_SCHEMAS or (report.created_at is not None
            and parse_time(report.created_at) is None) or not all(map(_gpu_ok, env.gpus or ()))):
        return None
    tool = report.tool
    return {
        "schema_version": report.schema_version,
        "tool": None if tool is None else {"version": tool.version},
        "created_at": report.created_at,
        "environment": {key: getattr(env, key) for key in KEYS},
        "findings": [{"id": f.id, "status": f.status} for f in report.findings],
    }


def _load(path: str) -> dict[str, Any]:
    from tfdoctor.jsonsafe import InputError, parse, read_capped

    try:
        raw = read_capped(path)
        data = skim(raw)
        return sections(parse(raw)) if data is None else data
    except FileNotFoundError:
        raise BadReport("no such file") from None
    except OSError as exc:
        raise BadReport(exc.strerror or str(exc)) from None
    except InputError as exc:
        raise BadReport(str(exc)) from None


def sections(data: Any) -> dict[str, Any]:
    """What a row reads of a parsed report (either reader's), types checked and values bounded;
    BadReport naming the first thing wrong."""
    from tfdoctor.jsonsafe import InputError, bound

    if not isinstance(data, dict) or "schema_version" not in data:
        raise BadReport("not a tfdoctor report (no schema_version)")
    if "environment" not in data or "findings" not in data:
        raise BadReport("not a tfdoctor report (environment/findings missing)")
    try:
        check_shape(data, required=("environment", "findings"))
        data["findings"] = [{"id": f["id"], "status": f["status"]} for f in data["findings"]]
        return bound(data, keep=SECTIONS)  # numbers, nesting and text bounded in what a row reads
    except (ShapeError, InputError) as exc:
        raise BadReport(str(exc)) from None


def _blank(path: str, error: str | None = None) -> dict[str, Any]:
    return {"file": path, "host": Path(path).stem, "status": "error", "error": error, "failing": [],
            "warning": [], "created_at": None, "tool_version": None, "schema_version": None,
            "environment": {}, "drifted": [], "reports": 1}


def node_row(path: str) -> dict[str, Any]:
    """One node from one saved report; `error` set (and status "error") when it cannot be read."""
    try:
        return row_from(path, _load(path))
    except BadReport as exc:
        return _blank(path, str(exc))


def row_from(path: str, data: dict[str, Any]) -> dict[str, Any]:
    """The row of a report's sections as either reader gives them (types checked, values bounded)."""
    row = _blank(path)
    worst = 1  # no findings (or only skips) is a pass, as in model.summarize
    for f in data["findings"]:
        status = f["status"]
        worst = max(worst, STATUSES.index(status))
        if status == "fail":
            row["failing"].append(str(f.get("id")))
        elif status == "warn":
            row["warning"].append(str(f.get("id")))
    env = data["environment"]
    row["environment"] = {k: env.get(k) for k in KEYS}
    if isinstance(env.get("hostname"), str) and env["hostname"] and env["hostname"] != "<hostname>":
        row["host"] = env["hostname"]
    tool = data.get("tool")
    row["tool_version"] = tool.get("version") if isinstance(tool, dict) else None
    row["created_at"] = data.get("created_at")
    row["schema_version"] = data["schema_version"]
    row["status"] = STATUSES[worst]
    return row


def _canon(value: Any) -> Any:
    """A value as a hashable key that compares by content (a list or object as its sorted JSON)."""
    if isinstance(value, (list, dict)):
        return ("json", _CANON.encode(value))
    return value


_CANON = msgspec.json.Encoder(order="sorted", enc_hook=str)  # bounded values: plain JSON types


def _uncanon(key: Any) -> Any:
    return msgspec.json.decode(key[1]) if isinstance(key, tuple) else key


def find_drift(nodes: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Environment keys whose values differ across the readable nodes -> the values seen,
    most common first; each node's `drifted` lists the keys where it is not with the majority."""
    readable = [n for n in nodes if not n["error"]]
    drift: dict[str, list[Any]] = {}
    for key in DRIFT_KEYS:
        values = [n["environment"].get(key) for n in readable]
        if key == "gpus":  # the only list among the environment's values (their types are checked)
            values = list(map(_canon, values))
        counts = Counter(values)
        if len(counts) < 2:
            continue
        ordered = [v for v, _ in counts.most_common()]  # ties keep first-seen order
        drift[key] = [_uncanon(v) for v in ordered]
        for n, value in zip(readable, values):
            if value != ordered[0]:
                n["drifted"].append(key)
    return drift


# --- over time ------------------------------------------------------------------------------------

TIMELINE_KEYS = (*DRIFT_KEYS, "status")  # a host's values that can change from one report to the next
HOST_LIST = 8  # hosts named in one timeline line before "and N more"


def _when(row: dict[str, Any]) -> datetime | None:
    """The report's created_at in UTC (a naive time is taken as UTC), or None."""
    return _utc(row.get("created_at"))


@cache  # each row's time is asked for several times; cleared after each build
def _utc(created_at: str | None) -> datetime | None:
    when = parse_time(created_at)
    if when is None:
        return None
    return when.astimezone(timezone.utc) if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _order(row: dict[str, Any]) -> tuple[int, datetime, str]:
    when = _when(row)
    if when is None:
        return (0, datetime.min.replace(tzinfo=timezone.utc), row["file"])
    return (1, when, row["file"])


def _value(row: dict[str, Any], key: str) -> Any:
    return row["status"] if key == "status" else row["environment"].get(key)


def _day(row: dict[str, Any]) -> str | None:
    when = _when(row)
    return when.date().isoformat() if when else None


def histories(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Readable rows grouped by host, oldest report first (undated reports first of all)."""
    hosts: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if not row["error"]:
            hosts.setdefault(row["host"], []).append(row)
    return {host: sorted(group, key=_order) for host, group in hosts.items()}


def timeline(hosts: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Each change of a value between two consecutive reports of a host, grouped by (value, old, new,
    day): which hosts changed that day, and which hosts still hold the old value in their latest
    report (`still`: reported on or after that day; `not_reported_since`: their latest report is older)."""
    groups: dict[tuple[str, str, str, str | None], dict[str, Any]] = {}
    for host, rows in hosts.items():
        for before, after in zip(rows, rows[1:]):
            for key in TIMELINE_KEYS:
                old, new = _value(before, key), _value(after, key)
                if _canon(old) == _canon(new):
                    continue
                day = _day(after)
                group = groups.setdefault((key, _canon(old), _canon(new), day), {
                    "day": day, "key": key, "from": old, "to": new, "hosts": [], "changes": []})
                group["hosts"].append(host)
                group["changes"].append({
                    "host": host, "at": after.get("created_at"), "file": after["file"],
                    "previous_at": before.get("created_at"), "previous_file": before["file"],
                })
    out = []
    for group in groups.values():
        old = _canon(group["from"])
        still, silent = [], []
        for host, rows in hosts.items():
            latest = rows[-1]
            if host in group["hosts"] or _canon(_value(latest, group["key"])) != old:
                continue
            day = _day(latest)
            since = group["day"] is None or (day is not None and day >= group["day"])
            (still if since else silent).append(host)
        group["hosts"].sort()
        group["changes"].sort(key=lambda c: (c["host"], c["file"]))
        out.append({**group, "count": len(group["hosts"]), "still": sorted(still),
                    "not_reported_since": sorted(silent)})
    out.sort(key=lambda g: (g["day"] or "", TIMELINE_KEYS.index(g["key"]), -g["count"]))
    return out


PARALLEL = 2000  # from this many files on, one process per CPU reads them (2 CPUs: half the time)


def _row(item: tuple[str, str | None]) -> dict[str, Any]:
    path, error = item
    return _blank(path, error) if error else node_row(path)


def read_rows(items: list[tuple[str, str | None]]) -> list[dict[str, Any]]:
    """One row per file, in order. Each report is dropped as soon as its row is made, so memory
    holds the rows (the table), never the reports."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if len(items) < PARALLEL or cpus < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [_row(item) for item in items]
    with multiprocessing.get_context("fork").Pool(min(cpus, 8)) as pool:
        return pool.map(_row, items, chunksize=256)


def build(paths: list[str]) -> dict[str, Any]:
    """The fleet as a dict: each host's latest report (`nodes`, with one row per unreadable file),
    drift across those, the timeline of changes, each host's history and the counts."""
    try:
        return _build(read_rows(expand(paths)))
    finally:
        _utc.cache_clear()


def _build(rows: list[dict[str, Any]]) -> dict[str, Any]:
    hosts = histories(rows)
    nodes, placed = [], set()
    for row in rows:  # each host at the place of its first file; bad files where they were
        if row["error"]:
            nodes.append(row)
        elif row["host"] not in placed:
            placed.add(row["host"])
            latest = dict(hosts[row["host"]][-1])
            latest["reports"] = len(hosts[row["host"]])
            nodes.append(latest)
    drift = find_drift(nodes)
    counts = Counter(n["status"] for n in nodes)
    dated = sorted(d for d in (_day(r) for r in rows if not r["error"]) if d)
    # stale: a host whose latest report is older than the day most hosts last reported on
    latest_days = Counter(_day(h[-1]) for h in hosts.values())
    usual = max(latest_days, key=lambda d: (latest_days[d], d or "")) if latest_days else None
    stale = sorted(host for host, h in hosts.items() if usual and (_day(h[-1]) or "") < usual)
    return {
        "nodes": nodes,
        "drift": drift,
        "timeline": timeline(hosts),
        "history": {host: [{"file": r["file"], "created_at": r["created_at"], "status": r["status"],
                            "schema_version": r["schema_version"]} for r in h] for host, h in hosts.items()},
        "stale": stale,
        "summary": {
            "nodes": len(nodes), **{s: counts.get(s, 0) for s in ("pass", "warn", "fail", "error")},
            "hosts": len(hosts), "reports": sum(len(h) for h in hosts.values()),
            "first": dated[0] if dated else None, "last": dated[-1] if dated else None,
        },
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


CELL = 48  # widest a table cell gets: one huge value must not push every other column out of view
WIDE_CELL = 96  # the failing ids (or the error) of a node


def _cut(text: str, width: int = CELL) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _short(key: str, value: Any) -> str:
    if value is None:
        return "unknown"
    if key == "gpus" and isinstance(value, list):
        return _gpus({"gpus": value, "gpu_count": len(value)})
    text = json.dumps(value, sort_keys=True, default=str) if isinstance(value, (list, dict)) else str(value)
    return _cut(text, 60)


# SGR codes for the few styles the table uses (rich's Table measures every cell of every row, too
# slow for a fleet of 100,000 nodes; these lines are laid out once the widest cell is known).
SGR = {"green": "32", "yellow": "33", "bold red": "1;31", "bold magenta": "1;35", "magenta": "35",
       "bold yellow": "1;33", "bold": "1", "dim": "2", "bold cyan": "1;36"}


def _paint(text: str, style: str, color: bool) -> str:
    return f"\x1b[{SGR[style]}m{text}\x1b[0m" if color and style and text else text


def _cell(value: Any, width: int = CELL) -> str:
    """A table cell: untrusted text made inert and kept to one line of at most width characters."""
    return _cut(_clean(value), width)


def table_rows(fleet: dict[str, Any]) -> tuple[list[str], list[list[tuple[str, str]]]]:
    """The table's header and, per node, its cells as (text, style): drifted cells marked `*`."""
    summary = fleet.get("summary", {})
    dated = bool(summary.get("first")) and summary.get("first") != summary.get("last")
    header = [name for name, _, _ in COLUMNS] + (["report"] if dated else []) + ["status", "failing"]
    shown_as: dict[Any, str] = {}  # most cells repeat a few values (versions, GPU sets): cleaned once
    rows = []
    for n in fleet["nodes"]:
        cells = []
        for _, keys, value in COLUMNS:
            if n["error"] and keys:
                cells.append(("", ""))
                continue
            shown = value(n)
            text = shown_as.get(shown)
            if text is None:
                text = shown_as[shown] = _cell("—" if shown is None else shown)
            if n["drifted"] and any(k in n["drifted"] for k in keys):
                cells.append((text + "*", "bold yellow"))
            else:
                cells.append((text, ""))
        if dated:
            day = _day(n) if not n["error"] else None
            shown = day or ("" if n["error"] else "undated")
            cells.append((shown, "dim" if day == summary.get("last") else "yellow"))
        cells.append((n["status"], STYLES.get(n["status"], "")))
        failing = _cell(n["error"] or " ".join(n["failing"]), WIDE_CELL)
        cells.append((failing, "magenta" if n["error"] else ""))
        rows.append(cells)
    return header, rows


def render_table(fleet: dict[str, Any], color: bool, out: Any = None) -> None:
    """The fleet for a terminal: one row per node, drifted cells marked `*` (and coloured), then the
    drifting values, the timeline and the counts."""
    from rich.cells import cell_len as wide_len

    def cell_len(text: str) -> int:
        return len(text) if text.isascii() else wide_len(text)

    out = out or sys.stdout
    color = color and out.isatty()  # as rich would: no escape codes into a file or a pipe
    header, rows = table_rows(fleet)
    widths = [cell_len(h) for h in header]
    for cells in rows:
        for i, (text, _) in enumerate(cells):
            widths[i] = max(widths[i], cell_len(text))

    def line(cells: list[tuple[str, str]], sep: str) -> str:
        padded = [_paint(text, style, color) + " " * (widths[i] - cell_len(text))
                  for i, (text, style) in enumerate(cells)]
        return sep.join(padded).rstrip() + "\n"

    out.write(line([(h, "bold") for h in header], " ┃ "))
    out.write("━╇━".join("━" * w for w in widths) + "\n")
    for cells in rows:
        out.write(line(cells, " │ "))
    for key, values in fleet["drift"].items():
        holders = Counter(_canon(n["environment"].get(key)) for n in fleet["nodes"] if not n["error"])
        seen = "; ".join(f"{_cell(_short(key, v), 64)} ({_nodes(holders[_canon(v)])})" for v in values)
        out.write(_paint(f"drift  {key}: ", "bold yellow", color) + seen + "\n")
    if any(len(h) > 1 for h in fleet.get("history", {}).values()):
        for label, text in timeline_lines(fleet):
            out.write(_paint(label, "bold cyan", color) + text + "\n")
    s = fleet["summary"]
    out.write(_paint(
        f"{_nodes(s['nodes'])} · {s['pass']} pass · {s['warn']} warn · {s['fail']} fail · "
        f"{s['error']} unreadable · {len(fleet['drift'])} drifting values"
        + ("  (* = differs from most nodes)" if fleet["drift"] else ""), "bold", color) + "\n")
    out.flush()


def write_json(fleet: dict[str, Any], out: Any = None) -> None:
    """The fleet as JSON, streamed: each node, timeline entry and host history on its own line."""
    from tfdoctor.render.json import dumps, inert

    out = out or sys.stdout

    def one(value: Any) -> str:  # rows hold bounded values only: plain JSON types, no lone surrogate
        try:
            return inert(_LINE.encode(value).decode())
        except (TypeError, ValueError):  # never for a row; the strict writer says what it cannot write
            return dumps(value, indent=None, bounded=True).rstrip("\n")

    out.write("{")
    for i, (key, value) in enumerate(fleet.items()):
        out.write(("," if i else "") + f"\n  {one(key)}: ")
        if isinstance(value, list) and value:
            for j, item in enumerate(value):
                out.write(f"{',' if j else '['}\n    {one(item)}")
            out.write("\n  ]")
        elif isinstance(value, dict) and value and key != "summary":
            for j, (k, v) in enumerate(value.items()):
                out.write(f"{',' if j else '{'}\n    {one(k)}: {one(v)}")
            out.write("\n  }")
        else:
            out.write(one(value))
    out.write("\n}\n")
    out.flush()


_LINE = msgspec.json.Encoder(enc_hook=str)  # compact; a non-finite float is written as null


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _clean(text: Any) -> str:
    """Untrusted text from a saved report on one line, without escape sequences, control characters
    or bidirectional overrides."""
    text = str(text)
    if text.isascii() and text.isprintable():  # nothing a terminal would obey (the usual case)
        return text
    from tfdoctor.render.sanitize import text as inert

    return _CONTROL.sub("", inert(text))


def _hosts(names: list[str]) -> str:
    shown = ", ".join(_cut(_clean(n)) for n in names[:HOST_LIST])
    return shown + (f" and {len(names) - HOST_LIST} more" if len(names) > HOST_LIST else "")


def timeline_lines(fleet: dict[str, Any]) -> list[tuple[str, str]]:
    """The timeline for a terminal: (label, text) per line, oldest change first."""
    s = fleet["summary"]
    first, last = s.get("first"), s.get("last")
    span = f"{first} → {last}" if first and first != last else first or ""
    lines = [("timeline  ", f"{s['reports']} reports of {_nodes(s['hosts']).replace('node', 'host')}"
              + (f", {span}" if span else ""))]
    for g in fleet["timeline"]:
        old, new = _clean(_short(g["key"], g["from"])), _clean(_short(g["key"], g["to"]))
        text = f"{g['key']}: {old} → {new} on {_nodes(g['count'])} ({_hosts(g['hosts'])})"
        if g["still"]:
            text += f"; still on {old}: {_hosts(g['still'])}"
        if g["not_reported_since"]:
            text += f"; not reported since: {_hosts(g['not_reported_since'])}"
        lines.append((f"  {g['day'] or 'undated':<10}  ", text))
    if not fleet["timeline"]:
        lines.append(("  ", "no value changed between reports of the same host"))
    for host in fleet.get("stale", []):
        latest = fleet["history"][host][-1]
        when = _clean(latest["created_at"] or "undated")
        lines.append(("stale     ", f"{_cut(_clean(host))}: latest report {_cut(when)}"))
    return lines
