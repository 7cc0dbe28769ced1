"""nvidia-smi probe: the plain banner, `nvidia-smi -q -x` and a `--query-gpu` CSV, parsed by pure functions.

nvidia-smi's text is not a stable API, so it is a cross-check of NVML and its fallback when NVML
cannot be used. Facts (see tfdoctor/probes/__init__.py): found, path, error, error_kind
(not-found|timeout|driver-not-loaded|lib-mismatch|no-permission|failed|unreadable), returncode,
driver_version, cuda_version, gpus [per-GPU keys as the nvml probe's, plus compute_capability_source],
raw, raw_xml, xml_error, raw_query, query_error.

Compute capability: `--query-gpu=...,compute_cap` (drivers >= R510); older drivers answer
'Field "compute_cap" is not a valid field to query.', and then the GPU name table of the compat data
fills it (compute_capability_source "name table") or it stays null for a name the table does not know.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tfdoctor import proc

if TYPE_CHECKING:  # imported where XML is parsed: most machines without a GPU never need it
    import xml.etree.ElementTree as ET

FALLBACK_PATHS = ("/usr/bin/nvidia-smi", "/usr/lib/wsl/lib/nvidia-smi")

# nvidia-smi's own failure texts, lowercased, and what they mean.
FAILURE_TEXTS = (
    ("couldn't communicate with the nvidia driver", "driver-not-loaded"),
    ("driver/library version mismatch", "lib-mismatch"),
    ("insufficient permissions", "no-permission"),
    ("no devices were found", "no-devices"),
    ("unable to determine the device handle", "gpu-lost"),
    ("gpu is lost", "gpu-lost"),
)

# How nvidia-smi's own failure lines begin, lowercased (where FAILURE_TEXTS are nvidia-smi's, not a quote).
OWN_FAILURES = ("nvidia-smi has failed", "failed to initialize nvml", "no devices were found",
                "unable to determine the device handle")

# The banner is read line by line, and only lines of banner length (nvidia-smi draws them under 200
# characters): with every quantifier bounded too, a hostile line costs microseconds, never seconds.
MAX_LINE = 512
_HEADER = re.compile(
    r"NVIDIA-SMI[ \t]{1,40}(?P<smi>[\d.]{1,20})[ \t]{1,40}"
    r"(?:Driver|KMD) Version:[ \t]{0,40}(?P<driver>[\d.]{1,20})"
    r"(?:[ \t]{1,40}CUDA(?: UMD)? Version:[ \t]{0,40}(?P<cuda>[\d.]{1,20}|N/A))?"
)
# One cell per field: the name is whatever lies between the index and the last On/Off/... before
# the first "|" (split by hand, not by backtracking over the spaces around it).
_GPU_ROW = re.compile(
    r"\|[ \t]{1,20}(?P<index>\d{1,4})[ \t]{1,20}(?P<rest>[^|]{1,200})\|[ \t]{0,20}(?P<bus>[^ \t|]{7,20})[ \t]"
)
_PM = re.compile(r"(?P<name>.{1,200}?)[ \t]+(?P<pm>On|Off|WDDM|TCC|MCDM|N/A)[ \t]*")
_BUS = re.compile(r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]")
_MEM = re.compile(r"(?<!\d)(?P<used>\d{1,9})MiB[ \t]{0,20}/[ \t]{0,20}(?P<total>\d{1,9})MiB")
_COMPUTE_MODE = re.compile(r"(Default|E\. Process|E\. Thread|Prohibited)[ \t]{0,20}\|[ \t]{0,20}$")
_NUMBER = re.compile(r"-?\d{1,15}(?:\.\d{1,15})?(?![\d.])")
_BANNER_MODES = {
    "Default": "default",
    "E. Process": "exclusive_process",
    "E. Thread": "exclusive_thread",
    "Prohibited": "prohibited",
}

# `-q -x` clock reason tags (clocks_throttle_reason_* before R535, clocks_event_reason_* after).
THROTTLE_TAGS = {
    "gpu_idle": "idle",
    "applications_clocks_setting": "applications_clocks",
    "sw_power_cap": "power_cap",
    "hw_slowdown": "hw_slowdown",
    "hw_thermal_slowdown": "hw_thermal",
    "hw_power_brake_slowdown": "hw_power_brake",
    "sync_boost": "sync_boost",
    "sw_thermal_slowdown": "sw_thermal",
    "display_clocks_setting": "display_clocks",
}
_MISSING = {
    "",
    "n/a",
    "[n/a]",
    "not supported",
    "[not supported]",
    "unknown error",
    "[unknown error]",
    "none",
    "not available",
    "[insufficient permissions]",
    "insufficient permissions",
}


# `nvidia-smi --query-gpu=<QUERY_FIELDS> --format=csv,noheader`: one line per GPU, values joined by ", ".
QUERY_FIELDS = ("index", "pci.bus_id", "name", "compute_cap")
QUERY_ARGS = ("--query-gpu=" + ",".join(QUERY_FIELDS), "--format=csv,noheader")
# Older drivers (< R510) refuse compute_cap; the full names then come from a query without it.
NAME_QUERY_FIELDS = ("index", "pci.bus_id", "name")
NAME_QUERY_ARGS = ("--query-gpu=" + ",".join(NAME_QUERY_FIELDS), "--format=csv,noheader")
MAX_QUERY_CHARS = 64 * 1024  # input beyond this is ignored
MAX_QUERY_LINE = 1024  # a real row is < 200 characters; longer lines are junk and skipped unread
MAX_QUERY_GPUS = 64
# Fact key for each query field (its aliases included); unknown fields keep their own name, dots as "_".
_QUERY_KEYS = {
    "index": "index",
    "pci.bus_id": "pci_bus_id",
    "gpu_bus_id": "pci_bus_id",
    "name": "name",
    "gpu_name": "name",
    "compute_cap": "compute_capability",
    "uuid": "uuid",
    "gpu_uuid": "uuid",
    "driver_version": "driver_version",
    "compute_mode": "compute_mode",
}
_INVALID_FIELD = re.compile(r'^Field "([^"\n]{1,64})" is not a valid field to query')
_QUERY_CC = re.compile(r"^(\d{1,2})\.(\d{1,2})$")
_QUERY_INDEX = re.compile(r"^\d{1,4}$")


class SmiParseError(ValueError):
    """Output that is not what nvidia-smi prints."""


# --- pure parsers -----------------------------------------------------------------------------


def failure_kind(text: str) -> str | None:
    """The error_kind for nvidia-smi's own failure messages, or None."""
    low = text.lower()
    return next((kind for needle, kind in FAILURE_TEXTS if needle in low), None)


