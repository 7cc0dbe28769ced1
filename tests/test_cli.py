"""The CLI as a user meets it: start-up, usage errors, exit codes, colour, and this machine."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT, run_cli
from schema_check import validate

SECTIONS = {"system", "nvml", "nvidia_smi", "nvcc", "libraries", "tensorflow", "runtime"}
HEAVY = ("rich", "tensorflow", "pynvml", "numpy", "jsonschema", "tfdoctor.compat")


def test_help_imports_nothing_heavy() -> None:
    code = (
        "import sys\nfrom tfdoctor.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"print('LOADED', [m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert "usage: tfdoctor" in out.stdout
    assert "LOADED []" in out.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--bogus"),
        ("check", "--timeout", "soon"),
        ("frobnicate",),
        ("check", "--json", "--markdown"),
        ("check", "--require-gpus", "-1"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args: tuple[str, ...]) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_no_command_prints_help_and_exits_2() -> None:
    result = run_cli()
    assert result.returncode == 2
    assert "usage: tfdoctor" in result.stdout


def test_version() -> None:
    from tfdoctor import __version__

    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"tfdoctor {__version__}"


def test_python_that_is_not_executable_is_a_usage_error(tmp_path) -> None:
    result = run_cli("check", "--quick", "--python", str(tmp_path / "nope"))
    assert result.returncode == 2
    assert "not an executable" in result.stderr


def _real_nvcc_release() -> str:
    out = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, check=True).stdout
    return re.search(r"release (\d+\.\d+)", out).group(1)


@pytest.fixture(scope="module")
def quick_report():
    result = run_cli("check", "--quick", "--json")
    return result, validate(result.json())


def test_quick_check_on_this_machine_fails_on_the_missing_driver(quick_report) -> None:
    result, report = quick_report
    assert result.returncode == 1
    assert result.stderr == ""
    driver = [f for f in report["findings"] if f["id"] == "driver.missing"]
    assert driver and driver[0]["status"] == "fail" and driver[0]["fix"]
    assert report["mode"] == "quick"
    assert report["summary"]["status"] == "fail"
    assert set(report["facts"]) >= SECTIONS


def test_quick_check_reports_real_nvcc_and_tensorflow_build(quick_report) -> None:
    _, report = quick_report
    env = report["environment"]
    assert env["nvcc_version"] == _real_nvcc_release()
    # The oracle: TensorFlow's own answer, from a separate interpreter that imports it.
    code = (
        "import json, tensorflow as tf\n"
        "print(json.dumps({'v': tf.__version__, **tf.sysconfig.get_build_info()}))"
    )
    real = json.loads(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.splitlines()[-1]
    )
    assert env["tensorflow_version"] == real["v"]
    assert env["tf_built_with_cuda"] is real["is_cuda_build"]
    assert env["tf_cuda_version"] == real["cuda_version"]
    assert env["tf_cudnn_version"] == real["cudnn_version"]
    assert (
        report["facts"]["tensorflow"]["build_info"]["cuda_compute_capabilities"]
        == real["cuda_compute_capabilities"]
    )


def test_quick_check_never_imports_tensorflow(tmp_path) -> None:
    code = (
        "import sys\nfrom tfdoctor.cli import main\nrc = main(['check', '--quick', '--json'])\n"
        "print('TF LOADED', 'tensorflow' in sys.modules, file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert "TF LOADED False" in out.stderr


def test_terminal_report_has_verdict_and_fix(tmp_path) -> None:
    result = run_cli("check", "--quick", "--no-color")
    assert result.returncode == 1
    assert "✗" in result.stdout and "fix:" in result.stdout
    assert "\x1b[" not in result.stdout
    assert re.search(r"\d+ failures? · \d+ warnings?", result.stdout)


@pytest.mark.parametrize("how", ["--no-color", "NO_COLOR"])
def test_colour_can_be_turned_off(how: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update(FORCE_COLOR="1", PYTHONPATH=str(ROOT))
    args = ("check", "--quick", "--only", "driver")
    assert "\x1b[" in run_cli(*args, env=env).stdout
    if how == "NO_COLOR":
        plain = run_cli(*args, env=dict(env, NO_COLOR="1"))
    else:
        plain = run_cli(*args, "--no-color", env=env)
    assert "\x1b[" not in plain.stdout


def test_only_and_skip_select_findings(quick_report) -> None:
    only = run_cli("check", "--quick", "--json", "--only", "driver").json()
    assert only["findings"] and all(f["id"].startswith("driver.") for f in only["findings"])
    skipped = run_cli("check", "--quick", "--json", "--skip", "driver").json()
    assert not any(f["id"].startswith("driver.") for f in skipped["findings"])
    assert skipped["findings"]


def test_strict_turns_warnings_into_exit_1() -> None:
    # Selecting only passing/warning findings: without a failure, --strict decides on warnings.
    plain = run_cli("check", "--quick", "--json", "--only", "cuda")
    report = plain.json()
    assert report["summary"]["fail"] == 0
    strict = run_cli("check", "--quick", "--json", "--only", "cuda", "--strict")
    assert strict.returncode == (1 if report["summary"]["warn"] else 0)
    assert plain.returncode == 0


def test_without_tensorflow_and_nvml_the_report_is_complete(bare_python) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [str(bare_python), "-m", "tfdoctor", "check", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == ""
    report = validate(json.loads(proc.stdout))
    ids = {f["id"]: f for f in report["findings"]}
    assert ids["tensorflow.missing"]["status"] == "fail"
    assert "pip install" in ids["tensorflow.missing"]["fix"]
    assert report["facts"]["nvml"]["available"] is False
    assert "nvidia-ml-py" in report["facts"]["nvml"]["error"]
    assert set(report["facts"]) >= SECTIONS
