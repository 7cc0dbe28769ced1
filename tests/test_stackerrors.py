"""The stack's error vocabulary is complete by construction: every code in the real headers of the
installed wheels (TensorFlow's cuda.h, driver_types.h and nvml.h; nvidia-cudnn's cudnn_graph.h;
nvidia-cublas' cublas_api.h; nvidia-nccl's nccl.h; nvidia-ml-py's NVML_ERROR_* constants) has a row
with its number and the library's own message (read through ctypes from libcudart, libcublas,
libcudnn_graph and libnccl); every row names a finding the checks really report for it, or a reason
it is not an environment problem."""

from __future__ import annotations

import ctypes
import os
import re
import sysconfig
from pathlib import Path

import pytest

from tfdoctor import stackerrors as se
from tfdoctor.catalogue import ENTRIES
from tfdoctor.compat import load_matrix
from tfdoctor.report import explain_report
from tfdoctor.versions import library_family

SITE = Path(sysconfig.get_paths()["purelib"])
HEADERS = {  # api -> (header file, the enum's closing text)
    "CUresult": ("cuda.h", "} CUresult;"),
    "cudaError_t": ("driver_types.h", None),
    "nvmlReturn_t": ("nvml.h", "} nvmlReturn_t;"),
    "cudnnStatus_t": ("cudnn_graph.h", "} cudnnStatus_t;"),
    "cublasStatus_t": ("cublas_api.h", "} cublasStatus_t;"),
    "ncclResult_t": ("nccl.h", "} ncclResult_t;"),
}
MATRIX = load_matrix()


def _find_headers() -> dict[str, list[Path]]:
    """Every copy of each header: the nvidia-* wheels' first (the libraries that load), then
    TensorFlow's own include tree."""
    wanted = {name for name, _ in HEADERS.values()}
    found: dict[str, list[Path]] = {}
    for top in (SITE / "nvidia", SITE / "tensorflow" / "include"):
        for folder, _, files in sorted(os.walk(top)):
            for name in sorted(wanted.intersection(files)):
                path = Path(folder) / name
                # TensorFlow's own tensorflow/core/platform/cuda.h is not CUDA's
                if _body(path, name) is not None:
                    found.setdefault(name, []).append(path)
    return found


def _body(path: Path, name: str) -> str | None:
    text = path.read_text(errors="replace")
    api = next(a for a, (h, _) in HEADERS.items() if h == name)
    end_text = HEADERS[api][1]
    if end_text is None:  # the runtime's `enum __device_builtin__ cudaError { ... };`
        start = text.find("enum __device_builtin__ cudaError")
        if start < 0:
            return None
        start = text.find("{", start)
        return text[start + 1:text.find("};", start)]
    end = text.find(end_text)
    if end < 0:
        return None
    return text[text.rfind("{", 0, end) + 1:end]


def _enum(body: str) -> dict[str, int]:
    """NAME = value pairs of a C enum body (values: numbers or earlier names, as cuDNN's aliases)."""
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    body = re.sub(r"//[^\n]*", "", body)
    out: dict[str, int] = {}
    for part in body.split(","):
        m = re.match(r"\s*(\w+)(?:\s+\w+)?\s*=\s*(\S+)\s*$", part)
        if m:
            value = m.group(2)
            number = re.fullmatch(r"-?(?:0x[0-9a-fA-F]+|\d+)", value)
            out[m.group(1)] = int(value, 0) if number else out[value]
    return out


def _enums() -> dict[str, dict[str, int]]:
    """api -> {name: number}: numbers from the first copy, names from every copy (an older copy in
    TensorFlow's tree may lack new codes; a newer one may end its enum with a moved sentinel)."""
    out: dict[str, dict[str, int]] = {}
    for api, (header, _) in HEADERS.items():
        for path in HEADER_FILES.get(header, ()):
            for name, number in _enum(_body(path, header) or "").items():
                out.setdefault(api, {}).setdefault(name, number)
    import pynvml  # nvidia-ml-py defines NVML's codes too, at times newer than TensorFlow's nvml.h

    for name, number in vars(pynvml).items():
        if re.fullmatch(r"NVML_ERROR_[A-Z_]+", name):
            out.setdefault("nvmlReturn_t", {}).setdefault(name, number)
    return out


