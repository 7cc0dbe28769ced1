"""The core checks (driver, tensorflow, platform, cuda, gpu) against the real compatibility matrix.

Fact dicts are built from real values: driver versions from the recorded nvidia-smi banners in
tests/data/nvidia-smi/, TensorFlow build_info of 2.21.0 / 2.16 / 2.14 and wheel pins as recorded
in the project's compat facts (PyPI metadata, tf.sysconfig.get_build_info() pastes).
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfdoctor.catalogue import ENTRIES as CATALOGUE
from tfdoctor.checks import cuda as cuda_checks
from tfdoctor.checks import cudnn as cudnn_checks
from tfdoctor.checks import driver as driver_checks
from tfdoctor.checks import platform as platform_checks
from tfdoctor.checks import tensorflow as tf_checks
from tfdoctor.checks.gpu import devices as gpu_checks
from tfdoctor.compat import load_matrix
from tfdoctor.model import Finding, Status
from tfdoctor.probes.nvidia_smi import failure_kind

MATRIX = load_matrix()
ROOT = Path(__file__).resolve().parent.parent
CHECKS = [
    driver_checks.driver_present,
    driver_checks.driver_new_enough,
    tf_checks.installed_build,
    tf_checks.conflicting_installs,
    tf_checks.python_supported,
    platform_checks.windows_native,
    platform_checks.wsl2_libcuda,
    cuda_checks.libraries_present,
    cudnn_checks.cudnn_present,
    cuda_checks.nvcc_vs_tf,
    cuda_checks.ld_library_path_shadowing,
    gpu_checks.hidden_by_cuda_visible_devices,
    gpu_checks.compute_capability,
    gpu_checks.count_required,
]

# tf.sysconfig.get_build_info() of real wheels (see compat-facts (f))
BUILD_221 = {
    "cpu_compiler": "clang 18",
    "cuda_compute_capabilities": ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"],
    "cuda_version": "12.5.1",
    "cudnn_version": "9",
    "is_cuda_build": True,
    "is_rocm_build": False,
    "is_tensorrt_build": False,
}
BUILD_216 = {
    "cpu_compiler": "/usr/lib/llvm-17/bin/clang",
    "cuda_compute_capabilities": ["sm_50", "sm_60", "sm_70", "sm_80", "compute_90"],
    "cuda_version": "12.3",
    "cudnn_version": "8",
    "is_cuda_build": True,
    "is_rocm_build": False,
    "is_tensorrt_build": True,
}
BUILD_214 = {
    "cpu_compiler": "/usr/lib/llvm-16/bin/clang",
    "cuda_compute_capabilities": ["sm_35", "sm_50", "sm_60", "sm_70", "sm_75", "compute_80"],
    "cuda_version": "11.8",
    "cudnn_version": "8",
    "is_cuda_build": True,
    "is_rocm_build": False,
    "is_tensorrt_build": True,
}
BUILD_CPU_WINDOWS = {
    "is_cuda_build": False,
    "is_rocm_build": False,
    "is_tensorrt_build": False,
    "msvcp_dll_names": "msvcp140.dll,msvcp140_1.dll",
}
# Requires-Dist minimums of tensorflow[and-cuda] 2.21.0 (PyPI)
WHEELS_221 = {
    "nvidia-cuda-runtime-cu12": "12.5.82",
    "nvidia-cublas-cu12": "12.5.3.2",
    "nvidia-cudnn-cu12": "9.3.0.75",
    "nvidia-cuda-nvcc-cu12": "12.5.82",
    "nvidia-nccl-cu12": "2.27.7",
}
WHEELS_214 = {
    "nvidia-cuda-runtime-cu11": "11.8.89",
    "nvidia-cublas-cu11": "11.11.3.6",
    "nvidia-cudnn-cu11": "8.7.0.84",
    "nvidia-cuda-nvcc-cu11": "11.8.89",
}
PY = "/home/ana/venvs/tf/bin/python"
H100_UUID = "GPU-5b4c2d27-8f3a-7b6e-1c9d-3e2f1a0b9c8d"


def healthy() -> dict[str, Any]:
    """An Ubuntu 22.04 box with 2 H100s, driver 565.57.01 and tensorflow[and-cuda] 2.21.0."""
    gpus = [
        {
            "index": i,
            "name": "NVIDIA H100 80GB HBM3",
            "uuid": H100_UUID[:-1] + str(i),
            "compute_capability": "9.0",
            "memory_total_mib": 81559,
        }
        for i in range(2)
    ]
    return {
        "system": {
            "platform": "linux",
            "os": "Ubuntu 22.04.4 LTS",
            "os_id": "ubuntu",
            "os_id_like": "debian",
            "os_version_id": "22.04",
            "kernel": "6.5.0-41-generic",
            "machine": "x86_64",
            "python_version": "3.11.7",
            "container": None,
            "dev_nvidia": ["nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm"],
            "proc_driver_version": "565.57.01",
            "modules": {"nvidia": True, "nouveau": False},
            "wsl_libcuda": None,
            "env": {},
            "env_complete": True,
        },
        "nvml": {
            "available": True,
            "error": None,
            "error_kind": None,
            "driver_version": "565.57.01",
            "cuda_driver_version": "12.7",
            "gpus": gpus,
        },
        "nvidia_smi": {
            "found": True,
            "path": "/usr/bin/nvidia-smi",
            "error": None,
            "returncode": 0,
            "driver_version": "565.57.01",
            "cuda_version": "12.7",
            "gpus": [{"index": g["index"], "name": g["name"]} for g in gpus],
        },
        "nvcc": {"found": False, "version": None, "installs": []},
        "libraries": {
            "ld_library_path": [],
            "loadable": {},
            "pip_nvidia": dict(WHEELS_221),
            "pip_nvidia_dirs": [],
            "shadowing": [],
        },
        "tensorflow": {
            "python": PY,
            "python_version": "3.11.7",
            "installed": True,
            "version": "2.21.0",
            "location": "/home/ana/venvs/tf/lib/python3.11/site-packages",
            "distributions": {"tensorflow": "2.21.0", "keras": "3.10.0", **WHEELS_221},
            "build_info": dict(BUILD_221),
            "error": None,
        },
        "runtime": {"ran": False},
        "options": {"require_gpus": None},
    }


def with_(facts: dict[str, Any], **sections: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of facts with keys of sections updated (None deletes a key)."""
    out = copy.deepcopy(facts)
    for name, values in sections.items():
        if values is None:
            out.pop(name, None)
            continue
        target = out.setdefault(name, {})
        for key, value in values.items():
            if value is _DEL:
                target.pop(key, None)
            else:
                target[key] = value
    return out


_DEL = object()
FAILED = {"error": "probe did not finish in time and was abandoned", "probe_failed": True}


