"""Python packages TensorFlow's compiled code is bound to: NumPy's C ABI and protobuf's generated code."""

from __future__ import annotations

from typing import Any

from tfdoctor import catalogue as cat
from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor import versions as v
from tfdoctor.checks import check
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status


@check("python.numpy-abi-mismatch")
def numpy_abi(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    items = fc.log_items(facts, "numpy-abi")
    dists = fc.distributions(facts)
    tfv, numpy = fc.tf_version(facts), dists.get("numpy")
    # TensorFlow supports NumPy 2 from 2.18 (release notes 2.18.0); earlier wheels need NumPy 1.x.
    static = bool(tfv and numpy and not v.version_ge(tfv, (2, 18)) and v.version_ge(numpy, (2,)))
    if not items and not static:
        return []
    old_tf = bool(tfv) and not v.version_ge(tfv, (2, 18))
    fix = (rm.plan(facts, rm.install(rm.tf_pin(facts), "numpy<2", why="TensorFlow before 2.18 needs NumPy"
                                     " 1.x; the TensorFlow pin keeps its version"))
           if old_tf or not tfv else
           rm.plan(facts, P.note(rm.pip_install(facts, "--upgrade", "<the package named in the traceback>")
                                 + "  # rebuild or upgrade the extension compiled against NumPy 1.x; or pin"
                                 " numpy<2 for it")))
    return [
        Finding(
            "python.numpy-abi-mismatch",
            Status.FAIL,
            f"NumPy {numpy or ''} does not match the NumPy TensorFlow"
            " (or another compiled package) was built for"
            .replace("NumPy  ", "NumPy "),
            detail="Compiled Python extensions are bound to the NumPy major they were built against: modules"
            " built for NumPy 1.x cannot run with NumPy 2, and vice versa.",
            plan=fix,
            docs=cat.NUMPY_2,
            facts=("log.evidence", "tensorflow.distributions"),
            evidence=fc.quote(facts, items),
            confidence="certain" if items else "likely",
        )
    ]


@check("python.protobuf-mismatch")
def protobuf(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    items = fc.log_items(facts, "protobuf")
    if not items:
        return []
    return [
        Finding(
            "python.protobuf-mismatch",
            Status.FAIL,
            "The installed protobuf does not match TensorFlow's generated code",
            detail="TensorFlow's *_pb2 modules were generated for a protobuf range; another package upgraded"
            " or downgraded protobuf outside it.",
            plan=rm.plan(facts, rm.install(rm.tf_pin(facts), why="pip then installs the protobuf this"
                                           " TensorFlow requires, keeping its version"),
                         P.note("As a stopgap: `export PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python`.")),
            docs=cat.PROTOBUF_NEWS,
            facts=("log.evidence",),
            evidence=fc.quote(facts, items),
        )
    ]
