"""Shared helpers for the core checks: read facts safely, compare versions, tailor fixes.

Every reader returns None (or an empty container) for a missing, null or failed probe
section, so checks never raise on partial facts. Fix builders derive the platform (pip vs
conda, Ubuntu vs RHEL vs Fedora, WSL2, containers) from the facts alone.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from tfdoctor.model import Finding, Status

DOCS_TF_PIP = "https://www.tensorflow.org/install/pip"
DOCS_TF_BUILDS = "https://www.tensorflow.org/install/source#gpu"
DOCS_DRIVER = "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/index.html"
DOCS_UBUNTU_DRIVER = "https://ubuntu.com/server/docs/nvidia-drivers-installation"
DOCS_WSL = "https://docs.nvidia.com/cuda/wsl-user-guide/index.html"
DOCS_CONTAINER = "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html"
DOCS_CUDA_COMPAT = "https://docs.nvidia.com/deploy/cuda-compatibility/"
DOCS_CUDA_ENV = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars"
DOCS_CUDA_GPUS = "https://developer.nvidia.com/cuda-gpus"
DRIVER_DOWNLOAD = "https://www.nvidia.com/Download/index.aspx"


# --- reading facts ---------------------------------------------------------------------------


def section(facts: dict[str, Any], name: str) -> dict[str, Any] | None:
    """A probe's facts, or None when absent, not a dict, or the probe failed."""
    sec = facts.get(name) if isinstance(facts, dict) else None
    if not isinstance(sec, dict) or sec.get("probe_failed"):
        return None
    return sec


def probe_error(facts: dict[str, Any], name: str) -> str:
    """Plain words for why a probe's facts are missing."""
    sec = facts.get(name) if isinstance(facts, dict) else None
    if isinstance(sec, dict) and sec.get("error"):
        return f"the {name} probe failed: {sec['error']}"
    return f"no {name} facts were gathered"


def get(facts: dict[str, Any], name: str, key: str) -> Any:
    sec = section(facts, name)
    return sec.get(key) if sec else None


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def platform(facts: dict[str, Any]) -> str | None:
    """linux | wsl2 | windows | macos, or None when unknown."""
    value = get(facts, "system", "platform")
    return value if isinstance(value, str) else None


def env(facts: dict[str, Any]) -> dict[str, str]:
    return as_dict(get(facts, "system", "env"))


def in_conda(facts: dict[str, Any]) -> bool:
    return bool(env(facts).get("CONDA_PREFIX"))


def driver_version(facts: dict[str, Any]) -> tuple[str | None, str | None]:
    """(version, source): NVML first, then nvidia-smi, then /proc/driver/nvidia/version."""
    for probe, key in (
        ("nvml", "driver_version"),
        ("nvidia_smi", "driver_version"),
        ("system", "proc_driver_version"),
    ):
        value = get(facts, probe, key)
        if isinstance(value, str) and value.strip():
            return value.strip(), probe
    return None, None


def distributions(facts: dict[str, Any]) -> dict[str, str]:
    """Installed distributions of the target env, names normalized (PEP 503)."""
    merged: dict[str, str] = {}
    for raw in (get(facts, "libraries", "pip_nvidia"), get(facts, "tensorflow", "distributions")):
        for name, version in as_dict(raw).items():
            merged[norm_name(str(name))] = str(version)
    return merged


def norm_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def tf_installed(facts: dict[str, Any]) -> bool:
    return bool(get(facts, "tensorflow", "installed"))


def tf_version(facts: dict[str, Any]) -> str | None:
    value = get(facts, "tensorflow", "version")
    return value if isinstance(value, str) and value else None


def build_info(facts: dict[str, Any]) -> dict[str, Any]:
    return as_dict(get(facts, "tensorflow", "build_info"))


def tf_release(matrix: Any, facts: dict[str, Any]) -> Any:
    version = tf_version(facts)
    if not version or matrix is None:
        return None
    try:
        return matrix.tf_release(version)
    except Exception:  # noqa: BLE001 - an unparsable version is "not in the matrix"
        return None