def no_driver(**system: Any) -> dict[str, Any]:
    facts = with_(
        healthy(),
        system={
            "dev_nvidia": [],
            "proc_driver_version": None,
            "modules": {"nvidia": False, "nouveau": False},
            **system,
        },
        nvidia_smi={
            "found": False,
            "path": None,
            "driver_version": None,
            "cuda_version": None,
            "gpus": [],
            "error": "nvidia-smi not found on PATH",
        },
    )
    facts["nvml"] = {
        "available": False,
        "error": "NVML Shared Library Not Found",
        "error_kind": "library-not-found",
        "gpus": [],
    }
    return facts


def one(findings: list[Finding], fid: str | None = None) -> Finding:
    picked = [f for f in findings if fid is None or f.id == fid]
    assert len(picked) == 1, findings
    return picked[0]


def assert_well_formed(findings: list[Finding]) -> None:
    for f in findings:
        assert f.id in CATALOGUE, f.id
        assert f.title and "\n" not in f.title
        if f.status >= Status.WARN:
            assert f.fix and f.fix.strip(), f
        if f.status == Status.SKIP:
            assert f.detail, f


# --- driver ------------------------------------------------------------------------------------


def test_driver_ok_names_version_and_cuda():
    f = one(driver_checks.driver_present(healthy(), MATRIX))
    assert (f.id, f.status) == ("driver.ok", Status.PASS)
    assert "565.57.01" in f.title and "12.7" in f.title


def test_no_driver_on_ubuntu_fails_with_ubuntu_drivers():
    f = one(driver_checks.driver_present(no_driver(), MATRIX))
    assert (f.id, f.status) == ("driver.missing", Status.FAIL)
    assert "/dev/nvidia* absent" in f.detail and "nvidia kernel module not loaded" in f.detail
    assert f.fix.startswith("sudo ubuntu-drivers install") and "reboot" in f.fix


def test_nouveau_on_rocky_blacklists_then_installs_with_dnf():
    facts = no_driver(
        os="Rocky Linux 9.3 (Blue Onyx)",
        os_id="rocky",
        os_id_like="rhel centos fedora",
        os_version_id="9.3",
        modules={"nvidia": False, "nouveau": True},
    )
    f = one(driver_checks.driver_present(facts, MATRIX))
    assert f.status == Status.FAIL and "nouveau" in f.title
    assert "blacklist nouveau" in f.fix and "dracut --force" in f.fix
    assert "cuda-rhel9.repo" in f.fix and "dnf install -y nvidia-open" in f.fix


def test_fedora_and_debian_get_their_own_commands():
    fed = one(
        driver_checks.driver_present(
            no_driver(os="Fedora Linux 40 (Workstation Edition)", os_id="fedora", os_id_like=None), MATRIX
        )
    )
    assert "akmod-nvidia" in fed.fix
    deb = one(
        driver_checks.driver_present(
            no_driver(os="Debian GNU/Linux 12 (bookworm)", os_id="debian", os_id_like=None), MATRIX
        )
    )
    assert "nvidia-driver" in deb.fix and "apt" in deb.fix


def test_nvidia_smi_cannot_talk_to_driver_is_missing():
    text = (ROOT / "tests/data/nvidia-smi/fail-no-driver.txt").read_text()
    facts = with_(
        healthy(),
        nvml={
            "available": False,
            "error": "Driver Not Loaded",
            "error_kind": "driver-not-loaded",
            "driver_version": None,
        },
        nvidia_smi={"driver_version": None, "error": text.strip(), "error_kind": failure_kind(text),
                    "returncode": 9, "gpus": []},
        system={"proc_driver_version": None, "dev_nvidia": None, "modules": None},
    )
    f = one(driver_checks.driver_present(facts, MATRIX))
    assert (f.id, f.status, f.confidence) == ("driver.missing", Status.FAIL, "certain")
    assert "NVML: driver not loaded" in f.detail and "couldn't communicate" in f.detail


def test_nvidia_smi_finding_no_devices_is_a_loaded_driver_without_a_gpu():
    """NVML answers (the driver is loaded, its version known) but lists no GPU, and nvidia-smi says
    "No devices were found": not driver.ok, but a driver that took on no GPU, with the kernel log to read."""
    text = (ROOT / "tests/data/nvidia-smi/fail-no-devices.txt").read_text()
    facts = with_(
        healthy(),
        nvml={"gpus": [], "device_count": 0},
        nvidia_smi={"driver_version": None, "error": text.strip(), "error_kind": failure_kind(text),
                    "returncode": 6, "gpus": []},
    )
    f = one(driver_checks.driver_present(facts, MATRIX))
    assert (f.id, f.status) == ("driver.missing", Status.FAIL)
    assert "565.57.01 is loaded but drives no GPU" in f.title and "dmesg" in f.fix
    listed = with_(facts, nvml=healthy()["nvml"])  # NVML lists the GPUs: a stale word, they are driven
    assert one(driver_checks.driver_present(listed, MATRIX)).id == "driver.ok"


def test_wsl2_without_driver_points_at_windows_driver():
    facts = no_driver(platform="wsl2", wsl_libcuda=[], modules=None)
    f = one(driver_checks.driver_present(facts, MATRIX))
    assert f.status == Status.FAIL and "WSL2" in f.title
    assert "Windows" in f.fix and "ubuntu-drivers" not in f.fix and "wsl --shutdown" in f.fix


def test_container_without_gpus_asks_for_gpus_all():
    facts = no_driver(container="docker", modules={"nvidia": True, "nouveau": False})
    f = one(driver_checks.driver_present(facts, MATRIX))
    assert f.status == Status.FAIL and "container" in f.title
    assert "--gpus all" in f.fix and "nvidia-ctk" in f.fix


@pytest.mark.parametrize(
    "facts, reason",
    [
        ({"system": {"platform": "macos"}}, "macOS"),
        ({"system": FAILED, "nvml": FAILED, "nvidia_smi": FAILED}, "probe failed"),
        ({}, "no system facts"),
    ],
)
def test_driver_presence_skips_without_facts(facts, reason):
    f = one(driver_checks.driver_present(facts, MATRIX))
    assert (f.id, f.status) == ("driver.missing", Status.SKIP) and reason in f.detail


def test_library_mismatch_is_left_to_nvml_checks():
    text = (ROOT / "tests/data/nvidia-smi/fail-driver-library-mismatch.txt").read_text().strip()
    facts = with_(healthy(), nvidia_smi={"driver_version": None, "error": text, "returncode": 18, "gpus": []})
    facts["nvml"] = {
        "available": False,
        "error_kind": "lib-mismatch",
        "error": "Driver/library version mismatch",
    }
    f = one(driver_checks.driver_present(facts, MATRIX))
    assert (f.id, f.status) == ("driver.ok", Status.PASS) and "/proc/driver/nvidia/version" in f.detail
    facts["system"]["proc_driver_version"] = None
    f = one(driver_checks.driver_present(facts, MATRIX))
    assert (f.id, f.status) == ("driver.missing", Status.SKIP) and "lib-mismatch" in f.detail


