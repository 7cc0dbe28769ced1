"""XLA's CUDA toolchain: libdevice and a ptxas that knows this GPU (jit_compile, Keras 3's default)."""

from __future__ import annotations

from typing import Any

from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor import versions as v
from tfdoctor.checks import check
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status

# Messages that announce a fallback rather than a failure.
_SOFT = ("can't find ptxas binary", "can't find libdevice directory")


@check("xla.toolchain-missing")
def toolchain(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    items = fc.log_items(facts, "xla-tools")
    if not items:
        return []
    fallback = fc.noise_seen(facts, "ptx-driver-fallback")  # no ptxas, and the driver compiles instead
    hard = [i for i in items if not any(s in str(i.get("text")).lower() for s in _SOFT)
            and not (fallback and i.get("what") == "ptxas")]
    what = sorted({str(i.get("what")) for i in items if i.get("what")})
    cu = v.major(fc.tf_cuda(facts, matrix)[0]) or 12
    tfv = fc.tf_version(facts)
    if tfv and not v.version_ge(tfv, (2, 14)):
        fix = rm.plan(facts, P.env("XLA_FLAGS", "--xla_gpu_cuda_data_dir=/usr/local/cuda",
                                   why="a CUDA toolkit folder holding nvvm/libdevice and bin/ptxas, of"
                                   " TensorFlow's CUDA version"))
    else:
        fix = rm.plan(facts, rm.install(f"nvidia-cuda-nvcc-cu{cu}",
                                        why="ptxas and libdevice for XLA; or point"
                                        " XLA at a CUDA toolkit: export"
                                        " XLA_FLAGS=--xla_gpu_cuda_data_dir=/usr/local/cuda"))
    return [
        Finding(
            "xla.toolchain-missing",
            Status.FAIL if hard else Status.WARN,
            f"XLA cannot find {' and '.join(what) or 'the CUDA compiler tools'}",
            detail="XLA (jit_compile, and Keras 3's default fit) compiles GPU code with ptxas and libdevice"
            " from the CUDA toolkit or the nvidia-cuda-nvcc wheel; without them compiled functions fail"
            + ("." if hard else " or fall back to the driver, slower."),
            plan=fix,
            facts=("log.evidence", "tensorflow.distributions"),
            evidence=fc.quote(facts, items),
        )
    ]


@check("xla.ptxas-too-old")
def ptxas_version(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    items = []
    for item in fc.log_items(facts, "ptxas-old"):
        have, need = item.get("have"), item.get("need")
        if have and need and v.vtuple(have) >= v.vtuple(need):
            continue  # TensorFlow's own version check sometimes misfires: the numbers say it is fine
        items.append(item)
    if not items:
        return []
    hard = [i for i in items if not i.get("soft")]
    target = next((i.get("target") for i in items if i.get("target")), None)
    have = next((i.get("have") for i in items if i.get("have")), None)
    cu = v.major(fc.tf_cuda(facts, matrix)[0]) or 12
    isa = next((i for i in items if i.get("ptx_need")), None)
    buggy = next((i for i in items if i.get("buggy")), None)
    tool = next((i["tool"] for i in items if i.get("tool")), "ptxas")  # (nvcc itself, compiling for the GPU)
    title = (f"XLA refuses ptxas {buggy['have']}, a release it knows to miscompile" if buggy else
             f"{tool} does not know sm_{target} (this GPU)" if target else
             f"ptxas knows PTX {isa['ptx_have']}, older than the PTX {isa['ptx_need']} it was given"
             if isa else
             f"ptxas {have} is older than TensorFlow needs" if have else "ptxas is too old for this GPU")
    return [
        Finding(
            "xla.ptxas-too-old",
            Status.FAIL if hard else Status.WARN,
            title,
            detail="XLA compiles kernels with the first ptxas it finds (the nvidia-cuda-nvcc wheel, CUDA_DIR,"
            " or PATH); "
            + ("XLA stops rather than use this release." if buggy and len(items) == 1 else
               "this one predates the GPU's architecture or TensorFlow's CUDA, so compilation fails or falls"
               " back to the driver."),
            plan=rm.nvcc_plan(facts, cu, why="a current ptxas for XLA; or put a newer CUDA toolkit's bin"
                              " first on PATH (export PATH=/usr/local/cuda-12.8/bin:$PATH)"),
            facts=("log.evidence", "nvcc.version"),
            evidence=fc.quote(facts, items),
        )
    ]
