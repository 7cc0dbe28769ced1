"""What does redacting a hostile field cost next to an ordinary log of the same size?

For each pathological text (secret-like spots packed as densely as possible, and just under the
density past which a text is redacted whole), prints the median seconds per MB of `redact_text`
and its ratio to an ordinary TensorFlow log. Goal: every ratio <= 5 (no field inside the 16 MiB
input cap costs more than a few seconds). Usage: python bench/bench_redaction.py [--runs N] [--mb M]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tfdoctor.privacy import redact_text  # noqa: E402

LOG_LINE = ("I0000 00:00:1700000000.000000 1234 gpu_device.cc:2022] Created device /job:localhost/"
            "replica:0/task:0/device:GPU:0 with 78000 MB memory: -> device: 0, name: NVIDIA H100, compute"
            " capability: 9.0\n")
UNITS = ["@", "a:b@", "password=ab ", "token ", "-p x ", "-----END PRIVATE KEY-----", "https://Tok0123456789abc@",
         "machine password ab ", "/t/abcdefghij/", "-----BEGIN ", "key=ab "]


def texts(mb: float) -> dict[str, str]:
    size = int(mb * (1 << 20))
    out = {"ordinary log": LOG_LINE * (size // len(LOG_LINE))}
    for unit in UNITS:
        out[f"dense {unit!r}"] = unit * (size // len(unit))
        sparse = unit + "x" * max(1, 34 - len(unit)) + " "  # just under one spot per 32 characters
        out[f"sparse {unit!r}"] = sparse * (size // len(sparse))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mb", type=float, default=2.0)
    args = parser.parse_args()
    base = None
    for name, text in texts(args.mb).items():
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            redact_text(text)
            times.append(time.perf_counter() - start)
        per_mb = statistics.median(times) / (len(text) / (1 << 20))
        base = base or per_mb
        print(f"{name:40} {per_mb:7.3f} s/MB  ratio {per_mb / base:5.2f}")


if __name__ == "__main__":
    main()
