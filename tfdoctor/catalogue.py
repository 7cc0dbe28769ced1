"""Every finding id, declared once: what it means, where its docs are, and what explains it.

A leaf module (imports nothing of tfdoctor). The id's prefix names the one check module that emits
it (`driver.too-old` -> tfdoctor/checks/driver.py; `tfdoctor.*` -> the check registry itself); the
registry refuses a check that declares an id of another prefix or an id missing here.

`explained_by` lists, most specific first, the ids whose presence (warn or fail) explains this
one: the report then marks the finding `caused_by` that id, and counts only the root. Only direct
consequences are listed; chains (gpu.count-below-required -> runtime.no-gpu-visible ->
driver.missing) resolve to their root when counting. ANY ("*") stands for every other finding present
(error lines tfdoctor cannot place are most often echoes of the failure it did name).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    meaning: str
    docs: str | None = None
    explained_by: tuple[str, ...] = ()


ANY = "*"

# Pages a finding links to (one place, so every link is checked once).
TF_PIP = "https://www.tensorflow.org/install/pip"
TF_BUILDS = "https://www.tensorflow.org/install/source#gpu"
TF_GPU = "https://www.tensorflow.org/guide/gpu"
TF_GPU_MEMORY = "https://www.tensorflow.org/guide/gpu#limiting_gpu_memory_growth"
TF_MIXED = "https://www.tensorflow.org/guide/mixed_precision"
TF_XLA = "https://openxla.org/xla/tf2xla"
TF_DIST = "https://www.tensorflow.org/guide/distributed_training"
TF_CONFIG = (
    "https://www.tensorflow.org/api_docs/python/tf/distribute/cluster_resolver/TFConfigClusterResolver"
)
TF_WINDOWS = "https://www.tensorflow.org/install/pip#windows-native"
DIRECTML = "https://learn.microsoft.com/windows/ai/directml/gpu-tensorflow-plugin"
WIN_LONG_PATHS = "https://learn.microsoft.com/windows/win32/fileio/maximum-file-path-limitation"
KERAS_COMPAT = "https://keras.io/getting_started/#tensorflow--keras-2-backwards-compatibility"
KERAS_MIGRATE = "https://keras.io/guides/migrating_to_keras_3/"
NV_DRIVER = "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/index.html"
NV_DRIVER_DOWNLOAD = "https://www.nvidia.com/Download/index.aspx"
UBUNTU_DRIVER = "https://ubuntu.com/server/docs/nvidia-drivers-installation"
NV_WSL = "https://docs.nvidia.com/cuda/wsl-user-guide/index.html"
NV_CONTAINER = "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html"
NV_COMPAT = "https://docs.nvidia.com/deploy/cuda-compatibility/"
NV_CUDA_ENV = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars"
RAY_GPUS = "https://docs.ray.io/en/latest/ray-core/scheduling/accelerators.html"
NV_JIT = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#just-in-time-compilation"
NV_GPUS = "https://developer.nvidia.com/cuda-gpus"
NV_SMI = "https://docs.nvidia.com/deploy/nvidia-smi/index.html"
# Turing and later only (the GSP): https://github.com/NVIDIA/open-gpu-kernel-modules/issues/19
NV_OPEN_MODULES = "https://github.com/NVIDIA/open-gpu-kernel-modules"
NV_XID = "https://docs.nvidia.com/deploy/xid-errors/index.html"
NV_MEM_ERRORS = "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html"
NV_PAGE_RETIREMENT = "https://docs.nvidia.com/deploy/dynamic-page-retirement/index.html"
NV_MIG = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/index.html"
NV_CLOCK_REASONS = "https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html"
NV_PERSISTENCE = "https://docs.nvidia.com/deploy/driver-persistence/index.html"
NV_DCGM = "https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/dcgm-diagnostics.html"
NV_NCCL_TROUBLE = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html"
NV_CUDNN_MATRIX = "https://docs.nvidia.com/deeplearning/cudnn/backend/latest/reference/support-matrix.html"
NVML_PY = "https://pypi.org/project/nvidia-ml-py/"
NUMPY_2 = "https://numpy.org/devdocs/numpy_2_0_migration_guide.html"
PROTOBUF_NEWS = "https://protobuf.dev/news/2022-05-06/"
MANYLINUX = "https://github.com/pypa/manylinux"
CONDA_VIRTUAL = "https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-virtual.html"
# AMD's GPUs each ROCm release supports, by their gfx targets (TensorFlow's ROCm builds list theirs)
ROCM_GPUS = "https://rocm.docs.amd.com/en/latest/compatibility/compatibility-matrix.html"

# The consequences of TensorFlow seeing no usable GPU, shared by several entries.
_NO_GPU = (
    "platform.windows-native",
    "tensorflow.cpu-only-build",
    "driver.missing",
    "cuda.container-driver-libraries",
    "driver.library-mismatch",
    "platform.wsl2-libcuda",
    "gpu.hidden-by-cuda-visible-devices",
    "driver.too-old",
    "cuda.libraries-missing",
    "cudnn.missing",
    "cudnn.version-mismatch",
    "gpu.compute-capability-unsupported",
    "gpu.lost",
    "gpu.compute-mode-prohibited",
    "tensorflow.conflicting-installs",
    "cuda.init-failed",
)
_IMPORT = (
    "cpu.avx-missing",
    "system.glibc-too-old",
    "python.numpy-abi-mismatch",
    "python.protobuf-mismatch",
    "tensorflow.conflicting-installs",
    "tensorflow.python-unsupported",
    "cuda.libraries-missing",
    "cudnn.missing",
    # TensorFlow 1.x GPU builds link libcuda itself: no driver (or an image's own), no import
    "driver.missing",
    "cuda.container-driver-libraries",
)
_MEMORY = ("gpu.memory-held-by-other-processes", "gpu.compute-mode-exclusive")

ENTRIES: dict[str, Entry] = {
    # --- platform --------------------------------------------------------------------------------
    "platform.windows-native": Entry(
        "Native Windows with TensorFlow >= 2.11: no CUDA GPU support (WSL2 or TensorFlow 2.10 needed).",
        TF_WINDOWS,
    ),
    "platform.ok": Entry(
        "The platform supports TensorFlow on an NVIDIA GPU (Linux, WSL2, or Windows with TF <= 2.10).",
        TF_PIP,
    ),
    "platform.wsl2-libcuda": Entry(
        "On WSL2: libcuda.so from the Windows driver (/usr/lib/wsl/lib) is missing, or a Linux libcuda "
        "shadows it.",
        NV_WSL,
    ),
    # --- system ---------------------------------------------------------------------------------
    "system.glibc-too-old": Entry(
        "The system C library (glibc) or C++ runtime (libstdc++) is older than TensorFlow's binaries need.",
        MANYLINUX,
    ),
    "cpu.avx-missing": Entry(
        "The CPU lacks the AVX instructions the official TensorFlow wheels are compiled for (Illegal "
        "instruction on import).",
        TF_PIP + "#hardware_requirements",
    ),
    # --- driver ---------------------------------------------------------------------------------
    "driver.missing": Entry(
        "No usable NVIDIA driver is loaded (absent, nouveau instead, no NVIDIA GPU attached, or not "
        "exposed to WSL2 or the container).",
        NV_DRIVER,
        # an image's stub or own libcuda hides the host's; WSL2's libcuda is the Windows driver's; the driver
        # cannot start a GPU that has dropped off the bus
        ("cuda.container-driver-libraries", "platform.wsl2-libcuda", "driver.library-mismatch", "gpu.lost"),
    ),
    "driver.ok": Entry("An NVIDIA driver is loaded (version and the CUDA version it supports).", NV_SMI),
    "driver.library-mismatch": Entry(
        "The loaded NVIDIA kernel module and the user-space driver library are different versions "
        "(Driver/library version mismatch).",
        NV_SMI,
        ("cuda.container-driver-libraries",),
    ),
    "driver.too-old": Entry(
        "The NVIDIA driver is older than the CUDA version TensorFlow was built with needs.", NV_COMPAT,
        # (CUDA calls no driver at all "insufficient" too)
        explained_by=("driver.missing",),
    ),
    "driver.minor-version-compat": Entry(
        "The driver runs TensorFlow's CUDA only through CUDA minor-version compatibility (PTX JIT and "
        "some features may fail).",
        NV_COMPAT,
    ),
    "driver.cuda-compatible": Entry(
        "The NVIDIA driver is new enough for the CUDA version TensorFlow was built with.", NV_COMPAT
    ),
    # --- nvml -----------------------------------------------------------------------------------
    "nvml.unofficial-pynvml": Entry(
        "`import pynvml` comes from the unofficial pynvml fork, not NVIDIA's nvidia-ml-py, so tfdoctor "
        "did not read NVML.",
        NVML_PY,
    ),
    "nvml.no-permission": Entry(
        "NVML was denied access to the NVIDIA driver (/dev/nvidia* permissions).", NV_SMI,
        ("driver.missing",),
    ),
    "nvml.nvidia-smi-disagrees": Entry(
        "NVML and nvidia-smi report different driver versions (two driver libraries on this machine).",
        NV_SMI,
        ("driver.library-mismatch",),
    ),
    # --- cuda -----------------------------------------------------------------------------------
    "cuda.libraries-missing": Entry(
        "TensorFlow is a CUDA build but cannot load libcudart/libcublas/... of its CUDA major (pip wheels "
        "or system, as its loader searches them).",
        TF_PIP,
        # (without a driver no GPU runs, whatever CUDA libraries are there; other CUDA libraries first on
        # LD_LIBRARY_PATH hide the right ones)
        ("driver.missing", "cuda.ld-library-path-shadowing"),
    ),
    "cuda.libraries-ok": Entry(
        "The CUDA runtime libraries of TensorFlow's CUDA major are installed where TensorFlow loads them.",
        TF_PIP,
    ),
    "cuda.init-failed": Entry(
        "CUDA could not initialise a GPU (cuInit failed: no device visible, busy, or a driver error).",
        NV_CUDA_ENV,
        (
            "driver.missing",
            "cuda.container-driver-libraries",
            "driver.library-mismatch",
            "platform.wsl2-libcuda",
            "gpu.hidden-by-cuda-visible-devices",
            "driver.too-old",
            "gpu.lost",
            "gpu.compute-mode-prohibited",
            "gpu.compute-mode-exclusive",
            "gpu.mig-enabled",  # a process reaches one MIG instance: "invalid device ordinal" for the rest
        ),
    ),
    "cuda.nvcc-differs": Entry(
        "The system CUDA toolkit (nvcc) and TensorFlow's CUDA: pip TensorFlow 2.14+ ships its own CUDA "
        "libraries; nvcc only matters for XLA's ptxas.",
        TF_PIP,
    ),
    "cuda.ld-library-path-shadowing": Entry(
        "LD_LIBRARY_PATH puts other CUDA libraries ahead of the pip wheels TensorFlow was installed with.",
        TF_PIP,
    ),
    "cuda.loaded-not-pip": Entry(
        "The CUDA libraries TensorFlow really loaded are not the pip wheels it was installed with "
        "(shadowed through LD_LIBRARY_PATH, ldconfig or a conda env).",
        TF_PIP,
    ),
    "cuda.container-driver-libraries": Entry(
        "The container image carries its own libcuda / libnvidia-ml instead of the host's (a classic cause "
        "of Driver/library version mismatch).",
        NV_CONTAINER,
    ),
    # --- cudnn, cublas --------------------------------------------------------------------------
    "cudnn.missing": Entry("No cuDNN of the major version TensorFlow was built with can be loaded.", TF_PIP),
    "cudnn.version-mismatch": Entry(
        "The cuDNN loaded (or installed) is older than, or of another major than, the one TensorFlow was "
        "built with.",
        NV_CUDNN_MATRIX,
        ("cuda.loaded-not-pip", "cuda.ld-library-path-shadowing"),
    ),
    "cudnn.ok": Entry("A cuDNN matching TensorFlow's build is installed.", TF_PIP),
    "cudnn.init-failed": Entry(
        "cuDNN was found but failed to initialise (usually GPU memory, sometimes a cuDNN/CUDA mismatch).",
        TF_GPU_MEMORY,
        (
            "cudnn.version-mismatch",
            "cudnn.missing",
            "gpu.out-of-memory",
            *_MEMORY,
            "gpu.compute-capability-unsupported",
            "gpu.illegal-address",  # a kernel fault loses the CUDA context: every later call fails
        ),
    ),
    "cublas.init-failed": Entry(
        "cuBLAS could not create its handle or launch a GEMM (usually GPU memory taken, sometimes a "
        "broken CUDA install or an unsupported GPU).",
        TF_GPU_MEMORY,
        (
            "gpu.out-of-memory",
            *_MEMORY,
            "cuda.libraries-missing",
            "gpu.compute-capability-unsupported",
            "driver.too-old",
            "gpu.illegal-address",
        ),
    ),
    # --- tensorflow, keras, python ----------------------------------------------------------------
    "tensorflow.missing": Entry(
        "TensorFlow is not installed in the target Python interpreter.",
        TF_PIP,
        ("tensorflow.python-unsupported", "platform.windows-native"),
    ),
    "tensorflow.build": Entry(
        "TensorFlow is installed as a CUDA build (version, CUDA, cuDNN, compute capabilities it was built "
        "for).",
        TF_BUILDS,
    ),
    "tensorflow.cpu-only-build": Entry(
        "The installed TensorFlow is a CPU-only build (tensorflow-cpu, intel, macOS, ...) and can never "
        "use an NVIDIA GPU.",
        TF_PIP,
        ("platform.windows-native", "tensorflow.conflicting-installs"),
    ),
    "tensorflow.conflicting-installs": Entry(
        "Several packages provide TensorFlow, CUDA wheels for two CUDA majors are mixed, or Keras does "
        "not match the TensorFlow version.",
        TF_PIP,
    ),
    "tensorflow.python-unsupported": Entry(
        "The target Python version is outside the range the TensorFlow release supports (or pip finds "
        "no TensorFlow wheel for it).",
        TF_BUILDS,
        ("platform.windows-native",),
    ),
    "tensorflow.python-ok": Entry(
        "The target Python version is within the installed TensorFlow's supported range.", TF_BUILDS
    ),
    "tensorflow.import-failed": Entry(
        "TensorFlow is installed but its native runtime failed to load.", TF_PIP, _IMPORT
    ),
    "keras.keras3-api-change": Entry(
        "Code written for tf.keras (Keras 2) runs under Keras 3, which TensorFlow >= 2.16 uses as "
        "tf.keras: removed or changed APIs, KerasTensor errors, old model formats.",
        KERAS_MIGRATE,
    ),
    "python.numpy-abi-mismatch": Entry(
        "A compiled package (TensorFlow or another) was built against another NumPy major than the one "
        "installed (NumPy 1.x vs 2.x).",
        NUMPY_2,
    ),
    "python.protobuf-mismatch": Entry(
        "The installed protobuf does not match the generated code TensorFlow (or another package) was "
        "built with.",
        PROTOBUF_NEWS,
        # (another package's pin, or an add-on built for another TensorFlow bringing its own protos)
        explained_by=("tensorflow.conflicting-installs",),
    ),
    # --- gpu ------------------------------------------------------------------------------------
    "gpu.compute-capability-unsupported": Entry(
        "TensorFlow has no kernels this GPU can run (no SASS for its compute capability, and no PTX it "
        "can JIT-compile).",
        NV_GPUS,
    ),
    "gpu.compute-capability-ptx-jit": Entry(
        "Only PTX fits this GPU: the first run JIT-compiles kernels for minutes and needs a large CUDA "
        "cache.",
        NV_JIT,
    ),
    "gpu.compute-capability-ok": Entry(
        "TensorFlow ships native (SASS) kernels for every GPU's compute capability.", NV_GPUS
    ),
    "gpu.hidden-by-cuda-visible-devices": Entry(
        "CUDA_VISIBLE_DEVICES (or a container's device list) hides every GPU (empty, -1, NoDevFiles, or "
        "indices/UUIDs that match no GPU).",
        NV_CUDA_ENV,
    ),
    "gpu.count-below-required": Entry(
        "TensorFlow can use fewer GPUs than --require-gpus asks for.",
        TF_GPU,
        (
            "runtime.no-gpu-visible",
            "runtime.worker-crashed",
            "runtime.worker-timeout",
            "runtime.import-failed",
            *_NO_GPU,
        ),
    ),
    "gpu.count-ok": Entry("TensorFlow can use at least the GPUs --require-gpus asks for.", TF_GPU),
    # (an uncorrectable ECC error leaves memory the driver will not hand out until the GPU is reset)
    "gpu.out-of-memory": Entry("The GPU ran out of memory.", TF_GPU_MEMORY, (*_MEMORY, "gpu.ecc-errors")),
    # (in an exclusive compute mode, another process on the GPU is what the mode refuses)
    "gpu.memory-held-by-other-processes": Entry(
        "Other processes hold much of a GPU's memory; TensorFlow gets the rest.", TF_GPU_MEMORY,
        ("gpu.compute-mode-exclusive",),
    ),
    "gpu.illegal-address": Entry(
        "A GPU kernel faulted (illegal memory access, launch failure, Xid 13/31/43/69): a bug in a kernel or "
        "failing hardware; the CUDA context is lost.",
        NV_XID,
        ("gpu.ecc-errors", "gpu.row-remap-failed", "gpu.lost"),
    ),
    "gpu.lost": Entry("A GPU stopped answering (fallen off the bus, or needs a reset).", NV_XID),
    "gpu.ecc-errors": Entry("A GPU counted uncorrected ECC memory errors.", NV_MEM_ERRORS),
    "gpu.row-remap-pending": Entry("A GPU has memory row remaps waiting for a GPU reset.", NV_MEM_ERRORS),
    "gpu.row-remap-failed": Entry(
        "A GPU ran out of spare memory rows to remap (hardware needs service).", NV_MEM_ERRORS
    ),
    "gpu.retired-pages-pending": Entry(
        "A GPU has memory pages waiting to be retired at the next reset.", NV_PAGE_RETIREMENT
    ),
    "gpu.pcie-link-degraded": Entry(
        "A GPU's PCIe link runs narrower (or, under load, slower) than it can.", NV_SMI
    ),
    "gpu.throttled": Entry(
        "A GPU's clocks are held down now (thermal, power cap, hardware slowdown, power brake).",
        NV_CLOCK_REASONS,
    ),
    "gpu.temperature-high": Entry("A GPU is at or near its slowdown temperature.", NV_SMI),
    "gpu.persistence-off": Entry(
        "Persistence mode is off on a data-centre GPU (slow CUDA start-up, state reset).", NV_PERSISTENCE
    ),
    "gpu.compute-mode-exclusive": Entry(
        "A GPU is in an exclusive compute mode and another process (or another thread) already uses it.",
        NV_SMI,
        ("gpu.compute-capability-unsupported",),  # a GPU TensorFlow cannot use at all: its mode is moot
    ),
    "gpu.compute-mode-prohibited": Entry(
        "A GPU's compute mode is Prohibited: no CUDA context can be created on it.", NV_SMI
    ),
    "gpu.mig-enabled": Entry(
        "MIG is on: TensorFlow sees one MIG slice per process, not the whole GPU.", NV_MIG
    ),
    "gpu.health": Entry(
        "GPU health read from NVML or nvidia-smi (ECC, PCIe link, clocks, temperature, memory).", NV_SMI
    ),
    "gpu.mapping": Entry(
        "Which physical GPU (nvidia-smi/NVML index, PCI bus id) each TensorFlow GPU:n is.", NV_CUDA_ENV
    ),
    "gpu.device-order": Entry(
        "Mixed GPU models without CUDA_DEVICE_ORDER=PCI_BUS_ID: CUDA's GPU numbers differ from nvidia-smi's.",
        NV_CUDA_ENV,
    ),
    # --- xla, nccl ------------------------------------------------------------------------------
    "xla.toolchain-missing": Entry(
        "XLA cannot find the CUDA tools it compiles with (libdevice, ptxas).", TF_XLA
    ),
    "xla.ptxas-too-old": Entry(
        "The ptxas XLA uses is older than the GPU (it does not know sm_XX) or than TensorFlow needs.",
        TF_XLA,
    ),
    "nccl.error": Entry(
        "An NCCL collective (multi-GPU all-reduce) failed.",
        NV_NCCL_TROUBLE,
        ("nccl.unsupported-platform", "gpu.out-of-memory", "gpu.illegal-address"),
    ),
    "nccl.unsupported-platform": Entry(
        "NCCL is not available on this platform (native Windows, or a build without NCCL): "
        "MirroredStrategy's default all-reduce cannot run.",
        TF_DIST,
    ),
    # --- runtime (the worker) -------------------------------------------------------------------
    "runtime.skipped": Entry(
        "The TensorFlow worker was not run (--quick), so nothing was proven at run time.", TF_GPU
    ),
    "runtime.worker-not-started": Entry(
        "The target interpreter could not be started to run the TensorFlow worker.", TF_PIP
    ),
    "runtime.worker-crashed": Entry(
        "The TensorFlow worker died (a signal such as SIGSEGV, or an exit) before answering.",
        TF_PIP,
        (*_IMPORT, "gpu.illegal-address"),
    ),
    "runtime.worker-timeout": Entry(
        "The TensorFlow worker did not finish within --timeout; its process group was killed.", NV_SMI
    ),
    "runtime.worker-garbage": Entry(
        "The TensorFlow worker exited without its result line (junk or no output).", TF_PIP
    ),
    "runtime.import-failed": Entry(
        "`import tensorflow` raised in the target interpreter.", TF_PIP, (*_IMPORT, "tensorflow.missing")
    ),
    "runtime.cpu-verified": Entry(
        "TensorFlow computed a correct matmul and trained a small model on the CPU.", TF_GPU
    ),
    "runtime.gpu-verified": Entry(
        "TensorFlow computed a correct matmul and trained on this GPU, placement verified.", TF_GPU
    ),
    "runtime.no-gpu-visible": Entry("TensorFlow lists no GPU; its own reason is quoted.", TF_GPU, _NO_GPU),
    "runtime.matmul-mismatch": Entry(
        "A matmul result differs from the NumPy reference: silent data corruption.",
        NV_DCGM,
        ("gpu.ecc-errors", "gpu.row-remap-failed"),
    ),
    "runtime.placement-mismatch": Entry(
        "TensorFlow's placement log shows the work ran on another device than asked.",
        TF_GPU,
        ("gpu.compute-capability-unsupported",),
    ),
    "runtime.train-failed": Entry(
        "A short Keras training run failed: an error, a non-finite loss or no learning.",
        TF_GPU,
        (
            "tensorflow.conflicting-installs",
            "keras.keras3-api-change",
            "gpu.out-of-memory",
            *_MEMORY,
            "cudnn.version-mismatch",
            "cudnn.missing",
            "cudnn.init-failed",
            "cublas.init-failed",
            "gpu.compute-capability-unsupported",
            "gpu.illegal-address",
            "gpu.ecc-errors",
            "xla.toolchain-missing",
            "xla.ptxas-too-old",
        ),
    ),
    "runtime.step-failed": Entry(
        "A runtime step (devices, throughput, mixed precision, XLA) raised or was wrong.",
        TF_GPU,
        (
            "xla.toolchain-missing",
            "xla.ptxas-too-old",
            "gpu.out-of-memory",
            *_MEMORY,
            "cudnn.version-mismatch",
            "cudnn.init-failed",
            "cublas.init-failed",
            "gpu.compute-capability-unsupported",
            "gpu.illegal-address",
            "tensorflow.conflicting-installs",
        ),
    ),
    "runtime.slow-throughput": Entry(
        "Matmul throughput is far below the GPU's datasheet peak (throttling, power cap).",
        NV_SMI,
        (
            "gpu.throttled",
            "gpu.pcie-link-degraded",
            "gpu.memory-held-by-other-processes",
            "gpu.compute-capability-ptx-jit",
        ),
    ),
    "runtime.throughput-ok": Entry(
        "Matmul throughput measured on the GPU, within reach of its datasheet peak.", NV_SMI
    ),
    "runtime.multi-gpu-verified": Entry(
        "A MirroredStrategy all-reduce and training step ran across all GPUs.", TF_DIST
    ),
    "runtime.multi-gpu-failed": Entry(
        "The MirroredStrategy step across all GPUs failed.",
        TF_DIST,
        ("nccl.unsupported-platform", "nccl.error", "gpu.out-of-memory"),
    ),
    # --- distributed ----------------------------------------------------------------------------
    "distributed.tf-config": Entry(
        "TF_CONFIG is set and describes a valid cluster that includes this host.", TF_CONFIG
    ),
    "distributed.tf-config-invalid": Entry(
        "TF_CONFIG is not valid JSON or not a valid cluster spec.", TF_CONFIG
    ),
    "distributed.task-invalid": Entry(
        "TF_CONFIG's task is missing, of an unknown type, or out of range.", TF_CONFIG
    ),
    "distributed.address-invalid": Entry(
        "A TF_CONFIG address is not host:port with a port from 1 to 65535.", TF_CONFIG
    ),
    "distributed.address-duplicate": Entry("Two TF_CONFIG tasks have the same host:port.", TF_CONFIG),
    "distributed.address-loopback": Entry("TF_CONFIG mixes loopback addresses with other hosts.", TF_CONFIG),
    "distributed.host-not-in-cluster": Entry("This task's TF_CONFIG address is not this host.", TF_CONFIG),
    "distributed.collective": Entry(
        "--multiworker: real all-reduce and synchronized training on all workers.",
        TF_DIST,
        (
            "distributed.tf-config-invalid",
            "distributed.task-invalid",
            "distributed.address-invalid",
            "distributed.host-not-in-cluster",
            "nccl.error",
        ),
    ),
    "distributed.peer-drift": Entry(
        "Workers of one cluster run different Python or NVIDIA driver versions.", TF_DIST
    ),
    # --- tfdoctor itself ------------------------------------------------------------------------
    "tfdoctor.check-crashed": Entry(
        "A tfdoctor check raised: a bug in tfdoctor; the check counts as failed and the rest of the "
        "report is intact.",
    ),
    "tfdoctor.nothing-verified": Entry(
        "Every check the selection (--only/--skip) ran skipped: nothing was judged, so the run does not "
        "pass (with --allow-cpu on a machine without a GPU it warns).",
    ),
}

# --- log: what a paste says that no diagnosis explains ---------------------------------------------
ENTRIES["log.program-error"] = Entry(
    "The log's error code is one the stack documents as a program's error (an invalid argument, a"
    " kernel's fault), not an installation problem.",
    "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html",
    (ANY,),
)
ENTRIES["log.unrecognized"] = Entry(
    "The log has error lines no finding explains: tfdoctor says it does not know rather than pass them.",
    None,
    ("log.program-error", ANY),  # (a traceback's other lines around the program's own error)
)

# The ids `explain` and `check` share (a contract: these stay).
CONTRACT_IDS = (
    "driver.missing",
    "driver.library-mismatch",
    "driver.too-old",
    "cuda.libraries-missing",
    "cudnn.missing",
    "cudnn.version-mismatch",
    "tensorflow.cpu-only-build",
    "platform.windows-native",
    "cuda.init-failed",
    "gpu.compute-capability-unsupported",
    "xla.toolchain-missing",
    "gpu.out-of-memory",
    "nccl.error",
    "tensorflow.missing",
    "tensorflow.python-unsupported",
)


def prefix(finding_id: str) -> str:
    """The id's prefix, which names the check module that owns it."""
    return finding_id.split(".", 1)[0]


def meaning(finding_id: str) -> str:
    entry = ENTRIES.get(finding_id)
    return entry.meaning if entry else ""


def docs(finding_id: str) -> str | None:
    entry = ENTRIES.get(finding_id)
    return entry.docs if entry else None


def explained_by(finding_id: str) -> tuple[str, ...]:
    entry = ENTRIES.get(finding_id)
    return entry.explained_by if entry else ()
