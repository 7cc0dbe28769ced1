"""The bundled compatibility matrix (compat/*.toml): loading, validation and lookups (data only: the
`tfdoctor matrix` command is tfdoctor/commands/matrix.py).

Data: meta.toml (version), tensorflow.toml (one row per TF minor release), cuda.toml (CUDA toolkit ->
minimum driver, minor-version-compatibility floors), gpus.toml (GPU name patterns -> compute capability,
architecture, peak TFLOPS), architectures.toml (compute capability -> architecture, last driver branch
and CUDA toolkit), addons.toml (TensorFlow add-on releases -> the TensorFlow they need). Every row carries a
source URL; the loader rejects anything malformed with a CompatError
naming the file and the row.

Lookups (`tf_release`, `min_driver`, `minor_compat_floor`, `gpu`, `architecture`, `addon`) answer None for
unknown or malformed input; comparisons (`driver_supports_cuda`, `releases_for_driver`, `kernel_fit`) raise
ValueError on a malformed version, because a wrong yes/no is worse than a clear error.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tfdoctor.versions import parse_version, release

PLATFORMS = ("linux", "wsl2", "windows", "macos")
# All anchored with fullmatch and bounded (no digit run int() could refuse, no backtracking).
_NUMERIC = re.compile(r"\d{1,9}(?:\.\d{1,9}){0,9}")
_KERNEL = re.compile(r"(sm|compute)_(\d{1,3})(\d)([af]?)")
_CC = re.compile(r"(\d{1,3})\.(\d)")
_URL = re.compile(r"https?://\S{1,2000}")
_DIST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,200}[A-Za-z0-9])?")


class CompatError(Exception):
    """The compat data is unreadable or malformed: one plain line naming the file and what is wrong."""


@dataclass(frozen=True)
class OlderRelease:
    """A TensorFlow minor release before the matrix's first (1.0 to 2.3): only the Python 3 versions, CUDA
    and cuDNN its Linux GPU build was tested with, for reading old logs (what CUDA it loads, what driver
    that needs, which Python its wheels are for)."""

    version: str
    python_min: str
    python_max: str
    cuda: str
    cudnn: str
    source: str
    pip_cuda: tuple[str, ...] | None = None  # releases whose PyPI `tensorflow` wheel has CUDA (None: all)
    compute_capabilities: tuple[str, ...] = ()  # its pip wheel's kernels, where a source gives them

    def pip_cpu_only(self, version: str) -> bool | None:
        """Whether the PyPI `tensorflow` wheel of this release (e.g. "1.15.2") is CPU-only; None when the
        line's releases differ and `version` names no patch."""
        if self.pip_cuda is None:
            return False
        try:
            rel = release(version, "TensorFlow version")[:3]
        except ValueError:
            return None
        if self.pip_cuda and len(rel) < 3:
            return None
        return not any(rel == _numbers(v) for v in self.pip_cuda)


@dataclass(frozen=True)
class TFRelease:
    version: str
    python_min: str
    python_max: str
    cuda: str
    cudnn: str
    compute_capabilities: tuple[str, ...]
    linux_gpu: bool
    windows_gpu: bool
    macos_gpu: bool
    and_cuda: dict[str, str] = field(hash=False)
    source: str
    notes: str = ""
    see_also: tuple[str, ...] = ()

    def gpu_on(self, platform: str) -> bool:
        """Whether the official wheels of this release use the GPU on linux|wsl2|windows|macos."""
        _check_platform(platform)
        return {"linux": self.linux_gpu, "wsl2": self.linux_gpu, "windows": self.windows_gpu}.get(
            platform, self.macos_gpu
        )


@dataclass(frozen=True)
class CudaDriver:
    cuda: str
    label: str
    linux: str | None
    windows: str | None
    source: str
    rc: bool = False


@dataclass(frozen=True)
class MinorCompat:
    major: str
    linux: str | None
    windows: str | None
    source: str
    notes: str = ""


@dataclass(frozen=True)
class GpuModel:
    name: str
    patterns: tuple[str, ...]
    compute_capability: str
    architecture: str
    fp32_tflops: float | None
    fp16_tflops: float | None
    bf16_tflops: float | None
    source: str
    tf32_tflops: float | None = None
    memory_bandwidth_gbs: float | None = None
    notes: str = ""
    see_also: tuple[str, ...] = ()


@dataclass(frozen=True)
class AddonRelease:
    """One release of a TensorFlow add-on: the TensorFlow minors it runs with."""

    release: str  # "0.23.0"
    tf_min: str  # "2.15": the oldest TensorFlow MAJOR.MINOR it runs with
    tf_below: str | None  # "2.16": the first it does not; None = not known
    source: str


@dataclass(frozen=True)
class Addon:
    """A TensorFlow add-on (tensorflow-probability, -addons, -text, -io) and the TensorFlow each of its
    releases needs (compat/addons.toml)."""

    name: str
    source: str
    rows: tuple[AddonRelease, ...] = ()
    same_minor_from: str | None = None  # from this release on, its MAJOR.MINOR is TensorFlow's
    tf_keras_from: str | None = None  # from this release on, it needs tf-keras beside TensorFlow
    warns_only: bool = False  # its own check only warns

    def needs(self, release_: str) -> tuple[str, str | None] | None:
        """(tf_min, tf_below) of an installed release; None when this data does not know it."""
        rel = _release3(release_)
        if rel is None:
            return None
        if self.same_minor_from and rel >= _numbers(self.same_minor_from):
            return f"{rel[0]}.{rel[1]}", f"{rel[0]}.{rel[1] + 1}"
        known = [r for r in self.rows if _numbers(r.release)[:2] == rel[:2] and _numbers(r.release) <= rel]
        return (known[-1].tf_min, known[-1].tf_below) if known else None

    def release_for(self, tf_version: str) -> str | None:
        """The newest release made for this TensorFlow ("0.24.*", "2.15.*"); None when none is."""
        tf = _release3(tf_version)
        if tf is None:
            return None
        if self.same_minor_from:
            return f"{tf[0]}.{tf[1]}.*"
        fits = [r for r in self.rows if _numbers(r.tf_min) <= tf[:2]
                and (r.tf_below is None or tf[:2] < _numbers(r.tf_below))]
        if not fits:
            return None
        newest = _numbers(fits[-1].release)
        return f"{newest[0]}.{newest[1]}.*"


