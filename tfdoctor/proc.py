"""The one way tfdoctor runs an external command: argv list, timeout, bounded capture, never raises.

Every child runs in its own session and process group; when it ends (or its timeout fires) the
whole group is killed. Whatever a child prints, tfdoctor keeps at most `HEAD_BYTES` from the start
and `TAIL_BYTES` from the end of each stream, reading (and dropping) the middle as it arrives, so a
command that prints 200 MB costs a few MB of memory, never 200 MB.

`on_line` (optional) is called with each line of stdout, decoded and without its newline, as it
arrives, so that a progress display can follow a long command (the TensorFlow worker's
`TFDOCTOR-STEP` lines). It runs in a reader thread: keep it short and thread-safe; a line longer
than `LINE_LIMIT` characters is passed truncated, once; an exception it raises turns the callback
off for the rest of that command and is otherwise ignored (the capture goes on).

Grandchildren that escape the process group (`setsid`, double fork) are caught too when the
command line has called `enable_subreaper()` (Linux): tfdoctor then becomes their parent when
their own parent exits (PR_SET_CHILD_SUBREAPER), and it kills such reparented orphans that run in a
session of their own (the commands' sessions, or one they made with setsid), never a live child of
another running command nor a child in tfdoctor's own session: right after a command that was
killed or whose pipes a descendant still holds, and in `shutdown()`, which also kills every
command still running (the CLI calls it on exit).

Every command also carries `TFDOCTOR_RUN=<token of this process>` in its environment, which its
descendants inherit: `shutdown()` kills whatever still carries it, so a grandchild that left with
setsid is found even where tfdoctor is not the subreaper (a program calling the Python API).

`guarded()` wraps a run (the CLI's probing commands, `tfdoctor.check()`): a termination signal
(SIGTERM from timeout(1), Slurm or Kubernetes; SIGHUP; SIGQUIT) raises `Stopped` in the main thread,
so the run unwinds (no partial file is left) and, however it ends, everything it started is killed.
Commands asked for once it is ending are refused, so no probe thread starts one behind its back.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable

HEAD_BYTES = 1 << 20  # kept from the start of each stream
TAIL_BYTES = 4 << 20  # kept from the end of each stream
LINE_LIMIT = 65536  # characters of one line passed to on_line
_CHUNK = 65536
READER_GRACE = 2.0  # seconds to wait for the pipes to close once the child is gone

_LOCK = threading.Lock()  # held while a child is spawned, and while orphans are swept
_LIVE: set[int] = set()  # pids of the commands running now (each the leader of its own group)
_SUBREAPER = False
_CLOSED = False  # the run is ending: no new command starts
_DEADLINE: float | None = None  # time.monotonic() by which every command of the run has ended
MARK = "TFDOCTOR_RUN"  # in every command's environment: this process's token, inherited by descendants
_TOKEN = f"{os.getpid()}-{os.urandom(6).hex()}"


@dataclass(frozen=True)
class Result:
    argv: tuple[str, ...]
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    error: str | None = None  # could not start (not found, permission denied, ...)
    dropped: int = 0  # bytes of output read but not kept (the middle of a long output)
    output_limit: bool = False  # killed because it printed more than max_bytes
    memory_limit: bool = False  # killed because its resident memory passed max_rss
    limit: float | None = None  # the timeout it ran under, in seconds

    @property
    def ok(self) -> bool:
        return self.error is None and not self.timed_out and not self.output_limit and self.returncode == 0

    def describe(self) -> str:
        """Plain words for what went wrong, or "" when the command succeeded."""
        if self.error:
            return self.error
        if self.timed_out:
            limit = seconds(self.limit or self.seconds)
            return f"{self.argv[0]} did not answer within {limit} and was killed"
        if self.output_limit:
            return f"{self.argv[0]} printed far more than expected and was killed"
        if self.memory_limit:
            return f"{self.argv[0]} used more memory than it may and was killed"
        if self.returncode is not None and self.returncode < 0:
            try:
                name = signal.Signals(-self.returncode).name
            except ValueError:
                name = f"signal {-self.returncode}"
            return f"{self.argv[0]} was killed by {name}"
        if self.returncode:
            return f"{self.argv[0]} exited with status {self.returncode}"
        return ""


def seconds(value: float) -> str:
    """A duration for a sentence: "2 s", "0.5 s", "300 s"."""
    return f"{value:.0f} s" if value >= 10 or float(value).is_integer() else f"{value:.2g} s"


# --- capture ------------------------------------------------------------------------------------


class _Capture:
    """One stream: the first `head` and last `tail` bytes kept, the middle counted and dropped."""

    def __init__(self, head: int, tail: int, on_line: Callable[[str], None] | None = None) -> None:
        self.head_limit, self.tail_limit = head, tail
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.on_line = on_line
        self._partial = bytearray()
        self._skipping = False  # inside a line already passed (truncated) to on_line

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        if self.on_line is not None:
            self._lines(chunk)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > 2 * self.tail_limit:  # amortized: trim rarely, in one go
                del self.tail[: len(self.tail) - self.tail_limit]

    def _lines(self, chunk: bytes) -> None:
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            piece = chunk[start:] if nl < 0 else chunk[start:nl]
            if not self._skipping:
                self._partial += piece[: LINE_LIMIT - len(self._partial) + 1]
                if len(self._partial) > LINE_LIMIT:
                    self._emit(bytes(self._partial[:LINE_LIMIT]))
                    self._partial.clear()
                    self._skipping = True
            if nl < 0:
                return
            if not self._skipping:
                self._emit(bytes(self._partial))
            self._partial.clear()
            self._skipping = False
            start = nl + 1

    def _emit(self, line: bytes) -> None:
        callback = self.on_line
        if callback is None:
            return
        try:
            callback(line.decode("utf-8", errors="replace").rstrip("\r"))
        except Exception:  # noqa: BLE001 - a broken progress display must not break the capture
            self.on_line = None

    def finish(self) -> None:
        if self._partial and not self._skipping:
            self._emit(bytes(self._partial))
        self._partial.clear()

    @property
    def dropped(self) -> int:
        return self.total - len(self.head) - min(len(self.tail), self.tail_limit)

    def text(self) -> str:
        tail = bytes(self.tail[-self.tail_limit :]) if self.tail else b""
        head = self.head.decode("utf-8", errors="replace")
        if not self.dropped:
            return head + tail.decode("utf-8", errors="replace")
        return (
            f"{head}\n[... {self.dropped} bytes of output not kept ...]\n"
            f"{tail.decode('utf-8', errors='replace')}"
        )


def _reader(fd: int, capture: _Capture, on_total: Callable[[], None]) -> None:
    try:
        while True:
            try:
                chunk = os.read(fd, _CHUNK)
            except InterruptedError:
                continue
            except OSError:
                break
            if not chunk:
                break
            capture.feed(chunk)
            on_total()
    finally:
        capture.finish()
        try:
            os.close(fd)
        except OSError:
            pass


def _writer(fd: int, data: bytes) -> None:
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view[:_CHUNK])
            view = view[written:]
    except OSError:
        pass  # the child stopped reading: its problem, reported through its exit
    finally:
        try:
            os.close(fd)
        except OSError:
            pass


# --- process groups, orphans -----------------------------------------------------------------------


def _kill_group(pid: int) -> None:
    killpg = getattr(os, "killpg", None)  # absent on Windows
    try:
        if killpg is None:
            raise OSError("no process groups")
        killpg(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
    except OSError:
        try:
            os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
        except OSError:
            pass


def enable_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux); True when it is.

    Meant for the command line, which owns its process: a program that imports tfdoctor as a
    library keeps the default (orphans go to init), and tfdoctor then kills process groups only.
    """
    global _SUBREAPER
    if _SUBREAPER:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
            return False
    except (OSError, AttributeError):
        return False
    _SUBREAPER = True
    return True


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, session) from /proc/PID/stat, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read(4096)
    except OSError:
        return None
    fields = raw.rpartition(b")")[2].split()
    try:
        return fields[0].decode("ascii", "replace"), int(fields[1]), int(fields[3])
    except (IndexError, ValueError):
        return None


