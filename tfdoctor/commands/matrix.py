"""`tfdoctor matrix`: print the bundled compatibility matrix, or answer one question about it."""

from __future__ import annotations

import json
import sys
from typing import Any

from tfdoctor.compat import PLATFORMS, Matrix, TFRelease, kernel_fit, load_matrix
from tfdoctor.versions import parse_version, release


def _usage(message: str) -> int:
    print(f"tfdoctor: {message}", file=sys.stderr)
    return 2


def _span(rel: TFRelease) -> str:
    return f"{rel.python_min}-{rel.python_max}"


def release_needs(matrix: Matrix, rel: TFRelease) -> dict[str, Any]:
    """What one release needs, as plain data (the --tensorflow answer)."""
    return {
        "tensorflow": rel.version,
        "python": {"min": rel.python_min, "max": rel.python_max},
        "cuda": rel.cuda,
        "cudnn": rel.cudnn,
        "min_driver": {
            col: {"exact": matrix.min_driver(rel.cuda, col),
                  "minor_compat": matrix.minor_compat_floor(rel.cuda, col)}
            for col in ("linux", "windows")
        },
        "compute_capabilities": list(rel.compute_capabilities),
        "platforms": {p: rel.gpu_on(p) for p in PLATFORMS},
        "and_cuda": dict(rel.and_cuda),
        "notes": rel.notes,
        "source": rel.source,
        "see_also": list(rel.see_also),
        "compat_data": matrix.version,
    }


def _text_release(matrix: Matrix, rel: TFRelease) -> str:
    need = release_needs(matrix, rel)
    drv = need["min_driver"]

    def driver_line(col: str) -> str:
        exact, floor = drv[col]["exact"], drv[col]["minor_compat"]
        text = f">= {exact}" if exact else "unknown"
        major = rel.cuda.split(".")[0]
        return text + (f" (>= {floor} with CUDA {major}.x minor-version compatibility)" if floor else "")

    plat = need["platforms"]
    yes = {True: "yes", False: "no"}
    lines = [
        f"TensorFlow {rel.version}  (compat data {matrix.version})",
        f"  Python         {_span(rel)}",
        f"  CUDA           {rel.cuda}, cuDNN {rel.cudnn}",
        f"  Linux driver   {driver_line('linux')}",
        f"  WSL2/Windows   {driver_line('windows')}  (the Windows host driver)",
        f"  Kernels        {' '.join(rel.compute_capabilities)}",
        f"  GPU support    Linux {yes[plat['linux']]} · WSL2 {yes[plat['wsl2']]} · "
        f"native Windows {yes[plat['windows']]} · macOS {yes[plat['macos']]}",
    ]
    if rel.and_cuda:
        lines.append(f'  and-cuda       pip install "tensorflow[and-cuda]=={rel.version}.*" pulls:')
        lines += [f"                   {dist}{spec}" for dist, spec in sorted(rel.and_cuda.items())]
    else:
        lines.append("  and-cuda       none (the extra starts with 2.14; install CUDA and cuDNN separately)")
    if rel.notes:
        lines.append(f"  Notes          {rel.notes}")
    lines.append(f"  Source         {rel.source}")
    return "\n".join(lines) + "\n"


def _driver_answer(matrix: Matrix, driver: str, platform: str = "linux") -> list[dict[str, Any]]:
    return [
        {"tensorflow": rel.version, "cuda": rel.cuda, "min_driver": matrix.min_driver(rel.cuda, platform),
         "caveat": caveat}
        for rel, caveat in matrix.releases_for_driver(driver, platform)
    ]


def _cuda_answer(matrix: Matrix, cuda: str) -> dict[str, Any]:
    row = matrix.driver_row(cuda)
    minor = release(cuda, "CUDA version")[:2]
    built = [r.version for r in matrix.tensorflow if release(r.cuda, "")[:2] == minor]
    return {
        "cuda": cuda,
        "row": row.cuda if row else None,
        "label": row.label if row else None,
        "min_driver": {"linux": row.linux if row else None, "windows": row.windows if row else None},
        "minor_compat": {"linux": matrix.minor_compat_floor(cuda, "linux"),
                         "windows": matrix.minor_compat_floor(cuda, "windows")},
        "tensorflow": built,
        "source": row.source if row else None,
    }


