"""Is TensorFlow installed in the target interpreter, as a CUDA build, alone, for this Python?"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor import versions as v
from tfdoctor.checks import check, skipped
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status

# Distributions that each install the `tensorflow` import package (they overwrite each other's files).
TF_DISTS = (
    "tensorflow",
    "tensorflow-cpu",
    "tensorflow-gpu",
    "tf-nightly",
    "tf-nightly-cpu",
    "tf-nightly-gpu",
    "tensorflow-intel",
    "intel-tensorflow",
    "tensorflow-macos",
    "tensorflow-aarch64",
    "tensorflow-cpu-aws",
    "tensorflow-rocm",
)
# CPU-only builds: their build_info says is_cuda_build False.
CPU_DISTS = (
    "tensorflow-cpu",
    "tf-nightly-cpu",
    "tensorflow-intel",
    "intel-tensorflow",
    "tensorflow-macos",
    "tensorflow-aarch64",
    "tensorflow-cpu-aws",
)
GPU_PACKAGES = ("tensorflow-gpu", "tf-nightly-gpu")  # discontinued names: `tensorflow` has the GPU support
# Pulled in by `tensorflow` itself at the same version on some platforms: one install, not two.
META_PARTS = ("tensorflow-intel", "tensorflow-cpu-aws", "tensorflow-macos")


def _windows_gpu_tf(version: str | None) -> bool:
    return bool(version) and not v.version_ge(version, (2, 11))


@check("tensorflow.missing", "tensorflow.cpu-only-build", "tensorflow.build")
def installed_build(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = (
        "tensorflow.installed",
        "tensorflow.version",
        "tensorflow.build_info",
        "tensorflow.python",
        "system.platform",
    )
    tf = fc.section(facts, "tensorflow")
    python = (tf or {}).get("python") or "the target interpreter"
    removed = _gpu_package_refused(facts)
    if removed:
        return [_gpu_package_removed(facts, removed, used)]
    missing = fc.log_items(facts, "tf-missing")
    if missing and all(i.get("why") == "reticulate" for i in missing) and fc.log_items(
            facts, *(fc.PACKAGE_KINDS - {"tf-missing"})):
        missing = []  # R's words for an import that failed for a reason the log gives
    if missing:
        finding = (_long_path(facts, used) if any(i.get("why") == "long-path" for i in missing)
                   else _missing(facts, "the Python that ran this", "", used))
        return [replace(finding, evidence=fc.quote(facts, missing))]
    cpu_log = fc.log_items(facts, "cpu-build")
    unmapped = fc.log_items(facts, "no-known-devices")
    if fc.get(facts, "runtime", "jax_gpus"):  # JAX lists a GPU after all: its fallback was another run's
        cpu_log = [i for i in cpu_log if i.get("framework") != "jax"]
        unmapped = [i for i in unmapped if i.get("framework") != "jax"]
    others = fc.other_vendor_only(facts)
    if (cpu_log or unmapped) and others:  # nothing for a CUDA build to use either
        return [skipped("tensorflow.cpu-only-build", "A CPU-only build where no NVIDIA GPU is named",
                        f"The GPU named here is {', '.join(others[:2])}, another vendor's: no build uses it"
                        " through CUDA.", used)]
    if not cpu_log and unmapped and not fc.gpu_evidence(facts) and not fc.get(facts, "runtime", "gpus"):
        # a CUDA build names a GPU in its placement log, or says in the log why it could not use one
        version = fc.tf_version(facts) or "?"
        finding = _cpu_only(facts, matrix, version, "tensorflow", {}, used, unmapped)
        return [replace(finding, confidence="likely")]
    if cpu_log and (tf is None or tf.get("installed") is None and not tf.get("error")):
        return [_cpu_only(facts, matrix, "?", "tensorflow", {}, used, cpu_log)]  # no version shown
    if tf is None:
        return [
            skipped(
                "tensorflow.missing",
                "TensorFlow installation not checked",
                fc.probe_error(facts, "tensorflow"),
                used,
            )
        ]
    plat = fc.platform(facts)
    if tf.get("installed") is None and tf.get("error"):
        return [
            Finding(
                "tensorflow.missing",
                Status.FAIL,
                f"TensorFlow could not be checked: {python} did not run",
                detail=str(tf["error"]),
                plan=rm.plan(facts, P.system(f"{rm.python_cmd(facts)} -c 'import sys; print(sys.version)'",
                                             "check the interpreter (or pass --python with the interpreter"
                                             " that should run TensorFlow)")),
                docs=cat.TF_PIP,
                facts=used,
                confidence="likely",
            )
        ]
    if tf.get("installed") is None:  # a paste that shows no TensorFlow version says nothing either way
        return [skipped("tensorflow.missing", "TensorFlow installation not shown",
                        "No TensorFlow version seen.", used)]
    if not tf.get("installed"):
        return [_missing(facts, python, str(tf.get("error") or ""), used)]
    version = fc.tf_version(facts) or "?"
    build = fc.build_info(facts)
    dists = fc.distributions(facts)
    cpu_dists = [d for d in CPU_DISTS if d in dists and d not in META_PARTS]
    # TensorFlow's macOS wheels had CUDA up to 1.1 ("As of version 1.2, TensorFlow no longer provides GPU
    # support on macOS": its install guide for macOS), as source builds may
    old_mac_gpu = bool(v.vtuple(version)) and v.vtuple(version)[:2] < (1, 2)
    if plat == "macos" and not fc.get(facts, "runtime", "gpus") and not old_mac_gpu:
        if (not fc.gpu_context(facts) or others or fc.get(facts, "system", "no_gpu_stated")
                or fc.hinted(facts, "metal")):
            # about something else (a failure, a question), or a Mac's own AMD or Intel GPU, which no CUDA
            # build uses either (Apple's Metal plugin does), or one without a GPU, as written
            return [skipped("tensorflow.cpu-only-build", f"TensorFlow {version} on macOS (CPU only)",
                            "TensorFlow has no CUDA GPU support on macOS; this output is not about an NVIDIA"
                            " GPU.", used)]
        return [
            Finding(
                "tensorflow.cpu-only-build",
                Status.FAIL,
                f"TensorFlow {version} on macOS cannot use an NVIDIA GPU",
                detail="TensorFlow has no CUDA GPU support on macOS.",
                plan=rm.plan(facts, P.note("Use a Linux machine (or Windows with WSL2) with an NVIDIA GPU. On"
                                           " Apple silicon, Apple's tensorflow-metal plugin is the GPU route"
                                           " (not CUDA).")),
                docs=cat.TF_PIP,
                facts=used,
            )
        ]
    if plat == "windows" and v.version_ge(version, (2, 11)):
        if cpu_log:
            return [_cpu_only(facts, matrix, version, "tensorflow", build, used, cpu_log)]
        return [
            skipped(
                "tensorflow.cpu-only-build",
                f"TensorFlow {version} is CPU-only on native Windows",
                "See platform.windows-native.",
                used,
            )
        ]
    # PyPI has had aarch64 TensorFlow wheels, CPU-only, since 2.9.0
    # (https://github.com/KumaTea/tensorflow-aarch64); before, a TensorFlow on a Jetson was made for it
    if (fc.hinted(facts, "jetson") and not build and "+nv" not in version and v.version_ge(version, (2, 9))
            and not fc.get(facts, "runtime", "gpus") and not fc.gpu_evidence(facts)
            and fc.gpu_context(facts)):
        return [Finding(
            "tensorflow.cpu-only-build",
            Status.FAIL,
            f"TensorFlow {version} is not NVIDIA's build for Jetson: it has no CUDA for the Jetson's GPU",
            detail="TensorFlow's own aarch64 wheels (PyPI) have no CUDA for Jetson's integrated GPU; NVIDIA"
            " builds TensorFlow for each JetPack release (versions ending +nvYY.MM), and only those releases"
            " the JetPack's CUDA supports.",
            plan=rm.plan(facts, P.note("Install NVIDIA's TensorFlow for this JetPack from"
                                       " https://developer.download.nvidia.com/compute/redist/jp/ (the folder"
                                       " of the JetPack release: `cat /etc/nv_tegra_release` shows it), or"
                                       " use NVIDIA's l4t-tensorflow container")),
            docs="https://docs.nvidia.com/deeplearning/frameworks/install-tf-jetson-platform/index.html",
            facts=used + ("log.platform_hints",),
            confidence="likely",
        )]
    if cpu_log or not build and cpu_dists and not _tf_dists(dists).keys() - set(cpu_dists):
        return [_cpu_only(facts, matrix, version, ", ".join(cpu_dists) or "tensorflow", build, used, cpu_log)]
    pypi_cpu = None if build else _pypi_cpu_wheel(facts, matrix, dists)
    if pypi_cpu:
        return [_cpu_only(facts, matrix, pypi_cpu, "tensorflow", build, used, [])]
    if not build:
        return [
            skipped(
                "tensorflow.build",
                f"TensorFlow {version} installed; its build could not be read",
                "tensorflow/python/platform/build_info.py was missing or unreadable, so whether it "
                "is a CUDA build is unknown.",
                used,
            )
        ]
    if build.get("is_cuda_build") is False or cpu_dists:
        return [_cpu_only(facts, matrix, version, ", ".join(cpu_dists) or "tensorflow", build, used, [])]
    cuda = v.norm_cuda(build.get("cuda_version"))
    cudnn = v.norm_cudnn(build.get("cudnn_version"))
    caps = " ".join(map(str, fc.as_list(build.get("cuda_compute_capabilities"))))
    known = [f"built for CUDA {cuda}" if cuda else "", f"cuDNN {cudnn}" if cudnn else "", caps]
    # (a log may show only that it is a CUDA build: a GPU device created, nothing of its versions)
    built = " · ".join(k for k in known if k) or "a CUDA build"
    return [
        Finding(
            "tensorflow.build",
            Status.PASS,
            f"TensorFlow{f' {version}' if version != '?' else ''}, {built}",
            detail=f"Interpreter: {python}; location: {tf.get('location') or 'unknown'}.",
            facts=used,
        )
    ]


def _pypi_cpu_wheel(facts: dict[str, Any], matrix: Any, dists: dict[str, str]) -> str | None:
    """The `tensorflow` wheel from PyPI of a release before 2.1 (but 1.15.0) is CPU-only, its GPU build being
    `tensorflow-gpu` (the matrix's `pip_cuda`): installed without it, in output about a GPU where nothing
    shows TensorFlow's CUDA side (no GPU device created, no CUDA library or driver call in the log; a CPU
    build makes none). With no package list, the version seen stands for the package where TensorFlow
    lists no GPU and the text never names the GPU package. Returns that version, or None."""
    if "platform cuda" in str(fc.get(facts, "runtime", "gpu_reason") or "").lower():
        return None  # a CUDA platform that found no device ("no supported devices found for platform CUDA")
    if fc.hinted(facts, "rocm"):
        return None  # AMD's ROCm images install their own build under the name `tensorflow`
    version = dists.get("tensorflow")
    if (fc.get(facts, "runtime", "tf_visible_gpus") == 0 and not _tf_dists(dists)
            and not fc.get(facts, "tensorflow", "gpu_package_named")):  # TensorFlow itself lists no GPU
        version = fc.tf_version(facts)
    row = matrix.older_release(version) if version else None
    cpu_only = bool(row is not None and row.pip_cpu_only(version) and "tensorflow-gpu" not in dists
                    and not fc.get(facts, "runtime", "gpus") and not fc.gpu_evidence(facts)
                    and fc.gpu_context(facts))
    return version if cpu_only else None


def _cpu_only(
    facts: dict[str, Any], matrix: Any, version: str, which: str, build: dict[str, Any],
    used: tuple[str, ...], items: list[dict[str, Any]],
) -> Finding:
    plat = fc.platform(facts)
    cpu_dists = [d.strip() for d in which.split(",")]
    if items and all(i.get("framework") == "jax" for i in items):
        return Finding(
            "tensorflow.cpu-only-build",
            Status.FAIL,
            "JAX's jaxlib is a CPU-only build",
            detail="The installed jaxlib registers no CUDA platform: JAX runs on the CPU whatever the GPU.",
            plan=rm.plan(facts, rm.uninstall("jaxlib"), rm.install(
                "-U", "jax[cuda12]", why="JAX's CUDA 12 wheels (docs.jax.dev/en/latest/installation)")),
            facts=used,
            evidence=fc.quote(facts, items),
        )
    if items and all(i.get("framework") == "torch" for i in items):
        return Finding(
            "tensorflow.cpu-only-build",
            Status.FAIL,
            "PyTorch is a CPU-only build",
            detail="The installed torch wheel was built without CUDA (its CPU-only variant, e.g. from the"
            " default index on Windows or macOS): it runs on the CPU whatever the GPU.",
            plan=rm.plan(facts, rm.uninstall("torch"), rm.install(
                "torch", why="from the CUDA index pytorch.org/get-started names for this driver, e.g."
                " --index-url https://download.pytorch.org/whl/cu121")),
            facts=used,
            evidence=fc.quote(facts, items),
        )
    row = matrix.older_release(version) if version != "?" else None
    pypi = ""
    if row is not None and row.pip_cpu_only(version):  # before 2.1 the GPU build was a package of its own
        fix = rm.plan(facts, rm.uninstall(*cpu_dists), rm.install(f"tensorflow-gpu=={version}"))
        pypi = (f" The `tensorflow` package on PyPI is CPU-only before 2.1 (but 1.15.0); the GPU build of"
                f" {version} is `tensorflow-gpu`.")
    elif plat == "windows":
        fix = rm.plan(facts, rm.uninstall(*cpu_dists), rm.install(
            "tensorflow<2.11", why="native Windows GPU stops at 2.10; or use WSL2 with"
            " 'tensorflow[and-cuda]'"))
    else:
        want = rm.keep_tf_version(facts) if version != "?" else "tensorflow[and-cuda]"
        fix = rm.plan(facts, rm.uninstall(*cpu_dists), rm.install(want))
    detail = (f"build_info: is_cuda_build={build.get('is_cuda_build')!r}; " if build else "") + (
        f"installed from {which}.{pypi} A CPU-only build never uses an NVIDIA GPU.")
    return Finding(
        "tensorflow.cpu-only-build",
        Status.FAIL,
        f"TensorFlow {version} is a CPU-only build ({which})".replace("TensorFlow ? ", "TensorFlow "),
        detail=detail,
        plan=fix + rm.plan(facts, *rm.conda_action(facts)),
        facts=used,
        evidence=fc.quote(facts, items),
        confidence="certain" if build or items else "likely",
        caused_by="driver.missing" if fc.no_gpu_attached(facts) and plat != "windows" else None,
    )


@check("tensorflow.import-failed")
def import_failed(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    """TensorFlow's native library did not load (the log or the worker's import error says so), or a
    library of its own (libtensorflow_framework) or the C++ runtime it needs (MSVCP140.dll) could not."""
    addon = {i.get("line") for i in fc.log_items(facts, "pip-conflict") if i.get("mismatch") == "addon"}
    own = [i for i in fc.failed_libraries(facts, "tensorflow") + fc.failed_libraries(facts, "msvc")
           if i.get("line") not in addon]  # (an add-on's op library asking for it: made for another release)
    items = fc.log_items(facts, "tf-native-failed") + own
    if not items:
        return []
    plat = fc.platform(facts)
    fix = rm.plan(facts, rm.install("--force-reinstall", rm.keep_tf_version(facts)))
    if plat == "windows":
        fix = rm.plan(facts, P.system("Install the Microsoft Visual C++ Redistributable"
                                      " (https://aka.ms/vs/17/release/vc_redist.x64.exe), then:")) + fix
    return [
        Finding(
            "tensorflow.import-failed",
            Status.FAIL,
            "TensorFlow's native runtime failed to load",
            detail="The tensorflow package is installed but its compiled library could not be loaded. The"
            " lines around this one name the cause: a missing or mismatched shared library, a CPU without"
            " AVX, an old glibc, or a NumPy/protobuf built for another version." + (
                " Windows could not run the DLL's start-up code (a DLL initialization routine failed):"
                " most often a CPU without AVX, else an outdated Visual C++ runtime."
                if any("initialization routine failed" in str(i.get("text", "")).lower() for i in items)
                else "") + (
                " Here it is a plugin in site-packages/tensorflow-plugins (tensorflow-metal, a pluggable"
                " device) built for another TensorFlow release or OS: install the plugin release made for"
                " this TensorFlow, or uninstall it to run without it."
                if any(i.get("plugin") for i in items) else ""),
            plan=fix,
            facts=("log.evidence",),
            evidence=fc.quote(facts, items),
        )
    ]


def _gpu_package_refused(facts: dict[str, Any]) -> list[dict[str, Any]]:
    """pip could not install tensorflow-gpu (or tf-nightly-gpu): the name itself is the problem, unless pip
    found no release of it at all for this interpreter (then its Python or platform is)."""
    items = fc.log_items(facts, "pip-no-version")
    return [i for i in items if i.get("package") in GPU_PACKAGES and not _interpreter_ruled_out(i, items)]


def _interpreter_ruled_out(item: dict[str, Any], items: list[dict[str, Any]]) -> bool:
    """pip's "(from versions: none)": no wheel of any release fits this interpreter and platform; or a
    tensorflow-gpu release that exists (1.x to 2.10) was asked for and pip offered others: its wheels do not
    fit this Python (unless the empty tensorflow-gpu package said it has been removed: then that is what pip
    found)."""
    removed = any("has been removed" in str(i.get("text", "")).lower() for i in items)
    none = str(item.get("versions") or "").strip().lower() == "none"
    return (none or item.get("package") in GPU_PACKAGES and _asks_published_gpu_release(item)) and not removed


def _asks_published_gpu_release(item: dict[str, Any]) -> bool:
    """The requirement is capped at a release tensorflow-gpu had (its last real one is 2.10.1)."""
    for clause in str(item.get("spec") or "").split(","):
        clause = clause.strip()
        op = clause[:2] if clause[:2] in ("==", "<=", "~=") else clause[:1] if clause[:1] == "<" else ""
        version = v.vtuple(clause[len(op):])
        if op and version and (version <= (2, 11) if op == "<" else version < (2, 11)):
            return True
    return False


def _gpu_package_removed(
    facts: dict[str, Any], items: list[dict[str, Any]], used: tuple[str, ...]
) -> Finding:
    spec = next((str(i["spec"]) for i in items if i.get("spec")), "")
    wanted = spec.lstrip("=<>!~") if spec.startswith(("==", "~=")) else ""
    if fc.platform(facts) == "windows":
        fix = rm.windows_gpu(facts)
    else:
        want = rm.tf_requirement(wanted) if v.vtuple(wanted) else "tensorflow[and-cuda]"
        fix = rm.plan(facts, rm.install(want))
    return Finding(
        "tensorflow.missing",
        Status.FAIL,
        f"pip cannot install {items[0]['package']}{spec}: the package was discontinued; install tensorflow",
        detail="tensorflow-gpu was the same as tensorflow since 2.1; its last release is 2.10.1, and since"
        " December 2022 its newer versions are empty packages that fail to install. The tensorflow package"
        " has the GPU support.",
        plan=fix,
        docs=cat.TF_PIP,
        facts=used,
        evidence=fc.quote(facts, items),
    )


def _long_path(facts: dict[str, Any], used: tuple[str, ...]) -> Finding:
    """pip on Windows stopped by the 260-character path limit before TensorFlow was installed."""
    return Finding(
        "tensorflow.missing",
        Status.FAIL,
        "TensorFlow is not installed: pip stopped at Windows' path length limit",
        detail="pip stopped before the install finished: a file of the package lies deeper than Windows'"
        " 260-character path limit, and Long Path support is off.",
        plan=rm.plan(facts, P.system(
            "New-ItemProperty -Path HKLM:\\SYSTEM\\CurrentControlSet\\Control\\FileSystem -Name"
            " LongPathsEnabled -Value 1 -PropertyType DWORD -Force",
            "in an administrator PowerShell (or a virtual environment at a short path, such as C:\\tf),"
            " then install again")),
        docs=cat.WIN_LONG_PATHS,
        facts=used,
    )


def _missing(facts: dict[str, Any], python: str, error: str, used: tuple[str, ...]) -> Finding:
    plat = fc.platform(facts)
    detail = f"`import tensorflow` has no distribution in {python}."
    if error:
        detail += f" ({error})"
    if plat == "macos":
        fix = rm.plan(facts, rm.install("tensorflow"), P.note(
            " — CPU only: TensorFlow has no NVIDIA GPU support on macOS; use Linux or WSL2 for the GPU."))
    elif plat == "windows":
        fix = rm.windows_gpu(facts)
    else:
        fix = rm.plan(facts, rm.install("tensorflow[and-cuda]"), *rm.conda_action(facts))
    return Finding(
        "tensorflow.missing",
        Status.FAIL,
        f"TensorFlow is not installed in {python}",
        detail=detail,
        plan=fix,
        docs=cat.TF_PIP,
        facts=used,
    )


def _tf_dists(dists: dict[str, str]) -> dict[str, str]:
    found = {d: dists[d] for d in TF_DISTS if d in dists}
    base = found.get("tensorflow")
    for part in META_PARTS:  # `tensorflow` depends on these at the same version on Windows/aarch64/macOS
        if base and part in found and v.major_minor(found[part]) == v.major_minor(base):
            del found[part]
    return found


def _one_release_twice(tf_dists: dict[str, str]) -> bool:
    """tensorflow and tensorflow-gpu (or tf-nightly and tf-nightly-gpu) of one release from 2.1 on: the same
    files under two names (tensorflow has the GPU support since 2.1), so neither overwrites the other's
    (unless one is conda's CPU build: the caller asks)."""
    pairs = ({"tensorflow", "tensorflow-gpu"}, {"tf-nightly", "tf-nightly-gpu"})
    versions = set(tf_dists.values())
    return (set(tf_dists) in pairs and len(versions) == 1
            and v.version_ge(next(iter(versions)), (2, 1)))


@check("tensorflow.conflicting-installs")
def conflicting_installs(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    """Two TF distributions share one `tensorflow/` directory: whichever wrote last wins, file by
    file, so the import is a mix -> fail. Mixed cu11/cu12 wheels and Keras mismatches leave TF
    computing on the GPU but break imports or uninstalls -> warn."""
    used = ("tensorflow.distributions", "tensorflow.version", "system.env", "log.evidence")
    conflicts = _pip_conflicts(facts, used) or _pulled_cpu_build(facts, used) or _jax_release_mix(facts, used)
    if fc.section(facts, "tensorflow") is None:
        return conflicts or [
            skipped(
                "tensorflow.conflicting-installs",
                "Installed packages not checked",
                fc.probe_error(facts, "tensorflow"),
                used,
            )
        ]
    dists = fc.distributions(facts)
    findings: list[Finding] = []
    tf_dists = _tf_dists(dists)
    listed = ", ".join(f"{d} {v}" for d, v in tf_dists.items())
    if len(tf_dists) > 1 and _one_release_twice(tf_dists) and fc.is_cuda_build(facts) is not False:
        findings.append(Finding(
            "tensorflow.conflicting-installs",
            Status.WARN,
            f"One TensorFlow release installed under two names: {listed}",
            detail="From 2.1 on, tensorflow has the GPU support and tensorflow-gpu is the same files: both"
            " write the one `tensorflow` package directory, so uninstalling either later deletes files the"
            " other needs.",
            plan=rm.plan(facts, rm.uninstall(*tf_dists), rm.install(_one_tf(facts, tf_dists))),
            docs=cat.TF_PIP,
            facts=used,
        ))
    elif len(tf_dists) > 1:
        findings.append(
            Finding(
                "tensorflow.conflicting-installs",
                Status.FAIL,
                f"{len(tf_dists)} TensorFlow packages installed: {listed}",
                detail="They all install the same `tensorflow` package directory; files of one overwrite the"
                " other's, so what imports is an unpredictable mix.",
                plan=rm.plan(facts, rm.uninstall(*tf_dists), rm.install(_one_tf(facts, tf_dists))),
                docs=cat.TF_PIP,
                facts=used,
            )
        )
    majors = {}
    for name in dists:
        if name.startswith("nvidia-"):
            for tag in ("cu11", "cu12", "cu13"):
                if name.endswith("-" + tag):
                    majors.setdefault(tag, []).append(name)
    if len(majors) > 1:
        tfv = fc.tf_version(facts)
        keep = None
        cuda, _ = fc.tf_cuda(facts, matrix)
        if cuda:
            keep = f"cu{v.major(cuda)}"
        drop = sorted(n for tag, names in majors.items() if tag != keep for n in names)
        fix = (
            rm.plan(facts, rm.uninstall(*drop),
                    rm.install(rm.tf_requirement(tfv, exact=True) if tfv else "tensorflow[and-cuda]"))
            if keep
            else rm.plan(facts, P.note("Uninstall the nvidia-* wheels of the CUDA major your TensorFlow"
                                       " does not"
                                       " use."))
        )
        findings.append(
            Finding(
                "tensorflow.conflicting-installs",
                Status.WARN,
                f"NVIDIA wheels for several CUDA majors: {', '.join(sorted(majors))}",
                detail="Wheels for different CUDA majors share the nvidia/<library>/ directories;"
                " uninstalling or"
                " upgrading one set can delete files the other needs."
                + (f" TensorFlow uses {keep}." if keep else ""),
                plan=fix,
                docs=cat.TF_PIP,
                facts=used,
            )
        )
    findings += _duplicates(facts, used)
    findings += _conda_cuda_mix(facts, used)
    findings += _user_site(facts, used + ("tensorflow.location", "system.conda"))
    findings += _keras(facts, dists, used)
    if not conflicts:  # (pip or the add-on itself already said which one refuses this TensorFlow)
        findings += _addons(facts, matrix, dists, used)
    return conflicts + findings if not any(f.status == Status.FAIL for f in findings) else findings


# what a person installs that is not a Python package (its install cannot pull in another TensorFlow)
_NOT_PACKAGES = ("cuda", "cudnn", "driver", "nvidia", "toolkit", "windows", "ubuntu", "update")


def _pulled_cpu_build(facts: dict[str, Any], used: tuple[str, ...]) -> list[Finding]:
    """A person saying TensorFlow fell back to the CPU once a package was installed: its requirement on
    `tensorflow` installed the CPU-only build over (or beside) the GPU one."""
    items = [i for i in fc.log_items(facts, "cpu-after-install")
             if not any(w in str(i.get("package", "")).lower() for w in _NOT_PACKAGES)]
    if not items:
        return []
    package = str(items[0].get("package") or "a package")
    return [Finding(
        "tensorflow.conflicting-installs",
        Status.FAIL,
        f"Installing {package} left TensorFlow on the CPU, as written here",
        detail="A package that requires `tensorflow` makes pip install the CPU-only build (tensorflow before"
        " 2.1, tensorflow-cpu, tensorflow-intel) over or beside the GPU one already there; whichever wrote"
        " its files last is what imports.",
        plan=rm.plan(facts, P.system(f"{rm.python_cmd(facts)} -m pip list", "look for two TensorFlow"
                                     " packages (tensorflow and tensorflow-gpu, or a -cpu/-intel one)"),
                     P.note("uninstall them all, then install the GPU build once; install the other package"
                            " with --no-deps so it cannot pull TensorFlow in again")),
        docs=cat.TF_PIP,
        facts=used,
        evidence=fc.quote(facts, items),
        confidence="likely",
    )]


def _one_tf(facts: dict[str, Any], tf_dists: dict[str, str]) -> str:
    """The one TensorFlow to keep, at the version the user has (the GPU build where one was there)."""
    version = (tf_dists.get("tensorflow") or tf_dists.get("tensorflow-gpu")
               or next(iter(tf_dists.values()), None))
    if not version or fc.platform(facts) in ("windows", "macos"):
        return f"tensorflow=={version}" if version else "tensorflow"
    return rm.tf_requirement(version, exact=True)


# Microsoft's DirectML builds (Windows and WSL; development paused): the Pythons their wheels are for
# (https://pypi.org/project/tensorflow-directml/#files, https://pypi.org/project/tensorflow-directml-plugin/#files)
DIRECTML_PYTHONS = {"tensorflow-directml": ("3.5", "3.7"), "tensorflow-directml-plugin": ("3.7", "3.10")}
# The packages that install a pluggable device's library into site-packages/tensorflow-plugins/
_PLUGIN_PACKAGES = {"libmetal_plugin": "tensorflow-metal", "libtfdml_plugin": "tensorflow-directml-plugin"}


def _pip_conflicts(facts: dict[str, Any], used: tuple[str, ...]) -> list[Finding]:
    """pip said TensorFlow and Keras (or TensorBoard) versions conflict."""
    items = fc.log_items(facts, "pip-conflict")
    if not items:
        return []
    item = next((i for i in items if i.get("addon") or i.get("needs")), items[0])  # the one naming most
    detail = ("TensorFlow pins the Keras, TensorBoard and NumPy versions it works with; another install"
              " replaced one of them, so imports or training break.")
    if item.get("package") and item.get("needs"):
        what = (f"{item['package']} needs {item['needs']},"
                f" but {item.get('have')} {item.get('have_version')} is installed")
        fix = rm.plan(facts, rm.install(rm.tf_pin(facts), str(item["needs"]).replace(" ", "")))
    elif item.get("older") == "keras":
        what = "this code imports Keras 3's modules (keras.src), but an older Keras is installed"
        detail = ("Keras 3 comes with TensorFlow 2.16 and newer; under TensorFlow 2.15 or older, keras is"
                  " Keras 2, which lacks keras.src (before 2.13) or keras.src.legacy.")
        fix = rm.plan(facts, P.note("Install the release of the failing package written for Keras 2 (one"
                                    " released for this TensorFlow), or move to TensorFlow 2.16+ with Keras"
                                    f" 3: {rm.pip_install(facts, 'tensorflow>=2.16')}"))
    elif item.get("mismatch") == "keras":
        what = "the installed Keras is not the one this TensorFlow uses as tf.keras"
        tfv = fc.tf_version(facts)
        if item.get("standalone") or tfv and not v.version_ge(tfv, (2, 6)):  # Keras released apart from TF
            what = "the installed Keras is not the release the code calling it was written for"
            for_tf = f" for TensorFlow {tfv}" if tfv else ""
            fix = rm.plan(facts, P.note("Install the standalone Keras release the failing code names in its"
                                        f" requirements{for_tf}, or use tf.keras"
                                        " (`from tensorflow import keras`)"))
        else:
            legacy = "Keras 2 code on TensorFlow 2.16+: pip install tf-keras and export TF_USE_LEGACY_KERAS=1"
            fix = rm.plan(facts, rm.install(
                "keras>=3" if not tfv or v.version_ge(tfv, (2, 16)) else f"keras=={v.major_minor(tfv)}.*",
                why=legacy))
    elif item.get("mismatch") == "jax-plugin":
        what = "JAX's CUDA plugin is of another release than jax and jaxlib"
        detail, fix = _JAX_RELEASE, _jax_fix(facts)
    elif item.get("mismatch") in ("tf-files", "tf-namespace"):
        what = "TensorFlow's own files are of two releases"
        detail = ("A file inside the tensorflow package lacks a name (a Python module's) or a symbol (a"
                  " library's) that another file of it needs: files of another release were left there (an"
                  " install over an older one, or two TensorFlow packages sharing the folder).")
        if item.get("mismatch") == "tf-namespace":
            what = "the tensorflow Python imported has no __version__: it is not a whole TensorFlow package"
            detail = ("An empty tensorflow folder is left where one of two TensorFlow packages (tensorflow,"
                      " tensorflow-gpu, tensorflow-cpu) sharing it was uninstalled, or a folder named"
                      " tensorflow is on the path: Python imports it as an empty namespace package.")
        fix = rm.plan(facts, rm.uninstall(*(_tf_dists(fc.distributions(facts)) or ["tensorflow"])),
                      rm.install(rm.keep_tf_version(facts), why="one release, installed whole"))
    elif item.get("mismatch") == "torch-cuda":
        what = (f"torchvision was built for CUDA {item.get('addon_cuda')}, PyTorch for CUDA"
                f" {item.get('framework_cuda')}")
        detail = ("torchvision's compiled operators call into PyTorch's CUDA: both wheels must come from one"
                  " CUDA variant (one PyTorch index URL).")
        fix = rm.plan(facts, P.note("Reinstall torch and torchvision together from the one index of the CUDA"
                                    " variant wanted (pytorch.org/get-started names it, e.g. --index-url"
                                    " https://download.pytorch.org/whl/cu121)"))
    elif item.get("mismatch") == "dependency":  # a package TensorFlow pins (ml_dtypes)
        what = f"the installed {item.get('dependency')} is another release than this TensorFlow needs"
        fix = rm.plan(facts, rm.install(rm.keep_tf_version(facts), why="pip then installs the"
                                        f" {item.get('dependency')} this TensorFlow requires"))
    elif item.get("mismatch") in ("addon", "addon-version"):  # tensorflow_text -> tensorflow-text
        named = (str(item.get("addon") or "").replace("_", "-").replace(" ", "-").lower()
                 or _PLUGIN_PACKAGES.get(str(item.get("plugin_lib"))))
        addon = named or "an add-on"
        fix = rm.plan(facts, rm.install(rm.keep_tf_version(facts), named,
                                        why=f"lets pip pick the {addon} release made for this TensorFlow")
                      if named else P.note("Install the release of the package that holds the failing"
                                           " library (`pip show` it) made for this TensorFlow, or the"
                                           " TensorFlow it was made for"))
        if item["mismatch"] == "addon":
            what = f"{addon}'s compiled ops were built for another TensorFlow than the one installed"
            detail = ("An add-on's compiled ops link against TensorFlow's C++ internals, which change with"
                      " every release: the add-on must be the release built for this TensorFlow.")
        else:
            what = f"{addon} requires another TensorFlow release than the one installed"
            detail = ("Each add-on release is made for a few TensorFlow releases: it refuses others by its"
                      " own check, or calls an API they lack. Install the add-on's release made for this"
                      " TensorFlow (or move both together).")
    else:
        what = "pip could not install TensorFlow and Keras versions that fit together"
        tfv = fc.tf_version(facts)
        fix = rm.plan(facts, rm.install(rm.keep_tf_version(facts),
                                        why="lets pip pick the Keras this TensorFlow needs" if tfv else ""))
    return [
        Finding(
            "tensorflow.conflicting-installs",
            Status.FAIL,
            f"Package versions conflict: {what}",
            detail=detail,
            plan=fix,
            facts=used,
            evidence=fc.quote(facts, items),
        )
    ]


_JAX_RELEASE = ("jax, jaxlib and the CUDA plugin (jax-cuda12-plugin, jax-cuda12-pjrt) are released together;"
                " a plugin of another release cannot start: its PJRT API, or the jax functions it calls,"
                " differ. JAX then falls back to the CPU.")


def _jax_fix(facts: dict[str, Any]) -> P.Plan:
    jaxlib = fc.distributions(facts).get("jaxlib")
    return rm.plan(facts, rm.install(f"jax[cuda12]=={jaxlib}" if jaxlib else "jax[cuda12]",
                                     why="installs jax, jaxlib and the CUDA plugin of one release"))


def _jax_release_mix(facts: dict[str, Any], used: tuple[str, ...]) -> list[Finding]:
    """The package list shows JAX's CUDA plugin of another release than jaxlib (not a jaxlib built from
    source, a .dev version: its plugin is whatever was built or installed with it)."""
    dists = fc.distributions(facts)
    jaxlib = dists.get("jaxlib")
    if not jaxlib or "dev" in jaxlib or "+" in jaxlib:
        return []
    odd = {n: ver for n, ver in dists.items() if n.startswith("jax-cuda") and n.endswith(("-plugin", "-pjrt"))
           and v.vtuple(ver)[:3] != v.vtuple(jaxlib)[:3]}
    if not odd:
        return []
    listed = ", ".join(f"{n} {ver}" for n, ver in odd.items())
    return [Finding(
        "tensorflow.conflicting-installs",
        Status.FAIL,
        f"Package versions conflict: JAX's CUDA plugin ({listed}) is of another release than jaxlib {jaxlib}",
        detail=_JAX_RELEASE,
        plan=_jax_fix(facts),
        facts=used,
    )]


def _conda_cuda_mix(facts: dict[str, Any], used: tuple[str, ...]) -> list[Finding]:
    """conda CUDA packages of two CUDA majors in one environment (an unpinned cuda-nvcc from NVIDIA's
    channel beside cudatoolkit 11.8): compilers and libraries of different releases meet in one process."""
    mixed = fc.conda_cuda_majors(facts)
    if not mixed:
        return []
    base = mixed.get("cuda-version") or mixed.get("cudatoolkit") or next(iter(mixed.values()))
    want = ".".join(base.split(".")[:2])
    odd = sorted(n for n, ver in mixed.items() if ver.split(".")[0] != base.split(".")[0])
    listed = ", ".join(f"{n} {ver}" for n, ver in mixed.items())
    return [Finding(
        "tensorflow.conflicting-installs",
        Status.WARN,
        f"conda CUDA packages of several CUDA majors in one environment: {listed}",
        detail=f"The environment's CUDA is {want}; {', '.join(odd)} of another major brings its own compiler"
        " or libraries, and kernels one release builds fail to load with the other's.",
        plan=rm.plan(facts, P.system("conda install " + " ".join(f'"{n}={want}"' for n in odd),
                                     f"the same CUDA {want} as the rest of the environment")),
        docs=cat.TF_PIP,
        facts=used,
    )]


def _user_site(facts: dict[str, Any], used: tuple[str, ...]) -> list[Finding]:
    """TensorFlow imported from the user's own site-packages while a conda environment is active: that copy
    shadows the one installed in the environment."""
    where = fc.tf_from_user_site(facts)
    if where is None:
        return []
    return [Finding(
        "tensorflow.conflicting-installs",
        Status.WARN,
        f"TensorFlow is imported from the user site ({where}), not from the conda environment",
        detail="A `pip install --user` (or a pip run outside the environment) put TensorFlow in the user's"
        " own site-packages, which Python searches before the environment's: that copy, built for other CUDA"
        " libraries than the environment holds, is the one imported.",
        plan=rm.plan(facts, P.system(f"{rm.python_cmd(facts)} -m pip uninstall --yes tensorflow"
                                     " tensorflow-gpu", "removes the copy Python finds first, the"
                                     " user site's; then tf.__file__ names the environment's"),
                     P.env("PYTHONNOUSERSITE", "1", "or keep the user site out of this environment")),
        docs=cat.TF_PIP,
        facts=used,
    )]


def _duplicates(facts: dict[str, Any], used: tuple[str, ...]) -> list[Finding]:
    """One distribution installed twice on sys.path (e.g. a venv and ~/.local): the first one wins."""
    dups = fc.as_dict(fc.get(facts, "tensorflow", "duplicates"))
    names = sorted(
        fc.norm_name(str(n))
        for n, versions in dups.items()
        if isinstance(versions, list)
        and len(versions) > 1
        and (fc.norm_name(str(n)) in TF_DISTS or str(n).startswith(("nvidia-", "keras", "tf-keras")))
    )
    if not names:
        return []
    listed = "; ".join(f"{n} {' and '.join(map(str, dups.get(n) or []))}" for n in names)
    return [
        Finding(
            "tensorflow.conflicting-installs",
            Status.WARN,
            f"Installed twice on sys.path: {', '.join(names)}",
            detail=f"{listed}. The copy found first on sys.path is imported; pip may report and upgrade the"
            " other one (a user-site install under ~/.local often shadows a venv or conda env).",
            plan=rm.plan(facts, rm.uninstall(*names, why="run it until pip says it is not installed"),
                         rm.install(rm.keep_tf_version(facts), why="then reinstall once")),
            docs=cat.TF_PIP,
            facts=used,
        )
    ]


def _addons(facts: dict[str, Any], matrix: Any, dists: dict[str, str],
            used: tuple[str, ...]) -> list[Finding]:
    """An add-on (tensorflow-probability, -addons, -text, -io) installed beside a TensorFlow its release was
    not made for (the matrix's addons.toml): its import or its ops fail."""
    tfv = fc.tf_version(facts)
    out: list[Finding] = []
    for name in sorted(dists):
        addon = matrix.addon(name) if tfv else None
        needs = addon.needs(dists[name]) if addon else None
        tf = v.vtuple(tfv)[:2]
        if not needs or not tf or (v.vtuple(needs[0]) <= tf and (not needs[1] or tf < v.vtuple(needs[1]))):
            continue
        want = f">={needs[0]}" + (f",<{needs[1]}" if needs[1] else "")
        fits = addon.release_for(tfv)
        extra = ()
        if fits and addon.tf_keras_from and v.vtuple(fits)[:2] >= v.vtuple(addon.tf_keras_from)[:2]:
            extra = (f"tf-keras~={v.major_minor(tfv)}.0",)
        plan = (rm.plan(facts, rm.install(rm.keep_tf_version(facts), f"{name}=={fits}", *extra,
                                          why=f"the {name} release made for TensorFlow {v.major_minor(tfv)}"))
                if fits else rm.plan(facts, P.note(f"No {name} release is made for TensorFlow"
                                                   f" {v.major_minor(tfv)}: keep the TensorFlow it needs"
                                                   f" ({want}) or stop using {name}")))
        out.append(Finding(
            "tensorflow.conflicting-installs",
            Status.WARN if addon.warns_only else Status.FAIL,
            f"{name} {dists[name]} needs TensorFlow {want}; {tfv} is installed",
            detail=f"Each {name} release is made for certain TensorFlow releases"
            + (" (its check only warns, but its compiled ops may fail)." if addon.warns_only else
               "; with another its import or its ops fail."),
            plan=plan,
            docs=addon.source,
            facts=used,
        ))
    return out


def _keras(facts: dict[str, Any], dists: dict[str, str], used: tuple[str, ...]) -> list[Finding]:
    tfv = fc.tf_version(facts)
    if not tfv or not v.vtuple(tfv):
        return []
    keras, tf_keras = dists.get("keras"), dists.get("tf-keras")
    legacy = str(fc.env(facts).get("TF_USE_LEGACY_KERAS", "")).strip().lower() in ("1", "true", "yes")
    mm = v.major_minor(tfv)
    if v.version_ge(tfv, (2, 16)):
        if legacy and not tf_keras:
            return [
                Finding(
                    "tensorflow.conflicting-installs",
                    Status.FAIL,
                    "TF_USE_LEGACY_KERAS is set but tf-keras is not installed",
                    detail=f"TensorFlow {tfv} then cannot import tf.keras.",
                    plan=rm.plan(facts, rm.install(rm.tf_pin(facts), f"tf-keras=={mm}.*")),
                    docs=cat.KERAS_COMPAT,
                    facts=used,
                )
            ]
        if keras and v.major(keras) == 2 and not (legacy and tf_keras):
            return [
                Finding(
                    "tensorflow.conflicting-installs",
                    Status.FAIL,
                    f"Keras {keras} with TensorFlow {tfv}: tf.keras breaks",
                    detail="TensorFlow 2.16+ uses Keras 3 as tf.keras; Keras 2 under it fails on import or in"
                    " training (AttributeError: ... register_load_context_function). Keras 2 code needs"
                    " tf-keras and TF_USE_LEGACY_KERAS=1.",
                    plan=rm.plan(facts, rm.install(rm.tf_pin(facts), "keras>=3"), P.note(
                        f" — or, for Keras 2 code: {rm.pip_install(facts, f'tf-keras=={mm}.*')} &&"
                        " export TF_USE_LEGACY_KERAS=1")),
                    docs=cat.KERAS_COMPAT,
                    facts=used,
                )
            ]
        if legacy and tf_keras and v.major_minor(tf_keras) != mm:
            return [
                Finding(
                    "tensorflow.conflicting-installs",
                    Status.WARN,
                    f"tf-keras {tf_keras} with TensorFlow {tfv}",
                    detail="tf-keras must match TensorFlow's minor version.",
                    plan=rm.plan(facts, rm.install(rm.tf_pin(facts), f"tf-keras=={mm}.*")),
                    docs=cat.KERAS_COMPAT,
                    facts=used,
                )
            ]
    elif keras and v.major(keras) == 2 and v.version_ge(tfv, (2, 6)) and v.major_minor(keras) != mm:
        # TensorFlow 2.6-2.15 require the keras of their own minor (the wheels' Requires-Dist, e.g.
        # tensorflow 2.15.0: keras<2.16,>=2.15.0, https://pypi.org/project/tensorflow/2.15.0/)
        return [
            Finding(
                "tensorflow.conflicting-installs",
                Status.FAIL,
                f"Keras {keras} with TensorFlow {tfv}: TensorFlow {mm} needs keras {mm}",
                detail=f"tf.keras is the keras package, which TensorFlow {mm} pins to its own minor release;"
                " another one fails on import or in training.",
                plan=rm.plan(facts, rm.install(rm.tf_pin(facts), f"keras=={mm}.*")),
                docs=cat.KERAS_COMPAT,
                facts=used,
            )
        ]
    elif keras and v.major(keras) == 2 and v.vtuple(keras)[:2] >= (2, 4) and (
            v.major_minor(keras) != mm if v.vtuple(keras)[:2] >= (2, 6) else not v.version_ge(tfv, (2, 2))):
        # keras 2.4 and 2.5 only wrap tf.keras, of TensorFlow 2.2+ (https://github.com/keras-team/keras/
        # releases/tag/2.4.0); keras 2.6+ is tf.keras's own code, for the TensorFlow of its minor
        made_for = v.major_minor(keras) if v.vtuple(keras)[:2] >= (2, 6) else "2.2+"
        fits = "keras==2.4.3" if v.version_ge(tfv, (2, 2)) else "keras==2.3.1"
        return [
            Finding(
                "tensorflow.conflicting-installs",
                Status.WARN,
                f"Keras {keras} is made for TensorFlow {made_for}, but TensorFlow {tfv} is installed",
                detail="That keras package imports TensorFlow's own modules of the release it was made for;"
                " `import keras` fails (or misbehaves) with another one. TensorFlow's built-in tf.keras is"
                " unaffected.",
                plan=rm.plan(facts, rm.install(rm.tf_pin(facts), fits), P.note(
                    "or use tf.keras (`from tensorflow import keras`) and uninstall the keras package")),
                docs=cat.KERAS_COMPAT,
                facts=used,
            )
        ]
    elif keras and v.version_ge(keras, (3,)):
        return [
            Finding(
                "tensorflow.conflicting-installs",
                Status.WARN,
                f"Keras {keras} with TensorFlow {tfv}",
                detail="TensorFlow before 2.16 was released with Keras 2 (keras 2.x of its minor); with"
                " Keras 3 installed, tf.keras becomes Keras 3 (a real TF 2.15.1 + keras 3.0.5 venv trains"
                " with it), so Keras 2 code, custom layers and saved .h5 models may break.",
                plan=rm.plan(facts, rm.install(rm.tf_pin(facts), f"keras=={mm}.*")),
                docs=cat.KERAS_COMPAT,
                facts=used,
            )
        ]
    return []


def _py(version: Any) -> tuple[int, ...]:
    return v.vtuple(version)[:2]


@check("tensorflow.python-unsupported", "tensorflow.python-ok")
def python_supported(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("tensorflow.python_version", "tensorflow.version", "tensorflow.installed", "log.evidence")
    pyv = fc.get(facts, "tensorflow", "python_version")
    items = fc.log_items(facts, "pip-no-version")
    refused = [i for i in items if i.get("package") not in GPU_PACKAGES or _interpreter_ruled_out(i, items)]
    if refused:
        return [_no_wheel(facts, matrix, refused, used)]
    # (TensorFlow 1.3-1.5's own wheels for Python 3.6 carry a fast_tensor_util compiled under 3.5, whose
    # warning is harmless: https://github.com/tensorflow/tensorflow/issues/14182)
    built = [i for i in fc.log_items(facts, "wheel-python")
             if (i.get("built"), i.get("runtime")) != ("3.5", "3.6") or "fast_tensor_util" not in i["text"]]
    if built:
        was, now = built[0].get("built"), built[0].get("runtime")
        return [Finding(
            "tensorflow.python-unsupported",
            Status.WARN,
            f"TensorFlow was built for Python {was} and runs under Python {now}",
            detail="Its compiled modules were made for another Python's C API: it may work, crash or compute"
            " wrongly; a wheel built for this Python is the fix.",
            plan=rm.plan(facts, rm.install("--force-reinstall", rm.keep_tf_version(facts),
                                           why=f"a wheel for Python {now}, or run it under Python {was}")),
            facts=used,
            evidence=fc.quote(facts, built),
        )]
    if fc.get(facts, "tensorflow", "python_bits") == 32:
        return [Finding(
            "tensorflow.python-unsupported",
            Status.FAIL,
            f"A 32-bit Python{f' {pyv}' if pyv else ''}: TensorFlow has wheels for 64-bit Python only",
            detail="pip finds no TensorFlow for a 32-bit interpreter, and a TensorFlow copied into one cannot"
            " load its native module (DLL load failed, No module named '_pywrap_tensorflow').",
            plan=rm.plan(facts, P.note("Install the 64-bit Python (python.org's \"Windows installer"
                                       " (64-bit)\") of a version TensorFlow supports, then install"
                                       " TensorFlow into it")),
            docs=cat.TF_PIP,
            facts=used + ("tensorflow.python_bits",),
        )]
    if not _py(pyv) or len(_py(pyv)) < 2:
        return [
            skipped(
                "tensorflow.python-unsupported",
                "Python version not checked",
                "The target interpreter's Python version is unknown"
                + (
                    f" ({fc.probe_error(facts, 'tensorflow')})."
                    if fc.section(facts, "tensorflow") is None
                    else "."
                ),
                used,
            )
        ]
    py = _py(pyv)
    pytext = ".".join(map(str, py))
    releases = fc.all_releases(matrix)
    fitting = [r for r in releases if _py(r.python_min) <= py <= _py(r.python_max)]

    installed = fc.tf_installed(facts)
    if not installed and fc.get(facts, "tensorflow", "installed") is None:
        return [skipped("tensorflow.python-unsupported", "Python version not compared",
                        "No TensorFlow version is known to compare the Python with.", used)]
    release = fc.tf_release(matrix, facts) if installed else matrix.newest_tf()
    if release is None:
        return [
            skipped(
                "tensorflow.python-unsupported",
                "Python version not checked",
                f"TensorFlow {fc.tf_version(facts)} is not in the bundled compatibility matrix.",
                used,
            )
        ]
    lo, hi = release.python_min, release.python_max
    if _py(lo) <= py <= _py(hi):
        return [
            Finding(
                "tensorflow.python-ok",
                Status.PASS,
                f"Python {pytext} within {lo}–{hi} (TensorFlow {release.version})",
                facts=used,
            )
        ]
    if installed and fc.tf_imported(facts):  # it imports under this Python: a build made for it
        return [Finding(
            "tensorflow.python-ok",
            Status.PASS,
            f"Python {pytext} runs TensorFlow {fc.tf_version(facts)} here, outside PyPI's {lo}–{hi}",
            detail="TensorFlow imported under this Python, so this build was made for it (NVIDIA's for"
            " Jetson, conda-forge's, a distribution's or a source build).",
            facts=used,
        )]
    newest = releases[0] if releases else release
    venv = f"python{newest.python_max} -m venv ~/tf && ~/tf/bin/python -m pip install 'tensorflow[and-cuda]'"
    if installed:
        title = f"Python {pytext} is outside TensorFlow {release.version}'s supported {lo}–{hi}"
        detail = f"TensorFlow {fc.tf_version(facts)} is installed for Python {pytext}."
    else:
        title = (
            f"No TensorFlow release supports Python {pytext}"
            if not fitting
            else f"Python {pytext} is outside the newest TensorFlow's supported {lo}–{hi}"
        )
        detail = (
            f"`pip install tensorflow` for Python {pytext} finds no matching wheel for {release.version}."
        )
    fix = (
        rm.plan(facts, rm.install(rm.tf_requirement(fitting[0].version),
                                  why=f"TensorFlow {fitting[0].version} supports Python {pytext}"),
                P.note(f" — or use a supported Python: `{venv}`"))
        if fitting
        else rm.plan(facts, P.system(venv, "use a supported Python"))
    )
    return [
        Finding(
            "tensorflow.python-unsupported",
            Status.FAIL,
            title,
            detail=detail,
            plan=fix,
            docs=cat.TF_BUILDS,
            facts=used,
        )
    ]


# What pip names that is TensorFlow itself (a distribution, its plugin or its own dependency), not an add-on
_TF_SIDE = frozenset({*TF_DISTS, *GPU_PACKAGES, *DIRECTML_PYTHONS, "tf-nightly", "tf-nightly-cpu",
                      "tensorflow-metal", "tensorflow-io-gcs-filesystem"})


def _addon_refused(items: list[dict[str, Any]]) -> str | None:
    """The add-on (tensorflow-text, tensorflow-quantum, ...) pip found no wheel of, where every package pip
    refused is one."""
    names = {str(i.get("package") or "").lower().replace("_", "-") for i in items}
    return min(names) if names and not names & _TF_SIDE else None


def _addon_no_wheel(facts: dict[str, Any], addon: str, py: str | None, items: list[dict[str, Any]],
                    used: tuple[str, ...]) -> Finding:
    offered = [t.strip() for i in items for t in str(i.get("versions") or "").split(",")
               if t.strip()[:1].isdigit()]
    on = f" (Python {py})" if py else ""
    return Finding(
        "tensorflow.python-unsupported",
        Status.FAIL,
        f"pip found no {addon} wheel for this Python{f' ({py})' if py else ''}"
        + (", of the release asked for" if offered else ""),
        detail=(f"pip offered {addon} {offered[0]} to {offered[-1]} for this interpreter{on}, not the"
                " release asked for." if offered
                else f"pip found no release of {addon} at all for this interpreter{on}.")
        + f" {addon} publishes compiled wheels for the Pythons and platforms of the TensorFlow releases it"
        " was made for, often fewer (and later) than TensorFlow's own.",
        plan=rm.plan(facts, P.note(f"Use a Python that the {addon} release wanted has wheels for"
                                   f" (https://pypi.org/project/{addon}/#files lists them), with the"
                                   f" TensorFlow release it was made for")),
        facts=used,
        evidence=fc.quote(facts, items),
    )


def offered_releases(items: list[dict[str, Any]]) -> list[str]:
    """The TensorFlow minor releases pip offered ("from versions: 2.12.0rc0, ..., 2.15.0"),
    no pre-releases."""
    found: dict[str, None] = {}
    for item in items:
        for token in str(item.get("versions") or "").split(","):
            token = token.strip()
            if token and token[0].isdigit() and not any(t in token for t in ("rc", "a", "b", "dev")):
                mm = v.major_minor(token)
                if mm:
                    found[mm] = None
    return sorted(found, key=v.vtuple)


def python_from_offer(matrix: Any, offered: list[str]) -> str | None:
    """The Python a from-versions list implies: the one whose wheels are exactly the offered releases
    of the matrix (None when no Python fits them clearly)."""
    releases = fc.all_releases(matrix)
    known = {r.version for r in releases}
    offer = {o for o in offered if o in known}
    if len(offer) < 2:
        return None
    best, score = None, 0.0
    for minor in range(6, 15):
        py = (3, minor)
        has = {r.version for r in releases if _py(r.python_min) <= py <= _py(r.python_max)}
        union = has | offer
        jaccard = len(has & offer) / len(union) if union else 0.0
        if jaccard > score:
            best, score = f"3.{minor}", jaccard
    return best if score >= 0.75 else None


def _asked_release(matrix: Any, items: list[dict[str, Any]]) -> tuple[str, Any] | None:
    """The requirement pip was asked for ("tensorflow-gpu==2.5.1", "tensorflow-gpu<=1.12.0") and the row of
    the release it names (the newest a range allows), when the matrix holds it."""
    for item in items:
        spec = str(item.get("spec") or "")
        for clause in spec.split(","):  # "==1.10.1", or the newest a range allows ("<=1.14.0,>=1.10.0")
            clause = clause.strip()
            version = clause[2:] if clause.startswith(("==", "<=", "~=")) else ""
            if not v.vtuple(version):
                continue
            try:
                release = matrix.tf_release(version) or matrix.older_release(version)
            except Exception:  # noqa: BLE001 - an unparsable version is "not in the matrix"
                release = None
            if release is not None:
                return f"{item.get('package')}{spec}", release
    return None


def _no_conda_build(facts: dict[str, Any], item: dict[str, Any], used: tuple[str, ...]) -> Finding:
    """conda found no build of TensorFlow in the env's channels for the env's Python."""
    py = fc.get(facts, "tensorflow", "python_version")
    supports = str(item.get("supports") or "")
    pythons = sorted({m for m in re.findall(r"\d\.\d{1,2}", supports)}, key=v.vtuple)
    newest = pythons[-1] if pythons else None
    return Finding(
        "tensorflow.python-unsupported",
        Status.FAIL,
        f"conda has no {item.get('package')} build for Python {py or 'this env'}"
        + (f" (its builds need Python {', '.join(pythons)})" if pythons else ""),
        detail="conda's solver matched the env's Python against every TensorFlow build of the env's"
        " channels: none was built for it, and conda does not change an env's Python minor by itself.",
        plan=rm.plan(facts, P.system(f"conda create -n tf python={newest} {item.get('package')}"
                                     if newest else "conda search tensorflow",
                                     "a new env with a Python those builds support; or, in this env, pip's"
                                     " wheel (`python -m pip install tensorflow`), which may cover more"
                                     " Pythons")),
        docs=cat.TF_PIP,
        facts=used,
        evidence=fc.quote(facts, [item]),
    )


def _no_wheel(
    facts: dict[str, Any], matrix: Any, items: list[dict[str, Any]], used: tuple[str, ...],
) -> Finding:
    """pip found no TensorFlow wheel for this interpreter (or the requested version)."""
    poetry = next((i for i in items if i.get("resolver") == "poetry"), None)
    if poetry is not None:  # the project's declared Python range, not an interpreter, is what fails
        return Finding(
            "tensorflow.python-unsupported",
            Status.FAIL,
            f"The project's Python range reaches Python {poetry.get('project')}, which"
            f" {poetry.get('package')} has no wheels for (it requires Python {poetry.get('supports')})",
            detail="Poetry resolves for every Python the project declares, and TensorFlow's wheels cover a"
            " few Python minors per release; no release fits the whole range.",
            plan=rm.plan(facts, P.note(f"Narrow `python` in pyproject.toml ([tool.poetry.dependencies] or"
                                       f" [project] requires-python) to what {poetry.get('package')} supports"
                                       f" ({poetry.get('supports')}), then run `poetry lock` again")),
            docs=cat.TF_PIP,
            facts=used,
            evidence=fc.quote(facts, [poetry]),
        )
    conda = next((i for i in items if i.get("resolver") == "conda"), None)
    if conda is not None:  # the env's Python has no build of TensorFlow in its channels
        return _no_conda_build(facts, conda, used)
    py = fc.get(facts, "tensorflow", "python_version") or next(
        (str(i["python"]) for i in items if i.get("python")), None)
    tag = next((str(i["tag"]) for i in items if i.get("tag")), None)
    offered = offered_releases(items)
    if not py and offered:
        py = python_from_offer(matrix, offered)
    if not py and tag and tag.startswith("cp"):
        py = f"{tag[2]}.{tag[3:]}"
    directml = next((str(i["package"]).replace("_", "-") for i in items
                     if str(i.get("package")).replace("_", "-") in DIRECTML_PYTHONS), None)
    if directml:
        low, high = DIRECTML_PYTHONS[directml]
        return Finding(
            "tensorflow.python-unsupported",
            Status.FAIL,
            f"pip found no {directml} wheel for this Python{f' ({py})' if py else ''}",
            detail=f"Microsoft's {directml} has wheels for 64-bit Python {low} to {high} only (Windows and"
            " WSL); its development is paused, so no newer Python gets one.",
            plan=rm.plan(facts, P.note(f"Create an environment with Python {high} (e.g. `conda create -n dml"
                                       f" python={high}`) and install {directml} there")),
            docs=cat.DIRECTML,
            facts=used,
            evidence=fc.quote(facts, items),
        )
    addon = _addon_refused(items)
    if addon:
        return _addon_no_wheel(facts, addon, py, items, used)
    releases = fc.all_releases(matrix)
    newest = releases[0] if releases else None
    plat = fc.platform(facts)
    if offered:
        detail = (f"pip offered TensorFlow {offered[0]} to {offered[-1]} for this interpreter"
                  + (f" (Python {py})" if py else "") + ", not the version asked for.")
    else:
        detail = "pip found no TensorFlow wheel at all for this interpreter and platform."
        if plat == "windows" and not py:
            detail += " Native Windows wheels exist for 64-bit Python only."
    fitting = [r for r in releases if py and _py(r.python_min) <= _py(py)[:2] <= _py(r.python_max)]
    asked = _asked_release(matrix, items)
    asked_fits = asked is not None and bool(py) and (
        _py(asked[1].python_min) <= _py(py) <= _py(asked[1].python_max))
    if asked is not None and not asked_fits:  # keep the version asked for: a Python it has wheels for
        package, release = asked
        fix = rm.plan(facts, P.system(f"python{release.python_max} -m venv ~/tf"),
                      P.system(f"~/tf/bin/python -m pip install '{package}'",
                               f"a Python TensorFlow {release.version} supports"
                               f" ({release.python_min}-{release.python_max}), 64-bit"))
    elif py and fitting:
        fix = rm.plan(facts, rm.install(rm.tf_requirement(fitting[0].version), why=f"TensorFlow"
                                        f" {fitting[0].version} is the newest release with wheels for"
                                        f" Python {py}"))
    elif newest is not None:
        fix = rm.plan(facts, P.system(f"python{newest.python_max} -m venv ~/tf"),
                      P.system("~/tf/bin/python -m pip install 'tensorflow[and-cuda]'",
                               f"a Python TensorFlow {newest.version} supports"
                               f" ({newest.python_min}-{newest.python_max}), 64-bit"))
    else:
        fix = rm.plan(facts, P.note("Use a 64-bit Python that TensorFlow supports"
                                    " (https://pypi.org/project/tensorflow/#files)"))
    title = (f"No TensorFlow wheel for Python {py}" if py and not fitting else
             "pip found no TensorFlow wheel for this Python" if not offered else
             f"The requested TensorFlow has no wheel for this Python{f' ({py})' if py else ''}")
    return Finding(
        "tensorflow.python-unsupported",
        Status.FAIL,
        title,
        detail=detail,
        plan=fix,
        facts=used,
        evidence=fc.quote(facts, items),
    )