def _orphans() -> list[tuple[int, str]]:
    """Processes reparented to this one that live in a session of their own: (pid, state)."""
    me, found = os.getpid(), []
    try:
        my_session = os.getsid(0)
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        pid = int(name)
        if pid in _LIVE:
            continue
        stat = _stat(pid)
        if stat is None or stat[1] != me or stat[2] == my_session:
            continue
        found.append((pid, stat[0]))
    return found


def _reap(pid: int) -> None:
    for _ in range(200):  # at most about a second: a SIGKILLed process dies at once
        try:
            done, _status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        except OSError:
            return
        if done:
            return
        time.sleep(0.005)


def sweep_orphans(group: int | None = None, limit: float = 1.0) -> int:
    """Kill and reap the orphans reparented to tfdoctor (see the module docstring); with `group`,
    go on until that process group is empty too (its members' own children are reparented as they
    die). Returns how many were killed. Does nothing unless `enable_subreaper()` succeeded."""
    if not _SUBREAPER:
        return 0
    killed = 0
    deadline = time.monotonic() + limit
    while True:
        with _LOCK:
            orphans = _orphans()
            for pid, state in orphans:
                if state != "Z":
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                    killed += 1
        for pid, _state in orphans:
            _reap(pid)
        members = False
        if group is not None:
            try:
                os.killpg(group, 0)
                members = True
            except OSError:
                members = False
        if (not orphans and not members) or time.monotonic() > deadline:
            return killed
        time.sleep(0.005)


