"""Cluster preflight: TF_CONFIG validation and the multi-worker collective's verdict.

`parse_tf_config` is a pure parser (the collective probe uses it too); the checks read
TF_CONFIG from facts system.env, this host's names/addresses from facts collective, and the
collective's outcome from facts collective (see tfdoctor/probes/collective.py).
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass
from typing import Any

from tfdoctor import facts as fc
from tfdoctor import jsonsafe
from tfdoctor import plan as P
from tfdoctor.checks import check
from tfdoctor.checks import remedies as rm
from tfdoctor.model import Finding, Status

DOCS = "https://www.tensorflow.org/api_docs/python/tf/distribute/cluster_resolver/TFConfigClusterResolver"
GUIDE = "https://www.tensorflow.org/tutorials/distribute/multi_worker_with_keras"
EXAMPLE = (  # shown as code inside the prose of a fix
    """`export TF_CONFIG='{"cluster": {"worker": ["node1:12345", "node2:12345"]}, """
    """"task": {"type": "worker", "index": 0}}'`"""
)
SEE = "(docs/multiworker.md shows how to derive it under Slurm and Kubernetes)"
KNOWN_JOBS = ("chief", "worker", "ps", "evaluator", "master")
COLLECTIVE_JOBS = ("chief", "worker")  # the tasks MultiWorkerMirroredStrategy runs on


@dataclass(frozen=True)
class Task:
    job: str
    index: int
    address: str

    @property
    def name(self) -> str:
        return f"{self.job}:{self.index}"

    @property
    def host(self) -> str:
        return split_address(self.address)[0]


@dataclass(frozen=True)
class ClusterConfig:
    tasks: tuple[Task, ...]
    task_type: str | None
    task_index: int | None

    @property
    def me(self) -> Task | None:
        return next((t for t in self.tasks if (t.job, t.index) == (self.task_type, self.task_index)), None)

    @property
    def members(self) -> list[Task]:
        """The tasks a MultiWorkerMirroredStrategy collective spans."""
        return [t for t in self.tasks if t.job in COLLECTIVE_JOBS]

    @property
    def peers(self) -> list[Task]:
        return [t for t in self.members if t != self.me]


@dataclass(frozen=True)
class Problem:
    id: str
    status: Status
    title: str
    detail: str
    fix: str  # what to change in TF_CONFIG, in words (the plan's note)

    def finding(self) -> Finding:
        return Finding(self.id, self.status, self.title, self.detail, docs=DOCS,
                       facts=("system.env.TF_CONFIG",), plan=rm.plan({}, P.note(self.fix)))


def split_address(address: str) -> tuple[str, str]:
    """'host:port' or '[v6]:port' -> (host, port text); no validation."""
    host, sep, port = address.rpartition(":")
    if not sep:
        return address, ""
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host, port


def address_problem(address: str) -> str | None:
    """Why `address` is not a usable host:port, or None."""
    host, port = split_address(address.strip())
    if address != address.strip() or any(c.isspace() for c in address):
        return "it contains whitespace"
    if "://" in address:
        return "TF_CONFIG addresses are host:port without a scheme"
    if not port:
        return "it has no :port"
    if not host:
        return "it has no host before the :port"
    if ":" in host and not address.startswith("["):
        return "an IPv6 address must be in brackets, e.g. [fe80::1]:12345"
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        return f"port {port!r} is not a number from 1 to 65535"
    return None


def is_loopback(host: str) -> bool:
    if host.lower() in ("localhost", "localhost.localdomain", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _quote(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _invalid(title: str, detail: str, fix: str = "") -> Problem:
    return Problem(
        "distributed.tf-config-invalid",
        Status.FAIL,
        title,
        detail,
        fix or f"Set TF_CONFIG to a JSON object with a cluster and this process's task, e.g. {EXAMPLE} {SEE}",
    )


def _json_problem(text: str, exc: json.JSONDecodeError) -> Problem:
    near = text[max(0, exc.pos - 25) : exc.pos] + " ⟵ here ⟶ " + text[exc.pos : exc.pos + 25]
    fix = f"Set TF_CONFIG to valid JSON, e.g. {EXAMPLE}"
    if '"' not in text and "'" not in text:
        fix = (
            "The value has no double quotes: the shell removed them. Wrap the whole JSON in single "
            f"quotes, e.g. {EXAMPLE}"
        )
    elif "'" in text and '"' not in text:
        fix = f"JSON needs double quotes around names and strings, not single quotes, e.g. {EXAMPLE}"
    return _invalid(
        f"TF_CONFIG is not valid JSON: {exc.msg} (line {exc.lineno} column {exc.colno})",
        f"TF_CONFIG={_quote(text, 200)}\nnear: {near}",
        fix,
    )


def _tasks(cluster: dict[str, Any], problems: list[Problem]) -> list[Task]:
    tasks: list[Task] = []
    for job, entries in cluster.items():
        if isinstance(entries, dict):  # ClusterSpec also accepts {index: address}
            pairs = []
            for key, addr in entries.items():
                if not str(key).isdigit():
                    problems.append(
                        _invalid(
                            f"TF_CONFIG cluster.{job} has a task index {key!r} that is not a number",
                            f"cluster.{job} = {_quote(entries)}",
                            f'Use a list of "host:port" strings for cluster.{job}, e.g. '
                            '["node1:12345", "node2:12345"]',
                        )
                    )
                    continue
                pairs.append((int(key), addr))
        elif isinstance(entries, list):
            pairs = list(enumerate(entries))
        else:
            problems.append(
                _invalid(
                    f"TF_CONFIG cluster.{job} is not a list of addresses",
                    f"cluster.{job} = {_quote(entries)}",
                    f'Make cluster.{job} a list of "host:port" strings, '
                    f'e.g. "{job}": ["node1:12345", "node2:12345"]',
                )
            )
            continue
        if job not in KNOWN_JOBS:
            problems.append(
                Problem(
                    "distributed.tf-config-invalid",
                    Status.WARN,
                    f"TF_CONFIG cluster has an unusual job name {job!r}",
                    f"Known job names: {', '.join(KNOWN_JOBS)}; cluster.{job} = {_quote(entries)}",
                    f'Rename cluster.{job} to "worker" (or "chief" for the coordinating task), unless '
                    "your own code expects this name",
                )
            )
        for index, addr in pairs:
            why = "it is not a string" if not isinstance(addr, str) else address_problem(addr)
            if why:
                problems.append(
                    Problem(
                        "distributed.address-invalid",
                        Status.FAIL,
                        f"TF_CONFIG {job}:{index} address {_quote(addr)!r} is not host:port: {why}",
                        f"cluster.{job}[{index}] = {_quote(addr)}",
                        f'Write each address as "host:port", e.g. "node{index + 1}:12345" '
                        '(IPv6: "[fe80::1]:12345")',
                    )
                )
                continue
            tasks.append(Task(job, index, addr))
    return tasks


def _task_problems(
    data: dict[str, Any], tasks: list[Task], jobs: dict[str, int]
) -> tuple[str | None, int | None, list[Problem]]:
    task = data.get("task")
    counts = ", ".join(f"{job}: {n} task{'s' if n != 1 else ''}" for job, n in jobs.items())
    example = '"task": {"type": "worker", "index": 0}'
    if task is None:
        return (
            None,
            None,
            [
                Problem(
                    "distributed.task-invalid",
                    Status.FAIL,
                    "TF_CONFIG has a cluster but no task",
                    f"cluster: {counts}; every process must say which of these it is.",
                    f"Add this process's own task to TF_CONFIG, e.g. {example} "
                    "(index 0 on the first node, 1 on "
                    f"the second, ...) {SEE}",
                )
            ],
        )
    if not isinstance(task, dict):
        return (
            None,
            None,
            [
                Problem(
                    "distributed.task-invalid",
                    Status.FAIL,
                    "TF_CONFIG task is not an object",
                    f"task = {_quote(task)}",
                    f"Write the task as an object, e.g. {example}",
                )
            ],
        )
    problems: list[Problem] = []
    task_type, index = task.get("type"), task.get("index")
    if not isinstance(task_type, str) or not task_type:
        problems.append(
            Problem(
                "distributed.task-invalid",
                Status.FAIL,
                "TF_CONFIG task has no type",
                f"task = {_quote(task)}",
                f'Add "type": one of {", ".join(jobs) or "worker"}, e.g. {example}',
            )
        )
        task_type = None
    elif task_type not in jobs and task_type != "evaluator":
        problems.append(
            Problem(
                "distributed.task-invalid",
                Status.FAIL,
                f"TF_CONFIG task type {task_type!r} is not a job in the cluster",
                f"task = {_quote(task)}; cluster jobs: {counts}",
                f"Set task.type to one of {', '.join(repr(j) for j in jobs)} "
                "(the job this process belongs to)",
            )
        )
    if isinstance(index, str) and index.isdigit():
        index = int(index)
    if index is None:
        problems.append(
            Problem(
                "distributed.task-invalid",
                Status.FAIL,
                "TF_CONFIG task has no index",
                f"task = {_quote(task)}",
                f'Add "index": this process\'s position in cluster.{task_type or "worker"}, counting from 0',
            )
        )
    elif isinstance(index, bool) or not isinstance(index, int):
        problems.append(
            Problem(
                "distributed.task-invalid",
                Status.FAIL,
                f"TF_CONFIG task index {_quote(index)!r} is not a whole number",
                f"task = {_quote(task)}",
                f'Set "index" to a whole number, e.g. {example}',
            )
        )
        index = None
    elif task_type in jobs and not any(t.job == task_type and t.index == index for t in tasks):
        size = jobs[task_type]
        problems.append(
            Problem(
                "distributed.task-invalid",
                Status.FAIL,
                f"TF_CONFIG task index {index} is out of range: cluster.{task_type} has {size} "
                f"task{'s' if size != 1 else ''} (indices 0 to {size - 1})",
                f"task = {_quote(task)}; cluster.{task_type} = "
                f"{_quote([t.address for t in tasks if t.job == task_type], 200)}",
                f"Set task.index to this host's position in cluster.{task_type} (0 to {size - 1}), "
                "or add this "
                f"host's address to cluster.{task_type}",
            )
        )
    return task_type, index, problems


def parse_tf_config(text: str) -> tuple[ClusterConfig | None, list[Problem]]:
    """TF_CONFIG text -> (the cluster, problems). The config is None when it cannot be used at all."""
    try:
        data = jsonsafe.loads(text)  # nesting and numbers bounded: a hostile value is a problem, not a crash
    except jsonsafe.InputError as exc:
        if isinstance(exc.__cause__, json.JSONDecodeError):
            return None, [_json_problem(text, exc.__cause__)]
        return None, [_invalid(f"TF_CONFIG cannot be read: it is {exc}", f"TF_CONFIG={_quote(text, 200)}")]
    if not isinstance(data, dict):
        return None, [_invalid("TF_CONFIG is not a JSON object", f"TF_CONFIG={_quote(text, 200)}")]
    cluster = data.get("cluster")
    if not isinstance(cluster, dict) or not cluster:
        if cluster is None:
            keys = ", ".join(data) or "none"
            return None, [_invalid("TF_CONFIG has no cluster", f"TF_CONFIG keys: {keys}")]
        return None, [_invalid("TF_CONFIG has an empty or malformed cluster", f"cluster = {_quote(cluster)}")]
    problems: list[Problem] = []
    tasks = _tasks(cluster, problems)
    jobs = {job: sum(1 for t in tasks if t.job == job) for job in cluster}
    if jobs.get("chief", 0) > 1 or jobs.get("evaluator", 0) > 1:
        job = "chief" if jobs.get("chief", 0) > 1 else "evaluator"
        problems.append(
            _invalid(
                f"TF_CONFIG has {jobs[job]} {job} tasks; TensorFlow allows at most one",
                f"cluster.{job} = {_quote(cluster[job])}",
                f"Keep one address in cluster.{job} and move the others to cluster.worker",
            )
        )
    if jobs.get("ps") and not jobs.get("chief") and not jobs.get("master"):
        # ParameterServerStrategy's coordinator and the Estimator's RunConfig both need a chief beside ps
        # ('If "cluster" is set in TF_CONFIG, it must have one "chief" node.')
        problems.append(
            _invalid(
                "TF_CONFIG has parameter servers but no chief",
                f"cluster jobs: {', '.join(sorted(cluster))}. With ps tasks, training is coordinated by the"
                " chief (ParameterServerStrategy's coordinator, the Estimator's chief worker); TensorFlow"
                " refuses a cluster without one.",
                "Add a chief task (cluster.chief with one address; in a TFJob, a Chief replica spec)",
            )
        )
    seen: dict[str, Task] = {}
    for task in tasks:
        key = task.address.lower()
        if key in seen:
            problems.append(
                Problem(
                    "distributed.address-duplicate",
                    Status.FAIL,
                    f"TF_CONFIG gives {seen[key].name} and {task.name} the same address {task.address}",
                    "Two tasks cannot listen on one host:port.",
                    f"Give {task.name} its own port or host, "
                    f"e.g. {task.host}:{int(split_address(task.address)[1]) + 1}",
                )
            )
        else:
            seen[key] = task
    hosts = {t.host for t in tasks}
    loopback = sorted(h for h in hosts if is_loopback(h))
    if loopback and len(hosts) > len(loopback):
        problems.append(
            Problem(
                "distributed.address-loopback",
                Status.WARN,
                f"TF_CONFIG mixes loopback ({', '.join(loopback)}) with other hosts",
                "A loopback address means 'this machine' on every host, so the other hosts cannot reach it.",
                "Use each node's hostname or network address instead of localhost/127.0.0.1 in cluster",
            )
        )
    task_type, index, task_problems = _task_problems(data, tasks, jobs)
    problems += task_problems
    return ClusterConfig(tuple(tasks), task_type, index), problems


def host_problem(
    config: ClusterConfig, names: set[str], addresses: set[str], resolved: list[str] | None
) -> Problem | None:
    """A warning when this task's address names another machine; None when it is this host or unknown."""
    me = config.me
    if me is None or (not names and not addresses):
        return None
    names = {n.lower() for n in names}

    def local(host: str, via: list[str] | None = None) -> bool:
        return (
            is_loopback(host)
            or host.lower() in names
            or (not _is_ip(host) and host.lower().split(".")[0] in names)  # node1.cluster on node1
            or host in addresses
            or bool(set(via or ()) & addresses)
        )

    if local(me.host, resolved):
        return None
    mine = [t for t in config.tasks if t != me and local(t.host)]
    shown = ", ".join(sorted(names | addresses))
    if mine:
        fix = (
            f"This host appears in TF_CONFIG as {mine[0].name} ({mine[0].address}): set task.type to "
            f'"{mine[0].job}" and task.index to {mine[0].index} on this host'
        )
    else:
        fix = (
            f"Add this host to cluster.{me.job} and point task.index at it, or run this TF_CONFIG on "
            f"{me.host} {SEE}"
        )
    tried = f" ({me.host} resolves to {', '.join(resolved)})" if resolved else ""
    return Problem(
        "distributed.host-not-in-cluster",
        Status.WARN,
        f"TF_CONFIG says this process is {me.name} at {me.address}, which is not this host",
        f"This host's names and addresses: {shown}{tried}. Behind a Kubernetes Service the address may "
        "legitimately be the Service's name.",
        fix,
    )


