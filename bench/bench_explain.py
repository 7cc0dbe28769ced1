"""Time `tfdoctor explain` on large logs (not a test): streamed, bounded memory, MB/s and ratios.

Logs built (SIZE_MB each, default 20):
- typical: a training log whose every line is distinct and timestamped, as real ones are: TensorFlow's
  absl lines, Keras progress and epoch lines, user prints, each with its own timestamp
  and numbers, with the real corpus (tests/data/explain/*.txt, about 1 % of the bytes) spread through it;
- cjk: the typical log with its training lines written in Chinese, as a script's own prints are (no trigger
  word in them, but the CJK text that normalising reads: tfdoctor/logs/lines.py);
- adversarial: every line a near match, holding the trigger words of a signature or value reader (so
  the cheap pass must hand it on) but not what its detailed pattern needs, distinct and timestamped;
- corpus-repeated: the real corpus repeated (a log that repeats its messages);
- corpus-renumbered: the real corpus repeated, each number of three or more digits another of its length
  each time (a log that repeats its messages with new values);
- all-lines-unique: the corpus lines each made unique by a counter (nothing repeats, every line real);
- single-line: one line of SIZE_MB without a newline.
Each runs three times (the median is printed) through the real CLI (`python -m tfdoctor explain FILE
--json`) in a fresh child, whose
start-up is measured apart (`explain` of a one-line file) and subtracted; printed: wall time, MB/s,
exit code, the child's peak RSS, and the ratios typical/adversarial and typical/corpus-repeated.
Usage: python bench/bench_explain.py [SIZE_MB] [NAME...]
"""

from __future__ import annotations

import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
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


def _stamp(i: int) -> bytes:
    """A distinct absl-style timestamp for line i."""
    s = i // 1000
    return b"2024-05-%02d %02d:%02d:%02d.%06d" % (1 + s // 86400 % 28, s // 3600 % 24, s // 60 % 60, s % 60,
                                                  i % 1000 * 997 % 1000000)


# The bulk of a training log: what TensorFlow, Keras and a training script print while it trains.
_TRAINING = (
    b"%s: I tensorflow/core/framework/local_rendezvous.cc:404] Local rendezvous is aborting with status: "
    b"OUT_OF_RANGE: End of sequence [[{{node IteratorGetNext_%d}}]] step %d",
    b"%d/1875 [==============================] - ETA: %ds - loss: 0.%04d - accuracy: 0.%04d",
    b"%s: I tensorflow/core/kernels/data/shuffle_dataset_op.cc:422] Filling up shuffle buffer: %d of %d",
    b"Epoch %d/500",
    b"%s: W tensorflow/core/data/root_dataset.cc:286] Optimization loop failed: CANCELLED: Operation %d",
    b"[%s] step %d: train_loss=%d.%04d lr=%de-05 examples/sec=%d",
    b"%s INFO trainer.py:%d saving checkpoint to runs/exp%d/ckpt-%d",
    b"%d/1875 [==============================] - %ds %dms/step - loss: 0.%04d - val_loss: 0.%04d",
)


def _training_line(rng: random.Random, i: int) -> bytes:
    form = _TRAINING[i % len(_TRAINING)]
    n = form.count(b"%")
    args: list[object] = [_stamp(i)] if form.startswith((b"%s", b"[%s]")) else []
    args += [rng.randrange(1, 2000) for _ in range(n - len(args))]
    return form % tuple(args)


def build_typical(path: Path, size_mb: int) -> int:
    """Training output, every line distinct; the corpus (~1 % of the bytes) spread evenly through it."""
    return _training_log(path, size_mb, random.Random(20), _training_line)


# A training script's own prints in Chinese (epoch, loss, accuracy, saving, learning rate, timing).
_CJK_TRAINING = (
    "第 %d 轮训练，损失为 0.%04d，准确率 0.%04d",
    "数据加载完成，共 %d 个样本，用时 %d 秒",
    "正在保存模型到目录 runs/exp%d/ckpt-%d",
    "学习率调整为 %de-05，批大小 %d",
)


def _cjk_line(rng: random.Random, i: int) -> bytes:
    """Two lines in three the script's own prints in Chinese, the third TensorFlow's or Keras's."""
    if i % 3 == 0:
        return _training_line(rng, i)
    form = _CJK_TRAINING[i % len(_CJK_TRAINING)]
    return (form % tuple(rng.randrange(1, 9999) for _ in range(form.count("%")))).encode()


def build_cjk(path: Path, size_mb: int) -> int:
    """The typical log, its own prints in Chinese."""
    return _training_log(path, size_mb, random.Random(23), _cjk_line)


