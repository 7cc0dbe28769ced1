"""The CPU: the official TensorFlow wheels are compiled for AVX (since TensorFlow 1.6)."""

from __future__ import annotations

from typing import Any

from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor.checks import check
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status


@check("cpu.avx-missing")
def avx(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    items = fc.log_items(facts, "avx")
    flags = fc.as_dict(fc.get(facts, "system", "cpu_flags"))
    if not items and flags.get("avx") is not False:
        return []
    where = ("This CPU has no AVX" if flags.get("avx") is False
             else "TensorFlow died with an illegal instruction")
    return [
        Finding(
            "cpu.avx-missing",
            Status.FAIL,
            f"{where}: the official TensorFlow wheels need AVX",
            detail="Official TensorFlow wheels are compiled for AVX (and newer releases for more); on a CPU"
            " without it, `import tensorflow` dies with 'Illegal instruction'. Old Celeron, Pentium and Atom"
            " CPUs lack it, and so do VMs whose CPU model hides it.",
            plan=rm.plan(facts, P.note(
                "Run on a CPU with AVX; in a VM expose the host CPU's features (Proxmox/KVM: CPU type `host`;"
                " VirtualBox: disable Hyper-V/Windows hypervisor features that hide AVX); otherwise install a"
                " TensorFlow built without AVX (a source build, or a community no-AVX wheel)")),
            facts=("log.evidence", "system.cpu_flags"),
            evidence=fc.quote(facts, items),
            confidence="certain" if flags.get("avx") is False else "likely",
        )
    ]
