"""`tfdoctor explain`: the real CLI in a child process, the engine on real pasted lines, robustness.

The engine reads text into facts (tfdoctor/logs) and the checks judge them, as in `check`: these
tests feed real lines from tests/data/explain (sources in its cases.toml).
"""

from __future__ import annotations

import io
import subprocess
import sys
import time
import tracemalloc

import pytest
from conftest import ROOT, run_cli
from schema_check import validate

from tfdoctor import logs
from tfdoctor.catalogue import ENTRIES as CATALOGUE
from tfdoctor.compat import load_matrix
from tfdoctor.environment import KEYS
from tfdoctor.logs.lines import MAX_LINE, normalize, read_lines
from tfdoctor.report import build_report, explain_report

CORPUS = ROOT / "tests" / "data" / "explain"
CUDNN = CORPUS / "013-cudnn-804-vs-810.txt"
HEALTHY = CORPUS / "034-created-device-gtx1080ti-healthy.txt"
# Real lines from the corpus, reused below to build inputs.
LIBCUDA_LINE = (CORPUS / "006-libcuda-missing-cuinit-303.txt").read_text().splitlines()[0]
CUINIT_303 = (CORPUS / "006-libcuda-missing-cuinit-303.txt").read_text().splitlines()[1]
BANNER_460 = (CORPUS / "035-nvidia-smi-460-v100-healthy.txt").read_text().splitlines()[0]
OOM_LINE = (CORPUS / "022-oom-bfc-tile.txt").read_text().splitlines()[8]
MATRIX = load_matrix()


def explain(text: str):
    return explain_report(text, MATRIX)


def failing(report) -> set[str]:
    return {f.id for f in report.findings if str(f.status) in ("fail", "warn")}


def roots(report) -> set[str]:
    return {f.id for f in report.root_causes}


# --- the command ---------------------------------------------------------------------------------


def test_json_report_shape_and_exit_1_on_failure():
    res = run_cli("explain", str(CUDNN), "--json")
    assert res.returncode == 1, res.stderr
    data = validate(res.json())
    assert data["mode"] == "explain"
    assert set(data["environment"]) == set(KEYS)
    assert data["environment"]["cudnn_version"] == "8.0.4"
    assert data["environment"]["tf_cudnn_version"] == "8.1.0"
    assert [f["id"] for f in data["findings"] if f["status"] == "fail"] == ["cudnn.version-mismatch"]
    finding = next(f for f in data["findings"] if f["id"] == "cudnn.version-mismatch")
    assert finding["fix"] and finding["confidence"] == "certain" and finding["caused_by"] is None
    assert finding["evidence"] and finding["evidence"][0].startswith("line 2: Loaded runtime CuDNN library")
    assert data["facts"]["log"]["lines_read"] == 3
    # line 3 repeats line 2 (log prefixes aside): a repeat adds no evidence
    assert [e["line"] for e in data["facts"]["log"]["evidence"]] == [2]
    assert (data["summary"]["status"] == "fail"
            and data["summary"]["root_causes"] == ["cudnn.version-mismatch"])


def test_reports_validate_against_the_schema():
    for case in ("002-cusolver-cudnn8-skipping.txt", "052-smi-440-two-quadro-gv100-healthy.txt"):
        validate(run_cli("explain", str(CORPUS / case), "--json").json())


def test_healthy_log_exits_0_and_prints_environment():
    res = run_cli("explain", str(HEALTHY), "--no-color")
    assert res.returncode == 0, res.stderr
    assert "GTX 1080 Ti" in res.stdout


def test_text_output_shows_fix():
    res = run_cli("explain", str(CUDNN), "--no-color")
    assert res.returncode == 1
    assert "8.0.4" in res.stdout and "nvidia-cudnn" in res.stdout or "cudnn=" in res.stdout


def test_stdin_dash():
    res = run_cli("explain", "-", "--json", stdin=CUDNN.read_text())
    assert res.returncode == 1
    assert "cudnn.version-mismatch" in [f["id"] for f in res.json()["findings"]]


@pytest.mark.parametrize(
    "content, words",
    [(b"", "is empty"), (b"   \n\n", "is empty"), (b"\x7fELF\x02\x01\x01\x00\x00" * 50, "binary")],
)
def test_empty_or_binary_input_is_an_input_error(tmp_path, content, words):
    path = tmp_path / "input.log"
    path.write_bytes(content)
    for args, stdin in (((str(path),), None), (("-",), content.decode("latin-1"))):
        res = run_cli("explain", *args, stdin=stdin)
        assert res.returncode == 2, res
        assert res.stdout == ""
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0] and "Traceback" not in res.stderr