def _training_log(path: Path, size_mb: int, rng: random.Random, line: Callable[[random.Random, int], bytes]
                  ) -> int:
    corpus = _lines()
    target, written, i, c = size_mb * 2**20, 0, 0, 0
    every = max(1, target // sum(len(x) + 1 for x in corpus))  # the corpus about once in SIZE_MB
    with open(path, "wb") as fh:
        while written < target:
            if i % every == 0 and c < len(corpus):
                row = corpus[c] + b"\n"
                c += 1
            else:
                row = line(rng, i) + b"\n"
            fh.write(row)
            written += len(row)
            i += 1
    return written


# Words the value readers look for (besides the signatures' anchors), fixed here so that the
# adversarial input is the same whatever the engine's version.
_VALUE_WORDS = ("version", "driver", "nvidia-smi", "nvcc", "cudnn", "python", "tensorflow", "tf", "==",
                "successfully installed", "is_cuda_build", "cuda_version", "compute_capabilities", "device",
                "name", "gpu", "capability", "memory", "nvrm", "release", "platform", "installed from",
                "gpu model", "wsl", "microsoft", "windows", "linux", "conda", "docker",
                "cuda_visible_devices",
                ".so", ".dll", "ubuntu", "nvidia", "cuda", "kernel module", "driver version", "-cp")


def _near_misses() -> list[bytes]:
    """For every anchor of a signature and every value word, a line holding it but not the rest of
    its pattern."""
    sys.path.insert(0, str(ROOT))
    from tfdoctor.logs import evidence as ev

    words = sorted({a for s in ev.SIGNATURES for a in s.anchors} | set(_VALUE_WORDS))
    fillers = (b"was seen near step %d but nothing failed here, value %d",
               b"%d: the word appears in a user's print, not in an error (%d)",
               b"(%d) -- logged %d times by the data pipeline")
    return [w.encode() + b" " + f for w in words for f in fillers]


def build_adversarial(path: Path, size_mb: int) -> int:
    rng = random.Random(21)
    rows = _near_misses()
    target, written, i = size_mb * 2**20, 0, 0
    with open(path, "wb") as fh:
        while written < target:
            row = _stamp(i) + b": W " + rows[i % len(rows)] % (rng.randrange(1 << 30), i) + b"\n"
            fh.write(row)
            written += len(row)
            i += 1
    return written


def build_repeated(path: Path, size_mb: int) -> int:
    block = b"\n".join(_lines()) + b"\n"
    target, written = size_mb * 2**20, 0
    with open(path, "wb") as fh:
        while written < target:
            fh.write(block)
            written += len(block)
    return written


def build_renumbered(path: Path, size_mb: int) -> int:
    rng = random.Random(22)
    number = re.compile(rb"\d{3,}")
    block = _lines()
    target, written = size_mb * 2**20, 0
    with open(path, "wb") as fh:
        while written < target:
            for line in block:
                row = number.sub(lambda m: b"%d" % rng.randrange(10 ** (len(m[0]) - 1), 10 ** len(m[0])),
                                 line)
                fh.write(row + b"\n")
                written += len(row) + 1
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


REPEAT = 3  # runs of each log; the median is printed

BUILDERS = {
    "typical": build_typical,
    "cjk": build_cjk,
    "adversarial": build_adversarial,
    "corpus-repeated": build_repeated,
    "corpus-renumbered": build_renumbered,
    "all-lines-unique": build_unique,
    "single-line": build_one_line,
}


def main() -> None:
    size_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    names = sys.argv[2:] or list(BUILDERS)
    speed: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        start_file = Path(tmp) / "start.log"
        start_file.write_bytes(b"hello\n")
        start = statistics.median(run(start_file)[0] for _ in range(REPEAT))
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"start-up (explain of one line): {start:.2f} s, subtracted below; load average {load:.1f} "
              f"on {os.cpu_count()} CPUs")
        for name in names:
            path = Path(tmp) / f"{name}.log"
            nbytes = BUILDERS[name](path, size_mb)
            runs = [run(path) for _ in range(REPEAT)]
            elapsed = statistics.median(r[0] for r in runs)
            rc, peak_kib = runs[0][1], max(r[2] for r in runs)
            mb = nbytes / 2**20
            work = elapsed - start
            speed[name] = mb / max(work, 1e-3)
            rate = f"{speed[name]:7.1f} MB/s" if work > 0.1 else "  (start-up noise)"
            print(f"{name:<17} {mb:6.1f} MB  {elapsed:6.2f} s  {rate}  exit {rc}  "
                  f"peak RSS {peak_kib / 1024:.0f} MiB")
            path.unlink()
    if "typical" in speed and "adversarial" in speed:
        print(f"typical / adversarial: {speed['typical'] / speed['adversarial']:.2f}x (target <= 3)")
    if "typical" in speed and "corpus-repeated" in speed:
        print(f"typical / corpus-repeated: {speed['typical'] / speed['corpus-repeated']:.2f}x")


if __name__ == "__main__":
    main()
