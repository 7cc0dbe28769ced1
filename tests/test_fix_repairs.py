"""`tfdoctor fix` on real environments: real venvs, real wheels from PyPI, repaired on the CPU and
proven by the check that follows (and, for the activation hook, by a check after re-activation).

Each case is one venv: a hard-linked clone (tests/venvs.py) of this test venv's TensorFlow (the
README's tensorflow[and-cuda]) or of a base venv built once per module (TensorFlow 2.15.1; 2.12.1 with
its CUDA 11 wheels), then the one piece the case varies, installed with --no-deps. pip's wheel cache
is shared by all. Every venv is deleted after its case. The table of repairs (before -> after, seconds)
is printed at the end of the module.

The checks run with PATH cleared of any CUDA toolkit (a folder holding `nvcc`): the machine these
tests describe is CI's fresh one, where a developer's system toolkit would add an unrelated finding.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import venvs

from tfdoctor.checks import remedies as rm

TF_LATEST = importlib.metadata.version("tensorflow")  # the README's install: tensorflow[and-cuda]
PATH = os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep)
                       if d and not os.path.exists(os.path.join(d, "nvcc")))
ENV = {**os.environ, "PATH": PATH, "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"}
REPAIRS: list[tuple[str, str, str, float]] = []  # case, before, after, seconds


@pytest.fixture(scope="module", autouse=True)
def table(request):
    yield
    writer = request.config.pluginmanager.get_plugin("terminalreporter")
    if writer is None or not REPAIRS:
        return
    with request.config.pluginmanager.getplugin("capturemanager").global_and_fixture_disabled():
        writer.write_line("")
        writer.write_line("tfdoctor fix repairs (before -> after, wall time of `tfdoctor fix --yes`):")
        for case, before, after, seconds in REPAIRS:
            writer.write_line(f"  {case:<34} {before:<44} -> {after:<10} {seconds:6.1f} s")


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fix")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def tf215(work):
    base = venvs.base(work / "base-2.15", "tensorflow==2.15.1")
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def tf212(work):
    base = venvs.base(work / "base-2.12", "tensorflow==2.12.1", *rm.CU11_WHEELS)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def clone(work, request):
    made: list[Path] = []

    def make(source: Path, *no_deps: str) -> Path:
        venv = venvs.clone(source, work / request.node.name.replace("[", "-").strip("]"))
        made.append(venv)
        if no_deps:
            venvs.pip(venv, "install", "--no-deps", *no_deps)
        return venv

    yield make
    for venv in made:
        shutil.rmtree(venv, ignore_errors=True)


def tfdoctor(*args: str, env: dict[str, str] | None = None, timeout: float = 900) -> Any:
    return subprocess.run([sys.executable, "-m", "tfdoctor", *args], capture_output=True, text=True,
                          env=env or ENV, timeout=timeout, cwd=str(Path(__file__).parent))


def check(venv: Path, activate: bool = False) -> dict:
    """`tfdoctor check --json` of the venv; with activate, from a shell that sourced its activate."""
    argv = [sys.executable, "-m", "tfdoctor", "check", "--json", "--python", venvs.python(venv)]
    if activate:
        argv = ["bash", "-c", '. "$1" && shift && exec "$@"', "bash", str(venv / "bin" / "activate"), *argv]
    res = subprocess.run(argv, capture_output=True, text=True, env=ENV, timeout=900)
    return json.loads(res.stdout)


def failing(report: dict) -> dict[str, dict]:
    return {f["id"]: f for f in report["findings"] if f["status"] in ("warn", "fail")}


def repair(case: str, venv: Path, expect: set[str], activate: bool = False) -> tuple[dict, str]:
    """Run `tfdoctor fix --yes` on venv: it must target exactly `expect`, say each is gone, exit 0,
    and an independent check afterwards must agree."""
    start = time.monotonic()
    res = tfdoctor("fix", "--yes", "--python", venvs.python(venv))
    seconds = time.monotonic() - start
    out = res.stdout
    assert res.returncode == 0, out + res.stderr
    for fid in expect:
        assert f"{fid}: fail → gone" in out or f"{fid}: warn → gone" in out, out
    listed = out.split("Root causes to repair:")[1].split("Plan (")[0]
    assert {line.split()[1].rstrip(":") for line in listed.strip().splitlines()} == expect, out
    after = check(venv, activate)
    assert not set(failing(after)) & expect, failing(after)
    REPAIRS.append((case, ", ".join(sorted(expect)), "gone", seconds))
    return after, out


def test_tf_latest_without_its_cudnn_wheel(clone):
    venv = clone(venvs.this_venv())
    venvs.pip(venv, "uninstall", "-y", "nvidia-cudnn-cu12")
    broken = venvs.freeze(venv)
    before = failing(check(venv))
    assert before["cudnn.missing"]["caused_by"] == "driver.missing"  # no GPU here: moot, yet broken
    after, out = repair(f"TF {TF_LATEST} without nvidia-cudnn-cu12", venv, {"cudnn.missing"})
    assert "pip install 'nvidia-cudnn-cu12>=9" in out
    cudnn = next(f for f in after["findings"] if f["id"].startswith("cudnn."))
    assert cudnn["id"] == "cudnn.ok" and "nvidia-cudnn-cu12" in cudnn["title"]
    # --undo gives the environment back exactly as it was before the repair
    undo = tfdoctor("fix", "--undo", "--yes", "--python", venvs.python(venv))
    assert undo.returncode == 0 and "nvidia-cudnn-cu12: " in undo.stdout, undo.stdout + undo.stderr
    assert venvs.freeze(venv) == broken


def test_keras_2_under_tf_2_16_or_newer(clone):
    venv = clone(venvs.this_venv(), "keras==2.15.0")
    _, out = repair(f"TF {TF_LATEST} + keras 2.15.0", venv, {"tensorflow.conflicting-installs"})
    assert f"pip install tensorflow=={TF_LATEST} 'keras>=3'" in out
    assert venvs.freeze(venv).count(f"tensorflow=={TF_LATEST}\n") == 1


def test_keras_3_under_tf_2_15(tf215, clone):
    venv = clone(tf215)
    venvs.pip(venv, "install", "keras==3.0.5")  # as users upgraded it, with its dependencies
    repair("TF 2.15.1 + keras 3.0.5", venv, {"tensorflow.conflicting-installs"})
    assert "keras==2.15.0\n" in venvs.freeze(venv) and "tensorflow==2.15.1\n" in venvs.freeze(venv)


def test_numpy_2_under_tf_2_15(tf215, clone):
    venv = clone(tf215, "numpy==2.0.2")
    repair("TF 2.15.1 + numpy 2.0.2", venv, {"python.numpy-abi-mismatch"})
    assert "numpy==1." in venvs.freeze(venv)


def test_protobuf_tf_2_15_rejects(tf215, clone):
    venv = clone(tf215, "protobuf==3.19.6")  # older than TF 2.15's generated code needs
    assert "python.protobuf-mismatch" in failing(check(venv))
    repair("TF 2.15.1 + protobuf 3.19.6", venv, {"python.protobuf-mismatch"})
    assert "protobuf==3.19.6" not in venvs.freeze(venv)


def test_tensorflow_and_tensorflow_cpu(clone):
    venv = clone(venvs.this_venv(), f"tensorflow-cpu=={TF_LATEST}")
    assert {"tensorflow.conflicting-installs", "tensorflow.cpu-only-build"} <= set(failing(check(venv)))
    _, out = repair(f"tensorflow + tensorflow-cpu {TF_LATEST}", venv, {"tensorflow.conflicting-installs",
                                                                       "tensorflow.cpu-only-build"})
    frozen = venvs.freeze(venv)
    assert "tensorflow-cpu" not in frozen and f"tensorflow=={TF_LATEST}\n" in frozen


def test_tf_2_12_cuda_11_wheels_reached_by_an_activation_hook(tf212, clone):
    venv = clone(tf212)
    before = failing(check(venv))
    assert "cannot load the installed" in before["cuda.libraries-missing"]["title"]
    after, out = repair("TF 2.12.1 + CUDA 11 wheels, no LD_LIBRARY_PATH", venv,
                        {"cuda.libraries-missing", "cudnn.missing"}, activate=True)
    activate = (venv / "bin" / "activate").read_text()
    assert activate.count("# >>> tfdoctor fix >>>") == 1 and "LD_LIBRARY_PATH" in activate
    loaded = after["facts"]["runtime"]["loaded_libraries"]
    cudart = [lib for lib in loaded if lib["name"] == "libcudart"]
    assert cudart and cudart[0]["path"].startswith(str(venvs.site_packages(venv) / "nvidia"))
    # without re-activation nothing changed for this shell: the check says so, as before
    assert "cuda.libraries-missing" in failing(check(venv))


def test_a_failing_step_restores_the_snapshot(clone, tmp_path):
    """The plan uninstalls both TensorFlows, then its install finds no such version on the index
    (an empty one): the snapshot comes back, `pip freeze` identical, TensorFlow importable."""
    venv = clone(venvs.this_venv(), f"tensorflow-cpu=={TF_LATEST}")
    frozen = venvs.freeze(venv)
    index = tmp_path / "empty-index"
    index.mkdir()
    env = {k: v for k, v in ENV.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_INDEX_URL=index.as_uri(), PIP_NO_CACHE_DIR="1")
    start = time.monotonic()
    res = tfdoctor("fix", "--yes", "--python", venvs.python(venv), env=env)
    seconds = time.monotonic() - start
    assert res.returncode == 1, res.stdout + res.stderr
    assert "→ pip uninstall -y tensorflow tensorflow-cpu" in res.stdout
    assert "Failed:" in res.stdout and "No matching distribution" in res.stdout
    assert "Restored the snapshot" in res.stdout
    assert venvs.freeze(venv) == frozen
    imported = subprocess.run([venvs.python(venv), "-c", "import tensorflow as tf; print(tf.__version__)"],
                              capture_output=True, text=True, timeout=300, env=ENV)
    assert imported.stdout.strip() == TF_LATEST
    REPAIRS.append(("a pin the index does not have", "tensorflow.conflicting-installs", "restored", seconds))


def test_interrupt_restores_and_a_second_fix_refuses(clone):
    """SIGINT in the middle of the install restores the snapshot; meanwhile a second `fix` on the
    same environment refuses at once (the lock)."""
    venv = clone(venvs.this_venv(), f"tensorflow-cpu=={TF_LATEST}")
    frozen = venvs.freeze(venv)
    argv = [sys.executable, "-m", "tfdoctor", "fix", "--yes", "--python", venvs.python(venv)]
    first = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV)
    seen = []
    try:
        assert first.stdout is not None
        for line in first.stdout:
            seen.append(line)
            if line.startswith("→ pip install"):
                break
        second = tfdoctor("fix", "--yes", "--python", venvs.python(venv), timeout=120)
        assert second.returncode == 1 and "another `tfdoctor fix`" in second.stderr, second.stderr
        time.sleep(2)
        first.send_signal(signal.SIGINT)
        rest, _ = first.communicate(timeout=600)
    finally:
        if first.poll() is None:
            first.kill()
    out = "".join(seen) + rest
    assert first.returncode == 1, out
    assert "interrupted" in out and "Restored the snapshot" in out, out
    assert venvs.freeze(venv) == frozen


def listing(venv: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(venv)): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in venv.rglob("*")}


def test_dry_run_check_and_report_change_nothing(clone):
    venv = clone(venvs.this_venv(), "keras==2.15.0")
    frozen = venvs.freeze(venv)
    files = listing(venv)
    for args in (("check",), ("check", "--json"), ("report", "--json")):
        assert tfdoctor(*args, "--python", venvs.python(venv)).returncode in (0, 1)
    assert listing(venv) == files
    dry = tfdoctor("fix", "--dry-run", "--python", venvs.python(venv))
    assert dry.returncode == 1 and "Dry run: nothing was changed." in dry.stdout
    assert f"$ {venvs.python(venv)} -m pip install tensorflow=={TF_LATEST} 'keras>=3'" in dry.stdout
    assert not (venv / ".tfdoctor").exists() and venvs.freeze(venv) == frozen
    no_tty = tfdoctor("fix", "--python", venvs.python(venv))
    assert no_tty.returncode == 2 and "--yes" in no_tty.stderr
    undo = tfdoctor("fix", "--undo", "--yes", "--python", venvs.python(venv))
    assert undo.returncode == 1 and "No snapshot" in undo.stdout
