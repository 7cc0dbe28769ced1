"""`tfdoctor fleet`: nodes side by side, drift, per-node status from saved findings, bad files.

The nodes are real reports: this machine's `report --quick`, with its NVML facts replaced by the
values of recorded real `nvidia-smi -q -x` outputs (tests/data/nvidia-smi), re-judged by the
real `check --from`. Expectations are derived from those saved reports, not written by hand.
"""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import DATA, run_cli
from schema_check import validate

from tfdoctor.environment import KEYS

SMI = DATA / "nvidia-smi"
NODES = {  # file name -> (hostname, recorded nvidia-smi XML or None for this machine as it is)
    "a10g-1": ("gpu-a10g-01", "q-x-a10g-515.xml"),
    "a10g-2": ("gpu-a10g-02", "q-x-a10g-515.xml"),
    "t4-1": ("gpu-t4-01", "q-x-tesla-t4-515.xml"),
    "rtx-1": ("ws-3080", "q-x-rtx-3080-595.xml"),
    "here": ("this-machine", None),
}


def nvml_from_xml(path: Path) -> dict:
    """NVML facts carrying the values a real `nvidia-smi -q -x` recorded."""
    root = ET.parse(path).getroot()
    gpus = []
    for i, gpu in enumerate(root.findall("gpu")):
        total = (gpu.findtext("fb_memory_usage/total") or "").split()[0]
        gpus.append({"index": i, "name": gpu.findtext("product_name"), "uuid": gpu.findtext("uuid"),
                     "serial": gpu.findtext("serial"), "pci_bus_id": gpu.get("id"),
                     "compute_capability": None, "memory_total_mib": int(total) if total else None})
    return {"available": True, "error": None, "driver_version": root.findtext("driver_version"),
            "cuda_driver_version": root.findtext("cuda_version"), "gpus": gpus}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> dict:
    result = run_cli("report", "--quick")
    assert result.returncode in (0, 1), result.stderr
    return validate(result.json())


def make_node(base: dict, src_dir: Path, out: Path, hostname: str, xml: str | None,
              extra: tuple[str, ...] = ()) -> dict:
    """Save modified facts, re-judge them with the real CLI, write the node's report to `out`."""
    report = copy.deepcopy(base)
    report["facts"]["system"]["hostname"] = hostname
    if xml:
        report["facts"]["nvml"] = nvml_from_xml(SMI / xml)
    src = src_dir / out.name
    src.write_text(json.dumps(report))
    result = run_cli("check", "--from", str(src), "--json", *extra)
    assert result.returncode in (0, 1), result.stderr
    out.write_text(result.stdout)
    return validate(result.json())


@pytest.fixture(scope="module")
def fleet_dir(base: dict, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict]]:
    root = tmp_path_factory.mktemp("fleet")
    src, out = root / "src", root / "reports"
    src.mkdir()
    (out / "rack2").mkdir(parents=True)
    saved = {}
    for name, (host, xml) in NODES.items():
        target = out / ("rack2" if name == "rtx-1" else "") / f"{name}.json"  # directories recurse
        saved[host] = make_node(base, src, target, host, xml)
    return out, saved


def _fleet_json(*paths: object) -> tuple[int, dict, str]:
    result = run_cli("fleet", *map(str, paths), "--json")
    return result.returncode, json.loads(result.stdout), result.stderr


def test_nodes_status_and_failing_ids_come_from_saved_findings(fleet_dir: tuple[Path, dict]) -> None:
    out, saved = fleet_dir
    code, fleet, _ = _fleet_json(out)
    assert sorted(n["host"] for n in fleet["nodes"]) == sorted(saved)
    for node in fleet["nodes"]:
        report = saved[node["host"]]
        assert node["error"] is None
        assert node["status"] == report["summary"]["status"]
        assert node["failing"] == [f["id"] for f in report["findings"] if f["status"] == "fail"]
        assert node["environment"] == report["environment"]
    statuses = [r["summary"]["status"] for r in saved.values()]
    assert "fail" in statuses, "this fleet needs a failing node (this machine has no GPU driver)"
    assert code == 1
    summary = {k: v for k, v in fleet["summary"].items() if k not in ("hosts", "reports", "first", "last")}
    assert summary == {"nodes": 5, **{s: statuses.count(s) for s in ("pass", "warn", "fail")}, "error": 0}
    assert fleet["summary"]["hosts"] == fleet["summary"]["reports"] == 5
    assert fleet["timeline"] == []  # one report per host: nothing changed over time