def _marked() -> list[int]:
    """Processes (other than this one) whose environment carries this process's MARK token."""
    needle = f"{MARK}={_TOKEN}".encode()
    me, found = os.getpid(), []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                environ = fh.read(1 << 20)
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(int(name))
    return found


def shutdown() -> None:
    """Kill every command still running (their whole groups), the orphans left behind and every
    process that carries this process's MARK (one whose parent was still dying during the sweep,
    or that went to init where this process is not the subreaper)."""
    with _LOCK:
        live = list(_LIVE)
    for pid in live:
        _kill_group(pid)
    sweep_orphans(limit=0.5)
    for _ in range(20):  # a marked process may fork while it is killed: go on until none is left
        marked = _marked()
        if not marked:
            break
        for pid in marked:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        sweep_orphans(limit=0.1)
        time.sleep(0.01)


class Stopped(BaseException):
    """A termination signal arrived during a guarded run (see `guarded`)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        try:
            return signal.Signals(self.signum).name
        except ValueError:
            return f"signal {self.signum}"


STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, n))
# (signal, the disposition guarded() takes over): SIGINT while Python's own handler raises KeyboardInterrupt
_DEFAULTS = ((signal.SIGINT, signal.default_int_handler), *((n, signal.SIG_DFL) for n in STOP_SIGNALS))


def _raise(signum: int) -> None:
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Stopped(signum)


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """A run: SIGTERM, SIGHUP and SIGQUIT raise `Stopped` in it, SIGINT KeyboardInterrupt (where
    the program leaves them at their default: a handler or SIG_IGN it set keeps working), and however
    the run ends (return, exception, KeyboardInterrupt, Stopped) every command it started, and what
    they left, is killed; a signal during that cleanup waits for it. Handlers can only be set from the
    main thread; elsewhere the cleanup still happens."""
    global _CLOSED
    ending: list[int] = []
    previous: dict[int, Any] = {}

    def stop(signum: int, frame: Any) -> None:
        if ending:  # already on the way out: the cleanup finishes first
            ending.append(signum)
            return
        _raise(signum)

    with _LOCK:
        _CLOSED = False
    if threading.current_thread() is threading.main_thread():
        for signum, default in _DEFAULTS:
            if signal.getsignal(signum) == default:
                previous[signum] = signal.signal(signum, stop)
    stopped = False
    try:
        yield
    except Stopped:
        stopped = True  # the process ends: its probes' threads may not start anything any more
        raise
    finally:
        ending.append(0)
        with _LOCK:
            _CLOSED = True
        try:
            shutdown()
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            late = [n for n in ending if n]
            with _LOCK:
                _CLOSED = stopped or bool(late)
    if late:
        _raise(late[0])


def die_of(signum: int) -> None:
    """End this process as the signal's default action would (after `guarded` cleaned up)."""
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    time.sleep(1)
    os._exit(128 + signum)


@contextlib.contextmanager
def bounded(seconds: float) -> Iterator[None]:
    """One time bound for everything run inside: each command's own timeout is cut to what is
    left of it (`--timeout` bounds the whole run, hung tools included)."""
    global _DEADLINE
    previous = _DEADLINE
    _DEADLINE = time.monotonic() + seconds
    if previous is not None:
        _DEADLINE = min(previous, _DEADLINE)
    try:
        yield
    finally:
        _DEADLINE = previous


