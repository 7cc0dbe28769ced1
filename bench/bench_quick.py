"""How long `tfdoctor check --quick` takes, for the provisioning scripts that call it in loops.

Prints the median wall time (and CPU time) of `python -m tfdoctor check --quick --json` and its
ratio to `python -c pass` (what Python alone costs to start). The goal is a median of 0.15 s or
less; machines here are shared and noisy, so read the ratio, and rerun. Not a timed test.

It runs the code of this checkout (cwd and PYTHONPATH are the repository root) with byte-code
caching on, as an installed tfdoctor runs, after two warm-up runs.
Usage: python bench/bench_quick.py [RUNS]
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL = 0.15


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, user + system CPU) seconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(argv: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    results = [timed(argv, env) for _ in range(runs)]
    return statistics.median(r[0] for r in results), statistics.median(r[1] for r in results)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    quick = [sys.executable, "-m", "tfdoctor", "check", "--quick", "--json"]
    for _ in range(2):
        timed(quick, env)  # byte-code caches written, disk caches warm
    bare_wall, bare_cpu = measure([sys.executable, "-c", "pass"], env, runs)
    wall, cpu = measure(quick, env, runs)
    print(f"python -c pass:                median {bare_wall:.3f} s wall, {bare_cpu:.3f} s CPU ({runs} runs)")
    print(f"tfdoctor check --quick --json: median {wall:.3f} s wall, {cpu:.3f} s CPU ({runs} runs)")
    print(f"ratio to python -c pass: {wall / bare_wall:.1f} (wall), {cpu / max(bare_cpu, 1e-3):.1f} (CPU); "
          f"goal {GOAL} s: {wall / GOAL:.2f} of it")


if __name__ == "__main__":
    main()
