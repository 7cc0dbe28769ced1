"""Where the CUDA libraries would load from: LD_LIBRARY_PATH, the ld cache, the pip nvidia-* wheels.

Each pip nvidia-* wheel is reported with the lib dirs and shared libraries its RECORD lists, so
cu11 and cu12 wheels are told apart even where both install into the same nvidia/<x>/lib dir.

A CUDA library in an LD_LIBRARY_PATH directory wins over the copy in a pip nvidia wheel that
TensorFlow's RUNPATH points at: such pairs are reported as shadowing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping
from typing import Any

from tfdoctor import proc
from tfdoctor.probes import Context

CUDA_LIB_RE = re.compile(
    r"^(libcuda|libcudart|libcublas|libcublasLt|libcudnn\w*|libcufft|libcurand|libcusolver|libcusparse"
    r"|libnccl|libnvinfer)\.so(\.\d+)*$"
)
_MARK = "TFDOCTOR-PIP "
# Runs in the TARGET interpreter: stdlib only, must not import any nvidia or tensorflow module.
PIP_SNIPPET = r"""
import glob, json, os, sys
out = {"dists": {}, "dirs": [], "wheels": []}
try:
    from importlib import metadata
    for d in metadata.distributions():
        name = (d.metadata.get("Name") or "").strip()
        key = name.lower().replace("_", "-").replace(".", "-")
        if not key.startswith("nvidia-") or key in out["dists"]:
            continue
        out["dists"][key] = d.version
        dirs, libs = [], []
        for f in (d.files or [])[:5000]:
            parts = str(f).replace(os.sep, "/").split("/")
            if ".so" not in parts[-1] or "nvidia" not in parts[:-1]:
                continue
            path = os.path.abspath(str(d.locate_file(f)))
            if os.path.dirname(path) not in dirs:
                dirs.append(os.path.dirname(path))
            if len(libs) < 64:
                libs.append(parts[-1])
        out["wheels"].append({"name": key, "version": d.version, "lib_dirs": dirs, "libraries": sorted(libs)})
except Exception as exc:
    out["error"] = "reading installed distributions failed: %r" % (exc,)
for entry in sys.path:
    for lib in sorted(glob.glob(os.path.join(entry or ".", "nvidia", "*", "lib"))):
        lib = os.path.abspath(lib)
        if os.path.isdir(lib) and lib not in out["dirs"]:
            out["dirs"].append(lib)
print("TFDOCTOR-PIP " + json.dumps(out))
"""


def is_cuda_lib(name: str) -> bool:
    return len(name) <= 255 and bool(CUDA_LIB_RE.match(name))


def parse_ldconfig(text: str) -> list[tuple[str, str]]:
    """(name, path) for each entry of `ldconfig -p` ("\tlibcuda.so.1 (libc6,x86-64) => /path"), in
    cache order. Split by hand, not by regex: linear in any line."""
    out = []
    for line in text.splitlines():
        left, arrow, path = line.partition(" => ")
        name, paren, flags = left.strip().partition(" (")
        path = path.strip()
        if arrow and paren and flags.endswith(")") and name and path and " " not in name and len(line) < 4096:
            out.append((name, path))
    return out


def split_path_list(value: str | None) -> list[str]:
    """Directories of a PATH-like variable, empty entries dropped."""
    return [d for d in (value or "").split(os.pathsep) if d]


def cuda_libs_in(directory: str) -> dict[str, str]:
    """{file name: path} of the CUDA libraries directly in a directory (none when unreadable)."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return {}
    return {n: os.path.join(directory, n) for n in names if is_cuda_lib(n)}


def find_shadowing(ld_dirs: list[str], pip_dirs: list[str]) -> list[dict[str, str]]:
    """CUDA libraries in LD_LIBRARY_PATH that also exist in a pip nvidia lib dir."""
    pip_real = {os.path.realpath(d) for d in pip_dirs}
    pip_libs: dict[str, str] = {}
    for d in pip_dirs:
        for name, path in cuda_libs_in(d).items():
            pip_libs.setdefault(name, path)
    out = []
    seen = set()
    for d in ld_dirs:
        if os.path.realpath(d) in pip_real:
            continue  # LD_LIBRARY_PATH naming the wheel's own dir shadows nothing
        for name, path in cuda_libs_in(d).items():
            if name in pip_libs and name not in seen:
                seen.add(name)
                out.append({"soname": name, "first": path, "pip": pip_libs[name]})
    return out


