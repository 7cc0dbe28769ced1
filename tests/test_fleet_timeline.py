"""`tfdoctor fleet` over time, on the recorded fleet of tests/data/fleet (real CLI reports of this
machine, schema 1 and 2, varied only in host name, driver version and date: see its README).

Expectations are derived from the files (their driver versions and dates), except the scenario the
README states: the upgrade on the 3rd, gpu-06 left behind, gpu-05 silent since the 3rd.
"""

from __future__ import annotations

import copy
import json
import random
import shutil
from pathlib import Path

import pytest
from conftest import DATA, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FLEET = DATA / "fleet"
FILES = sorted(FLEET.rglob("*.json"))


def _fleet(*paths: object) -> tuple[int, dict, str]:
    result = run_cli("fleet", *map(str, paths), "--json")
    assert "Traceback" not in result.stderr
    return result.returncode, json.loads(result.stdout), result.stderr


def _recorded() -> dict[str, list[dict]]:
    """host -> its reports, oldest first."""
    hosts: dict[str, list[dict]] = {}
    for path in FILES:
        data = json.loads(path.read_text())
        hosts.setdefault(data["environment"]["hostname"], []).append({**data, "file": str(path)})
    return {h: sorted(r, key=lambda d: d["created_at"]) for h, r in hosts.items()}


@pytest.fixture(scope="module")
def fleet() -> dict:
    code, fleet, _ = _fleet(FLEET)
    assert code == 1  # every node fails driver.missing here; nothing unreadable
    return fleet


def test_the_recorded_fleet_has_both_schemas_and_one_upgrade() -> None:
    recorded = _recorded()
    assert {d["schema_version"] for rs in recorded.values() for d in rs} == {1, 2}
    drivers = {d["environment"]["driver_version"] for rs in recorded.values() for d in rs}
    assert drivers == {"535.183.01", "550.127.05"}


def test_nodes_are_each_hosts_latest_report(fleet: dict) -> None:
    recorded = _recorded()
    assert [n["host"] for n in fleet["nodes"]] == sorted(recorded)
    for node in fleet["nodes"]:
        latest = recorded[node["host"]][-1]
        assert node["created_at"] == latest["created_at"] and node["file"] == latest["file"]
        assert node["environment"] == latest["environment"]
        assert node["reports"] == len(recorded[node["host"]])
        assert node["status"] == latest["summary"]["status"]
    assert fleet["summary"]["hosts"] == len(recorded)
    assert fleet["summary"]["reports"] == len(FILES)
    assert (fleet["summary"]["first"], fleet["summary"]["last"]) == ("2026-11-01", "2026-11-05")
    assert fleet["history"]["gpu-01"][0]["schema_version"] == 1
    assert [h["schema_version"] for h in fleet["history"]["gpu-01"][1:]] == [2, 2]


def test_timeline_says_when_the_driver_changed_and_who_is_left(fleet: dict) -> None:
    recorded = _recorded()
    changed = sorted(h for h, rs in recorded.items()
                     if rs[0]["environment"]["driver_version"] != rs[-1]["environment"]["driver_version"])
    old = recorded["gpu-06"][-1]["environment"]["driver_version"]
    new = recorded["gpu-01"][-1]["environment"]["driver_version"]
    drivers = [g for g in fleet["timeline"] if g["key"] == "driver_version"]
    assert len(drivers) == 1
    (g,) = drivers
    assert (g["day"], g["from"], g["to"]) == ("2026-11-03", old, new)
    assert g["hosts"] == changed and g["count"] == 5
    assert g["still"] == ["gpu-06"] and g["not_reported_since"] == []
    for change in g["changes"]:
        assert change["at"].startswith("2026-11-03") and change["previous_at"].startswith("2026-11-01")
    # nothing else changed between a host's reports (status included: all fail throughout)
    assert [x["key"] for x in fleet["timeline"]] == ["driver_version"]
    assert fleet["stale"] == ["gpu-05"]
    assert fleet["drift"]["driver_version"] == [new, old]


def test_terminal_timeline() -> None:
    result = run_cli("fleet", str(FLEET), "--no-color")
    assert result.returncode == 1
    out = result.stdout
    assert "timeline  17 reports of 6 hosts, 2026-11-01 → 2026-11-05" in out
    assert ("2026-11-03  driver_version: 535.183.01 → 550.127.05 on 5 nodes "
            "(gpu-01, gpu-02, gpu-03, gpu-04, gpu-05); still on 535.183.01: gpu-06") in out
    assert "stale     gpu-05: latest report 2026-11-03" in out
    gpu05 = next(line for line in out.splitlines() if line.startswith("gpu-05"))
    assert "2026-11-03" in gpu05  # its latest report's date, in the table


