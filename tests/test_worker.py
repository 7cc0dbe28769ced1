"""The TensorFlow worker, its probe and its checks, on real TensorFlow in real child processes.

Two module-scoped runs keep the suite fast: one full `tfdoctor check --json` (the acceptance
case: CPU steps pass, GPU steps carry TensorFlow's own reason), and one worker run with the CPU
split into 2 logical devices (MirroredStrategy) and the GPU-only steps exercised on the CPU.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest
from conftest import DATA, ROOT, run_cli
from schema_check import validate

from tfdoctor import proc
from tfdoctor.checks.runtime import runtime as runtime_check
from tfdoctor.probes import Context
from tfdoctor.probes import runtime as rprobe
from tfdoctor.worker import worker as w

STEP_KEYS = {"name", "device", "status", "seconds"}


@pytest.fixture(scope="module")
def check_run() -> dict:
    res = run_cli("check", "--json", timeout=300)
    assert res.returncode in (0, 1), res.stderr
    report = res.json()
    report["_returncode"] = res.returncode
    return report


@pytest.fixture(scope="module")
def split_run() -> dict:
    ctx = Context(python=sys.executable, worker_timeout=300, memory_limit_mib=512)
    return rprobe.probe(ctx, extra=("--logical-cpus", "2", "--exercise-cpu"))


def test_memory_limit_reaches_the_worker(split_run):
    devices = next(s for s in split_run["steps"] if s["name"] == "devices")
    assert devices["status"] == "pass" and devices["memory_limit_mib"] == 512


def _step(facts: dict, name: str, device: str) -> dict:
    found = [s for s in facts["steps"] if s["name"] == name and s["device"] == device]
    assert len(found) == 1, [(s["name"], s["device"]) for s in facts["steps"]]
    return found[0]


def _ids(findings) -> dict:
    out: dict = {}
    for f in findings:
        fid, status = (f["id"], f["status"]) if isinstance(f, dict) else (f.id, str(f.status))
        out.setdefault(fid, status)
    return out


# --- the acceptance run: `tfdoctor check --json` on this machine -------------------------------


def test_check_report_is_valid_and_complete(check_run):
    validate({k: v for k, v in check_run.items() if k != "_returncode"})
    rt = check_run["facts"]["runtime"]
    assert rt["ran"] is True and rt["result_line"] is True and rt["error"] is None
    assert rt["returncode"] == 0 and rt["timed_out"] is False and rt["signal"] is None
    for step in rt["steps"]:
        assert STEP_KEYS <= set(step), step
        assert step["name"] in w.STEP_NAMES
        assert step["status"] in ("pass", "fail", "skip")
        assert step["seconds"] >= 0


def test_cpu_matmul_matches_numpy_with_placement_from_the_log(check_run):
    mm = _step(check_run["facts"]["runtime"], "matmul", "/device:CPU:0")
    assert mm["status"] == "pass", mm
    assert 0 <= mm["max_rel_error"] < mm["tolerance"]
    devices = {d for devs in mm["placement"].values() for d in devs}
    assert devices and all(d.endswith("device:CPU:0") for d in devices)


def test_cpu_training_runs_and_learns(check_run):
    tr = _step(check_run["facts"]["runtime"], "train", "/device:CPU:0")
    assert tr["status"] == "pass", tr
    losses = tr["losses"]
    assert len(losses) == w.TRAIN_STEPS and all(math.isfinite(v) for v in losses)
    assert losses[-1] < losses[0]
    assert tr["steps_per_second"] > 0 and tr["seconds_per_step"] > 0
    assert "Conv2D" in tr["placement"]
    ids = _ids(check_run["findings"])
    assert ids.get("runtime.cpu-verified") == "pass"


def test_gpu_steps_follow_what_tensorflow_sees(check_run):
    rt = check_run["facts"]["runtime"]
    assert check_run["environment"]["tf_visible_gpus"] == rt["tf_visible_gpus"]
    gpu_steps = [s for s in rt["steps"] if s["name"] in w.GPU_STEPS and s["device"] != "/device:CPU:0"]
    assert {s["name"] for s in gpu_steps} == set(w.GPU_STEPS)
    if rt["tf_visible_gpus"] == 0:
        # TensorFlow's own reason, quoted from its log, travels with every skipped GPU step.
        reason = rt["gpu_reason"]
        assert reason and reason.split(" / ")[0] in rt["log"]
        for step in gpu_steps:
            assert step["status"] == "skip" and reason in step["reason"]
        ids = _ids(check_run["findings"])
        assert ids["runtime.no-gpu-visible"] == "fail"
        no_gpu = next(f for f in check_run["findings"] if f["id"] == "runtime.no-gpu-visible")
        assert reason in no_gpu["detail"] and no_gpu["fix"]
        assert check_run["_returncode"] == 1
    else:
        assert all(s["status"] == "pass" for s in gpu_steps if s["name"] in ("matmul", "train"))


def test_driver_finding_comes_with_no_gpu(check_run):
    if check_run["facts"]["runtime"]["tf_visible_gpus"]:
        pytest.skip("a GPU is visible here")
    assert _ids(check_run["findings"]).get("driver.missing") == "fail"


def test_log_keeps_tensorflow_words_but_not_placement_spam(check_run):
    log = check_run["facts"]["runtime"]["log"]
    assert "Executing op" not in log and "placer.cc" not in log
    assert "TFDOCTOR-" not in log
    if check_run["facts"]["runtime"]["tf_visible_gpus"] == 0:
        assert "cuInit" in log or "CUDA" in log


def test_log_goes_through_the_explain_engine(check_run):
    pytest.importorskip("tfdoctor.explain")
    from tfdoctor.explain import explain_text

    log = check_run["facts"]["runtime"]["log"]
    expected = {f.id for f in explain_text(log).findings if f.confidence == "certain"}
    assert expected <= set(_ids(check_run["findings"]))
    if "failed call to cuInit" in log:
        assert "cuda.init-failed" in expected  # the cuInit line became a finding with a fix


# --- the split-CPU run: MirroredStrategy and the GPU-only steps, exercised on the CPU ------------


def test_mirrored_strategy_across_logical_cpus(split_run):
    multi = _step(split_run, "multi_gpu", "/device:CPU:0,/device:CPU:1")
    assert multi["status"] == "pass", multi
    assert multi["replicas"] == 2 and multi["all_reduce_sum"] == 3.0
    assert multi["losses"] and all(math.isfinite(v) for v in multi["losses"])


def test_throughput_xla_and_mixed_precision_steps_on_cpu(split_run):
    tp = _step(split_run, "throughput", "/device:CPU:0")
    assert tp["status"] == "pass", tp
    assert set(tp["tflops"]) == {"float32", "float16", "bfloat16"}
    assert all(v > 0 for v in tp["tflops"].values())
    xla = _step(split_run, "xla", "/device:CPU:0")
    assert xla["status"] == "pass" and xla["max_rel_error"] < 1e-3, xla
    mixed = _step(split_run, "mixed_precision", "/device:CPU:0")
    assert mixed["status"] == "pass", mixed
    assert mixed["policies"]["mixed_bfloat16"]["status"] == "pass"


def test_checks_on_the_split_run(split_run):
    ids = _ids(runtime_check({"runtime": split_run}, None))
    assert ids["runtime.cpu-verified"] == "pass"
    # CPU replicas prove the strategy code, not GPUs: no GPU claim, and no CPU peak to compare with.
    assert "runtime.multi-gpu-verified" not in ids and "runtime.throughput-ok" not in ids


# --- parsers and pure pieces, on recorded real TensorFlow output -------------------------------


def test_placements_from_the_tensorflow_gpu_guide_output():
    lines = (DATA / "worker" / "placement-guide-gpu.txt").read_text().splitlines()
    placed = w.placements(lines, "MatMul")
    assert placed == {"MatMul": ["/job:localhost/replica:0/task:0/device:GPU:0",
                                 "/job:localhost/replica:0/task:0/device:GPU:2"]}
    assert w._same_device(placed["MatMul"][0], "/device:GPU:0")
    assert not w._same_device(placed["MatMul"][1], "/device:GPU:0")
    assert w.placements(lines, "Conv2D") == {}


def test_created_device_line_gives_pci_bus_id():
    text = (DATA / "explain" / "034-created-device-gtx1080ti-healthy.txt").read_text()
    m = next(filter(None, (w.CREATED.search(line) for line in text.splitlines())))
    assert m.group(1) == "/device:GPU:0" and m.group(2) == "9858"
    assert m.group(4) == "NVIDIA GeForce GTX 1080 Ti"
    assert m.group(5) == "0000:03:00.0" and m.group(6) == "6.1"


def test_gpu_reason_quotes_tensorflow():
    text = (DATA / "explain" / "008-cuinit-303-cpu-node.txt").read_text().splitlines()
    reason = w.gpu_reason(text, True)
    assert reason.startswith("failed call to cuInit: UNKNOWN ERROR (303)")  # log prefix stripped
    assert "no CUDA support" in w.gpu_reason(text, False)
    assert "logged no reason" in w.gpu_reason(["nothing to see"], True)


def test_worker_options():
    args = w.parse_args(["--memory-limit", "2048", "--logical-cpus", "3"])
    assert args.memory_limit == 2048 and args.logical_cpus == 3 and not args.exercise_cpu
    ctx = Context(python="/x/python", memory_limit_mib=2048)
    argv = rprobe.worker_argv(ctx)
    assert argv[:2] == ["/x/python", str(rprobe.WORKER)] and argv[2:] == ["--memory-limit", "2048"]
    assert rprobe.worker_argv(Context(python="p"))[2:] == []
    env = rprobe.worker_env(Context(python="p", env={"TF_CPP_MIN_LOG_LEVEL": "3"}))
    assert env["TF_CPP_MIN_LOG_LEVEL"] == "0"


def test_worker_file_is_stdlib_only_at_module_level():
    source = Path(w.__file__).read_text()
    top = [ln for ln in source.splitlines() if ln.startswith(("import ", "from "))]
    allowed = {"__future__", "argparse", "json", "math", "os", "platform", "re", "sys", "threading",
               "time", "typing"}
    assert {ln.split()[1].split(".")[0] for ln in top} <= allowed
    assert rprobe.WORKER.is_file() and rprobe.WORKER.parent.parent == ROOT / "tfdoctor"


def test_parse_output_rebuilds_steps_and_keeps_junk():
    out = "\n".join([
        'TFDOCTOR-STEP {"name": "import", "device": null, "status": "running"}',
        'TFDOCTOR-STEP {"name": "import", "device": null, "status": "pass", "seconds": 2.0}',
        'TFDOCTOR-STEP {"name": "devices", "device": null, "status": "running"}',
        "TFDOCTOR-RESULT {not json",
        "hello",
    ])
    result, steps, junk = rprobe.parse_output(out)
    assert result is None
    assert [(s["name"], s["status"]) for s in steps] == [("import", "pass"), ("devices", "running")]
    assert junk == ["TFDOCTOR-RESULT {not json", "hello"]
    res = proc.Result(("py", "worker.py"), -11, out, "", 1.0)
    facts = rprobe.facts_from(res, "py", 30)
    assert facts["signal"] == "SIGSEGV" and "SIGSEGV" in facts["error"]
    devices = next(s for s in facts["steps"] if s["name"] == "devices")
    assert devices["status"] == "fail" and devices["interrupted"] and "SIGSEGV" in devices["error"]