def parse_banner(text: str, partial: bool = False) -> dict[str, Any]:
    """Parse plain `nvidia-smi` output (R331..R610 layouts). Raises SmiParseError on anything else.

    With `partial` (a pasted excerpt), a GPU table without its header is read too (versions None)."""
    lines = [line if len(line) <= MAX_LINE else "" for line in text.splitlines()]
    m = next((h for h in (_HEADER.search(ln) for ln in lines if "NVIDIA-SMI" in ln) if h), None)
    if not m and not partial:
        raise SmiParseError("no 'NVIDIA-SMI ... Driver Version' header")
    cuda = m.group("cuda") if m else None
    gpus: list[dict[str, Any]] = []
    for i, line in enumerate(lines):
        row = _GPU_ROW.match(line)
        cell = _PM.fullmatch(row.group("rest").rstrip()) if row else None
        if not row or not cell or not _BUS.fullmatch(row.group("bus")):
            continue
        name = cell.group("name").strip()
        gpu: dict[str, Any] = {
            "index": int(row.group("index")),
            "name": name,
            "name_truncated": name.endswith("..."),
            "pci_bus_id": row.group("bus"),
            "persistence_mode": {"On": True, "Off": False}.get(cell.group("pm")),
            # Windows shows the driver model in that column instead: WDDM, TCC (compute only) or MCDM
            "driver_model": cell.group("pm") if cell.group("pm") in ("WDDM", "TCC", "MCDM") else None,
            "memory_total_mib": None,
            "memory_used_mib": None,
            "compute_mode": None,
        }
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        mem = _MEM.search(nxt)
        if mem:
            gpu["memory_used_mib"] = int(mem.group("used"))
            gpu["memory_total_mib"] = int(mem.group("total"))
        mode = _COMPUTE_MODE.search(nxt)
        if mode:
            gpu["compute_mode"] = _BANNER_MODES[mode.group(1)]
        if nxt.count("ERR!") >= 2:  # fan, temperature, performance state, power: the GPU no longer answers
            gpu["error"] = "nvidia-smi shows ERR! for its sensors: the GPU does not answer"
            gpu["error_kind"] = "gpu-lost"
        gpus.append(gpu)
    if not m and not gpus:
        raise SmiParseError("no 'NVIDIA-SMI ... Driver Version' header and no GPU row")
    out = {
        "smi_version": m.group("smi") if m else None,
        "driver_version": m.group("driver") if m else None,
        "cuda_version": None if cuda in (None, "N/A") else cuda,
        "gpus": gpus,
    }
    if cuda == "N/A":  # the driver's libcuda did not answer nvidia-smi's question for its CUDA version
        out["cuda_version_na"] = True
    return out


