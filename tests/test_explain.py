"""`tfdoctor explain`: the real CLI in a child process, the engine on real pasted lines, robustness."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from tfdoctor.catalogue import ENTRIES as CATALOGUE
from tfdoctor.environment import KEYS
from tfdoctor.explain import MAX_LINE, explain_lines, explain_text, normalize, read_lines

CORPUS = ROOT / "tests" / "data" / "explain"
CUDNN = CORPUS / "013-cudnn-804-vs-810.txt"
HEALTHY = CORPUS / "034-created-device-gtx1080ti-healthy.txt"
# Real lines from the corpus, reused below to build inputs.
LIBCUDA_LINE = (CORPUS / "006-libcuda-missing-cuinit-303.txt").read_text().splitlines()[0]
BANNER_460 = (CORPUS / "035-nvidia-smi-460-v100-healthy.txt").read_text().splitlines()[0]
OOM_LINE = (CORPUS / "022-oom-bfc-tile.txt").read_text().splitlines()[8]


def ids(result) -> set[str]:
    return {f.id for f in result.findings}


# --- the command ---------------------------------------------------------------------------------


def test_json_report_shape_and_exit_1_on_failure():
    res = run_cli("explain", str(CUDNN), "--json")
    assert res.returncode == 1, res.stderr
    data = res.json()
    assert data["mode"] == "explain"
    assert set(data["environment"]) == set(KEYS)
    assert data["environment"]["cudnn_version"] == "8.0.4"
    assert data["environment"]["tf_cudnn_version"] == "8.1.0"
    assert [f["id"] for f in data["findings"]] == ["cudnn.version-mismatch"]
    finding = data["findings"][0]
    assert finding["status"] == "fail" and finding["fix"] and finding["confidence"] == "certain"
    assert data["facts"]["explain"]["lines_read"] == 3
    # line 3 repeats line 2 (log prefixes aside): a repeat adds no evidence and is not listed again
    assert [m["line"] for m in data["facts"]["explain"]["matches"]] == [2]
    assert data["summary"]["status"] == "fail"


def test_json_report_validates_against_the_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "tfdoctor" / "schema" / "report.schema.json").read_text())
    for case in ("002-cusolver-cudnn8-skipping.txt", "052-smi-440-two-quadro-gv100-healthy.txt"):
        data = run_cli("explain", str(CORPUS / case), "--json").json()
        jsonschema.validate(data, schema)


def test_healthy_log_exits_0_and_prints_environment():
    res = run_cli("explain", str(HEALTHY), "--no-color")
    assert res.returncode == 0, res.stderr
    assert "GTX 1080 Ti" in res.stdout
    assert "no known failure signature" in res.stdout


def test_text_output_shows_fix():
    res = run_cli("explain", str(CUDNN), "--no-color")
    assert res.returncode == 1
    assert "fix:" in res.stdout and "8.0.4" in res.stdout


def test_stdin_dash():
    res = run_cli("explain", "-", "--json", stdin=CUDNN.read_text())
    assert res.returncode == 1
    assert res.json()["findings"][0]["id"] == "cudnn.version-mismatch"


def test_empty_input_exits_0_and_says_nothing_to_read(tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    res = run_cli("explain", str(empty))
    assert res.returncode == 0
    assert "nothing to read" in res.stdout
    res = run_cli("explain", "-", stdin="")
    assert res.returncode == 0 and "nothing to read" in res.stdout
    data = run_cli("explain", str(empty), "--json").json()
    assert data["findings"] == [] and data["facts"]["explain"]["lines_read"] == 0


@pytest.mark.parametrize("target", ["missing.log", "."])
def test_missing_or_unreadable_file_exits_2_with_one_line(tmp_path, target):
    res = run_cli("explain", str(tmp_path / target) if target != "." else str(tmp_path))
    assert res.returncode == 2
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tfdoctor: ")
    assert "Traceback" not in res.stderr


def test_importing_explain_stays_light():
    code = (
        "import sys, tfdoctor.explain; "
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
    result = explain_lines(read_lines(io.BytesIO(coloured.encode())))
    assert ids(result) == {"cudnn.version-mismatch"}
    assert result.environment["cudnn_version"] == "8.0.4"


@pytest.mark.parametrize(
    "prefix",
    [
        "I0000 00:00:1700000000.123456  1234 cuda_executor.cc:1015] ",
        "2023-06-01 12:00:00.123456: W tensorflow/stream_executor/cuda/cuda_driver.cc:318] ",
        "[2024-01-01 12:00:00] ",
        "(pid=11300) ",
        ">>> ",
    ],
)
def test_log_prefixes(prefix):
    result = explain_text(
        prefix + "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
    )
    assert "cuda.init-failed" in ids(result)


def test_normalize_strips_absl_and_timestamp_prefixes():
    assert normalize("I0000 00:00:1700000000.123456  1234 cuda_executor.cc:1015] hello") == "hello"
    assert normalize("2023-06-01 12:00:00.123456: W tensorflow/core/x.cc:12] hello\r\n") == "hello"
    assert normalize("\x1b[1;33m[23:28:14 - Predict] hello\x1b[0m") == "hello"


def test_invalid_utf8_and_binary_noise():
    data = b"\xff\xfe\x00garbage\x80\n" + LIBCUDA_LINE.encode() + b"\n\xc3\x28\x00\x01\n"
    result = explain_lines(read_lines(io.BytesIO(data)))
    assert "driver.missing" in ids(result)
    assert result.lines_read == 3


def test_over_long_line_is_cut_and_streamed(tmp_path):
    big = tmp_path / "one-line.log"
    with open(big, "wb") as fh:
        fh.write(b"a" * (20 * 1024 * 1024))
        fh.write(b"\n" + OOM_LINE.encode() + b"\n")
    tracemalloc.start()
    with open(big, "rb") as fh:
        result = explain_lines(read_lines(fh))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert result.lines_read == 2
    assert ids(result) == {"gpu.out-of-memory"}
    assert peak < 8 * 1024 * 1024, peak


def test_many_lines_use_bounded_memory():
    def lines():
        for i in range(60_000):
            yield f"2023-01-01 00:00:00.000000: I tensorflow/core/x.cc:1] step {i} loss 0.{i}\n"
            if i % 1000 == 0:
                yield OOM_LINE + "\n"

    tracemalloc.start()
    result = explain_lines(lines())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert result.lines_read == 60_060
    assert ids(result) == {"gpu.out-of-memory"}
    assert len(result.matches) <= 200
    assert peak < 8 * 1024 * 1024, peak


def test_read_lines_caps_line_length():
    chunks = list(read_lines(io.BytesIO(b"x" * (MAX_LINE * 3) + b"\nnext\n")))
    assert len(chunks) == 2 and len(chunks[0]) <= MAX_LINE and chunks[1] == "next\n"


# --- combining evidence ----------------------------------------------------------------------------


def test_banner_cuda_older_than_tf_build_is_driver_too_old_likely():
    # nvidia-smi says the driver supports CUDA 11.2; TF 2.15 was built with CUDA 12.2.
    result = explain_text(BANNER_460 + "\ntensorflow                   2.15.0\n")
    finding = next(f for f in result.findings if f.id == "driver.too-old")
    assert finding.confidence == "likely"
    assert result.environment["driver_version"] == "460.73.01"
    assert result.environment["tensorflow_version"] == "2.15.0"


def test_banner_new_enough_for_tf_is_not_too_old():
    result = explain_text(BANNER_460 + "\ntensorflow                   2.10.0\n")
    assert "driver.too-old" not in ids(result)


def test_windows_with_old_tf_is_not_windows_native_failure():
    result = explain_text('C:\\Users\\me> python -c "import tensorflow"\ntensorflow-gpu        2.10.0\n')
    assert result.environment["platform"] == "windows"
    assert "platform.windows-native" not in ids(result)


def test_cannot_dlopen_with_only_cudnn_missing_is_cudnn_alone():
    lines = (CORPUS / "002-cusolver-cudnn8-skipping.txt").read_text().splitlines()
    result = explain_text("\n".join(lines[1:]))  # without the libcusolver line
    assert ids(result) == {"cudnn.missing"}


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
    ]
    result = explain_text("\n".join(harmless))
    assert result.findings == []
    assert result.environment["cudnn_version"] == "8.9.2"


# --- findings are actionable -----------------------------------------------------------------------


def test_every_finding_in_the_corpus_has_a_fix_and_is_declared():
    for path in sorted(CORPUS.glob("*.txt")):
        with open(path, "rb") as fh:
            result = explain_lines(read_lines(fh))
        for f in result.findings:
            assert f.fix and f.title and f.detail, (path.name, f.id)
            assert f.confidence in ("certain", "likely")
            assert f.id in CATALOGUE, f.id


def test_fix_is_tailored_to_wsl2_and_ubuntu():
    wsl = explain_text("Linux host 5.15.90.1-microsoft-standard-WSL2\n" + LIBCUDA_LINE)
    fix = next(f.fix for f in wsl.findings if f.id == "driver.missing")
    assert "Windows" in fix and "wsl --shutdown" in fix
    ubuntu = explain_text("Ubuntu 22.04.4 LTS\n" + LIBCUDA_LINE)
    fix = next(f.fix for f in ubuntu.findings if f.id == "driver.missing")
    assert "ubuntu-drivers" in fix


def test_worker_log_goes_through_the_same_engine():
    text = (CORPUS / "053-cuinit-no-device-tf216-xla.txt").read_text()
    with open(CORPUS / "053-cuinit-no-device-tf216-xla.txt", "rb") as fh:
        from_file = explain_lines(read_lines(fh))
    from_text = explain_text(text)
    assert ids(from_text) == ids(from_file) == {"cuda.init-failed"}
    assert explain_text("").findings == [] and explain_text("").lines_read == 0


def test_corpus_files_are_all_listed():
    listed = Path(CORPUS / "cases.toml").read_text()
    for path in CORPUS.glob("*.txt"):
        assert path.name in listed


def test_live_facts_tailor_the_fix_of_a_log_finding() -> None:
    """The worker's log goes through the same engine; a live check's facts decide the fix."""
    line = (
        "E0000 00:00:1731000000.000000  12 cuda_executor.cc:1228] failed call to cuInit: INTERNAL: "
        "CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)"
    )
    alone = {f.id: f for f in explain_text(line).findings}["cuda.init-failed"]
    in_container = {
        f.id: f
        for f in explain_text(line, {"system": {"platform": "linux", "container": "docker"}}).findings
    }["cuda.init-failed"]
    assert "--gpus all" in in_container.fix
    assert alone.fix != in_container.fix
