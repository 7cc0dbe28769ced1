"""CUDA user-space libraries: what TensorFlow will load (pip wheels, ld cache, LD_LIBRARY_PATH), cuDNN,
and what the system toolkit (nvcc) does and does not matter for."""

from __future__ import annotations

import posixpath
import shlex
from dataclasses import replace
from typing import Any, Callable

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor import stackerrors
from tfdoctor import versions as v
from tfdoctor.checks import check, moot_without_gpu, skipped
from tfdoctor.checks import remedies as rm
from tfdoctor.checks.tensorflow import CPU_DISTS
from tfdoctor.model import Finding, Status


def cuda_target(facts: dict[str, Any], matrix: Any) -> tuple[str | None, str]:
    """TF's CUDA version, or None with the reason these checks do not apply."""
    if fc.section(facts, "tensorflow") is None:
        return None, fc.probe_error(facts, "tensorflow")
    if not fc.tf_installed(facts):
        return None, "TensorFlow is not installed (see tensorflow.missing)."
    if fc.platform(facts) in ("windows", "macos"):
        return None, "Only Linux and WSL2 load CUDA libraries from pip wheels and the ld cache."
    if fc.build_info(facts).get("is_cuda_build") is False:
        return None, "The installed TensorFlow is not a CUDA build (see tensorflow.cpu-only-build)."
    cuda, _ = fc.tf_cuda(facts, matrix)
    if not cuda or v.major(cuda) is None:
        return None, "The CUDA version TensorFlow was built for is unknown."
    return cuda, ""


def loadable(facts: dict[str, Any], stem: str, major: int | str) -> list[str]:
    """Paths of `stem.so.MAJOR*` in the ld cache / LD_LIBRARY_PATH (CUDA 11's cudart is libcudart.so.11.0)."""
    loadable = fc.as_dict(fc.get(facts, "libraries", "loadable"))
    prefix = f"{stem}.so.{major}"
    return [
        str(p)
        for name, paths in loadable.items()
        if name == prefix or str(name).startswith(prefix + ".")
        for p in fc.as_list(paths)
    ]


def _missing_by_evidence(facts: dict[str, Any]) -> tuple[list[str], int | None, list[dict[str, Any]]]:
    """CUDA runtime libraries the log says could not be loaded: (names, their CUDA major, items)."""
    items = fc.failed_libraries(facts, "cuda-runtime")
    names = list(dict.fromkeys(str(i.get("library")) for i in items))
    majors = {m for m in (v.library_cuda_major(n) for n in names) if m}
    generic = fc.log_items(facts, "cudart-stub")
    if not items and not fc.failed_libraries(facts, "cudnn"):
        generic += fc.log_items(facts, "gpu-libs-skipped")
    return names, (min(majors) if majors else None), items + generic


