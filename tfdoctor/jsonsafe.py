"""JSON in and out of tfdoctor, bounded and strict.

In (saved reports: `--from`, `fleet`): at most `MAX_INPUT_BYTES` read; numbers bounded (an integer
of more than `MAX_DIGITS` digits, which `int()` would refuse past 4,300 digits, and a float that
is not finite read as null, like the non-standard NaN/Infinity literals); nesting at most
`MAX_DEPTH` levels (no RecursionError later). Out: `clean` turns every non-finite float and every
integer wider than 128 bits into null, so `dumps` (allow_nan=False) always writes strict JSON.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

MAX_INPUT_BYTES = 16 << 20  # a real report is well under 1 MiB
MAX_DIGITS = 40
MAX_DEPTH = 64


class InputError(ValueError):
    """A JSON input that cannot be read: one plain line (the caller names the file)."""


def _int(text: str) -> int | None:
    digits = len(text) - (text[0] == "-")
    return int(text) if digits <= MAX_DIGITS else None


def _float(text: str) -> float | None:
    if len(text) > 4 * MAX_DIGITS + 20:
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def _constant(_text: str) -> None:
    return None  # NaN, Infinity, -Infinity: not JSON; unknown


def depth(data: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply data nests (iteratively; stops counting past limit + 1)."""
    deepest = 0
    stack = [(data, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if deepest > limit:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def loads(text: str | bytes) -> Any:
    """Parse JSON with bounded numbers and nesting; raise InputError with a plain reason."""
    try:
        data = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except RecursionError:
        raise InputError(f"nested more than {MAX_DEPTH} levels deep") from None
    except json.JSONDecodeError as exc:  # kept as the cause: a caller may point at the spot
        raise InputError(f"not JSON (line {exc.lineno}: {exc.msg})") from exc
    except ValueError as exc:  # bytes that are not UTF-8/16/32
        raise InputError(f"not JSON ({str(exc).splitlines()[0][:80]})") from None
    if depth(data) > MAX_DEPTH:
        raise InputError(f"nested more than {MAX_DEPTH} levels deep")
    return data


def read_capped(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES) -> bytes:
    """A file's bytes, refusing more than limit (OSError as raised, InputError when too big)."""
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise InputError(
            f"larger than {limit >> 20} MiB; a tfdoctor report is far smaller (is it the right file?)"
        )
    return data


def clean(data: Any) -> Any:
    """A copy of data where every non-finite float and every integer wider than 128 bits is None."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, bool) or data is None or isinstance(data, str):
        return data
    if isinstance(data, int):
        return data if data.bit_length() <= 128 else None
    if isinstance(data, dict):
        return {key: clean(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [clean(value) for value in data]
    return data


def dumps(data: Any, **kwargs: Any) -> str:
    """Strict JSON (no NaN, no Infinity, no unprintable integer), whatever data holds."""
    kwargs.setdefault("default", str)
    return json.dumps(clean(data), allow_nan=False, **kwargs)
