"""`tfdoctor explain`: known signatures in pasted logs and command outputs -> findings with fixes.

One engine for every log: `tfdoctor explain FILE|-` and the worker's captured TensorFlow output
(`explain_text`) both go through `explain_lines`, which streams (bounded memory, capped line
length), normalises each line (ANSI colours, CR, log prefixes), matches the signature table in
tfdoctor/signatures.py, reads environment values, then combines the evidence (e.g. an
nvidia-smi banner's CUDA version next to a TensorFlow version -> driver.too-old, "likely").
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from tfdoctor import signatures as sg
from tfdoctor import versions as v
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status

MAX_LINE = 8192  # characters of one line that are looked at; the rest is dropped
MAX_EVIDENCE = 5  # lines quoted per finding
MAX_MATCHES = 200  # matches kept in facts.explain.matches
MAX_GPUS = 64
MAX_SEEN = 200_000  # distinct lines remembered to skip repeats (about 10 MB at most)

MEANINGS = {
    "driver.missing": "No usable NVIDIA driver is loaded (absent, nouveau instead, or not exposed to WSL2 "
    "or the container).",
    "driver.library-mismatch": "The NVIDIA user-space libraries and the loaded kernel module have different "
    "versions (reboot or reload the module).",
    "driver.too-old": "The NVIDIA driver is older than the CUDA version TensorFlow was built with needs.",
    "cuda.libraries-missing": "TensorFlow is a CUDA build but no libcudart/libcublas of its CUDA major is "
    "installed (pip wheels or system).",
    "cudnn.missing": "No cuDNN of the major version TensorFlow was built with is installed.",
    "cudnn.version-mismatch": "The installed cuDNN's version differs from (or is older than) the one "
    "TensorFlow was built with.",
    "cudnn.init-failed": "cuDNN was found but failed to initialise (often GPU memory, sometimes a cuDNN/CUDA "
    "mismatch).",
    "tensorflow.cpu-only-build": "The installed TensorFlow is a CPU-only build (tensorflow-cpu, intel, "
    "macOS, "
    "or a Windows release >= 2.11).",
    "platform.windows-native": "Native Windows with TensorFlow >= 2.11: no CUDA GPU support (WSL2 or "
    "TensorFlow <= 2.10 instead).",
    "cuda.init-failed": "CUDA could not initialise a GPU (cuInit failed: no device visible, busy, or a "
    "driver error).",
    "gpu.compute-capability-unsupported": "The GPU's compute capability has no kernels in this TensorFlow "
    "build (too old, or newer than the build and JIT from PTX fails).",
    "xla.toolchain-missing": "XLA cannot find the CUDA tools it compiles with (libdevice, ptxas).",
    "gpu.out-of-memory": "The GPU ran out of memory.",
    "nccl.error": "An NCCL collective (multi-GPU all-reduce) failed or warned.",
    "tensorflow.missing": "TensorFlow is not installed in the target Python interpreter.",
    "tensorflow.import-failed": "TensorFlow is installed but its native runtime failed to load.",
    "tensorflow.python-unsupported": "The target Python version is outside the range the TensorFlow release "
    "supports.",
}



# --- normalising lines ---------------------------------------------------------------------------

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_PREFIXES = (
    # absl: I0000 00:00:1700000000.123456  1234 cuda_executor.cc:1015]
    re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d+\.\d+\s+\d+\s+[\w./-]+:\d+\]\s?"),
    # 2023-06-01 12:00:00.123456: W tensorflow/core/...cc:123]
    re.compile(
        r"^\d{4}[-/]\d\d[-/]\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?:?\s+"
        r"(?:[IWEF]\s+[\w./-]+:\d+\]\s?)?"
    ),
    # E tensorflow/stream_executor/cuda/cuda_driver.cc:318]
    re.compile(r"^[IWEF] [\w./-]+\.(?:cc|h|cpp|py):\d+\]\s?"),
    # [2024-01-01 12:00:00] / [23:28:14 - Predict] / [INFO]
    re.compile(r"^\[[^\]]{0,40}\d\d:\d\d[^\]]{0,40}\]\s*"),
)
_PREFIX_START = frozenset("IWEF0123456789[")
_QUOTING = re.compile(r"^(?:\s|>|`|\*|#\s)+")


def normalize(line: str) -> str:
    """One physical line -> the text signatures look at (no colours, CR, prefixes, quoting)."""
    if len(line) > MAX_LINE:
        line = line[:MAX_LINE]
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    line = line.strip().strip("`").strip()
    if line and line[0] in "> `*#\t":
        line = _QUOTING.sub("", line)
    for _ in range(2):  # e.g. "2023/10/26 12:12:06 2023-10-26 12:12:06.704113: E ..."
        if not line or line[0] not in _PREFIX_START:
            break
        for rx in _PREFIXES:
            stripped = rx.sub("", line, count=1)
            if stripped != line:
                line = stripped
                break
        else:
            break
    return line.strip()


def read_lines(fh: BinaryIO, cap: int = MAX_LINE) -> Iterator[str]:
    """Stream decoded lines from a binary file: bounded memory, over-long lines cut at `cap` bytes."""
    while True:
        chunk = fh.readline(cap)
        if not chunk:
            return
        if len(chunk) >= cap and not chunk.endswith(b"\n"):
            while True:  # drop the rest of an over-long line without holding it
                rest = fh.readline(1 << 20)
                if not rest or rest.endswith(b"\n"):
                    break
        yield chunk.decode("utf-8", errors="replace")


# --- collecting evidence -----------------------------------------------------------------------------


@dataclass
class _Evidence:
    status: str = sg.WARN
    confidence: str = sg.LIKELY
    lines: list[tuple[int, str]] = field(default_factory=list)
    count: int = 0
    names: set[str] = field(default_factory=set)  # signature names
    details: list[str] = field(default_factory=list)  # extracted bits (library names, error codes)
    last_line: int = -1

    def add(self, status: str, confidence: str, line_no: int, text: str, name: str, detail: str = "") -> None:
        if status == sg.FAIL:
            self.status = sg.FAIL
        if confidence == sg.CERTAIN:
            self.confidence = sg.CERTAIN
        self.names.add(name)
        if line_no != self.last_line:  # two signatures on one line are one piece of evidence
            self.last_line = line_no
            self.count += 1
            if len(self.lines) < MAX_EVIDENCE:
                self.lines.append((line_no, text[:300]))
        if detail and detail not in self.details and len(self.details) < 20:
            self.details.append(detail)


@dataclass
class Explanation:
    """What a log says: the environment values read, findings, and how much was read."""

    environment: dict[str, Any]
    findings: list[Finding]
    lines_read: int
    matches: list[dict[str, Any]] = field(default_factory=list)
    platform_hints: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.lines_read == 0

    def facts(self) -> dict[str, Any]:
        return {
            "lines_read": self.lines_read,
            "matches": self.matches,
            "platform_hints": self.platform_hints,
        }


class _Scanner:
    """Line-by-line state: evidence per finding id, environment values, multi-line contexts."""

    def __init__(self) -> None:
        self.evidence: dict[str, _Evidence] = {}
        self.matches: list[dict[str, Any]] = []
        self.values: dict[str, Any] = {}
        self.gpus: dict[int, dict[str, Any]] = {}
        self.smi_gpus: dict[int, dict[str, Any]] = {}
        self.hints: dict[str, int] = {}
        self.visible: set[int] = set()
        self.lines = 0
        self._pending_found: int | None = None
        self._pending_heading: str | None = None
        self._last_smi: int | None = None
        self._prev = ""
        self._seen: set[int] = set()

    # -- per line
    def feed(self, raw: str) -> None:
        self.lines += 1
        if "\r" in raw:
            for part in raw.split("\r"):
                if part.strip():
                    self._line(normalize(part))
        else:
            self._line(normalize(raw))

    def _line(self, line: str) -> None:
        if not line:
            return
        key = hash(line)
        if key in self._seen:  # a repeated line adds no evidence or value: logs repeat a lot
            self._prev = line.lower()
            return
        if len(self._seen) < MAX_SEEN:
            self._seen.add(key)
        low = line.lower()
        for anchor, sigs in sg.ANCHOR_ITEMS if sg.ANY_ANCHOR.search(low) else ():
            if anchor in low:
                for sig in sigs:
                    m = sig.regex.search(line)
                    if m:
                        self._hit(sig, m, line)
        self._values(line, low)
        self._prev = low

    def _hit(self, sig: sg.Signature, m: re.Match[str], line: str) -> None:
        detail = next((g for g in m.groups() if g), "") if m.groups() else ""
        if sig.name == "cudnn-version-mismatch":
            loaded, compiled = _cudnn_str(m.group(1)), _cudnn_str(m.group(2))
            self.values.setdefault("cudnn_version", loaded)
            self.values.setdefault("tf_cudnn_version", compiled)
            detail = f"loaded {loaded}, built with {compiled}"
        elif sig.name in ("built-with-cuda-false", "build-info-cpu"):
            self.values.setdefault("tf_built_with_cuda", False)
        elif sig.name == "cc-jit-from-ptx":
            self.values.setdefault("_cc", m.group(1))
        self.evidence.setdefault(sig.fid, _Evidence()).add(
            sig.status, sig.confidence, self.lines, line, sig.name, detail.strip()
        )
        if len(self.matches) < MAX_MATCHES:
            self.matches.append(
                {"signature": sig.name, "id": sig.fid, "line": self.lines, "text": line[:300]}
            )

    # -- environment values
    def _set(self, key: str, value: Any) -> None:
        if value is not None and self.values.get(key) is None:
            self.values[key] = value

    def _values(self, line: str, low: str) -> None:
        if self._pending_heading and not line.startswith("#"):
            self._heading_value(self._pending_heading, line)
            self._pending_heading = None
        hm = sg.RE_HEADING.match(line) if "version" in low or "platform" in low else None
        if hm:
            self._pending_heading = hm.group(1).lower()
        if "version" in low or "compilation tools" in low:
            self._version_values(line, low)
        if self.values.get("tensorflow_version") is None and (
            "tensorflow" in low or "tf-nightly" in low or low.startswith("v")
        ):
            for rx in sg.RE_TF_VERSION:
                m = rx.search(line)
                if m:
                    self._set("tensorflow_version", m.group(1))
                    break
        if "python" in low and self.values.get("python_version") is None:
            for rx in sg.RE_PYTHON:
                m = rx.search(line)
                if m:
                    self._set("python_version", m.group(1))
                    break
        if "is_cuda_build" in low or "cuda_version" in low or "cudnn_version" in low:
            for key, val in sg.RE_BUILD_KV.findall(line):
                if key == "is_cuda_build":
                    self._set("tf_built_with_cuda", val.lower() == "true")
                else:
                    self._set("tf_" + key, v.norm_cuda(val) if key == "cuda_version" else v.norm_cudnn(val))
        if "is_built_with_cuda" in self._prev and low in ("true", "false"):
            self._set("tf_built_with_cuda", low == "true")
            if low == "false":
                self.evidence.setdefault("tensorflow.cpu-only-build", _Evidence()).add(
                    sg.FAIL,
                    sg.CERTAIN,
                    self.lines,
                    "is_built_with_cuda() -> False",
                    "is-built-with-cuda-false",
                )
        if "'" in line and "__version__" in self._prev and "tf" in self._prev:
            m = re.match(r"^'(\d+\.\d+\.\d+\S*)'$", line)
            if m:
                self._set("tensorflow_version", m.group(1))
        if self._prev.startswith("name: tensorflow") and low.startswith("version:"):
            self._set("tensorflow_version", line.split(":", 1)[1].strip() or None)
        self._gpu_values(line, low)
        self._platform_values(line, low)

    def _heading_value(self, heading: str, line: str) -> None:
        m = re.search(r"(\d+\.\d+(?:\.\d+)?)", line)
        if heading == "tensorflow version" and m:
            self._set("tensorflow_version", m.group(1))
        elif heading == "python version" and m:
            self._set("python_version", m.group(1))
        elif heading.startswith("os platform"):
            om = sg.RE_OS.search(line)
            self._set("os", om.group(1) if om else None)

    def _version_values(self, line: str, low: str) -> None:
        m = sg.RE_SMI_BANNER.search(line)
        if m:
            self._set("driver_version", m.group(1))
            self._set("cuda_driver_version", m.group(2))
            if m.group(2):
                self.hints["nvidia-smi"] = self.hints.get("nvidia-smi", 0) + 1
            return
        m = sg.RE_SMI_Q.match(line)
        if m:
            self._set("driver_version" if m.group(1) == "Driver" else "cuda_driver_version", m.group(2))
        for rx, key in (
            (sg.RE_KERNEL_REPORTED, "driver_version"),
            (sg.RE_PROC_DRIVER, "driver_version"),
            (sg.RE_NVCC, "nvcc_version"),
            (sg.RE_CUDNN_LOADED, "cudnn_version"),
        ):
            m = rx.search(line)
            if m:
                value = _cudnn_str(m.group(1)) if key == "cudnn_version" else m.group(1)
                self._set(key, value)

    def _gpu(self, index: int, name: str | None, cc: str | None, mem: int | None = None) -> None:
        if len(self.gpus) >= MAX_GPUS and index not in self.gpus:
            return
        gpu = self.gpus.setdefault(
            index, {"index": index, "name": None, "compute_capability": None, "memory_total_mib": None}
        )
        for key, val in (("name", name), ("compute_capability", cc), ("memory_total_mib", mem)):
            if val is not None and gpu[key] is None:
                gpu[key] = val.strip() if isinstance(val, str) else val

    def _gpu_values(self, line: str, low: str) -> None:
        if "device" in low:
            m = sg.RE_GPU_CREATED.search(line)
            if m:
                self.visible.add(int(m.group(1)))
                self._gpu(int(m.group(3)), m.group(4), m.group(5))
            m = sg.RE_GPU_IGNORING.search(line)
            if m:
                self._gpu(int(m.group(1)), m.group(2), m.group(3))
            m = sg.RE_GPU_XLA.search(line)
            if m:
                self._gpu(int(m.group(1)), m.group(2), m.group(3))
            m = sg.RE_GPU_FOUND.search(line)
            if m:
                self._pending_found = int(m.group(1))
            for pm in sg.RE_PHYSICAL_GPU.finditer(line):
                self.visible.add(int(pm.group(1)))
        if self._pending_found is not None and "name:" in low:
            m = sg.RE_GPU_NAME_CC.search(line)
            if m:
                cc = m.group(2) or (f"{m.group(3)}.{m.group(4)}" if m.group(3) else None)
                self._gpu(self._pending_found, m.group(1), cc)
                self._pending_found = None
        if "gpus available" in low:
            m = sg.RE_VISIBLE[0].search(line)
            if m:
                self._set("tf_visible_gpus", int(m.group(1)))
        if line.startswith("|"):
            m = sg.RE_SMI_ROW.match(line)
            if m:
                idx = int(m.group(1))
                if len(self.smi_gpus) < MAX_GPUS:
                    self.smi_gpus.setdefault(
                        idx,
                        {
                            "index": idx,
                            "name": m.group(2).strip(),
                            "compute_capability": None,
                            "memory_total_mib": None,
                        },
                    )
                self._last_smi = idx
                return
            m = sg.RE_SMI_MEM.match(line)
            if m and self._last_smi is not None and self._last_smi in self.smi_gpus:
                self.smi_gpus[self._last_smi]["memory_total_mib"] = int(m.group(2))
                self._last_smi = None

    def _platform_values(self, line: str, low: str) -> None:
        """Platform hints: each regex runs only when a cheap substring test says it may match."""
        hints = self.hints
        if "wsl" in low or "/usr/lib/wsl" in low:
            if sg.RE_WSL.search(line):
                hints["wsl2"] = hints.get("wsl2", 0) + 1
                km = sg.RE_WSL_KERNEL.search(line)
                if km:
                    self._set("kernel", km.group(1))
        if "windows" not in hints and any(k in low for k in _WINDOWS_KEYS) and sg.RE_WINDOWS.search(line):
            hints["windows"] = 1
        if "linux" not in hints and any(k in low for k in _LINUX_KEYS) and sg.RE_LINUX.search(line):
            hints["linux"] = 1
        if "macos" not in hints and ("mac" in low or "darwin" in low) and sg.RE_MACOS.search(line):
            hints["macos"] = 1
        if (
            "conda" not in hints
            and ("conda" in low or "/envs/" in low or "forge" in low)
            and sg.RE_CONDA.search(line)
        ):
            hints["conda"] = 1
        if self.values.get("os") is None and any(k in low for k in _OS_KEYS):
            om = sg.RE_OS.search(line)
            if om:
                self._set("os", om.group(1))
                if "windows" in om.group(1).lower():
                    hints["windows"] = 1
        if "cuda_visible_devices" in low and sg.RE_CUDA_VISIBLE.search(line):
            hints["cuda_visible_devices_empty"] = 1
        if "cuda_error_invalid_handle" in low:
            hints["invalid_handle"] = 1


_WINDOWS_KEYS = (":\\", ".dll", "wddm", "windows", "win_amd64", "win32", "tensorflow-intel")
_LINUX_KEYS = (".so", "/usr/", "/home/", "linux", "ubuntu")
_OS_KEYS = ("ubuntu", "centos", "rocky", "red hat", "fedora", "debian", "windows", "amazon linux", "opensuse")


def _cudnn_str(value: str) -> str:
    """'8.1.0' stays; TF's integer forms 7201 -> 7.2.1, 8902 -> 8.9.2, 90300 -> 9.3.0."""
    if "." in value or not value.isdigit():
        return value
    n = int(value)
    if n >= 10000:
        return f"{n // 10000}.{n % 10000 // 100}.{n % 100}"
    if n >= 1000:
        return f"{n // 1000}.{n % 1000 // 100}.{n % 100}"
    return value


