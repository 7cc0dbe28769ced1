"""The stack's errors in a log, by code: a name (CUDA_ERROR_NO_DEVICE, cudaErrorInsufficientDriver,
NVML_ERROR_NO_PERMISSION or nvidia-ml-py's NVMLError_NoPermission,
CUDNN_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_ALLOC_FAILED, ncclSystemError),
a number where the line says whose it is ("cuda runtime error (35)", "cuInit: ... (303)"), or the
library's own message: a distinctive one anywhere in a line that names its library ("no CUDA-capable
device is detected"), a short one after its library's words ("Failed to initialize NVML: Insufficient
Permissions", "CUDA error: out of memory"). All are looked up in one table (tfdoctor/stackerrors.py)
and turned into the evidence the checks read.

Recognition is by table lookup, not by sentence: two bounded regexes and dictionary lookups per line,
and only on lines holding one of TRIGGERS.
"""

from __future__ import annotations

import re
from typing import Any

from tfdoctor import stackerrors as se

# A message this long is the stack's alone: it counts in a line that names no library ("no kernel image is
# available for execution on the device", a title), as its first code says.
STANDALONE_WORDS = 8
# ... or one naming what only a GPU has ("uncorrectable ECC error encountered", "a PTX JIT compilation
# failed")
_GPU_TERMS = ("ecc", "ptx", "nvlink", "illegal memory access", "illegal instruction was", "launch timed out",
              "launch failure", "kernel image")


def _standalone(message: str) -> bool:
    return len(message.split()) >= STANDALONE_WORDS or (len(message) >= 26 and any(
        term in message for term in _GPU_TERMS))


_STANDALONE = tuple(m for m in se.BY_MESSAGE if _standalone(m))
# Literal lower-case words without which no code of the stack is in a line (a cheap prefilter): the
# libraries' names, and the opening words of each message that stands alone.
TRIGGERS = ("cuda", "nvml", "cudnn", "cublas", "blas", "nccl", "gpu", "cuinit",
            *dict.fromkeys(" ".join(m.split()[:3]) for m in _STANDALONE))

_NAME = re.compile(
    r"\b(CUDA_ERROR_[A-Z_]{2,48}|CUDA_SUCCESS|cudaError[A-Za-z]{2,48}|cudaSuccess|NVML_ERROR_[A-Z_]{2,40}"
    r"|NVMLError_[A-Za-z]{2,40}|CUDNN_STATUS_[A-Z_]{2,60}|CUBLAS_STATUS_[A-Z_]{2,40}|nccl[A-Z][A-Za-z]{2,30})\b",
    re.ASCII,  # a name next to CJK text ("爆出了CUDA_ERROR_OUT_OF_MEMORY的错误") still stands apart
)
# A number with the API that returned it named just before it.
_NUMBER = re.compile(  # (TensorRT: "CUDA initialization failure with error: 35")
    r"\b(cuda runtime error|cudaerror_t|cudaerror|cu ?result|cuda driver error|cuda error|"
    r"cuda initiali[sz]ation failure with error)"
    r"\s{0,2}(?:code)?\s{0,2}[:=#]?\s{0,2}\(?(\d{1,5})\)?(?!\d|\.\d)"  # (a sentence's full stop may follow)
)
_NUMBER_API = {"curesult": "CUresult", "cu result": "CUresult", "cuda driver error": "CUresult"}
# A call's result printed after its name ("cuInit err: 999", "cudaSetDevice err: 999", ollama's "nvcuda init
# failure: 999" / "cudart init failure: 999", "cudaGetDeviceCount() call failed with error 804"): a driver API
# call (cu*) returns a CUresult, a runtime one (cuda*) a cudaError_t; the libraries' own calls (cudnn*,
# cublas*, ...) return their own statuses.
_CALL_NUMBER = re.compile(r"\b(cu(?!dnn|blas|fft|rand|solver|sparse)[a-z][a-z0-9_]{1,40}|nvcuda init|"
                          r"cudart init)(?:\(\))?(?: call)? (?:err|error|failure|failed|returned)"
                          r"(?: with (?:error|code))?\s{0,2}[:=]?\s{0,2}(\d{1,4})\b(?![\d.])")
# ... or before it ("Return value 46 from 'cudaStreamCreate(&kernel_stream)'", "returned 2 from cuMemAlloc")
_NUMBER_CALL = re.compile(r"\breturn(?:ed)?(?: value| code)?\s{0,2}[:=]?\s{0,2}(\d{1,4}) from '?"
                          r"(cu(?!dnn|blas|fft|rand|solver|sparse)[a-z][a-z0-9_]{1,40})\b")
# an NVML call's result printed after its name ("nvmlInit_v2 err: 18", ollama's "nvml vram init failure: 18")
_NVML_NUMBER = re.compile(r"\bnvml[a-z0-9_]{0,40}(?: vram)?(?: init)? (?:err|error|failure|failed|returned)"
                          r"\s{0,2}[:=]?\s{0,2}(\d{1,3})\b(?![\d.])")
