"""`tfdoctor matrix`: print the bundled compatibility matrix, or answer one question about it."""

from __future__ import annotations

import json
import sys
from typing import Any

from tfdoctor.compat import PLATFORMS, Matrix, TFRelease, load_matrix
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


def matrix_command(tensorflow: str | None, driver: str | None, cuda: str | None, as_json: bool,
                   platform: str = "linux") -> int:
    """`tfdoctor matrix`: print the matrix, or answer one question about it. Exit 0, or 2 on bad input.

    --driver lists, oldest first, the releases the driver can run; `platform` picks the driver column
    (linux, or wsl2/windows for a Windows host driver).
    """
    options = (("--tensorflow", tensorflow), ("--driver", driver), ("--cuda", cuda))
    given = [name for name, value in options if value is not None]
    if len(given) > 1:
        return _usage(f"matrix: give one of --tensorflow, --driver, --cuda (got {' and '.join(given)})")
    for name, value in options:
        problem = _bad_option(name, value)
        if problem:
            return _usage(problem)
    if platform not in PLATFORMS:
        return _usage(f"unknown platform {platform!r} (expected one of {', '.join(PLATFORMS)})")
    matrix = load_matrix()

    def emit(data: Any, text: str) -> int:
        sys.stdout.write(json.dumps(data, indent=2) + "\n" if as_json else text)
        return 0

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
    return matrix_command(args.tensorflow, args.driver, args.cuda, args.json, args.platform)