def left(seconds: float) -> float:
    """`seconds`, or less if the run's bound (see `bounded`) comes sooner."""
    if _DEADLINE is None:
        return seconds
    return max(0.0, min(seconds, _DEADLINE - time.monotonic()))


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _resident(pid: int) -> int | None:
    """Bytes of memory a process holds (resident set), or None once it is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return int(fh.read(256).split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return None


def _watch_memory(proc: subprocess.Popen, limit: int, tripped: threading.Event) -> None:
    while proc.poll() is None:
        used = _resident(proc.pid)
        if used is not None and used > limit:
            tripped.set()
            _kill_group(proc.pid)
            return
        time.sleep(0.2)


# --- run ----------------------------------------------------------------------------------------------


def run(
    argv: Sequence[str],
    timeout: float,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    cwd: str | None = None,
    on_line: Callable[[str], None] | None = None,
    max_bytes: int | None = None,
    head_bytes: int = HEAD_BYTES,
    tail_bytes: int = TAIL_BYTES,
    max_rss: int | None = None,
) -> Result:
    """Run argv (no shell) in its own session; on exit or timeout (cut to the run's bound, see
    `bounded`) kill the whole process group.

    stdout and stderr keep at most head_bytes + tail_bytes each (see the module docstring);
    `on_line` sees each stdout line as it arrives; `max_bytes` kills the command once it has
    printed that much in all (for a command whose answer is short, e.g. `python -c ...`);
    `max_rss` kills it once its resident memory passes that many bytes (looked at a few times a
    second: a GPU's own memory is not host memory, so unlike RLIMIT_AS this never breaks CUDA).
    """
    argv = tuple(str(a) for a in argv)
    start = time.monotonic()
    timeout = left(timeout)
    env = {**(os.environ if env is None else env), MARK: _TOKEN}
    try:
        with _LOCK:  # registered before any sweep can see it
            if _CLOSED:
                return Result(argv, None, "", "", 0.0, error=f"{argv[0]} not started: tfdoctor is stopping")
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                cwd=cwd,
                start_new_session=True,
            )
            _LIVE.add(proc.pid)
    except FileNotFoundError:
        return Result(argv, None, "", "", 0.0, error=f"{argv[0]} not found")
    except PermissionError:
        return Result(argv, None, "", "", 0.0, error=f"{argv[0]} is not executable (permission denied)")
    except (OSError, ValueError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        return Result(argv, None, "", "", 0.0, error=f"{argv[0]} could not be started: {why}")

    out = _Capture(head_bytes, tail_bytes, on_line)
    err = _Capture(head_bytes, tail_bytes)
    over = threading.Event()

    def check_total() -> None:
        if max_bytes is not None and not over.is_set() and out.total + err.total > max_bytes:
            over.set()
            _kill_group(proc.pid)

    threads = []
    assert proc.stdout is not None and proc.stderr is not None
    for stream, capture in ((proc.stdout, out), (proc.stderr, err)):
        fd = os.dup(stream.fileno())
        stream.close()
        t = threading.Thread(target=_reader, args=(fd, capture, check_total), daemon=True)
        t.start()
        threads.append(t)
    if proc.stdin is not None:
        fd = os.dup(proc.stdin.fileno())
        proc.stdin.close()
        threading.Thread(target=_writer, args=(fd, (stdin or "").encode()), daemon=True).start()
    too_big = threading.Event()
    if max_rss is not None:
        threading.Thread(target=_watch_memory, args=(proc, max_rss, too_big), daemon=True).start()

    timed_out = False
    try:
        proc.wait(timeout=max(0.0, timeout))
    except subprocess.TimeoutExpired:
        timed_out = not over.is_set() and not too_big.is_set()
        _kill_group(proc.pid)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass  # unkillable (D state): give up on it, the run goes on
    finally:
        # Children that outlive their parent (daemons, stuck helpers) go with it.
        _kill_group(proc.pid)
        with _LOCK:
            _LIVE.discard(proc.pid)
    # Orphans (a grandchild that left the group with setsid) are swept now when something is amiss:
    # a kill, or pipes a descendant still holds open; else at exit (shutdown), which spares every
    # command a scan of /proc.
    if timed_out or over.is_set() or too_big.is_set():
        sweep_orphans(group=proc.pid)
    for t in threads:
        t.join(0.05)
    if any(t.is_alive() for t in threads):
        sweep_orphans(group=proc.pid)
    grace = time.monotonic() + READER_GRACE
    for t in threads:
        t.join(max(0.0, grace - time.monotonic()))
    return Result(
        argv,
        None if timed_out else proc.returncode,
        out.text(),
        err.text(),
        time.monotonic() - start,
        timed_out=timed_out,
        dropped=out.dropped + err.dropped,
        output_limit=over.is_set(),
        memory_limit=too_big.is_set(),
        limit=timeout,
    )


# --- Python snippets -------------------------------------------------------------------------------


def _in_process_ok(python: str, env: Mapping[str, str] | None) -> bool:
    """Whether `python -c CODE` would see what this process sees: the same interpreter (path, not
    real path: a venv's python links to its base), the same environment and start-up flags, and a
    first sys.path entry (the script's folder; a fresh `-c` has a neutral folder there) holding
    nothing a snippet looks for."""
    if os.path.abspath(python) != os.path.abspath(sys.executable or "") or not sys.executable:
        return False
    if env is not None and dict(env) != dict(os.environ):
        return False
    flags = sys.flags
    if flags.isolated or flags.no_site or flags.ignore_environment or flags.no_user_site:
        return False
    if getattr(flags, "safe_path", False):
        return False
    return not any(_holds_packages(entry) for entry in _extra_path_entries())


def _extra_path_entries() -> list[str]:
    """sys.path entries a fresh `python -c` in a neutral folder would not have: the script's or test
    runner's folders (not under the interpreter's prefixes, not on PYTHONPATH)."""
    prefixes = {os.path.abspath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix) if p}
    listed = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    extra = []
    for entry in sys.path:
        path = os.path.abspath(entry or ".")
        if path in listed or any(path == p or path.startswith(p + os.sep) for p in prefixes):
            continue
        extra.append(path)
    return extra


# what the static snippets report (probes/tensorflow.py, probes/libraries.py), as folder-name prefixes
_SNIPPET_NAMES = ("tensorflow", "nvidia", "tf_nightly", "tf-nightly", "keras", "tf_keras", "tf-keras",
                  "numpy", "protobuf", "intel_tensorflow", "intel-tensorflow")


def _holds_packages(folder: str) -> bool:
    """Whether a folder holds anything the static snippets look for (TensorFlow, NVIDIA wheels, Keras,
    NumPy, protobuf: packages or their metadata) or a .pth / .egg-link that adds paths. Another
    project's own metadata (a checkout's `x.egg-info`) changes nothing they report."""
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name.lower()
                if name.startswith(_SNIPPET_NAMES) or name.endswith((".egg-link", ".pth")):
                    return True
    except OSError:
        pass
    return False


def _fast_distributions(**kwargs: object) -> list[object]:
    from tfdoctor import installed

    found = installed.distributions() if not kwargs else None
    if found is not None:
        return found
    from importlib import metadata

    return list(metadata.distributions(**kwargs))  # type: ignore[arg-type]


def _snippet_import(name: str, globals_: object = None, locals_: object = None,
                    fromlist: Sequence[str] = (), level: int = 0) -> object:
    """`from importlib import metadata` in a snippet run here gets the folder-name reader."""
    import builtins
    import types

    if name == "importlib" and level == 0 and fromlist and "metadata" in fromlist:
        others = tuple(f for f in fromlist if f != "metadata")
        module = builtins.__import__(name, globals_, locals_, others, level)
        shim = types.SimpleNamespace(distributions=_fast_distributions)
        facade = types.SimpleNamespace(**{k: getattr(module, k) for k in fromlist if hasattr(module, k)})
        facade.metadata = shim
        return facade
    return builtins.__import__(name, globals_, locals_, fromlist, level)  # type: ignore[arg-type]


def run_python(
    python: str,
    code: str,
    timeout: float,
    env: Mapping[str, str] | None = None,
    in_process: bool = True,
) -> Result:
    """`python -c code` in a neutral folder, as a Result; when `python` is this very interpreter
    (and nothing would differ, see `_in_process_ok`) the code runs here instead, without a child
    process: what it prints with print() becomes stdout, and `importlib.metadata.distributions()`
    reads names and versions off the `.dist-info` folder names (a hundred METADATA files parsed
    cost more than the rest of a quick check). The code must be a stdlib-only snippet that reads
    and prints (the static TensorFlow and pip-wheel probes); should it raise here, it runs in a
    child after all."""
    import tempfile

    if in_process and _in_process_ok(python, env):
        import builtins
        import io

        start = time.monotonic()
        out = io.StringIO()

        def _print(*values: object, sep: str | None = " ", end: str | None = "\n", **_: object) -> None:
            out.write((" " if sep is None else sep).join(map(str, values)) + ("\n" if end is None else end))

        namespace = {
            "__name__": "__tfdoctor__",
            "__builtins__": {**vars(builtins), "__import__": _snippet_import, "print": _print},
        }
        try:
            exec(compile(code, "<tfdoctor snippet>", "exec"), namespace)
        except Exception:  # noqa: BLE001 - the child process will say what is wrong, in its words
            pass
        else:
            return Result((python, "-c", "<snippet>"), 0, out.getvalue(), "", time.monotonic() - start)
    return run([python, "-c", code], timeout=timeout, env=env, cwd=tempfile.gettempdir())


def trim(text: str, limit: int = 20_000) -> str:
    """Keep the head and tail of a long capture so a report stays a sane size."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters trimmed ...]\n{text[-half:]}"