def _query_value(key: str, raw: str) -> Any:
    value = raw.strip()
    if value.lower() in _MISSING:
        return None
    if key == "index":
        return int(value) if _QUERY_INDEX.match(value) else None
    if key == "compute_capability":
        m = _QUERY_CC.match(value)
        return f"{int(m.group(1))}.{int(m.group(2))}" if m else None
    return value


def _typed_ok(row: dict[str, Any], keys: Sequence[str], parts: Sequence[str]) -> bool:
    """A row's index is a number and its compute capability MAJOR.MINOR or N/A; else the line is junk."""
    for key, raw in zip(keys, parts):
        if key == "index" and row[key] is None:
            return False
        if key == "compute_capability" and row[key] is None and raw.strip().lower() not in _MISSING:
            return False
    return True


def parse_query_gpu(text: str, fields: Sequence[str] = QUERY_FIELDS) -> dict[str, Any]:
    """Parse `nvidia-smi --query-gpu=<fields> --format=csv[,noheader]`. Never raises.

    Returns {"gpus": [{<fact key>: value}], "unsupported_field": "compute_cap" or None, "skipped": n}:
    rows in order, a header line (if any) dropped, values "[N/A]" as None, `index` an int and
    `compute_capability` a "MAJOR.MINOR" string (anything else: None). `unsupported_field` names the field an
    older nvidia-smi refused ('Field "compute_cap" is not a valid field to query.'); `skipped` counts lines
    that are not rows of this query. Linear in the input, which is capped at MAX_QUERY_CHARS.
    """
    out: dict[str, Any] = {"gpus": [], "unsupported_field": None, "skipped": 0}
    if not isinstance(text, str):
        return out
    fields = tuple(str(f).strip().lower() for f in fields)
    keys = [_QUERY_KEYS.get(f, f.replace(".", "_")) for f in fields]
    header = list(fields)
    for line in text[:MAX_QUERY_CHARS].splitlines():
        if len(line) > MAX_QUERY_LINE:
            out["skipped"] += 1
            continue
        line = line.strip()
        if not line:
            continue
        bad = _INVALID_FIELD.match(line)
        if bad:
            out["unsupported_field"] = out["unsupported_field"] or bad.group(1)
            continue
        parts = line.split(",")
        if len(parts) != len(fields):
            out["skipped"] += 1
            continue
        # A header line ("index, pci.bus_id, name, compute_cap"; units in brackets with nounits off).
        if [p.split("[", 1)[0].strip().lower() for p in parts] == header:
            continue
        if len(out["gpus"]) >= MAX_QUERY_GPUS:
            out["skipped"] += 1
            continue
        row = {key: _query_value(key, raw) for key, raw in zip(keys, parts)}
        if not _typed_ok(row, keys, parts):
            out["skipped"] += 1  # not a row of this query (an error text, a banner line)
            continue
        out["gpus"].append(row)
    return out


def _text(node: ET.Element | None, path: str) -> str | None:
    if node is None:
        return None
    found = node.find(path)
    if found is None or found.text is None:
        return None
    value = found.text.strip()
    return None if value.lower() in _MISSING else value


