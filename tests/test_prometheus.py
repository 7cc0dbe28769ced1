"""`tfdoctor report --prometheus FILE`: node_exporter textfile-collector metrics, parsed back with
prometheus_client's own text parser.

Sources: a real full run on this machine (TensorFlow on the CPU, no GPU driver); real quick runs
whose NVML answers are the recorded H100/A100 values of tests/data/nvml (the fake pynvml replays
them, with the one injected fault each file names); and, because no GPU is reachable here, a GPU
throughput step put into a real saved report's runtime facts (its numbers are stated below).
"""

from __future__ import annotations

import copy
import json
import os
import re
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import DATA, ROOT, run_cli

from tfdoctor.compat import load_matrix
from tfdoctor.render.prometheus import label_value, render

parser = pytest.importorskip("prometheus_client.parser")

FAKE_NVML = ROOT / "tests" / "fakes" / "nvml"
NAME = re.compile(r"^tfdoctor_[a-z0-9_]+$")


def parse(text: str) -> dict[str, list]:
    """{sample name: [samples]} from the text format; also checks the conventions of every family."""
    out: dict[str, list] = {}
    families = list(parser.text_string_to_metric_families(text))
    assert families
    seen_series = set()
    for fam in families:
        assert NAME.match(fam.name), fam.name
        assert fam.documentation, f"{fam.name} has no HELP"
        assert fam.type in ("gauge", "counter"), (fam.name, fam.type)
        for s in fam.samples:
            if fam.type == "counter":
                assert s.name == fam.name + "_total", s.name
            else:
                assert not s.name.endswith("_total"), s.name
            assert s.timestamp is None  # the textfile collector rejects timestamps
            key = (s.name, tuple(sorted(s.labels.items())))
            assert key not in seen_series, key
            seen_series.add(key)
            out.setdefault(s.name, []).append(s)
    for line in text.splitlines():  # HELP and TYPE come once per family, before its samples
        assert line.startswith(("# HELP ", "# TYPE ")) or NAME.match(line.split("{")[0].split()[0])
    return out


def value(samples: dict[str, list], metric: str, /, **labels: str) -> float:
    found = [s.value for s in samples.get(metric, []) if all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(found) == 1, (metric, labels, found)
    return found[0]


@pytest.fixture(scope="module")
def full_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict, Path]:
    """A real full run here: the worker imports TensorFlow and trains on the CPU."""
    folder = tmp_path_factory.mktemp("textfile")
    target = folder / "tfdoctor.prom"
    result = run_cli("report", "--prometheus", str(target), "--timeout", "300")
    assert result.returncode in (0, 1), result.stderr
    assert result.stdout == ""  # metrics go to the file only
    saved = folder / "report.json"
    json_run = run_cli("report", "--output", str(saved), "--timeout", "300")
    assert json_run.returncode in (0, 1), json_run.stderr
    return parse(target.read_text()), json.loads(saved.read_text()), target


def test_full_run_metrics(full_run: tuple[dict, dict, Path]) -> None:
    samples, report, target = full_run
    assert [p.name for p in target.parent.iterdir() if p.name.startswith(".")] == []  # no temp file left
    assert oct(target.stat().st_mode & 0o777) == "0o644"
    age = time.time() - value(samples, "tfdoctor_report_timestamp_seconds")
    assert 0 <= age < 600
    assert value(samples, "tfdoctor_info", mode="full", version=report["tool"]["version"]) == 1
    env = report["environment"]
    info = samples["tfdoctor_environment_info"][0].labels
    assert info["tensorflow_version"] == env["tensorflow_version"] == "2.21.0"
    assert info["tf_cuda_version"] == env["tf_cuda_version"] and info["driver_version"] == ""
    status = report["summary"]["status"]
    assert value(samples, "tfdoctor_status", status=status) == 1
    assert sum(s.value for s in samples["tfdoctor_status"]) == 1
    for f in report["findings"]:
        assert value(samples, "tfdoctor_check_status", check=f["id"], status=f["status"]) == 1
        assert sum(s.value for s in samples["tfdoctor_check_status"] if s.labels["check"] == f["id"]) == 1
    roots = {s.labels["check"] for s in samples["tfdoctor_check_root_cause"] if s.value == 1}
    assert roots == set(report["summary"]["root_causes"])
    # TensorFlow ran here on the CPU only: it lists no GPU and verified none
    assert value(samples, "tfdoctor_tensorflow_gpus") == 0
    assert value(samples, "tfdoctor_gpus_verified") == 0
    assert value(samples, "tfdoctor_gpus") == env["gpu_count"] == 0
    assert "tfdoctor_matmul_flops_per_second" not in samples