def test_driver_new_enough_for_tf_221():
    f = one(driver_checks.driver_new_enough(with_(healthy(), nvml={"driver_version": "580.65.06"}), MATRIX))
    assert (f.id, f.status) == ("driver.cuda-compatible", Status.PASS)
    assert "580.65.06" in f.title and "12.5.1" in f.title
    assert MATRIX.min_driver("12.5.1", "linux") in f.detail


def test_driver_only_minor_compatible_warns():
    # nvidia-smi banner-535.247.01-a10g.txt: an A10G node on driver 535 (CUDA 12.2)
    facts = with_(healthy(), nvml={"driver_version": "535.247.01"})
    ok, caveat = MATRIX.driver_supports_cuda("535.247.01", "12.5.1", "linux")
    assert ok and caveat  # the matrix agrees this is the minor-version-compat case
    f = one(driver_checks.driver_new_enough(facts, MATRIX))
    assert (f.id, f.status) == ("driver.minor-version-compat", Status.WARN)
    assert MATRIX.min_driver("12.5.1", "linux") in f.fix


def test_driver_too_old_names_minimum_and_newest_runnable_tf():
    # nvidia-smi banner-450.57-titan-xp.txt; the target Python is 3.11 (healthy()): TensorFlow 2.4,
    # the newest release driver 450 runs, has no wheel for it, so no downgrade is offered
    facts = with_(healthy(), nvml={"driver_version": "450.57"})
    f = one(driver_checks.driver_new_enough(facts, MATRIX))
    assert (f.id, f.status) == ("driver.too-old", Status.FAIL)
    assert MATRIX.min_driver("12.5.1", "linux") in f.detail
    assert "No TensorFlow release in the bundled matrix runs on this driver with this Python" in f.detail
    assert "tensorflow==2.4" not in f.fix and "[and-cuda]==2.4" not in f.fix
    assert f.fix.startswith("sudo ubuntu-drivers install nvidia:555 && sudo reboot")
    # on a Python 2.4 has wheels for, the downgrade is offered, pinned and said to be one
    old_python = with_(facts, tensorflow={"python_version": "3.8.10"})
    f = one(driver_checks.driver_new_enough(old_python, MATRIX))
    assert "newest TensorFlow this driver runs on this Python is 2.4" in f.detail
    assert "'tensorflow==2.4.*'" in f.fix and "a downgrade from 2.21.0" in f.fix


def test_driver_too_old_on_wsl2_uses_windows_column_and_windows_fix():
    facts = with_(
        healthy(),
        system={"platform": "wsl2", "wsl_libcuda": ["/usr/lib/wsl/lib/libcuda.so.1"]},
        nvml={"driver_version": "472.12"},
    )
    f = one(driver_checks.driver_new_enough(facts, MATRIX))
    assert f.status == Status.FAIL and "Windows (WSL2)" in f.detail
    assert MATRIX.min_driver("12.5.1", "wsl2") in f.detail and "Windows" in f.fix


def test_driver_check_uses_matrix_cuda_when_build_info_lacks_it():
    facts = with_(
        healthy(),
        tensorflow={"version": "2.16.1", "build_info": {"is_cuda_build": True}},
        nvml={"driver_version": "535.247.01"},
    )
    f = one(driver_checks.driver_new_enough(facts, MATRIX))
    assert "12.3" in f.title and "compat matrix" in f.detail


@pytest.mark.parametrize(
    "facts",
    [
        no_driver(),
        with_(healthy(), tensorflow={"installed": False, "version": None, "build_info": None}),
        with_(healthy(), tensorflow={"build_info": dict(BUILD_CPU_WINDOWS)}),
        with_(healthy(), nvml={"driver_version": "not-a-version"}),
    ],
)
def test_driver_new_enough_skips_without_comparable_facts(facts):
    f = one(driver_checks.driver_new_enough(facts, MATRIX))
    assert (f.id, f.status) == ("driver.too-old", Status.SKIP) and f.detail


# --- tensorflow ----------------------------------------------------------------------------------


def test_tensorflow_build_pass_shows_cuda_cudnn_and_capabilities():
    f = one(tf_checks.installed_build(healthy(), MATRIX))
    assert (f.id, f.status) == ("tensorflow.build", Status.PASS)
    assert (
        f.title == "TensorFlow 2.21.0, built for CUDA 12.5.1 · cuDNN 9 · sm_60 sm_70 sm_80 sm_89 compute_90"
    )


def test_tensorflow_missing_uses_target_interpreter():
    facts = with_(
        healthy(), tensorflow={"installed": False, "version": None, "build_info": None, "distributions": {}}
    )
    f = one(tf_checks.installed_build(facts, MATRIX))
    assert (f.id, f.status) == ("tensorflow.missing", Status.FAIL)
    assert f.fix == f"{PY} -m pip install 'tensorflow[and-cuda]'"


def test_tensorflow_missing_in_conda_env_says_pip_is_right():
    facts = with_(
        healthy(),
        tensorflow={"installed": False, "python": "/opt/conda/envs/tf/bin/python"},
        system={"env": {"CONDA_PREFIX": "/opt/conda/envs/tf"}},
    )
    f = one(tf_checks.installed_build(facts, MATRIX))
    assert "/opt/conda/envs/tf/bin/python -m pip install 'tensorflow[and-cuda]'" in f.fix
    assert "conda" in f.fix and "2.14" in f.fix


def test_tensorflow_missing_on_windows_and_macos():
    win = with_(
        healthy(),
        system={"platform": "windows"},
        tensorflow={
            "installed": False,
            "python": r"C:\Users\ana\AppData\Local\Programs\Python\Python310\python.exe",
        },
    )
    f = one(tf_checks.installed_build(win, MATRIX))
    assert '"tensorflow<2.11"' in f.fix and "WSL2" in f.fix
    mac = with_(healthy(), system={"platform": "macos"}, tensorflow={"installed": False})
    assert "no NVIDIA GPU" in one(tf_checks.installed_build(mac, MATRIX)).fix


def test_tensorflow_cpu_package_is_cpu_only_build():
    facts = with_(
        healthy(),
        tensorflow={
            "version": "2.16.1",
            "build_info": {"is_cuda_build": False},
            "distributions": {"tensorflow-cpu": "2.16.1"},
        },
    )
    f = one(tf_checks.installed_build(facts, MATRIX))
    assert (f.id, f.status) == ("tensorflow.cpu-only-build", Status.FAIL)
    assert f"{PY} -m pip uninstall -y tensorflow-cpu" in f.fix and "'tensorflow[and-cuda]==2.16.1'" in f.fix


def test_macos_tensorflow_is_cpu_only():
    facts = with_(
        healthy(),
        system={"platform": "macos"},
        tensorflow={"version": "2.16.2", "build_info": {"is_cuda_build": False}},
    )
    f = one(tf_checks.installed_build(facts, MATRIX))
    assert f.id == "tensorflow.cpu-only-build" and f.status == Status.FAIL and "macOS" in f.title


