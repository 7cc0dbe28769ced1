"""Is TensorFlow installed in the target interpreter, as a CUDA build, alone, for this Python?"""

from __future__ import annotations

from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
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
    python = tf.get("python") or "the target interpreter"
    if tf.get("installed") is None and tf.get("error"):
        return [
            Finding(
                "tensorflow.missing",
                Status.FAIL,
                f"TensorFlow could not be checked: {python} did not run",
                detail=str(tf["error"]),
                fix=f"Check the interpreter: {rm.python_cmd(facts)} -c 'import sys; print(sys.version)'"
                " (or pass --python with the interpreter that should run TensorFlow)",
                docs=cat.TF_PIP,
                facts=used,
                confidence="likely",
            )
        ]
    if not tf.get("installed"):
        return [_missing(facts, python, str(tf.get("error") or ""), used)]
    version = fc.tf_version(facts) or "?"
    build = fc.build_info(facts)
    dists = fc.distributions(facts)
    cpu_dists = [d for d in CPU_DISTS if d in dists and d not in META_PARTS]
    if plat == "macos":
        return [
            Finding(
                "tensorflow.cpu-only-build",
                Status.FAIL,
                f"TensorFlow {version} on macOS cannot use an NVIDIA GPU",
                detail="TensorFlow has no CUDA GPU support on macOS.",
                fix="Use a Linux machine (or Windows with WSL2) with an NVIDIA GPU. On Apple silicon, Apple's"
                " tensorflow-metal plugin is the GPU route (not CUDA).",
                docs=cat.TF_PIP,
                facts=used,
            )
        ]
    if plat == "windows" and v.version_ge(version, (2, 11)):
        return [
            skipped(
                "tensorflow.cpu-only-build",
                f"TensorFlow {version} is CPU-only on native Windows",
                "See platform.windows-native.",
                used,
            )
        ]
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
    if build.get("is_cuda_build") is not True or cpu_dists:
        which = ", ".join(cpu_dists) or "tensorflow"
        if plat == "windows":
            fix = (
                f"{rm.pip_uninstall(facts, which)} && {rm.pip_install(facts, 'tensorflow<2.11')}"
                " (native Windows GPU stops at 2.10) — or use WSL2 with 'tensorflow[and-cuda]'"
            )
        else:
            req = rm.tf_requirement(version, exact=True) if version != "?" else "tensorflow[and-cuda]"
            fix = f"{rm.pip_uninstall(facts, *(cpu_dists or ['tensorflow']))} && {rm.pip_install(facts, req)}"
        return [
            Finding(
                "tensorflow.cpu-only-build",
                Status.FAIL,
                f"TensorFlow {version} is a CPU-only build ({which})",
                detail=f"build_info: is_cuda_build={build.get('is_cuda_build')!r}; installed from {which}.",
                fix=fix + rm.conda_note(facts),
                docs=cat.TF_PIP,
                facts=used,
            )
        ]
    cuda = v.norm_cuda(build.get("cuda_version")) or "?"
    cudnn = v.norm_cudnn(build.get("cudnn_version")) or "?"
    caps = " ".join(map(str, fc.as_list(build.get("cuda_compute_capabilities")))) or "unknown capabilities"
    return [
        Finding(
            "tensorflow.build",
            Status.PASS,
            f"TensorFlow {version}, built for CUDA {cuda} · cuDNN {cudnn} · {caps}",
            detail=f"Interpreter: {python}; location: {tf.get('location') or 'unknown'}.",
            facts=used,
        )
    ]