def _ldconfig(env: Mapping[str, str]) -> str | None:
    found = shutil.which("ldconfig", path=env.get("PATH", ""))
    if found:
        return found
    return next((p for p in ("/sbin/ldconfig", "/usr/sbin/ldconfig") if os.access(p, os.X_OK)), None)


def read_ld_cache(
    env: Mapping[str, str], timeout: float, cache: str | None = None
) -> tuple[list, str | None]:
    """Entries of the ld cache (`ldconfig -p`, or `-C cache`), and an error in plain words."""
    exe = _ldconfig(env)
    if exe is None:
        return [], "ldconfig not found (not Linux, or /sbin is missing)"
    argv = [exe, *(["-C", cache] if cache else []), "-p"]
    result = proc.run(argv, timeout=timeout, env={"PATH": env.get("PATH", ""), "LC_ALL": "C"})
    if not result.ok:
        said = [line.strip() for line in result.stderr.splitlines() if line.strip()]
        return [], result.describe() + (f": {said[0][:200]}" if said and not result.timed_out else "")
    return parse_ldconfig(result.stdout), None


def read_pip_nvidia(python: str, env: Mapping[str, str], timeout: float) -> dict[str, Any]:
    """The target interpreter's nvidia-* distributions and nvidia/*/lib dirs."""
    exe = os.path.abspath(python) if os.sep in python else python
    result = proc.run_python(exe, PIP_SNIPPET, timeout=timeout, env=env)  # in-process when exe is this Python
    for line in result.stdout.splitlines():
        if line.startswith(_MARK):
            try:
                data = json.loads(line[len(_MARK) :])
            except ValueError:
                break
            return {
                "dists": data.get("dists") or {},
                "dirs": data.get("dirs") or [],
                "wheels": [wheel_facts(w) for w in data.get("wheels") or [] if isinstance(w, dict)],
                "error": data.get("error"),
            }
    why = result.describe() or f"{python} printed no result"
    return {"dists": {}, "dirs": [], "wheels": [], "error": f"could not list pip nvidia wheels: {why}"}


def cuda_major_of(dist: str) -> str | None:
    """'nvidia-cudnn-cu11' -> '11', 'nvidia-cublas-cu12' -> '12'; None for unsuffixed names."""
    m = re.search(r"-cu(\d+)$", dist)
    return m.group(1) if m else None


def wheel_facts(wheel: dict[str, Any]) -> dict[str, Any]:
    """One pip nvidia-* wheel: {name, version, cuda (its CUDA major from the name), lib_dirs, libraries}."""
    name = str(wheel.get("name") or "")
    return {
        "name": name,
        "version": wheel.get("version"),
        "cuda": cuda_major_of(name),
        "lib_dirs": [str(d) for d in wheel.get("lib_dirs") or []],
        "libraries": [str(n) for n in wheel.get("libraries") or []],
    }


def probe_libraries(ctx: Context, ld_cache: str | None = None) -> dict[str, Any]:
    ld_dirs = split_path_list(ctx.env.get("LD_LIBRARY_PATH"))
    loadable: dict[str, list[str]] = {}
    for d in ld_dirs:
        for name, path in cuda_libs_in(d).items():
            loadable.setdefault(name, []).append(path)
    cache, cache_error = read_ld_cache(ctx.env, ctx.timeout, ld_cache)
    for name, path in cache:
        if is_cuda_lib(name) and path not in loadable.get(name, []):
            loadable.setdefault(name, []).append(path)
    pip = read_pip_nvidia(ctx.python, ctx.env, ctx.timeout)
    return {
        "ld_library_path": ld_dirs,
        "loadable": loadable,
        "ld_cache_error": cache_error,
        "pip_nvidia": pip["dists"],
        "pip_nvidia_dirs": pip["dirs"],
        "pip_nvidia_wheels": pip["wheels"],
        "shadowing": find_shadowing(ld_dirs, pip["dirs"]),
        "error": pip["error"],
    }


def probe(ctx: Context) -> dict[str, Any]:
    return probe_libraries(ctx)