def _quick_with_nvml(scenario: str, tmp_path: Path) -> dict[str, list]:
    """Metrics of a real quick run whose NVML replays tests/data/nvml/SCENARIO; every check's status
    is the one the same run's JSON report has."""
    env = dict(os.environ, PYTHONPATH=f"{FAKE_NVML}{os.pathsep}{ROOT}",
               TFDOCTOR_FAKE_NVML=str(DATA / "nvml" / scenario))
    target = tmp_path / f"{scenario}.prom"
    result = run_cli("report", "--quick", "--prometheus", str(target), env=env)
    assert result.returncode in (0, 1), result.stderr
    samples = parse(target.read_text())
    report = run_cli("report", "--quick", env=env).json()
    for f in report["findings"]:
        assert value(samples, "tfdoctor_check_status", check=f["id"], status=f["status"]) == 1
    assert value(samples, "tfdoctor_status", status=report["summary"]["status"]) == 1
    return samples


def test_ecc_counters_from_recorded_h100(tmp_path: Path) -> None:
    recorded = json.loads((DATA / "nvml" / "h100-ecc-uncorrected.json").read_text())
    samples = _quick_with_nvml("h100-ecc-uncorrected.json", tmp_path)
    for i, gpu in enumerate(recorded["gpus"]):
        assert value(samples, "tfdoctor_gpu_info", gpu=str(i))  # one per GPU
        assert samples["tfdoctor_gpu_info"][i].labels["uuid"] == gpu["uuid"]
        assert value(samples, "tfdoctor_gpu_ecc_enabled", gpu=str(i)) == 1
        for scope in ("volatile", "aggregate"):
            for kind in ("corrected", "uncorrected"):
                got = value(samples, "tfdoctor_gpu_ecc_errors_total", gpu=str(i), scope=scope, type=kind)
                assert got == gpu["ecc_errors"][scope][kind]
    assert value(samples, "tfdoctor_gpu_ecc_errors_total", gpu="0", scope="volatile", type="uncorrected") == 2
    failing = {s.labels["check"] for s in samples["tfdoctor_check_status"] if s.labels["status"] == "fail"
               and s.value == 1}
    assert any(check.startswith("gpu.") for check in failing)  # the health check fails on it
    assert value(samples, "tfdoctor_gpus") == 2
    assert "tfdoctor_gpu_retired_pages_total" not in samples  # NVML: not supported on H100
    assert value(samples, "tfdoctor_environment_info", driver_version="565.57.01", cuda_driver_version="12.7")


def test_remapped_rows_and_throttle_reasons(tmp_path: Path) -> None:
    remap = _quick_with_nvml("h100-remap-pending.json", tmp_path)
    assert value(remap, "tfdoctor_gpu_remapped_rows_total", gpu="0", severity="uncorrectable") == 1
    assert value(remap, "tfdoctor_gpu_remapped_rows_total", gpu="0", severity="correctable") == 0
    assert value(remap, "tfdoctor_gpu_remapped_rows_pending", gpu="0") == 1
    assert value(remap, "tfdoctor_gpu_remapped_rows_pending", gpu="1") == 0
    assert value(remap, "tfdoctor_gpu_remapped_rows_failure", gpu="0") == 0
    hot = _quick_with_nvml("a100-thermal-throttle.json", tmp_path)
    active = {s.labels["reason"] for s in hot["tfdoctor_gpu_throttle_reason"] if s.value == 1}
    assert active == {"hw_slowdown", "hw_thermal"}  # 72 = 0x8 | 0x40 in the recorded scenario
    assert value(hot, "tfdoctor_gpu_throttle_reason", gpu="0", reason="power_cap") == 0