def test_order_of_the_files_does_not_matter(fleet: dict) -> None:
    files = list(FILES)
    random.Random(7).shuffle(files)
    _, shuffled, _ = _fleet(*files)
    assert shuffled["timeline"] == fleet["timeline"] and shuffled["stale"] == fleet["stale"]
    assert sorted(n["host"] for n in shuffled["nodes"]) == sorted(n["host"] for n in fleet["nodes"])


def test_a_value_changing_twice_and_a_silent_host(tmp_path: Path) -> None:
    """On the 7th gpu-01 upgrades again and gpu-02 reports, unchanged: for that change gpu-02 is still
    on the old driver, and the hosts with the old driver that did not report since are named apart."""
    shutil.copytree(FLEET, tmp_path / "fleet", ignore=shutil.ignore_patterns("*.py", "*.md"))
    for host, driver in (("gpu-01", "565.57.01"), ("gpu-02", None)):
        later = json.loads((FLEET / "2026-11-05" / f"{host}.json").read_text())
        later["created_at"] = "2026-11-07T06:00:00Z"
        if driver:
            later["environment"]["driver_version"] = driver
        (tmp_path / "fleet" / f"{host}-7th.json").write_text(json.dumps(later))
    _, fleet, _ = _fleet(tmp_path / "fleet")
    second = next(g for g in fleet["timeline"] if g["day"] == "2026-11-07")
    assert (second["from"], second["to"], second["hosts"]) == ("550.127.05", "565.57.01", ["gpu-01"])
    assert second["still"] == ["gpu-02"]
    assert second["not_reported_since"] == ["gpu-03", "gpu-04", "gpu-05"]
    assert fleet["stale"] == ["gpu-05"]  # older than the day most hosts last reported on (the 5th)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("environment.gpus", 5, "environment.gpus: expected a list or null, not int (5)"),
        ("environment.gpu_count", "2", "environment.gpu_count: expected a count"),
        ("environment.driver_version", 550, "environment.driver_version: expected a string or null"),
        ("environment.tf_built_with_cuda", "yes", "environment.tf_built_with_cuda"),
        ("created_at", 5, "created_at: expected an ISO 8601 date-time"),
        ("created_at", "yesterday", "created_at: expected an ISO 8601 date-time"),
        ("findings.0.status", "meh", "findings[0].status: expected one of"),
        ("findings.0.id", 3, "findings[0].id: expected a string"),
        ("tool", "x", "tool: expected an object"),
        ("facts", "x", "facts: expected an object"),
        ("schema_version", "2", "schema_version: expected a whole number"),
        ("environment", [], "environment: expected an object"),
    ],
)
def test_a_wrong_type_is_one_error_row_naming_the_field(tmp_path: Path, field: str, value: object,
                                                        message: str) -> None:
    good = FLEET / "2026-11-05" / "gpu-01.json"
    data = json.loads(good.read_text())
    target: object = data
    *parents, last = field.split(".")
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]  # type: ignore[index]
    target[int(last) if last.isdigit() else last] = value  # type: ignore[index]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    code, fleet, stderr = _fleet(FLEET, bad)
    assert code == 2
    errors = [n for n in fleet["nodes"] if n["error"]]
    assert len(errors) == 1 and errors[0]["file"] == str(bad) and message in errors[0]["error"]
    assert len([n for n in fleet["nodes"] if not n["error"]]) == 6  # the table is still there
    assert stderr.strip().count("\n") == 0 and message in stderr
    table = run_cli("fleet", str(FLEET), str(bad), "--no-color")
    assert table.returncode == 2 and "gpu-06" in table.stdout and field.split(".")[0] in table.stdout
    # the same file given to --from is an input error naming the field, not an internal error
    from_run = run_cli("check", "--from", str(bad), "--json")
    assert from_run.returncode == 2, from_run.stderr
    assert message in from_run.stderr and len(from_run.stderr.strip().splitlines()) == 1


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def _paths(value: object, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            out += _paths(v, (*prefix, i))
    return out


BASE = json.loads((FLEET / "2026-11-05" / "gpu-01.json").read_text())
BASE["facts"] = {k: v for k, v in BASE["facts"].items() if k in ("system", "options")}  # keep it small
PATHS = [p for p in _paths(BASE) if p and len(p) <= 4]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PATHS), _JSON)
def test_no_saved_report_breaks_fleet_or_from(path: tuple, value: object) -> None:
    """Any value at any place of a real report: fleet gives a row or one error row, and reading it for
    --from gives the report or a ReportError, never another exception."""
    import tempfile

    from tfdoctor.fleet import build
    from tfdoctor.report import ReportError, load_report

    data = copy.deepcopy(BASE)
    target: object = data
    for part in path[:-1]:
        target = target[part]  # type: ignore[index]
    target[path[-1]] = value  # type: ignore[index]
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "node.json"
        file.write_text(json.dumps(data))
        fleet = build([str(file)])
        (node,) = fleet["nodes"]
        assert node["error"] or node["status"] in ("pass", "warn", "fail")
        json.dumps(fleet)
        try:
            load_report(file)
        except ReportError:
            pass
