"""`python -m tfdoctor.slurm` against a real one-node Slurm cluster on this machine.

munged, slurmctld and slurmd (Debian's `munge` and `slurm-wlm`) run on loopback with a throwaway
key, config and state under the test's temporary folder, and are stopped at the end (checked: no
process is left). The container may have no systemd or usable cgroups, so the cluster uses
proctrack/linuxproc, task/none and no cgroup plugin. This machine has no GPU: the check fails
(`driver.missing`) unless given `--allow-cpu`, which is how a failing and a passing node are made;
a hung `nvidia-smi` is a script on PATH that never answers.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT
from daemons import Daemons, free_port, need, wait_for

from tfdoctor.slurm import MARK, REASON_LIMIT, reason, root_causes

NODE = "tfdnode"
HEALTH_EVERY = 3  # HealthCheckInterval, seconds
PROLOG_TIMEOUT = 40  # PrologEpilogTimeout
PROLOG_BOUND = 20  # the prolog check's own bound (--timeout), well under it


class Cluster:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.conf = tmp / "slurm.conf"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}
        self.daemons = Daemons(tmp)

    def run(self, *argv: str, timeout: float = 20) -> str:
        done = subprocess.run(argv, capture_output=True, text=True, env=self.env, timeout=timeout)
        assert done.returncode == 0, f"{' '.join(argv)}: {done.stdout}{done.stderr}"
        return done.stdout

    def node(self) -> tuple[str, str]:
        """(state, reason) as sinfo prints them for the node."""
        out = self.run("sinfo", "-h", "-N", "-n", NODE, "-o", "%T|%E")
        state, _, why = out.strip().partition("|")
        return state, why

    def set_args(self, which: str, *args: str) -> None:
        (self.tmp / f"{which}.args").write_text(" ".join(args))

    def runs(self, which: str) -> int:
        log = self.tmp / f"{which}.runs"
        return len(log.read_text().splitlines()) if log.exists() else 0

    def wait_runs(self, which: str, count: int, timeout: float = 60) -> None:
        """Wait until `count` more complete runs of the health check (or prolog) have ended."""
        target = self.runs(which) + count
        wait_for(f"{count} {which} runs", lambda: self.runs(which) >= target, timeout)


def test_the_reason_names_root_causes_first_and_fits_slurmdbd() -> None:
    assert reason(["driver.missing"]) == f"driver.missing {MARK}"
    many = [f"gpu.health-{i:03d}" for i in range(40)]
    text = reason(many)
    assert len(text) <= REASON_LIMIT and text.startswith("gpu.health-000, ") and text.endswith(f" {MARK}")
    assert f"+{40 - text.count('gpu.health-')}" in text  # the ids left out are counted
    assert reason(["x" * 500, "bad id; rm -rf /", ""]) == f"unknown {MARK}"  # only catalogue-like ids
    report = {"findings": [
        {"id": "cuda.init-failed", "status": "fail", "caused_by": None},
        {"id": "runtime.no-gpu-visible", "status": "fail", "caused_by": "cuda.init-failed"},
        {"id": "gpu.pcie-degraded", "status": "warn", "caused_by": None},
    ]}
    assert root_causes(report) == ["cuda.init-failed"]  # what explains the rest, not its symptoms


def _wrapper(tmp: Path, which: str, bindir: Path, conf: Path) -> Path:
    """What a site installs as HealthCheckProgram / Prolog: a script running tfdoctor.slurm with its
    options (read from a file here, so that the test can change them between runs)."""
    script = tmp / f"{which}.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"export SLURM_CONF={conf} PATH={tmp}/{which}-bin:{bindir}:/usr/sbin:/usr/bin:/sbin:/bin"
        f" PYTHONPATH={ROOT}\n"
        f"{sys.executable} -m tfdoctor.slurm $(cat {tmp}/{which}.args) 2>>{tmp}/{which}.log\n"
        "code=$?\n"
        f"echo $code >> {tmp}/{which}.runs\n"
        "exit $code\n"
    )
    script.chmod(0o755)
    return script


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Cluster:
    if os.geteuid() != 0:
        pytest.skip("Slurm's daemons here run as root (CI runs as root)")
    munged = need("munged", "munge")
    mungekey = need("mungekey", "munge")
    slurmctld = need("slurmctld", "slurm-wlm")
    slurmd = need("slurmd", "slurm-wlm")
    need("scontrol", "slurm-wlm")
    tmp = tmp_path_factory.mktemp("slurm")
    tmp.chmod(0o755)  # munged wants its socket's folder reachable
    for sub in ("munge", "state", "spool"):
        (tmp / sub).mkdir(mode=0o700)
    bindir = tmp / "bin"
    bindir.mkdir()
    c = Cluster(tmp)
    subprocess.run([mungekey, "--create", f"--keyfile={tmp}/munge/munge.key"], check=True, timeout=30)
    socket_path = tmp / "munge" / "munge.socket"
    host = socket.gethostname().split(".")[0]
    ctld_port, slurmd_port = free_port(), free_port()
    c.conf.write_text(f"""\
