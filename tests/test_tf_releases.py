"""Replays of every recorded TensorFlow release 2.12 -> 2.21 (tests/data/tf-releases/).

Each recording is the real output of one venv on a GPU-less machine: the wheel's build_info.py,
`readelf -d` of its native libraries, the installed distributions and the worker's raw stdout and
stderr. Replayed through the probes' own parsers (tests/tf_releases.py), they must give the facts
below: what the wheel was built for, whether its RUNPATH reaches the pip nvidia wheels, what the
worker ran and with which Keras, and which CUDA libraries the process really loaded.
"""

from __future__ import annotations

import math

import pytest
from schema_check import validate
from tf_releases import RELEASES, load_release, parse_readelf, release_names, worker_result

from tfdoctor.worker import worker as w

CC_11 = ["sm_35", "sm_50", "sm_60", "sm_70", "sm_75", "compute_80"]
CC_215 = ["sm_50", "sm_60", "sm_70", "sm_75", "compute_80"]
CC_216 = ["sm_50", "sm_60", "sm_70", "sm_80", "compute_90"]
CC_217 = ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"]

# name: (version, cuda_version, cudnn_version, compute capabilities, runpath_nvidia, keras (module, major))
EXPECTED = {
    "tf-2.12.1": ("2.12.1", "11.8", "8", CC_11, False, ("keras", 2)),
    "tf-2.12.1-cu11": ("2.12.1", "11.8", "8", CC_11, False, ("keras", 2)),
    "tf-2.12.1-cu11-ldpath": ("2.12.1", "11.8", "8", CC_11, False, ("keras", 2)),
    "tf-2.13.1": ("2.13.1", "11.8", "8", CC_11, False, ("keras", 2)),
    "tf-2.14.1": ("2.14.1", "11.8", "8", CC_11, True, ("keras", 2)),
    "tf-2.15.1": ("2.15.1", "12.2", "8", CC_215, True, ("keras", 2)),
    "tf-2.16.2": ("2.16.2", "12.3", "8", CC_216, True, ("keras", 3)),
    "tf-2.16.2-tfkeras": ("2.16.2", "12.3", "8", CC_216, True, ("tf_keras", 2)),
    "tf-2.16.2-keras2": ("2.16.2", "12.3", "8", CC_216, True, None),  # tf.keras cannot even import
    "tf-2.17.1": ("2.17.1", "12.3", "8", CC_217, True, ("keras", 3)),
    "tf-2.18.1": ("2.18.1", "12.5.1", "9", CC_217, True, ("keras", 3)),
    "tf-2.19.1": ("2.19.1", "12.5.1", "9", CC_217, True, ("keras", 3)),
    "tf-2.20.0": ("2.20.0", "12.5.1", "9", CC_217, True, ("keras", 3)),
    "tf-2.21.0": ("2.21.0", "12.5.1", "9", CC_217, True, ("keras", 3)),
    "tf-2.21.0-and-cuda": ("2.21.0", "12.5.1", "9", CC_217, True, ("keras", 3)),
    "tfcpu-2.21.0": ("2.21.0", None, None, None, False, ("keras", 3)),
}
NAMES = release_names()


def test_every_release_is_recorded():
    assert set(NAMES) == set(EXPECTED), set(NAMES) ^ set(EXPECTED)
    for name in NAMES:
        readme = (RELEASES / name / "README.md").read_text()
        assert "bench/bench_tf_versions.py" in readme and "no NVIDIA driver" in readme


