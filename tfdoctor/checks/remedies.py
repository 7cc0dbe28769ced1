"""Remedies, written once: the commands a fix tells the user to run, tailored to the machine the
facts describe (pip vs conda, Ubuntu vs RHEL vs Fedora, WSL2, containers, the user's Python and
TensorFlow version).
"""

from __future__ import annotations

import re
from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import plan as P
from tfdoctor import versions as v
from tfdoctor.facts import as_list, distributions, get, gpus, in_conda, platform, tf_release, tf_version

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

# Where Ray is told a task or trial needs a GPU (it hands each worker only the GPUs requested)
RAY_REQUEST_GPUS = ("request GPUs where the work is declared: `@ray.remote(num_gpus=1)`, Tune's"
                    " `tune.with_resources(trainable, {'gpu': 1})` (older Tune:"
                    " `resources_per_trial={'gpu': 1}`), Ray Train's `ScalingConfig(use_gpu=True)`")


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
    found = v.vtuple(get(facts, "system", "os_version_id"))
    if found and 7 <= found[0] <= 10:
        return found[0]
    m = re.search(r"\b(\d{1,2})(?:\.\d+)?\b", str(get(facts, "system", "os") or ""))
    return int(m.group(1)) if m and 7 <= int(m.group(1)) <= 10 else 9


def python_path(facts: dict[str, Any]) -> str:
    """The target interpreter's path as the facts name it ("python" when unknown)."""
    path = get(facts, "tensorflow", "python")
    return path if isinstance(path, str) and path else "python"


# cmd.exe has no command substitution: the pip command runs inside a `for /f` over `pip show`'s Version line
TF_VERSION_VAR = "%v"


def plan(facts: dict[str, Any], *actions: P.Action) -> P.Plan:
    """A fix plan for the target interpreter of these facts (quoted for its platform's shell). A pip
    step that needs the shell (the installed version read by `$(...)`, or by cmd's `for /f`, when the
    facts lack it) is not an exact argv: it is stated for the user, never run."""
    shell = P.make(python_path(facts), windows=platform(facts) == "windows")

    def exact(a: P.Action) -> P.Action:
        if a.kind == "pip" and any(x.endswith("==" + TF_VERSION_VAR) for x in a.args):
            show = f"{shell.python_cmd()} -m pip show tensorflow ^| findstr /b \"Version:\""
            loop = f"for /f \"tokens=2\" {TF_VERSION_VAR} in ('{show}') do"
            return P.system(f"{loop} {shell.command(a)}", a.why)
        if a.kind == "pip" and any("$(" in x for x in a.args):
            return P.system(shell.command(a), a.why)
        return a

    return P.make(shell.python, *map(exact, actions), windows=shell.windows)


def python_cmd(facts: dict[str, Any]) -> str:
    """The target interpreter, quoted for the platform's shell."""
    return plan(facts).python_cmd()


def install(*requirements: str, why: str = "") -> P.Action:
    return P.pip("install", *requirements, why=why)


def uninstall(*names: str, why: str = "") -> P.Action:
    return P.pip("uninstall", "-y", *names, why=why)


def pip_install(facts: dict[str, Any], *requirements: str) -> str:
    """`PYTHON -m pip install 'req' ...` quoted for the platform's shell."""
    return plan(facts, install(*requirements)).text()


def tf_requirement(version: str, exact: bool = False) -> str:
    """'tensorflow[and-cuda]==2.15.*' (the extra exists from 2.14 on; plain 'tensorflow' before)."""
    name = "tensorflow[and-cuda]" if v.version_ge(version, (2, 14)) else "tensorflow"
    return f"{name}=={version}" if exact else f"{name}=={v.major_minor(version) or version}.*"


def pip_uninstall(facts: dict[str, Any], *names: str) -> str:
    return plan(facts, uninstall(*names)).text()


