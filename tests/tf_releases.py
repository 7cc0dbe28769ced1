"""Recorded real outputs of every TensorFlow release 2.12 -> 2.21 (tests/data/tf-releases/), as facts.

`load_release(name)` replays one recording through the probes' own parsers and returns the full
facts dict the pipeline would produce for that venv on the recording machine (x86-64 Linux, no
GPU, no NVIDIA driver): system, nvml, nvidia_smi, nvcc, libraries, collective and options as the
static probes reported them (probes.json), tensorflow from the wheel's build_info.py, `readelf -d`
and the installed distributions, runtime from the worker's raw stdout and stderr. Use it to assert
verdicts per release:

    from tf_releases import load_release, release_names
    facts = load_release("tf-2.15.1")             # or load_release("tf-2.15.1", quick=True)
    findings = run_checks(facts, matrix)

Each folder's README.md says how it was recorded (bench/bench_tf_versions.py --record).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tfdoctor import proc
from tfdoctor.probes import runtime as rprobe
from tfdoctor.probes import tensorflow as tfp

RELEASES = Path(__file__).resolve().parent / "data" / "tf-releases"
# readelf-<file name>.txt -> the library's path under the tensorflow package dir
READELF_FILES = {Path(rel).name: rel for rel in tfp.NATIVE_LIBRARIES}
QUICK_RUNTIME = {"ran": False, "skipped": "--quick: the TensorFlow worker was not run"}


def release_names() -> list[str]:
    return sorted(p.name for p in RELEASES.iterdir() if (p / "worker.stdout").is_file())


def parse_readelf(text: str) -> dict[str, Any]:
    """soname, needed, runpath, rpath as `readelf -d` printed them."""
    out: dict[str, Any] = {"soname": None, "needed": [], "runpath": None, "rpath": None}
    for line in text.splitlines():
        m = re.search(r"\((NEEDED|SONAME|RUNPATH|RPATH)\)\s+[^\[]*\[(.*)\]\s*$", line)
        if not m:
            continue
        tag, value = m.groups()
        if tag == "NEEDED":
            out["needed"].append(value)
        elif tag == "SONAME":
            out["soname"] = value
        else:
            out[tag.lower()] = [p for p in value.split(":") if p]
    return out


def parse_freeze(text: str) -> list[list[str]]:
    """[[name, version]] from `pip list --format=freeze`."""
    return [line.split("==", 1) for line in text.splitlines() if "==" in line]


def native_libraries(folder: Path) -> list[dict[str, Any]]:
    """What tfp.read_native_libraries would have read, rebuilt from the readelf outputs."""
    libs = []
    for rel in tfp.NATIVE_LIBRARIES:
        path = folder / f"readelf-{Path(rel).name}.txt"
        if path.is_file():
            dyn = parse_readelf(path.read_text())
            libs.append({"file": rel, "soname": dyn["soname"], "runpath": _unique(dyn["runpath"]),
                         "rpath": _unique(dyn["rpath"]), "error": None})
    return libs


def _unique(items: list[str] | None) -> list[str] | None:
    return list(dict.fromkeys(items)) if items is not None else None


def worker_result(name: str) -> dict[str, Any]:
    for line in (RELEASES / name / "worker.stdout").read_text().splitlines():
        if line.startswith(rprobe.RESULT):
            return json.loads(line[len(rprobe.RESULT):])
    return {}


def load_release(name: str, quick: bool = False) -> dict[str, Any]:
    folder = RELEASES / name
    facts = json.loads((folder / "probes.json").read_text())
    # Recorded before the system probe read the PCI bus: the recording machine has no NVIDIA device
    # there (its /sys/bus/pci/devices hold virtio 0x1af4 and one Intel 0x8086 function only).
    facts["system"].setdefault("pci_nvidia", [])
    result = worker_result(name)
    python = result.get("python") or f"/work/venvs/{name}/bin/python"
    version = result.get("python_version") or "3.11.7"
    site = Path(python).parent.parent / "lib" / f"python{'.'.join(version.split('.')[:2])}" / "site-packages"
    data = {
        "python": python,
        "python_version": version,
        "distributions": parse_freeze((folder / "distributions.txt").read_text()),
        "location": str(site / "tensorflow"),
        "namespace_package": False,
        "build_info_text": (folder / "build_info.py.txt").read_text(),
    }
    facts["tensorflow"] = tfp.static_facts(python, data, native_libraries(folder))
    if quick:
        facts["runtime"] = dict(QUICK_RUNTIME)
        return facts
    exit_facts = json.loads((folder / "worker.exit.json").read_text())
    res = proc.Result((python, str(rprobe.WORKER)), exit_facts["returncode"],
                      (folder / "worker.stdout").read_text(), (folder / "worker.stderr").read_text(),
                      exit_facts["seconds"])
    facts["runtime"] = rprobe.facts_from(res, python, 300.0)
    facts["runtime"]["worker"] = str(rprobe.WORKER)
    return facts
