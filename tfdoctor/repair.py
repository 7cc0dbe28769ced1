"""`tfdoctor fix`: check, show the plan for the root causes, snapshot, apply, check again.

The targets are the failures and warnings whose plan has something tfdoctor can run (pip in the
target environment, a line in its activation script) and whose cause, if any, is not itself such a
finding: on a machine without a GPU, a missing cuDNN wheel is explained by the absent driver, yet it is
this environment's own defect, and the only part `fix` can repair. Everything else in a plan (a
driver, a container flag, WSL2, a reboot, a setting to export) is printed, never run.

Safety: only the target environment's prefix changes (venv or conda env; never the system's Python,
never sudo); every runnable action is checked before anything runs (`refusal`); a plan that would
change TensorFlow's version is refused without `allow_tensorflow_change`, and the installed version is
compared again after applying; a lock keeps a second `fix` on the same environment out; a failed step,
Ctrl-C or SIGTERM restores the snapshot; `undo` restores the last snapshot exactly.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfdoctor import envstate as es
from tfdoctor.checks.tensorflow import TF_DISTS
from tfdoctor.model import Finding, Report, Status
from tfdoctor.plan import Action, Plan

PIP_TIMEOUT = 1800.0  # seconds for one pip step (a TensorFlow wheel over a slow link)
PIP_FLAGS = {"install": {"--upgrade", "-U", "--force-reinstall", "--no-deps"}, "uninstall": {"-y", "--yes"}}
HOOK_BEGIN = "# >>> tfdoctor fix >>>"
HOOK_END = "# <<< tfdoctor fix <<<"
_ABS_PATH = re.compile(r"(?<![\w$])/[^\s'\":;()|&<>`]*")


class Interrupted(Exception):
    """SIGINT or SIGTERM arrived while the environment was being changed."""


@dataclass
class Result:
    """What `tfdoctor fix` did: exit code, the targets before and after, and every message shown."""

    exit_code: int
    before: Report | None = None
    after: Report | None = None
    targets: list[Finding] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    gone: dict[str, bool] = field(default_factory=dict)  # target id -> gone after the repair
    restored: bool = False
    messages: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


# --- what to repair -------------------------------------------------------------------------------


def targets(report: Report) -> list[Finding]:
    """The findings `fix` repairs: root causes (warn or fail) whose plan has something to run.

    A finding explained only by the absent GPU (`driver.missing` on a machine with no NVIDIA GPU) is
    one too when the environment already holds NVIDIA wheels: a GPU install, broken, that fix can
    complete; on a plain CPU install fix does not download a CUDA stack for a GPU that is not there.
    A finding another explains otherwise waits for its cause.
    """
    from tfdoctor import facts as fc

    gpu_install = any(name.startswith("nvidia-") for name in fc.distributions(report.facts))
    moot = fc.no_gpu_attached(report.facts) and gpu_install
    out: list[Finding] = []
    for f in sorted(report.findings, key=lambda f: -f.status):
        root = f.caused_by is None or (moot and f.caused_by == "driver.missing")
        if f.status >= Status.WARN and f.plan and f.plan.runnable and root and all(f.id != t.id for t in out):
            out.append(f)
    return out


def planned(found: list[Finding]) -> list[Finding]:
    """The targets whose plan runs: a target the catalogue explains by another target follows from it
    (a CPU-only build because tensorflow-cpu sits beside tensorflow) and is repaired by that one's."""
    from tfdoctor.catalogue import explained_by

    ids = {t.id for t in found}
    return [t for t in found if not set(explained_by(t.id)) & (ids - {t.id})]


def actions_of(found: list[Finding]) -> list[Action]:
    """The runnable actions of these findings, each finding's as a whole (an uninstall and the
    install that follows it stay together), a plan identical to an earlier one once."""
    out: list[Action] = []
    seen: list[tuple[Action, ...]] = []
    for f in found:
        steps = f.plan.runnable if f.plan else ()
        if steps and steps not in seen:
            seen.append(steps)
            out += steps
    return out


