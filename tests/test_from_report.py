"""`check --from` / `report --from`: judge a saved report's facts offline, with this version's checks.

The round trip runs the real CLI on this machine, saves the report, and re-judges it; a fake
`nvcc` wrapper (which runs the real one) proves that `--from` probes nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import DATA, run_cli, write_fake
from schema_check import validate

from tfdoctor.model import SCHEMA_VERSION
from tfdoctor.render import fixtext

REAL_NVCC = shutil.which("nvcc") or "/usr/local/bin/nvcc"


def _comparable(report: dict) -> dict:
    """What a re-judged report must reproduce: environment, findings, summary."""
    return {k: report[k] for k in ("environment", "findings", "summary", "mode")}


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, int]:
    path = tmp_path_factory.mktemp("from") / "node.json"
    result = run_cli("report", "--quick", "--output", str(path))
    assert result.returncode in (0, 1), result.stderr
    return path, validate(json.loads(path.read_text())), result.returncode


def test_round_trip_gives_the_same_findings_as_the_live_run(saved: tuple[Path, dict, int]) -> None:
    path, live, live_code = saved
    for args in (("check", "--from", str(path), "--json"), ("report", "--from", str(path))):
        again = run_cli(*args)
        assert again.returncode == live_code, again.stderr
        data = validate(again.json())
        assert _comparable(data) == _comparable(live)
        assert data["facts"] == live["facts"]


def test_live_check_and_from_agree(saved: tuple[Path, dict, int]) -> None:
    """`check --quick --json` now, and the same check from the saved report, say the same."""
    path, live, _ = saved
    now = run_cli("check", "--quick", "--json")
    data = validate(now.json())
    assert [(f["id"], f["status"]) for f in data["findings"]] == [
        (f["id"], f["status"]) for f in live["findings"]
    ]


def test_from_probes_nothing(saved: tuple[Path, dict, int], bindir: Path, tmp_path: Path) -> None:
    path, live, _ = saved
    marker = tmp_path / "nvcc-was-run"
    write_fake(bindir, "nvcc", f"touch '{marker}'\nexec '{REAL_NVCC}' \"$@\"")
    probed = run_cli("report", "--quick", path_prepend=bindir)
    assert probed.returncode in (0, 1), probed.stderr
    assert marker.exists(), "a live run must call nvcc (otherwise this test proves nothing)"
    marker.unlink()
    offline = run_cli("check", "--from", str(path), "--json", path_prepend=bindir)
    assert offline.returncode in (0, 1), offline.stderr
    assert not marker.exists(), "check --from ran nvcc: it probed this machine"


def test_saved_facts_are_rejudged_not_saved_findings(saved: tuple[Path, dict, int], tmp_path: Path) -> None:
    """Old reports get new diagnoses: stale findings are dropped, the facts decide."""
    _, live, _ = saved
    old = json.loads(json.dumps(live))
    old["tool"]["version"] = "0.0.1"
    old["findings"].append({"id": "stale.finding", "status": "fail", "title": "from an old tfdoctor",
                            "detail": "", "fix": "nothing", "docs": None, "facts": [],
                            "confidence": "certain", "caused_by": None, "evidence": []})
    old["summary"] = {"pass": 0, "warn": 0, "fail": 99, "skip": 0, "status": "fail"}
    old["facts"]["system"]["hostname"] = "saved-node-42"
    old["facts"]["system"]["platform"] = "windows"
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    result = run_cli("check", "--from", str(path), "--json")
    data = validate(result.json())
    ids = {f["id"] for f in data["findings"]}
    assert "stale.finding" not in ids
    assert data["summary"]["fail"] != 99
    assert data["environment"]["hostname"] == "saved-node-42"  # the saved machine, not this one
    assert data["environment"]["platform"] == "windows"
    assert "platform.windows-native" in ids  # contract id: judged from the saved facts
    assert result.returncode == 1


def test_from_honours_require_gpus(saved: tuple[Path, dict, int]) -> None:
    path, live, _ = saved
    result = run_cli("check", "--from", str(path), "--json", "--require-gpus", "4")
    data = validate(result.json())
    assert data["facts"]["options"]["require_gpus"] == 4
    assert result.returncode == 1  # this machine's saved report has fewer than 4 usable GPUs


def test_report_from_markdown_and_output(saved: tuple[Path, dict, int], tmp_path: Path) -> None:
    path, live, live_code = saved
    out = tmp_path / "issue.md"
    result = run_cli("report", "--from", str(path), "--markdown", "--output", str(out))
    assert result.returncode == live_code, result.stderr
    text = out.read_text()
    assert text.startswith("### tfdoctor:")
    for f in live["findings"]:
        if f["status"] == "fail":
            assert f"`{f['id']}`" in text


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


BAD_INPUTS = {
    "newer schema": lambda r: json.dumps({**r, "schema_version": SCHEMA_VERSION + 1}),
    "schema_version as text": lambda r: json.dumps({**r, "schema_version": "1"}),
    "no schema_version": lambda r: json.dumps({k: v for k, v in r.items() if k != "schema_version"}),
    "no facts": lambda r: json.dumps({k: v for k, v in r.items() if k != "facts"}),
    "a JSON list": lambda r: json.dumps([r]),
    "truncated JSON": lambda r: json.dumps(r)[:500],
    "empty file": lambda r: "",
    "binary garbage": lambda r: bytes(range(256)) * 4,
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
@pytest.mark.parametrize("command", ["check", "report"])
def test_bad_saved_report_exits_2_with_one_line(saved: tuple[Path, dict, int], tmp_path: Path,
                                                name: str, command: str) -> None:
    _, live, _ = saved
    path = _write(tmp_path, "bad.json", BAD_INPUTS[name](live))
    result = run_cli(command, "--from", str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith("tfdoctor:") and "internal error" not in lines[0]


def test_newer_schema_says_upgrade(saved: tuple[Path, dict, int], tmp_path: Path) -> None:
    _, live, _ = saved
    path = _write(tmp_path, "future.json", json.dumps({**live, "schema_version": SCHEMA_VERSION + 1}))
    result = run_cli("check", "--from", str(path))
    assert result.returncode == 2
    assert "upgrade tfdoctor" in result.stderr


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = run_cli("check", "--from", str(tmp_path / "nope.json"))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "nope.json" in result.stderr


def test_markdown_for_a_bug_tracker(saved: tuple[Path, dict, int], tmp_path: Path) -> None:
    """Headline table, failures with fixes in the open, the rest (and raw captures) in <details>."""
    _, live, _ = saved
    report = json.loads(json.dumps(live))
    banner = (DATA / "nvidia-smi" / "banner-565.57.01-h100-sxm-x8.txt").read_text()
    report["facts"]["nvidia_smi"] = {**(report["facts"].get("nvidia_smi") or {}), "raw": banner}
    report["facts"]["system"]["env"] = {"CUDA_REPO_URL": "https://u:mdPassw0rd9@example.com/"}
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(report))
    rejudged = validate(run_cli("check", "--from", str(path), "--json").json())
    result = run_cli("report", "--from", str(path), "--markdown")
    assert result.returncode == (1 if rejudged["summary"]["status"] == "fail" else 0)
    md = result.stdout
    assert len(md) < 65_536  # a GitHub issue body's limit
    env = live["environment"]
    rows = (("OS", env["os"]), ("Python", env["python_version"]), ("TensorFlow", env["tensorflow_version"]),
            ("CUDA toolkit (nvcc)", env["nvcc_version"]))
    for label, value in rows:
        row = next(line for line in md.splitlines() if line.startswith(f"| **{label}** |"))
        if value:
            assert str(value) in row
    opened, _, hidden = md.partition("<details>")
    for f in rejudged["findings"]:
        where = opened if f["status"] == "fail" else hidden
        assert f"`{f['id']}`" in where, f"{f['id']} ({f['status']}) misplaced"
        if f["status"] == "fail" and f["fix"] and not f.get("caused_by"):
            # The root cause's fix in the open: its commands as a block to copy, or its words.
            split = fixtext.parts(f)
            assert (split.commands[0] if split.commands else split.prose[:40]) in opened
    assert "Captured output: nvidia-smi" in hidden and "565.57.01" in hidden
    assert "mdPassw0rd9" not in md
    assert "https://<redacted>@example.com/" in hidden.split("Facts (JSON)")[1]  # literal in the code block
    assert md.count("<details>") == md.count("</details>")


def test_markdown_escapes_prose_and_fits_an_issue(saved: tuple[Path, dict, int]) -> None:
    from tfdoctor.render.markdown import render

    _, live, _ = saved
    report = json.loads(json.dumps(live))
    report["findings"].append({"id": "gpu.example", "status": "fail", "title": "GPU <hostname> | lost",
                               "detail": "seen on <hostname> at /dev/nvidia*", "fix": "sudo reboot",
                               "docs": None, "facts": [], "confidence": "likely", "caused_by": None,
                               "evidence": []})
    report["facts"]["runtime"] = {"ran": True, "log": "E0101 cuInit failed\n" * 20_000}
    md = render(validate(report))
    assert "GPU &lt;hostname&gt; \\| lost" in md  # shown on GitHub, not taken for an HTML tag
    assert "/dev/nvidia\\*" in md
    assert len(md) < 65_536 and "characters trimmed" in md


@pytest.mark.parametrize("schema", [1, 2])
def test_a_report_saved_before_plans_shows_its_fixes_as_written(saved: tuple[Path, dict, int],
                                                                  schema: int) -> None:
    """A report JSON v1/v2 from before fixes were plans: every view shows each fix's text as it was
    written, as prose; no command is guessed out of it."""
    import io

    from rich.console import Console

    from tfdoctor.render import markdown, notebook, terminal

    _, live, _ = saved
    old = json.loads(json.dumps(live))
    old["schema_version"] = schema
    fix = "sudo ubuntu-drivers install && sudo reboot  # a reboot window"
    old["findings"].insert(0, {"id": "driver.missing", "status": "fail", "title": "No NVIDIA driver",
                               "detail": "", "fix": fix,
                               "docs": None, "facts": [], "confidence": "certain", "caused_by": None,
                               "evidence": []})
    for f in old["findings"]:
        f.pop("plan", None)
    md, html = markdown.render(old), notebook.html(old)
    console = Console(width=400, record=True, color_system=None, file=io.StringIO())
    terminal.render(old, out=console)
    screen = " ".join(console.export_text().split())
    assert "```sh" not in md
    shown = [f for f in old["findings"] if f.get("fix") and f["status"] == "fail" and not f.get("caused_by")]
    assert shown
    for f in shown:
        assert fixtext.parts(f) == fixtext.Parts((), f["fix"].strip())
        assert markdown.prose(f["fix"].strip()) in md and notebook.esc(f["fix"].strip()) in html
        assert " ".join(f["fix"].split()) in screen