@check("cuda.libraries-missing", "cuda.libraries-ok")
@moot_without_gpu
def libraries_present(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = (
        "tensorflow.build_info.cuda_version",
        "tensorflow.distributions",
        "libraries.loadable",
        "libraries.pip_nvidia",
        "log.evidence",
    )
    names, log_major, items = _missing_by_evidence(facts)
    other = {i.get("line") for i in fc.cudnn_for_other_cuda(facts, matrix)[0]}
    if other:  # cuDNN's own loader asking for another CUDA's library: cudnn.version-mismatch says so
        items = [i for i in items if i.get("line") not in other]
        names = list(dict.fromkeys(str(i.get("library")) for i in items if i.get("library")))
    cuda, why = cuda_target(facts, matrix)
    missing, found, unseen = [], [], []
    cu = v.major(cuda) if cuda else None
    dists = fc.distributions(facts)
    for stem, wheel in (("libcudart", f"nvidia-cuda-runtime-cu{cu}"), ("libcublas", f"nvidia-cublas-cu{cu}")):
        if cu is None:
            break
        if wheel in dists and wheel_reachable(facts, wheel) is not False:
            found.append(f"{wheel} {dists[wheel]}")
        elif loadable(facts, stem, cu):
            found.append(loadable(facts, stem, cu)[0])
        elif wheel in dists:
            unseen.append(wheel)
        else:
            missing.append(f"{stem}.so.{cu} ({wheel})")
    if unseen:  # installed where this TensorFlow does not look: the log's failed dlopen says the same
        return [unreachable(facts, unseen, used, items=items)]
    trt = fc.log_items(facts, "tensorrt-needed")
    if trt and not items:  # (CUDA's own libraries missing come first: TensorRT needs them too)
        return [_tensorrt_needed(facts, trt, used)]
    stub = fc.noise_seen(facts, "cudart-stub-notice")
    no_gpu = fc.get(facts, "system", "no_gpu_stated")  # (then CUDA's own probes failing say the same)
    if items and stub and (no_gpu or not fc.gpu_shown(facts) and fc.other_failure(facts)):
        return [skipped("cuda.libraries-missing", "CUDA libraries not loaded, and no GPU shown",
                        "TensorFlow's own note says the CUDA runtime it could not load matters only on a"
                        " machine with a GPU; this output shows none, and "
                        + ("says the machine has none." if no_gpu else "fails for another reason."), used)]
    if items:
        found = _missing(facts, matrix, cuda, names, log_major, [], items, used)
        # a TensorFlow from the user site asks for the CUDA its own release was built with
        return [replace(found, caused_by="tensorflow.conflicting-installs") if fc.tf_from_user_site(facts)
                else found]
    if fc.get(facts, "runtime", "xla_gpus") and not fc.get(facts, "runtime", "gpus") \
            and not fc.get(facts, "runtime", "tf_visible_gpus") \
            and not fc.log_items(facts, "dlopen-failed", "cuinit"):
        # (where the log names the library that failed, or cuInit's failure, that failure is the finding)
        return [Finding(
            "cuda.libraries-missing",
            Status.FAIL,
            "TensorFlow lists the GPU only as an XLA_GPU: it could not load its CUDA libraries",
            detail="TensorFlow 2.0-2.3 registers an XLA_GPU device wherever the driver answers, and a GPU"
            " device only once it has loaded the CUDA runtime, cuBLAS, cuDNN and the rest of the CUDA"
            f"{f' {cu}' if cu else ''} it was built with; here it did not.",
            plan=rm.cuda_plan(facts, matrix, cu),
            facts=("runtime.xla_gpus", "runtime.tf_visible_gpus") + used,
            confidence="likely",
        )]
    if cuda is None:
        return [skipped("cuda.libraries-missing", "CUDA libraries not checked", why, used)]
    # (in a paste: where the libraries were probed, the probe says which load)
    toolkit = _toolkit_of_other_libraries(facts, cuda) if fc.section(facts, "libraries") is None else None
    if toolkit and fc.get(facts, "runtime", "tf_visible_gpus") == 0 and fc.gpu_shown(facts) \
            and not fc.gpu_evidence(facts) and not fc.other_failure(facts):
        soname = f"libcudart.so.{cuda if (v.major(cuda) or 0) <= 10 else cu}"
        return [Finding(
            "cuda.libraries-missing",
            Status.FAIL,
            f"TensorFlow lists no GPU: it loads CUDA {cuda}'s libraries ({soname}), and the CUDA toolkit"
            f" here is {toolkit}",
            detail=f"TensorFlow {rm.tf_version(facts)} takes its CUDA libraries from the system (no pip"
            " wheels before 2.14); their file names carry the CUDA release (the major, and before CUDA 11 the"
            f" minor too), so CUDA {toolkit}'s libraries are not the ones it opens. Without them it registers"
            " no GPU and runs on the CPU.",
            plan=rm.cuda_plan(facts, matrix, cu),
            facts=("nvcc.version", "runtime.tf_visible_gpus") + used,
            confidence="likely",
        )]
    if _driver_shows_gpu_tf_none(facts):
        return [Finding(
            "cuda.libraries-missing",
            Status.FAIL,
            f"TensorFlow lists no GPU where the driver shows one: it did not load CUDA {cuda}'s libraries",
            detail=f"TensorFlow {rm.tf_version(facts)} is a GPU build, the driver sees the GPU, and nothing"
            " else in this output fails; what is left between them is the CUDA runtime, cuBLAS, cuDNN and the"
            f" other CUDA {cu} libraries TensorFlow opens at start-up (from the nvidia-* pip wheels since"
            " 2.14, `pip install tensorflow[and-cuda]`; from the system before): without them it registers no"
            " GPU.",
            plan=rm.cuda_plan(facts, matrix, cu),
            facts=("runtime.tf_visible_gpus", "nvidia_smi.driver_version") + used,
            confidence="likely",
        )]
    if not missing:
        return [Finding("cuda.libraries-ok", Status.PASS, f"CUDA {cu} runtime libraries: " + ", ".join(found),
                        facts=used)]
    if fc.section(facts, "libraries") is None:
        return [
            skipped(
                "cuda.libraries-missing",
                "CUDA libraries not checked",
                f"No pip wheel provides {', '.join(missing)}, and {fc.probe_error(facts, 'libraries')}.",
                used,
            )
        ]
    return [_missing(facts, matrix, cuda, [], cu, missing, [], used)]


def _driver_shows_gpu_tf_none(facts: dict[str, Any]) -> bool:
    """Whether pasted text shows TensorFlow (2.1+, whose one package is the GPU build, and no CPU-only package
    listed) listing no GPU on Linux where the driver shows one (its version, nvidia-smi, a hosted notebook's
    GPU runtime), and nothing else failing: no GPU error, no package or program error."""
    version = fc.tf_version(facts)
    driver = (fc.driver_version(facts)[0] or fc.section(facts, "nvidia_smi")
              or fc.hinted(facts, "nvidia-smi-named") or fc.hinted(facts, "hosted-notebook"))
    return bool(
        fc.get(facts, "runtime", "tf_visible_gpus") == 0 and fc.section(facts, "libraries") is None
        and version and v.version_ge(version, (2, 1)) and fc.platform(facts) in ("linux", "wsl2")
        and driver and fc.gpu_shown(facts) and not fc.other_vendor_only(facts)
        and not set(CPU_DISTS) & set(fc.distributions(facts)) and not fc.log_items(facts, "cpu-build")
        and not fc.gpu_evidence(facts) and not fc.other_failure(facts)
    )


def _toolkit_of_other_libraries(facts: dict[str, Any], cuda: str) -> str | None:
    """The system CUDA toolkit's version (nvcc's) where its libraries' file names are not the ones this
    TensorFlow opens (libcudart.so.10.1 is CUDA 10.1's alone; from CUDA 11 the major names them), for a
    TensorFlow that takes them from the system (before 2.14); else None."""
    nvcc = fc.section(facts, "nvcc") or {}
    toolkit = str(nvcc.get("version") or "")
    if not toolkit or rm.searches_wheels(facts) or not v.major(toolkit):
        return None
    if (v.major(cuda) or 0) <= 10 or (v.major(toolkit) or 0) <= 10:
        return toolkit if v.major_minor(toolkit) != v.major_minor(cuda) else None
    return toolkit if v.major(toolkit) != v.major(cuda) else None


def wheel_reachable(facts: dict[str, Any], wheel: str) -> bool | None:
    """Whether TensorFlow's loader finds an installed nvidia-* wheel's libraries: through the RUNPATH
    of its own libraries (TF >= 2.14 lists ../../nvidia/<package>/lib), LD_LIBRARY_PATH, or because
    the worker saw them loaded. None when unknown (no RUNPATH read)."""
    dirs = [str(d) for w in fc.as_list(fc.get(facts, "libraries", "pip_nvidia_wheels"))
            if isinstance(w, dict) and fc.norm_name(str(w.get("name", ""))) == wheel
            for d in fc.as_list(w.get("lib_dirs"))]
    packages = {posixpath.basename(posixpath.dirname(d.rstrip("/"))) for d in dirs}
    runpath = fc.get(facts, "tensorflow", "runpath_nvidia")
    reached = set(fc.as_list(fc.get(facts, "tensorflow", "runpath_nvidia_packages")))
    if runpath is True and (not packages or packages & reached):
        return True
    ld_path = {posixpath.normpath(str(d)) for d in fc.as_list(fc.get(facts, "libraries", "ld_library_path"))}
    if any(posixpath.normpath(d) in ld_path for d in dirs):
        return True
    loaded = [str(lib.get("path") or "") for lib in fc.as_list(fc.get(facts, "runtime", "loaded_libraries"))
              if isinstance(lib, dict)]
    if any(p.startswith(d.rstrip("/") + "/") for d in dirs for p in loaded):
        return True
    return False if runpath is False else None


def unreachable(facts: dict[str, Any], wheels: list[str], used: tuple[str, ...],
                fid: str = "cuda.libraries-missing", items: list[dict[str, Any]] | None = None) -> Finding:
    """The CUDA wheels are installed, but this TensorFlow's loader does not look where they are."""
    tfv = fc.tf_version(facts) or "this TensorFlow"
    return Finding(
        fid,
        Status.FAIL,
        f"TensorFlow {tfv} cannot load the installed {', '.join(wheels)}",
        detail=f"The wheels are installed, but TensorFlow {tfv}'s libraries look for CUDA only next to"
        " themselves ($ORIGIN) and on LD_LIBRARY_PATH, not in site-packages/nvidia (TensorFlow 2.14 and"
        " later do): without LD_LIBRARY_PATH it runs on the CPU.",
        plan=rm.plan(facts, rm.wheel_lib_hook(facts, "kept in the environment's activation script")),
        facts=(*used, "tensorflow.runpath_nvidia", "libraries.pip_nvidia_wheels"),
        evidence=fc.quote(facts, items) if items else (),
    )


def _tensorrt_needed(facts: dict[str, Any], items: list[dict[str, Any]], used: tuple[str, ...]) -> Finding:
    return Finding(
        "cuda.libraries-missing",
        Status.FAIL,
        "TF-TRT aborted the program: TensorFlow could not load TensorRT (libnvinfer)",
        detail="TensorRT is optional for TensorFlow, but a program that converts with TF-TRT needs the"
        " TensorRT major this TensorFlow was built with: TensorFlow names it as the libnvinfer.so.N it could"
        " not load, and its dlerror names the library TensorRT itself needs where that is the one absent.",
        plan=rm.plan(facts, P.note("Install that TensorRT release (NVIDIA's libnvinfer packages, or the"
                                   " tensorrt wheel of the same major) where TensorFlow's loader finds it,"
                                   " with the CUDA libraries it needs; or run the model without TF-TRT")),
        facts=used,
        evidence=fc.quote(facts, items),
    )


def _missing(
    facts: dict[str, Any],
    matrix: Any,
    cuda: str | None,
    names: list[str],
    major: int | None,
    wheels: list[str],
    items: list[dict[str, Any]],
    used: tuple[str, ...],
) -> Finding:
    tfv = fc.tf_version(facts)
    cu = v.major(cuda) if cuda else major
    what = ", ".join(names[:4] + wheels) or f"the CUDA {cu or ''} runtime libraries".replace("  ", " ")
    title = (f"TensorFlow cannot load its CUDA {cu} libraries: {what}" if cu
             else f"TensorFlow cannot load {what}")
    built = f"TensorFlow {tfv} was built for CUDA {cuda}; " if tfv and cuda else ""
    where = {"windows": "the DLL search path (PATH, the CUDA toolkit's bin folder)",
             "macos": "DYLD_LIBRARY_PATH and the library's @rpath"}.get(
        fc.platform(facts) or "", "pip nvidia wheels, LD_LIBRARY_PATH, the ld cache")
    detail = (f"{built}the libraries it loads at start-up were not found where its loader looks ({where}), so"
              " it skips the GPU and runs on the CPU, or fails to import where it links them.")
    if any(i.get("kind") == "cudart-stub" for i in items):
        detail += (' ("Could not find cuda drivers on your machine" is printed when libcudart cannot be'
                   " loaded: despite its wording it is about the CUDA libraries, not the driver.)")
    return Finding(
        "cuda.libraries-missing",
        Status.FAIL,
        title,
        detail=detail,
        plan=rm.cuda_plan(facts, matrix, cu),
        facts=used,
        evidence=fc.quote(facts, items),
    )


@check("cuda.init-failed")
def cuda_initialised(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    """cuInit or device selection failed in TensorFlow's log: the error says why."""
    items = fc.log_items(facts, "cuinit") + [
        i for i in fc.log_items(facts, "cuda-error") if i.get("error") in _INIT_ERRORS
    ]
    if not items:
        return []
    errors = [str(i.get("error") or "UNKNOWN") for i in items]
    said = fc.get(facts, "system", "no_gpu_stated")
    if said and set(errors) == {"NO_DEVICE"}:  # the machine has no GPU, as written: nothing to find
        return [skipped("cuda.init-failed", "CUDA found no device on a machine without a GPU",
                        f"The text says the machine has no GPU (\"{said}\"): CUDA_ERROR_NO_DEVICE is"
                        " TensorFlow's probe coming back empty, and it runs on the CPU.", ("log.evidence",))]
    error = next((e for e in errors if e in _INIT_FIXES), errors[0])
    words, fix = _INIT_FIXES.get(error, _INIT_FIXES["UNKNOWN"])
    detail = f"The CUDA driver API (cuInit) failed with {error}: {words}"
    cvd = fc.env(facts).get("CUDA_VISIBLE_DEVICES")
    if cvd is not None and error == "NO_DEVICE":
        detail += f" CUDA_VISIBLE_DEVICES={cvd!r} is set, which may hide every GPU."
    return [
        Finding(
            "cuda.init-failed",
            Status.FAIL,
            f"CUDA failed to initialise ({error})",
            detail=detail,
            plan=fix(facts),
            facts=("log.evidence", "system.env.CUDA_VISIBLE_DEVICES"),
            evidence=fc.quote(facts, items),
        )
    ]


def _no_device_fix(facts: dict[str, Any]) -> P.Plan:
    if fc.platform(facts) == "wsl2":
        return rm.plan(facts, P.note("Update the NVIDIA driver on Windows, then `wsl --shutdown` in"
                                     " PowerShell; check that /usr/lib/wsl/lib/libcuda.so.1 exists and"
                                     " `nvidia-smi` works inside WSL"))
    return rm.plan(facts, P.system("nvidia-smi -L", "must list the GPU"),
                   P.system("unset CUDA_VISIBLE_DEVICES", "an empty value or -1 hides every GPU; in a"
                            " container start it with `--gpus all`"))


def _stated(*actions: P.Action) -> Callable[[dict[str, Any]], P.Plan]:
    return lambda facts: rm.plan(facts, *actions)


_INIT_ERRORS = stackerrors.errors_for("cuda.init-failed")
_INIT_FIXES: dict[str, tuple[str, Callable[[dict[str, Any]], P.Plan]]] = {
    "NO_DEVICE": ("no GPU is visible to this process.", _no_device_fix),
    "DEVICE_UNAVAILABLE": (
        "every GPU is busy or in a compute mode that refuses another process.",
        _stated(P.system("nvidia-smi -q -d COMPUTE", "'Exclusive_Process' and a running process explain it;"
                         " stop that process or, as root: `sudo nvidia-smi -i 0 -c DEFAULT`")),
    ),
    "COMPAT_NOT_SUPPORTED_ON_DEVICE": (
        "CUDA forward-compatibility libraries (cuda-compat) were loaded on a GPU that does not support them"
        " (GeForce/RTX/workstation GPUs), or the driver was upgraded without a reboot.",
        _stated(P.system("sudo reboot", "if the driver was just upgraded; otherwise remove the"
                         " forward-compatibility libraries from the library path (e.g. /usr/local/cuda/compat"
                         " in LD_LIBRARY_PATH, the cuda-compat package) and upgrade the driver instead")),
    ),
    "SHARED_OBJECT_INIT_FAILED": ("the driver library (libcuda) could not be loaded.", _no_device_fix),
    "STUB_LIBRARY": (
        "a stub libcuda from the CUDA toolkit was loaded instead of the driver's.",
        _stated(P.system("ldconfig -p | grep libcuda.so", "remove the toolkit's stubs folder (…/lib64/stubs)"
                         " from LD_LIBRARY_PATH")),
    ),
    "INSUFFICIENT_DRIVER": ("the driver is older than the CUDA runtime.",
                            _stated(P.note("See driver.too-old."))),
    "UNKNOWN": (
        "usually the driver lost its state (after suspend or a driver update) or this user cannot open"
        " /dev/nvidia*.",
        _stated(P.system("sudo rmmod nvidia_uvm"),
                P.system("sudo modprobe nvidia_uvm", "or reboot; check `ls -l /dev/nvidia*` (your user needs"
                         " access: the video group); in a container restarted by systemd, recreate it with"
                         " --gpus all")),
    ),
}


@check("cuda.nvcc-differs")
@moot_without_gpu
def nvcc_vs_tf(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("nvcc.found", "nvcc.version", "tensorflow.build_info.cuda_version", "tensorflow.distributions")
    refused = fc.log_items(facts, "nvcc-differs")
    if refused:
        return [_extension_toolkit(facts, refused)]
    cuda, why = cuda_target(facts, matrix)
    if cuda is None:
        return [skipped("cuda.nvcc-differs", "System nvcc not compared", why, used)]
    nvcc = fc.section(facts, "nvcc")
    if nvcc is None:
        return [skipped("cuda.nvcc-differs", "System nvcc not compared", fc.probe_error(facts, "nvcc"), used)]
    cu = v.major(cuda)
    pip_nvcc = next((d for d in fc.distributions(facts) if d == f"nvidia-cuda-nvcc-cu{cu}"), None)
    if not rm.searches_wheels(facts):
        pip_nvcc = None  # TF 2.12/2.13 look for ptxas on PATH only, never in the wheel
    version = nvcc.get("version") if nvcc.get("found") else None
    installs = [i for i in fc.as_list(nvcc.get("installs")) if isinstance(i, dict)]
    path = next((str(i["path"]) for i in installs if i.get("path")), None)
    where = f" ({path})" if path else ""
    if rm.searches_wheels(facts):
        plain = "pip TensorFlow ships its own CUDA libraries and does not use the system toolkit"
    else:  # before 2.14 no CUDA wheels came with it: the libraries are the system's (or put on the path)
        plain = (f"TensorFlow {rm.tf_version(facts)} loads CUDA {cuda}'s libraries (the system's or nvidia-*"
                 " wheels on LD_LIBRARY_PATH), not nvcc, which only gives XLA its ptxas")
    if not version:
        if pip_nvcc:
            return [
                Finding(
                    "cuda.nvcc-differs",
                    Status.PASS,
                    f"No system nvcc — not needed: {plain}",
                    detail=f"XLA uses ptxas from the {pip_nvcc} wheel.",
                    facts=used,
                )
            ]
        return [
            Finding(
                "cuda.nvcc-differs",
                Status.PASS,
                f"No system nvcc — not needed: {plain}",
                detail=f"XLA (jit_compile) needs ptxas; without {f'nvidia-cuda-nvcc-cu{cu}'} it may fail"
                " (see xla.toolchain-missing).",
                facts=used,
            )
        ]
    if v.major_minor(version) == v.major_minor(cuda):
        return [
            Finding(
                "cuda.nvcc-differs",
                Status.PASS,
                f"nvcc {version}{where} matches TensorFlow's CUDA {cuda}",
                detail=f"Not required: {plain}.",
                facts=used,
            )
        ]
    if pip_nvcc or v.major(version) == cu:
        return [
            Finding(
                "cuda.nvcc-differs",
                Status.PASS,
                f"nvcc {version}{where} — {plain} (CUDA {cuda}); not used",
                detail=f"XLA's ptxas comes from {pip_nvcc or 'this same-major toolkit'}.",
                facts=used,
            )
        ]
    return [
        Finding(
            "cuda.nvcc-differs",
            Status.WARN,
            f"nvcc {version}{where} differs from TensorFlow's CUDA {cuda}, and XLA may use its ptxas",
            detail=f"{plain.capitalize()}, but XLA (jit_compile) falls back to the system ptxas when the"
            f" nvidia-cuda-nvcc-cu{cu} wheel is missing; a CUDA {v.major(version)} ptxas may reject"
            f" TensorFlow's PTX or your GPU's architecture.",
            plan=rm.nvcc_plan(facts, cu),
            docs=cat.TF_PIP,
            facts=used,
            )
    ]


def _extension_toolkit(facts: dict[str, Any], items: list[dict[str, Any]]) -> Finding:
    """A framework's extension builder refusing the CUDA toolkit it found (PyTorch's cpp_extension)."""
    have = next((i["have"] for i in items if i.get("have")), None)
    need = next((i["need"] for i in items if i.get("need")), None)
    return Finding(
        "cuda.nvcc-differs",
        Status.FAIL,
        f"An extension build stopped: the CUDA toolkit it found{f' ({have})' if have else ''} is not the CUDA"
        f" the framework was built with{f' ({need})' if need else ''}",
        detail="A compiled extension (a custom op, a CUDA kernel of the project's) must be built by nvcc of"
        " the CUDA release the framework itself was built for; the builder takes the toolkit of CUDA_HOME (or"
        " the nvcc on PATH).",
        plan=rm.plan(facts, P.note(f"Point CUDA_HOME and PATH at a CUDA {need or 'release of the framework'}"
                                   " toolkit (installed beside the other) before building, or install the"
                                   " framework's build for the toolkit here")),
        facts=("log.evidence", "nvcc.version"),
        evidence=fc.quote(facts, items),
    )


_INHERITED = ("$LD_LIBRARY_PATH", "${LD_LIBRARY_PATH}")


def _appended_after_inherited(facts: dict[str, Any]) -> list[str]:
    """The entries an LD_LIBRARY_PATH assignment puts after the value it inherited
    ("$LD_LIBRARY_PATH:$CONDA_PREFIX/lib"): a library of the same name earlier on the inherited path
    loads instead of theirs. (A live environment holds the expanded value: none there.)"""
    entries = str(fc.env(facts).get("LD_LIBRARY_PATH") or "").split(":")
    at = next((i for i, e in enumerate(entries) if e in _INHERITED), None)
    return [e for e in entries[at + 1:] if e and e not in _INHERITED] if at is not None else []


# Folders the loader searches by itself (ldconfig's cache): a library there is found without LD_LIBRARY_PATH
_SYSTEM_DIRS = ("/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/lib/x86_64-linux-gnu",
                "/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu")


def _mixed_libraries(facts: dict[str, Any]) -> list[dict[str, Any]]:
    """CUDA libraries that could not load beside another install's copy of their toolkit ("undefined
    symbol ..., version libcudnn_cnn_infer.so.8", "... version libcublasLt.so.11"), each with the folder its
    copy came from ("" when the loader did not say)."""
    return [{**i, "folder": posixpath.normpath(str(i["folder"])) if i.get("folder") else ""}
            for i in fc.log_items(facts, "cuda-mixed")]


def _what(item: dict[str, Any]) -> str:
    return "cuDNN" if item.get("family") == "cudnn" else "CUDA"


def _reached_by_path(folder: str) -> bool:
    """A folder only LD_LIBRARY_PATH puts on the loader's path (a CUDA toolkit's lib64), not a conda env's,
    a pip wheel's or the system's own."""
    return (bool(folder) and folder not in _SYSTEM_DIRS and not _conda_dir(folder)
            and "-packages/" not in folder + "/")


def _conda_dir(folder: str) -> bool:
    return "/envs/" in folder + "/" or "conda" in folder


def _mixed_finding(facts: dict[str, Any], fid: str, items: list[dict[str, Any]], fix: P.Plan,
                   used: tuple[str, ...]) -> Finding:
    item = items[0]
    where = f" from {item['folder']}" if item["folder"] else ""
    what = _what(item)
    cudnn = what == "cuDNN"
    return Finding(
        fid,
        Status.FAIL,
        f"Two {what} installs are mixed: {item.get('library')}{where} does not fit the"
        f" {item.get('other')} loaded before it",
        detail=("cuDNN 8 is split into sub-libraries that must all come from one release; one of them was"
                " found in another cuDNN than the rest, so convolutions fail on the GPU." if cudnn else
                f"{item.get('library')} needs a symbol that only its own release of {item.get('other')} has;"
                " another CUDA install's copy was loaded first, so the library cannot load."),
        plan=fix,
        docs=cat.TF_PIP,
        facts=used + ("log.evidence",),
        evidence=fc.quote(facts, items),
    )


@check("cuda.ld-library-path-shadowing")
def ld_library_path_shadowing(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("libraries.shadowing", "libraries.ld_library_path", "system.env", "runtime.cudnn_version")
    mixed = [i for i in _mixed_libraries(facts) if _reached_by_path(i["folder"])]
    if mixed:
        drop = shlex.quote(mixed[0]["folder"])
        kept = f"$(echo \"$LD_LIBRARY_PATH\" | tr ':' '\\n' | grep -Fvx {drop} | paste -sd:)"
        return [_mixed_finding(facts, "cuda.ld-library-path-shadowing", mixed, rm.plan(facts, P.env(
            "LD_LIBRARY_PATH", kept, f"drops {mixed[0]['folder']}, so the {_what(mixed[0])} your framework"
            " was installed with (its pip wheels) loads whole")), used)]
    appended = _appended_after_inherited(facts)
    loaded, built = v.norm_cudnn(fc.get(facts, "runtime", "cudnn_version")), fc.tf_cudnn(facts, matrix)
    if appended and loaded and built and v.vtuple(loaded)[:2] < v.vtuple(built)[:2]:
        first = ":".join(appended) + ":$LD_LIBRARY_PATH"
        return [
            Finding(
                "cuda.ld-library-path-shadowing",
                Status.WARN,
                f"LD_LIBRARY_PATH puts {', '.join(appended[:3])} after the path it inherited: an older cuDNN"
                f" ({loaded}) loads first",
                detail=f"TensorFlow was built with cuDNN {built}. The directories appended last are searched"
                " last, so a cuDNN earlier on the inherited LD_LIBRARY_PATH (a system CUDA install) loads"
                " instead of the environment's own.",
                plan=rm.plan(facts, P.env("LD_LIBRARY_PATH", first,
                                          "the environment's libraries first (in its activation script)")),
                docs=cat.TF_PIP,
                facts=used,
            )
        ]
    plugin = fc.plugin_libraries_shadowed(facts)
    if plugin:
        libraries = ", ".join(dict.fromkeys(str(i.get("library")) for i in plugin))
        return [Finding(
            "cuda.ld-library-path-shadowing",
            Status.WARN,
            f"JAX's CUDA plugin cannot load {libraries}, which its pip wheels ship, with LD_LIBRARY_PATH set",
            detail="jax[cuda12] loads the CUDA libraries of its nvidia-* wheels; a directory on"
            " LD_LIBRARY_PATH (a system or module CUDA) is searched first and another release's copy, or its"
            " lack of one, stops the plugin, so JAX falls back to the CPU.",
            plan=rm.plan(facts, P.env("LD_LIBRARY_PATH", "", "unset it for the Python that runs JAX (a CUDA"
                                      " you compile with can be set for the compiler alone)")),
            docs=cat.TF_PIP,
            facts=used + ("log.evidence",),
            evidence=fc.quote(facts, plugin),
        )]
    libs = fc.section(facts, "libraries")
    if libs is None:
        return [
            skipped(
                "cuda.ld-library-path-shadowing",
                "Library shadowing not checked",
                fc.probe_error(facts, "libraries"),
                used,
            )
        ]
    entries = [e for e in fc.as_list(libs.get("shadowing")) if isinstance(e, dict) and e.get("first")]
    if not entries:
        return []
    dirs = sorted({posixpath.dirname(str(e["first"])) for e in entries})
    names = ", ".join(f"{e.get('soname')} → {e['first']}" for e in entries[:4])
    more = f" (+{len(entries) - 4} more)" if len(entries) > 4 else ""
    drop = " ".join(f"-e {shlex.quote(d)}" for d in dirs)
    return [
        Finding(
            "cuda.ld-library-path-shadowing",
            Status.WARN,
            f"LD_LIBRARY_PATH shadows TensorFlow's pip CUDA libraries: {', '.join(dirs)}",
            detail=f"{names}{more}. These load instead of the versions in the nvidia-* wheels"
            f" TensorFlow pins.",
            plan=rm.plan(facts, P.env("LD_LIBRARY_PATH", '$(echo "$LD_LIBRARY_PATH"'
                                      f" | tr ':' '\\n' | grep -Fvx {drop} | paste -sd:)",
                                      "drops just these dirs; or `unset LD_LIBRARY_PATH`")),
            docs=cat.TF_PIP,
            facts=used,
        )
    ]


# the pip wheel (name up to its -cuNN) that ships each user-space library TensorFlow loads
WHEEL_OF = {
    "libcudart": "nvidia-cuda-runtime-cu", "libcublas": "nvidia-cublas-cu", "libcublasLt": "nvidia-cublas-cu",
    "libnccl": "nvidia-nccl-cu", "libcufft": "nvidia-cufft-cu", "libcurand": "nvidia-curand-cu",
    "libcusolver": "nvidia-cusolver-cu", "libcusparse": "nvidia-cusparse-cu",
    "libcupti": "nvidia-cuda-cupti-cu",
    "libnvrtc": "nvidia-cuda-nvrtc-cu", "libnvJitLink": "nvidia-nvjitlink-cu",
}


def _loaded(facts: dict[str, Any]) -> list[dict[str, Any]]:
    return [lib for lib in fc.as_list(fc.get(facts, "runtime", "loaded_libraries"))
            if isinstance(lib, dict) and isinstance(lib.get("path"), str)
            and isinstance(lib.get("name"), str)]


def _wheel_for(lib: dict[str, Any], dists: dict[str, str]) -> tuple[str, str] | None:
    """(wheel, version) of the installed pip wheel that ships this library, if one is installed."""
    name = str(lib["name"])
    stem = "nvidia-cudnn-cu" if name.startswith("libcudnn") else WHEEL_OF.get(name)
    if stem is None:
        return None
    return next(((d, ver) for d, ver in sorted(dists.items())
                 if d.startswith(stem) and d[len(stem):].isdigit()), None)


def _came_from(facts: dict[str, Any], path: str) -> tuple[str, str | None]:
    """(how the loader reached this file, the LD_LIBRARY_PATH entry that did it or None)."""
    folder = posixpath.dirname(path)
    for entry in fc.as_list(fc.get(facts, "libraries", "ld_library_path")):
        if isinstance(entry, str) and entry and posixpath.normpath(entry) == folder:
            return "LD_LIBRARY_PATH", entry
    prefix = str(fc.env(facts).get("CONDA_PREFIX") or "")
    if (prefix and path.startswith(prefix.rstrip("/") + "/")) or "/conda" in path or "/envs/" in path:
        return "a conda environment", None
    return "the system's loader path (ldconfig)", None


# JAX names a library by its own word; the pip wheel that ships it (CUDA 12's names)
_JAX_LIB_WHEEL = {"cublas": "nvidia-cublas-cu12", "cufft": "nvidia-cufft-cu12",
                  "cusparse": "nvidia-cusparse-cu12", "cusolver": "nvidia-cusolver-cu12",
                  "cupti": "nvidia-cuda-cupti-cu12", "nccl": "nvidia-nccl-cu12",
                  "cuda": "nvidia-cuda-runtime-cu12"}


def _as_release(number: str, library: str = "") -> str:
    """JAX prints a library's version as one number (cuBLAS 120205 = 12.2.5; the CUDA runtime's as CUDA's
    own CUDA_VERSION, 12010 = 12.1); a dotted one is kept."""
    if "." in number or len(number) < 5 or not number.isdigit():
        return number
    n = int(number)
    if library.lower() == "cuda":
        return f"{n // 1000}.{n % 1000 // 10}"
    return f"{n // 10000}.{n // 100 % 100}.{n % 100}"


def _older_than_built(facts: dict[str, Any], dists: dict[str, str], used: tuple[str, ...]) -> list[Finding]:
    """JAX found a CUDA library older than it was built against while the pip wheel installed is new enough:
    another copy comes first on the library path."""
    for item in fc.log_items(facts, "lib-version"):
        library = str(item.get("library", ""))
        wheel = _JAX_LIB_WHEEL.get(library.lower())
        loaded, built = (_as_release(str(item.get(k)), library) for k in ("loaded", "compiled"))
        have = dists.get(wheel or "")
        if not (wheel and have and v.vtuple(have)[:3] >= v.vtuple(built)[:3]):
            continue
        return [Finding(
            "cuda.loaded-not-pip",
            Status.FAIL,
            f"{item['library']} {loaded} was loaded, older than the {wheel} {have} wheel installed",
            detail=f"JAX was built against {item['library']} {built}; the pip wheel is new enough, so"
            " another, older copy (a system CUDA, a conda package, another framework's) comes first on the"
            " library path.",
            plan=rm.plan(facts, P.system("echo $LD_LIBRARY_PATH", "take CUDA folders off LD_LIBRARY_PATH,"
                                         " or remove the conda cudatoolkit, so the pip wheels load")),
            docs=cat.TF_PIP,
            facts=used + ("log.evidence",),
            evidence=fc.quote(facts, [item]),
        )]
    return []


@check("cuda.loaded-not-pip")
def loaded_not_pip(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    """What the worker's process really mapped, against the pip wheels TensorFlow was installed with."""
    dists = fc.distributions(facts)
    used = ("runtime.loaded_libraries", "tensorflow.distributions", "libraries.ld_library_path")
    found = []
    for lib in _loaded(facts):
        wheel = _wheel_for(lib, dists) if not lib.get("dist") else None
        if wheel:
            found.append((lib, wheel, *_came_from(facts, str(lib["path"]))))
    if not found:
        mixed = [i for i in _mixed_libraries(facts) if not _reached_by_path(i["folder"])]
        if mixed:
            what, stem = _what(mixed[0]), str(mixed[0].get("other") or "").split(".", 1)[0] or "libcudnn"
            if _conda_dir(mixed[0]["folder"]):
                fix = rm.plan(facts, P.system(f"conda list | grep -i {stem.removeprefix('lib')}",
                                              f"remove the conda package that ships {stem} (conda remove"
                                              f" --force NAME), so the pip wheels' {what} loads"))
            else:
                fix = rm.plan(facts, P.system(f"ldconfig -p | grep {stem}; echo $LD_LIBRARY_PATH",
                                              f"remove the other {what} copy of {stem} from the loader's path"
                                              " (the system package or the LD_LIBRARY_PATH entry that"
                                              " provides it), or put the pip wheels' folders first"))
            return [_mixed_finding(facts, "cuda.loaded-not-pip", mixed, fix, used)]
        return _older_than_built(facts, dists, used)
    lib, (wheel, have), how, entry = found[0]
    loaded_version = str(lib.get("version") or "")
    other_major = bool(loaded_version) and v.major(loaded_version) != v.major(have)
    listed = "; ".join(f"{posixpath.basename(str(x['path']))} from {posixpath.dirname(str(x['path']))} ({h})"
                       for x, _, h, _ in found[:4])
    more = f" (+{len(found) - 4} more)" if len(found) > 4 else ""
    if entry is not None:
        kept = f"$(echo \"$LD_LIBRARY_PATH\" | tr ':' '\\n' | grep -Fvx {shlex.quote(entry)} | paste -sd:)"
        fix = rm.plan(facts, P.env("LD_LIBRARY_PATH", kept, f"then TensorFlow loads the {wheel} wheel"))
    elif how == "a conda environment":
        fix = rm.plan(facts, P.system("conda list | grep -i -e cudnn -e cudatoolkit -e cuda-",
                                      "remove the conda package that ships it (conda remove --force NAME), so"
                                      " TensorFlow loads its pip wheels"))
    elif not rm.searches_wheels(facts):
        fix = rm.plan(facts, P.system(rm.WHEEL_LIB_PATH.format(py=rm.python_cmd(facts)),
                                      "the wheels' folders ahead of the system's"))
    else:
        soname = shlex.quote(str(lib.get("soname") or lib["name"]))
        fix = rm.plan(facts, P.system(f"ldconfig -p | grep {soname}",
                                      "a library loaded earlier in the process (another framework imported"
                                      " first) or a system copy wins: import TensorFlow first, or remove the"
                                      " system copy from the loader path"))
    return [
        Finding(
            "cuda.loaded-not-pip",
            Status.FAIL if other_major else Status.WARN,
            f"TensorFlow loaded {posixpath.basename(str(lib['path']))} from {how},"
            f" not the {wheel} {have} wheel",
            detail=f"Really mapped into the worker: {listed}{more}. TensorFlow was installed with the pip"
            " wheels; another copy"
            + (" of a different major version cannot work with it." if other_major else
               " of another version can work, but is not what TensorFlow was tested with."),
            plan=fix,
            docs=cat.TF_PIP,
            facts=used,
            caused_by="cuda.ld-library-path-shadowing" if entry is not None else None,
        )
    ]


@check("cuda.container-driver-libraries")
def container_driver_libraries(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    """In a container, libcuda / libnvidia-ml come from the host's driver, injected at start; a copy
    the image carries has its own version and fails against the host's kernel module."""
    container = fc.container(facts)
    kernel = fc.text(fc.get(facts, "system", "proc_driver_version")) or fc.driver_version(facts)[0]
    shadowed = fc.log_items(facts, "image-driver-lib")  # the toolkit could not mount over the image's copy
    if shadowed:
        return [_image_driver_library(facts, container or "docker", shadowed)]
    stub = [i for i in fc.log_items(facts, "stub-libcuda") if not _driver_dir_first(str(i.get("text", "")))]
    stub += fc.cuda_errors(facts, "STUB_LIBRARY")
    # the image puts the toolkit's stub ahead of the host's injected libcuda; where the host has no kernel
    # driver running, nothing was injected and the stub is all there is (driver.missing says so)
    no_kernel = any(i.get("why") == "kernel" for i in fc.log_items(facts, "no-driver"))
    if container and stub and not no_kernel:
        return [_image_driver_library(facts, container, stub, stub=True)]
    if not container:
        return []
    compat = fc.cuda_errors(facts, "COMPAT_NOT_SUPPORTED_ON_DEVICE")
    if compat:  # (804) the image's cuda-compat libcuda, meant for data-centre GPUs, loaded on another
        return [Finding(
            "cuda.container-driver-libraries",
            Status.FAIL,
            "The image's CUDA forward-compatibility libcuda was loaded on a GPU it does not support",
            detail="The image carries cuda-compat (/usr/local/cuda/compat) so that its CUDA runs on an older"
            " host driver; that library works only on data-centre GPUs (error 804), so CUDA cannot start"
            " here with the host's driver as it is.",
            plan=rm.plan(facts, P.note("use an image whose CUDA the host driver supports (nvidia-smi's CUDA"
                                       " Version), or update the host driver; keep /usr/local/cuda/compat off"
                                       " LD_LIBRARY_PATH on GeForce and workstation GPUs")),
            docs=cat.NV_CONTAINER,
            facts=("log.evidence",),
            evidence=fc.quote(facts, compat),
            caused_by="driver.too-old",  # (the compat library stands in for a driver too old for the image)
        )]
    splits = fc.log_items(facts, "lib-mismatch")
    volume = fc.text(fc.get(facts, "system", "driver_volume"))
    if volume and splits:
        return [_stale_volume(facts, volume, splits)]
    packages = fc.log_items(facts, "image-driver-package")  # the Dockerfile installs a driver of its own
    if packages and (splits or fc.cuda_errors(facts, "SYSTEM_DRIVER_MISMATCH")):
        package = str(packages[0]["package"])
        return [_image_driver_library(facts, container, packages + splits, package=package)]
    files = [str(f) for f in fc.as_list(fc.get(facts, "system", "libcuda_files"))]
    if len({f for f in files if v.vtuple(f)}) > 1:  # two user-space drivers side by side in the image
        return [_image_driver_library(facts, container, [], " and ".join(files[:3]))]
    # the library version CUDA reported, or the one a split names (nvidia-smi's own beside the driver's)
    reported = fc.text(fc.get(facts, "system", "libcuda_version")) or next(
        (fc.text(i.get("library")) for i in splits if i.get("library") and i.get("kernel")), None)
    # the toolkit's hook ("nvml error: ...") runs on the host before the container exists: its mismatch
    # is the host's own
    host_side = any("nvml error" in str(i.get("text", "")).lower() for i in splits)
    known = reported and not host_side and v.vtuple(reported)[:1] >= (100,)
    if not kernel:  # inside the container the injected libraries are the host's: a split names the image's
        return [_image_driver_library(facts, container, splits, reported)] if known and splits else []
    if known and v.differ(reported, kernel):
        return [_image_driver_library(facts, container, [], reported, kernel)]
    wrong = []
    for lib in _loaded(facts):
        version = str(lib.get("version") or "")
        if lib["name"] not in ("libcuda", "libnvidia-ml") or v.vtuple(version)[:1] < (100,):
            continue  # libcuda.so.1 names no driver version; only libcuda.so.580.65.06 does
        compat = "/compat/" in str(lib["path"]) and v.vtuple(version) > v.vtuple(kernel)
        if version != kernel and not compat:  # CUDA forward compatibility: a newer compat libcuda is meant
            wrong.append(lib)
    if not wrong:
        return []
    names = ", ".join(f"{x['path']} ({x['version']})" for x in wrong[:3])
    return [
        Finding(
            "cuda.container-driver-libraries",
            Status.FAIL,
            f"This {container} image carries its own driver library:"
            f" {posixpath.basename(str(wrong[0]['path']))}, but the host's driver is {kernel}",
            detail=f"Loaded: {names}. The NVIDIA Container Toolkit mounts the host driver's libcuda and"
            " libnvidia-ml into the container at start; a copy baked into the image shadows them, and a"
            " user-space driver library of another version than the kernel module fails (\"Driver/library"
            " version mismatch\", CUDA_ERROR_SYSTEM_DRIVER_MISMATCH).",
            plan=rm.plan(facts, P.note(
                "Rebuild the image without NVIDIA driver packages (no libnvidia-compute-*, no cuda-drivers,"
                f" no copied libcuda.so*): delete {shlex.quote(str(wrong[0]['path']))} in the Dockerfile,"
                " then start it with `--gpus all` so the toolkit injects the host's libraries")),
            docs=cat.NV_CONTAINER,
            facts=("runtime.loaded_libraries", "system.proc_driver_version", "system.container"),
        )
    ]


def _driver_dir_first(text: str) -> bool:
    """A library path listing the injected driver folder (/usr/local/nvidia/lib*) ahead of the stubs: the
    real libcuda is found first, so the stub is harmless."""
    driver, stubs = text.find("/nvidia/lib"), text.find("/stubs")
    return 0 <= driver < stubs


def _stale_volume(facts: dict[str, Any], volume: str, splits: list[dict[str, Any]]) -> Finding:
    """nvidia-docker 1 mounted a volume of the driver's libraries (nvidia_driver_<version>) made when the
    container was created; after a driver update that copy no longer matches the kernel module."""
    return Finding(
        "cuda.container-driver-libraries",
        Status.FAIL,
        f"This container mounts nvidia-docker 1's volume of driver {volume}, not the host's driver now",
        detail="nvidia-docker 1 copies the host driver's libraries into a volume named for that driver's"
        " version and mounts it into each container it creates; containers made before a driver update keep"
        " the old volume, whose libraries mismatch the new kernel module. New containers get the new one.",
        plan=rm.plan(facts, P.note("Recreate the container (its data in a volume or image first): a new one"
                                   " mounts the current driver's libraries; then"
                                   f" `docker volume rm nvidia_driver_{volume}`. nvidia-docker 1 is retired:"
                                   " move to the NVIDIA Container Toolkit (`docker run --gpus all`)")),
        docs=cat.NV_CONTAINER,
        facts=("system.driver_volume", "log.evidence"),
        evidence=fc.quote(facts, splits),
    )


def _image_driver_library(facts: dict[str, Any], container: str, items: list[dict[str, Any]],
                          version: str | None = None, kernel: str | None = None,
                          stub: bool = False, package: str | None = None) -> Finding:
    """The image's own libcuda / libnvidia-ml: the toolkit failed to mount over it, CUDA reported its
    version beside a different kernel module, or the CUDA toolkit's stub is on the library path."""
    name = str(items[0].get("library") or "libcuda") if items else "libcuda"
    if stub:
        title = f"This {container} image loads the CUDA toolkit's stub libcuda instead of the host's driver"
        why = (" The stub (…/lib64/stubs/libcuda.so) only satisfies the linker at build time; on the library"
               " path at run time it shadows the libcuda.so.1 the toolkit injects from the host, and every"
               " CUDA call fails (CUDA_ERROR_STUB_LIBRARY).")
    elif package:
        title = (f"This {container} image installs NVIDIA's user-space driver ({package}), which does not"
                 " match the host's kernel module")
        why = (f" Its Dockerfile installs {package}, which brings a libcuda / libnvidia-ml of its own; inside"
               " a container those must be the host's, injected at start.")
    elif version:
        title = (f"This {container} image's driver library is {version}, but the host's kernel module is"
                 f" {kernel}" if kernel else
                 f"This {container} image's driver library ({version}) does not match the host's kernel"
                 " module")
        why = (" Inside a container the user-space driver libraries must be the host's, injected at start;"
               " this one came with the image (often the cuda-compat package or a driver package).")
    else:
        title = f"This {container} image carries its own {name}, so the host's cannot be mounted"
        why = (" The NVIDIA Container Toolkit mounts the host driver's libraries into the container at start;"
               f" the image already has {name} at that path, so the container cannot start with the GPU.")
    return Finding(
        "cuda.container-driver-libraries",
        Status.FAIL,
        title,
        detail=why.strip() + " It is the image, not a driver update on the host.",
        plan=rm.plan(facts, P.note(
            "Take the stubs folder off the image's library path: drop …/lib64/stubs from ENV LD_LIBRARY_PATH"
            " and from /etc/ld.so.conf.d (then ldconfig) in the Dockerfile; keep it only for the build step"
            " that links against libcuda" if stub else
            "Rebuild the image without NVIDIA driver packages (no libnvidia-compute-*, libnvidia-ml*,"
            " cuda-drivers, cuda-compat, nor a copied libcuda.so*): e.g. `RUN apt-get remove -y"
            " 'libnvidia-*'` in the Dockerfile, then start it with `--gpus all` so the toolkit injects the"
            " host's libraries")),
        docs=cat.NV_CONTAINER,
        facts=("log.evidence", "system.libcuda_version", "system.proc_driver_version", "system.container"),
        evidence=fc.quote(facts, items),
    )