def test_drift_lists_differing_environment_keys_with_values_seen(fleet_dir: tuple[Path, dict]) -> None:
    out, saved = fleet_dir
    _, fleet, _ = _fleet_json(out)
    drift = fleet["drift"]
    expected = {}
    for key in KEYS:
        values = []
        for r in saved.values():
            if r["environment"][key] not in values:
                values.append(r["environment"][key])
        if len(values) > 1 and key != "hostname":
            expected[key] = values
    assert set(drift) == set(expected)
    for key, values in drift.items():
        def canon(v: object) -> str:
            return json.dumps(v, sort_keys=True)
        assert sorted(map(canon, values)) == sorted(map(canon, expected[key]))
    assert {"driver_version", "cuda_driver_version", "gpus", "gpu_count"} <= set(drift)
    assert "hostname" not in drift
    a10g = ET.parse(SMI / "q-x-a10g-515.xml").getroot().findtext("driver_version")
    rtx = ET.parse(SMI / "q-x-rtx-3080-595.xml").getroot().findtext("driver_version")
    assert drift["driver_version"][0] == a10g  # 3 of 5 nodes: the majority comes first
    assert rtx in drift["driver_version"] and None in drift["driver_version"]
    nodes = {n["host"]: n for n in fleet["nodes"]}
    assert "driver_version" in nodes["ws-3080"]["drifted"]
    assert "driver_version" not in nodes["gpu-a10g-01"]["drifted"]
    assert "gpus" in nodes["gpu-t4-01"]["drifted"]


def test_no_drift_and_no_failure_exits_0(base: dict, tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    only = ("--only", "platform")
    xml = "q-x-a10g-515.xml"
    reports = [make_node(base, src, out / f"n{i}.json", f"same-{i}", xml, only) for i in range(3)]
    assert all(r["summary"]["status"] != "fail" for r in reports), "precondition: no platform failure"
    code, fleet, _ = _fleet_json(out)
    assert fleet["drift"] == {}
    assert code == 0
    assert all(n["drifted"] == [] for n in fleet["nodes"])


def test_terminal_table_marks_drift_without_colour(fleet_dir: tuple[Path, dict]) -> None:
    out, saved = fleet_dir
    result = run_cli("fleet", str(out), "--no-color")
    assert result.returncode == 1
    assert "\x1b[" not in result.stdout
    for host in saved:
        assert host in result.stdout
    rtx_driver = saved["ws-3080"]["environment"]["driver_version"]
    assert f"{rtx_driver}*" in result.stdout  # the drifted cell is marked
    assert "drift  driver_version:" in result.stdout
    assert "5 nodes" in result.stdout


def test_bad_files_are_rows_and_exit_2(fleet_dir: tuple[Path, dict], tmp_path: Path) -> None:
    out, saved = fleet_dir
    good = next(out.glob("*.json"))
    bad = {
        "garbage.json": b"\x00\xff not json",
        "future.json": json.dumps({**json.loads(good.read_text()), "schema_version": 999}).encode(),
        "list.json": b"[1, 2]",
        "empty.json": b"",
        "no-findings.json": json.dumps({"schema_version": 1, "environment": {}}).encode(),
        "bad-status.json": json.dumps({"schema_version": 1, "environment": {},
                                       "findings": [{"id": "x.y", "status": "meh"}]}).encode(),
    }
    for name, content in bad.items():
        (tmp_path / name).write_bytes(content)
    result = run_cli("fleet", str(good), str(tmp_path), str(tmp_path / "missing.json"), "--json")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    fleet = json.loads(result.stdout)
    errors = {Path(n["file"]).name: n["error"] for n in fleet["nodes"] if n["error"]}
    assert set(errors) == {*bad, "missing.json"}
    assert "999" in errors["future.json"] and "no such file" in errors["missing.json"]
    assert fleet["summary"]["error"] == len(bad) + 1
    assert [n["status"] for n in fleet["nodes"] if not n["error"]] == [
        json.loads(good.read_text())["summary"]["status"]]
    table = run_cli("fleet", str(good), str(tmp_path), "--no-color")
    assert table.returncode == 2 and "not JSON" in table.stdout


def test_empty_directory_exits_2(tmp_path: Path) -> None:
    result = run_cli("fleet", str(tmp_path))
    assert result.returncode == 2
    assert "no *.json" in result.stderr


def test_anonymized_nodes_are_named_by_file(base: dict, tmp_path: Path) -> None:
    src = tmp_path / "saved.json"
    src.write_text(json.dumps(base))
    for name in ("node-a", "node-b"):
        target = tmp_path / f"{name}.json"
        result = run_cli("report", "--from", str(src), "--anonymize", "--output", str(target))
        assert result.returncode in (0, 1), result.stderr
    src.unlink()
    code, fleet, _ = _fleet_json(tmp_path)
    assert sorted(n["host"] for n in fleet["nodes"]) == ["node-a", "node-b"]
