"""Evidence in a log: the mechanisms that failed, named once whatever the wording.

A signature names a *mechanism* (a library that did not load, a cuDNN handle that could not be
created, an out-of-memory), not a finding id: the checks decide what it means, together with the
facts. The stack's error *codes* (CUDA_ERROR_NO_DEVICE, cudaErrorNoDevice, "no CUDA-capable device is
detected", NVML_ERROR_NO_PERMISSION, CUDNN_STATUS_*, CUBLAS_STATUS_*, ncclSystemError) are not
sentences: tfdoctor/logs/codes.py reads them through one table (tfdoctor/stackerrors.py).

Each signature declares lower-case anchor substrings: its regex runs only on a line holding one, and
the cheap pass that picks lines (tfdoctor/logs/triggers.py) is built from them, so a new signature
needs only its anchors (one declaring none is tried on every line: correct, slower). Every regex is
bounded, so a hostile 4 KB line costs a few linear scans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Signature:
    kind: str  # the mechanism, e.g. "dlopen-failed", "cuda-error", "oom"
    anchors: tuple[str, ...]  # lower-case substrings; the regex runs when any is in the line
    regex: re.Pattern[str]
    fields: tuple[str, ...] = ()  # names for the regex groups kept in the evidence item
    data: dict[str, Any] = field(default_factory=dict)  # constant data added to the item


def _sig(kind: str, anchors: str | tuple[str, ...], pattern: str, fields: tuple[str, ...] = (),
         flags: int = re.IGNORECASE, **data: Any) -> Signature:
    anchors = (anchors,) if isinstance(anchors, str) else anchors
    return Signature(kind, anchors, re.compile(pattern, flags), fields, data)


# Library families TensorFlow dlopens, by file stem (Linux sonames and Windows DLL names).
_CUDA_RUNTIME = (r"cudart|cublas(?:Lt)?|cufft|curand|cusolver|cusparse|nvrtc|nvJitLink|nvjitlink|cupti"
                 r"|nvToolsExt")
# a library of a CUDA toolkit (not the driver's libcuda), as the loader names it
_CUDA_PART = rf"lib(?:{_CUDA_RUNTIME}|cudnn\w{{0,30}}|nccl)"
_LIB = (
    rf"(?:lib)?(?:cuda|nvcuda|{_CUDA_RUNTIME}|cudnn(?:_[a-z_]{{1,30}})?|nvinfer(?:_plugin)?|nccl|nvidia-ml|"
    r"tensorflow_framework|_pywrap_tensorflow_internal|msvcp140(?:_1)?|cudnn64|zlibwapi)"
    r"(?:\.so(?:\.\d{1,6}){0,4}|64_\d{1,4}\.dll|\.dll|_\d{1,3}\.dll|(?:\.\d{1,3}){0,3}\.dylib)"  # (macOS's)
)


# TensorFlow's add-ons by their PyPI names: their wheels cover the Pythons of the TensorFlow releases each was
# made for (pip's "from versions: none" for a name PyPI lacks reads the same: only these names are judged)
_ADDONS = (r"tensorflow[-_](?:text|quantum|io|addons|decision[-_]forests|recommenders|transform|"
           r"data[-_]validation|model[-_]analysis|serving[-_]api|probability|hub|datasets|federated|graphics|"
           r"ranking|model[-_]optimization|similarity|compression|lattice|privacy)|"
           r"tf[-_](?:models[-_]official|agents)|tfx")

_AMOUNT = r"\d{1,7}(?:\.\d{1,3})? ?(?:[KMGT]iB|bytes)"  # PyTorch's memory amounts ("4.88 MiB", "0 bytes")

# a library's missing symbol that is TensorFlow's own C API (TF_AllocateOutput) or C++ (tensorflow::)
_TF_SYMBOL_MISSING = (r"[^\n]{0,300}?(?:undefined symbol|[Ss]ymbol not found)[^\n]{0,40}?"
                      r"(?:\b_?TF_[A-Z]\w|_ZN?K?\d{1,3}tensorflow|tensorflow::)")

SIGNATURES: tuple[Signature, ...] = (
    # --- libraries that did not load --------------------------------------------------------------
    _sig("dlopen-failed", ("library", "dso"),
         rf"(?:Could not (?:load|open)|Couldn't (?:load|open)|Unable to (?:load|open)|"
         rf"failed to (?:load|open)|can(?:no|')t (?:load|open))(?:ed)? "  # (a person's "cannot opened")
         rf"(?:dynamic |the )?(?:CUDA )?(?:library|DSO)[: ]{{0,3}}'?({_LIB})", ("library",)),
    _sig("dlopen-failed", "cannot open shared object", rf"({_LIB}): cannot open shared object", ("library",)),
    # ... as a binding re-raises the loader's message, "Error: <library>: <reason>" (tfjs-node's "Error:
    # libcublas.so.10.0: cannot open ..."), its reason cut off or not
    _sig("dlopen-failed", "error: lib", rf"^(?:\w{{1,30}})?Error: ({_LIB}): ", ("library",)),
    # macOS's loader: "Library not loaded: @rpath/libcudart.8.0.dylib" (TensorFlow's macOS GPU builds, <= 1.1)
    _sig("dlopen-failed", "library not loaded", rf"Library not loaded: (?:@rpath/|\S{{0,200}}/)?({_LIB})",
         ("library",)),
    # cuDNN 9's own loader trying each name of a sub-library ("Unable to load any of
    # {libcudnn_engines_precompiled.so.9.4.0, libcudnn_engines_precompiled.so.9.4, ...}")
    _sig("dlopen-failed", "unable to load any of", rf"Unable to load any of \{{({_LIB})", ("library",)),
    # ... or found, but not a library the loader can map (an empty or broken file: "libcuda.so.1: file too
    # short")
    _sig("dlopen-failed", ("file too short", "invalid elf header"),
         rf"({_LIB}): (?:file too short|invalid ELF header)", ("library",)),
    # cpm_kernels (the int4 kernels of ChatGLM and CPM models) failing to load a CUDA library it opens itself:
    # "RuntimeError: Library cudart is not initialized"
    _sig("dlopen-failed", "is not initialized", r"\bLibrary (cudart|cublas(?:Lt)?|nvrtc) is not initialized",
         ("library",)),
    # the same ImportError named short (an issue's title: "ImportError: libcublas.so.8.0 with v0.1.1",
    # "tensorflow-gpu stuck with importerror: libcublas.so.9.0")
    _sig("dlopen-failed", "importerror: lib", rf"\bImportError: ({_LIB})(?![\w.])", ("library",)),
    _sig("dlopen-failed", "dlopen", rf"(?:failed to|could not|cannot|unable to) dlopen:? '?({_LIB})",
         ("library",)),
    # cuDNN's loader naming the library its sub-library needed: "Could not load library
    # libcudnn_cnn_infer.so.8. Error: libnvrtc.so: cannot open shared object file"
    _sig("dlopen-failed", "error: lib", rf"Could not load library \S{{1,80}}\. Error: ({_LIB})",
         ("library",)),
    # Windows' loader refusing a library that Python's ctypes or PyTorch loads ([WinError 126]: it or a DLL
    # it needs is not found): 'Error loading "...\\lib\\cudnn_adv_infer64_8.dll" or one of its dependencies'
    _sig("dlopen-failed", "or one of its dependencies",
         rf"Error loading \"(?:[^\"]{{0,300}}[\\/])?({_LIB})\" or one of its dependencies", ("library",)),
    # cuDNN 8's loader not finding a sub-library at all ("Could not locate cudnn_ops_infer64_8.dll. Please
    # make sure it is in your library path!")
    _sig("dlopen-failed", "could not locate", rf"Could not locate ({_LIB})", ("library",)),
    # the loader's own message after TensorFlow's "dlerror:", cut or paraphrased after the name
    _sig("dlopen-failed", "dlerror", rf"dlerror:\s{{0,2}}'?({_LIB})\b", ("library",)),
    # ... or a person's words for it ("complained about cudnn64_5.dll not being found", "... is missing",
    # "libcublas.so.9.0 is needed!")
    _sig("dlopen-failed", (".dll", "not being found", "be found", "is missing", "was missing", "is needed",
                           "is required"),
         rf"({_LIB})['\"`]?;? (?:dlerror: \S{{0,80}} )?(?:not found|"
         r"(?:is |was )?not being found|(?:is|was) not found|(?:could|can)(?:not|n't| not) be found|"
         r"(?:is|was) missing\b|is (?:needed|required)(?:!|\.?$))", ("library",)),
    _sig("dlopen-failed", "unable to load cudnn dso", r"Unable to load cuDNN DSO", library="libcudnn"),
    # PaddlePaddle's loader: "The third-party dynamic library (cudnn64_8.dll) that Paddle depends on is not
    # configured correctly. (error code is 126)"
    _sig("dlopen-failed", "third-party dynamic library",
         rf"third-party dynamic library \(({_LIB})\) that \w{{1,30}} depends on is not configured correctly",
         ("library",)),
    # ... its advice when it found no cuDNN at all ("Note: [Recommend] copy cudnn into CUDA installation
    # directory.")
    _sig("dlopen-failed", "copy cudnn into cuda installation", r"copy cudnn into CUDA installation directory",
         library="libcudnn"),
    # TensorFlow's Windows self-check (tensorflow_self_check.py): "- Could not find cudart64_90.dll.",
    # "- Could not find cuDNN 6."
    _sig("dlopen-failed", "could not find", rf"^- Could not find ({_LIB})\.?", ("library",)),
    _sig("dlopen-failed", "could not find cudnn", r"^- Could not find cuDNN(?: \d{1,2})?\.",
         library="libcudnn"),
    # TensorFlow's (and jaxlib's) stub of the CUDA runtime answering for a runtime it could not load: its own
    # cudaGetErrorString is a symbol of the library that is not there ("cudaGetDevice() failed. Status:
    # cudaGetErrorString symbol not found.", tensorflow/stream_executor/cuda/cudart_stub.cc)
    _sig("dlopen-failed", "cudageterrorstring symbol", r"\bcudaGetErrorString symbol no(?:t found|\s{0,3}$)",
         library="libcudart"),
    # cuDNN's loader (not TensorFlow's "Could not load dynamic library") missing the cuBLAS or NVRTC of the
    # CUDA its build is for: "Could not load library libcublasLt.so.12. Error: ..."
    _sig("cudnn-needs", "could not load library",
         r"Could not load library (lib(?:cublasLt|cublas|nvrtc)\.so\.(\d{1,2}))(?:\.|$)",
         ("library", "major")),
    # A CUDA library needing a versioned symbol of another one of its toolkit that was loaded first, from
    # another install: cuDNN 8's sub-libraries ("Could not load library libcudnn_cnn_train.so.8. Error:
    # /usr/local/cuda/lib64/libcudnn_cnn_train.so.8: undefined symbol: _ZN5cudnn..., version
    # libcudnn_cnn_infer.so.8"), cuBLAS and cuBLASLt (".../nvidia/cublas/lib/libcublas.so.11: undefined
    # symbol: cublasLtGetStatusString, version libcublasLt.so.11"), cuSPARSE and nvJitLink: two CUDA installs
    # are mixed
    # (glibc's other wording: "...: symbol _ZN..., version libcudnn_cnn_infer.so.8 not defined in file ...")
    _sig("cuda-mixed", ", version lib",
         rf"\b({_CUDA_PART}\.so(?:\.\d{{1,6}}){{0,3}}): (?:undefined )?symbol:? \S{{1,400}}?, "
         rf"version ({_CUDA_PART}(?:\.so(?:\.\d{{1,6}}){{0,3}})?)", ("library", "other")),
    # a framework's own library (jaxlib's xla_extension.so, TensorFlow's, PyTorch's) needing a cuDNN function
    # at the cuDNN major it linked against, which the libcudnn found lacks: an older cuDNN of that major
    # ("xla_extension.so: symbol cudnnBatchNormalizationForwardTrainingEx version libcudnn.so.7 not defined
    # in file libcudnn.so.7 with link time reference")
    _sig("cudnn-version", "link time reference",
         r"(?<!libcudnn)(?<!_infer)(?<!_train)(?<!_ops)\.so(?:\.\d{1,6}){0,3}: (?:undefined )?symbol:? "
         r"cudnn\w{1,80},? version (libcudnn\.so\.\d{1,2}) not defined in file libcudnn\.so\.\d{1,2} with "
         r"link time reference", ("library",)),
    # one of cuDNN's own sub-libraries (libcudnn_graph, _ops, _cnn...) missing a function of cuDNN's core
    # library: the core loaded is another, older cuDNN than the sub-library's ("libcudnn_graph.so.9: undefined
    # symbol: cudnnGetLibConfig")
    _sig("cudnn-version", "undefined symbol: cudnn",
         r"\b(libcudnn_[a-z_]{2,40}\.so(?:\.\d{1,6}){0,3}): undefined symbol: cudnn[A-Z]\w{0,80}\b"
         r"(?!,? version)",
         ("library",)),
    # TensorFlow 1.x looking up a cuDNN function: cudnnCreate, which every cuDNN has, not found means no
    # cuDNN was loaded (the lookup fell to TensorFlow's own library)
    _sig("dlopen-failed", "cudnn dso", r"could not find cudnnCreate in cudnn DSO", library="libcudnn"),
    # a person's summary naming the library as missing (a title: "... - libcuda.so.1 missing", "crashes
    # without libcuda.so", "it is looking for a library called 'libcudart.so.10.1'")
    _sig("dlopen-failed", ("missing", "without", "find", "no lib", "not found", "looking for"),
         rf"(?:\bmissing:?|\bwithout|\bno|\bcan'?t find|\bcannot find|\bcould(?: not|n'?t) find|"
         rf"\blooking for(?: an?| the)?(?: `?cuda`?)?(?: library)?(?: called| named)?)"
         rf"\s{{1,3}}[`'\"]?"
         rf"({_LIB})(?![\w.])|({_LIB})`?\s{{1,3}}(?:is\s{{1,3}})?(?:missing|not found)\b|"
         # "Tensorflow looks for `libcudnn.so.6` and does not find it"
         rf"({_LIB})`?\s{{1,3}}and\s{{1,3}}(?:does\s{{1,3}}not|doesn'?t|can'?t|cannot|could\s{{1,3}}not|"
         rf"couldn'?t)\s{{1,3}}find",
         ("library", "library", "library")),
    # cuDNN's own loader (8.x): its sub-libraries and the zlib DLL its Windows build needs
    _sig("dlopen-failed", "could not locate zlibwapi", r"Could not locate (zlibwapi\.dll)", ("library",)),
    # TensorFlow 1.x / 2.0's own check on Windows, before it loads anything
    # (and tensorflow_self_check.py's: "Could not load 'cudart64_80.dll'. The GPU version of TensorFlow
    # requires that this DLL be installed ...")
    _sig("dlopen-failed", ("tensorflow requires that this dll be installed", "the gpu version of tensorflow"),
         rf"Could not (?:find|load) '({_LIB})'\. (?:The GPU version of )?TensorFlow", ("library",)),
    # a library of the right name but an older release, missing a symbol TensorFlow calls
    _sig("dlopen-failed", "could not load symbol", rf"Could not load symbol \w{{1,80}} from ({_LIB})",
         ("library",)),
    # jaxlib's CUDA plugin checking a library's version: "operation cusparseGetProperty(MAJOR_VERSION, &major)
    # failed: The cuSPARSE library was not found."
    _sig("dlopen-failed", "library was not found",
         r"\bThe (cuDNN|cuBLAS(?:Lt)?|cuSPARSE|cuFFT|cuSOLVER|cuRAND|CUPTI|NCCL|nvJitLink) library was not"
         r" found", ("library",)),
    # JAX's (XLA's) words for the same: "Unable to load cuSPARSE. Is it installed?"
    _sig("dlopen-failed", "is it installed",
         r"Unable to load (cuDNN|cuBLAS(?:Lt)?|cuSPARSE|cuFFT|cuSOLVER|cuRAND|nvJitLink|CUPTI)\."
         r" Is it installed",
         ("library",)),
    _sig("dlopen-failed", "cudnn", r"\bcudnn\w{0,20} library (?:is )?not found|Could not load cudnn|"
         r"\bcuDNN not found\b",  # (an installer's check: faceswap's setup.py)
         library="libcudnn"),
    # PaddlePaddle's dynload ("Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion.",
    # "[Hint: cudnn_dso_handle should not be null.]")
    _sig("dlopen-failed", ("shared library", "dso_handle should not be null"),
         r"Cannot load (cudnn|cublas(?:Lt)?|cudart|cuda|curand|cusolver|cusparse|cufft|nccl|nvrtc|cupti|"
         r"nvinfer) shared library|"
         r"\b(cudnn|cublas(?:Lt)?|cudart|cuda|curand|cusolver|cusparse|cufft|nccl|nvrtc|cupti|nvinfer)_dso_handle"
         r" should not be null", ("library", "library")),
    # cuda-python (cudf, cupy's bindings) finding no driver function: it loaded no libcuda
    _sig("dlopen-failed", "\" not found",
         r"Function \"cu(?:Init|DeviceGet\w{0,20}|DriverGetVersion)\" not found", library="libcuda.so"),
    # TF-TRT's stub for TensorRT called by a program that converts with TF-TRT where TensorFlow could not load
    # TensorRT ("F .../tf2tensorrt/stub/nvinfer_stub.cc:49] getInferLibVersion symbol not found."): it aborts
    # (the log prefix normalised away, the symbol is TensorRT's API)
    _sig("tensorrt-needed", "symbol not found",
         r"^(?:getInferLibVersion|createInfer\w{1,40}|getPluginRegistry|initLibNvInferPlugins)"
         r" symbol not found"),
    # (TensorFlow's next words, "Skipping registering GPU devices...", say the same, quoted alone too)
    # (TensorFlow 2.18 and newer, asking the CUDA runtime its version: "Failed call to cudaGetRuntimeVersion:
    # Error loading CUDA libraries. GPU will not be used.")
    _sig("gpu-libs-skipped", ("cannot dlopen some gpu libr", "skipping registering gpu devices",
                              "error loading cuda libraries"),
         r"Cannot dlopen some GPU libr(?:aries|ari?$|a?$)|Skipping registering GPU devices|"
         r"Error loading CUDA libraries\. GPU will not be used"),
    # TensorFlow.js's GPU binding that Windows could not load ("Error: The specified module could not be
    # found." then the binding's \\?\ path): a DLL its libtensorflow needs, CUDA's or cuDNN's, is not there
    _sig("gpu-libs-skipped", "tfjs_binding.node",
         r"^\\\\\?\\\S.{0,300}[\\/]tfjs-node-gpu[\\/]lib[\\/]napi-v\d{1,2}[\\/]tfjs_binding\.node$"),
    _sig("cudart-stub", "could not find cuda drivers", r"Could not find cuda drivers on your machine"),
    # (XLA's autotuner quotes it as the "Original error:" of a convolution it could not tune)
    _sig("dnn-not-found", "dnn library is not found",
         r"(Original error: )?(?:\w{1,20}: )?DNN library is not found", ("xla",)),
    # --- the driver -------------------------------------------------------------------------------
    _sig("no-driver", "communicate with the nvidia driver", r"couldn.?t communicate with the NVIDIA driver",
         why="smi"),
    _sig("no-driver", "kernel driver does not appear", r"kernel driver does not appear to be running",
         why="kernel"),
    _sig("no-driver", "driver was not detected", r"NVIDIA Driver was not detected", why="container",
         ngc=True),
    # Singularity/Apptainer's --nv finding no NVIDIA driver library on this host (a login or CPU node; 3.x
    # words it "Could not find any NVIDIA binaries/libraries on this host!")
    _sig("no-driver", ("could not find any nv files", "could not find any nvidia"),
         r"Could not find any (?:nv files|NVIDIA (?:binaries|libraries)) on this host", why="nv-files"),
    # a podman without CDI (before 4.1) takes the CDI device name for a file: the container gets no GPU
    _sig("no-driver", "stat nvidia.com/gpu", r"stat nvidia\.com/gpu=[\w,.-]{1,40}: no such file or directory",
         why="container"),
    # (PyTorch's words; faceswap's system information: "gpu_driver:  No Nvidia driver found")
    _sig("no-driver", "no nvidia driver", r"found no NVIDIA driver on your system|\bNo NVIDIA driver found\b",
         why="kernel"),
    # the shell finding no nvidia-smi (bash, sh, zsh, cmd.exe; or its path gone: "bash: /usr/bin/nvidia-smi:
    # No such file or directory")
    _sig("no-driver", "nvidia-smi", r"nvidia-smi'?:? (?:command )?not found|'nvidia-smi' is not recognized|"
         r"command not found: nvidia-smi\b|/nvidia-smi: No such file or directory", why="smi-missing"),
    # the container runtime finding no nvidia-smi to run in a container (runc's 'exec: "nvidia-smi":
    # executable file not found in $PATH', crun's): the NVIDIA runtime injected none, nor the GPU with it
    _sig("no-driver", "nvidia-smi",
         r"exec: \\?\"nvidia-smi\\?\": executable file not found|"
         r"executable file `nvidia-smi` not found in \$PATH", why="container"),
    _sig("no-driver", "couldn't find libnvidia-ml", r"NVIDIA-SMI couldn't find libnvidia-ml\.so library",
         why="libnvml"),
    _sig("no-driver", ("no nvidia gpu", "no nvidia graphics", "no nvidia devices"),
         r"No NVIDIA (?:GPU|graphics adapter|devices?) (?:found|detected|were found|probed)", why="no-gpu"),
    # conda's solver asked for a CUDA build where it sees no NVIDIA driver: its __cuda virtual package (the
    # CUDA version libcuda supports) is absent
    # (the build it wanted names its CUDA: "tensorflow-2.7.0-cuda102py310hcf4adbc_0")
    _sig("no-driver", "nothing provides __cuda",
         r"nothing provides __cuda\b(?:[^\n]{0,120}?-cuda(\d{2,3})py)?", ("cuda",), why="conda-virtual"),
    _sig("no-driver", ("device is present", "/dev/nvidia"),
         r"no NVIDIA GPU device is present|/dev/nvidia\d{0,3} does not exist", why="devnodes"),
    # the kernel module finds no NVIDIA device to drive: no NVIDIA GPU on this machine (or passed to this VM)
    _sig("no-driver", "modprobe",
         r"modprobe: (?:FATAL|ERROR): could not insert '?nvidia[\w-]{0,12}'?: No such device", why="no-gpu"),
    # the kernel module did not build for this kernel (DKMS after a kernel update) or was refused by it
    # (Secure Boot without the module's key enrolled)
    _sig("no-driver", ("gpl-only symbol", "bad return status for module build", "key was rejected",
                       "required key not available", "unable to load the kernel module", "dkms",
                       "build of nvidia", "nvidia-kmod"),
         r"GPL-incompatible module nvidia[\w-]{0,12}\.ko uses GPL-only symbol|"
         r"Bad return status for module build on kernel|"
         # ... as DKMS itself, a distribution's hook (Void's, akmods) or NVIDIA's installer word the failed
         # build: "Building DKMS module 'nvidia-367.35' for kernel-4.7.2_1... FAILED!", "DKMS module
         # 'nvidia-367.35' failed to build", "Error! Build of nvidia.ko failed for: 6.8.0", "Failed to run
         # `/usr/sbin/dkms build -m nvidia ...`", "Building and installing nvidia-kmod [FAILED]"
         r"Building DKMS module '?nvidia[\w.-]{0,40}'?[^\n]{0,80}?\bFAILED|"
         r"DKMS module '?nvidia[\w.-]{0,40}'? failed to build|Error! Build of nvidia[\w-]{0,12}\.ko failed|"
         r"Failed to run `?\S{0,60}dkms (?:build|install) -m nvidia|nvidia-kmod[^\n]{0,80}?\bFAILED|"
         r"dpkg: error processing package nvidia-(?:\d{3}-)?dkms|"
         # NVIDIA's installer (the .run file, the GPU operator's driver container) failing its module load
         r"Unable to load the kernel module '?nvidia[\w-]{0,12}\.ko|"
         r"could not insert '?nvidia[\w-]{0,12}'?: "
         r"(?:Key was rejected by service|Required key not available)",
         why="module-build"),
    # any other refusal to load the module (after the specific ones above: the first match on a line counts)
    _sig("no-driver", ("uvm kernel module", "module nvidia", "modprobe"),
         r"Could not load UVM kernel module|modprobe: (?:FATAL|ERROR): .{0,40}\bnvidia(?:[-_]uvm)?\b",
         why="kernel"),
    # NVIDIA's open kernel module refusing a GPU older than Turing: it needs the GPU System Processor (GSP)
    # Turing introduced (https://github.com/NVIDIA/open-gpu-kernel-modules/issues/19); the kernel log's
    # sentence wraps over NVRM lines ("NVRM: installed in this system is not supported by open" / "NVRM:
    # nvidia.ko because it does not include the required GPU" / "NVRM: System Processor (GSP).")
    _sig("no-driver", ("supported by open", "required gpu system processor"),
         r"is not supported by open(?: nvidia\.ko)?\b|does not include the required GPU System Processor",
         why="open-module"),
    # the package manager stopping while it installs the driver's package (a file another package owns, a
    # package left half-configured): "dpkg: error processing archive
    # .../nvidia-440_440.64.00-0ubuntu1_amd64.deb (--unpack):", "dpkg: error processing package
    # nvidia-driver-390 (--configure):"
    _sig("no-driver", "dpkg: error processing",
         r"dpkg: error processing (?:archive|package) \S{0,200}?"
         r"\bnvidia-(?:driver|kernel|utils|\d{3}(?![\d.]))",
         why="package"),
    # Debian's nvidia-detect: no driver release the distribution has supports this GPU (a newer GPU)
    _sig("no-driver", "not supported by any driver version",
         r"card is not supported by any driver version up to (\d{3}(?:\.\d{1,3}){1,2})", ("newest",),
         why="gpu-unsupported"),
    # the kernel driver is loaded but could not take on the GPU (nvidia-smi then finds no devices)
    _sig("no-driver", ("rminitadapter failed", "rm_init_adapter failed", "is not supported by the nvidia",
                       "probe routine failed", "none of the nvidia devices"),
         r"RmInitAdapter failed|rm_init_adapter failed|\bGPU .{0,80} is not supported by the NVIDIA "
         r"[\d.]{1,20} driver release|"
         # ... its probe failing for every GPU ("NVRM: The NVIDIA probe routine failed for 1 device(s)." and
         # "NVRM: None of the NVIDIA devices were initialized.")
         r"NVIDIA probe routine failed for \d{1,2} device|None of the NVIDIA devices were initialized",
         why="adapter"),
    # the container toolkit inside WSL finding no GPU that Windows passes in (WSL 1, or no GPU support)
    _sig("no-driver", "no adapters were found", r"WSL environment detected but no adapters were found",
         why="wsl-no-gpu"),
    _sig("no-driver", "probe routine was not called", r"NVIDIA probe routine was not called", why="nouveau"),
    _sig("no-driver", "nouveau",
         r"\bnouveau\b.{0,80}(?:loaded|probe|fifo|fb:|(?<!\w)DRM\b|detected|kernel driver in use)|"
         r"(?:Kernel driver in use|module)\W{0,4}nouveau|^nouveau\s+\d", why="nouveau"),
    _sig("no-driver", "libcuda", r"libcuda reported version is: Not found|Failed to find libcuda",
         why="libcuda"),
    # --- containers: the runtime that hands the host's GPU and driver to a container ---------------
    # docker without the NVIDIA runtime (--gpus needs the container toolkit), podman/CDI without a spec
    _sig("no-driver",
         ("[[gpu", "unknown or invalid runtime name", "unknown runtime specified"),
         # (Docker prints the capability sets asked for as [[gpu]]; a person retelling it keeps that)
         r"could not select device driver \\{0,3}\"\w{0,20}\\{0,3}\" with capabilities: "
         r"\[\[gpu[\w ]{0,40}\]\]|capabilit[^\n]{0,30}\[\[gpu[\w ]{0,40}\]\]|"
         r"unknown or invalid runtime name: nvidia|Unknown runtime specified nvidia",
         why="container-runtime"),
    # the toolkit's own request to the host's driver failing (WSL 2 on a Windows or Docker Desktop release
    # that passes it no GPU; a Linux driver not running): "initialization error: driver error: failed to
    # process request"
    _sig("no-driver", "initialization error: driver error",
         r"nvidia-container-cli: initialization error: driver error\b", why="toolkit-driver"),
    _sig("no-driver", "cdi device",
         r"unresolvable CDI devices?|failed to inject CDI devices|CDI device injection failed", why="cdi"),
    # the toolkit refuses an image whose CUDA needs a newer host driver (NVIDIA_REQUIRE_CUDA: "cuda>=N"
    # and its exceptions "brand=tesla,driver>=418,driver<419"): the condition it names is the last one
    # it tried, so "brand = tesla" too means this driver is older than the image's CUDA needs
    _sig("container-cuda", "unsatisfied condi",
         r"(?:--require=cuda>=(\d{1,2}\.\d{1,2})[^\n]{0,600}?)?requirement error: unsatisfied condi(?:tion:"
         r"\s{0,2}(?:cuda\s{0,2}>=?\s{0,2}(\d{1,2}\.\d{1,2})|brand|driver|arch)|\W{0,8}$)",  # or wrapped here
         ("need", "need")),
    # the toolkit's own detection calling an NVML function the host driver's NVML lacks: the toolkit needs
    # driver >= 418.81.07 (https://github.com/NVIDIA/nvidia-docker/issues/1681)
    _sig("container-cuda", "function not found",
         r"nvidia-container-cli: detection error: nvml error: function not found", why="toolkit"),
    # nvidia-docker 1.0's own check of the image's CUDA against the driver's
    _sig("container-cuda", "unsupported cuda version",
         r"unsupported CUDA version: driver (\d{1,2}\.\d{1,2}) < image (\d{1,2}\.\d{1,2})", ("has", "need")),
    # the CUDA toolkit's link-time stub libcuda reached at run time (ldd/ldconfig, LD_LIBRARY_PATH)
    _sig("stub-libcuda", "stubs",
         r"libcuda\.so(?:\.1)?\s{0,4}(?:\([^)]{0,40}\)\s{0,4})?=>\s{0,4}\S{0,200}/stubs/libcuda\.so|"
         r"(?:^|[=:\s])/\S{0,120}/lib(?:64)?/stubs/?(?::|\s|$)"),
    # a tool's NVML autodetection finding MIG on and no instance (slurmd's gres/gpu plugin)
    _sig("mig-empty", "mig mode is enabled", r"MIG mode is enabled, but no MIG devices were found"),
    # the container toolkit asked for a GPU (--gpus device=N, NVIDIA_VISIBLE_DEVICES) the host does not have
    _sig("unknown-device", "unknown device",
         r"nvidia-container-cli: device error: (\S{1,80}?): unknown device", ("device",)),
    # the toolkit cannot mount the host's driver file (a library, nvidia-smi, ...) over the image's own copy:
    # every file it injects is the driver's
    _sig("image-driver-lib", "file exists",
         r"file creation failed: [^\s:]{0,300}?/([\w.+-]{1,80}): file exists", ("library",)),
    # a Dockerfile installing NVIDIA's user-space driver into the image (the distro's nvidia-cuda-toolkit
    # pulls libnvidia-compute, the `cuda` metapackage cuda-drivers): the image then has its own libcuda
    _sig("image-driver-package", "run ",
         # (lookaheads at the start only: the system's package manager installing, not removing; conda's
         # and pip's `cuda` packages bring no driver)
         r"^RUN\b(?=[^\n]{0,2000}\b(?:apt-get|apt|yum|dnf|microdnf|zypper)\s[^\n]{0,100}\binstall\b)"
         r"(?![^\n]{0,2000}\b(?:remove|purge|autoremove)\b)"
         r"[^\n]{0,2000}?(?<=[\s'\"])"
         r"(nvidia-cuda-toolkit|cuda-drivers(?:-\d{3})?|nvidia-driver-\d{3}(?:-server)?|libnvidia-compute-\d{3}|"
         r"nvidia-utils-\d{3}|libnvidia-ml\d?|cuda(?:-\d{1,2}-\d)?)(?![\w.-])", ("package",)),
    # a person saying they installed an NVIDIA driver inside the container or image ("Installed same version
    # nvidia driver in docker"): the image then carries a user-space driver of its own
    _sig("image-driver-package", ("driver in", "driver inside", "driver into", "drivers in", "drivers inside",
                                  "drivers into"),
         r"\binstall(?:ed|ing|s)?\b[^.,;\n]{0,30}?\b(nvidia[ -](?:gpu[ -])?drivers?)\b[^.,;\n]{0,20}?"
         r"\b(?:in|inside|into|within)\s(?:the\s|a\s|my\s|this\s|our\s)?(?:docker|container|image)\b",
         ("package",), said=True),
    # NVIDIA's container images checking the GPUs they were given at start (their entrypoint): none, or none
    # their CUDA build supports
    _sig("image-gpu-check", "no supported gpu(s) detected",
         r"No supported GPU\(s\) detected to run this container"),
    # NVML failing to start with no reason given ("Error: Failed to initialize NVML"): beside CUDA's
    # "insufficient driver", no driver is reachable at all (tfdoctor/checks/driver.py)
    _sig("nvml-init-failed", "failed to initialize nvml", r"Failed to initialize NVML\W{0,3}$"),
    # --- user-space driver library and kernel module disagree ------------------------------------
    _sig("lib-mismatch", "mismatch",
         r"Driver ?/ ?library version mismatch|"
         r"API mismatch: the NVIDIA kernel module"
         r"(?: has version (\d{3}\.\d{1,3}(?:\.\d{1,3})?))?"
         r"(?:.{0,80}?component has version (\d{3}\.\d{1,3}(?:\.\d{1,3})?))?",
         ("kernel", "library")),
    # a part of the user-space driver (named with its version) missing: half of a driver update
    _sig("driver-part", ("libnvidia-", "cannot open shared object"),
         r"(libnvidia-[a-z-]{2,40}\.so\.(\d{3}\.\d{2,3}(?:\.\d{2})?)): cannot open shared object",
         ("library", "version")),
    _sig("lib-mismatch", "does not match dso version",
         r"kernel version (\d{3}\.\d{1,3}(?:\.\d{1,3})?) does not match DSO version "
         r"(\d{3}\.\d{1,3}(?:\.\d{1,3})?)",
         ("kernel", "library")),
    # --- CUDA's initialisation (its error codes: tfdoctor/logs/codes.py) ----------------------------
    _sig("cuinit", "cuinit", r"(?:failed call to|call to) cuInit(?: result)?:? ?(.{0,160})", ("rest",)),
    # XLA's words (older releases name ptxas's CUDA); a wrapped paste may cut the driver's version
    _sig("driver-cuda-older", "older than the ptx",
         r"(?:driver's CUDA version is (\d{1,2}\.\d{1,2}) )?which is older than the "
         r"(?:PTX compiler version|ptxas CUDA version) \(?(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)",
         ("driver_cuda", "need")),
    # XLA when the driver's linker refuses the code its newer ptxas produced
    _sig("driver-cuda-older", "culinkadddata fails",
         r"cuLinkAddData fails\. This is usually caused by stale driver version"),
    # (NVIDIA's banner breaks the sentence after "but": the version detected is then on the next line)
    _sig("ngc-driver", "this container was built for nvidia driver",
         r"built for NVIDIA Driver Release (\d{3}(?:\.\d{1,3})?) or later, "
         r"but(?:\s{1,8}version (\d{3}\.\d{1,3}(?:\.\d{1,3})?) was detected|\s{0,8}$)", ("need", "have")),
    # --- cuDNN, cuBLAS ------------------------------------------------------------------------------
    # the second anchor: a paste that broke "CuDNN l|ibrary" across lines
    _sig("cudnn-version", ("cudnn library", "source was compiled with", "source was compiled against"),
         r"(?<![\d.])(\d[\d.]{0,12})(?:\s{0,4}\(compatibility version \d{1,8}\))?"
         r"\s{0,4}but (?:the )?source was compiled (?:with|against):?\s{0,4}(\d[\d.]{0,12}\d)",
         ("loaded", "compiled")),
    # the same message cut before the version compiled with: TensorFlow prints "Loaded runtime CuDNN library"
    # only when the two disagree (the signature above reads the whole message first)
    _sig("cudnn-version", "loaded runtime cudnn library",
         r"Loaded runtime CuDNN library:?\s{0,4}(\d[\d.]{0,12}\d)", ("loaded",)),
    # another function missing from the cuDNN that was loaded ("could not find
    # cudnnConvolutionBackwardFilter_v2 in cudnn DSO; dlerror: ..."): a cuDNN of another release
    _sig("cudnn-version", "cudnn dso", r"(?<!\w)(?!cudnnCreate\b)(\w{4,60}) (?:in )?cudnn DSO;? dlerror",
         ("symbol",)),
    # XLA's own check of the cuDNN it loaded (JAX, TensorFlow's XLA): on one line, or a heading whose
    # versions follow on lines of their own (tfdoctor/logs/__init__.py reads them)
    _sig("cudnn-version", "found cudnn version",
         r"Found cuDNN version (\d[\d.]{0,12}), but [\w ]{1,30} built against (?:version )?(\d[\d.]{0,12}\d)",
         ("loaded", "compiled")),
    _sig("cudnn-version", "outdated cudnn installation", r"Outdated cuDNN installation found"),
    # PyTorch's own check of the cuDNN it loaded: "cuDNN version incompatibility: PyTorch was compiled against
    # (8, 7, 0) but found runtime version (8, 6, 0)" ("linked against" in older releases)
    _sig("cudnn-version", "pytorch was compiled",
         r"PyTorch was compiled\s{1,3}against \((\d{1,2}(?:, \d{1,3}){1,2})\) but (?:found runtime version|"
         r"linked against) \((\d{1,2}(?:, \d{1,3}){1,2})\)", ("compiled", "loaded"), framework="torch"),
    # PaddlePaddle's own check: "The installed Paddle is compiled with CUDNN 7.6, but CUDNN version in your
    # machine is 7.4, which may cause serious incompatible bug."
    _sig("cudnn-version", "cudnn version in your machine",
         r"is compiled with CUDNN (\d{1,2}(?:\.\d{1,3}){0,2}), but CUDNN version in your machine is"
         r" (\d{1,2}(?:\.\d{1,3}){0,2})\b", ("compiled", "loaded")),
    # ... as PyTorch 0.4 and 1.0 printed it, cuDNN's integer version ("cuDNN version mismatch: PyTorch was
    # compiled against 7102 but linked against 7301")
    _sig("cudnn-version", "pytorch was compiled",
         r"PyTorch was compiled\s{1,3}against (\d{4,5}) but (?:found runtime version|linked against)"
         r" (\d{4,5})\b",
         ("compiled", "loaded"), framework="torch"),
    # JAX's (XLA's) check of the other CUDA libraries it loaded: "Found cuBLAS version 120205, but JAX was
    # built against version 120304, which is newer"
    _sig("lib-version", "but jax was built against",
         r"Found (CUDA|cuBLAS|cuFFT|cuSPARSE|cuSOLVER|CUPTI|NCCL) version (\d{4,8}|\d[\d.]{0,12}), but JAX"
         r" was built against version (\d{4,8}|\d[\d.]{0,12}), which is newer",
         ("library", "loaded", "compiled")),
    _sig("cudnn-failed", ("cudnn handle", "dnn library initialization failed", "cudnn failed to initialize",
                          "cudnn launch failure", "get convolution algorithm", "no algorithm worked",
                          "best cudnn convolution algorithm", "find the dnn implementation",
                          "getconvolvealgorithms", "all algorithms tried for convolution"),
         r"Could not create cudnn handle|DNN library initialization failed|cuDNN failed to initialize|"
         r"cuDNN launch failure|Failed to get convolution algorithm|"
         # XLA's and TensorFlow's autotuner: no cuDNN algorithm could run (a workspace that did not fit)
         r"No algorithm worked|Failed to determine best cudnn convolution algorithm|"
         r"Fail to find the dnn implementation|"
         # TensorFlow 1.x's own check that cuDNN listed its algorithms; XLA's autotuner with none that ran
         r"Check failed: stream->parent\(\)->GetConvolveAlgorithms|All algorithms tried for convolution",
         status="INIT"),
    _sig("cublas-failed", ("cublas", "blas"),
         r"failed to create cublas(?: handle)?\b|"
         r"(?:Blas |\b)\w{0,12}GEM[MV](?:Batched|StridedBatched)? launch failed|"
         r"BLAS operation using StreamExecutor without BLAS support|"
         r"cublas (?:handle|library) (?:was )?not initialized"),
    # a kernel's own assertion failing on the device (PyTorch's index checks: "block: [109,0,0], thread:
    # [33,0,0] Assertion `srcIndex < srcSelectDimSize` failed."): cudaErrorAssert, the program's error, and
    # every CUDA call after it fails with it (the context is lost)
    _sig("cuda-error", "assertion `",
         r"block: \[\d{1,6}, ?\d{1,6}, ?\d{1,6}\],? thread: \[\d{1,6}, ?\d{1,6}, ?\d{1,6}\],? Assertion `",
         code="cudaErrorAssert", error="ASSERT", reason="program"),
    # a GPU's uncorrectable ECC error as a person names it (CUDA_ERROR_ECC_UNCORRECTABLE's own words end in
    # "encountered": the error codes read that)
    _sig("cuda-error", "uncorrectable ecc",
         r"(?<!no )(?<!zero )\buncorrectable ECC errors?\b(?! encountered)",
         error="ECC_UNCORRECTABLE", code="CUDA_ERROR_ECC_UNCORRECTABLE"),
    # a person saying the GPU computes wrongly: no error, but a model that does not learn or noise for images
    # (judged only where the GPU is newer than TensorFlow's CUDA: its libraries' kernels misbehave there)
    _sig("wrong-results", ("learn", "noisy", "garbage", "nonsense"),
         r"\b(?:model|network|net|training|it)\b[^.\n]{0,30}?"
         r"\b(?:does not|doesn't|did not|didn't|won't|will not) learn\b|"
         r"\b(?:totally |all |completely )?(?:noisy|garbage|nonsense) (?:images?|outputs?|results?)\b|"
         r"\b(?:generated|outputs?|results?|images?) (?:are |is )?(?:generated )?"
         r"(?:totally |all |completely )?(?:noisy|garbage|nonsense)\b"),
    # ... or a loss that turns NaN (the person's words, or TensorFlow's CheckNumerics on the loss)
    _sig("wrong-results", ("loss nan", "loss is nan", "loss: nan", "loss:nan", "loss = nan", "loss=nan",
                           "loss is inf or nan", "loss becomes nan", "loss goes to nan", "loss turns nan",
                           "loss is always nan", "loss always nan", "nan loss"),
         r"\bloss(?: is| becomes| goes to| turns)?(?:\s?[=:])?\s?(?:always )?(?:NaN|inf or nan)\b|"
         r"\bNaN loss\b"),
    # --- memory -----------------------------------------------------------------------------------
    _sig("oom", ("oom", "exhausted", "out of memory", "failed to allocate", "dst tensor is not initialized",
                 "outofmemoryerror", "om when allocating tensor", "bytes unified memory"),
         r"\bO?OM when allocating|ResourceExhaustedError|RESOURCE_EXHAUSTED|Resource exhausted|"
         r"Cuda failure '?out of memory|"  # (NCCL's CUDACHECK: its buffers found no GPU memory)
         # PyTorch's caching allocator (torch.cuda.OutOfMemoryError since 1.13)
         r"\bCUDA out of memory\. Tried to allocate|\bcuda\.OutOfMemoryError\b|"
         # CuPy's memory pool ("cupy.cuda.memory.OutOfMemoryError: out of memory to allocate 124928 bytes")
         r"\bOutOfMemoryError: out of memory to allocate \d|"
         # copying an input to a GPU that has no memory left for it
         r"Dst tensor is not initialized|"
         r"Out of memory while trying to allocate|"
         # XLA's PjRt client placing a constant of the program on the GPU ("Failed to allocate 50331648 bytes
         # for new constant")
         r"Failed to allocate \d{1,15} bytes for new constant|"
         # StreamExecutor's unified-memory allocation (JAX, XLA) refused, its result cut off or not
         r"failed to alloc \d{1,15} bytes unified memory|"
         # (not an empty buffer: "failed to allocate 0B (0 bytes) from device: CUDA_ERROR_INVALID_VALUE")
         r"failed to allocate (?!0B )[\d.]{1,12}[KMGT]? \((\d{1,15}) bytes\) from device|"
         r"failed to allocate (?!0B )(?!0 bytes).{1,40} from device", ("bytes",)),
    # XLA's report of the buffers live when an allocation failed (JAX, TensorFlow with XLA): printed only on
    # out-of-memory ("Peak buffers:", then "Buffer 1: Size: ... XLA Label: fusion ... Shape: ...")
    _sig("oom", ("xla label:", "peak buffers:"), r"^(?:XLA Label: [\w-]{2,40}|Peak buffers:)\s{0,4}$"),
    # PyTorch's cudaMallocAsync allocator out of memory ("Allocation on device 0 would exceed allowed memory.
    # (out of memory)"), shown cut to its first words by front ends' error reports (ComfyUI's title)
    _sig("oom", "allocation on device",
         r"^(?:[#*\s]{0,4}|[\w.]{0,40}OutOfMemoryError: )Allocation on device"
         r"(?: \d{1,3} would exceed|\s{0,3}$)"),
    # cuDNN finding no memory for an algorithm's workspace, and cuFFT for a plan's
    _sig("oom", ("scratch space", "cufft batched plan"),
         r"CUDNN failed to allocate the scratch space|"
         r"Failed to make cuFFT batched plan|"
         r"failed to initialize batched cufft plan with customized allocator"),
    # the BFC allocator's dump, printed only when an allocation failed: it may be all a paste shows
    # (its "ran out of memory ... The caller indicates that this is not a failure" warning is not)
    _sig("oom", ("total chunks", "sum total of in-use chunks", "see logs for memory state",
                 "current allocation summary", "requested by op", "bfcallocator dump for",
                 " of size ", "largestfreeblock"),
         r"^Bin \(\d{1,12}\):\s{0,20}Total Chunks: \d|^Sum Total of in-use chunks|^BFCAllocator dump for|"
         # (its closing statistics: "Limit: ... InUse: ... LargestFreeBlock: 0")
         r"^LargestFreeBlock:\s{1,40}\d{1,20}\s{0,4}$|"
         r"^(?:InUse|Free) at [0-9a-fA-F]{6,16} (?:next -?\d{1,12} )?of size \d|"
         # (the dump's older forms, TensorFlow 1.x)
         r"^\d{1,12} Chunks of size \d{1,16} totalling|^Chunk at (?:0x)?[0-9a-fA-F]{6,16} of size \d|"
         r"ran out of memory trying to allocate [^\n]{0,80}?(?:See logs for memory state|"
         r"Current allocation summary|requested by op)"),  # (a paste cut inside "follows")
    # the allocator's failing warning cut where the dump would follow (its benign form goes on, on the
    # same line, to say the caller does not treat it as a failure: a named notice, never evidence)
    # a person saying a run failed for lack of memory ("fails with an out of memory issue", "Encountering OOM
    # issues", "training ran out of GPU memory")
    _sig("oom", ("oom", "out of memory", "out-of-memory", "out of gpu memory"),
         r"\b(?:fails?|failed|failing|crash(?:es|ed)?|dies|died|stops?|stopped|abort(?:s|ed)?)\b[^.\n]{0,40}?"
         r"\b(?:OOM|out[- ]of[- ](?:GPU )?memory)\b|"
         r"\b(?:encounter(?:ing|ed|s)?|get|getting|hitting|having|running into)\b[^.\n]{0,20}?"
         r"\b(?:OOM|out[- ]of[- ](?:GPU )?memory)[\"'`]?"
         r"(?: errors?| issues?| problems?| messages?| conditions?)|"
         r"\b(?:ran|runs) out of (?:GPU )?memory\b|"
         # PyTorch's error named in a title or a sentence, without its "Tried to allocate"
         r"\bCUDA out of memory\b", said=True),
    _sig("oom", "ran out of memory trying to allocate",
         r"ran out of memory trying to allocate \d{1,9}(?:\.\d{1,4})?\s{0,2}[KMGT]?i?B\.?\s{0,4}$"),
    # a person saying another (or a dead) process keeps GPU memory: "memory is not deallocated" after
    # Ctrl-C, "a zombie process keeps occupying the GPU memory", "I had Jupyter opened in another tab"
    _sig("held-said", ("not released", "not freed", "not deallocated", "not being released", "been released",
                       "been freed", "been deallocated",
                       "not being freed", "release the memory", "free the memory", "deallocate", "zombie",
                       "occupying", "another tab", "another notebook", "other notebook", "another kernel",
                       "memory cache", "killing", "closing", "shutting down", "restarting", "not running",
                       "is closed", "was closed", " notebooks", " kernels", " instances", "occupied",
                       "used by other", "used by another"),
         r"\bmemory\b[^.\n]{0,40}?\b(?:(?:is|was|are|were|isn't|wasn't|gets?|got)?\s?not (?:being |been )?|"
         r"(?:hasn't|haven't|hadn't) been |(?:has|have|had) not been )(?:released|freed|deallocated)\b|"
         r"\b(?:does not|doesn't|did not|didn't|won't|will not|never)\s(?:release|free|deallocate)\b"
         r"[^.\n]{0,40}?\bmemory\b|"
         r"\bzombie\b[^.\n]{0,60}?\b(?:occupy|occupies|occupying|holds?|holding|keeps?|using)\b|"
         # "4 GPUs on the server, 3 of them are occupied", "the GPU is used by other users"
         r"\b(?:\d{1,2}|some|most|all|several|others?) of (?:them|the (?:GPUs|gpus|cards))\s(?:are|is|were)\s"
         r"(?:already\s)?(?:occupied|used by others|in use by others)\b|"
         r"\b(?:GPUs?|gpus?|cards?)\b[^.\n]{0,30}?\b(?:occupied|used) by (?:other|another) "
         r"(?:users?|people|process(?:es)?|jobs?|programs?)\b|"
         r"\b(?:Jupyter|notebook|kernel)\b[^.\n]{0,40}?\b(?:in )?another (?:tab|window|terminal)\b|"
         r"\bempty the memory cache\b|"
         # "it was caused because I was opening multiple notebooks"
         r"\b(?:open(?:ing|ed)?|running|ran|had|have) (?:multiple|several|two|many|other|more than one) "
         r"(?:jupyter |ipython )?(?:notebooks|kernels|instances)\b(?! of (?:the )?(?:model|class|layer))|"
         # "all works when the app is not running": another program's GPU memory
         r"\b(?:works?|worked|runs?|ran)\b[^.\n]{0,30}?\bwhen (?:the |my |that |this )?"
         r"[\w-]{1,20}(?: [\w-]{1,20})? (?:is|was) (?:not running|closed)\b|"
         # "I ran it again after killing the notebook and it worked"
         r"\b(?:after|by|once)\s(?:I\s)?(?:killing|closing|shutting down|restarting)\s"
         r"(?:the|my|that|all|an?)\s(?:other\s|running\s|old\s|previous\s|idle\s)?(?:jupyter\s|ipython\s)?(?:notebook|kernel|process)"),
    _sig("memory-free", "freememory",
         r"totalMemory:\s{0,3}(\d{1,6}(?:\.\d{1,3})?)\s{0,2}([GM]i?B)\s{1,4}freeMemory:\s{0,3}(\d{1,6}(?:\.\d{1,3})?)"
         r"\s{0,2}([GM]i?B)", ("total", "total_unit", "free", "free_unit")),
    _sig("ctx-oom", ("ctxretain", "ctxcreate", "create context", "context", "implicit initialization"),
         r"(?:cuDevicePrimaryCtxRetain|cuCtxCreate|create (?:a )?(?:CUDA )?context|"
         r"implicit initialization on GPU:\d{1,3} failed)[^\n]{0,80}?(?:OUT_OF_MEMORY|out of memory)"),
    # TensorFlow could not create its CUDA context at all (the reason, when printed, is read by its code)
    _sig("ctx-fail", ("cudeviceprimaryctxretain", "failed initializing streamexecutor"),
         r"failed call to cuDevicePrimaryCtxRetain|failed initializing StreamExecutor for CUDA device"),
    _sig("memory-total", "total memory", r"^Total memory:?\s{0,3}(\d{1,6}(?:\.\d{1,3})?)\s{0,2}([GM])i?B",
         ("total", "total_unit")),
    _sig("memory-free", "free memory",
         r"^Free memory:?\s{0,3}(\d{1,7}(?:\.\d{1,3})?)\s{0,2}([GM])i?B\s{0,3}$",
         ("free", "free_unit")),
    _sig("memory-free", "free memory",
         r"Free memory:?\s{0,3}(\d{1,7}(?:\.\d{1,3})?)\s{0,2}([GM]i?B) of"
         r"\s{0,3}(\d{1,7}(?:\.\d{1,3})?)\s{0,2}([GM]i?B)",
         ("free", "free_unit", "total", "total_unit")),
    # PyTorch's out-of-memory message: the GPU's memory, what is free, and what this process holds ("(GPU 0;
    # 47.54 GiB total capacity; 194.45 MiB already allocated; 4.88 MiB free; 686.00 MiB reserved in total by
    # PyTorch)", before 1.5 "... already allocated; ... free; 30.96 MiB cached", where cached is what it holds
    # beyond what is allocated; since 2.1 "GPU 0 has a total capacity of 79.15 GiB of which 10.44 MiB is free.
    # ... this process has 79.13 GiB memory in use"): the rest is other processes'
    _sig("memory-free", "total capacity",
         rf"({_AMOUNT}) total capacity;\s{{0,3}}(?:({_AMOUNT}) already allocated;)?"
         rf"(?:[^;)\n]{{1,40}};){{0,3}}?\s{{0,3}}({_AMOUNT}) free;(?:[^;)\n]{{1,40}};)?\s{{0,3}}({_AMOUNT})"
         rf" (?:reserved in total by PyTorch|(cached))", ("total", "allocated", "free", "own", "cached")),
    _sig("memory-free", "total capacity of",
         rf"total capacity of ({_AMOUNT}) of which ({_AMOUNT}) is free\.[^\n]{{0,600}}?"
         rf"this process has ({_AMOUNT}) memory in use", ("total", "free", "own")),
    # the GPU's memory when cuDNN failed to start, as TensorFlow's and XLA's cuDNN code report it ("Memory
    # usage: 42069065728 bytes free, 42505273344 bytes total."): free then, whoever allocated the rest
    _sig("cudnn-report", "memory usage:", r"Memory usage: (\d{1,15}) bytes free, (\d{1,15}) bytes total",
         ("free", "total")),
    # ... and the kernel driver's version after it (the version itself is read as a value, in
    # tfdoctor/logs/values.py: RE_POSSIBLY_DRIVER)
    _sig("cudnn-report", "possibly insufficient driver version", r"Possibly insufficient driver version:"),
    # --- kernels for this GPU -----------------------------------------------------------------------
    _sig("cc-jit", "kernel binaries compatible",
         r"not built with CUDA kernel binaries compatible with compute capability (\d{1,2}\.\d)", ("cc",)),
    _sig("cc-ignored", "minimum required cuda capability",  # ("...with Cuda c" may end the line before)
         r"ompute capability (\d{1,2}\.\d)\.? The minimum required Cuda capability is (\d{1,2}\.\d)",
         ("cc", "minimum")),
    # its second sentence alone (the first wrapped onto the line before, or a title quoting it)
    _sig("cc-ignored", "minimum required cuda capability",
         r"(?:^|\.\s{1,3})The minimum required Cuda capability is (\d{1,2}\.\d)", ("minimum",)),
    # the same refusal as a program words it when it finds no GPU at the build's minimum
    _sig("cc-ignored", "with minimum required compute capability",
         r"No (?:CUDA )?(?:device|GPU)s? (?:was |were )?found with (?:a )?minimum required compute capability"
         r"(?: of)? (\d{1,2}\.\d)", ("minimum",)),
    # a program naming the GPU it refuses ("Tesla K40m does not meet minimum required compute capability: 3.7.
    # Falling back to CPU mode.")
    _sig("cc-ignored", "minimum required compute capability",
         r"does not meet (?:the )?minimum required (?:CUDA )?compute capability:? (\d{1,2}\.\d)",
         ("minimum",)),
    # PyTorch's warning for a GPU outside its build ("Found GPU0 NVIDIA GeForce GTX 1070 Ti which is of
    # compute capability (CC) 6.1. The following list shows the CCs this version of PyTorch was built for",
    # older: "... which is of cuda capability 3.5. PyTorch no longer supports this GPU because it is too old")
    _sig("cc-ignored", ("which is of cuda capability", "which is of compute capability"),
         r"Found GPU\d{1,2} .{1,80}? which is of (?:cuda|compute) capability (?:\(CC\) )?(\d{1,2}\.\d)",
         ("cc",)),
    _sig("cc-ignored", "pytorch no longer supports this gpu", r"PyTorch no longer supports this GPU"),
    # PaddlePaddle's own check ("The GPU architecture in your current machine is Ampere, which is not
    # compatible with Paddle installation with arch: 60 61 70 75")
    _sig("cc-ignored", "which is not compatible with paddle",
         r"GPU architecture in your current machine is \w{2,20}, which is not compatible with Paddle"
         r" installation with arch"),
    # TensorFlow's ROCm build ignoring an AMD GPU whose architecture (gfx target) it has no code for, or the
    # HIP runtime finding none for it (hipErrorNoBinaryForGpu, where TensorFlow aborts)
    _sig("rocm-arch", "with amdgpu version",
         r"Ignoring visible gpu device .{0,200}?with AMDGPU version\s{0,2}:\s{0,2}(gfx\w{3,6})",
         ("arch",)),
    _sig("rocm-arch", "hiperrornobinaryforgpu", r"hipErrorNoBinaryForGpu"),
    # PyTorch's refusal of a GPU its build has no kernels for ("... with CUDA capability sm_120 is not
    # compatible with the current PyTorch installation")
    _sig("ptx-target", "is not compatible with the current",
         r"with CUDA capability sm_(\d{2,3}) is not compatible with the current", ("target",)),
    # ... its last sentence alone, where the rest was cut ("If you want to use the NVIDIA GeForce RTX 3090 GPU
    # with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/")
    _sig("ptx-target", "gpu with pytorch, please check the instructions",
         r"If you want to use the .{1,80}? GPU with PyTorch, please check the instructions"),
    # NVRTC, CUDA's runtime compiler (PyTorch's fuser, CuPy), not knowing the GPU's architecture:
    # the CUDA it ships predates the GPU ("nvrtc: error: invalid value for --gpu-architecture (-arch)")
    _sig("ptx-target", "invalid value for --gpu-architecture",
         r"nvrtc: error: invalid value for --gpu-architecture"),
    _sig("ptx-target", ("does not support target", "minimum required ptx"),
         r"PTX version (\d{1,2}\.\d) does not support target '?sm_(\d{2,3}[af]?)|"
         r"Minimum required PTX version "
         r"(?:is )?(\d{1,2}\.\d)", ("ptx", "target", "minimum")),
    # --- XLA's toolchain ----------------------------------------------------------------------------
    _sig("xla-tools", "libdevice",
         r"libdevice not found|libdevice is required by this HLO module but was not found|"
         r"Can't find libdevice directory|Couldn't find libdevice|"
         # ... in a person's words ("fails by not finding libdevice", "it cannot find libdevice")
         r"\b(?:not finding|(?:can ?not|can't|could not|couldn't|unable to|does not|doesn't) find)"
         r" (?:the )?libdevice\b", what="libdevice"),
    _sig("xla-tools", ("ptxas", "ptx compilation provider"),
         r"Couldn't (?:get ptxas version|invoke ptxas|find ptxas)|ptxas (?:binary )?not found|"
         r"Failed to launch ptxas|ptxas'?:? (?:command )?not found|No PTX compilation provider is available|"
         r"Can't find ptxas binary", what="ptxas"),
    # TensorFlow's check of the ptxas it found failing to run it ("Running ptxas --version returned 256")
    _sig("xla-tools", "running ptxas --version returned",
         r"Running ptxas --version returned [1-9]\d{0,5}", what="ptxas"),
    # TensorFlow's subprocess launcher finding no ptxas to run
    _sig("xla-tools", "cannot spawn child process",
         r"Start cannot spawn child process: No such file or directory", what="ptxas"),
    # TensorFlow on Windows runs ptxas through CreateProcess; error 2 is "file not found"
    _sig("xla-tools", "createprocess failed", r"CreateProcess failed\. Error code: 2\b", what="ptxas"),
    _sig("ptxas-old", "ptxas fatal", r"ptxas fatal\s{0,3}:\s{0,3}Value 'sm_(\d{2,3}[af]?)' is not def",
         ("target",)),  # (a paste may cut "defined")
    # nvcc itself refusing the GPU's architecture (a toolkit older than the GPU): "nvcc fatal : Value 'sm_89'
    # is not defined for option 'gpu-architecture'"
    _sig("ptxas-old", "for option 'gpu-architecture'",
         r"Value '(?:sm|compute)_(\d{2,3}[af]?)' is not defined for option 'gpu-architecture'", ("target",),
         tool="nvcc"),
    # ... in its other words ("nvcc fatal : Unsupported gpu architecture 'compute_86'"); an architecture of
    # before Kepler (compute_1x, 2.x: no CUDA toolkit since 9.0 and no TensorFlow build runs them) is the
    # GPU's, too old for everything (a build configured for the GPU it runs on)
    _sig("ptx-target", "unsupported gpu architecture",
         r"Unsupported gpu architecture '(?:sm|compute)_([12]\d)'", ("target",)),
    _sig("ptxas-old", "unsupported gpu architecture",
         r"Unsupported gpu architecture '(?:sm|compute)_([3-9]\d[af]?|1\d\d[af]?)'", ("target",),
         tool="nvcc"),
    # PyTorch's extension builder refusing a CUDA toolkit (CUDA_HOME's nvcc) of another release than its
    # CUDA ("The detected CUDA version (10.1) mismatches the version that was used to compile PyTorch
    # (11.3).")
    _sig("nvcc-differs", "mismatches the version that was used to compile",
         r"detected CUDA version \((\d{1,2}\.\d{1,2})\) mismatches the version that was used to compile"
         r"(?:\s{1,3}PyTorch \((\d{1,2}\.\d{1,2})\))?", ("have", "need")),
    _sig("ptxas-old", "but tf requires ptxas",
         r"You are using ptxas (\d[\w.]{0,12}),? but TF requires ptxas (\d[\w.]{0,12})", ("have", "need")),
    _sig("ptxas-old", "older than",
         r"You are using ptxas (\d{1,2}\.\d{1,2}(?:\.\d{1,4})?),? which is older than "
         r"(\d{1,2}\.\d{1,2}(?:\.\d{1,4})?)",
         ("have", "need")),
    # ptxas refusing PTX of a newer ISA than it knows (the compiler that wrote it is newer): "ptxas fatal :
    # Unsupported .version 8.4; current version is '8.2'"
    _sig("ptxas-old", "unsupported .version",
         r"Unsupported \.version (\d{1,2}\.\d{1,2}); current version is '(\d{1,2}\.\d{1,2})'",
         ("ptx_need", "ptx_have")),
    # XLA refusing a ptxas release it knows to miscompile ("ptxas 12.3.103 has a bug that we think can affect
    # XLA. Please use a different version.")
    _sig("ptxas-old", "has a bug that we think can affect xla",
         r"ptxas (\d{1,2}\.\d{1,2}(?:\.\d{1,4})?) has a bug that we think can affect XLA", ("have",),
         buggy=True),
    _sig("ptxas-old", ("ptxas too old", "ptxas does not support", "cuda software stack is old"),
         r"ptxas too old|ptxas does not support CC|Your CUDA software stack is old", soft=True),
    # --- NCCL -------------------------------------------------------------------------------------
    # (first: the same line's generic reading below adds nothing)
    # the collective could not even load NCCL ("Unable to load NCCL library. Multi-GPU collectives will not
    # work."): the nvidia-nccl wheel (or system libnccl) the build needs is missing
    _sig("nccl-error", "unable to load nccl", r"Unable to load NCCL library", why="library"),
    _sig("nccl-error", "nccl",
         r"NCCL (?:error|failure)|NCCL communication aborted|ncclCommInitRank failed|"
         r"NCCL operation \w{1,40}(?:\([^()\n]{0,120}\))? failed|"  # (XLA names the call with its arguments)
         r"nccl\w{0,20}\.cc:\d{1,6}\s{0,2}:?\s{0,2}(?:Internal|Unknown|Unavailable)\w{0,20}:"),
    # XLA naming the NCCL call that failed where it happened ("nccl_utils.cc:245: NCCL operation
    # ncclCommInitRank(comm.get(), nranks, ..."): the line exists only on a failure, even cut short
    _sig("nccl-error", "nccl operation", r"nccl\w{0,20}\.cc:\d{1,6}:?\s{0,2}NCCL operation nccl\w{1,40}\("),
    _sig("nccl-error", "ncclallreduce",
         r"\[\[\{{0,2}node [^\]]{0,120}?Nccl(?:AllReduce|Reduce|Broadcast|AllGather)"),
    _sig("nccl-warn", "nccl warn", r"\bNCCL WARN\b(.{0,160})", ("text",)),
    # NCCL's shared-memory transport without room in /dev/shm (a container's 64 MB default): "Error while
    # creating shared memory segment /dev/shm/nccl-pZafXL (size 7340384)", "failed to extend /dev/shm/..."
    _sig("nccl-error", "/dev/shm/nccl",
         r"(?:creating shared memory segment|failed to extend|unable to allocate shared memory|Cannot"
         r" allocate)[^\n]{0,40}?/dev/shm/nccl", why="shm"),
    # the kernel's IOMMU refusing a device's DMA (Intel VT-d "DMAR", AMD-Vi): GPU peer-to-peer traffic
    # through it faults, and NCCL's all-reduce hangs or fails (NCCL's troubleshooting guide: IOMMU, PCI ACS)
    _sig("nccl-error", ("dmar", "io_page_fault"),
         r"DMAR: \[DMA (?:Read|Write)\] Request device \[[0-9a-f:.]{4,16}\]|"
         r"AMD-Vi: Event logged \[IO_PAGE_FAULT",
         why="iommu"),
    # NCCL's own line shape, "host:pid:tid [dev] file.cu:150 WARN ..." (before NCCL 2.4 without "NCCL")
    _sig("nccl-warn", " warn ",
         r"[\w.-]{1,80}:\d{1,8}:\d{1,8} \[\d{1,3}\] (?:[\w/.-]{1,80}:\d{1,6} )?WARN (.{0,160})", ("text",)),
    # (a kernel look-up failing names the op's node in bare brackets after "<no registered kernels>"; XLA's
    # compiler having no kernel for it is the program's, a collective inside a jit-compiled function)
    _sig("nccl-unsupported", ("ncclallreduce", "ncclreduce", "ncclbroadcast", "ncclallgather"),
         r"No OpKernel was registered to support Op '?Nccl\w{0,20}|Op type not registered '?Nccl\w{0,20}|"
         r"No registered '?Nccl\w{0,20}'? OpKernel for '?(?!XLA_)|"
         r"^\[\[Nccl(?:AllReduce|Reduce|Broadcast|AllGather)\]\]"),
    _sig("nccl-unsupported", "nccl", r"NCCL is not (?:supported|available) on (?:Windows|this platform)"),
    # --- the cluster TensorFlow was told about (TF_CONFIG, a ClusterSpec) --------------------------
    _sig("cluster-config", ("was not defined in job", "is not a valid task_type", "task type must be worker"),
         r"Task (\d{1,6}) was not defined in job \\?\"?(\w{1,40})|"
         r"(\w{1,40}) is not a valid task_type in the cluster|"
         r"If \"cluster\" is not set in TF_CONFIG, task type must be WORKER",
         ("index", "job", "task_type"), problem="task"),
    # TensorFlow's own checks of TF_CONFIG (run_config.py, the distribution strategies' resolvers)
    _sig("cluster-config", ("must have one \"chief\" node", "must have one 'chief' node"),
         r"If \"?cluster\"? is set in TF_CONFIG, it must have one \"?chief\"? node", problem="config"),
    _sig("cluster-config", "could not parse port for local server",
         r"Could not parse port for local server from \"?([^\"\s]{0,80})", ("address",), problem="address"),
    # TensorFlow's gRPC server could not listen on its task's port: another task (or process) holds it
    _sig("cluster-config", ("address already in use", "could not start grpc server"),
         r"bind addr=\S{1,80}?:(\d{1,5}):? Address already in use|Could not start gRPC server",
         ("port",), problem="in-use"),
    # --- the GPU itself -----------------------------------------------------------------------------
    # the kernel's "NVRM: Xid (PCI:0000:9c:00): 48, ...", or a person's "Xid 48"
    _sig("xid", "xid", r"\bXid\b(?:.{0,40}?\):?)? ?(\d{1,3})\b", ("code",)),
    # DCGM's health and diagnostics (dcgm_errors.h: DCGM_FR_CLOCKS_EVENT_THERMAL, its older
    # DCGM_FR_CLOCK_THROTTLE_THERMAL, DCGM_FR_THERMAL_VIOLATIONS), and nvidia-smi -q's active slowdown
    _sig("thermal", ("thermal violation", "thermal slowdown"),
         r"(?:clocks? event|clock throttling) due to thermal violation in GPU (\d{1,3})|"
         r"thermal violations totaling [\d.]{1,12} seconds for GPU (\d{1,3})|"
         r"^\s{0,40}(?:HW|SW) Thermal Slowdown\s{0,40}:\s{0,5}Active\b", ("gpu", "gpu_total")),
    # DCGM's diagnostic (dcgm_errors.h: DCGM_FR_PERSISTENCE_MODE, code 29): "Persistence mode for GPU 0 is
    # disabled. Enable persistence mode by running ..."
    _sig("persistence-off", "persistence mode for gpu",
         r"Persistence mode for GPU (\d{1,3}) is disabled", ("gpu",)),
    _sig("gpu-lost", ("off the bus", "gpu is lost", "unable to determine the device handle", "reset required",
                      "reboot required", "requires reset", "disappearing", "dropping out", "dropping off",
                      "aer: can't recover"),
         # the kernel's "GPU has fallen off the bus", and a person's "falls"/"fell off the bus"
         # (NVML_ERROR_GPU_IS_LOST's words; not a program's "access to GPU is lost")
         r"\b(?:fallen|falls|fell|falling) off the bus|(?<!access to )(?<!access to the )GPU is lost|"
         # a person's words for a GPU that vanishes until a reboot ("Titan V keeps disappearing")
         r"\b(?:GPU|card|NVIDIA|Titan|Tesla|Quadro|RTX|GTX)\b.{0,40}?\b(?:keeps|kept)"
         r" (?:disappearing|dropping (?:out|off))\b|"
         r"Unable to determine the device handle for GPU|"
         # Xid 154 naming the recovery the GPU needs now (the driver's "GPU recovery action changed ... to
         # 0x1 (GPU Reset Required)"), nvidia-smi's "GPU requires reset"
         r"\bto 0x[0-9a-fA-F]{1,8} \((?:GPU Reset|Node Reboot) Required\)|\bGPU requires reset\b|"
         # the PCIe error handler giving up on the NVIDIA device ("nvidia 0000:03:00.0: AER: can't recover")
         r"^nvidia [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d: AER: can't recover"),
    # --- the CPU and the system's libraries ----------------------------------------------------------
    # SIGILL as shells print it (bash "Illegal instruction", zsh "illegal hardware instruction") and
    # Windows' STATUS_ILLEGAL_INSTRUCTION
    _sig("avx", ("illegal instruction", "illegal hardware instruction", "these aren't available",
                 "which your cpu", "0xc000001d", "-1073741795", "3221225501", "caught illegal operation",
                 "trap invalid opcode"),
         # (R's own words for SIGILL: " *** caught illegal operation ***"; the kernel's log of it: "traps:
         # python[4636] trap invalid opcode ip:... in libtensorflow_framework.so.1")
         # (not the GPU's: CUDA's "an illegal instruction was encountered", a person's "CUDA illegal
         # instructions")
         r"(?<!CUDA )(?<!GPU )Illegal (?:hardware )?instruction(?!s? was encountered)|"
         r"caught illegal operation|"
         r"trap invalid opcode [^\n]{0,200}? in (?:lib)?(?:_pywrap_)?tensorflow|"
         r"compiled to use \w{2,12}(?:\.\d)? instructions, but these aren't available|"
         # jaxlib's own check: "This version of jaxlib was built using AVX instructions, which your CPU
         # and/or operating system do not support"
         r"built using \w{2,12}(?:\.\d)? instructions, which your CPU|"
         r"0xC000001D|-1073741795|\b3221225501\b"),  # (0xC000001D signed, and unsigned)
    # SIGILL by its name or number: a process killed by signal 4, as a launcher reports it (Python's
    # subprocess and ROS: exit code -4; a shell or container engine: 128 + 4 = 132)
    _sig("avx", ("sigill", "signal 4", "code -4", "code: -4", "code=-4", "code 132", "code: 132", "code=132",
                 "status 132", "status -4"),
         r"\bSIGILL\b|\b(?:killed|terminated) by signal 4\b|"
         r"\b(?:exit(?:ed)?(?: with)?|return) ?(?:code|status)[ =:]{0,3}(?:-4|132)\b"),
    # a person's own reading of /proc/cpuinfo or the CPU's datasheet (AVX, not AVX2 or AVX-512)
    # NVIDIA's container images checking the CPU at start-up ("ERROR: This container was built for CPUs
    # supporting at least the AVX instruction set, but the CPU detected was ...")
    _sig("avx", "built for cpus supporting",
         r"built for CPUs supporting at least the AVX(?:2)? instruction set, but"),
    _sig("avx", ("support avx", "support the avx", "have avx", "have the avx"),
         r"\b(?:CPU|processor|machine|Xeon|Celeron|Pentium|Atom|Opteron)\b[^.\n]{0,80}?"
         r"(?:does not|doesn't|doesn’t|do not|don't|did not|didn't|cannot|can't) (?:support|have) (?:the )?"
         r"AVX(?![\w-])"),
    _sig("glibc", ("glibc", "glibcxx", "cxxabi"),
         r"(?:version [`'\\]{0,2}|\b)"
         r"(GLIBC(?:XX)?[_ ]\d{1,2}\.\d{1,2}(?:\.\d{1,2})?|CXXABI_\d\.\d{1,2}(?:\.\d{1,2})?)"
         r"[`\\']{0,2} not found",
         ("symbol",)),
    # musl's dynamic linker (Alpine) loading a library built for glibc: glibc's own loader, or its symbols,
    # are not there ("Error loading shared library ld-linux-x86-64.so.2: No such file or directory (needed by
    # .../libtensorflow.so.2)", "Error relocating ...: __memcpy_chk: symbol not found")
    _sig("glibc", ("error loading shared library ld-linux", "error relocating"),
         r"\bError loading shared library (ld-linux-[\w-]{1,20}\.so\.\d)\b|"
         r"\bError relocating [^:]{1,300}: ([\w.@]{1,80}): symbol not found", ("loader", "musl_symbol")),
    # the same in a person's words: "a missing dependency on GLIBCXX_3.4.21", "requires GLIBC_2.28"
    _sig("glibc", ("glibc", "glibcxx", "cxxabi"),
         r"\b(?:missing|requires?|required|needs?|needed)\b[^\n]{0,60}?\b"
         r"(GLIBC(?:XX)?_\d{1,2}\.\d{1,2}(?:\.\d{1,2})?|CXXABI_\d\.\d{1,2}(?:\.\d{1,2})?)\b",
         ("symbol",)),
    # ... or the library's release in words, as one the system lacks: "TensorFlow requires even newer
    # version glibc: 2.16", "it is looking for a GLIBC-2.16.so but can't find it", "the version of glibc
    # installed (2.12) is not new enough"
    _sig("glibc", "glibc",
         r"\brequires?\b[^.\n]{0,30}?\bnewer (?:version (?:of )?)?glibc\b(?:[\s:=-]{0,3}(\d\.\d{1,2})\b)?|"
         r"\blooking for\b[^.\n]{0,30}?\bglibc[\s_-]{0,2}(\d\.\d{1,2})(?:\.so)?[^.\n]{0,40}?"
         r"\b(?:can't|cannot|could not|couldn't|can not) find\b|"
         r"\bglibc\b(?:[^.\n]{0,60}?\((\d\.\d{1,2})\))?[^.\n]{0,40}?\b(?:is|was|are) "
         r"(?:not new enough|too old)\b|"
         # "it apparently requires glibc >2.17", "needs glibc >= 2.28"
         r"\b(?:requires?|needs?)\b[^.\n]{0,30}?\bglibc\s{0,2}(?:>=?|version)\s{0,2}(\d\.\d{1,2})\b",
         ("needs", "needs", "have", "needs")),
    # TensorFlow's own checks on a model's numbers (NanTensorHook, tf.debugging.check_numerics): the
    # training diverged; nothing about the installation
    _sig("stack-error", ("model diverged", "nanlossduringtraining", "tensor had nan", "tensor had inf"),
         r"Model diverged with loss = (?:NaN|-?inf)|NanLossDuringTrainingError|Tensor had (?:NaN|Inf) values",
         code="NaN or Inf in training", reason="numerics"),
    _sig("stack-error", ("cannot be modified after being initialized", "memory growth cannot differ",
                         "must be configured at program startup", "listed an invalid gpu id"),
         r"(?:Physical|Visible|Virtual|Logical) devices cannot be modified after being initialized|"
         r"Memory growth cannot differ between GPU devices|"
         # MultiWorkerMirroredStrategy created after the program already ran TensorFlow ops
         r"Collective ops must be configured at program startup|"
         # the session's visible_device_list naming a GPU id TensorFlow does not have ("-1", "3" of 2)
         r"'visible_device_list' listed an invalid (?:GPU|Device) id",
         code="GPU configuration refused", reason="order"),
    # TensorFlow's and Keras's shape and value checks refusing the program's tensors (a model and its data
    # disagree), on any GPU or none
    _sig("stack-error", ("incompatible", "dimensions must be equal", "input to reshape",
                         "received a label value", "logits and labels must", "dimensions of inputs should",
                         "tensor conversion requested dtype", "that don't all match", "was expected to be a"),
         r"Incompatible shapes|Shapes \([\w ,?]{0,60}\) and \([\w ,?]{0,60}\) are incompatible|"
         # ... or their dtypes ("requested dtype float64 for Tensor with dtype float32", "have types
         # [float16, float32] that don't all match", "input #1(zero-based) was expected to be a float tensor
         # but is a double tensor")
         r"Tensor conversion requested dtype \w{1,20} for Tensor with dtype|have types \[[\w, ]{1,200}\] that"
         r" don't all match|input #\d{1,3}(?:\(zero-based\))? was expected to be a \w{1,20} tensor but is a|"
         r"is incompatible with (?:the )?layer|Dimensions must be equal|Matrix size-incompatible|"
         r"Input to reshape is a tensor with|Received a label value of|logits and labels must|"
         r"ConcatOp ?: ?Dimensions of inputs should match",
         flags=0, code="A tensor's shape, dtype or value refused", reason="shape"),
    # ... as Keras 2, TensorFlow 1.x, PyTorch and NumPy word the same refusals
    _sig("stack-error", ("cannot feed value of shape", "error when checking", "compatible with supplied",
                         "shape must be rank", "shapes cannot be multiplied", "match the broadcast shape",
                         "cannot reshape array of size", "] = "),
         r"Cannot feed value of shape|Error when checking (?:model )?(?:input|target)?\s{0,2}: expected|"
         r"is not compatible with supplied shape|Shape must be rank \d{1,3} but is rank|"
         r"mat1 and mat2 shapes cannot be multiplied|doesn't match the broadcast shape|"
         r"cannot reshape array of size \d{1,15} into shape|"
         # an embedding's or gather's index past its table ("indices[4,14] = 21130 is not in [0, 21128)")
         r"\bindices\[[\d,]{1,40}\] = -?\d{1,15} is not in \[\d{1,15}, \d{1,15}\)",
         flags=0, code="A tensor's shape, dtype or value refused", reason="shape"),
    # TensorFlow 1.x's graph-mode API called under TensorFlow 2 (not get_default_graph: standalone Keras
    # 2.2 calls that one, a package conflict)
    _sig("stack-error", ("has no attribute", "tensorflow.contrib"),
         r"module 'tensorflow' has no attribute '(?:Session|InteractiveSession|placeholder|contrib|"
         r"ConfigProto|GPUOptions|global_variables_initializer|variable_scope|get_variable|set_random_seed|log|"
         r"to_float|layers|app|flags|gfile|summary\.FileWriter)'|"
         # ... of its submodules, as TensorFlow 2 names them ("module 'tensorflow._api.v2.train' has no
         # attribute 'AdamOptimizer'"), and tf.contrib, which TensorFlow 2 removed
         r"module 'tensorflow\._api\.v2\.(?:nn|train|summary|losses|layers)' has no attribute '(?:rnn_cell|"
         r"\w{0,20}Optimizer|Saver|get_or_create_global_step|get_global_step|FileWriter|merge_all|scalar|"
         r"sparse_softmax_cross_entropy|softmax_cross_entropy|dense|conv2d|dropout|batch_normalization)'|"
         r"No module named '?tensorflow\.contrib'?(?![.\w])",
         flags=0, code="TensorFlow 1.x API under TensorFlow 2", reason="tf1"),
    # Python's own: a name the program uses and never defined; a key, index or divisor its data lacks
    _sig("stack-error", ("nameerror", "unboundlocalerror"),
         r"^(?:[\w.]{1,60}\.)?(?:NameError|UnboundLocalError)\b", flags=0, code="NameError", reason="python"),
    _sig("stack-error", ("keyerror", "indexerror", "zerodivisionerror"),
         r"^(?:[\w.]{1,60}\.)?(KeyError|IndexError|ZeroDivisionError)\b", ("code",), flags=0,
         reason="python"),
    # Keras's and AutoGraph's frame around an error raised in the program's own function ("ValueError: in user
    # code:"), the error itself a few lines below
    _sig("stack-error", "in user code", r"^(?:[\w.]{1,60}\.)?\w{1,40}Error: in user code:", flags=0,
         code="An error in the program's own function", reason="python"),
    # a file the program reads is not there (TensorFlow's NotFoundError, Python's FileNotFoundError), or
    # damaged: its data, model or config path, not a library, tool or device of the installation
    _sig("stack-error", "no such file or directory",
         r"^(?![^\n]{0,600}(?:\.so\b|\.so\.\d|\.dll|\.dylib|nvidia|cuda|cudnn|ptxas|nvcc|libdevice|/dev/))"
         r"(?:[\w.]{1,80}\.)?(?:NotFoundError|FileNotFoundError|IOError|OSError)\b[^\n]{0,600}?"
         r"No such file or directory", flags=0, code="A file the program reads is missing", reason="data"),
    _sig("stack-error", "datalosserror", r"^(?:[\w.]{1,80}\.)?DataLossError\b", flags=0,
         code="A data file the program reads is damaged", reason="data"),
    # ... as TensorFlow's file system words it on Windows ("NotFoundError: Can not get size for: X : The
    # system cannot find the path specified.", its reason in the system's language), and a path the program
    # never set (None, an option it was not given)
    _sig("stack-error", ("can not get size for", "failed to create a directory"),
         r"^(?:[\w.]{1,80}\.)?NotFoundError\b:?\s{0,3}(?:Can not get size for|Failed to create a directory):",
         flags=0, code="A file the program reads is missing", reason="data"),
    _sig("stack-error", "os.pathlike object, not nonetype",
         r"^TypeError: expected str, bytes or os\.PathLike object, not NoneType", flags=0,
         code="A path the program never set", reason="data"),
    # PyTorch's and CUDA's words for the same refusals TensorFlow reports by code
    # Julia's CUDA.jl: the driver's CUDA older than every toolkit the package supports
    _sig("cuda-error", "is not compatible with any supported cuda toolkit",
         r"CUDA driver (\d{1,2}\.\d{1,2})(?:\.\d{1,3})? is not compatible with any supported CUDA toolkit",
         ("driver_cuda",), error="INSUFFICIENT_DRIVER"),
    _sig("cuda-error", "the nvidia driver on your system is too old",
         r"The NVIDIA driver on your system is too old(?: \(found version (\d{4,5})\))?", ("driver_api",),
         error="INSUFFICIENT_DRIVER"),
    # ... in a person's words ("the msg is that my Nvidia version is too old", "the driver was too old")
    _sig("cuda-error", ("is too old", "was too old"),
         # (not "my GPU is too old": that is the GPU's architecture, not its driver)
         r"\bNVIDIA (?:driver )?(?:version )?(?:is|was) too old\b|"
         r"\bdriver (?:version )?(?:is|was) too old\b", error="INSUFFICIENT_DRIVER"),
    # the driver's libcuda lacking a driver API entry point the CUDA runtime calls: a driver older than it
    _sig("cuda-error", ("in libcuda dso", "undefined symbol: cu"),
         r"could not find (cu[A-Z]\w{2,60}) in libcuda DSO|libcuda\.so(?:\.\d{1,6}){0,4}: undefined symbol:"
         r" (cu[A-Z]\w{2,60})", ("symbol", "symbol"), error="INSUFFICIENT_DRIVER"),
    _sig("cuda-error", "cuda unknown error", r"CUDA initialization: CUDA unknown error", error="UNKNOWN"),
    _sig("cuda-error", "no cuda gpus are available", r"No CUDA GPUs are available", error="NO_DEVICE"),
    # TensorFlow's event manager after a kernel faulted: the launch failure it reports by code elsewhere
    _sig("cuda-error", "unexpected event status", r"Unexpected Event status: 1\b", error="LAUNCH_FAILED"),
    # --- Python packages ------------------------------------------------------------------------------
    _sig("numpy-abi", ("numpy", "_array_api", "multiarray", "pybfloat16_type"),
         r"compiled using NumPy 1\.x cannot be run in|"
         r"numpy\.core\.(?:_multiarray_umath|multiarray) failed to import|"
         r"No module named '?numpy\.core\._multiarray_umath|"
         # TensorFlow's bfloat16 type, registered with NumPy's C API, finds no NumPy it can build on
         r"Check failed: PyBfloat16_Type\.tp_base != nullptr|"
         r"module compiled against (?:API|ABI) version|numpy\.(?:dtype|ndarray) size changed|"
         # the same in a person's words: "compiled with API 0x10 installed 0xf"
         r"compiled (?:against|with) (?:API|ABI)(?: version)? 0x[0-9a-fA-F]{1,4}\b|"
         r"_ARRAY_API not found|"
         r"NumPy 2\.\d{1,2}\.\d{1,2} as it may crash|numpy\.core\.umath failed to import|"
         # SciPy's own check: a SciPy built for NumPy 1.x under NumPy 2 ("A NumPy version >=1.17.3 and <1.25.0
         # is required for this version of SciPy (detected version 2.0.2")
         r"and <1\.[\d.]{1,8} is required for this version of \w{2,20} \(detected version 2\."),
    # code written for an older NumPy meeting a newer one: aliases removed in NumPy 1.24 and 2.0
    _sig("numpy-abi", ("was removed in the numpy", "module 'numpy' has no attribute"),
         r"`np\.\w{1,20}` was removed in the NumPy 2\.0 release|"
         r"module 'numpy' has no attribute '(?:object|bool|int|float|complex|str|long|unicode)'"),
    _sig("protobuf", ("descriptors cannot", "descriptors should not", "message_types_by_name",
                      "google.protobuf", "protobuf", "protocol buffer",
                      "messagefactory", "symboldatabase", "descriptorpool", "generateddatabase",
                      "encodeddescriptordatabase", "google._upb", "serialized_options", "'create_key'",
                      "import name 'builder'", "regenerate your protos", "protobuf/pyext"),
         # (protobuf 3.x before 3.20 said "should not be created directly, but only retrieved from their
         # parent")
         r"Descriptors (?:cannot|should not) (?:not )?be created directly|"
         # (the same error's own advice, pasted without its first line)
         r"If you cannot immediately regenerate your protos|"
         # protobuf's C++ extension refusing what generated code hands it ("SystemError:
         # google/protobuf/pyext/descriptor.cc:358: bad argument to internal function")
         r"google/protobuf/pyext/\w{1,40}\.cc:\d{1,6}: bad argument to internal function|"
         # code generated by protoc 3.20+ (DESCRIPTOR.message_types_by_name) under a runtime whose file
         # registration returns nothing
         r"'NoneType' object has no attribute 'message_types_by_name'|"
         # code a newer protoc generated (3.6+: serialized_options, 3.12+: create_key), an older runtime
         r"unexpected keyword argument '(?:serialized_options|create_key)'|"
         # two protobuf runtimes registering one file's descriptors (TensorFlow's and the pip package's)
         r"GeneratedDatabase\(\)->Add\(encoded_file_descriptor|"
         r"Invalid file descriptor data passed to EncodedDescriptorDatabase|"
         # protobuf's C++ extension built against another libprotobuf than the one loaded (conda mixes)
         r"google[/\\]protobuf[/\\]pyext[/\\]_message[\w.-]{0,60}: undefined symbol|"
         r"cannot import name '\w{1,40}' from 'google\.protobuf|"
         # (the builder module protoc 3.20+ code imports, named alone in a title)
         r"cannot import name 'builder'(?! from)|"
         r"Protobuf (?:Gencode|gencode) version|Detected (?:mismatched|incompatible) Protobuf|"
         r"(?:requires|compiled against) version [\d.]{1,12} of the Protocol Buffer runtime library|"
         r"Couldn't build proto file into descriptor pool|"
         # generated code asking the runtime for a field an older (or newer) descriptor.proto lacks
         r"Couldn't find field google\.protobuf\.\w{1,60}|"
         r"module 'google\.(?:protobuf|_upb)\.\w{1,40}' has no attribute|"
         # protobuf 6 (5.x deprecations removed) under code generated for an older one
         r"'(?:MessageFactory|SymbolDatabase|DescriptorPool)' object has no attribute '\w{1,40}'"),
    # TensorFlow 2.16+ told to use Keras 2 (TF_USE_LEGACY_KERAS) without tf_keras, which is Keras 2 for it;
    # its lazy loader then cannot import tf.keras at all (tensorflow/python/util/lazy_loader.py)
    _sig("keras3", "tf_use_legacy_keras set to true",
         r"TF_USE_LEGACY_KERAS set to True, but you do not have the tf_keras package installed",
         legacy="missing"),
    _sig("keras3", "keras cannot be imported",
         r"^ImportError: Keras cannot be imported\. Check that it is installed", legacy="unimportable"),
    _sig("keras3", ("kerastensor", "keras 3", "keras core", "tf_keras", "legacy_keras", "keras.src",
                    "keras.engine", "keras_tensor", "unrecognized keyword arguments passed to",
                    "not recognized: {", "has never been called and thus", "tf-keras", "must end in",
                    "invalid filepath extension", "model.weights.h5", "only instances of",
                    "keras.layers.experimental", "keras.wrappers", "keras.legacy",
                    "_ensure_keras_2_importable", "to a shape", "keras.preprocessing",
                    "infer the shape of the lambda", "<class 'keras.src.",
                    "<class 'tf_keras.src.", "could not locate class", "only input tensors may be passed"),
         r"A KerasTensor (?:cannot|is symbolic)|"
         r"KerasTensor.{0,60}(?:cannot be used|not allowed|is not supported)|"
         r"Keras (?:3|Core) only supports|only supports V3 `?\.keras|TF_USE_LEGACY_KERAS|"
         r"No module named '?(?:tensorflow\.)?keras\."
         r"(?:src\.engine|legacy|layers\.experimental|wrappers|preprocessing\.(?:text|sequence)\b)|"
         # Keras 3 loading a model Keras 2 saved: its own classes under Keras 2's module paths ("Could not
         # locate class 'Model'. Make sure custom classes are decorated with
         # `@keras.saving.register_keras_serializable()`")
         r"Could not locate class '(?:Model|Functional|Sequential|InputLayer)'\. Make sure custom classes|"
         # ... and the Keras 2 classes its keras.preprocessing no longer has (moved to keras.src.legacy)
         r"cannot import name '(?:ImageDataGenerator|DirectoryIterator|NumpyArrayIterator|DataFrameIterator|"
         r"TimeseriesGenerator|Tokenizer)' from '(?:tensorflow\.)?keras\.preprocessing|"
         r"`?keras\.\w{1,40}`? (?:is|was) (?:removed|not available) in Keras 3|in Keras 3|"
         r"(?:is|are|was|were) (?:not available|not supported|removed) with Keras 3|"
         r"(?:install|use) `?tf_keras`?|from keras\.src|"
         # Keras 3's own modules (keras/src, and keras/_tf_keras behind tf.keras) lacking a Keras 2 name
         r"module '(?:keras\._tf_keras|keras\.src)[\w.]{0,60}' has no attribute|"
         # Keras 3's own refusals of Keras 2 arguments (layer.py, base_optimizer.py), even without frames
         r"Unrecognized keyword arguments passed to \w{1,60}(?::|$)|Argument\(s\) not recognized: \{|"
         # Keras 3 builds a Sequential without an Input only when called: Keras 2 code reading its input
         r"has never been called and thus has no defined (?:input|output)|"
         # Keras 2 itself wanted (tf_keras is Keras 2 for TensorFlow 2.16+, where keras is Keras 3)
         r"No module named '?tf_keras'?(?![\w.])|requires (?:the )?`?tf-keras`? package|"
         # Keras 3's standardize_shape refusing what Keras 2 took for a shape: an int, or a name where
         # Keras 3's add_weight takes the shape first (Keras 2's add_weight("counter", ...) spelt out)
         r"Cannot convert '(?:\d{1,9}|\('\w', '\w', [^\n]{0,200}?\))' to a shape|"
         # TensorFlow Hub (0.16+) asking for tf_keras where keras is Keras 3
         r"_ensure_keras_2_importable\(|Failed to import tf_keras\b|"
         # Keras 3's Sequential refusing a Keras 2 (tf-keras, tensorflow_hub) layer
         r"Only instances of `?keras\.Layer`? can be added to a Sequential model|"
         # Keras 3's layer call taking tensors alone as positional arguments (Keras 2 took any: a training
         # flag, a mask, R's piped model)
         r"Only input tensors may be passed as positional arguments|"
         r"installed version of Keras is Keras 3|"  # (transformers' refusal)
         # Keras 3 saving only its own format where Keras 2 wrote HDF5 or a SavedModel by default
         r"filepath provided must end in `?\.keras`?|Invalid filepath extension for saving|"
         r"Expected a model\.weights\.h5 or model\.weights\.npz file|"
         # Keras 3's Lambda layer, which needs its output_shape where it cannot infer it (a Keras 2 model's)
         r"could not automatically infer the shape of the Lambda's output|"
         # a library's type check refusing an object of a class only Keras 3 has (Keras 2.13-2.15 keeps its
         # models in keras.src.engine), or one of tf_keras (Keras 2 beside Keras 3): made for the other Keras
         r"\bExpected\b[^\n]{0,300}? of type <class '(?:keras\.src\.(?:models|callbacks\.history|trainers)|"
         r"tf_keras\.src)\.\w"),
    # Keras 2's private keras.engine, gone from Keras 3 but also moved under keras.src by Keras 2.13
    # (tfdoctor/checks/keras.py judges it by the versions)
    _sig("keras3", "keras.engine", r"No module named '?(?:tensorflow\.)?keras\.engine\b",
         private="keras.engine"),
    _sig("tf-missing", ("no module named", "no module names"),  # (a title's typo)
         r"No module name[ds] ['\"]?tensorflow['\"]?(?![\w-]|\.\w)"),
    # R's tensorflow package finding no TensorFlow it can import in the Python it uses (the Python exception
    # it prints after, where there is one, says why)
    _sig("tf-missing", "valid installation of tensorflow not found",
         r"Valid installation of TensorFlow not found", why="reticulate"),
    # pip on Windows failing to write one of the package's deep files: past the 260-character path limit
    # without Long Path support (pip's own hint says so; the path it names is that long)
    _sig("tf-missing", ("long path support", "could not install packages due to an"),
         r"does not have Windows Long Path support enabled|"
         r"Could not install packages due to an? (?:OSError|EnvironmentError): \[Errno 2\] No such file or"
         r" directory: '[A-Za-z]:\\{1,2}[^'\n]{160,1000}", why="long-path"),
    _sig("tf-native-failed", ("native tensorflow runtime", "_pywrap_tensorflow", "dll load failed",
                              "could not find the dll", "pywrap_tensorflow_internal.py",
                              "pywrap_tensorflow.py", "importerror: traceback"),
         r"Failed to load the native TensorFlow runtime|"
         # (TensorFlow 1.x's pywrap_tensorflow.py re-raises the loader's failure with its traceback as the
         # message, ending in "Failed to load the native TensorFlow runtime.", often cut off in a paste)
         r"^ImportError: Traceback \(most recent call last\):\s{0,3}$|"
         # TensorFlow 1.x's SWIG loader in a traceback's frame: the native library failed to load
         r"^File \"[^\"]{0,300}pywrap_tensorflow(?:_internal)?\.py\",\s{0,2}"
         r"(?:line \d{1,6}, in swig_import_helper|$)|"
         r"DLL load failed(?: while importing _pywrap_tensorflow\w{0,20})?|"
         r"_pywrap_tensorflow_internal\.so: cannot open shared object|"
         r"ImportError: .{0,80}_pywrap_tensorflow|No module named '?_pywrap_tensorflow_internal|"
         # (macOS's loader naming the library by its whole path: "ImportError: dlopen(/Library/.../tensorflow/
         # python/_pywrap_tensorflow.so, 0x000A): tried: ...")
         r"ImportError: dlopen\([^)\n]{0,300}[/\\]_pywrap_tensorflow|"
         # TensorFlow's own check for the Visual C++ runtime on Windows (self_check.py)
         r"Could not find the DLL\(s\) '?msvcp140"),
    # a pluggable device's library (site-packages/tensorflow-plugins/: tensorflow-metal, DirectML,
    # Intel's extension) that TensorFlow's import cannot load: built for another TensorFlow or OS
    _sig("tf-native-failed", ("_plugin_dir", "tensorflow-plugins"),
         r"load_library\(_plugin_dir\)|"
         r"dlopen\([^)\s]{0,300}tensorflow-plugins[/\\](?!" + _TF_SYMBOL_MISSING + ")|"
         r"tensorflow-plugins[/\\][\w.-]{1,80}: (?:undefined symbol|cannot open shared object)", plugin=True),
    # ... lacking one of TensorFlow's own C API symbols (TF_*, tensorflow::): made for another TensorFlow
    _sig("pip-conflict", ("tensorflow-plugins", "_plugin.dylib", "_plugin.so"),
         r"(?:tensorflow-plugins[/\\]|(?=lib\w{1,40}_plugin\.))(lib\w{1,40})\.(?:dylib|so)\b"
         + _TF_SYMBOL_MISSING,
         ("plugin_lib",), mismatch="addon", plugin=True),
    _sig("cpu-build", ("built with cuda", "built_with_cuda", "not built with", "is_cuda_build",
                       "built without cuda", "no cuda support", "cuda is not enabled"),
         r"""['"(]is_cuda_build['"]?\s{0,3}[:,]\s{0,3}false|"""
         r"""(?:was |is )?not (?:been )?built with (?:CUDA|GPU)"""
         r"""(?! kernel)|built[ _]with[ _]CUDA\W{0,8}\s{0,3}(?:[:=#]|->|returns?|is)?\s{0,3}False\b|"""
         r"""built without CUDA|has no CUDA support|"""
         # TensorFlow's placer, asked for a GPU by a build without CUDA (colocation_graph.cc)
         r"""requested device appears to be a GPU, but CUDA is not enabled"""),
    # PyTorch's CPU-only wheel asked for a GPU (torch.cuda's lazy init), or its environment report saying so
    _sig("cpu-build", ("not compiled with cuda", "used to build pytorch", "+cpu"),
         # (collect_env words a None "Could not collect"; a PyTorch it cannot import is "N/A")
         r"Torch not compiled with CUDA enabled|"
         r"CUDA used to build PyTorch:\s{0,4}(?:None|Could not collect)\b|"
         # its CPU-only wheel by its local version, installed ("PyTorch version: 1.7.1+cpu", "[pip3]
         # torch==2.1.0+cpu", a `pip list` row, a print "torch: 2.11.0+cpu"), not asked for in a command
         r"(?:\bPyTorch version:?\s{0,3}|"
         r"^(?:\[\w{2,8}\]\s{1,3})?torch(?:\.__version__)?(?:\s{0,3}(?:==|:|=)\s{0,3}|\s{1,30}))"
         r"\d{1,2}\.\d{1,3}(?:\.\d{1,3})?\+cpu\b",
         framework="torch"),
    # ... or conda's: its CPU build string in `conda list` ("pytorch  1.11.0  py3.8_cpu_0  pytorch"), the
    # variant selector ("pytorch-mutex  1.0  cpu"), or the cpuonly package that pins it
    _sig("cpu-build", ("_cpu_", "pytorch-mutex", "cpuonly"),
         r"^(?:pytorch\s{1,40}\d{1,2}\.\d{1,3}(?:\.\d{1,3})?\s{1,40}py\d\.\d{1,2}_cpu_\d|"
         r"pytorch-mutex\s{1,40}[\d.]{1,10}\s{1,40}cpu\b|cpuonly\s{1,40}[\d.]{1,10}\s)", framework="torch"),
    # ... and jaxlib's ("jaxlib  0.4.4  cpu_py311h7146453_1", a solver's "conda-forge/linux-64::jaxlib-0.4.4-
    # cpu_py311h7146453_1")
    _sig("cpu-build", "jaxlib", r"\bjaxlib(?:-|\s{1,40})\d{1,2}\.\d{1,3}\.\d{1,3}(?:-|\s{1,40})cpu_py\d",
         framework="jax"),
    # TensorFlow's placement log with no device at all: a CPU-only build when nothing else in the log shows
    # its CUDA side (judged in tensorflow.cpu-only-build)
    _sig("no-known-devices", "no known devices", r"Device mapping: no known devices"),
    # JAX's: its fallback when no GPU backend registered ("No GPU/TPU found, falling back to CPU")
    _sig("no-known-devices", "no gpu/tpu found", r"No GPU/TPU found, falling back to CPU", framework="jax"),
    # JAX: its jaxlib without CUDA, in its words, or XLA naming the platforms the build registered, CUDA not
    # among them ("Unable to initialize backend 'gpu': ... Available platform names are: Interpreter Host")
    _sig("cpu-build", ("cuda-enabled jaxlib is not installed", "registered platform with name",
                       "unknown backend gpu"),
         r"""a CUDA-enabled jaxlib is not installed|"""  # (the message may wrap after "Could not find")
         r"""^RuntimeError: Unknown backend gpu\s{0,3}$|"""  # (an old jaxlib's get_local_backend)
         r"""(?:Could not find )?registered platform with name: \\?"(?:cuda|gpu)\\?"\.? """
         r"""Available platform names are:(?![^\n]{0,120}\bCUDA\b)""", framework="jax"),
    # a person saying TensorFlow fell back to the CPU after a package was installed ("after install keras,
    # tensorflow only can find CPU"): the package's requirement pulled in a CPU-only tensorflow over the GPU
    # one (the check leaves out CUDA, cuDNN and driver installs)
    _sig("cpu-after-install", "after ",
         r"\bafter (?:i |we )?(?:pip3? |conda )?install(?:ed|ing)? ([\w .'-]{2,40}?)"
         r"(?:,| as |\s(?:now|then|the|my|tensorflow|tf|it)\b)"
         r"[^.\n]{0,60}?\b(?:only (?:can )?(?:finds?|sees?|uses?|shows?|detects?)(?: the)? cpu|"
         r"(?:runs?|running|started running|works?|working) on (?:the )?cpu)\b", ("package",)),
    _sig("pip-no-version", "satisfies the requirement",
         # (tensorflow-io-gcs-filesystem: a dependency of TensorFlow's wheels, with wheels per Python)
         r"Could not find a version that satisfies the requirement (tensorflow[-_]gpu|tensorflow[-_]cpu|"
         r"tensorflow[-_]intel|tensorflow[-_]macos|tensorflow[-_]metal|tensorflow-io-gcs-filesystem|"
         r"tf-nightly-gpu|tf-nightly|tensorflow|" + _ADDONS + r")(?![\w-])"
         r"(?:\[[\w,-]{1,30}\])?"
         r"((?:[=<>!~]=?[\w.*]{1,20}(?:,\s?|(?=[\s(]))){1,4})?\s{0,2}"
         r"(?:\(from [^()]{0,200}(?:\([^()]{0,40}\)[^()]{0,40})?\)\s{0,2}){0,2}\(from versions:\s{0,2}"
         r"([^)]{0,4000})\)?", ("package", "spec", "versions")),
    # uv's resolver: no wheel of the TensorFlow asked for carries this interpreter's ABI tag
    _sig("pip-no-version", "matching python abi tag",
         r"(tensorflow[a-z-]{0,12}|tf-nightly[a-z-]{0,12})(?:[<>=!~]=?[\d.*]{1,12})? has no wheels with a"
         r" matching Python ABI tag(?: \(e\.g\., `?(cp\d{2,3})`?\))?", ("package", "tag")),
    # the empty tensorflow-gpu (and tf-nightly-gpu) packages of December 2022 fail with this on install
    _sig("pip-no-version", "package has been removed",
         r"(tensorflow-gpu|tf-nightly-gpu)\W{0,3} package has been removed", ("package",)),
    _sig("pip-no-version", "requires a different python",
         r"(?:tensorflow|tf-nightly|tensorflow-\w{1,10})['\"]? requires a different Python:?\s{0,3}"
         r"(\d\.\d{1,2}(?:\.\d{1,3})?)?",
         ("python",)),
    # a wheel built for another Python imported anyway (a copied site-packages, a distribution's package)
    _sig("wheel-python", "compiletime version",
         r"compiletime version (\d\.\d{1,2}) of module '?tensorflow[\w.]{0,80}'? does not match runtime"
         r" version (\d\.\d{1,2})", ("built", "runtime")),
    # Poetry's resolver: the project's Python range reaches Pythons a TensorFlow package has no wheels for
    # ("- tensorflow-io-gcs-filesystem requires Python >=3.7, <3.12, so it will not be satisfied for Python
    # >=3.12,<4.0")
    _sig("pip-no-version", "so it will not be satisfied for python",
         r"(tensorflow[\w-]{0,30}|tf-nightly[\w-]{0,12}) requires Python ([^\n]{1,40}?), so it will not be"
         r" satisfied for Python ([^\s,]{1,40}(?:,[^\s,]{1,20})?)", ("package", "supports", "project"),
         resolver="poetry"),
    # conda's solver: the env's Python is outside every build of TensorFlow its channels have
    # ("UnsatisfiableError: ... incompatible with the existing python installation in your environment:
    # - tensorflow -> python[version='3.5.*|3.6.*|3.7.*']", then "Your python: python=3.8")
    _sig("pip-no-version", "-> python[version=",
         r"^\s{0,8}-\s{0,3}(tensorflow(?:-gpu|-base|-mkl|-eigen)?)(?:[=<>!~][^\s]{0,30})?\s{0,3}->\s{0,3}"
         r"python\[version='([^']{1,200})'\]", ("package", "supports"), resolver="conda"),
    _sig("pip-no-version", "no matching distribution found for",  # pip's second line, pasted alone
         r"No matching distribution found for (tensorflow[-_]gpu|tensorflow[-_]cpu|tensorflow[-_]intel|"
         r"tensorflow[-_]macos|tensorflow[-_]metal|tensorflow[-_]directml(?:[-_]plugin)?|tf-nightly-gpu|"
         r"tf-nightly|tensorflow)(?![\w-])(?:\[[\w,-]{1,30}\])?"
         r"((?:[=<>!~]=?[\w.*]{1,20}(?:,\s?|(?=[\s(]|$))){1,4})?",
         ("package", "spec")),
    _sig("pip-no-version", "not a supported wheel",
         # (a pre-release's version, 1.6.0rc0; manylinux tags run long)
         r"tensorflow\w{0,10}-[\d.]{3,12}(?:(?:rc|a|b|\.dev|\.post)\d{1,10})?-(cp\d{2,3}|py[23])-\S{0,160}"
         r" is not a supported wheel", ("tag",)),
    _sig("pip-conflict", ("register_load_context_function", "__internal__' has no attribute",
                          "v2.__internal__.", "keras requires tensorflow", "has no attribute '__internal__'",
                          "another metric with the same name", "duplicate registrations for type"),
         r"has no attribute '(?:register_load_context_function|register_call_context_function)'|"
         r"compat\.v2\.__internal__(?:\.\w{1,40}){0,3}' has no attribute|"
         r"module 'tensorflow\.compat\.v2' has no attribute '__internal__'|"
         # tf.keras as Keras 3 provides it (keras._tf_keras) lacks the internals Keras 2's users call
         r"module '?keras(?:\._tf_keras\.keras)?'? has no attribute '__internal__'|"
         # standalone Keras' own import check: this Keras is newer than the TensorFlow installed
         r"Keras requires TensorFlow \d\.\d{1,2} or higher|"
         # keras of another minor than tf.keras's (2.6-2.15): both register the same metrics at import
         r"AlreadyExistsError: Another metric with the same name already exists|"
         # ... or the same serializable types (keras 2.6+ beside another minor's tf.keras)
         r"Duplicate registrations for type '\w{1,80}'", mismatch="keras"),
    # multi-backend Keras (2.3 and older) without what the code calling it was written for: another release
    # ... or older than the TensorFlow installed (its own check: Keras 2.2.5 on TensorFlow 2.0; its backend
    # listing GPUs through tf.config.experimental_list_devices, which TensorFlow 2.1 removed)
    _sig("pip-conflict",
         ("keras.backend.tensorflow_backend", "keras.utils.generic_utils", "multi-backend keras",
          "'experimental_list_devices'"),
         r"module '?keras\.(?:backend\.tensorflow_backend|utils\.generic_utils)'? has no attribute|"
         r"version of multi-backend Keras that does not support TensorFlow|"
         r"module '?tensorflow(?:_core)?\._api\.v2\.config'? has no attribute '?experimental_list_devices",
         mismatch="keras", standalone=True),
    # an add-on's own check of the TensorFlow it runs with (TensorFlow Probability, ...)
    _sig("pip-conflict", "requires tensorflow",
         r"This version of (TensorFlow [A-Z][a-z]{2,20}) requires TensorFlow(?: version >= ?\d|\s{0,2}$)",
         ("addon",),
         mismatch="addon-version"),
    # a package TensorFlow imports and pins (ml_dtypes) of another release: its attribute is gone
    _sig("pip-conflict", "module 'ml_dtypes' has no attribute",
         r"module '(ml_dtypes)' has no attribute", ("dependency",), mismatch="dependency"),
    # TensorFlow Addons' check: "... supports using Python ops for all Tensorflow versions above or equal to
    # 2.2.0 and strictly below 2.3.0 ..." then "The versions of TensorFlow you are currently using is 2.1.0"
    _sig("pip-conflict", ("supports using python ops", "currently using is"),
         r"(Tensorflow Addons) supports using Python ops for all Tensorflow versions above or equal to|"
         r"versions? of TensorFlow you are currently using is \S{1,30} and is not supported",
         ("addon",), mismatch="addon-version"),
    # an add-on's import failing on a TensorFlow API its TensorFlow lacks, in one line (a title: "import
    # tensorflow_addons ... AttributeError: ...", "Importing tensorflow_io leads AttributeError: ...")
    _sig("pip-conflict", ("import tensorflow_", "importing tensorflow_"),
         r"\bimport(?:ing)? (tensorflow_(?!core\b|estimator\b)[a-z_]{2,30})\b.{0,80}?"
         r"(?:AttributeError|ImportError)\W{1,3}(?:module '?tensorflow[\w.]{0,80}'? has no attribute|"
         r"cannot import name '?\w{1,80}'? from '?tensorflow)",
         ("addon",), mismatch="addon-version"),
    # code written for Keras 3 (or 2.13+) under an older Keras: its keras.src (Keras 3's keras.src.legacy)
    # is not there
    _sig("pip-conflict", "no module named",
         r"No module named '?keras\.src(?:\.legacy(?:\.\w{1,40}){0,3})?'?(?![\w.])", mismatch="keras",
         older="keras"),
    # an add-on's op library (tensorflow_text, tensorflow_addons, ...) built against another TensorFlow:
    # TensorFlow's C++ symbols are not a stable ABI, so load_op_library fails on an undefined one
    _sig("pip-conflict", "undefined symbol",
         r"(?:^|[\s/\\'\"])(tensorflow_(?!core[/\\])[a-z_]{2,30})[/\\][^:\s]{0,200}\.so: undefined symbol",
         ("addon",), mismatch="addon"),
    # ... or refused by TensorFlow's loader as "not found" where the file is there (load_op_library's
    # NotFoundError: the library or one it needs does not load against this TensorFlow)
    _sig("pip-conflict", "not found",
         r"NotFoundError: (?:NotFoundError: )?\S{0,300}?[/\\](tensorflow_(?!core[/\\])[a-z_]{2,30})[/\\]"
         r"[^:\s]{0,200}\.(?:so|dll) not found", ("addon",), mismatch="addon"),
    # any installed package's library missing one of TensorFlow's own C++ symbols (_ZN10tensorflow...)
    _sig("pip-conflict", "undefined symbol",
         r"(?:site|dist)-packages[/\\](?!tensorflow(?:_core)?[/\\])([A-Za-z][\w-]{1,40})[/\\][^:\s]{0,200}\.so(?:\.[\d.]{1,20})?:"
         r" undefined symbol: _ZN?K?\d{1,3}tensorflow", ("addon",), mismatch="addon"),
    # TensorFlow's own kernel or op library missing one of TensorFlow's own symbols: files of two releases
    # in one package folder (an upgrade over another install, or two TensorFlow packages sharing it)
    _sig("pip-conflict", "undefined symbol",
         r"[/\\]tensorflow[/\\](?:core[/\\]kernels|python[/\\]ops|lite|compiler)[/\\][^:\s]{0,200}\.so:"
         r" undefined symbol: _ZN?K?\d{1,3}tensorflow", mismatch="tf-files"),
    # TensorFlow always defines __version__ and the core of its API (every release since 1.0): a tensorflow
    # module without one is an empty or half-removed folder (another TensorFlow package uninstalled from
    # under it, or a directory named tensorflow on the path). (Names some releases lack, Session or contrib
    # in 2.x, are the program's own error.)
    _sig("pip-conflict", ("has no attribute", "no module named"),
         r"module '?tensorflow'? has no attribute '(?:__version__|nn|train|image|errors|constant|Variable|"
         r"Tensor|TensorShape|float32|int32|int64|matmul|reduce_sum|reduce_mean|zeros|ones|cast|reshape|"
         r"concat)'|"
         # ... or without its python subpackage, the folder's largest part ("No module named
         # 'tensorflow.python'"; not "...; 'tensorflow' is not a package": a file named tensorflow.py)
         r"No module named '?tensorflow\.python(?![.\w])(?!'?;)", mismatch="tf-namespace"),
    # ... or shown without its path (an issue's title); not TensorFlow's own library
    _sig("pip-conflict", "undefined symbol",
         r"^(?!.{0,300}(?:_pywrap_tensorflow|[/\\]tensorflow[/\\]|libtensorflow)).{0,300}?"
         r"undefined symbol: _ZN?K?\d{1,3}tensorflow", mismatch="addon"),
    # an add-on's own words for its ops failing to load ("Failure to load the inference.so custom c++
    # tensorflow ops. This error is likely caused the version of TensorFlow and TensorFlow Decision Forests
    # are not compatible")
    _sig("pip-conflict", "are not compatible",
         r"version of TensorFlow and (TensorFlow [a-z]{2,20}(?: [a-z]{2,20}){0,2}) are not compatible",
         ("addon",), mismatch="addon"),
    # torchvision's check that it and PyTorch were built for one CUDA ("Detected that PyTorch and torchvision
    # were compiled with different CUDA versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA
    # Version=11.8")
    _sig("pip-conflict", ("compiled with different cuda versions", "compiled with different cuda major"),
         r"PyTorch and torchvision were compiled with different CUDA (?:major )?versions\.\s{0,3}"
         r"PyTorch has CUDA Version=(\d{1,2}\.\d{1,2}) and torchvision has CUDA Version=(\d{1,2}\.\d{1,2})",
         ("framework_cuda", "addon_cuda"), mismatch="torch-cuda"),
    # JAX's CUDA plugin (jax-cuda12-plugin / -pjrt) of another release than jax and jaxlib
    _sig("pip-conflict", "mismatched pjrt plugin",
         r"Mismatched PJRT plugin PJRT API version \(?(\d{1,3}\.\d{1,4})\)? and framework PJRT API version"
         r" \(?(\d{1,3}\.\d{1,4})", ("plugin_api", "framework_api"), mismatch="jax-plugin"),
    # ... in JAX's own check, in the PJRT C API's (its argument structs of another size: "Unexpected
    # PJRT_Client_Create_Args size: expected 88, got 72. The plugin is likely built with a later version than
    # the framework."), and a plugin calling a jaxlib function its jaxlib lacks
    _sig("pip-conflict", ("is not compatible with the installed jaxlib", "the plugin is likely built with",
                          "pjrt_gpu_plugin"),
         r"JAX plugin \w{1,40} version \S{1,30} is installed, but it is not compatible with the installed"
         r" jaxlib|^(?:but )?it is not compatible with the installed jaxlib version|"
         r"The plugin is likely built with an? (?:later|earlier|newer|older) version than the framework|"
         r"module 'jaxlib\.xla_client' has no attribute 'generate_pjrt_gpu_plugin_options'",
         mismatch="jax-plugin"),
    # tensorflow-io's loader, and tensorflow-addons' warning before it loads ops built for another release
    _sig("pip-conflict", "unable to open file: libtensorflow_io",
         r"unable to open file: libtensorflow_io(?:_plugins)?\.so", mismatch="addon", addon="tensorflow-io"),
    _sig("pip-conflict", "trying to load a custom op",
         r"You are currently using TensorFlow \S{1,30} and trying to load a custom op", mismatch="addon",
         addon="tensorflow-addons"),
    _sig("pip-conflict",
         ("dependency conflicts", "incompatible", "conflicting dependencies", "resolutionimpossible"),
         r"(tensorflow[\w-]{0,12}|tf-nightly[\w-]{0,12}|keras|tf-keras|tensorboard) [\d.]{1,12}\w{0,8} "
         r"(?:requires|has requirement) "  # any package TensorFlow (or its Keras) pins
         r"([a-z][\w.-]{0,40}"
         r"(?:[<>=!~]=?[\w.*]{1,20}(?:,\s?[<>=!~]=?[\w.*]{1,20}){0,3})?)[^,]{0,60}, "
         r"but you(?: have|'ll have) "
         r"([\w.-]{1,40}) ([\w.]{1,20}) which is incompatible|"
         r"Cannot install .{0,200}(tensorflow|keras).{0,200} because these package versions have conflicting"
         r"|ResolutionImpossible", ("package", "needs", "have", "have_version")),
    # pip's resolver explaining a conflict ("The conflict is caused by:" then one line per requirer)
    _sig("pip-conflict", "depends on",
         r"^(tensorflow[\w-]{0,12}|tf-nightly[\w-]{0,12}) \d[\w.]{0,20} depends on "
         r"(keras|tf-keras|tensorboard|numpy|protobuf)\b", ("requirer", "pinned")),
)

