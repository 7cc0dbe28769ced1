"""Fixes as data: every plan tfdoctor builds stays inside the target environment, and the guards
`tfdoctor fix` runs before anything (the action check, the TensorFlow version check) refuse what
would leave it.

The walk collects every finding of the recorded TensorFlow releases (tests/data/tf-releases/, each
also with the usual breakages applied to its facts), of every real paste of the explain corpus
(tests/data/explain/), and of the machine states the check tests build (recorded nvidia-smi GPUs with
their faults, worker runs, TF_CONFIG clusters), and checks each plan: every warning and failure any
check emits with a fix has one, whose text is the fix; it survives the report's JSON; every view
(terminal, markdown, notebook) shows its commands and words; and every action `fix` would run is a
pip install/uninstall of named packages or an activation line whose paths all lie in the target
environment.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import corpus
import pytest
from schema_check import validate
from tf_releases import load_release, release_names

from tfdoctor import plan as P
from tfdoctor.catalogue import ENTRIES as CATALOGUE
from tfdoctor.compat import load_matrix
from tfdoctor.model import Finding, Report, Status
from tfdoctor.render import fixtext, sanitize
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


# Ids no check ever emits with a fix: passes, and skips that say why nothing was judged.
NEVER_FIXED = {
    "cuda.libraries-ok", "cudnn.ok", "distributed.tf-config", "driver.cuda-compatible", "driver.ok",
    "gpu.compute-capability-ok", "gpu.count-ok", "gpu.health", "gpu.mapping", "platform.ok",
    "runtime.cpu-verified", "runtime.gpu-verified", "runtime.multi-gpu-verified", "runtime.skipped",
    "runtime.throughput-ok", "tensorflow.build", "tensorflow.python-ok",
}


def _gpu_states() -> list[dict]:
    """GPU faults on a recorded H100 (tests/test_checks_health.py's facts), one per health finding."""
    from test_checks_health import _facts as gpu_facts
    from test_checks_health import _h100

    proc = {"pid": 4242, "name": "python", "used_mib": 80000, "type": "C"}
    faults = [
        {"error": "GPU is lost", "error_kind": "gpu-lost"},
        {"ecc": {"mode_current": True, "volatile": {"uncorrected": 3}, "aggregate": {"uncorrected": 3}}},
        {"ecc": {"mode_current": True, "volatile": {"uncorrected": 0}, "aggregate": {"uncorrected": 2}}},
        {"remapped_rows": {"failure": True, "pending": True, "uncorrectable": 1, "correctable": 0}},
        {"retired_pages": {"pending": True}},
        {"pcie": {"gen": 5, "max_gen": 5, "width": 8, "max_width": 16}},
        {"pcie": {"gen": 3, "max_gen": 5, "width": 16, "max_width": 16}, "throttle_reasons": ["power_cap"]},
        {"throttle_reasons": ["hw_thermal"], "temperature_c": 86},
        {"memory_used_mib": 81000, "memory_free_mib": 559, "processes": [proc]},
        {"persistence_mode": False},
        {"compute_mode": "prohibited"},
        {"compute_mode": "exclusive_process", "processes": [proc]},
        {"mig": {"current": True, "pending": True, "devices": []}},
        {"mig": {"current": True, "pending": True, "devices": [{"profile": "1g.10gb"}]}},
        {"mig": {"current": False, "pending": True, "devices": []}},
    ]
    states = [gpu_facts([_h100(**fault)]) for fault in faults]
    caller = {"caller_pids": [4242], "caller": {"interface": "notebook"}}
    states.append({**gpu_facts([_h100()]), "options": caller})
    states[-1]["nvml"]["gpus"] = [_h100(memory_used_mib=81000, memory_free_mib=559, processes=[proc])]
    for kind in ("fork", "no-permission"):
        states.append({**gpu_facts([]), "nvml": {"available": False, "error": kind, "error_kind": kind}})
    states.append({**gpu_facts([_h100()]), "nvidia_smi": {"found": True, "driver_version": "550.54.15"}})
    return states


def _machine_states() -> list[dict]:
    """The Ubuntu H100 machine of tests/test_checks_core.py with one thing wrong at a time."""
    from test_checks_core import healthy, with_

    base = healthy()
    two = [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"},
           {"index": 1, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}]
    shadow = [{"soname": "libcudnn.so.9", "first": "/opt/cudnn/lib/libcudnn.so.9", "pip": "/x/libcudnn.so.9"}]
    return [
        with_(base, libraries={"shadowing": shadow}),
        with_(base, system={"env": {"CUDA_VISIBLE_DEVICES": "NoDevFiles"}}),
        with_(base, nvml={"gpus": two}),
        with_(base, options={"require_gpus": 4}),
        with_(base, options={"require_gpus": 4}, runtime={"ran": True, "tf_visible_gpus": 1},
              system={"env": {"CUDA_VISIBLE_DEVICES": "0"}}),
        with_(base, system={"platform": "wsl2", "wsl_libcuda": []}),
        with_(base, system={"platform": "wsl2", "wsl_libcuda": ["/usr/lib/wsl/lib/libcuda.so.1"]},
              libraries={"loadable": {"libcuda.so.1": ["/usr/lib/x86_64-linux-gnu/libcuda.so.1",
                                                       "/usr/lib/wsl/lib/libcuda.so.1"]}}),
        with_(base, system={"platform": "wsl2", "wsl_libcuda": ["/usr/lib/wsl/lib/libcuda.so.1"]},
              libraries={"loadable": {"libcuda.so.1": ["/usr/lib/wsl/lib/libcuda.so.1",
                                                       "/usr/lib/x86_64-linux-gnu/libcuda.so.1"]}}),
        with_(base, tensorflow={"duplicates": {"tensorflow": ["2.21.0", "2.20.0"]}}),
        with_(base, tensorflow={"installed": None, "error": "exec format error"}),
        with_(base, system={"platform": "macos"}),
        with_(base, nvml={"driver_version": "535.247.01"}),
    ]


def _loaded_copies() -> list[dict]:
    """Libraries the worker mapped from elsewhere than the pip wheels (tests/test_loaded_libraries.py)."""
    from test_loaded_libraries import _facts as loaded_facts
    from test_loaded_libraries import _lib

    cudnn = {"nvidia-cudnn-cu12": "9.3.0.75"}
    system_copy = [_lib("/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7", "libcudnn", "8.9.7")]
    conda_copy = [_lib("/opt/conda/envs/tf/lib/libcudnn.so.9.1.0", "libcudnn", "9.1.0")]
    return [loaded_facts(system_copy, dists=cudnn),
            loaded_facts(system_copy, dists=cudnn, ld_path=["/usr/lib/x86_64-linux-gnu"]),
            loaded_facts(conda_copy, dists=cudnn, conda="/opt/conda/envs/tf")]


def _worker_runs() -> list[dict]:
    """Worker results as tests/test_runtime_faults.py records them, one per runtime finding."""
    from test_runtime_faults import _facts as run_facts
    from test_runtime_faults import _step

    steps = [
        _step("matmul", "fail", failure="mismatch", error="differs from the NumPy reference"),
        _step("train", "fail", failure="placement", error="Conv2D ops ran on CPU:0"),
        _step("train", "fail", failure="loss", error="non-finite loss"),
        _step("train", "fail", failure="exception", error="InternalError: x"),
        _step("train", "fail", device="/device:CPU:0", failure="exception", error="ValueError: x"),
        _step("multi_gpu", "fail", failure="exception", error="InternalError: all-reduce"),
        _step("xla", "fail", failure="exception", error="InternalError: x"),
        _step("throughput", "pass", gpu_name="NVIDIA H100 80GB HBM3", n=4096, tf32=True,
              tflops={"float32": 4.0}),
    ]
    runs = [run_facts(step) for step in steps]
    runs += [run_facts(gpus=0, tf_visible_gpus=0, gpu_reason=reason)
             for reason in ("built without CUDA", "dlopen libcudart failed", "cuInit failed: no driver", "?")]
    for extra in ({"ran": False, "error": "no such file"}, {"timed_out": True, "error": "timed out"},
                  {"memory_exceeded_mib": 9000, "error": "memory"}, {"signal": "SIGSEGV", "returncode": -11},
                  {"result_line": False, "stdout_junk": "hello"}):
        runs.append(run_facts(**extra))
    timed = run_facts(timed_out=True, error="timed out")
    timed["runtime"]["steps"][0]["interrupted"] = True
    runs.append(timed)
    runs.append({"runtime": {"error": "probe did not finish in time", "probe_failed": True}})
    return runs


def _clusters() -> list[dict]:
    """TF_CONFIG values and collective runs as tests/test_distributed_config.py writes them."""
    from test_distributed_config import OK, facts_for, tfc

    configs = ["{'cluster': 1}", "{", tfc(["node1:1"], index=5), tfc(["node1:99999"]),
               tfc(["node1:1", "node1:1"]), tfc(["localhost:1", "node2:1"]), tfc(["node9:1", "node1:1"]),
               tfc(["node9:1", "node8:1"]), json.dumps({"cluster": {"worker": ["node1:1"]}})]
    out = [facts_for(c) for c in configs]
    for coll in ({**OK, "ok": False, "stage": stage, "error": "x", "unreachable": unreachable,
                  "tensorflow": "2.21.0"}
                 for stage, unreachable in (("join", ["worker:1"]), ("import", []), ("bind", []),
                                            ("compare", []), ("join", []), ("other", []))):
        out.append({"collective": coll})
    out += [{"collective": {"requested": True, "ran": False, "skipped": "TF_CONFIG is not set"}},
            {"collective": {**OK, "mismatches": [{"task": "worker:1", "key": "driver", "mine": "1",
                                                  "theirs": "2"}]}},
            {"collective": {"error": "probe did not finish in time", "probe_failed": True}}]
    return out


def _findings() -> list[tuple[str, Finding]]:
    from tfdoctor import checks

    found = []
    for source, states in (("gpu", _gpu_states()), ("machine", _machine_states()), ("worker", _worker_runs()),
                           ("cluster", _clusters()), ("loaded", _loaded_copies())):
        for k, facts in enumerate(states):
            found += [(f"{source}-{k}", f) for f in checks.run_checks(facts, MATRIX)]
    found += [("registry", f) for f in checks.run_checks({}, MATRIX, only=("gpu.health",), verdict=True)]
    crashed = checks._crashed(checks.load_all()[0], RuntimeError("a bug"))
    found.append(("registry", crashed))
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


def test_every_fix_any_check_emits_is_a_plan(findings):
    """Each warning and failure with a fix carries its plan, and the fix shown is the plan's text; the
    walk reaches every id of the catalogue that can carry a fix."""
    fixed: set[str] = set()
    for source, f in findings:
        if f.status < Status.WARN or not f.fix:
            continue
        assert f.plan is not None, (source, f.id, f.fix)
        assert f.fix == f.plan.text() and f.plan.actions, (source, f.id)
        fixed.add(f.id)
    assert fixed == set(CATALOGUE) - NEVER_FIXED, (set(CATALOGUE) - NEVER_FIXED - fixed, fixed & NEVER_FIXED)


def _views(f: Finding) -> tuple[str, str, str, dict]:
    """The finding alone in a report, as the terminal, markdown and notebook show it, and as JSON."""
    import io

    from rich.console import Console

    from tfdoctor.render import markdown, notebook, terminal

    report = json.loads(Report("full", {}, {}, [f], created_at="2026-01-01T00:00:00+00:00").to_json())
    console = Console(width=400, record=True, color_system=None, file=io.StringIO())
    terminal.render(report, out=console)
    return console.export_text(), markdown.render(report), notebook.html(report), report["findings"][0]


def test_every_view_shows_the_same_commands_and_words(findings):
    """Terminal, markdown, notebook and JSON take a fix's commands and words from its plan, so every
    id's plan reads the same everywhere."""
    from tfdoctor.render import markdown, notebook

    def flat(text: str) -> str:
        return " ".join(text.split())

    seen: set[tuple[str, str]] = set()
    for source, f in findings:
        if f.plan is None or f.status < Status.WARN or (f.id, f.fix) in seen:
            continue
        seen.add((f.id, f.fix or ""))
        f = dataclasses.replace(f, caused_by=None)  # shown as a root cause: its fix in full
        screen, md, html, data = _views(f)
        back = Finding.from_dict(data)
        assert back.plan == f.plan and back.fix == f.fix, (source, f.id)
        parts = fixtext.parts(data)
        assert list(parts.commands) == list(dict.fromkeys(c for c in f.plan.commands() if c.strip()))
        assert parts.prose == f.plan.prose()
        if parts.commands:
            assert markdown.code("\n".join(parts.commands), "sh") in md, (source, f.id)
            assert notebook.esc("\n".join(parts.commands)).strip() in html, (source, f.id)
        for command in parts.commands:
            assert command in screen, (source, f.id, command)
        if parts.prose:
            assert flat(sanitize.text(parts.prose)) in flat(screen), (source, f.id, parts.prose)
            assert markdown.prose(parts.prose) in md, (source, f.id)
            assert notebook.esc(parts.prose) in html, (source, f.id)
    assert {i for i, _ in seen} == set(CATALOGUE) - NEVER_FIXED


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
    assert Finding.from_dict(f).plan is None
    assert fixtext.parts(f) == fixtext.Parts((), "pip install x")  # shown as written, nothing guessed


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


def test_windows_plans_speak_cmd():
    """cmd.exe (the Anaconda Prompt) has `set`, not `export`, and no `$(...)`: the installed TensorFlow's
    version comes from `pip show` through `for /f`."""
    from tfdoctor.checks import remedies as rm

    env = P.env("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    assert P.make("python", env, windows=True).text() == "set TF_FORCE_GPU_ALLOW_GROWTH=true"
    assert P.make("python", env).text() == "export TF_FORCE_GPU_ALLOW_GROWTH=true"
    windows = {"system": {"platform": "windows"},
               "tensorflow": {"python": "C:\\Program Files\\py\\python.exe"}}
    text = rm.plan(windows, rm.install(rm.keep_tf_version(windows), "numpy<2")).text()
    assert text == ("for /f \"tokens=2\" %v in ('\"C:\\Program Files\\py\\python.exe\" -m pip show tensorflow"
                    " ^| findstr /b \"Version:\"') do \"C:\\Program Files\\py\\python.exe\" -m pip install"
                    " tensorflow==%v \"numpy<2\"")
    linux = {"system": {"platform": "linux"}}
    assert "sed -n 's/^Version: //p'" in rm.plan(linux, rm.install(rm.keep_tf_version(linux))).text()
    assert not rm.plan(windows, rm.install(rm.keep_tf_version(windows))).runnable  # stated, never run