@pytest.mark.parametrize("target", ["missing.log", "."])
def test_missing_or_unreadable_file_exits_2_with_one_line(tmp_path, target):
    res = run_cli("explain", str(tmp_path / target) if target != "." else str(tmp_path))
    assert res.returncode == 2
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tfdoctor: ")
    assert "Traceback" not in res.stderr


def test_at_a_terminal_it_asks_for_the_paste():
    """Run in a pseudo-terminal: the prompt appears on stderr before anything is typed."""
    import os
    import pty
    import select

    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child becomes the CLI
        os.environ["PYTHONPATH"] = str(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "tfdoctor", "explain"])
    seen = b""
    deadline = time.monotonic() + 60
    while b"Ctrl-D" not in seen and time.monotonic() < deadline:
        if select.select([fd], [], [], 1)[0]:
            try:
                seen += os.read(fd, 1024)
            except OSError:
                break
    os.write(fd, CUINIT_303.encode() + b"\n\x04")
    out = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    if time.monotonic() >= deadline:  # pragma: no cover - never hang the suite
        os.kill(pid, 9)
    os.waitpid(pid, 0)
    assert b"Paste the output" in seen
    assert b"cuInit" in out or b"CUDA" in out


def test_importing_the_engine_stays_light():
    code = (
        "import sys, tfdoctor.logs, tfdoctor.report; "
        "print(sorted(m for m in ('tensorflow', 'rich', 'pynvml') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# --- robustness ------------------------------------------------------------------------------------


def test_ansi_crlf_and_prefixes_do_not_hide_a_signature():
    raw = CUDNN.read_bytes().splitlines()[1].decode()
    coloured = "\x1b[31m" + raw + "\x1b[0m\r\n"
    report = explain_report(read_lines(io.BytesIO(coloured.encode())), MATRIX)
    assert failing(report) == {"cudnn.version-mismatch"}
    assert report.environment["cudnn_version"] == "8.0.4"


@pytest.mark.parametrize(
    "prefix",
    [
        "I0000 00:00:1700000000.123456  1234 cuda_executor.cc:1015] ",
        "2023-06-01 12:00:00.123456: W tensorflow/stream_executor/cuda/cuda_driver.cc:318] ",
        "[2024-01-01 12:00:00] ",
        "(pid=11300) ",
        ">>> ",
        "[1,0]<stderr>:",
    ],
)
def test_log_prefixes(prefix):
    report = explain(prefix + "failed call to cuInit: CUDA_ERROR_NO_DEVICE: "
                     "no CUDA-capable device is detected")
    assert "cuda.init-failed" in failing(report)


def test_normalize_strips_absl_and_timestamp_prefixes():
    assert normalize("I0000 00:00:1700000000.123456  1234 cuda_executor.cc:1015] hello") == "hello"
    assert normalize("2023-06-01 12:00:00.123456: W tensorflow/core/x.cc:12] hello\r\n") == "hello"
    assert normalize("\x1b[1;33m[23:28:14 - Predict] hello\x1b[0m") == "hello"
    assert normalize("[ 1234.567890] NVRM: Xid (PCI:0000:01:00): 79") == "NVRM: Xid (PCI:0000:01:00): 79"


def test_invalid_utf8_and_binary_noise_inside_text():
    data = b"\xff\xfe garbage\x80\n" + LIBCUDA_LINE.encode() + b"\n\xc3\x28 \x01\n"
    report = explain_report(read_lines(io.BytesIO(data)), MATRIX)
    assert "driver.missing" in failing(report)
    assert report.facts["log"]["lines_read"] == 3


def test_over_long_line_is_cut_and_streamed(tmp_path):
    big = tmp_path / "one-line.log"
    with open(big, "wb") as fh:
        fh.write(b"a" * (20 * 1024 * 1024))
        fh.write(b"\n" + OOM_LINE.encode() + b"\n")
    tracemalloc.start()
    with open(big, "rb") as fh:
        report = explain_report(read_lines(fh), MATRIX)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert report.facts["log"]["lines_read"] == 2
    assert failing(report) == {"gpu.out-of-memory"}
    assert peak < 8 * 1024 * 1024, peak


def test_many_lines_use_bounded_memory():
    def lines():
        for i in range(60_000):
            yield f"2023-01-01 00:00:00.000000: I tensorflow/core/x.cc:1] step {i} loss 0.{i}\n"
            if i % 1000 == 0:
                yield OOM_LINE + "\n"

    tracemalloc.start()
    facts = logs.read(lines())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert facts["log"]["lines_read"] == 60_060
    assert facts["log"]["counts"]["oom"] >= 1 and len(facts["log"]["evidence"]) <= 12
    assert peak < 16 * 1024 * 1024, peak


def test_read_lines_caps_line_length():
    chunks = list(read_lines(io.BytesIO(b"x" * (MAX_LINE * 3) + b"\nnext\n")))
    assert len(chunks) == 2 and len(chunks[0]) <= MAX_LINE and chunks[1] == "next\n"


@pytest.mark.parametrize(
    "line",
    [
        "a." * 32_000,
        "Could not load dynamic library " * 2_000,
        "failed call to cuInit: " + "(" * 60_000,
        "CUDA_ERROR_" + "A" * 64_000,
        "NVIDIA-SMI 535.1 " + " " * 60_000 + "Driver Version",
        "Created device " + "GPU:0 with 1 MB memory " * 3_000,
        "| 0 " + "x" * 64_000 + " Off |",
        "tensorflow " * 6_000 + "==",
        "version `GLIBC_" + "2." * 30_000,
        "Loaded runtime CuDNN library: " + "9." * 30_000,
        "TF_CONFIG={" * 5_000,
        "/usr/local/cuda/lib64/stubs" * 2_000,
        "mount error: file creation failed: " + "/lib" * 15_000 + ": file exists",
        "| 0 1 2 3 |" * 5_000,
        "keras/src/" * 6_000 + " ValueError: not recognized",
        "could not select device driver " + '\\"' * 20_000,
        "requires missing needs " * 3_000 + "GLIBC_",  # the stated-glibc reader's lazy gap
        "/tensorflow_text" * 4_000 + ".so: undefined symbol",  # an add-on's op library
        "File \"" + "x_pb2.py" * 8_000,  # a frame in protobuf's generated code, never closed
    ],
)
def test_a_64_kb_pathological_line_costs_little(line):
    def once() -> float:
        start = time.perf_counter()
        explain(line)
        return time.perf_counter() - start

    # backtracking would take seconds every time; the best of three ignores a collector's pause
    assert min(once() for _ in range(3)) < 0.1


# --- mechanisms, not wordings ------------------------------------------------------------------------


def test_one_root_cause_for_a_missing_driver():
    report = explain(LIBCUDA_LINE + "\n" + CUINIT_303)
    assert roots(report) == {"driver.missing"}
    init = next(f for f in report.findings if f.id == "cuda.init-failed")
    assert init.caused_by == "driver.missing"


def test_cuda_error_spellings_are_one_error():
    spellings = (
        "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
        "cudaGetDevice() failed. Status: cudaErrorNoDevice",
        "RuntimeError: CUDA error: no CUDA-capable device is detected",
        "failed call to cuInit: UNKNOWN ERROR (100)",
    )
    for text in spellings:
        items = logs.read_text(text)["log"]["evidence"]
        assert any(i.get("error") == "NO_DEVICE" for i in items), text


def test_banner_cuda_older_than_tf_build_is_driver_too_old():
    # nvidia-smi says the driver supports CUDA 11.2; TF 2.15 was built with CUDA 12.2.
    report = explain(BANNER_460 + "\ntensorflow                   2.15.0\n")
    assert "driver.too-old" in failing(report)
    assert report.environment["driver_version"] == "460.73.01"
    assert report.environment["tensorflow_version"] == "2.15.0"


def test_banner_new_enough_for_tf_is_not_too_old():
    assert "driver.too-old" not in failing(explain(BANNER_460 + "\ntensorflow                   2.10.0\n"))


def test_windows_with_old_tf_is_not_windows_native_failure():
    report = explain('C:\\Users\\me> python -c "import tensorflow"\n'
                     'tensorflow-gpu        2.10.0\nGPU not found\n')
    assert report.environment["platform"] == "windows"
    assert "platform.windows-native" not in failing(report)


def test_windows_with_new_tf_and_a_gpu_question_is_windows_native():
    report = explain("C:\\Users\\me> pip list\ntensorflow            2.15.0\n"
                     "print(tf.config.list_physical_devices('GPU'))\n[]")
    assert roots(report) == {"platform.windows-native"}


def test_cannot_dlopen_with_only_cudnn_missing_is_cudnn_alone():
    lines = (CORPUS / "002-cusolver-cudnn8-skipping.txt").read_text().splitlines()
    report = explain("\n".join(lines[1:]))  # without the libcusolver line
    assert failing(report) == {"cudnn.missing"}


def test_cuda_11_libraries_get_cuda_11_packages():
    """libcudart.so.11.0 and libcudnn.so.8 missing: no CUDA 12 package can supply them."""
    report = explain(
        "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: "
        "cannot open shared object"
        " file\nCould not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: "
        "cannot open shared object file"
    )
    for f in report.findings:
        if f.id in ("cuda.libraries-missing", "cudnn.missing"):
            assert "cu12" not in f.fix and "cu11" in f.fix, f.fix


def test_cudnn_patch_level_mismatch_is_a_version_mismatch_not_missing():
    report = explain("Loaded runtime CuDNN library: 8.9.4 but source was compiled with: 8.9.6.  "
                     "CuDNN library needs"
                     " to have matching major version and equal or higher minor version.")
    assert roots(report) == {"cudnn.version-mismatch"}
    assert (report.environment["cudnn_version"] == "8.9.4"
            and report.environment["tf_cudnn_version"] == "8.9.6")


def test_two_tensorflow_packages_are_conflicting_not_cpu_only():
    report = explain("tensorflow         2.15.0\ntensorflow-cpu     2.15.0\nNum GPUs Available:  0")
    assert roots(report) == {"tensorflow.conflicting-installs"}
    fix = next(f.fix for f in report.findings if f.id == "tensorflow.conflicting-installs")
    assert "tensorflow-cpu" in fix and "'tensorflow[and-cuda]==2.15.0'" in fix


def test_no_gpu_listed_is_judged_where_a_gpu_is_there_to_see():
    """TensorFlow's own count of 0 is a failure beside a driver that lists a GPU (with nothing else failing,
    the CUDA libraries it loads at start-up are what is left between them); alone (a CPU-only machine's log)
    it says nothing."""
    smi = (ROOT / "tests/data/nvidia-smi/banner-570.133.20-l4.txt").read_text(encoding="utf-8")
    assert "runtime.no-gpu-visible" not in failing(explain(smi))
    report = explain(smi + "\ntensorflow 2.15.0\nNum GPUs Available:  0\n")
    assert roots(report) == {"cuda.libraries-missing"}
    listed = next(f for f in report.findings if f.id == "runtime.no-gpu-visible")
    assert listed.caused_by == "cuda.libraries-missing"
    assert not failing(explain("tensorflow 2.15.0\nNum GPUs Available:  0\n"))


def test_a_paste_judges_only_what_it_can_show():
    """A pasted listing's memory use may be the program's own, and the rest of the environment (is
    CUDA_DEVICE_ORDER set?) is not shown: the same GPUs from a probe are judged."""
    smi = ROOT / "tests/data/nvidia-smi"
    for name, fid in (("banner-550.135-tesla-p4.txt", "gpu.memory-held-by-other-processes"),
                      ("query-570-titan-v-rtx5880.csv", "gpu.device-order")):
        report = explain((smi / name).read_text(encoding="utf-8"))
        assert fid not in failing(report)
        rows = [{k: v for k, v in g.items() if k != "memory_may_be_own"}
                for g in report.facts["nvidia_smi"]["gpus"]]
        probed = {**report.facts, "nvidia_smi": {"gpus": rows}, "system": {"env": {}, "env_complete": True}}
        assert fid in failing(build_report("explain", probed, MATRIX))


def test_old_driver_is_never_told_to_install_a_tensorflow_without_a_wheel_for_its_python():
    report = explain("NVIDIA-SMI 450.80.02    Driver Version: 450.80.02    CUDA Version: 11.0\n"
                     "Python 3.11.4\ntensorflow                2.15.0")
    finding = next(f for f in report.findings if f.id == "driver.too-old")
    assert "tensorflow==2.4" not in finding.fix and "tensorflow[and-cuda]==2.4" not in finding.fix


def test_compat_not_supported_gets_the_forward_compatibility_fix():
    report = explain("failed call to cuInit: CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: "
                     "forward compatibility was"
                     " attempted on non supported HW")
    finding = next(f for f in report.findings if f.id == "cuda.init-failed")
    assert "compat" in finding.fix and "video" not in finding.fix


def test_blackwell_ptx_failure_is_unsupported_not_a_slow_start():
    report = explain(
        "TensorFlow was not built with CUDA kernel binaries compatible with compute capability 12.0. "
        "CUDA kernels"
        " will be jit-compiled from PTX, which could take 30 minutes or longer.\n"
        "LLVM ERROR: PTX version 8.5 does not support target 'sm_120'. Minimum required PTX version is 8.7."
    )
    assert roots(report) == {"gpu.compute-capability-unsupported"}


def test_harmless_lines_raise_nothing():
    harmless = [
        "Successfully opened dynamic library libcuda.so.1",
        "Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has "
        "already been registered",
        "TF-TRT Warning: Could not find TensorRT",
        "Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: "
        "cannot open shared object file",
        "NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
        "Epoch 1/5 - loss: 0.3 - the model ran out of patience",
        "Loaded cuDNN version 8902",
        "This TensorFlow binary is optimized to use available CPU instructions in performance-critical"
        " operations.",
        "Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.19GiB with freed_by_count=0. The caller"
        " indicates that this is not a failure, but may mean that there could be performance gains if more"
        " memory were available.",
    ]
    report = explain("\n".join(harmless))
    assert failing(report) == set()
    assert report.environment["cudnn_version"] == "8.9.2"


# --- findings are actionable, secrets never leave -------------------------------------------------


def test_every_finding_in_the_corpus_has_a_fix_and_is_declared():
    for path in sorted(CORPUS.glob("*.txt")):
        with open(path, "rb") as fh:
            report = explain_report(read_lines(fh), MATRIX)
        for f in report.findings:
            assert f.title and f.id in CATALOGUE, (path.name, f.id)
            if str(f.status) in ("fail", "warn"):
                assert f.fix and f.detail, (path.name, f.id)
            assert f.confidence in ("certain", "likely")


def test_fix_is_tailored_to_wsl2_and_ubuntu():
    wsl = explain("Linux host 5.15.90.1-microsoft-standard-WSL2\n" + LIBCUDA_LINE)
    fix = next(f.fix for f in wsl.findings if f.id == "driver.missing")
    assert "Windows" in fix and "wsl --shutdown" in fix
    ubuntu = explain("Ubuntu 22.04.4 LTS\n" + LIBCUDA_LINE)
    fix = next(f.fix for f in ubuntu.findings if f.id == "driver.missing")
    assert "ubuntu-drivers" in fix


SECRETS = {
    "password=hunter2-secret": "hunter2-secret",
    "export HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz012345": "hf_abcdefghijklmnopqrstuvwxyz012345",
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl": "eyJzdWIiOiIxIn0",
    "pip install --index-url https://user:s3cretpw@pypi.example.com/simple tensorflow": "s3cretpw",
    "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": "wJalrXUtnFEMI/K7MDENG",
    "token=ghp_0123456789abcdefghijABCDEFGHIJ012345": "ghp_0123456789abcdefghij",
}


def test_no_pasted_secret_reaches_any_explain_output(tmp_path):
    paste = tmp_path / "paste.log"
    lines = [f"{line} {LIBCUDA_LINE}" for line in SECRETS] + [CUINIT_303] + list(SECRETS)
    paste.write_text("\n".join(lines))
    outputs = [run_cli("explain", str(paste), *flags).stdout for flags in ((), ("--json",), ("--no-color",))]
    for out in outputs:
        assert out
        for secret in SECRETS.values():
            assert secret not in out


def test_the_worker_log_is_read_the_same_way():
    """In `check`, the worker's captured log becomes the same evidence, judged by the same checks."""
    facts = {
        "system": {"platform": "linux", "container": "docker", "pci_nvidia": None},
        "runtime": {"ran": True, "log": LIBCUDA_LINE + "\n" + CUINIT_303, "steps": []},
    }
    report = build_report("full", facts, MATRIX)
    assert report.facts["log"]["source"] == "worker"
    driver = next(f for f in report.findings if f.id == "driver.missing")
    assert "--gpus all" in driver.fix and driver.evidence[0].startswith("TensorFlow log line 1:")
    assert next(f for f in report.findings if f.id == "cuda.init-failed").caused_by == "driver.missing"


def _corpus_line(prefix: str, needle: str) -> str:
    """A line of a dev corpus case (tests/data/explain), so each reader is tried on real wording."""
    path = next(CORPUS.glob(f"{prefix}-*.txt"))
    return next(line for line in path.read_text().splitlines() if needle in line)


MODULE = "$ module load TensorFlow/1.2.1-CrayGNU-2016.11-cuda-8.0-Python-3.5.2"  # an HPC module


@pytest.mark.parametrize(
    "text, key, value",
    [
        # a typed issue-template field, behind list, bold and code markers
        ("- **TensorFlow version (use command below)**: \n1.6.0-cp27-cp27mu-manylinux1_x86_64",
         "tensorflow_version", "1.6.0"),
        # git describe then the release: the release counts
        ("- TensorFlow version (use command below): **v2.2.0-rc4-8-g2b96f3662b 2.2.0**", "tensorflow_version",
         "2.2.0"),
        ("Tensorflow 2.2.0-rc2", "tensorflow_version", "2.2.0-rc2"),
        ("- **TensorFlow version (use command below)**: 2.0-alpha0", "tensorflow_version", "2.0-alpha0"),
        # pip's own words outrank what a person typed, and tensorflow-intel is TensorFlow on Windows
        ("### TensorFlow version\n\n2.15.01post\n\ntensorflow 2.15.0.post1 requires keras<2.16,>=2.15.0,"
         " but you have keras 3.0.3 which is incompatible.", "tensorflow_version", "2.15.0.post1"),
        ("    tensorflow-intel 2.12.1 depends on keras<2.13 and >=2.12.0", "tensorflow_version", "2.12.1"),
        ("https://example.invalid/tensorflow-1.12.0.a6d8ffa.AVX2.CUDA10-cp27-cp27mu-linux_x86_64.whl",
         "tensorflow_version", "1.12.0"),
        # the interpreter's banner after a prompt; a more precise version refines a path's
        ("(py39) root@box:~# python Python 3.9.6 (default, Aug 18 2021, 19:38:01) [GCC 7.5.0]",
         "python_version", "3.9.6"),
        ("/usr/local/lib/python2.7/dist-packages/tensorflow/__init__.py\nI use python 2.7.3.",
         "python_version", "2.7.3"),
        (r"I C:\tf_jenkins\workspace\rel-win\M\windows-gpu\PY\36\tensorflow\core\platform"
         r"\cpu_feature_guard.cc:140]", "python_version", "3.6"),
        # typed fields for the driver and friends
        ("- Driver version: 390.87", "driver_version", "390.87"),
        ("- Driver: 590.48.01\n- Host `nvidia-smi`: reports CUDA 13.1\n- Host `nvcc`: 11.5\n"
         "- cuDNN seen at runtime: 9.19", "cuda_driver_version", "13.1"),
        ("- Host `nvcc`: 11.5", "nvcc_version", "11.5"),
        ("- cuDNN seen at runtime: 9.19", "cudnn_version", "9.19"),
        ("biomind:6502:6588 [0] NCCL INFO cudaDriverVersion 11070", "cuda_driver_version", "11.7"),
        # dmesg wraps the API mismatch: the kernel module is the driver
        ("[ 7386.259769] NVRM: API mismatch: the client has the version 515.48.07, but\n"
         "               NVRM: this kernel module has the version 510.73.05.  Please", "driver_version",
         "510.73.05"),
        # TensorFlow's own "driver version file contents:" is not a typed driver field; its "reported"
        # versions are three integers, written back as NVIDIA does
        ('driver version file contents: """NVRM version: NVIDIA UNIX x86_64 Kernel Module  352.63  Sat Nov'
         '  7 21:25:42 PST 2015\nkernel reported version is: 352.63.0', "driver_version", "352.63"),
        ("cuda_diagnostics.cc:189] kernel reported version is: 515.43.4", "driver_version", "515.43.04"),
        ("The NVidia driver version is 440.31", "driver_version", "440.31"),
        (r"I `c:\tf_jenkins\home\workspace\release-win\device\gpu\os\windows\tensorflow\core\common_runtime"
         r"\gpu\gpu_device.cc:975] Creating TensorFlow device`", "platform", "windows"),
        # platforms from the mechanism, not a keyword
        ("I am using tensorflow-gpu on Ubuntu16.04.", "platform", "linux"),
        ("volta:1533219:1535130 [1] NCCL INFO Init COMPLETE", "platform", "linux"),
        (r"2020-08-01 03:45:09.105836: F .\tensorflow/core/kernels/conv_2d_gpu.h:710] Non-OK-status",
         "platform", "windows"),
        # TensorFlow's GPUs: XLA's devices, or none registered
        ("StreamExecutor device (0): Tesla K80, Compute Capability 3.7\n"
         "StreamExecutor device (1): Tesla K80, Compute Capability 3.7", "tf_visible_gpus", 2),
        ("Skipping registering GPU devices...", "tf_visible_gpus", 0),
        # TensorFlow 0.x/1.x ignoring a GPU: the name inside the brackets, the capability after them
        ("Ignoring visible gpu device (device: 0, name: GeForce GTX 660M, pci bus id: 0000:01:00.0) with"
         " Cuda compute capability 3.0. The minimum required Cuda capability is 3.5.", "gpus",
         [{"index": 0, "name": "GeForce GTX 660M", "compute_capability": "3.0", "memory_total_mib": None}]),
        # an environment dump's GPU line; an HPC module; an embedded Python; Windows paths without a drive
        ("GPU models and configuration: GPU 0: GeForce RTX 2070 with Max-Q Design", "gpus",
         [{"index": 0, "name": "GeForce RTX 2070 with Max-Q Design", "compute_capability": None,
           "memory_total_mib": None}]),
        (MODULE, "tensorflow_version", "1.2.1"),
        (MODULE, "python_version", "3.5.2"),
        ('  File "R:\\DFL\\_internal\\python-3.6.8\\lib\\site-packages\\tensorflow\\__init__.py"',
         "python_version", "3.6.8"),
        ('Anaconda3\\lib\\site-packages\\tensorflow\\python\\pywrap_tensorflow.py", line 64',
         "platform", "windows"),
        ("~\\AppData\\Roaming\\Python\\Python39\\site-packages\\tensorflow\\__init__.py in <module>",
         "platform", "windows"),
        # a template's own hint and a WSL note are not part of the OS
        ("- OS Platform and Distribution (e.g., Linux Ubuntu 16.04): Linux manjaro (e.g., Ubuntu 16.04)",
         "os", "Linux manjaro"),
        ("### OS platform and distribution\n\nUbuntu 22.04.4 LTS (WSL)", "os", "Ubuntu 22.04.4 LTS"),
        # a version in parentheses, a driver named after its number; cuDNN as a person, an archive and ldd
        # name it
        ("I use one GPU card now,  tensorflow(0.12) reports follow error", "tensorflow_version", "0.12"),
        ("GPU model and memory: GTX 1660 Super 6GB (+ GT 730 2GB) with 456.55 driver.", "driver_version",
         "456.55"),
        ("- CUDA 11.1 cuDNN 8.0.5.39", "cudnn_version", "8.0.5.39"),
        ("unzipped cudnn-10.0-windows10-x64-v7.6.5.32.zip into the CUDA folder", "cudnn_version", "7.6.5.32"),
        ("tar -xvf cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz", "cudnn_version", "8.9.7.29"),
        ("\tlibcudnn.so.6 => /usr/lib/x86_64-linux-gnu/libcudnn.so.6 (0x00007f96f8a91000)", "cudnn_version",
         "6"),
        ("\tlibcudnn.so.8 => not found", "cudnn_version", None),
        ("cudnn64_8.dll not found", "cudnn_version", None),
        # a dash or "v." before TensorFlow's version, a package in parentheses, the nightly's own name; the
        # kernel module's banner quoted in a sentence; a field name in backticks
        ("tensorflow - 1.8.0", "tensorflow_version", "1.8.0"),
        ("I'm using Tensorflow v. 1.8.0 and  NVIDIA UNIX x86_64 Kernel Module  390.67", "driver_version",
         "390.67"),
        ("I'm using Tensorflow v. 1.8.0 and  NVIDIA UNIX x86_64 Kernel Module  390.67", "tensorflow_version",
         "1.8.0"),
        ("ResNet-50 using tensorflow-gpu (1.0.0) [nightly build on Mar 2nd]", "tensorflow_version", "1.0.0"),
        ("tf-nightly-gpu 1.14.1 failed call to cuInit: CUDA_ERROR_UNKNOWN", "tensorflow_version", "1.14.1"),
        ("- TensorFlow: tf-nightly (2.21.0-dev20250729)", "tensorflow_version", "2.21.0-dev20250729"),
        ("`python`: 3.11.11", "python_version", "3.11.11"),
        ("docker run --gpus all nvcr.io/nvidia/tensorflow:20.03-tf2-py3", "tensorflow_version", None),
    ],
)
def test_values_a_person_can_see_are_read(text, key, value):
    assert explain(text).environment[key] == value


def test_value_readers_run_on_the_corpus_wording():
    """The lines above are the dev corpus's own (a guard that they stay real)."""
    assert "2.2.0-rc4-8-g2b96f3662b" in _corpus_line("252", "TensorFlow version")
    assert "cudaDriverVersion 11070" in _corpus_line("272", "cudaDriverVersion")
    assert "this kernel module has the version 510.73.05" in _corpus_line("110", "kernel module")


@pytest.mark.parametrize(
    "text, version",
    [
        ("tensorflow                2.10.0          gpu_py39h2ff8d6a_0    anaconda", "2.10.0"),  # conda list
        ("$ docker run --gpus all -it tensorflow/tensorflow:2.15.0-gpu bash", "2.15.0"),
        (">>> print(tf.version.VERSION)\n2.16.1", "2.16.1"),
    ],
)
def test_tensorflow_version_from_conda_docker_and_the_api(text, version):
    assert explain(text).environment["tensorflow_version"] == version


# --- mechanisms the second held-out split showed missing (its real lines) ---------------------------

HOLDOUT2 = CORPUS / "holdout2"


def _real(name: str, *needles: str) -> str:
    """The lines of a holdout2 case that hold any of the needles (real text, trimmed to the point)."""
    text = next(HOLDOUT2.glob(f"{name}-*.txt")).read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if any(n in line for n in needles))