# --- combining evidence ------------------------------------------------------------------------------


def _platform(hints: dict[str, int]) -> str | None:
    if hints.get("wsl2"):
        return "wsl2"
    if hints.get("windows"):
        return "windows"
    if hints.get("macos") and not hints.get("linux"):
        return "macos"
    if hints.get("linux"):
        return "linux"
    return None


def _matrix() -> Any:
    try:
        from tfdoctor.compat import load_matrix

        return load_matrix()
    except Exception:  # noqa: BLE001 - inference is skipped without the matrix
        return None


def _release(matrix: Any, tf_version: str | None) -> Any:
    try:
        return matrix.tf_release(tf_version) if matrix is not None and tf_version else None
    except Exception:  # noqa: BLE001
        return None


def _tf_cuda(matrix: Any, tf_version: str | None) -> str | None:
    if matrix is None or not tf_version:
        return None
    try:
        rel = matrix.tf_release(tf_version)
        return str(rel.cuda) if rel is not None and getattr(rel, "cuda", None) else None
    except Exception:  # noqa: BLE001
        return None


def _infer(sc: _Scanner, env: dict[str, Any], matrix: Any) -> None:
    """Evidence from combining values: banner CUDA vs TF's CUDA, Windows + TF >= 2.11, Python range."""
    tf_version = env.get("tensorflow_version")
    plat = env.get("platform")
    # Native Windows with TF >= 2.11 has no CUDA build at all.
    rel = _release(matrix, tf_version)
    no_windows_gpu = (not rel.gpu_on("windows")) if rel is not None else v.version_ge(tf_version, (2, 11))
    if plat == "windows" and tf_version and no_windows_gpu:
        sc.evidence.setdefault("platform.windows-native", _Evidence()).add(
            sg.FAIL,
            sg.CERTAIN,
            0,
            f"native Windows and TensorFlow {tf_version}",
            "windows-tf-2.11+",
            f"TensorFlow {tf_version}",
        )
    # A driver whose CUDA version is older than the one TensorFlow was built with.
    tf_cuda = _tf_cuda(matrix, tf_version) or env.get("tf_cuda_version")
    if tf_cuda and "driver.too-old" not in sc.evidence:
        too_old, why = _driver_too_old(matrix, env, tf_cuda, plat)
        if too_old:
            sc.evidence.setdefault("driver.too-old", _Evidence()).add(
                sg.FAIL, sg.LIKELY, 0, why, "driver-vs-tf-cuda", why
            )
    # Python outside the TF release's range.
    py = env.get("python_version")
    if py and tf_version and matrix is not None and "tensorflow.python-unsupported" not in sc.evidence:
        try:
            rel = matrix.tf_release(tf_version)
            lo, hi = rel.python_min, rel.python_max
            if rel is not None and lo and hi and not (v.vtuple(lo) <= v.vtuple(py)[:2] <= v.vtuple(hi)):
                sc.evidence.setdefault("tensorflow.python-unsupported", _Evidence()).add(
                    sg.FAIL,
                    sg.LIKELY,
                    0,
                    f"Python {py} with TensorFlow {tf_version} (supports {lo}-{hi})",
                    "python-vs-tf",
                    f"Python {py}, TensorFlow {tf_version} supports {lo}-{hi}",
                )
        except Exception:  # noqa: BLE001
            pass
    # The generic "Cannot dlopen some GPU libraries" names no library: when the only missing one is
    # cuDNN, it is cuDNN's finding alone.
    lib = sc.evidence.get("cuda.libraries-missing")
    if (
        lib
        and lib.names <= {"cannot-dlopen-gpu-libs", "cudart-stub-no-cuda"}
        and "cudnn.missing" in sc.evidence
    ):
        if lib.names == {"cannot-dlopen-gpu-libs"}:
            del sc.evidence["cuda.libraries-missing"]
    # "DNN library initialization failed" after a version mismatch or OOM is not a second problem.
    if "cudnn.init-failed" in sc.evidence and (
        {"cudnn.version-mismatch", "cudnn.missing", "gpu.out-of-memory"} & set(sc.evidence)
    ):
        del sc.evidence["cudnn.init-failed"]
    # JIT from PTX followed by a kernel failure is a failure, not a slow start.
    cc = sc.evidence.get("gpu.compute-capability-unsupported")
    if cc and cc.names & {"cc-jit-from-ptx"} and ({"gpu.out-of-memory"} & set(sc.evidence)) == set():
        if any("INVALID_HANDLE" in t or "INVALID_PTX" in t for _, t in cc.lines) or sc.hints.get(
            "invalid_handle"
        ):
            cc.status = sg.FAIL


