"""A Python environment's state on disk, for `tfdoctor fix`: what the environment is (its prefix, venv
or conda), the snapshot taken before anything changes, its exact restore, and the lock that keeps two
`fix` runs on one environment apart.

Everything lives under PREFIX/.tfdoctor/: `lock`, and `snapshot/` with `tree/` (a mirror of the
prefix), `freeze.txt` (the exact installed distributions) and `about.json`. The mirror holds hard
links to the prefix's files where the file system allows (pip replaces a file, never rewrites it in
place, so a link keeps the old content at no cost) and copies of bin/, Scripts/ and etc/ (small, and
written by other tools too). Restoring makes the prefix equal to the mirror again: files that appeared
are removed, files that were replaced or removed are put back (by rename, atomically), links and
folders likewise.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from dataclasses import dataclass
from pathlib import Path

STATE = ".tfdoctor"
COPIED = ("bin", "Scripts", "etc")  # copied, not linked
_TARGET_SNIPPET = (
    "import json, os, sys, sysconfig; p = sysconfig.get_paths(); print(json.dumps({"
    "'prefix': sys.prefix, 'base_prefix': getattr(sys, 'base_prefix', sys.prefix), "
    "'executable': sys.executable, 'purelib': p.get('purelib'), 'platlib': p.get('platlib'), "
    "'version': '%d.%d' % sys.version_info[:2]}))"
)


class EnvError(Exception):
    """The environment cannot be changed safely (one line for the user)."""


@dataclass(frozen=True)
class Target:
    python: str  # the interpreter as given (absolute)
    prefix: Path
    conda: bool
    purelib: Path

    @property
    def state(self) -> Path:
        return self.prefix / STATE

    @property
    def hook_file(self) -> Path:
        """Where `fix` writes activation lines: a conda env's activate.d, a venv's activate script."""
        if self.conda:
            return self.prefix / "etc" / "conda" / "activate.d" / "tfdoctor.sh"
        return self.prefix / ("Scripts" if os.name == "nt" else "bin") / "activate"


def inspect(python: str) -> Target:
    """The environment `python` runs in; EnvError when it is not one tfdoctor may change: a system
    interpreter (not a venv or conda env) or a prefix this user cannot write."""
    from tfdoctor import proc

    res = proc.run([python, "-c", _TARGET_SNIPPET], timeout=30, max_bytes=65536)
    try:
        info = json.loads(res.stdout.strip().splitlines()[-1]) if res.ok else None
    except (ValueError, IndexError):
        info = None
    if not isinstance(info, dict) or not isinstance(info.get("prefix"), str):
        why = res.describe() or "no answer"
        raise EnvError(f"tfdoctor: {python} did not say where its environment is ({why})")
    prefix = Path(info["prefix"]).resolve()
    conda = (prefix / "conda-meta").is_dir()
    venv = (prefix / "pyvenv.cfg").is_file() and info.get("prefix") != info.get("base_prefix")
    if not (venv or conda):
        raise EnvError(
            f"tfdoctor: {prefix} is the system's Python, not a virtual environment or conda env: fix changes"
            " only an environment of its own (create one: python3 -m venv ENV)"
        )
    if not os.access(prefix, os.W_OK):
        raise EnvError(f"tfdoctor: {prefix} is not writable by this user (fix never uses sudo)")
    return Target(python, prefix, conda, Path(str(info.get("purelib") or prefix)))


# --- the lock -------------------------------------------------------------------------------------


class Locked(EnvError):
    pass


class Lock:
    """An exclusive, non-blocking lock on PREFIX/.tfdoctor/lock, released when the process ends."""

    def __init__(self, target: Target) -> None:
        self.path = target.state / "lock"
        self.fd: int | None = None

    def __enter__(self) -> Lock:
        self.path.parent.mkdir(exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # Windows: msvcrt locks a byte range
            import msvcrt

            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
            except OSError:
                os.close(fd)
                raise Locked(self._busy()) from None
        except OSError:
            os.close(fd)
            raise Locked(self._busy()) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd
        return self

    def _busy(self) -> str:
        try:
            pid = self.path.read_text().strip()[:20]
        except OSError:
            pid = "?"
        return (f"tfdoctor: another `tfdoctor fix` (pid {pid or '?'}) is changing this environment;"
                " try again when it has finished")

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


# --- snapshot and restore -------------------------------------------------------------------------


def _copied(rel: Path) -> bool:
    return bool(rel.parts) and rel.parts[0] in COPIED


def _place(src: Path, dst: Path, copy: bool) -> None:
    """dst becomes a hard link to (or a copy of) src, replacing what was there atomically."""
    tmp = dst.parent / f".{dst.name}.tfdoctor-{os.getpid()}"
    if tmp.exists() or tmp.is_symlink():
        tmp.unlink()
    if copy:
        shutil.copy2(src, tmp, follow_symlinks=False)
    else:
        try:
            os.link(src, tmp)
        except OSError:
            shutil.copy2(src, tmp, follow_symlinks=False)
    os.replace(tmp, dst)


def _walk(top: Path, skip_state: bool) -> list[tuple[Path, os.stat_result]]:
    """(path relative to top, lstat) of everything under top, parents before children; symlinks are
    not followed; the state folder is left out."""
    out: list[tuple[Path, os.stat_result]] = []
    stack = [Path()]
    while stack:
        rel = stack.pop()
        try:
            entries = sorted(os.scandir(top / rel), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            child = rel / entry.name
            if skip_state and child == Path(STATE):
                continue
            st = entry.stat(follow_symlinks=False)
            out.append((child, st))
            if stat.S_ISDIR(st.st_mode):
                stack.append(child)
    return out


def snapshot(target: Target, freeze: str, about: dict[str, object]) -> Path:
    """Mirror the prefix into PREFIX/.tfdoctor/snapshot (replacing the previous one) and record the
    installed distributions."""
    state = target.state
    state.mkdir(exist_ok=True)
    new = state / "snapshot.new"
    if new.exists():
        shutil.rmtree(new)
    tree = new / "tree"
    tree.mkdir(parents=True)
    for rel, st in _walk(target.prefix, skip_state=True):
        src, dst = target.prefix / rel, tree / rel
        if stat.S_ISLNK(st.st_mode):
            os.symlink(os.readlink(src), dst)
        elif stat.S_ISDIR(st.st_mode):
            dst.mkdir()
            shutil.copymode(src, dst)
        elif stat.S_ISREG(st.st_mode):
            _place(src, dst, _copied(rel))
    (new / "freeze.txt").write_text(freeze, encoding="utf-8")
    (new / "about.json").write_text(json.dumps({**about, "created": time.time()}), encoding="utf-8")
    old = state / "snapshot"
    if old.exists():
        shutil.rmtree(old)
    os.replace(new, old)
    return old


def last_snapshot(target: Target) -> Path | None:
    snap = target.state / "snapshot"
    return snap if (snap / "tree").is_dir() and (snap / "freeze.txt").is_file() else None


def _same(a: os.stat_result, b: os.stat_result, pa: Path, pb: Path, copied: bool) -> bool:
    if (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino):
        return True
    if not copied or a.st_size != b.st_size or stat.S_IMODE(a.st_mode) != stat.S_IMODE(b.st_mode):
        return False
    try:
        return pa.read_bytes() == pb.read_bytes()
    except OSError:
        return False


def _kind(st: os.stat_result) -> str:
    return "link" if stat.S_ISLNK(st.st_mode) else "dir" if stat.S_ISDIR(st.st_mode) else "file"


def restore(target: Target, snap: Path) -> int:
    """Make the prefix equal to the snapshot's mirror; returns how many paths changed."""
    tree = snap / "tree"
    want = dict(_walk(tree, skip_state=False))
    changed = 0
    have = _walk(target.prefix, skip_state=True)
    # what is not in the snapshot (or is another kind of thing) goes, children before parents
    for rel, st in reversed(have):
        old = want.get(rel)
        if old is not None and _kind(old) == _kind(st):
            continue
        path = target.prefix / rel
        if not path.is_symlink() and path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        elif path.exists() or path.is_symlink():
            path.unlink()
        changed += 1
    for rel, st in want.items():  # parents come first
        src, dst = tree / rel, target.prefix / rel
        try:
            cur = os.lstat(dst)
        except FileNotFoundError:
            cur = None
        kind = _kind(st)
        if kind == "dir":
            if cur is None:
                dst.mkdir()
                changed += 1
            if cur is None or stat.S_IMODE(cur.st_mode) != stat.S_IMODE(st.st_mode):
                shutil.copymode(src, dst)
        elif kind == "link":
            if cur is None or os.readlink(dst) != os.readlink(src):
                if cur is not None:
                    dst.unlink()
                os.symlink(os.readlink(src), dst)
                changed += 1
        elif cur is None or not _same(cur, st, dst, src, _copied(rel)):
            _place(src, dst, _copied(rel))
            changed += 1
    return changed


def freeze(python: str) -> str:
    """`pip freeze --all` of the target: the exact installed distributions ("" when pip is absent)."""
    from tfdoctor import proc

    res = proc.run([python, "-m", "pip", "freeze", "--all", "--disable-pip-version-check"], timeout=120,
                   env={**os.environ, "PIP_NO_INPUT": "1"})
    return res.stdout if res.ok else ""