@pytest.mark.parametrize(
    "name, needles, root",
    [
        # TensorFlow's own diagnosis in a container started without --gpus
        ("J015", ("docker run -it", "cuInit", "/dev/nvidia0 does not exist"), "driver.missing"),
        # nvidia-docker 1 could not load the kernel's UVM module
        ("J033", ("Could not load UVM kernel module",), "driver.missing"),
        # a paste that broke "CuDNN l|ibrary" across two lines
        ("J105", ("Loaded runtime CuDNN", "but source was compiled with"), "cudnn.version-mismatch"),
        # TensorFlow on Windows could not start ptxas
        ("J118", ("CreateProcess failed",), "xla.toolchain-missing"),
        # the CUDA context itself did not fit: the GPU was full before TensorFlow started
        ("J123", ("implicit initialization",), "gpu.memory-held-by-other-processes"),
        # two `pip show` outputs: tensorflow-gpu and tensorflow in one venv
        ("J204", ("pip show", "Name:", "Version:"), "tensorflow.conflicting-installs"),
        # pip's resolver: TensorFlow's pin on a package it needs is broken
        ("J231", ("requires tf-estimator-nightly",), "tensorflow.conflicting-installs"),
        # NCCL's own line shape, without the word NCCL
        ("J313", ("WARN Cuda failure",), "nccl.error"),
        # the package name that no longer installs, not the Python
        ("J206", ("Could not find a version",), "tensorflow.missing"),
    ],
)
def test_mechanisms_seen_in_real_pastes(name, needles, root):
    text = _real(name, *needles)
    assert text, name
    assert roots(explain(text)) == {root}, text


