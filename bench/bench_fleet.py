"""Benchmark `tfdoctor fleet` on a generated fleet of N saved reports (default 1,000).

    .venv/bin/python bench/bench_fleet.py [N] [--base REPORT.json]

The base report is this machine's `tfdoctor report --quick` (or --base FILE); each node is a
copy with its own hostname and, for a few nodes, a different driver / GPU set so that drift
and failing nodes are exercised. A second, heavier fleet carries what an 8-GPU node captures:
the recorded real `nvidia-smi -q` of an 8 x H100 node (tests/data/nvidia-smi) as its raw
output. The fleet command runs in a child process, as a user runs it, for both the table and
--json, and the script prints wall times and the ratio to the 2 s goal.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_S = 2.0
VARIANTS = [  # (driver_version, cuda_driver_version, GPU name, count, memory MiB) seen in recorded outputs
    ("565.57.01", "12.7", "NVIDIA H100 80GB HBM3", 8, 81559),
    ("535.54.03", "12.2", "NVIDIA A100-SXM4-80GB", 8, 81920),
    ("515.105.01", "11.7", "NVIDIA A10G", 1, 23028),
]


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "tfdoctor", *args], capture_output=True, text=True,
                          env=env, cwd=str(ROOT), timeout=600)


def base_report(path: str | None) -> dict:
    if path:
        return json.loads(Path(path).read_text())
    result = _run("report", "--quick")
    if result.returncode not in (0, 1):
        sys.exit(f"bench: tfdoctor report --quick failed: {result.stderr.strip()}")
    return json.loads(result.stdout)


HEAVY_RAW = ROOT / "tests" / "data" / "nvidia-smi" / "q-h100-sxm-x8-565.txt"


def generate(base: dict, n: int, out: Path) -> int:
    """Write n node reports under out; return their total size in bytes."""
    total = 0
    for i in range(n):
        report = copy.deepcopy(base)
        env = report["environment"]
        env["hostname"] = f"gpu{i:04d}.cluster.example.org"
        driver, cuda, name, count, mib = VARIANTS[0 if i % 50 else (i // 50) % len(VARIANTS)]
        env.update(driver_version=driver, cuda_driver_version=cuda, gpu_count=count,
                   gpus=[{"index": g, "name": name, "compute_capability": None, "memory_total_mib": mib}
                         for g in range(count)])
        report["facts"].setdefault("system", {})["hostname"] = env["hostname"]
        text = json.dumps(report, indent=2)
        (out / f"node{i:04d}.json").write_text(text)
        total += len(text)
    return total


def main() -> int:
    args = sys.argv[1:]
    base_path = None
    if "--base" in args:
        base_path = args[args.index("--base") + 1]
        del args[args.index("--base"): args.index("--base") + 2]
    n = int(args[0]) if args else 1000
    base = base_report(base_path)
    heavy = copy.deepcopy(base)
    heavy["facts"]["nvidia_smi"] = {**(heavy["facts"].get("nvidia_smi") or {}), "raw": HEAVY_RAW.read_text()}
    for name, report in (("this machine's report", base), ("with an 8-GPU nvidia-smi capture", heavy)):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            size = generate(report, n, out)
            print(f"fleet of {n} reports ({name}): {size / 1e6:.1f} MB, {size / n / 1e3:.1f} kB each")
            for label, extra in (("table", ["--no-color"]), ("--json", ["--json"])):
                start = time.perf_counter()
                result = _run("fleet", str(out), *extra)
                wall = time.perf_counter() - start
                if result.returncode not in (0, 1):
                    print(f"  fleet {label}: exit {result.returncode}: {result.stderr.strip()}")
                    return 1
                print(f"  fleet {label:<7} {wall:6.2f} s wall (process start included)  "
                      f"{wall / GOAL_S:5.2f} of the {GOAL_S:.0f} s goal  exit {result.returncode}")
            fleet = json.loads(result.stdout)
            print(f"  {len(fleet['nodes'])} nodes read, drifting keys: {', '.join(fleet['drift']) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
