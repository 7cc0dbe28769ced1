"""Reading any pasted text into facts: the same sections the probes fill, plus the log's evidence.

`read(lines, source)` streams the text once (bounded memory whatever its size) and returns facts:
- probe-shaped sections (system, nvidia_smi, nvcc, tensorflow, runtime) holding the versions and
  names the text shows, for `explain` (source "explain"); the checks judge them as they judge
  probed facts;
- `log`: {source, lines_read, evidence: [{kind, line, text, ...}], counts: {kind: n},
  provenance: {"tensorflow.version": line, ...}, platform_hints: [...]} — what failed, by
  mechanism (tfdoctor/logs/evidence.py); the checks decide which finding each item supports.

For the worker's own log (source "worker") only `log` is kept: probes already measured the rest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from tfdoctor.logs import evidence as ev
from tfdoctor.logs.lines import normalize, split
from tfdoctor.logs.values import Values
from tfdoctor.versions import library_family

MAX_ITEMS_PER_KIND = 12  # evidence items kept per mechanism (the count keeps going)
MAX_SEEN = 200_000  # distinct lines remembered to skip repeats
SHORT_LINE = 24  # shorter lines are read again when repeated
QUOTE = 300  # characters of a line quoted as evidence
# Keras 3's sources live in keras/src/ (Keras 2's in keras/engine, keras/layers, ...): a traceback through
# them that ends in an API error (an argument, attribute, class or module that is not there) is Keras 2
# code meeting Keras 3
_KERAS3_FRAME = re.compile(r"keras[/\\]src[/\\]")
_API_ERROR = re.compile(
    r"^(?:[\w.]{1,60}\.)?(?:ValueError|TypeError|AttributeError|ImportError|ModuleNotFoundError)\b:?\s{0,3}"
    r"[^\n]{0,200}?(?:not recognized|[Uu]nrecognized keyword|unexpected keyword argument|"
    # a module's or a Keras class's missing name, not any object's ('NoneType' has no attribute is a bug)
    r"module '(?:tf_)?keras[\w.]{0,80}' has no attribute|"
    r"'(?:Sequential|Functional|Model|\w{0,30}Layer|\w{0,30}Optimizer|Adam|SGD|RMSprop|KerasTensor)'"
    r" object has no attribute|"
    r"[Cc]ould not (?:locate|interpret|deserialize)|no longer supported|"
    # a Keras module or name that is gone (another package missing, e.g. pydot, is not Keras 3's doing)
    r"cannot import name '\w{1,60}' from '(?:tf_)?keras|No module named '(?:tf_)?keras\.|"
    r"Only instances of `?keras\.|is not supported in Keras 3)")
KERAS3_WINDOW = 80  # lines from a keras/src frame to the exception that ends its traceback
_FAILED_IMPORT = re.compile(r"(?:-{2,}>\s{0,3}\d{1,6}\s{1,4})?"
                            r"(?:import tensorflow\b|from tensorflow[\w.]{0,40} import)")


def _item(sig: ev.Signature, m: Any, line: str, line_no: int) -> dict[str, Any] | None:
    item: dict[str, Any] = {"kind": sig.kind, "line": line_no, "text": line[:QUOTE], **sig.data}
    for name, value in zip(sig.fields, m.groups()):
        if value:
            item[name] = value.strip()[:200]
    if sig.kind == "cuda-error":
        upper, camel, message = item.pop("upper", None), item.pop("camel", None), item.pop("message", None)
        name = upper or (ev.cuda_error_name("cudaError" + camel) if camel
                         else ev.cuda_error_name(message or ""))
        if not name:
            return None
        item["error"] = name
    elif sig.kind == "cuinit":
        rest = item.pop("rest", "")
        item["error"] = _cuinit_error(rest)
    elif sig.kind == "dlopen-failed" and "library" in item:
        item["family"] = library_family(item["library"])
    return item


def _optional_dependencies(items: list[dict[str, Any]]) -> None:
    """TensorRT is optional: a library its dlerror names ("Could not load dynamic library
    'libnvinfer_plugin.so.7'; dlerror: libnvrtc.so.11.1: cannot open ...") was missing for TensorRT,
    not for TensorFlow's own CUDA start-up, so it counts as TensorRT's."""
    optional = next((i["library"] for i in items if i["kind"] == "dlopen-failed"
                     and i.get("family") == "tensorrt"), None)
    if optional is None:
        return
    for item in items:
        if item["kind"] == "dlopen-failed" and item.get("family") != "tensorrt":
            item["family"], item["needed_by"] = "tensorrt", optional


def _cuinit_error(rest: str) -> str | None:
    """'CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected' | 'UNKNOWN ERROR (303)' -> a name."""
    upper = rest.upper()
    i = upper.find("CUDA_ERROR_")
    if i >= 0:
        end = i + 11
        while end < len(upper) and (upper[end].isalpha() or upper[end] == "_"):
            end += 1
        return upper[i + 11:end] or None
    paren = rest.rfind("(")
    if paren >= 0:
        code = rest[paren + 1:].split(")", 1)[0].strip()
        if code.isdigit():
            return ev.CUDA_CODES.get(code, f"CODE_{code[:6]}")
    low = rest.lower()
    for message, name in ev.CUDA_MESSAGES.items():
        if message in low:
            return name
    return "UNKNOWN" if "unknown" in low else None


class Reader:
    """Streaming state: evidence by mechanism and the values seen."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.values = Values()
        self.items: list[dict[str, Any]] = []
        self.counts: dict[str, int] = {}
        self.lines = 0
        self._seen: set[int] = set()
        self._module_error_at: int | None = None
        self._keras3_frame_at: int | None = None

    def feed(self, raw: str) -> None:
        self.lines += 1
        if len(raw) > 400 and raw.count("\\n") >= 3:  # output captured as a Python string: "...\n...\n"
            for part in raw.replace("\\r", "").split("\\n"):
                if part.strip():
                    self._line(normalize(part))
        elif "\r" in raw:
            for part in raw.split("\r"):
                if part.strip():
                    self._line(normalize(part))
        else:
            self._line(normalize(raw))

    def _line(self, line: str) -> None:
        if not line:
            return
        # A repeated line adds no evidence: logs repeat a lot. Short ones are cheap and may mean
        # something new in their place ("Version: 1.15.4" under a second `pip show`).
        key = hash(line) if len(line) > SHORT_LINE else None
        if key is not None and key in self._seen:
            return
        if key is not None and len(self._seen) < MAX_SEEN:
            self._seen.add(key)
        low = line.lower()
        self.values.line_no = self.lines
        self._module_error(line, low)
        if "keras" in low or self._keras3_frame_at is not None:
            self._keras3(line, low)
        here: set[tuple[str, Any]] = set()
        found = [item for item in (_item(sig, m, line, self.lines) for sig, m in ev.match_line(line, low))
                 if item is not None]
        _optional_dependencies(found)
        for item in found:
            key = (item["kind"], item.get("library") or item.get("error") or item.get("status"))
            if key in here:  # two spellings of one failure on one line are one piece of evidence
                continue
            here.add(key)
            if self.source == "explain":
                self._item_values(item)
            count = self.counts.get(item["kind"], 0)
            self.counts[item["kind"]] = count + 1
            if count < MAX_ITEMS_PER_KIND:
                self.items.append(item)
        if self.source == "explain":
            self.values.feed(line, low, self.lines)

    def _module_error(self, line: str, low: str) -> None:
        """A notebook traceback names the error first and the failing import a few lines later
        ("ModuleNotFoundError  Traceback ..." then "----> 6 import tensorflow as tf")."""
        if low.startswith("modulenotfounderror") and "no module named" not in low:
            self._module_error_at = self.lines
        elif self._module_error_at is not None:
            if self.lines - self._module_error_at > 12:
                self._module_error_at = None
            elif _FAILED_IMPORT.match(line):
                self._module_error_at = None
                self.items.append({"kind": "tf-missing", "line": self.lines, "text": line[:QUOTE]})
                self.counts["tf-missing"] = self.counts.get("tf-missing", 0) + 1

    def _keras3(self, line: str, low: str) -> None:
        """An API error at the end of a traceback through Keras 3's keras/src/ frames."""
        if "src" in low and _KERAS3_FRAME.search(line):
            self._keras3_frame_at = self.lines
            return
        if self._keras3_frame_at is None:
            return
        if self.lines - self._keras3_frame_at > KERAS3_WINDOW:
            self._keras3_frame_at = None
        elif "error" in low and _API_ERROR.match(line):
            self._keras3_frame_at = None
            if self.counts.get("keras3", 0) < MAX_ITEMS_PER_KIND:
                self.items.append({"kind": "keras3", "line": self.lines, "text": line[:QUOTE],
                                   "via": "keras/src traceback"})
            self.counts["keras3"] = self.counts.get("keras3", 0) + 1

    def _item_values(self, item: dict[str, Any]) -> None:
        """Values an evidence line states outright (versions TensorFlow printed in its error)."""
        from tfdoctor.versions import cudnn_from_int

        if item["kind"] == "cpu-build":
            self.values.set("tensorflow.build_info.is_cuda_build", False, 6)
        elif item["kind"] == "cudnn-version":
            self.values.set("runtime.cudnn_version", cudnn_from_int(str(item.get("loaded", ""))), 6)
            self.values.set("tensorflow.build_info.cudnn_version",
                            cudnn_from_int(str(item.get("compiled", ""))), 6)
        elif item["kind"] == "lib-mismatch" and item.get("kernel"):
            self.values.set("system.proc_driver_version", item["kernel"], 5)
            self.values.set("system.libcuda_version", item.get("library"), 5)

    def facts(self) -> dict[str, Any]:
        log: dict[str, Any] = {
            "source": self.source,
            "lines_read": self.lines,
            "evidence": self.items,
            "counts": dict(self.counts),
        }
        if self.source != "explain":
            return {"log": log}
        sections, provenance = self.values.facts()
        self._smi_mismatch(sections, provenance)
        log["provenance"] = provenance
        log["platform_hints"] = sorted(self.values.hints)
        return {**sections, "log": log}

    def _smi_mismatch(self, sections: dict[str, Any], provenance: dict[str, int]) -> None:
        """nvidia-smi's own version differs from the driver it talks to, and CUDA then failed in a way
        no device problem explains: the user-space libraries and the kernel module disagree. (Without
        such a failure it is only another nvidia-smi binary, a container's or WSL2's, and NVML
        evidently worked.)"""
        smi = sections.get("nvidia_smi") or {}
        have, lib = smi.pop("smi_version", None), smi.get("driver_version")
        provenance.pop("nvidia_smi.smi_version", None)
        failed = any(i["kind"] in ("cuinit", "cuda-error") and i.get("error") not in _DEVICE_ERRORS
                     for i in self.items)
        if have and lib and have != lib and failed and "lib-mismatch" not in self.counts:
            line = self.values.values.get("nvidia_smi.driver_version", (None, 0, 0))[2]
            self.items.append({"kind": "lib-mismatch", "line": line, "library": have, "kernel": lib,
                               "text": f"NVIDIA-SMI {have} with Driver Version {lib}"})
            self.counts["lib-mismatch"] = 1


# CUDA errors about the devices, not the driver's pieces: no version skew explains them (and on WSL2
# nvidia-smi's own version always differs from the Windows driver's).
_DEVICE_ERRORS = frozenset({"NO_DEVICE", "DEVICES_UNAVAILABLE", "INVALID_DEVICE", "OUT_OF_MEMORY",
                            "ILLEGAL_ADDRESS", "LAUNCH_FAILED", "NO_BINARY_FOR_GPU", "INVALID_PTX",
                            "UNSUPPORTED_PTX_VERSION", "MISALIGNED_ADDRESS", "ILLEGAL_INSTRUCTION"})


def read(lines: Iterable[str], source: str = "explain") -> dict[str, Any]:
    """Facts from a stream of text lines (see the module docstring)."""
    reader = Reader(source)
    for raw in lines:
        reader.feed(raw if isinstance(raw, str) else str(raw))
    return reader.facts()


def read_text(text: str, source: str = "explain") -> dict[str, Any]:
    return read(split(text or ""), source)
