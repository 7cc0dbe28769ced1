"""What TensorFlow really loaded (/proc/self/maps of the worker) against what it was installed with.

The acceptance run is real: `tfdoctor check` with LD_LIBRARY_PATH naming a folder that holds a copy
of the pip wheel's libcudart, so the real TensorFlow worker maps the copy instead of the wheel's
file. Containers are judged on recorded facts of the shapes the worker reports.
"""

from __future__ import annotations

import os
import shutil
from importlib import metadata
from pathlib import Path

import pytest
from conftest import run_cli

from tfdoctor.checks import cuda
from tfdoctor.compat import load_matrix
from tfdoctor.model import Status


def _wheel_cudart() -> Path | None:
    try:
        dist = metadata.distribution("nvidia-cuda-runtime-cu12")
    except metadata.PackageNotFoundError:
        return None
    for rel in dist.files or []:
        if rel.name == "libcudart.so.12":
            return Path(str(dist.locate_file(rel)))
    return None


@pytest.fixture(scope="module")
def shadowed_run(tmp_path_factory) -> dict:
    wheel = _wheel_cudart()
    if wheel is None or not wheel.is_file():
        pytest.skip("needs tensorflow[and-cuda]'s nvidia-cuda-runtime-cu12 wheel (the README's test install)")
    folder = tmp_path_factory.mktemp("cuda-elsewhere")
    shutil.copy2(wheel, folder / "libcudart.so.12")
    env = dict(os.environ, LD_LIBRARY_PATH=str(folder))
    res = run_cli("check", "--json", env=env, timeout=300)
    assert res.returncode in (0, 1), res.stderr
    return {"report": res.json(), "folder": str(folder), "wheel": str(wheel)}


def test_the_worker_maps_the_copy_on_ld_library_path(shadowed_run):
    libs = shadowed_run["report"]["facts"]["runtime"]["loaded_libraries"]
    cudart = [lib for lib in libs if lib["name"] == "libcudart"]
    assert cudart, libs
    assert cudart[0]["path"] == os.path.join(shadowed_run["folder"], "libcudart.so.12")
    assert cudart[0]["dist"] is None and cudart[0]["soname"] == "libcudart.so.12"


def test_loaded_not_pip_names_the_copy_and_its_cause(shadowed_run):
    findings = {f["id"]: f for f in shadowed_run["report"]["findings"]}
    loaded = findings["cuda.loaded-not-pip"]
    assert loaded["status"] == "warn"  # same major: it works, but is not what TensorFlow was tested with
    assert "libcudart.so.12 from LD_LIBRARY_PATH" in loaded["title"]
    assert "nvidia-cuda-runtime-cu12" in loaded["title"]
    assert shadowed_run["folder"] in loaded["detail"] and "grep -Fvx" in loaded["fix"]
    shadow = findings["cuda.ld-library-path-shadowing"]
    assert shadow["status"] == "warn" and loaded["caused_by"] == "cuda.ld-library-path-shadowing"


def _facts(loaded, *, dists=None, ld_path=(), container=None, kernel=None, conda=None) -> dict:
    env = {"CONDA_PREFIX": conda} if conda else {}
    return {
        "runtime": {"ran": True, "loaded_libraries": loaded},
        "tensorflow": {"version": "2.21.0", "distributions": dists or {}, "env": env},
        "libraries": {"ld_library_path": list(ld_path), "pip_nvidia": {}},
        "system": {"container": container, "proc_driver_version": kernel, "platform": "linux"},
    }


def _lib(path: str, name: str, version: str | None, dist: str | None = None) -> dict:
    return {"path": path, "name": name, "soname": None, "version": version, "dist": dist,
            "dist_version": None, "since": "import"}


def test_a_loaded_cudnn_of_another_major_is_a_failure():
    facts = _facts([_lib("/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7", "libcudnn", "8.9.7")],
                   dists={"nvidia-cudnn-cu12": "9.3.0.75"})
    (f,) = cuda.loaded_not_pip(facts, load_matrix())
    assert f.status == Status.FAIL and "the system's loader path" in f.title and f.caused_by is None
    assert "nvidia-cudnn-cu12 9.3.0.75" in f.title and "ldconfig -p" in f.fix


def test_a_conda_copy_is_named_as_such():
    facts = _facts([_lib("/opt/conda/envs/tf/lib/libcudart.so.12.1.105", "libcudart", "12.1.105")],
                   dists={"nvidia-cuda-runtime-cu12": "12.5.82"}, conda="/opt/conda/envs/tf")
    (f,) = cuda.loaded_not_pip(facts, load_matrix())
    assert f.status == Status.WARN and "a conda environment" in f.title and "conda remove" in f.fix


def test_nothing_to_say_without_a_wheel_or_from_the_wheel():
    system_only = _facts([_lib("/usr/local/cuda/lib64/libcudart.so.12", "libcudart", "12")])
    assert cuda.loaded_not_pip(system_only, load_matrix()) == []  # no pip wheel: the system CUDA is the plan
    from_wheel = _facts([_lib("/venv/nvidia/cuda_runtime/lib/libcudart.so.12", "libcudart", "12",
                              dist="nvidia-cuda-runtime-cu12")],
                        dists={"nvidia-cuda-runtime-cu12": "12.5.82"})
    assert cuda.loaded_not_pip(from_wheel, load_matrix()) == []
    assert cuda.loaded_not_pip({"runtime": {"ran": False}}, load_matrix()) == []
    assert cuda.loaded_not_pip({"runtime": {"loaded_libraries": ["junk", {"path": 3}]}}, load_matrix()) == []


def test_a_container_image_with_its_own_libcuda():
    facts = _facts([_lib("/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05", "libcuda", "535.104.05")],
                   container="docker", kernel="580.65.06")
    (f,) = cuda.container_driver_libraries(facts, load_matrix())
    assert f.status == Status.FAIL and "580.65.06" in f.title and "libcuda.so.535.104.05" in f.title
    assert "Rebuild the image" in f.fix


@pytest.mark.parametrize(
    "path, version, container, kernel",
    [
        ("/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06", "580.65.06", "docker", "580.65.06"),  # injected
        # forward compat
        ("/usr/local/cuda/compat/libcuda.so.580.65.06", "580.65.06", "docker", "535.104.05"),
        ("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "1", "docker", "580.65.06"),  # no version in the name
        # not a container
        ("/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05", "535.104.05", None, "580.65.06"),
    ],
)
def test_no_container_finding_when_the_library_is_the_hosts(path, version, container, kernel):
    facts = _facts([_lib(path, "libcuda", version)], container=container, kernel=kernel)
    assert cuda.container_driver_libraries(facts, load_matrix()) == []