# TensorFlow's CHECK on a call's result: "Check failed: CUDA_SUCCESS == dynload::cuCtxSetCurrent(context)
# (0 vs. 216)", "Check failed: error == cudaSuccess (46 vs. 0)"
_CHECKED = re.compile(r"\b(CUDA_SUCCESS|cudaSuccess) == [\w:.]{1,80}(?:\([^()]{0,80}\))?\s{0,2}"
                      r"\(0 vs\. (\d{1,5})\)|\berror == (cudaSuccess) \((\d{1,5}) vs\. 0\)")


# TensorRT naming the CUDA call's own message in parentheses: "Error Code 1: Cuda Runtime (out of memory)",
# "Cuda Driver (invalid resource handle)"
_TENSORRT = re.compile(r"\bcuda (runtime|driver) \(([^()]{2,160})\)")
_TENSORRT_API = {"runtime": "cudaError_t", "driver": "CUresult"}


def in_line(line: str, low: str) -> list[se.Code]:
    """The codes a normalised line names (each once), by name, number or message."""
    found: dict[str, se.Code] = {}
    if ("_error_" in low or "_status_" in low or "cudaerror" in low or "nccl" in low or "cudasuccess" in low
            or "nvmlerror_" in low):
        for m in _NAME.finditer(line):
            code = se.by_name(m.group(1))
            if code:
                found.setdefault(code.name, code)
    said = _messages(line, low)
    if "cuda runtime (" in low or "cuda driver (" in low:
        for m in _TENSORRT.finditer(low):
            api = _TENSORRT_API[m.group(1)]
            said += [c for c in se.by_message(m.group(2)) if c.api == api][:1]
    for code in _numbered(line, low):
        # a message of the same library says which code it is: a number that is another's is another
        # numbering's ("cuda runtime error (8) : invalid device function": CUDA 10.0's runtime numbers)
        if code.message.lower() in low or not any(c.api == code.api for c in said):
            found.setdefault(code.name, code)
    for code in said:
        found.setdefault(code.name, code)
    return list(found.values())


def _numbered(line: str, low: str) -> list[se.Code]:
    """The codes a line gives by number, with the API that returned it."""
    out = []
    if " vs. " in line:
        m = _CHECKED.search(line)
        if m:
            api = "CUresult" if (m.group(1) or m.group(3)) == "CUDA_SUCCESS" else "cudaError_t"
            out.append(se.by_number(api, int(m.group(2) or m.group(4))))
    if "error" in low:
        out += [se.by_number(_NUMBER_API.get(m.group(1), "cudaError_t"), int(m.group(2)))
                for m in _NUMBER.finditer(low)]
    if " err" in low or " fail" in low or "returned" in low:
        for m in _CALL_NUMBER.finditer(low):
            runtime = m.group(1).startswith(("cuda", "cudart"))
            out.append(se.by_number("cudaError_t" if runtime else "CUresult", int(m.group(2))))
    if "return" in low and " from " in low:
        for m in _NUMBER_CALL.finditer(low):
            runtime = m.group(2).startswith("cuda")
            out.append(se.by_number("cudaError_t" if runtime else "CUresult", int(m.group(1))))
    if "nvml" in low:
        out += [se.by_number("nvmlReturn_t", int(m.group(1))) for m in _NVML_NUMBER.finditer(low)]
    return [code for code in out if code]


def _long(message: str) -> bool:
    """A message distinctive enough to count anywhere in a line that names its library."""
    words = message.split()
    return len(message) >= 26 or (len(message) >= 22 and max(len(w) for w in words) >= 14)


# Long messages by their longest word: a line's words pick the few worth a substring test.
_BY_WORD: dict[str, list[str]] = {}
for _m in se.BY_MESSAGE:
    if _long(_m):
        _BY_WORD.setdefault(max(_m.split(), key=len), []).append(_m)
_PUNCT = ".,:;'\"`()[]\u201c\u201d\u2018\u2019"
# What a short message must follow ("CUDA error: out of memory", "Failed to initialize NVML: Unknown
# Error", "Status: out of memory", a project's check macro: "cudaCheckError() failed : invalid device
# function"): its own words alone ("Invalid argument: ...") are anyone's.
_LEAD = (" error", "status", "nvml", "cuda", " failed")
_PREFIX_WORDS = 8  # the most words of a message that opens a longer sentence


def _unquoted_end(text: str) -> str:
    """A message without the quotes and escapes it ends in when a Go runtime quotes a nested error again
    ('unknown error\\\\n\\\"\"'): one pass from the end, each step dropping characters."""
    while True:
        text = text.rstrip("\"'`\\")
        if not (text.endswith("n") and text[:-1].endswith("\\")):
            return text
        text = text[:-1]