ANCHORS: dict[str, tuple[Signature, ...]] = {}
for _s in SIGNATURES:
    for _a in _s.anchors:
        ANCHORS[_a] = (*ANCHORS.get(_a, ()), _s)
ANCHOR_ITEMS = tuple(ANCHORS.items())
# One C-level scan that says whether a (lower-cased) line holds any anchor at all.
ANY_ANCHOR = re.compile("|".join(re.escape(a) for a in sorted(ANCHORS, key=len, reverse=True)))


_ORDER = {id(s): i for i, s in enumerate(SIGNATURES)}
UNANCHORED = tuple(s for s in SIGNATURES if not s.anchors)  # tried on every line (correct, slower)


def match_line(line: str, low: str, found: frozenset[str] | None = None,
               unanchored: tuple[Signature, ...] = UNANCHORED) -> list[tuple[Signature, re.Match[str]]]:
    """Every signature that matches this normalised line (each signature once). `found`: the anchors the
    line holds, when the caller's cheap pass already knows them; `unanchored`: signatures declaring no
    anchor, tried on every line."""
    if found is not None:
        tried = sorted({(_ORDER[id(s)], id(s)): s for a in found for s in ANCHORS.get(a, ())}.items())
        hits = []
        for sig in [s for _k, s in tried] + list(unanchored):
            m = sig.regex.search(line)
            if m:
                hits.append((sig, m))
        return hits
    if not unanchored and not ANY_ANCHOR.search(low):
        return []
    found: list[tuple[Signature, re.Match[str]]] = []
    tried: set[int] = set()
    for anchor, sigs in ANCHOR_ITEMS:
        if anchor not in low:
            continue
        for sig in sigs:
            if id(sig) in tried:
                continue
            tried.add(id(sig))
            m = sig.regex.search(line)
            if m:
                found.append((sig, m))
    for sig in unanchored:
        m = sig.regex.search(line)
        if m:
            found.append((sig, m))
    return found