def _requirement(arg: str) -> Any:
    from packaging.requirements import InvalidRequirement, Requirement

    if any(c in arg for c in "/\\") or arg.startswith((".", "~")) or "$" in arg or "@" in arg:
        return None
    try:
        return Requirement(arg)
    except InvalidRequirement:
        return None


def refusal(action: Action, prefix: Path) -> str | None:
    """Why `fix` will not run this action in the environment at prefix (None: it may). pip runs only
    `install`/`uninstall` of named requirements (no paths, URLs, --target/--prefix/--user, no other
    index); a hook's absolute paths all lie inside the prefix, and it never calls sudo."""
    if action.kind == "pip":
        if not action.args or action.args[0] not in PIP_FLAGS:
            return f"pip {' '.join(action.args[:1])}: only install and uninstall are run"
        for arg in action.args[1:]:
            if arg.startswith("-"):
                if arg not in PIP_FLAGS[action.args[0]]:
                    return f"pip option {arg} is not one fix runs"
            elif _requirement(arg) is None:
                return f"{arg!r} is not a package requirement (a path, URL or shell text)"
        return None
    if action.kind == "hook":
        for line in action.args:
            words = set(re.findall(r"[A-Za-z_][\w-]*", line))
            if words & {"sudo", "su", "doas", "pkexec", "rm", "curl", "wget"}:
                return f"hook line runs a command fix does not write: {line[:80]}"
            for path in _ABS_PATH.findall(line):
                if not _inside(Path(path), prefix):
                    return f"hook line names {path}, outside {prefix}"
        return None
    return f"a {action.kind} step is stated, never run"


def _inside(path: Path, prefix: Path) -> bool:
    try:
        Path(os.path.normpath(path)).relative_to(prefix)
        return True
    except ValueError:
        return False


def _dists(freeze: str) -> dict[str, str]:
    from packaging.utils import canonicalize_name

    out = {}
    for line in freeze.splitlines():
        name, sep, version = line.strip().partition("==")
        if sep:
            out[str(canonicalize_name(name))] = version.strip()
    return out


def tf_versions(dists: dict[str, str]) -> dict[str, str]:
    return {d: dists[d] for d in TF_DISTS if d in dists}


def tensorflow_change(actions: list[Action], dists: dict[str, str]) -> str | None:
    """How these actions would change TensorFlow's version (None: they keep it)."""
    from packaging.utils import canonicalize_name

    have = tf_versions(dists)
    current = next(iter(have.values()), None)
    removed: set[str] = set()
    kept = False
    for a in actions:
        if a.kind != "pip":
            continue
        if a.args[0] == "uninstall":
            removed |= {str(canonicalize_name(n)) for n in a.args[1:] if not n.startswith("-")} & set(have)
            continue
        for arg in a.args[1:]:
            req = None if arg.startswith("-") else _requirement(arg)
            if req is None or str(canonicalize_name(req.name)) not in TF_DISTS:
                continue
            if current is None or not req.specifier.contains(current, prereleases=True):
                return f"{arg} would replace TensorFlow {current or '(none installed)'}"
            kept = True
    if removed and not kept and removed >= set(have):
        return f"uninstalling {', '.join(sorted(removed))} would remove TensorFlow {current}"
    return None


# --- applying -------------------------------------------------------------------------------------


def hook_text(existing: str, lines: list[str]) -> str:
    """The activation script with tfdoctor's block (re)written at its end."""
    keep = []
    inside = False
    for line in existing.splitlines():
        if line.strip() == HOOK_BEGIN:
            inside = True
        elif line.strip() == HOOK_END:
            inside = False
        elif not inside:
            keep.append(line)
    body = "\n".join(keep).rstrip("\n")
    block = "\n".join([HOOK_BEGIN, *lines, HOOK_END])
    return f"{body}\n{block}\n" if body else f"{block}\n"