@pytest.mark.parametrize("name", NAMES)
def test_static_facts_of_the_wheel(name):
    version, cuda, cudnn, ccs, runpath_nvidia, _ = EXPECTED[name]
    tf = load_release(name)["tensorflow"]
    assert tf["error"] is None and tf["installed"] is True
    assert tf["version"] == version
    build = tf["build_info"]
    assert build["is_cuda_build"] is (cuda is not None)
    assert build.get("cuda_version") == cuda and build.get("cudnn_version") == cudnn
    assert build.get("cuda_compute_capabilities") == ccs
    assert tf["runpath_nvidia"] is runpath_nvidia
    if runpath_nvidia:
        # cudart, cuBLAS and cuDNN are found through the wheel's own RUNPATH; so is NCCL, except
        # that TF 2.20.0's RUNPATH names no nvidia/nccl/lib (2.14-2.19 and 2.21 do)
        assert {"cuda_runtime", "cublas", "cudnn"} <= set(tf["runpath_nvidia_packages"])
        assert ("nccl" in tf["runpath_nvidia_packages"]) is (version != "2.20.0")
    else:
        assert tf["runpath_nvidia_packages"] == []
    assert tf["native_libraries"][0]["file"] == "libtensorflow_framework.so.2"


def test_runpath_changes_exactly_at_2_14():
    """TF 2.12/2.13: $ORIGIN only; 2.14 adds ../nvidia/*/lib (the [and-cuda] extra's release)."""
    framework = {n: parse_readelf((RELEASES / n / "readelf-libtensorflow_framework.so.2.txt").read_text())
                 for n in ("tf-2.12.1", "tf-2.13.1", "tf-2.14.1", "tf-2.21.0")}
    assert framework["tf-2.12.1"]["runpath"] == ["$ORIGIN/"]
    assert framework["tf-2.13.1"]["runpath"] == ["$ORIGIN/"]
    assert "$ORIGIN/../nvidia/cudnn/lib" in framework["tf-2.14.1"]["runpath"]
    assert "$ORIGIN/../nvidia/cudnn/lib" in framework["tf-2.21.0"]["runpath"]
    # 2.21 repeats its entries hundreds of times; the facts keep each once
    assert len(framework["tf-2.21.0"]["runpath"]) > 100
    runpath = load_release("tf-2.21.0")["tensorflow"]["runpath"]
    assert len(runpath) == len(set(runpath))


@pytest.mark.parametrize("name", NAMES)
def test_worker_replay(name):
    *_, keras = EXPECTED[name]
    rt = load_release(name)["runtime"]
    assert rt["ran"] is True and rt["result_line"] is True and rt["returncode"] == 0
    assert rt["tf_version"] == EXPECTED[name][0]
    assert rt["tf_visible_gpus"] == 0 and rt["gpus"] == []
    steps = {(s["name"], s["device"]): s for s in rt["steps"]}
    assert steps[("import", None)]["status"] == "pass"
    assert steps[("devices", None)]["status"] == "pass"
    assert steps[("matmul", "/device:CPU:0")]["status"] == "pass"
    for gpu_step in w.GPU_STEPS:
        assert steps[(gpu_step, "GPU")]["status"] == "skip"
    train = steps[("train", "/device:CPU:0")]
    if keras is None:  # keras 2.15 under TF 2.16: tf.keras itself raises, and the step says so
        assert train["status"] == "fail" and train["failure"] == "exception"
        assert rt["keras"]["module"] is None and rt["keras"]["error"] == train["error"]
        assert "register_load_context_function" in train["error"]
        return
    assert train["status"] == "pass"
    assert (rt["keras"]["module"], rt["keras"]["major"]) == keras and rt["keras"]["api"] == "tf.keras"
    assert len(train["losses"]) == w.TRAIN_STEPS and all(math.isfinite(v) for v in train["losses"])
    assert train["losses"][-1] < train["losses"][0]
    assert train["timed_steps"] == w.TRAIN_STEPS - w.WARMUP_STEPS - 1 and train["steps_per_second"] > 0