def _number(node: ET.Element | None, path: str) -> float | None:
    """'81559 MiB', '30 C', '100.89 W', '16x', '4' -> a number; N/A -> None."""
    value = _text(node, path)
    m = _NUMBER.match(value or "")  # at most 15 digits: a 400-digit "temperature" is not a number
    return float(m.group(0)) if m else None


def _int(node: ET.Element | None, path: str) -> int | None:
    value = _number(node, path)
    return int(value) if value is not None else None


def _flag(node: ET.Element | None, path: str) -> bool | None:
    value = (_text(node, path) or "").lower()
    return {
        "enabled": True,
        "yes": True,
        "active": True,
        "disabled": False,
        "no": False,
        "not active": False,
    }.get(value)


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def _ecc_counts(node: ET.Element | None) -> dict[str, int | None]:
    """Sum corrected/uncorrected counts over the schema in use (R418 single/double bit, R470+ SRAM/DRAM)."""
    if node is None:
        return {"corrected": None, "uncorrected": None}
    single, double = _int(node, "single_bit/total"), _int(node, "double_bit/total")
    if single is not None or double is not None:
        return {"corrected": single, "uncorrected": double}
    corrected = uncorrected = None
    for child in node:
        tag = child.tag.lower()
        value = _int(node, child.tag)
        if value is None or "threshold" in tag:
            continue
        if "uncorrectable" in tag:
            uncorrected = (uncorrected or 0) + value
        elif tag.endswith("correctable"):
            corrected = (corrected or 0) + value
    return {"corrected": corrected, "uncorrected": uncorrected}


def _throttle(gpu: ET.Element) -> list[str] | None:
    block = _first(gpu.find("clocks_event_reasons"), gpu.find("clocks_throttle_reasons"))
    if block is None:
        return None
    active = []
    for child in block:
        suffix = re.sub(r"^clocks_(event|throttle)_reason_", "", child.tag)
        if (child.text or "").strip().lower() == "active":
            active.append(THROTTLE_TAGS.get(suffix, suffix))
    return active


def _processes(gpu: ET.Element) -> list[dict[str, Any]]:
    out = []
    for p in gpu.findall("processes/process_info"):
        out.append(
            {
                "pid": _int(p, "pid"),
                "name": _text(p, "process_name"),
                "type": _text(p, "type"),
                "used_mib": _int(p, "used_memory"),
            }
        )
    return out


def _mig(gpu: ET.Element) -> dict[str, Any]:
    devices = []
    for d in gpu.findall("mig_devices/mig_device"):
        devices.append(
            {
                "index": _int(d, "index"),
                "gpu_instance_id": _int(d, "gpu_instance_id"),
                "compute_instance_id": _int(d, "compute_instance_id"),
                "uuid": _text(d, "uuid"),
                "memory_total_mib": _int(d, "fb_memory_usage/total"),
            }
        )
    return {
        "current": _flag(gpu, "mig_mode/current_mig"),
        "pending": _flag(gpu, "mig_mode/pending_mig"),
        "devices": devices,
    }


def _power(gpu: ET.Element) -> tuple[float | None, float | None]:
    block = _first(gpu.find("gpu_power_readings"), gpu.find("power_readings"))
    draw = _first(
        _number(block, "power_draw"),
        _number(block, "instant_power_draw"),
        _number(block, "average_power_draw"),
    )
    limit = _first(
        _number(block, "enforced_power_limit"),
        _number(block, "current_power_limit"),
        _number(block, "power_limit"),
    )
    return draw, limit


