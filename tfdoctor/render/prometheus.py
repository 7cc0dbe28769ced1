"""The report as Prometheus metrics for node_exporter's textfile collector (`report --prometheus FILE`).

Text exposition format 0.0.4, which the textfile collector reads: every family has HELP and TYPE,
names start with `tfdoctor_`, counters end in `_total`, units are in the names (seconds, bytes,
flops_per_second, ratio), no sample carries a timestamp (the collector rejects them). Enumerations
are state sets: one series per state, 1 for the current one. Label values are untrusted text:
control characters are dropped, `\\`, `"` and newlines escaped, and length capped.

Families (labels in braces):
  tfdoctor_report_timestamp_seconds            when the report was made; time() - it = its age
  tfdoctor_report_duration_seconds             how long probing (and the worker) took
  tfdoctor_info {version, compat_data, mode}   tfdoctor itself
  tfdoctor_environment_info {driver_version, cuda_driver_version, tensorflow_version, tf_cuda_version,
      tf_cudnn_version, cudnn_version, nvcc_version, python_version, platform, container}
  tfdoctor_status {status}                     the report's overall status (pass|warn|fail)
  tfdoctor_check_status {check, status}        each check's finding (skip|pass|warn|fail)
  tfdoctor_check_root_cause {check}            1: a failure/warning no other finding explains
  tfdoctor_gpus                                GPUs the driver lists
  tfdoctor_tensorflow_gpus                     GPUs TensorFlow listed (only when the worker ran)
  tfdoctor_gpus_verified                       GPUs TensorFlow computed and trained on (worker ran)
  tfdoctor_gpu_verified {device, name}         per TensorFlow GPU: correct matmul + training, placed
  tfdoctor_matmul_flops_per_second {device, name, dtype}, tfdoctor_matmul_peak_ratio {...}
  tfdoctor_gpu_info {gpu, name, uuid, compute_capability, pci_bus_id}
  tfdoctor_gpu_ecc_enabled {gpu}; tfdoctor_gpu_ecc_errors_total {gpu, scope, type}
  tfdoctor_gpu_retired_pages_total {gpu, cause}; tfdoctor_gpu_retired_pages_pending {gpu}
  tfdoctor_gpu_remapped_rows_total {gpu, severity}; tfdoctor_gpu_remapped_rows_pending {gpu};
  tfdoctor_gpu_remapped_rows_failure {gpu}
  tfdoctor_gpu_throttle_reason {gpu, reason}   1 while that clock-event reason is active
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone
from typing import Any

from tfdoctor import facts as fc

STATUSES = ("skip", "pass", "warn", "fail")
LABEL_LIMIT = 200
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
ENV_LABELS = ("driver_version", "cuda_driver_version", "tensorflow_version", "tf_cuda_version",
              "tf_cudnn_version", "cudnn_version", "nvcc_version", "python_version", "platform", "container")
PEAK_KEYS = {"float16": "fp16_tflops", "bfloat16": "bf16_tflops"}


def label_value(value: Any) -> str:
    """A label value in the text format: no control characters, escaped, at most LABEL_LIMIT chars."""
    text = "" if value is None else str(value)
    text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates from JSON become "?"
    text = _CONTROL.sub("", text)[:LABEL_LIMIT]
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: Any) -> float | None:
    """A finite number from facts (bools are 0/1), else None."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def _format(value: float) -> str:
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)


class _Families:
    """Metric families in order of first use; each written once with its HELP and TYPE."""

    def __init__(self) -> None:
        self.families: dict[str, tuple[str, str, dict[str, str]]] = {}

    def add(self, name: str, kind: str, help_text: str, value: Any, /, **labels: Any) -> None:
        number = _number(value)
        if number is None:
            return
        if kind == "counter" and number < 0:
            return
        family = self.families.setdefault(name, (kind, help_text, {}))
        pairs = ",".join(f'{k}="{label_value(v)}"' for k, v in labels.items())
        series = f"{name}{{{pairs}}}" if pairs else name
        family[2].setdefault(series, f"{series} {_format(number)}")  # a series once: the first value

    def text(self) -> str:
        out = []
        for name, (kind, help_text, samples) in self.families.items():
            escaped = help_text.replace("\\", "\\\\").replace("\n", "\\n")
            out += [f"# HELP {name} {escaped}", f"# TYPE {name} {kind}", *samples.values()]
        return "\n".join(out) + "\n"