def test_keras_versions_follow_the_release():
    versions = {n: load_release(n)["runtime"]["keras"]["version"] for n in NAMES if EXPECTED[n][5]}
    assert versions["tf-2.12.1"] == "2.12.0" and versions["tf-2.13.1"] == "2.13.1"
    assert versions["tf-2.14.1"] == "2.14.0" and versions["tf-2.15.1"] == "2.15.0"
    assert versions["tf-2.16.2-tfkeras"] == "2.16.0"
    assert all(versions[n].startswith("3.") for n in NAMES if EXPECTED[n][5] and EXPECTED[n][5][1] == 3)
    assert load_release("tf-2.16.2-tfkeras")["runtime"]["keras"]["tf_use_legacy_keras"] == "1"


def test_same_work_same_losses_on_every_keras():
    """Keras 2, tf_keras and Keras 3 train the same model on the same data to the same losses."""
    first = {}
    for name in NAMES:
        steps = load_release(name)["runtime"]["steps"]
        train = next(s for s in steps if s["name"] == "train" and s["device"] == "/device:CPU:0")
        if train["status"] == "pass":
            first[name] = train["losses"][:3]
    reference = first["tf-2.21.0"]
    for name, losses in first.items():
        assert losses == pytest.approx(reference, rel=1e-3), name


@pytest.mark.parametrize("name", NAMES)
def test_loaded_libraries_replay(name):
    """What the process really mapped: nothing CUDA without pip nvidia wheels on the path; the wheel's
    libcudart where TensorFlow finds one (RUNPATH since 2.14, LD_LIBRARY_PATH before)."""
    libs = load_release(name)["runtime"]["loaded_libraries"]
    assert isinstance(libs, list)
    names = {lib["name"] for lib in libs}
    assert "libcuda" not in names and "libnvidia-ml" not in names  # no driver on the recording machine
    if name == "tf-2.21.0-and-cuda":
        cudart = next(lib for lib in libs if lib["name"] == "libcudart")
        assert cudart["soname"] == "libcudart.so.12" and cudart["dist"] == "nvidia-cuda-runtime-cu12"
        assert cudart["since"] == "import"
        assert cudart["path"].endswith("/nvidia/cuda_runtime/lib/libcudart.so.12")
    elif name == "tf-2.12.1-cu11-ldpath":
        cudart = next(lib for lib in libs if lib["name"] == "libcudart")
        assert cudart["soname"] == "libcudart.so.11.0" and cudart["dist"] == "nvidia-cuda-runtime-cu11"
        assert cudart["dist_version"] == "11.8.89" and cudart["version"] == "11.0"
    else:
        assert libs == [], libs


@pytest.mark.parametrize("name", NAMES)
def test_tensorflows_words_for_no_gpu(name):
    """Every release says why it sees no GPU, in its own words (or nothing: TF 2.12 with cudart found)."""
    rt = load_release(name)["runtime"]
    reason = rt["gpu_reason"]
    if name.startswith("tfcpu"):
        assert "no CUDA support" in reason
    elif name == "tf-2.12.1-cu11-ldpath":
        assert "logged no reason" in reason  # cudart loads, libcuda is absent: TF 2.12 says nothing
    elif name == "tf-2.21.0-and-cuda":
        # libcudart.so.12 found in the wheel: no "Could not find cuda drivers", only the cuInit line
        assert reason.startswith("failed call to cuInit") and "(303)" in reason
        assert "Could not find cuda drivers" not in rt["log"]
    else:
        assert "Could not find cuda drivers on your machine" in reason
    version = tuple(int(p) for p in EXPECTED[name][0].split(".")[:2])
    if (2, 18) <= version <= (2, 21) and not name.startswith("tfcpu"):
        assert "failed call to cuInit" in rt["log"] and "(303)" in rt["log"]