def _py(version: str) -> tuple[int, ...]:
    return release(version, "Python version")[:2]


def python_fits(rel: TFRelease, python: str) -> bool:
    """Whether the release ships wheels for this Python (its tested range, by major.minor)."""
    return _py(rel.python_min) <= _py(python) <= _py(rel.python_max)


def install_line(rel: TFRelease, platform: str = "linux") -> str:
    """The pip command for a release's GPU wheels on a platform."""
    if rel.and_cuda and platform in ("linux", "wsl2"):
        return f'pip install "tensorflow[and-cuda]=={rel.version}.*"'
    return (f'pip install "tensorflow=={rel.version}.*"  (then CUDA {rel.cuda} and cuDNN {rel.cudnn}, '
            "installed separately)")


def driver_python_answer(
    matrix: Matrix, driver: str | None, python: str, platform: str = "linux"
) -> dict[str, Any]:
    """Which TensorFlow releases run on this Python (wheels exist only for each release's Python range),
    and, when a driver is given, that driver can run (the same judgement as `check`'s driver findings).
    `newest` is the one to install; `why_none` says what to change when nothing fits."""
    col = {"wsl2": "windows"}.get(platform, platform)
    by_driver = dict(
        (rel.version, caveat) for rel, caveat in matrix.releases_for_driver(driver, platform)
    ) if driver is not None else {r.version: None for r in matrix.tensorflow if r.gpu_on(platform)}
    fits = [r for r in matrix.tensorflow if r.version in by_driver and python_fits(r, python)]
    rows = [
        {"tensorflow": r.version, "python": {"min": r.python_min, "max": r.python_max}, "cuda": r.cuda,
         "cudnn": r.cudnn, "min_driver": matrix.min_driver(r.cuda, platform), "caveat": by_driver[r.version],
         "install": install_line(r, platform), "source": r.source}
        for r in fits
    ]
    why = None
    if not rows:
        for_python = [r for r in matrix.tensorflow if python_fits(r, python) and r.gpu_on(platform)]
        for_driver = [r for r in matrix.tensorflow if r.version in by_driver]
        py = ".".join(map(str, _py(python)))
        if not for_python:
            why = f"no TensorFlow release in the compat data has {platform} GPU wheels for Python {py}"
            if for_driver:
                low = min((r.python_min for r in for_driver), key=_py)
                high = max((r.python_max for r in for_driver), key=_py)
                whose = "this driver's releases" if driver is not None else "its releases"
                span = f"{for_driver[0].version}-{for_driver[-1].version}"
                why += f"; {whose} ({span}) cover Python {low}-{high}"
        elif not for_driver:
            why = (f"driver {driver} is older than what every TensorFlow GPU release's CUDA needs "
                   f"on {platform}")
        else:
            oldest = for_python[0]
            need = matrix.min_driver(oldest.cuda, platform) or "?"
            newest_driver = for_driver[-1]
            why = (
                f"Python {py} wheels start with TensorFlow {oldest.version} (CUDA {oldest.cuda}, "
                f"driver >= {need}), and driver {driver} runs TensorFlow up to {newest_driver.version}, "
                f"whose wheels are for Python {newest_driver.python_min}-{newest_driver.python_max}: upgrade "
                f"the driver to >= {need}, or use "
                f"Python {newest_driver.python_max}"
            )
    drivers = {matrix.driver_row(r["cuda"]).source for r in rows if matrix.driver_row(r["cuda"])}
    return {
        "driver": driver,
        "python": python,
        "platform": platform,
        "driver_column": col,
        "releases": rows,
        # as `check` recommends: the newest the driver runs without a caveat, else the newest with one
        "newest": ([r for r in rows if r["caveat"] is None] or rows)[-1]["tensorflow"] if rows else None,
        "why_none": why,
        "sources": sorted({r["source"] for r in rows} | drivers),
        "compat_data": matrix.version,
    }