def test_windows_cpu_build_defers_to_platform_check():
    facts = with_(
        healthy(),
        system={"platform": "windows"},
        tensorflow={
            "version": "2.15.0",
            "build_info": dict(BUILD_CPU_WINDOWS),
            "distributions": {"tensorflow": "2.15.0", "tensorflow-intel": "2.15.0"},
        },
    )
    f = one(tf_checks.installed_build(facts, MATRIX))
    assert f.status == Status.SKIP and "platform.windows-native" in f.detail


@pytest.mark.parametrize(
    "facts",
    [
        {"tensorflow": FAILED},
        {},
        with_(healthy(), tensorflow={"build_info": None}),
    ],
)
def test_tensorflow_build_skips_without_facts(facts):
    assert one(tf_checks.installed_build(facts, MATRIX)).status == Status.SKIP


def test_tensorflow_and_tensorflow_cpu_conflict_fails():
    facts = with_(
        healthy(),
        tensorflow={"distributions": {"tensorflow": "2.21.0", "tensorflow-cpu": "2.20.0", **WHEELS_221}},
    )
    f = one(tf_checks.conflicting_installs(facts, MATRIX))
    assert (f.id, f.status) == ("tensorflow.conflicting-installs", Status.FAIL)
    assert "uninstall -y tensorflow tensorflow-cpu" in f.fix


def test_tensorflow_imported_from_the_user_site_in_a_conda_env_warns():
    user_site = "/home/ana/.local/lib/python3.11/site-packages/tensorflow"
    facts = with_(healthy(), tensorflow={"location": user_site},
                  system={"env": {"CONDA_PREFIX": "/home/ana/miniconda3/envs/tf"}})
    f = one(tf_checks.conflicting_installs(facts, MATRIX))
    assert (f.id, f.status) == ("tensorflow.conflicting-installs", Status.WARN)
    assert "PYTHONNOUSERSITE" in f.fix
    assert tf_checks.conflicting_installs(with_(healthy(), tensorflow={"location": user_site}), MATRIX) == []


def test_windows_tensorflow_intel_metapackage_is_not_a_conflict():
    facts = with_(
        healthy(),
        system={"platform": "windows"},
        tensorflow={
            "version": "2.15.0",
            "distributions": {"tensorflow": "2.15.0", "tensorflow-intel": "2.15.0", "keras": "2.15.0"},
        },
    )
    assert tf_checks.conflicting_installs(facts, MATRIX) == []


@pytest.mark.parametrize(
    "addon, release, tf, status, fix",
    [
        # TensorFlow 2.16's Keras 3 breaks tensorflow-probability 0.23: 0.24 with tf-keras is its release
        ("tensorflow-probability", "0.23.0", "2.16.1", Status.FAIL,
         "'tensorflow-probability==0.24.*' 'tf-keras~=2.16.0'"),
        ("tensorflow-probability", "0.25.0", "2.17.0", Status.FAIL, "'tensorflow-probability==0.24.*'"),
        ("tensorflow-text", "2.15.0", "2.16.1", Status.FAIL, "'tensorflow-text==2.16.*'"),
        ("tensorflow-io", "0.24.0", "2.10.0", Status.FAIL, "'tensorflow-io==0.27.*'"),
        # tensorflow-addons only warns; no release of it is made for 2.16 (it reached its end)
        ("tensorflow-addons", "0.23.0", "2.16.1", Status.WARN, "No tensorflow-addons release"),
    ],
)
def test_an_add_on_release_not_made_for_the_tensorflow_installed(addon, release, tf, status, fix):
    dists = {"tensorflow": tf, "keras": "3.3.3" if tf >= "2.16" else tf, addon: release}
    facts = with_(healthy(), tensorflow={"version": tf, "distributions": dists})
    f = one(tf_checks.conflicting_installs(facts, MATRIX))
    assert (f.id, f.status) == ("tensorflow.conflicting-installs", status)
    assert f"{addon} {release} needs TensorFlow" in f.title and fix in f.fix


@pytest.mark.parametrize(
    "addon, release, tf",
    [("tensorflow-probability", "0.24.0", "2.16.1"), ("tensorflow-probability", "0.24.0", "2.17.0"),
     ("tensorflow-text", "2.16.1", "2.16.1"), ("tensorflow-io", "0.37.1", "2.16.2"),
     ("tensorflow-probability", "0.99.0", "2.16.1"),  # a release this data does not know: not judged
     ("tensorflow-text", "1.0.0", "2.16.1")],  # before tensorflow-text matched TensorFlow's minor
)
def test_an_add_on_made_for_the_tensorflow_installed_is_no_conflict(addon, release, tf):
    dists = {"tensorflow": tf, "keras": "3.3.3", addon: release}
    facts = with_(healthy(), tensorflow={"version": tf, "distributions": dists})
    assert tf_checks.conflicting_installs(facts, MATRIX) == []


def test_mixed_cu11_cu12_wheels_warn_and_drop_the_unused_major():
    facts = with_(
        healthy(),
        tensorflow={"distributions": {"tensorflow": "2.21.0", "keras": "3.10.0", **WHEELS_221, **WHEELS_214}},
    )
    f = one(tf_checks.conflicting_installs(facts, MATRIX))
    assert f.status == Status.WARN and "cu11" in f.title and "cu12" in f.title
    assert "nvidia-cudnn-cu11" in f.fix and "nvidia-cudnn-cu12" not in f.fix.split("&&")[0]


@pytest.mark.parametrize(
    "tf, keras, tf_keras, env, expect, status",
    [
        # tf.keras itself cannot work: a failure (TF 2.16 + keras 2.15 raises in training)
        ("2.16.1", "2.15.0", None, {}, "Keras 2.15.0", Status.FAIL),
        ("2.17.0", "3.4.1", None, {"TF_USE_LEGACY_KERAS": "1"}, "tf-keras is not installed", Status.FAIL),
        # an untested pairing that may still work: a warning
        ("2.15.0", "3.0.5", None, {}, "Keras 3.0.5", Status.WARN),
        ("2.17.0", "3.4.1", "2.16.0", {"TF_USE_LEGACY_KERAS": "1"}, "tf-keras 2.16.0", Status.WARN),
    ],
)
def test_keras_mismatches(tf, keras, tf_keras, env, expect, status):
    dists = {"tensorflow": tf, "keras": keras, **({"tf-keras": tf_keras} if tf_keras else {})}
    facts = with_(healthy(), tensorflow={"version": tf, "distributions": dists}, system={"env": env})
    f = one(tf_checks.conflicting_installs(facts, MATRIX))
    assert f.status == status and expect in f.title and "pip install" in f.fix


