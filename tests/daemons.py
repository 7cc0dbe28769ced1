"""Real daemons for the integration tests (Slurm, munge, Prometheus, node_exporter): started on
loopback from the test, every wait bounded, all stopped at the end, and nothing left behind.

A daemon's tool missing outside CI skips the test with the Debian package that provides it;
`.ci/run` installs them all (`apt-get install slurm-wlm munge prometheus prometheus-node-exporter`).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")


def need(tool: str, package: str) -> str:
    """The path of tool, or skip: outside CI a missing tool says how to install it."""
    found = shutil.which(tool) or next(
        (p for p in (f"/usr/sbin/{tool}", f"/usr/bin/{tool}") if os.access(p, os.X_OK)), None)
    if not found:
        pytest.skip(f"{tool} is not installed (Debian: apt-get install {package})")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what: str, probe: Callable[[], T | None], timeout: float, every: float = 0.25) -> T:
    """probe() until it returns something truthy; fail naming what was awaited after timeout s."""
    deadline = time.monotonic() + timeout
    last: T | None = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what} (last: {last!r})")


class Daemons:
    """Processes a test started: each in its own process group, stopped in reverse order."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)  # a path every daemon's command line (or cwd) holds
        self.procs: list[tuple[str, subprocess.Popen]] = []

    def start(self, name: str, argv: list[str], log: Path, **kwargs: object) -> subprocess.Popen:
        out = open(log, "ab")  # noqa: SIM115 - closed with the process in stop()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, cwd=self.marker, **kwargs)  # type: ignore[call-overload]
        out.close()
        self.procs.append((name, proc))
        return proc

    def check_running(self) -> None:
        for name, proc in self.procs:
            assert proc.poll() is None, f"{name} exited with status {proc.returncode}"

    def stop(self) -> None:
        """SIGTERM each (newest first), SIGKILL what is left after 15 s, then check that no process
        whose command line or working directory is under the marker survives."""
        for _name, proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for _name, proc in reversed(self.procs):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        self.procs.clear()
        try:
            wait_for("the daemons' processes to go", lambda: not self.leftovers(), 15)
        except AssertionError:
            raise AssertionError(f"left behind: {self.leftovers()}") from None

    def leftovers(self) -> list[str]:
        """Processes (other than this test's own) whose command line or cwd mention the marker."""
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                raw = Path(f"/proc/{entry}/cmdline").read_bytes()
                cmd = raw.replace(b"\0", b" ").decode(errors="replace")
                cwd = os.readlink(f"/proc/{entry}/cwd")
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z" and (self.marker in cmd or cwd.startswith(self.marker)):
                found.append(f"{entry}: {cmd.strip()[:200]}")
        return found
