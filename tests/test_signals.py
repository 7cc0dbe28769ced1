"""However tfdoctor ends, no process of its run survives and no partial file is left.

A full check runs the real TensorFlow worker on the CPU through `--python WRAPPER`, a shell script
that first starts a grandchild in a session of its own (`setsid sleep`), as a helper that daemonizes
would, then execs the real interpreter. The test marks the run's environment and afterwards looks
for any process still carrying the mark: the worker, the probes' commands, the setsid sleepers.
SIGTERM (timeout(1), Slurm, Kubernetes), SIGHUP, SIGINT and SIGQUIT arrive at several points: while
tfdoctor starts, just after the worker started, and a second later while it imports TensorFlow and
works (a whole worker run takes a few seconds on the CPU); the same through the Python API in a
child process. Lean on purpose: about a dozen runs, each cut short.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from conftest import ROOT, write_fake

POINTS = {"starting": None, "worker started": 0.3, "worker busy": 1.0}  # busy: importing, building


def _marked(mark: str) -> list[str]:
    """The processes whose environment carries the mark: "pid cmdline" each."""
    needle = f"TFDOCTOR_TEST_RUN={mark}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                if needle not in fh.read().split(b"\0"):
                    continue
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                cmdline = fh.read().replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{name} {cmdline}")
        except OSError:
            continue
    return found


def _worker_seen(mark: str) -> bool:
    return any("worker.py" in p for p in _marked(mark))


@pytest.fixture(scope="module")
def wrapper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An interpreter that leaves a setsid grandchild behind each time it starts."""
    bindir = tmp_path_factory.mktemp("wrapper")
    script = f"setsid sleep 600 </dev/null >/dev/null 2>&1 &\nexec '{sys.executable}' \"$@\""
    return write_fake(bindir, "python", script)


def _start(argv: list[str], mark: str, cwd: Path) -> subprocess.Popen:
    env = dict(os.environ, TFDOCTOR_TEST_RUN=mark)
    env.setdefault("PYTHONPATH", str(ROOT))

    def no_core() -> None:  # SIGQUIT's default action dumps core
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        # the run's signals at their defaults, however the test runner was started (nohup ignores SIGHUP,
        # a shell's background job SIGINT and SIGQUIT, and a child inherits what is ignored)
        for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)

    return subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=no_core)


def _signal_at(child: subprocess.Popen, mark: str, point: str, signum: int) -> tuple[int, str]:
    """Send signum at the point; the child's exit status and stderr once it ended."""
    delay = POINTS[point]
    started = (lambda: len(_marked(mark)) > 1) if delay is None else (lambda: _worker_seen(mark))
    deadline = time.monotonic() + 120
    while not started():  # "starting": the first command tfdoctor runs (--python is checked first)
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the run never got there"
        time.sleep(0.02)
    time.sleep(delay or 0)
    assert child.poll() is None, "the run ended before the signal"
    child.send_signal(signum)
    _, err = child.communicate(timeout=60)
    return child.returncode, err.decode(errors="replace")


def _assert_nothing_survives(mark: str) -> None:
    deadline = time.monotonic() + 5
    while (left := _marked(mark)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for line in left:  # do not leave them to the next test, then fail
        try:
            os.kill(int(line.split()[0]), signal.SIGKILL)
        except OSError:
            pass
    assert not left, f"processes of the run survived it: {left}"


CLI_CASES = [
    ("starting", signal.SIGTERM, "report"),
    ("worker started", signal.SIGTERM, "check"),
    ("worker started", signal.SIGHUP, "report"),
    ("worker started", signal.SIGINT, "check"),
    ("worker started", signal.SIGQUIT, "report"),
    ("worker busy", signal.SIGTERM, "report"),
    ("worker busy", signal.SIGHUP, "check"),
]


@pytest.mark.parametrize("point, signum, command", CLI_CASES)
def test_cli_takes_its_processes_with_it(tmp_path: Path, wrapper: Path, point: str, signum: int,
                                         command: str) -> None:
    mark = uuid.uuid4().hex
    out = tmp_path / "out"
    out.mkdir()
    argv = [sys.executable, "-m", "tfdoctor", command, "--python", str(wrapper)]
    argv += ["--json"] if command == "check" else ["--output", str(out / "report.json")]
    code, err = _signal_at(_start(argv, mark, tmp_path), mark, point, signum)
    _assert_nothing_survives(mark)
    assert code == 128 + signum, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert list(out.iterdir()) == []  # no report, no temporary file


@pytest.mark.parametrize("point, signum", [
    ("worker started", signal.SIGTERM),
    ("worker started", signal.SIGHUP),
    ("worker started", signal.SIGINT),
    ("worker busy", signal.SIGQUIT),
])
def test_api_takes_its_processes_with_it(tmp_path: Path, wrapper: Path, point: str, signum: int) -> None:
    """`tfdoctor.check()` in a program that leaves the signals at their defaults: the program ends
    as it would have without tfdoctor: killed by the signal."""
    mark = uuid.uuid4().hex
    code = f"import tfdoctor; tfdoctor.check(python={str(wrapper)!r})"
    status, err = _signal_at(_start([sys.executable, "-c", code], mark, tmp_path), mark, point, signum)
    _assert_nothing_survives(mark)
    assert status == -signum, err  # Python ends an uncaught KeyboardInterrupt by SIGINT too


@pytest.mark.parametrize("api", [False, True])
def test_setsid_grandchildren_do_not_outlive_a_finished_run(tmp_path: Path, wrapper: Path, api: bool) -> None:
    mark = uuid.uuid4().hex
    argv = ([sys.executable, "-c", f"import tfdoctor; tfdoctor.check(quick=True, python={str(wrapper)!r})"]
            if api else [sys.executable, "-m", "tfdoctor", "check", "--quick", "--python", str(wrapper)])
    child = _start(argv, mark, tmp_path)
    _, err = child.communicate(timeout=120)
    assert child.returncode in (0, 1), err
    _assert_nothing_survives(mark)
