"""Benchmark `tfdoctor fleet` on generated fleets of N saved reports (default 1,000).

    .venv/bin/python bench/bench_fleet.py [N ...] [--base REPORT.json] [--heavy]

The base report is this machine's `tfdoctor report --quick` (or --base FILE); each node is a
copy with its own hostname and, for a few nodes, a different driver / GPU set so that drift
and failing nodes are exercised. `--heavy` adds what an 8-GPU node captures: the recorded real
`nvidia-smi -q` of an 8 x H100 node (tests/data/nvidia-smi) as its raw output. Each command runs
in a child process, as a user runs it (start-up included): first plain `json.load` of every file
(the unit: no reader of these files can be faster), then `fleet` as a table and as --json. The
script prints wall time and peak memory (median of 3 runs up to 10,000 reports, one run above),
the ratio to json.load, to the goal (2 s per 10,000 reports) and the memory per node: it stays
flat from 10,000 to 100,000 reports because each report is dropped once its row is made.
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


JSON_LOAD = ("import json, pathlib, sys\n"
             "for p in sorted(pathlib.Path(sys.argv[1]).rglob('*.json')): json.load(open(p))")


def _timed(argv: list[str], out_path: Path) -> tuple[float, int, float]:
    """Run argv with stdout to out_path: (wall seconds, exit status, peak memory MiB)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open(out_path, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, env=env, cwd=str(ROOT))
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    return wall, os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024


def _median(runs: list[tuple[float, int, float]]) -> tuple[float, int, float]:
    ordered = sorted(runs)
    return ordered[len(ordered) // 2]


def bench(report: dict, n: int, repeat: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder, out = Path(tmp) / "reports", Path(tmp) / "out"
        folder.mkdir()
        size = generate(report, n, folder)
        print(f"fleet of {n:,} reports: {size / 1e6:.0f} MB, {size / n / 1e3:.1f} kB each")
        base = _median([_timed([sys.executable, "-c", JSON_LOAD, str(folder)], out) for _ in range(repeat)])
        print(f"  json.load of every file   {base[0]:7.2f} s wall  {base[2]:6.0f} MiB peak  (the unit below)")
        fleet_cmd = [sys.executable, "-m", "tfdoctor", "fleet", str(folder)]
        for label, extra in (("table", ["--no-color"]), ("--json", ["--json"])):
            wall, code, peak = _median([_timed(fleet_cmd + extra, out) for _ in range(repeat)])
            if code not in (0, 1):
                print(f"  fleet {label}: exit {code}")
                return 1
            goal = GOAL_S * n / 10_000
            print(f"  fleet {label:<7}            {wall:7.2f} s wall  {peak:6.0f} MiB peak  "
                  f"{wall / base[0]:5.2f} x json.load  {wall / goal:5.2f} of the {goal:g} s goal  "
                  f"({peak * 1024 / n:.1f} kB per node)")
        fleet = json.loads(out.read_text())
        print(f"  {len(fleet['nodes']):,} nodes read, drifting keys: {', '.join(fleet['drift']) or 'none'}")
    return 0


def main() -> int:
    args = sys.argv[1:]
    base_path = None
    if "--base" in args:
        base_path = args[args.index("--base") + 1]
        del args[args.index("--base"): args.index("--base") + 2]
    heavy = "--heavy" in args
    args = [a for a in args if a != "--heavy"]
    sizes = [int(a) for a in args] or [1000]
    report = base_report(base_path)
    if heavy:  # what an 8-GPU node captures: its whole nvidia-smi -q as the raw output
        smi = report["facts"].get("nvidia_smi") or {}
        report["facts"]["nvidia_smi"] = {**smi, "raw": HEAVY_RAW.read_text()}
    for n in sizes:
        if bench(report, n, repeat=3 if n <= 10_000 else 1):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
