"""Every input is checked before the work starts: exit 2 and one line, never a traceback, never
a wrong diagnosis; tfdoctor's own bugs exit 3; output files are written atomically."""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, run_cli, write_fake
from schema_check import validate

from tfdoctor import cli, proc
from tfdoctor.files import OutputError, atomic_write, check_writable
from tfdoctor.probes import runtime as rprobe


def _one_line_usage_error(result, *needles: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line, result.stderr
    for needle in needles:
        assert needle in line, line


def _main(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict:
    result = run_cli("report", "--quick", "--json")
    assert result.returncode in (0, 1), result.stderr
    return validate(result.json())


def _save(tmp_path: Path, report: dict, name: str = "r.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(report))
    return path


# --- --timeout ----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [
    "nan", "inf", "-inf", "1e9", "86401", "0", "-5", "1e400", "soon", "1" * 5000,
])
def test_timeout_out_of_range_is_a_usage_error(value: str) -> None:
    start = time.monotonic()
    result = run_cli("check", "--timeout", value)
    _one_line_usage_error(result, "--timeout")
    assert time.monotonic() - start < 10  # refused before any probe


def test_timeout_bounds_the_worker_and_says_so() -> None:
    """A worker cut off by --timeout: its step says "timed out after N s", not "import failed"."""
    stdout = 'TFDOCTOR-STEP {"name": "import", "status": "running"}\n'
    res = proc.Result(("python", "worker.py"), None, stdout, "", 5.0, timed_out=True, limit=5.0)
    facts = rprobe.facts_from(res, "python", 5.0)
    step = facts["steps"][0]
    assert step["status"] == "fail" and step["interrupted"] is True
    assert "timed out after 5 s" in step["error"]
    assert "did not finish within 5 s" in facts["error"]


def test_static_probes_keep_their_own_limit() -> None:
    from tfdoctor.commands import STATIC_TIMEOUT, context

    args = cli.build_parser().parse_args(["check", "--timeout", "0.5"])
    ctx = context(args)
    assert ctx.worker_timeout == 0.5 and ctx.timeout == STATIC_TIMEOUT


# --- --python -----------------------------------------------------------------------------------


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))  # a runaway capture would hit this


def _run_limited(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = dict(os.environ if env is None else env, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "tfdoctor", *args], capture_output=True, text=True,
                          env=full_env, cwd=ROOT, timeout=60, preexec_fn=_limited)


@pytest.mark.parametrize("kind", [
    "directory", "not-executable", "missing", "ls", "yes", "silent", "not-on-path",
])
def test_python_that_is_not_an_interpreter_is_refused_quickly(kind: str, tmp_path: Path,
                                                              bindir: Path) -> None:
    target = {
        "directory": str(tmp_path),
        "missing": str(tmp_path / "nope"),
        "ls": "/bin/ls",
        "not-on-path": "no-such-python-anywhere",
    }.get(kind)
    if kind == "not-executable":
        target = str(tmp_path / "python")
        Path(target).write_text("#!/bin/sh\nexit 0\n")
    elif kind == "yes":  # prints for ever: once made tfdoctor grow to 12.9 GB
        target = str(write_fake(bindir, "python-yes", "exec yes"))
    elif kind == "silent":  # runs and exits 0 without answering
        target = str(write_fake(bindir, "python-silent", "exit 0"))
    start = time.monotonic()
    result = _run_limited("check", "--quick", "--python", target)
    assert time.monotonic() - start < 15
    assert result.returncode == 2, (result.returncode, result.stderr[-500:])
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    assert f"--python {target}" in line
    wanted = {"directory": "directory", "not-executable": "not an executable", "missing": "not an executable",
              "ls": "not a Python interpreter", "yes": "not a Python interpreter",
              "silent": "not a Python interpreter", "not-on-path": "not found on PATH"}[kind]
    assert wanted in line