def _driver_too_old(matrix: Any, env: dict[str, Any], tf_cuda: str, plat: str | None) -> tuple[bool, str]:
    driver = env.get("driver_version")
    banner = env.get("cuda_driver_version")
    need = v.major_minor(tf_cuda) or tf_cuda
    tfv = env.get("tensorflow_version") or "this TensorFlow"
    if driver and matrix is not None:
        try:
            ok, _caveat = matrix.driver_supports_cuda(
                driver, tf_cuda, "windows" if plat in ("windows", "wsl2") else "linux"
            )
            if not ok:
                return True, f"driver {driver} cannot run CUDA {need}, which TensorFlow {tfv} was built with"
            return False, ""
        except Exception:  # noqa: BLE001 - fall back to the banner
            pass
    if banner and v.vtuple(banner) and v.vtuple(need) and v.vtuple(banner)[0] < v.vtuple(need)[0]:
        return True, f"the driver supports CUDA {banner}; TensorFlow {tfv} was built with CUDA {need}"
    return False, ""


# --- findings with fixes -----------------------------------------------------------------------------


def _fixctx(env: dict[str, Any], conda: bool) -> dict[str, Any]:
    """Pseudo facts for tfdoctor.checks.fixes, from what the log told us."""
    system = {
        "platform": env.get("platform"),
        "os": env.get("os"),
        "env": {"CONDA_PREFIX": "x"} if conda else {},
    }
    return {"system": system, "tensorflow": {}}


