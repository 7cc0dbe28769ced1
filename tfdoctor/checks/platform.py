"""Can TensorFlow use a GPU on this platform at all: native Windows, WSL2's libcuda."""

from __future__ import annotations

import posixpath
from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor import versions as v
from tfdoctor.checks import check, skipped
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status

WSL_LIB = "/usr/lib/wsl/lib"


@check("platform.windows-native", "platform.ok")
def windows_native(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("system.platform", "system.os", "tensorflow.version", "tensorflow.installed")
    plat = fc.platform(facts)
    osname = fc.get(facts, "system", "os")
    if plat is None:
        return [
            skipped("platform.windows-native", "Platform not checked", fc.probe_error(facts, "system"), used)
        ]
    if plat in ("linux", "wsl2"):
        return [
            Finding(
                "platform.ok", Status.PASS,
                f"{'WSL2' if plat == 'wsl2' else 'Linux'}" + (f": {osname}" if osname else ""),
                facts=used
            )
        ]
    if plat != "windows":
        return []  # macOS: tensorflow.cpu-only-build / tensorflow.missing say it
    extra = fc.text(fc.get(facts, "runtime", "pip_cuda_extra")) or ""
    if extra.lower().startswith("jax"):  # the same for JAX: CUDA jaxlib wheels are built for Linux only
        return [
            Finding(
                "platform.windows-native",
                Status.FAIL,
                f"{extra} cannot give JAX a GPU on native Windows",
                detail="JAX publishes its CUDA builds for Linux only: on native Windows pip installs the CPU"
                " jaxlib. WSL2 runs the Linux build on the Windows driver.",
                plan=rm.plan(facts, P.system("wsl --install", "use WSL2: run it in an administrator"
                                             " PowerShell, then inside Ubuntu:"
                                             f" `python3 -m pip install '{extra}'`")),
                docs="https://docs.jax.dev/en/latest/installation.html",
                facts=used + ("runtime.pip_cuda_extra",),
            )
        ]
    version = fc.tf_version(facts) if fc.tf_installed(facts) else None
    if version is None and fc.get(facts, "tensorflow", "installed") is not False or not fc.gpu_context(facts):
        return []  # TensorFlow's version is unknown (not its absence), or nothing here is about the GPU
    if version and v.vtuple(version) and not v.version_ge(version, (2, 11)):
        return [
            Finding(
                "platform.ok",
                Status.PASS,
                f"Native Windows with TensorFlow {version} (GPU supported up to 2.10)",
                detail="Newer TensorFlow releases need WSL2 for the GPU.",
                docs=cat.TF_WINDOWS,
                facts=used,
            )
        ]
    what = f"TensorFlow {version}" if version else "Current TensorFlow releases"
    return [
        Finding(
            "platform.windows-native",
            Status.FAIL,
            f"{what} cannot use the GPU on native Windows",
            detail="TensorFlow 2.10 was the last release with GPU support on native Windows; from 2.11 the"
            " Windows build is CPU-only.",
            plan=rm.windows_gpu(facts),
            docs=cat.TF_WINDOWS,
            facts=used,
        )
    ]


def _under_wsl(path: str) -> bool:
    return posixpath.normpath(str(path)).startswith(WSL_LIB + "/")


@check("platform.wsl2-libcuda")
def wsl2_libcuda(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("system.platform", "system.wsl_libcuda", "libraries.loadable")
    if fc.platform(facts) != "wsl2":
        return []
    wsl = fc.get(facts, "system", "wsl_libcuda")
    if isinstance(wsl, list) and not any("libcuda.so" in str(p) for p in wsl):
        step, docs = rm.driver_action(facts)
        return [
            Finding(
                "platform.wsl2-libcuda",
                Status.FAIL,
                f"No libcuda.so in {WSL_LIB}",
                detail="WSL2 gets CUDA from the Windows NVIDIA driver, which maps libcuda.so into"
                " /usr/lib/wsl/lib;"
                " it is absent, so the Windows driver is missing or too old for WSL2.",
                plan=rm.plan(facts, step),
                docs=docs,
                facts=used,
            )
        ]
    libs = fc.section(facts, "libraries")
    # read from output alone: on WSL2 the driver is the Windows driver's libcuda, mapped in by WSL
    logged = [i for i in fc.failed_libraries(facts, "driver") if "libcuda" in str(i.get("library"))]
    # cuInit found no device: the libcuda that answered is not the Windows one, unless the Windows driver
    # itself is not reaching WSL2 (nvidia-smi, WSL's own, cannot talk to it: driver.missing says that)
    if not fc.container(facts) and not fc.log_items(facts, "no-driver"):
        logged += fc.cuda_errors(facts, "NO_DEVICE")
    # CUDA's own start-up missing a symbol ("named symbol not found", 500): Windows drivers 555 and newer add
    # libnvdxgdmal.so.1, which a container toolkit before 1.14.4 / 1.15.0 (Docker Desktop before 4.31) does
    # not map into containers (https://github.com/NVIDIA/nvidia-container-toolkit/issues/520)
    unmapped = fc.cuda_errors(facts, "NOT_FOUND")
    if libs is None and unmapped:
        return [
            Finding(
                "platform.wsl2-libcuda",
                Status.FAIL,
                "On WSL2, CUDA misses a symbol of the Windows driver's libraries (named symbol not found)",
                detail="Windows drivers 555 and newer add libnvdxgdmal.so.1 beside libcuda in"
                " /usr/lib/wsl/lib; an NVIDIA Container Toolkit before 1.14.4/1.15.0 (Docker Desktop before"
                " 4.31) does not map it into containers, and CUDA's start-up fails there with error 500.",
                plan=rm.plan(facts, P.note("Update the NVIDIA Container Toolkit (1.15 or newer) inside WSL2,"
                                           " or Docker Desktop (4.31 or newer); then restart Docker")),
                docs="https://github.com/NVIDIA/nvidia-container-toolkit/issues/520",
                facts=used,
                evidence=fc.quote(facts, unmapped),
            )
        ]
    if libs is None and logged:
        step, docs = rm.driver_action(facts)
        return [
            Finding(
                "platform.wsl2-libcuda",
                Status.FAIL,
                "On WSL2, CUDA found no usable libcuda from the Windows driver",
                detail="WSL2 gets CUDA from the Windows NVIDIA driver, whose libcuda.so WSL maps into"
                f" {WSL_LIB}; it was not found, or a Linux driver's libcuda installed inside WSL2 came"
                " first.",
                plan=rm.plan(facts, P.system(f"ls -l {WSL_LIB}/libcuda.so*; ldconfig -p | grep libcuda",
                                             f"the first libcuda should be {WSL_LIB}'s: remove a Linux NVIDIA"
                                             " driver installed inside WSL2 (only the CUDA toolkit belongs"
                                             f" there), and put {WSL_LIB} on LD_LIBRARY_PATH if a program"
                                             " opens plain libcuda.so"), step),
                docs=docs,
                facts=used,
                evidence=fc.quote(facts, logged),
            )
        ]
    stubs = [e for e in str(fc.env(facts).get("LD_LIBRARY_PATH") or "").split(":")
             if e.rstrip("/").endswith("/stubs")]
    if libs is None and stubs:  # the toolkit's stub libcuda.so, for linking only, put ahead of WSL's
        return [
            Finding(
                "platform.wsl2-libcuda",
                Status.FAIL,
                f"LD_LIBRARY_PATH puts the CUDA toolkit's stub libcuda ahead of WSL's: {stubs[0]}",
                detail="The toolkit's lib/stubs folder holds a libcuda.so meant only for linking; found"
                f" first, it stands in for the Windows driver's libcuda in {WSL_LIB}, and every CUDA call"
                " fails.",
                plan=rm.plan(facts, P.env("LD_LIBRARY_PATH", "$(echo \"$LD_LIBRARY_PATH\" | tr ':' '\\n'"
                                          " | grep -v '/stubs/*$' | paste -sd:)", "drops the stubs folder")),
                docs=cat.NV_WSL,
                facts=used + ("system.env",),
            )
        ]
    package = fc.get(facts, "system", "linux_driver_package")
    library = fc.get(facts, "system", "linux_driver_library")
    if libs is None and library and not package:  # a Linux driver's versioned library answered
        return [
            Finding(
                "platform.wsl2-libcuda",
                Status.FAIL,
                f"A Linux NVIDIA driver's library is installed inside WSL2: {library}",
                detail="WSL2 gets CUDA and NVML from the Windows NVIDIA driver, which maps its unversioned"
                f" libraries into {WSL_LIB}; a Linux driver's (named for its version) cannot talk to it,"
                " and comes first once ldconfig or LD_LIBRARY_PATH finds it.",
                plan=rm.plan(facts, P.system("dpkg -S " + library.split("/")[-1],
                                             "the package that installed it: remove it (only the CUDA toolkit"
                                             " belongs inside WSL2)")),
                docs=cat.NV_WSL,
                facts=used + ("system.linux_driver_library",),
            )
        ]
    if libs is None and package:  # a pasted package list
        return [
            Finding(
                "platform.wsl2-libcuda",
                Status.FAIL,
                f"A Linux NVIDIA driver package is installed inside WSL2: {package}",
                detail="WSL2 gets CUDA from the Windows NVIDIA driver, which maps its libcuda.so into"
                f" {WSL_LIB}; a Linux driver's libcuda installed inside WSL2 cannot talk to it, and comes"
                " first once ldconfig or LD_LIBRARY_PATH finds it.",
                plan=rm.plan(facts, P.system(f"sudo apt-get remove --purge '{package.rsplit('-', 1)[0]}-*'",
                                             "only the CUDA toolkit (cuda-toolkit-12-x, no `cuda` or"
                                             " `cuda-drivers` metapackage) belongs inside WSL2")),
                docs=cat.NV_WSL,
                facts=used + ("system.linux_driver_package",),
                confidence="likely",
            )
        ]
    if libs is None:
        return [
            skipped(
                "platform.wsl2-libcuda", "WSL2 libcuda not checked", fc.probe_error(facts, "libraries"), used
            )
        ]
    paths = [str(p) for p in fc.as_list(fc.as_dict(libs.get("loadable")).get("libcuda.so.1"))]
    foreign = [p for p in paths if not _under_wsl(p)]
    owner = "rpm -qf" if rm.distro(facts) in ("rhel", "fedora", "suse") else "dpkg -S"
    if paths and foreign and foreign[0] == paths[0]:
        first = paths[0]
        in_ldpath = posixpath.dirname(first) in [str(d) for d in fc.as_list(libs.get("ld_library_path"))]
        never = "never install a Linux NVIDIA driver inside WSL2 (only the CUDA toolkit without drivers)."
        fix = (
            rm.plan(facts, P.note(f"Remove {posixpath.dirname(first)} from LD_LIBRARY_PATH; {never}"))
            if in_ldpath
            else rm.plan(facts, P.system(f"{owner} {first}", "find the Linux driver package that owns it and"
                                         f" remove it; {never}"))
        )
        return [
            Finding(
                "platform.wsl2-libcuda",
                Status.FAIL,
                f"A Linux libcuda shadows WSL's: {first}",
                detail=f"libcuda.so.1 resolves to {first} before {WSL_LIB}; a Linux driver's libcuda"
                f" cannot talk to"
                " the Windows driver, so cuInit fails.",
                plan=fix,
                docs=cat.NV_WSL,
                facts=used,
            )
        ]
    if foreign:
        return [
            Finding(
                "platform.wsl2-libcuda",
                Status.WARN,
                f"A Linux libcuda is installed inside WSL2: {foreign[0]}",
                detail=f"{WSL_LIB} wins today, but a later ldconfig or LD_LIBRARY_PATH change may pick"
                f" the Linux one.",
                plan=rm.plan(facts, P.system(f"{owner} {foreign[0]}", "the Linux driver package that owns it:"
                                             " remove it")),
                docs=cat.NV_WSL,
                facts=used,
            )
        ]
    where = paths[0] if paths else (str(wsl[0]) if isinstance(wsl, list) and wsl else WSL_LIB)
    return [
        Finding(
            "platform.wsl2-libcuda", Status.PASS, f"WSL2 libcuda from the Windows driver: {where}", facts=used
        )
    ]