def test_matching_keras_is_no_conflict():
    assert tf_checks.conflicting_installs(healthy(), MATRIX) == []
    legacy = with_(
        healthy(),
        tensorflow={"distributions": {"tensorflow": "2.21.0", "keras": "3.10.0", "tf-keras": "2.21.0"}},
        system={"env": {"TF_USE_LEGACY_KERAS": "1"}},
    )
    assert tf_checks.conflicting_installs(legacy, MATRIX) == []


def test_python_in_range_passes():
    f = one(tf_checks.python_supported(healthy(), MATRIX))
    assert (f.id, f.status) == ("tensorflow.python-ok", Status.PASS) and "3.11" in f.title


def test_python_39_with_tf_221_fails_and_names_a_release_for_39():
    facts = with_(healthy(), tensorflow={"python_version": "3.9.18"})
    f = one(tf_checks.python_supported(facts, MATRIX))
    assert (f.id, f.status) == ("tensorflow.python-unsupported", Status.FAIL)
    rel = MATRIX.tf_release("2.21.0")
    assert f"{rel.python_min}–{rel.python_max}" in f.title
    assert "TensorFlow 2.20 supports Python 3.9" in f.fix and "'tensorflow[and-cuda]==2.20.*'" in f.fix


def test_python_newer_than_any_release_fails_before_install():
    facts = with_(healthy(), tensorflow={"installed": False, "version": None, "python_version": "3.14.0"})
    f = one(tf_checks.python_supported(facts, MATRIX))
    assert f.status == Status.FAIL and "No TensorFlow release supports Python 3.14" in f.title
    assert f"python{MATRIX.newest_tf().python_max} -m venv" in f.fix


@pytest.mark.parametrize(
    "facts",
    [
        {"tensorflow": FAILED},
        with_(healthy(), tensorflow={"python_version": None}),
        with_(healthy(), tensorflow={"python_version": "garbage"}),
        with_(healthy(), tensorflow={"version": "0.1.0"}),
    ],
)
def test_python_check_skips_without_facts(facts):
    assert one(tf_checks.python_supported(facts, MATRIX)).status == Status.SKIP


# --- platform ------------------------------------------------------------------------------------


def test_windows_native_with_new_tf_fails():
    facts = with_(
        healthy(),
        system={"platform": "windows", "os": "Windows 11"},
        tensorflow={"version": "2.15.0", "build_info": dict(BUILD_CPU_WINDOWS)},
    )
    f = one(platform_checks.windows_native(facts, MATRIX))
    assert (f.id, f.status) == ("platform.windows-native", Status.FAIL)
    assert "WSL2" in f.fix and "cudatoolkit=11.2 cudnn=8.1.0" in f.fix and '"tensorflow<2.11"' in f.fix


def test_windows_native_with_tf_210_passes_and_linux_passes():
    facts = with_(healthy(), system={"platform": "windows"}, tensorflow={"version": "2.10.1"})
    assert one(platform_checks.windows_native(facts, MATRIX)).id == "platform.ok"
    assert one(platform_checks.windows_native(healthy(), MATRIX)).status == Status.PASS
    assert one(platform_checks.windows_native({"system": FAILED}, MATRIX)).status == Status.SKIP


def wsl(loadable: list[str] | None, wsl_libcuda: list[str] | None) -> dict[str, Any]:
    return with_(
        healthy(),
        system={"platform": "wsl2", "wsl_libcuda": wsl_libcuda, "dev_nvidia": []},
        libraries={"loadable": {"libcuda.so.1": loadable} if loadable else {}},
    )


WSL_CUDA = ["/usr/lib/wsl/lib/libcuda.so", "/usr/lib/wsl/lib/libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1.1"]


def test_wsl2_libcuda_ok():
    f = one(platform_checks.wsl2_libcuda(wsl(["/usr/lib/wsl/lib/libcuda.so.1"], WSL_CUDA), MATRIX))
    assert (f.id, f.status) == ("platform.wsl2-libcuda", Status.PASS)


def test_wsl2_without_windows_driver_libcuda_fails():
    f = one(platform_checks.wsl2_libcuda(wsl(None, []), MATRIX))
    assert f.status == Status.FAIL and "Windows" in f.fix


def test_wsl2_linux_libcuda_shadowing_fails_and_later_one_warns():
    linux = "/usr/lib/x86_64-linux-gnu/libcuda.so.1"
    f = one(platform_checks.wsl2_libcuda(wsl([linux, "/usr/lib/wsl/lib/libcuda.so.1"], WSL_CUDA), MATRIX))
    assert f.status == Status.FAIL and linux in f.title and f"dpkg -S {linux}" in f.fix
    f = one(platform_checks.wsl2_libcuda(wsl(["/usr/lib/wsl/lib/libcuda.so.1", linux], WSL_CUDA), MATRIX))
    assert f.status == Status.WARN


def test_wsl2_check_is_silent_off_wsl_and_skips_without_libraries():
    assert platform_checks.wsl2_libcuda(healthy(), MATRIX) == []
    facts = wsl(None, WSL_CUDA)
    facts["libraries"] = FAILED
    assert one(platform_checks.wsl2_libcuda(facts, MATRIX)).status == Status.SKIP


# --- gpu -----------------------------------------------------------------------------------------


def cvd(value: str | None, facts: dict[str, Any] | None = None) -> dict[str, Any]:
    return with_(facts or healthy(), system={"env": {} if value is None else {"CUDA_VISIBLE_DEVICES": value}})


@pytest.mark.parametrize("value", ["", "-1", "NoDevFiles", "2", "GPU-ffffffff"])
def test_cuda_visible_devices_hiding_every_gpu_fails(value):
    f = one(gpu_checks.hidden_by_cuda_visible_devices(cvd(value), MATRIX))
    assert (f.id, f.status) == ("gpu.hidden-by-cuda-visible-devices", Status.FAIL)
    assert "unset CUDA_VISIBLE_DEVICES" in f.fix and "0,1" in f.fix
    assert ("--gres" in f.fix) == (value == "NoDevFiles")


@pytest.mark.parametrize(
    "value, shown",
    [
        ("1", 1),
        ("0,1", 2),
        ("1,5,0", 1),
        (H100_UUID[:-1] + "1", 1),
        (f"{H100_UUID[:-1]}1,{H100_UUID[:-1]}0", 2),
    ],
)
def test_cuda_visible_devices_showing_some_passes(value, shown):
    f = one(gpu_checks.hidden_by_cuda_visible_devices(cvd(value), MATRIX))
    assert f.status == Status.PASS and f"exposes {shown} of 2" in f.title


def test_cuda_visible_devices_unset_or_unknown_gpus():
    assert gpu_checks.hidden_by_cuda_visible_devices(cvd(None), MATRIX) == []
    unknown = {"system": {"platform": "linux", "env": {"CUDA_VISIBLE_DEVICES": "-1"}, "env_complete": True}}
    assert one(gpu_checks.hidden_by_cuda_visible_devices(unknown, MATRIX)).status == Status.WARN
    mig = cvd("MIG-4f2a0c4e-8d5b-5b2a-9e57-0c4d3b1a2f10")
    assert one(gpu_checks.hidden_by_cuda_visible_devices(mig, MATRIX)).status == Status.SKIP


