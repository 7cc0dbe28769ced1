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
    from tfdoctor.report import explain_report

    log = check_run["facts"]["runtime"]["log"]
    expected = {f.id for f in explain_report(log).findings if f.confidence == "certain"}
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
    assert env["TF_CPP_VMODULE"] == "dso_loader=1"  # the library a dlopen failed on is named


def test_worker_file_is_stdlib_only_at_module_level():
    source = Path(w.__file__).read_text()
    top = [ln for ln in source.splitlines() if ln.startswith(("import ", "from "))]
    allowed = {"__future__", "argparse", "json", "math", "os", "platform", "re", "stat", "struct", "sys",
               "threading", "time", "typing"}
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


# --- GPU-side output pasted in public threads (tests/data/worker/README.md lists the sources) ----


def _lines(name: str) -> list[str]:
    return (DATA / "worker" / name).read_text().splitlines()


@pytest.mark.parametrize(
    ("name", "device", "expected"),
    [
        ("created-tf24-t4.txt", "/device:GPU:0",
         {"memory_mib": 10175, "device": 0, "name": "Tesla T4", "pci_bus_id": "0000:00:07.0",
          "compute_capability": "7.5"}),
        ("a100x8-nvlink-edge-matrix.txt", "/device:GPU:0",
         {"memory_mib": 37571, "device": 0, "name": "A100-SXM4-40GB", "pci_bus_id": "0000:0e:00.0",
          "compute_capability": "8.0"}),
        ("v100-sxm2-created.txt", "/device:GPU:0",
         {"memory_mib": 30458, "device": 0, "name": "Tesla V100-SXM2-32GB", "pci_bus_id": "0000:8d:00.0",
          "compute_capability": "7.0"}),
        ("h100-created-2026.txt", "/device:GPU:0",
         {"memory_mib": 78763, "device": 0, "name": "NVIDIA H100 80GB HBM3", "pci_bus_id": "0000:06:00.0",
          "compute_capability": "9.0"}),
        ("a100-mig-3g20gb.txt", "/device:GPU:0",
         {"memory_mib": 18211, "device": 0, "name": "NVIDIA A100-SXM4-40GB MIG 3g.20gb",
          "pci_bus_id": "0000:47:00.0", "compute_capability": "8.0"}),
        ("m40x8-tf114.txt", "/device:GPU:7",
         {"memory_mib": 20545, "device": 7, "name": "Tesla M40 24GB", "pci_bus_id": "0000:89:00.0",
          "compute_capability": "5.2"}),
        ("rocm-vega20-executing.txt", "/device:GPU:0",
         {"memory_mib": 32252, "device": 0, "name": "Vega 20", "pci_bus_id": "0000:83:00.0",
          "compute_capability": None}),
        ("directml-pluggable-placement.txt", "/device:GPU:1",
         {"memory_mib": 14598, "device": 1, "name": "DML", "pci_bus_id": None, "compute_capability": None}),
    ],
)
def test_created_device_lines_of_every_wording(name, device, expected):
    assert w.created_devices(_lines(name))[device] == expected


def test_created_devices_of_two_gpu_models_and_of_the_explain_corpus():
    both = w.created_devices(_lines("quadro-p5000-rtx3090-two-models.txt"))
    assert [(d, v["name"], v["compute_capability"]) for d, v in sorted(both.items())] == [
        ("/device:GPU:0", "Quadro P5000", "6.1"), ("/device:GPU:1", "NVIDIA GeForce RTX 3090", "8.6")]
    assert len(w.created_devices(_lines("m40x8-tf114.txt"))) == 4
    rtx5060 = (DATA / "explain" / "040-no-ptx-provider-rtx5060.txt").read_text().splitlines()
    rtx5060 = w.created_devices(rtx5060)
    assert rtx5060["/device:GPU:0"]["compute_capability"] == "12.0"
    assert rtx5060["/device:GPU:0"]["name"] == "NVIDIA GeForce RTX 5060 Ti"


