"""The report's JSON Schema: shipped with the package, strict on the contract, and every report
the real CLI produces (report, check --json, explain --json, --from, --anonymize) matches it."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest
from conftest import DATA, ROOT, run_cli
from schema_check import errors, validate

from tfdoctor.model import SCHEMA_VERSION
from tfdoctor.schema import load_schema


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("schema") / "report.json"
    result = run_cli("report", "--quick", "--output", str(path))
    assert result.returncode in (0, 1), result.stderr
    assert result.stdout == ""  # --output: nothing on stdout
    return path


@pytest.fixture
def report(saved: Path) -> dict:
    return json.loads(saved.read_text())


def test_schema_is_valid_and_matches_model_version() -> None:
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schema_version"] == {"const": SCHEMA_VERSION}
    load_schema()["title"] = "changed"
    assert load_schema()["title"] != "changed"  # every call gets a fresh copy


def test_schema_ships_in_the_wheel(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("tfdoctor", "compat"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--skip-dependency-check",
         "--outdir", str(tmp_path / "dist"), str(src)],
        capture_output=True, text=True, timeout=300,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    wheel = next((tmp_path / "dist").glob("*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        shipped = json.loads(zf.read("tfdoctor/schema/report.schema.json"))
    assert shipped == load_schema()


@pytest.mark.parametrize("args", [
    ("report", "--quick"),
    ("check", "--quick", "--json"),
    ("report", "--quick", "--anonymize"),
    ("report",),  # the full run: the TensorFlow worker's facts too
])
def test_live_reports_match_schema(args: tuple[str, ...]) -> None:
    result = run_cli(*args)
    assert result.returncode in (0, 1), result.stderr
    data = validate(result.json())
    assert data["mode"] == ("quick" if "--quick" in args else "full")
    if data["mode"] == "full":
        assert data["facts"]["runtime"].get("ran") is True
    assert (result.returncode == 1) == (data["summary"]["status"] == "fail")


def test_saved_and_rejudged_reports_match_schema(saved: Path, report: dict) -> None:
    validate(report)
    for args in (("check", "--from", str(saved), "--json"), ("report", "--from", str(saved))):
        result = run_cli(*args)
        assert result.returncode in (0, 1), result.stderr
        validate(result.json())


def test_explain_json_matches_schema() -> None:
    log = DATA / "explain" / "006-libcuda-missing-cuinit-303.txt"
    result = run_cli("explain", str(log), "--json")
    assert result.returncode in (0, 1), result.stderr
    data = validate(result.json())
    assert data["mode"] == "explain"
    assert data["findings"], "a cuInit 303 log must yield findings"


def _set(path: str, value: object):
    def mutate(r: dict) -> None:
        *parents, last = path.split("/")
        node = r
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node[p]
        node[last] = value
    return mutate


def _delete(path: str):
    def mutate(r: dict) -> None:
        *parents, last = path.split("/")
        node = r
        for p in parents:
            node = node[p]
        del node[last]
    return mutate


def _bad_finding(**changes: object):
    def mutate(r: dict) -> None:
        finding = {"id": "driver.missing", "status": "fail", "title": "No NVIDIA driver is loaded",
                   "detail": "", "fix": "sudo ubuntu-drivers install", "docs": None, "facts": [],
                   "confidence": "certain", "caused_by": None, "evidence": []}
        finding.update(changes)
        r["findings"].append({k: v for k, v in finding.items() if v != "<drop>"})
    return mutate


BROKEN = {
    "newer schema_version": _set("schema_version", SCHEMA_VERSION + 1),
    "missing environment": _delete("environment"),
    "missing summary": _delete("summary"),
    "extra top-level key": _set("extras", {}),
    "mode not in contract": _set("mode", "slow"),
    "created_at not a date": _set("created_at", "yesterday"),
    "tool name": _set("tool/name", "tfdoc"),
    "platform not in contract": _set("environment/platform", "linux2"),
    "gpu_count as text": _set("environment/gpu_count", "2"),
    "tf_built_with_cuda as text": _set("environment/tf_built_with_cuda", "yes"),
    "environment key missing": _delete("environment/driver_version"),
    "environment extra key": _set("environment/gpu_model", "H100"),
    "gpu without index": _set("environment/gpus", [{"name": "H100", "compute_capability": "9.0",
                                                    "memory_total_mib": 81559}]),
    "compute capability not a version": _set("environment/gpus", [
        {"index": 0, "name": "H100", "compute_capability": "sm_90", "memory_total_mib": 81559}]),
    "summary status skip": _set("summary/status", "skip"),
    "summary negative count": _set("summary/fail", -1),
    "timing not a number": _set("timings/checks", "fast"),
    "probe facts not an object": _set("facts/nvcc", "13.0"),
    "finding status": _bad_finding(status="broken"),
    "finding id not dotted": _bad_finding(id="drivermissing"),
    "finding id upper case": _bad_finding(id="Driver.Missing"),
    "failure without fix": _bad_finding(fix=None),
    "failure with empty fix": _bad_finding(fix=""),
    "warning without fix": _bad_finding(status="warn", fix=None),
    "finding without title": _bad_finding(title="<drop>"),
    "finding docs not a URL": _bad_finding(docs="see the docs"),
    "finding confidence": _bad_finding(confidence="sure"),
    "finding extra key": _bad_finding(severity="high"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_schema_rejects_contract_violations(report: dict, name: str) -> None:
    broken = copy.deepcopy(report)
    BROKEN[name](broken)
    assert errors(broken), f"schema accepted a report with {name}"


def test_schema_is_permissive_inside_facts(report: dict) -> None:
    extended = copy.deepcopy(report)
    extended["facts"].setdefault("nvml", {})["new_health_key"] = {"anything": [1, "two", None]}
    extended["facts"]["future_probe"] = {"x": 1}
    extended["findings"].append({"id": "gpu.new-check", "status": "pass", "title": "fine", "detail": "",
                                 "fix": None, "docs": "https://docs.nvidia.com/", "facts": ["nvml.gpus"],
                                 "confidence": "likely", "caused_by": None, "evidence": []})
    assert errors(extended) == []