def _gpu(index: int, gpu: ET.Element) -> dict[str, Any]:
    link = gpu.find("pci/pci_gpu_link_info")
    power_w, power_limit_w = _power(gpu)
    remap = gpu.find("remapped_rows")
    retired = gpu.find("retired_pages")
    return {
        "index": index,
        "name": _text(gpu, "product_name"),
        "uuid": _text(gpu, "uuid"),
        "serial": _text(gpu, "serial"),
        "pci_bus_id": _first(_text(gpu, "pci/pci_bus_id"), gpu.get("id")),
        "compute_capability": _text(gpu, "compute_cap"),
        "memory_total_mib": _int(gpu, "fb_memory_usage/total"),
        "memory_used_mib": _int(gpu, "fb_memory_usage/used"),
        "memory_free_mib": _int(gpu, "fb_memory_usage/free"),
        "ecc": {
            "mode_current": _flag(gpu, "ecc_mode/current_ecc"),
            "volatile": _ecc_counts(gpu.find("ecc_errors/volatile")),
            "aggregate": _ecc_counts(gpu.find("ecc_errors/aggregate")),
        },
        "retired_pages": {
            "single_bit": _int(retired, "multiple_single_bit_retirement/retired_count"),
            "double_bit": _int(retired, "double_bit_retirement/retired_count"),
            "pending": _first(_flag(retired, "pending_retirement"), _flag(retired, "pending_blacklist")),
        },
        "remapped_rows": {
            "pending": _flag(remap, "remapped_row_pending"),
            "failure": _flag(remap, "remapped_row_failure"),
            "correctable": _int(remap, "remapped_row_corr"),
            "uncorrectable": _int(remap, "remapped_row_unc"),
        },
        "throttle_reasons": _throttle(gpu),
        "pcie": {
            "gen": _int(link, "pcie_gen/current_link_gen"),
            "max_gen": _int(link, "pcie_gen/max_link_gen"),
            "width": _int(link, "link_widths/current_link_width"),
            "max_width": _int(link, "link_widths/max_link_width"),
        },
        "persistence_mode": _flag(gpu, "persistence_mode"),
        "compute_mode": (_text(gpu, "compute_mode") or "").lower() or None,
        "mig": _mig(gpu),
        "processes": _processes(gpu),
        "temperature_c": _number(gpu, "temperature/gpu_temp"),
        "temperature_limit_c": _number(gpu, "temperature/gpu_temp_slow_threshold"),
        "power_w": power_w,
        "power_limit_w": power_limit_w,
    }


def _cut_short(body: str) -> Any:
    """The elements of a document that ends early, as far as they were read (None if it breaks before)."""
    import xml.etree.ElementTree as ET

    parser = ET.XMLPullParser(events=("start",))
    try:
        parser.feed(body)
        first = next(iter(parser.read_events()), None)
        for _ in parser.read_events():  # the parser reports an error as the events reach it
            pass
    except ET.ParseError:
        return None  # malformed where it was read, not only cut
    return first[1] if first else None


def parse_query_xml(text: str, partial: bool = False) -> dict[str, Any]:
    """Parse `nvidia-smi -q -x`. Raises SmiParseError when it is not an nvidia_smi_log document.
    `partial`: a document cut short (a paste) is read as far as it goes."""
    import xml.etree.ElementTree as ET

    start = text.find("<")
    if start < 0:
        raise SmiParseError("no XML in the output")
    body = text[start:]
    if body.startswith("<?xml"):  # a str input must not declare bytes: drop the declaration
        end = body.find("?>")
        body = body[end + 2:] if end >= 0 else body
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        root = _cut_short(body) if partial else None
        if root is None:
            raise SmiParseError(f"not well-formed XML ({exc})") from None
    if root.tag != "nvidia_smi_log":
        raise SmiParseError(f"XML root is <{root.tag}>, not <nvidia_smi_log>")
    return {
        "driver_version": _text(root, "driver_version"),
        "cuda_version": _text(root, "cuda_version"),
        "attached_gpus": _int(root, "attached_gpus"),
        "gpus": [_gpu(i, g) for i, g in enumerate(root.findall("gpu"))],
    }


# --- the probe --------------------------------------------------------------------------------


def find_nvidia_smi(env: dict[str, str]) -> str | None:
    """nvidia-smi on the target's PATH, else the usual Linux and WSL2 locations."""
    found = shutil.which("nvidia-smi", path=env.get("PATH", os.defpath))
    if found:
        return found
    return next((p for p in FALLBACK_PATHS if os.path.isfile(p) and os.access(p, os.X_OK)), None)


