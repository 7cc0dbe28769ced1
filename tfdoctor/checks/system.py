"""The system's own libraries: glibc and libstdc++ must be as new as TensorFlow's binaries need."""

from __future__ import annotations

from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor.checks import check
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status


@check("system.glibc-too-old")
def glibc(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    items = fc.log_items(facts, "glibc")
    if not items:
        return []
    musl = [i for i in items if i.get("loader") or i.get("musl_symbol")]
    if musl:
        return [Finding(
            "system.glibc-too-old",
            Status.FAIL,
            "This system's C library is musl (Alpine), not glibc: TensorFlow's binaries cannot load",
            detail="TensorFlow's libraries (Python wheels, libtensorflow, tfjs-node) are built for glibc;"
            " musl's loader finds neither glibc's loader (ld-linux) nor its symbols.",
            plan=rm.plan(facts, P.note("Use a glibc-based system or image (Debian or Ubuntu: e.g. a `-slim`"
                                       " image instead of an `-alpine` one)")),
            docs=cat.MANYLINUX,
            facts=("log.evidence",),
            evidence=fc.quote(facts, musl),
        )]
    symbol = next((str(i["symbol"]) for i in items if i.get("symbol")), None) or next(
        (f"GLIBC_{i['needs']}" for i in items if i.get("needs")), "GLIBC")
    have = fc.get(facts, "system", "glibc") or next((i["have"] for i in items if i.get("have")), None)
    cxx = symbol.startswith(("GLIBCXX", "CXXABI"))
    lib = "libstdc++ (the C++ runtime)" if cxx else f"glibc{f' {have}' if have else ''} (the C library)"
    fix = rm.plan(facts, P.system("conda install -c conda-forge 'libstdcxx-ng>=12'", "in a conda env;"
                                  " elsewhere upgrade the OS's libstdc++ (a newer gcc runtime), or put"
                                  " conda's lib folder first on LD_LIBRARY_PATH")) if cxx else rm.plan(
        facts, P.note(
        "Upgrade the OS (TensorFlow's current wheels need glibc 2.27+, e.g. Ubuntu 18.04+, RHEL/Rocky 8+),"
        " or run in a container with a newer OS (`docker run --gpus all tensorflow/tensorflow:latest-gpu`),"
        " or install an older TensorFlow built for this glibc"))
    return [
        Finding(
            "system.glibc-too-old",
            Status.FAIL,
            f"{lib} is older than TensorFlow needs ({symbol} not found)",
            detail=f"TensorFlow's compiled libraries need {symbol}; this system's {lib} does not provide it,"
            " so `import tensorflow` fails.",
            plan=fix,
            docs=cat.MANYLINUX,
            facts=("log.evidence", "system.glibc"),
            evidence=fc.quote(facts, items),
        )
    ]