@dataclass(frozen=True)
class Architecture:
    """One NVIDIA GPU architecture (or one compute-capability group of it) and its end of support."""

    name: str  # "Kepler", "Ada Lovelace"; GpuModel.architecture uses the same names
    compute_capabilities: tuple[str, ...]  # ("3.5", "3.7")
    last_driver_branch: str | None  # "R470": the newest driver branch supporting it; None = still supported
    source: str
    last_cuda: str | None = None  # "11.8": the newest CUDA toolkit that targets it; None = still supported
    notes: str = ""
    see_also: tuple[str, ...] = ()
    first_cuda: str | None = None  # "11.0": the first CUDA toolkit that targets its first compute capability

    @property
    def last_driver_major(self) -> int | None:
        """470 for "R470"; None while the architecture is still supported."""
        return int(self.last_driver_branch[1:]) if self.last_driver_branch else None

    @property
    def supported(self) -> bool:
        """Whether current driver branches still support it."""
        return self.last_driver_branch is None


def _check_platform(platform: str) -> str:
    if platform not in PLATFORMS:
        raise ValueError(f"unknown platform {platform!r}: expected one of {', '.join(PLATFORMS)}")
    return platform


def _column(platform: str) -> str | None:
    """The driver column for a platform: WSL2 runs the Windows host's driver; macOS has none."""
    return {"linux": "linux", "wsl2": "windows", "windows": "windows"}.get(_check_platform(platform))