def test_gpu_entry_prefers_device_details_and_falls_back_to_the_created_line():
    created = w.created_devices(_lines("a100-mig-3g20gb.txt"))["/device:GPU:0"]
    # get_device_details' real shape (device-details.txt), and the same after a JSON round trip
    t4 = {"compute_capability": (7, 5), "device_name": "Tesla T4"}
    assert w.gpu_entry("/device:GPU:0", t4, None) == {
        "tf_device": "/device:GPU:0", "name": "Tesla T4", "compute_capability": "7.5",
        "pci_bus_id": None, "memory_mib": None}
    assert w.gpu_entry("/device:GPU:0", {"compute_capability": [7, 5]}, None)["compute_capability"] == "7.5"
    mig = w.gpu_entry("/device:GPU:0", {}, created)
    assert mig["name"] == "NVIDIA A100-SXM4-40GB MIG 3g.20gb" and mig["compute_capability"] == "8.0"
    assert mig["memory_mib"] == 18211 and mig["pci_bus_id"] == "0000:47:00.0"
    assert w.gpu_entry("/device:GPU:0", {"device_name": "AMD Instinct"}, None)["compute_capability"] is None
    assert all(w.cc_text(v) is None for v in ((7,), "7", None, (7, "5"), "sm_75"))
    details = (DATA / "worker" / "device-details.txt").read_text()
    assert details.count("'compute_capability': (7, 5), 'device_name': 'Tesla T4'") == 2


def test_peer_access_matrices():
    nvlink = w.peer_access(_lines("a100x8-nvlink-edge-matrix.txt"))
    assert nvlink["devices"] == list(range(8)) and len(nvlink["pairs"]) == 28  # every pair of 8
    assert w.peer_access(_lines("rtx2080ti-x4-no-p2p.txt")) == {"devices": [0, 1, 2, 3], "pairs": []}
    assert w.peer_access(_lines("created-tf24-t4.txt")) == {"devices": [0], "pairs": []}
    assert w.peer_access(_lines("v100-sxm2-created.txt")) is None  # the paste starts below the title line
    assert w.peer_access(["nothing"]) is None


@pytest.mark.parametrize(
    ("name", "op", "devices"),
    [
        ("directml-pluggable-placement.txt", "MatMul", ["/job:localhost/replica:0/task:0/device:GPU:0"]),
        ("rocm-vega20-executing.txt", "MatMul", ["/job:localhost/replica:0/task:0/device:GPU:0"]),
        ("osg-execute-glog.txt", "MatMul", ["/job:localhost/replica:0/task:0/device:GPU:0"]),
    ],
)
def test_placement_lines_with_log_prefixes(name, op, devices):
    assert w.placements(_lines(name), op) == {op: devices}


def test_glog_prefix_is_stripped_from_reasons_in_both_styles():
    absl = "I0000 00:00:1770450466.161950 2226030 gpu_device.cc:2020] failed call to cuInit: x (303)"
    dated = ("2023-10-19 17:12:10.627003: E tensorflow/stream_executor/cuda/cuda_driver.cc:271]"
             " failed call to cuInit: x")
    assert w.gpu_reason([absl], True) == "failed call to cuInit: x (303)"
    assert w.gpu_reason([dated], True) == "failed call to cuInit: x"


# --- training timing, Keras flavour, loaded libraries ---------------------------------------------


def test_step_losses_undo_the_running_mean():
    per_step = [0.8, 0.4, 0.2, 0.1]
    means = [sum(per_step[:k]) / k for k in range(1, 5)]
    assert w.step_losses(means) == pytest.approx(per_step, rel=1e-5)
    assert w.step_losses([]) == []
    assert math.isnan(w.step_losses([float("nan")])[0])


def test_step_timing_is_the_median_batch_interval_after_warm_up():
    begins = [0.0, 2.0, 2.1, 2.2, 2.3, 2.4]
    ends = [2.0, 2.1, 2.2, 2.35, 2.4, 2.5]  # step 0 traces for 2 s; later ones take 0.05-0.15 s
    t = w.step_timing(begins, ends)
    assert t["first_step_seconds"] == 2.0 and t["timed_steps"] == 3
    assert t["seconds_per_step"] == pytest.approx(0.1) and t["steps_per_second"] == pytest.approx(10.0)
    assert w.step_timing([0.0], [0.5])["seconds_per_step"] == 0.5  # one step: its own time
    assert w.step_timing([], [])["steps_per_second"] is None