@check(
    "distributed.tf-config",
    "distributed.tf-config-invalid",
    "distributed.task-invalid",
    "distributed.address-invalid",
    "distributed.address-duplicate",
    "distributed.address-loopback",
    "distributed.host-not-in-cluster",
)
def tf_config(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    """Validate TF_CONFIG whenever it is set."""
    env = (facts.get("system") or {}).get("env") or {}
    text = env.get("TF_CONFIG") if isinstance(env, dict) else None
    if text is None:
        return _rejected(facts)
    if text == "<redacted>":
        return [
            Finding(
                "distributed.tf-config",
                Status.SKIP,
                "TF_CONFIG was redacted from this report; not validated",
                docs=DOCS,
                facts=("system.env.TF_CONFIG",),
            )
        ]
    config, problems = parse_tf_config(text)
    coll = facts.get("collective") if isinstance(facts.get("collective"), dict) else {}
    if config is not None and not any(p.status == Status.FAIL for p in problems):
        names = set(coll.get("local_names") or ())
        hostname = (facts.get("system") or {}).get("hostname")
        if hostname:
            names |= {hostname, hostname.split(".")[0]}
        found = host_problem(
            config, names, set(coll.get("local_addresses") or ()), coll.get("task_host_addresses")
        )
        if found:
            problems.append(found)
    findings = [p.finding() for p in problems]
    if config is not None and not any(p.status == Status.FAIL for p in problems):
        me = config.me
        jobs = sorted({t.job for t in config.tasks})
        counts = {j: sum(t.job == j for t in config.tasks) for j in jobs}
        sizes = ", ".join(f"{n} {j}{'s' if n != 1 and j != 'chief' else ''}" for j, n in counts.items())
        where = f"this process is {me.name} ({me.address})" if me else f"this process is {config.task_type}"
        findings.append(
            Finding(
                "distributed.tf-config",
                Status.PASS,
                f"TF_CONFIG: {sizes}; {where}",
                docs=DOCS,
                facts=("system.env.TF_CONFIG",),
            )
        )
    return findings


def _rejected(facts: dict[str, Any]) -> list[Finding]:
    """TensorFlow itself refused the cluster it was given (a task outside its job, a port it cannot
    parse or bind), where the TF_CONFIG or ClusterSpec behind it is not shown."""
    items = fc.log_items(facts, "cluster-config")
    if not items:
        return []
    item = next((i for i in items if i.get("problem") != "in-use"), items[0])
    if item.get("problem") == "in-use":
        port = f" {item['port']}" if item.get("port") else ""
        fid, title = "distributed.address-duplicate", f"This task's port{port} was already in use on its host"
        fix = ("Give every task on one host its own port in the cluster (TF_CONFIG or the ClusterSpec), and"
               f" check nothing else listens there: `ss -ltnp | grep {item.get('port') or 'PORT'}`")
        detail = ("TensorFlow's gRPC server could not bind its address: two tasks were placed on one host"
                  " with the same port, or an earlier run still holds it.")
    elif item.get("problem") == "config":
        fid, title = "distributed.tf-config-invalid", "TensorFlow refused the TF_CONFIG it was given"
        fix = ('Give TF_CONFIG\'s cluster a "chief" job with one address (the estimator and the'
               " multi-worker strategies need one), or let the launcher write TF_CONFIG")
        detail = "TensorFlow checked TF_CONFIG's cluster and found it malformed for this run: " + str(
            item.get("text") or "")[:200]
    elif item.get("problem") == "address":
        shown = repr(item["address"]) if item.get("address") else "(an empty address)"
        fid, title = "distributed.address-invalid", f"TensorFlow could not parse this task's address {shown}"
        fix = ("Give every task a host:port with a port from 1 to 65535 in TF_CONFIG's cluster (or the"
               " ClusterSpec)")
        detail = ("This task's own address in the cluster it was given has no usable port, so its server"
                  " cannot start.")
    else:
        job = item.get("job") or item.get("task_type") or "its job"
        what = f"task {item['index']} of {job}" if item.get("index") else f"task type {job}"
        fid, title = "distributed.task-invalid", f"TensorFlow's cluster has no {what}"
        fix = ("Make task.type one of the cluster's jobs and task.index smaller than that job's number of"
               " addresses, on every host")
        detail = ("The task this process was told to be is not in the cluster it was given (TF_CONFIG's task"
                  " against its cluster, or job_name/task_index against a ClusterSpec).")
    return [Finding(fid, Status.FAIL, title, detail=detail, plan=rm.plan(facts, P.note(f"{fix} {SEE}")),
                    docs=DOCS, facts=("log.evidence",), evidence=fc.quote(facts, items))]


def _collective_fix(facts: dict[str, Any], coll: dict[str, Any]) -> P.Plan:
    stage, unreachable = coll.get("stage"), coll.get("unreachable") or []
    peers = {p.get("task"): p.get("address") for p in coll.get("peers") or [] if isinstance(p, dict)}
    if unreachable:
        where = ", ".join(f"{t} ({peers.get(t, '?')})" for t in unreachable)
        return rm.plan(facts, P.note(
            f"Start `tfdoctor check --multiworker` on {where} at the same time as on this host (e.g. one "
            "`srun` for all nodes), and make sure this host can reach that host:port (firewall, security "
            f"group, NetworkPolicy): `nc -vz HOST PORT` from here. {SEE}"))
    if stage == "import":
        return rm.plan(facts, P.note("Install TensorFlow in the interpreter tfdoctor checks (--python), e.g."
                                     ' `python -m pip install "tensorflow[and-cuda]"`; every worker needs the'
                                     " same version"))
    if stage == "bind":
        return rm.plan(facts, P.system("ss -ltnp | grep PORT", "stop whatever listens on this task's port, or"
                                       " give every process its own task index so that no two use the same"
                                       " address"))
    if stage == "compare" or any(m.get("key") == "tensorflow" for m in coll.get("mismatches") or []):
        mine = str(coll.get("tensorflow") or "")
        req = rm.tf_requirement(mine, exact=True) if mine else "tensorflow[and-cuda]==X.Y.Z"
        return rm.plan(facts, P.note(f"Install the same TensorFlow on every worker, e.g."
                                     f" `python -m pip install \"{req}\"`"))
    if (
        coll.get("timed_out")
        or stage in ("join", "all-reduce", "all-gather")
        or str(stage).startswith("train")
    ):
        return rm.plan(facts, P.note(
            "Every worker must run with the same cluster in TF_CONFIG and its own task index; check that all "
            "of them started and that none reports a different cluster; then rerun with a larger --timeout"))
    return rm.plan(facts, P.note(
        "Read the worker's log in `tfdoctor report --json` (facts.collective.log) and fix the error it"
        " shows"))


@check("distributed.collective", "distributed.peer-drift")
def collective(facts: dict[str, Any], matrix: Any) -> list[Finding]:
    """Judge the multi-worker collective (only when --multiworker asked for it)."""
    coll = facts.get("collective")
    if not isinstance(coll, dict):
        return []
    used = ("collective",)
    if coll.get("probe_failed"):
        return [
            Finding(
                "distributed.collective",
                Status.FAIL,
                "The multi-worker collective probe failed",
                str(coll.get("error") or ""),
                docs=GUIDE,
                facts=used,
                plan=rm.plan(facts, P.note("Rerun with a larger --timeout; if it persists, report it with"
                                           " `tfdoctor report --json` attached")),
            )
        ]
    if not coll.get("requested"):
        return []
    if not coll.get("ran"):
        reason = coll.get("skipped") or coll.get("error") or "unknown reason"
        status = Status.SKIP if coll.get("not_a_member") else Status.FAIL
        fix = (
            None
            if status == Status.SKIP
            else rm.plan(facts, P.note(
                "Set TF_CONFIG on every worker and run `tfdoctor check --multiworker` on all of them at once,"
                f" e.g. {EXAMPLE} {SEE}"))
        )
        return [
            Finding(
                "distributed.collective",
                status,
                f"Multi-worker collective not run: {reason}",
                plan=fix,
                docs=GUIDE,
                facts=used,
            )
        ]
    members = coll.get("members") or []
    findings: list[Finding] = []
    drift = [m for m in coll.get("mismatches") or [] if m.get("key") in ("python", "driver")]
    if drift:
        lines = [
            f"{m['task']}: {m['key']} {m.get('theirs') or 'none'} (this host: {m.get('mine') or 'none'})"
            for m in drift
        ]
        findings.append(
            Finding(
                "distributed.peer-drift",
                Status.WARN,
                "Workers run different Python or driver versions",
                "\n".join(lines),
                docs=GUIDE,
                facts=used,
                plan=rm.plan(facts, P.note("Build every node from one image: the same Python, TensorFlow and"
                                           " NVIDIA driver")),
            )
        )
    if coll.get("ok"):
        steps = len([s for s in coll.get("steps") or [] if str(s.get("name", "")).startswith("train")])
        seconds = coll.get("seconds")
        took = f" in {seconds:.1f} s" if isinstance(seconds, (int, float)) else ""
        tasks = ", ".join(m.get("task", "?") for m in members)
        findings.append(
            Finding(
                "distributed.collective",
                Status.PASS,
                f"Collective across {len(members)} workers: all-reduce, all-gather and {steps} synchronized "
                f"training steps{took}",
                f"workers: {tasks}; {coll.get('replicas')} replicas; "
                f"{coll.get('implementation')} communication; "
                f"losses {coll.get('losses')}",
                docs=GUIDE,
                facts=used,
            )
        )
        return findings
    error = coll.get("error") or "the collective worker gave no result"
    findings.append(
        Finding(
            "distributed.collective",
            Status.FAIL,
            f"Multi-worker collective failed: {error}",
            f"this task: {coll.get('task')} ({coll.get('address')}); stage: {coll.get('stage')}; "
            f"after {coll.get('elapsed')} s",
            docs=GUIDE,
            facts=used,
            plan=_collective_fix(facts, coll),
        )
    )
    return findings