ClusterName=tfdoctor-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={socket_path}
StateSaveLocation={tmp}/state
SlurmdSpoolDir={tmp}/spool
SlurmctldPidFile={tmp}/slurmctld.pid
SlurmdPidFile={tmp}/slurmd.pid
SlurmctldLogFile={tmp}/slurmctld.log
SlurmdLogFile={tmp}/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
HealthCheckProgram={_wrapper(tmp, "health", bindir, c.conf)}
HealthCheckInterval={HEALTH_EVERY}
HealthCheckNodeState=ANY
Prolog={_wrapper(tmp, "prolog", bindir, c.conf)}
PrologEpilogTimeout={PROLOG_TIMEOUT}
NodeName={NODE} NodeHostname={host} NodeAddr=127.0.0.1 CPUs=1 RealMemory=100 State=UNKNOWN
PartitionName=debug Nodes={NODE} Default=YES MaxTime=INFINITE State=UP
""")
    c.set_args("health", "--timeout", "30", "--allow-cpu")
    c.set_args("prolog", "--timeout", str(PROLOG_BOUND), "--allow-cpu")
    try:
        c.daemons.start("munged", [
            munged, "-F", "-f", f"--socket={socket_path}", f"--key-file={tmp}/munge/munge.key",
            f"--pid-file={tmp}/munge/munged.pid", f"--seed-file={tmp}/munge/seed",
            f"--log-file={tmp}/munged.log",
        ], tmp / "munged.out")
        wait_for("munged's socket", socket_path.exists, 20)
        c.daemons.start("slurmctld", [slurmctld, "-D", "-f", str(c.conf)], tmp / "slurmctld.out")
        c.daemons.start("slurmd", [slurmd, "-D", "-N", NODE, "-f", str(c.conf)], tmp / "slurmd.out")
        wait_for("the node to register idle", lambda: c.node()[0] == "idle", 90, every=1)
        yield c
    finally:
        c.daemons.stop()


def test_a_failing_check_drains_the_node_naming_the_root_cause(cluster: Cluster) -> None:
    cluster.set_args("health", "--timeout", "30")  # no GPU here: driver.missing
    wait_for("the health check to drain the node", lambda: cluster.node()[0] in ("drained", "draining"), 60)
    state, why = cluster.node()
    assert why == f"driver.missing {MARK}" and len(why) <= REASON_LIMIT
    listed = cluster.run("sinfo", "-R")
    print(listed)  # the report quotes it
    assert "driver.missing" in listed.splitlines()[1]  # within sinfo -R's 20-column REASON
    cluster.daemons.check_running()

    cluster.set_args("health", "--timeout", "30", "--allow-cpu")  # healed: passes on the CPU
    wait_for("the health check to resume the node", lambda: cluster.node()[0] == "idle", 60)
    assert cluster.node()[1] in ("", "none")


def test_a_node_drained_by_someone_else_stays_drained(cluster: Cluster) -> None:
    cluster.run("scontrol", "update", f"NodeName={NODE}", "State=DRAIN", "Reason=disk replacement")
    try:
        cluster.set_args("health", "--timeout", "30", "--allow-cpu")  # passing: must not resume it
        cluster.wait_runs("health", 2)
        assert cluster.node() == ("drained", "disk replacement")
        cluster.set_args("health", "--timeout", "30")  # failing: must not overwrite their reason
        cluster.wait_runs("health", 2)
        assert cluster.node() == ("drained", "disk replacement")
        assert "left as drained by someone else" in (cluster.tmp / "health.log").read_text()
    finally:
        cluster.set_args("health", "--timeout", "30", "--allow-cpu")
        cluster.run("scontrol", "update", f"NodeName={NODE}", "State=RESUME")
    wait_for("the node back to idle", lambda: cluster.node()[0] == "idle", 30)


def _job(cluster: Cluster, marker: Path) -> str:
    out = cluster.run("sbatch", "--parsable", "-N1", "-o", "/dev/null", f"--wrap=touch {marker}")
    return out.strip().split(";")[0]


def _job_state(cluster: Cluster, job: str) -> tuple[str, str]:
    out = cluster.run("scontrol", "show", "job", job)
    state = re.search(r"JobState=(\S+)", out)
    why = re.search(r"Reason=(.*?) Dependency=", out)
    return (state.group(1) if state else "?", why.group(1) if why else "?")


def test_a_failing_prolog_keeps_the_job_off_the_node_within_its_bound(cluster: Cluster) -> None:
    wait_for("an idle node", lambda: cluster.node()[0] == "idle", 60)
    cluster.set_args("prolog", "--timeout", str(PROLOG_BOUND))  # fails: driver.missing
    marker = cluster.tmp / "job-ran"
    start = time.monotonic()
    job = _job(cluster, marker)
    try:
        cluster.wait_runs("prolog", 1, timeout=PROLOG_TIMEOUT)
        took = time.monotonic() - start
        state, why = wait_for("the job to be requeued or failed",
                              lambda: (s := _job_state(cluster, job))[0] in ("PENDING", "FAILED") and s, 30)
        print(f"prolog failed in {took:.1f} s; job {job}: {state} ({why}); node: {cluster.node()}")
        assert took < PROLOG_BOUND + 5 < PROLOG_TIMEOUT  # the bound held, with time to requeue
        assert not marker.exists()  # the job's script never ran
        assert (cluster.tmp / "prolog.runs").read_text().split()[-1] == "1"
        assert state in ("PENDING", "FAILED") and ("held" in why.lower() or state == "FAILED"), why
        _assert_drained_by_the_prolog(cluster, f"driver.missing {MARK}")
    finally:
        subprocess.run(["scancel", job], env=cluster.env, timeout=20, capture_output=True)
        cluster.set_args("prolog", "--timeout", str(PROLOG_BOUND), "--allow-cpu")
    _resume_after_prolog(cluster)

    job = _job(cluster, marker)  # a passing prolog lets the job run
    wait_for("the job to complete", lambda: _job_state(cluster, job)[0] == "COMPLETED", 60)
    assert marker.exists()


def test_a_hung_nvidia_smi_never_hangs_slurmd(cluster: Cluster) -> None:
    fake = cluster.tmp / "bin" / "nvidia-smi"
    fake.write_text("#!/bin/sh\n# a driver that never answers\nexec sleep 3600\n")
    fake.chmod(0o755)
    try:
        cluster.set_args("health", "--timeout", "8", "--allow-cpu")
        wait_for("a health check to start with the hung nvidia-smi", lambda: any(
            "sleep 3600" in line for line in cluster.daemons.leftovers()), 30)
        start = time.monotonic()
        cluster.run("scontrol", "show", "slurmd", timeout=10)  # slurmd answers while the check hangs
        assert time.monotonic() - start < 5
        wait_for("the hung check to end, stopped at its bound, draining the node",
                 lambda: cluster.node() == ("drained", f"check-timed-out-8s {MARK}"), 30)
    finally:
        fake.unlink()
    # every run that saw the hung nvidia-smi ends within its 8 s and kills the nvidia-smi it started
    wait_for("every hung nvidia-smi to be killed", lambda: not [
        p for p in cluster.daemons.leftovers() if "sleep 3600" in p], 8 + HEALTH_EVERY + 10)
    cluster.set_args("health", "--timeout", "30", "--allow-cpu")
    wait_for("the health check to resume the node", lambda: cluster.node()[0] == "idle", 60)
    cluster.daemons.check_running()


def _assert_drained_by_the_prolog(cluster: Cluster, why: str) -> None:
    """tfdoctor drained the node with the root cause; slurmctld, seeing the prolog fail, may drain
    it again with its own "Prolog error" (a race between the two): the prolog's output names the
    root cause either way."""
    log = cluster.tmp / "prolog.log"
    assert f"drained {NODE}: {why}" in log.read_text(), log.read_text()[-2000:]
    state, reason_now = cluster.node()
    if "drain" in state:
        assert reason_now in (why, "Prolog error"), (state, reason_now)
    else:  # the periodic health check, passing here, has resumed the node tfdoctor drained: it says so
        health = cluster.tmp / "health.log"
        wait_for("the health check's resume", lambda: health.exists()
                 and f"resumed {NODE} (drained by tfdoctor: {why})" in health.read_text(), 5)


def _resume_after_prolog(cluster: Cluster) -> None:
    """A passing health check resumes a node tfdoctor drained; one Slurm drained ("Prolog error")
    stays drained for an administrator, who resumes it here."""
    if cluster.node()[1] == "Prolog error":
        cluster.run("scontrol", "update", f"NodeName={NODE}", "State=RESUME")
    wait_for("the node to be idle again", lambda: cluster.node()[0] == "idle", 60)


def test_a_hung_prolog_check_is_stopped_at_its_bound(cluster: Cluster) -> None:
    """The prolog's check hangs on nvidia-smi: it is stopped at its --timeout, well before Slurm's
    PrologEpilogTimeout, and the job is not started on the node."""
    wait_for("an idle node", lambda: cluster.node()[0] == "idle", 60)
    fake = cluster.tmp / "prolog-bin" / "nvidia-smi"  # on the prolog's PATH only
    fake.parent.mkdir(exist_ok=True)
    fake.write_text("#!/bin/sh\n# a driver that never answers\nexec sleep 3600\n")
    fake.chmod(0o755)
    marker = cluster.tmp / "hung-job-ran"
    cluster.set_args("prolog", "--timeout", "6", "--allow-cpu")
    start = time.monotonic()
    job = _job(cluster, marker)
    try:
        cluster.wait_runs("prolog", 1, timeout=PROLOG_TIMEOUT)
        took = time.monotonic() - start
        state, why = wait_for("the job to be requeued or failed",
                              lambda: (s := _job_state(cluster, job))[0] in ("PENDING", "FAILED") and s, 30)
        print(f"hung prolog stopped after {took:.1f} s; job {job}: {state} ({why}); node: {cluster.node()}")
        assert took < 6 + 5 < PROLOG_TIMEOUT and not marker.exists()
        _assert_drained_by_the_prolog(cluster, f"check-timed-out-6s {MARK}")
    finally:
        fake.unlink()
        subprocess.run(["scancel", job], env=cluster.env, timeout=20, capture_output=True)
        cluster.set_args("prolog", "--timeout", str(PROLOG_BOUND), "--allow-cpu")
    wait_for("every hung nvidia-smi to be killed", lambda: not [
        p for p in cluster.daemons.leftovers() if "sleep 3600" in p], 20)
    _resume_after_prolog(cluster)