def conda_action(facts: dict[str, Any]) -> tuple[P.Action, ...]:
    """The note a conda env needs beside a pip step (none outside conda)."""
    text = conda_note(facts)
    return (P.note(text),) if text else ()


def conda_note(facts: dict[str, Any]) -> str:
    if not in_conda(facts):
        return ""
    return (
        " (conda env active: run pip from inside it — for TensorFlow >= 2.14 the pip wheels,"
        " not conda's cudatoolkit, provide CUDA)"
    )


def windows_gpu(facts: dict[str, Any]) -> P.Plan:
    """The two ways to a GPU from Windows: WSL2 with current TensorFlow, or native TensorFlow 2.10."""
    return plan(facts, P.system("wsl --install", "use WSL2: run it in an administrator PowerShell,"
                                " then inside Ubuntu: `python3 -m pip install 'tensorflow[and-cuda]'`"),
                P.note("; or stay native with TensorFlow 2.10:"
                       " `conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0` then"
                       f" `{pip_install(facts, 'tensorflow<2.11')}`"))


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
            f"Install or update the NVIDIA driver on Windows (not inside WSL): {cat.NV_DRIVER_DOWNLOAD},"
            " then run `wsl --shutdown` in PowerShell and reopen WSL. Never install a Linux"
            " NVIDIA driver inside WSL2.",
            cat.NV_WSL,
        )
    if plat == "windows":
        return (
            f"Install or update the NVIDIA driver for Windows: {cat.NV_DRIVER_DOWNLOAD}",
            cat.NV_DRIVER_DOWNLOAD,
        )
    if get(facts, "system", "container"):
        return (
            "The driver comes from the host: install or upgrade it there, then start the container"
            " with `--gpus all` (Docker; podman: `--device nvidia.com/gpu=all`) and the NVIDIA"
            " Container Toolkit.",
            cat.NV_CONTAINER,
        )
    family = distro(facts)
    if family == "ubuntu":
        pkg = f" nvidia:{branch}" if branch else ""
        return f"sudo ubuntu-drivers install{pkg} && sudo reboot", cat.UBUNTU_DRIVER
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
            cat.NV_DRIVER,
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
        cat.NV_DRIVER,
    )


def driver_action(facts: dict[str, Any], branch: str | None = None, why: str = "") -> tuple[P.Action, str]:
    """driver_install as a plan step: a command tfdoctor states (never runs) on a Linux distribution it
    knows, prose elsewhere."""
    text, docs = driver_install(facts, branch)
    command = platform(facts) == "linux" and not get(facts, "system", "container") and distro(facts)
    return (P.system(text, why) if command else P.note(text + (f" ({why})" if why else ""))), docs


def driver_branch_limit(facts: dict[str, Any], matrix: Any) -> tuple[str, str] | None:
    """(architecture, last driver branch) of the oldest GPU here whose architecture NVIDIA no longer
    supports in new drivers (e.g. ("Kepler", "470")); None when every known GPU is current."""
    lookup = getattr(matrix, "architecture", None)
    if lookup is None:
        return None
    known, _ = gpus(facts)
    known = known + [g for g in as_list(get(facts, "runtime", "gpus")) if isinstance(g, dict)]
    worst: tuple[str, str] | None = None
    for g in known:
        cc = g.get("compute_capability")
        if not cc and g.get("name"):
            model = matrix.gpu(str(g["name"]))
            cc = getattr(model, "compute_capability", None)
        arch = lookup(str(cc)) if cc else None
        major = getattr(arch, "last_driver_major", None) if arch is not None else None
        last = str(major) if major else None  # "470" for the R470 branch
        if last and (worst is None or v.vtuple(last) < v.vtuple(worst[1])):
            worst = (str(getattr(arch, "name", "this")), last)
    return worst


