"""Fuzz every parser and loader with mutations of the recorded real inputs under tests/data.

Each target gets mutated inputs (bytes flipped, cut, repeated, spliced with hostile tokens: digit
runs past int()'s 4,300-digit limit, 400-digit floats, NaN/Infinity, deep nesting, control
characters, 64 KB lines) and, for saved reports, values of the wrong type put anywhere in the
tree. It counts exceptions (anything but the parser's documented refusal) and outputs that are not
strict JSON; both must be 0. Not a timed test; prints the figures.

Targets: nvidia-smi banner and XML, nvcc, os-release, /proc driver version, ldconfig, build_info,
the compat loader on mutated TOML, report loading through `check --from` (in-process), privacy
redact/anonymize, fleet loading, and explain (in-process, through the command line).
Usage: python bench/bench_fuzz.py [TOTAL] [SEED]   (TOTAL defaults to 12,000)
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tfdoctor import cli, compat  # noqa: E402
from tfdoctor.privacy import anonymize, redact_report, redact_text  # noqa: E402
from tfdoctor.probes.libraries import parse_ldconfig  # noqa: E402
from tfdoctor.probes.nvcc import parse_nvcc_version  # noqa: E402
from tfdoctor.probes.nvidia_smi import SmiParseError, parse_banner, parse_query_xml  # noqa: E402
from tfdoctor.probes.system import parse_driver_version, parse_os_release  # noqa: E402
from tfdoctor.probes.tensorflow import parse_build_info  # noqa: E402

DATA = ROOT / "tests" / "data"
HOSTILE = [
    "9" * 4400, "1" * 5000 + ".5", "9" * 400 + ".0", "1e400", "-1e400", "NaN", "Infinity", "-Infinity",
    "[" * 3000, "{" * 3000, '{"a":' * 2000, "\x00", "\x1b]0;pwned\x07", "\x1b[2J", "\ufffd", "\ud7ff",
    "a." * 2000, " " * 5000, "|   0  " + " " * 4000, "NVIDIA-SMI " + "1." * 2000, "<?xml" * 500,
    "password=" * 300, "https://u:p@" * 300, "fe80::" * 500, "MiB" + "9" * 4400, "\n" * 2000, "\t" * 2000,
    "Cuda compilation tools, release " + "9" * 4400, "V" + "9" * 4400 + ".1.1", "-----BEGIN PRIVATE KEY-----",
    "é" * 1000, "🙂" * 500, "\r\n" * 500, "=" * 3000, '"' * 3000, "'" * 3000, "\\" * 3000,
]


def mutate(rng: random.Random, text: str) -> str:
    """One to four random edits of text."""
    for _ in range(rng.randint(1, 4)):
        if not text:
            text = rng.choice(HOSTILE)
            continue
        i = rng.randrange(len(text) + 1)
        j = min(len(text), i + rng.randint(0, 200))
        op = rng.randrange(8)
        if op == 0:
            text = text[:i] + rng.choice(HOSTILE) + text[i:]
        elif op == 1:
            text = text[:i] + text[j:]
        elif op == 2:
            text = text[:i] + text[i:j] * rng.randint(2, 300) + text[j:]
        elif op == 3:
            noise = "".join(chr(rng.randrange(0, 0x2FF)) for _ in range(rng.randint(1, 20)))
            text = text[:i] + noise + text[i:]
        elif op == 4:
            text = text[:i] + rng.choice(HOSTILE) + text[j:]
        elif op == 5 and any(c.isdigit() for c in text[i:j]):
            digits = rng.choice(["9" * 4400, "9" * 400, "0", "-1", "1e400"])
            k = next(k for k in range(i, j) if text[k].isdigit())
            text = text[:k] + digits + text[k + 1:]
        elif op == 6:
            other = rng.choice(SEEDS_TEXT)
            k = rng.randrange(len(other) + 1)
            text = text[:i] + other[k:k + rng.randint(1, 500)] + text[j:]
        else:
            text = text[:i] + text[i:j][::-1] + text[j:]
    return text


WRONG = [None, True, 0, -1, 10 ** 50, 1.5, math.nan, math.inf, "", "x", "9" * 4400, [], [1, "a"], {},
         {"a": None}, [[[[[]]]]], {"gpus": 5}, "<script>", "\x1b[31mred"]


def mutate_tree(rng: random.Random, data: Any, depth: int = 0) -> Any:
    """A copy of a JSON tree with a few values replaced by values of the wrong type."""
    if isinstance(data, dict) and data:
        data = dict(data)
        key = rng.choice(list(data))
        if rng.random() < 0.35 or depth > 6:
            data[key] = rng.choice(WRONG)
        elif rng.random() < 0.1:
            del data[key]
        else:
            data[key] = mutate_tree(rng, data[key], depth + 1)
        return data
    if isinstance(data, list) and data:
        data = list(data)
        i = rng.randrange(len(data))
        data[i] = mutate_tree(rng, data[i], depth + 1) if rng.random() < 0.7 else rng.choice(WRONG)
        return data
    return rng.choice(WRONG)


def strict(text: str) -> bool:
    """Whether text is strict JSON (no NaN, no Infinity)."""
    def refuse(const: str) -> None:
        raise ValueError(const)

    try:
        json.loads(text, parse_constant=refuse)
    except ValueError:
        return False
    return True


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def read_all(pattern: str) -> list[str]:
    return [p.read_text(errors="replace") for p in sorted(DATA.glob(pattern))]


LDCONFIG = (
    "536 libs found in cache `/etc/ld.so.cache'\n"
    "\tlibcudnn.so.9 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.9\n"
    "\tlibcuda.so.1 (libc6,x86-64, OS ABI: Linux 3.2.0) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
    "\tlibcublas.so.12 (libc6,x86-64) => /usr/local/cuda/lib64/libcublas.so.12\n"
)
BUILD_INFO = (
    "import collections\nbuild_info = collections.OrderedDict([('cpu_compiler', '/usr/bin/gcc'), "
    "('cuda_compute_capabilities', ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']), "
    "('cuda_version', '12.5.1'), ('cudnn_version', '9'), ('is_cuda_build', True), ('is_rocm_build', False), "
    "('is_tensorrt_build', False)])\n"
)
SEEDS = {
    "banner": read_all("nvidia-smi/*.txt"),
    "xml": read_all("nvidia-smi/*.xml"),
    "nvcc": read_all("nvcc/*.txt"),
    "os-release": read_all("system/os-release-*.txt"),
    "proc-driver": read_all("system/driver-version-*.txt"),
    "ldconfig": [LDCONFIG],
    "build_info": [BUILD_INFO],
    "privacy": read_all("explain/*.txt")[:20] + read_all("nvidia-smi/*.txt")[:3],
}
SEEDS_TEXT = [t for texts in SEEDS.values() for t in texts]


class Tally:
    def __init__(self) -> None:
        self.inputs: Counter[str] = Counter()
        self.exceptions: Counter[str] = Counter()
        self.non_json: Counter[str] = Counter()
        self.slowest: dict[str, float] = {}
        self.examples: dict[str, str] = {}

    def run(self, target: str, fn: Callable[[], Any], allowed: tuple[type[BaseException], ...] = ()) -> Any:
        self.inputs[target] += 1
        start = time.perf_counter()
        try:
            return fn()
        except allowed:
            return None
        except Exception as exc:  # noqa: BLE001 - what the fuzzer is here to count
            self.exceptions[target] += 1
            self.examples.setdefault(target, f"{type(exc).__name__}: {str(exc)[:160]}")
            return None
        finally:
            self.slowest[target] = max(self.slowest.get(target, 0.0), time.perf_counter() - start)


def parser_targets(rng: random.Random, tally: Tally, count: int) -> None:
    fns: dict[str, tuple[Callable[[str], Any], tuple[type[BaseException], ...]]] = {
        "banner": (parse_banner, (SmiParseError,)),
        "xml": (parse_query_xml, (SmiParseError,)),
        "nvcc": (parse_nvcc_version, ()),
        "os-release": (parse_os_release, ()),
        "proc-driver": (parse_driver_version, ()),
        "ldconfig": (parse_ldconfig, ()),
        "build_info": (parse_build_info, (ValueError,)),
    }
    for name, (fn, allowed) in fns.items():
        for _ in range(count):
            text = mutate(rng, rng.choice(SEEDS[name]))
            result = tally.run(name, lambda fn=fn, text=text: fn(text), allowed)
            if result is not None:
                try:
                    json.dumps(result, allow_nan=False)  # facts must be JSON-able as they are
                except (TypeError, ValueError):
                    tally.non_json[name] += 1


def privacy_targets(rng: random.Random, tally: Tally, count: int, report: dict) -> None:
    for _ in range(count):
        text = mutate(rng, rng.choice(SEEDS["privacy"]))
        out = tally.run("redact_text", lambda text=text: redact_text(text))
        if out is not None and not isinstance(out, str):
            tally.non_json["redact_text"] += 1
        tree = mutate_tree(rng, report)
        tree = mutate_tree(rng, tree) if rng.random() < 0.5 else tree
        if isinstance(tree, dict):
            tree.setdefault("facts", {})
            if isinstance(tree["facts"], dict):
                tree["facts"]["log"] = text
        for name, fn in (("redact_report", redact_report), ("anonymize", anonymize)):
            def call(fn: Callable[[Any], Any] = fn, tree: Any = tree) -> Any:
                return fn(tree) if isinstance(tree, dict) else redact_report(tree)

            result = tally.run(name, call)
            if result is not None:
                from tfdoctor.jsonsafe import dumps

                if not strict(dumps(result)):
                    tally.non_json[name] += 1


def compat_targets(rng: random.Random, tally: Tally, count: int, work: Path) -> None:
    files = {p.name: p.read_text() for p in sorted((ROOT / "compat").glob("*.toml"))}
    for n in range(count):
        folder = work / f"compat-{n}"
        folder.mkdir()
        victim = rng.choice(sorted(files))
        for name, text in files.items():
            (folder / name).write_text(mutate(rng, text) if name == victim else text, errors="replace")
        tally.run("compat", lambda folder=folder: compat.parse_matrix(folder), (compat.CompatError,))
        shutil.rmtree(folder)


def report_targets(rng: random.Random, tally: Tally, count: int, report: dict, work: Path) -> None:
    path = work / "report.json"
    base = json.dumps(report)
    for _ in range(count):
        if rng.random() < 0.6:
            text = json.dumps(mutate_tree(rng, report), allow_nan=True, default=str)
        else:
            text = mutate(rng, base)
        path.write_text(text, errors="replace")
        args = rng.choice([["check", "--from", str(path), "--json"], ["report", "--from", str(path)],
                           ["check", "--from", str(path), "--markdown"], ["report", "--from", str(path),
                                                                        "--anonymize"]])
        result = tally.run("check --from", lambda args=args: run_cli(args))
        if result is None:
            continue
        code, out, err = result
        if code not in (0, 1, 2):
            tally.exceptions["check --from"] += 1
            tally.examples.setdefault("check --from", f"exit {code}: {err.strip()[:200]}")
        elif code in (0, 1) and "--markdown" not in args and not strict(out):
            tally.non_json["check --from"] += 1


def fleet_targets(rng: random.Random, tally: Tally, count: int, report: dict, work: Path) -> None:
    folder = work / "fleet"
    folder.mkdir()
    good = folder / "good.json"
    good.write_text(json.dumps(report))
    bad = folder / "bad.json"
    for _ in range(count):
        text = json.dumps(mutate_tree(rng, report), default=str) if rng.random() < 0.6 else mutate(
            rng, json.dumps(report))
        bad.write_text(text, errors="replace")
        result = tally.run("fleet", lambda: run_cli(["fleet", "--json", str(good), str(bad)]))
        if result is None:
            continue
        code, out, err = result
        if code not in (0, 1, 2):
            tally.exceptions["fleet"] += 1
            tally.examples.setdefault("fleet", f"exit {code}: {err.strip()[:200]}")
        elif out and not strict(out):
            tally.non_json["fleet"] += 1


def explain_targets(rng: random.Random, tally: Tally, count: int, work: Path) -> None:
    path = work / "pasted.txt"
    for _ in range(count):
        path.write_text(mutate(rng, rng.choice(SEEDS["privacy"])), errors="replace")
        result = tally.run("explain", lambda: run_cli(["explain", "--json", str(path)]))
        if result is None:
            continue
        code, out, err = result
        if code not in (0, 1, 2):
            tally.exceptions["explain"] += 1
            tally.examples.setdefault("explain", f"exit {code}: {err.strip()[:200]}")
        elif code in (0, 1) and not strict(out):
            tally.non_json["explain"] += 1


def main() -> None:
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 12_000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 11
    rng = random.Random(seed)
    code, out, err = run_cli(["report", "--quick", "--json"])
    report = json.loads(out)
    tally = Tally()
    started = time.monotonic()
    # Shares of `unit`: 7 parsers x 1, privacy 1 (3 calls each), compat 2, --from 6, fleet 2, explain 2.
    unit = max(1, total // 22)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        parser_targets(rng, tally, unit)
        privacy_targets(rng, tally, 3 * unit // 3, report)
        compat_targets(rng, tally, 2 * unit, work)
        report_targets(rng, tally, 6 * unit, report, work)
        fleet_targets(rng, tally, 2 * unit, report, work)
        explain_targets(rng, tally, 2 * unit, work)
    elapsed = time.monotonic() - started
    print(f"{'target':<16} {'inputs':>7} {'exceptions':>11} {'non-JSON':>9} {'slowest':>9}")
    for target in tally.inputs:
        print(f"{target:<16} {tally.inputs[target]:>7} {tally.exceptions[target]:>11} "
              f"{tally.non_json[target]:>9} {tally.slowest[target]:>8.3f}s")
    inputs = sum(tally.inputs.values())
    print(f"{'total':<16} {inputs:>7} {sum(tally.exceptions.values()):>11} {sum(tally.non_json.values()):>9}"
          f"   ({elapsed:.0f} s, seed {seed})")
    for target, example in tally.examples.items():
        print(f"  first {target} failure: {example}")


if __name__ == "__main__":
    main()
