"""tfdoctor as a gate: provisioning scripts trust its exit code, so nothing may pass by accident.

This machine has no NVIDIA driver, so every GPU check here must fail unless the user says that
running on the CPU only is expected (--allow-cpu).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
from pathlib import Path

import pytest
from conftest import run_cli
from schema_check import validate

from tfdoctor import cli
from tfdoctor.checks import CHECKS, CRASHED, load_all


def _json(result) -> dict:
    return validate(result.json())


def _ids(report: dict) -> dict[str, str]:
    return {f["id"]: f["status"] for f in report["findings"]}


def _main(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("only", ["driver.ok", "driver", "driver.driver_present"])
def test_only_a_passing_id_still_runs_its_check_and_fails(only: str) -> None:
    """`--only driver.ok` selects the check that emits driver.ok, and that check finds no driver."""
    result = run_cli("check", "--quick", "--json", "--only", only)
    assert result.returncode == 1, result.stderr
    report = _json(result)
    assert _ids(report)["driver.missing"] == "fail"
    assert report["facts"]["options"]["only"] == [only]
    assert "driver.driver_present" in report["facts"]["options"]["checks_run"]
    if only != "driver":
        assert report["facts"]["options"]["checks_run"] == ["driver.driver_present"]


def test_verdict_names_the_checks_that_ran() -> None:
    report = _json(run_cli("check", "--quick", "--json", "--only", "driver", "--skip", "driver.too-old"))
    options = report["facts"]["options"]
    assert options["only"] == ["driver"] and options["skip"] == ["driver.too-old"]
    assert options["checks_run"] and all(name.startswith("driver.") for name in options["checks_run"])
    assert "driver.too-old" not in _ids(report)
    everything = _json(run_cli("check", "--quick", "--json"))
    assert "checks_run" not in everything["facts"]["options"]  # no selection: every check ran


@pytest.mark.parametrize("name, close", [
    ("bogus", None), ("drivr.ok", "driver.ok"), ("gpu.cont-ok", "gpu.count-ok"),
])
def test_unknown_check_name_is_a_usage_error_naming_close_ids(name: str, close: str | None) -> None:
    result = run_cli("check", "--quick", "--only", name)
    assert result.returncode == 2
    assert result.stdout == ""
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    assert f"no check named {name}" in line
    if close:
        assert close in line
    assert run_cli("check", "--quick", "--skip", name).returncode == 2


def test_only_count_check_with_required_gpus_fails() -> None:
    result = run_cli("check", "--quick", "--json", "--only", "gpu.count-ok", "--require-gpus", "1")
    assert result.returncode == 1
    assert _ids(_json(result))["gpu.count-below-required"] == "fail"


def test_require_gpus_zero_passes() -> None:
    result = run_cli("check", "--quick", "--json", "--only", "gpu.count-ok", "--require-gpus", "0")
    assert result.returncode == 0, result.stdout[-2000:]
    report = _json(result)
    assert _ids(report) == {"gpu.count-ok": "pass"}
    assert report["facts"]["options"]["require_gpus"] == 0


def test_a_crashing_check_fails_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """A check that raises is a failure, never a pass: the gate cannot open on a bug."""
    load_all()
    index, target = next((i, c) for i, c in enumerate(CHECKS) if c.name.startswith("platform."))

    def boom(facts: dict, matrix: object) -> list:
        raise KeyError("a fact this check did not expect")

    code, out, _ = _main("check", "--quick", "--json", "--only", target.name)
    assert code == 0  # on its own the platform check passes here ...
    patched = list(CHECKS)
    patched[index] = dataclasses.replace(target, fn=boom)
    monkeypatch.setattr("tfdoctor.checks.CHECKS", patched)
    code, out, err = _main("check", "--quick", "--json", "--only", target.name)
    assert code == 1, err  # ... and crashing, it fails the run
    crashed = [f for f in json.loads(out)["findings"] if f["id"] == CRASHED]
    assert crashed and crashed[0]["status"] == "fail" and target.name in crashed[0]["title"]
    assert crashed[0]["fix"]


def test_wrong_typed_fact_that_trips_a_check_fails_the_run(tmp_path: Path) -> None:
    """A saved report whose GPU temperature is text: whatever a check makes of it, never exit 0."""
    base = _json(run_cli("report", "--quick", "--json"))
    base["facts"]["nvml"] = {"available": True, "driver_version": "580.65.06", "cuda_driver_version": "13.0",
                             "gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "temperature_c": "hot",
                                       "temperature_limit_c": 80, "power_w": "lots", "power_limit_w": 700}]}
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(base))
    result = run_cli("check", "--from", str(path), "--json", "--only", "gpu")
    assert result.returncode == 1, result.stderr
    report = _json(result)
    for f in report["findings"]:
        if f["id"] == CRASHED:
            assert f["status"] == "fail"


def test_allow_cpu_turns_gpu_absence_into_warnings() -> None:
    strict = run_cli("check", "--quick", "--json")
    assert strict.returncode == 1
    allowed = run_cli("check", "--quick", "--json", "--allow-cpu")
    assert allowed.returncode == 0, allowed.stdout[-2000:]
    report = _json(allowed)
    ids = _ids(report)
    assert ids["driver.missing"] == "warn"
    assert "fail" not in ids.values()
    assert report["facts"]["options"]["allow_cpu"] is True
    missing = next(f for f in report["findings"] if f["id"] == "driver.missing")
    assert "--allow-cpu" in missing["detail"]
    # Still honest: --strict fails on the warning, and an explicit GPU requirement still fails.
    assert run_cli("check", "--quick", "--allow-cpu", "--strict").returncode == 1
    required = run_cli("check", "--quick", "--json", "--allow-cpu", "--require-gpus", "1")
    assert required.returncode == 1
    assert _ids(_json(required))["driver.missing"] == "fail"


def test_allow_cpu_on_saved_facts_and_chains(tmp_path: Path) -> None:
    """What GPU absence explains (here: the runtime seeing no GPU) follows it to a warning."""
    from tfdoctor.model import Finding, Status
    from tfdoctor.report import apply_options

    findings = [
        Finding("driver.missing", Status.FAIL, "no driver", fix="install it"),
        Finding("runtime.no-gpu-visible", Status.FAIL, "no GPU", fix="f", caused_by="driver.missing"),
        Finding("cudnn.missing", Status.FAIL, "no cuDNN", fix="f"),
    ]
    out = {f.id: f.status for f in apply_options(findings, {"allow_cpu": True})}
    assert out == {"driver.missing": Status.WARN, "runtime.no-gpu-visible": Status.WARN,
                   "cudnn.missing": Status.FAIL}  # a broken install is not GPU absence
    required = apply_options(findings, {"allow_cpu": True, "require_gpus": 2})
    assert {f.status for f in required} == {Status.FAIL}
    assert apply_options(findings, {}) == findings
