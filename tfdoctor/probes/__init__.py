"""Probes gather facts and never judge. Each is `probe(ctx: Context) -> dict` (JSON-able).

A probe that raises or outlives its timeout is recorded by the pipeline as
`{"error": "<plain words>", "probe_failed": true}`; checks then skip or fail on it.

Fact shapes (keys checks may rely on; every key may be absent or null when unknown):

system:      platform (linux|wsl2|windows|macos), wsl_version (1|2|null), os (PRETTY_NAME), os_id,
             os_id_like, os_version_id, kernel, machine, python_version (tfdoctor's),
             container (docker|podman|kubernetes|apptainer|singularity|lxc|null), hostname, user, home,
             dev_nvidia [names under /dev], dev_nvidia_denied ["/dev/nvidia0 crw-rw---- root:video": the GPU
             device files this user cannot open read-write; from a paste, those closed to users outside their
             group], root_only_stated (explain: a person saying the GPU works only as root), windows_build
             (explain: the Windows build a paste names, 18363),
             proc_driver_version ("580.65.06" from
             /proc/driver/nvidia/version), proc_driver_raw, proc_driver_open (open kernel module),
             modules {nvidia, nouveau} (bools; the whole dict null when /proc/modules is unreadable),
             wsl_libcuda [paths under /usr/lib/wsl/lib], env {NAME: value} (allowlisted, redacted),
             env_complete (true: a variable not in env is unset)
nvml:        available (bool), error, error_kind (library-not-found|driver-not-loaded|no-permission|
             lib-mismatch|gpu-lost|not-supported|bindings-missing|unknown|fork),
             bindings {module, distributions}, driver_version, cuda_driver_version ("12.4"),
             gpus [GPU], where GPU = {index, name, uuid, serial, pci_bus_id, compute_capability ("9.0"),
             memory_total_mib, memory_used_mib, memory_free_mib,
             ecc {mode_current, volatile {corrected, uncorrected}, aggregate {...}},
             retired_pages {single_bit, double_bit, pending},
             remapped_rows {pending, failure, correctable, uncorrectable},
             throttle_reasons [idle|applications_clocks|power_cap|hw_slowdown|sync_boost|sw_thermal|
             hw_thermal|hw_power_brake|display_clocks], pcie {gen, max_gen, width, max_width},
             persistence_mode, compute_mode (default|exclusive_process|exclusive_thread|prohibited),
             mig {current, pending, devices [...]}, processes [{pid, name, type, used_mib}],
             temperature_c, temperature_limit_c, power_w, power_limit_w, error, error_kind}
nvidia_smi:  found, path, error, error_kind (not-found|timeout|driver-not-loaded|lib-mismatch|
             no-permission|no-devices|gpu-lost|failed|unreadable), returncode, driver_version,
             cuda_version, gpus [GPU keys as for nvml when `-q -x` parsed; banner-only GPUs carry
             name_truncated, persistence_mode, driver_model (WDDM|TCC|MCDM on Windows and WSL2),
             compute_mode, memory_used_mib; every GPU carries
             compute_capability (from `--query-gpu=...,compute_cap`, R510+, else the compat name table)
             and compute_capability_source (nvidia-smi|name table|null)], raw (banner, trimmed),
             raw_xml (trimmed), xml_error, raw_query (the --query-gpu output, trimmed), query_error
nvcc:        found, version ("13.0", of the first install: PATH, then CUDA_HOME, /usr/local/cuda*),
             installs [{path, version, build ("V13.0.88"), source (PATH|CUDA_HOME|CUDA_PATH|/usr/local/...),
             error}], raw, error (plain words when one failed)
libraries:   ld_library_path [dirs], loadable {soname: [paths]} from the ld cache and
             LD_LIBRARY_PATH, pip_nvidia {dist: version}, pip_nvidia_dirs [lib dirs],
             pip_nvidia_wheels [{name ("nvidia-cudnn-cu11"), version, cuda ("11"|"12"|null: the
             -cuNN suffix), lib_dirs [abs dirs holding its .so files, from its RECORD],
             libraries [its .so file names]}] (cu11 and cu12 wheels share nvidia/<x>/lib dirs;
             RECORD tells them apart), shadowing [{soname, first, pip}], ld_cache_error,
             error (pip wheels unreadable)
tensorflow:  python (path), python_version, installed (bool), version, location,
             distributions {name: version} (tensorflow*, tf-nightly, keras, tf-keras, nvidia-*...),
             duplicates {name: [versions]} (installed more than once on sys.path), namespace_package,
             build_info {cuda_version, cudnn_version, cuda_compute_capabilities, is_cuda_build, ...},
             runpath [entries as written, "$ORIGIN/../nvidia/cublas/lib", each once, from the
             RUNPATH (else RPATH) of TensorFlow's native libraries; null when none was readable],
             runpath_nvidia (bool: some entry resolves to <site-packages>/nvidia/<x>/lib, so pip
             nvidia-* wheels load without LD_LIBRARY_PATH: TF >= 2.14; null when unreadable),
             runpath_nvidia_packages [x, sorted: "cublas", "cudnn", "nccl", ...],
             native_libraries [{file (relative to the package: "libtensorflow_framework.so.2",
             "python/_pywrap_tensorflow_internal.so", ...), soname, tag (RUNPATH|RPATH|null),
             entries (count), error}], error
runtime:     ran (bool), python, steps [{name, device, status, seconds, ...}], tf_visible_gpus,
             gpus [{tf_device, name, compute_capability, pci_bus_id, memory_mib}],
             log (TensorFlow's captured output, trimmed), error, returncode, timed_out,
             signal ("SIGSEGV"), gpu_reason (TensorFlow's words for seeing no GPU), tf_version,
             memory {device: {memory_current_mib, memory_peak_mib}}, result_line (bool),
             stdout_junk, seconds, memory_exceeded_mib (the host-memory cap it passed, if it did),
             keras {api: "tf.keras", module ("keras"|"tf_keras"|null), version ("3.10.0"), major
             (2|3|null), path, tf_use_legacy_keras (the env value or null), error (why tf.keras
             failed to import, or null)}: what the train steps really used,
             loaded_libraries [{path, name ("libcudart"), soname ("libcudart.so.12"), version (from
             the file name: "12", "535.104.05"), dist ("nvidia-cuda-runtime-cu12"|null),
             dist_version, since ("import"|"devices"|"end")}]: the CUDA libraries mapped into
             the worker (/proc/self/maps; null where /proc is absent),
             peer_access {devices [ids], pairs [[i, j], ...]} (TensorFlow's GPU edge matrix; null
             without one); train steps also carry first_step_seconds, seconds_per_step,
             steps_per_second (median batch-to-batch time inside one fit, after warm-up),
             timed_steps, fit_seconds, losses [per step], keras;
             --quick: {ran: false, skipped} (see tfdoctor/probes/runtime.py)
collective:  requested, ran, skipped, local_names, local_addresses, task, address, peers, ok, stage,
             error, seconds, members, mismatches, steps, unreachable, log (only when TF_CONFIG is
             set; full shape in tfdoctor/probes/collective.py)
options:     not a probe: the request's require_gpus (int or null), allow_cpu (bool); with --only/--skip:
             only [names], skip [names], checks_run [the checks that ran]; and who asked: caller_pids
             [pid, ppid] and caller {interface (cli|python|notebook), pid, ppid, tensorflow_imported},
             so a GPU held by the caller itself (a notebook kernel that imported TensorFlow) can be named
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

# Order matters only for display; the pipeline runs them concurrently.
NAMES = ("system", "nvml", "nvidia_smi", "nvcc", "libraries", "tensorflow")


def worker_memory_mib() -> int:
    """The host memory the TensorFlow worker may hold: half the machine's, between 2 and 8 GiB (it
    needs about 0.6 GiB on the CPU, a few GiB with the CUDA libraries loaded)."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") >> 20
    except (AttributeError, OSError, ValueError):
        total = 16 << 10
    return min(8 << 10, max(2 << 10, total // 2))


@dataclass(frozen=True)
class Context:
    """What every probe may read: the target interpreter, the environment, time and memory budgets."""

    python: str
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    timeout: float = 10.0  # per external command
    worker_timeout: float = 300.0
    memory_limit_mib: int | None = None  # GPU memory for the worker (--memory-limit)
    multiworker: bool = False
    worker_memory_mib: int = field(default_factory=worker_memory_mib)  # host memory (resident)
