"""NVML probe: the real nvidia-ml-py on this driverless machine, a fake pynvml replaying recorded
values in a child process, and the unofficial `pynvml` fork detected from its distribution metadata."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, ROOT, run_cli

from tfdoctor.probes import Context
from tfdoctor.probes.nvml import classify_bindings, describe_error, probe

FAKE = ROOT / "tests" / "fakes" / "nvml"
NVML = DATA / "nvml"


def _probe_child(scenario: str | None = None, pythonpath: Path = FAKE) -> dict:
    """Run the NVML probe in a child process whose `import pynvml` finds `pythonpath` first."""
    env = dict(os.environ, PYTHONPATH=f"{pythonpath}{os.pathsep}{ROOT}")
    if scenario:
        env["TFDOCTOR_FAKE_NVML"] = str(NVML / scenario)
    code = (
        "import json, sys; from tfdoctor.probes.nvml import probe; from tfdoctor.probes import Context;"
        "print(json.dumps(probe(Context(python=sys.executable))))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_real_bindings_without_driver():
    """This machine has nvidia-ml-py but no NVIDIA driver: plain words, never an exception."""
    facts = probe(Context(python=sys.executable))
    assert facts["available"] is False and facts["error_kind"] == "library-not-found"
    assert "libnvidia-ml.so.1" in facts["error"] and "NVML Shared Library" not in facts["error"]
    assert facts["bindings"]["distributions"].get("nvidia-ml-py")


def test_healthy_h100_recorded_values():
    facts = _probe_child("h100-healthy.json")
    assert (
        facts["available"]
        and facts["driver_version"] == "565.57.01"
        and facts["cuda_driver_version"] == "12.7"
    )
    g0, g1 = facts["gpus"]
    assert (g0["name"], g0["pci_bus_id"], g0["compute_capability"]) == (
        "NVIDIA H100 80GB HBM3",
        "00000000:18:00.0",
        "9.0",
    )
    assert (g0["memory_total_mib"], g0["memory_free_mib"]) == (81559, 81106)
    assert g0["throttle_reasons"] == ["idle"] and g0["pcie"] == {
        "gen": 5,
        "max_gen": 5,
        "width": 16,
        "max_width": 16,
    }
    assert g0["retired_pages"] == {"single_bit": None, "double_bit": None, "pending": None}  # not supported
    assert g0["temperature_limit_c"] is None and g0["power_w"] == 100.89 and g0["power_limit_w"] == 700
    assert (
        g0["persistence_mode"] is True and g0["compute_mode"] == "default" and g0["mig"]["current"] is False
    )
    assert g1["uuid"] == "GPU-7c3cadbd-17e5-0913-f69b-c618122ea0cd"


def test_faults_become_facts():
    assert _probe_child("h100-pcie-x4.json")["gpus"][1]["pcie"]["width"] == 4
    hot = _probe_child("a100-thermal-throttle.json")["gpus"][0]
    assert hot["throttle_reasons"] == ["hw_slowdown", "hw_thermal"] and hot["temperature_limit_c"] == 89
    assert _probe_child("h100-remap-pending.json")["gpus"][0]["remapped_rows"] == {
        "correctable": 0,
        "uncorrectable": 1,
        "pending": True,
        "failure": False,
    }
    assert _probe_child("h100-ecc-uncorrected.json")["gpus"][0]["ecc"]["volatile"] == {
        "corrected": 3,
        "uncorrected": 2,
    }
    held = _probe_child("h100-memory-held.json")["gpus"][0]
    assert held["processes"] == [{"pid": 4242, "name": "python3", "type": "C", "used_mib": 72946}]
    mig = _probe_child("a100-mig.json")["gpus"][0]["mig"]
    assert mig["current"] is True and [d["memory_total_mib"] for d in mig["devices"]] == [19968] * 4


def test_gpu_lost_is_per_gpu():
    facts = _probe_child("h100-gpu-lost.json")
    assert facts["available"] is True and facts["gpus"][0]["name"] == "NVIDIA H100 80GB HBM3"
    assert facts["gpus"][1]["error_kind"] == "gpu-lost" and "fallen off the bus" in facts["gpus"][1]["error"]


@pytest.mark.parametrize(
    "scenario, kind, words",
    [
        ("nvml-lib-mismatch.json", "lib-mismatch", "Driver/library version mismatch"),
        ("nvml-no-permission.json", "no-permission", "no permission"),
    ],
)
def test_init_errors_in_plain_words(scenario, kind, words):
    facts = _probe_child(scenario)
    assert facts["available"] is False and facts["error_kind"] == kind and words in facts["error"]


def test_no_scenario_means_no_library():
    assert _probe_child(None)["error_kind"] == "library-not-found"


def test_unofficial_pynvml_fork_detected(tmp_path):
    """A `pynvml` 11.x distribution owning the module that would be imported: refused, never imported."""
    pkg = tmp_path / "pynvml"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise SystemExit('the fork must not be imported')\n")
    info = tmp_path / "pynvml-11.5.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pynvml\nVersion: 11.5.0\n")
    (info / "RECORD").write_text("pynvml/__init__.py,,\npynvml-11.5.0.dist-info/METADATA,,\n")
    facts = _probe_child(None, pythonpath=tmp_path)
    assert facts["error_kind"] == "fork" and "unofficial `pynvml` 11.5.0" in facts["error"]
    assert facts["bindings"]["distributions"] == {"pynvml": "11.5.0"}


def test_classify_bindings():
    assert classify_bindings(None, {})[0] == "bindings-missing"
    assert classify_bindings("/x/pynvml.py", {"nvidia-ml-py": "13.615.71"}) == (None, None)
    assert classify_bindings("/x/pynvml/__init__.py", {"pynvml": "11.4.1"})[0] == "fork"
    assert classify_bindings("/x/pynvml.py", {"pynvml": "12.0.0"}) == (
        None,
        None,
    )  # 12+ defers to nvidia-ml-py


def test_describe_error_unknown_code():
    assert describe_error(999, "Unknown Error") == ("unknown", "NVML failed: Unknown Error")
    assert describe_error(18)[0] == "lib-mismatch"


def _cli(scenario: str, *args: str) -> dict:
    env = dict(os.environ, PYTHONPATH=f"{FAKE}{os.pathsep}{ROOT}", TFDOCTOR_FAKE_NVML=str(NVML / scenario))
    res = run_cli("check", "--quick", "--json", *args, env=env)
    assert res.returncode in (0, 1) and "Traceback" not in res.stderr, res.stderr
    return res.json()


def _by_id(report: dict) -> dict[str, dict]:
    return {f["id"]: f for f in report["findings"]}


def test_cli_healthy_h100():
    report = _cli("h100-healthy.json")
    found = _by_id(report)
    assert report["environment"]["driver_version"] == "565.57.01"
    assert report["environment"]["cuda_driver_version"] == "12.7" and report["environment"]["gpu_count"] == 2
    assert found["gpu.health"]["status"] == "pass" and "PCIe Gen5 x16" in found["gpu.health"]["detail"]
    assert "GPU:1 = NVML 1 (NVIDIA H100 80GB HBM3, 0000:2a:00.0)" in found["gpu.mapping"]["detail"]
    assert not [
        f
        for f in report["findings"]
        if f["id"].startswith("gpu.")
        and f["status"] in ("warn", "fail")
        and f["id"] != "gpu.compute-capability-ptx-jit"
    ]


@pytest.mark.parametrize(
    "scenario, fid, status",
    [
        ("h100-pcie-x4.json", "gpu.pcie-link-degraded", "warn"),
        ("a100-thermal-throttle.json", "gpu.throttled", "warn"),
        ("h100-remap-pending.json", "gpu.row-remap-pending", "warn"),
        ("h100-ecc-uncorrected.json", "gpu.ecc-errors", "fail"),
        ("h100-memory-held.json", "gpu.memory-held-by-other-processes", "warn"),
        ("a100-mig.json", "gpu.mig-enabled", "warn"),
        ("h100-gpu-lost.json", "gpu.lost", "fail"),
        ("nvml-lib-mismatch.json", "driver.library-mismatch", "fail"),
    ],
)
def test_cli_faulty_gpus(scenario, fid, status):
    found = _by_id(_cli(scenario))
    assert found[fid]["status"] == status
    assert found[fid]["fix"], f"{fid} has no fix"
