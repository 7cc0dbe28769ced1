"""What a pasted log says that tfdoctor cannot turn into a diagnosis: error lines it does not
recognise, and error codes its vocabulary knows are not an environment problem. Either way the
report says so, and never passes the paste silently."""

from __future__ import annotations

from typing import Any

from tfdoctor import facts as fc
from tfdoctor import plan as P
from tfdoctor import stackerrors
from tfdoctor.checks import check
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status

# What to look at next, by the kind of the program's error (stackerrors.NOT_ENVIRONMENT); a code of the CUDA
# stack's own (a kernel's fault, an invalid call) gets CUDA_LAUNCH_BLOCKING to name the operation instead.
_NEXT_STEP = {
    "order": "Call tf.config.experimental.set_memory_growth / tf.config.set_visible_devices first, right"
             " after importing TensorFlow and before anything creates a tensor or a model",
    "numerics": "tf.debugging.enable_check_numerics() at the start of the program names the first operation"
                " that makes a NaN or Inf; then lower the learning rate or check that input",
    "shape": "Compare the shapes the error names with the model's input and output and the data's (labels as"
             " integers or one-hot, the batch dimension)",
    "python": "The traceback's last frame in the program's own files is where it failed",
    "data": "Check the path the program reads: a relative path starts in the directory the program runs in,"
            " and the file must have been downloaded or generated first",
    "tf1": "Run it under the TensorFlow 1.x it was written for (1.15, Python 3.7 or older), or port it:"
           " import tensorflow.compat.v1 as tf and call tf.disable_v2_behavior() (tf.contrib has no"
           " TensorFlow 2 home)",
}


@check("log.unrecognized", "log.program-error")
def unexplained(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    log = fc.as_dict(facts.get("log"))
    out: list[Finding] = []
    lines = [i for i in fc.as_list(log.get("unrecognized")) if isinstance(i, dict)]
    # a code of the program's, or a message of stackerrors.SAID_IN_PROSE where the log reports an error
    program = [i for i in fc.log_items(facts, "stack-error", "cuda-error")
               if i.get("reason") and (i.get("error_line") is not False or lines)]
    if program:
        first = program[0]
        reason = stackerrors.NOT_ENVIRONMENT.get(str(first.get("reason")), "")
        names = sorted({str(i.get("code")) for i in program})
        note = _NEXT_STEP.get(str(first.get("reason")))
        if note:
            plan = rm.plan(facts, P.note(note))
        else:
            plan = rm.plan(facts, P.env("CUDA_LAUNCH_BLOCKING", "1"),
                           P.env("TF_CPP_MIN_LOG_LEVEL", "0", "run again to see which operation returns it;"
                                 " check that operation's arguments (shapes, dtypes, device placement)"))
        out.append(Finding(
            "log.program-error",
            Status.WARN,
            f"{', '.join(names[:3])}: by its code, an error of the program",
            detail=f"{first.get('code')}: {reason}. Unless another finding here explains it, the call that"
            " returned it is where to look, not the driver, CUDA, cuDNN or TensorFlow's installation.",
            plan=plan,
            facts=("log.evidence",),
            evidence=fc.quote(facts, program),
            confidence="likely",
        ))
    if lines:
        count = int(log.get("unrecognized_count") or len(lines))
        out.append(Finding(
            "log.unrecognized",
            Status.WARN,
            f"{count} error line{'s' if count != 1 else ''} tfdoctor does not recognise",
            detail="These lines report an error (by their log level or form) that no finding here explains;"
            " tfdoctor cannot tell whether the installation is at fault.",
            plan=rm.plan(facts, P.note("Search the first line's message in the TensorFlow and NVIDIA issue"
                                       " trackers; on the machine itself, `tfdoctor check` measures what a"
                                       " paste can only suggest")),
            facts=("log.unrecognized",),
            evidence=fc.quote(facts, lines, limit=5),
            confidence="likely",
        ))
    return out
