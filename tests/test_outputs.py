"""Where `report --output` and `--prometheus` write: a regular file is replaced atomically with the
mode it had (a new one with the umask's); a character device or FIFO such as /dev/stdout is written
through, never replaced; a target that cannot be written is refused before any work."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import ROOT, write_fake


def _report(*extra: str, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ if env is None else env)
    env.setdefault("PYTHONPATH", str(ROOT))
    return subprocess.run([sys.executable, "-m", "tfdoctor", "report", "--quick", *extra], env=env,
                          cwd="/", timeout=300, **kwargs)


@pytest.fixture
def dev_stdout():
    """/dev/stdout as it was, put back should a regression replace it (as root it can)."""
    link = os.readlink("/dev/stdout")
    yield
    if not os.path.islink("/dev/stdout"):
        os.unlink("/dev/stdout")
        os.symlink(link, "/dev/stdout")


@pytest.mark.parametrize("target", ["/dev/stdout", "/proc/self/fd/1"])
def test_output_to_stdout_links_writes_through_a_pipe(dev_stdout, target: str) -> None:
    before = os.lstat(target)
    result = _report("--output", target, capture_output=True, text=True)
    assert result.returncode in (0, 1), result.stderr
    assert json.loads(result.stdout)["schema_version"]
    after = os.lstat(target)
    assert stat.S_ISLNK(after.st_mode) and (after.st_ino, after.st_dev) == (before.st_ino, before.st_dev)


def test_output_to_dev_stdout_redirected_to_a_file(dev_stdout, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    with open(out, "w") as fh:
        result = _report("--output", "/dev/stdout", stdout=fh, stderr=subprocess.PIPE, text=True)
    assert result.returncode in (0, 1), result.stderr
    assert json.loads(out.read_text())["schema_version"]
    assert os.path.islink("/dev/stdout")
    assert os.listdir("/dev").count("stdout") == 1 and not list(Path("/dev").glob(".stdout.*"))


def test_output_to_a_fifo_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = _report("--output", str(fifo), capture_output=True, text=True)
    reader.join(60)
    if reader.is_alive():  # nothing was written through: let the reader go
        with open(fifo, "wb"):
            pass
    assert result.returncode in (0, 1), result.stderr
    assert json.loads(got[0])["schema_version"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_output_to_a_fifo_nobody_reads_is_an_error_not_a_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result = _report("--output", str(fifo), capture_output=True, text=True)
    assert result.returncode == 2 and "nobody reads" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_replaced_file_keeps_its_mode_and_a_new_one_follows_the_umask(tmp_path: Path) -> None:
    private = tmp_path / "private.json"
    private.write_text("{}")
    private.chmod(0o600)
    assert _report("--output", str(private)).returncode in (0, 1)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600 and json.loads(private.read_text())["facts"]
    for umask, mode in ((0o077, 0o600), (0o022, 0o644), (0o002, 0o664)):
        fresh = tmp_path / f"fresh-{umask:o}.json"

        def set_umask(mask: int = umask) -> None:
            os.umask(mask)

        assert _report("--output", str(fresh), preexec_fn=set_umask).returncode in (0, 1)
        assert stat.S_IMODE(fresh.stat().st_mode) == mode, (oct(umask), oct(fresh.stat().st_mode))
    metrics = tmp_path / "tfdoctor.prom"
    metrics.write_text("")
    metrics.chmod(0o640)
    assert _report("--prometheus", str(metrics)).returncode in (0, 1)
    assert stat.S_IMODE(metrics.stat().st_mode) == 0o640 and metrics.read_text().startswith("# HELP")


@pytest.mark.parametrize("target", ["/proc/version", "/proc/new-report.json"])
def test_an_unwritable_target_is_refused_before_the_work(tmp_path: Path, bindir: Path, target: str) -> None:
    marker = tmp_path / "nvcc-was-run"
    write_fake(bindir, "nvcc", f"touch '{marker}'\nexit 1")
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}")
    result = _report("--output", target, env=env, capture_output=True, text=True)
    assert result.returncode == 2 and "--output" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not marker.exists(), "the probes ran before the output path was checked"