HEADER_FILES = _find_headers()
ENUMS = _enums()


def test_every_header_is_found():
    assert set(ENUMS) == set(HEADERS), f"headers not found under {SITE}: {set(HEADERS) - set(ENUMS)}"
    for api, names in ENUMS.items():
        assert len(names) >= 8, (api, names)


@pytest.mark.parametrize("api", sorted(HEADERS))
def test_every_code_of_the_header_has_a_row_and_every_row_agrees(api):
    header = ENUMS[api]
    rows = {c.name: c for c in se.CODES if c.api == api}
    assert sorted(set(header) - set(rows)) == [], "codes without an entry"
    # (rows a newer release added may be absent from an older install's header; none may disagree)
    wrong = {name: (rows[name].number, n) for name, n in header.items() if rows[name].number != n}
    assert wrong == {}


def test_nvml_constants_of_nvidia_ml_py_agree():
    import pynvml

    constants = {k: v for k, v in vars(pynvml).items() if re.fullmatch(r"NVML_ERROR_[A-Z_]+", k)}
    assert len(constants) >= 20
    for name, number in constants.items():
        code = se.by_name(name)
        assert code is not None and code.number == number, name


def test_nvidia_ml_py_s_exception_classes_are_named_codes():
    """pynvml raises each code as its own class (NVMLError_NoPermission): a traceback names it so."""
    import pynvml

    classes = {k: v for k, v in vars(pynvml).items() if k.startswith("NVMLError_")}
    assert len(classes) >= 20
    for name, cls in classes.items():
        code = se.by_name(name)
        assert code is not None and code.number == cls().value, name


def _lib(pattern: str) -> ctypes.CDLL:
    found = sorted((SITE / "nvidia").glob(pattern))
    assert found, f"{pattern} not installed under {SITE / 'nvidia'}"
    return ctypes.CDLL(str(found[0]))


@pytest.mark.parametrize("api, library, function", [
    ("cudaError_t", "cuda_runtime/lib/libcudart.so.*", "cudaGetErrorString"),
    ("cublasStatus_t", "cublas/lib/libcublas.so.*", "cublasGetStatusString"),
    ("cudnnStatus_t", "cudnn/lib/libcudnn_graph.so.*", "cudnnGetErrorString"),
    ("ncclResult_t", "nccl/lib/libnccl.so.*", "ncclGetErrorString"),
])
def test_messages_are_the_libraries_own(api, library, function):
    fn = getattr(_lib(library), function)
    fn.restype = ctypes.c_char_p
    fn.argtypes = [ctypes.c_int]
    for code in (c for c in se.CODES if c.api == api):
        text = fn(code.number).decode()
        # cuDNN's strings are its names: the row keeps no copy where the text is the name itself
        assert code.message == ("" if text == code.name else text), code.name


def test_nvml_messages_are_nvidia_ml_py_s():
    import pynvml

    table = pynvml.NVMLError._errcode_to_string
    for code in (c for c in se.CODES if c.api == "nvmlReturn_t" and c.number in table):
        assert code.message == table[code.number], code.name


def test_every_row_names_a_finding_or_a_reason():
    for code in se.CODES:
        assert code.finding in ENTRIES or code.reason, code
    assert all(se.BY_NAME.get(name) for name in se.OLDER_MESSAGES.values())


def _bad(text: str) -> dict[str, str | None]:
    report = explain_report(text, MATRIX)
    return {f.id: f.caused_by for f in report.findings if str(f.status) in ("fail", "warn")}


# Built here: each code of the table, named in one absl-prefixed error line as TensorFlow prints them.
@pytest.mark.parametrize("code", [c for c in se.CODES if c.finding], ids=lambda c: c.name)
def test_a_code_by_name_yields_its_finding(code):
    bad = _bad(f"E0000 00:00:1700000000.000000  1 gpu_util.cc:12] INTERNAL: {code.name}")
    assert code.finding in bad and bad[code.finding] is None, bad
    assert "log.unrecognized" not in bad or bad["log.unrecognized"]