def _failure(res: proc.Result, what: str) -> tuple[str, str]:
    """(error, error_kind) in plain words for a failed run."""
    output = f"{res.stdout}\n{res.stderr}".strip()
    kind = failure_kind(output)
    first = next((ln.strip() for ln in output.splitlines() if ln.strip()), "")
    if res.timed_out:
        return f"`{what}` {res.describe().split(' ', 1)[1]}", "timeout"
    if kind:
        return f"`{what}` failed: {first}", kind
    if res.error:
        return f"`{what}`: {res.error}", "failed"
    said = f": {first[:200]}" if first else " and printed nothing"
    return f"`{what}` {res.describe().split(' ', 1)[1]}{said}", "failed"


def _unreadable(raw: str, what: str, why: str) -> str:
    bad_utf8 = "\ufffd" in raw
    if bad_utf8:
        return f"`{what}` printed bytes that are not valid UTF-8; tfdoctor could not read it ({why})"
    if not raw.strip():
        return f"`{what}` printed nothing"
    return f"`{what}` printed something that is not nvidia-smi's usual output ({why})"


def probe(ctx: Any) -> dict[str, Any]:
    facts: dict[str, Any] = {
        "found": False,
        "path": None,
        "error": None,
        "error_kind": None,
        "returncode": None,
        "driver_version": None,
        "cuda_version": None,
        "gpus": [],
        "raw": None,
        "raw_xml": None,
        "xml_error": None,
        "raw_query": None,
        "query_error": None,
    }
    path = find_nvidia_smi(ctx.env)
    if not path:
        facts.update(
            error="nvidia-smi is not on PATH (nor in /usr/bin or /usr/lib/wsl/lib)", error_kind="not-found"
        )
        return facts
    facts.update(found=True, path=path)
    banner = proc.run([path], timeout=ctx.timeout, env=ctx.env)
    facts["returncode"] = banner.returncode
    facts["raw"] = proc.trim((banner.stdout + ("\n" + banner.stderr if banner.stderr else "")).strip())
    if not banner.ok:
        facts["error"], facts["error_kind"] = _failure(banner, "nvidia-smi")
        return facts  # -q -x would fail (or hang) the same way
    try:
        parsed = parse_banner(banner.stdout)
    except SmiParseError as exc:
        kind = failure_kind(banner.stdout)
        if kind:
            facts["error"], facts["error_kind"] = _failure(banner, "nvidia-smi")
        else:
            facts["error"] = _unreadable(banner.stdout, "nvidia-smi", str(exc))
            facts["error_kind"] = "unreadable"
        parsed = None
    if parsed:
        facts.update(
            driver_version=parsed["driver_version"], cuda_version=parsed["cuda_version"], gpus=parsed["gpus"]
        )
    if _read_xml(facts, path, ctx, parsed is None):
        _read_compute_caps(facts, path, ctx)
    return facts


def _read_xml(facts: dict[str, Any], path: str, ctx: Any, banner_failed: bool) -> bool:
    """Merge `nvidia-smi -q -x` into facts; False when it hung (another query would hang the same way)."""
    query = proc.run([path, "-q", "-x"], timeout=ctx.timeout, env=ctx.env)
    facts["raw_xml"] = proc.trim(query.stdout.strip()) if query.stdout.strip() else None
    if not query.ok:
        facts["xml_error"] = _failure(query, "nvidia-smi -q -x")[0]
        return not query.timed_out
    try:
        xml = parse_query_xml(query.stdout)
    except SmiParseError as exc:
        facts["xml_error"] = _unreadable(query.stdout, "nvidia-smi -q -x", str(exc))
        return True
    facts["driver_version"] = xml["driver_version"] or facts["driver_version"]
    facts["cuda_version"] = xml["cuda_version"] or facts["cuda_version"]
    if xml["gpus"]:
        facts["gpus"] = _merge(facts["gpus"], xml["gpus"])
    if banner_failed and xml["gpus"]:
        facts["error"], facts["error_kind"] = None, None  # the XML answered what the banner did not
    return True