def norm_cuda(value: Any) -> str | None:
    """'12.5.1' stays; Windows build_info's '64_112' becomes '11.2'; junk becomes None."""
    if value is None:
        return None
    text = str(value).strip()
    win = re.fullmatch(r"64_(\d{2,3})(\d)", text)
    if win:
        return f"{int(win.group(1))}.{win.group(2)}"
    return text if re.fullmatch(r"\d+(\.\d+)*", text) else None


def norm_cudnn(value: Any) -> str | None:
    """'9' / '9.3' stay; Windows '64_8' becomes '8'."""
    if value is None:
        return None
    text = str(value).strip()
    if text.startswith("64_"):
        text = text[3:]
    return text if re.fullmatch(r"\d+(\.\d+)*", text) else None


def tf_cuda(facts: dict[str, Any], matrix: Any) -> tuple[str | None, str]:
    """The CUDA version the installed TF was built for, and where that came from."""
    built = norm_cuda(build_info(facts).get("cuda_version"))
    if built:
        return built, "tensorflow.build_info.cuda_version"
    release = tf_release(matrix, facts)
    if release is not None and getattr(release, "cuda", None):
        return str(release.cuda), "compat matrix"
    return None, ""


def vtuple(version: Any) -> tuple[int, ...]:
    """'580.65.06' -> (580, 65, 6); leading numeric parts only; () when none."""
    parts = []
    for piece in str(version or "").strip().split("."):
        m = re.match(r"\d+", piece)
        if not m:
            break
        parts.append(int(m.group()))
        if m.group() != piece:
            break
    return tuple(parts)


def major(version: Any) -> int | None:
    parts = vtuple(version)
    return parts[0] if parts else None


def major_minor(version: Any) -> str | None:
    parts = vtuple(version)
    return ".".join(map(str, parts[:2])) if len(parts) >= 2 else None


def all_releases(matrix: Any) -> list[Any]:
    """Every TF release in the matrix, newest first, via the public API only."""
    releases = getattr(matrix, "tensorflow", None)
    if isinstance(releases, (list, tuple)) and releases:
        return sorted(releases, key=lambda r: vtuple(r.version), reverse=True)
    newest = matrix.newest_tf()
    top = vtuple(newest.version)
    found = []
    for minor in range(top[1] if len(top) > 1 else 0, -1, -1):
        rel = matrix.tf_release(f"{top[0]}.{minor}")
        if rel is not None:
            found.append(rel)
    return found


# --- tailoring fixes -------------------------------------------------------------------------


FAMILIES = (
    ("ubuntu", ("ubuntu", "pop", "linuxmint", "linux mint")),
    ("debian", ("debian",)),
    (
        "rhel",
        ("rhel", "red hat", "rocky", "almalinux", "centos", "ol", "oracle linux", "amzn", "amazon linux"),
    ),
    ("fedora", ("fedora",)),
    ("suse", ("suse", "sles", "opensuse", "sled")),
    ("arch", ("arch", "manjaro")),
)


def distro(facts: dict[str, Any]) -> str | None:
    """ubuntu | debian | rhel | fedora | suse | arch: os-release ID first, then the name, then ID_LIKE."""
    for key in ("os_id", "os", "os_id_like"):
        raw = str(get(facts, "system", key) or "").lower()
        words = set(re.findall(r"[a-z0-9!_]+", raw))
        for family, names in FAMILIES:
            if any((n in raw) if " " in n else (n in words) for n in names):
                return family
    return None


def rhel_major(facts: dict[str, Any]) -> int:
    found = vtuple(get(facts, "system", "os_version_id"))
    if found and 7 <= found[0] <= 10:
        return found[0]
    m = re.search(r"\b(\d{1,2})(?:\.\d+)?\b", str(get(facts, "system", "os") or ""))
    return int(m.group(1)) if m and 7 <= int(m.group(1)) <= 10 else 9


def python_cmd(facts: dict[str, Any]) -> str:
    """The target interpreter, quoted for the platform's shell."""
    path = get(facts, "tensorflow", "python")
    if not isinstance(path, str) or not path:
        return "python"
    if platform(facts) == "windows":
        return f'"{path}"' if " " in path else path
    return shlex.quote(path)


def pip_install(facts: dict[str, Any], *requirements: str) -> str:
    """`PYTHON -m pip install 'req' ...` quoted for the platform's shell."""
    q = (lambda r: f'"{r}"') if platform(facts) == "windows" else shlex.quote
    return f"{python_cmd(facts)} -m pip install " + " ".join(q(r) for r in requirements)