def _text_driver_python(answer: dict[str, Any]) -> str:
    py = answer["python"]
    head = (f"{answer['platform']} driver {answer['driver']} on Python {py}" if answer["driver"]
            else f"Python {py} on {answer['platform']}")
    lines = [f"{head}: TensorFlow releases with GPU wheels for it (compat data {answer['compat_data']})"]
    for r in answer["releases"]:
        how = "" if answer["driver"] is None else (
            "  yes" if r["caveat"] is None else "  yes, through minor-version compatibility only")
        span = f"{r['python']['min']}-{r['python']['max']}"
        need = r["min_driver"] or "?"
        row = f"  {r['tensorflow']:<6} Python {span:<10} CUDA {r['cuda']:<7} driver >= {need:<11}{how}"
        lines.append(row.rstrip())
    if answer["newest"]:
        newest = next(r for r in answer["releases"] if r["tensorflow"] == answer["newest"])
        lines.append(f"Install: TensorFlow {answer['newest']}: {newest['install']}")
        if newest["caveat"]:
            lines.append(f"Caveat: {newest['caveat']}")
    else:
        lines.append(f"  none: {answer['why_none']}")
    if answer["sources"]:
        lines.append("Sources: " + ", ".join(answer["sources"]))
    return "\n".join(lines) + "\n"


def _architecture(matrix: Matrix, cc: str) -> Any:
    """The architecture row for a compute capability (Matrix.architecture), or None where unknown."""
    lookup = getattr(matrix, "architecture", None)
    return lookup(cc) if callable(lookup) else None


def _driver_ceiling(branch: str | None) -> str | None:
    """The newest driver of a branch ("R470" -> "470.9999") for comparisons, or None."""
    if not isinstance(branch, str) or not branch[1:].isdigit():
        return None
    return f"{int(branch[1:])}.9999"