def gpus_with(name: str, cc: str | None, facts: dict[str, Any] | None = None) -> dict[str, Any]:
    facts = copy.deepcopy(facts or healthy())
    facts["nvml"]["gpus"] = [{"index": 0, "name": name, "compute_capability": cc}]
    return facts


def test_h100_and_t4_have_native_kernels():
    f = one(gpu_checks.compute_capability(healthy(), MATRIX))
    assert (f.id, f.status) == ("gpu.compute-capability-ok", Status.PASS) and "9.0" in f.title
    f = one(gpu_checks.compute_capability(gpus_with("Tesla T4", "7.5"), MATRIX))
    assert f.status == Status.PASS  # sm_70 SASS runs on 7.5


def test_rtx_5090_cannot_jit_the_ptx_of_a_cuda_12_5_build():
    """Blackwell needs PTX from CUDA 12.8+; TF 2.21 ships compute_90 PTX from CUDA 12.5.1, whose JIT
    fails (CUDA_ERROR_INVALID_PTX, https://github.com/tensorflow/tensorflow/issues/99592)."""
    f = one(gpu_checks.compute_capability(gpus_with("NVIDIA GeForce RTX 5090", "12.0"), MATRIX))
    assert (f.id, f.status) == ("gpu.compute-capability-unsupported", Status.FAIL)
    assert "CUDA 12.8" in f.detail and "tf-nightly" in f.fix


def test_h100_on_a_build_with_older_ptx_only_warns_with_cache_fix():
    facts = gpus_with("NVIDIA H100 80GB HBM3", "9.0")
    facts["tensorflow"]["build_info"]["cuda_compute_capabilities"] = ["sm_60", "sm_70", "compute_80"]
    f = one(gpu_checks.compute_capability(facts, MATRIX))
    assert (f.id, f.status) == ("gpu.compute-capability-ptx-jit", Status.WARN)
    assert "export CUDA_CACHE_MAXSIZE=4294967296" in f.fix


def test_maxwell_on_tf_221_is_unsupported_and_names_an_older_release():
    f = one(gpu_checks.compute_capability(gpus_with("NVIDIA GeForce GTX 980", "5.2"), MATRIX))
    assert (f.id, f.status) == ("gpu.compute-capability-unsupported", Status.FAIL)
    assert "TensorFlow 2.16" in f.fix and "'tensorflow[and-cuda]==2.16.*'" in f.fix


def test_compute_capability_from_matrix_by_name_when_nvml_absent():
    facts = healthy()
    facts["nvml"] = {"available": False, "error_kind": "library-not-found", "gpus": []}
    facts["nvidia_smi"]["gpus"] = [{"index": 0, "name": "NVIDIA A100-SXM4-80GB"}]
    model = MATRIX.gpu("NVIDIA A100-SXM4-80GB")
    findings = gpu_checks.compute_capability(facts, MATRIX)
    if model is None:
        assert one(findings).status == Status.SKIP
    else:
        assert one(findings).status == Status.PASS and "compat matrix" not in one(findings).detail


@pytest.mark.parametrize(
    "facts",
    [
        with_(healthy(), tensorflow={"installed": False}),
        with_(healthy(), tensorflow={"build_info": {"is_cuda_build": True}, "version": "9.9.9"}),
        gpus_with("Mystery GPU", None),
        {},
    ],
)
def test_compute_capability_skips_without_facts(facts):
    assert one(gpu_checks.compute_capability(facts, MATRIX)).status == Status.SKIP


def required(n: Any, facts: dict[str, Any] | None = None) -> dict[str, Any]:
    facts = copy.deepcopy(facts or healthy())
    facts["options"] = {"require_gpus": n}
    return facts


def test_require_gpus_uses_worker_count_first():
    facts = required(1, with_(healthy(), runtime={"ran": True, "tf_visible_gpus": 0}))
    f = one(gpu_checks.count_required(facts, MATRIX))
    assert (f.id, f.status) == ("gpu.count-below-required", Status.FAIL) and "TensorFlow worker" in f.detail
    ok = one(
        gpu_checks.count_required(
            required(2, with_(healthy(), runtime={"ran": True, "tf_visible_gpus": 2})), MATRIX
        )
    )
    assert (ok.id, ok.status) == ("gpu.count-ok", Status.PASS)


def test_require_gpus_without_worker_subtracts_cuda_visible_devices():
    f = one(gpu_checks.count_required(required(2, cvd("1")), MATRIX))
    assert f.status == Status.FAIL and "Only 1" in f.title and "CUDA_VISIBLE_DEVICES" in f.detail
    assert "unset CUDA_VISIBLE_DEVICES" in f.fix
    assert one(gpu_checks.count_required(required(2), MATRIX)).status == Status.PASS


def test_require_gpus_with_nothing_known_fails_and_bad_values_skip():
    f = one(gpu_checks.count_required({"options": {"require_gpus": 1}}, MATRIX))
    assert f.status == Status.FAIL
    assert gpu_checks.count_required(healthy(), MATRIX) == []
    for bad in (-1, "two", True):
        assert one(gpu_checks.count_required(required(bad), MATRIX)).status == Status.SKIP


# --- cuda / cudnn --------------------------------------------------------------------------------


def bare_libs(loadable: dict[str, list[str]]) -> dict[str, Any]:
    """TF 2.21 installed without the and-cuda wheels, with the given system libraries."""
    return with_(
        healthy(),
        tensorflow={"distributions": {"tensorflow": "2.21.0", "keras": "3.10.0"}},
        libraries={"pip_nvidia": {}, "loadable": loadable},
    )


def test_cuda_libraries_from_wheels_or_system_pass():
    f = one(cuda_checks.libraries_present(healthy(), MATRIX))
    assert (f.id, f.status) == ("cuda.libraries-ok", Status.PASS) and "nvidia-cublas-cu12" in f.title
    sys_libs = bare_libs(
        {
            "libcudart.so.12": ["/usr/local/cuda-12.5/lib64/libcudart.so.12"],
            "libcublas.so.12": ["/usr/local/cuda-12.5/lib64/libcublas.so.12"],
        }
    )
    assert one(cuda_checks.libraries_present(sys_libs, MATRIX)).status == Status.PASS


def test_cuda_libraries_missing_pins_installed_version():
    facts = bare_libs({"libcudart.so.13": ["/usr/local/cuda-13.0/lib64/libcudart.so.13"]})
    f = one(cuda_checks.libraries_present(facts, MATRIX))
    assert (f.id, f.status) == ("cuda.libraries-missing", Status.FAIL)
    assert f.fix == f"{PY} -m pip install 'tensorflow[and-cuda]==2.21.0'"