def test_load_release_is_a_complete_pipeline_facts_dict():
    facts = load_release("tf-2.15.1")
    assert set(facts) >= {"system", "nvml", "nvidia_smi", "nvcc", "libraries", "tensorflow", "runtime",
                          "collective", "options"}
    assert facts["nvml"]["available"] is False and facts["system"]["dev_nvidia"] == []
    assert facts["libraries"]["pip_nvidia"] == {}
    quick = load_release("tf-2.15.1", quick=True)
    assert quick["runtime"] == {"ran": False, "skipped": "--quick: the TensorFlow worker was not run"}
    assert quick["tensorflow"] == facts["tensorflow"]
    cu11 = load_release("tf-2.12.1-cu11")["libraries"]
    wheels = {x["name"]: x for x in cu11["pip_nvidia_wheels"]}
    cudnn = wheels["nvidia-cudnn-cu11"]
    assert cudnn["cuda"] == "11" and cudnn["version"] == "8.6.0.163"
    assert any(d.endswith("/nvidia/cudnn/lib") for d in cudnn["lib_dirs"])
    assert "libcudnn.so.8" in cudnn["libraries"]


def test_replayed_reports_are_valid():
    """The replayed facts go through the real report builder and validate against the schema."""
    from tfdoctor.compat import load_matrix
    from tfdoctor.report import build_report

    matrix = load_matrix()
    for name in NAMES:
        report = build_report("full", load_release(name), matrix).to_dict()
        validate(report)


def test_recorded_files_stay_small():
    for path in RELEASES.rglob("*"):
        if path.is_file():
            assert path.stat().st_size < 64_000, path
    assert worker_result("tf-2.21.0")["protocol"] == w.PROTOCOL


@pytest.mark.parametrize("how", ["SIGSEGV", "timeout"])
def test_a_crash_or_timeout_keeps_the_steps_and_facts_that_ran(how):
    """The recorded stdout cut where the train step had started: what ran is still there."""
    from tfdoctor import proc
    from tfdoctor.probes import runtime as rprobe

    lines = (RELEASES / "tf-2.21.0-and-cuda" / "worker.stdout").read_text().splitlines()
    cut = next(i for i, line in enumerate(lines) if '"name": "train"' in line and '"running"' in line)
    stdout = "\n".join(lines[: cut + 1]) + "\n"
    if how == "SIGSEGV":
        res = proc.Result(("py", "worker.py"), -11, stdout, "", 3.0)
    else:
        res = proc.Result(("py", "worker.py"), -9, stdout, "", 300.0, timed_out=True)
    facts = rprobe.facts_from(res, "py", 300.0)
    assert facts["result_line"] is False and facts["error"]
    steps = {(s["name"], s["device"]): s for s in facts["steps"]}
    assert steps[("import", None)]["status"] == "pass"
    assert steps[("matmul", "/device:CPU:0")]["status"] == "pass"
    train = steps[("train", "/device:CPU:0")]
    assert train["status"] == "fail" and train["interrupted"] is True
    assert ("SIGSEGV" if how == "SIGSEGV" else "timed out") in train["error"]
    # facts the worker put on the steps survive without the result line
    assert facts["loaded_libraries"][0]["name"] == "libcudart" and facts["peer_access"] is None
    assert facts["tf_visible_gpus"] == 0 and facts["keras"] is None  # train never finished


@pytest.mark.parametrize("name", [n for n in NAMES if EXPECTED[n][1]])
def test_compat_rows_equal_the_real_wheels(name):
    """compat/tensorflow.toml says what each real wheel's build_info.py says: CUDA, cuDNN major and
    the compute capabilities it has kernels (sm_) and PTX (compute_) for."""
    from tfdoctor.compat import load_matrix

    version, cuda, cudnn, ccs, *_ = EXPECTED[name]
    build = load_release(name)["tensorflow"]["build_info"]
    row = load_matrix().tf_release(version)
    assert row is not None, version
    assert row.cuda == build["cuda_version"] == cuda
    assert row.cudnn.split(".")[0] == str(build["cudnn_version"]) == cudnn
    assert list(row.compute_capabilities) == list(build["cuda_compute_capabilities"]) == ccs
    assert bool(row.and_cuda) is EXPECTED[name][4]  # the extra and the RUNPATH both start with 2.14