def _tf_req(env: dict[str, Any]) -> str:
    v = env.get("tensorflow_version")
    return rm.tf_requirement(v) if v and v.version_ge(v, (2, 14)) else "tensorflow[and-cuda]"


def _build(fid: str, ev: _Evidence, env: dict[str, Any], conda: bool, facts: dict | None = None) -> Finding:
    ctx = facts or _fixctx(env, conda)
    plat = env.get("platform")
    pip = rm.pip_install(ctx, _tf_req(env))
    shown = ev.lines[:2]
    quoted = "; ".join(f"line {n}: {_clip(t)}" if n else _clip(t) for n, t in shown)
    more = f" (+{ev.count - len(shown)} more)" if ev.count > len(shown) else ""
    extra = ", ".join(ev.details)
    title, fix, docs, why = _TEXT.get(fid, _default_text)(ev, env, ctx, pip, plat)
    detail = f"{why} Evidence: {quoted}{more}."
    if ev.confidence == sg.LIKELY:
        detail += " Inferred from indirect evidence: confirm with `tfdoctor check`."
    if extra and extra not in title:
        title = f"{title} ({extra})" if len(extra) < 80 else title
    return Finding(
        fid,
        Status.FAIL if ev.status == sg.FAIL else Status.WARN,
        title,
        detail=detail,
        fix=fix,
        docs=docs,
        facts=("explain",),
        confidence=ev.confidence,
    )


