"""JSON in and out of tfdoctor, bounded and strict.

In (saved reports: `--from`, `fleet`): at most `MAX_INPUT_BYTES` read; numbers bounded (an integer
wider than 128 bits, such as the 4,300+ digits `int()` refuses, and a float that is not finite
read as null, like the non-standard NaN/Infinity literals); nesting at most
`MAX_DEPTH` levels (no RecursionError later); a lone surrogate in a string (`"\\ud800"`, which no
encoder can write back out) read as U+FFFD, so every string is valid text. Out: `clean` turns every
non-finite float and every integer wider than 128 bits into null, so `dumps` (allow_nan=False)
always writes strict JSON.
"""

from __future__ import annotations

import json
import math
import os
import re
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


# Numbers are parsed by the C scanner and bounded afterwards (only in what the caller keeps); the
# hooked decoder, a Python call per number, is the fallback for an integer int() refuses outright.
_PLAIN = json.JSONDecoder(parse_constant=_constant)
_HOOKED = json.JSONDecoder(parse_int=_int, parse_float=_float, parse_constant=_constant)
_BIG = 1 << 128  # what `clean` lets out: a wider integer is read as null
_SURROGATE = re.compile("[\ud800-\udfff]")  # what the decoder leaves of an unpaired surrogate


def _text(value: str) -> str:
    return value if value.isascii() else _SURROGATE.sub("\ufffd", value)


def _bound(container: dict[Any, Any] | list[Any], level: int = 1) -> None:
    """In place: every integer wider than 128 bits and every non-finite float becomes None, every
    lone surrogate in a string (keys too) U+FFFD; InputError past MAX_DEPTH levels of nesting."""
    if level > MAX_DEPTH:
        raise InputError(f"nested more than {MAX_DEPTH} levels deep")
    if isinstance(container, dict):
        if not "".join(container).isascii():  # JSON keys are strings
            fixed = {_text(key): value for key, value in container.items()}
            container.clear()
            container.update(fixed)
        items: Any = container.items()
    else:
        items = enumerate(container)
    for key, value in items:
        kind = type(value)
        if kind is str:
            if not value.isascii():
                container[key] = _text(value)
        elif kind is dict or kind is list:
            _bound(value, level + 1)
        elif kind is int:
            if not -_BIG < value < _BIG:
                container[key] = None
        elif kind is float and not math.isfinite(value):
            container[key] = None


def parse(text: str | bytes) -> Any:
    """JSON as the C scanner reads it (numbers, nesting and text not yet bounded: see `bound`);
    InputError with a plain reason. Bytes are decoded as json.loads does (UTF-8/16/32), any
    invalid sequence replaced."""
    if isinstance(text, bytes):
        text = text.decode(json.detect_encoding(text), "replace")
    try:
        try:
            return _PLAIN.decode(text)
        except json.JSONDecodeError:
            raise
        except ValueError:  # an integer of more than 4,300 digits, which int() refuses
            return _HOOKED.decode(text)
    except RecursionError:
        raise InputError(f"nested more than {MAX_DEPTH} levels deep") from None
    except json.JSONDecodeError as exc:  # kept as the cause: a caller may point at the spot
        raise InputError(f"not JSON (line {exc.lineno}: {exc.msg})") from exc
    except ValueError as exc:
        raise InputError(f"not JSON ({str(exc).splitlines()[0][:80]})") from None


def bound(data: Any, keep: tuple[str, ...] | None = None) -> Any:
    """Parsed data with numbers, nesting and text bounded (see `_bound`); keep: of a top-level
    object only these keys are kept, so a reader that needs a few sections walks only those."""
    if isinstance(data, dict) and keep is not None:
        data = {key: data[key] for key in keep if key in data}
    box = [data]  # the top level is bounded like any value
    _bound(box, level=0)
    return box[0]


def loads(text: str | bytes) -> Any:
    """Parse JSON with bounded numbers, nesting and text; raise InputError with a plain reason."""
    return bound(parse(text))


def read_capped(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES) -> bytes:
    """A file's bytes, refusing more than limit (OSError as raised, InputError when too big). Plain
    system calls: a fleet reads 100,000 of these, and Python's buffered file costs more than the read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        size = os.fstat(fd).st_size  # asking for limit + 1 bytes alone would allocate them
        step = min(size, limit) + 1 if size > 0 else 1 << 16  # not a regular file's size (a pipe)
        parts, total = [], 0
        while total <= limit:  # a regular file comes in one read; a pipe, or a file that grew, in more
            chunk = os.read(fd, min(step, limit + 1 - total))
            if not chunk:
                break
            parts.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    if total > limit:
        raise InputError(
            f"larger than {limit >> 20} MiB; a tfdoctor report is far smaller (is it the right file?)"
        )
    return parts[0] if len(parts) == 1 else b"".join(parts)


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


def dumps(data: Any, bounded: bool = False, **kwargs: Any) -> str:
    """Strict JSON (no NaN, no Infinity, no unprintable integer), whatever data holds. `bounded`: data
    already read through `bound` (a fleet's rows), written without the copy `clean` makes unless the
    encoder still refuses it."""
    kwargs.setdefault("default", str)
    if bounded:
        try:
            return json.dumps(data, allow_nan=False, **kwargs)
        except ValueError:
            pass
    return json.dumps(clean(data), allow_nan=False, **kwargs)
