"""The multi-worker collective worker: a stdlib-only script run by the *target* interpreter.

    PYTHON collective.py --task worker:0 --address HOST:PORT --peers JSON
                         [--peer-wait S] [--op-timeout S] [--deadline S]

TensorFlow reads TF_CONFIG from the environment. The script checks that its own port is free,
imports TensorFlow, builds a MultiWorkerMirroredStrategy (which starts this task's server and
waits for the others), and meanwhile polls each peer's port with a plain TCP connect so that a
peer that never comes up is named. Then a real all-reduce, an all-gather of each worker's
TensorFlow/Python/driver versions, and a few synchronized training steps whose weights must end
identical on every worker. Every stage is bounded: collectives by CommunicationOptions'
timeout, the whole run by --deadline (a forked monitor kills it and prints the result).

Progress lines `TFDOCTOR-PEER <json>` and one final `TFDOCTOR-RESULT <json>` go to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import select
import signal
import socket
import sys
import time

RESULT = "TFDOCTOR-RESULT"
PEER = "TFDOCTOR-PEER"
INFO_LEN = 192  # bytes of "task|tensorflow|python|driver" exchanged between workers
STEPS = 3

_start = time.monotonic()
_state: dict = {"ok": False, "stage": "start", "error": None, "steps": []}
_monitor_fd: int | None = None  # write end of the pipe to the monitor process


def _elapsed() -> float:
    return round(time.monotonic() - _start, 3)


def _emit(marker: str, payload: dict) -> None:
    sys.stdout.write(f"{marker} {json.dumps(payload, sort_keys=True)}\n")
    sys.stdout.flush()


def finish(code: int, **updates) -> None:
    """Print the one result line and leave at once (a TF server cannot be shut down cleanly)."""
    _state.update(updates)
    _state["elapsed"] = _elapsed()
    _emit(RESULT, _state)
    sys.stderr.flush()
    os._exit(code)


def stage(name: str) -> None:
    """Record the stage here and tell the monitor (which reports it if this process hangs)."""
    _state["stage"] = name
    if _monitor_fd is not None:
        try:
            os.write(_monitor_fd, f"{name}\n".encode())
        except OSError:
            pass


def split_address(address: str) -> tuple[str, int]:
    """'host:port' or '[v6]:port' -> (host, port)."""
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port)


def port_in_use(port: int) -> str | None:
    """Why this task's port cannot be bound (another listener), or None when it is free."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("", port))
    except OSError as exc:
        return exc.strerror or str(exc)
    finally:
        sock.close()
    return None


def reachable(address: str, timeout: float = 1.0) -> bool:
    """One bounded TCP connect: does something listen at address?"""
    try:
        host, port = split_address(address)
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def encode_info(text: str) -> list[float]:
    """A string as a fixed-length vector of byte values (floats: safe for any collective)."""
    data = text.encode("utf-8")[:INFO_LEN]
    return [float(b) for b in data] + [0.0] * (INFO_LEN - len(data))


def decode_info(row: list[float]) -> dict:
    data = bytes(int(round(v)) for v in row if 0 < round(v) < 256)
    task, tf_version, python, driver = (data.decode("utf-8", errors="replace").split("|") + [""] * 4)[:4]
    return {"task": task, "tensorflow": tf_version, "python": python, "driver": driver or None}


def compare_members(members: list[dict], me: str) -> list[dict]:
    """Peers whose TensorFlow, Python or driver version differs from this task's."""
    mine = next((m for m in members if m["task"] == me), None)
    if mine is None:
        return []
    out = []
    for member in members:
        if member["task"] == me:
            continue
        for key in ("tensorflow", "python", "driver"):
            if member.get(key) != mine.get(key):
                theirs = member.get(key)
                out.append({"task": member["task"], "key": key, "mine": mine.get(key), "theirs": theirs})
    return out


def driver_version() -> str:
    try:
        with open("/proc/driver/nvidia/version", encoding="utf-8", errors="replace") as fh:
            for word in fh.readline().split():
                if word[:1].isdigit() and "." in word:
                    return word
    except OSError:
        pass
    return ""


