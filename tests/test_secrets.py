"""Secrets and identity: every leak reproduced on a live run, each now redacted by structure; and
--anonymize replacing exact values in known fields, never damaging ordinary words.

Planted values are letters and digits only, so no escaping can hide a leak from the search.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import run_cli
from schema_check import validate

from tfdoctor.privacy import REDACTED, allowed_env, anonymize, redact_report, redact_text


@pytest.mark.parametrize("text, secret", [
    ("TF_ENCRYPTION_PASSPHRASE=PlantedPassphrase77", "PlantedPassphrase77"),
    ("TF_ENCRYPTION_KEY=PlantedEncKey88", "PlantedEncKey88"),
    ("--xla_dump_to=gs://b/d?X-Goog-Algorithm=GOOG4&X-Goog-Signature=PlantedGoogSig51&x=1",
     "PlantedGoogSig51"),
    ("GET https://s3.amazonaws.com/b/k?X-Amz-Credential=AKIAX%2F2024&X-Amz-Signature=PlantedAmzSig62",
     "PlantedAmzSig62"),
    ("https://acct.blob.core.windows.net/c/b?sv=2021&sig=PlantedSasSig73&se=2030", "PlantedSasSig73"),
    ("NVIDIA_NGC_KEY=nvapi-PlantedNgcKey0123456789abcdef", "PlantedNgcKey0123456789abcdef"),
    ("found nvapi-PlantedNgcKey0123456789abcdef in the log", "PlantedNgcKey0123456789abcdef"),
    ("curl -H 'Authorization: Basic UGxhbnRlZEJhc2ljQXV0aA==' https://x", "UGxhbnRlZEJhc2ljQXV0aA"),
    ("Authorization: Bearer PlantedBearerToken99", "PlantedBearerToken99"),
    ("python train.py --password PlantedSpacePass11 --epochs 3", "PlantedSpacePass11"),
    ("python train.py --db-password PlantedDbPass22 --epochs 3", "PlantedDbPass22"),
    ("python train.py --token=PlantedFlagToken33", "PlantedFlagToken33"),
    ("curl -u deployer:PlantedCurlPass44 https://repo", "PlantedCurlPass44"),
    ('{"cluster": {"worker": ["deployer:PlantedTfcPass55@node1:2222"]}}', "PlantedTfcPass55"),
    ("https://deployer:PlantedUrlPass66@repo.example.com/simple", "PlantedUrlPass66"),
    ("sshpass -p PlantedSshPass77 ssh node1", "PlantedSshPass77"),
    ("mysql -u root -pPlantedMysqlPass88 db", "PlantedMysqlPass88"),
    ("docker login -u bob -p PlantedDockerPass99 registry.example.com", "PlantedDockerPass99"),
    ("hf_PlantedHuggingFaceToken0123456789", "PlantedHuggingFaceToken0123456789"),
    ("ghp_PlantedGithubToken0123456789abcdefgh", "PlantedGithubToken0123456789abcdefgh"),
    ("gho_PlantedGithubOauth0123456789abcdefgh", "PlantedGithubOauth0123456789abcdefgh"),
    ("github_pat_11PLANTED0123456789_PlantedFineGrainedPat012345", "PlantedFineGrainedPat012345"),
    ("xoxb-1234567890-PlantedSlackBot", "PlantedSlackBot"),
    ("sk-proj-PlantedOpenAiKey0123456789abcdef", "PlantedOpenAiKey0123456789abcdef"),
    ("aws AKIAPLANTED012345678 used", "PLANTED012345678"),
    ("key AIzaPlantedGoogleApiKey0123456789abcdef used", "PlantedGoogleApiKey0123456789abcdef"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.PlantedJwtSignature0", "PlantedJwtSignature0"),
])
def test_secret_is_redacted_by_structure(text: str, secret: str) -> None:
    out = redact_text(text)
    assert secret not in out, out
    assert REDACTED in out
    assert redact_text(out) == out


@pytest.mark.parametrize("text", [
    "max tokens: 512",
    "mkdir -p /tmp/x && docker run -p 8080:80 image",
    "Created device /job:localhost/replica:0/task:0/device:GPU:0 with 79078 MB memory",
    "key: value",
    "signature: nccl-error",
    "git@github.com:tensorflow/tensorflow.git",
    "worker at node1:2222 and localhost:12345",
    '{"password": null, "epochs": 3}',
    "XLA_FLAGS=--xla_gpu_cuda_data_dir=/usr/local/cuda",
    "export TOKEN=$HF_TOKEN",
])
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_text(text) == text


def test_secret_names_in_the_environment() -> None:
    env = {"TF_ENCRYPTION_PASSPHRASE": "PlantedPass1x", "NVIDIA_NGC_KEY": "PlantedNgc2x",
           "TF_ENCRYPTION": "PlantedEnc3x", "XLA_FLAGS": "--x?X-Goog-Signature=PlantedSig4x",
           "TF_CONFIG": json.dumps({"cluster": {"worker": ["u:PlantedPw5x@node1:2222"]}}),
           "CUDA_VISIBLE_DEVICES": "0,1", "TF_FORCE_GPU_ALLOW_GROWTH": "true"}
    out = allowed_env(env)
    dumped = json.dumps(out)
    assert all(f"Planted{s}" not in dumped for s in ("Pass1x", "Ngc2x", "Enc3x", "Sig4x", "Pw5x"))
    assert out["CUDA_VISIBLE_DEVICES"] == "0,1" and out["TF_FORCE_GPU_ALLOW_GROWTH"] == "true"
    assert json.loads(out["TF_CONFIG"])["cluster"]["worker"] == [f"{REDACTED}@node1:2222"]  # still JSON


def test_report_keys_named_key_or_signature_are_not_secrets() -> None:
    report = {"facts": {"collective": {"mismatches": [{"task": "worker:1", "key": "tensorflow"}]},
                        "log": {"signatures": [{"signature": "nccl", "id": "nccl.error"}]}}}
    assert redact_report(report) == report


def _facts_with_planted(report: dict) -> dict:
    """A real report whose worker log and GPU process command lines carry planted secrets."""
    out = json.loads(json.dumps(report))
    out["facts"]["runtime"] = {
        "ran": True, "steps": [], "log": "W0101 uploading to gs://b/o?X-Goog-Signature=PlantedLogSig1\n"
        "launched: python train.py --db-password PlantedLogPass2\nAuthorization: Basic PlantedLogBasic3"}
    out["facts"]["nvml"] = {"available": True, "driver_version": "580.65.06", "gpus": [
        {"index": 0, "name": "NVIDIA H100 80GB HBM3", "processes": [
            {"pid": 4242, "name": "python train.py --password PlantedProcPass4", "type": "C",
             "used_mib": 10}]}]}
    return out


PLANTED = ("PlantedLogSig1", "PlantedLogPass2", "PlantedLogBasic3", "PlantedProcPass4")


@pytest.fixture(scope="module")
def live() -> dict:
    result = run_cli("report", "--quick", "--json")
    assert result.returncode in (0, 1), result.stderr
    return validate(result.json())


@pytest.mark.parametrize("args", [("check", "--json"), ("check", "--markdown"), ("check", "--no-color", "-v"),
                                  ("report",), ("report", "--markdown"), ("report", "--anonymize")])
def test_worker_log_and_process_command_lines_are_redacted(live: dict, tmp_path: Path, args: tuple) -> None:
    path = tmp_path / "planted.json"
    path.write_text(json.dumps(_facts_with_planted(live)))
    result = run_cli(*args, "--from", str(path))
    assert result.returncode in (0, 1), result.stderr
    leaked = [s for s in PLANTED if s in result.stdout or s in result.stderr]
    assert not leaked, f"{args} leaks {leaked}"


def test_planted_environment_never_leaves_a_live_run(tmp_path: Path) -> None:
    env = dict(os.environ)
    env.update({
        "TF_ENCRYPTION_PASSPHRASE": "PlantedLivePass1",
        "NVIDIA_NGC_KEY": "nvapi-PlantedLiveNgc0123456789abcdef",
        "XLA_FLAGS": "--xla_dump_to=gs://b/d?X-Goog-Signature=PlantedLiveSig3",
        "TF_CONFIG": json.dumps({"cluster": {"worker": ["deployer:PlantedLivePw4@localhost:12345"]},
                                 "task": {"type": "worker", "index": 0}}),
        "NCCL_DEBUG_FILE": "Authorization: Basic PlantedLiveBasic5",
    })
    planted = ("PlantedLivePass1", "PlantedLiveNgc0123456789abcdef", "PlantedLiveSig3", "PlantedLivePw4",
               "PlantedLiveBasic5")
    for args in (("report", "--quick"), ("report", "--quick", "--markdown"), ("check", "--quick", "-v"),
                 ("report", "--quick", "--anonymize")):
        result = run_cli(*args, env=env)
        assert result.returncode in (0, 1), result.stderr
        leaked = [s for s in planted if s in result.stdout + result.stderr]
        assert not leaked, f"{args} leaks {leaked}"


# --- --anonymize ------------------------------------------------------------------------------------


def _identity_report(live: dict, host: str, user: str) -> dict:
    report = json.loads(json.dumps(live))
    facts = report["facts"]
    facts["system"].update(hostname=host, user=user, home=f"/home/{user}", os_id="debian",
                           env={"HOSTNAME": host, "VIRTUAL_ENV": f"/home/{user}/venv",
                                "TF_CONFIG": json.dumps({
                                    "cluster": {"worker": [f"{host}:2222", "peer-b7:2222", "10.1.2.3:2222"]},
                                    "task": {"type": "worker", "index": 0}})})
    facts["collective"] = {"requested": False, "ran": False,
                           "local_names": [host, "localhost", "gpubox-alias7"],
                           "local_addresses": ["127.0.0.1", "172.17.0.2", "fe80::42:acff:fe11:2", "::1"],
                           "address": f"{host}:2222",
                           "peers": [{"task": "worker:1", "address": "peer-b7:2222"}],
                           "log": "NCCL INFO Using eth0:172.17.0.2<0> and fe80::42:acff:fe11:2%eth0; "
                                  "peer 10.1.2.3:2222 (peer-b7); device /job:localhost/replica:0 "
                                  "nvidia.com/gpu: 1; the root cause is the os_id"}
    report["environment"]["hostname"] = host
    return report


def test_anonymize_replaces_ips_hosts_aliases_and_peers(live: dict) -> None:
    report = _identity_report(live, "gpu-node-417", "alicesmith")
    out = anonymize(report)
    dumped = json.dumps(out)
    for value in ("gpu-node-417", "alicesmith", "gpubox-alias7", "peer-b7", "172.17.0.2", "10.1.2.3",
                  "fe80::42:acff:fe11:2"):
        assert value not in dumped, value
    collective = out["facts"]["collective"]
    assert collective["local_names"][0] == "<hostname>" and collective["local_names"][1] == "localhost"
    assert collective["local_addresses"][0] == "127.0.0.1" and collective["local_addresses"][-1] == "::1"
    assert collective["address"] == "<hostname>:2222"
    peer = collective["peers"][0]["address"]
    assert peer.startswith("<host-") and peer.endswith(":2222")
    tf_config = json.loads(out["facts"]["system"]["env"]["TF_CONFIG"])
    assert tf_config["cluster"]["worker"][0] == "<hostname>:2222"
    assert tf_config["cluster"]["worker"][2].startswith("<ip-")
    assert "/job:localhost/replica:0" in collective["log"] and "nvidia.com/gpu" in collective["log"]
    validate(out)
    assert anonymize(report) == out  # stable


@pytest.mark.parametrize("host, user", [
    ("gpu", "os"), ("localhost", "root"), ("job", "id"), ("node", "user"),
])
def test_short_names_are_replaced_in_their_fields_only(live: dict, host: str, user: str) -> None:
    report = _identity_report(live, host, user)
    out = anonymize(report)
    system = out["facts"]["system"]
    assert system["hostname"] == "<hostname>" and system["user"] == "<user>" and system["home"] == "<home>"
    assert out["environment"]["hostname"] == "<hostname>"
    assert system["os_id"] == "debian" and "os_id" in system  # the key and its value intact
    assert set(out["environment"]) == set(report["environment"])  # no key renamed
    log = out["facts"]["collective"]["log"]
    assert "/job:localhost/replica:0" in log and "nvidia.com/gpu: 1" in log
    assert "the root cause is the os_id" in log
    assert system["env"]["VIRTUAL_ENV"] == "<home>/venv"
