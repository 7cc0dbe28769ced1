"""tfdoctor's TensorFlow worker: proves, step by step, that TensorFlow computes and trains.

Run by the *target* interpreter as a child process: `PYTHON worker.py [options]`. It uses the
standard library only at module level, so the target environment needs TensorFlow but not
tfdoctor. It never downloads anything: all data is synthetic.

Protocol, on the original stdout: `TFDOCTOR-STEP <json>` when each step starts ("running") and
ends, so a crash mid-way still leaves evidence, then exactly one `TFDOCTOR-RESULT <json>`.
Everything else (TensorFlow's C++ log, stray prints) is sent to stderr, which the caller keeps
as the log; device-placement lines are read here to verify placement and not forwarded.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import stat
import struct
import sys
import threading
import time
from typing import Any, Callable

PROTOCOL = 1
STEP_NAMES = ("import", "devices", "matmul", "train", "throughput", "mixed_precision", "xla", "multi_gpu")
GPU_STEPS = ("matmul", "train", "throughput", "mixed_precision", "xla")
MATMUL_TOLERANCE = 1e-4  # max |error| / max |reference|, fp32 with TF32 off
TRAIN_STEPS = 20  # in one fit call; the first WARMUP_STEPS are not timed
WARMUP_STEPS = 2
BATCH = 32

# "I0000 00:00:1795275209.169 6739 placer.cc:162] MatMul: (MatMul): /job:localhost/.../device:CPU:0"
# (the placer also prints the same text without the prefix on stdout) and, for eager ops,
# "... execute.cc:1775] Executing op MatMul in device /job:localhost/replica:0/task:0/device:GPU:0".
PLACED = re.compile(r"(?:^|\] )\S+: \((\w+)\): (/job:\S+)\s*$")
EXECUTED = re.compile(r"Executing op (\S+) in device (/job:\S+)")
# Two wordings, both parsed (tests/data/worker/ holds real lines of each):
# TF >= 2.6: "Created device /job:localhost/replica:0/task:0/device:GPU:0 with 78000 MB memory:  -> device: 0,
#            name: NVIDIA H100 80GB HBM3, pci bus id: 0000:3b:00.0, compute capability: 9.0"
# TF <= 2.5: "Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 10175 MB memory)
#            -> physical GPU (device: 0, name: Tesla T4, pci bus id: 0000:00:07.0, compute capability: 7.5)"
# ROCm builds print no compute capability; MIG slices are named "NVIDIA A100-SXM4-40GB MIG 3g.20gb";
# pluggable devices (Metal, DirectML) say "physical PluggableDevice (... pci bus id: <undefined>)".
# Also how `explain` reads these lines (tfdoctor.logs.values): every quantifier is bounded.
CREATED = re.compile(
    r"Created (?:TensorFlow )?device \(?\S{0,160}?(/?device:GPU:\d{1,3}) with (\d{1,7}) ?MB memory\)?:?"
    r"\s{0,4}->\s{0,4}(?:physical (?:GPU|PluggableDevice) \()?device: (\d{1,3}), "
    r"name: ([^,]{0,120}(?:,(?! pci bus id:)[^,]{0,120}){0,4}), "
    r"pci bus id: ([0-9a-fA-F:.]{1,40}|<undefined>)(?:, compute capability: (\d{1,2}\.\d{1,2}))?"
)
# "I0000 00:00:1795275291.37 9055 cuda_platform.cc:52] " (absl) or "2023-06-23 17:14:24.42: E x/y.cc:12] "
GLOG_PREFIX = re.compile(r"^(?:[IWEF]\d{4} [\d:.]+\s+\d+ |\d{4}-\d\d-\d\d [\d:.]+: [IWEF] )\S+:\d+\] ")
GPU_REASON = re.compile(
    r"cuInit|Cannot dlopen|Could not find cuda drivers|Skipping registering GPU|CUDA_ERROR|"
    r"cuda(?:_| )driver|no CUDA-capable|could not retrieve CUDA device|CUDA error",
    re.IGNORECASE,
)
MARK = "\x00TFDOCTOR-MARK "


class Capture:
    """Route fds 1 and 2 through a pipe: forward to the real stderr, keep lines for parsing."""

    def __init__(self) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        self.stderr_fd = os.dup(2)
        read_fd, write_fd = os.pipe()
        os.dup2(write_fd, 1)
        os.dup2(write_fd, 2)
        os.close(write_fd)
        self.read_fd = read_fd
        self.lines: list[str] = []
        self.lock = threading.Lock()
        self.marks: dict[str, threading.Event] = {}
        self.thread = threading.Thread(target=self._pump, name="tfdoctor-capture", daemon=True)
        self.thread.start()

    def _pump(self) -> None:
        pending = b""
        while True:
            try:
                chunk = os.read(self.read_fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for raw in complete:
                self._line(raw.decode("utf-8", errors="replace"))
        if pending:
            self._line(pending.decode("utf-8", errors="replace"))

    def _line(self, line: str) -> None:
        try:
            if line.startswith(MARK):
                event = self.marks.pop(line[len(MARK):].strip(), None)
                if event:
                    event.set()
                return
            with self.lock:
                self.lines.append(line)
            if not (PLACED.search(line) or EXECUTED.search(line)):
                os.write(self.stderr_fd, (line + "\n").encode("utf-8", errors="replace"))
        except Exception:  # noqa: BLE001 - the pump must keep draining the pipe whatever happens
            pass

    def take(self) -> list[str]:
        """Every line written since the last take (waits until the pump has read them)."""
        sys.stdout.flush()
        sys.stderr.flush()
        token = f"{time.monotonic_ns()}"
        event = threading.Event()
        self.marks[token] = event
        try:
            os.write(2, f"{MARK}{token}\n".encode())
            event.wait(5)
        except OSError:
            pass
        with self.lock:
            lines, self.lines = self.lines, []
        return lines

    def close(self) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(self.stderr_fd, 1)
        os.dup2(self.stderr_fd, 2)
        self.thread.join(2)


class Skip(Exception):
    """The step does not apply here; the message says why."""


class Fail(Exception):
    """The step ran but its result is wrong; the message says how, `kind` says which check failed."""

    def __init__(self, message: str, kind: str = "result") -> None:
        super().__init__(message)
        self.kind = kind


def _emit(fd: int, kind: str, payload: dict[str, Any]) -> None:
    line = f"TFDOCTOR-{kind} {json.dumps(payload, default=str, allow_nan=False)}\n"
    os.write(fd, line.encode("utf-8", errors="replace"))


def _finite(values: list[float]) -> bool:
    return all(isinstance(v, (int, float)) and math.isfinite(v) for v in values)


def _clean(value: Any) -> Any:
    """JSON-safe: NaN/inf become strings so the result line stays valid JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def _error_text(exc: BaseException, limit: int = 2000) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text if len(text) <= limit else text[:limit] + " [...]"


