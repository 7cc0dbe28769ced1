"""The verdict on every recorded TensorFlow release 2.12 -> 2.21 (tests/data/tf-releases/).

All recordings come from one GPU-less machine with no NVIDIA driver, so every release and mix must
get the same root cause (no GPU attached), whatever its log says; no fix may change the user's
TensorFlow version or name an extra or wheel the release lacks; no ✓ for a CUDA library that
TensorFlow cannot load.
"""

from __future__ import annotations

import re

import pytest
from tf_releases import load_release, release_names

from tfdoctor import versions as v
from tfdoctor.compat import load_matrix
from tfdoctor.report import build_report

MATRIX = load_matrix()
NAMES = release_names()
KERAS_MISMATCH = "tf-2.16.2-keras2"  # keras 2.15 under TF 2.16: a second, real root cause


def _report(name: str, quick: bool) -> dict:
    return build_report("quick" if quick else "full", load_release(name, quick=quick), MATRIX).to_dict()


def _version(name: str) -> str:
    return load_release(name)["tensorflow"]["version"]


def _pip_requirements(fix: str) -> list[str]:
    """Every requirement a fix passes to `pip install`, unquoted."""
    reqs = []
    for part in fix.split("&&"):
        words = part.split("#", 1)[0].split()
        if "install" not in words or "pip" not in words:
            continue
        for word in words[words.index("install") + 1:]:
            if not word.startswith("-"):
                reqs.append(word.strip("'\""))
    return reqs


@pytest.mark.parametrize("quick", [False, True], ids=["full", "quick"])
@pytest.mark.parametrize("name", NAMES)
def test_same_machine_same_root_cause(name, quick):
    report = _report(name, quick)
    roots = [f for f in report["findings"] if f["status"] == "fail" and not f.get("caused_by")]
    ids = sorted(f["id"] for f in roots)
    expected = ["driver.missing"] + (["tensorflow.conflicting-installs"] if name == KERAS_MISMATCH else [])
    assert ids == expected, [(f["id"], f["title"]) for f in roots]
    assert report["summary"]["fail"] == len(roots)
    driver = next(f for f in roots if f["id"] == "driver.missing")
    assert "No NVIDIA GPU is attached" in driver["title"]
    # every other failure says what explains it, and that finding is in the report
    present = {f["id"] for f in report["findings"]}
    for f in report["findings"]:
        if f.get("caused_by"):
            assert f["caused_by"] in present, f


@pytest.mark.parametrize("name", NAMES)
def test_no_fix_changes_the_tensorflow_version(name):
    version = _version(name)
    for f in _report(name, quick=False)["findings"]:
        for req in _pip_requirements(f.get("fix") or ""):
            if not re.match(r"tensorflow(-cpu|-gpu)?(\[|=|<|>|~|!|$)", req):
                continue
            assert "==" in req, (f["id"], req)
            pinned = req.split("==", 1)[1]
            assert pinned == version or pinned == f"{v.major_minor(version)}.*", (f["id"], req)


@pytest.mark.parametrize("name", NAMES)
def test_no_fix_names_what_the_release_lacks(name):
    version = _version(name)
    cuda = load_release(name)["tensorflow"]["build_info"].get("cuda_version")
    wrong_cu = {"11": "-cu12", "12": "-cu11"}.get(str(v.major(cuda))) if cuda else None
    for f in _report(name, quick=False)["findings"]:
        fix = f.get("fix") or ""
        if not v.version_ge(version, (2, 14)):
            assert "and-cuda" not in fix, (f["id"], fix)  # the extra starts with 2.14
        if wrong_cu:
            assert wrong_cu not in fix, (f["id"], fix)
        assert "11.2" not in fix, (f["id"], fix)  # 2.12-2.21 are built for CUDA 11.8 and 12.x


@pytest.mark.parametrize("name", ["tf-2.12.1", "tf-2.12.1-cu11", "tf-2.13.1"])
def test_2_12_and_2_13_need_ld_library_path_for_the_wheels(name):
    """Their RUNPATH is $ORIGIN only: installed cu11 wheels are not a ✓, and every fix that installs
    CUDA wheels also puts their folders on LD_LIBRARY_PATH (or PATH, for ptxas)."""
    findings = {f["id"]: f for f in _report(name, quick=False)["findings"]}
    for fid in ("cuda.libraries-missing", "cudnn.missing"):
        assert findings[fid]["status"] == "fail"
        assert "LD_LIBRARY_PATH=" in findings[fid]["fix"], findings[fid]["fix"]
    assert "cuda.libraries-ok" not in findings and "cudnn.ok" not in findings
    if name.endswith("-cu11"):  # installed but unreachable: the fix is the path, not a reinstall
        assert "cannot load the installed" in findings["cuda.libraries-missing"]["title"]
        assert "pip install" not in findings["cudnn.missing"]["fix"]
    nvcc = findings["cuda.nvcc-differs"]
    if nvcc["status"] == "warn":
        assert "export PATH=" in nvcc["fix"] and "nvidia-cuda-nvcc-cu11" in nvcc["fix"]


