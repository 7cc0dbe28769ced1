"""System facts: platform (WSL2 included), OS, container, /dev/nvidia*, the loaded kernel driver.

Everything is read from files under an injectable root, so tests point it at a small tree built
from recorded real contents. Nothing here runs a command.
"""

from __future__ import annotations

import getpass
import os
import re
import socket
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tfdoctor.privacy import allowed_env
from tfdoctor.probes import Context

_READ_LIMIT = 1 << 20
# "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  ..." and the open-module form
# "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build ...".
_DRIVER_RE = re.compile(
    r"Kernel Module(?:[ \t]{1,10}for[ \t]{1,10}[^ \t\n]{1,40})?[ \t]{1,10}(\d{1,6}(?:\.\d{1,6}){1,4})"
)
_CGROUP_MARKERS = (("kubepods", "kubernetes"), ("libpod", "podman"), ("docker", "docker"), ("lxc", "lxc"))
_ENV_CONTAINER = {"docker": "docker", "podman": "podman", "oci": "podman", "lxc": "lxc", "lxc-libvirt": "lxc"}


def _read(path: Path) -> str | None:
    """A text file's contents, or None when it is absent or unreadable."""
    try:
        with open(path, "rb") as fh:
            return fh.read(_READ_LIMIT).decode("utf-8", errors="replace")
    except OSError:
        return None


def parse_os_release(text: str) -> dict[str, str]:
    """KEY=value lines of os-release(5), quotes removed (linear: no regex; lines cut at 1024 characters)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line[:1024]
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        out[key.strip()] = value
    return out


def wsl_version(*texts: str | None) -> int | None:
    """2 for a WSL2 kernel, 1 for WSL1, None otherwise (from /proc/version or kernel osrelease)."""
    joined = " ".join(t for t in texts if t)
    if re.search(r"microsoft-standard|WSL2", joined, re.I):
        return 2
    if re.search(r"microsoft|WSL", joined, re.I):
        return 1
    return None


def parse_driver_version(text: str) -> str | None:
    """The kernel module version from /proc/driver/nvidia/version, or None."""
    for line in text.splitlines()[:20]:  # the version line is the first; bounded, whatever the file says
        match = _DRIVER_RE.search(line[:512])
        if match:
            return match.group(1)
    return None


_DEVICE_FILE = re.compile(r"nvidia(?:ctl|-uvm|\d{1,3})")


def denied_device_files(dev: Path, names: list[str]) -> list[str]:
    """The GPU device files (nvidiactl, nvidia-uvm, nvidiaN) this process cannot open read-write, each as
    "/dev/nvidia0 crw-rw---- root:video" (what `ls -l` shows)."""
    out = []
    for name in names:
        path = dev / name
        if not _DEVICE_FILE.fullmatch(name) or os.access(path, os.R_OK | os.W_OK):
            continue
        try:
            st = path.stat()
        except OSError:
            continue
        out.append(f"/dev/{name} {stat.filemode(st.st_mode)} {_owner(st.st_uid, st.st_gid)}")
    return out


def _owner(uid: int, gid: int) -> str:
    try:
        import grp
        import pwd

        return f"{pwd.getpwuid(uid).pw_name}:{grp.getgrgid(gid).gr_name}"
    except (ImportError, KeyError):
        return f"{uid}:{gid}"


def parse_modules(text: str) -> dict[str, bool]:
    """Whether the nvidia and nouveau modules are loaded, from /proc/modules (lsmod text works too)."""
    names = {line.split()[0] for line in text.splitlines() if line.strip()}
    return {
        "nvidia": any(n == "nvidia" or n.startswith("nvidia_") for n in names),
        "nouveau": "nouveau" in names,
    }


def container_from(
    env: Mapping[str, str], cgroup: str | None, dockerenv: bool, containerenv: bool
) -> str | None:
    """docker|podman|kubernetes|apptainer|singularity|lxc from the usual markers, or None."""
    if env.get("KUBERNETES_SERVICE_HOST"):
        return "kubernetes"
    if env.get("APPTAINER_CONTAINER"):  # (Apptainer sets SINGULARITY_CONTAINER too, for compatibility)
        return "apptainer"
    if env.get("SINGULARITY_CONTAINER"):
        return "singularity"
    if containerenv:
        return "podman"
    if dockerenv:
        return "docker"
    if env.get("container") in _ENV_CONTAINER:
        return _ENV_CONTAINER[env["container"]]
    for marker, name in _CGROUP_MARKERS:
        if cgroup and marker in cgroup:
            return name
    return None


def _platform_name(system: str, wsl: int | None) -> str:
    system = system.lower()
    if system.startswith("win") or system.startswith(("cygwin", "msys")):
        return "windows"
    if system == "darwin":
        return "macos"
    return "wsl2" if wsl == 2 else "linux"


def parse_cpu_flags(cpuinfo: str) -> dict[str, bool] | None:
    """The first processor's flags that TensorFlow's wheels need: {"avx": ..., "avx2": ..., "fma": ...};
    None when /proc/cpuinfo has no flags line (not x86)."""
    for line in cpuinfo.splitlines()[:200]:
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            flags = set(value.split())
            return {name: name in flags for name in ("avx", "avx2", "fma", "avx512f")}
    return None


def nvidia_pci_devices(root: Path) -> list[dict[str, str]] | None:
    """NVIDIA display and 3D controllers on the PCI bus (vendor 0x10de, class 0x03xxxx), from sysfs;
    None when the bus cannot be read or shows nothing at all. Containers see the host's bus, so an empty list
    means no NVIDIA GPU is attached to this machine or VM at all."""
    bus = root / "sys/bus/pci/devices"
    try:
        slots = sorted(bus.iterdir())[:512]
    except OSError:
        return None
    if not slots:
        return None  # every real machine has PCI devices: a sandbox hides the bus, we cannot tell
    found = []
    for slot in slots:
        vendor = (_read(slot / "vendor") or "").strip().lower()
        klass = (_read(slot / "class") or "").strip().lower()
        if vendor == "0x10de" and klass.startswith("0x03"):
            device = (_read(slot / "device") or "").strip()
            found.append({"slot": slot.name, "device": device, "class": klass})
    return found


def _glibc() -> str | None:
    """The C library's version ("2.36") when it is glibc, without importing platform."""
    try:
        name, _, version = (os.confstr("CS_GNU_LIBC_VERSION") or "").partition(" ")
    except (AttributeError, ValueError, OSError):
        return None
    return version if name == "glibc" and version else None