def _messages(line: str, low: str) -> list[se.Code]:
    """Library messages in the line, each of the library the line (or the words before it) names."""
    out = []
    for word in low.split():
        for message in _BY_WORD.get(word.strip(_PUNCT), ()):
            if message in low:
                alone = _standalone(message)
                out += _named(se.BY_MESSAGE[message], low) or (se.BY_MESSAGE[message][:1] if alone else [])
    if ":" in low:
        parts = low.split(":")
        for before, part in zip(parts, parts[1:]):
            lead = before.rstrip()
            if lead.endswith(")") and "(" in lead:  # its number first: "cuda runtime error (8) : ..."
                lead = lead[:lead.rfind("(")].rstrip()
            if not lead.endswith(_LEAD):
                continue
            key, codes = _message_prefix(_unquoted_end(part.strip()).strip("'\"`").rstrip("."))
            if codes and not _long(key):
                out += _named(codes, before) or _named(codes, low)
    # a message of two or more words ending a line whose words before it name its library ("pynvml could not
    # be initialized Insufficient Permissions")
    words = low.rstrip(_PUNCT + " !").split()
    for n in (4, 3, 2):
        tail = " ".join(words[-n:])
        codes = se.by_message(tail) if len(words) > n else ()
        if any(tail in c.message.lower() for c in out):  # the end of a longer message found ("not found")
            break
        if codes:
            out += _named(codes, " ".join(words[:-n]))
            break
    return out


def _named(codes: tuple[se.Code, ...], text: str) -> list[se.Code]:
    """The first of these codes whose library the text names."""
    for code in codes:
        if any(word in text for word in se.CONTEXT[code.api]):
            return [code]
    return []


def _message_prefix(part: str) -> tuple[str, tuple[se.Code, ...]]:
    """The message a colon-separated part opens, with the codes that print it ("... for CUDA runtime
    version at /pytorch/...", "... (run with NCCL_DEBUG=INFO for details)")."""
    codes = se.by_message(part)
    if codes:
        return part, codes
    for cut in (" at ", " (", ";", ",", " in ", "`", "'", '"', ". "):  # (a quote or a sentence ends it)
        i = part.find(cut)
        if i > 0:
            codes = se.by_message(part[:i])
            if codes:
                return part[:i], codes
    # a person's sentence going on after the message ("CUDA error: out of memory on Windows when I ...")
    words = part.split(None, _PREFIX_WORDS)  # (its first words and the rest: a long part is not split whole)
    for n in range(min(len(words) - 1, _PREFIX_WORDS), 1, -1):
        key = " ".join(words[:n]).rstrip(_PUNCT)
        codes = se.by_message(key)
        if codes:
            return key, codes
    return "", ()


def cuinit_error(rest: str) -> str | None:
    """What followed 'failed call to cuInit:' -> an error name ('NO_DEVICE'), 'CODE_n' for a number
    the table lacks, 'UNKNOWN' for "UNKNOWN ERROR" alone."""
    codes = in_line(rest, rest.lower())
    if codes:
        return codes[0].error
    paren = rest.rfind("(")
    if paren >= 0:
        number = rest[paren + 1:].split(")", 1)[0].strip()
        if number.isdigit():
            code = se.by_number("CUresult", int(number))
            return code.error if code else f"CODE_{number[:6]}"
    return "UNKNOWN" if "unknown" in rest.lower() else None


# How a code becomes the evidence the checks read: CUDA errors as "cuda-error" items named in the
# driver's spelling, the others by the finding they are evidence for.
_KIND = {
    "gpu.out-of-memory": "oom",
    "cudnn.init-failed": "cudnn-failed",
    "cublas.init-failed": "cublas-failed",
    "nccl.error": "nccl-error",
    "gpu.lost": "gpu-lost",
    "driver.library-mismatch": "lib-mismatch",
    "driver.missing": "no-driver",
    "nvml.no-permission": "nvml-error",
}
# A code of another library that means a CUDA error the checks already judge.
_AS_CUDA = {"driver.too-old": "INSUFFICIENT_DRIVER",
            "gpu.compute-capability-unsupported": "NO_BINARY_FOR_GPU"}
_WHY = {"DRIVER_NOT_LOADED": "kernel", "LIBRARY_NOT_FOUND": "libnvml", "GPU_NOT_FOUND": "no-gpu"}
_CUDA_APIS = ("CUresult", "cudaError_t")


def item(code: se.Code) -> dict[str, Any]:
    """The evidence item (without line and text) a code in a log is."""
    base: dict[str, Any] = {"code": code.name, "error": code.error}
    finding = code.finding
    if code.api in _CUDA_APIS and finding != "gpu.out-of-memory":  # judged by name (fc.cuda_errors)
        return {"kind": "cuda-error", **base, **({} if finding else {"reason": code.outcome})}
    if finding is None:
        return {"kind": "stack-error", **base, "reason": code.outcome}
    if finding in _AS_CUDA:
        return {"kind": "cuda-error", **base, "error": _AS_CUDA[finding]}
    if finding == "cudnn.missing":  # a part of cuDNN that did not load, as a failed dlopen says it
        return {"kind": "dlopen-failed", **base, "family": "cudnn", "library": "a cuDNN sub-library"}
    kind = _KIND.get(finding, "stack-error")
    if kind in ("cudnn-failed", "cublas-failed"):
        base["status"] = code.error
    elif kind == "no-driver":
        base["why"] = _WHY.get(code.error, "kernel")
    return {"kind": kind, **base}
