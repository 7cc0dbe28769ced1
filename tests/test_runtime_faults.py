"""Faults of the TensorFlow worker, each with a real child process as the target interpreter,
and bad step results judged by the runtime checks.

A fault run is a full `tfdoctor check --json --python SCRIPT --timeout 5`: the report must be
complete, valid JSON, exit 1, with a finding that says what happened in plain words. The fake
interpreters hand every call that is not the worker (e.g. the static TensorFlow probe's `-c`
snippets) to the real Python, so only the worker misbehaves.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import time
from pathlib import Path

import pytest
from conftest import DATA, ROOT, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from schema_check import validate

from tfdoctor import proc
from tfdoctor.checks.runtime import runtime as runtime_check
from tfdoctor.compat import load_matrix
from tfdoctor.model import Status
from tfdoctor.probes import runtime as rprobe

REAL_PY = sys.executable


def fake_python(tmp_path: Path, worker_body: str) -> Path:
    """An executable that acts as `python`, except that running the worker runs worker_body."""
    path = tmp_path / "python"
    path.write_text(
        "#!/bin/sh\n"
        'case "$*" in\n'
        f"  *worker.py*)\n{worker_body}\n    ;;\n"
        f'  *) exec "{REAL_PY}" "$@" ;;\n'
        "esac\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def fake_tensorflow(tmp_path: Path, init: str) -> dict:
    """An environment whose `import tensorflow` runs `init` (a real package on PYTHONPATH)."""
    pkg = tmp_path / "site" / "tensorflow"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(init)
    env = dict(os.environ)
    env["PYTHONPATH"] = f"{tmp_path / 'site'}{os.pathsep}{ROOT}"
    return env


def check(*args: str, env: dict | None = None) -> dict:
    res = run_cli("check", "--json", "--timeout", "5", *args, env=env, timeout=120)
    assert res.returncode == 1, (res.returncode, res.stderr[-2000:])
    assert "Traceback" not in res.stderr
    report = res.json()
    validate(report)
    assert report["facts"]["runtime"]["ran"] is not None
    return report


def finding(report: dict, fid: str) -> dict:
    found = [f for f in report["findings"] if f["id"] == fid]
    assert found, [f["id"] for f in report["findings"]]
    return found[0]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


# --- real child processes ------------------------------------------------------------------------


def test_segfault_during_import(tmp_path):
    env = fake_tensorflow(tmp_path, "import ctypes\nctypes.string_at(0)\n")
    report = check(env=env)
    rt = report["facts"]["runtime"]
    assert rt["signal"] == "SIGSEGV" and rt["returncode"] == -11
    crashed = finding(report, "runtime.worker-crashed")
    assert crashed["status"] == "fail"
    assert "import" in crashed["title"] and "SIGSEGV" in crashed["detail"]
    assert "PYTHONFAULTHANDLER=1" in crashed["fix"]
    imp = next(s for s in rt["steps"] if s["name"] == "import")
    assert imp["status"] == "fail" and imp["interrupted"] is True


def test_hanging_worker_is_killed_with_its_whole_process_group(tmp_path):
    pids = tmp_path / "pids"
    body = (
        f"    echo $$ >> '{pids}'\n"
        f"    sh -c 'sleep 300 & echo $! >> \"{pids}\"; wait' &\n"
        "    sleep 300\n"
    )
    start = time.monotonic()
    report = check("--python", str(fake_python(tmp_path, body)))
    assert time.monotonic() - start < 60
    rt = report["facts"]["runtime"]
    assert rt["timed_out"] is True
    hung = finding(report, "runtime.worker-timeout")
    # --timeout 5 bounds the whole run: the worker had what was left of it
    assert hung["status"] == "fail" and re.search(r"within (5|4\.\d) s", hung["detail"]) and hung["fix"]
    recorded = [int(p) for p in pids.read_text().split()]
    assert len(recorded) == 2  # the worker and its grandchild
    time.sleep(0.5)
    assert [p for p in recorded if alive(p)] == []


@pytest.mark.parametrize("cut_after, slow_disk", [("import", True), ("train", False)])
def test_a_timeout_is_worded_by_the_step_it_stopped_in(cut_after, slow_disk):
    """The real TF 2.12 worker output, cut where a step had started and killed there: a hang while
    importing (no GPU touched yet) is a slow import, a hang later may be a sick GPU."""
    lines = (DATA / "tf-releases" / "tf-2.12.1" / "worker.stdout").read_text().splitlines()
    cut = next(i for i, line in enumerate(lines) if f'"name": "{cut_after}"' in line and '"running"' in line)
    res = proc.Result(("py", "worker.py"), -9, "\n".join(lines[: cut + 1]) + "\n", "", 300.0, timed_out=True)
    facts = {"runtime": rprobe.facts_from(res, "py", 300.0)}
    hung = next(f for f in runtime_check(facts, load_matrix()) if f.id == "runtime.worker-timeout")
    assert f"during the {cut_after} step" in hung.title
    assert ("import tensorflow" in hung.fix) is slow_disk and ("xid" in hung.fix) is not slow_disk


def test_worker_printing_junk(tmp_path):
    body = "    echo 'Welcome to the cluster! Module python/3.11 loaded.'\n    echo '{\"half\": '\n    exit 0"
    report = check("--python", str(fake_python(tmp_path, body)))
    bad = finding(report, "runtime.worker-garbage")
    assert bad["status"] == "fail"
    assert "no result line" in bad["detail"] and "Welcome to the cluster" in bad["detail"]
    assert report["facts"]["runtime"]["stdout_junk"].startswith("Welcome")


def test_worker_printing_nothing(tmp_path):
    report = check("--python", str(fake_python(tmp_path, "    exit 0")))
    bad = finding(report, "runtime.worker-garbage")
    assert bad["status"] == "fail" and "printed no output" in bad["detail"]


def test_worker_exiting_with_an_error_status(tmp_path):
    report = check("--python", str(fake_python(tmp_path, "    echo 'fatal: cannot start' >&2\n    exit 3")))
    bad = finding(report, "runtime.worker-crashed")
    assert "exited with status 3" in bad["detail"]
    assert "fatal: cannot start" in report["facts"]["runtime"]["log"]


def test_tensorflow_import_raising(tmp_path):
    message = "libcudart.so.12: cannot open shared object file: No such file or directory"
    env = fake_tensorflow(tmp_path, f"raise ImportError({message!r})\n")
    report = check(env=env)
    rt = report["facts"]["runtime"]
    assert rt["result_line"] is True and rt["error"] is None  # the worker itself answered
    imp = next(s for s in rt["steps"] if s["name"] == "import")
    assert imp["status"] == "fail" and message in imp["error"]
    assert all(s["status"] == "skip" for s in rt["steps"] if s["name"] != "import")
    failed = finding(report, "runtime.import-failed")
    assert failed["status"] == "fail" and message in failed["detail"]
    assert "tensorflow[and-cuda]" in failed["fix"]
    assert finding(report, "cuda.libraries-missing")["status"] == "fail"


# --- bad step results, judged by the checks ------------------------------------------------------

GPU = "/device:GPU:0"


def _facts(*steps: dict, gpus: int = 1, **extra) -> dict:
    rt = {
        "ran": True, "python": "/venv/bin/python", "result_line": True, "returncode": 0,
        "timed_out": False, "signal": None, "error": None, "log": "", "tf_visible_gpus": gpus,
        "gpus": [{"tf_device": GPU, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}][:gpus],
        "steps": [{"name": "import", "device": None, "status": "pass", "seconds": 2.0},
                  {"name": "devices", "device": None, "status": "pass", "seconds": 0.1}, *steps],
    }
    rt.update(extra)
    return {"runtime": rt, "system": {"platform": "linux", "os": "Ubuntu 22.04.4 LTS"}}


def _step(name: str, status: str, device: str = GPU, **extra) -> dict:
    return {"name": name, "device": device, "status": status, "seconds": 0.5, **extra}


def _run(facts: dict, matrix=None) -> dict:
    out: dict = {}
    for f in runtime_check(facts, matrix):
        assert f.status < Status.WARN or f.fix, f  # every warning and failure has a fix
        out.setdefault(f.id, f)
    return out


def _recorded(name: str) -> str:
    return (DATA / "explain" / name).read_text()


def _judged(facts: dict) -> dict:
    """The whole pipeline's verdict: a failed step's error goes through the one engine."""
    from tfdoctor.report import build_report

    return {f.id: f for f in build_report("full", facts, load_matrix()).findings}


def test_wrong_gpu_matmul_is_silent_corruption():
    step = _step("matmul", "fail", failure="mismatch", max_rel_error=0.31,
                 error="matmul on /device:GPU:0 differs from the NumPy reference: max relative error 0.31")
    found = _run(_facts(step))["runtime.matmul-mismatch"]
    assert found.status == Status.FAIL and "corruption" in found.title and "dcgmi diag" in found.fix


def test_work_placed_on_the_cpu_is_a_placement_failure():
    step = _step("train", "fail", failure="placement",
                 error="Conv2D ops ran on /job:localhost/replica:0/task:0/device:CPU:0, not on /device:GPU:0")
    found = _run(_facts(step))
    assert found["runtime.placement-mismatch"].status == Status.FAIL
    assert "runtime.gpu-verified" not in found


def test_nan_loss_fails_training():
    step = _step("train", "fail", failure="loss", losses=["nan", "nan"],
                 error="training on /device:GPU:0 produced a non-finite loss: ['nan', 'nan']")
    found = _run(_facts(step))["runtime.train-failed"]
    assert found.status == Status.FAIL and "non-finite" in found.detail


def test_xla_failing_for_libdevice_is_the_toolchain_finding():
    step = _step("xla", "fail", failure="exception", error=_recorded("032-libdevice-not-found-xla.txt"))
    found = _judged(_facts(step))
    xla = found["xla.toolchain-missing"]
    assert xla.status == Status.FAIL and xla.caused_by is None
    assert found["runtime.step-failed"].caused_by == "xla.toolchain-missing"  # one cause, one root


def test_out_of_memory_during_training():
    step = _step("train", "fail", failure="exception", error=_recorded("022-oom-bfc-tile.txt"))
    found = _judged(_facts(step))
    assert found["gpu.out-of-memory"].status == Status.FAIL and found["gpu.out-of-memory"].caused_by is None
    assert found["runtime.train-failed"].caused_by == "gpu.out-of-memory"


def test_nccl_failure_across_gpus():
    step = _step("multi_gpu", "fail", device="/device:GPU:0,/device:GPU:1", failure="exception",
                 error=_recorded("029-nccl-unhandled-system-error.txt"))
    found = _judged(_facts(step, gpus=2))
    assert found["runtime.multi-gpu-failed"].status == Status.FAIL
    assert found["nccl.error"].status >= Status.WARN
    assert found["runtime.multi-gpu-failed"].caused_by == "nccl.error"


def test_other_failed_step_is_reported_with_its_error():
    step = _step("mixed_precision", "fail", failure="exception", error="InternalError: cuBLAS handle failed")
    found = _run(_facts(step))["runtime.step-failed"]
    assert "mixed_precision" in found.title and "cuBLAS handle failed" in found.detail


def test_throughput_far_below_peak_warns_and_near_peak_passes():
    matrix = load_matrix()
    slow = _step("throughput", "pass", gpu_name="NVIDIA H100 80GB HBM3", n=4096, tf32=True,
                 tflops={"float32": 40.0, "float16": 90.0, "bfloat16": 600.0})
    found = _run(_facts(slow), matrix)["runtime.slow-throughput"]
    assert found.status == Status.WARN and "float16" in found.title and "bfloat16" not in found.title
    assert "float32 (TF32) 40.0 of 494.7" in found.detail
    fast = {**slow, "tflops": {"float32": 300.0, "float16": 650.0}}
    assert _run(_facts(fast), matrix)["runtime.throughput-ok"].status == Status.PASS
    unknown = {**slow, "gpu_name": "Some Future GPU"}
    ok = _run(_facts(unknown), matrix)["runtime.throughput-ok"]
    assert "no datasheet peak" in ok.title


def test_gpu_verified_with_speedup():
    mm = _step("matmul", "pass", max_rel_error=3e-7)
    tr = _step("train", "pass", losses=[0.8, 0.2], steps_per_second=400.0, speedup_vs_cpu=11.5,
               memory_peak_mib=20.5)
    found = _run(_facts(mm, tr))["runtime.gpu-verified"]
    assert found.status == Status.PASS and "11.5x" in found.detail and "20.5 MiB" in found.detail


def test_quick_mode_is_a_skip():
    facts = {"runtime": {"ran": False, "skipped": "--quick: the TensorFlow worker was not run"}}
    found = _run(facts)["runtime.skipped"]
    assert found.status == Status.SKIP and "--quick" in found.detail


def test_failed_probe_is_a_failure():
    facts = {"runtime": {"error": "probe did not finish in time and was abandoned", "probe_failed": True}}
    found = _run(facts)["runtime.worker-crashed"]
    assert found.status == Status.FAIL and "abandoned" in found.detail


def test_tensorflow_not_installed_is_left_to_the_static_check():
    step = {"name": "import", "device": None, "status": "fail",
            "error": "ModuleNotFoundError: No module named 'tensorflow'"}
    facts = _facts(gpus=0)
    facts["runtime"]["steps"] = [step]
    found = _run(facts)["runtime.import-failed"]
    assert found.status == Status.SKIP


def test_no_gpu_fix_follows_the_reason():
    dlopen = ("Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are"
              " installed properly if you would like to use GPU.")
    found = _run(_facts(gpus=0, gpu_reason=dlopen))["runtime.no-gpu-visible"]
    assert "tensorflow[and-cuda]" in found.fix and dlopen in found.detail
    cuinit = "failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)"
    found = _run(_facts(gpus=0, gpu_reason=cuinit))["runtime.no-gpu-visible"]
    assert "ubuntu-drivers" in found.fix


# --- whatever the worker (or a saved report) says, the probe parser and the check never raise ----

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
step_like = st.fixed_dictionaries(
    {"name": st.sampled_from(["import", "devices", "matmul", "train", "throughput", "xla", "multi_gpu"]),
     "status": st.sampled_from(["pass", "fail", "skip", "running", 3])},
    optional={"device": json_values, "error": json_values, "failure": json_values, "tflops": json_values,
              "losses": json_values, "interrupted": st.booleans()},
)


@settings(max_examples=150, deadline=None)
@given(rt=st.dictionaries(st.sampled_from(["ran", "steps", "gpus", "tf_visible_gpus", "error", "signal",
                                           "timed_out", "result_line", "returncode", "log", "gpu_reason"]),
                          json_values, max_size=8),
       steps=st.lists(step_like, max_size=6))
def test_check_never_raises_on_odd_facts(rt, steps):
    rt = {**rt, "steps": steps} if steps else rt
    for f in runtime_check({"runtime": rt}, None):
        assert f.id.startswith(("runtime.", "xla.", "gpu.", "nccl.", "cuda.", "cudnn.", "driver.",
                                "tensorflow.", "platform."))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["TFDOCTOR-STEP ", "TFDOCTOR-RESULT ", "{", "}", '"name"', ":", '"x"',
                                  "\n", " ", "[", "]", "null", "\ufffd"]), max_size=60).map("".join))
def test_worker_output_parser_never_raises(text):
    result, steps, junk = rprobe.parse_output(text)
    assert result is None or isinstance(result, dict)
    facts = rprobe.facts_from(proc.Result(("py",), 0, text, "", 0.1), "py", 5)
    assert facts["error"] is None or isinstance(facts["error"], str)