def _timestamp(created_at: Any) -> float | None:
    if not isinstance(created_at, str) or len(created_at) > 64:
        return None
    try:
        when = datetime.fromisoformat(created_at.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.timestamp()


def peak_tflops(matrix: Any, name: Any, dtype: str, tf32: bool) -> float | None:
    """The datasheet peak (TFLOP/s) for this GPU and dtype from the compat data, if known."""
    if not isinstance(name, str) or matrix is None:
        return None
    model = matrix.gpu(name)
    if model is None:
        return None
    if dtype == "float32":
        keys = ("tf32_tflops", "fp32_tflops") if tf32 else ("fp32_tflops",)
    else:
        keys = (PEAK_KEYS.get(dtype, ""),)
    for key in keys:
        value = _number(getattr(model, key, None))
        if value and value > 0:
            return value
    return None


def _worst(findings: list[dict[str, Any]]) -> dict[str, str]:
    """Each check id's status (the worst when an id appears more than once)."""
    out: dict[str, str] = {}
    for f in findings:
        fid, status = f.get("id"), f.get("status")
        if isinstance(fid, str) and status in STATUSES:
            if fid not in out or STATUSES.index(status) > STATUSES.index(out[fid]):
                out[fid] = status
    return out


def _runtime(m: _Families, report: dict[str, Any], matrix: Any) -> None:
    facts = report.get("facts") if isinstance(report.get("facts"), dict) else {}
    rt = fc.section(facts, "runtime")
    if not rt or not rt.get("ran"):
        return
    steps = [s for s in fc.as_list(rt.get("steps")) if isinstance(s, dict)]
    m.add("tfdoctor_tensorflow_gpus", "gauge", "GPUs TensorFlow itself listed in this run.",
          rt.get("tf_visible_gpus") if not isinstance(rt.get("tf_visible_gpus"), bool) else None)
    verified = 0
    gpus = [g for g in fc.as_list(rt.get("gpus")) if isinstance(g, dict) and g.get("tf_device")]
    for gpu in gpus:
        device = str(gpu["tf_device"])
        passed = {s.get("name") for s in steps if s.get("device") == device and s.get("status") == "pass"}
        ok = {"matmul", "train"} <= passed
        verified += ok
        m.add("tfdoctor_gpu_verified", "gauge",
              "1 when TensorFlow computed a correct matmul and trained a model on this GPU, placement"
              " verified.",
              ok, device=device, name=gpu.get("name"))
    m.add("tfdoctor_gpus_verified", "gauge",
          "GPUs on which TensorFlow computed a correct matmul and trained a model in this run.", verified)
    for step in steps:
        if step.get("name") != "throughput" or step.get("status") != "pass":
            continue
        device, name, tf32 = step.get("device"), step.get("gpu_name"), bool(step.get("tf32"))
        if "GPU" not in str(device).upper():
            continue
        for dtype, tflops in fc.as_dict(step.get("tflops")).items():
            got = _number(tflops)
            if got is None or isinstance(tflops, bool):
                continue
            labels = {"device": device, "name": name, "dtype": dtype}
            m.add("tfdoctor_matmul_flops_per_second", "gauge",
                  "Measured dense matmul throughput on this GPU (FLOP/s; float32 uses TF32 where enabled).",
                  got * 1e12, **labels)
            peak = peak_tflops(matrix, name, dtype, tf32)
            if peak:
                m.add("tfdoctor_matmul_peak_ratio", "gauge",
                      "Measured matmul throughput over the GPU's datasheet peak from tfdoctor's compat data.",
                      got / peak, **labels)


def _health(m: _Families, report: dict[str, Any]) -> None:
    from tfdoctor.probes.nvml import THROTTLE_BITS

    facts = report.get("facts") if isinstance(report.get("facts"), dict) else {}
    gpus, _source = fc.gpus(facts)
    for i, g in enumerate(gpus):
        index = g.get("index")
        gpu = index if isinstance(index, int) and not isinstance(index, bool) else i
        about = "A GPU the driver lists: name, UUID, compute capability, PCI bus id."
        m.add("tfdoctor_gpu_info", "gauge", about, 1, gpu=gpu, name=g.get("name"), uuid=g.get("uuid"),
              compute_capability=g.get("compute_capability"), pci_bus_id=g.get("pci_bus_id"))
        ecc = fc.as_dict(g.get("ecc"))
        m.add("tfdoctor_gpu_ecc_enabled", "gauge", "1 when ECC is on for this GPU's memory.",
              ecc.get("mode_current"), gpu=gpu)
        for scope in ("volatile", "aggregate"):
            for kind in ("corrected", "uncorrected"):
                m.add("tfdoctor_gpu_ecc_errors_total", "counter",
                      "ECC errors counted by the driver (scope volatile: since the driver loaded; aggregate: "
                      "over the GPU's life).", fc.as_dict(ecc.get(scope)).get(kind), gpu=gpu, scope=scope,
                      type=kind)
        pages = fc.as_dict(g.get("retired_pages"))
        for cause in ("single_bit", "double_bit"):
            m.add("tfdoctor_gpu_retired_pages_total", "counter",
                  "Memory pages retired for ECC errors (GPUs before Ampere).", pages.get(cause), gpu=gpu,
                  cause=cause)
        m.add("tfdoctor_gpu_retired_pages_pending", "gauge",
              "1 when a page retirement waits for the next driver reload or reboot.", pages.get("pending"),
              gpu=gpu)
        rows = fc.as_dict(g.get("remapped_rows"))
        for severity in ("correctable", "uncorrectable"):
            m.add("tfdoctor_gpu_remapped_rows_total", "counter",
                  "Memory rows remapped for ECC errors (Ampere and newer).", rows.get(severity), gpu=gpu,
                  severity=severity)
        m.add("tfdoctor_gpu_remapped_rows_pending", "gauge",
              "1 when a row remap waits for a GPU reset.", rows.get("pending"), gpu=gpu)
        m.add("tfdoctor_gpu_remapped_rows_failure", "gauge",
              "1 when a row remap failed: the GPU needs service.", rows.get("failure"), gpu=gpu)
        reasons = g.get("throttle_reasons")
        if isinstance(reasons, list):
            active = {r for r in reasons if isinstance(r, str)}
            for reason in (*THROTTLE_BITS.values(), *sorted(active - set(THROTTLE_BITS.values()))):
                m.add("tfdoctor_gpu_throttle_reason", "gauge",
                      "1 while this clock-event (throttle) reason holds the GPU's clocks down.",
                      reason in active, gpu=gpu, reason=reason)


def render(report: dict[str, Any], matrix: Any = None) -> str:
    """The report's metrics in the text exposition format (ends with a newline)."""
    m = _Families()
    m.add("tfdoctor_report_timestamp_seconds", "gauge",
          "When this report was made (Unix time); time() minus this is the report's age.",
          _timestamp(report.get("created_at")))
    m.add("tfdoctor_report_duration_seconds", "gauge", "How long probing (and the TensorFlow worker) took.",
          fc.as_dict(report.get("timings")).get("probes_total"))
    tool = fc.as_dict(report.get("tool"))
    m.add("tfdoctor_info", "gauge", "tfdoctor itself: its version, its compat data and the mode of this run.",
          1, version=tool.get("version"), compat_data=tool.get("compat_data"), mode=report.get("mode"))
    env = fc.as_dict(report.get("environment"))
    m.add("tfdoctor_environment_info", "gauge",
          "Driver, CUDA, cuDNN, TensorFlow and Python versions on this node (empty: unknown).",
          1, **{k: env.get(k) for k in ENV_LABELS})
    summary = fc.as_dict(report.get("summary"))
    for status in ("pass", "warn", "fail"):
        m.add("tfdoctor_status", "gauge", "The report's overall status: 1 for the current one.",
              summary.get("status") == status, status=status)
    findings = [f for f in fc.as_list(report.get("findings")) if isinstance(f, dict)]
    worst = _worst(findings)
    for check_id, current in worst.items():
        for status in STATUSES:
            m.add("tfdoctor_check_status", "gauge",
                  "Each check's result: 1 for its current status (skip: could not be judged).",
                  status == current, check=check_id, status=status)
    roots = {f.get("id") for f in findings if not f.get("caused_by") and f.get("status") in ("warn", "fail")}
    for check_id, current in worst.items():
        if current in ("warn", "fail"):
            m.add("tfdoctor_check_root_cause", "gauge",
                  "1 when this failure or warning is a root cause: no other finding explains it.",
                  check_id in roots, check=check_id)
    count = env.get("gpu_count")
    m.add("tfdoctor_gpus", "gauge", "GPUs the NVIDIA driver lists on this node.",
          count if not isinstance(count, bool) else None)
    _runtime(m, report, matrix)
    _health(m, report)
    return m.text()
