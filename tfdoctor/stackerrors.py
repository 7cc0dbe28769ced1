"""The stack's error vocabulary, one table: every code the CUDA driver (`CUresult`), the CUDA runtime
(`cudaError_t`), NVML (`nvmlReturn_t`), cuDNN (`cudnnStatus_t`), cuBLAS (`cublasStatus_t`) and NCCL
(`ncclResult_t`) define, by name, number and message, mapped to the finding id it is evidence for or
to a reason it is not an environment problem; the shared libraries TensorFlow loads at start-up; the
harmless lines TensorFlow prints on healthy machines; and the Python-level mechanisms.

Names and numbers are those of the headers that ship in the TensorFlow and nvidia-* wheels
(cuda.h, driver_types.h, nvml.h, cudnn_graph.h of cuDNN 9, cublas_api.h, nccl.h); messages are the
libraries' own strings (cudaGetErrorString, cublasGetStatusString, cudnnGetErrorString,
ncclGetErrorString, nvidia-ml-py's copy of nvmlErrorString). cuGetErrorString lives in the driver's
libcuda, which no wheel ships: a driver code's text is that of its runtime twin (same number).
tests/test_stackerrors.py checks every row against the installed headers and libraries.

A leaf module: imports nothing of tfdoctor.
"""

from __future__ import annotations

from typing import NamedTuple

# Why a code that names no finding is not a problem of the installation.
NOT_ENVIRONMENT = {
    "success": "not an error: the call succeeded",
    "usage": "an invalid argument, handle or call order: a bug in the program that made the call, not in"
             " the installation",
    "program": "a fault of the program's own kernels or launch configuration (an assert, too many resources"
               " for one launch, nesting limits), not of the installation",
    "capability": "an optional feature the program asked for that this device, driver mode or OS does not"
                  " offer; programs test for it and fall back",
    "state": "a transient or informational state (not ready, in progress, timed out waiting), not a failure"
             " of the installation",
    "profiler": "the profiler's own state, which TensorFlow's GPU use does not depend on",
    "sentinel": "not an error code: a count or base value at the end of the enum",
    "numerics": "the model's numbers became NaN or Inf (learning rate, loss, input data): a fault of the"
                " training, not of the installation",
    "shape": "the program's tensors have shapes, dtypes or values an operation refuses (a model and its data"
             " disagree), not a fault of the installation",
    "python": "a Python error in the program's own code (a name it never defined), not of the installation",
    "data": "a file the program reads (its data, model or configuration) is not at the path it gives, or is"
            " damaged: a fault of the program's paths or data, not of the installation",
    "order": "the program configured TensorFlow's GPUs in a way TensorFlow refuses (memory growth, visible or"
             " virtual devices set after TensorFlow initialised them, or memory growth on some GPUs only): a"
             " fault of the program's set-up code, not of the installation",
    "tf1": "the program was written for TensorFlow 1.x, whose graph-mode API (tf.Session, tf.placeholder,"
           " tf.contrib, ...) TensorFlow 2 moved to tf.compat.v1 or removed: the code's TensorFlow, not the"
           " installation's",
}

# The program's errors whose messages read as ordinary words too (an issue's title "Incompatible shapes"): the
# program's error only where the log reports an error (tfdoctor/checks/log.py)
SAID_IN_PROSE = frozenset({"shape", "python"})


class Code(NamedTuple):
    api: str  # CUresult | cudaError_t | nvmlReturn_t | cudnnStatus_t | cublasStatus_t | ncclResult_t
    number: int
    name: str  # as the header spells it
    message: str  # the library's own text ("" where it has none)
    outcome: str  # a finding id ("cuda.init-failed") or a NOT_ENVIRONMENT key

    @property
    def finding(self) -> str | None:
        return self.outcome if "." in self.outcome else None

    @property
    def reason(self) -> str | None:
        return NOT_ENVIRONMENT.get(self.outcome)

    @property
    def error(self) -> str:
        """The name the checks read: CUDA errors in the driver API's spelling whatever API printed them
        ("NO_DEVICE" for CUDA_ERROR_NO_DEVICE, cudaErrorNoDevice and error 100 alike), others without
        their prefix ("NOT_INITIALIZED" for CUDNN_STATUS_NOT_INITIALIZED)."""
        return _ERROR_NAMES.get((self.api, self.number)) or _strip(self.name)


