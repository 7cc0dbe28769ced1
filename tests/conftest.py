"""Shared test helpers: run the real CLI in a child process, and fake executables on PATH.

Fakes exist only at the edge (a driver, nvidia-smi, NVML cannot exist without a GPU); they
replay recorded real outputs kept under tests/data/ with their sources.
"""

from __future__ import annotations

import json
import os
import pty
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        return json.loads(self.stdout)


def run_cli(
    *args: str,
    env: dict | None = None,
    timeout: float = 600,
    stdin: str | None = None,
    path_prepend: Path | None = None,
) -> CliResult:
    """Run `python -m tfdoctor ARGS` as a user would, in a child process."""
    full_env = dict(os.environ if env is None else env)
    full_env.setdefault("PYTHONPATH", str(ROOT))
    if path_prepend is not None:
        full_env["PATH"] = f"{path_prepend}{os.pathsep}{full_env.get('PATH', '')}"
    proc = subprocess.run(
        [sys.executable, "-m", "tfdoctor", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        cwd=str(ROOT),
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def run_in_pty(*args: str, env: dict, timeout: float = 600) -> CliResult:
    """`python -m tfdoctor ARGS` with a pseudo-terminal as stdin and stdout: everything it drew, in
    order (stdout), and its stderr apart."""
    primary, secondary = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "tfdoctor", *args],
        stdin=secondary,
        stdout=secondary,
        stderr=subprocess.PIPE,
        cwd=str(ROOT),
        env=env,
    )
    os.close(secondary)
    chunks = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # EIO once the child has closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(primary)
    child.wait(timeout=60)
    err = child.stderr.read().decode("utf-8", "replace") if child.stderr else ""
    return CliResult(child.returncode, b"".join(chunks).decode("utf-8", "replace"), err)


def write_fake(bindir: Path, name: str, script: str) -> Path:
    """Create an executable `name` in bindir running the given shell script body."""
    bindir.mkdir(parents=True, exist_ok=True)
    path = bindir / name
    path.write_text("#!/bin/sh\n" + script + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def fake_replaying(bindir: Path, name: str, recorded: Path, exit_code: int = 0) -> Path:
    """A fake executable that prints a recorded real output file and exits with exit_code."""
    return write_fake(bindir, name, f"cat '{recorded}'\nexit {exit_code}")


@pytest.fixture
def bindir(tmp_path: Path) -> Path:
    d = tmp_path / "bin"
    d.mkdir()
    return d


@pytest.fixture(scope="session")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real venv with tfdoctor's light dependencies but no TensorFlow and no nvidia-ml-py."""
    venv = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "rich", "packaging"],
        check=True, timeout=600,
    )
    return python