def test_gpu_throughput_and_its_ratio_to_peak(full_run: tuple[dict, dict, Path], tmp_path: Path) -> None:
    """A saved real report whose runtime facts get one GPU that passed matmul, training and a
    throughput step (injected values: H100, TF32 on, 300 / 650 / 600 TFLOP/s)."""
    _, report, _ = full_run
    saved = copy.deepcopy(report)
    rt = saved["facts"]["runtime"]
    gpu = "/device:GPU:0"
    name = "NVIDIA H100 80GB HBM3"
    rt["tf_visible_gpus"] = 1
    rt["gpus"] = [{"tf_device": gpu, "name": name, "compute_capability": "9.0"}]
    rt["steps"] = [s for s in rt["steps"] if s.get("device") != "GPU"] + [
        {"name": "matmul", "device": gpu, "status": "pass", "max_rel_error": 3e-7},
        {"name": "train", "device": gpu, "status": "pass", "losses": [0.8, 0.2]},
        {"name": "throughput", "device": gpu, "status": "pass", "gpu_name": name, "n": 4096, "tf32": True,
         "tflops": {"float32": 300.0, "float16": 650.0, "bfloat16": 600.0}},
    ]
    src = tmp_path / "gpu.json"
    src.write_text(json.dumps(saved))
    target = tmp_path / "gpu.prom"
    result = run_cli("report", "--from", str(src), "--prometheus", str(target))
    assert result.returncode in (0, 1), result.stderr
    samples = parse(target.read_text())
    assert value(samples, "tfdoctor_gpu_verified", device=gpu, name=name) == 1
    assert value(samples, "tfdoctor_gpus_verified") == 1
    model = load_matrix().gpu(name)
    peaks = {"float32": model.tf32_tflops, "float16": model.fp16_tflops, "bfloat16": model.bf16_tflops}
    for dtype, got in {"float32": 300.0, "float16": 650.0, "bfloat16": 600.0}.items():
        assert value(samples, "tfdoctor_matmul_flops_per_second", device=gpu, dtype=dtype) == got * 1e12
        ratio = value(samples, "tfdoctor_matmul_peak_ratio", device=gpu, dtype=dtype)
        assert ratio == pytest.approx(got / peaks[dtype])


def test_label_values_are_escaped_and_parse_back() -> None:
    nasty = 'GPU "x"\\y\nz\x1b[2J\x07 \ud800'
    report = {"created_at": "2026-11-03T10:00:00+00:00", "mode": "quick", "tool": {"version": "0.1.0"},
              "environment": {"gpu_count": 1, "driver_version": nasty},
              "facts": {"nvml": {"available": True, "gpus": [{"index": 0, "name": nasty, "uuid": "GPU-1",
                                                             "throttle_reasons": ["idle", 'new"reason']}]}},
              "findings": [{"id": "gpu.x", "status": "weird"}, {"id": 5, "status": "fail"}],
              "summary": {"status": "fail"}}
    text = render(report)
    samples = parse(text)
    expected = 'GPU "x"\\y\nz[2J ?'
    assert samples["tfdoctor_gpu_info"][0].labels["name"] == expected
    assert samples["tfdoctor_environment_info"][0].labels["driver_version"] == expected
    assert value(samples, "tfdoctor_gpu_throttle_reason", gpu="0", reason='new"reason') == 1
    assert value(samples, "tfdoctor_gpu_throttle_reason", gpu="0", reason="hw_thermal") == 0
    when = datetime(2026, 11, 3, 10, tzinfo=timezone.utc).timestamp()
    assert value(samples, "tfdoctor_report_timestamp_seconds") == when
    assert "tfdoctor_check_status" not in samples  # findings with a bad id or status are left out
    assert len(label_value("x" * 10_000)) == 200


def test_non_finite_and_wrong_typed_numbers_are_left_out() -> None:
    report = {"created_at": "yesterday", "timings": {"probes_total": float("nan")},
              "environment": {"gpu_count": True},
              "facts": {"nvml": {"available": True, "gpus": [{"index": 0, "name": "g", "ecc": {
                  "mode_current": True, "volatile": {"corrected": -3, "uncorrected": "7"}}}]}}}
    samples = parse(render(report))
    for name in ("tfdoctor_report_timestamp_seconds", "tfdoctor_report_duration_seconds", "tfdoctor_gpus",
                 "tfdoctor_gpu_ecc_errors_total"):
        assert name not in samples
    assert value(samples, "tfdoctor_gpu_ecc_enabled", gpu="0") == 1


def test_bad_target_is_refused_before_any_work(tmp_path: Path) -> None:
    start = time.monotonic()
    for target, needle in ((tmp_path, "is a directory"), (tmp_path / "no" / "x.prom", "does not exist")):
        result = run_cli("report", "--prometheus", str(target))
        assert result.returncode == 2, result.stderr
        assert needle in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert time.monotonic() - start < 20  # no worker run (that alone takes longer than this here)
    both = run_cli("report", "--prometheus", str(tmp_path / "x.prom"), "--output", str(tmp_path / "y"))
    assert both.returncode == 2 and "--output" in both.stderr
    excl = run_cli("report", "--prometheus", str(tmp_path / "x.prom"), "--json")
    assert excl.returncode == 2


def test_written_atomically_replacing_a_symlink_not_its_target(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "tfdoctor.prom"
    link.symlink_to(victim)
    result = run_cli("report", "--quick", "--prometheus", str(link))
    assert result.returncode in (0, 1), result.stderr
    assert victim.read_text() == "keep me"
    assert not link.is_symlink() and link.read_text().startswith("# HELP tfdoctor_")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tfdoctor.prom", "victim.txt"]