def test_keras_flavour_from_the_model_class():
    class Fake:
        __module__ = "tf_keras.src.engine.training"

    fake_pkg = type(sys)("tf_keras")
    fake_pkg.__version__ = "2.16.0"
    fake_pkg.__file__ = "/x/tf_keras/__init__.py"
    sys.modules["tf_keras"] = fake_pkg
    try:
        assert w.keras_flavour(Fake) == {"module": "tf_keras", "version": "2.16.0", "major": 2,
                                         "path": "/x/tf_keras/__init__.py"}
    finally:
        del sys.modules["tf_keras"]
    assert w.keras_flavour(object)["module"] == "builtins" and w.keras_flavour(object)["major"] is None


MAPS = """\
55d4a0e00000-55d4a0e2a000 r--p 00000000 fd:01 1054 /usr/bin/python3.11
7f1c2a000000-7f1c2a0a0000 r--p 00000000 fd:01 77 /v/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12
7f1c2a0a0000-7f1c2a0f0000 r-xp 000a0000 fd:01 77 /v/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12
7f1c2b000000-7f1c2b100000 r-xp 00000000 fd:01 78 /usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05
7f1c2c000000-7f1c2c100000 r-xp 00000000 fd:01 79 /opt/with space/libcudnn_ops_infer.so.8.6.0
7f1c2d000000-7f1c2d100000 r-xp 00000000 fd:01 80 /usr/lib/x86_64-linux-gnu/libcudadebugger.so.1
7f1c2e000000-7f1c2e100000 r-xp 00000000 fd:01 81 /tmp/libnvidia-ml.so.1 (deleted)
7f1c2f000000-7f1c2f021000 rw-p 00000000 00:00 0
7ffd0a000000-7ffd0a021000 rw-p 00000000 00:00 0                          [stack]
"""


def test_loaded_libraries_from_proc_maps_text():
    libs = w.cuda_libraries(w.mapped_files(MAPS))
    assert [(lib["name"], lib["version"]) for lib in libs] == [
        ("libcudart", "12"), ("libcuda", "535.104.05"), ("libcudnn_ops_infer", "8.6.0")]
    assert libs[2]["path"] == "/opt/with space/libcudnn_ops_infer.so.8.6.0"
    described = w.loaded_libraries(MAPS)  # files absent here: no soname, no owning wheel, no error
    assert all(lib["soname"] is None and lib["dist"] is None for lib in described)


def test_loaded_libraries_of_this_interpreter_are_real(check_run):
    """tfdoctor check on this machine: what TensorFlow's import really mapped, with the wheel that owns it."""
    rt = check_run["facts"]["runtime"]
    libs = rt["loaded_libraries"]
    assert isinstance(libs, list)
    for lib in libs:
        assert set(lib) >= {"path", "name", "soname", "version", "dist", "dist_version", "since"}
        assert Path(lib["path"]).is_file() and lib["since"] in ("import", "devices", "end")
    try:
        from importlib import metadata

        cudart = metadata.version("nvidia-cuda-runtime-cu12")
    except metadata.PackageNotFoundError:
        cudart = None
    if cudart and tuple(int(p) for p in rt["tf_version"].split(".")[:2]) >= (2, 18):
        # TF 2.18+ maps libcudart from the pip wheel at import, even with no GPU and no driver.
        found = [lib for lib in libs if lib["name"] == "libcudart"]
        assert found and found[0]["dist"] == "nvidia-cuda-runtime-cu12" and found[0]["dist_version"] == cudart
        assert found[0]["soname"] == "libcudart.so.12" and found[0]["since"] == "import"


def test_keras_flavour_and_timing_reach_the_report(check_run):
    rt = check_run["facts"]["runtime"]
    keras = rt["keras"]
    assert keras["api"] == "tf.keras" and keras["module"] in ("keras", "tf_keras") and keras["error"] is None
    assert keras["major"] == (3 if keras["module"] == "keras" and keras["version"] >= "3" else 2)
    tr = _step(rt, "train", "/device:CPU:0")
    assert tr["keras"] == keras and tr["timed_steps"] == w.TRAIN_STEPS - w.WARMUP_STEPS - 1
    assert tr["fit_seconds"] > 0 and tr["first_step_seconds"] > 0
