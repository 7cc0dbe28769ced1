"""Time `tfdoctor explain` on 100 MB logs (not a test): streamed, bounded memory, a few seconds.

Three logs are built: the real corpus in tests/data/explain/ repeated (a typical log repeats its
messages; timestamps are stripped before lines are compared), the corpus lines each made unique
by a counter (the worst case: nothing repeats), and one 100 MB line without a newline. Each runs
through the real CLI (`python -m tfdoctor explain FILE --json`) in a fresh child; wall time, MB/s,
exit code and the child's peak RSS are printed. Usage: python bench/bench_explain.py [SIZE_MB]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "explain"

# Measured in a grandchild so that the peak RSS is explain's alone.
TIMER = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "p = subprocess.run([sys.executable, '-m', 'tfdoctor', 'explain', sys.argv[1], '--json'],"
    " stdout=subprocess.DEVNULL)\n"
    "print(time.perf_counter() - t, p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def _lines() -> list[bytes]:
    return [ln for p in sorted(CORPUS.glob("*.txt")) for ln in p.read_bytes().splitlines()]


def build_repeated(path: Path, size_mb: int) -> int:
    block = b"\n".join(_lines()) + b"\n"
    target, written = size_mb * 2**20, 0
    with open(path, "wb") as fh:
        while written < target:
            fh.write(block)
            written += len(block)
    return written


def build_unique(path: Path, size_mb: int) -> int:
    lines = _lines()
    target, written, i = size_mb * 2**20, 0, 0
    with open(path, "wb") as fh:
        while written < target:
            row = lines[i % len(lines)] + b" #%d\n" % i
            fh.write(row)
            written += len(row)
            i += 1
    return written


def build_one_line(path: Path, size_mb: int) -> int:
    with open(path, "wb") as fh:
        for _ in range(size_mb):
            fh.write(b"x" * 2**20)
    return size_mb * 2**20


def run(path: Path) -> tuple[float, int, int]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", TIMER, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=True,
    ).stdout.split()
    return float(out[0]), int(out[1]), int(out[2])


def main() -> None:
    size_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    builders = (
        ("corpus-repeated", build_repeated),
        ("all-lines-unique", build_unique),
        ("single-line", build_one_line),
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name, builder in builders:
            path = Path(tmp) / f"{name}.log"
            nbytes = builder(path, size_mb)
            elapsed, rc, peak_kib = run(path)
            mb = nbytes / 2**20
            print(
                f"{name:<17} {mb:6.1f} MB  {elapsed:6.2f} s  {mb / elapsed:6.1f} MB/s  exit {rc}  "
                f"peak RSS {peak_kib / 1024:.0f} MiB"
            )
            path.unlink()


if __name__ == "__main__":
    main()
