"""NCCL: the library MirroredStrategy and MultiWorkerMirroredStrategy all-reduce with on GPUs."""

from __future__ import annotations

from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor import versions as v
from tfdoctor.checks import check
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status

_HIERARCHICAL = "tf.distribute.MirroredStrategy(cross_device_ops=tf.distribute.HierarchicalCopyAllReduce())"
_FAILED = ("fail", "error", "abort", "timeout", "timed out", "unhandled", "invalid", "refused", "unable")


@check("nccl.error")
def collective_errors(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    errors = fc.log_items(facts, "nccl-error")
    warned = fc.log_items(facts, "nccl-warn")
    failed_warn = [i for i in warned if any(w in str(i.get("text", "")).lower() for w in _FAILED)]
    items = errors + failed_warn or warned
    if not items:
        return []
    if any(i.get("why") == "iommu" for i in errors):
        return [Finding(
            "nccl.error",
            Status.FAIL,
            "The IOMMU blocks the GPUs' peer-to-peer traffic (DMA faults in the kernel log)",
            detail="With the IOMMU (Intel VT-d, AMD-Vi) translating DMA, GPU peer-to-peer copies fault:"
            " NCCL's all-reduce under MirroredStrategy hangs or fails.",
            plan=rm.plan(facts, P.env("NCCL_P2P_DISABLE", "1", why="NCCL then copies through host memory;"),
                         P.note("or, on the host, turn VT-d/IOMMU off in the BIOS or boot with iommu=pt, and"
                                " disable PCI ACS on the switches between the GPUs")),
            docs=cat.NV_NCCL_TROUBLE,
            facts=("log.evidence",),
            evidence=fc.quote(facts, [i for i in errors if i.get("why") == "iommu"]),
        )]
    unloaded = [i for i in errors if i.get("why") == "library"]
    if unloaded:
        cu = v.major(fc.tf_cuda(facts, matrix)[0]) or 12
        return [Finding(
            "nccl.error",
            Status.FAIL,
            "NCCL could not be loaded: multi-GPU collectives cannot run",
            detail="The all-reduce between GPUs loads libnccl when it first runs; none was found (pip"
            f" installs it as the nvidia-nccl-cu{cu} wheel with the framework's CUDA extra).",
            plan=rm.plan(facts, rm.install(f"nvidia-nccl-cu{cu}", why="the NCCL of the framework's CUDA; or"
                                           " reinstall the framework with its CUDA extra, keeping your"
                                           " version")),
            docs=cat.NV_NCCL_TROUBLE,
            facts=("log.evidence",),
            evidence=fc.quote(facts, unloaded),
        )]
    shm = [i for i in errors if i.get("why") == "shm"]
    if shm:
        return [Finding(
            "nccl.error",
            Status.FAIL,
            "NCCL cannot create its shared-memory segment: /dev/shm is too small",
            detail="NCCL moves data between the GPUs of one machine through /dev/shm; a container gets 64 MB"
            " of it by default, too little for NCCL's buffers.",
            plan=rm.plan(facts, P.system("docker run --shm-size=1g ...", "or --ipc=host; in Kubernetes, an"
                                         " emptyDir volume with medium: Memory mounted at /dev/shm")),
            docs=cat.NV_NCCL_TROUBLE,
            facts=("log.evidence",),
            evidence=fc.quote(facts, shm),
        )]
    return [
        Finding(
            "nccl.error",
            Status.FAIL if errors or failed_warn else Status.WARN,
            "An NCCL collective failed" if errors or failed_warn else "NCCL warned during setup",
            detail="NCCL carries MirroredStrategy's all-reduce between GPUs (and nodes). Its error names the"
            " transport that broke: shared memory in containers, peer-to-peer/NVLink, InfiniBand,"
            " or sockets.",
            plan=rm.plan(facts, P.system("NCCL_DEBUG=INFO python your_script.py", "shows the failing"
                                         " transport; then try NCCL_P2P_DISABLE=1 (P2P/NVLink),"
                                         " NCCL_IB_DISABLE=1 (InfiniBand), or --ipc=host / --shm-size=1g in"
                                         f" containers; or use `{_HIERARCHICAL}`")),
            docs=cat.NV_NCCL_TROUBLE,
            facts=("log.evidence",),
            evidence=fc.quote(facts, items),
        )
    ]


@check("nccl.unsupported-platform")
def unsupported_platform(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    items = fc.log_items(facts, "nccl-unsupported")
    if not items:
        return []
    return [
        Finding(
            "nccl.unsupported-platform",
            Status.FAIL,
            "NCCL is not available here (native Windows or macOS builds have no NCCL)",
            detail="MirroredStrategy's default all-reduce is NCCL's; this TensorFlow build has no"
            " NcclAllReduce kernel.",
            plan=rm.plan(facts, P.note(f"Use `strategy = {_HIERARCHICAL}` (all-reduce without NCCL), or run"
                                       " on Linux/WSL2")),
            facts=("log.evidence", "system.platform"),
            evidence=fc.quote(facts, items),
            # (TensorFlow registered no GPU device: any GPU kernel, NCCL's too, is missing for that reason)
            caused_by="runtime.no-gpu-visible" if fc.get(facts, "runtime", "tf_visible_gpus") == 0 else None,
        )
    ]
