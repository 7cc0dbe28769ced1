"""TensorFlow as installed in the target interpreter, without importing it.

The target interpreter runs a stdlib-only snippet: distribution metadata, where the tensorflow
package lives (importlib.util.find_spec on a top-level name locates it without running its
__init__), and the text of tensorflow/python/platform/build_info.py. tfdoctor parses that text
with ast; neither process imports TensorFlow.

It also reads the dynamic section of TensorFlow's own native libraries (a small ELF reader,
stdlib only, bounded, never raising): their RUNPATH says where TensorFlow's dlopen() of
libcudart/libcublas/libcudnn looks first. Since TF 2.14 it lists $ORIGIN/../nvidia/*/lib, so
the pip nvidia-* wheels are found without LD_LIBRARY_PATH; TF 2.12/2.13 list $ORIGIN only.
"""

from __future__ import annotations

import ast
import json
import os
import posixpath
import re
import warnings
from typing import Any

from tfdoctor import proc
from tfdoctor.facts import CONDA_CUDA
from tfdoctor.probes import Context
from tfdoctor.worker.worker import elf_dynamic

_MARK = "TFDOCTOR-STATIC "
SNIPPET = r"""
import json, os, struct, sys
out = {"python": sys.executable, "python_version": "%d.%d.%d" % tuple(sys.version_info[:3]),
       "python_bits": 8 * struct.calcsize("P"),
       "distributions": [], "location": None, "build_info_text": None}
try:
    from importlib import metadata
    for d in metadata.distributions():
        out["distributions"].append([(d.metadata.get("Name") or "").strip(), d.version])
except Exception as exc:
    out["metadata_error"] = "reading installed distributions failed: %r" % (exc,)
try:
    import importlib.util
    spec = importlib.util.find_spec("tensorflow")
except Exception as exc:
    spec = None
    out["find_spec_error"] = "locating tensorflow failed: %r" % (exc,)
if spec is not None:
    locs = list(spec.submodule_search_locations or [])
    out["location"] = locs[0] if locs else (os.path.dirname(spec.origin) if spec.origin else None)
    out["namespace_package"] = spec.origin in (None, "namespace")
    if out["location"]:
        path = os.path.join(out["location"], "python", "platform", "build_info.py")
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                out["build_info_text"] = fh.read(200000)
        except OSError as exc:
            out["build_info_error"] = "%s: %s" % (path, exc.strerror or exc)
print("TFDOCTOR-STATIC " + json.dumps(out))
"""

_EXACT = {
    "tensorflow",
    "tensorflow-cpu",
    "tensorflow-gpu",
    "tensorflow-intel",
    "intel-tensorflow",
    "tensorflow-macos",
    "tensorflow-metal",
    "tensorflow-rocm",
    "tensorflow-aarch64",
    "tensorflow-cpu-aws",  # (what `tensorflow` pulls in on Linux aarch64 from 2.10 on)
    "tf-keras",
    "keras",
    "tensorflow-probability",  # add-ons made for certain TensorFlow releases (compat/addons.toml)
    "tensorflow-addons",
    "tensorflow-text",
    "numpy",  # TensorFlow before 2.18 is built against NumPy 1.x
    "protobuf",
    *CONDA_CUDA,  # conda's CUDA packages, as a pasted `conda list` shows them
    "jax",  # JAX's packages: jax, jaxlib and its CUDA plugin (jax-cuda12-plugin, -pjrt) are one release
    "jaxlib",
}
_PREFIXES = ("tf-nightly", "tensorflow-io", "nvidia-", "jax-cuda")
# Which distribution's version is "the TensorFlow version", most specific first.
_TF_DISTS = (
    "tensorflow",
    "tensorflow-cpu",
    "tensorflow-gpu",
    "tensorflow-intel",
    "intel-tensorflow",
    "tensorflow-macos",
    "tensorflow-rocm",
    "tensorflow-aarch64",
    "tensorflow-cpu-aws",
)
# TensorFlow's native libraries, relative to the package directory, that load the CUDA libraries
# or hold the RUNPATH that applies to their dlopen(): the framework (every release), the C++ API
# library (2.x; carries cusolver's dir), the Python extension (_pywrap_tensorflow_internal up to
# 2.19-ish; the shared code moved to lib_pywrap_tensorflow_common / _pywrap_tensorflow_common).
NATIVE_LIBRARIES = (
    "libtensorflow_framework.so.2",
    "libtensorflow_framework.so.1",
    "libtensorflow_cc.so.2",
    "python/_pywrap_tensorflow_internal.so",
    "python/lib_pywrap_tensorflow_common.so",
    "python/_pywrap_tensorflow_common.so",
)
MAX_BUILD_INFO = 8192  # bytes: a real build_info.py is about 1 KB
_LEGACY_KEYS = {"cuda_version_number": "cuda_version", "cudnn_version_number": "cudnn_version"}


