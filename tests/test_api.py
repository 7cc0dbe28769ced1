"""The Python API: `tfdoctor.check()` / `tfdoctor.explain()` do the CLI's work and return the Report."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from conftest import DATA, ROOT, run_cli
from schema_check import validate

import tfdoctor
from tfdoctor.model import Finding, Report, Status


def _py(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_import_is_cheap() -> None:
    loaded = json.loads(_py("import json, sys, tfdoctor; print(json.dumps(sorted(sys.modules)))"))
    assert [m for m in loaded if m.startswith("tfdoctor")] == ["tfdoctor"]
    assert not {"rich", "packaging", "tensorflow", "pynvml", "typing"} & set(loaded)


@pytest.fixture(scope="module")
def quick() -> Report:
    return tfdoctor.check(quick=True)


def test_quick_check_is_the_cli_report(quick: Report) -> None:
    cli = run_cli("check", "--quick", "--json")
    data = cli.json()
    # the same findings (their order follows the order the check modules were imported in)
    assert sorted((f.id, str(f.status)) for f in quick.findings) == sorted(
        (f["id"], f["status"]) for f in data["findings"])
    assert quick.ok is (cli.returncode == 0)
    assert [f.id for f in quick.root_causes] == data["summary"]["root_causes"]
    assert quick.mode == "quick" and quick.environment == data["environment"]


def test_report_methods(quick: Report) -> None:
    data = validate(json.loads(quick.to_json()))
    assert data == json.loads(json.dumps(quick.to_dict(), default=str))
    markdown = quick.to_markdown()
    assert markdown.startswith("### tfdoctor")
    for root in quick.root_causes:
        assert root.id in markdown and root.id in repr(quick)
    assert repr(quick).startswith(f"<tfdoctor Report quick {quick.created_at}: {quick.status}")
    assert quick.ok is (quick.status != Status.FAIL)


def test_caller_is_in_the_facts(quick: Report) -> None:
    options = quick.facts["options"]
    assert options["caller_pids"] == [os.getpid(), os.getppid()]
    assert options["caller"]["interface"] == "python"
    assert options["caller"]["tensorflow_imported"] is ("tensorflow" in sys.modules)
    assert options["allow_cpu"] is False and options["require_gpus"] is None


def test_cli_records_its_own_process_as_the_caller() -> None:
    options = run_cli("check", "--quick", "--json").json()["facts"]["options"]
    assert options["caller"]["interface"] == "cli"
    assert options["caller_pids"] == [options["caller"]["pid"], options["caller"]["ppid"]]
    assert options["caller"]["ppid"] == os.getpid()  # run_cli's child: this test process is its parent


def test_options_reach_the_checks() -> None:
    report = tfdoctor.check(quick=True, only=["platform"], require_gpus=0, allow_cpu=True)
    platform = sorted(f.id for f in report.findings if f.id.startswith("platform."))
    # the stated requirement is judged too, whatever the selection
    assert platform and sorted(f.id for f in report.findings) == sorted([*platform, "gpu.count-ok"])
    assert report.facts["options"]["require_gpus"] == 0 and report.facts["options"]["allow_cpu"] is True
    same = tfdoctor.check(quick=True, only="platform")
    assert sorted(f.id for f in same.findings) == platform


@pytest.mark.parametrize(
    ("kwargs", "error", "needle"),
    [
        ({"quick": "yes"}, TypeError, "quick"),
        ({"timeout": "5"}, TypeError, "timeout"),
        ({"require_gpus": 1.5}, TypeError, "require_gpus"),
        ({"require_gpus": -1}, ValueError, "require_gpus"),
        ({"only": [3]}, TypeError, "only"),
        ({"only": "bogus", "quick": True}, tfdoctor.InputError, "no check named bogus"),
        ({"timeout": -1}, ValueError, "timeout"),
        ({"python": "/nonexistent/python"}, ValueError, "/nonexistent/python"),
        ({"from_report": "/nonexistent.json"}, ValueError, "/nonexistent.json"),
    ],
)
def test_bad_arguments_raise_before_any_work(kwargs: dict, error: type, needle: str) -> None:
    with pytest.raises(error, match=needle):
        tfdoctor.check(**kwargs)


def test_input_errors_are_value_errors() -> None:
    assert issubclass(tfdoctor.InputError, ValueError)


def test_check_from_a_saved_report(quick: Report, tmp_path) -> None:
    saved = tmp_path / "saved.json"
    saved.write_text(quick.to_json())
    again = tfdoctor.check(from_report=saved)
    assert sorted(f.id for f in again.findings) == sorted(f.id for f in quick.findings)


def test_explain_returns_the_cli_report() -> None:
    sample = DATA / "explain" / "006-libcuda-missing-cuinit-303.txt"
    report = tfdoctor.explain(sample.read_text())
    cli = run_cli("explain", str(sample), "--json").json()
    assert report.mode == "explain"
    assert sorted(f.id for f in report.findings) == sorted(f["id"] for f in cli["findings"])
    with pytest.raises(TypeError):
        tfdoctor.explain(42)


def _report(*findings: Finding) -> Report:
    return Report(mode="full", environment={}, facts={}, findings=list(findings),
                  created_at="2026-11-23T00:00:00Z",
                  tool={"name": "tfdoctor", "version": "0.1.0", "compat_data": None})


def test_html_puts_the_root_cause_first_with_what_it_explains() -> None:
    report = _report(
        Finding("platform.ok", Status.PASS, "Linux"),
        Finding("runtime.no-gpu-visible", Status.FAIL, "TensorFlow sees no GPU", fix="fix the driver",
                caused_by="driver.too-old"),
        Finding("driver.too-old", Status.FAIL, "Driver 470 is too old for CUDA 12", fix="upgrade the driver",
                docs="https://docs.nvidia.com/deploy/cuda-compatibility/"),
        Finding("gpu.memory-held", Status.WARN, "GPU 0 memory held", fix="stop it"),
    )
    fragment = report._repr_html_()
    root = fragment.index('data-id="driver.too-old"')
    warn = fragment.index('data-id="gpu.memory-held"')
    assert fragment.index("Root causes") < root < warn < fragment.index("<details>")
    assert 'data-id="runtime.no-gpu-visible"' not in fragment  # not a root: shown under its cause
    explained = fragment.index("It also explains")
    assert root < explained < warn and "TensorFlow sees no GPU" in fragment[explained:warn]
    assert '<a href="https://docs.nvidia.com/deploy/cuda-compatibility/"' in fragment


def test_html_and_rich_keep_untrusted_text_as_text() -> None:
    from rich.console import Console

    evil = "\x1b]0;pwned\x07<img src=x onerror=alert(1)>\x1b[2J"
    report = _report(Finding("driver.too-old", Status.FAIL, evil, detail=evil, fix=evil,
                             docs="javascript:alert(1)"))
    fragment = report._repr_html_()
    assert "<img" not in fragment and "\x1b" not in fragment and "\x07" not in fragment
    assert "javascript:" not in fragment.split("docs")[0] and "href=\"javascript" not in fragment
    assert "&lt;img src=x onerror=alert(1)&gt;" in fragment
    console = Console(record=True, width=120, color_system=None, file=io.StringIO())
    console.print(report)
    text = console.export_text()
    assert "\x1b" not in text and "<img src=x onerror=alert(1)>" in text
