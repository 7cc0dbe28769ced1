"""The GPUs themselves: hidden by CUDA_VISIBLE_DEVICES, compute capability vs TensorFlow's kernels,
and how many TensorFlow can use against --require-gpus."""

from __future__ import annotations

from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor.checks import check, skipped
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status


def _cvd(facts: dict[str, Any]) -> str | None:
    value = fc.env(facts).get("CUDA_VISIBLE_DEVICES")
    return None if value is None else str(value)


@check("gpu.hidden-by-cuda-visible-devices")
def hidden_by_cuda_visible_devices(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = ("system.env.CUDA_VISIBLE_DEVICES", "nvml.gpus", "nvidia_smi.gpus", "system.dev_nvidia")
    value = _cvd(facts)
    if value is None:
        return []
    gpus, source = fc.gpus(facts, dev_nodes=True)
    picked = fc.cuda_visible(value, gpus)
    visible = None if picked is None else len(picked)
    shown = f"CUDA_VISIBLE_DEVICES={value!r}"
    if visible is None:
        return [
            skipped(
                "gpu.hidden-by-cuda-visible-devices",
                f"{shown} not verified",
                "Its indices or UUIDs could not be matched against a known GPU list.",
                used,
            )
        ]
    if visible > 0:
        of = f" of {len(gpus)} ({source})" if gpus else ""
        return [
            Finding(
                "gpu.hidden-by-cuda-visible-devices",
                Status.PASS,
                f"{shown} exposes {visible}{of} GPU{'s' if visible != 1 else ''}",
                facts=used,
            )
        ]
    if source is None and fc.get(facts, "nvml", "available") is not True:
        status, known = Status.WARN, "No GPU list is known here, but this value hides every GPU."
    elif not gpus:
        return []  # no GPU at all: nothing to hide
    else:
        status, known = (
            Status.FAIL,
            f"{len(gpus)} GPU(s) exist per {source}; CUDA and TensorFlow will see none.",
        )
    slurm = (
        " (SLURM sets NoDevFiles when the job got no GPUs: request them with --gres=gpu:N)"
        if value.strip() == "NoDevFiles"
        else ""
    )
    indices = ",".join(str(i) for i in range(len(gpus))) or "0"
    return [
        Finding(
            "gpu.hidden-by-cuda-visible-devices",
            status,
            f"{shown} hides every GPU",
            detail=known
            + " CUDA stops reading the list at the first entry that is not a valid index or GPU UUID.",
            fix=f"unset CUDA_VISIBLE_DEVICES  # or: export CUDA_VISIBLE_DEVICES={indices}{slurm}; find"
            f" where it is set:"
            " grep -n CUDA_VISIBLE_DEVICES ~/.bashrc ~/.profile /etc/environment",
            docs=cat.NV_CUDA_ENV,
            facts=used,
        )
    ]


def _fit(caps: Any, cc: str) -> str | None:
    """kernel_fit, with a malformed capability treated as "nothing fits"."""
    from tfdoctor.compat import kernel_fit

    try:
        return kernel_fit(tuple(str(c) for c in caps), cc)
    except ValueError:
        return None


def _gpu_ccs(facts: dict[str, Any], matrix: Any) -> list[tuple[str, str, str]]:
    """[(name, compute capability, source)] for each GPU whose capability is known."""
    out = []
    gpus, source = fc.gpus(facts, dev_nodes=True)
    for g in gpus:
        name = str(g.get("name") or f"GPU {g.get('index', '?')}")
        cc = g.get("compute_capability")
        src = source or ""
        if not cc and g.get("name") and matrix is not None:
            model = matrix.gpu(str(g["name"]))
            cc = getattr(model, "compute_capability", None) if model is not None else None
            src = "compat matrix (by name)"
        if cc:
            out.append((name, str(cc), src))
    return out


def _tf_caps(facts: dict[str, Any], matrix: Any) -> tuple[tuple[str, ...], str]:
    caps = fc.as_list(fc.build_info(facts).get("cuda_compute_capabilities"))
    if caps:
        return tuple(str(c) for c in caps), "build_info"
    release = fc.tf_release(matrix, facts)
    caps = tuple(getattr(release, "compute_capabilities", ()) or ()) if release is not None else ()
    return tuple(str(c) for c in caps), "compat matrix"


@check("gpu.compute-capability-unsupported", "gpu.compute-capability-ptx-jit", "gpu.compute-capability-ok")
def compute_capability(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = (
        "nvml.gpus.compute_capability",
        "nvidia_smi.gpus.name",
        "tensorflow.build_info.cuda_compute_capabilities",
    )
    fid = "gpu.compute-capability-unsupported"
    if not fc.tf_installed(facts):
        return [skipped(fid, "Compute capability not checked", "TensorFlow is not installed.", used)]
    if fc.build_info(facts).get("is_cuda_build") is False:
        return [skipped(fid, "Compute capability not checked", "TensorFlow is not a CUDA build.", used)]
    caps, caps_source = _tf_caps(facts, matrix)
    if not caps:
        return [
            skipped(
                fid,
                "Compute capability not checked",
                "The compute capabilities TensorFlow was built for are unknown.",
                used,
            )
        ]
    gpus = _gpu_ccs(facts, matrix)
    if not gpus:
        return [
            skipped(fid, "Compute capability not checked", "No GPU with a known compute capability.", used)
        ]
    tfv = fc.tf_version(facts)
    built = " ".join(caps)
    findings: list[Finding] = []
    sass = []
    for name, cc, src in dict.fromkeys(gpus):
        fit = _fit(caps, cc)
        if fit == "sass":
            sass.append(f"{name} ({cc})")
        elif fit == "ptx":
            findings.append(
                Finding(
                    "gpu.compute-capability-ptx-jit",
                    Status.WARN,
                    f"{name} (compute capability {cc}) runs TensorFlow {tfv} only by JIT-compiling PTX",
                    detail=f"TensorFlow was built for {built} ({caps_source}); no native kernels for"
                    f" {cc}. The first"
                    " run compiles them for minutes; they are cached only if the CUDA cache is big enough."
                    " Some newer GPUs fail this JIT (CUDA_ERROR_INVALID_PTX).",
                    fix="export CUDA_CACHE_MAXSIZE=4294967296  # 4 GiB JIT cache; let the first run"
                    " finish once",
                    docs=cat.NV_JIT,
                    facts=used,
                )
            )
        else:
            findings.append(
                Finding(
                    fid,
                    Status.FAIL,
                    f"TensorFlow {tfv} has no kernels for {name} (compute capability {cc})",
                    detail=f"It was built for {built} ({caps_source}); the GPU's capability ({cc}, from"
                    f" {src}) is"
                    " not covered by SASS of the same major nor by older PTX.",
                    fix=_cc_fix(facts, matrix, cc),
                    docs=cat.NV_GPUS,
                    facts=used,
                )
            )
    if sass:
        findings.append(
            Finding(
                "gpu.compute-capability-ok",
                Status.PASS,
                f"Native TensorFlow kernels for {', '.join(sass)}",
                detail=f"TensorFlow {tfv} was built for {built}.",
                facts=used,
            )
        )
    return findings


def _cc_fix(facts: dict[str, Any], matrix: Any, cc: str) -> str:
    for release in fc.all_releases(matrix):
        caps = tuple(getattr(release, "compute_capabilities", ()) or ())
        if caps and _fit(caps, cc) is not None:
            return (
                f"Install TensorFlow {release.version}, the newest release with kernels for {cc}: "
                f"{rm.pip_install(facts, rm.tf_requirement(release.version))}; or build TensorFlow from"
                f" source"
                f" with TF_CUDA_COMPUTE_CAPABILITIES={cc}"
            )
    return f"Build TensorFlow from source with TF_CUDA_COMPUTE_CAPABILITIES={cc}, or use a newer GPU"


@check("gpu.count-below-required", "gpu.count-ok")
def count_required(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    used = (
        "options.require_gpus",
        "runtime.tf_visible_gpus",
        "nvml.gpus",
        "nvidia_smi.gpus",
        "system.env.CUDA_VISIBLE_DEVICES",
    )
    need = fc.as_dict(facts.get("options")).get("require_gpus")
    if need is None:
        return []
    if isinstance(need, bool) or not isinstance(need, int) or need < 0:
        return [
            skipped(
                "gpu.count-below-required",
                "GPU count not checked",
                f"--require-gpus {need!r} is not a count of GPUs (0 or more).",
                used,
            )
        ]
    have, source = _usable_gpus(facts)
    if have is None:
        return [
            Finding(
                "gpu.count-below-required",
                Status.FAIL,
                f"Could not confirm any GPU; {need} required",
                detail="Neither the TensorFlow worker nor NVML/nvidia-smi/dev nodes reported a GPU count.",
                fix="Fix the failures above (driver, TensorFlow) and run `tfdoctor check` without --quick.",
                facts=used,
            )
        ]
    if have >= need:
        return [
            Finding(
                "gpu.count-ok",
                Status.PASS,
                f"{have} GPU(s) usable, {need} required",
                detail=f"Counted by {source}.",
                facts=used,
            )
        ]
    cvd = _cvd(facts)
    hint = "unset CUDA_VISIBLE_DEVICES (it hides GPUs), " if cvd is not None else ""
    return [
        Finding(
            "gpu.count-below-required",
            Status.FAIL,
            f"Only {have} GPU(s) usable, {need} required",
            detail=f"Counted by {source}.",
            fix=f"{hint}fix the failures above, or run on a machine with {need} GPUs "
            f"(SLURM: --gres=gpu:{need}; Kubernetes: nvidia.com/gpu: {need}).",
            facts=used,
        )
    ]


def _usable_gpus(facts: dict[str, Any]) -> tuple[int | None, str]:
    runtime = fc.section(facts, "runtime")
    if runtime and runtime.get("ran"):
        seen = runtime.get("tf_visible_gpus")
        if isinstance(seen, list):
            seen = len(seen)
        if isinstance(seen, int) and not isinstance(seen, bool):
            return seen, "the TensorFlow worker (tf.config.list_physical_devices('GPU'))"
    why = (
        "the worker gave no GPU count" if runtime and runtime.get("ran") else "TensorFlow itself was not run"
    )
    gpus, source = fc.gpus(facts, dev_nodes=True)
    if source is None:
        return None, ""
    cvd = _cvd(facts)
    if cvd is None:
        return len(gpus), f"{source} ({why})"
    picked = fc.cuda_visible(cvd, gpus)
    visible = None if picked is None else len(picked)
    if visible is None:
        return len(gpus), f"{source}; CUDA_VISIBLE_DEVICES={cvd!r} could not be resolved ({why})"
    return visible, f"{source}, minus CUDA_VISIBLE_DEVICES={cvd!r} ({why})"
