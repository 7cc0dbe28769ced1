"""docs/monitoring.md against the real tools: its metric table matches what the renderer writes, its
alert rules pass `promtool check rules` and the unit tests of tests/data/prometheus/alerts.test.yml,
and node_exporter's textfile collector reads a file `tfdoctor report --prometheus` wrote.

promtool and node_exporter are Debian's `prometheus` and `prometheus-node-exporter` packages, which
`.ci/run` installs; elsewhere the tests that need them are skipped with that install line.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import urllib.request
from pathlib import Path

import pytest
from conftest import DATA, ROOT, run_cli
from daemons import Daemons, free_port, need, wait_for

from tfdoctor.render.prometheus import render

DOC = ROOT / "docs" / "monitoring.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), re.S)


def _rules() -> str:
    (rules,) = [b for b in _blocks("yaml") if b.startswith("groups:")]
    return rules


def _every_family() -> set[str]:
    """Family names the renderer writes for a report that has every kind of value."""
    gpu = {"index": 0, "name": "NVIDIA A100-SXM4-80GB", "uuid": "GPU-1", "compute_capability": "8.0",
           "pci_bus_id": "00000000:07:00.0",
           "ecc": {"mode_current": True, "volatile": {"corrected": 0, "uncorrected": 0},
                   "aggregate": {"corrected": 1, "uncorrected": 0}},
           "retired_pages": {"single_bit": 0, "double_bit": 0, "pending": False},
           "remapped_rows": {"correctable": 0, "uncorrectable": 0, "pending": False, "failure": False},
           "throttle_reasons": ["idle"]}
    dev = "/device:GPU:0"
    report = {
        "created_at": "2026-11-03T10:00:00+00:00", "mode": "full", "tool": {"version": "0.1.0"},
        "timings": {"probes_total": 40.0}, "environment": {"gpu_count": 1}, "summary": {"status": "fail"},
        "findings": [{"id": "driver.too-old", "status": "fail"}],
        "facts": {"nvml": {"available": True, "gpus": [gpu]}, "runtime": {
            "ran": True, "tf_visible_gpus": 1, "gpus": [{"tf_device": dev, "name": gpu["name"]}],
            "steps": [{"name": "matmul", "device": dev, "status": "pass"},
                      {"name": "train", "device": dev, "status": "pass"},
                      {"name": "throughput", "device": dev, "status": "pass", "gpu_name": gpu["name"],
                       "tf32": True, "tflops": {"float32": 100.0}}]}},
    }
    from tfdoctor.compat import load_matrix

    text = render(report, load_matrix())
    return {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}


def test_the_metric_table_lists_exactly_what_is_written() -> None:
    table = set(re.findall(r"^\| `(tfdoctor_[a-z0-9_]+)` \|", DOC.read_text(), re.M))
    written = _every_family()
    counters = {n for n in written if n.endswith("_total")}
    assert table == written, (table ^ written)
    assert counters == {"tfdoctor_gpu_ecc_errors_total", "tfdoctor_gpu_retired_pages_total",
                        "tfdoctor_gpu_remapped_rows_total"}


def test_every_metric_the_rules_use_is_written() -> None:
    used = set(re.findall(r"\btfdoctor_[a-z0-9_]+", _rules()))
    assert used and used <= _every_family(), used - _every_family()


@pytest.fixture
def promtool() -> str:
    return need("promtool", "prometheus")


def test_alert_rules_pass_promtool(promtool: str, tmp_path: Path) -> None:
    (tmp_path / "rules.yml").write_text(_rules())
    shutil.copy(DATA / "prometheus" / "alerts.test.yml", tmp_path / "alerts.test.yml")
    check = subprocess.run([promtool, "check", "rules", "rules.yml"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr
    test = subprocess.run([promtool, "test", "rules", "alerts.test.yml"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert test.returncode == 0, test.stdout + test.stderr


def test_a_written_file_passes_promtool_check_metrics(promtool: str, tmp_path: Path) -> None:
    target = tmp_path / "tfdoctor.prom"
    result = run_cli("report", "--quick", "--prometheus", str(target))
    assert result.returncode in (0, 1), result.stderr
    lint = subprocess.run([promtool, "check", "metrics"], input=target.read_text(), capture_output=True,
                          text=True, timeout=60)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_node_exporter_reads_the_file(tmp_path: Path) -> None:
    exporter = need("prometheus-node-exporter", "prometheus-node-exporter")
    folder = tmp_path / "textfile"
    folder.mkdir()
    result = run_cli("report", "--quick", "--prometheus", str(folder / "tfdoctor.prom"))
    assert result.returncode in (0, 1), result.stderr
    port = free_port()
    daemons = Daemons(tmp_path)

    def scrape() -> str | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as resp:
                return resp.read().decode()
        except OSError:
            return None

    try:
        daemons.start("node_exporter", [
            exporter, "--collector.disable-defaults", "--collector.textfile",
            f"--collector.textfile.directory={folder}", f"--web.listen-address=127.0.0.1:{port}",
        ], tmp_path / "exporter.log")
        body = wait_for("node_exporter to answer", scrape, 20)
    finally:
        daemons.stop()  # and nothing left behind
    assert "node_textfile_scrape_error 0" in body
    assert re.search(r'^tfdoctor_status\{status="fail"\} [01]$', body, re.M)
    assert re.search(r"^tfdoctor_report_timestamp_seconds \S+$", body, re.M)