def monitor(read_fd: int, parent: int, args: argparse.Namespace, peers: list[dict]) -> None:
    """The forked watcher. TensorFlow's join holds the GIL, so no thread of the worker can time it
    out: this process polls the peers once the worker is joining, and kills the worker (printing
    the result for it) when a peer stays unreachable past --peer-wait or the run passes --deadline.
    It leaves when the worker closes the pipe (the worker finished by itself)."""
    status = [{**p, "reachable": False, "waited_s": None} for p in peers]
    current, joining_since, joined = "start", None, False

    def kill_and_report(code: int, **fields) -> None:
        try:
            os.kill(parent, signal.SIGKILL)
        except OSError:
            pass
        _state.update(stage=current, peers=status, **fields)
        finish(code)

    while True:
        ready, _, _ = select.select([read_fd], [], [], 0.25)
        if ready:
            data = os.read(read_fd, 4096)
            if not data:
                os._exit(0)
            for line in data.decode(errors="replace").split():
                joined = joined or line == "joined"
                current = line
                if line == "join" and joining_since is None:
                    joining_since = time.monotonic()
        if joining_since is not None and not joined:
            for entry in status:
                if not entry["reachable"] and reachable(entry["address"]):
                    entry.update(reachable=True, waited_s=_elapsed())
                    _emit(PEER, entry)
            missing = [e for e in status if not e["reachable"]]
            waited = time.monotonic() - joining_since
            if missing and (waited > args.peer_wait or time.monotonic() - _start > args.deadline):
                names = ", ".join(f"{e['task']} ({e['address']})" for e in missing)
                kill_and_report(
                    5,
                    unreachable=[e["task"] for e in missing],
                    error=f"peer{'s' if len(missing) > 1 else ''} never reachable within "
                    f"{waited:.0f} s: {names}",
                )
        if time.monotonic() - _start > args.deadline:
            waiting = (
                ""
                if joined or joining_since is None
                else " while waiting for the peers to join (each accepted a TCP "
                "connection: check that every worker has the same cluster and its own task index)"
            )
            kill_and_report(
                4,
                timed_out=True,
                error=f"did not finish within {args.deadline:.0f} s (stuck at stage {current!r}){waiting}",
            )


def start_monitor(args: argparse.Namespace, peers: list[dict]) -> None:
    global _monitor_fd
    if not hasattr(os, "fork"):
        return  # the caller's timeout is the only bound
    read_fd, write_fd = os.pipe()
    parent = os.getpid()
    sys.stdout.flush()
    if os.fork() == 0:
        os.close(write_fd)
        try:
            monitor(read_fd, parent, args, peers)
        finally:
            os._exit(0)
    os.close(read_fd)
    _monitor_fd = write_fd