def tf_requirement(version: str, exact: bool = False) -> str:
    """'tensorflow[and-cuda]==2.15.*' (the extra exists from 2.14 on; plain 'tensorflow' before)."""
    name = "tensorflow[and-cuda]" if version_ge(version, (2, 14)) else "tensorflow"
    return f"{name}=={version}" if exact else f"{name}=={major_minor(version) or version}.*"


def version_ge(version: Any, floor: tuple[int, ...]) -> bool:
    parts = vtuple(version)
    return bool(parts) and parts >= floor


def pip_uninstall(facts: dict[str, Any], *names: str) -> str:
    return f"{python_cmd(facts)} -m pip uninstall -y " + " ".join(names)


def conda_note(facts: dict[str, Any]) -> str:
    if not in_conda(facts):
        return ""
    return (
        " (conda env active: run pip from inside it — for TensorFlow >= 2.14 the pip wheels,"
        " not conda's cudatoolkit, provide CUDA)"
    )


def nouveau_blacklist(facts: dict[str, Any]) -> str:
    initramfs = "sudo update-initramfs -u" if distro(facts) in ("ubuntu", "debian") else "sudo dracut --force"
    return (
        "printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | "
        f"sudo tee /etc/modprobe.d/blacklist-nouveau.conf && {initramfs}"
    )


def driver_install(facts: dict[str, Any], branch: str | None = None) -> tuple[str, str]:
    """(command or action, docs URL) to install or upgrade the NVIDIA driver here."""
    plat = platform(facts)
    if plat == "wsl2":
        return (
            f"Install or update the NVIDIA driver on Windows (not inside WSL): {DRIVER_DOWNLOAD},"
            " then run `wsl --shutdown` in PowerShell and reopen WSL. Never install a Linux"
            " NVIDIA driver inside WSL2.",
            DOCS_WSL,
        )
    if plat == "windows":
        return f"Install or update the NVIDIA driver for Windows: {DRIVER_DOWNLOAD}", DRIVER_DOWNLOAD
    if get(facts, "system", "container"):
        return (
            "The driver comes from the host: install or upgrade it there, then start the container"
            " with `--gpus all` (Docker; podman: `--device nvidia.com/gpu=all`) and the NVIDIA"
            " Container Toolkit.",
            DOCS_CONTAINER,
        )
    family = distro(facts)
    if family == "ubuntu":
        pkg = f" nvidia:{branch}" if branch else ""
        return f"sudo ubuntu-drivers install{pkg} && sudo reboot", DOCS_UBUNTU_DRIVER
    if family == "debian":
        return (
            "sudo apt install nvidia-driver firmware-misc-nonfree && sudo reboot"
            "  # needs the contrib/non-free components",
            "https://wiki.debian.org/NvidiaGraphicsDrivers",
        )
    if family == "rhel":
        n = rhel_major(facts)
        arch = "sbsa" if get(facts, "system", "machine") == "aarch64" else "x86_64"
        repo = f"https://developer.download.nvidia.com/compute/cuda/repos/rhel{n}/{arch}/cuda-rhel{n}.repo"
        stream = f"{branch}-open" if branch else "open-dkms"
        enable = f" && sudo dnf module enable -y nvidia-driver:{stream}" if n < 10 else ""
        return (
            f"sudo dnf config-manager --add-repo {repo}{enable} && sudo dnf install -y nvidia-open"
            " && sudo reboot",
            DOCS_DRIVER,
        )
    if family == "fedora":
        return (
            "sudo dnf install https://mirrors.rpmfusion.org/nonfree/fedora/"
            "rpmfusion-nonfree-release-$(rpm -E %fedora).noarch.rpm && sudo dnf install akmod-nvidia"
            " && sudo reboot",
            "https://rpmfusion.org/Howto/NVIDIA",
        )
    return (
        "Install the NVIDIA driver with your distribution's package manager (see the NVIDIA driver"
        " installation guide), then reboot",
        DOCS_DRIVER,
    )


def skip(fid: str, title: str, reason: str, facts_used: tuple[str, ...] = ()) -> Finding:
    return Finding(fid, Status.SKIP, title, detail=reason, facts=facts_used)