def _read_compute_caps(facts: dict[str, Any], path: str, ctx: Any) -> None:
    """Fill each GPU's compute_capability from `--query-gpu=...,compute_cap`, else from the name table."""
    what = "nvidia-smi " + " ".join(QUERY_ARGS)
    res = proc.run([path, *QUERY_ARGS], timeout=ctx.timeout, env=ctx.env)
    output = f"{res.stdout}\n{res.stderr}".strip()
    facts["raw_query"] = proc.trim(output, 4000) if output else None
    parsed = parse_query_gpu(output)
    rows = parsed["gpus"]
    if parsed["unsupported_field"]:
        facts["query_error"] = (
            f"`{what}`: this nvidia-smi does not know the field \"{parsed['unsupported_field']}\" "
            "(compute_cap needs driver R510 or newer); compute capability taken from the GPU name"
        )
        if not res.timed_out and any(g.get("name_truncated") or not g.get("name") for g in facts["gpus"]):
            # The banner cuts long names ("Tesla V100-SXM2..."); ask for the full ones, without compute_cap.
            names = proc.run([path, *NAME_QUERY_ARGS], timeout=ctx.timeout, env=ctx.env)
            rows = parse_query_gpu(names.stdout, NAME_QUERY_FIELDS)["gpus"] if names.ok else []
    elif not res.ok:
        facts["query_error"] = _failure(res, what)[0]
    elif not rows:
        facts["query_error"] = _unreadable(res.stdout, what, "no GPU rows")
    if rows and not facts["gpus"]:  # neither the banner nor the XML listed GPUs: the query does
        facts["gpus"] = [{k: row.get(k) for k in ("index", "name", "pci_bus_id")} for row in rows]
    matched: set[int] = set()
    for pos, gpu in enumerate(facts["gpus"]):
        row = _query_row(gpu, pos, rows, matched) or {}
        if gpu.get("compute_capability"):
            gpu.setdefault("compute_capability_source", "nvidia-smi")
            continue
        if row.get("compute_capability"):
            gpu["compute_capability"] = row["compute_capability"]
            gpu["compute_capability_source"] = "nvidia-smi"
            continue
        name = row.get("name") if gpu.get("name_truncated") or not gpu.get("name") else gpu.get("name")
        cc = _cc_by_name(name)
        gpu["compute_capability"] = cc
        gpu["compute_capability_source"] = "name table" if cc else None


def _bus_key(bus: Any) -> tuple[int, int, int, int] | None:
    """"00000000:17:00.0" and "0000:17:00.0" -> (0, 0x17, 0, 0); None for anything else."""
    m = re.match(r"^([0-9A-Fa-f]{1,8}):([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\.([0-7])$", str(bus or "").strip())
    return tuple(int(g, 16) for g in m.groups()) if m else None  # type: ignore[return-value]


def _query_row(gpu: dict[str, Any], pos: int, rows: list[dict[str, Any]], matched: set[int]) -> Any:
    """The query row for a GPU: same PCI bus id, else same index, else the same position."""
    key = _bus_key(gpu.get("pci_bus_id"))
    candidates = [i for i, r in enumerate(rows) if key is not None and _bus_key(r.get("pci_bus_id")) == key]
    if not candidates:
        candidates = [i for i, r in enumerate(rows) if gpu.get("index") is not None
                      and r.get("index") == gpu.get("index")]
    if not candidates and pos < len(rows) and rows[pos].get("pci_bus_id") is None:
        candidates = [pos]
    for i in candidates:
        if i not in matched:
            matched.add(i)
            return rows[i]
    return None


def _cc_by_name(name: Any) -> str | None:
    """The compat data's compute capability for a GPU name; None when unknown or the data is unreadable."""
    if not isinstance(name, str) or not name.strip() or name.strip().endswith("..."):
        return None
    try:
        from tfdoctor.compat import CompatError, load_matrix

        model = load_matrix().gpu(name)
    except (CompatError, OSError, ValueError):
        return None
    return model.compute_capability if model is not None else None


def _merge(banner: list[dict[str, Any]], xml: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """XML per-GPU facts, with banner values filling what the XML left out."""
    out = []
    for i, gpu in enumerate(xml):
        extra = banner[i] if i < len(banner) else {}
        out.append(
            {**gpu, **{k: v for k, v in extra.items() if gpu.get(k) is None and k != "name_truncated"}}
        )
    return out