def _write_hook(target: es.Target, lines: list[str]) -> None:
    from tfdoctor.files import atomic_write

    path = target.hook_file
    path.parent.mkdir(parents=True, exist_ok=True)
    existing = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    mode = path.stat().st_mode & 0o777 if path.is_file() else 0o644
    atomic_write(path, hook_text(existing, lines))
    os.chmod(path, mode)


def _pip(target: es.Target, action: Action) -> str | None:
    """Run one pip action; None when it worked, else what went wrong (pip's last lines)."""
    from tfdoctor import proc

    argv = [target.python, "-m", "pip", *action.args]
    if action.args[0] == "install":
        argv.insert(4, "--disable-pip-version-check")
    env = {**os.environ, "PIP_NO_INPUT": "1", "PIP_REQUIRE_VIRTUALENV": "0"}
    env.pop("PIP_TARGET", None)
    env.pop("PIP_PREFIX", None)
    env.pop("PIP_USER", None)
    res = proc.run(argv, timeout=PIP_TIMEOUT, env=env, cwd=str(target.prefix))
    if res.ok:
        return None
    tail = [ln for ln in (res.stderr or res.stdout).splitlines() if ln.strip()][-4:]
    return f"{shlex.join(argv)}: {res.describe()}" + ("\n  " + "\n  ".join(tail) if tail else "")


@contextmanager
def _on_signals(handler: Any) -> Iterator[None]:
    """SIGINT and SIGTERM handled by `handler` meanwhile (the main thread of a POSIX process only)."""
    import threading

    if os.name != "posix" or threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def _interrupt(signum: int, _frame: Any) -> None:
    raise Interrupted(signal.Signals(signum).name)


def activated_env(target: es.Target) -> dict[str, str] | None:
    """The environment variables after activating the target (bash sourcing its activation), or
    None when bash or the script is missing."""
    from tfdoctor import proc

    if target.conda:
        script = ('export CONDA_PREFIX="$1"; for f in "$1"/etc/conda/activate.d/*.sh; do [ -f "$f" ] &&'
                  ' . "$f"; done >/dev/null 2>&1; env -0')
        arg = str(target.prefix)
    else:
        script = '. "$1" >/dev/null 2>&1; env -0'
        arg = str(target.hook_file)
    res = proc.run(["bash", "-c", script, "bash", arg], timeout=60, max_bytes=1 << 20)
    if not res.ok:
        return None
    env = {}
    for item in res.stdout.split("\0"):
        name, sep, value = item.partition("=")
        if sep and name:
            env[name] = value
    return env


@contextmanager
def _environ(env: dict[str, str] | None) -> Iterator[None]:
    if env is None:
        yield
        return
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


# --- the flow -------------------------------------------------------------------------------------


def _check(python: str, timeout: float | None) -> Report:
    from tfdoctor.commands import Request, report_for

    return report_for(Request(python=python, timeout=timeout))


def describe_plan(target: es.Target, found: list[Finding], actions: list[Action]) -> list[str]:
    """The plan as the user reads it: each target, then the exact commands in the target environment,
    then what tfdoctor states but never runs."""
    plan = Plan(tuple(actions), target.python)
    kind = "conda env" if target.conda else "venv"
    lines = [f"Environment: {target.prefix} ({kind})", "Root causes to repair:"]
    lines += [f"  {'✗' if f.status == Status.FAIL else '!'} {f.id}: {f.title}" for f in found]
    lines.append("Plan (run in this environment only):")
    for a in actions:
        if a.kind == "pip":
            lines.append(f"  $ {shlex.join([target.python, '-m', 'pip', *a.args])}")
        else:
            lines.append(f"  + write into {target.hook_file} (between the tfdoctor fix markers):")
            lines += [f"      {line}" for line in a.args]
        if a.why:
            lines.append(f"      ({a.why})")
    stated = [s for f in found for s in (f.plan.stated if f.plan else ())]
    if stated:
        lines.append("Yours to do (tfdoctor never runs these):")
        lines += [f"  - {plan.command(s)}" + (f"  # {s.why}" if s.why else "") for s in dict.fromkeys(stated)]
    lines.append(f"A snapshot is taken first, under {target.state}; `tfdoctor fix --undo` restores it.")
    return lines