def test_cuda_11_soname_is_found_for_tf_214():
    facts = with_(
        healthy(),
        tensorflow={
            "version": "2.14.0",
            "build_info": dict(BUILD_214),
            "distributions": {"tensorflow": "2.14.0"},
        },
        libraries={
            "pip_nvidia": {},
            "loadable": {
                "libcudart.so.11.0": ["/usr/local/cuda-11.8/lib64/libcudart.so.11.0"],
                "libcublas.so.11": ["/usr/local/cuda-11.8/lib64/libcublas.so.11"],
            },
        },
    )
    assert one(cuda_checks.libraries_present(facts, MATRIX)).status == Status.PASS


@pytest.mark.parametrize(
    "facts",
    [
        with_(healthy(), tensorflow={"installed": False}),
        with_(healthy(), tensorflow={"build_info": {"is_cuda_build": False}}),
        with_(healthy(), system={"platform": "windows"}),
        with_(bare_libs({}), libraries=None),
    ],
)
def test_cuda_libraries_skip_when_not_applicable(facts):
    assert one(cuda_checks.libraries_present(facts, MATRIX)).status == Status.SKIP


def test_cudnn_ok_and_mismatches():
    assert one(cudnn_checks.cudnn_present(healthy(), MATRIX)).id == "cudnn.ok"
    for old in ("8.9.7.29", "9.1.0.70"):
        facts = with_(
            healthy(),
            libraries={"pip_nvidia": {**WHEELS_221, "nvidia-cudnn-cu12": old}},
            tensorflow={"distributions": {"tensorflow": "2.21.0", **WHEELS_221, "nvidia-cudnn-cu12": old}},
        )
        f = one(cudnn_checks.cudnn_present(facts, MATRIX))
        assert (f.id, f.status) == ("cudnn.version-mismatch", Status.FAIL) and old in f.title
        assert "nvidia-cudnn-cu12" in f.fix and "9" in f.fix.split("nvidia-cudnn-cu12", 1)[1]


def test_cudnn_from_system_or_missing():
    ok = bare_libs({"libcudnn.so.9": ["/usr/lib/x86_64-linux-gnu/libcudnn.so.9"]})
    assert one(cudnn_checks.cudnn_present(ok, MATRIX)).status == Status.PASS
    wrong = bare_libs({"libcudnn.so.8": ["/usr/lib/x86_64-linux-gnu/libcudnn.so.8"]})
    assert one(cudnn_checks.cudnn_present(wrong, MATRIX)).id == "cudnn.version-mismatch"
    f = one(cudnn_checks.cudnn_present(bare_libs({}), MATRIX))
    assert (f.id, f.status) == ("cudnn.missing", Status.FAIL) and "nvidia-cudnn-cu12" in f.fix


def test_cudnn_for_tf_216_uses_build_info_major():
    facts = with_(
        healthy(),
        tensorflow={
            "version": "2.16.1",
            "build_info": dict(BUILD_216),
            "distributions": {"tensorflow": "2.16.1", "nvidia-cudnn-cu12": "8.9.7.29"},
        },
        libraries={"pip_nvidia": {"nvidia-cudnn-cu12": "8.9.7.29"}},
    )
    assert one(cudnn_checks.cudnn_present(facts, MATRIX)).status == Status.PASS


def real_nvcc_facts() -> dict[str, Any]:
    """Facts from the real nvcc probe on this machine (CUDA 13.0 at /usr/local/cuda-13.0)."""
    from tfdoctor.probes import Context
    from tfdoctor.probes import nvcc as nvcc_probe

    return nvcc_probe.probe(Context(python=sys.executable))


def test_system_nvcc_13_with_pip_nvcc_wheel_passes_in_plain_words():
    nvcc = real_nvcc_facts()
    if not nvcc.get("found"):
        pytest.skip("no nvcc on this machine")
    f = one(cuda_checks.nvcc_vs_tf(with_(healthy(), nvcc=nvcc), MATRIX))
    assert f.id == "cuda.nvcc-differs" and "does not use the system toolkit" in f.title
    assert nvcc["version"] in f.title
    expected = Status.PASS
    assert f.status == expected


def test_system_nvcc_other_major_without_pip_nvcc_warns():
    nvcc = {
        "found": True,
        "version": "13.0",
        "installs": [
            {"path": "/usr/local/cuda-13.0/bin/nvcc", "version": "13.0", "source": "/usr/local/cuda"}
        ],
    }
    dists = {k: v for k, v in WHEELS_221.items() if k != "nvidia-cuda-nvcc-cu12"}
    facts = with_(
        healthy(),
        nvcc=nvcc,
        libraries={"pip_nvidia": dists},
        tensorflow={"distributions": {"tensorflow": "2.21.0", **dists}},
    )
    f = one(cuda_checks.nvcc_vs_tf(facts, MATRIX))
    assert f.status == Status.WARN and "nvidia-cuda-nvcc-cu12" in f.fix
    same = with_(facts, nvcc={"version": "12.5"})
    assert one(cuda_checks.nvcc_vs_tf(same, MATRIX)).status == Status.PASS
    none = with_(facts, nvcc={"found": False, "version": None, "installs": []})
    assert one(cuda_checks.nvcc_vs_tf(none, MATRIX)).status == Status.PASS
    assert one(cuda_checks.nvcc_vs_tf(with_(facts, nvcc=FAILED), MATRIX)).status == Status.SKIP


def test_nvcc_before_2_14_is_not_said_to_be_replaced_by_wheels():
    """TensorFlow 2.13 and older ship no CUDA libraries: the wording must not say pip TF brings its own."""
    facts = with_(healthy(), nvcc={"found": True, "version": "11.8", "installs": []},
                  tensorflow={"version": "2.13.1", "distributions": {"tensorflow": "2.13.1"},
                              "build_info": {"cuda_version": "11.8", "cudnn_version": "8"}})
    f = one(cuda_checks.nvcc_vs_tf(facts, MATRIX))
    assert f.status == Status.PASS and "ships its own" not in f.title + f.detail
    assert "TensorFlow 2.13.1 loads CUDA 11.8's libraries" in f.detail
    none = one(cuda_checks.nvcc_vs_tf(with_(facts, nvcc={"found": False, "version": None}), MATRIX))
    assert "ships its own" not in none.title and "TensorFlow 2.13.1 loads" in none.title


def test_ld_library_path_shadowing_warns_with_removal_command():
    site = "/home/ana/venvs/tf/lib/python3.11/site-packages/nvidia"
    facts = with_(
        healthy(),
        libraries={
            "ld_library_path": ["/usr/local/cuda-12.2/lib64"],
            "shadowing": [
                {
                    "soname": "libcublas.so.12",
                    "first": "/usr/local/cuda-12.2/lib64/libcublas.so.12",
                    "pip": f"{site}/cublas/lib/libcublas.so.12",
                }
            ],
        },
    )
    f = one(cuda_checks.ld_library_path_shadowing(facts, MATRIX))
    assert (f.id, f.status) == ("cuda.ld-library-path-shadowing", Status.WARN)
    assert "unset LD_LIBRARY_PATH" in f.fix and "grep -Fvx -e /usr/local/cuda-12.2/lib64" in f.fix
    assert cuda_checks.ld_library_path_shadowing(healthy(), MATRIX) == []
    assert one(cuda_checks.ld_library_path_shadowing({"libraries": FAILED}, MATRIX)).status == Status.SKIP


