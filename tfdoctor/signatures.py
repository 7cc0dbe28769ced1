"""Known log/output signatures: the general shape of each failure, not one paste's wording.

Each Signature is gated by a lower-case `anchor` substring (cheap `in` test) before its regex
runs, so a 100 MB log costs one lower-casing and a few substring tests per line. Wording
covered: TensorFlow 2.4 -> 2.21 (stream_executor, tsl, local_xla, absl prefixes), CUDA 10 -> 13
library names (libcudart.so.10.1 ... .so.13, *64_NNN.dll), nvidia-smi, pip, Python tracebacks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FAIL, WARN = "fail", "warn"
CERTAIN, LIKELY = "certain", "likely"

# CUDA libraries TensorFlow dlopens (cudnn, libcuda=driver, TensorRT and CUPTI are judged apart:
# TensorRT and CUPTI are optional, their absence never stops the GPU).
_CUDA_LIBS = r"cudart|cublas(?:Lt)?|cufft|curand|cusolver|cusparse|nvrtc|nvJitLink|nvjitlink|cuda_runtime"
_SO = r"\.so(?:\.\d+)*"
_DLL = r"64_\d+\.dll"


@dataclass(frozen=True)
class Signature:
    name: str  # stable signature name, shown in facts.explain.matches
    fid: str  # finding id it is evidence for
    anchor: str  # lower-case substring that must be in the line for the regex to run
    regex: re.Pattern[str]
    status: str = FAIL
    confidence: str = CERTAIN


def _sig(
    name: str,
    fid: str,
    anchor: str,
    pattern: str,
    status: str = FAIL,
    confidence: str = CERTAIN,
    flags: int = re.IGNORECASE,
) -> Signature:
    return Signature(name, fid, anchor, re.compile(pattern, flags), status, confidence)


SIGNATURES: tuple[Signature, ...] = (
    # --- the driver is absent or not loaded -----------------------------------------------------
    _sig(
        "smi-no-driver",
        "driver.missing",
        "communicate with the nvidia driver",
        r"couldn.?t communicate with the NVIDIA driver",
    ),
    _sig(
        "libcuda-missing",
        "driver.missing",
        "libcuda",
        r"(?:Could not|couldn't|cannot|failed to|unable to) (?:load|open|find)\w*\s+"
        r"(?:dynamic\s+)?library\s+'?libcuda\.so"
        r"|libcuda\.so(?:\.1)?: cannot open shared object",
    ),
    _sig("nvcuda-missing", "driver.missing", "nvcuda", r"nvcuda\.dll'?(?:;)? ?(?:dlerror: )?\S*\s*not found"),
    _sig(
        "kernel-driver-not-running",
        "driver.missing",
        "kernel driver does not appear",
        r"kernel driver does not appear to be running",
    ),
    _sig(
        "cuinit-303",
        "driver.missing",
        "cuinit",
        r"cuInit.*(?:\(303\)|SHARED_OBJECT_INIT_FAILED)",
        confidence=LIKELY,
    ),
    _sig("docker-no-driver", "driver.missing", "driver was not detected", r"NVIDIA Driver was not detected"),
    _sig("no-nvidia-driver", "driver.missing", "no nvidia driver", r"found no NVIDIA driver on your system"),
    _sig(
        "smi-not-found",
        "driver.missing",
        "nvidia-smi",
        r"nvidia-smi'?(?::| is not recognized)\s*(?:command not found|.*not recognized as)",
        confidence=LIKELY,
    ),
    # --- user-space driver library and kernel module disagree ------------------------------------
    _sig("nvml-mismatch", "driver.library-mismatch", "mismatch", r"Driver/library version mismatch"),
    _sig(
        "dso-kernel-mismatch",
        "driver.library-mismatch",
        "does not match dso version",
        r"kernel version \S+ does not match DSO version",
    ),
    _sig(
        "nvrm-api-mismatch",
        "driver.library-mismatch",
        "api mismatch",
        r"API mismatch: the NVIDIA kernel module",
    ),
    _sig(
        "system-driver-mismatch",
        "driver.library-mismatch",
        "driver_mismatch",
        r"CUDA_ERROR_SYSTEM_DRIVER_MISMATCH|system has unsupported display driver / cuda driver combination",
    ),
    # --- the driver is older than the CUDA runtime -----------------------------------------------
    _sig(
        "driver-insufficient",
        "driver.too-old",
        "insufficient",
        r"driver version is insufficient for CUDA runtime|CUDA_ERROR_INSUFFICIENT_DRIVER"
        r"|cudaErrorInsufficientDriver",
    ),
    _sig(
        "ptx-unsupported-toolchain",
        "driver.too-old",
        "ptx",
        r"CUDA_ERROR_UNSUPPORTED_PTX_VERSION|PTX was compiled with an unsupported toolchain",
        confidence=LIKELY,
    ),
    # --- CUDA libraries missing -----------------------------------------------------------------
    _sig(
        "cuda-lib-dlopen",
        "cuda.libraries-missing",
        "librar",
        rf"Could not (?:load|open) (?:dynamic )?library '?((?:lib)?(?:{_CUDA_LIBS})(?:{_SO}|{_DLL}))",
    ),
    _sig(
        "cuda-lib-shared-object",
        "cuda.libraries-missing",
        "cannot open shared object",
        rf"(lib(?:{_CUDA_LIBS}){_SO}): cannot open shared object file",
    ),
    _sig(
        "cuda-dll-not-found",
        "cuda.libraries-missing",
        ".dll",
        rf"((?:{_CUDA_LIBS}){_DLL})'?;? (?:dlerror: \S+ )?not found",
    ),
    _sig(
        "cannot-dlopen-gpu-libs",
        "cuda.libraries-missing",
        "cannot dlopen some gpu libraries",
        r"Cannot dlopen some GPU libraries",
    ),
    _sig(
        "cudart-stub-no-cuda",
        "cuda.libraries-missing",
        "could not find cuda drivers",
        r"Could not find cuda drivers on your machine, GPU will not be used",
        confidence=LIKELY,
    ),
    # --- cuDNN ------------------------------------------------------------------------------------
    _sig(
        "cudnn-dlopen",
        "cudnn.missing",
        "cudnn",
        rf"Could not (?:load|open) (?:dynamic )?library '?((?:lib)?cudnn(?:_\w+)?(?:{_SO}|{_DLL}|\.dll))"
        rf"|(libcudnn(?:_\w+)?{_SO}): cannot open shared object|((?:lib)?cudnn(?:_\w+)?(?:{_DLL}|\.dll))'?;? "
        r"(?:dlerror: \S+ )?not found",
    ),
    _sig("dnn-not-found", "cudnn.missing", "dnn library is not found", r"DNN library is not found"),
    _sig(
        "cudnn-version-mismatch",
        "cudnn.version-mismatch",
        "cudnn library",
        r"Loaded runtime CuDNN library:\s*(\d[\d.]*)(?:\s*\(compatibility version \d+\))?"
        r"\s*but source was compiled with:?\s*(\d[\d.]*\d)",
    ),
    _sig(
        "cudnn-init-failed",
        "cudnn.init-failed",
        "cudnn",
        r"CUDNN_STATUS_(?:INTERNAL_ERROR|NOT_INITIALIZED|EXECUTION_FAILED|ARCH_MISMATCH)"
        r"|cuDNN failed to initialize|Could not create cudnn handle",
        confidence=LIKELY,
    ),
    _sig(
        "dnn-init-failed",
        "cudnn.init-failed",
        "dnn library initialization failed",
        r"DNN library initialization failed",
        confidence=LIKELY,
    ),
    # --- TensorFlow build without CUDA ------------------------------------------------------------
    _sig(
        "build-info-cpu",
        "tensorflow.cpu-only-build",
        "is_cuda_build",
        r"""['"(]is_cuda_build['"]?\s*[:,]\s*false""",
    ),
    _sig(
        "not-built-with-cuda",
        "tensorflow.cpu-only-build",
        "built with",
        r"(?:was |is )?not (?:been )?built with (?:CUDA|GPU)(?! kernel)(?: support)?",
    ),
    _sig(
        "built-with-cuda-false",
        "tensorflow.cpu-only-build",
        "built with cuda",
        r"built with CUDA\W{0,4}\s*(?:[:=]|->)?\s*False\b",
    ),
    _sig(
        "tensorflow-cpu-installed",
        "tensorflow.cpu-only-build",
        "tensorflow-cpu",
        r"^(?:tensorflow-cpu\s+\d+\.\d+|.*Successfully installed.*\btensorflow-cpu-\d)",
        confidence=LIKELY,
    ),
    # --- cuInit / device initialisation -----------------------------------------------------------
    _sig("cuinit-failed", "cuda.init-failed", "cuinit", r"failed call to cuInit(?::\s*(.*))?"),
    _sig(
        "no-cuda-device", "cuda.init-failed", "no cuda-capable device", r"no CUDA-capable device is detected"
    ),
    _sig(
        "devices-unavailable",
        "cuda.init-failed",
        "busy or unavailable",
        r"all CUDA-capable devices are busy or unavailable|CUDA_ERROR_DEVICES_UNAVAILABLE",
    ),
    # --- GPU architecture not in the build --------------------------------------------------------
    _sig(
        "cc-jit-from-ptx",
        "gpu.compute-capability-unsupported",
        "kernel binaries compatible",
        r"not built with CUDA kernel binaries compatible with compute capability (\d+\.\d+)",
        status=WARN,
    ),
    _sig(
        "cc-below-minimum",
        "gpu.compute-capability-unsupported",
        "minimum required cuda capability",
        r"compute capability:? (\d+\.\d+)\)? with Cuda compute capability \S+ The minimum required Cuda "
        r"capability is (\d+\.\d+)|minimum required Cuda capability is (\d+\.\d+)",
    ),
    _sig(
        "no-kernel-image",
        "gpu.compute-capability-unsupported",
        "kernel image",
        r"no kernel image is available for execution|CUDA_ERROR_NO_BINARY_FOR_GPU",
    ),
    _sig(
        "invalid-ptx",
        "gpu.compute-capability-unsupported",
        "invalid_ptx",
        r"CUDA_ERROR_INVALID_PTX",
        confidence=LIKELY,
    ),
    # --- XLA toolchain (libdevice, ptxas) ----------------------------------------------------------
    _sig(
        "libdevice-not-found",
        "xla.toolchain-missing",
        "libdevice",
        r"libdevice not found at|libdevice is required by this HLO module but was not found",
    ),
    _sig(
        "libdevice-dir-missing",
        "xla.toolchain-missing",
        "libdevice",
        r"Can't find libdevice directory",
        status=WARN,
    ),
    _sig(
        "ptxas-missing",
        "xla.toolchain-missing",
        "ptx",
        r"Couldn't (?:get ptxas version|invoke ptxas|find ptxas)|ptxas (?:binary )?not found|"
        r"Failed to launch ptxas|ptxas: (?:command )?not found|No PTX compilation provider is available",
    ),
    _sig("ptxas-driver-fallback", "xla.toolchain-missing", "ptxas", r"Can't find ptxas binary", status=WARN),
    _sig(
        "ptxas-too-old",
        "xla.toolchain-missing",
        "ptxas",
        r"ptxas fatal\s*:\s*Value 'sm_\d+' is not defined|ptxas (?:exited with non-zero|returned an error)",
        confidence=LIKELY,
    ),
    _sig(
        "ptxas-old-version",
        "xla.toolchain-missing",
        "ptxas",
        r"You are using ptxas \S+, but TF requires ptxas",
        status=WARN,
    ),
    # --- GPU memory --------------------------------------------------------------------------------
    _sig("oom-allocating", "gpu.out-of-memory", "oom", r"\bOOM when allocating"),
    _sig(
        "resource-exhausted",
        "gpu.out-of-memory",
        "exhausted",
        r"ResourceExhaustedError|RESOURCE_EXHAUSTED:.*(?:memory|OOM)|Resource exhausted: .*(?:memory|OOM)",
    ),
    _sig("cuda-oom", "gpu.out-of-memory", "out_of_memory", r"CUDA_ERROR_OUT_OF_MEMORY"),
    _sig("xla-oom", "gpu.out-of-memory", "out of memory", r"Out of memory while trying to allocate"),
    _sig(
        "cudnn-alloc-failed",
        "gpu.out-of-memory",
        "alloc_failed",
        r"CUDNN_STATUS_ALLOC_FAILED",
        confidence=LIKELY,
    ),
    _sig(
        "bfc-ran-out",
        "gpu.out-of-memory",
        "ran out of memory",
        r"Allocator \(\w+\) ran out of memory trying to allocate",
        status=WARN,
    ),
    # --- NCCL ---------------------------------------------------------------------------------------
    _sig(
        "nccl-error-code",
        "nccl.error",
        "nccl",
        r"nccl(?:InternalError|SystemError|UnhandledCudaError|InvalidUsage|InvalidArgument|RemoteError)",
    ),
    _sig(
        "nccl-failed",
        "nccl.error",
        "nccl",
        r"NCCL (?:error|failure)|NCCL communication aborted|nccl\w*\.cc:\d+\s*:?\s*(?:Internal|Unknown|"
        r"Unavailable)\w*:|NCCL operation \w+ failed",
    ),
    _sig("nccl-warn", "nccl.error", "nccl warn", r"\bNCCL WARN\b", status=WARN),
    _sig(
        "nccl-missing",
        "nccl.error",
        "libnccl",
        r"Could not (?:load|open) (?:dynamic )?library '?libnccl",
        status=WARN,
    ),
    # --- TensorFlow itself -------------------------------------------------------------------------
    _sig(
        "no-module-tensorflow",
        "tensorflow.missing",
        "no module named",
        r"No module named ['\"]?tensorflow['\"]?(?:\s|$)",
    ),
    _sig(
        "tf-import-failed",
        "tensorflow.import-failed",
        "tensorflow",
        r"Failed to load the native TensorFlow runtime|DLL load failed while importing _pywrap_tensorflow"
        r"|compiled to use AVX instructions, but these aren't available",
    ),
    _sig(
        "pip-no-tensorflow",
        "tensorflow.python-unsupported",
        "satisfies the requirement",
        r"Could not find a version that satisfies the requirement (?:tensorflow|tf-nightly)[\w-]*"
        r"(?:\[[\w,-]+\])?(?:[=<>!~]=?\S*)? \(from versions: none\)",
        confidence=LIKELY,
    ),
    _sig(
        "pip-requires-python",
        "tensorflow.python-unsupported",
        "requires a different python",
        r"(?:tensorflow|tf-nightly)[\w-]*['\"]? requires a different Python",
    ),
)