def run_fix(
    python: str | None = None,
    *,
    dry_run: bool = False,
    yes: bool = False,
    allow_tensorflow_change: bool = False,
    timeout: float | None = None,
    ask: Callable[[str], bool] | None = None,
    say: Callable[[str], None] = print,
) -> Result:
    """The whole `tfdoctor fix`. `ask` asks the user (None: no terminal, so --yes is needed)."""

    messages: list[str] = []

    def out(text: str) -> None:
        messages.append(text)
        say(text)

    python = python or sys.executable
    target = es.inspect(python)
    if dry_run:
        return _plan(target, python, timeout, True, False, allow_tensorflow_change, ask, out, messages)
    with es.Lock(target):  # before the first check: a second fix refuses at once
        return _plan(target, python, timeout, False, yes, allow_tensorflow_change, ask, out, messages)


def _plan(target: es.Target, python: str, timeout: float | None, dry_run: bool, yes: bool, allow_tf: bool,
          ask: Callable[[str], bool] | None, out: Callable[[str], None], messages: list[str]) -> Result:
    from tfdoctor.commands import EXIT_FAIL, EXIT_OK

    before = _check(python, timeout)
    result = Result(EXIT_FAIL if before.status >= Status.FAIL else EXIT_OK, before=before, messages=messages)
    found = targets(before)
    result.targets = found
    others = [f for f in before.root_causes if all(f.id != t.id for t in found)]
    if not found:
        out("Nothing in this environment for tfdoctor fix to repair.")
        for f in others:
            out(f"  • {f.id}: {f.title}\n    fix (yours): {f.fix}")
        return result
    actions = actions_of(planned(found))
    result.actions = actions
    for line in describe_plan(target, found, actions):
        out(line)
    if others:
        out("Other root causes (not changed by fix):")
        out("\n".join(f"  • {f.id}: {f.title}" for f in others))
    refused = [why for a in actions if (why := refusal(a, target.prefix))]
    if refused:
        for why in refused:
            out(f"Refused: {why}")
        result.exit_code = EXIT_FAIL
        return result
    frozen = es.freeze(target.python)
    change = tensorflow_change(actions, _dists(frozen))
    if change and not allow_tf:
        out(f"Refused: {change}; fix keeps your TensorFlow unless you pass --allow-tensorflow-change.")
        result.exit_code = EXIT_FAIL
        return result
    if dry_run:
        out("Dry run: nothing was changed.")
        return result
    if not yes and not (ask is not None and ask("Apply this plan? [y/N] ")):
        out("Nothing was changed.")
        result.exit_code = EXIT_FAIL
        return result
    return _apply(target, python, timeout, frozen, actions, found, allow_tf, result, out)


