"""Version helpers, written once: lenient tuples for judging facts, strict parsing for the matrix.

Everything here is pure and linear in its input; nothing raises on junk except `parse_version`,
whose callers want a clear error rather than a wrong yes/no.
"""

from __future__ import annotations

import re
from typing import Any

from tfdoctor import stackerrors

_LEADING_INT = re.compile(r"\d{1,9}")
_NUMERIC = re.compile(r"\d{1,9}(?:\.\d{1,9}){0,5}")


def vtuple(version: Any) -> tuple[int, ...]:
    """'580.65.06' -> (580, 65, 6); leading numeric parts only; () when none. Bounded: at most 6 parts
    of at most 9 digits each, so a hostile 4,000-digit "version" is not a number at all."""
    parts: list[int] = []
    for piece in str(version or "").strip()[:64].split("."):
        m = _LEADING_INT.match(piece)
        if not m or len(parts) == 6:
            break
        if m.end() < len(piece) and piece[m.end()].isdigit():
            return tuple(parts)  # more than 9 digits: not a version component
        parts.append(int(m.group()))
        if m.end() != len(piece):
            break
    return tuple(parts)


def major(version: Any) -> int | None:
    parts = vtuple(version)
    return parts[0] if parts else None


def major_minor(version: Any) -> str | None:
    parts = vtuple(version)
    return ".".join(map(str, parts[:2])) if len(parts) >= 2 else None


def version_ge(version: Any, floor: tuple[int, ...]) -> bool:
    parts = vtuple(version)
    return bool(parts) and parts >= floor


def differ(a: Any, b: Any) -> bool:
    """Two known versions that are not the same: '352.63' and '352.63.0' are one, '352.63' and '361.93.2'
    are not (False when either is unknown)."""
    x, y = vtuple(a), vtuple(b)
    width = max(len(x), len(y))
    return bool(x and y) and x + (0,) * (width - len(x)) != y + (0,) * (width - len(y))


def norm_cuda(value: Any) -> str | None:
    """'12.5.1' stays; Windows build_info's '64_112' becomes '11.2'; junk becomes None."""
    if value is None:
        return None
    text = str(value).strip()[:32]
    if text.startswith("64_") and text[3:].isdigit() and 3 <= len(text) - 3 <= 4:
        digits = text[3:]
        return f"{int(digits[:-1])}.{digits[-1]}"
    return text if _NUMERIC.fullmatch(text) else None


def norm_cudnn(value: Any) -> str | None:
    """'9' / '9.3' stay; Windows '64_8' becomes '8'; TF's integer forms ('8902') become dotted."""
    if value is None:
        return None
    text = str(value).strip()[:32]
    if text.startswith("64_"):
        text = text[3:]
    if text.isdigit() and len(text) >= 4:
        return cudnn_from_int(text)
    return text if _NUMERIC.fullmatch(text) else None


def cudnn_from_int(value: str) -> str:
    """TensorFlow prints cuDNN versions as integers: 7201 -> 7.2.1, 8902 -> 8.9.2, 90300 -> 9.3.0."""
    if "." in value or not value.isdigit() or len(value) > 6:
        return value
    n = int(value)
    if n >= 10000:
        return f"{n // 10000}.{n % 10000 // 100}.{n % 100}"
    if n >= 1000:
        return f"{n // 1000}.{n % 1000 // 100}.{n % 100}"
    return value


def parse_version(text: Any, what: str = "version") -> Any:
    """A packaging Version for dotted numbers (PEP 440 suffixes allowed); ValueError with a plain
    message naming `what` on anything else."""
    from packaging.version import InvalidVersion, Version

    if not isinstance(text, str) or not text.strip() or len(text) > 64:
        raise ValueError(f"{what} {str(text)[:40]!r}: not a version")
    try:
        return Version(text.strip())
    except InvalidVersion:
        raise ValueError(f"{what} {text!r}: not a version") from None


def release(text: Any, what: str = "version") -> tuple[int, ...]:
    """The numeric release of a strictly parsed version ('2.15.0.post1' -> (2, 15, 0))."""
    if isinstance(text, str):
        plain = text.strip()
        if len(plain) <= 64 and _NUMERIC.fullmatch(plain):  # plain dotted numbers: packaging's answer
            return tuple(int(p) for p in plain.split("."))
    return tuple(parse_version(text, what).release)


# ---- library file names ------------------------------------------------------------------------


def library_family(name: str) -> str:
    """'libcudart.so.11.0' -> 'cuda-runtime'; 'libcuda.so.1' -> 'driver'; 'cudnn64_8.dll' -> 'cudnn'."""
    lib = stackerrors.library(name)
    if lib is not None:  # the libraries TensorFlow loads by name
        return lib.family
    stem = name.lower().removeprefix("lib").split(".", 1)[0]
    if stem.startswith(("tensorflow_framework", "_pywrap_tensorflow")):
        return "tensorflow"
    if stem.startswith("msvcp"):
        return "msvc"
    return "cuda-runtime"


def cuda_library_version(name: str) -> str | None:
    """The CUDA release a CUDA toolkit library names, where its name is that precise: libcudart.so.10.1 ->
    10.1, cublas64_100.dll -> 10.0, cudart64_111.dll -> 11.1; None for libcudart.so.11.0 / cudart64_110.dll /
    libcublas.so.10, names that several CUDA releases share (and for cuDNN, the driver, anything else)."""
    low = name.lower()
    if not any(lib in low for lib in ("cudart", "cublas", "cufft", "curand", "cusolver", "cusparse")):
        return None
    m = re.search(r"\.so\.(\d{1,2})\.(\d{1,2})\b", low)
    if m and int(m.group(1)) <= 10:
        return f"{m.group(1)}.{m.group(2)}"
    m = re.search(r"64_(\d{2,3})\.dll", low)
    if m and len(m.group(1)) == 3:
        major, minor = int(m.group(1)[:2]), int(m.group(1)[2])
        return f"{major}.{minor}" if major <= 10 or minor else None
    return None


def library_cuda_major(name: str) -> int | None:
    """The CUDA major a runtime library belongs to: libcudart.so.11.0 -> 11, cublas64_12.dll -> 12,
    cudart64_110.dll -> 11, cudart64_101.dll -> 10, cudart64_90.dll -> 9 (CUDA 6.5-9.2 wrote major and minor
    in two digits), libcudart.8.0.dylib -> 8 (None for cuDNN and the driver)."""
    low = name.lower()
    if library_family(low) != "cuda-runtime":
        return None
    m = re.search(r"\.so\.(\d{1,3})|\.(\d{1,3})(?:\.\d{1,3}){0,2}\.dylib$", low)
    if m:
        return int(m.group(1) or m.group(2))
    m = re.search(r"64_(\d{1,4})\.dll", low)
    if m:
        digits = m.group(1)
        if len(digits) == 2 and int(digits) >= 60:
            return int(digits[0])
        return int(digits[:-1]) if len(digits) == 3 else int(digits[:2]) if len(digits) == 4 else int(digits)
    return None


def library_major(name: str) -> int | None:
    """A cuDNN library's major: libcudnn.so.8 -> 8, cudnn64_8.dll -> 8, libcudnn_ops.so.9 -> 9,
    libcudnn.5.dylib -> 5."""
    m = re.search(r"\.so\.(\d{1,3})|64_(\d{1,3})\.dll|\.(\d{1,3})(?:\.\d{1,3}){0,2}\.dylib$", name.lower())
    if not m:
        return None
    return int(m.group(1) or m.group(2) or m.group(3))