def _same_device(placed: str, device: str) -> bool:
    """'/job:localhost/replica:0/task:0/device:GPU:0' vs '/device:GPU:0'."""
    want = device.rsplit("device:", 1)[-1].upper()
    return placed.rsplit("device:", 1)[-1].upper() == want


def placements(lines: list[str], pattern: str) -> dict[str, list[str]]:
    """{op type: sorted devices} for ops whose type matches pattern, from placement log lines."""
    found: dict[str, set[str]] = {}
    for line in lines:
        for regex in (PLACED, EXECUTED):
            m = regex.search(line)
            if m and re.search(pattern, m.group(1)):
                found.setdefault(m.group(1), set()).add(m.group(2))
    return {op: sorted(devs) for op, devs in sorted(found.items())}


def gpu_reason(lines: list[str], built_with_cuda: bool | None) -> str:
    """TensorFlow's own words for why it lists no GPU."""
    if built_with_cuda is False:
        return "this TensorFlow build has no CUDA support (tf.test.is_built_with_cuda() is False)"
    picked: list[str] = []
    for line in lines:
        if GPU_REASON.search(line) and not line.startswith(MARK):
            text = GLOG_PREFIX.sub("", line).strip()
            if text and text not in picked:
                picked.append(text)
    if picked:
        return " / ".join(picked[:3])
    return "tf.config.list_physical_devices('GPU') is empty and TensorFlow logged no reason"


def created_devices(lines: list[str]) -> dict[str, dict[str, Any]]:
    """{"/device:GPU:N": {memory_mib, device, name, pci_bus_id, compute_capability}} from the
    runtime's "Created device" lines (either wording; see CREATED)."""
    out: dict[str, dict[str, Any]] = {}
    for line in lines:
        m = CREATED.search(line)
        if m:
            out["/" + m.group(1).lstrip("/")] = {
                "memory_mib": int(m.group(2)), "device": int(m.group(3)), "name": m.group(4).strip(),
                "pci_bus_id": None if m.group(5) == "<undefined>" else m.group(5),
                "compute_capability": m.group(6),
            }
    return out


INTERCONNECT = "Device interconnect StreamExecutor with strength 1 edge matrix"


def peer_access(lines: list[str]) -> dict[str, Any] | None:
    """The last "edge matrix" TensorFlow printed: {devices [ids], pairs [[i, j], ...] with i < j}.

    A "Y" means the runtime can use peer-to-peer access between the two GPUs (NVLink, or P2P over
    PCIe); an all-"N" matrix on a multi-GPU machine means every copy goes through host memory.
    None when TensorFlow printed no matrix (one GPU and older wording, or no GPU).
    """
    found: dict[str, Any] | None = None
    rows: dict[int, str] | None = None
    devices: list[int] = []
    for raw in lines:
        text = GLOG_PREFIX.sub("", raw).rstrip()
        if INTERCONNECT in text:
            rows, devices = {}, []
            continue
        if rows is None:
            continue
        header = text.split()
        if not devices and header and all(h.isdigit() for h in header):
            devices = [int(h) for h in header]
            continue
        m = re.fullmatch(r"\s*(\d+):\s+([NY](?: [NY])*)\s*", text)
        if devices and m:
            rows[int(m.group(1))] = m.group(2).replace(" ", "")
            if len(rows) == len(devices):
                pairs = [[a, b] for a in devices for b in devices
                         if a < b and len(rows.get(a, "")) == len(devices)
                         and rows[a][devices.index(b)] == "Y"]
                found, rows = {"devices": devices, "pairs": pairs}, None
            continue
        rows = None  # anything else ends the matrix
    return found


def cc_text(value: Any) -> str | None:
    """(8, 6) or [8, 6] (get_device_details, or the same after JSON) or "8.6" -> "8.6"."""
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return f"{value[0]}.{value[1]}"
    if isinstance(value, str) and re.fullmatch(r"\d+\.\d+", value):
        return value
    return None


def gpu_entry(tf_device: str, details: dict[str, Any], created: dict[str, Any] | None) -> dict[str, Any]:
    """One GPU as TensorFlow sees it: get_device_details first, the "Created device" line second."""
    created = created or {}
    return {
        "tf_device": tf_device,
        "name": details.get("device_name") or created.get("name"),
        "compute_capability": cc_text(details.get("compute_capability")) or created.get("compute_capability"),
        "pci_bus_id": created.get("pci_bus_id"),
        "memory_mib": created.get("memory_mib"),
    }


