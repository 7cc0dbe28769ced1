"""Time `tfdoctor explain` on a 100 MB log (not a test): streamed, bounded memory, a few seconds.

Builds the log from the real corpus in tests/data/explain/ repeated to the size asked, plus one
100 MB single-line file, runs the real CLI in a child process on each and prints wall time, MB/s
and the child's peak RSS. Usage: python bench/bench_explain.py [SIZE_MB]
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "explain"


def build_log(path: Path, size_mb: int) -> int:
    block = b"".join(p.read_bytes().rstrip(b"\n") + b"\n" for p in sorted(CORPUS.glob("*.txt")))
    target = size_mb * 1024 * 1024
    with open(path, "wb") as fh:
        written = 0
        while written < target:
            fh.write(block)
            written += len(block)
    return written


def build_one_line(path: Path, size_mb: int) -> int:
    chunk = b"x" * (1024 * 1024)
    with open(path, "wb") as fh:
        for _ in range(size_mb):
            fh.write(chunk)
    return size_mb * 1024 * 1024


def run(path: Path) -> tuple[float, int, int]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "tfdoctor", "explain", str(path), "--json"],
        capture_output=True,
        env=env,
        timeout=600,
    )
    elapsed = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, proc.returncode, peak_kib


def main() -> None:
    size_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    with tempfile.TemporaryDirectory() as tmp:
        for name, builder in (("corpus-repeated", build_log), ("single-line", build_one_line)):
            path = Path(tmp) / f"{name}.log"
            nbytes = builder(path, size_mb)
            elapsed, rc, peak_kib = run(path)
            print(
                f"{name:<16} {nbytes / 2**20:7.1f} MB  {elapsed:6.2f} s  {nbytes / 2**20 / elapsed:6.1f} MB/s"
                f"  exit {rc}  peak RSS (max over children so far) {peak_kib / 1024:.0f} MiB"
            )
            path.unlink()


if __name__ == "__main__":
    main()