def _clip(text: str, width: int = 160) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _default_text(ev: _Evidence, env: dict[str, Any], ctx: dict[str, Any], pip: str, plat: str | None):
    return ("Problem found in the log", "Run `tfdoctor check` on the machine for details.", None, "")


def _t_driver_missing(ev, env, ctx, pip, plat):
    fix, docs = rm.driver_install(ctx)
    if "libcuda-missing" in ev.names and plat not in ("wsl2", "windows"):
        fix += (
            " — if this runs in a container, start it with `--gpus all` and the NVIDIA Container"
            " Toolkit so the host's libcuda.so.1 is mounted"
        )
    why = "TensorFlow could not load the NVIDIA driver library (libcuda) or talk to the kernel driver."
    return "No usable NVIDIA driver", fix, docs, why


def _t_library_mismatch(ev, env, ctx, pip, plat):
    fix = (
        "sudo reboot  # loads the kernel module matching the upgraded libraries; without a reboot: "
        "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia"
    )
    if plat == "wsl2":
        fix = (
            "Remove any Linux NVIDIA driver installed inside WSL (sudo apt purge 'nvidia-*' 'libnvidia-*'), "
            "then run `wsl --shutdown` in PowerShell"
        )
    why = "The NVIDIA user-space libraries were upgraded but the old kernel module is still loaded."
    return "NVIDIA driver libraries and kernel module versions differ", fix, "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/index.html", why


def _t_too_old(ev, env, ctx, pip, plat):
    fix, docs = rm.driver_install(ctx)
    v = env.get("tensorflow_version")
    if v:
        driver = env.get("driver_version") or "VERSION"
        fix += (
            " — or keep the driver and install a TensorFlow built for the CUDA it supports"
            f" (`tfdoctor matrix --driver {driver}`)"
        )
    why = "The NVIDIA driver is older than the CUDA runtime TensorFlow uses."
    return "NVIDIA driver too old for TensorFlow's CUDA", fix, "https://docs.nvidia.com/deploy/cuda-compatibility/", why