def normalize(name: str) -> str:
    """PEP 503 normalized distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def of_interest(name: str) -> bool:
    return name in _EXACT or name.startswith(_PREFIXES)


def select_distributions(pairs: list) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Distributions of interest (first on sys.path wins) and those installed more than once."""
    chosen: dict[str, str] = {}
    every: dict[str, list[str]] = {}
    for pair in pairs:
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and pair[0]):
            continue
        name = normalize(str(pair[0]))
        if of_interest(name):
            every.setdefault(name, []).append(str(pair[1]))
            chosen.setdefault(name, str(pair[1]))
    return dict(sorted(chosen.items())), {n: v for n, v in sorted(every.items()) if len(v) > 1}


def tensorflow_dist(dists: dict[str, str]) -> str | None:
    """The distribution that gives TensorFlow's version (tensorflow first, then its other packages)."""
    name = next((n for n in _TF_DISTS if n in dists), None)
    return name or next(iter(sorted(n for n in dists if n.startswith("tf-nightly"))), None)


def tensorflow_version(dists: dict[str, str]) -> str | None:
    name = tensorflow_dist(dists)
    return dists[name] if name else None


def _literal(node: ast.AST) -> Any:
    return ast.literal_eval(node)


def _callee(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _mapping_from_call(call: ast.Call) -> dict[str, Any]:
    """OrderedDict([(k, v), ...]), OrderedDict({k: v}), dict(...), with keyword arguments too."""
    out: dict[str, Any] = {}
    for arg in call.args:
        value = _literal(arg)
        items = value.items() if isinstance(value, dict) else value
        for key, val in items:
            out[str(key)] = val
    for kw in call.keywords:
        if kw.arg:
            out[kw.arg] = _literal(kw.value)
    return out


def parse_build_info(text: str) -> dict[str, Any]:
    """The build_info mapping of build_info.py, read with ast (never executed).

    Handles `build_info = collections.OrderedDict([...])` (Python < 3.12 repr),
    `OrderedDict({...})`, a plain dict, and legacy module-level `cuda_version_number = '10.0'`.
    Raises ValueError when the text is not Python or holds none of these.
    """
    if len(text) > MAX_BUILD_INFO:  # a real one is about 1 KB; parsing is not linear in hostile text
        raise ValueError(f"build_info.py holds {len(text)} characters, far more than TensorFlow writes")
    try:
        with warnings.catch_warnings():  # hostile text: "invalid decimal literal" and the like
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except SyntaxError as exc:
        raise ValueError(f"build_info.py is not valid Python (line {exc.lineno}): {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, nesting too deep
        raise ValueError(f"build_info.py is not valid Python ({type(exc).__name__})") from None
    legacy: dict[str, Any] = {}
    info: dict[str, Any] | None = None
    for node in tree.body:
        if not (
            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ):
            continue
        name, value = node.targets[0].id, node.value
        try:
            if name == "build_info":
                if isinstance(value, ast.Call) and _callee(value) in ("OrderedDict", "dict"):
                    info = _mapping_from_call(value)
                else:
                    literal = _literal(value)
                    info = dict(literal) if isinstance(literal, dict) else None
            else:
                legacy[_LEGACY_KEYS.get(name, name)] = _literal(value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            continue  # not a literal: not build data
    if info is None and not (legacy.keys() & {"cuda_version", "cudnn_version", "is_cuda_build"}):
        raise ValueError("build_info.py holds no build_info mapping and no cuda_version_number")
    return {**legacy, **(info or {})}


def _unique(items: list[str] | None) -> list[str] | None:
    return list(dict.fromkeys(items)) if items is not None else None


def read_native_libraries(location: str) -> list[dict[str, Any]]:
    """[{file, soname, runpath, rpath, error}] for the NATIVE_LIBRARIES present under location."""
    out = []
    for rel in NATIVE_LIBRARIES:
        path = os.path.join(location, *rel.split("/"))
        if not os.path.isfile(path):
            continue
        dyn = elf_dynamic(path)
        out.append({"file": rel, "soname": dyn["soname"], "runpath": _unique(dyn["runpath"]),
                    "rpath": _unique(dyn["rpath"]), "error": dyn["error"]})
    return out


def nvidia_lib_dirs(entries: list[str], file: str) -> list[str]:
    """Names X of the `<site-packages>/nvidia/X/lib` dirs that RUNPATH entries of a library lead to.

    `file` is the library's path relative to the tensorflow package dir; $ORIGIN and ${ORIGIN}
    are resolved against it, so `$ORIGIN/../nvidia/cublas/lib` counts for
    libtensorflow_framework.so.2 but `$ORIGIN/../../nvidia/cublas/lib` (site-packages' parent)
    does not.
    """
    origin = posixpath.join("site-packages", "tensorflow", posixpath.dirname(file))
    names = []
    for entry in entries:
        if "$ORIGIN" not in entry and "${ORIGIN}" not in entry:
            continue
        resolved = posixpath.normpath(entry.replace("${ORIGIN}", origin).replace("$ORIGIN", origin))
        parts = resolved.split("/")
        if len(parts) == 4 and parts[0] == "site-packages" and parts[1] == "nvidia" and parts[3] == "lib":
            names.append(parts[2])
    return sorted(set(names))


def runpath_facts(libraries: list[dict[str, Any]]) -> dict[str, Any]:
    """runpath (entries of every library read, first seen first), runpath_nvidia (does some
    library's RUNPATH/RPATH reach the pip nvidia-* wheels' lib dirs), runpath_nvidia_packages,
    native_libraries (per file: which tag, how many entries, errors). Pure: no I/O."""
    entries: list[str] = []
    packages: set[str] = set()
    readable = False
    summary = []
    for lib in libraries:
        # The loader ignores DT_RPATH when DT_RUNPATH is present.
        if lib.get("runpath") is not None:
            tag, path_list = "RUNPATH", lib["runpath"]
        else:
            tag, path_list = ("RPATH", lib["rpath"]) if lib.get("rpath") is not None else (None, None)
        if not lib.get("error"):
            readable = True
        for entry in path_list or []:
            if entry not in entries:
                entries.append(entry)
        packages.update(nvidia_lib_dirs(path_list or [], str(lib.get("file") or "")))
        summary.append({"file": lib.get("file"), "soname": lib.get("soname"), "tag": tag,
                        "entries": len(path_list or []), "error": lib.get("error")})
    return {
        "runpath": entries if readable else None,
        "runpath_nvidia": bool(packages) if readable else None,
        "runpath_nvidia_packages": sorted(packages) if readable else None,
        "native_libraries": summary,
    }


def _plain(result: proc.Result, python: str) -> str:
    if result.error or result.timed_out:
        return result.describe()
    tail = (result.stderr or result.stdout).strip().splitlines()
    said = f" ({tail[-1][:200]})" if tail else ""
    if result.returncode:
        return f"{python} is not a working Python interpreter: exit status {result.returncode}{said}"
    return f"{python} printed no result; is it a Python interpreter?{said}"


def empty_facts(python: str) -> dict[str, Any]:
    return {
        "python": python,
        "python_version": None,
        "python_bits": None,
        "installed": None,
        "version": None,
        "location": None,
        "distributions": {},
        "duplicates": {},
        "build_info": None,
        "runpath": None,
        "runpath_nvidia": None,
        "runpath_nvidia_packages": None,
        "native_libraries": [],
        "error": None,
    }


def static_facts(python: str, data: dict[str, Any], libraries: list[dict[str, Any]]) -> dict[str, Any]:
    """The tensorflow facts from what the snippet printed (`data`) and the native libraries'
    dynamic sections (read_native_libraries). Pure: recorded outputs replay through it."""
    facts = empty_facts(python)
    dists, dups = select_distributions(data.get("distributions") or [])
    facts.update(
        python_version=data.get("python_version"),
        python_bits=data.get("python_bits"),
        installed=data.get("location") is not None,
        version=tensorflow_version(dists),
        location=data.get("location"),
        namespace_package=data.get("namespace_package"),
        distributions=dists,
        duplicates=dups,
    )
    errors = [data[k] for k in ("metadata_error", "find_spec_error", "build_info_error") if data.get(k)]
    text = data.get("build_info_text")
    if text is not None:
        try:
            # the whole file was read: a build that does not declare CUDA is not a CUDA build
            facts["build_info"] = {"is_cuda_build": False, **parse_build_info(text)}
        except ValueError as exc:
            errors.append(str(exc))
    if facts["location"]:
        facts.update(runpath_facts(libraries))
    facts["error"] = "; ".join(errors) or None
    return facts


def probe_tensorflow(python: str, env: dict[str, str], timeout: float) -> dict[str, Any]:
    # The snippet runs in a neutral directory (no stray ./tensorflow); keep a relative path valid.
    exe = os.path.abspath(python) if os.sep in python else python
    result = proc.run_python(exe, SNIPPET, timeout=timeout, env=env)  # in-process when exe is this Python
    line = next((x for x in result.stdout.splitlines() if x.startswith(_MARK)), None)
    try:
        data = json.loads(line[len(_MARK) :]) if line else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        facts = empty_facts(python)
        facts["error"] = _plain(result, python)
        return facts
    location = data.get("location")
    return static_facts(python, data, read_native_libraries(location) if location else [])


def probe(ctx: Context) -> dict[str, Any]:
    return probe_tensorflow(ctx.python, dict(ctx.env), ctx.timeout)