def test_shadowing_fix_really_removes_the_dir():
    """Run the fix's pipeline in a real shell."""
    import subprocess

    facts = with_(
        healthy(),
        libraries={
            "shadowing": [
                {
                    "soname": "libcudnn.so.9",
                    "first": "/opt/cudnn/lib/libcudnn.so.9",
                    "pip": "/x/libcudnn.so.9",
                }
            ]
        },
    )
    plan = one(cuda_checks.ld_library_path_shadowing(facts, MATRIX)).plan
    pipeline = plan.commands()[0]
    assert pipeline.startswith("export LD_LIBRARY_PATH=$(")
    out = subprocess.run(
        ["sh", "-c", pipeline + ' && printf %s "$LD_LIBRARY_PATH"'],
        capture_output=True,
        text=True,
        env={"LD_LIBRARY_PATH": "/a:/opt/cudnn/lib:/b", "PATH": "/usr/bin:/bin"},
        timeout=10,
    )
    assert out.stdout == "/a:/b"


# --- every check, every shape of facts ---------------------------------------------------------


SCENARIOS = {
    "healthy": healthy(),
    "no-driver": no_driver(),
    "empty": {},
    "all-failed": {
        name: FAILED
        for name in ("system", "nvml", "nvidia_smi", "nvcc", "libraries", "tensorflow", "runtime")
    },
    "nulls": {name: None for name in ("system", "nvml", "nvidia_smi", "nvcc", "libraries", "tensorflow")},
    "wrong-types": {
        "system": {"platform": 3, "env": "x", "dev_nvidia": "nvidia0", "modules": []},
        "nvml": {"gpus": "H100", "driver_version": 565},
        "tensorflow": {
            "installed": "yes",
            "distributions": [],
            "build_info": "clang",
            "version": 2.21,
            "python_version": 3.11,
        },
        "libraries": {"loadable": [], "shadowing": {}},
        "options": {"require_gpus": "1"},
    },
    "tf-216": with_(healthy(), tensorflow={"version": "2.16.1", "build_info": dict(BUILD_216)}),
    "tf-214-cu11": with_(
        healthy(),
        tensorflow={
            "version": "2.14.0",
            "build_info": dict(BUILD_214),
            "distributions": {"tensorflow": "2.14.0", **WHEELS_214},
        },
    ),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_check_handles_every_scenario(name):
    for chk in CHECKS:
        findings = chk(copy.deepcopy(SCENARIOS[name]), MATRIX)
        assert isinstance(findings, list)
        assert_well_formed(findings)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-2, 700)
    | st.sampled_from(
        [
            "",
            "-1",
            "2.21.0",
            "12.5.1",
            "580.65.06",
            "9.0",
            "linux",
            "wsl2",
            "windows",
            "macos",
            "nvidia0",
            "libcuda.so.1",
            "/usr/lib/wsl/lib/libcuda.so.1",
            "sm_90",
            "compute_90",
            "x",
        ]
    ),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "platform",
                    "version",
                    "installed",
                    "build_info",
                    "gpus",
                    "env",
                    "loadable",
                    "driver_version",
                    "compute_capability",
                    "name",
                    "CUDA_VISIBLE_DEVICES",
                    "python_version",
                    "error_kind",
                    "found",
                    "libcuda.so.1",
                    "shadowing",
                    "first",
                    "is_cuda_build",
                    "cuda_version",
                    "probe_failed",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.sampled_from(
            ["system", "nvml", "nvidia_smi", "nvcc", "libraries", "tensorflow", "runtime", "options"]
        ),
        json_values,
        max_size=8,
    )
)
def test_no_check_raises_on_arbitrary_facts(facts):
    for chk in CHECKS:
        assert_well_formed(chk(facts, MATRIX))


def test_real_probes_on_this_machine_are_judged_without_crashing():
    """The real system/tensorflow/libraries/nvcc probes of this venv (TF 2.21.0 from tensorflow[and-cuda])."""
    from tfdoctor.probes import Context, libraries, nvcc, system
    from tfdoctor.probes import tensorflow as tf_probe

    ctx = Context(python=sys.executable)
    facts = {
        "system": system.probe(ctx),
        "tensorflow": tf_probe.probe(ctx),
        "libraries": libraries.probe(ctx),
        "nvcc": nvcc.probe(ctx),
        "options": {"require_gpus": None},
    }
    findings = [f for chk in CHECKS for f in chk(facts, MATRIX)]
    assert_well_formed(findings)
    by_id = {f.id: f for f in findings}
    if facts["tensorflow"].get("installed") and (facts["tensorflow"].get("build_info") or {}).get(
        "is_cuda_build"
    ):
        assert by_id["tensorflow.build"].status == Status.PASS
        assert facts["tensorflow"]["version"] in by_id["tensorflow.build"].title
        if facts["system"].get("platform") == "linux":
            assert by_id["cuda.libraries-ok"].status == Status.PASS
            assert by_id["cudnn.ok"].status == Status.PASS
    if not facts["system"].get("dev_nvidia") and facts["system"].get("platform") == "linux":
        assert by_id["driver.missing"].status == Status.FAIL


def test_interpreter_that_does_not_run_is_reported():
    facts = with_(
        healthy(),
        tensorflow={
            "installed": None,
            "version": None,
            "python_version": None,
            "error": "/opt/py/bin/python: No such file or directory",
        },
    )
    f = one(tf_checks.installed_build(facts, MATRIX))
    assert (f.id, f.status) == ("tensorflow.missing", Status.FAIL) and "did not run" in f.title
    assert "No such file" in f.detail and "--python" in f.fix


def test_same_distribution_installed_twice_warns():
    facts = with_(healthy(), tensorflow={"duplicates": {"tensorflow": ["2.21.0", "2.17.0"]}})
    f = one(tf_checks.conflicting_installs(facts, MATRIX))
    assert f.status == Status.WARN and "tensorflow 2.21.0 and 2.17.0" in f.detail
    assert "uninstall -y tensorflow" in f.fix
    assert (
        tf_checks.conflicting_installs(
            with_(healthy(), tensorflow={"duplicates": {"numpy": ["1", "2"]}}), MATRIX
        )
        == []
    )


def test_require_gpus_falls_back_when_worker_gave_no_count():
    facts = required(3, with_(healthy(), runtime={"ran": True, "tf_visible_gpus": None}))
    f = one(gpu_checks.count_required(facts, MATRIX))
    assert f.status == Status.FAIL and "NVML" in f.detail and "worker gave no GPU count" in f.detail
