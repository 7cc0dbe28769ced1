"""How much does a full `tfdoctor check` cost over the bare TensorFlow work it must do anyway?

Runs, alternately, `python -m tfdoctor check --json` and a bare script doing the same TensorFlow
work (import, list devices, one matmul, one short Keras fit), then prints each median and the
ratio of medians. Goal: ratio <= 1.15. Usage: python bench/bench_check.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BARE = """
import numpy as np
import tensorflow as tf
import keras
tf.config.list_physical_devices()
a = tf.random.stateless_normal((256, 192), seed=(1, 2))
b = tf.random.stateless_normal((192, 320), seed=(3, 4))
tf.matmul(a, b).numpy()
rng = np.random.RandomState(0)
x = rng.rand(32, 16, 16, 3).astype("float32")
y = (x.mean(axis=(1, 2)) @ rng.rand(3, 4).astype("float32")).astype("float32")
model = keras.Sequential([keras.Input((16, 16, 3)), keras.layers.Conv2D(16, 3, activation="relu"),
                          keras.layers.Flatten(), keras.layers.Dense(4)])
model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
model.fit(x, y, batch_size=32, epochs=5, verbose=0, shuffle=False)
"""


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          timeout=600)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):  # check exits 1 when something failed (e.g. no GPU): still a run
        raise SystemExit(f"{argv[:4]} exited with {proc.returncode}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each command (default 5)")
    parser.add_argument("--python", default=sys.executable, help="interpreter with TensorFlow")
    args = parser.parse_args()
    env = dict(os.environ)
    env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{env['PYTHONPATH']}" if env.get("PYTHONPATH") else str(ROOT)
    check = [args.python, "-m", "tfdoctor", "check", "--json", "--python", args.python]
    bare = [args.python, "-c", BARE]
    timed(bare, env)  # warm the page cache once, untimed
    results: dict[str, list[float]] = {"check": [], "bare": []}
    for i in range(args.runs):
        order = (("check", check), ("bare", bare)) if i % 2 == 0 else (("bare", bare), ("check", check))
        for name, argv in order:
            results[name].append(timed(argv, env))
    med = {name: statistics.median(times) for name, times in results.items()}
    for name, times in results.items():
        print(f"{name:6} median {med[name]:.2f} s   runs: " + " ".join(f"{t:.2f}" for t in times))
    ratio = med["check"] / med["bare"]
    print(f"ratio check/bare = {ratio:.3f} (goal <= 1.15)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
