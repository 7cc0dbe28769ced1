"""The multi-worker collective probe, and this host's own names and addresses.

Fact shape (key "collective"):
    requested (bool: --multiworker), ran (bool), skipped (why not run), not_a_member (this task
    is not a chief/worker, so it has no part in the collective).
    Only when TF_CONFIG is set: local_names [hostname, short name, /etc/hosts names of local
    addresses], local_addresses [interface and loopback IPs, read locally, no network traffic].
    Only with --multiworker: task_host_addresses [what this task's TF_CONFIG host resolves to],
    task ("worker:0"), address, peers [{task, address, reachable, waited_s}], returncode,
    log (trimmed), and from the worker: ok, stage, error, seconds (join + collective), elapsed,
    import_seconds, join_seconds, replicas, implementation, tensorflow, members [{task,
    tensorflow, python, driver}], mismatches [{task, key, mine, theirs}], steps [{name, seconds,
    status}], losses, unreachable [task names], timed_out, barrier (set when a peer left during
    the final barrier, after every check passed: no fault).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

from tfdoctor import jsonsafe, proc
from tfdoctor.checks.distributed import COLLECTIVE_JOBS, parse_tf_config
from tfdoctor.model import Status
from tfdoctor.privacy import trim_redacted
from tfdoctor.probes import Context

WORKER = Path(__file__).resolve().parent.parent / "worker" / "collective.py"
RESULT = "TFDOCTOR-RESULT"
PEER = "TFDOCTOR-PEER"


def interface_addresses() -> set[str]:
    """IPv4 (ioctl SIOCGIFADDR per interface) and IPv6 (/proc/net/if_inet6) addresses of this host."""
    found = {"127.0.0.1", "::1"}
    try:
        import fcntl
        import struct

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            for _, name in socket.if_nameindex():
                try:
                    packed = fcntl.ioctl(sock.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))
                    found.add(socket.inet_ntoa(packed[20:24]))
                except OSError:
                    continue  # an interface without an IPv4 address
    except (ImportError, OSError, AttributeError):
        pass
    try:
        for line in Path("/proc/net/if_inet6").read_text().splitlines():
            raw = line.split()[0]
            found.add(str(socket.inet_ntop(socket.AF_INET6, bytes.fromhex(raw))))
    except (OSError, ValueError, IndexError):
        pass
    return found


def local_names(addresses: set[str], hosts_file: str = "/etc/hosts") -> set[str]:
    """The hostname, its short form, localhost, and /etc/hosts names of this host's addresses."""
    hostname = socket.gethostname()
    names = {hostname, hostname.split(".")[0], "localhost"}
    try:
        for line in Path(hosts_file).read_text(errors="replace").splitlines():
            fields = line.split("#", 1)[0].split()
            if len(fields) >= 2 and fields[0] in addresses:
                names.update(fields[1:])
    except OSError:
        pass
    return {n for n in names if n}


def resolve(host: str, timeout: float) -> list[str] | None:
    """The addresses `host` resolves to, or None when it does not resolve within `timeout`."""
    out: dict[str, list[str]] = {}

    def target() -> None:
        try:
            out["ips"] = sorted({info[4][0] for info in socket.getaddrinfo(host, None)})
        except (OSError, UnicodeError):
            out["ips"] = []

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    return out.get("ips")


def budget(worker_timeout: float) -> dict[str, float]:
    """Split the worker's time: it stops itself (deadline) before proc.run's kill (timeout)."""
    worker_timeout = max(1.0, worker_timeout)
    return {
        "timeout": worker_timeout,
        "deadline": max(5.0, worker_timeout - 5.0),
        "peer_wait": min(120.0, max(5.0, worker_timeout / 2)),
        "op_timeout": min(60.0, max(10.0, worker_timeout / 4)),
    }


def parse_output(stdout: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]], str]:
    """(the first result, the peer progress lines, everything else) from the worker's stdout."""
    result, peers, other = None, [], []
    for line in stdout.splitlines():
        marker, _, payload = line.partition(" ")
        try:  # nesting and numbers bounded: a hostile line costs that line only
            if marker == RESULT and result is None:
                result = jsonsafe.loads(payload)
                continue
            if marker == PEER:
                peers.append(jsonsafe.loads(payload))
                continue
        except jsonsafe.InputError:
            pass
        other.append(line)
    return result, peers, "\n".join(other)


def probe(ctx: Context) -> dict[str, Any]:
    facts: dict[str, Any] = {"requested": ctx.multiworker, "ran": False}
    text = ctx.env.get("TF_CONFIG")
    if text is None:
        facts["skipped"] = "TF_CONFIG is not set"
        return facts
    # Only with a cluster to compare against: a report attached to a bug needs no local addresses.
    addresses = interface_addresses()
    facts.update(local_names=sorted(local_names(addresses)), local_addresses=sorted(addresses))
    if not ctx.multiworker:
        facts["skipped"] = "--multiworker not given"
        return facts
    config, problems = parse_tf_config(text)
    failed = [p for p in problems if p.status == Status.FAIL]
    if config is None or failed:
        facts["skipped"] = f"TF_CONFIG is invalid: {(failed or problems)[0].title}"
        return facts
    me = config.me
    if me is None or me.job not in COLLECTIVE_JOBS:
        facts.update(skipped=f"this task ({config.task_type}) takes no part in a multi-worker collective",
                     not_a_member=True)
        return facts
    facts.update(task=me.name, address=me.address)
    started = time.monotonic()
    facts["task_host_addresses"] = resolve(me.host, min(5.0, ctx.timeout))
    limits = budget(ctx.worker_timeout - (time.monotonic() - started))
    peers = [{"task": t.name, "address": t.address} for t in config.peers]
    argv = [
        ctx.python, str(WORKER), "--task", me.name, "--address", me.address, "--peers", json.dumps(peers),
        "--peer-wait", str(limits["peer_wait"]), "--op-timeout", str(limits["op_timeout"]),
        "--deadline", str(limits["deadline"]),
    ]
    env = dict(ctx.env)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    env.setdefault("PYTHONUNBUFFERED", "1")
    res = proc.run(argv, timeout=limits["timeout"], env=env)
    result, progress, other = parse_output(res.stdout)
    unknown = [{**p, "reachable": None} for p in peers]
    facts.update(ran=True, returncode=res.returncode, peers=progress or unknown)
    if result is not None:
        facts.update(result)
    else:
        facts.update(ok=False, stage="unknown", timed_out=res.timed_out,
                     error=res.describe() or "the collective worker printed no result")
    facts["log"] = trim_redacted("\n".join(x for x in (other, res.stderr) if x.strip()), 8000)
    if res.returncode is not None and res.returncode < 0 and result is None:
        facts["error"] = res.describe()
    return facts


if __name__ == "__main__":  # manual use: python -m tfdoctor.probes.collective
    import sys

    print(json.dumps(probe(Context(python=sys.executable, multiworker=True)), indent=2))