@dataclass(frozen=True)
class Matrix:
    version: str
    tensorflow: tuple[TFRelease, ...]
    cuda_drivers: tuple[CudaDriver, ...]
    gpus: tuple[GpuModel, ...]
    minor_compat: tuple[MinorCompat, ...] = ()
    location: str = ""
    architectures: tuple[Architecture, ...] = ()
    older: tuple[OlderRelease, ...] = ()
    addons: tuple[Addon, ...] = ()

    def addon(self, name: str) -> Addon | None:
        """The add-on's row by its distribution name ("tensorflow-probability"); None if unknown."""
        return next((a for a in self.addons if a.name == name), None)

    # ---- TensorFlow -----------------------------------------------------------------------------------
    def tf_release(self, version: str) -> TFRelease | None:
        """The minor-release row for "2.15", "2.15.1", "2.15.0.post1", "2.21.0rc1"; None if unknown."""
        try:
            rel = release(version, "TensorFlow version")
        except ValueError:
            return None
        if len(rel) < 2:
            return None
        key = f"{rel[0]}.{rel[1]}"
        return next((r for r in self.tensorflow if r.version == key), None)

    def older_release(self, version: str) -> OlderRelease | None:
        """The row of a TensorFlow release before the matrix's first ("1.15.2" -> 1.15); None if unknown."""
        try:
            rel = release(version, "TensorFlow version")
        except ValueError:
            return None
        key = f"{rel[0]}.{rel[1]}" if len(rel) >= 2 else ""
        return next((r for r in self.older if r.version == key), None)

    def newest_tf(self) -> TFRelease:
        return self.tensorflow[-1]

    # ---- CUDA and drivers ------------------------------------------------------------------------------
    def driver_row(self, cuda: str) -> CudaDriver | None:
        """The toolkit row: 12.2 -> 12.2 GA; 12.5.1 -> 12.5 Update 1; 10.1.243 -> newest 10.1 row <= it."""
        try:
            rel = release(cuda, "CUDA version")
        except ValueError:
            return None
        if len(rel) < 2:
            return None
        same = [d for d in self.cuda_drivers if release(d.cuda, "")[:2] == rel[:2]]
        final = [d for d in same if not d.rc] or same
        if not final:
            return None
        if len(rel) == 2:
            return final[0]
        exact = [d for d in same if release(d.cuda, "") == rel[:3]]
        if exact:
            return exact[0]
        below = [d for d in final if release(d.cuda, "") <= rel]
        return below[-1] if below else final[0]

    def min_driver(self, cuda: str, platform: str = "linux") -> str | None:
        """The exact minimum driver for a CUDA toolkit version on linux|wsl2|windows; None if unknown."""
        col = _column(platform)
        row = self.driver_row(cuda)
        return getattr(row, col) if row is not None and col else None

    def minor_compat_floor(self, cuda: str, platform: str = "linux") -> str | None:
        """The lowest driver running any CUDA of that major through minor-version compatibility."""
        col = _column(platform)
        try:
            major = str(release(cuda, "CUDA version")[0])
        except ValueError:
            return None
        row = next((m for m in self.minor_compat if m.major == major), None)
        return getattr(row, col) if row is not None and col else None

    def driver_supports_cuda(
        self, driver: str, cuda: str, platform: str = "linux"
    ) -> tuple[bool, str | None]:
        """(True, None): driver >= the exact minimum; (True, caveat): only minor-version compatibility
        holds; (False, None): neither, or nothing is known for this CUDA on this platform."""
        have = parse_version(driver, "driver version")
        parse_version(cuda, "CUDA version")
        exact = self.min_driver(cuda, platform)
        if exact is not None and have >= parse_version(exact):
            return True, None
        floor = self.minor_compat_floor(cuda, platform)
        if floor is not None and have >= parse_version(floor):
            major = str(release(cuda, "")[0])
            below = f"below CUDA {cuda}'s minimum {exact}" if exact else f"of unknown fit for CUDA {cuda}"
            caveat = (
                f"driver {driver} is {below} and runs it only through CUDA {major}.x minor-version "
                f"compatibility (floor {floor}): precompiled kernels and the libraries work, but PTX newer "
                f"than the driver cannot be JIT-compiled (XLA, or a GPU without matching SASS, may fail with "
                f"CUDA_ERROR_UNSUPPORTED_PTX_VERSION) and newer-driver features are missing"
                + (f"; a driver >= {exact} removes this caveat" if exact else "")
            )
            return True, caveat
        return False, None

    def releases_for_driver(self, driver: str, platform: str = "linux") -> list[tuple[TFRelease, str | None]]:
        """TF releases whose CUDA this driver runs (caveat when only minor compat holds), ascending;
        releases without GPU support on the platform are left out."""
        parse_version(driver, "driver version")
        out = []
        for rel in self.tensorflow:
            if not rel.gpu_on(platform):
                continue
            ok, caveat = self.driver_supports_cuda(driver, rel.cuda, platform)
            if ok:
                out.append((rel, caveat))
        return out

    # ---- GPUs ------------------------------------------------------------------------------------------
    def gpu(self, name: str) -> GpuModel | None:
        """The first GPU row whose pattern matches an NVML / nvidia-smi / TensorFlow product name; None for an
        unknown, ambiguous, non-NVIDIA or over-long name (never a guess by family).

        A MIG slice ("NVIDIA H100 80GB HBM3 MIG 1g.10gb") or vGPU profile ("NVIDIA A10-24Q") gets its GPU's
        row without the peak figures, which describe the whole GPU.
        """
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_GPU_NAME:
            return None
        if _NOT_NVIDIA.search(name):
            return None
        # as typed: "RTX4060", "GeForce 940 MX", "2080ti", "2070S", "nvidia 5070 TI" (a GeForce by its number)
        name = _SUFFIX.sub(lambda m: f" {m.group(0)}", _MX.sub("MX", _SPACED.sub(r"\1 ", name.strip())))
        name = _BARE_GEFORCE.sub(lambda m: f"{'GTX' if m.group(1) == '1' else 'RTX'} {m.group(0)}", name)
        for model in self.gpus:
            if any(rx.search(name) for rx in _compiled(model.patterns)):
                if _PARTITION.search(name):
                    return replace(
                        model, fp32_tflops=None, tf32_tflops=None, fp16_tflops=None, bf16_tflops=None,
                        memory_bandwidth_gbs=None,
                        notes=f"{name} is a MIG slice or vGPU profile of this GPU: whole-GPU peaks "
                        "do not apply." + (f" {model.notes}" if model.notes else ""),
                    )
                return model
        return None

    def architecture(self, cc: str) -> Architecture | None:
        """The architecture row for a compute capability ("3.7", "8.6", "12.0"); None if unknown/malformed."""
        if not isinstance(cc, str):
            return None
        m = _CC.fullmatch(cc.strip())
        if not m:
            return None
        key = f"{int(m.group(1))}.{m.group(2)}"
        return next((a for a in self.architectures if key in a.compute_capabilities), None)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (used by `tfdoctor matrix --json`)."""
        from dataclasses import asdict

        def row(obj: Any) -> dict[str, Any]:
            return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(obj).items()}

        return {
            "version": self.version,
            "tensorflow": [row(r) for r in self.tensorflow],
            "cuda_drivers": [row(d) for d in self.cuda_drivers],
            "minor_compat": [row(m) for m in self.minor_compat],
            "gpus": [row(g) for g in self.gpus],
            "architectures": [row(a) for a in self.architectures],
            "older": [row(r) for r in self.older],
            "addons": [row(a) for a in self.addons],
        }


MAX_GPU_NAME = 256  # NVML names fit in 96 bytes; anything longer is not a product name
# A MIG slice ("... MIG 1g.10gb") or a vGPU profile ("NVIDIA A10-24Q", "GRID T4-16Q", "NVIDIA H100-1-10C").
_PARTITION = re.compile(r"\bMIG\b|-\d+(?:-\d+)?(?:[ABCQ]|CME|B4)$")
_NOT_NVIDIA = re.compile(r"\b(?:AMD|Radeon|Vega|Instinct|gfx\d{3,4}|Intel|Iris|Matrox|Apple|Ascend|Hygon)\b",
                         re.IGNORECASE)
_BRANCH = re.compile(r"^R\d{3}$")
_MAJOR_MINOR = re.compile(r"^\d+\.\d+$")


def not_nvidia(name: str) -> bool:
    """Whether a GPU name is another vendor's ("Vega 20", "AMD Radeon Pro", "Intel(R) UHD Graphics")."""
    return bool(_NOT_NVIDIA.search(str(name)[:MAX_GPU_NAME]))


