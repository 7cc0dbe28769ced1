"""CUDA user-space libraries: what TensorFlow will load (pip wheels, ld cache, LD_LIBRARY_PATH), cuDNN,
and what the system toolkit (nvcc) does and does not matter for."""

from __future__ import annotations

import posixpath
import shlex
from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import versions as v
from tfdoctor.checks import check, skipped
from tfdoctor.checks import remedies as rm
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


def _fix_and_cuda(facts: dict[str, Any]) -> str:
    version = fc.tf_version(facts)
    if version and not v.version_ge(version, (2, 14)):
        return (
            f"TensorFlow {version} predates the `and-cuda` extra: upgrade "
            f"({rm.pip_install(facts, 'tensorflow[and-cuda]')}) or install the CUDA toolkit and cuDNN it"
            " was built for (see the docs)."
        )
    req = rm.tf_requirement(version, exact=True) if version else "tensorflow[and-cuda]"
    return rm.pip_install(facts, req) + rm.conda_note(facts)


@check("cuda.libraries-missing", "cuda.libraries-ok")
def libraries_present(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = (
        "tensorflow.build_info.cuda_version",
        "tensorflow.distributions",
        "libraries.loadable",
        "libraries.pip_nvidia",
    )
    cuda, why = cuda_target(facts, matrix)
    if cuda is None:
        return [skipped("cuda.libraries-missing", "CUDA libraries not checked", why, used)]
    libs_known = fc.section(facts, "libraries") is not None
    cu = v.major(cuda)
    dists = fc.distributions(facts)
    missing, found = [], []
    for stem, wheel in (("libcudart", f"nvidia-cuda-runtime-cu{cu}"), ("libcublas", f"nvidia-cublas-cu{cu}")):
        if wheel in dists:
            found.append(f"{wheel} {dists[wheel]}")
        elif loadable(facts, stem, cu):
            found.append(loadable(facts, stem, cu)[0])
        else:
            missing.append(f"{stem}.so.{cu} ({wheel})")
    if not missing:
        return [
            Finding(
                "cuda.libraries-ok",
                Status.PASS,
                f"CUDA {cu} runtime libraries: " + ", ".join(found),
                facts=used,
            )
        ]
    if not libs_known:
        return [
            skipped(
                "cuda.libraries-missing",
                "CUDA libraries not checked",
                f"No pip wheel provides {', '.join(missing)}, and {fc.probe_error(facts, 'libraries')}.",
                used,
            )
        ]
    return [
        Finding(
            "cuda.libraries-missing",
            Status.FAIL,
            f"No CUDA {cu} libraries for TensorFlow: " + ", ".join(missing),
            detail=f"TensorFlow {fc.tf_version(facts)} was built for CUDA {cuda}; neither the pip"
            f" nvidia wheels nor"
            " the ld cache / LD_LIBRARY_PATH provide them, so TensorFlow falls back to the CPU.",
            fix=_fix_and_cuda(facts),
            docs=cat.TF_PIP,
            facts=used,
        )
    ]


@check("cuda.nvcc-differs")
def nvcc_vs_tf(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("nvcc.found", "nvcc.version", "tensorflow.build_info.cuda_version", "tensorflow.distributions")
    cuda, why = cuda_target(facts, matrix)
    if cuda is None:
        return [skipped("cuda.nvcc-differs", "System nvcc not compared", why, used)]
    nvcc = fc.section(facts, "nvcc")
    if nvcc is None:
        return [skipped("cuda.nvcc-differs", "System nvcc not compared", fc.probe_error(facts, "nvcc"), used)]
    cu = v.major(cuda)
    pip_nvcc = next((d for d in fc.distributions(facts) if d == f"nvidia-cuda-nvcc-cu{cu}"), None)
    version = nvcc.get("version") if nvcc.get("found") else None
    path = next((str(i.get("path")) for i in fc.as_list(nvcc.get("installs")) if isinstance(i, dict)), None)
    where = f" ({path})" if path else ""
    plain = "pip TensorFlow ships its own CUDA libraries and does not use the system toolkit"
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
            fix=rm.pip_install(facts, f"nvidia-cuda-nvcc-cu{cu}"),
            docs=cat.TF_PIP,
            facts=used,
        )
    ]


@check("cuda.ld-library-path-shadowing")
def ld_library_path_shadowing(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("libraries.shadowing", "libraries.ld_library_path")
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
            fix=(
                "unset LD_LIBRARY_PATH  # or drop just these dirs: export LD_LIBRARY_PATH=$(echo"
                ' "$LD_LIBRARY_PATH"'
                f" | tr ':' '\\n' | grep -Fvx {drop} | paste -sd:)"
            ),
            docs=cat.TF_PIP,
            facts=used,
        )
    ]
