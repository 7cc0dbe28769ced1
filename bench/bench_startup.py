"""Start-up cost of the CLI: `tfdoctor --help`, `tfdoctor check --quick`, and peak memory.

Prints medians and their ratio to the goals (machines here are noisy: run it, read ratios):
`--help` < 0.15 s, `check --quick` < 0.5 s, tfdoctor process (no worker) < 60 MiB peak RSS.
Usage: python bench/bench_startup.py [RUNS]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

GOALS = {"--help": 0.15, "check --quick": 0.5}
MEMORY_GOAL_MIB = 60


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def peak_rss_mib(argv: list[str]) -> float:
    """Peak RSS of one child run (a fresh process, so RUSAGE_CHILDREN holds only it)."""
    code = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,"
        " stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1024  # Linux reports KiB


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    exe = os.path.join(os.path.dirname(sys.executable), "tfdoctor")
    base = [exe] if os.path.exists(exe) else [sys.executable, "-m", "tfdoctor"]
    bare = [timed([sys.executable, "-c", "pass"]) for _ in range(runs)]
    print(f"python -c pass: median {statistics.median(bare):.3f} s")
    for args, goal in GOALS.items():
        times = [timed(base + args.split()) for _ in range(runs)]
        med = statistics.median(times)
        print(f"tfdoctor {args}: median {med:.3f} s over {runs} runs; goal {goal} s; ratio {med / goal:.2f}")
    rss = peak_rss_mib(base + ["check", "--quick", "--json"])
    ratio = rss / MEMORY_GOAL_MIB
    print(f"tfdoctor check --quick peak RSS: {rss:.1f} MiB; goal {MEMORY_GOAL_MIB} MiB; ratio {ratio:.2f}")


if __name__ == "__main__":
    main()