def _t_libs_missing(ev, env, ctx, pip, plat):
    if plat == "windows":
        fix = (
            "Native Windows GPU needs TensorFlow <= 2.10 with CUDA 11.2 + cuDNN 8.1: "
            "conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0 && python -m pip install "
            '"tensorflow<2.11" — or use WSL2'
        )
        return (
            "CUDA libraries TensorFlow needs were not found",
            fix,
            "https://www.tensorflow.org/install/pip" + "#windows-native",
            "TensorFlow could not load CUDA runtime libraries.",
        )
    v = env.get("tensorflow_version")
    if v and not v.version_ge(v, (2, 14)):
        fix = (
            f"Install the CUDA toolkit {'11.2' if v.version_ge(v, (2, 5)) else 'of your TF release'} "
            "libraries and put their lib64 directory on LD_LIBRARY_PATH, or upgrade: "
            + rm.pip_install(ctx, "tensorflow[and-cuda]")
        )
    else:
        fix = pip + "  # the pip wheels provide libcudart, libcublas, cuDNN... matching this TensorFlow"
    why = "TensorFlow could not load the CUDA runtime libraries it was built against, so it skips the GPU."
    if "cudart-stub-no-cuda" in ev.names:
        why += (
            ' ("Could not find cuda drivers" is printed when libcudart cannot be loaded: despite the'
            " wording it is usually the CUDA libraries, not the driver.)"
        )
    return "CUDA libraries TensorFlow needs were not found", fix, "https://www.tensorflow.org/install/pip", why


def _t_cudnn_missing(ev, env, ctx, pip, plat):
    if plat == "windows":
        fix = "conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0  # TF <= 2.10 on native Windows"
    else:
        fix = rm.pip_install(ctx, "nvidia-cudnn-cu12") + "  # or reinstall: " + pip
    why = "TensorFlow could not load cuDNN, which convolutions and RNNs on the GPU need."
    return "cuDNN not found", fix, "https://www.tensorflow.org/install/pip", why


def _t_cudnn_mismatch(ev, env, ctx, pip, plat):
    built = env.get("tf_cudnn_version")
    fix = pip + "  # pip's nvidia-cudnn wheel matching this TensorFlow"
    if built:
        fix += (
            f"; then make sure no older libcudnn shadows it: unset LD_LIBRARY_PATH entries pointing at"
            f" another cuDNN (needs >= {built})"
        )
    if ev.names and v.version_ge(built, (9,)) and not env.get("tensorflow_version"):
        fix += " — also check that PyTorch/JAX in the same environment do not pin an older nvidia-cudnn-cu12"
    why = "The cuDNN loaded at run time is older than (or of another major than) TensorFlow's build."
    return "Loaded cuDNN does not match TensorFlow's build", fix, "https://www.tensorflow.org/install/source#gpu", why


def _t_cudnn_init(ev, env, ctx, pip, plat):
    fix = (
        "Let TensorFlow allocate GPU memory on demand: export TF_FORCE_GPU_ALLOW_GROWTH=true (or "
        "tf.config.experimental.set_memory_growth(gpu, True)); if it persists, reinstall CUDA/cuDNN: "
        + pip
    )
    why = (
        "cuDNN failed to start; usually another process holds the GPU memory, sometimes cuDNN/CUDA mismatch."
    )
    return (
        "cuDNN failed to initialise",
        fix,
        "https://www.tensorflow.org/guide/gpu#limiting_gpu_memory_growth",
        why,
    )


def _t_cpu_only(ev, env, ctx, pip, plat):
    if plat == "windows":
        fix = "Use WSL2 (" + "https://www.tensorflow.org/install/pip" + '#windows-wsl2), or python -m pip install "tensorflow<2.11"'
    elif plat == "macos":
        fix = "No CUDA on macOS: use python -m pip install tensorflow-metal for Apple GPUs"
    else:
        fix = rm.pip_uninstall(ctx, "tensorflow-cpu") + " && " + pip
    why = "This TensorFlow was built without CUDA, so it never uses an NVIDIA GPU."
    return "TensorFlow is a CPU-only build", fix, "https://www.tensorflow.org/install/pip", why


def _t_windows(ev, env, ctx, pip, plat):
    fix = (
        "Install TensorFlow in WSL2 (wsl --install, then inside it: python3 -m pip install "
        "'tensorflow[and-cuda]'), or stay native with python -m pip install \"tensorflow<2.11\" plus "
        "conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0"
    )
    why = "TensorFlow 2.10 was the last release with GPU support on native Windows."
    return (
        "TensorFlow >= 2.11 has no GPU support on native Windows",
        fix,
        "https://www.tensorflow.org/install/pip" + "#windows-native",
        why,
    )


def _t_init(ev, env, ctx, pip, plat):
    text = " ".join(t for _, t in ev.lines)
    if "NO_DEVICE" in text or "no CUDA-capable device" in text:
        fix = (
            "Make the GPU visible: unset CUDA_VISIBLE_DEVICES (or set it to 0); in a container run with "
            "`--gpus all`; check `nvidia-smi` lists the GPU"
        )
        if plat == "wsl2":
            fix = (
                "Update the Windows NVIDIA driver, run `wsl --shutdown`, and check that "
                "/usr/lib/wsl/lib/libcuda.so.1 exists"
            )
    elif "303" in text or "SHARED_OBJECT" in text:
        fix = rm.driver_install(ctx)[0]
    else:
        fix = (
            "Check `nvidia-smi` works; run as a user in the `video`/`render` groups (or with access to "
            "/dev/nvidia*); after a driver upgrade or suspend: sudo reboot (or sudo rmmod nvidia_uvm && "
            "sudo modprobe nvidia_uvm)"
        )
    why = "The CUDA driver API (cuInit) failed, so TensorFlow sees no GPU."
    if sg_hint(env, "cuda_visible_devices_empty"):
        why += " CUDA_VISIBLE_DEVICES is empty or -1 in this log, which hides every GPU."
    return "CUDA failed to initialise", fix, "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars", why