# TF 2.12/2.13 were built for CUDA 11.8 and cuDNN 8.6 but predate the `and-cuda` extra, and their
# libraries' RUNPATH does not list the pip wheels' folders: the wheels plus LD_LIBRARY_PATH, as
# TensorFlow's own 2.12/2.13 install instructions did (https://www.tensorflow.org/install/pip,
# tensorflow/docs site/en/install/pip.md at r2.12/r2.13: nvidia-cudnn-cu11==8.6.0.163).
CU11_WHEELS = (
    "nvidia-cuda-runtime-cu11==11.8.89", "nvidia-cublas-cu11==11.11.3.6", "nvidia-cufft-cu11==10.9.0.58",
    "nvidia-curand-cu11==10.3.0.86", "nvidia-cusolver-cu11==11.4.1.48", "nvidia-cusparse-cu11==11.7.5.86",
    "nvidia-cudnn-cu11==8.6.0.163",
)
WHEEL_LIB_PATH = (
    "export LD_LIBRARY_PATH=$({py} -c 'import glob, os, nvidia; "
    "print(\":\".join(glob.glob(os.path.join(nvidia.__path__[0], \"*\", \"lib\"))))')"
    "${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"
)
NVCC_PATH = ("export PATH=$({py} -c 'import os, nvidia.cuda_nvcc as n;"
             " print(os.path.join(n.__path__[0], \"bin\"))'):$PATH")


def searches_wheels(facts: dict[str, Any]) -> bool:
    """Whether this TensorFlow finds the pip nvidia wheels by itself (2.14+: its RUNPATH lists them)."""
    version = tf_version(facts)
    return not version or v.version_ge(version, (2, 14))


def wheel_lib_hook(facts: dict[str, Any], why: str = "") -> P.Action:
    """The activation line that puts the pip nvidia wheels' lib folders on LD_LIBRARY_PATH."""
    return P.hook(WHEEL_LIB_PATH.format(py=python_cmd(facts)), why=why)


def wheel_plan(facts: dict[str, Any], *requirements: str, ld_path: bool | None = None) -> P.Plan:
    """Install nvidia-* wheels, plus the LD_LIBRARY_PATH hook TF 2.12/2.13 need to find them
    (ld_path: force it on or off; by default, when this TensorFlow does not search the wheels)."""
    actions = [install(*requirements), *conda_action(facts)]
    if ld_path if ld_path is not None else not searches_wheels(facts):
        actions.insert(1, wheel_lib_hook(facts, "TensorFlow 2.12/2.13 look for CUDA only on LD_LIBRARY_PATH"))
    return plan(facts, *actions)


def nvcc_plan(facts: dict[str, Any], cu: int | None, why: str = "") -> P.Plan:
    """Install the ptxas wheel; TF 2.12/2.13 search only PATH for it, so put its bin/ there too."""
    if searches_wheels(facts):
        return plan(facts, install(f"nvidia-cuda-nvcc-cu{cu}", why=why))
    # Stated, not run by `fix`: XLA in TF 2.12/2.13 prefers a CUDA folder such as /usr/local/cuda over
    # PATH, so no check can prove that the wheel's ptxas is the one it uses.
    mm = v.major_minor(tf_version(facts))
    return plan(facts, P.system(pip_install(facts, f"nvidia-cuda-nvcc-cu{cu}")),
                P.system(NVCC_PATH.format(py=python_cmd(facts)),
                         why or f"TensorFlow {mm} looks for ptxas on PATH only"))


def keep_tf_version(facts: dict[str, Any]) -> str:
    """A pip requirement that reinstalls the user's TensorFlow with its CUDA wheels, same version (on
    macOS and native Windows, which have no CUDA wheels, the installed distribution as it is)."""
    version = tf_version(facts)
    if platform(facts) in ("macos", "windows"):
        return tf_pin(facts)
    if version:
        return tf_requirement(version, exact=True)
    return _current_tf(facts)


