"""cuDNN: is one TensorFlow can load installed, of the major and minor TensorFlow was built with."""

from __future__ import annotations

from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import versions as v
from tfdoctor.checks import check, skipped
from tfdoctor.checks import remedies as rm
from tfdoctor.checks.cuda import cuda_target, loadable
from tfdoctor.model import Finding, Status


def _cudnn_pin(facts: dict[str, Any], matrix: Any, wheel: str, want_major: int) -> str:
    release = fc.tf_release(matrix, facts)
    spec = fc.as_dict(getattr(release, "and_cuda", None)).get(wheel) if release is not None else None
    if isinstance(spec, str) and spec.strip():
        spec = spec.strip()
        return f"{wheel}{spec}" if spec[0] in "<>=!~" else f"{wheel}=={spec}"
    return f"{wheel}=={want_major}.*"


@check("cudnn.missing", "cudnn.version-mismatch", "cudnn.ok")
def cudnn_present(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("tensorflow.build_info.cudnn_version", "tensorflow.distributions", "libraries.loadable")
    cuda, why = cuda_target(facts, matrix)
    if cuda is None:
        return [skipped("cudnn.missing", "cuDNN not checked", why, used)]
    release = fc.tf_release(matrix, facts)
    built = v.norm_cudnn(fc.build_info(facts).get("cudnn_version")) or (
        str(release.cudnn) if release is not None and getattr(release, "cudnn", None) else None
    )
    if not built:
        return [
            skipped(
                "cudnn.missing",
                "cuDNN not checked",
                "The cuDNN version TensorFlow was built with is unknown.",
                used,
            )
        ]
    want = v.major(built)
    # the minor TF was compiled with: build_info only has the major; the matrix row has major.minor
    floor = v.vtuple(release.cudnn) if release is not None and v.major(release.cudnn) == want else (want,)
    cu = v.major(cuda)
    wheel = f"nvidia-cudnn-cu{cu}"
    dists = fc.distributions(facts)
    pin = _cudnn_pin(facts, matrix, wheel, want)
    if wheel in dists:
        have = dists[wheel]
        if v.major(have) != want or v.vtuple(have)[:2] < floor[:2]:
            floor_text = ".".join(map(str, floor))
            return [
                Finding(
                    "cudnn.version-mismatch",
                    Status.FAIL,
                    f"cuDNN {have} ({wheel}) but TensorFlow needs cuDNN {floor_text}",
                    detail=f"TensorFlow {fc.tf_version(facts)} was built with cuDNN {floor_text}; cuDNN"
                    f" refuses to run"
                    " a build compiled against a newer minor, and a different major does not load at all.",
                    fix=rm.pip_install(facts, pin) + rm.conda_note(facts),
                    docs=cat.TF_PIP,
                    facts=used,
                )
            ]
        return [
            Finding(
                "cudnn.ok", Status.PASS, f"cuDNN {have} ({wheel}) for TensorFlow's cuDNN {built}", facts=used
            )
        ]
    if fc.section(facts, "libraries") is None:
        return [
            skipped(
                "cudnn.missing",
                "cuDNN not checked",
                f"No {wheel} wheel, and {fc.probe_error(facts, 'libraries')}.",
                used,
            )
        ]
    system = loadable(facts, "libcudnn", want)
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
    others = [p for m in range(5, 12) if m != want for p in loadable(facts, "libcudnn", m)]
    if others:
        return [
            Finding(
                "cudnn.version-mismatch",
                Status.FAIL,
                f"Only a different cuDNN major is installed: {others[0]}",
                detail=f"TensorFlow {fc.tf_version(facts)} needs libcudnn.so.{want}.",
                fix=rm.pip_install(facts, pin) + rm.conda_note(facts),
                docs=cat.TF_PIP,
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
            fix=rm.pip_install(facts, pin) + rm.conda_note(facts),
            docs=cat.TF_PIP,
            facts=used,
        )
    ]
