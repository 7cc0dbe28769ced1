"""Saved reports at scale and hostile: a lone surrogate, a huge value, a corrupt and a truncated
file among 10,005 reports.

The reports are tests/data/fleet's real reports (see its README), copied with only their hostname
(and, where a case says so, one value) changed. Speed is measured by bench/bench_fleet.py, not
here; this file checks what a big fleet must still say.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import DATA, run_cli

from tfdoctor import fleet
from tfdoctor.jsonsafe import parse

BASE = DATA / "fleet" / "2026-11-05" / "gpu-01.json"
SURROGATE = "\\ud800"  # as JSON writes a lone surrogate: valid JSON, not valid text


def _node(text: str, host: str) -> str:
    report = json.loads(text)
    report["facts"]["system"]["hostname"] = report["environment"]["hostname"] = host
    return json.dumps(report)


def _with_surrogate(text: str) -> str:
    """The report with a lone surrogate in a value every mode shows: hostname, driver, a finding."""
    report = json.loads(text)
    report["environment"]["hostname"] = report["facts"]["system"]["hostname"] = "gpu-\udc00x"
    report["environment"]["driver_version"] = "550.\udc00"
    report["facts"]["system"]["proc_driver_version"] = "550.\udc00"
    report["findings"][0]["title"] += " \udc00"
    out = json.dumps(report)  # ensure_ascii writes each lone surrogate as an escape
    assert "\\udc00" in out
    return out.replace("\\udc00", SURROGATE)


@pytest.fixture(scope="module")
def surrogate_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("surrogate") / "node.json"
    path.write_text(_with_surrogate(BASE.read_text()))
    return path


@pytest.mark.parametrize("args", [
    ("check", "--from"), ("check", "--json", "--from"), ("check", "--markdown", "--from"),
    ("report", "--from"), ("report", "--markdown", "--from"),
])
def test_a_lone_surrogate_in_a_saved_report_is_read_as_text(surrogate_report: Path, args: tuple) -> None:
    result = run_cli(*args, str(surrogate_report))
    assert result.returncode == 1, result.stderr  # the node fails driver.missing, as saved
    assert result.stdout.strip() and "Traceback" not in result.stderr
    if "--json" in args or args == ("report", "--from"):  # the unreadable character, said as such
        saved = json.loads(result.stdout)
        assert saved["environment"]["hostname"] == "gpu-\ufffdx"
        assert saved["facts"]["system"]["proc_driver_version"] == "550.\ufffd"


def test_a_lone_surrogate_becomes_a_metric_label_as_text(surrogate_report: Path, tmp_path: Path) -> None:
    target = tmp_path / "node.prom"
    result = run_cli("report", "--from", str(surrogate_report), "--prometheus", str(target))
    assert result.returncode == 1, result.stderr
    assert 'driver_version="550.\ufffd"' in target.read_text(encoding="utf-8")


def test_one_huge_value_does_not_hide_the_other_hosts(tmp_path: Path) -> None:
    text = BASE.read_text()
    for i in range(3):
        (tmp_path / f"n{i}.json").write_text(_node(text, f"gpu-{i:02d}"))
    huge = json.loads(_node(text, "h" * 5000))
    huge["environment"]["driver_version"] = "9" * 5000
    (tmp_path / "huge.json").write_text(json.dumps(huge))
    result = run_cli("fleet", str(tmp_path), "--no-color")
    lines = result.stdout.splitlines()
    assert result.returncode == 1 and max(map(len, lines)) < 400
    for i in range(3):
        row = next(line for line in lines if line.startswith(f"gpu-{i:02d} "))
        assert "driver.missing" in row  # the whole row is there, not pushed out of view
    assert any(line.startswith("hhhhh") and "..." in line for line in lines)


def test_ten_thousand_reports_with_a_corrupt_a_truncated_and_a_surrogate_one(tmp_path: Path) -> None:
    text = BASE.read_text()
    for i in range(10_002):
        (tmp_path / f"node{i:05d}.json").write_text(_node(text, f"gpu{i:05d}"))
    (tmp_path / "corrupt.json").write_bytes(b"\x00\xff\xfe garbage")
    (tmp_path / "truncated.json").write_text(text[: len(text) // 2])
    (tmp_path / "surrogate.json").write_text(_with_surrogate(text))
    result = run_cli("fleet", str(tmp_path), "--json")
    assert result.returncode == 2  # some input could not be read
    fleet = json.loads(result.stdout)
    errors = {Path(n["file"]).name: n["error"] for n in fleet["nodes"] if n["error"]}
    assert set(errors) == {"corrupt.json", "truncated.json"}
    assert "not JSON" in errors["truncated.json"] and "not JSON" in errors["corrupt.json"]
    assert "corrupt.json" in result.stderr and "(and 1 more)" in result.stderr
    hosts = {n["host"] for n in fleet["nodes"] if not n["error"]}
    assert len(hosts) == 10_003 and "gpu-\ufffdx" in hosts
    assert fleet["summary"] == {**fleet["summary"], "nodes": 10_005, "fail": 10_003, "error": 2}

    table = run_cli("fleet", str(tmp_path), "--no-color")
    assert table.returncode == 2 and "gpu-\ufffdx" in table.stdout and "gpu10001 " in table.stdout
    assert len(table.stdout.splitlines()) >= 10_005 + 2


# --- the two readers: the skimming one (every report) and the full one (what it refuses) -------------

VALUES = ("null", "true", "7", "-1", "1.5", '"x"', "[]", "{}", "[1]", '{"a": 1}', "1e400", "NaN",
          "1" + "0" * 60, '"\\ud800"', "[" * 70 + "]" * 70, "[" * 2000 + "]" * 2000)
PATHS = ("schema_version", "tool", "tool.version", "created_at", "mode", "environment",
         "environment.gpu_count", "environment.gpus", "environment.gpus.0", "environment.gpus.0.name",
         "environment.driver_version", "findings", "findings.0", "findings.0.id", "findings.0.status",
         "findings.0.title", "findings.0.caused_by", "findings.0.plan", "findings.0.evidence", "facts",
         "facts.system", "facts.system.hostname", "facts.unknown", "summary", "timings",
         "timings.total", "unknown")
HOLE = "@@value@@"


def _mutated(report: dict, path: str, value: str) -> bytes:
    """The report's JSON with the value at path (made when missing) replaced by raw JSON text."""
    data = json.loads(json.dumps(report))
    *parents, last = path.split(".")
    box = data
    for key in parents:
        box = box[int(key)] if isinstance(box, list) else box.setdefault(key, {})
    box[int(last) if isinstance(box, list) else last] = HOLE
    return json.dumps(data, indent=1).replace(f'"{HOLE}"', value).encode()


