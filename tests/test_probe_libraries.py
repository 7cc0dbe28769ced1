"""The libraries probe with the real ldconfig, the real venv's pip nvidia wheels, and real tmp dirs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tfdoctor.probes import Context
from tfdoctor.probes import libraries as lib

LDCONFIG = shutil.which("ldconfig") or next(
    (p for p in ("/sbin/ldconfig", "/usr/sbin/ldconfig") if os.access(p, os.X_OK)), None
)
needs_ldconfig = pytest.mark.skipif(LDCONFIG is None, reason="no ldconfig (not Linux)")
# The venv running these tests is the one with tensorflow[and-cuda]: its own nvidia wheels.
PIP_DIRS = sorted(str(p) for base in map(Path, sys.path) for p in base.glob("nvidia/*/lib") if p.is_dir())
needs_wheels = pytest.mark.skipif(not PIP_DIRS, reason="no pip nvidia wheels in this interpreter")


def ctx(**env: str) -> Context:
    return Context(python=sys.executable, env={"PATH": os.environ.get("PATH", ""), **env}, timeout=60)


def lib_dir(tmp_path: Path, *names: str) -> Path:
    """A real directory holding files named like libraries (the edge: no CUDA install here)."""
    d = tmp_path / "cuda-lib64"
    d.mkdir()
    for name in names:
        (d / name).write_bytes(b"\x7fELF")
    return d


@pytest.mark.parametrize(
    "name, expected",
    [
        ("libcudart.so.12", True),
        ("libcuda.so.1", True),
        ("libcudnn_ops.so.9", True),
        ("libcublasLt.so.12", True),
        ("libnccl.so.2", True),
        ("libcudart.so", True),
        ("libnvinfer.so.8.6.1", True),
        ("libcudart_static.a", False),
        ("libcufftw.so.11", False),
        ("libnvrtc.so.12", False),
        ("libz.so.1", False),
    ],
)
def test_is_cuda_lib(name, expected):
    assert lib.is_cuda_lib(name) is expected


@needs_ldconfig
def test_parse_real_ldconfig_output_counts_every_entry():
    out = subprocess.run(
        [LDCONFIG, "-p"], capture_output=True, text=True, timeout=60, env={"LC_ALL": "C"}
    ).stdout
    header = re.match(r"(\d+) libs found", out)
    assert header, out[:200]
    entries = lib.parse_ldconfig(out)
    assert len(entries) == int(header.group(1))
    assert all(os.path.isabs(path) for _, path in entries)


def test_parse_ldconfig_skips_junk():
    text = (
        "3 libs found in cache `/etc/ld.so.cache'\n\tlibz.so.1 (libc6,x86-64) => /lib/libz.so.1\nnonsense\n"
    )
    assert lib.parse_ldconfig(text) == [("libz.so.1", "/lib/libz.so.1")]


@needs_ldconfig
@needs_wheels
def test_real_ld_cache_built_from_the_venv_wheels(tmp_path):
    """Build a real ld cache with the real ldconfig over the wheels' real ELF libraries."""
    conf, cache = tmp_path / "ld.so.conf", tmp_path / "ld.so.cache"
    conf.write_text("\n".join(PIP_DIRS) + "\n")
    built = subprocess.run(
        [LDCONFIG, "-X", "-C", str(cache), "-f", str(conf)], capture_output=True, timeout=120
    )
    if built.returncode != 0 or not cache.exists():
        pytest.skip(f"ldconfig cannot build a private cache here: {built.stderr[:200]!r}")
    facts = lib.probe_libraries(ctx(), ld_cache=str(cache))
    assert facts["ld_cache_error"] is None
    cudart = next(Path(d) / "libcudart.so.12" for d in PIP_DIRS if (Path(d) / "libcudart.so.12").exists())
    assert str(cudart) in facts["loadable"]["libcudart.so.12"]
    assert not any(k for k in facts["loadable"] if not lib.is_cuda_lib(k))


@needs_wheels
def test_pip_wheels_and_versions_of_the_target(tmp_path):
    facts = lib.probe_libraries(ctx())
    assert facts["error"] is None
    assert set(facts["pip_nvidia_dirs"]) == set(PIP_DIRS)
    expected = {
        d.metadata["Name"].lower().replace("_", "-"): d.version
        for d in metadata.distributions()
        if d.metadata["Name"].lower().replace("_", "-").startswith("nvidia-")
    }
    assert facts["pip_nvidia"] == expected


@needs_wheels
def test_ld_library_path_shadows_the_pip_wheels(tmp_path):
    shadow = lib_dir(tmp_path, "libcudart.so.12", "libcublas.so.12", "libfoo.so.1", "libcudart.so.11.0")
    facts = lib.probe_libraries(ctx(LD_LIBRARY_PATH=f"::{shadow}:{tmp_path / 'missing'}"))
    assert facts["ld_library_path"] == [str(shadow), str(tmp_path / "missing")]
    names = {s["soname"]: s for s in facts["shadowing"]}
    assert set(names) == {"libcudart.so.12", "libcublas.so.12"}
    assert names["libcudart.so.12"]["first"] == str(shadow / "libcudart.so.12")
    assert names["libcudart.so.12"]["pip"] in {str(Path(d) / "libcudart.so.12") for d in PIP_DIRS}
    assert facts["loadable"]["libcudart.so.12"][0] == str(shadow / "libcudart.so.12")
    assert str(shadow / "libcudart.so.11.0") in facts["loadable"]["libcudart.so.11.0"]
    assert "libfoo.so.1" not in facts["loadable"]