def gpu_answer(matrix: Matrix, name: str, platform: str = "linux") -> dict[str, Any] | None:
    """What one GPU can run: its compute capability and architecture, the last driver branch and CUDA
    that support it, and the newest TensorFlow with kernels for it (SASS, or PTX the driver JIT-compiles:
    `kernel_fit`), also the newest its last driver and CUDA can run. None for an unknown GPU."""
    model = matrix.gpu(name)
    if model is None:
        return None
    cc = model.compute_capability
    arch = _architecture(matrix, cc)
    branch = getattr(arch, "last_driver_branch", None)
    last_cuda = getattr(arch, "last_cuda", None)
    ceiling = _driver_ceiling(branch)
    runnable_by_driver = (
        dict((rel.version, caveat) for rel, caveat in matrix.releases_for_driver(ceiling, platform))
        if ceiling else None
    )
    releases = []
    for rel in matrix.tensorflow:
        if not rel.gpu_on(platform):
            continue
        fit = kernel_fit(rel.compute_capabilities, cc)
        blocked = []
        if runnable_by_driver is not None and rel.version not in runnable_by_driver:
            blocked.append(f"needs driver >= {matrix.min_driver(rel.cuda, platform)}, beyond {branch}")
        if last_cuda and release(rel.cuda, "")[:2] > release(last_cuda, "")[:2]:
            blocked.append(
                f"CUDA {rel.cuda} no longer supports compute capability {cc} (last: CUDA {last_cuda})"
            )
        caveat = runnable_by_driver.get(rel.version) if runnable_by_driver else None
        if caveat and ceiling and branch:
            caveat = caveat.replace(f"driver {ceiling}", f"a driver of branch {branch}")
        releases.append({"tensorflow": rel.version, "fit": fit, "cuda": rel.cuda, "blocked": blocked,
                         "last_driver_caveat": caveat})

    def newest(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        if not rows:
            return None
        row = rows[-1]
        rel = matrix.tf_release(row["tensorflow"])
        return {**row, "kernels": list(rel.compute_capabilities), "cudnn": rel.cudnn,
                "install": install_line(rel, platform), "source": rel.source}

    with_kernels = [r for r in releases if r["fit"]]
    return {
        "query": name,
        "gpu": {"name": model.name, "compute_capability": cc, "architecture": model.architecture,
                "notes": model.notes or None, "source": model.source},
        "architecture": None if arch is None else {
            "name": arch.name, "compute_capabilities": list(arch.compute_capabilities),
            "last_driver_branch": branch, "last_cuda": last_cuda, "supported": branch is None,
            "notes": getattr(arch, "notes", "") or None, "source": arch.source,
        },
        "platform": platform,
        "newest_with_kernels": newest(with_kernels),
        "newest_runnable": newest([r for r in with_kernels if not r["blocked"]]),
        "releases": releases,
        "min_driver": {r["tensorflow"]: matrix.min_driver(r["cuda"], platform) for r in releases},
        "compat_data": matrix.version,
    }


def _text_gpu(answer: dict[str, Any]) -> str:
    gpu, arch = answer["gpu"], answer["architecture"]
    cc = gpu["compute_capability"]
    lines = [f"{answer['query']}  (compat data {answer['compat_data']})",
             f"  GPU              {gpu['name']}",
             f"  Compute cap.     {cc}"]
    if arch is None:
        lines += [f"  Architecture     {gpu['architecture']}",
                  "  Last driver      unknown (no architecture row for it in this compat data)"]
    else:
        ccs = ", ".join(arch["compute_capabilities"])
        lines.append(f"  Architecture     {arch['name']} (compute capabilities {ccs})")
        if arch["supported"]:
            lines.append("  Last driver      none yet: current driver branches support it")
        else:
            cuda = f"; last CUDA {arch['last_cuda']}" if arch["last_cuda"] else ""
            branch = arch["last_driver_branch"]
            lines.append(f"  Last driver      {branch} (drivers of later branches do not load on it){cuda}")

    def describe(row: dict[str, Any]) -> str:
        how = {"sass": "SASS", "ptx": "PTX only, JIT-compiled by the driver on first use"}[row["fit"]]
        return f"TensorFlow {row['tensorflow']} ({how}; CUDA {row['cuda']}, cuDNN {row['cudnn']})"

    newest, runnable = answer["newest_with_kernels"], answer["newest_runnable"]
    considered = answer["releases"]
    if newest is None:
        span = f"{considered[0]['tensorflow']}-{considered[-1]['tensorflow']}" if considered else "none"
        lines.append(f"  TensorFlow       no release in the compat data ({span}) has kernels for compute "
                     f"capability {cc}")
        if arch and arch["last_cuda"] and considered and release(arch["last_cuda"], "")[:2] < release(
                considered[0]["cuda"], "")[:2]:
            last = arch["last_cuda"]
            lines.append(f"{'':19}(its last CUDA, {last}, is older than all of their CUDA versions)")
    else:
        lines.append(f"  Newest kernels   {describe(newest)}")
        if runnable is None:
            lines.append(f"  Runnable         none: {'; '.join(newest['blocked'])}")
        elif runnable["tensorflow"] != newest["tensorflow"]:
            lines.append(f"  Runnable         {describe(runnable)}: newer ones {newest['blocked'][0]}")
        if runnable is not None:
            if runnable["last_driver_caveat"]:
                min_driver = answer["min_driver"].get(runnable["tensorflow"])
                major = runnable["cuda"].split(".")[0]
                wants = f"CUDA {runnable['cuda']} wants driver >= {min_driver}"
                lines.append(f"  With {arch['last_driver_branch']:<12}only through CUDA {major}.x "
                             f"minor-version compatibility ({wants})")
            lines.append(f"  Install          {runnable['install']}")
    sources = [gpu["source"]] + ([arch["source"]] if arch else []) + ([newest["source"]] if newest else [])
    lines.append("  Sources          " + ", ".join(dict.fromkeys(sources)))
    return "\n".join(lines) + "\n"


TF_DISTRIBUTIONS = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-macos",
                    "tensorflow-intel")


def installed_tensorflow() -> str | None:
    """The TensorFlow version installed for this interpreter, from its distribution metadata
    (cheap: TensorFlow is never imported); None when there is none."""
    from importlib import metadata

    for name in TF_DISTRIBUTIONS:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
        except Exception:  # noqa: BLE001 - broken metadata: unknown, not a crash
            return None
    return None


