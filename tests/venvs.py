"""Real venvs for `tfdoctor fix` tests, built fast: one TensorFlow install shared by hard links.

`clone(source, dest)` makes a new venv (its own bin/python, pyvenv.cfg) whose site-packages holds
hard links to every file of the source venv's site-packages: no copy, no download, seconds for
TensorFlow's 20 000 files. It is still a real, independent environment: pip never rewrites a file in
place (it unlinks and writes anew, and uninstalling moves files away), so what a test installs or
removes in the clone leaves the source as it was. `base(version)` builds (once per test session) a
venv with one TensorFlow release from PyPI, through pip's shared wheel cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

PY = f"python{sys.version_info[0]}.{sys.version_info[1]}"
SKIP = ("__editable__", "tfdoctor", "_tfdoctor")  # this checkout's editable install stays out of clones


def site_packages(venv: Path) -> Path:
    return venv / "lib" / PY / "site-packages"


def python(venv: Path) -> str:
    return str(venv / "bin" / "python")


def this_venv() -> Path:
    """The venv these tests run in (the README's: tensorflow[and-cuda] installed)."""
    return Path(sys.prefix)


def clone(source: Path, dest: Path, leave_out: tuple[str, ...] = ()) -> Path:
    """A new venv at dest with source's site-packages hard-linked in (minus names starting with
    leave_out, and this checkout's editable install)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(dest)], check=True, timeout=120)
    src, dst = site_packages(source), site_packages(dest)
    for entry in os.scandir(src):
        if entry.name.startswith(SKIP + leave_out):
            continue
        target = dst / entry.name
        if entry.is_dir(follow_symlinks=False):
            shutil.copytree(entry.path, target, copy_function=os.link, symlinks=True)
        else:
            os.link(entry.path, target)
    return dest


def pip(venv: Path, *args: str, timeout: float = 1200) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python(venv), "-m", "pip", "--disable-pip-version-check", "-q", *args],
                          check=True, timeout=timeout, capture_output=True, text=True)


def freeze(venv: Path) -> str:
    return subprocess.run([python(venv), "-m", "pip", "freeze", "--all"], check=True, timeout=120,
                          capture_output=True, text=True).stdout


def base(folder: Path, *requirements: str) -> Path:
    """A fresh venv with these requirements from PyPI (pip's wheel cache shared with every test)."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=300)
    pip(folder, "install", *requirements)
    return folder