def _missing(facts: dict[str, Any], python: str, error: str, used: tuple[str, ...]) -> Finding:
    plat = fc.platform(facts)
    detail = f"`import tensorflow` has no distribution in {python}."
    if error:
        detail += f" ({error})"
    if plat == "macos":
        fix = (
            f"{rm.pip_install(facts, 'tensorflow')} — CPU only: TensorFlow has no NVIDIA GPU support on"
            " macOS; use Linux or WSL2 for the GPU."
        )
    elif plat == "windows":
        fix = (
            "Native Windows GPU support ended with TensorFlow 2.10: `conda install -c conda-forge"
            f" cudatoolkit=11.2 cudnn=8.1.0` then {rm.pip_install(facts, 'tensorflow<2.11')}; or, better,"
            " install WSL2 and run `python3 -m pip install 'tensorflow[and-cuda]'` inside it."
        )
    else:
        fix = rm.pip_install(facts, "tensorflow[and-cuda]") + rm.conda_note(facts)
    return Finding(
        "tensorflow.missing",
        Status.FAIL,
        f"TensorFlow is not installed in {python}",
        detail=detail,
        fix=fix,
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


@check("tensorflow.conflicting-installs")
def conflicting_installs(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    """Two TF distributions share one `tensorflow/` directory: whichever wrote last wins, file by
    file, so the import is a mix -> fail. Mixed cu11/cu12 wheels and Keras mismatches leave TF
    computing on the GPU but break imports or uninstalls -> warn."""
    used = ("tensorflow.distributions", "tensorflow.version", "system.env")
    if fc.section(facts, "tensorflow") is None:
        return [
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
    if len(tf_dists) > 1:
        listed = ", ".join(f"{d} {v}" for d, v in tf_dists.items())
        findings.append(
            Finding(
                "tensorflow.conflicting-installs",
                Status.FAIL,
                f"{len(tf_dists)} TensorFlow packages installed: {listed}",
                detail="They all install the same `tensorflow` package directory; files of one overwrite the"
                " other's, so what imports is an unpredictable mix.",
                fix=f"{rm.pip_uninstall(facts, *tf_dists)} &&"
                f" {rm.pip_install(facts, 'tensorflow[and-cuda]')}",
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
            f"{rm.pip_uninstall(facts, *drop)} && "
            f"{rm.pip_install(facts, rm.tf_requirement(tfv, exact=True) if tfv else 'tensorflow[and-cuda]')}"
            if keep
            else "Uninstall the nvidia-* wheels of the CUDA major your TensorFlow does not use."
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
                fix=fix,
                docs=cat.TF_PIP,
                facts=used,
            )
        )
    findings += _duplicates(facts, used)
    findings += _keras(facts, dists, used)
    return findings


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
            fix=f"Run {rm.pip_uninstall(facts, *names)} until pip says it is not installed, then reinstall"
            f" once: {rm.pip_install(facts, 'tensorflow[and-cuda]')}",
            docs=cat.TF_PIP,
            facts=used,
        )
    ]


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
                    Status.WARN,
                    "TF_USE_LEGACY_KERAS is set but tf-keras is not installed",
                    detail=f"TensorFlow {tfv} then cannot import tf.keras.",
                    fix=rm.pip_install(facts, f"tf-keras=={mm}.*"),
                    docs=cat.KERAS_COMPAT,
                    facts=used,
                )
            ]
        if keras and v.major(keras) == 2 and not (legacy and tf_keras):
            return [
                Finding(
                    "tensorflow.conflicting-installs",
                    Status.WARN,
                    f"Keras {keras} with TensorFlow {tfv}",
                    detail="TensorFlow 2.16+ uses Keras 3 as tf.keras; Keras 2 needs tf-keras and"
                    " TF_USE_LEGACY_KERAS=1.",
                    fix=f"{rm.pip_install(facts, 'keras>=3')}  — or, for Keras 2 code: "
                    f"{rm.pip_install(facts, f'tf-keras=={mm}.*')} && export TF_USE_LEGACY_KERAS=1",
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
                    fix=rm.pip_install(facts, f"tf-keras=={mm}.*"),
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
                detail="TensorFlow before 2.16 expects Keras 2 (keras 2.x matching its minor); with Keras 3,"
                " tf.keras breaks.",
                fix=rm.pip_install(facts, f"keras=={mm}.*"),
                docs=cat.KERAS_COMPAT,
                facts=used,
            )
        ]
    return []


def _py(version: Any) -> tuple[int, ...]:
    return v.vtuple(version)[:2]


@check("tensorflow.python-unsupported", "tensorflow.python-ok")
def python_supported(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("tensorflow.python_version", "tensorflow.version", "tensorflow.installed")
    pyv = fc.get(facts, "tensorflow", "python_version")
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
    hint = (
        f" TensorFlow {fitting[0].version} supports Python {pytext}: "
        f"{rm.pip_install(facts, rm.tf_requirement(fitting[0].version))}"
        if fitting
        else ""
    )
    installed = fc.tf_installed(facts)
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
        (hint.strip() + f" — or use a supported Python: {venv}")
        if fitting
        else f"Use a supported Python: {venv}"
    )
    return [
        Finding(
            "tensorflow.python-unsupported",
            Status.FAIL,
            title,
            detail=detail,
            fix=fix,
            docs=cat.TF_BUILDS,
            facts=used,
        )
    ]