def test_python_name_is_looked_up_on_path(bindir: Path) -> None:
    write_fake(bindir, "python3", f'exec "{sys.executable}" "$@"')
    result = run_cli("check", "--quick", "--json", "--only", "tensorflow", "--python", "python3",
                     path_prepend=bindir)
    assert result.returncode in (0, 1), result.stderr
    report = validate(result.json())
    assert report["facts"]["tensorflow"]["python"] == str(bindir / "python3")
    assert report["environment"]["tensorflow_version"]


# --- check --from --------------------------------------------------------------------------------


def test_from_refuses_an_explain_report(saved: dict, tmp_path: Path) -> None:
    explained = dict(saved, mode="explain")
    result = run_cli("check", "--from", str(_save(tmp_path, explained)))
    _one_line_usage_error(result, "explain")


@pytest.mark.parametrize("flag", [("--python", sys.executable), ("--quick",), ("--timeout", "30"),
                                  ("--memory-limit", "1024"), ("--multiworker",)])
def test_from_refuses_flags_it_cannot_honour(saved: dict, tmp_path: Path, flag: tuple[str, ...]) -> None:
    result = run_cli("check", "--from", str(_save(tmp_path, saved)), *flag)
    _one_line_usage_error(result, "--from", flag[0])


def test_report_from_refuses_flags_too(saved: dict, tmp_path: Path) -> None:
    _one_line_usage_error(run_cli("report", "--from", str(_save(tmp_path, saved)), "--quick"), "--quick")


def test_from_file_too_large_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with open(path, "wb") as fh:
        fh.write(b'{"schema_version": 2, "facts": {}, "pad": "')
        fh.write(b"x" * (17 << 20))
        fh.write(b'"}')
    start = time.monotonic()
    result = run_cli("check", "--from", str(path))
    assert time.monotonic() - start < 20
    _one_line_usage_error(result, "larger than 16 MiB")


@pytest.mark.parametrize("where, value, field", [
    (("facts",), [], "facts: expected an object, not list"),
    (("facts", "tensorflow", "build_info"), "cuda 12",
     "facts.tensorflow.build_info: expected an object or null"),
    (("facts", "system", "os"), ["Ubuntu"], "facts.system.os: expected a string or null, not list"),
    (("facts", "system", "platform"), "plan9", "facts.system.platform is 'plan9'"),
    (("facts", "nvml", "gpus"), 5, "facts.nvml.gpus: expected a list of GPUs or null, not int"),
    (("facts", "nvml", "gpus"), [{"index": "zero"}], "facts.nvml.gpus[0].index: expected a GPU index"),
    (("facts", "options", "require_gpus"), "two", "facts.options.require_gpus: expected a count of GPUs"),
    (("timings",), {"checks": "fast"}, "timings.checks: expected a number of seconds, not string"),
    (("mode",), "sideways", "mode: expected one of full, quick, explain"),
])
def test_wrong_types_in_a_saved_report_are_input_errors(saved: dict, tmp_path: Path,
                                                         where: tuple[str, ...], value: object,
                                                         field: str) -> None:
    bad = json.loads(json.dumps(saved))
    node = bad
    for key in where[:-1]:
        node = node.setdefault(key, {}) if isinstance(node.get(key), dict) or key not in node else node[key]
    node[where[-1]] = value
    result = run_cli("check", "--from", str(_save(tmp_path, bad)), "--json")
    _one_line_usage_error(result, field)
    assert "internal error" not in result.stderr


