"""Privacy: allowlisted env, secrets redacted in every output format, --anonymize placeholders.

The end-to-end tests plant real-looking secrets in the environment of the real CLI and assert
that none of them reaches JSON, Markdown, the terminal, or the anonymized report.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, ROOT, run_cli
from schema_check import validate

from tfdoctor.privacy import REDACTED, allowed_env, anonymize, distinctive, redact_report, redact_text

# Planted values: letters and digits only, so Markdown escaping cannot hide a leak from the search.
SECRETS = {
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMIK7MDENGbPxRfiCYzz0PLANTED1",
    "HF_TOKEN": "hf_Xq7PlantedHfTok3n0123456789abcd",
    "WANDB_API_KEY": "a1b2c3d4e5f60718293aPlantedWandb0b1c2d3e4",
    "TF_MY_API_KEY": "PlantedTfApiKey55x",
    "TF_VAR_db_pass": "PlantedTerraformVar31",  # Terraform's TF_ prefix: not TensorFlow's
}
IN_VALUES = {  # allowlisted names whose values hide a secret
    "TF_CONFIG": json.dumps({
        "cluster": {"worker": ["localhost:12345"]},
        "task": {"type": "worker", "index": 0},
        "password": "PlantedTfConfigPassw0rd",
    }),
    "CUDA_REPO_URL": "https://deployer:PlantedUrlPass99@repo.example.com/cuda?token=PlantedUrlToken42&arch=x86_64",
    "LD_LIBRARY_PATH": "/opt/creds/token=PlantedPathToken77/lib:/usr/local/cuda/lib64",
    "XLA_FLAGS": "--xla_gpu_cuda_data_dir=/usr/local/cuda --auth=Bearer PlantedBearer0123456789",
}
LEAKS = [
    *SECRETS.values(), "Xq7PlantedHfTok3n0123456789abcd", "PlantedTfConfigPassw0rd", "PlantedUrlPass99",
    "PlantedUrlToken42", "PlantedPathToken77", "PlantedBearer0123456789",
]


def assert_no_leak(text: str, where: str) -> None:
    found = [s for s in LEAKS if s in text]
    assert not found, f"{where} leaks {found}"


# --- pure functions -------------------------------------------------------------------------

@pytest.mark.parametrize("text, secret", [
    ("https://user:hunter2hunter@pypi.example.com/simple", "hunter2hunter"),
    ("https://pypi.example.com/simple?token=abcDEF123456&x=1", "abcDEF123456"),
    ('{"db_password": "s3cretValue", "epochs": 3}', "s3cretValue"),
    ("{'api_key': 'pyReprKey123'}", "pyReprKey123"),
    ("export HF_TOKEN=hfvalue0123456789", "hfvalue0123456789"),
    ("--password=longpassword1", "longpassword1"),
    ("Authorization: Bearer abcdefghijklmnop0123", "abcdefghijklmnop0123"),
    ("key id AKIAIOSFODNN7EXAMPLE used", "AKIAIOSFODNN7EXAMPLE"),
    ("ghp_0123456789abcdefghijklmnopqrstuv", "0123456789abcdefghijklmnopqrstuv"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "dozjgNryP4J3jVmNHl0w5N"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA"),
])
def test_redact_text_removes_secret(text: str, secret: str) -> None:
    out = redact_text(text)
    assert secret not in out
    assert REDACTED in out
    assert redact_text(out) == out  # idempotent: redacting twice changes nothing more


@pytest.mark.parametrize("text", [
    "CUDA_VISIBLE_DEVICES=0,1",
    "/usr/local/cuda-12.5/lib64:/usr/lib/x86_64-linux-gnu",
    "Created device /job:localhost/replica:0/task:0/device:GPU:0 with 79078 MB memory",
    "https://developer.nvidia.com/cuda-downloads",
    "max tokens: 512",
    "GPU-9a9a6c50-2a47-2f51-a902-b82c3b127e94",
    "pip install 'tensorflow[and-cuda]==2.21.0'",
])
def test_redact_text_leaves_ordinary_text(text: str) -> None:
    assert redact_text(text) == text


def test_allowed_env_keeps_only_names_that_matter() -> None:
    env = {**SECRETS, **IN_VALUES, "CUDA_VISIBLE_DEVICES": "0", "HOME": "/home/alice", "SSH_AUTH_SOCK": "/x"}
    out = allowed_env(env)
    assert set(out) == {"TF_MY_API_KEY", "CUDA_VISIBLE_DEVICES", *IN_VALUES}  # no TF_VAR_db_pass
    assert out["TF_MY_API_KEY"] == REDACTED
    assert out["CUDA_VISIBLE_DEVICES"] == "0"
    assert_no_leak(json.dumps(out), "allowed_env")


def test_redact_report_walks_keys_values_and_lists() -> None:
    report = {
        "facts": {
            "collective": {"tf_config": {"cluster": {}, "password": "nestedPw99"}},
            "libraries": {"ld_library_path": ["/opt/creds/token=inListToken9/lib"]},
            "runtime": {"log": "W0101 fetching https://u:logPassw0rd@host/x"},
            "weird": {"/x/token=inKeyToken77": 1},
        },
        "findings": [], "timings": {"checks": 0.1},
    }
    out = json.dumps(redact_report(report))
    for secret in ("nestedPw99", "inListToken9", "logPassw0rd", "inKeyToken77"):
        assert secret not in out
    assert json.loads(out)["timings"] == {"checks": 0.1}  # numbers untouched
    assert report["facts"]["collective"]["tf_config"]["password"] == "nestedPw99"  # input not mutated


def _gpu_report(base: dict, hostname: str, user: str, home: str) -> dict:
    """A real report with identifying facts planted from recorded real nvidia-smi output."""
    xml = (DATA / "nvidia-smi" / "q-x-a100-sxm4-80gb-535-mig.xml").read_text()
    text = (DATA / "nvidia-smi" / "q-h100-sxm-x8-565.txt").read_text()
    report = json.loads(json.dumps(base))
    facts = report["facts"]
    facts["system"] = {**(facts.get("system") or {}), "hostname": hostname, "user": user, "home": home,
                       "env": {"HOSTNAME": hostname, "VIRTUAL_ENV": f"{home}/venvs/tf"}}
    facts["nvml"] = {"available": True, "gpus": [
        {"index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-b42dd28e-ffdd-8720-1df0-98bd8cdc05b1",
         "serial": "1654423001593"},
        {"index": 1, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-7c3cadbd-17e5-0913-f69b-c618122ea0cd",
         "serial": "1654223054577"},
    ]}
    facts["nvidia_smi"] = {"found": True, "raw": {"xml": xml, "q": text}}
    report["environment"]["hostname"] = hostname
    report["findings"].append({
        "id": "tfdoctor.planted", "status": "warn", "title": f"planted on {hostname} by {user}",
        "detail": f"see {home}/.cache and {hostname}.cluster.example.org", "fix": f"rm -rf {home}/x",
        "docs": None, "facts": [], "confidence": "certain", "caused_by": None, "evidence": [],
    })
    return report


@pytest.fixture(scope="module")
def live_report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("live") / "report.json"
    result = run_cli("report", "--quick", "--output", str(out))
    assert result.returncode in (0, 1), result.stderr
    return validate(json.loads(out.read_text()))


def test_anonymize_replaces_identifiers_with_stable_placeholders(live_report: dict) -> None:
    report = _gpu_report(live_report, "gpu-node-417", "alicesmith", "/home/alicesmith")
    out = anonymize(report)
    dumped = json.dumps(out)
    ident = ["gpu-node-417", "alicesmith", "b42dd28e-ffdd-8720-1df0-98bd8cdc05b1", "1654423001593",
             "513536b6-7d19-9063-b049-1e69664bb298", "1650522003820",
             "GPU-72be6e5d-3c1b-0d37-98ac-d3ef159f2589", "1654423003872"]
    assert [s for s in ident if s in dumped] == []
    assert out["environment"]["hostname"] == "<hostname>"
    assert out["facts"]["system"]["home"] == "<home>"
    assert out["findings"][-1]["fix"] == "rm -rf <home>/x"
    assert "<hostname>.cluster.example.org" in out["findings"][-1]["detail"]
    gpus = out["facts"]["nvml"]["gpus"]
    assert gpus[0]["uuid"] != gpus[1]["uuid"] and gpus[0]["serial"] != gpus[1]["serial"]
    # The same UUID gets the same placeholder in NVML facts and in nvidia-smi's text.
    smi_text = out["facts"]["nvidia_smi"]["raw"]["q"]
    assert f"GPU UUID                              : {gpus[0]['uuid']}" in smi_text
    assert "RACK Serial Number                : N/A" in smi_text
    assert anonymize(report) == out  # stable: same input, same output
    assert out["facts"]["nvml"]["gpus"][0]["name"] == "NVIDIA H100 80GB HBM3"  # not over-eager
    validate(out)


# --- end to end: the real CLI with planted secrets --------------------------------------------

def _planted_env(tmp_path: Path) -> dict:
    env = dict(os.environ)
    env.update(SECRETS)
    env.update(IN_VALUES)
    env["LD_LIBRARY_PATH"] = IN_VALUES["LD_LIBRARY_PATH"] + (
        ":" + os.environ["LD_LIBRARY_PATH"] if os.environ.get("LD_LIBRARY_PATH") else "")
    return env


@pytest.mark.parametrize("args", [
    ("report", "--quick"),
    ("report", "--quick", "--json"),
    ("report", "--quick", "--markdown"),
    ("report", "--quick", "--anonymize"),
    ("report", "--quick", "--anonymize", "--markdown"),
    ("check", "--quick", "--no-color", "-v"),
    ("check", "--quick", "--json"),
    ("check", "--quick", "--markdown"),
])
def test_planted_secrets_never_leave(tmp_path: Path, args: tuple[str, ...]) -> None:
    result = run_cli(*args, env=_planted_env(tmp_path))
    assert result.returncode in (0, 1), result.stderr
    assert_no_leak(result.stdout, " ".join(args))
    assert_no_leak(result.stderr, " ".join(args) + " (stderr)")
    if "--json" in args or args[0] == "report" and "--markdown" not in args:
        data = validate(result.json())
        env = (data["facts"].get("system") or {}).get("env") or {}
        assert "HF_TOKEN" not in env and "AWS_SECRET_ACCESS_KEY" not in env and "WANDB_API_KEY" not in env
        # The allowlisted variables are still reported, with only the secret part replaced.
        assert "TF_CONFIG" in env and REDACTED in env["TF_CONFIG"] and "localhost:12345" in env["TF_CONFIG"]


def _word(value: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9_-]){re.escape(value)}(?![A-Za-z0-9_-])")


def _home_path(value: str) -> re.Pattern[str]:
    return re.compile(rf"{re.escape(value)}(?![A-Za-z0-9_.-])")


@pytest.mark.parametrize("fmt", ["--json", "--markdown"])
def test_anonymize_removes_this_machines_identity(fmt: str) -> None:
    import getpass

    result = run_cli("report", "--quick", "--anonymize", fmt)
    assert result.returncode in (0, 1), result.stderr
    host, user, home = socket.gethostname(), getpass.getuser(), os.path.expanduser("~")
    # A name that is also an ordinary word ("root", "runner", "gpu") is replaced in its own fields
    # only (below); a distinctive one nowhere survives.
    if distinctive(host):
        assert not _word(host).search(result.stdout), f"hostname {host!r} in output"
    if distinctive(user):
        assert not _word(user).search(result.stdout), f"user {user!r} in output"
    assert not _home_path(home).search(result.stdout), f"home {home!r} in output"
    if fmt == "--json":
        data = validate(result.json())
        assert data["environment"]["hostname"] == "<hostname>"
        assert data["facts"]["system"]["user"] == "<user>"


@pytest.mark.skipif(not shutil.which("unshare"), reason="needs unshare(1) for a private hostname")
def test_anonymize_planted_hostname_user_home(tmp_path: Path) -> None:
    """A distinctive hostname (own UTS namespace), user and home: none may survive --anonymize."""
    host, user = "tfdr-host-8d1f3", "tfdr-user-51c7a"
    home = tmp_path / "home" / user
    home.mkdir(parents=True)
    env = {**os.environ, "HOME": str(home), "USER": user, "LOGNAME": user, "PYTHONPATH": str(ROOT),
           "VIRTUAL_ENV": str(home / "venv")}
    probe = subprocess.run(["unshare", "--uts", "hostname", host], capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip("cannot create a UTS namespace here (needs CAP_SYS_ADMIN)")
    script = f'hostname {host} && exec "$@"'
    argv = ["unshare", "--uts", "sh", "-c", script, "sh", sys.executable, "-m", "tfdoctor", "report",
            "--quick"]
    plain = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600, cwd=str(ROOT))
    facts = json.loads(plain.stdout)["facts"]["system"]
    # Without --anonymize the planted identity is really in the report (so the test can fail) ...
    assert (facts["hostname"], facts["user"], facts["home"]) == (host, user, str(home))
    for fmt in ("--json", "--markdown"):
        anon = subprocess.run([*argv, "--anonymize", fmt], capture_output=True, text=True, env=env,
                              timeout=600, cwd=str(ROOT))
        assert anon.returncode in (0, 1), anon.stderr
        for value in (host, user, str(home)):
            assert value not in anon.stdout, f"{value} survives --anonymize {fmt}"