def kernels(caps: tuple[str, ...]) -> str:
    """sm_60 sm_80 compute_90 -> "6.0 8.0 9.0+PTX": the compute capabilities with native kernels,
    and the one whose PTX newer GPUs JIT-compile."""
    out = []
    for cap in caps:
        kind, _, digits = cap.partition("_")
        if not digits[:-1].isdigit():
            out.append(cap)
            continue
        cc = f"{digits[:-1]}.{digits[-1]}"
        out.append(cc + ("+PTX" if kind == "compute" else ""))
    return " ".join(out)


def table_rows(matrix: Matrix) -> list[tuple[str, ...]]:
    """(TF, Python, CUDA, cuDNN, minimum Linux driver, GPU on native Windows, compute capabilities),
    newest release first."""
    return [
        (r.version, f"{r.python_min}–{r.python_max}", r.cuda, r.cudnn,
         f">= {matrix.min_driver(r.cuda) or '?'}", "yes" if r.windows_gpu else "no",
         kernels(r.compute_capabilities))
        for r in reversed(matrix.tensorflow)
    ]


HEADER = ("TF", "Python", "CUDA", "cuDNN", "min. driver", "Win", "compute capability")
NOTE = ("min. driver: Linux (WSL2 and Windows: tfdoctor matrix --cuda V) · Win: GPU support on native"
        " Windows · compute capability: native kernels; +PTX: JIT-compiled for newer GPUs")


def _table(matrix: Matrix) -> None:
    """Every release at a glance; the row of the TensorFlow installed here is marked."""
    rows = table_rows(matrix)
    installed = installed_tensorflow()
    rel = matrix.tf_release(installed) if installed else None
    here = rel.version if rel is not None else None
    title = f"TensorFlow releases, newest first (compat data {matrix.version})"
    if sys.stdout.isatty():
        from rich import box
        from rich.console import Console
        from rich.table import Table

        caption = (f"▶ installed here: TensorFlow {installed} · " if here else "") + NOTE
        table = Table(title=title, title_justify="left", title_style="bold", caption=caption,
                      caption_justify="left", box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False,
                      show_edge=False, collapse_padding=True)
        table.add_column("", no_wrap=True, width=1)
        for n, name in enumerate(HEADER):
            table.add_column(name, no_wrap=n < 6)
        for row in rows:
            hit = row[0] == here
            table.add_row("▶" if hit else "", *row, style="bold green" if hit else None)
        Console(highlight=False, emoji=False, markup=False).print(table)
        return
    widths = [max(len(str(x[i])) for x in (HEADER, *rows)) for i in range(len(HEADER))]
    out = [title]
    for row in (HEADER, *rows):
        line = "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip()
        out.append(f"{line}  ◀ installed here ({installed})" if row[0] == here else line)
    out.append(NOTE)
    sys.stdout.write("\n".join(out) + "\n")


def _bad_option(name: str, value: str | None) -> str | None:
    """Why an option's value is not a usable version, or None."""
    if value is None:
        return None
    if name != "--tensorflow" and not _numeric(value.strip()):
        return f"{name} {value!r}: not a version (expected digits and dots, e.g. 535.104.05)"
    try:
        parse_version(value, name)
    except ValueError as exc:
        return f"{exc} (expected e.g. 2.15 or 2.15.1)"
    return None


def _bad_gpu(name: str | None) -> str | None:
    if name is None:
        return None
    if not name.strip() or len(name) > 256 or any(ord(c) < 32 or 127 <= ord(c) < 160 for c in name):
        return "--gpu: expected a GPU product name such as \"GeForce GTX 680\" or \"NVIDIA H100 80GB HBM3\""
    return None


