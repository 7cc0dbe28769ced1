"""TF_CONFIG validation and the collective verdict: pure functions, facts dicts in, findings out;
plus the real CLI judging a bad TF_CONFIG (no TensorFlow import, no network)."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from schema_check import validate

from tfdoctor.checks.distributed import collective, host_problem, parse_tf_config, tf_config
from tfdoctor.model import Status
from tfdoctor.probes import Context
from tfdoctor.probes.collective import budget, local_names, parse_output, probe
from tfdoctor.worker import collective as worker


def tfc(workers, index=0, task_type="worker", **cluster) -> str:
    task = {"type": task_type, "index": index}
    return json.dumps({"cluster": {"worker": workers, **cluster}, "task": task})


def facts_for(text: str | None, hostname: str = "node1", names=(), addresses=("127.0.0.1",), resolved=None):
    env = {} if text is None else {"TF_CONFIG": text}
    return {
        "system": {"hostname": hostname, "env": env},
        "collective": {"requested": False, "ran": False, "local_names": list(names),
                       "local_addresses": list(addresses), "task_host_addresses": resolved},
    }


def by_id(findings):
    return {f.id: f for f in findings}


# --- parse_tf_config ------------------------------------------------------------------------


def test_valid_cluster_parses_into_tasks_and_peers():
    config, problems = parse_tf_config(tfc(["node1:2222", "node2:2222"], 1, chief=["node0:2222"], ps=["p:1"]))
    assert problems == []
    assert config.me.name == "worker:1" and config.me.address == "node2:2222"
    assert [t.name for t in config.peers] == ["worker:0", "chief:0"] or {t.name for t in config.peers} == {
        "worker:0", "chief:0"}
    assert "ps:0" not in {t.name for t in config.members}


def test_parameter_servers_without_a_chief_are_refused():
    _config, problems = parse_tf_config(tfc(["w0:2222"], ps=["p0:2222", "p1:2222"]))
    assert [(p.id, p.title) for p in problems] == [
        ("distributed.tf-config-invalid", "TF_CONFIG has parameter servers but no chief")]
    for coordinator in ({"chief": ["c:1"]}, {"master": ["m:1"]}):  # the Estimator's older name for it
        assert parse_tf_config(tfc(["w0:2222"], ps=["p0:2222"], **coordinator))[1] == []
    assert parse_tf_config(tfc(["w0:2222", "w1:2222"]))[1] == []  # workers alone: worker 0 coordinates


@pytest.mark.parametrize(
    ("text", "title_part", "detail_part", "fix_part"),
    [
        ('{"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 0}',
         "not valid JSON", "⟵ here ⟶", "valid JSON"),
        ("{cluster:{worker:[a:1]},task:{type:worker,index:0}}", "not valid JSON", "cluster", "single quotes"),
        ("{'cluster': {'worker': ['a:1']}}", "not valid JSON", "'cluster'", "double quotes"),
        ("[1, 2]", "not a JSON object", "[1, 2]", "export TF_CONFIG="),
        ('{"task": {"type": "worker", "index": 0}}', "has no cluster", "keys: task", "export TF_CONFIG="),
        ('{"cluster": {}, "task": {"type": "worker", "index": 0}}', "empty or malformed cluster", "{}", ""),
        ('{"cluster": {"worker": "a:1,b:1"}, "task": {"type": "worker", "index": 0}}',
         "cluster.worker is not a list", "a:1,b:1", "list of"),
        (tfc(["a:1"], chief=["c:1", "d:1"]), "2 chief tasks", '["c:1", "d:1"]', "Keep one"),
    ],
)
def test_malformed_tf_config_is_invalid_and_quotes_the_offending_part(text, title_part, detail_part,
                                                                      fix_part):
    _, problems = parse_tf_config(text)
    bad = [p for p in problems if p.id == "distributed.tf-config-invalid" and p.status == Status.FAIL]
    assert bad, problems
    assert title_part in bad[0].title
    assert detail_part in bad[0].detail
    assert fix_part in bad[0].fix


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("node1", "no :port"),
        ("node1:0", "1 to 65535"),
        ("node1:70000", "1 to 65535"),
        ("node1:http", "'http'"),
        (":2222", "no host"),
        ("grpc://node1:2222", "without a scheme"),
        ("fe80::1:2222", "brackets"),
        ("node 1:2222", "whitespace"),
        (2222, "not a string"),
    ],
)
def test_bad_addresses_are_named(address, why):
    _, problems = parse_tf_config(tfc(["node0:2222", address]))
    bad = by_id(problems)["distributed.address-invalid"]
    assert bad.status == Status.FAIL and why in bad.title and "worker:1" in bad.title
    assert "host:port" in bad.fix


def test_ipv6_in_brackets_and_dict_cluster_are_accepted():
    config, problems = parse_tf_config(json.dumps({
        "cluster": {"worker": {"0": "[::1]:2222", "1": "[::1]:2223"}},
        "task": {"type": "worker", "index": "1"},
    }))
    assert problems == []
    assert config.me.address == "[::1]:2223" and config.me.host == "::1"


@pytest.mark.parametrize(
    ("task", "title_part"),
    [
        (None, "no task"),
        ("worker0", "not an object"),
        ({"index": 0}, "no type"),
        ({"type": "wroker", "index": 0}, "'wroker' is not a job"),
        ({"type": "worker"}, "no index"),
        ({"type": "worker", "index": 1.5}, "not a whole number"),
        ({"type": "worker", "index": True}, "not a whole number"),
        ({"type": "worker", "index": 2}, "index 2 is out of range: cluster.worker has 2 tasks (indices 0"),
        ({"type": "worker", "index": -1}, "out of range"),
    ],
)
def test_bad_task_is_task_invalid(task, title_part):
    data = {"cluster": {"worker": ["node1:2222", "node2:2222"]}}
    if task is not None:
        data["task"] = task
    _, problems = parse_tf_config(json.dumps(data))
    bad = by_id(problems)["distributed.task-invalid"]
    assert bad.status == Status.FAIL and title_part in bad.title, bad.title
    assert bad.fix


def test_duplicates_and_mixed_loopback():
    _, problems = parse_tf_config(tfc(["node1:2222", "NODE1:2222", "localhost:2223"]))
    found = by_id(problems)
    assert "worker:0 and worker:1" in found["distributed.address-duplicate"].title
    assert found["distributed.address-duplicate"].fix.endswith("NODE1:2223")
    assert found["distributed.address-loopback"].status == Status.WARN
    # All on loopback (one machine) is fine.
    assert parse_tf_config(tfc(["127.0.0.1:1", "localhost:2"]))[1] == []


def test_evaluator_needs_no_cluster_entry_and_unknown_jobs_warn():
    _, problems = parse_tf_config(tfc(["a:1"], task_type="evaluator"))
    assert problems == []
    _, problems = parse_tf_config(json.dumps({"cluster": {"trainer": ["a:1"]}, "task": {"type": "trainer",
                                                                                       "index": 0}}))
    assert [(p.id, p.status) for p in problems] == [("distributed.tf-config-invalid", Status.WARN)]


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["cluster", "task", "worker", "chief", "type", "index", "0", "x"]), inner,
        max_size=4),
    max_leaves=20,
).map(json.dumps)))
def test_parser_never_raises_and_every_problem_has_a_fix(text):
    config, problems = parse_tf_config(text)
    for p in problems:
        assert p.id.startswith("distributed.") and p.title and p.fix
    if config is None:
        assert problems


# --- host check -------------------------------------------------------------------------------


def test_host_in_cluster_by_name_address_or_resolution():
    config, _ = parse_tf_config(tfc(["node1:2222", "node2:2222"], 0))
    assert host_problem(config, {"node1"}, {"10.0.0.1"}, None) is None
    assert host_problem(config, {"other"}, {"10.0.0.1"}, ["10.0.0.1"]) is None
    assert host_problem(config, set(), set(), None) is None  # nothing known: no guess
    # A qualified name in TF_CONFIG (a Kubernetes headless Service, a cluster domain) on its short-named host.
    config, _ = parse_tf_config(tfc(["job-0.svc:2222", "job-1.svc:2222"], 1))
    assert host_problem(config, {"job-1"}, {"10.0.0.2"}, None) is None
    assert host_problem(config, {"job-0"}, {"10.0.0.2"}, None).fix.endswith("task.index to 0 on this host")


def test_wrong_index_on_the_right_host_says_which_index_to_use():
    config, _ = parse_tf_config(tfc(["node1:2222", "node2:2222"], 0))
    warn = host_problem(config, {"node2"}, {"10.0.0.2"}, ["10.0.0.1"])
    assert warn.id == "distributed.host-not-in-cluster" and warn.status == Status.WARN
    assert "worker:0 at node1:2222" in warn.title
    assert "worker:1 (node2:2222)" in warn.fix and "task.index to 1" in warn.fix
    assert "10.0.0.1" in warn.detail


# --- the tf_config check ----------------------------------------------------------------------


def test_check_is_silent_without_tf_config_and_passes_a_good_one():
    assert tf_config(facts_for(None), None) == []
    found = by_id(tf_config(facts_for(tfc(["node1:2222", "node2:2222"], 0)), None))
    assert found["distributed.tf-config"].status == Status.PASS
    assert "2 workers;" in found["distributed.tf-config"].title and "worker:0 (node1:2222)" in found[
        "distributed.tf-config"].title


def test_check_flags_a_host_that_is_not_in_the_cluster():
    found = by_id(tf_config(facts_for(tfc(["node1:2222", "node2:2222"], 1), hostname="node1"), None))
    assert found["distributed.host-not-in-cluster"].status == Status.WARN
    assert "task.index to 0" in found["distributed.host-not-in-cluster"].fix


def test_check_reports_redacted_and_invalid():
    assert tf_config(facts_for("<redacted>"), None)[0].status == Status.SKIP
    found = by_id(tf_config(facts_for("{nope"), None))
    assert found["distributed.tf-config-invalid"].status == Status.FAIL
    assert "distributed.tf-config" not in found


# --- the collective check ---------------------------------------------------------------------

OK = {
    "requested": True, "ran": True, "ok": True, "seconds": 1.25, "replicas": 2, "implementation": "RING",
    "task": "worker:0", "address": "127.0.0.1:5000", "losses": [3.0, 2.0, 1.0],
    "members": [{"task": "worker:0", "tensorflow": "2.21.0", "python": "3.11.7", "driver": None},
                {"task": "worker:1", "tensorflow": "2.21.0", "python": "3.11.7", "driver": None}],
    "mismatches": [], "steps": [{"name": "all-reduce"}, {"name": "train-step-1"}, {"name": "train-step-2"}],
}


def test_collective_silent_unless_requested():
    assert collective({}, None) == []
    assert collective({"collective": {"requested": False, "ran": False}}, None) == []


def test_collective_pass_reports_time_and_workers():
    [f] = collective({"collective": OK}, None)
    assert (f.id, f.status) == ("distributed.collective", Status.PASS)
    assert "2 workers" in f.title and "2 synchronized training steps in 1.2 s" in f.title
    assert "worker:0, worker:1" in f.detail


def test_collective_failures_name_the_peer_and_the_fix():
    unreachable = {**OK, "ok": False, "stage": "join", "unreachable": ["worker:1"],
                   "error": "peer never reachable within 15 s: worker:1 (127.0.0.1:5001)",
                   "peers": [{"task": "worker:1", "address": "127.0.0.1:5001", "reachable": False}]}
    [f] = collective({"collective": unreachable}, None)
    assert f.status == Status.FAIL and "worker:1 (127.0.0.1:5001)" in f.title
    assert "worker:1 (127.0.0.1:5001)" in f.fix and "nc -vz" in f.fix
    version = {**OK, "ok": False, "stage": "compare", "tensorflow": "2.21.0",
               "error": "TensorFlow versions differ: this task has 2.21.0, worker:1 has TensorFlow 2.20.0",
               "mismatches": [{"task": "worker:1", "key": "tensorflow", "mine": "2.21.0",
                               "theirs": "2.20.0"}]}
    [f] = collective({"collective": version}, None)
    assert f.status == Status.FAIL and "worker:1 has TensorFlow 2.20.0" in f.title
    assert 'tensorflow[and-cuda]==2.21.0"' in f.fix
    busy = {**OK, "ok": False, "stage": "bind", "error": "this task's port 127.0.0.1:5000 is not free"}
    assert "ss -ltnp" in collective({"collective": busy}, None)[0].fix


def test_collective_not_run_and_drift():
    not_set = {"requested": True, "ran": False, "skipped": "TF_CONFIG is not set"}
    [f] = collective({"collective": not_set}, None)
    assert f.status == Status.FAIL and "TF_CONFIG is not set" in f.title and "export TF_CONFIG" in f.fix
    [f] = collective({"collective": {"requested": True, "ran": False, "not_a_member": True,
                                     "skipped": "this task (ps) takes no part"}}, None)
    assert f.status == Status.SKIP
    differs = {"task": "worker:1", "key": "driver", "mine": "580.65.06", "theirs": "535.104.05"}
    drift = {**OK, "mismatches": [differs]}
    found = by_id(collective({"collective": drift}, None))
    assert found["distributed.peer-drift"].status == Status.WARN and "535.104.05" in found[
        "distributed.peer-drift"].detail
    assert found["distributed.collective"].status == Status.PASS
    [f] = collective({"collective": {"error": "probe did not finish in time", "probe_failed": True}}, None)
    assert f.status == Status.FAIL


# --- the worker's and the probe's pure helpers --------------------------------------------------


def test_version_info_round_trips_and_mismatches_are_found():
    text = "worker:1|2.21.0|3.11.7|580.65.06"
    assert worker.decode_info(worker.encode_info(text)) == {
        "task": "worker:1", "tensorflow": "2.21.0", "python": "3.11.7", "driver": "580.65.06"}
    assert len(worker.encode_info("x" * 1000)) == worker.INFO_LEN
    members = [worker.decode_info(worker.encode_info(t)) for t in (
        "worker:0|2.21.0|3.11.7|", "worker:1|2.20.0|3.11.7|", "worker:2|2.21.0|3.12.1|")]
    assert worker.compare_members(members, "worker:0") == [
        {"task": "worker:1", "key": "tensorflow", "mine": "2.21.0", "theirs": "2.20.0"},
        {"task": "worker:2", "key": "python", "mine": "3.11.7", "theirs": "3.12.1"},
    ]


def test_probe_budget_stays_inside_the_worker_timeout():
    for timeout in (1.0, 30.0, 300.0, 3600.0):
        b = budget(timeout)
        assert b["deadline"] <= max(5.0, timeout) and b["timeout"] == timeout
        assert b["peer_wait"] <= 120 and b["op_timeout"] <= 60


def test_parse_output_takes_the_first_result_and_keeps_the_rest():
    out = 'noise\nTFDOCTOR-PEER {"task": "worker:1"}\nTFDOCTOR-RESULT {"ok": true}\n'
    out += 'TFDOCTOR-RESULT {"ok": false}\n'
    result, peers, other = parse_output(out + "TFDOCTOR-RESULT {broken\n")
    assert result == {"ok": True} and peers == [{"task": "worker:1"}]
    assert "noise" in other and "{broken" in other


def test_local_names_from_hosts_file(tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.1 localhost\n10.1.2.3 node7 node7.cluster  # me\n10.9.9.9 other\n")
    names = local_names({"127.0.0.1", "10.1.2.3"}, str(hosts))
    assert {"localhost", "node7", "node7.cluster"} <= names and "other" not in names


def test_probe_without_multiworker_or_tf_config_runs_nothing():
    facts = probe(Context(python=sys.executable, env={}))
    assert facts == {"requested": False, "ran": False, "skipped": "TF_CONFIG is not set"}
    facts = probe(Context(python=sys.executable, env={"TF_CONFIG": tfc(["127.0.0.1:1", "127.0.0.1:2"])}))
    assert facts["ran"] is False and facts["skipped"] == "--multiworker not given"
    assert "127.0.0.1" in facts["local_addresses"] and "localhost" in facts["local_names"]
    facts = probe(Context(python=sys.executable, env={}, multiworker=True))
    assert facts["ran"] is False and facts["skipped"] == "TF_CONFIG is not set"
    facts = probe(Context(python=sys.executable, env={"TF_CONFIG": tfc(["a:1"], task_type="ps", ps=["p:1"],
                                                                          chief=["c:1"])},
                          multiworker=True))
    assert facts["ran"] is False and facts["not_a_member"] is True


# --- the real CLI -------------------------------------------------------------------------------


def cli(tf_config_text: str, *extra: str):
    import os

    env = {**os.environ, "TF_CONFIG": tf_config_text}
    result = run_cli("check", "--json", "--quick", "--only", "distributed", *extra, env=env, timeout=120)
    return result, {f["id"]: f for f in validate(result.json())["findings"]}


def test_cli_malformed_tf_config_fails_with_a_quoted_fix():
    result, found = cli('{"cluster": {"worker": ["127.0.0.1:5000"]}, "task": {"type": "worker", "index": 0')
    assert result.returncode == 1, result.stderr
    bad = found["distributed.tf-config-invalid"]
    assert bad["status"] == "fail" and "not valid JSON" in bad["title"] and "TF_CONFIG=" in bad["detail"]
    assert "distributed.collective" not in found  # --multiworker not given


def test_cli_wrong_index_fails():
    result, found = cli(tfc(["127.0.0.1:5000", "127.0.0.1:5001"], 2))
    assert result.returncode == 1
    assert "out of range" in found["distributed.task-invalid"]["title"]


def test_cli_good_tf_config_passes():
    result, found = cli(tfc(["127.0.0.1:5000", "127.0.0.1:5001"], 1))
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert found["distributed.tf-config"]["status"] == "pass"
    assert "distributed.host-not-in-cluster" not in found