def sg_hint(env: dict[str, Any], name: str) -> bool:
    return bool(env.get("_hints", {}).get(name))


def _t_cc(ev, env, ctx, pip, plat):
    cc = env.get("_cc") or next(
        (g.get("compute_capability") for g in env.get("gpus") or [] if g.get("compute_capability")), None
    )
    if ev.status == sg.WARN:
        fix = (
            "Expect a long first start while kernels JIT-compile from PTX; keep the cache: export "
            "CUDA_CACHE_MAXSIZE=4294967296; or use a TensorFlow release with native kernels for this GPU "
            "(`tfdoctor matrix`)"
        )
        why = "This TensorFlow build has no native kernels for this GPU; they are JIT-compiled from PTX."
    else:
        fix = (
            "Install a TensorFlow release built for this GPU's compute capability (see `tfdoctor matrix`), "
            "e.g. " + pip + "; GPUs older than the release's minimum need an older TensorFlow, "
            "GPUs newer than it need tf-nightly or a source build with TF_CUDA_COMPUTE_CAPABILITIES"
        )
        why = "This TensorFlow build has no usable kernels for this GPU's compute capability."
    if cc:
        why += f" Compute capability: {cc}."
    return "GPU compute capability not supported by this TensorFlow build", fix, "https://developer.nvidia.com/cuda-gpus", why


def _t_xla(ev, env, ctx, pip, plat):
    fix = (
        pip + "  # ships nvidia-cuda-nvcc (ptxas, libdevice); or point XLA at a CUDA toolkit: "
        "export XLA_FLAGS=--xla_gpu_cuda_data_dir=/usr/local/cuda"
    )
    if "ptxas-too-old" in ev.names:
        fix = (
            "ptxas is older than the GPU: "
            + rm.pip_install(ctx, "nvidia-cuda-nvcc-cu12")
            + " or put a newer CUDA toolkit's bin first on PATH"
        )
    why = "XLA (jit_compile, some Keras layers) needs libdevice and ptxas from the CUDA toolkit."
    return "XLA cannot find the CUDA compiler tools", fix, "https://www.tensorflow.org/xla", why


def _t_oom(ev, env, ctx, pip, plat):
    fix = (
        "Reduce the batch size or model size; enable memory growth (export TF_FORCE_GPU_ALLOW_GROWTH=true); "
        "check other processes holding GPU memory with `nvidia-smi`"
    )
    why = "The GPU ran out of memory for this allocation."
    return "GPU out of memory", fix, "https://www.tensorflow.org/guide/gpu#limiting_gpu_memory_growth", why


def _t_nccl(ev, env, ctx, pip, plat):
    fix = (
        "Rerun with NCCL_DEBUG=INFO to see the failing transport; for InfiniBand/IB verbs errors try "
        "NCCL_IB_DISABLE=1, for P2P/NVLink problems NCCL_P2P_DISABLE=1; in containers add --ipc=host or "
        "--shm-size=1g; or use tf.distribute.HierarchicalCopyAllReduce() instead of NCCL"
    )
    why = "An NCCL collective used by MirroredStrategy / MultiWorkerMirroredStrategy failed."
    return (
        "NCCL collective failed",
        fix,
        "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html",
        why,
    )


def _t_tf_missing(ev, env, ctx, pip, plat):
    return (
        "TensorFlow is not installed in this Python",
        pip if plat != "windows" else "python -m pip install tensorflow  # GPU on Windows: use WSL2",
        "https://www.tensorflow.org/install/pip",
        "Python could not import the tensorflow module.",
    )


def _t_tf_import(ev, env, ctx, pip, plat):
    fix = (
        "Windows: install the Microsoft Visual C++ Redistributable (https://aka.ms/vs/17/release/vc_redist.x64.exe);"
        " a CPU without AVX needs a TensorFlow built without AVX; then reinstall: " + pip
    )
    return (
        "TensorFlow's native runtime failed to load",
        fix,
        "https://www.tensorflow.org/install/pip",
        "The tensorflow package is present but its compiled library could not be loaded.",
    )


def _t_python(ev, env, ctx, pip, plat):
    py = env.get("python_version")
    fix = (
        "Create an environment with a Python TensorFlow supports (3.10-3.13 for TensorFlow 2.21; see "
        "https://pypi.org/project/tensorflow/): e.g. python3.12 -m venv .venv && .venv/bin/python -m pip "
        "install 'tensorflow[and-cuda]'; also check it is a 64-bit Python"
    )
    why = "pip found no TensorFlow wheel for this Python (version or 32-bit/platform not supported)."
    if py:
        why += f" Python {py}."
    return (
        "This Python version is not supported by TensorFlow",
        fix,
        "https://www.tensorflow.org/install/pip" + "#software_requirements",
        why,
    )


_TEXT = {
    "driver.missing": _t_driver_missing,
    "driver.library-mismatch": _t_library_mismatch,
    "driver.too-old": _t_too_old,
    "cuda.libraries-missing": _t_libs_missing,
    "cudnn.missing": _t_cudnn_missing,
    "cudnn.version-mismatch": _t_cudnn_mismatch,
    "cudnn.init-failed": _t_cudnn_init,
    "tensorflow.cpu-only-build": _t_cpu_only,
    "platform.windows-native": _t_windows,
    "cuda.init-failed": _t_init,
    "gpu.compute-capability-unsupported": _t_cc,
    "xla.toolchain-missing": _t_xla,
    "gpu.out-of-memory": _t_oom,
    "nccl.error": _t_nccl,
    "tensorflow.missing": _t_tf_missing,
    "tensorflow.import-failed": _t_tf_import,
    "tensorflow.python-unsupported": _t_python,
}