def _apply(target: es.Target, python: str, timeout: float | None, frozen: str, actions: list[Action],
           found: list[Finding], allow_tf: bool, result: Result, out: Callable[[str], None]) -> Result:
    from tfdoctor.commands import EXIT_FAIL, EXIT_OK

    start = time.monotonic()
    snap = es.snapshot(target, frozen, {"python": python, "targets": [f.id for f in found]})
    out(f"Snapshot: {snap} ({len(frozen.splitlines())} distributions)")
    failure = None
    try:
        with _on_signals(_interrupt):  # a signal now restores the snapshot
            hook_lines: list[str] = []
            for a in actions:
                if a.kind == "pip":
                    out(f"→ {shlex.join(['pip', *a.args])}")
                    failure = _pip(target, a)
                    if failure:
                        break
                else:
                    hook_lines += a.args
            if not failure and hook_lines:
                out(f"→ write {target.hook_file}")
                _write_hook(target, hook_lines)
            if not failure:
                after_freeze = es.freeze(target.python)
                was, now = tf_versions(_dists(frozen)), tf_versions(_dists(after_freeze))
                if not allow_tf and set(was.values()) != set(now.values()):
                    failure = (f"TensorFlow changed ({was or 'none'} → {now or 'none'}) without"
                               " --allow-tensorflow-change")
    except (Interrupted, KeyboardInterrupt) as exc:
        failure = f"interrupted ({exc or 'SIGINT'})"
    except OSError as exc:
        failure = f"could not write: {exc}"
    if failure:
        with _on_signals(signal.SIG_IGN):  # restoring is never cut short
            changed = es.restore(target, snap)
        result.restored = True
        result.exit_code = EXIT_FAIL
        out(f"Failed: {failure}")
        out(f"Restored the snapshot ({changed} paths put back): the environment is as it was.")
        return result
    env = activated_env(target) if any(a.kind == "hook" for a in actions) else None
    with _environ(env):
        after = _check(python, timeout)
    result.after = after
    out(f"Applied in {time.monotonic() - start:.0f} s. Checked again:")
    for f in found:
        still = [g for g in after.findings if g.id == f.id and g.status >= Status.WARN]
        result.gone[f.id] = not still
        out(f"  {f.id}: {f.status} → " + ("gone" if not still else f"{still[0].status}: {still[0].title}"))
    new = [f for f in after.root_causes if all(f.id != g.id for g in result.before.root_causes)] \
        if result.before else []
    for f in new:
        out(f"  new: {f.id}: {f.title}")
    if env is not None:
        out(f"Activate the environment again (source {target.hook_file}) for the new settings to apply.")
    result.exit_code = EXIT_OK if all(result.gone.values()) and not new else EXIT_FAIL
    if result.exit_code:
        out("Not every root cause is gone; `tfdoctor fix --undo` restores the snapshot.")
    return result


def run_undo(python: str | None = None, *, yes: bool = False, ask: Callable[[str], bool] | None = None,
             say: Callable[[str], None] = print) -> Result:
    """Restore the last snapshot of the target environment exactly."""
    from tfdoctor.commands import EXIT_FAIL, EXIT_OK

    messages: list[str] = []

    def out(text: str) -> None:
        messages.append(text)
        say(text)

    target = es.inspect(python or sys.executable)
    result = Result(EXIT_FAIL, messages=messages)
    with es.Lock(target):
        snap = es.last_snapshot(target)
        if snap is None:
            out(f"No snapshot to restore under {target.state}: tfdoctor fix has not changed this"
                " environment.")
            return result
        was = _dists((snap / "freeze.txt").read_text(encoding="utf-8", errors="replace"))
        now = _dists(es.freeze(target.python))
        diff = [f"  {n}: {now.get(n, '(absent)')} → {was.get(n, '(removed)')}"
                for n in sorted(set(was) | set(now)) if was.get(n) != now.get(n)]
        out(f"Restore {target.prefix} to the snapshot taken before the last fix:")
        out("\n".join(diff) if diff else "  (the same distributions; files are compared too)")
        if not yes and not (ask is not None and ask("Restore it? [y/N] ")):
            out("Nothing was changed.")
            return result
        with _on_signals(signal.SIG_IGN):  # restoring is never cut short
            changed = es.restore(target, snap)
        out(f"Restored ({changed} paths put back).")
        result.exit_code = EXIT_OK
        result.restored = True
        return result


def terminal_ask(prompt: str) -> bool:
    try:
        return input(prompt).strip().lower() in ("y", "yes")
    except EOFError:
        return False


def interactive() -> bool:
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False