def test_huge_numbers_in_a_saved_report_never_raise(saved: dict, tmp_path: Path) -> None:
    """4,300+ digit integers (int() refuses them) and 400-digit floats (Infinity) in the facts."""
    bad = json.loads(json.dumps(saved))
    gpu = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559, "temperature_c": 1}
    bad["facts"]["nvml"] = {"available": True, "driver_version": "580.65.06", "gpus": [gpu]}
    text = json.dumps(bad)
    text = text.replace('"temperature_c": 1', '"temperature_c": ' + "9" * 400 + ".5, \"x\": " + "7" * 5000)
    text = text.replace('"memory_total_mib": 81559', '"memory_total_mib": NaN')
    path = tmp_path / "huge.json"
    path.write_text(text)
    for args in (("check", "--from", str(path), "--json"), ("report", "--from", str(path))):
        result = run_cli(*args)
        assert result.returncode in (0, 1), result.stderr
        out = json.loads(result.stdout, parse_constant=lambda c: pytest.fail(f"{c} in the JSON output"))
        validate(out)
        assert out["facts"]["nvml"]["gpus"][0]["temperature_c"] is None


def test_json_output_is_strict_whatever_the_facts_hold() -> None:
    from tfdoctor.jsonsafe import dumps
    from tfdoctor.render.json import dumps as render

    data = {"a": float("nan"), "b": [float("inf"), -float("inf")], "c": 10 ** 5000, "d": 1.5, "e": 3}
    for text in (dumps(data), render(data)):
        assert json.loads(text, parse_constant=lambda c: pytest.fail(c)) == {
            "a": None, "b": [None, None], "c": None, "d": 1.5, "e": 3}


# --- report --output ----------------------------------------------------------------------------


def test_output_is_validated_before_the_work(tmp_path: Path, bindir: Path) -> None:
    marker = tmp_path / "nvcc-was-run"
    write_fake(bindir, "nvcc", f"touch '{marker}'\nexit 1")
    cases = ((tmp_path, "is a directory"), (tmp_path / "no" / "such" / "r.json", "does not exist"))
    for output, needle in cases:
        result = run_cli("report", "--quick", "--output", str(output), path_prepend=bindir)
        _one_line_usage_error(result, "--output", needle)
        assert not marker.exists(), "the probes ran before the output path was checked"


def test_output_replaces_a_symlink_instead_of_writing_through_it(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "report.json"
    link.symlink_to(victim)
    result = run_cli("report", "--quick", "--output", str(link))
    assert result.returncode in (0, 1), result.stderr
    assert victim.read_text() == "keep me"
    assert not link.is_symlink() and validate(json.loads(link.read_text()))
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_failed_write_leaves_the_previous_report_intact(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "report.json"
    target.write_text('{"previous": true}')

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OutputError, match="No space left"):
        atomic_write(target, "new report")
    assert target.read_text() == '{"previous": true}'
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporary file left behind
    code, out, err = _main("report", "--quick", "--output", str(target))
    assert code == 2 and "No space left" in err and len(err.strip().splitlines()) == 1
    assert target.read_text() == '{"previous": true}'


def test_output_check_refuses_sockets_and_empty_names(tmp_path: Path) -> None:
    import socket

    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    for bad in ("", str(tmp_path / "sock"), str(tmp_path / "x\0y")):
        with pytest.raises(OutputError):
            check_writable(bad)
    sock.close()
    assert check_writable(tmp_path / "fine.json") == tmp_path / "fine.json"


# --- exit code 3 ----------------------------------------------------------------------------------


def test_internal_error_exits_3_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import tfdoctor.commands.checks as checks_command

    def bug(args: object) -> int:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(checks_command, "run", bug)
    monkeypatch.delenv("TFDOCTOR_DEBUG", raising=False)
    code, out, err = _main("checks")
    assert code == 3
    assert len(err.strip().splitlines()) == 1
    assert "internal error" in err and "ZeroDivisionError" in err and "report" in err


def test_usage_and_input_errors_are_not_internal_errors(tmp_path: Path) -> None:
    assert _main("check", "--from", str(tmp_path / "absent.json"))[0] == 2
    (tmp_path / "bad.json").write_text("{not json")
    assert _main("check", "--from", str(tmp_path / "bad.json"))[0] == 2
    (tmp_path / "deep.json").write_text("[" * 100000 + "]" * 100000)
    code, _, err = _main("check", "--from", str(tmp_path / "deep.json"))
    assert code == 2 and "nested" in err
