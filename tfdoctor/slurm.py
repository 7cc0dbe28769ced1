"""GPU node health for Slurm: `python -m tfdoctor.slurm` as `HealthCheckProgram` or `Prolog`.

It runs `tfdoctor check --quick --json` (and the check options given to it, such as `--allow-cpu`
or `--require-gpus 8`; `--full` for the TensorFlow worker too) in a session of its own, bounded
as a whole by `--timeout` (default 40 s: Slurm kills a health check after 60 s), then:

- as the health check (no `SLURM_JOB_ID` in the environment): a failing check drains the node with
  the reason `<root cause ids> (tfdoctor)`, the first id first so that `sinfo -R`'s 20 columns show
  it; a passing check resumes the node only when it is drained with a reason this program wrote,
  never a node someone else drained (nor does a failing check overwrite their reason);
- as the prolog (`SLURM_JOB_ID` set): the same drain, and exit 1, so Slurm does not start the job
  there (it requeues it, held, or fails it).

A check that does not finish in time, or cannot run, is a failure with that as the reason (a hung
`nvidia-smi` is a sick GPU node). The reason is at most `REASON_LIMIT` characters: slurmdbd keeps a
node's reason in a TINYTEXT column (255 bytes). Exit status: 0 the node passed, 1 it failed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import sys
from typing import Any

MARK = "(tfdoctor)"  # ends every reason this program writes: how it knows its own drains
REASON_LIMIT = 255
DEFAULT_TIMEOUT = 40.0
SCONTROL_TIMEOUT = 10.0
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")  # a finding id as the catalogue writes them
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"  # slurmd passes no PATH


def reason(ids: list[str]) -> str:
    """The drain reason for these root cause ids: as many ids as fit, then "+N" for the rest."""
    ids = [i for i in ids if _ID.match(i)] or ["unknown"]
    for shown in range(len(ids), 0, -1):
        more = f" +{len(ids) - shown}" if shown < len(ids) else ""
        text = f"{', '.join(ids[:shown])}{more} {MARK}"
        if len(text) <= REASON_LIMIT:
            return text
    return f"{ids[0][:REASON_LIMIT - len(MARK) - 1]} {MARK}"


def root_causes(report: dict[str, Any]) -> list[str]:
    """Ids of the failing findings no other finding explains (the warnings, if nothing failed)."""
    findings = [f for f in report.get("findings") or [] if isinstance(f, dict)]
    for status in ("fail", "warn"):
        ids = [str(f.get("id")) for f in findings if f.get("status") == status and not f.get("caused_by")]
        if ids:
            return ids
    return []


def judge(check_args: list[str], timeout: float) -> tuple[bool, str]:
    """Run the check; (passed, the drain reason when it did not)."""
    from tfdoctor import proc

    argv = [sys.executable, "-m", "tfdoctor", "check", "--json", "--no-color", *check_args]
    result = proc.run(argv, timeout=timeout, max_bytes=16 << 20)
    if result.timed_out:
        return False, reason([f"check-timed-out-{int(timeout)}s"])
    if result.returncode == 0:
        return True, ""
    try:
        report = json.loads(result.stdout)
    except ValueError:
        report = None
    if result.returncode == 1 and isinstance(report, dict):
        return False, reason(root_causes(report) or ["check-failed"])
    code = result.returncode
    return False, reason(["check-usage-error" if code == 2 else f"check-error-{code}"])


def _scontrol(*args: str) -> tuple[int | None, str]:
    from tfdoctor import proc

    found = shutil.which("scontrol", path=os.environ.get("PATH") or SYSTEM_PATH) or "scontrol"
    result = proc.run([found, *args], timeout=SCONTROL_TIMEOUT)
    return result.returncode, result.stdout + result.stderr


def node_state(node: str) -> tuple[set[str], str]:
    """The node's state flags ({"IDLE", "DRAIN"}) and its reason ("" when none), from scontrol."""
    code, out = _scontrol("show", "node", node)
    if code != 0:
        raise RuntimeError(f"scontrol show node {node}: {out.strip()[:200]}")
    state = re.search(r"\bState=(\S+)", out)
    flags = set(state.group(1).upper().replace("*", "").split("+")) if state else set()
    why = re.search(r"^\s*Reason=(.*?)(?: \[[^\]\n]*\])?\s*$", out, re.M)
    return flags, why.group(1) if why else ""


def apply(node: str, passed: bool, why: str) -> str:
    """Drain or resume the node as the verdict says; what was done, in words."""
    flags, current = node_state(node)
    drained = bool(flags & {"DRAIN", "DRAINED", "DRAINING"})
    ours = current.endswith(MARK)
    if passed:
        if drained and ours:
            _update(node, "State=RESUME")
            return f"resumed {node} (drained by tfdoctor: {current})"
        return f"{node} passed" + (f"; left drained: {current!r} is not tfdoctor's" if drained else "")
    if drained and not ours:
        return f"{node} failed ({why}); left as drained by someone else: {current!r}"
    if drained and current == why:
        return f"{node} still failing: {why}"
    _update(node, "State=DRAIN", f"Reason={why}")
    return f"drained {node}: {why}"


def _update(node: str, *settings: str) -> None:
    code, out = _scontrol("update", f"NodeName={node}", *settings)
    if code != 0:
        raise RuntimeError(f"scontrol update {node} {' '.join(settings)}: {out.strip()[:200]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tfdoctor.slurm",
        description="Slurm HealthCheckProgram / Prolog: drain this node with the root cause when"
        " tfdoctor check fails; resume it when the check passes again (only if tfdoctor drained it)."
        " Other options are passed to `tfdoctor check` (e.g. --allow-cpu, --require-gpus 8).",
    )
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                        help=f"seconds the whole check may take (default {DEFAULT_TIMEOUT:g}; keep it under"
                        " 60, Slurm's limit for a health check, and under PrologEpilogTimeout)")
    parser.add_argument("--node", help="the Slurm node name (default: $SLURMD_NODENAME, else the host name)")
    parser.add_argument("--full", action="store_true", help="run the TensorFlow worker too (not --quick)")
    args, check_args = parser.parse_known_args(argv)
    if not 0 < args.timeout <= 86400:
        parser.error("--timeout must be above 0 and at most a day")
    os.environ["PATH"] = os.environ.get("PATH") or SYSTEM_PATH
    from tfdoctor import proc

    proc.enable_subreaper()  # what a hung tool left behind is killed with it
    try:
        node = args.node or os.environ.get("SLURMD_NODENAME") or socket.gethostname().split(".")[0]
        passed, why = judge(([] if args.full else ["--quick"]) + check_args, args.timeout)
        prolog = bool(os.environ.get("SLURM_JOB_ID"))
        try:
            print(f"tfdoctor.slurm: {apply(node, passed, why)}", file=sys.stderr)
        except RuntimeError as exc:
            print(f"tfdoctor.slurm: {exc}", file=sys.stderr)
        if not passed and prolog:
            job = os.environ["SLURM_JOB_ID"]
            print(f"tfdoctor.slurm: job {job} not started on {node}: {why}", file=sys.stderr)
        return 0 if passed else 1
    finally:
        proc.shutdown()


if __name__ == "__main__":
    sys.exit(main())