_ORDER = list(_TEXT)

# --- public API ---------------------------------------------------------------------------------------


def explain_lines(lines: Iterable[str], matrix: Any = None, facts: dict | None = None) -> Explanation:
    """Streaming: each line is looked at once; memory stays bounded whatever the input size.

    `facts`, when the log comes from a live check, tailor the fixes to the probed machine
    (distribution, container, WSL2) instead of to what the log alone tells.
    """
    sc = _Scanner()
    for raw in lines:
        sc.feed(raw if isinstance(raw, str) else str(raw))
    env = _environment(sc)
    if matrix is None and env.get("tensorflow_version"):
        matrix = _matrix()
    private = {"_hints": sc.hints, "_cc": sc.values.get("_cc")}
    _infer(sc, env, matrix)
    findings = [
        _build(fid, sc.evidence[fid], {**env, **private}, bool(sc.hints.get("conda")), facts)
        for fid in sorted(sc.evidence, key=lambda f: (_ORDER.index(f) if f in _ORDER else 99, f))
    ]
    hints = sorted(k for k in sc.hints if k in ("wsl2", "windows", "linux", "macos", "conda", "nvidia-smi"))
    return Explanation(
        environment=env, findings=findings, lines_read=sc.lines, matches=sc.matches, platform_hints=hints
    )


def explain_text(text: str, facts: dict | None = None) -> Explanation:
    """The worker's captured TensorFlow log (or any string) through the same engine."""
    return explain_lines(_split(text or ""), facts=facts)


def _split(text: str) -> Iterator[str]:
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        yield text[start:end]
        start = end + 1


def _environment(sc: _Scanner) -> dict[str, Any]:
    from tfdoctor.environment import KEYS

    v = sc.values
    gpus = [sc.gpus[i] for i in sorted(sc.gpus)] or [sc.smi_gpus[i] for i in sorted(sc.smi_gpus)] or None
    if gpus and sc.smi_gpus:  # fill memory/name from the nvidia-smi table where TF's lines lack them
        for g in gpus:
            s = sc.smi_gpus.get(g["index"])
            if s and g.get("memory_total_mib") is None:
                g["memory_total_mib"] = s.get("memory_total_mib")
    visible = v.get("tf_visible_gpus")
    if visible is None and sc.visible:
        visible = len(sc.visible)
    env = {
        "platform": _platform(sc.hints),
        "os": v.get("os"),
        "kernel": v.get("kernel"),
        "python_version": v.get("python_version"),
        "driver_version": v.get("driver_version"),
        "cuda_driver_version": v.get("cuda_driver_version"),
        "nvcc_version": v.get("nvcc_version"),
        "tensorflow_version": v.get("tensorflow_version"),
        "tf_built_with_cuda": v.get("tf_built_with_cuda"),
        "tf_cuda_version": v.get("tf_cuda_version"),
        "tf_cudnn_version": v.get("tf_cudnn_version"),
        "cudnn_version": v.get("cudnn_version"),
        "gpu_count": len(gpus) if gpus else None,
        "gpus": gpus,
        "tf_visible_gpus": visible,
    }
    return {k: env.get(k) for k in KEYS}


# --- the command ----------------------------------------------------------------------------------------


class _InputError(Exception):
    pass


def _open(file: str) -> BinaryIO:
    if file == "-":
        return sys.stdin.buffer
    try:
        fh = open(file, "rb")  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        raise _InputError(f"tfdoctor: cannot read {file}: {exc.strerror or exc}") from None
    return fh


def explain_command(file: str, as_json: bool, color: bool) -> int:
    """`tfdoctor explain FILE|-`: 0 when nothing failed, 1 when a finding failed, 2 on unreadable input."""
    try:
        fh = _open(file)
        try:
            result = explain_lines(read_lines(fh))
        finally:
            if fh is not sys.stdin.buffer:
                fh.close()
    except _InputError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except OSError as exc:  # e.g. a directory, or an I/O error while reading
        print(f"tfdoctor: cannot read {file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    report = _report(result)
    data = report.to_dict()
    if as_json:
        from tfdoctor.render.json import dumps

        sys.stdout.write(dumps(data))
    else:
        _print(data, result, file, color)
    sys.stdout.flush()
    return 1 if report.status == Status.FAIL else 0


def _report(result: Explanation) -> Any:
    from tfdoctor.model import Report
    from tfdoctor.report import now_iso, tool_info

    return Report(
        mode="explain",
        environment=result.environment,
        facts={"explain": result.facts()},
        findings=result.findings,
        tool=tool_info(_matrix()),
        created_at=now_iso(),
    )


def _print(data: dict[str, Any], result: Explanation, file: str, color: bool) -> None:
    source = "standard input" if file == "-" else file
    if result.empty:
        print(f"tfdoctor explain: {source} is empty: there was nothing to read.")
        return
    try:
        from tfdoctor.render.terminal import render
    except Exception:  # noqa: BLE001 - plain text when the terminal renderer is unavailable
        render = None
    if render is not None:
        render(data, verbose=False, color=color)
    else:
        _plain(data)
    if not result.findings:
        print(
            f"tfdoctor explain: read {result.lines_read} lines of {source}; no known failure signature found."
        )


def _plain(data: dict[str, Any]) -> None:
    env = {k: v for k, v in data["environment"].items() if v not in (None, [], {})}
    for key, value in env.items():
        print(f"{key:<20} {value}")
    for f in data["findings"]:
        print(f"[{f['status']}] {f['id']}: {f['title']} ({f['confidence']})")
        print(f"    {f['detail']}")
        if f.get("fix"):
            print(f"    fix: {f['fix']}")
