"""Bounded time and memory whatever the outside world prints.

Each parser meets 64 KB pathological lines (the shapes that made a regex backtrack for a minute)
and must stay under 0.1 s; every child's output is capped while it streams; a grandchild that
escapes with setsid dies with tfdoctor.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Callable

import pytest
from conftest import DATA, run_cli, write_fake

from tfdoctor import proc
from tfdoctor.jsonsafe import InputError, loads, read_capped
from tfdoctor.privacy import anonymize, redact_text
from tfdoctor.probes.libraries import parse_ldconfig
from tfdoctor.probes.nvcc import parse_nvcc_version
from tfdoctor.probes.nvidia_smi import SmiParseError, parse_banner, parse_query_xml
from tfdoctor.probes.system import parse_driver_version, parse_os_release
from tfdoctor.probes.tensorflow import parse_build_info

N = 65536
LIMIT = 0.1


def _cost(fn: Callable[[str], object], text: str) -> float:
    """The best of three runs (a loaded machine adds noise, never removes it)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        try:
            fn(text)
        except (ValueError, SmiParseError):
            pass  # refusing the input is fine; taking long is not
        best = min(best, time.perf_counter() - start)
    return best


def _line(prefix: str, unit: str, suffix: str = "") -> str:
    return prefix + unit * ((N - len(prefix) - len(suffix)) // len(unit)) + suffix


BANNER = (DATA / "nvidia-smi" / "banner-565.57.01-h100-sxm-x8.txt").read_text()
PATHOLOGICAL = {
    "banner": (parse_banner, [
        _line("| 0 ", " ", "x"),  # the cubic GPU-row regex
        _line("|   0  NVIDIA A100", " ", "On |"),
        _line("NVIDIA-SMI ", "1.", " Driver"),
        _line("NVIDIA-SMI ", " "),
        _line("", "1", "MiB"),
        _line("", "Default ", "|"),
        BANNER + _line("|  0  ", "NVIDIA ", "On | 00000000:18:00.0 Off |"),
        "NVIDIA-SMI 565.57.01 Driver Version: 565.57.01 CUDA Version: 12.7\n"
        + _line("| ", "9", " x On | 0000:01:00.0 "),
    ]),
    "xml": (parse_query_xml, [
        _line("", "<?xml"),
        "<nvidia_smi_log><gpu><temperature><gpu_temp>" + "9" * (N - 80)
        + " C</gpu_temp></temperature></gpu></nvidia_smi_log>",
        _line("<nvidia_smi_log><gpu>", "<a>", ""),
        _line("<nvidia_smi_log><driver_version>", "1.", "</driver_version></nvidia_smi_log>"),
    ]),
    "nvcc": (parse_nvcc_version, [
        _line("Cuda compilation tools, release ", "1"),
        _line("Cuda compilation tools,", " "),
        _line("", "V1."),
        _line("", "V", "1.1.1"),
        _line("", "Cuda compilation tools, release 1"),
    ]),
    "os-release": (parse_os_release, [
        _line("PRETTY_NAME=\"", "\""),
        _line("", "="),
        _line("A=", "'\"\\"),
    ]),
    "proc-driver": (parse_driver_version, [
        _line("NVRM version: NVIDIA UNIX x86_64 Kernel Module", " "),
        _line("", "Kernel Module "),
        _line("Kernel Module for ", "x"),
        _line("Kernel Module ", "1"),
    ]),
    "ldconfig": (parse_ldconfig, [
        _line("\tlibcuda.so.1 (libc6,x86-64) => /x", " ", "y"),
        _line("", " => "),
        _line("\t", "a", " (b) => c"),
        _line("", "(libc6) "),
    ]),
    "build_info": (parse_build_info, [
        _line("", "a.", "a"),
        _line("x = 1", "+1"),
        _line("build_info = {", "'a': 1, ", "}"),
        _line("x = ", "("),
        _line("x = ", "-", "1"),
        "cuda_version_number = '" + "1" * (N - 30) + "'",
    ]),
    "redact_text": (redact_text, [
        "a." * 20000,
        _line("", "a."),
        _line("", "a:"),
        _line("", "@a:"),
        _line("", "key="),
        _line("", "--key "),
        _line("", "password="),
        _line("", "-eyJ"),
        _line("", "hf_"),
        _line("", "Bearer "),
        _line("", "-p x "),
        _line("", "-----BEGIN "),
        _line("https://", "a"),
        _line("", "'password': '"),
        _line("", "\"token\": \""),
    ]),
    "anonymize": (lambda text: anonymize({"environment": {"hostname": "gpu-node-417"}, "facts": {
        "system": {"hostname": "gpu-node-417", "user": "alicesmith", "home": "/home/alicesmith"},
        "collective": {"local_addresses": ["10.0.0.5", "fe80::1ff:fe23:4567:890a"]}}, "log": text}), [
        _line("", "a."),
        _line("", "fe80:"),
        _line("", "1.2.3.4:"),
        _line("", "gpu-node-417."),
        _line("", "GPU-"),
    ]),
    "report JSON": (loads, [
        _line("", "["),
        _line("[", "1" * 4400 + ","),
        _line("", "1e400,"),
    ]),
}


@pytest.mark.parametrize("parser, index", [(p, i) for p, (_, lines) in PATHOLOGICAL.items()
                                           for i in range(len(lines))])
def test_pathological_line_is_cheap(parser: str, index: int) -> None:
    fn, lines = PATHOLOGICAL[parser]
    text = lines[index]
    assert len(text) >= 40000
    cost = _cost(fn, text)
    assert cost < LIMIT, f"{parser} #{index}: {cost:.3f} s for {len(text)} characters"


def test_huge_numbers_never_raise_in_the_parsers() -> None:
    digits = "9" * 5000
    xml = (f"<nvidia_smi_log><attached_gpus>{digits}</attached_gpus><gpu><fb_memory_usage><total>{digits} MiB"
           f"</total></fb_memory_usage><temperature><gpu_temp>{'9' * 400} C</gpu_temp></temperature>"
           "</gpu></nvidia_smi_log>")
    parsed = parse_query_xml(xml)
    assert parsed["attached_gpus"] is None and parsed["gpus"][0]["memory_total_mib"] is None
    assert parsed["gpus"][0]["temperature_c"] is None  # not Infinity
    banner = BANNER.replace("|   0  NVIDIA H100", f"|   {digits}  NVIDIA H100", 1)
    parse_banner(banner)
    assert parse_nvcc_version(f"Cuda compilation tools, release {digits}.1, V{digits}.1.1") == {
        "version": None, "build": None}
    with pytest.raises(ValueError):
        parse_build_info(f"cuda_version_number = {digits}")


# --- child processes --------------------------------------------------------------------------------


def test_output_is_capped_while_it_streams() -> None:
    tracemalloc.start()
    try:
        res = proc.run(["sh", "-c", "head -c 200000000 /dev/zero; echo; echo LAST LINE"], timeout=120)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert res.ok
    assert res.dropped > 190_000_000
    assert len(res.stdout) <= proc.HEAD_BYTES + proc.TAIL_BYTES + 200
    assert res.stdout.rstrip().endswith("LAST LINE")  # the end is what matters (the result line)
    assert "bytes of output not kept" in res.stdout
    assert peak < 64 << 20, f"peak {peak >> 20} MiB"


def test_on_line_sees_each_line_as_it_arrives() -> None:
    seen: list[str] = []
    res = proc.run(["sh", "-c", "echo one; printf 'two\\r\\n'; head -c 200000 /dev/zero | tr '\\0' x; echo; "
                    "printf tail"], timeout=30, on_line=seen.append)
    assert res.ok
    assert seen[:2] == ["one", "two"]
    assert len(seen[2]) == proc.LINE_LIMIT and set(seen[2]) == {"x"}
    assert seen[3:] == ["tail"]

    def broken(line: str) -> None:
        raise RuntimeError("a display bug")

    assert proc.run(["sh", "-c", "echo a; echo b"], timeout=30, on_line=broken).stdout == "a\nb\n"


def test_max_bytes_stops_a_flood_quickly() -> None:
    start = time.monotonic()
    res = proc.run(["yes"], timeout=30, max_bytes=4096)
    assert time.monotonic() - start < 5
    assert res.output_limit and not res.ok and "printed far more" in res.describe()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.mark.parametrize("holds_pipe", [False, True])
def test_grandchild_that_setsids_away_dies_with_tfdoctor(bindir: Path, tmp_path: Path,
                                                         holds_pipe: bool) -> None:
    """Killed when tfdoctor exits, or at once when it keeps the command's output pipe open."""
    pids = tmp_path / "pids"
    redirect = "" if holds_pipe else " >/dev/null 2>&1 </dev/null"
    write_fake(bindir, "nvidia-smi", f"setsid sleep 300{redirect} & echo $! >> '{pids}'\n"
                                     "echo 'NVIDIA-SMI has failed because it could not communicate'\nexit 9")
    start = time.monotonic()
    result = run_cli("check", "--quick", "--json", "--only", "driver", path_prepend=bindir)
    assert time.monotonic() - start < 15
    assert result.returncode == 1, result.stderr
    assert json.loads(result.stdout)["facts"]["nvidia_smi"]["found"] is True
    recorded = [int(p) for p in pids.read_text().split()]
    assert recorded
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in recorded) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in recorded if _alive(p)] == [], "the setsid grandchild outlived tfdoctor"