ANCHORS: dict[str, tuple[Signature, ...]] = {}
for _s in SIGNATURES:
    ANCHORS[_s.anchor] = (*ANCHORS.get(_s.anchor, ()), _s)
ANCHOR_ITEMS = tuple(ANCHORS.items())
# One C-level search that says whether a (lower-cased) line holds any anchor at all.
ANY_ANCHOR = re.compile("|".join(re.escape(a) for a in sorted(ANCHORS, key=len, reverse=True)))


# --- environment values (never findings by themselves) ----------------------------------------------
RE_SMI_BANNER = re.compile(r"Driver Version:\s*(\d+\.\d+(?:\.\d+)?)(?:\s+CUDA Version:\s*(\d+\.\d+))?")
RE_SMI_Q = re.compile(r"^\s*(Driver|CUDA) Version\s{2,}:\s*(\d+\.\d+(?:\.\d+)?)")
RE_KERNEL_REPORTED = re.compile(r"kernel reported version is:?\s*'?(\d+\.\d+(?:\.\d+)?)")
RE_PROC_DRIVER = re.compile(r"NVRM version: NVIDIA .*Kernel Module(?: for \w+)?\s+(\d+\.\d+(?:\.\d+)?)")
RE_NVCC = re.compile(r"Cuda compilation tools, release (\d+\.\d+)")
RE_CUDNN_LOADED = re.compile(r"Loaded cuDNN version (\d{3,6})")
RE_BUILD_KV = re.compile(
    r"""['"(](cuda_version|cudnn_version|is_cuda_build)['"]?\s*[:,]\s*['"]?(True|False|true|false|[\d.]+)"""
)
RE_TF_VERSION = (
    re.compile(
        r"^(?:tensorflow|tensorflow-gpu|tensorflow-cpu|tensorflow-intel|tf-nightly)\s+"
        r"(\d+\.\d+\.\d+\S*)\s*(?:\S+\s*)?$",
        re.IGNORECASE,
    ),  # pip list / conda list
    re.compile(
        r"Successfully installed .*?\b(?:tensorflow|tensorflow-gpu|tensorflow-cpu)-(\d+\.\d+\.\d+\S*)"
    ),
    re.compile(
        r"\bTensorFlow(?: version)?\s*(?:\(use command below\))?\s*[:=]\s*v?(?:tf\s*)?(\d+\.\d+(?:\.\d+)?)\b",
        re.IGNORECASE,
    ),
    re.compile(r"^v\d+\.\d+\.\d+-\d+-g[0-9a-f]+\s+(\d+\.\d+\.\d+)"),  # GIT_VERSION VERSION
    re.compile(r"tf-nightly-(\d+\.\d+\.\d+)\.dev\d+", re.IGNORECASE),
)
RE_PYTHON = (
    re.compile(r"^Python (\d+\.\d+\.\d+)\b"),  # interpreter banner
    re.compile(r"\bpython(?: version)?\s*[:=]\s*\(?(?:python\s*)?(\d\.\d+(?:\.\d+)?)\b", re.IGNORECASE),
)
RE_GPU_CREATED = re.compile(
    r"Created (?:TensorFlow )?device .*?GPU:(\d+) with (\d+) MB memory\)?:?\s*->\s*(?:physical GPU )?\(?"
    r"device: (\d+), name: (.+?), pci bus id: [^,]+, compute capability: (\d+\.\d+)"
)
RE_GPU_IGNORING = re.compile(
    r"Ignoring visible gpu device \(device: (\d+), name: (.+?), pci bus id: [^,]+, "
    r"compute capability: (\d+\.\d+)\)"
)
RE_GPU_FOUND = re.compile(r"Found device (\d+) with properties")
RE_GPU_NAME_CC = re.compile(r"name: (.+?)\s+(?:computeCapability: (\d+\.\d+)|major: (\d+) minor: (\d+))")
RE_GPU_XLA = re.compile(r"StreamExecutor device \((\d+)\): (.+?), Compute Capability (\d+\.\d+)")
RE_SMI_ROW = re.compile(
    r"^\|\s*(\d+)\s+(\S.*?)\s+(?:On|Off|WDDM|TCC)\s+\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:"
)
RE_SMI_MEM = re.compile(r"^\|.*?\|\s*(\d+)MiB\s*/\s*(\d+)MiB\s*\|")
RE_VISIBLE = (re.compile(r"Num GPUs Available:?\s*(\d+)"),)
RE_PHYSICAL_GPU = re.compile(r"PhysicalDevice\(name='/physical_device:GPU:(\d+)'")
RE_HEADING = re.compile(
    r"^(?:#+\s*|\*\*|-\s*)?(tensorflow version|python version|os platform and distribution)\b[^:]*:?\**\s*$",
    re.IGNORECASE,
)
RE_OS = re.compile(
    r"\b(Ubuntu \d\d\.\d\d(?:\.\d+)?(?: LTS)?|CentOS(?: Linux)?(?: release)? \d[\d.]*|Rocky Linux \d[\d.]*|"
    r"Red Hat Enterprise Linux[\w ]*? \d[\d.]*|Fedora(?: Linux)? \d+|Debian(?: GNU/Linux)? \d+|"
    r"Windows (?:10|11)|Amazon Linux \d+|openSUSE[\w ]* \d[\d.]*)",
    re.IGNORECASE,
)
RE_WSL = re.compile(r"microsoft-standard-WSL2|/usr/lib/wsl/lib|\bWSL ?2\b|\bWSL\b", re.IGNORECASE)
RE_WSL_KERNEL = re.compile(r"(\d+\.\d+\.\d+(?:\.\d+)?-microsoft-standard-WSL2)")
RE_WINDOWS = re.compile(
    r"(?:^|[\s'\"(=])[A-Za-z]:\\|\b(?:cudart|cublas|cudnn|cufft|curand|cusolver|cusparse)64_\d+\.dll|"
    r"\bnvcuda\.dll|^PS [A-Za-z]:\\|\bWDDM\b|\btensorflow-intel\b|\bwin_amd64\b|\bwin32\b|"
    r"Windows (?:10|11)\b",
    re.IGNORECASE,
)
RE_LINUX = re.compile(
    r"\.so(?:\.\d+)+\b|/usr/(?:local/)?lib|/home/\w|\blinux\b|\bubuntu\b|manylinux", re.IGNORECASE
)
RE_MACOS = re.compile(r"\bmacOS\b|\bDarwin\b|tensorflow-macos|tensorflow-metal|macosx_\d+", re.IGNORECASE)
RE_CONDA = re.compile(
    r"\b(?:ana|mini|mamba|micro)(?:conda|forge)3?\b|/envs/\w|conda install|\bconda\b", re.IGNORECASE
)
RE_CUDA_VISIBLE = re.compile(
    r"CUDA_VISIBLE_DEVICES\s*[=:]\s*['\"]?(-1|\s*['\"]|$|none|NoDevFiles)", re.IGNORECASE
)
