"""Reading any pasted text into facts: the same sections the probes fill, plus the log's evidence.

`read(lines, source)` streams the text once (bounded memory whatever its size) and returns facts:
- probe-shaped sections (system, nvidia_smi, nvcc, tensorflow, runtime) holding the versions and
  names the text shows, for `explain` (source "explain"); the checks judge them as they judge
  probed facts;
- `log`: {source, lines_read, evidence: [{kind, line, text, ...}], counts: {kind: n},
  noise: {name: n}, unrecognized: [{line, text}], unrecognized_count, provenance:
  {"tensorflow.version": line, ...}, platform_hints: [...]} — what failed, by mechanism
  (tfdoctor/logs/evidence.py) and by error code (tfdoctor/logs/codes.py); the harmless notices seen,
  by name; the error lines (tfdoctor/logs/errorlines.py) none of that explains. The checks decide
  which finding each item supports.

For the worker's own log (source "worker") only `log` is kept: probes already measured the rest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from tfdoctor import stackerrors as se
from tfdoctor.logs import codes
from tfdoctor.logs import evidence as ev
from tfdoctor.logs.errorlines import is_error, severe
from tfdoctor.logs.lines import normalize, split
from tfdoctor.logs.values import Values
from tfdoctor.versions import library_family

MAX_ITEMS_PER_KIND = 12  # evidence items kept per mechanism (the count keeps going)
MAX_UNRECOGNIZED = 20  # unrecognised error lines kept (the count keeps going)
MAX_SEEN = 200_000  # distinct lines remembered to skip repeats
SHORT_LINE = 24  # shorter lines are read again when repeated
QUOTE = 300  # characters of a line quoted as evidence
# One C-level scan each: a word of some harmless notice, a word of some library's error code.
_NOISE_WORD = re.compile("|".join(sorted({re.escape(words[0]) for _, forms in se.NOISE.values()
                                            for words in forms})))
_CODE_WORD = re.compile("|".join(codes.TRIGGERS))
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


def _item(sig: ev.Signature, m: Any, line: str, line_no: int) -> dict[str, Any]:
    item: dict[str, Any] = {"kind": sig.kind, "line": line_no, "text": line[:QUOTE], **sig.data}
    for name, value in zip(sig.fields, m.groups()):
        if value:
            item[name] = value.strip()[:200]
    if sig.kind == "cuinit":
        item["error"] = codes.cuinit_error(item.pop("rest", ""))
    elif sig.kind == "dlopen-failed" and "library" in item:
        item["family"] = library_family(item["library"])
    return item


# A sentence about cuDNN's failure adds nothing where the same line names the status that explains it.
_SAID_BY_CODE = {"cudnn-failed": "cudnnStatus_t"}


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
        self.noise: dict[str, int] = {}
        self.unrecognized: list[dict[str, Any]] = []
        self.unrecognized_count = 0
        self._keras3_frame_at: int | None = None

    def feed(self, raw: str) -> None:
        self.lines += 1
        if len(raw) > 400 and raw.count("\\n") >= 3:  # output captured as a Python string: "...\n...\n"
            for part in raw.replace("\\r", "").split("\\n"):
                if part.strip():
                    self._line(normalize(part), severe(part))
        elif "\r" in raw:
            for part in raw.split("\r"):
                if part.strip():
                    self._line(normalize(part), severe(part))
        else:
            self._line(normalize(raw), severe(raw))

    def _line(self, line: str, severe_prefix: bool = False) -> None:
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
        notice = se.noise(low) if _NOISE_WORD.search(low) else None
        if notice:  # a harmless notice, by name: never evidence of a failure
            self.noise[notice] = self.noise.get(notice, 0) + 1
            if self.source == "explain":
                self.values.feed(line, low, self.lines)
            return
        self._module_error(line, low)
        if "keras" in low or self._keras3_frame_at is not None:
            self._keras3(line, low)
        here: set[tuple[str, Any]] = set()
        found = [{**codes.item(code), "line": self.lines, "text": line[:QUOTE]}
                 for code in codes.in_line(line, low)] if _CODE_WORD.search(low) else []
        # the code says what failed, unless it is only a program's error ("could not create cudnn handle:
        # CUDNN_STATUS_NOT_SUPPORTED" is still cuDNN failing to start)
        apis = {se.BY_NAME[i["code"]].api for i in found if not i.get("reason")}
        for sig, m in ev.match_line(line, low):
            if _SAID_BY_CODE.get(sig.kind) in apis:
                continue
            found.append(_item(sig, m, line, self.lines))
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
        if not here and is_error(line, severe_prefix):
            self.unrecognized_count += 1
            if len(self.unrecognized) < MAX_UNRECOGNIZED:
                self.unrecognized.append({"line": self.lines, "text": line[:QUOTE]})
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
        elif item["kind"] == "nvml-error":  # NVML's own answer, as the nvml probe would record it
            self.values.set("nvml.error_kind", "no-permission", 6)
            self.values.set("nvml.error", str(item["text"])[:200], 6)

    def facts(self) -> dict[str, Any]:
        log: dict[str, Any] = {
            "source": self.source,
            "lines_read": self.lines,
            "evidence": self.items,
            "counts": dict(self.counts),
            "noise": dict(self.noise),
            "unrecognized": self.unrecognized,
            "unrecognized_count": self.unrecognized_count,
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
_DEVICE_ERRORS = frozenset({"NO_DEVICE", "DEVICE_UNAVAILABLE", "INVALID_DEVICE", "OUT_OF_MEMORY",
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