_ROWS: tuple[tuple[str, int, str, str, str], ...] = (
    ("CUresult", 0, "CUDA_SUCCESS", "", "success"),
    ("CUresult", 1, "CUDA_ERROR_INVALID_VALUE", "", "usage"),
    ("CUresult", 2, "CUDA_ERROR_OUT_OF_MEMORY", "", "gpu.out-of-memory"),
    ("CUresult", 3, "CUDA_ERROR_NOT_INITIALIZED", "", "cuda.init-failed"),
    ("CUresult", 4, "CUDA_ERROR_DEINITIALIZED", "", "state"),
    ("CUresult", 5, "CUDA_ERROR_PROFILER_DISABLED", "", "profiler"),
    ("CUresult", 6, "CUDA_ERROR_PROFILER_NOT_INITIALIZED", "", "profiler"),
    ("CUresult", 7, "CUDA_ERROR_PROFILER_ALREADY_STARTED", "", "profiler"),
    ("CUresult", 8, "CUDA_ERROR_PROFILER_ALREADY_STOPPED", "", "profiler"),
    ("CUresult", 34, "CUDA_ERROR_STUB_LIBRARY", "", "driver.missing"),
    ("CUresult", 46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "", "cuda.init-failed"),
    ("CUresult", 100, "CUDA_ERROR_NO_DEVICE", "", "cuda.init-failed"),
    ("CUresult", 101, "CUDA_ERROR_INVALID_DEVICE", "", "cuda.init-failed"),
    ("CUresult", 102, "CUDA_ERROR_DEVICE_NOT_LICENSED", "", "cuda.init-failed"),
    ("CUresult", 200, "CUDA_ERROR_INVALID_IMAGE", "", "gpu.compute-capability-unsupported"),
    ("CUresult", 201, "CUDA_ERROR_INVALID_CONTEXT", "", "usage"),
    ("CUresult", 202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT", "", "usage"),
    ("CUresult", 205, "CUDA_ERROR_MAP_FAILED", "", "usage"),
    ("CUresult", 206, "CUDA_ERROR_UNMAP_FAILED", "", "usage"),
    ("CUresult", 207, "CUDA_ERROR_ARRAY_IS_MAPPED", "", "usage"),
    ("CUresult", 208, "CUDA_ERROR_ALREADY_MAPPED", "", "usage"),
    ("CUresult", 209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "", "gpu.compute-capability-unsupported"),
    ("CUresult", 210, "CUDA_ERROR_ALREADY_ACQUIRED", "", "usage"),
    ("CUresult", 211, "CUDA_ERROR_NOT_MAPPED", "", "usage"),
    ("CUresult", 212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY", "", "usage"),
    ("CUresult", 213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER", "", "usage"),
    ("CUresult", 214, "CUDA_ERROR_ECC_UNCORRECTABLE", "", "gpu.ecc-errors"),
    ("CUresult", 215, "CUDA_ERROR_UNSUPPORTED_LIMIT", "", "capability"),
    # (only a GPU in an exclusive compute mode refuses a context to a second thread or process)
    ("CUresult", 216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE", "", "gpu.compute-mode-exclusive"),
    ("CUresult", 217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "", "capability"),
    ("CUresult", 218, "CUDA_ERROR_INVALID_PTX", "", "gpu.compute-capability-unsupported"),
    ("CUresult", 219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT", "", "usage"),
    ("CUresult", 220, "CUDA_ERROR_NVLINK_UNCORRECTABLE", "", "gpu.illegal-address"),
    ("CUresult", 221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "", "cuda.init-failed"),
    ("CUresult", 222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "", "driver.too-old"),
    ("CUresult", 223, "CUDA_ERROR_JIT_COMPILATION_DISABLED", "", "capability"),
    ("CUresult", 224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY", "", "capability"),
    ("CUresult", 225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC", "", "program"),
    ("CUresult", 226, "CUDA_ERROR_CONTAINED", "", "gpu.illegal-address"),
    ("CUresult", 300, "CUDA_ERROR_INVALID_SOURCE", "", "usage"),
    ("CUresult", 301, "CUDA_ERROR_FILE_NOT_FOUND", "", "usage"),
    ("CUresult", 302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND", "", "usage"),
    ("CUresult", 303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "", "driver.missing"),
    ("CUresult", 304, "CUDA_ERROR_OPERATING_SYSTEM", "", "cuda.init-failed"),
    ("CUresult", 400, "CUDA_ERROR_INVALID_HANDLE", "", "usage"),
    ("CUresult", 401, "CUDA_ERROR_ILLEGAL_STATE", "", "usage"),
    ("CUresult", 402, "CUDA_ERROR_LOSSY_QUERY", "", "usage"),
    ("CUresult", 500, "CUDA_ERROR_NOT_FOUND", "", "usage"),
    ("CUresult", 600, "CUDA_ERROR_NOT_READY", "", "state"),
    ("CUresult", 700, "CUDA_ERROR_ILLEGAL_ADDRESS", "", "gpu.illegal-address"),
    ("CUresult", 701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "", "program"),
    ("CUresult", 702, "CUDA_ERROR_LAUNCH_TIMEOUT", "", "gpu.illegal-address"),
    ("CUresult", 703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING", "", "capability"),
    ("CUresult", 704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "", "usage"),
    ("CUresult", 705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "", "usage"),
    ("CUresult", 708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE", "", "usage"),
    ("CUresult", 709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "", "usage"),
    ("CUresult", 710, "CUDA_ERROR_ASSERT", "", "program"),
    ("CUresult", 711, "CUDA_ERROR_TOO_MANY_PEERS", "", "capability"),
    ("CUresult", 712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "", "usage"),
    ("CUresult", 713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", "", "usage"),
    ("CUresult", 714, "CUDA_ERROR_HARDWARE_STACK_ERROR", "", "gpu.illegal-address"),
    ("CUresult", 715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "", "gpu.illegal-address"),
    ("CUresult", 716, "CUDA_ERROR_MISALIGNED_ADDRESS", "", "gpu.illegal-address"),
    ("CUresult", 717, "CUDA_ERROR_INVALID_ADDRESS_SPACE", "", "gpu.illegal-address"),
    ("CUresult", 718, "CUDA_ERROR_INVALID_PC", "", "gpu.illegal-address"),
    ("CUresult", 719, "CUDA_ERROR_LAUNCH_FAILED", "", "gpu.illegal-address"),
    ("CUresult", 720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", "", "program"),
    ("CUresult", 721, "CUDA_ERROR_TENSOR_MEMORY_LEAK", "", "program"),
    ("CUresult", 800, "CUDA_ERROR_NOT_PERMITTED", "", "capability"),
    ("CUresult", 801, "CUDA_ERROR_NOT_SUPPORTED", "", "capability"),
    ("CUresult", 802, "CUDA_ERROR_SYSTEM_NOT_READY", "", "cuda.init-failed"),
    ("CUresult", 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "", "driver.too-old"),
    ("CUresult", 804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "", "driver.too-old"),
    ("CUresult", 805, "CUDA_ERROR_MPS_CONNECTION_FAILED", "", "cuda.init-failed"),
    ("CUresult", 806, "CUDA_ERROR_MPS_RPC_FAILURE", "", "cuda.init-failed"),
    ("CUresult", 807, "CUDA_ERROR_MPS_SERVER_NOT_READY", "", "cuda.init-failed"),
    ("CUresult", 808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED", "", "cuda.init-failed"),
    ("CUresult", 809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED", "", "cuda.init-failed"),
    ("CUresult", 810, "CUDA_ERROR_MPS_CLIENT_TERMINATED", "", "cuda.init-failed"),
    ("CUresult", 811, "CUDA_ERROR_CDP_NOT_SUPPORTED", "", "capability"),
    ("CUresult", 812, "CUDA_ERROR_CDP_VERSION_MISMATCH", "", "program"),
    ("CUresult", 900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "", "capability"),
    ("CUresult", 901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "", "usage"),
    ("CUresult", 902, "CUDA_ERROR_STREAM_CAPTURE_MERGE", "", "usage"),
    ("CUresult", 903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", "", "usage"),
    ("CUresult", 904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "", "usage"),
    ("CUresult", 905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", "", "usage"),
    ("CUresult", 906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "", "usage"),
    ("CUresult", 907, "CUDA_ERROR_CAPTURED_EVENT", "", "usage"),
    ("CUresult", 908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", "", "usage"),
    ("CUresult", 909, "CUDA_ERROR_TIMEOUT", "", "state"),
    ("CUresult", 910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", "", "usage"),
    ("CUresult", 911, "CUDA_ERROR_EXTERNAL_DEVICE", "", "program"),
    ("CUresult", 912, "CUDA_ERROR_INVALID_CLUSTER_SIZE", "", "program"),
    ("CUresult", 913, "CUDA_ERROR_FUNCTION_NOT_LOADED", "", "usage"),
    ("CUresult", 914, "CUDA_ERROR_INVALID_RESOURCE_TYPE", "", "usage"),
    ("CUresult", 915, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION", "", "usage"),
    ("CUresult", 916, "CUDA_ERROR_KEY_ROTATION", "", "state"),
    ("CUresult", 999, "CUDA_ERROR_UNKNOWN", "", "cuda.init-failed"),
    ("cudaError_t", 0, "cudaSuccess", "no error", "success"),
    ("cudaError_t", 1, "cudaErrorInvalidValue", "invalid argument", "usage"),
    ("cudaError_t", 2, "cudaErrorMemoryAllocation", "out of memory", "gpu.out-of-memory"),
    ("cudaError_t", 3, "cudaErrorInitializationError", "initialization error", "cuda.init-failed"),
    ("cudaError_t", 4, "cudaErrorCudartUnloading", "driver shutting down", "state"),
    ("cudaError_t", 5, "cudaErrorProfilerDisabled",
     "profiler disabled while using external profiling tool", "profiler"),
    ("cudaError_t", 6, "cudaErrorProfilerNotInitialized",
     "profiler not initialized: call cudaProfilerInitialize()", "profiler"),
    ("cudaError_t", 7, "cudaErrorProfilerAlreadyStarted", "profiler already started", "profiler"),
    ("cudaError_t", 8, "cudaErrorProfilerAlreadyStopped", "profiler already stopped", "profiler"),
    ("cudaError_t", 9, "cudaErrorInvalidConfiguration", "invalid configuration argument", "program"),
    ("cudaError_t", 12, "cudaErrorInvalidPitchValue", "invalid pitch argument", "usage"),
    ("cudaError_t", 13, "cudaErrorInvalidSymbol", "invalid device symbol", "usage"),
    ("cudaError_t", 16, "cudaErrorInvalidHostPointer", "invalid host pointer", "usage"),
    ("cudaError_t", 17, "cudaErrorInvalidDevicePointer", "invalid device pointer", "usage"),
    ("cudaError_t", 18, "cudaErrorInvalidTexture", "invalid texture reference", "usage"),
    ("cudaError_t", 19, "cudaErrorInvalidTextureBinding", "texture is not bound to a pointer", "usage"),
    ("cudaError_t", 20, "cudaErrorInvalidChannelDescriptor", "invalid channel descriptor", "usage"),
    ("cudaError_t", 21, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy", "usage"),
    ("cudaError_t", 22, "cudaErrorAddressOfConstant", "invalid address of constant", "usage"),
    ("cudaError_t", 23, "cudaErrorTextureFetchFailed", "fetch from texture failed", "program"),
    ("cudaError_t", 24, "cudaErrorTextureNotBound", "cannot fetch from a texture that is not bound", "usage"),
    ("cudaError_t", 25, "cudaErrorSynchronizationError", "incorrect use of __syncthreads()", "program"),
    ("cudaError_t", 26, "cudaErrorInvalidFilterSetting",
     "linear filtering not supported for non-float type", "capability"),
    ("cudaError_t", 27, "cudaErrorInvalidNormSetting",
     "read as normalized float not supported for data type", "capability"),
    ("cudaError_t", 28, "cudaErrorMixedDeviceExecution",
     "device emulation mode and device execution mode cannot be mixed", "capability"),
    ("cudaError_t", 31, "cudaErrorNotYetImplemented", "feature not yet implemented", "capability"),
    ("cudaError_t", 32, "cudaErrorMemoryValueTooLarge",
     "memory size or pointer value too large to fit in 32 bit", "usage"),
    ("cudaError_t", 34, "cudaErrorStubLibrary", "CUDA driver is a stub library", "driver.missing"),
    ("cudaError_t", 35, "cudaErrorInsufficientDriver",
     "CUDA driver version is insufficient for CUDA runtime version", "driver.too-old"),
    ("cudaError_t", 36, "cudaErrorCallRequiresNewerDriver",
     "API call is not supported in the installed CUDA driver", "driver.too-old"),
    ("cudaError_t", 37, "cudaErrorInvalidSurface", "invalid surface reference", "usage"),
    ("cudaError_t", 43, "cudaErrorDuplicateVariableName",
     "duplicate global variable looked up by string name", "usage"),
    ("cudaError_t", 44, "cudaErrorDuplicateTextureName",
     "duplicate texture looked up by string name", "usage"),
    ("cudaError_t", 45, "cudaErrorDuplicateSurfaceName",
     "duplicate surface looked up by string name", "usage"),
    ("cudaError_t", 46, "cudaErrorDevicesUnavailable",
     "CUDA-capable device(s) is/are busy or unavailable", "cuda.init-failed"),
    ("cudaError_t", 49, "cudaErrorIncompatibleDriverContext", "incompatible driver context", "usage"),
    ("cudaError_t", 52, "cudaErrorMissingConfiguration",
     "__global__ function call is not configured", "program"),
    ("cudaError_t", 53, "cudaErrorPriorLaunchFailure",
     "unspecified launch failure in prior launch", "gpu.illegal-address"),
    ("cudaError_t", 65, "cudaErrorLaunchMaxDepthExceeded",
     "launch would exceed maximum depth of nested launches", "program"),
    ("cudaError_t", 66, "cudaErrorLaunchFileScopedTex",
     "launch failed because kernel uses unsupported, file-scoped textures (texture objects are "
     "supported)", "program"),
    ("cudaError_t", 67, "cudaErrorLaunchFileScopedSurf",
     "launch failed because kernel uses unsupported, file-scoped surfaces (surface objects are "
     "supported)", "program"),
    ("cudaError_t", 68, "cudaErrorSyncDepthExceeded",
     "cudaDeviceSynchronize failed because caller's grid depth exceeds "
     "cudaLimitDevRuntimeSyncDepth", "program"),
    ("cudaError_t", 69, "cudaErrorLaunchPendingCountExceeded",
     "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount", "program"),
    ("cudaError_t", 98, "cudaErrorInvalidDeviceFunction",
     "invalid device function", "gpu.compute-capability-unsupported"),
    ("cudaError_t", 100, "cudaErrorNoDevice", "no CUDA-capable device is detected", "cuda.init-failed"),
    ("cudaError_t", 101, "cudaErrorInvalidDevice", "invalid device ordinal", "cuda.init-failed"),
    ("cudaError_t", 102, "cudaErrorDeviceNotLicensed",
     "device doesn't have valid Grid license", "cuda.init-failed"),
    ("cudaError_t", 103, "cudaErrorSoftwareValidityNotEstablished",
     "integrity checks failed", "cuda.init-failed"),
    ("cudaError_t", 127, "cudaErrorStartupFailure", "startup failure in cuda runtime", "cuda.init-failed"),
    ("cudaError_t", 200, "cudaErrorInvalidKernelImage",
     "device kernel image is invalid", "gpu.compute-capability-unsupported"),
    ("cudaError_t", 201, "cudaErrorDeviceUninitialized", "invalid device context", "usage"),
    ("cudaError_t", 205, "cudaErrorMapBufferObjectFailed", "mapping of buffer object failed", "usage"),
    ("cudaError_t", 206, "cudaErrorUnmapBufferObjectFailed", "unmapping of buffer object failed", "usage"),
    ("cudaError_t", 207, "cudaErrorArrayIsMapped", "array is mapped", "usage"),
    ("cudaError_t", 208, "cudaErrorAlreadyMapped", "resource already mapped", "usage"),
    ("cudaError_t", 209, "cudaErrorNoKernelImageForDevice",
     "no kernel image is available for execution on the device", "gpu.compute-capability-unsupported"),
    ("cudaError_t", 210, "cudaErrorAlreadyAcquired", "resource already acquired", "usage"),
    ("cudaError_t", 211, "cudaErrorNotMapped", "resource not mapped", "usage"),
    ("cudaError_t", 212, "cudaErrorNotMappedAsArray", "resource not mapped as array", "usage"),
    ("cudaError_t", 213, "cudaErrorNotMappedAsPointer", "resource not mapped as pointer", "usage"),
    ("cudaError_t", 214, "cudaErrorECCUncorrectable",
     "uncorrectable ECC error encountered", "gpu.ecc-errors"),
    ("cudaError_t", 215, "cudaErrorUnsupportedLimit",
     "limit is not supported on this architecture", "capability"),
    ("cudaError_t", 216, "cudaErrorDeviceAlreadyInUse",
     "exclusive-thread device already in use by a different thread", "gpu.compute-mode-exclusive"),
    ("cudaError_t", 217, "cudaErrorPeerAccessUnsupported",
     "peer access is not supported between these two devices", "capability"),
    ("cudaError_t", 218, "cudaErrorInvalidPtx",
     "a PTX JIT compilation failed", "gpu.compute-capability-unsupported"),
    ("cudaError_t", 219, "cudaErrorInvalidGraphicsContext", "invalid OpenGL or DirectX context", "usage"),
    ("cudaError_t", 220, "cudaErrorNvlinkUncorrectable",
     "uncorrectable NVLink error detected during the execution", "gpu.illegal-address"),
    ("cudaError_t", 221, "cudaErrorJitCompilerNotFound",
     "PTX JIT compiler library not found", "cuda.init-failed"),
    ("cudaError_t", 222, "cudaErrorUnsupportedPtxVersion",
     "the provided PTX was compiled with an unsupported toolchain.", "driver.too-old"),
    ("cudaError_t", 223, "cudaErrorJitCompilationDisabled", "PTX JIT compilation was disabled", "capability"),
    ("cudaError_t", 224, "cudaErrorUnsupportedExecAffinity",
     "the provided execution affinity is not supported", "capability"),
    ("cudaError_t", 225, "cudaErrorUnsupportedDevSideSync",
     "the provided PTX contains unsupported call to cudaDeviceSynchronize", "program"),
    ("cudaError_t", 226, "cudaErrorContained",
     "Invalid access of peer GPU memory over nvlink or a hardware error", "gpu.illegal-address"),
    ("cudaError_t", 300, "cudaErrorInvalidSource", "device kernel image is invalid", "usage"),
    ("cudaError_t", 301, "cudaErrorFileNotFound", "file not found", "usage"),
    ("cudaError_t", 302, "cudaErrorSharedObjectSymbolNotFound", "shared object symbol not found", "usage"),
    ("cudaError_t", 303, "cudaErrorSharedObjectInitFailed",
     "shared object initialization failed", "driver.missing"),
    ("cudaError_t", 304, "cudaErrorOperatingSystem",
     "OS call failed or operation not supported on this OS", "cuda.init-failed"),
    ("cudaError_t", 400, "cudaErrorInvalidResourceHandle", "invalid resource handle", "usage"),
    ("cudaError_t", 401, "cudaErrorIllegalState",
     "the operation cannot be performed in the present state", "usage"),
    ("cudaError_t", 402, "cudaErrorLossyQuery",
     "attempted introspection would be semantically lossy", "usage"),
    ("cudaError_t", 500, "cudaErrorSymbolNotFound", "named symbol not found", "usage"),
    ("cudaError_t", 600, "cudaErrorNotReady", "device not ready", "state"),
    ("cudaError_t", 700, "cudaErrorIllegalAddress",
     "an illegal memory access was encountered", "gpu.illegal-address"),
    ("cudaError_t", 701, "cudaErrorLaunchOutOfResources",
     "too many resources requested for launch", "program"),
    ("cudaError_t", 702, "cudaErrorLaunchTimeout",
     "the launch timed out and was terminated", "gpu.illegal-address"),
    ("cudaError_t", 703, "cudaErrorLaunchIncompatibleTexturing",
     "launch uses incompatible texturing mode", "capability"),
    ("cudaError_t", 704, "cudaErrorPeerAccessAlreadyEnabled", "peer access is already enabled", "usage"),
    ("cudaError_t", 705, "cudaErrorPeerAccessNotEnabled", "peer access has not been enabled", "usage"),
    ("cudaError_t", 708, "cudaErrorSetOnActiveProcess",
     "cannot set while device is active in this process", "usage"),
    ("cudaError_t", 709, "cudaErrorContextIsDestroyed", "context is destroyed", "usage"),
    ("cudaError_t", 710, "cudaErrorAssert", "device-side assert triggered", "program"),
    ("cudaError_t", 711, "cudaErrorTooManyPeers", "peer mapping resources exhausted", "capability"),
    ("cudaError_t", 712, "cudaErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped", "usage"),
    ("cudaError_t", 713, "cudaErrorHostMemoryNotRegistered",
     "pointer does not correspond to a registered memory region", "usage"),
    ("cudaError_t", 714, "cudaErrorHardwareStackError", "hardware stack error", "gpu.illegal-address"),
    ("cudaError_t", 715, "cudaErrorIllegalInstruction",
     "an illegal instruction was encountered", "gpu.illegal-address"),
    ("cudaError_t", 716, "cudaErrorMisalignedAddress", "misaligned address", "gpu.illegal-address"),
    ("cudaError_t", 717, "cudaErrorInvalidAddressSpace",
     "operation not supported on global/shared address space", "gpu.illegal-address"),
    ("cudaError_t", 718, "cudaErrorInvalidPc", "invalid program counter", "gpu.illegal-address"),
    ("cudaError_t", 719, "cudaErrorLaunchFailure", "unspecified launch failure", "gpu.illegal-address"),
    ("cudaError_t", 720, "cudaErrorCooperativeLaunchTooLarge",
     "too many blocks in cooperative launch", "program"),
    ("cudaError_t", 721, "cudaErrorTensorMemoryLeak", "tensor memory not completely freed", "program"),
    ("cudaError_t", 800, "cudaErrorNotPermitted", "operation not permitted", "capability"),
    ("cudaError_t", 801, "cudaErrorNotSupported", "operation not supported", "capability"),
    ("cudaError_t", 802, "cudaErrorSystemNotReady", "system not yet initialized", "cuda.init-failed"),
    ("cudaError_t", 803, "cudaErrorSystemDriverMismatch",
     "system has unsupported display driver / cuda driver combination", "driver.too-old"),
    ("cudaError_t", 804, "cudaErrorCompatNotSupportedOnDevice",
     "forward compatibility was attempted on non supported HW", "driver.too-old"),
    ("cudaError_t", 805, "cudaErrorMpsConnectionFailed",
     "MPS client failed to connect to the MPS control daemon or the MPS server", "cuda.init-failed"),
    ("cudaError_t", 806, "cudaErrorMpsRpcFailure",
     "the remote procedural call between the MPS server and the MPS client failed", "cuda.init-failed"),
    ("cudaError_t", 807, "cudaErrorMpsServerNotReady",
     "MPS server is not ready to accept new MPS client requests", "cuda.init-failed"),
    ("cudaError_t", 808, "cudaErrorMpsMaxClientsReached",
     "the hardware resources required to create MPS client have been exhausted", "cuda.init-failed"),
    ("cudaError_t", 809, "cudaErrorMpsMaxConnectionsReached",
     "the hardware resources required to support device connections have been exhausted", "cuda.init-failed"),
    ("cudaError_t", 810, "cudaErrorMpsClientTerminated",
     "the MPS client has been terminated by the server", "cuda.init-failed"),
    ("cudaError_t", 811, "cudaErrorCdpNotSupported",
     "is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not "
     "support it", "capability"),
    ("cudaError_t", 812, "cudaErrorCdpVersionMismatch",
     "unsupported interaction between different versions of CUDA Dynamic Parallelism", "program"),
    ("cudaError_t", 900, "cudaErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing", "capability"),
    ("cudaError_t", 901, "cudaErrorStreamCaptureInvalidated",
     "operation failed due to a previous error during capture", "usage"),
    ("cudaError_t", 902, "cudaErrorStreamCaptureMerge",
     "operation would result in a merge of separate capture sequences", "usage"),
    ("cudaError_t", 903, "cudaErrorStreamCaptureUnmatched",
     "capture was not ended in the same stream as it began", "usage"),
    ("cudaError_t", 904, "cudaErrorStreamCaptureUnjoined", "capturing stream has unjoined work", "usage"),
    ("cudaError_t", 905, "cudaErrorStreamCaptureIsolation",
     "dependency created on uncaptured work in another stream", "usage"),
    ("cudaError_t", 906, "cudaErrorStreamCaptureImplicit",
     "operation would make the legacy stream depend on a capturing blocking stream", "usage"),
    ("cudaError_t", 907, "cudaErrorCapturedEvent",
     "operation not permitted on an event last recorded in a capturing stream", "usage"),
    ("cudaError_t", 908, "cudaErrorStreamCaptureWrongThread",
     "attempt to terminate a thread-local capture sequence from another thread", "usage"),
    ("cudaError_t", 909, "cudaErrorTimeout", "wait operation timed out", "state"),
    ("cudaError_t", 910, "cudaErrorGraphExecUpdateFailure",
     "the graph update was not performed because it included changes which violated constraints "
     "specific to instantiated graph update", "usage"),
    ("cudaError_t", 911, "cudaErrorExternalDevice",
     "an async error has occured in external entity outside of CUDA", "program"),
    ("cudaError_t", 912, "cudaErrorInvalidClusterSize",
     "a kernel launch error has occurred due to cluster misconfiguration", "program"),
    ("cudaError_t", 913, "cudaErrorFunctionNotLoaded",
     "the function handle is not loaded when calling an API that requires a loaded function", "usage"),
    ("cudaError_t", 914, "cudaErrorInvalidResourceType",
     "one or more resources passed in are not valid resource types for the operation", "usage"),
    ("cudaError_t", 915, "cudaErrorInvalidResourceConfiguration",
     "one or more resources are insufficient or non-applicable for the operation", "usage"),
    ("cudaError_t", 999, "cudaErrorUnknown", "unknown error", "cuda.init-failed"),
    ("cudaError_t", 10000, "cudaErrorApiFailureBase", "api failure base", "sentinel"),
    ("nvmlReturn_t", 0, "NVML_SUCCESS", "", "success"),
    ("nvmlReturn_t", 1, "NVML_ERROR_UNINITIALIZED", "Uninitialized", "usage"),
    ("nvmlReturn_t", 2, "NVML_ERROR_INVALID_ARGUMENT", "Invalid Argument", "usage"),
    ("nvmlReturn_t", 3, "NVML_ERROR_NOT_SUPPORTED", "Not Supported", "capability"),
    ("nvmlReturn_t", 4, "NVML_ERROR_NO_PERMISSION", "Insufficient Permissions", "nvml.no-permission"),
    ("nvmlReturn_t", 5, "NVML_ERROR_ALREADY_INITIALIZED", "Already Initialized", "usage"),
    ("nvmlReturn_t", 6, "NVML_ERROR_NOT_FOUND", "Not Found", "usage"),
    ("nvmlReturn_t", 7, "NVML_ERROR_INSUFFICIENT_SIZE", "Insufficient Size", "usage"),
    ("nvmlReturn_t", 8, "NVML_ERROR_INSUFFICIENT_POWER", "Insufficient External Power", "gpu.lost"),
    ("nvmlReturn_t", 9, "NVML_ERROR_DRIVER_NOT_LOADED", "Driver Not Loaded", "driver.missing"),
    ("nvmlReturn_t", 10, "NVML_ERROR_TIMEOUT", "Timeout", "state"),
    ("nvmlReturn_t", 11, "NVML_ERROR_IRQ_ISSUE", "Interrupt Request Issue", "gpu.lost"),
    ("nvmlReturn_t", 12, "NVML_ERROR_LIBRARY_NOT_FOUND", "NVML Shared Library Not Found", "driver.missing"),
    # (the libnvidia-ml found lacks a function its caller needs: not the loaded driver's, or older than it)
    ("nvmlReturn_t", 13, "NVML_ERROR_FUNCTION_NOT_FOUND", "Function Not Found", "driver.library-mismatch"),
    ("nvmlReturn_t", 14, "NVML_ERROR_CORRUPTED_INFOROM", "Corrupted infoROM", "gpu.lost"),
    ("nvmlReturn_t", 15, "NVML_ERROR_GPU_IS_LOST", "GPU is lost", "gpu.lost"),
    ("nvmlReturn_t", 16, "NVML_ERROR_RESET_REQUIRED", "GPU requires restart", "gpu.lost"),
    ("nvmlReturn_t", 17, "NVML_ERROR_OPERATING_SYSTEM",
     "The operating system has blocked the request.", "nvml.no-permission"),
    ("nvmlReturn_t", 18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
     "RM has detected an NVML/RM version mismatch.", "driver.library-mismatch"),
    ("nvmlReturn_t", 19, "NVML_ERROR_IN_USE", "", "state"),
    ("nvmlReturn_t", 20, "NVML_ERROR_MEMORY", "Insufficient Memory", "state"),
    ("nvmlReturn_t", 21, "NVML_ERROR_NO_DATA", "", "state"),
    ("nvmlReturn_t", 22, "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED", "", "capability"),
    ("nvmlReturn_t", 23, "NVML_ERROR_INSUFFICIENT_RESOURCES", "", "state"),
    ("nvmlReturn_t", 24, "NVML_ERROR_FREQ_NOT_SUPPORTED", "", "capability"),
    ("nvmlReturn_t", 25, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH", "", "usage"),
    ("nvmlReturn_t", 26, "NVML_ERROR_DEPRECATED", "", "capability"),
    ("nvmlReturn_t", 27, "NVML_ERROR_NOT_READY", "", "state"),
    ("nvmlReturn_t", 28, "NVML_ERROR_GPU_NOT_FOUND", "", "driver.missing"),
    ("nvmlReturn_t", 29, "NVML_ERROR_INVALID_STATE", "", "state"),
    ("nvmlReturn_t", 30, "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED", "", "capability"),
    ("nvmlReturn_t", 999, "NVML_ERROR_UNKNOWN", "Unknown Error", "nvml.no-permission"),
    ("cudnnStatus_t", 0, "CUDNN_STATUS_SUCCESS", "", "success"),
    ("cudnnStatus_t", 1001, "CUDNN_STATUS_NOT_INITIALIZED", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 1002, "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 1003, "CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH", "", "usage"),
    ("cudnnStatus_t", 1004, "CUDNN_STATUS_DEPRECATED", "", "capability"),
    ("cudnnStatus_t", 1005, "CUDNN_STATUS_LICENSE_ERROR", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 1006, "CUDNN_STATUS_RUNTIME_IN_PROGRESS", "", "state"),
    ("cudnnStatus_t", 1007, "CUDNN_STATUS_RUNTIME_FP_OVERFLOW", "", "program"),
    # cuDNN 9's engine sub-libraries (libcudnn_engines_*.so.9): one of its install's parts is not there
    ("cudnnStatus_t", 1008, "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED", "", "cudnn.missing"),
    ("cudnnStatus_t", 2000, "CUDNN_STATUS_BAD_PARAM", "", "usage"),
    ("cudnnStatus_t", 2002, "CUDNN_STATUS_BAD_PARAM_NULL_POINTER", "", "usage"),
    ("cudnnStatus_t", 2003, "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER", "", "usage"),
    ("cudnnStatus_t", 2004, "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED", "", "usage"),
    ("cudnnStatus_t", 2005, "CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND", "", "usage"),
    ("cudnnStatus_t", 2006, "CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT", "", "usage"),
    ("cudnnStatus_t", 2007, "CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH", "", "usage"),
    ("cudnnStatus_t", 2008, "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH", "", "usage"),
    ("cudnnStatus_t", 2009, "CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES", "", "usage"),
    ("cudnnStatus_t", 2010, "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE", "", "usage"),
    ("cudnnStatus_t", 2011, "CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH", "", "usage"),
    ("cudnnStatus_t", 2012, "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE", "", "usage"),
    ("cudnnStatus_t", 3000, "CUDNN_STATUS_NOT_SUPPORTED", "", "capability"),
    ("cudnnStatus_t", 3001, "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN", "", "capability"),
    ("cudnnStatus_t", 3002, "CUDNN_STATUS_NOT_SUPPORTED_SHAPE", "", "capability"),
    ("cudnnStatus_t", 3003, "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE", "", "capability"),
    ("cudnnStatus_t", 3004, "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT", "", "capability"),
    ("cudnnStatus_t", 3005, "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER", "", "driver.too-old"),
    ("cudnnStatus_t", 3006, "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 3007, "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH",
     "", "gpu.compute-capability-unsupported"),
    ("cudnnStatus_t", 3008, "CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING",
     "", "cudnn.init-failed"),
    ("cudnnStatus_t", 3009, "CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 3010, "CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT", "", "capability"),
    ("cudnnStatus_t", 3011, "CUDNN_STATUS_NOT_SUPPORTED_PADDING", "", "capability"),
    ("cudnnStatus_t", 3012, "CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM", "", "capability"),
    ("cudnnStatus_t", 3013, "CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API", "", "capability"),
    ("cudnnStatus_t", 3014, "CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE", "", "capability"),
    ("cudnnStatus_t", 4000, "CUDNN_STATUS_INTERNAL_ERROR", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 4001, "CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 4002, "CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE", "", "cudnn.init-failed"),
    # cuDNN could not allocate what it needs to start (legacy CUDNN_STATUS_ALLOC_FAILED, 4003 since cuDNN 9):
    # like cuBLAS's ALLOC_FAILED, a failure to start, most often because TensorFlow already reserved the GPU's
    # memory, as those who meet it name it; its fix is memory growth
    ("cudnnStatus_t", 4003, "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 4004, "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED", "", "gpu.out-of-memory"),
    ("cudnnStatus_t", 4005, "CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 4006, "CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 5000, "CUDNN_STATUS_EXECUTION_FAILED", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 5001, "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 5002, "CUDNN_STATUS_EXECUTION_FAILED_CUBLAS", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 5003, "CUDNN_STATUS_EXECUTION_FAILED_CUDART", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 5004, "CUDNN_STATUS_EXECUTION_FAILED_CURAND", "", "cudnn.init-failed"),
    ("cudnnStatus_t", 4003, "CUDNN_STATUS_ALLOC_FAILED",
     "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED", "cudnn.init-failed"),
    ("cudnnStatus_t", 2001, "CUDNN_STATUS_INVALID_VALUE", "", "usage"),
    ("cudnnStatus_t", 3007, "CUDNN_STATUS_ARCH_MISMATCH",
     "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH", "gpu.compute-capability-unsupported"),
    ("cudnnStatus_t", 4006, "CUDNN_STATUS_MAPPING_ERROR",
     "CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED", "cudnn.init-failed"),
    ("cudnnStatus_t", 3008, "CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING",
     "CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING", "cudnn.init-failed"),
    ("cudnnStatus_t", 1002, "CUDNN_STATUS_VERSION_MISMATCH",
     "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH", "cudnn.init-failed"),
    ("cublasStatus_t", 0, "CUBLAS_STATUS_SUCCESS", "success", "success"),
    ("cublasStatus_t", 1, "CUBLAS_STATUS_NOT_INITIALIZED",
     "the library was not initialized", "cublas.init-failed"),
    # cuBLAS could not allocate its handle's workspace: it failed to start (most often because TensorFlow
    # already reserved the GPU's memory), as those who meet it name it, and its fix is memory growth
    ("cublasStatus_t", 3, "CUBLAS_STATUS_ALLOC_FAILED",
     "the resource allocation failed", "cublas.init-failed"),
    ("cublasStatus_t", 7, "CUBLAS_STATUS_INVALID_VALUE",
     "an unsupported value or parameter was passed to the function", "usage"),
    ("cublasStatus_t", 8, "CUBLAS_STATUS_ARCH_MISMATCH",
     "the function requires an architectural feature absent from the device",
     "gpu.compute-capability-unsupported"),
    ("cublasStatus_t", 11, "CUBLAS_STATUS_MAPPING_ERROR",
     "an access to GPU memory space failed", "cublas.init-failed"),
    ("cublasStatus_t", 13, "CUBLAS_STATUS_EXECUTION_FAILED",
     "the function failed to launch on the GPU", "cublas.init-failed"),
    ("cublasStatus_t", 14, "CUBLAS_STATUS_INTERNAL_ERROR",
     "an internal operation failed", "cublas.init-failed"),
    ("cublasStatus_t", 15, "CUBLAS_STATUS_NOT_SUPPORTED",
     "the requested functionality is not supported", "capability"),
    ("cublasStatus_t", 16, "CUBLAS_STATUS_LICENSE_ERROR", "the license check failed", "cublas.init-failed"),
    ("ncclResult_t", 0, "ncclSuccess", "no error", "success"),
    ("ncclResult_t", 1, "ncclUnhandledCudaError",
     "unhandled cuda error (run with NCCL_DEBUG=INFO for details)", "nccl.error"),
    ("ncclResult_t", 2, "ncclSystemError",
     "unhandled system error (run with NCCL_DEBUG=INFO for details)", "nccl.error"),
    ("ncclResult_t", 3, "ncclInternalError",
     "internal error - please report this issue to the NCCL developers", "nccl.error"),
    ("ncclResult_t", 4, "ncclInvalidArgument",
     "invalid argument (run with NCCL_DEBUG=WARN for details)", "nccl.error"),
    ("ncclResult_t", 5, "ncclInvalidUsage",
     "invalid usage (run with NCCL_DEBUG=WARN for details)", "nccl.error"),
    ("ncclResult_t", 6, "ncclRemoteError",
     "remote process exited or there was a network error", "nccl.error"),
    ("ncclResult_t", 7, "ncclInProgress", "NCCL operation in progress", "state"),
    ("ncclResult_t", 8, "ncclTimeout", "timeout", "nccl.error"),
    ("ncclResult_t", 9, "ncclNumResults", "unknown result code", "sentinel"),
)
CODES: tuple[Code, ...] = tuple(Code(*row) for row in _ROWS)

# Other texts printed for the same codes: older cudart's, TensorFlow's on too old a driver, nvidia-smi's,
# NVIDIA's Go binding's (go-nvml, used by the k8s device plugin and the container toolkit:
# https://github.com/NVIDIA/go-nvml) when libnvidia-ml.so.1 cannot be opened, and libnvidia-ml's own
# nvmlErrorString where the Python binding words a code otherwise.
OLDER_MESSAGES = {
    "gpu access blocked by the operating system": "NVML_ERROR_OPERATING_SYSTEM",
    "could not load nvml library": "NVML_ERROR_LIBRARY_NOT_FOUND",
    "all cuda-capable devices are busy or unavailable": "cudaErrorDevicesUnavailable",
    "driver/library version mismatch": "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
    # PyTorch's words for cudaErrorUnknown when it counts the devices (torch/csrc/cuda, c10/cuda)
    "cuda unknown error - this may be due to an incorrectly set up environment": "cudaErrorUnknown",
    # older NCCL releases' ncclGetErrorString, before the advice it now adds ("(run with NCCL_DEBUG=INFO for
    # details)"): https://github.com/NVIDIA/nccl (src/init.cc); Horovod prints "NCCL async error: ..." with it
    "unhandled cuda error": "ncclUnhandledCudaError",
    "unhandled system error": "ncclSystemError",
    "internal error": "ncclInternalError",
    "invalid argument": "ncclInvalidArgument",
    "invalid usage": "ncclInvalidUsage",
    # jaxlib's own words for cuBLAS's statuses (jaxlib/gpu/gpu_kernel_helpers.cc, https://github.com/jax-ml/jax):
    # "operation cublasGetVersion( nullptr, &version) failed: cuBlas internal error"
    "cublas has not been initialized": "CUBLAS_STATUS_NOT_INITIALIZED",
    "cublas allocation failure": "CUBLAS_STATUS_ALLOC_FAILED",
    "cublas architecture mismatch": "CUBLAS_STATUS_ARCH_MISMATCH",
    "cublas execution failed": "CUBLAS_STATUS_EXECUTION_FAILED",
    "cublas internal error": "CUBLAS_STATUS_INTERNAL_ERROR",
}

# Words a line must hold for a bare message of each API to count (a message is plain English: "out of
# memory" alone could be anyone's).
CONTEXT = {"CUresult": ("cuda", "cuinit", "gpu"), "cudaError_t": ("cuda", "gpu"), "nvmlReturn_t": ("nvml",),
           "cudnnStatus_t": ("cudnn",), "cublasStatus_t": ("cublas", "blas"), "ncclResult_t": ("nccl",)}


def _strip(name: str) -> str:
    for prefix in ("CUDA_ERROR_", "NVML_ERROR_", "CUDNN_STATUS_", "CUBLAS_STATUS_", "NVML_", "CUDA_"):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def _snake(camel: str) -> str:
    out = []
    for i, ch in enumerate(camel):
        after_lower = i and not camel[i - 1].isupper()
        ends_acronym = i and i + 1 < len(camel) and camel[i + 1].islower()
        if ch.isupper() and (after_lower or ends_acronym):
            out.append("_")
        out.append(ch.upper())
    return "".join(out)


_RUNTIME_ONLY = {98: "NO_BINARY_FOR_GPU"}  # cudaErrorInvalidDeviceFunction: no kernel for this GPU


def _error_names() -> dict[tuple[str, int], str]:
    driver = {c.number: _strip(c.name) for c in CODES if c.api == "CUresult"}
    names = {}
    for c in CODES:
        if c.api == "cudaError_t":  # the runtime numbers its errors as the driver does
            name = driver.get(c.number) or _RUNTIME_ONLY.get(c.number)
            names[(c.api, c.number)] = name or _snake(c.name[len("cudaError"):])
        elif c.api == "ncclResult_t":
            names[(c.api, c.number)] = _snake(c.name[4:])
    return names


_ERROR_NAMES = _error_names()

BY_NAME: dict[str, Code] = {c.name: c for c in CODES}
# nvidia-ml-py raises NVML's codes as exception classes named from them: NVML_ERROR_NO_PERMISSION is
# NVMLError_NoPermission (pynvml.py, _extractNVMLErrorsAsClasses)
BY_NAME.update({"NVMLError_" + c.name[len("NVML_ERROR_"):].title().replace("_", ""): c
                for c in CODES if c.api == "nvmlReturn_t" and c.name.startswith("NVML_ERROR_")})
BY_NUMBER: dict[tuple[str, int], Code] = {}
BY_MESSAGE: dict[str, tuple[Code, ...]] = {}
for _c in CODES:
    BY_NUMBER.setdefault((_c.api, _c.number), _c)
    _key = _c.message.lower().rstrip(".")
    if _key:
        BY_MESSAGE[_key] = (*BY_MESSAGE.get(_key, ()), _c)
for _text, _name in OLDER_MESSAGES.items():
    if BY_NAME[_name] not in BY_MESSAGE.get(_text, ()):
        BY_MESSAGE[_text] = (*BY_MESSAGE.get(_text, ()), BY_NAME[_name])
# one text, several codes (cudart's "device kernel image is invalid" is 200 and 300; "unknown error" is
# CUDA's and NVML's): those that name a finding first
BY_MESSAGE = {k: tuple(sorted(v, key=lambda c: c.finding is None)) for k, v in BY_MESSAGE.items()}


def by_name(name: str) -> Code | None:
    return BY_NAME.get(name)


def by_number(api: str, number: int) -> Code | None:
    return BY_NUMBER.get((api, number))


def by_message(text: str) -> tuple[Code, ...]:
    """The codes whose library prints this text (most often one)."""
    return BY_MESSAGE.get(text.strip().lower().rstrip("."), ())


def errors_for(finding: str) -> frozenset[str]:
    """The CUDA error names (driver spelling) that are evidence for one finding id."""
    return frozenset(c.error for c in CODES if c.finding == finding and c.api in ("CUresult", "cudaError_t"))


# --- shared libraries TensorFlow loads by name (dlopen / LoadLibrary) --------------------------------
class Library(NamedTuple):
    stem: str  # lower-case file stem without "lib" and version: "cudart", "cudnn_ops", "nvinfer"
    family: str
    outcome: str  # the finding its absence is evidence for, or "optional: why it is harmless"


LIBRARIES: tuple[Library, ...] = (
    Library("cuda", "driver", "driver.missing"),  # libcuda.so.1 (the driver's), nvcuda.dll
    Library("nvcuda", "driver", "driver.missing"),
    Library("nvidia-ml", "driver", "driver.missing"),
    Library("cudart", "cuda-runtime", "cuda.libraries-missing"),
    Library("cublas", "cuda-runtime", "cuda.libraries-missing"),
    Library("cublaslt", "cuda-runtime", "cuda.libraries-missing"),
    Library("cufft", "cuda-runtime", "cuda.libraries-missing"),
    Library("curand", "cuda-runtime", "cuda.libraries-missing"),
    Library("cusolver", "cuda-runtime", "cuda.libraries-missing"),
    Library("cusparse", "cuda-runtime", "cuda.libraries-missing"),
    Library("nvjitlink", "cuda-runtime", "cuda.libraries-missing"),
    Library("nvrtc", "cuda-runtime", "cuda.libraries-missing"),
    Library("cudnn", "cudnn", "cudnn.missing"),  # and its parts: cudnn_ops, cudnn_cnn, cudnn_graph...
    # cuDNN 8's Windows DLLs load zlib's zlibwapi.dll (NVIDIA's cuDNN 8 install guide: "Installing Zlib")
    Library("zlibwapi", "cudnn", "cudnn.missing"),
    Library("nccl", "nccl", "optional: all-reduce across GPUs only; its failures are NCCL's own errors"),
    Library("cupti", "cupti", "optional: the profiler's library, loaded only to profile"),
    Library("nvinfer", "tensorrt", "optional: TensorRT, used only by TF-TRT; TensorFlow runs without it"),
    Library("nvinfer_plugin", "tensorrt", "optional: TensorRT's plugins, used only by TF-TRT"),
)


def library(name: str) -> Library | None:
    """'libcudnn_ops.so.9' | 'cublas64_12.dll' | 'libnvinfer.so.7' -> its row: the longest stem the
    file's stem is, or opens followed by a non-letter ("cudnn_ops", "cudart64_110")."""
    stem = name.lower().removeprefix("lib").split(".", 1)[0]
    best = None
    for lib in LIBRARIES:
        fits = stem == lib.stem or (stem.startswith(lib.stem) and not stem[len(lib.stem)].isalpha())
        if fits and (best is None or len(lib.stem) > len(best.stem)):
            best = lib
    return best


# --- harmless lines: TensorFlow prints them on healthy machines -----------------------------------
# name -> (why it is harmless, the forms it takes: lower-case words a line holds all of). Such a line
# is read as that notice: never evidence of a failure, never an unrecognised error.
_CPU = "the CPU supports instructions this build does not use: a speed note, not an error"
_GRAPPLER_PASSES = ("layout", "remapper", "loop_optimizer", "arithmetic_optimizer", "constant_folding",
                    "dependency_optimizer", "shape_optimizer", "function_optimizer", "model_pruner",
                    "implementation_selector", "memory_optimizer", "auto_mixed_precision",
                    "pin_to_host_optimizer", "scoped_allocator_optimizer", "debug_stripper",
                    "common_subgraph_elimination")
NOISE: dict[str, tuple[str, tuple[tuple[str, ...], ...]]] = {
    # (TensorFlow's own notices; not any line naming TensorRT: TF-TRT's stub failing where a program converts
    # with it is a failure, and a person's sentence about TensorRT says whatever it says)
    "tensorrt-missing": ("TensorRT is optional (TF-TRT only); TensorFlow uses the GPU without it",
                         (("libnvinfer",), ("tf-trt warning",), ("could not find tensorrt",),
                          ("cannot dlopen some tensorrt",),
                          ("tensorrt", "can't find a gpu device to work with"),
                          ("tf2tensorrt", "can't identify the cuda device"))),
    "numa-node": ("the kernel reports no NUMA affinity for the GPU (-1, or no numa_node file in WSL2 and"
                  " some VMs); TensorFlow uses node 0", (("numa node",), ("numa_node",))),
    "factory-registered": ("cuDNN/cuFFT/cuBLAS plugins registered twice as XLA and TensorFlow load:"
                           " informational", (("factory", "already been registered"),
                                              ("unable to register", "factory"))),
    "onednn": ("oneDNN CPU optimisations are on: informational", (("onednn custom operations",),)),
    "cpu-features": (_CPU, (("optimized to use available cpu instructions",),
                            ("to use the following cpu instructions",),
                            ("binary was not compiled to use",),
                            ("rebuild tensorflow with the appropriate compiler flags",))),
    # meta_optimizer.cc logs "<pass> failed: <status>" and keeps the graph as it was (the passes:
    # https://www.tensorflow.org/guide/graph_optimization)
    # (dependency_optimizer.cc, at error level: "Iteration = 0, topological sort failed with message: The
    # graph couldn't be sorted in topological order.")
    "grappler-pass": ("a Grappler optimization pass skipped a graph it cannot rewrite: it runs"
                      " unoptimised", (("layout failed", "permutation"), ("topological sort failed",),
                                       *((f"{p} failed:",) for p in _GRAPPLER_PASSES))),
    # grappler/clusters/utils.cc asking for the properties of a GPU the session has not registered yet
    # (TensorFlow 1.x, logged at error level): Grappler plans without them and the GPU runs as usual
    "grappler-device-properties": ("Grappler looked up a GPU before the session registered it: it plans"
                                   " without the GPU's properties",
                                   (("tf gpu device with id", "was not registered"),)),
    # XLA's slow_operation_alarm.cc, logged at error level: an autotuning attempt or a compile is slow
    # ("Trying algorithm eng0{} for conv ... is taking a while...", "The operation took 2.1s", "Very slow
    # compile?")
    "xla-slow-operation": ("XLA says an autotuning attempt or a compilation is slow: a speed notice, not a"
                           " failure", (("trying algorithm", "is taking a while"), ("the operation took ",),
                                        ("very slow compile?",), ("trying algorithm", " for conv "),
                                        ("constant folding an instruction is taking",))),
    # JAX asking for each backend its platforms could name (JAX_PLATFORMS=gpu tries CUDA and ROCm): a
    # backend this build lacks, where CUDA registered, or a TPU on a machine without one
    "jax-backend-absent": ("JAX probed a backend this build or machine does not have (ROCm where CUDA is"
                           " registered, a TPU): informational",
                           (("unable to initialize backend 'rocm'", " cuda"),
                            ("unable to initialize backend 'tpu'",))),
    # node_def_util.cc: an op's attribute the TensorFlow that reads the graph does not know ("This may be
    # expected if your graph generating binary is newer than this binary. Unknown attributes will be
    # ignored."); not "NodeDef mentions attr 'X' not in Op", which refuses the graph
    "nodedef-attribute": ("a graph op carries an attribute this TensorFlow does not know (a newer release"
                          " wrote it): ignored",
                          (("nodedef mentions attribute", "not in the op definition"),)),
    # TensorFlow 2.1-2.13 after failing to load libcudart (stream_executor/cuda/cudart_stub.cc): the
    # missing runtime matters only where there is a GPU (tfdoctor/checks/cuda.py asks whether one shows)
    "cudart-stub-notice": ("TensorFlow's own note: the CUDA runtime it could not load matters only on a"
                           " machine with a GPU", (("ignore above cudart dlerror",),)),
    # a process that never called cuInit (a worker forked after the parent initialised CUDA) asking
    # for the device count: its parent, which trains, is unaffected (a failed cuInit says so itself)
    "device-count-uninitialised": ("a process that never initialised CUDA (a forked worker) asked for the"
                                   " GPU count: the process that trains is unaffected",
                                   (("could not retrieve cuda device count", "cuda_error_not_initialized"),)),
    # gpu_device.cc when a pair of GPUs cannot map each other (CUDA_ERROR_TOO_MANY_PEERS past 8 peers, or no
    # P2P path): TensorFlow copies between them through host memory instead
    "peer-access": ("TensorFlow could not enable direct peer access between two GPUs and copies between them"
                    " through host memory: slower, not an error", (("unable to enable peer access",),)),
    # colocation_graph.cc: a resource's ops (often a variable's on the CPU) could not all sit on one
    # device, so the placer moved some; the graph runs
    "colocation": ("TensorFlow's placer moved some ops of a resource to another device than requested: the"
                   " graph still runs", (("failed to place the graph without changing the devices",),)),
    # stream_executor/gpu/asm_compiler.cc when it cannot run ptxas: the driver compiles the PTX instead
    "ptx-driver-fallback": ("XLA found no ptxas and leaves PTX compilation to the driver: a slower first"
                            " compile, not a failure", (("relying on driver to perform ptx compilation",),)),
    # profile_utils/cpu_utils.cc where /proc/cpuinfo has no clock (ARM boards such as Jetson, some VMs)
    "cpu-frequency": ("TensorFlow could not read the CPU's clock from /proc/cpuinfo: it uses it only for cost"
                      " estimates", (("failed to find bogomips",), ("cannot determine cpu frequency",))),
    # gpu_bfc_allocator.cc: a value other than "true"/"false" is ignored for the config's own, which is off;
    # "False" asked for that already (an ignored "True" is not harmless: it stays unrecognised)
    "allow-growth-unparsed-false": ("TF_FORCE_GPU_ALLOW_GROWTH=False is not a value TensorFlow parses; it"
                                    " keeps memory growth off, as asked",
                                    (("tf_force_gpu_allow_growth", 'could not be parsed: "false"'),)),
    # PyTorch's cuDNN v8 frontend (aten/src/ATen/native/cudnn/Conv_v8.cpp), a TORCH_WARN: one execution plan
    # it tried was refused (CUDNN_STATUS_NOT_SUPPORTED) and it went on to the next
    "cudnn-plan-fallback": ("PyTorch's cuDNN frontend skipped an execution plan cuDNN does not support for"
                            " this convolution and used another: a warning, not a failure",
                            (("plan failed with a cudnnexception",),)),
    # a collective (MultiWorkerMirroredStrategy's all-reduce) cancelled as its step ended or another op
    # failed: TensorFlow marks the status derived from another one, never a cause of its own
    "collective-cancelled": ("a collective op was cancelled as the step around it ended (TensorFlow marks"
                             " the status derived): not a failure of its own",
                             (("[_derived_]cancelled",),)),
    # pip's header above the conflicts it found ("ERROR: pip's dependency resolver does not currently take
    # into account all the packages that are installed"): each conflict after it is read on its own line
    "pip-resolver-notice": ("pip's notice that its resolver does not check what is already installed; the"
                            " conflicts it lists after it are read one by one",
                            (("pip's dependency resolver does not currently take into account",),)),
    # core/util/dump_graph.cc, asked to dump a pass's graph (XLA's auto-clustering debug flags) with no place
    # to write it: the dump is skipped, the graph runs
    "graph-dump-skipped": ("TensorFlow skipped a debugging dump of a graph for want of TF_DUMP_GRAPH_PREFIX:"
                           " informational", (("failed to dump", "because dump"),)),
    # TensorFlow's profiler (core/profiler/internal/gpu/cupti_tracer.cc) without CUPTI, or not allowed to use
    # it (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES): the trace has no GPU kernels; training is unaffected
    "cupti-unavailable": ("TensorFlow's profiler could not use CUPTI (the CUDA profiling library): the trace"
                          " lacks GPU detail, training is unaffected",
                          (("failed with error cupti could not be loaded",),
                           ("cupti_error_insufficient_privileges",))),
    # XLA's autotuner finding an algorithm whose results differ from the reference one (its
    # *_algorithm_picker.cc): it leaves that algorithm out
    "xla-autotune-mismatch": ("XLA's autotuner found a convolution or GEMM algorithm whose results differ and"
                              " does not use it", (("results mismatch between different",),)),
    # the driver letting only administrators read the GPU's performance counters (its default since 418.43:
    # NVreg_RestrictProfilingToAdminUsers, shown as "RmProfilingAdminOnly: 1";
    # https://developer.nvidia.com/nvidia-development-tools-solutions-err_nvgpuctrperm-permission-issue-performance-counters):
    # counter tools (Nsight Compute, nvidia-smi nvlink -g) refuse, not CUDA
    "gpu-counters-restricted": ("the driver lets only administrators read the GPU's performance counters:"
                                " profilers and counter tools need root (or the driver option"
                                " NVreg_RestrictProfilingToAdminUsers=0); training is unaffected",
                                (("insufficient permissions", "counter"), ("err_nvgpuctrperm",))),
    # TensorFlow Lite's GPU delegate (delegates/gpu/delegate.cc) on a machine without an OpenCL library: it
    # uses OpenGL ES instead
    "tflite-opencl-fallback": ("TensorFlow Lite's GPU delegate found no OpenCL library and uses OpenGL ES:"
                               " informational",
                               (("can not open opencl library",), ("falling back to opengl",))),
    "declared-benign": ("the library itself says the message is harmless",
                        (("this is benign",), ("indicates that this is not a failure",),
                         ("can be safely ignored",))),
}


def noise(low: str) -> str | None:
    """The harmless notice a lower-case line is, by name (None: not one); a library search path the line
    lists after its message ("; LD_LIBRARY_PATH: .../TensorRT-7.0.0.11/lib") is no part of it."""
    low = low.partition("ld_library_path")[0]
    for name, (_, forms) in NOISE.items():
        if any(all(w in low for w in words) for words in forms):
            return name
    return None


# --- mechanisms read from a log's sentences (tfdoctor/logs/evidence.py) and what they are evidence for
MECHANISMS = {  # (a library that did not load: by LIBRARIES above)
    "avx": "cpu.avx-missing",  # Illegal instruction, "compiled to use AVX"
    "glibc": "system.glibc-too-old",  # version `GLIBC_2.29' not found
    "numpy-abi": "python.numpy-abi-mismatch",  # _ARRAY_API not found, numpy.core.multiarray failed to import
    "protobuf": "python.protobuf-mismatch",  # Descriptors cannot be created directly
    "keras3": "keras.keras3-api-change",  # frames in keras/src, removed keras.engine modules
    "tf-missing": "tensorflow.missing",  # No module named 'tensorflow'
    "tf-native-failed": "tensorflow.import-failed",  # DLL load failed, native runtime not loaded
    "xla-tools": "xla.toolchain-missing",  # ptxas / libdevice not found
    "ptxas-old": "xla.ptxas-too-old",
}