def tf_pin(facts: dict[str, Any]) -> str:
    """The installed TensorFlow distribution at its exact version, no extra ('tensorflow==2.15.1',
    'tensorflow-cpu==2.21.0'): beside another requirement it keeps pip's resolver from moving it."""
    dists = distributions(facts)
    for name in ("tensorflow", "tensorflow-cpu", "tensorflow-intel", "tensorflow-gpu", "tf-nightly"):
        if name in dists:
            return f"{name}=={dists[name]}"
    version = tf_version(facts)
    return f"tensorflow=={version}" if version else _current_tf(facts, extra=platform(facts) == "linux")


def _current_tf(facts: dict[str, Any], extra: bool = True) -> str:
    """The installed version, read by the shell when the facts do not have it."""
    name = "tensorflow[and-cuda]" if extra else "tensorflow"
    if platform(facts) == "windows":
        return f"{name}=={TF_VERSION_VAR}"
    return f"{name}==$({python_cmd(facts)} -m pip show tensorflow | sed -n 's/^Version: //p')"


def cuda_plan(facts: dict[str, Any], matrix: Any, cuda_major: int | None = None) -> P.Plan:
    """What gives this TensorFlow the CUDA libraries it was built for, keeping its version."""
    version = tf_version(facts)
    plat = platform(facts)
    # (a release before the matrix's first: its tested CUDA and cuDNN)
    release = tf_release(matrix, facts) or (matrix.older_release(version) if version else None)
    if plat == "macos":  # TensorFlow's macOS GPU builds (up to 1.1) load the CUDA toolkit's own dylibs
        return plan(facts, P.note("TensorFlow's macOS GPU builds (1.1 and older) load CUDA from NVIDIA's CUDA"
                                  " toolkit for macOS: install the CUDA and cuDNN it was built for and put"
                                  " their lib folder on DYLD_LIBRARY_PATH; TensorFlow 1.2 and newer have no"
                                  " CUDA support on macOS"))
    if plat == "windows":
        cuda = getattr(release, "cuda", None) or "11.2"
        cudnn = getattr(release, "cudnn", None) or "8.1"
        return plan(facts, P.system(f"conda install -c conda-forge cudatoolkit={cuda} cudnn={cudnn}",
                                    "TensorFlow <= 2.10 on native Windows; newer releases need WSL2"))
    if version and v.version_ge(version, (2, 14)) or not version and cuda_major != 11:
        return plan(facts, install(keep_tf_version(facts)), *conda_action(facts))
    if version and v.version_ge(version, (2, 12)) or not version and cuda_major == 11:
        return wheel_plan(facts, *CU11_WHEELS, ld_path=True)
    cuda = getattr(release, "cuda", None)
    cudnn = getattr(release, "cudnn", None)
    if cuda and cudnn:
        return plan(facts, P.system(
            f"conda install -c conda-forge cudatoolkit={cuda} cudnn={cudnn}",
            f"the CUDA and cuDNN TensorFlow {version} was built for; outside conda, install them and add"
            " their lib64 to LD_LIBRARY_PATH"))
    return plan(facts, P.system(
        f"Install the CUDA toolkit and cuDNN TensorFlow {version or ''} was built for (see "
        f"{cat.TF_BUILDS}) and add their lib64 folder to LD_LIBRARY_PATH".replace("  ", " ")))


def cuda_libraries(facts: dict[str, Any], matrix: Any, cuda_major: int | None = None) -> str:
    return cuda_plan(facts, matrix, cuda_major).text()


def memory_growth(facts: dict[str, Any], matrix: Any) -> P.Plan:
    """Let TensorFlow take GPU memory as it needs it (cuDNN/cuBLAS failing to start, usually memory)."""
    return plan(facts, P.env("TF_FORCE_GPU_ALLOW_GROWTH", "true", why="let TensorFlow take GPU memory as it"
                             " needs it; check `nvidia-smi` for other processes holding memory"),
                P.note(f"If it persists, reinstall the CUDA libraries: `{cuda_libraries(facts, matrix)}`"))