def _uname() -> tuple[str, str, str]:
    """(system, release, machine) as platform.system()/release()/machine() say them, without
    importing platform (a quick check's single largest import) where os.uname exists."""
    if hasattr(os, "uname"):
        u = os.uname()
        return u.sysname, u.release, u.machine
    import platform

    return platform.system(), platform.release(), platform.machine()


def _user() -> str | None:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no passwd entry, no LOGNAME: unknown, not a crash
        return None


def _host_path(root: Path, path: Path) -> str:
    """How a path under root reads on the probed system."""
    return "/" + path.relative_to(root).as_posix()


def probe_system(
    root: Path = Path("/"), env: Mapping[str, str] | None = None, system: str | None = None
) -> dict[str, Any]:
    """System facts read under root; env defaults to os.environ, system to platform.system()."""
    env = dict(os.environ if env is None else env)
    sysname, release, machine = _uname()
    proc_version = _read(root / "proc/version")
    osrelease = _read(root / "proc/sys/kernel/osrelease")
    wsl = wsl_version(proc_version, osrelease)
    os_release = parse_os_release(_read(root / "etc/os-release") or _read(root / "usr/lib/os-release") or "")
    driver_raw = _read(root / "proc/driver/nvidia/version")
    modules_text = _read(root / "proc/modules")
    try:
        dev_nvidia = sorted(p.name for p in (root / "dev").glob("nvidia*"))
    except OSError:
        dev_nvidia = []
    cpuinfo = _read(root / "proc/cpuinfo")
    wsl_lib = root / "usr/lib/wsl/lib"
    wsl_libcuda = sorted(_host_path(root, p) for p in wsl_lib.glob("libcuda.so*")) if wsl_lib.is_dir() else []
    return {
        "platform": _platform_name(system or sysname, wsl),
        "wsl_version": wsl,
        "os": os_release.get("PRETTY_NAME") or os_release.get("NAME"),
        "os_id": os_release.get("ID"),
        "os_id_like": os_release.get("ID_LIKE"),
        "os_version_id": os_release.get("VERSION_ID"),
        "kernel": (osrelease or "").strip() or release or None,
        "machine": machine or None,
        "python_version": sys.version.split()[0],  # what platform.python_version() says
        "container": container_from(
            env,
            _read(root / "proc/1/cgroup"),
            (root / ".dockerenv").exists(),
            (root / "run/.containerenv").exists(),
        ),
        "hostname": socket.gethostname() or None,
        "user": _user(),
        "home": env.get("HOME") or None,
        "dev_nvidia": dev_nvidia,
        "dev_nvidia_denied": denied_device_files(root / "dev", dev_nvidia),
        "proc_driver_version": parse_driver_version(driver_raw) if driver_raw else None,
        "proc_driver_raw": driver_raw.strip() if driver_raw else None,
        "proc_driver_open": ("Open Kernel Module" in driver_raw) if driver_raw else None,
        "modules": parse_modules(modules_text) if modules_text is not None else None,
        "wsl_libcuda": wsl_libcuda,
        "pci_nvidia": nvidia_pci_devices(root) if (system or sysname).lower() == "linux" else None,
        "cpu_flags": parse_cpu_flags(cpuinfo) if cpuinfo else None,
        "glibc": _glibc(),
        "env": allowed_env(env),
        "env_complete": True,  # a variable not in env is unset (a paste shows only some)
    }


def probe(ctx: Context) -> dict[str, Any]:
    return probe_system(Path("/"), ctx.env)
