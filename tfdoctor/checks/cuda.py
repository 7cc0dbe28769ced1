"""CUDA user-space libraries: what TensorFlow will load (pip wheels, ld cache, LD_LIBRARY_PATH), cuDNN,
and what the system toolkit (nvcc) does and does not matter for."""

from __future__ import annotations

import posixpath
import shlex
from typing import Any

from tfdoctor.checks import check
from tfdoctor.checks import fixes as fx
from tfdoctor.model import Finding, Status


def _cuda_target(facts: dict[str, Any], matrix: Any) -> tuple[str | None, str]:
    """TF's CUDA version, or None with the reason these checks do not apply."""
    if fx.section(facts, "tensorflow") is None:
        return None, fx.probe_error(facts, "tensorflow")
    if not fx.tf_installed(facts):
        return None, "TensorFlow is not installed (see tensorflow.missing)."
    if fx.platform(facts) in ("windows", "macos"):
        return None, "Only Linux and WSL2 load CUDA libraries from pip wheels and the ld cache."
    if fx.build_info(facts).get("is_cuda_build") is False:
        return None, "The installed TensorFlow is not a CUDA build (see tensorflow.cpu-only-build)."
    cuda, _ = fx.tf_cuda(facts, matrix)
    if not cuda or fx.major(cuda) is None:
        return None, "The CUDA version TensorFlow was built for is unknown."
    return cuda, ""


def _loadable(facts: dict[str, Any], stem: str, major: int | str) -> list[str]:
    """Paths of `stem.so.MAJOR*` in the ld cache / LD_LIBRARY_PATH (CUDA 11's cudart is libcudart.so.11.0)."""
    loadable = fx.as_dict(fx.get(facts, "libraries", "loadable"))
    prefix = f"{stem}.so.{major}"
    return [
        str(p)
        for name, paths in loadable.items()
        if name == prefix or str(name).startswith(prefix + ".")
        for p in fx.as_list(paths)
    ]


def _fix_and_cuda(facts: dict[str, Any]) -> str:
    version = fx.tf_version(facts)
    if version and not fx.version_ge(version, (2, 14)):
        return (
            f"TensorFlow {version} predates the `and-cuda` extra: upgrade "
            f"({fx.pip_install(facts, 'tensorflow[and-cuda]')}) or install the CUDA toolkit and cuDNN it"
            " was built for (see the docs)."
        )
    req = fx.tf_requirement(version, exact=True) if version else "tensorflow[and-cuda]"
    return fx.pip_install(facts, req) + fx.conda_note(facts)


@check(
    {
        "cuda.libraries-missing": "TensorFlow is a CUDA build but no libcudart/libcublas of its CUDA"
        " major is "
        "installed (pip wheels or system).",
        "cuda.libraries-ok": "libcudart and libcublas of TensorFlow's CUDA major are installed.",
    }
)
def libraries_present(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = (
        "tensorflow.build_info.cuda_version",
        "tensorflow.distributions",
        "libraries.loadable",
        "libraries.pip_nvidia",
    )
    cuda, why = _cuda_target(facts, matrix)
    if cuda is None:
        return [fx.skip("cuda.libraries-missing", "CUDA libraries not checked", why, used)]
    libs_known = fx.section(facts, "libraries") is not None
    cu = fx.major(cuda)
    dists = fx.distributions(facts)
    missing, found = [], []
    for stem, wheel in (("libcudart", f"nvidia-cuda-runtime-cu{cu}"), ("libcublas", f"nvidia-cublas-cu{cu}")):
        if wheel in dists:
            found.append(f"{wheel} {dists[wheel]}")
        elif _loadable(facts, stem, cu):
            found.append(_loadable(facts, stem, cu)[0])
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
            fx.skip(
                "cuda.libraries-missing",
                "CUDA libraries not checked",
                f"No pip wheel provides {', '.join(missing)}, and {fx.probe_error(facts, 'libraries')}.",
                used,
            )
        ]
    return [
        Finding(
            "cuda.libraries-missing",
            Status.FAIL,
            f"No CUDA {cu} libraries for TensorFlow: " + ", ".join(missing),
            detail=f"TensorFlow {fx.tf_version(facts)} was built for CUDA {cuda}; neither the pip"
            f" nvidia wheels nor"
            " the ld cache / LD_LIBRARY_PATH provide them, so TensorFlow falls back to the CPU.",
            fix=_fix_and_cuda(facts),
            docs=fx.DOCS_TF_PIP,
            facts=used,
        )
    ]


