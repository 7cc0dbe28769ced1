"""cuBLAS: the GEMM library every matmul and dense layer uses on the GPU."""

from __future__ import annotations

from typing import Any

from tfdoctor import facts as fc
from tfdoctor.checks import check
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status


@check("cublas.init-failed")
def cublas_initialised(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    """cuBLAS could not create its handle or launch a GEMM (TensorFlow's log says so)."""
    items = fc.log_items(facts, "cublas-failed")
    if not items:
        return []
    status = next((str(i["status"]) for i in items if i.get("status")), None)
    asserted = fc.device_asserts(facts)
    return [
        Finding(
            "cublas.init-failed",
            Status.FAIL,
            "cuBLAS failed to initialise" + (f" (CUBLAS_STATUS_{status})" if status else ""),
            detail="cuBLAS could not create its handle or run a matrix multiply on the GPU. Most often the"
            " GPU's memory was already taken (TensorFlow reserves almost all of it by default, so a second"
            " process or a second TensorFlow session finds none left); otherwise the CUDA libraries are"
            " broken or do not support this GPU.",
            plan=rm.memory_growth(facts, matrix),
            facts=("log.evidence",),
            evidence=fc.quote(facts, asserted[:1] + items),
            caused_by="log.program-error" if asserted else None,
        )
    ]
