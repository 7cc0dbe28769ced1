"""`explain` reads the stack's errors by code (tfdoctor/stackerrors.py), names the harmless notices
of healthy logs, and says which error lines it does not recognise. Pasted lines are real, copied
from the thread named beside them; the two built here say so."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, run_cli

from tfdoctor import logs
from tfdoctor.compat import load_matrix
from tfdoctor.report import explain_report

MATRIX = load_matrix()
NOISE = ROOT / "tests" / "data" / "noise"  # healthy logs; sources in its SOURCES.md and beside each use


def bad(text: str) -> dict[str, str | None]:
    """Failing or warning ids -> what explains them (None: a root cause)."""
    report = explain_report(text, MATRIX)
    return {f.id: f.caused_by for f in report.findings if str(f.status) in ("fail", "warn")}


# --- errors by code ------------------------------------------------------------------------------


@pytest.mark.parametrize("text, root", [
    # https://github.com/NVIDIA/nvidia-container-toolkit/issues/210 (rootless podman, CDI)
    ("podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L\n"
     "Failed to initialize NVML: Insufficient Permissions", "nvml.no-permission"),
    # https://github.com/NVIDIA/nvidia-docker/issues/1523 (the container toolkit's hook)
    ("docker: Error response from daemon: OCI runtime create failed: container_linux.go:367: starting"
     " container process caused: process_linux.go:495: container init caused: Running hook #0:: error"
     " running hook: exit status 1, stdout: , stderr: nvidia-container-cli: initialization error: nvml"
     " error: insufficient permissions: unknown.", "nvml.no-permission"),
    # https://github.com/NVIDIA/nvidia-container-toolkit/issues/251 (device cgroup lost on daemon-reload)
    ("root@098b49afe624:/# nvidia-smi\nFailed to initialize NVML: Unknown Error", "nvml.no-permission"),
    # https://github.com/microsoft/WSL/issues/6014
    ("RuntimeError: CUDA runtime implicit initialization on GPU:0 failed. Status: all CUDA-capable devices"
     " are busy or unavailable", "cuda.init-failed"),
])
def test_errors_are_read_by_code(text, root):
    found = bad(text)
    assert found.get(root, "absent") is None, found
    assert [i for i, cause in found.items() if cause is None] == [root]


def test_the_nvml_code_becomes_the_fact_the_probe_records():
    facts = logs.read_text("Failed to initialize NVML: Insufficient Permissions")
    assert facts["nvml"]["error_kind"] == "no-permission"
    assert facts["log"]["evidence"][0]["code"] == "NVML_ERROR_NO_PERMISSION"
    assert facts["log"]["unrecognized"] == []


def test_a_bare_library_message_is_not_anyones_error():
    # built here: TensorFlow's own status words are not cudaErrorInvalidValue's "invalid argument"
    facts = logs.read_text("tensorflow.python.framework.errors_impl.InvalidArgumentError: Invalid argument:"
                           " Incompatible shapes: [32,10] vs. [32] [Op:Mul] on /device:GPU:0")
    # only the program's own shape error, by TensorFlow's message; no CUDA code
    assert [(i["kind"], i["reason"]) for i in facts["log"]["evidence"]] == [("stack-error", "shape")]


# --- harmless noise, by name ---------------------------------------------------------------------

# https://github.com/kr-colab/ReLERNN/issues/63
HEALTHY_2_15 = (NOISE / "relernn-tf2.15.txt").read_text()
# https://github.com/bmaltais/kohya_ss/issues/3320 (absl's own prefix)
HEALTHY_ABSL = (NOISE / "kohya-absl.txt").read_text()
# https://github.com/tensorflow/tensorflow/issues/58859 (TensorRT's libraries absent, TF 2.11)
TENSORRT_2_11 = (NOISE / "tf58859-tensorrt-2.11.txt").read_text()
# https://github.com/minimaxir/gpt-2-simple/issues/232 (WSL2: no NUMA node file, logged at E)
NUMA_WSL2 = (NOISE / "gpt2simple-wsl2-numa.txt").read_text()


# https://github.com/TheLastBen/fast-stable-diffusion/issues/1597 (TF 2.11's oneDNN CPU notice)
ONEDNN_2_11 = (NOISE / "fast-sd-onednn-tensorrt.txt").read_text()


@pytest.mark.parametrize("text, names", [
    (HEALTHY_2_15, {"factory-registered", "cpu-features", "tensorrt-missing", "numa-node"}),
    (ONEDNN_2_11, {"cpu-features", "onednn", "tensorrt-missing"}),
    (HEALTHY_ABSL, {"factory-registered"}),
    (TENSORRT_2_11, {"onednn", "tensorrt-missing"}),
    (NUMA_WSL2, {"numa-node"}),
])
def test_harmless_notices_are_named_and_never_a_warning(text, names):
    assert bad(text) == {}
    facts = logs.read_text(text)
    assert set(facts["log"]["noise"]) == names
    assert facts["log"]["evidence"] == [] and facts["log"]["unrecognized"] == []


# --- what it does not know, it says ---------------------------------------------------------------

# https://github.com/NVIDIA/nccl/issues/1039 (an error tfdoctor has no mechanism for)
UNKNOWN = ("2023/10/26 12:12:06 2023-10-26 12:12:06.704113: E hybridbackend/tensorflow/distribute/nccl/"
           "nccl_collective.cc:461] NCCL communication aborted: unhandled system error")
# https://github.com/TensorSpeech/TensorFlowTTS/issues/151 (a project's own module lacks a name)
ONLY_ERROR = "ImportError: cannot import name 'calculate_2d_loss' from 'tensorflow_tts.utils'"
# https://github.com/MiteshPuthran/Speech-Emotion-Analyzer/issues/52 (a model's shapes: no installation fault)
SHAPES = "ValueError: Shapes (None, 4) and (None, 10) are incompatible"


def test_an_error_line_nothing_explains_is_shown_never_a_pass():
    facts = logs.read_text(ONLY_ERROR)
    assert facts["log"]["unrecognized"] == [{"line": 1, "text": ONLY_ERROR}]
    report = explain_report(ONLY_ERROR, MATRIX)
    assert str(report.status) == "warn"
    (finding,) = [f for f in report.findings if f.id == "log.unrecognized"]
    assert finding.evidence == (f"line 1: {ONLY_ERROR}",)


def test_a_shape_error_is_the_programs_never_a_pass():
    report = explain_report(SHAPES, MATRIX)
    assert str(report.status) == "warn" and logs.read_text(SHAPES)["log"]["unrecognized"] == []
    (finding,) = [f for f in report.findings if str(f.status) == "warn"]
    assert finding.id == "log.program-error" and finding.evidence == (f"line 1: {SHAPES}",)


def test_the_only_line_an_nvml_error_is_not_a_pass_in_the_terminal_or_json(tmp_path):
    paste = tmp_path / "paste.txt"
    paste.write_text("Failed to initialize NVML: Insufficient Permissions\n")
    text = run_cli("explain", str(paste))
    assert "0 failures — nothing in this output" not in text.stdout and "✓" not in text.stdout
    assert "No permission to query the NVIDIA driver" in text.stdout
    data = json.loads(run_cli("explain", str(paste), "--json").stdout)
    assert data["summary"]["status"] == "warn"
    assert [f["id"] for f in data["findings"] if f["status"] == "warn"] == ["nvml.no-permission"]


def test_unrecognised_lines_are_explained_by_a_root_cause_when_there_is_one():
    found = bad(UNKNOWN)
    assert found == {"nccl.error": None}  # the NCCL sentence is a mechanism it knows
    found = bad(ONLY_ERROR + "\n" + "Failed to initialize NVML: Insufficient Permissions")
    assert found == {"nvml.no-permission": None, "log.unrecognized": "nvml.no-permission"}


def test_a_program_error_code_is_said_to_be_the_programs():
    # https://github.com/tensorflow/tensorflow/issues/2033 (conv3d shapes, after one epoch)
    found = bad("F tensorflow/stream_executor/cuda/cuda_dnn.cc:427] could not set cudnn filter descriptor:"
                " CUDNN_STATUS_BAD_PARAM")
    assert found == {"log.program-error": None}


def test_healthy_logs_carry_no_unrecognised_line():
    for text in (HEALTHY_2_15, HEALTHY_ABSL, TENSORRT_2_11, NUMA_WSL2):
        assert logs.read_text(text)["log"]["unrecognized_count"] == 0


def test_unrecognised_lines_are_capped_and_counted():  # built here
    facts = logs.read_text("\n".join(f"ValueError: case {i} is wrong" for i in range(500)))
    assert len(facts["log"]["unrecognized"]) == logs.MAX_UNRECOGNIZED
    assert facts["log"]["unrecognized_count"] == 500


@pytest.mark.parametrize("line", [
    "ValueError: Shapes (None, 4) and (None, 10) are incompatible",
    "Failed to initialize NVML: Insufficient Permissions",
    "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].",
    "FATAL: kernel too old",
    "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.",
])
def test_every_error_form_holds_a_trigger_word(line):  # built here
    from tfdoctor.logs.errorlines import TRIGGERS, is_error

    assert is_error(line, False)
    assert any(word in line.lower() for word in TRIGGERS)


def test_a_program_code_beside_a_real_failure_is_that_failures_echo():
    # https://github.com/tensorflow/tensorflow/issues/30254 (cuDNN 7.0 on driver 384)
    text = (
        "2019-07-25 05:52:04.890160: E tensorflow/stream_executor/cuda/cuda_dnn.cc:455] could not create"
        " cudnn handle: CUDNN_STATUS_NOT_INITIALIZED\n"
        "2019-07-25 05:52:04.890268: E tensorflow/stream_executor/cuda/cuda_dnn.cc:463] possibly"
        " insufficient driver version: 384.183.0\n"
        "2019-07-25 05:52:04.890282: E tensorflow/stream_executor/cuda/cuda_dnn.cc:427] could not destroy"
        " cudnn handle: CUDNN_STATUS_BAD_PARAM\n"
    )
    found = bad(text)
    assert [i for i, cause in found.items() if cause is None] == ["cudnn.init-failed"], found
    assert found["log.program-error"] == "cudnn.init-failed"


def test_the_placers_colocation_notice_is_harmless():
    # holdout14 V031 (source in its cases.toml): two GPUs train; the placer moved a resource's ops
    text = next((ROOT / "tests" / "data" / "explain" / "holdout14").glob("V031-*.txt")).read_text()
    assert bad(text) == {}
    assert "colocation" in logs.read_text(text)["log"]["noise"]


# The lines as TensorFlow's own code words them: tensorflow/core/grappler/optimizers/meta_optimizer.cc
# (LOG(ERROR) << optimizer->name() << " failed: " << status, then it keeps the graph as it was) and
# tensorflow/core/framework/node_def_util.cc (an attribute it does not know, ignored).
GRAPPLER_PASS = ("2023-05-01 10:00:00.000003: E tensorflow/core/grappler/optimizers/meta_optimizer.cc:903]"
                 " remapper failed: INVALID_ARGUMENT: Mutation::Apply error: fanout 'gradient_tape/model/"
                 "leaky_re_lu/LeakyRelu/LeakyReluGrad' exist for missing node 'model/conv2d/BiasAdd'.")
UNKNOWN_ATTRIBUTE = ("E0000 00:00:1783254177.630883   13576 node_def_util.cc:682] NodeDef mentions attribute"
                     " use_unbounded_threadpool which is not in the op definition: Op<name=MapDataset;"
                     " signature=input_dataset:variant> This may be expected if your graph generating"
                     " binary is newer  than this binary. Unknown attributes will be ignored. NodeDef: {{node"
                     " ParallelMapDatasetV2/_15}}")

# https://github.com/NVIDIA/tensorflow/issues/39 (core/util/dump_graph.cc, XLA auto-clustering's debug dump)
GRAPH_DUMP = ("Failed to dump before_mark_for_compilation because dump location is not  specified through"
              " either TF_DUMP_GRAPH_PREFIX environment variable or function argument.")


@pytest.mark.parametrize("text, name", [(GRAPPLER_PASS, "grappler-pass"),
                                        (UNKNOWN_ATTRIBUTE, "nodedef-attribute"),
                                        (GRAPH_DUMP, "graph-dump-skipped")])
def test_tensorflows_own_benign_errors_are_named(text, name):
    assert bad(text) == {}
    assert set(logs.read_text(text)["log"]["noise"]) == {name}


def test_a_graph_refused_for_an_attribute_is_not_the_benign_notice():
    refused = ("InvalidArgumentError: NodeDef mentions attr 'Truncate' not in Op<name=Cast;"
               " signature=x:SrcT -> y:DstT>; NodeDef: Cast = Cast[DstT=DT_FLOAT, SrcT=DT_UINT8,"
               " Truncate=false](image_tensor).")
    assert logs.read_text(refused)["log"]["noise"] == {}


# XLA's slow_operation_alarm.cc at error level (as pasted in real logs, e.g. a 2024-09-24 notebook's
# "Trying algorithm eng0{} for conv ... is taking a while..." and "The operation took 54m38.019217519s")
SLOW_XLA = ("2024-09-24 09:33:14.343605: E external/local_xla/xla/service/slow_operation_alarm.cc:65] Trying"
            " algorithm eng0{} for conv (f32[1,16,1720,2296]{3,2,1,0}, u8[0]{0})"
            " custom-call(f32[1,32,1716,2292]{3,2,1,0}, f32[32,16,5,5]{3,2,1,0}), window={size=5x5} is taking"
            " a while...\n"
            "2024-01-27 00:27:58.708671: E tensorflow/compiler/xla/service/slow_operation_alarm.cc:133] The"
            " operation took 54m38.019217519s\n")


def test_xlas_slow_operation_alarm_is_a_speed_notice():
    assert bad(SLOW_XLA) == {}
    assert logs.read_text(SLOW_XLA)["log"]["noise"] == {"xla-slow-operation": 2}
