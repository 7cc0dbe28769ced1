"""Property-based: no input makes explain raise, and a real signature line survives any noise around it."""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfdoctor.compat import load_matrix
from tfdoctor.environment import KEYS
from tfdoctor.logs.lines import normalize, read_lines
from tfdoctor.report import explain_report

MATRIX = load_matrix()


def explain_text(text: str):
    return explain_report(text, MATRIX)


def failing(report) -> set[str]:
    return {f.id for f in report.findings if str(f.status) in ("fail", "warn")}

CORPUS = Path(__file__).parent / "data" / "explain"
# (real line from the corpus, the id it must always yield)
SIGNAL = [
    ((CORPUS / "013-cudnn-804-vs-810.txt").read_text().splitlines()[1], "cudnn.version-mismatch"),
    ((CORPUS / "018-nvml-mismatch.txt").read_text().splitlines()[1], "driver.library-mismatch"),
    ((CORPUS / "053-cuinit-no-device-tf216-xla.txt").read_text().splitlines()[5], "cuda.init-failed"),
    ((CORPUS / "032-libdevice-not-found-xla.txt").read_text().splitlines()[8], "xla.toolchain-missing"),
]
PREFIXES = st.sampled_from(
    [
        "",
        "I0000 00:00:1700000000.123456  1234 cuda_executor.cc:1015] ",
        "2023-06-01 12:00:00.123456: E ",
        "[12:00:01] ",
        "\x1b[31m",
        "> ",
        "   ",
    ]
)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check_shape(result) -> None:
    assert set(result.environment) == set(KEYS)
    for f in result.findings:
        assert f.confidence in ("certain", "likely")
        assert f.fix or str(f.status) in ("pass", "skip")
    result.to_dict()


@SETTINGS
@given(st.binary(max_size=4096))
def test_arbitrary_bytes_never_raise(data):
    result = explain_report(read_lines(io.BytesIO(data)), MATRIX)
    assert result.facts["log"]["lines_read"] == (
        data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
    )
    _check_shape(result)


@SETTINGS
@given(st.text(max_size=2000))
def test_arbitrary_text_never_raises(text):
    _check_shape(explain_text(text))
    for line in text.splitlines():
        assert isinstance(normalize(line), str)


@SETTINGS
@given(
    st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200), max_size=30),
    st.sampled_from(SIGNAL),
    PREFIXES,
    st.booleans(),
)
def test_signal_line_survives_noise_prefixes_and_crlf(noise, signal, prefix, crlf):
    line, fid = signal
    end = "\r\n" if crlf else "\n"
    lines = [n.replace("\n", " ").replace("\r", " ") for n in noise]
    lines.insert(len(lines) // 2, prefix + line)
    result = explain_text(end.join(lines))
    assert fid in failing(result)


@SETTINGS
@given(
    st.lists(
        st.sampled_from(
            [
                "Successfully opened dynamic library libcudart.so.11.0",
                "I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized",
                "Epoch 3/10 - 12s - loss: 0.4512 - accuracy: 0.8812",
                "NCCL INFO Channel 00/02 :    0   1",
                "TF-TRT Warning: Could not find TensorRT",
                "successful NUMA node read from SysFS had negative value (-1)",
                "Created device /job:localhost/replica:0/task:0/device:GPU:0 with 14626 MB memory:  "
                "-> device: 0, "
                "name: Tesla T4, pci bus id: 0000:00:04.0, compute capability: 7.5",
            ]
        ),
        max_size=40,
    )
)
def test_healthy_lines_never_fail(lines):
    assert failing(explain_text("\n".join(lines))) == set()
