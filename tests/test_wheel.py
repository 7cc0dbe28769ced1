"""The wheel carries the compat data: build it from a copy of the source, install it (not editable) into
a clean venv, and run the installed `tfdoctor matrix` from outside the repository.

Slow (an isolated build and a venv, both fetching from the package registry), so there is exactly one
such test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import ROOT


def _run(
    argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 600
) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=timeout)


def test_wheel_installs_and_answers_from_its_own_data(tmp_path: Path) -> None:
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("tfdoctor", "compat"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TFDOCTOR_COMPAT_DIR", "VIRTUAL_ENV")
    }

    built = _run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "dist"), str(src)],
        tmp_path,
        env,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    wheels = list((tmp_path / "dist").glob("tfdoctor-*.whl"))
    assert len(wheels) == 1, wheels
    names = set(zipfile.ZipFile(wheels[0]).namelist())
    for data in ("meta.toml", "tensorflow.toml", "cuda.toml", "gpus.toml", "architectures.toml"):
        assert f"tfdoctor/compat_data/{data}" in names
    assert (
        "tfdoctor/schema/report.schema.json" in names
        or not (src / "tfdoctor/schema/report.schema.json").exists()
    )
    missing = sorted(
        p.relative_to(src).as_posix()
        for p in (src / "tfdoctor").rglob("*.py")
        if p.relative_to(src).as_posix() not in names
    )
    assert not missing, f"modules left out of the wheel (add their package to pyproject.toml): {missing}"

    venv = tmp_path / "venv"
    made = _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    assert made.returncode == 0, made.stderr
    installed = _run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            str(wheels[0]),
        ],
        tmp_path,
        env,
    )
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    result = _run(
        [str(venv / "bin" / "tfdoctor"), "matrix", "--json", "--driver", "535.104.05"], outside, env, 120
    )
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    by_tf = {row["tensorflow"]: row for row in rows}
    assert rows[0]["tensorflow"] == "2.4" and rows[-1]["tensorflow"] == "2.21"
    assert by_tf["2.15"] == {"tensorflow": "2.15", "cuda": "12.2", "min_driver": "535.54.03", "caveat": None}
    assert by_tf["2.16"]["min_driver"] == "545.23.06" and "minor-version" in by_tf["2.16"]["caveat"]

    where = _run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "from tfdoctor.compat import load_matrix; print(load_matrix().location)",
        ],
        outside,
        env,
        120,
    )
    assert where.returncode == 0, where.stderr
    location = Path(where.stdout.strip())
    assert location.name == "compat_data" and str(location).startswith(str(venv)), location

    bad = _run([str(venv / "bin" / "tfdoctor"), "matrix", "--tensorflow", "9.9"], outside, env, 120)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("tfdoctor: unknown TensorFlow release")
