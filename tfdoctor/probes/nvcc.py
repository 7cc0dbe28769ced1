"""Every CUDA toolkit nvcc found: PATH, $CUDA_HOME, $CUDA_PATH, /usr/local/cuda, /usr/local/cuda-*.

pip TensorFlow ships its own CUDA libraries; a system toolkit is reported, not required.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tfdoctor import proc
from tfdoctor.probes import Context

# Bounded quantifiers only: linear in any output, and no digit run int() could refuse.
_RELEASE_RE = re.compile(r"Cuda compilation tools,[ \t]{0,20}release[ \t]{1,20}(\d{1,4}\.\d{1,4})(?![\d])")
_BUILD_RE = re.compile(r"(?<![\w.])(V\d{1,4}\.\d{1,4}\.\d{1,9})(?![\w.])")
_EXE = "nvcc.exe" if sys.platform == "win32" else "nvcc"


def parse_nvcc_version(text: str) -> dict[str, str | None]:
    """{"version": "13.0", "build": "V13.0.88"} from `nvcc --version`; None where absent."""
    release = _RELEASE_RE.search(text)
    build = _BUILD_RE.search(text[release.start() :] if release else text)
    return {"version": release.group(1) if release else None, "build": build.group(1) if build else None}


def _version_key(path: Path) -> tuple:
    """Sort /usr/local/cuda-12.10 after /usr/local/cuda-12.9 (numbers before words, both sortable)."""
    parts = re.split(r"[.-]", path.name)
    return tuple((0, int(p), "") if p.isdigit() and len(p) < 10 else (1, 0, p) for p in parts)


def candidates(env: Mapping[str, str], local: Path = Path("/usr/local")) -> list[tuple[str, str]]:
    """(path, source) of each nvcc that exists, in search order, deduplicated by real path."""
    found: list[tuple[str, str]] = []
    for directory in env.get("PATH", "").split(os.pathsep):
        if directory:
            found.append((os.path.join(directory, _EXE), "PATH"))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if env.get(var):
            found.append((os.path.join(env[var], "bin", _EXE), var))
    found.append((str(local / "cuda" / "bin" / _EXE), str(local / "cuda")))
    try:
        versioned = sorted(local.glob("cuda-*"), key=_version_key)
    except OSError:
        versioned = []
    found += [(str(d / "bin" / _EXE), str(d)) for d in versioned]
    seen: set[str] = set()
    out = []
    for path, source in found:
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            continue
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            out.append((path, source))
    return out


def _describe_failure(result: proc.Result, parsed: dict[str, str | None]) -> str | None:
    """Plain words for a failed or unreadable `nvcc --version`, or None when it worked."""
    if result.error or result.timed_out or (result.returncode or 0) != 0:
        detail = result.describe()
        last = (result.stderr or result.stdout).strip().splitlines()
        return f"{detail}: {last[-1][:200]}" if last and not result.timed_out else detail
    if parsed["version"] is None:
        first = (result.stdout or result.stderr).strip().splitlines()
        shown = first[0][:120] if first else "nothing"
        return f"{result.argv[0]} --version printed no CUDA release line (it printed: {shown!r})"
    return None


def probe_nvcc(env: Mapping[str, str], timeout: float, local: Path = Path("/usr/local")) -> dict[str, Any]:
    """Run `nvcc --version` for each install; the whole probe stays within 2 x timeout."""
    deadline = time.monotonic() + 2 * timeout
    installs: list[dict[str, Any]] = []
    raw = None
    errors = []
    for path, source in candidates(env, local):
        left = deadline - time.monotonic()
        if left < 0.5:
            installs.append(
                {
                    "path": path,
                    "source": source,
                    "version": None,
                    "build": None,
                    "error": "not run: the probe's time budget was spent on earlier installs",
                }
            )
            continue
        result = proc.run([path, "--version"], timeout=min(timeout, left), env=dict(env))
        parsed = parse_nvcc_version(result.stdout + "\n" + result.stderr)
        error = _describe_failure(result, parsed)
        installs.append({"path": path, "source": source, **parsed, "error": error})
        if raw is None:
            raw = proc.trim((result.stdout + result.stderr).strip(), 4000)
        if error:
            errors.append(f"{path}: {error}")
    versions = [i["version"] for i in installs if i["version"]]
    return {
        "found": bool(installs),
        "version": versions[0] if versions else None,
        "installs": installs,
        "raw": raw,
        "error": "; ".join(errors) or None,
    }


def probe(ctx: Context) -> dict[str, Any]:
    return probe_nvcc(ctx.env, ctx.timeout)