def _cudnn_pin(facts: dict[str, Any], matrix: Any, wheel: str, want_major: int) -> str:
    release = fx.tf_release(matrix, facts)
    spec = fx.as_dict(getattr(release, "and_cuda", None)).get(wheel) if release is not None else None
    if isinstance(spec, str) and spec.strip():
        spec = spec.strip()
        return f"{wheel}{spec}" if spec[0] in "<>=!~" else f"{wheel}=={spec}"
    return f"{wheel}=={want_major}.*"


@check(
    {
        "cudnn.missing": "No cuDNN of the major version TensorFlow was built with is installed.",
        "cudnn.version-mismatch": "The installed cuDNN's version differs from (or is older than) the one "
        "TensorFlow was built with.",
        "cudnn.ok": "A cuDNN matching TensorFlow's build is installed.",
    }
)
def cudnn_present(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("tensorflow.build_info.cudnn_version", "tensorflow.distributions", "libraries.loadable")
    cuda, why = _cuda_target(facts, matrix)
    if cuda is None:
        return [fx.skip("cudnn.missing", "cuDNN not checked", why, used)]
    release = fx.tf_release(matrix, facts)
    built = fx.norm_cudnn(fx.build_info(facts).get("cudnn_version")) or (
        str(release.cudnn) if release is not None and getattr(release, "cudnn", None) else None
    )
    if not built:
        return [
            fx.skip(
                "cudnn.missing",
                "cuDNN not checked",
                "The cuDNN version TensorFlow was built with is unknown.",
                used,
            )
        ]
    want = fx.major(built)
    # the minor TF was compiled with: build_info only has the major; the matrix row has major.minor
    floor = fx.vtuple(release.cudnn) if release is not None and fx.major(release.cudnn) == want else (want,)
    cu = fx.major(cuda)
    wheel = f"nvidia-cudnn-cu{cu}"
    dists = fx.distributions(facts)
    pin = _cudnn_pin(facts, matrix, wheel, want)
    if wheel in dists:
        have = dists[wheel]
        if fx.major(have) != want or fx.vtuple(have)[:2] < floor[:2]:
            floor_text = ".".join(map(str, floor))
            return [
                Finding(
                    "cudnn.version-mismatch",
                    Status.FAIL,
                    f"cuDNN {have} ({wheel}) but TensorFlow needs cuDNN {floor_text}",
                    detail=f"TensorFlow {fx.tf_version(facts)} was built with cuDNN {floor_text}; cuDNN"
                    f" refuses to run"
                    " a build compiled against a newer minor, and a different major does not load at all.",
                    fix=fx.pip_install(facts, pin) + fx.conda_note(facts),
                    docs=fx.DOCS_TF_PIP,
                    facts=used,
                )
            ]
        return [
            Finding(
                "cudnn.ok", Status.PASS, f"cuDNN {have} ({wheel}) for TensorFlow's cuDNN {built}", facts=used
            )
        ]
    if fx.section(facts, "libraries") is None:
        return [
            fx.skip(
                "cudnn.missing",
                "cuDNN not checked",
                f"No {wheel} wheel, and {fx.probe_error(facts, 'libraries')}.",
                used,
            )
        ]
    system = _loadable(facts, "libcudnn", want)
    if system:
        return [
            Finding(
                "cudnn.ok",
                Status.PASS,
                f"cuDNN {want} from the system: {system[0]}",
                detail=f"No {wheel} wheel; TensorFlow will load the system cuDNN {want}.",
                facts=used,
            )
        ]
    others = [p for m in range(5, 12) if m != want for p in _loadable(facts, "libcudnn", m)]
    if others:
        return [
            Finding(
                "cudnn.version-mismatch",
                Status.FAIL,
                f"Only a different cuDNN major is installed: {others[0]}",
                detail=f"TensorFlow {fx.tf_version(facts)} needs libcudnn.so.{want}.",
                fix=fx.pip_install(facts, pin) + fx.conda_note(facts),
                docs=fx.DOCS_TF_PIP,
                facts=used,
            )
        ]
    return [
        Finding(
            "cudnn.missing",
            Status.FAIL,
            f"No cuDNN {want} for TensorFlow",
            detail=f"Neither the {wheel} wheel nor libcudnn.so.{want} in the ld cache / LD_LIBRARY_PATH"
            f" was found;"
            " TensorFlow falls back to the CPU.",
            fix=fx.pip_install(facts, pin) + fx.conda_note(facts),
            docs=fx.DOCS_TF_PIP,
            facts=used,
        )
    ]


@check(
    {
        "cuda.nvcc-differs": "The system CUDA toolkit (nvcc) and TensorFlow's CUDA: pip TensorFlow"
        " ships its own "
        "CUDA libraries; nvcc only matters for XLA's ptxas.",
    }
)
def nvcc_vs_tf(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("nvcc.found", "nvcc.version", "tensorflow.build_info.cuda_version", "tensorflow.distributions")
    cuda, why = _cuda_target(facts, matrix)
    if cuda is None:
        return [fx.skip("cuda.nvcc-differs", "System nvcc not compared", why, used)]
    nvcc = fx.section(facts, "nvcc")
    if nvcc is None:
        return [fx.skip("cuda.nvcc-differs", "System nvcc not compared", fx.probe_error(facts, "nvcc"), used)]
    cu = fx.major(cuda)
    pip_nvcc = next((d for d in fx.distributions(facts) if d == f"nvidia-cuda-nvcc-cu{cu}"), None)
    version = nvcc.get("version") if nvcc.get("found") else None
    path = next((str(i.get("path")) for i in fx.as_list(nvcc.get("installs")) if isinstance(i, dict)), None)
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
    if fx.major_minor(version) == fx.major_minor(cuda):
        return [
            Finding(
                "cuda.nvcc-differs",
                Status.PASS,
                f"nvcc {version}{where} matches TensorFlow's CUDA {cuda}",
                detail=f"Not required: {plain}.",
                facts=used,
            )
        ]
    if pip_nvcc or fx.major(version) == cu:
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
            f" nvidia-cuda-nvcc-cu{cu} wheel is missing; a CUDA {fx.major(version)} ptxas may reject"
            f" TensorFlow's PTX or your GPU's architecture.",
            fix=fx.pip_install(facts, f"nvidia-cuda-nvcc-cu{cu}"),
            docs=fx.DOCS_TF_PIP,
            facts=used,
        )
    ]


@check(
    {
        "cuda.ld-library-path-shadowing": "LD_LIBRARY_PATH puts other CUDA libraries ahead of the pip wheels "
        "TensorFlow was installed with.",
    }
)
def ld_library_path_shadowing(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("libraries.shadowing", "libraries.ld_library_path")
    libs = fx.section(facts, "libraries")
    if libs is None:
        return [
            fx.skip(
                "cuda.ld-library-path-shadowing",
                "Library shadowing not checked",
                fx.probe_error(facts, "libraries"),
                used,
            )
        ]
    entries = [e for e in fx.as_list(libs.get("shadowing")) if isinstance(e, dict) and e.get("first")]
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
            docs=fx.DOCS_TF_PIP,
            facts=used,
        )
    ]
