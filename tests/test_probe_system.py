"""The system probe on fake root trees built from recorded real files (tests/data/system/)."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path

import pytest

from tfdoctor.probes import Context
from tfdoctor.probes import system as sysprobe

DATA = Path(__file__).parent / "data" / "system"


def recorded(name: str) -> str:
    return (DATA / name).read_text()


def tree(tmp_path: Path, files: dict[str, str]) -> Path:
    """A fake root: {relative path: contents}."""
    root = tmp_path / "root"
    root.mkdir()
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(
    "name, expected",
    [
        ("proc-version-wsl2-5.4.72.txt", 2),
        ("proc-version-wsl2-4.19.128.txt", 2),
        ("proc-version-wsl1.txt", 1),
        ("proc-version-local.txt", None),
    ],
)
def test_wsl_version_from_recorded_proc_version(name, expected):
    assert sysprobe.wsl_version(recorded(name)) == expected


@pytest.mark.parametrize(
    "name",
    [
        "driver-version-384.98-proprietary.txt",
        "driver-version-565.57.01-open.txt",
        "driver-version-525.60.11-open-arch.txt",
    ],
)
def test_driver_version_parsed_from_recorded_files(name):
    # The file name carries the version as the source printed it.
    expected = name.split("-")[2]
    assert sysprobe.parse_driver_version(recorded(name)) == expected


def test_driver_version_garbage_is_none():
    assert sysprobe.parse_driver_version("NVRM: something else entirely\n") is None
    assert sysprobe.parse_driver_version("") is None


def test_os_release_parsed_from_recorded_files():
    alma = sysprobe.parse_os_release(recorded("os-release-almalinux-9.2.txt"))
    assert alma["PRETTY_NAME"] == "AlmaLinux 9.2 (Turquoise Kodkod)"
    assert alma["ID_LIKE"] == "rhel centos fedora"
    local = sysprobe.parse_os_release(recorded("os-release-debian-12-local.txt"))
    assert local["ID"] == "debian" and local["VERSION_ID"] == "12"


def test_os_release_ignores_comments_and_junk():
    assert sysprobe.parse_os_release("# c\n\nnot a pair\nID=ubuntu\n") == {"ID": "ubuntu"}


def test_modules_from_recorded_lsmod():
    assert sysprobe.parse_modules(recorded("lsmod-nvidia-ollama-17069.txt")) == {
        "nvidia": True,
        "nouveau": False,
    }
    assert sysprobe.parse_modules("nouveau 2859008 1 - Live 0x0\nvideo 69632 1 nouveau, Live 0x0\n") == {
        "nvidia": False,
        "nouveau": True,
    }
    # nvidiafb is the framebuffer driver, not the CUDA driver.
    assert sysprobe.parse_modules("nvidiafb 53248 0 - Live 0x0\n")["nvidia"] is False


def test_wsl2_tree_with_open_driver(tmp_path):
    dev_names = recorded("dev-nvidia-ollama-17069.txt").split()
    files = {
        "proc/version": recorded("proc-version-wsl2-5.4.72.txt"),
        "proc/sys/kernel/osrelease": "5.4.72-microsoft-standard-WSL2\n",
        "etc/os-release": recorded("os-release-almalinux-9.2.txt"),
        "proc/driver/nvidia/version": recorded("driver-version-565.57.01-open.txt"),
        "proc/modules": recorded("lsmod-nvidia-ollama-17069.txt"),
        "usr/lib/wsl/lib/libcuda.so.1": "",
        "usr/lib/wsl/lib/libcuda.so.1.1": "",
        "usr/lib/wsl/lib/libd3d12.so": "",
        **{f"dev/{n}": "" for n in dev_names},
    }
    facts = sysprobe.probe_system(
        tree(tmp_path, files), env={"HOME": "/home/u", "CUDA_VISIBLE_DEVICES": "0"}, system="Linux"
    )
    assert facts["platform"] == "wsl2" and facts["wsl_version"] == 2
    assert facts["os"] == "AlmaLinux 9.2 (Turquoise Kodkod)"
    assert facts["os_id_like"] == "rhel centos fedora"
    assert facts["kernel"] == "5.4.72-microsoft-standard-WSL2"
    assert facts["proc_driver_version"] == "565.57.01"
    assert facts["proc_driver_open"] is True
    assert facts["proc_driver_raw"].startswith("NVRM version:")
    assert facts["modules"] == {"nvidia": True, "nouveau": False}
    assert facts["dev_nvidia"] == sorted(dev_names)
    assert facts["wsl_libcuda"] == ["/usr/lib/wsl/lib/libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1.1"]
    assert facts["env"] == {"CUDA_VISIBLE_DEVICES": "0"}
    assert facts["home"] == "/home/u"
    assert facts["container"] is None
    json.dumps(facts)  # facts are JSON-able


def test_empty_tree_gives_unknowns_not_errors(tmp_path):
    facts = sysprobe.probe_system(tree(tmp_path, {}), env={}, system="Linux")
    assert facts["platform"] == "linux"
    assert facts["os"] is None
    assert facts["modules"] is None  # /proc/modules unreadable: unknown, not "not loaded"
    assert facts["proc_driver_version"] is None and facts["proc_driver_raw"] is None
    assert facts["dev_nvidia"] == [] and facts["wsl_libcuda"] == []
    assert facts["kernel"] == (platform.release() or None)


def test_unreadable_files_are_unknown(tmp_path):
    root = tree(tmp_path, {})
    (root / "proc").mkdir()
    (root / "proc" / "modules").mkdir()  # a directory where a file should be: read fails
    facts = sysprobe.probe_system(root, env={}, system="Linux")
    assert facts["modules"] is None


@pytest.mark.parametrize(
    "files, env, expected",
    [
        ({".dockerenv": ""}, {}, "docker"),
        ({"run/.containerenv": ""}, {}, "podman"),
        ({}, {"KUBERNETES_SERVICE_HOST": "10.0.0.1"}, "kubernetes"),
        ({"proc/1/cgroup": "0::/kubepods/besteffort/pod1234/abc\n"}, {}, "kubernetes"),
        ({"proc/1/cgroup": "12:devices:/docker/0123abcd\n"}, {}, "docker"),
        ({}, {"container": "lxc"}, "lxc"),
        ({}, {"APPTAINER_CONTAINER": "/data/tf.sif", "SINGULARITY_CONTAINER": "/data/tf.sif"}, "apptainer"),
        ({}, {"SINGULARITY_CONTAINER": "/data/tf.sif"}, "singularity"),
        ({"proc/1/cgroup": "0::/init.scope\n"}, {}, None),
    ],
)
def test_container_markers(tmp_path, files, env, expected):
    assert sysprobe.probe_system(tree(tmp_path, files), env=env, system="Linux")["container"] == expected


@pytest.mark.parametrize(
    "system, expected", [("Windows", "windows"), ("Darwin", "macos"), ("Linux", "linux")]
)
def test_platform_names(tmp_path, system, expected):
    assert sysprobe.probe_system(tree(tmp_path, {}), env={}, system=system)["platform"] == expected


def test_env_is_allowlisted_and_redacted(tmp_path):
    env = {
        "LD_LIBRARY_PATH": "/usr/local/cuda/lib64",
        "AWS_SECRET_ACCESS_KEY": "abc",
        "TF_TOKEN": "x",
        "SHELL": "/bin/bash",
    }
    facts = sysprobe.probe_system(tree(tmp_path, {}), env=env, system="Linux")
    assert facts["env"]["LD_LIBRARY_PATH"] == "/usr/local/cuda/lib64"
    assert "AWS_SECRET_ACCESS_KEY" not in facts["env"] and "SHELL" not in facts["env"]
    assert facts["env"]["TF_TOKEN"] == "<redacted>"


def test_probe_on_this_machine():
    """The real machine: whatever /etc/os-release says is what the probe reports."""
    facts = sysprobe.probe(Context(python="python3"))
    pretty = sysprobe.parse_os_release(Path("/etc/os-release").read_text()).get("PRETTY_NAME")
    assert facts["os"] == pretty
    assert facts["platform"] in ("linux", "wsl2")
    assert facts["python_version"] == platform.python_version()
    if Path("/.dockerenv").exists() and not os.environ.get("KUBERNETES_SERVICE_HOST"):
        assert facts["container"] == "docker"


def test_the_gpu_device_files_this_user_cannot_open(tmp_path):
    """nvidiactl without read-write for this user is listed as `ls -l` shows it; root opens any file, so
    for root nothing is."""
    root = tree(tmp_path, {"dev/nvidiactl": "", "dev/nvidia0": "", "dev/nvidia-modeset": ""})
    os.chmod(root / "dev/nvidiactl", 0)
    os.chmod(root / "dev/nvidia-modeset", 0)  # not a file CUDA opens
    denied = sysprobe.probe_system(root, env={}, system="Linux")["dev_nvidia_denied"]
    if os.geteuid() == 0:
        assert denied == []
    else:
        assert len(denied) == 1 and denied[0].startswith("/dev/nvidiactl ----------")