def _backtracking_risk(pattern: str) -> str | None:
    """Why a GPU name pattern could backtrack badly, or None: only bounded, un-nested quantifiers are allowed,
    so matching costs a constant per input position whatever the name."""
    try:
        from re import _parser as parser  # type: ignore[attr-defined]  # Python 3.11+
    except ImportError:  # pragma: no cover - Python 3.9/3.10
        import sre_parse as parser  # type: ignore[no-redef]
    repeats = {parser.MAX_REPEAT, parser.MIN_REPEAT, getattr(parser, "POSSESSIVE_REPEAT", parser.MAX_REPEAT)}

    def walk(items: Any, inside_repeat: bool) -> str | None:
        for op, av in items:
            subs: list[Any] = []
            if op in repeats:
                _low, high, sub = av
                if high == parser.MAXREPEAT:
                    return "unbounded repetition (*, + or {n,}); use a bounded {m,n}"
                if inside_repeat:
                    return "nested quantifiers"
                subs, inside = [sub], True
            else:
                inside = inside_repeat
                if op is parser.SUBPATTERN:
                    subs = [av[-1]]
                elif op is parser.BRANCH:
                    subs = list(av[1])
                elif op in (parser.ASSERT, parser.ASSERT_NOT):
                    subs = [av[1]]
            for sub in subs:
                problem = walk(sub, inside)
                if problem:
                    return problem
        return None

    return walk(parser.parse(pattern), False)


_SPACED = re.compile(r"\b(RTX|GTX|GT)(?=\d)", re.IGNORECASE)  # (MX150 is spelled so)
_MX = re.compile(r"(?<=\d) MX\b", re.IGNORECASE)
# a GeForce's suffix run into its number ("2080ti", "3060Ti", "2070S", "4090D"; not the RTX 6000D's)
_SUFFIX = re.compile(r"(?<=\d)(?:Ti|SUPER)\b|(?<=[1-5]0[5-9]0)[SD]\b", re.IGNORECASE)
# a GeForce's four-digit number with no RTX/GTX before it ("GeForce 3090", "nvidia 5070 TI")
_BARE_GEFORCE = re.compile(r"(?<![\w-])(?<!RTX )(?<!GTX )([1-5])0[5-9]0(?![\w.])", re.IGNORECASE)


@functools.lru_cache(maxsize=256)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


def _kernel_parse(entry: str) -> tuple[str, int, int, bool] | None:
    m = _KERNEL.fullmatch(entry.strip())
    if not m:
        return None
    return m.group(1), int(m.group(2)), int(m.group(3)), m.group(4) == "a"


def _cc(cc: str) -> tuple[int, int]:
    m = _CC.fullmatch(cc.strip()) if isinstance(cc, str) else None
    if not m:
        raise ValueError(f"compute capability {cc!r}: expected MAJOR.MINOR such as 8.6")
    return int(m.group(1)), int(m.group(2))


def kernel_fit(compute_capabilities: Sequence[str] | str, cc: str) -> str | None:
    """How a build's kernels reach a GPU of compute capability `cc` ("8.6").

    "sass": an sm_XY / compute_XY of the same major with minor <= cc's (binary compatible);
    "ptx": only a compute_XY <= cc (the driver JIT-compiles PTX, slow first run, needs a new-enough driver);
    None: nothing fits. Entries may be a list or a space/comma separated string; unparseable entries and
    arch-specific ones (sm_90a) that are not exact are ignored. Raises ValueError for a malformed `cc`.
    """
    major, minor = _cc(cc)
    if isinstance(compute_capabilities, str):
        compute_capabilities = compute_capabilities.replace(",", " ").split()
    parsed = [p for p in (_kernel_parse(str(e)) for e in compute_capabilities) if p]
    for _kind, maj, mnr, specific in parsed:
        if maj == major and (mnr == minor if specific else mnr <= minor):
            return "sass"
    for kind, maj, mnr, specific in parsed:
        if kind == "compute" and not specific and (maj, mnr) <= (major, minor):
            return "ptx"
    return None


# ---- loading and validation --------------------------------------------------------------------------