@pytest.mark.parametrize("code", [c for c in se.CODES if not c.finding and c.outcome != "success"],
                         ids=lambda c: c.name)
def test_a_code_of_the_program_is_said_so_and_blames_nothing(code):
    bad = _bad(f"E0000 00:00:1700000000.000000  1 gpu_util.cc:12] INTERNAL: {code.name}")
    assert bad == {"log.program-error": None}


def test_numbers_and_messages_name_the_same_code():  # the two forms TensorFlow and PyTorch print
    by_number = _bad("RuntimeError: cuda runtime error (35) : CUDA driver version is insufficient for CUDA"
                     " runtime version at /pytorch/aten/src/THC/THCGeneral.cpp:50")
    assert by_number == {"driver.too-old": None}
    assert _bad("E tensorflow/stream_executor/cuda/cuda_driver.cc:328] failed call to cuInit: UNKNOWN ERROR"
                " (100)") == {"cuda.init-failed": None}


@pytest.mark.parametrize("name, family", [
    ("libcudart.so.12", "cuda-runtime"), ("cudart64_110.dll", "cuda-runtime"),
    ("libcublasLt.so.12", "cuda-runtime"), ("libcufft.so.11", "cuda-runtime"),
    ("libcusolver.so.11", "cuda-runtime"), ("libcusparse.so.12", "cuda-runtime"),
    ("libnvJitLink.so.12", "cuda-runtime"), ("libcudnn.so.9", "cudnn"), ("libcudnn_ops.so.9", "cudnn"),
    ("cudnn64_8.dll", "cudnn"), ("libcuda.so.1", "driver"), ("nvcuda.dll", "driver"),
    ("libnccl.so.2", "nccl"),
    ("libnvinfer.so.7", "tensorrt"), ("libnvinfer_plugin.so.8", "tensorrt"), ("libcupti.so.12", "cupti"),
])
def test_every_library_tensorflow_loads_has_a_row(name, family):
    lib = se.library(name)
    assert lib is not None and lib.family == family == library_family(name)
    assert lib.outcome in ENTRIES or lib.outcome.startswith("optional: ")


@pytest.mark.parametrize("lib", se.LIBRARIES, ids=lambda lib: lib.stem)
def test_a_library_that_did_not_load_yields_its_finding_or_nothing(lib):
    soname = {"cuda": "libcuda.so.1", "nvcuda": "nvcuda.dll", "nvidia-ml": "libnvidia-ml.so.1",
              "zlibwapi": "zlibwapi.dll"}.get(lib.stem, f"lib{lib.stem}.so.12")
    bad = _bad("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic"
               f" library '{soname}'; dlerror: {soname}: cannot open shared object file: No such file or"
               " directory")
    if lib.outcome.startswith("optional: "):
        assert bad == {}
    else:
        assert lib.outcome in bad, bad



@pytest.mark.parametrize("kind", sorted(se.MECHANISMS))
def test_each_python_level_mechanism_is_evidence_for_its_finding_in_a_real_paste(kind):
    from corpus import cases  # the development corpus: real pastes, sources in its cases.toml

    from tfdoctor import logs

    finding = se.MECHANISMS[kind]
    for case in (c for c in cases("dev") if finding in c["ids"]):
        text = case["path"].read_text(encoding="utf-8", errors="replace")
        if kind in logs.read_text(text)["log"]["counts"]:
            assert finding in _bad(text), case["file"]
            return
    pytest.fail(f"no development case shows {kind} as evidence for {finding}")


LEADS = {"CUresult": "CUDA error: ", "cudaError_t": "CUDA error: ",
         "nvmlReturn_t": "Failed to initialize NVML: ", "cublasStatus_t": "cuBLAS error: ",
         "ncclResult_t": "NCCL error: ", "cudnnStatus_t": "cuDNN error: "}


# Built here: each library message after the words its library prints before it.
@pytest.mark.parametrize("code", [c for c in se.CODES if c.finding and c.message], ids=lambda c: c.name)
def test_a_code_by_its_message_yields_its_finding(code):
    bad = _bad(f"E0000 00:00:1700000000.000000  1 gpu_util.cc:12] {LEADS[code.api]}{code.message}")
    assert code.finding in bad and bad[code.finding] is None, bad