def run(args: argparse.Namespace) -> None:
    peers = json.loads(args.peers)
    busy = port_in_use(split_address(args.address)[1])
    if busy:
        finish(
            3,
            stage="bind",
            error=f"this task's port {args.address} is not free ({busy}): another "
            "process, or another worker with the same task index, already uses it",
        )
    start_monitor(args, peers)

    stage("import")
    t = time.monotonic()
    import tensorflow as tf  # noqa: PLC0415 - the whole point of this script

    _state.update(import_seconds=round(time.monotonic() - t, 3), tensorflow=tf.__version__)
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        try:
            tf.config.experimental.set_memory_growth(gpu, True)
        except (RuntimeError, ValueError):
            pass
    comm = tf.distribute.experimental.CommunicationImplementation
    impl = comm.AUTO if gpus else comm.RING
    options = tf.distribute.experimental.CommunicationOptions(
        implementation=impl, timeout_seconds=args.op_timeout
    )
    _state.update(gpus=len(gpus), implementation=impl.name)

    # The constructor starts this task's server and blocks (holding the GIL) until every peer
    # answers; the monitor process polls the peers meanwhile and names one that never comes up.
    stage("join")
    t_collective = time.monotonic()
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    stage("joined")
    replicas = strategy.num_replicas_in_sync
    _state.update(replicas=replicas, join_seconds=round(time.monotonic() - t_collective, 3))

    def timed(name: str, fn):
        stage(name)
        t0 = time.monotonic()
        value = fn()
        _state["steps"].append({"name": name, "seconds": round(time.monotonic() - t0, 3), "status": "pass"})
        return value

    def per_replica(fn):
        return strategy.experimental_distribute_values_from_function(fn)

    # 1. all-reduce: replica r contributes r + 1; every worker must see R(R+1)/2.
    ones = per_replica(lambda ctx: tf.constant([float(ctx.replica_id_in_sync_group + 1)]))
    total = float(timed("all-reduce", lambda: strategy.reduce("SUM", ones, axis=None)).numpy()[0])
    expected = replicas * (replicas + 1) / 2
    if abs(total - expected) > 1e-6:
        finish(6, error=f"all-reduce gave {total}, expected {expected}: the workers disagree")

    # 2. all-gather who is who: task name and versions.
    info = encode_info("|".join([args.task, tf.__version__, platform.python_version(), driver_version()]))
    rows = timed("all-gather", lambda: strategy.gather(per_replica(lambda ctx: tf.constant([info])), axis=0))
    members = {}
    for row in rows.numpy().tolist():
        member = decode_info(row)
        members.setdefault(member["task"], member)
    members_list = sorted(members.values(), key=lambda m: m["task"])
    mismatches = compare_members(members_list, args.task)
    _state.update(members=members_list, mismatches=mismatches)

    # 3. synchronized training: linear regression, different data per replica, MEAN-aggregated
    # updates; afterwards every worker must hold the same weights.
    with strategy.scope():
        w = tf.Variable(tf.zeros([8, 1]), aggregation=tf.VariableAggregation.MEAN)
        b = tf.Variable(tf.zeros([1]), aggregation=tf.VariableAggregation.MEAN)
    true_w = tf.reshape(tf.range(1.0, 9.0), [8, 1])

    def batch(ctx):
        x = tf.random.stateless_normal([32, 8], seed=[ctx.replica_id_in_sync_group, 7])
        return x, x @ true_w + 0.5

    xs = per_replica(lambda ctx: batch(ctx)[0])
    ys = per_replica(lambda ctx: batch(ctx)[1])

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(x @ w + b - y))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.05 * gw)
        b.assign_sub(0.05 * gb)
        return loss

    def train_step():
        return strategy.reduce("MEAN", strategy.run(step, args=(xs, ys)), axis=None)

    losses = []
    for i in range(STEPS):
        loss = timed(f"train-step-{i + 1}", train_step)
        losses.append(round(float(loss.numpy()), 6))
    _state["losses"] = losses
    if not all(v == v and abs(v) < 1e30 for v in losses) or losses[-1] >= losses[0]:
        finish(6, error=f"training loss not finite and falling across workers: {losses}")

    local = float(tf.reduce_sum(tf.abs(w.values[0])).numpy() + tf.reduce_sum(tf.abs(b.values[0])).numpy())
    mine = per_replica(lambda ctx: tf.constant([local]))
    sums = timed("weights-agree", lambda: strategy.gather(mine, axis=0))
    sums = [float(v) for v in sums.numpy().tolist()]
    if max(sums) - min(sums) > 1e-5 * max(1.0, abs(local)):
        finish(6, error=f"weights differ between workers after training: {sums}")

    # TensorFlow's collectives receive by RPC from the sender, so a peer that leaves right after
    # the last collective can fail a task still pulling from it. A final barrier moves that race off
    # the checks: whoever passes it knows every peer finished them, and a peer leaving during it
    # (Unavailable, Cancelled, Aborted) is no fault of theirs.
    stage("barrier")
    try:
        strategy.reduce("SUM", per_replica(lambda ctx: tf.constant([1.0])), axis=None)
    except tf.errors.OpError as exc:
        _state["barrier"] = f"{type(exc).__name__}: a peer left after every check passed"
    seconds = round(time.monotonic() - t_collective, 3)
    tf_diff = [m for m in mismatches if m["key"] == "tensorflow"]
    if tf_diff:
        names = ", ".join(f"{m['task']} has TensorFlow {m['theirs']}" for m in tf_diff)
        finish(
            7,
            stage="compare",
            seconds=seconds,
            error=f"TensorFlow versions differ: this task has {tf.__version__}, {names}",
        )
    finish(0, ok=True, stage="done", seconds=seconds)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", required=True)
    parser.add_argument("--address", required=True)
    parser.add_argument("--peers", default="[]")
    parser.add_argument("--peer-wait", type=float, default=60.0)
    parser.add_argument("--op-timeout", type=float, default=30.0)
    parser.add_argument("--deadline", type=float, default=170.0)
    args = parser.parse_args(argv)
    _state.update(task=args.task, address=args.address)
    try:
        run(args)
    except BaseException as exc:  # noqa: BLE001 - every failure becomes the result line
        first = (str(exc).strip().splitlines() or [""])[0][:500]
        finish(2, error=f"{type(exc).__name__}: {first}".rstrip(": "))


if __name__ == "__main__":
    main()