def keras_flavour(model_cls: Any) -> dict[str, Any]:
    """Which Keras a `Model` class comes from: {module ("keras"|"tf_keras"), version, major, path}.

    `tf.keras` is a lazy alias whose own __version__ is unset under Keras 2; its Model class's
    module ("keras.src.models.model", "keras.src.engine.training", "tf_keras.src.engine.training",
    "keras.engine.training") names the real package.
    """
    top = str(getattr(model_cls, "__module__", "") or "").split(".")[0] or None
    package = sys.modules.get(top) if top else None
    version = getattr(package, "__version__", None)
    m = re.match(r"(\d+)\.", str(version or ""))
    return {"module": top, "version": version, "major": int(m.group(1)) if m else None,
            "path": getattr(package, "__file__", None)}


def step_losses(running_means: list[float]) -> list[float]:
    """Per-step losses from the running epoch means Keras passes to on_train_batch_end.

    Keras 2 and 3 both report `loss` as the mean over the epoch so far, weighted by batch size;
    with equal batches step k's own loss is k*m_k - (k-1)*m_(k-1).
    """
    out: list[float] = []
    previous = 0.0
    for k, mean in enumerate(running_means, 1):
        value = k * mean - (k - 1) * previous if k > 1 else mean
        out.append(float(f"{value:.6g}") if math.isfinite(value) else value)
        previous = mean
    return out