def _outcome(data: object) -> object:
    """The full reader's row of parsed data, or its error."""
    try:
        return fleet.row_from("n.json", fleet.sections(data))
    except fleet.BadReport as exc:
        return f"error: {exc}"


def test_the_skimming_reader_reads_what_the_full_reader_reads() -> None:
    """Every report goes first through the fast reader that skips what a row does not need; it must
    read exactly what the full reader does, or refuse the file so that the full one reads it."""
    report = json.loads(BASE.read_text())  # a node without GPUs: given one below
    gpu = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "memory_total_mib": 8}
    report["environment"]["gpus"] = [gpu]
    skimmed = refused = 0
    for path in PATHS:
        for value in VALUES:
            raw = _mutated(report, path, value)
            fast = fleet.skim(raw)
            if fast is None:
                refused += 1
                continue
            skimmed += 1
            assert fleet.row_from("n.json", fast) == _outcome(parse(raw)), (path, value)
    for path in ("schema_version", "environment", "findings", "facts", "tool"):
        data = json.loads(json.dumps(report))
        del data[path]
        raw = json.dumps(data).encode()
        fast = fleet.skim(raw)
        full = _outcome(parse(raw))
        assert (full if fast is None else fleet.row_from("n.json", fast)) == full, path
    assert skimmed > 60 and refused > 200, (skimmed, refused)  # both branches really ran


def test_every_recorded_report_is_read_by_the_skimming_reader_alike() -> None:
    """The fast reader serves real saved reports (schema 1 and 2), never just refuses them."""
    paths = sorted((DATA / "fleet").rglob("*.json"))
    assert len(paths) >= 10
    for path in paths:
        raw = path.read_bytes()
        fast = fleet.skim(raw)
        assert fast is not None, path
        assert fleet.row_from("n.json", fast) == _outcome(parse(raw)), path


@pytest.mark.parametrize("mangle", [
    lambda raw: raw[: len(raw) // 2],  # truncated
    lambda raw: raw.replace(b'"facts": {', b'"facts": {,', 1),  # corrupt where no row reads
    lambda raw: raw.replace(b'"facts": {', b'"facts": {"bad": "\xff",', 1),  # not UTF-8
    lambda raw: raw + b" {}",  # trailing data
    lambda raw: b"\xef\xbb\xbf" + raw,  # a byte-order mark, which the full reader accepts
])
def test_the_skimming_reader_never_accepts_what_is_not_json(mangle) -> None:  # noqa: ANN001
    raw = mangle(json.dumps(json.loads(BASE.read_text()), indent=2).encode())
    assert fleet.skim(raw) is None