def test_in_process_snippet_answers_like_the_child(tmp_path: Path) -> None:
    """The static TensorFlow facts read in-process (tfdoctor's own interpreter) equal the child's.

    Run from a neutral folder, as the CLI is: a test runner's own sys.path entries holding packages
    the snippets report would make a child see less, and the in-process path is then refused."""
    import subprocess
    import sys

    script = """
import json, sys
from tfdoctor import proc
from tfdoctor.probes.libraries import PIP_SNIPPET
from tfdoctor.probes.tensorflow import SNIPPET
out = []
for code in (SNIPPET, PIP_SNIPPET):
    here = proc.run_python(sys.executable, code, timeout=60)
    child = proc.run_python(sys.executable, code, timeout=60, in_process=False)
    out.append([here.argv[-1] == "<snippet>", child.argv[-1] != "<snippet>", here.stdout, child.stdout])
print(json.dumps(out))
"""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    for in_process, in_child, here, child in json.loads(done.stdout):
        assert in_process and in_child
        mine, theirs = (json.loads(out.split(" ", 1)[1]) for out in (here, child))
        if "distributions" in mine:
            norm = [sorted((n.lower().replace("_", "-"), v) for n, v in d["distributions"])
                    for d in (mine, theirs)]
            assert norm[0] == norm[1]
            mine.pop("distributions"), theirs.pop("distributions")
        if "dists" in mine:
            assert mine.pop("dists") == theirs.pop("dists")
        assert mine == theirs
    assert proc._holds_packages(str(tmp_path)) is False
    (tmp_path / "myproject.egg-info").mkdir()  # a checkout's own metadata changes nothing reported
    assert proc._holds_packages(str(tmp_path)) is False
    (tmp_path / "keras").mkdir()
    assert proc._holds_packages(str(tmp_path)) is True
    from tfdoctor.probes.tensorflow import SNIPPET

    other_env = dict(os.environ, TFDOCTOR_SOMETHING="1")
    assert proc.run_python(sys.executable, SNIPPET, timeout=60, env=other_env).argv[-1] != "<snippet>"


@pytest.mark.parametrize("size, limit", [(0, 64), (10, 64), (64, 64), (65, 64), (300_000, 1 << 20),
                                         (300_000, 100_000)])
def test_a_saved_report_is_read_whole_or_refused_from_a_file_or_a_pipe(tmp_path: Path, size: int,
                                                                       limit: int) -> None:
    """A regular file comes in one read; a pipe (`--from <(...)`) has no size and comes in parts."""
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    path = tmp_path / "r.json"
    path.write_bytes(data)
    read, write = os.pipe()

    def feed() -> None:
        with open(write, "wb") as pipe, contextlib.suppress(BrokenPipeError):  # refused: closed early
            pipe.write(data)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    for source in (str(path), f"/proc/self/fd/{read}"):
        if size <= limit:
            assert read_capped(source, limit) == data, source
        else:
            with pytest.raises(InputError, match="larger than"):
                read_capped(source, limit)
    os.close(read)
    writer.join(timeout=10)
    with pytest.raises(IsADirectoryError):
        read_capped(str(tmp_path), limit)
