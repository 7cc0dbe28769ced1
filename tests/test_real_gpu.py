"""Replays of tfdoctor's run on a real GPU (an H200, driver 580; tests/data/real-gpu/README.md):
the recorded nvidia-smi outputs through the probe's parsers, and the recorded reports' facts judged
again by today's checks."""

from __future__ import annotations

import json

from conftest import DATA
from schema_check import validate

from tfdoctor.compat import load_matrix
from tfdoctor.probes.nvidia_smi import parse_banner, parse_query_gpu, parse_query_xml
from tfdoctor.report import build_report

REAL = DATA / "real-gpu"
SMI = DATA / "nvidia-smi"
MATRIX = load_matrix()


def rejudged(name: str) -> dict[str, list]:
    report = json.loads((REAL / name).read_text(encoding="utf-8"))
    validate(report)
    findings = build_report("check", report["facts"], MATRIX).findings
    out: dict[str, list] = {}
    for f in findings:
        out.setdefault(f.id, []).append(f)
    return out


def test_the_recorded_nvidia_smi_outputs_of_an_h200():
    banner = parse_banner((SMI / "banner-580.159.04-h200.txt").read_text(encoding="utf-8"))
    assert (banner["driver_version"], banner["cuda_version"]) == ("580.159.04", "13.0")
    assert [g["name"] for g in banner["gpus"]] == ["NVIDIA H200"]
    fields = ("index", "name", "driver_version", "compute_cap", "memory.total", "memory.used", "pci.bus_id",
              "uuid")
    query = parse_query_gpu((SMI / "query-580-h200-name-cc.csv").read_text(encoding="utf-8"), fields)
    assert query["gpus"][0]["compute_capability"] == "9.0"
    xml = parse_query_xml((SMI / "q-x-h200-580.xml").read_text(encoding="utf-8"))
    gpu = xml["gpus"][0]
    assert gpu["name"] == "NVIDIA H200" and gpu["memory_total_mib"] == 143771
    assert MATRIX.gpu("NVIDIA H200").compute_capability == "9.0"


def test_the_gpu_run_judged_again():
    found = rejudged("h200-check.json")
    throughput = found["runtime.throughput-ok"][0]
    assert "494.7" in throughput.detail + throughput.title  # the H200's dense TF32 peak, not a sparse one
    assert "cuda.libraries-ok" in found and "gpu.mapping" in found
    assert all(str(f.status) == "pass" for f in found["gpu.compute-capability-ok"])
    # the recorded worker verified the train step on a per-op placement log that Keras 3 leaves empty when
    # it compiles fit with XLA; the worker now compiles that model op by op (jit_compile=False)
    assert "no Conv2D op" in found["runtime.placement-mismatch"][0].detail


def test_a_wheel_library_the_loader_did_not_find_is_missing_libraries():
    found = rejudged("h200-check-cusolver-not-found.json")
    assert found["cuda.libraries-missing"][0].caused_by is None
    assert found["runtime.no-gpu-visible"][0].caused_by == "cuda.libraries-missing"
    diag = (REAL / "h200-dlopen-diag.txt").read_text(encoding="utf-8")
    assert "Could not load dynamic library 'libcusolver.so.11'" in diag  # named at VLOG 1 only
