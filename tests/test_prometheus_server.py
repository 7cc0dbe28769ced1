"""End to end on the real tools: `tfdoctor report --prometheus` -> node_exporter's textfile collector
-> a Prometheus server scraping it on loopback -> the alert rules of docs/monitoring.md.

The "GPU node cannot train" alert must go pending, then firing, for a node whose driver lists its
GPUs but whose TensorFlow trains on none, and resolve once the file is replaced by the report of the
healed node. The rules are the shipped ones; only the alert's `for:` is shortened here (5m -> 2s) so
the test takes seconds (`promtool check rules` / `test rules` validate the shipped text as it is:
tests/test_monitoring.py). Scrape and evaluation run every second; every wait is bounded and both
daemons are stopped at the end (checked: no process left).

The failing node is tests/data/prometheus/h100-tensorflow-sees-no-gpu.json (see the README there:
a real full `tfdoctor report` on this GPU-less machine with the recorded H100 NVML answers, so the
driver lists 2 GPUs and the real TensorFlow worker trains on none: `cuda.init-failed`). The healed
node is that report with its runtime facts set to what a run that verified both GPUs records (no
GPU is reachable here): each GPU listed by TensorFlow, its matmul and training steps passed.
"""

from __future__ import annotations

import copy
import json
import re
import time
import urllib.request
from pathlib import Path

from conftest import DATA, ROOT, run_cli
from daemons import Daemons, free_port, need, wait_for

ALERT = "GPUNodeCannotTrain"
FAILING = DATA / "prometheus" / "h100-tensorflow-sees-no-gpu.json"
SHORT_FOR = "2s"


def _rules() -> str:
    """docs/monitoring.md's rules, with the alert's `for:` shortened for the test."""
    doc = (ROOT / "docs" / "monitoring.md").read_text()
    (rules,) = [b for b in re.findall(r"```yaml\n(.*?)```", doc, re.S) if b.startswith("groups:")]
    head, sep, rest = rules.partition(f"- alert: {ALERT}\n")
    assert sep, f"{ALERT} is not in docs/monitoring.md"
    shortened, count = re.subn(r"for: \S+", f"for: {SHORT_FOR}", rest, count=1)
    assert count == 1
    return head + sep + shortened


def _healed(report: dict) -> dict:
    """The same node once TensorFlow verified all its GPUs (see the module docstring)."""
    healed = copy.deepcopy(report)
    gpus = healed["facts"]["nvml"]["gpus"]
    devices = [f"/device:GPU:{g['index']}" for g in gpus]
    runtime = healed["facts"]["runtime"]
    runtime["tf_visible_gpus"] = len(gpus)
    runtime["gpus"] = [{"tf_device": d, "name": g["name"]} for d, g in zip(devices, gpus)]
    runtime["steps"] = [{"name": name, "device": d, "status": "pass"}
                        for d in devices for name in ("matmul", "train")]
    return healed


def _write(report: dict, tmp: Path, textfile: Path) -> None:
    src = tmp / "report.json"
    src.write_text(json.dumps(report))
    result = run_cli("report", "--from", str(src), "--prometheus", str(textfile / "tfdoctor.prom"))
    assert result.returncode in (0, 1), result.stderr


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.loads(resp.read())


def test_alert_fires_for_a_node_that_cannot_train_and_resolves_when_it_heals(tmp_path: Path) -> None:
    prometheus = need("prometheus", "prometheus")
    exporter = need("prometheus-node-exporter", "prometheus-node-exporter")
    failing = json.loads(FAILING.read_text())
    textfile = tmp_path / "textfile"
    textfile.mkdir()
    _write(failing, tmp_path, textfile)
    exporter_port, port = free_port(), free_port()
    (tmp_path / "rules.yml").write_text(_rules())
    (tmp_path / "prometheus.yml").write_text(f"""\
global: {{scrape_interval: 1s, evaluation_interval: 1s}}
rule_files: [rules.yml]
scrape_configs:
  - job_name: node
    static_configs: [{{targets: ["127.0.0.1:{exporter_port}"], labels: {{instance: gpu-node-17}}}}]
""")
    daemons = Daemons(tmp_path)
    api = f"http://127.0.0.1:{port}/api/v1"
    states: list[tuple[float, str]] = []

    def alert_state() -> str:
        alerts = [a for a in _get(f"{api}/alerts")["data"]["alerts"] if a["labels"]["alertname"] == ALERT]
        state = alerts[0]["state"] if alerts else "inactive"
        if not states or states[-1][1] != state:
            states.append((round(time.monotonic() - start, 1), state))
        return state

    try:
        daemons.start("node_exporter", [
            exporter, "--collector.disable-defaults", "--collector.textfile",
            f"--collector.textfile.directory={textfile}", f"--web.listen-address=127.0.0.1:{exporter_port}",
        ], tmp_path / "exporter.log")
        daemons.start("prometheus", [prometheus, f"--config.file={tmp_path}/prometheus.yml",
                                     f"--storage.tsdb.path={tmp_path}/data",
                                     f"--web.listen-address=127.0.0.1:{port}"], tmp_path / "prometheus.log")
        wait_for("Prometheus to answer", lambda: _ready(f"http://127.0.0.1:{port}/-/ready"), 60)
        start = time.monotonic()
        wait_for("the scrape to reach the node's metrics", lambda: _get(
            f"{api}/query?query=tfdoctor_gpus_verified")["data"]["result"], 30)
        wait_for(f"{ALERT} to be pending", lambda: alert_state() in ("pending", "firing"), 30)
        wait_for(f"{ALERT} to fire", lambda: alert_state() == "firing", 30)
        alert = next(a for a in _get(f"{api}/alerts")["data"]["alerts"] if a["labels"]["alertname"] == ALERT)
        assert alert["labels"]["instance"] == "gpu-node-17" and alert["labels"]["severity"] == "critical"
        assert alert["annotations"]["summary"] == "gpu-node-17: TensorFlow trains on none of its GPUs"

        _write(_healed(failing), tmp_path, textfile)  # the node healed: its file is replaced
        wait_for(f"{ALERT} to resolve", lambda: alert_state() == "inactive", 30)
        verified = _get(f"{api}/query?query=tfdoctor_gpus_verified")["data"]["result"]
        assert [r["value"][1] for r in verified] == [str(len(failing["facts"]["nvml"]["gpus"]))]
        daemons.check_running()
    finally:
        daemons.stop()
    print(f"{ALERT} states (seconds after the first scrape was awaited): {states}")
    assert [s for _, s in states] in (["inactive", "pending", "firing", "inactive"],
                                      ["pending", "firing", "inactive"])


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return resp.status == 200
    except OSError:
        return False