def matrix_command(tensorflow: str | None, driver: str | None, cuda: str | None, as_json: bool,
                   platform: str = "linux", python: str | None = None, gpu: str | None = None) -> int:
    """`tfdoctor matrix`: print the matrix, or answer one question about it. Exit 0, or 2 on bad input
    (and for an unknown GPU).

    --driver lists, oldest first, the releases the driver can run; `platform` picks the driver column
    (linux, or wsl2/windows for a Windows host driver). --python (alone or with --driver) keeps the
    releases that have wheels for that Python; --gpu answers what one GPU model can run.
    """
    options = (("--tensorflow", tensorflow), ("--driver", driver), ("--cuda", cuda), ("--gpu", gpu))
    given = [name for name, value in options if value is not None]
    if len(given) > 1:
        got = " and ".join(given)
        return _usage(f"matrix: give one of --tensorflow, --driver, --cuda, --gpu (got {got})")
    if python is not None and given and given != ["--driver"]:
        return _usage(f"matrix: --python goes alone or with --driver, not with {given[0]}")
    for name, value in (*options[:3], ("--python", python)):
        problem = _bad_option(name, value)
        if problem:
            return _usage(problem)
    problem = _bad_gpu(gpu)
    if problem:
        return _usage(problem)
    if platform not in PLATFORMS:
        return _usage(f"unknown platform {platform!r} (expected one of {', '.join(PLATFORMS)})")
    matrix = load_matrix()

    def emit(data: Any, text: str) -> int:
        sys.stdout.write(json.dumps(data, indent=2) + "\n" if as_json else text)
        return 0

    if gpu is not None:
        answer = gpu_answer(matrix, gpu.strip(), platform)
        if answer is None:
            return _usage(f"unknown GPU {gpu.strip()!r}: no GPU row of compat data {matrix.version} matches "
                          "it "
                          "(`tfdoctor matrix --json` lists the GPUs it knows)")
        return emit(answer, _text_gpu(answer))
    if python is not None:
        answer = driver_python_answer(matrix, driver.strip() if driver else None, python.strip(), platform)
        return emit(answer, _text_driver_python(answer))

    if tensorflow is not None:
        rel = matrix.tf_release(tensorflow)
        if rel is None:
            known = f"{matrix.tensorflow[0].version}-{matrix.newest_tf().version}"
            message = f"unknown TensorFlow release {tensorflow!r} (compat data {matrix.version} has {known})"
            return _usage(message)
        return emit(release_needs(matrix, rel), _text_release(matrix, rel))
    if driver is not None:
        driver = driver.strip()
        answer = _driver_answer(matrix, driver, platform)
        lines = [f"{platform} driver {driver} can run these TensorFlow releases, oldest first "
                 f"(compat data {matrix.version}):"]
        for item in answer:
            how = "yes" if item["caveat"] is None else "yes, through minor-version compatibility only"
            need = item["min_driver"] or "?"
            lines.append(f"  {item['tensorflow']:<6} CUDA {item['cuda']:<7} needs >= {need:<11} {how}")
        if not answer:
            lines.append("  none: this driver is older than what every TensorFlow GPU release's CUDA needs")
        caveats = [item["caveat"] for item in answer if item["caveat"]]
        if caveats:
            lines.append(f"Caveat: {caveats[-1]}")
        return emit(answer, "\n".join(lines) + "\n")
    if cuda is not None:
        cuda = cuda.strip()
        answer = _cuda_answer(matrix, cuda)
        if answer["row"] is None:
            return _usage(f"unknown CUDA version {cuda!r} (no driver row in compat data {matrix.version})")
        floor = answer["minor_compat"]

        def line(col: str) -> str:
            text = f">= {answer['min_driver'][col] or 'N/A (none listed)'}"
            return text + (f"  (minor-version compatibility: >= {floor[col]})" if floor[col] else "")

        lines = [
            f"{answer['label']}  (compat data {matrix.version})",
            f"  Linux driver     {line('linux')}",
            f"  Windows / WSL2   {line('windows')}",
            f"  TensorFlow built with CUDA {'.'.join(map(str, release(cuda, '')[:2]))}: "
            + (", ".join(answer["tensorflow"]) or "none"),
            f"  Source           {answer['source']}",
        ]
        return emit(answer, "\n".join(lines) + "\n")
    if as_json:
        return emit(matrix.to_dict(), "")
    _table(matrix)
    return 0


def _numeric(text: str) -> bool:
    return bool(text) and len(text) < 40 and all(p.isdigit() for p in text.split("."))


def run(args: Any) -> int:
    return matrix_command(args.tensorflow, args.driver, args.cuda, args.json, args.platform,
                          python=getattr(args, "python", None), gpu=getattr(args, "gpu", None))
