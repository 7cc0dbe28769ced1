"""Installed distributions of this interpreter, read off their `NAME-VERSION.dist-info` folders.

`importlib.metadata` parses every METADATA file (and imports the email package to do it); for the
name and version of each distribution on sys.path, the folder names that installers write say the
same, at a small fraction of the cost of a quick check. An .egg-info, or a folder name without a
version, is read from the Name: and Version: lines heading its metadata; a zip on sys.path is
handed to `importlib.metadata` itself.
"""

from __future__ import annotations

import os
import sys
from typing import Any


class FolderDistribution:
    """One installed distribution: name and version from its folder, the rest from the real one."""

    def __init__(self, path: str, name: str, version: str) -> None:
        self.path, self._name, self._version = path, name, version
        self._real: Any = None

    @property
    def version(self) -> str:
        return self._version

    @property
    def name(self) -> str:
        return self._name

    def real(self) -> Any:
        if self._real is None:
            from importlib.metadata import PathDistribution
            from pathlib import Path

            self._real = PathDistribution(Path(self.path))
        return self._real

    @property
    def metadata(self) -> Any:
        dist = self

        class _Meta:
            def get(self, key: str, default: Any = None) -> Any:
                if key == "Name":
                    return dist._name
                if key == "Version":
                    return dist._version
                return dist.real().metadata.get(key, default)

            def __getitem__(self, key: str) -> Any:
                return self.get(key)

        return _Meta()

    def record_files(self) -> list[str]:
        """Paths the RECORD file lists, relative to the folder holding the .dist-info."""
        try:
            with open(os.path.join(self.path, "RECORD"), encoding="utf-8", errors="replace") as fh:
                lines = fh.read(4 << 20).splitlines()
        except OSError:
            return []
        out = []
        for line in lines:
            if line.startswith('"'):
                import csv

                out.extend(row[0] for row in csv.reader([line]) if row)
            elif line:
                out.append(line.split(",", 1)[0])
        return out

    @property
    def files(self) -> list[str]:
        """What `importlib.metadata`'s `files` lists, as plain relative paths (no email parser)."""
        return self.record_files()

    def locate_file(self, rel: Any) -> str:
        return os.path.join(os.path.dirname(self.path), str(rel))

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.real(), attr)


def name_version(folder: str) -> tuple[str, str] | None:
    """("tf_keras", "2.21.0") from "tf_keras-2.21.0.dist-info"; None for any other folder name."""
    stem, dot, ext = os.path.basename(folder).rpartition(".")
    name, dash, version = stem.partition("-")
    if ext.lower() == "dist-info" and dot and dash and name and version and "-" not in version:
        return name, version
    return None


_SEEN: dict[tuple[str, ...], Any] = {}
_MISSING = object()


def distributions(paths: list[str] | None = None) -> list[Any] | None:
    """Every distribution on `paths` (default sys.path), in sys.path order as importlib.metadata
    yields them; None when a path entry needs importlib.metadata itself (a zip file, unreadable
    metadata).
    Read once per list of paths and process (a run asks three times: TensorFlow, pip wheels, NVML)."""
    entries = tuple(sys.path if paths is None else paths)
    key = entries + tuple(str(_mtime(e)) for e in entries)  # an install since changes a folder's mtime
    found = _SEEN.get(key, _MISSING)
    if found is _MISSING:  # probes ask from several threads: compute, then publish (a race only rescans)
        found = _scan(entries)
        _SEEN.clear()
        _SEEN[key] = found
    return None if found is None else list(found)


def _mtime(entry: str) -> int:
    try:
        return os.stat(entry or ".").st_mtime_ns
    except OSError:
        return -1


def _scan(paths: tuple[str, ...]) -> list[Any] | None:
    out: list[Any] = []
    for entry in paths:
        root = entry or "."
        try:
            names = os.listdir(root)
        except NotADirectoryError:
            return None  # a zip or egg file on sys.path
        except OSError:
            continue
        for child in names:
            low = child.lower()
            if not low.endswith((".dist-info", ".egg-info")):
                continue
            path = os.path.join(root, child)
            found = name_version(child) or _header(path)
            if found is None:
                return None
            out.append(FolderDistribution(path, *found))
    return out


def _header(path: str) -> tuple[str, str] | None:
    """(name, version) from the Name: and Version: lines heading a METADATA / PKG-INFO file (an
    .egg-info folder or file, a .dist-info whose folder name has no version)."""
    for candidate in (os.path.join(path, "METADATA"), os.path.join(path, "PKG-INFO"), path):
        try:
            with open(candidate, encoding="utf-8", errors="replace") as fh:
                head = fh.read(8192)
        except OSError:
            continue
        fields = {}
        for line in head.splitlines():
            if not line.strip():
                break  # the headers end at the first blank line
            key, colon, value = line.partition(":")
            if colon and key in ("Name", "Version") and key not in fields:
                fields[key] = value.strip()
        if fields.get("Name") and fields.get("Version"):
            return fields["Name"], fields["Version"]
    return None


def normalize(name: str) -> str:
    """PEP 503: "Nvidia_ML.py" -> "nvidia-ml-py"."""
    out, dash = [], False
    for ch in name.lower():
        if ch in "-_.":
            dash = True
            continue
        if dash and out:
            out.append("-")
        dash = False
        out.append(ch)
    return "".join(out)