def step_timing(begins: list[float], ends: list[float]) -> dict[str, Any]:
    """Per-step time inside one fit: the first step (tracing included) and the steady median."""
    first = ends[0] - begins[0] if begins and ends else None
    warm = WARMUP_STEPS if len(ends) > WARMUP_STEPS + 1 else min(1, max(len(ends) - 1, 0))
    intervals = sorted(b - a for a, b in zip(ends[warm:], ends[warm + 1:]))
    per_step = intervals[len(intervals) // 2] if intervals else first
    return {
        "first_step_seconds": round(first, 4) if first is not None else None,
        "seconds_per_step": round(per_step, 6) if per_step else None,
        "steps_per_second": round(1 / per_step, 2) if per_step else None,
        "timed_steps": len(intervals),
        "timing": f"median interval between batch ends in one fit, after {warm} warm-up step(s)",
    }


# --- ELF dynamic sections and the libraries mapped into this process --------------------------
# One small reader, stdlib only, used here (the SONAME of each loaded CUDA library) and by the
# static tensorflow probe (the RUNPATH of TensorFlow's own libraries). Reads are bounded; a
# malformed, truncated or non-ELF file gives {"error": ...}, never an exception.

DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ, DT_SONAME, DT_RPATH, DT_RUNPATH = 0, 1, 5, 10, 14, 15, 29
PT_LOAD, PT_DYNAMIC = 1, 2
ELF_MAX_PHDRS = 1024
ELF_MAX_DYNAMIC = 1 << 20  # bytes of the dynamic section
ELF_MAX_STRING = 1 << 18  # bytes of one string (TF 2.21's RUNPATH is ~25 kB)
ELF_MAX_NEEDED = 256


def _elf_string(fh: Any, strtab: int, strsz: int | None, offset: int) -> str:
    if offset < 0 or (strsz is not None and offset >= strsz):
        raise ValueError(f"string offset {offset} outside the string table")
    fh.seek(strtab + offset)
    limit = ELF_MAX_STRING if strsz is None else min(ELF_MAX_STRING, strsz - offset)
    raw = fh.read(limit)
    end = raw.find(b"\0")
    if end < 0:
        raise ValueError("unterminated string in the string table")
    return raw[:end].decode("utf-8", errors="replace")


def _elf_parse(fh: Any, out: dict[str, Any]) -> None:
    head = fh.read(64)
    if len(head) < 16 or head[:4] != b"\x7fELF":
        raise ValueError("not an ELF file")
    cls, data = head[4], head[5]
    if cls not in (1, 2) or data not in (1, 2):
        raise ValueError("unknown ELF class or byte order")
    end = "<" if data == 1 else ">"
    if cls == 2:
        if len(head) < 64:
            raise ValueError("truncated ELF header")
        (phoff,) = struct.unpack_from(end + "Q", head, 32)
        phentsize, phnum = struct.unpack_from(end + "HH", head, 54)
        ph_fmt, ph_size, dyn_fmt = end + "IIQQQQQQ", 56, end + "qQ"
    else:
        if len(head) < 52:
            raise ValueError("truncated ELF header")
        (phoff,) = struct.unpack_from(end + "I", head, 28)
        phentsize, phnum = struct.unpack_from(end + "HH", head, 42)
        ph_fmt, ph_size, dyn_fmt = end + "IIIIIIII", 32, end + "iI"
    if phnum == 0 or phnum > ELF_MAX_PHDRS or phentsize < ph_size:
        raise ValueError(f"no usable program headers ({phnum} of {phentsize} bytes)")
    fh.seek(phoff)
    table = fh.read(phnum * phentsize)
    if len(table) < phnum * phentsize:
        raise ValueError("truncated program header table")
    loads: list[tuple[int, int, int]] = []
    dynamic: tuple[int, int] | None = None
    for i in range(phnum):
        f = struct.unpack_from(ph_fmt, table, i * phentsize)
        if cls == 2:
            p_type, p_offset, p_vaddr, p_filesz = f[0], f[2], f[3], f[5]
        else:
            p_type, p_offset, p_vaddr, p_filesz = f[0], f[1], f[2], f[4]
        if p_type == PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == PT_DYNAMIC and dynamic is None:
            dynamic = (p_offset, p_filesz)
    if dynamic is None:
        raise ValueError("no dynamic section (a static executable or not a shared library)")
    fh.seek(dynamic[0])
    raw = fh.read(min(dynamic[1], ELF_MAX_DYNAMIC))
    step = struct.calcsize(dyn_fmt)
    entries: list[tuple[int, int]] = []
    for pos in range(0, len(raw) - step + 1, step):
        tag, val = struct.unpack_from(dyn_fmt, raw, pos)
        if tag == DT_NULL:
            break
        entries.append((tag, val))
    strtab_addr = next((v for t, v in entries if t == DT_STRTAB), None)
    strsz = next((v for t, v in entries if t == DT_STRSZ), None)
    if strtab_addr is None:
        raise ValueError("the dynamic section has no string table")
    strtab = next((off + strtab_addr - va for va, off, size in loads if va <= strtab_addr < va + size),
                  strtab_addr)  # no covering segment: a file whose addresses are offsets
    for tag, val in entries:
        if tag == DT_NEEDED and len(out["needed"]) < ELF_MAX_NEEDED:
            out["needed"].append(_elf_string(fh, strtab, strsz, val))
        elif tag == DT_SONAME:
            out["soname"] = _elf_string(fh, strtab, strsz, val)
        elif tag in (DT_RPATH, DT_RUNPATH):
            key = "runpath" if tag == DT_RUNPATH else "rpath"
            out[key] = [p for p in _elf_string(fh, strtab, strsz, val).split(":") if p]


def elf_dynamic(path: str) -> dict[str, Any]:
    """{soname, needed [names], rpath [entries] or None, runpath [entries] or None, error}.

    DT_RUNPATH and DT_RPATH are kept apart (the loader ignores RPATH when RUNPATH is present,
    and only RPATH applies to dependencies' lookups too). Entries are as written ($ORIGIN kept).
    """
    out: dict[str, Any] = {"soname": None, "needed": [], "rpath": None, "runpath": None, "error": None}
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ValueError("not a regular file")
        with open(path, "rb") as fh:
            _elf_parse(fh, out)
    except (OSError, ValueError, struct.error, OverflowError, MemoryError) as exc:
        out["error"] = f"{path}: {exc.strerror or exc}" if isinstance(exc, OSError) else f"{path}: {exc}"
    except Exception as exc:  # noqa: BLE001 - a reader of untrusted files never raises
        out["error"] = f"{path}: {_error_text(exc, 300)}"
    return out


# libcudart.so.12, libcublasLt.so.12.5.3.2, libcudnn_ops_infer.so.8, libcuda.so.535.104.05, ...
LOADED_LIB = re.compile(
    r"^(libcuda|libcudart|libcublas|libcublasLt|libcudnn\w*|libnccl|libnvidia-ml|libcufft|libcurand"
    r"|libcusolver|libcusparse|libcupti|libnvrtc|libnvJitLink|libnvinfer)\.so((?:\.\d+)*)$"
)


def mapped_files(maps_text: str) -> list[str]:
    """Paths of the files mapped into a process, in first-mapped order, from /proc/PID/maps text."""
    seen: dict[str, None] = {}
    for line in maps_text.splitlines():
        parts = line.split(None, 5)
        if len(parts) == 6 and parts[5].startswith("/") and not parts[5].endswith(" (deleted)"):
            seen.setdefault(parts[5], None)
    return list(seen)


def cuda_libraries(paths: list[str]) -> list[dict[str, Any]]:
    """The CUDA-side libraries among mapped paths: {path, name, version (from the file name)}."""
    out = []
    for path in paths:
        m = LOADED_LIB.match(os.path.basename(path))
        if m:
            out.append({"path": path, "name": m.group(1), "version": m.group(2).lstrip(".") or None})
    return out


def _pip_owners(paths: list[str]) -> dict[str, tuple[str, str]]:
    """{path: (distribution, version)} for paths that a pip nvidia-* wheel's RECORD lists."""
    want = {os.path.realpath(p): p for p in paths if "/nvidia/" in p}
    if not want:
        return {}
    from importlib import metadata

    owners: dict[str, tuple[str, str]] = {}
    for dist in metadata.distributions():
        name = (dist.metadata.get("Name") or "").strip()
        if not name.lower().startswith("nvidia"):
            continue
        for rel in dist.files or []:
            if ".so" not in rel.name:
                continue
            real = os.path.realpath(str(dist.locate_file(rel)))
            if real in want and want[real] not in owners:
                owners[want[real]] = (name, dist.version)
    return owners


def loaded_libraries(maps_text: str) -> list[dict[str, Any]]:
    """What a process really loaded: {path, name, soname, version, dist, dist_version}."""
    return describe_libraries(cuda_libraries(mapped_files(maps_text)))


def describe_libraries(libs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Add each library's ELF SONAME and the pip wheel (dist-info) that installed it, if any."""
    try:
        owners = _pip_owners([lib["path"] for lib in libs])
    except Exception:  # noqa: BLE001 - ownership is a nicety; the mapped paths are the fact
        owners = {}
    for lib in libs:
        lib["soname"] = elf_dynamic(lib["path"]).get("soname")
        dist = owners.get(lib["path"])
        lib["dist"], lib["dist_version"] = dist if dist else (None, None)
    return libs


class Worker:
    def __init__(self, args: argparse.Namespace, out_fd: int, capture: Capture | None) -> None:
        self.args = args
        self.out_fd = out_fd
        self.cap = capture
        self.steps: list[dict[str, Any]] = []
        self.tf: Any = None
        self.keras: Any = None
        self.keras_info: dict[str, Any] | None = None
        self.peer: dict[str, Any] | None = None
        self.loaded: dict[str, dict[str, Any]] = {}  # path -> loaded library, in first-seen order
        self.gpus: list[dict[str, Any]] = []
        self.cpu_devices: list[str] = ["/device:CPU:0"]
        self.reason: str | None = None
        self.info: dict[str, Any] = {}
        self.seen: list[str] = []  # captured lines of import + devices, for reasons

    # --- plumbing -----------------------------------------------------------------------------

    def lines(self) -> list[str]:
        return self.cap.take() if self.cap else []

    def step(self, name: str, device: str | None, fn: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        rec: dict[str, Any] = {"name": name, "device": device, "status": "running"}
        _emit(self.out_fd, "STEP", rec)
        self.lines()  # drop what earlier steps left, so placement is this step's own
        start = time.perf_counter()
        try:
            fn(rec)
            rec["status"] = "pass"
        except Skip as exc:
            rec["status"] = "skip"
            rec["reason"] = str(exc)
        except Fail as exc:
            rec["status"] = "fail"
            rec["failure"] = exc.kind
            rec["error"] = str(exc)
        except Exception as exc:  # noqa: BLE001 - any TensorFlow error is a result of the step
            rec["status"] = "fail"
            rec["failure"] = "exception"
            rec["error"] = _error_text(exc)
        rec["seconds"] = round(time.perf_counter() - start, 4)
        rec = _clean(rec)
        _emit(self.out_fd, "STEP", rec)
        self.steps.append(rec)
        return rec

    def scan_libraries(self, stage: str) -> list[dict[str, Any]] | None:
        """The CUDA-side libraries mapped into this process so far (None where /proc is absent).

        Each is read once; `since` names the stage that first saw it (import, devices, end).
        """
        try:
            with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
                text = fh.read(16 << 20)
        except OSError:
            return None
        try:
            fresh = [lib for lib in cuda_libraries(mapped_files(text)) if lib["path"] not in self.loaded]
            if fresh:
                for lib in describe_libraries(fresh):
                    self.loaded[lib["path"]] = {**lib, "since": stage}
        except Exception:  # noqa: BLE001 - a fact we could not gather is not a failed step
            pass
        return list(self.loaded.values())

    def skip(self, name: str, device: str | None, reason: str) -> None:
        rec = {"name": name, "device": device, "status": "skip", "reason": reason, "seconds": 0.0}
        _emit(self.out_fd, "STEP", rec)
        self.steps.append(rec)

    def verify_placement(self, rec: dict[str, Any], device: str, pattern: str, lines: list[str]) -> None:
        placed = placements(lines, pattern)
        rec["placement"] = placed
        devices = {d for devs in placed.values() for d in devs}
        if not devices:
            raise Fail(f"TensorFlow's placement log shows no {pattern} op; placement on {device} unverified",
                       "placement")
        elsewhere = sorted(d for d in devices if not _same_device(d, device))
        if elsewhere:
            raise Fail(f"{pattern} ops ran on {', '.join(elsewhere)}, not on {device}", "placement")

    # --- steps --------------------------------------------------------------------------------

    def do_import(self, rec: dict[str, Any]) -> None:
        import tensorflow as tf

        self.tf = tf
        rec["version"] = getattr(tf, "__version__", None)
        rec["built_with_cuda"] = bool(tf.test.is_built_with_cuda())
        try:
            build = dict(tf.sysconfig.get_build_info())
        except Exception:  # noqa: BLE001 - old or odd builds: the build info is optional
            build = {}
        rec["build"] = {k: build.get(k) for k in ("cuda_version", "cudnn_version", "is_cuda_build")}
        # Placement logging can only be switched on before the runtime initializes.
        tf.debugging.set_log_device_placement(True)
        self.info.update(tf_version=rec["version"], tf_built_with_cuda=rec["built_with_cuda"])
        self.seen += self.lines()
        rec["loaded_libraries"] = self.scan_libraries("import")

    def do_devices(self, rec: dict[str, Any]) -> None:
        tf = self.tf
        cpus = tf.config.list_physical_devices("CPU")
        physical = tf.config.list_physical_devices("GPU")
        limit = self.args.memory_limit
        for gpu in physical:
            if limit:
                cfg = [tf.config.LogicalDeviceConfiguration(memory_limit=limit)]
                tf.config.set_logical_device_configuration(gpu, cfg)
            else:
                tf.config.experimental.set_memory_growth(gpu, True)
        rec["memory_mode"] = (f"limit {limit} MiB" if limit else "growth") if physical else None
        rec["memory_limit_mib"] = limit
        if self.args.logical_cpus > 1 and cpus:
            cfg = [tf.config.LogicalDeviceConfiguration() for _ in range(self.args.logical_cpus)]
            tf.config.set_logical_device_configuration(cpus[0], cfg)
        details = []
        for gpu in physical:
            try:
                details.append(dict(tf.config.experimental.get_device_details(gpu)))
            except Exception:  # noqa: BLE001 - details are a nicety; the device still counts
                details.append({})
        logical = tf.config.list_logical_devices()  # initializes the runtime: "Created device" lines
        lines = self.lines()
        self.seen += lines
        created = created_devices(lines)
        rec["peer_access"] = self.peer = peer_access(lines)
        logical_gpus = [d.name for d in logical if d.device_type == "GPU"]
        self.cpu_devices = [d.name for d in logical if d.device_type == "CPU"] or ["/device:CPU:0"]
        for i, name in enumerate(logical_gpus):
            self.gpus.append(gpu_entry(name, details[i] if i < len(details) else {}, created.get(name)))
        rec["cpus"] = self.cpu_devices
        rec["gpus"] = self.gpus
        rec["loaded_libraries"] = self.scan_libraries("devices")
        if not self.gpus:
            self.reason = gpu_reason(self.seen, self.info.get("tf_built_with_cuda"))
            rec["gpu_reason"] = self.reason

    def _matrices(self) -> tuple[Any, Any, Any]:
        import numpy as np

        tf = self.tf
        with tf.device("/device:CPU:0"):
            a = tf.random.stateless_normal((256, 192), seed=(1, 2))
            b = tf.random.stateless_normal((192, 320), seed=(3, 4))
        ref = a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)
        return a, b, ref

    def do_matmul(self, rec: dict[str, Any], device: str) -> None:
        import numpy as np

        tf = self.tf
        a, b, ref = self._matrices()
        self.lines()
        tf32 = tf.config.experimental.tensor_float_32_execution_enabled()
        tf.config.experimental.enable_tensor_float_32_execution(False)  # exact fp32 for the comparison
        try:
            with tf.device(device):
                got = tf.matmul(a, b).numpy().astype(np.float64)
        finally:
            tf.config.experimental.enable_tensor_float_32_execution(tf32)
        lines = self.lines()
        if not np.all(np.isfinite(got)):
            raise Fail(f"matmul on {device} returned NaN or inf: silent corruption", "mismatch")
        err = float(np.max(np.abs(got - ref)) / np.max(np.abs(ref)))
        rec["shape"] = [int(a.shape[0]), int(a.shape[1]), int(b.shape[1])]
        rec["max_rel_error"] = err
        rec["tolerance"] = MATMUL_TOLERANCE
        rec["reference"] = "NumPy float64"
        if err > MATMUL_TOLERANCE:
            raise Fail(
                f"matmul on {device} differs from the NumPy reference: max relative error {err:.3g} "
                f"> {MATMUL_TOLERANCE:g} (silent corruption)",
                "mismatch",
            )
        self.verify_placement(rec, device, "MatMul", lines)

    def _keras(self) -> Any:
        """What `tf.keras` resolves to, as user code gets it: Keras 3 (TF >= 2.16), tf_keras (TF >= 2.16
        with TF_USE_LEGACY_KERAS=1), or Keras 2 (TF < 2.16). Which one is recorded in self.keras_info."""
        if self.keras is None:
            self.keras_info = {"api": "tf.keras", "module": None, "version": None, "major": None,
                               "path": None, "tf_use_legacy_keras": os.environ.get("TF_USE_LEGACY_KERAS"),
                               "error": None}
            try:
                keras = self.tf.keras
                self.keras_info.update(keras_flavour(keras.Model))
            except Exception as exc:  # noqa: BLE001 - tf.keras failing to import is the finding
                self.keras_info["error"] = _error_text(exc, 1000)
                raise
            self.keras = keras
        return self.keras

    def _data(self, n: int) -> tuple[Any, Any]:
        import numpy as np

        rng = np.random.RandomState(0)
        x = rng.rand(n, 16, 16, 3).astype("float32")
        w = rng.rand(3, 4).astype("float32")
        y = (x.mean(axis=(1, 2)) @ w).astype("float32")  # learnable: a linear map of channel means
        return x, y

    def _fit(self, device: str | None, steps: int, strategy: Any = None) -> dict[str, Any]:
        """One `fit` call of `steps` real steps (Conv2D + Dense) on one synthetic batch repeated.

        Timed the same way under Keras 2, tf_keras and Keras 3: the interval between consecutive
        `on_train_batch_end` calls inside the single fit (both Keras generations hand the callback
        Python numbers, so each interval ends with the step's result on the host), median over the
        steps after the warm-up. Per-epoch timing is not comparable: Keras 3 builds and drains a
        tf.data iterator at every epoch boundary, which costs more than a small step itself.
        """
        import numpy as np

        keras = self._keras()
        tf = self.tf
        keras.utils.set_random_seed(0)
        replicas = strategy.num_replicas_in_sync if strategy is not None else 1
        batch = BATCH * replicas
        x1, y1 = self._data(batch)
        x, y = np.concatenate([x1] * steps), np.concatenate([y1] * steps)
        begins: list[float] = []
        ends: list[float] = []
        means: list[float] = []

        class Clock(keras.callbacks.Callback):
            def on_train_batch_begin(self, batch: int, logs: Any = None) -> None:
                begins.append(time.perf_counter())

            def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
                ends.append(time.perf_counter())
                loss = (logs or {}).get("loss")
                means.append(float(loss) if loss is not None else float("nan"))

        def build_and_fit() -> float:
            model = keras.Sequential([
                keras.Input((16, 16, 3)),
                keras.layers.Conv2D(16, 3, activation="relu"),
                keras.layers.Flatten(),
                keras.layers.Dense(4),
            ])
            # Op by op, not XLA: Keras 3's jit_compile="auto" compiles fit with XLA wherever a GPU is
            # registered (the CPU step too), and an XLA cluster logs no per-op placement to verify
            # (seen on a real H200, TF 2.21 + Keras 3.15: the placement log held no Conv2D at all).
            # XLA has its own step.
            model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse", jit_compile=False)
            start = time.perf_counter()
            model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False, callbacks=[Clock()])
            return time.perf_counter() - start

        if strategy is not None:
            with strategy.scope():
                fit_seconds = build_and_fit()
        else:
            with tf.device(device):
                fit_seconds = build_and_fit()
        return {"losses": step_losses(means), "fit_seconds": round(fit_seconds, 4),
                **step_timing(begins, ends)}

    def _judge_losses(self, rec: dict[str, Any], device: str) -> None:
        losses = rec.get("losses") or []
        if not losses or not _finite(losses):
            raise Fail(f"training on {device} produced a non-finite loss: {losses}", "loss")
        if not losses[-1] < losses[0]:
            raise Fail(f"training on {device} did not reduce the loss: {losses[0]:.4g} -> {losses[-1]:.4g}",
                       "loss")

    def do_train(self, rec: dict[str, Any], device: str) -> None:
        self.lines()
        try:
            rec.update(self._fit(device, TRAIN_STEPS))
        finally:
            rec["keras"] = self.keras_info
        rec["batch"] = BATCH
        lines = self.lines()
        self._judge_losses(rec, device)
        self.verify_placement(rec, device, "Conv2D", lines)
        if device.upper().find("GPU") >= 0:
            self._memory(rec, device)

    def _memory(self, rec: dict[str, Any], device: str) -> None:
        try:
            info = self.tf.config.experimental.get_memory_info(device.replace("/device:", ""))
        except Exception:  # noqa: BLE001 - not every device or version reports memory
            return
        rec["memory_current_mib"] = round(info.get("current", 0) / 2**20, 1)
        rec["memory_peak_mib"] = round(info.get("peak", 0) / 2**20, 1)

    def do_throughput(self, rec: dict[str, Any], device: str, gpu: dict[str, Any] | None) -> None:
        tf = self.tf
        n = 4096 if gpu else 256
        cc = _cc(gpu)
        dtypes = ["float32", "float16"] + (["bfloat16"] if cc is None or cc >= (8, 0) else [])
        rec["n"] = n
        rec["gpu_name"] = gpu.get("name") if gpu else None
        rec["tf32"] = bool(tf.config.experimental.tensor_float_32_execution_enabled())
        rec["tflops"] = {}
        for dtype in dtypes:
            with tf.device(device):
                a = tf.cast(tf.random.stateless_normal((n, n), seed=(5, 6)), dtype)
                b = tf.cast(tf.random.stateless_normal((n, n), seed=(7, 8)), dtype)
                tf.matmul(a, b)[0, 0].numpy()  # warm-up: kernels chosen, memory allocated
                reps, elapsed = 2, 0.0
                while True:
                    start = time.perf_counter()
                    for _ in range(reps):
                        c = tf.matmul(a, b)
                    c[0, 0].numpy()  # the stream is in order: the last result means all are done
                    elapsed = time.perf_counter() - start
                    if elapsed >= 0.2 or reps >= 256:
                        break
                    reps *= 4
            rec["tflops"][dtype] = round(2 * n**3 * reps / elapsed / 1e12, 3)
        self.lines()

    def do_mixed(self, rec: dict[str, Any], device: str, gpu: dict[str, Any] | None) -> None:
        keras = self._keras()
        cc = _cc(gpu)
        if gpu and cc is not None and cc < (7, 0):
            raise Skip(f"compute capability {gpu.get('compute_capability')} < 7.0: no float16 Tensor Cores")
        policies = ["mixed_float16"] if gpu else []
        if cc is None or cc >= (8, 0):
            policies.append("mixed_bfloat16")
        rec["policies"] = {}
        failed = []
        for policy in policies:
            keras.mixed_precision.set_global_policy(policy)
            try:
                result = self._fit(device, 3)
                losses = result["losses"]
                ok = bool(losses) and _finite(losses)
                rec["policies"][policy] = {"status": "pass" if ok else "fail", **result}
                if not ok:
                    failed.append(f"{policy}: non-finite loss {losses}")
            except Exception as exc:  # noqa: BLE001 - report each policy's own failure
                rec["policies"][policy] = {"status": "fail", "error": _error_text(exc)}
                failed.append(f"{policy}: {_error_text(exc, 500)}")
            finally:
                keras.mixed_precision.set_global_policy("float32")
        self.lines()
        if failed:
            raise Fail("; ".join(failed))

    def do_xla(self, rec: dict[str, Any], device: str) -> None:
        import numpy as np

        tf = self.tf

        def fn(x: Any, w: Any) -> Any:
            return tf.reduce_sum(tf.nn.relu(tf.matmul(x, w)) * 0.5, axis=1)

        tf32 = tf.config.experimental.tensor_float_32_execution_enabled()
        tf.config.experimental.enable_tensor_float_32_execution(False)
        try:
            with tf.device(device):
                x = tf.random.stateless_normal((128, 64), seed=(9, 10))
                w = tf.random.stateless_normal((64, 32), seed=(11, 12))
                start = time.perf_counter()
                got = tf.function(fn, jit_compile=True)(x, w).numpy()
                rec["compile_seconds"] = round(time.perf_counter() - start, 4)
                ref = fn(x, w).numpy()
        finally:
            tf.config.experimental.enable_tensor_float_32_execution(tf32)
        self.lines()
        err = float(np.max(np.abs(got - ref)) / max(float(np.max(np.abs(ref))), 1e-30))
        rec["max_rel_error"] = err
        if not np.all(np.isfinite(got)) or err > 1e-3:
            raise Fail(f"XLA-compiled result on {device} differs from the eager one"
                       f" (max rel. error {err:.3g})", "mismatch")

    def do_multi(self, rec: dict[str, Any], devices: list[str]) -> None:
        tf = self.tf
        strategy = tf.distribute.MirroredStrategy(devices=devices)
        n = strategy.num_replicas_in_sync
        rec["devices"] = devices
        rec["replicas"] = n
        ops = getattr(strategy.extended, "_cross_device_ops", None)
        rec["cross_device_ops"] = type(ops).__name__ if ops is not None else None

        def replica_value() -> Any:
            ctx = tf.distribute.get_replica_context()
            return tf.cast(ctx.replica_id_in_sync_group + 1, tf.float32)

        total = float(strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(replica_value), axis=None))
        rec["all_reduce_sum"] = total
        expected = n * (n + 1) / 2
        if total != expected:
            raise Fail(f"all-reduce across {n} replicas gave {total}, expected {expected}", "mismatch")
        rec.update(self._fit(None, 3, strategy=strategy))
        self.lines()
        losses = rec["losses"]
        if not losses or not _finite(losses):
            raise Fail(f"MirroredStrategy training gave a non-finite loss: {losses}", "loss")

    # --- the run ------------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        start = time.perf_counter()
        imported = self.step("import", None, self.do_import)
        if imported["status"] != "pass":
            self.seen += self.lines()
            for name in STEP_NAMES[1:]:
                self.skip(name, None, "TensorFlow could not be imported")
            return self.result(start)
        devices = self.step("devices", None, self.do_devices)
        if devices["status"] != "pass":
            for name in STEP_NAMES[2:]:
                self.skip(name, None, "TensorFlow could not list its devices")
            return self.result(start)
        cpu = "/device:CPU:0"
        self.step("matmul", cpu, lambda r: self.do_matmul(r, cpu))
        for gpu in self.gpus:
            dev = gpu["tf_device"]
            self.step("matmul", dev, lambda r, d=dev: self.do_matmul(r, d))
        cpu_train = self.step("train", cpu, lambda r: self.do_train(r, cpu))
        for gpu in self.gpus:
            dev = gpu["tf_device"]
            rec = self.step("train", dev, lambda r, d=dev: self.do_train(r, d))
            cpu_sps, gpu_sps = cpu_train.get("seconds_per_step"), rec.get("seconds_per_step")
            if cpu_sps and gpu_sps:
                rec["speedup_vs_cpu"] = round(cpu_sps / gpu_sps, 2)
        targets = [(g["tf_device"], g) for g in self.gpus]
        if self.args.exercise_cpu:
            targets.append((cpu, None))
        for dev, gpu in targets:
            self.step("throughput", dev, lambda r, d=dev, g=gpu: self.do_throughput(r, d, g))
            self.step("mixed_precision", dev, lambda r, d=dev, g=gpu: self.do_mixed(r, d, g))
            self.step("xla", dev, lambda r, d=dev: self.do_xla(r, d))
        if not self.gpus:
            for name in GPU_STEPS:
                self.skip(name, "GPU", f"no GPU visible to TensorFlow: {self.reason}")
        if len(self.gpus) >= 2:
            group = [g["tf_device"] for g in self.gpus]
        elif self.args.logical_cpus >= 2:
            group = self.cpu_devices
        else:
            group = []
        if group:
            self.step("multi_gpu", ",".join(group), lambda r: self.do_multi(r, group))
        else:
            self.skip("multi_gpu", None, f"needs 2 or more GPUs; TensorFlow sees {len(self.gpus)}")
        return self.result(start)

    def result(self, start: float) -> dict[str, Any]:
        memory = {}
        for gpu in self.gpus:
            rec = {"name": gpu["tf_device"]}
            self._memory(rec, gpu["tf_device"])
            if "memory_peak_mib" in rec:
                memory[gpu["tf_device"]] = {k: rec[k] for k in ("memory_current_mib", "memory_peak_mib")}
        return _clean({
            "protocol": PROTOCOL,
            "python": sys.executable,
            "python_version": platform.python_version(),
            **self.info,
            "tf_visible_gpus": len(self.gpus),
            "gpus": self.gpus,
            "gpu_reason": self.reason,
            "memory": memory,
            "keras": self.keras_info,
            "peer_access": self.peer,
            "loaded_libraries": self.scan_libraries("end"),
            "steps": self.steps,
            "seconds": round(time.perf_counter() - start, 3),
        })


def _cc(gpu: dict[str, Any] | None) -> tuple[int, int] | None:
    text = (gpu or {}).get("compute_capability")
    m = re.fullmatch(r"(\d+)\.(\d+)", str(text or ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="tfdoctor-worker", description=__doc__.splitlines()[0])
    p.add_argument("--memory-limit", type=int, metavar="MiB", help="cap each GPU's memory instead of growth")
    p.add_argument("--logical-cpus", type=int, default=1, metavar="N",
                   help="split the CPU into N logical devices (tests MirroredStrategy without GPUs)")
    p.add_argument("--exercise-cpu", action="store_true",
                   help="also run the GPU-only steps (throughput, mixed precision, XLA) on the CPU")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "0")
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    out_fd = os.dup(1)
    try:
        capture: Capture | None = Capture()
    except OSError:
        capture = None
    worker = Worker(args, out_fd, capture)
    try:
        result = worker.run()
    except BaseException as exc:  # noqa: BLE001 - still answer with what was gathered
        result = {**worker.result(time.perf_counter()), "error": _error_text(exc)}
    if capture:
        capture.close()
    _emit(out_fd, "RESULT", result)
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # everything is written; skip TensorFlow's slow interpreter teardown