def test_a_removed_tensorflow_gpu_package_is_not_a_python_problem():
    text = ('      The "tensorflow-gpu" package has been removed!\n'
            "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu"
            " (from versions: none)")
    report = explain(text)
    assert roots(report) == {"tensorflow.missing"}
    fix = next(f.fix for f in report.findings if f.id == "tensorflow.missing")
    assert "tensorflow[and-cuda]" in fix and "tensorflow-gpu" not in fix


def test_nvidia_smi_of_another_version_is_no_mismatch_when_the_device_is_missing():
    # WSL2: nvidia-smi 530.47 talks to the Windows driver 531.68; CUDA saw no device in the container
    text = _real("J304", "NVIDIA-SMI", "CUDA_ERROR_NO_DEVICE")
    assert "CUDA_ERROR_NO_DEVICE" in text and "531.68" in text
    assert roots(explain(text)) == {"cuda.init-failed"}
    # the same banner split with a cuInit failure no device explains is a library mismatch
    split = (CORPUS / "112-smi-352-driver-384-banner-mismatch.txt").read_text(encoding="utf-8")
    assert "driver.library-mismatch" in roots(explain(split))
    assert logs.read_text(split)["log"]["counts"]["lib-mismatch"] == 1  # counted as the others are


@pytest.mark.parametrize(
    "text, platform",
    [
        ("OS: Ubuntu 22.04.4 LTS (WSL)\nI set it up on my Windows 11 laptop", "wsl2"),
        ("I trained it on MacOS M1, then ran it on the Nano:\nINFO: loading /home/brian/mycar/config.py",
         "linux"),
        ("TF 1.1.0-rc1, CUDA 8.0, macOS 10.12", "macos"),
    ],
)
def test_platform_words_weigh_less_than_paths(text, platform):
    assert explain(text).environment["platform"] == platform


def test_a_gpu_tensorflow_found_on_macos_is_not_called_cpu_only():
    text = _real("J311", "TF 1.1.0", "Found device 0", "name: GeForce", "major: 3")
    assert "tensorflow.cpu-only-build" not in failing(explain(text))


def test_a_heading_is_not_the_value_of_the_heading_above_it():
    env = explain("- TensorFlow version 1.13:\n- Python version 3.5:\n").environment
    assert (env["tensorflow_version"], env["python_version"]) == ("1.13", "3.5")