def test_the_same_wheels_on_ld_library_path_are_a_pass():
    findings = {f["id"]: f for f in _report("tf-2.12.1-cu11-ldpath", quick=False)["findings"]}
    assert findings["cuda.libraries-ok"]["status"] == "pass"
    assert findings["cudnn.ok"]["status"] == "pass" and "8.6.0.163" in findings["cudnn.ok"]["title"]


@pytest.mark.parametrize(
    "name", [n for n in NAMES if n not in ("tf-2.12.1-cu11-ldpath", "tf-2.21.0-and-cuda")]
)
def test_no_pass_for_a_cuda_library_that_does_not_load(name):
    for f in _report(name, quick=False)["findings"]:
        if f["id"].split(".")[0] in ("cuda", "cudnn", "cublas", "nccl") and f["id"] != "cuda.nvcc-differs":
            assert f["status"] != "pass", f


def test_a_keras_mismatch_is_the_root_of_the_training_failure():
    findings = {f["id"]: f for f in _report(KERAS_MISMATCH, quick=False)["findings"]}
    keras = findings["tensorflow.conflicting-installs"]
    assert keras["status"] == "fail" and "keras" in keras["title"].lower()
    assert "keras>=3" in keras["fix"] and "tf-keras==2.16.*" in keras["fix"]
    train = findings["runtime.train-failed"]
    assert train["caused_by"] == "tensorflow.conflicting-installs"
    assert "CUDA libraries" not in train["fix"] and "--force-reinstall" not in train["fix"]


def test_runtime_findings_name_the_keras_that_trained():
    details = {name: next(f["detail"] for f in _report(name, quick=False)["findings"]
                          if f["id"] == "runtime.cpu-verified")
               for name in ("tf-2.15.1", "tf-2.16.2", "tf-2.16.2-tfkeras")}
    assert "with keras 2.15.0" in details["tf-2.15.1"]
    assert re.search(r"with keras 3\.\d", details["tf-2.16.2"])
    assert "with tf_keras 2.16.0" in details["tf-2.16.2-tfkeras"]


def test_tensorflow_cpu_keeps_its_version_when_it_moves_to_the_gpu_build():
    findings = {f["id"]: f for f in _report("tfcpu-2.21.0", quick=False)["findings"]}
    cpu = findings["tensorflow.cpu-only-build"]
    assert cpu["status"] == "fail" and cpu["caused_by"] == "driver.missing"
    assert "uninstall -y tensorflow-cpu" in cpu["fix"] and "'tensorflow[and-cuda]==2.21.0'" in cpu["fix"]


def test_steps_per_second_compare_across_keras_versions():
    """The step is timed the same way everywhere: Keras 2 and Keras 3 rates stay comparable."""
    rates = {}
    for name in NAMES:
        train = next(s for s in load_release(name)["runtime"]["steps"]
                     if s["name"] == "train" and s["device"] == "/device:CPU:0")
        if train["status"] == "pass":
            rates[name] = train["steps_per_second"]
    assert max(rates.values()) / min(rates.values()) < 4, rates  # before: 221-309 vs 39-43 steps/s


def test_numpy_2_under_a_release_built_for_numpy_1_is_found_before_import():
    """The recorded TF 2.15 venv with NumPy 2 installed over it: the static check fires from the
    installed distributions alone (in --quick, TensorFlow is never imported)."""
    facts = load_release("tf-2.15.1", quick=True)
    assert facts["tensorflow"]["distributions"]["numpy"].startswith("1.")
    facts["tensorflow"]["distributions"]["numpy"] = "2.1.3"
    findings = {f["id"]: f for f in build_report("quick", facts, MATRIX).to_dict()["findings"]}
    numpy = findings["python.numpy-abi-mismatch"]
    assert numpy["status"] == "fail" and "'numpy<2'" in numpy["fix"]
    assert "tensorflow==2.15.1 'numpy<2'" in numpy["fix"]  # the installed TensorFlow pinned, nothing more
