"""`tfdoctor check --multiworker` for real: N tfdoctor processes on loopback ports, each running a
MultiWorkerMirroredStrategy collective with real TensorFlow on the CPU. Loopback only, always."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from conftest import ROOT
from schema_check import validate

from tfdoctor.checks.distributed import collective
from tfdoctor.probes import Context
from tfdoctor.probes.collective import probe


def free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def tf_config(ports: list[int], index: int) -> str:
    return json.dumps({"cluster": {"worker": [f"127.0.0.1:{p}" for p in ports]},
                       "task": {"type": "worker", "index": index}})


def start(config: str, token: str, timeout: float) -> subprocess.Popen:
    """One worker as a user runs it: `python -m tfdoctor check --multiworker ...` with its TF_CONFIG."""
    # CPU only: on a one-GPU machine two local workers would share the GPU, which NCCL refuses.
    env = {**os.environ, "TF_CONFIG": config, "TFDOCTOR_TEST_TOKEN": token, "PYTHONPATH": str(ROOT),
           "CUDA_VISIBLE_DEVICES": "-1"}
    argv = [sys.executable, "-m", "tfdoctor", "check", "--multiworker", "--json", "--quick",
            "--only", "distributed", "--timeout", str(timeout)]
    proc = subprocess.Popen(argv, env=env, cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    proc.started = time.monotonic()  # type: ignore[attr-defined]
    return proc


def finish(p: subprocess.Popen, limit: float) -> tuple[int, dict, str, float]:
    """Wait (bounded) for a worker; return its exit code, validated report, stderr and wall time."""
    try:
        out, err = p.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail(f"tfdoctor did not finish within {limit} s")
    return p.returncode, validate(json.loads(out)), err, time.monotonic() - p.started  # type: ignore[attr-defined]


def leftovers(token: str) -> list[str]:
    """Processes still alive that carry this test's token in their environment."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if token.encode() in (entry / "environ").read_bytes():
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ")[:200]
                found.append(f"{entry.name}: {cmdline!r}")
        except OSError:
            continue
    return found


def findings(report: dict) -> dict[str, dict]:
    return {f["id"]: f for f in report["findings"]}


@pytest.mark.parametrize("n", [2, 3])
def test_workers_run_a_real_collective(n):
    token = uuid.uuid4().hex
    ports = free_ports(n)
    started = time.monotonic()
    procs = [start(tf_config(ports, i), token, timeout=120) for i in range(n)]
    results = [finish(p, 150) for p in procs]
    wall = time.monotonic() - started
    for i, (code, report, err, _) in enumerate(results):
        found = findings(report)
        coll = report["facts"]["collective"]
        assert code == 0, (err, found.get("distributed.collective"), coll.get("log", "")[-3000:])
        assert found["distributed.collective"]["status"] == "pass"
        assert f"across {n} workers" in found["distributed.collective"]["title"]
        assert found["distributed.tf-config"]["status"] == "pass"
        assert coll["task"] == f"worker:{i}" and coll["replicas"] == n
        assert [m["task"] for m in coll["members"]] == [f"worker:{k}" for k in range(n)]
        assert coll["mismatches"] == []
        assert coll["losses"][-1] < coll["losses"][0]
        print(f"{n} workers: worker:{i} collective {coll['seconds']:.2f} s "
              f"(join {coll['join_seconds']:.2f} s, TF import {coll['import_seconds']:.2f} s); "
              f"tfdoctor wall {results[i][3]:.1f} s; all {wall:.1f} s; barrier {coll.get('barrier', 'ok')}")
    assert leftovers(token) == []


def test_peer_that_never_starts_is_named_in_bounded_time_and_a_duplicate_index_is_refused():
    token = uuid.uuid4().hex
    ports = free_ports(2)
    timeout = 30
    started = time.monotonic()
    first = start(tf_config(ports, 0), token, timeout=timeout)
    # Wait until worker:0's TensorFlow server listens, then start a second process that wrongly
    # claims the same index 0: it must be refused at once, not hang.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and first.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", ports[0]), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.2)
    twin = start(tf_config(ports, 0), token, timeout=timeout)
    code, report, err, _ = finish(twin, 60)
    busy = findings(report)["distributed.collective"]
    assert code == 1, err
    assert busy["status"] == "fail" and f"127.0.0.1:{ports[0]} is not free" in busy["title"]
    assert "task index" in busy["fix"]

    code, report, err, _ = finish(first, timeout + 30)
    elapsed = time.monotonic() - started
    failed = findings(report)["distributed.collective"]
    assert code == 1, err
    assert failed["status"] == "fail"
    assert f"worker:1 (127.0.0.1:{ports[1]})" in failed["title"]
    assert f"worker:1 (127.0.0.1:{ports[1]})" in failed["fix"]
    assert report["facts"]["collective"]["unreachable"] == ["worker:1"]
    assert elapsed < timeout + 15
    time.sleep(0.5)
    assert leftovers(token) == []


@pytest.mark.parametrize(
    ("config", "fid", "words"),
    [
        ('{"cluster": {"worker": ["127.0.0.1:5000", "127.0.0.1:5001"]}, '
         '"task": {"type": "worker", "index": 0',
         "distributed.tf-config-invalid", "not valid JSON"),
        ('{"cluster": {"worker": ["127.0.0.1:5000", "127.0.0.1:5001"]}, '
         '"task": {"type": "worker", "index": 2}}',
         "distributed.task-invalid", "out of range"),
    ],
    ids=["malformed", "wrong-index"],
)
def test_bad_tf_config_fails_fast_without_starting_tensorflow(config, fid, words):
    token = uuid.uuid4().hex
    code, report, err, wall = finish(start(config, token, timeout=60), 60)
    found = findings(report)
    assert code == 1, err
    assert found[fid]["status"] == "fail" and words in found[fid]["title"]
    coll = found["distributed.collective"]
    assert coll["status"] == "fail" and "not run: TF_CONFIG is invalid" in coll["title"]
    assert report["facts"]["collective"]["ran"] is False
    assert wall < 30
    assert leftovers(token) == []


def test_target_interpreter_without_tensorflow_is_a_clear_failure(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    ports = free_ports(2)
    ctx = Context(python=str(venv / "bin" / "python"), env={**os.environ, "TF_CONFIG": tf_config(ports, 0)},
                  worker_timeout=60, multiworker=True)
    facts = probe(ctx)
    assert facts["ran"] is True and facts["ok"] is False and facts["stage"] == "import"
    assert "No module named 'tensorflow'" in facts["error"]
    [finding] = collective({"collective": facts}, None)
    assert finding.status.name == "FAIL" and "pip install" in finding.fix
