"""The second hostile audit's reproductions (its medium and low items), each one failing before
its fix: secrets cut by a trim, untrusted nesting and huge numbers, secret shapes it found
unredacted, a GPU UUID without its prefix, bidi controls in notebook HTML, a lone nvidia-smi banner,
and the cost of redacting a pathological field."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from conftest import DATA, run_cli, write_fake

from tfdoctor import proc
from tfdoctor.model import Status
from tfdoctor.privacy import REDACTED, redact_report
from tfdoctor.probes.runtime import facts_from

KEY_BODY = [f"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC{i:03d}PlantedKeyLine" for i in range(60)]
KEY = "\n".join(["-----BEGIN PRIVATE KEY-----", *KEY_BODY, "-----END PRIVATE KEY-----"])


def _worker_log(stderr: str) -> str:
    res = proc.Result(("python", "worker.py"), 1, "", stderr, 1.0)
    return redact_report({"runtime": facts_from(res, "python", 300)})["runtime"]["log"]


def test_a_key_block_straddling_the_worker_log_trim_is_redacted() -> None:
    """The trim keeps 10,000 characters from each end: the key's BEGIN line falls in the cut."""
    filler = "I tensorflow/core/platform/cpu_feature_guard.cc:210] line of log\n"
    tail_room = 10_000 - 2500  # the last part of the key, its END and some log after it are kept
    text = filler * 400 + KEY + "\n" + filler * (tail_room // len(filler))
    log = _worker_log(text)
    assert "trimmed" in log and "-----END PRIVATE KEY-----" in log
    assert "PlantedKeyLine" not in log and REDACTED in log


def test_a_key_body_without_its_header_is_redacted() -> None:
    from tfdoctor.privacy import redact_text

    cut = "\n".join(KEY.splitlines()[30:])
    out = redact_text("[... 123 characters trimmed ...]\n" + cut + "\nI after the key")
    assert "PlantedKeyLine" not in out and out.endswith("-----END PRIVATE KEY-----\nI after the key")
    assert redact_text("-----END PRIVATE KEY-----") == "-----END PRIVATE KEY-----"
    certificate = "-----BEGIN CERTIFICATE-----\nMIIBPublicCertBody\n-----END CERTIFICATE-----"
    assert redact_text(certificate) == certificate


# --- a lone nvidia-smi banner -----------------------------------------------------------------------


@pytest.mark.parametrize("lines", [3, None])  # the header alone, and the whole recorded banner
def test_a_lone_nvidia_smi_banner_does_not_pass_a_quick_check(bindir: Path, lines: int | None) -> None:
    banner = DATA / "nvidia-smi" / "banner-535.247.01-a10g.txt"
    show = f"head -n {lines} '{banner}'" if lines else f"cat '{banner}'"
    write_fake(bindir, "nvidia-smi", f'case "$1" in -q*|--query*) exit 9;; esac\n{show}')
    result = run_cli("check", "--quick", "--json", path_prepend=bindir)
    report = result.json()
    assert report["facts"]["nvidia_smi"]["driver_version"] == "535.247.01"
    system = report["facts"]["system"]
    assert system["pci_nvidia"] == [] and system["dev_nvidia"] == [], "needs a machine without a GPU"
    assert result.returncode == 1
    missing = next(f for f in report["findings"] if f["id"] == "driver.missing")
    assert missing["status"] == "fail" and "nvidia-smi answered" in missing["detail"]


# --- one time bound for the whole run ----------------------------------------------------------------


@pytest.mark.parametrize("quick", [True, False])
def test_timeout_bounds_the_whole_run_with_hung_tools(bindir: Path, quick: bool) -> None:
    """nvidia-smi, nvcc and ldconfig hang: `--timeout 3` still ends the run in about 3 s (it took
    10 s and more when --timeout bounded the worker only)."""
    for tool in ("nvidia-smi", "nvcc", "ldconfig"):
        write_fake(bindir, tool, "sleep 60")
    start = time.monotonic()
    args = ["check", "--json", "--timeout", "3", *(["--quick"] if quick else [])]
    result = run_cli(*args, path_prepend=bindir)
    took = time.monotonic() - start
    assert result.returncode == 1, result.stderr
    report = result.json()
    assert report["facts"]["nvidia_smi"]["error_kind"] == "timeout"
    assert took < 8, f"the run took {took:.1f} s under --timeout 3"


# --- the worker's host memory is capped ---------------------------------------------------------------


def test_the_worker_is_stopped_past_its_memory_cap() -> None:
    """The real worker on the CPU, given a cap below what importing TensorFlow takes: stopped with its
    group, and the report says why."""
    from tfdoctor.checks.runtime import runtime
    from tfdoctor.probes import Context, worker_memory_mib
    from tfdoctor.probes import runtime as rprobe

    assert 2048 <= worker_memory_mib() <= 8192
    facts = rprobe.probe(Context(python=sys.executable, worker_timeout=300, worker_memory_mib=200))
    assert facts["memory_exceeded_mib"] == 200 and "200 MiB" in facts["error"]
    found = [f for f in runtime({"runtime": facts}, None) if f.id == "runtime.worker-crashed"]
    assert found and found[0].status == Status.FAIL and "too much memory" in found[0].title


# --- untrusted JSON: deep nesting and huge integers keep their evidence ------------------------------


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("value", [
    '{"cluster": {"worker": ["a:1"]}, "task": ' + DEEP + "}",
    '{"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": ' + "9" * 5000 + "}}",
])
def test_tf_config_hostile_json_is_a_problem_not_a_crash(value: str) -> None:
    from tfdoctor.checks.distributed import parse_tf_config

    _config, problems = parse_tf_config(value)
    assert problems and all(p.status == Status.FAIL for p in problems)
    assert len(problems[0].detail) < 2000


def test_a_deeply_nested_worker_result_line_keeps_the_rest_of_the_run() -> None:
    step = 'TFDOCTOR-STEP {"name": "import", "status": "pass", "seconds": 1.0}\n'
    res = proc.Result(("python", "worker.py"), 0, step + "TFDOCTOR-RESULT " + DEEP + "\n",
                      "I planted log line\n", 1.0)
    facts = facts_from(res, "python", 300)
    assert "planted log line" in facts["log"] and facts["steps"][0]["name"] == "import"
    assert facts["error"]


def test_a_deeply_nested_collective_line_keeps_the_others() -> None:
    from tfdoctor.probes.collective import PEER, RESULT, parse_output

    result, peers, other = parse_output(f"{PEER} {DEEP}\n{RESULT} {{\"ok\": true}}\nplain line")
    assert result == {"ok": True} and peers == [] and "plain line" in other


# --- secret shapes the audit found unredacted ----------------------------------------------------------


@pytest.mark.parametrize("text, secret", [
    ("conda install -c https://conda.anaconda.org/t/ab-PlantedCondaTok42/private x", "PlantedCondaTok42"),
    ("https://repo.anaconda.cloud/t/PlantedAnacondaTok7/main/linux-64", "PlantedAnacondaTok7"),
    ("git clone https://PlantedGitTok0123456789abcdef@github.com/org/repo", "PlantedGitTok0123456789abcdef"),
    ("machine pypi.example.com login bob password PlantedNetrc99", "PlantedNetrc99"),
    ("machine pypi.example.com\n  login bob\n  password PlantedNetrc98\n", "PlantedNetrc98"),
    ("https://hooks.slack.com/services/T0PLANTED/B0PLANTED/PlantedSlackHook00", "PlantedSlackHook00"),
])
def test_secret_shapes_found_by_the_audit_are_redacted(text: str, secret: str) -> None:
    from tfdoctor.privacy import redact_text

    out = redact_text(text)
    assert "Planted" not in out and REDACTED in out, out
    report = redact_report({"facts": {"runtime": {"log": f"I log\n{text}\nI more"}}})
    assert secret not in str(report)


@pytest.mark.parametrize("text", [
    "git clone https://deployer@github.com/org/repo",
    "the password is wrong, try again",
    "ls /mnt/t/data and /srv/t/x/",
])
def test_ordinary_text_near_those_shapes_is_kept(text: str) -> None:
    from tfdoctor.privacy import redact_text

    assert redact_text(text) == text


def test_anonymize_replaces_a_known_gpu_uuid_written_without_its_prefix() -> None:
    from tfdoctor.privacy import anonymize

    uuid = "b42dd28e-ffdd-8720-1df0-98bd8cdc05b1"
    report = {"facts": {
        "nvml": {"gpus": [{"index": 0, "uuid": f"GPU-{uuid}"}]},
        "system": {"env": {"CUDA_VISIBLE_DEVICES": uuid}},
        "runtime": {"log": f"device {uuid.upper()} and GPU-{uuid} chosen"},
    }}
    out = anonymize(report)
    assert uuid not in str(out).lower(), out
    assert out["facts"]["nvml"]["gpus"][0]["uuid"] == "GPU-<uuid-0>"
    assert "<uuid-0>" in out["facts"]["system"]["env"]["CUDA_VISIBLE_DEVICES"]


def test_notebook_html_drops_what_the_terminal_drops() -> None:
    """A saved report's text with bidi overrides and escape sequences: the notebook's HTML shows it
    as the terminal does."""
    from tfdoctor.render.notebook import html

    nasty = "ok\u202eevil\u2066x\u2069 \x1b]0;pwned\x07\x1b[2Jdone"
    report = {"mode": "quick", "environment": {"os": nasty}, "facts": {}, "summary": {"status": "fail"},
              "findings": [{"id": "driver.missing", "status": "fail", "title": nasty, "detail": nasty,
                            "fix": nasty, "docs": None, "caused_by": None}]}
    out = html(report)
    for bad in ("\u202e", "\u2066", "\u2069", "\x1b", "pwned", "[2J"):
        assert bad not in out
    assert "okevilx done" in out


def test_a_field_packed_with_secret_like_spots_is_redacted_whole() -> None:
    """The audit's pathological field cost seconds per MB in the passes; such a text is no log, so
    it goes whole (bench/bench_redaction.py measures the cost). An ordinary log stays readable."""
    from tfdoctor.privacy import redact_text

    hostile = "user:PlantedDense@" * 20_000
    out = redact_text(hostile)
    assert "Planted" not in out and out.startswith(REDACTED) and len(out) < 200
    log = "I0000 gpu_device.cc:2022] Created device /job:localhost/replica:0 signal key session\n" * 5000
    assert redact_text(log) == log
    field = redact_report({"facts": {"runtime": {"log": hostile}}})["facts"]["runtime"]["log"]
    assert "Planted" not in field
