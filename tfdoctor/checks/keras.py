"""Keras 3: TensorFlow >= 2.16 uses it as tf.keras, and code written for Keras 2 breaks."""

from __future__ import annotations

from typing import Any

from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor import versions as v
from tfdoctor.checks import check
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status


@check("keras.keras3-api-change")
def keras3_api(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    items = fc.log_items(facts, "keras3")
    tfv = fc.tf_version(facts)
    keras = fc.distributions(facts).get("keras")
    if tfv and v.version_ge(tfv, (2, 13)) and not v.version_ge(tfv, (2, 16)) \
            and not (keras and v.version_ge(keras, (3, 0))):
        # Keras 2.13-2.15 moved its private modules under keras.src: code importing them fails there too
        items = [i for i in items if not i.get("private")]
    if not items:
        return []
    minor = v.major_minor(tfv) if tfv and v.version_ge(tfv, (2, 16)) else None
    tf_keras = f"tf-keras~={minor}.0" if minor else "tf-keras"
    if all(i.get("legacy") for i in items):  # tf.keras cannot be imported at all
        legacy = any(i.get("legacy") == "missing" for i in items)
        return [Finding(
            "keras.keras3-api-change",
            Status.FAIL,
            "TensorFlow cannot import Keras: " + (
                "the Keras 2 that TF_USE_LEGACY_KERAS asks for (tf_keras) is not installed" if legacy
                else "the Keras it uses is missing"),
            detail="From TensorFlow 2.16, tf.keras is the keras package (Keras 3), or with"
            " TF_USE_LEGACY_KERAS set the tf_keras package (Keras 2), which must be installed at TensorFlow's"
            " own minor version.",
            plan=rm.plan(facts, rm.install(rm.tf_pin(facts), tf_keras, why="or unset TF_USE_LEGACY_KERAS to"
                                           " run the code under Keras 3") if legacy
                         else rm.install(rm.tf_pin(facts), why="reinstalls the keras release it requires")),
            facts=("log.evidence", "tensorflow.distributions"),
            evidence=fc.quote(facts, items),
        )]
    return [
        Finding(
            "keras.keras3-api-change",
            Status.FAIL,
            "This code was written for Keras 2, but Keras 3 runs it",
            detail="From TensorFlow 2.16, tf.keras is Keras 3: some APIs were removed or changed,"
            " KerasTensors cannot be passed to TensorFlow functions,"
            " and only the .keras and .h5 formats load.",
            plan=rm.plan(facts, rm.install(rm.tf_pin(facts), tf_keras),
                         P.env("TF_USE_LEGACY_KERAS", "1", why="keeps Keras 2 for this code; or migrate"
                               " the code"
                               " to Keras 3")),
            facts=("log.evidence", "tensorflow.distributions"),
            evidence=fc.quote(facts, items),
            # under TensorFlow 2.15 or older Keras 3 is not the Keras tf.keras needs: a conflict said so, or
            # the versions shown
            caused_by="tensorflow.conflicting-installs" if tfv and not minor and (any(
                i.get("mismatch") == "keras" for i in fc.log_items(facts, "pip-conflict"))
                or v.version_ge(fc.distributions(facts).get("keras") or "0", (3, 0))) else None,
        )
    ]