@needs_wheels
def test_ld_library_path_naming_the_wheel_dir_itself_is_not_shadowing():
    facts = lib.probe_libraries(ctx(LD_LIBRARY_PATH=os.pathsep.join(PIP_DIRS)))
    assert facts["shadowing"] == []


def test_missing_target_python_is_an_error_fact(tmp_path):
    facts = lib.probe_libraries(Context(python=str(tmp_path / "no-python"), env={"PATH": ""}, timeout=5))
    assert "could not list pip nvidia wheels" in facts["error"] and "not found" in facts["error"]
    assert facts["pip_nvidia"] == {} and facts["shadowing"] == []


def test_target_that_is_not_python(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'I am not Python'\n")
    fake.chmod(0o755)
    facts = lib.probe_libraries(Context(python=str(fake), env={"PATH": "/usr/bin:/bin"}, timeout=5))
    assert "printed no result" in facts["error"]


@needs_ldconfig
def test_unreadable_ld_cache_is_an_error_fact(tmp_path):
    bad = tmp_path / "bad.cache"
    bad.write_text("garbage")
    facts = lib.probe_libraries(ctx(), ld_cache=str(bad))
    assert "exited with status" in facts["ld_cache_error"]


def _fake_wheel(site: Path, dist: str, version: str, libs: list[str], pkg: str) -> None:
    """A pip-installed nvidia wheel as pip leaves it: the files and a dist-info whose RECORD lists them."""
    lib_dir = site / "nvidia" / pkg / "lib"
    lib_dir.mkdir(parents=True, exist_ok=True)
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    record = [f"nvidia/{pkg}/lib/{name},," for name in libs] + [f"nvidia/{pkg}/__init__.py,,"]
    for name in libs:
        (lib_dir / name).write_bytes(b"\x7fELF")
    (info / "RECORD").write_text("\n".join(record) + "\n")


def test_cu11_and_cu12_wheels_are_both_reported_with_their_lib_dirs(tmp_path):
    """cu11 and cu12 wheels of one library unpack into the same nvidia/<x>/lib: each RECORD says whose."""
    site = tmp_path / "site"
    cudnn8 = ["libcudnn.so.8", "libcudnn_ops_infer.so.8"]
    _fake_wheel(site, "nvidia-cudnn-cu11", "8.6.0.163", cudnn8, "cudnn")
    _fake_wheel(site, "nvidia-cudnn-cu12", "9.3.0.75", ["libcudnn.so.9", "libcudnn_ops.so.9"], "cudnn")
    _fake_wheel(site, "nvidia-cuda-runtime-cu11", "11.8.89", ["libcudart.so.11.0"], "cuda_runtime")
    _fake_wheel(site, "nvidia-cublas", "13.0.0.19", ["libcublas.so.13"], "cu13")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    pip = lib.read_pip_nvidia(str(venv / "bin" / "python"), {"PYTHONPATH": str(site)}, 60)
    assert pip["error"] is None
    wheels = {w["name"]: w for w in pip["wheels"]}
    cudnn_dir = str(site / "nvidia" / "cudnn" / "lib")
    assert wheels["nvidia-cudnn-cu11"] == {"name": "nvidia-cudnn-cu11", "version": "8.6.0.163", "cuda": "11",
                                           "lib_dirs": [cudnn_dir],
                                           "libraries": cudnn8}
    cu12 = wheels["nvidia-cudnn-cu12"]
    assert cu12["cuda"] == "12" and cu12["lib_dirs"] == [cudnn_dir]
    assert wheels["nvidia-cudnn-cu12"]["libraries"] == ["libcudnn.so.9", "libcudnn_ops.so.9"]
    assert wheels["nvidia-cuda-runtime-cu11"]["libraries"] == ["libcudart.so.11.0"]
    assert wheels["nvidia-cublas"]["cuda"] is None  # CUDA 13 wheels carry no -cuNN suffix
    assert pip["dists"] == {"nvidia-cudnn-cu11": "8.6.0.163", "nvidia-cudnn-cu12": "9.3.0.75",
                            "nvidia-cuda-runtime-cu11": "11.8.89", "nvidia-cublas": "13.0.0.19"}
    assert cudnn_dir in pip["dirs"]


def test_cuda_major_of_wheel_names():
    assert lib.cuda_major_of("nvidia-cudnn-cu11") == "11"
    assert lib.cuda_major_of("nvidia-nccl-cu12") == "12"
    assert lib.cuda_major_of("nvidia-ml-py") is None
    bare = lib.wheel_facts({"name": "nvidia-nccl-cu12", "version": "2.21.5", "lib_dirs": None})
    assert bare["lib_dirs"] == [] and bare["libraries"] == [] and bare["cuda"] == "12"


@needs_wheels
def test_real_wheels_of_this_interpreter_have_lib_dirs():
    facts = lib.probe_libraries(ctx())
    wheels = {w["name"]: w for w in facts["pip_nvidia_wheels"]}
    runtime = next(w for name, w in wheels.items() if name.startswith("nvidia-cuda-runtime-cu"))
    assert runtime["lib_dirs"] and all(d in facts["pip_nvidia_dirs"] for d in runtime["lib_dirs"])
    assert any(n.startswith("libcudart.so.") for n in runtime["libraries"])
