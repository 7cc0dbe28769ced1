"""The CPU: the official TensorFlow wheels are compiled for AVX (since TensorFlow 1.6)."""

from __future__ import annotations

import re
from typing import Any

from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor.checks import check
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status

# CPU models without AVX, by how their makers number them (AVX came with Intel's Sandy Bridge, 2011, and
# AMD's Bulldozer; Intel's Pentium, Celeron and Atom lines gained it only from Tiger Lake / Alder Lake):
# https://en.wikipedia.org/wiki/Advanced_Vector_Extensions#CPUs_with_AVX
_NO_AVX = re.compile(
    r"xeon(?:\(r\))?(?: cpu)? [xelw]\d{4}\b"  # X5650, E5450, L5520, W3520: before the E3-/E5- numbering
    r"|xeon(?:\(r\))?(?: cpu)? e7-\d{4}(?! v)"  # Westmere-EX (its v2 has AVX)
    r"|core(?:\(tm\))? ?2\b|\bi[357]-\d{3}[a-z]{0,2}$"  # Core 2; the first Core i (i7-920, i5-750)
    r"|(?:celeron|pentium|atom)(?!.*\b(?:[gn]?[78]\d{3}|g69\d\d)\b)"  # not Tiger Lake / Alder Lake's
    r"|phenom|athlon(?:\(tm\))? (?:ii|64)|turion|sempron"
    r"|opteron(?:\(tm\))?(?: processor)? (?:[128]\d{3}|[46]1\d\d)\b")  # K10 and older Opterons


def lacks_avx(model: str | None) -> bool:
    """Whether a CPU model, as named in /proc/cpuinfo or by a person, is one without AVX."""
    return bool(model) and bool(_NO_AVX.search(" ".join(str(model).lower().split())))


@check("cpu.avx-missing")
def avx(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    items = fc.log_items(facts, "avx")
    flags = fc.as_dict(fc.get(facts, "system", "cpu_flags"))
    model = fc.text(fc.get(facts, "system", "cpu_model"))
    # TensorFlow's native runtime did not load (Windows says only "DLL load failed") on a CPU without AVX
    failed = fc.log_items(facts, "tf-native-failed") if lacks_avx(model) and flags.get("avx") is None else []
    if not items and not failed and flags.get("avx") is not False:
        return []
    where = ("This CPU has no AVX" if flags.get("avx") is False
             else f"This CPU ({model}) has no AVX" if failed and not items
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
            facts=("log.evidence", "system.cpu_flags", "system.cpu_model"),
            evidence=fc.quote(facts, items or failed),
            confidence="certain" if flags.get("avx") is False else "likely",
        )
    ]