def _toml_loads(text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.9/3.10 only
        import tomli as tomllib
    return tomllib.loads(text)


class _Rows:
    """Validation helpers bound to one file, so every error names it."""

    def __init__(self, fname: str) -> None:
        self.fname = fname

    def fail(self, where: str, what: str) -> CompatError:
        return CompatError(f"{self.fname}: {where}: {what}" if where else f"{self.fname}: {what}")

    def keys(self, row: Any, where: str, required: set[str], optional: set[str]) -> dict[str, Any]:
        if not isinstance(row, dict):
            raise self.fail(where, "expected a table")
        missing = sorted(required - row.keys())
        if missing:
            raise self.fail(where, f"missing key {missing[0]!r}")
        unknown = sorted(row.keys() - required - optional)
        if unknown:
            raise self.fail(where, f"unknown key {unknown[0]!r}")
        return row

    def string(self, row: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
        value = row.get(key, default)
        if not isinstance(value, str) or (not value.strip() and default is None):
            raise self.fail(where, f"{key!r} must be a non-empty string")
        return value

    def version(self, row: dict[str, Any], key: str, where: str, na: bool = False) -> str | None:
        value = self.string(row, key, where)
        if na and value == "N/A":
            return None
        if not _NUMERIC.fullmatch(value):
            raise self.fail(where, f"{key} {value!r} is not a dotted version" + (' or "N/A"' if na else ""))
        return value

    def url(self, value: Any, where: str, key: str = "source") -> str:
        if not isinstance(value, str) or not _URL.fullmatch(value):
            raise self.fail(where, f"{key} {value!r} is not an http(s) URL")
        return value

    def urls(self, row: dict[str, Any], where: str) -> tuple[str, ...]:
        value = row.get("see_also", [])
        if not isinstance(value, list):
            raise self.fail(where, "'see_also' must be a list of URLs")
        return tuple(self.url(v, where, "see_also") for v in value)

    def boolean(self, row: dict[str, Any], key: str, where: str, default: bool | None = None) -> bool:
        value = row.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(where, f"{key!r} must be true or false")
        return value

    def number(self, row: dict[str, Any], key: str, where: str) -> float | None:
        value = row.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise self.fail(where, f"{key!r} must be a positive number")
        return float(value)

    def table(self, data: dict[str, Any], key: str) -> list[Any]:
        rows = data.get(key)
        if not isinstance(rows, list) or not rows:
            raise self.fail("", f"no [[{key}]] rows")
        return rows

    def ascending(self, keys: list[tuple[int, ...]], labels: list[str], what: str) -> None:
        for i in range(1, len(keys)):
            if keys[i] == keys[i - 1]:
                raise self.fail(f"{what} {labels[i]}", "duplicate row")
            if keys[i] < keys[i - 1]:
                raise self.fail(f"{what} {labels[i]}", f"out of order after {labels[i - 1]} (keep ascending)")


def _parse_meta(v: _Rows, data: dict[str, Any]) -> str:
    v.keys(data, "", {"version"}, set())
    return v.version(data, "version", "") or ""


# Requirement specifiers as the compat data writes them ("==12.5.82", ">=9.3,<10"); anything else is
# checked by packaging itself (imported only then: it costs a quick check more than all its probes).
_SIMPLE_SPEC = re.compile(
    r"(?:===?|~=|!=|<=|>=|<|>)\s*\d{1,9}(?:\.\d{1,9}){0,5}"
    r"(?:\.\*|(?:(?:a|b|rc)\d{1,9})?(?:\.post\d{1,9})?(?:\.dev\d{1,9})?)"
)


def _valid_specifier(spec: str) -> bool:
    clauses = [c.strip() for c in spec.split(",")]
    if spec.strip() and len(spec) < 200 and all(_SIMPLE_SPEC.fullmatch(c) for c in clauses):
        return True
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        SpecifierSet(spec)
    except InvalidSpecifier:
        return False
    return True


def _numbers(text: str) -> tuple[int, ...]:
    """The release of a version the loader already matched against _NUMERIC ("2.15" -> (2, 15))."""
    return tuple(int(p) for p in text.split("."))


def _release3(version: str) -> tuple[int, ...] | None:
    """MAJOR.MINOR.PATCH of a version ("0.23.0", "2.16.1", "2.15"), padded with zeros; None if malformed."""
    try:
        rel = release(version, "version")
    except ValueError:
        return None
    return (tuple(rel) + (0, 0))[:3] if len(rel) >= 2 else None


def _parse_addons(v: _Rows, data: dict[str, Any]) -> tuple[Addon, ...]:
    v.keys(data, "", {"addon"}, set())
    out: list[Addon] = []
    for i, row in enumerate(v.table(data, "addon"), 1):
        where = f"addon #{i}" + (f" ({row.get('name')})" if isinstance(row, dict) else "")
        v.keys(row, where, {"name", "source"}, {"rows", "same_minor_from", "tf_keras_from", "warns_only"})
        releases: list[AddonRelease] = []
        listed = row.get("rows", [])
        if not isinstance(listed, list):
            raise v.fail(where, "rows must be a list of tables")
        for r in listed:
            if not isinstance(r, dict):
                raise v.fail(where, "rows must be a list of tables")
            v.keys(r, where, {"release", "tf_min", "source"}, {"tf_below"})
            rel, lo = v.version(r, "release", where) or "", v.version(r, "tf_min", where) or ""
            hi = v.version(r, "tf_below", where) if "tf_below" in r else None
            if releases and _numbers(rel) <= _numbers(releases[-1].release):
                raise v.fail(where, f"release {rel} out of order (ascending)")
            if hi is not None and _numbers(hi) <= _numbers(lo):
                raise v.fail(where, f"release {rel}: tf_below {hi} is not above tf_min {lo}")
            releases.append(AddonRelease(rel, lo, hi, v.url(r["source"], where)))
        same = v.version(row, "same_minor_from", where) if "same_minor_from" in row else None
        if not releases and same is None:
            raise v.fail(where, "needs rows or same_minor_from")
        keras = v.version(row, "tf_keras_from", where) if "tf_keras_from" in row else None
        out.append(Addon(v.string(row, "name", where), v.url(row["source"], where), tuple(releases), same,
                         keras, v.boolean(row, "warns_only", where, False)))
    return tuple(out)


def _parse_older(v: _Rows, data: dict[str, Any], first: str) -> tuple[OlderRelease, ...]:
    out: list[OlderRelease] = []
    for i, row in enumerate(v.table(data, "older") if "older" in data else [], 1):
        where = f"older #{i}" + (f" ({row.get('version')})" if isinstance(row, dict) else "")
        v.keys(row, where, {"version", "python_min", "python_max", "cuda", "cudnn", "source"},
               {"pip_cuda", "pip_cuda_source", "compute_capabilities", "compute_capabilities_source"})
        version = v.version(row, "version", where) or ""
        if len(_numbers(version)) != 2:
            raise v.fail(where, f"version {version!r} must be MAJOR.MINOR, e.g. 1.15")
        if out and _numbers(version) <= _numbers(out[-1].version) or _numbers(version) >= _numbers(first):
            raise v.fail(where, f"out of order (ascending, all before {first})")
        cuda, cudnn = v.version(row, "cuda", where) or "", v.version(row, "cudnn", where) or ""
        lo, hi = v.version(row, "python_min", where) or "", v.version(row, "python_max", where) or ""
        pip_cuda = None
        if "pip_cuda" in row:
            v.url(row.get("pip_cuda_source"), where, "pip_cuda_source")
            listed = row["pip_cuda"]
            if not isinstance(listed, list) or not all(re.fullmatch(r"\d{1,3}\.\d{1,3}\.\d{1,3}", str(x))
                                                       for x in listed):
                raise v.fail(where, "pip_cuda must list MAJOR.MINOR.PATCH releases, e.g. [\"1.15.0\"]")
            pip_cuda = tuple(str(x) for x in listed)
        caps: tuple[str, ...] = ()
        if "compute_capabilities" in row:
            v.url(row.get("compute_capabilities_source"), where, "compute_capabilities_source")
            listed = row["compute_capabilities"]
            if not isinstance(listed, list) or not listed or not all(
                    isinstance(x, str) and _kernel_parse(x) for x in listed):
                raise v.fail(where, 'compute_capabilities must list kernels such as "sm_35", "compute_70"')
            caps = tuple(listed)
        out.append(OlderRelease(version, lo, hi, cuda, cudnn, v.url(row["source"], where), pip_cuda, caps))
    return tuple(out)


def _parse_tensorflow(v: _Rows, data: dict[str, Any]) -> tuple[TFRelease, ...]:
    v.keys(data, "", {"release"}, {"older"})
    required = {"version", "python_min", "python_max", "cuda", "cudnn", "compute_capabilities",
                "linux_gpu", "windows_gpu", "macos_gpu", "source"}
    out = []
    for i, row in enumerate(v.table(data, "release"), 1):
        where = f"release #{i}" + (f" ({row.get('version')})" if isinstance(row, dict) else "")
        v.keys(row, where, required, {"notes", "see_also", "and_cuda"})
        version = v.version(row, "version", where) or ""
        if len(_numbers(version)) != 2:
            raise v.fail(where, f"version {version!r} must be MAJOR.MINOR, e.g. 2.15")
        py_min, py_max = v.version(row, "python_min", where), v.version(row, "python_max", where)
        if _numbers(py_min or "0") > _numbers(py_max or "0"):
            raise v.fail(where, f"python_min {py_min} is above python_max {py_max}")
        ccs = row["compute_capabilities"]
        if not isinstance(ccs, list) or not all(isinstance(c, str) and _kernel_parse(c) for c in ccs):
            raise v.fail(where, "compute_capabilities must be a list like ['sm_60', 'compute_90']")
        pins = row.get("and_cuda", {})
        if not isinstance(pins, dict):
            raise v.fail(where, "and_cuda must be a table of distribution = requirement specifier")
        for dist, spec in pins.items():
            if not isinstance(dist, str) or not _DIST.fullmatch(dist) or not isinstance(spec, str):
                raise v.fail(where, f"and_cuda: bad entry {dist!r}")
            if not _valid_specifier(spec):
                raise v.fail(where, f"and_cuda: {dist} = {spec!r} is not a requirement specifier")
        out.append(TFRelease(
            version=version, python_min=py_min or "", python_max=py_max or "",
            cuda=v.version(row, "cuda", where) or "", cudnn=v.version(row, "cudnn", where) or "",
            compute_capabilities=tuple(ccs), linux_gpu=v.boolean(row, "linux_gpu", where),
            windows_gpu=v.boolean(row, "windows_gpu", where), macos_gpu=v.boolean(row, "macos_gpu", where),
            and_cuda=dict(pins), source=v.url(row["source"], where),
            notes=v.string(row, "notes", where, ""), see_also=v.urls(row, where),
        ))
    v.ascending([_numbers(r.version) for r in out], [r.version for r in out], "release")
    return tuple(out)


def _parse_cuda(v: _Rows, data: dict[str, Any]) -> tuple[tuple[CudaDriver, ...], tuple[MinorCompat, ...]]:
    v.keys(data, "", {"driver", "minor_compat"}, set())
    drivers = []
    for i, row in enumerate(v.table(data, "driver"), 1):
        where = f"driver #{i}" + (f" ({row.get('cuda')})" if isinstance(row, dict) else "")
        v.keys(row, where, {"cuda", "label", "linux", "windows", "source"}, {"rc"})
        cuda = v.version(row, "cuda", where) or ""
        if len(_numbers(cuda)) != 3:
            raise v.fail(where, f"cuda {cuda!r} must be MAJOR.MINOR.PATCH (X.Y.0 for GA, X.Y.N for Update N)")
        linux, windows = v.version(row, "linux", where, na=True), v.version(row, "windows", where, na=True)
        drivers.append(CudaDriver(cuda, v.string(row, "label", where), linux, windows,
                                  v.url(row["source"], where), v.boolean(row, "rc", where, False)))
    v.ascending([_numbers(d.cuda) for d in drivers], [d.cuda for d in drivers], "driver")
    floors = []
    for i, row in enumerate(v.table(data, "minor_compat"), 1):
        where = f"minor_compat #{i}" + (f" ({row.get('major')})" if isinstance(row, dict) else "")
        v.keys(row, where, {"major", "linux", "windows", "source"}, {"notes"})
        major = v.string(row, "major", where)
        if not major.isdigit():
            raise v.fail(where, f"major {major!r} must be a whole number such as 12")
        floors.append(MinorCompat(major, v.version(row, "linux", where, na=True),
                                  v.version(row, "windows", where, na=True), v.url(row["source"], where),
                                  v.string(row, "notes", where, "")))
    v.ascending([(int(m.major),) for m in floors], [m.major for m in floors], "minor_compat")
    return tuple(drivers), tuple(floors)


def _parse_architectures(v: _Rows, data: dict[str, Any]) -> tuple[Architecture, ...]:
    v.keys(data, "", {"architecture"}, set())
    rows: list[Architecture] = []
    owner: dict[str, str] = {}
    for i, row in enumerate(v.table(data, "architecture"), 1):
        where = f"architecture #{i}" + (f" ({row.get('name')})" if isinstance(row, dict) else "")
        v.keys(row, where, {"name", "compute_capabilities", "source"},
               {"last_driver_branch", "last_cuda", "first_cuda", "notes", "see_also"})
        name = v.string(row, "name", where)
        ccs = row["compute_capabilities"]
        if not isinstance(ccs, list) or not ccs \
                or not all(isinstance(c, str) and _CC.fullmatch(c) for c in ccs):
            raise v.fail(where, 'compute_capabilities must be a non-empty list of "MAJOR.MINOR" strings')
        keys = [_cc(c) for c in ccs]
        if keys != sorted(set(keys)):
            raise v.fail(where, "compute_capabilities must be ascending and unique")
        for cc in ccs:
            if cc in owner:
                raise v.fail(where, f"compute capability {cc} is already in {owner[cc]}")
            owner[cc] = where
        if rows and keys[0] < _cc(rows[-1].compute_capabilities[-1]):
            raise v.fail(where, f"out of order after {rows[-1].name} (keep ascending by compute capability)")
        branch = row.get("last_driver_branch")
        if branch is not None and (not isinstance(branch, str) or not _BRANCH.match(branch)):
            raise v.fail(where, f"last_driver_branch {branch!r} must be a driver branch such as \"R470\"")
        last_cuda = row.get("last_cuda")
        if last_cuda is not None and (not isinstance(last_cuda, str) or not _MAJOR_MINOR.match(last_cuda)):
            raise v.fail(where, f"last_cuda {last_cuda!r} must be a CUDA version such as \"11.8\"")
        if last_cuda is not None and branch is None:
            raise v.fail(where, "last_cuda without last_driver_branch (a dropped architecture has both)")
        first_cuda = row.get("first_cuda")
        if first_cuda is not None and (not isinstance(first_cuda, str) or not _MAJOR_MINOR.match(first_cuda)):
            raise v.fail(where, f"first_cuda {first_cuda!r} must be a CUDA version such as \"11.0\"")
        rows.append(Architecture(name, tuple(ccs), branch, v.url(row["source"], where), last_cuda,
                                 v.string(row, "notes", where, ""), v.urls(row, where), first_cuda))
    return tuple(rows)


def _parse_gpus(
    v: _Rows, data: dict[str, Any], architectures: Sequence[Architecture] = (), patterns_checked: bool = False
) -> tuple[GpuModel, ...]:
    v.keys(data, "", {"gpu"}, set())
    by_cc = {cc: a for a in architectures for cc in a.compute_capabilities}
    models, names = [], set()
    for i, row in enumerate(v.table(data, "gpu"), 1):
        where = f"gpu #{i}" + (f" ({row.get('name')})" if isinstance(row, dict) else "")
        v.keys(row, where, {"name", "patterns", "compute_capability", "architecture", "source"},
               {"fp32_tflops", "tf32_tflops", "fp16_tflops", "bf16_tflops", "memory_bandwidth_gbs",
                "notes", "see_also"})
        name = v.string(row, "name", where)
        if name in names:
            raise v.fail(where, "duplicate row")
        names.add(name)
        patterns = row["patterns"]
        if not isinstance(patterns, list) or not all(isinstance(p, str) and p for p in patterns or [0]):
            raise v.fail(where, "patterns must be a non-empty list of regular expressions")
        for pattern in () if patterns_checked else patterns:
            try:
                re.compile(pattern, re.IGNORECASE)
            except re.error as exc:
                raise v.fail(where, f"bad pattern: {exc}") from None
            problem = _backtracking_risk(pattern)
            if problem:
                raise v.fail(where, f"pattern {pattern!r}: {problem}")
        cc = v.string(row, "compute_capability", where)
        if not _CC.fullmatch(cc):
            raise v.fail(where, f"compute_capability {cc!r} must be MAJOR.MINOR such as 8.6")
        arch = v.string(row, "architecture", where)
        if by_cc and cc not in by_cc:
            raise v.fail(where, f"compute capability {cc} has no row in architectures.toml")
        if by_cc and by_cc[cc].name != arch:
            raise v.fail(where, f"architecture {arch!r}, but architectures.toml puts {cc} in "
                                f"{by_cc[cc].name!r}")
        models.append(GpuModel(
            name=name, patterns=tuple(patterns), compute_capability=cc,
            architecture=arch,
            fp32_tflops=v.number(row, "fp32_tflops", where), fp16_tflops=v.number(row, "fp16_tflops", where),
            bf16_tflops=v.number(row, "bf16_tflops", where), source=v.url(row["source"], where),
            tf32_tflops=v.number(row, "tf32_tflops", where),
            memory_bandwidth_gbs=v.number(row, "memory_bandwidth_gbs", where),
            notes=v.string(row, "notes", where, ""), see_also=v.urls(row, where),
        ))
    return tuple(models)


def _label(location: Any, fname: str) -> str:
    return f"{location}{os.sep}{fname}" if isinstance(location, Path) else f"{location}/{fname}"


def _cached(location: Any, raw: bytes) -> tuple[Path | None, Any]:
    """(cache file, its data or None): parsed TOML kept as JSON under the data's __pycache__, keyed
    by the file's content, as Python keeps byte code (and written only where Python would write
    byte code). The data is validated all the same; the cache only spares tomllib's parse."""
    if not isinstance(location, Path):
        return None, None
    import hashlib
    import json

    path = location / "__pycache__" / f"compat-{hashlib.sha256(raw).hexdigest()[:32]}.json"
    try:
        if path.stat().st_size < (4 << 20):
            return path, json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        pass
    return path, None


def _keep(path: Path | None, data: dict[str, Any]) -> None:
    if path is None or sys.dont_write_bytecode:
        return
    import json

    try:
        text = json.dumps(data, allow_nan=False)
        if json.loads(text) != data:  # e.g. TOML dates: not kept
            return
        path.parent.mkdir(exist_ok=True)
        from tfdoctor.files import atomic_write

        atomic_write(path, text)
    except Exception:  # noqa: BLE001 - a cache that cannot be written is no cache, not an error
        pass


def _patterns_stamp(location: Any, data: dict[str, Any]) -> Path | None:
    """Where the proof is kept that these GPU name patterns compile and cannot backtrack: beside the
    TOML cache, keyed by the patterns themselves. Checking ~120 patterns is most of a quick check's
    matrix load, and the answer changes only with them."""
    rows = data.get("gpu")
    if not isinstance(location, Path) or not isinstance(rows, list):
        return None
    import hashlib

    key = repr([row.get("patterns") if isinstance(row, dict) else row for row in rows]).encode("utf-8")
    return location / "__pycache__" / f"compat-patterns-{hashlib.sha256(key).hexdigest()[:32]}.ok"


def _read(location: Any, fname: str) -> dict[str, Any]:
    label = _label(location, fname)
    try:
        raw = location.joinpath(fname).read_bytes()
    except FileNotFoundError:
        raise CompatError(f"{label}: missing compat data file") from None
    except OSError as exc:
        raise CompatError(f"{label}: cannot read: {exc.strerror or exc}") from None
    cache, data = _cached(location, raw)
    if isinstance(data, dict):
        return data
    data = _parse_toml(label, raw)
    _keep(cache, data)
    return data


def _parse_toml(label: str, raw: bytes) -> dict[str, Any]:
    try:
        return _toml_loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise CompatError(f"{label}: not UTF-8 text") from None
    except ValueError as exc:  # tomllib.TOMLDecodeError is a ValueError
        raise CompatError(f"{label}: malformed TOML: {str(exc)[:200]}") from None
    except RecursionError:
        raise CompatError(f"{label}: malformed TOML: nested too deeply") from None


def parse_matrix(location: Any) -> Matrix:
    """Read and validate the six files under a directory (Path or importlib Traversable)."""
    def rows(fname: str) -> _Rows:
        return _Rows(_label(location, fname))

    version = _parse_meta(rows("meta.toml"), _read(location, "meta.toml"))
    tf_data = _read(location, "tensorflow.toml")
    tensorflow = _parse_tensorflow(rows("tensorflow.toml"), tf_data)
    older = _parse_older(rows("tensorflow.toml"), tf_data, tensorflow[0].version if tensorflow else "99.0")
    drivers, floors = _parse_cuda(rows("cuda.toml"), _read(location, "cuda.toml"))
    architectures = _parse_architectures(rows("architectures.toml"), _read(location, "architectures.toml"))
    gpu_data = _read(location, "gpus.toml")
    stamp = _patterns_stamp(location, gpu_data)
    checked = stamp is not None and stamp.is_file()
    gpus = _parse_gpus(rows("gpus.toml"), gpu_data, architectures, patterns_checked=checked)
    if stamp is not None and not checked:
        _keep(stamp, {"checked": True})
    addons = _parse_addons(rows("addons.toml"), _read(location, "addons.toml"))
    matrix = Matrix(version, tensorflow, drivers, gpus, floors, str(location), architectures, older, addons)
    tfv = rows("tensorflow.toml")
    for rel in tensorflow:  # every CUDA a release names needs a driver row for each platform it supports
        row = matrix.driver_row(rel.cuda)
        if row is None:
            raise tfv.fail(f"release {rel.version}", f"CUDA {rel.cuda} has no row in cuda.toml")
        if rel.windows_gpu and row.windows is None:
            raise tfv.fail(f"release {rel.version}", f"CUDA {rel.cuda} has no Windows driver in cuda.toml")
    for old in older:
        if matrix.driver_row(old.cuda) is None:
            raise tfv.fail(f"older {old.version}", f"CUDA {old.cuda} has no row in cuda.toml")
    return matrix


def _package_location() -> Any:
    """Where the compat data lives: the wheel's tfdoctor/compat_data, else the repository's compat/
    (plain folders first; importlib.resources, for a zipped install, only when neither is there)."""
    here = Path(__file__).resolve().parent
    for folder in (here / "compat_data", here.parent / "compat"):
        if (folder / "meta.toml").is_file():
            return folder
    from importlib import resources

    for probe in (lambda: resources.files("tfdoctor").joinpath("compat_data"),
                  lambda: resources.files("tfdoctor.compat_data")):
        try:
            candidate = probe()
            if candidate.joinpath("meta.toml").is_file():
                return candidate
        except (ModuleNotFoundError, TypeError, OSError, ValueError):
            continue
    return Path(__file__).resolve().parent.parent / "compat"


@functools.lru_cache(maxsize=8)
def _load_cached(directory: str | None) -> Matrix:
    if directory is None:
        return parse_matrix(_package_location())
    path = Path(directory)
    if not path.is_dir():
        raise CompatError(f"{path}: not a directory of compat data")
    return parse_matrix(path)


def load_matrix(path: str | Path | None = None) -> Matrix:
    """The validated matrix from `path`, else $TFDOCTOR_COMPAT_DIR, else the bundled data (cached)."""
    chosen = path if path is not None else os.environ.get("TFDOCTOR_COMPAT_DIR") or None
    return _load_cached(None if chosen is None else str(Path(chosen).expanduser().resolve()))
