"""`explain` on containers, clusters and the Python-level mechanisms, by the structure the stack
prints: real lines from tests/data/explain (sources in its cases.toml), and their near misses that
must not be read as the mechanism."""

from __future__ import annotations

import time

import pytest
from conftest import ROOT

from tfdoctor import logs
from tfdoctor.compat import load_matrix
from tfdoctor.logs import TRACEBACK_WINDOW
from tfdoctor.model import Status
from tfdoctor.report import explain_report

CORPUS = ROOT / "tests" / "data" / "explain"
MATRIX = load_matrix()


def corpus(name: str) -> str:
    return next(CORPUS.glob(name + "-*.txt")).read_text(encoding="utf-8")


def line_of(name: str, needle: str) -> str:
    return next(ln for ln in corpus(name).splitlines() if needle in ln)


def failing(text: str) -> dict[str, object]:
    report = explain_report(text, MATRIX)
    return {f.id: f for f in report.findings if str(f.status) in ("fail", "warn")}


def env(text: str) -> dict:
    return logs.read_text(text).get("system", {}).get("env", {})


# --- containers ----------------------------------------------------------------------------------


def test_docker_without_the_nvidia_runtime_is_a_container_without_the_driver():
    found = failing(corpus("291"))
    assert set(found) == {"driver.missing"}
    assert "nvidia-ctk runtime configure" in found["driver.missing"].fix


def test_the_runtime_refusal_inside_an_escaped_daemon_message():
    line = line_of("290", "could not select device driver")
    escaped = line.replace('""', '\\"\\"').replace("[[gpu]]", "[[gpu compute utility]]")
    assert "driver.missing" in failing(escaped)


def test_cdi_without_a_spec_says_generate_it():
    found = failing(line_of("293", "unresolvable CDI"))
    assert "nvidia-ctk cdi generate" in found["driver.missing"].fix


def test_the_toolkits_cuda_requirement_is_a_driver_too_old_for_that_cuda():
    found = failing(corpus("294"))
    assert set(found) == {"driver.too-old"}
    assert "11.0" in found["driver.too-old"].title + found["driver.too-old"].detail


def test_an_image_carrying_its_own_nvml_cannot_take_the_hosts():
    found = failing(corpus("296"))
    assert {k for k, f in found.items() if not f.caused_by} == {"cuda.container-driver-libraries"}
    assert "driver.library-mismatch" not in found
    assert "libnvidia-ml.so.1" in found["cuda.container-driver-libraries"].title


def test_a_library_kernel_split_inside_a_container_is_the_images_not_a_host_update():
    found = failing(corpus("298"))
    assert found["driver.library-mismatch"].caused_by == "cuda.container-driver-libraries"
    outside = corpus("298").replace("inside a docker container", "on my workstation").replace(
        "inside the container", "installed")
    assert "cuda.container-driver-libraries" not in failing(outside)


def test_the_toolkits_own_nvml_mismatch_is_the_hosts():
    """The toolkit's hook runs on the host before the container exists (case 110: dmesg agrees)."""
    found = failing(corpus("110"))
    assert "driver.library-mismatch" in found and "cuda.container-driver-libraries" not in found


def test_forward_compatibility_refusals_read_as_a_driver_too_old():
    for name in ("300", "301", "302"):
        found = failing(corpus(name))
        assert "driver.too-old" in found, name
        assert "driver.library-mismatch" not in found, name
    # with the library and kernel versions shown to differ, the split explains 804 instead (case 126)
    found = failing(corpus("126"))
    assert "driver.library-mismatch" in found and "driver.too-old" not in found


# --- clusters -----------------------------------------------------------------------------------


def test_tf_config_as_a_python_dict_over_several_lines_is_read_and_judged():
    found = failing(corpus("303"))
    assert {"distributed.address-invalid", "distributed.task-invalid"} <= set(found)
    assert '"localhost:0000"' in env(corpus("303"))["TF_CONFIG"]


def test_tf_config_printed_by_the_estimator_is_read():
    text = ("INFO:tensorflow:TF_CONFIG environment variable: {'cluster': {'worker': ['w0:2222',"
            " 'w1:2222']}, 'task': {'type': 'chief', 'index': 0}}")
    assert "distributed.task-invalid" in failing(text)


@pytest.mark.parametrize("text", [
    "os.environ['TF_CONFIG'] = json.dumps({'cluster': cluster, 'task': {'type': job, 'index': i}})",
    "TF_CONFIG is read from the environment: see the docs",
    "os.environ['TF_CONFIG'] = json.dumps({",  # never closes: nothing, and no hang
])
def test_tf_config_that_is_code_or_prose_is_not_a_value(text):
    assert "TF_CONFIG" not in env(text)


def test_an_unclosed_tf_config_stops_after_a_bounded_number_of_lines():
    text = "TF_CONFIG={\n" + "{\n" * 50_000 + '{"cluster": {"worker": ["a:1"]}}\n'
    start = time.perf_counter()
    facts = logs.read_text(text)
    assert time.perf_counter() - start < 10
    assert "TF_CONFIG" not in facts.get("system", {}).get("env", {})


def test_tensorflows_own_cluster_refusals_are_task_and_address_problems():
    assert "distributed.task-invalid" in failing(corpus("319"))
    found = failing('tensorflow.python.framework.errors_impl.InvalidArgumentError: Could not parse port'
                    ' for local server from ""')
    assert "distributed.address-invalid" in found


def test_mig_rows_and_instances_in_nvidia_smi():
    assert failing(corpus("322"))["gpu.mig-enabled"].status.name.lower() == "warn"
    assert "gpu.mig-enabled" in failing(corpus("324"))
    assert not failing(corpus("306"))  # MIG M. Disabled


def test_mig_said_in_words_where_no_listing_shows_it():
    for split, name in (("holdout3", "K062"), ("holdout3", "K063"), ("holdout7", "N052")):
        found = failing(holdout(split, name))  # "8*[MIG-7g.40gb]", "enable mig", "configuration for MIG"
        assert found["gpu.mig-enabled"].status == Status.WARN, name
        assert found["gpu.mig-enabled"].evidence[0].startswith("line "), name
    for prose in ("Should i enable MIG mode manually?", "MIG is disabled on this A100", "MIG Mode",
                  "    MIG Devices                           : None", "we migrated to TF 2.15",
                  "I might enable it later", "without MIG the A100 is one GPU"):
        assert "gpu.mig-enabled" not in failing(prose), prose


def test_cuda_visible_devices_exported_empty():
    assert env("export CUDA_VISIBLE_DEVICES=")["CUDA_VISIBLE_DEVICES"] == ""
    assert env('os.environ["CUDA_VISIBLE_DEVICES"] = ""')["CUDA_VISIBLE_DEVICES"] == ""
    assert "CUDA_VISIBLE_DEVICES" not in env("CUDA_VISIBLE_DEVICES is documented here: ")
    assert not failing(corpus("304"))  # set empty on purpose, no GPU failure follows
    cuinit = line_of("011", "cuInit")
    found = failing("export CUDA_VISIBLE_DEVICES=\n" + cuinit)
    assert found["cuda.init-failed"].caused_by == "gpu.hidden-by-cuda-visible-devices"


# --- Python packages and Keras ---------------------------------------------------------------------


def test_keras3_api_error_at_the_end_of_a_keras_src_traceback():
    assert "keras.keras3-api-change" in failing(corpus("307"))
    assert "keras.keras3-api-change" in failing(corpus("309"))


def test_a_keras_src_traceback_ending_in_a_model_error_is_not_keras3():
    frame = line_of("307", "keras/src/models/sequential.py")
    text = frame + ('\nValueError: Input 0 of layer "dense" is incompatible with the layer:'
                    " expected shape=(None, 4)")
    assert "keras.keras3-api-change" not in failing(text)


def test_pip_freeze_and_resolver_lines_name_installed_distributions():
    freeze = "keras==2.15.0\ntensorflow==2.15.0\ntensorflow-cpu==2.15.0\n"
    assert "2 TensorFlow packages" in failing(freeze)["tensorflow.conflicting-installs"].title
    titles = [f.title for f in explain_report(corpus("311"), MATRIX).findings
              if f.id == "tensorflow.conflicting-installs"]
    # (tensorflow and tensorflow-gpu of one release from 2.1 on are the same files: a hazard, not a mix)
    assert any(t.startswith("One TensorFlow release installed under two names") for t in titles), titles
    # tensorflow-intel is what `tensorflow` installs on Windows, at its version: one TensorFlow
    assert not failing("tensorflow==2.15.0\ntensorflow-intel==2.15.0\n")


def test_tensorflow_intel_alone_still_shows_the_version_on_windows():
    text = "tensorflow-intel             2.15.0\nprint(tf.config.list_physical_devices('GPU'))\n[]"
    assert "platform.windows-native" in failing(text)


def test_numpy_aliases_and_protobuf_6_api_removals():
    assert "python.numpy-abi-mismatch" in failing(line_of("317", "was removed in the NumPy 2.0"))
    assert "python.protobuf-mismatch" in failing(line_of("315", "GetPrototype"))
    float128 = "AttributeError: module 'numpy' has no attribute 'float128'"  # a platform's, not numpy 2's
    assert "python.numpy-abi-mismatch" not in failing(float128)


def test_the_allocators_dump_is_an_oom_but_its_not_a_failure_warning_is_not():
    assert "gpu.out-of-memory" in failing(corpus("312"))
    for older in ("L036", "L037"):  # TensorFlow 1.x's forms: "N Chunks of size", "Chunk at 0x..."
        assert set(failing(holdout("holdout4", older))) == {"gpu.out-of-memory"}
    warning = line_of("314", "not a failure")
    assert not failing(warning)
    assert not failing("Chunk at the end of the file of size 3")


def test_a_library_tensorrts_dlerror_names_is_tensorrts_not_tensorflows():
    trt = line_of("009", "libnvinfer.so.6")
    dependency = trt.replace("dlerror: libnvinfer.so.6:", "dlerror: libcudart.so.10.1:")
    created = line_of("034", "Created device")
    assert not failing(dependency + "\n" + created)
    own = trt.replace("libnvinfer.so.6", "libcudart.so.10.1")  # TensorFlow's own dlopen of libcudart
    assert "cuda.libraries-missing" in failing(own)


def test_the_toolkits_stub_libcuda_on_an_images_path_is_the_images():
    found = failing(corpus("327"))
    assert set(found) == {"cuda.container-driver-libraries"}
    assert "stubs" in found["cuda.container-driver-libraries"].fix
    ld_path = line_of("327", "/lib64/stubs:")
    assert "cuda.container-driver-libraries" not in failing(ld_path)  # outside a container: not an image's
    found = failing(corpus("326"))
    assert found["driver.missing"].caused_by == "cuda.container-driver-libraries"


def test_tf_config_in_a_kubernetes_env_list():
    text = ("    - name: TF_CONFIG\n"
            "      value: '{\"cluster\": {\"worker\": [\"w-0:2222\", \"w-1\"]},"
            " \"task\": {\"type\": \"worker\", \"index\": 0}}'\n")
    assert "distributed.address-invalid" in failing(text)
    assert "TF_CONFIG" not in env("    - name: OTHER\n      value: '{\"cluster\": {}}'\n")


def test_nvidia_smi_of_another_version_inside_a_container_is_the_images():
    banner = line_of("035", "NVIDIA-SMI").replace("NVIDIA-SMI 460", "NVIDIA-SMI 470")
    cuinit = line_of("010", "cuInit")  # a driver-side CUDA failure, not a device one
    found = failing("docker run --gpus all -it my/image:latest\n" + banner + "\n" + cuinit)
    assert found["driver.library-mismatch"].caused_by == "cuda.container-driver-libraries"
    assert "cuda.container-driver-libraries" not in failing(banner + "\n" + cuinit)


def test_a_bug_in_the_users_code_under_keras3_is_not_an_api_change():
    frame = line_of("307", "keras/src/models/sequential.py")
    assert "keras.keras3-api-change" not in failing(
        frame + "\nAttributeError: 'NoneType' object has no attribute 'shape'")
    assert "keras.keras3-api-change" in failing(
        frame + "\nAttributeError: 'Adam' object has no attribute 'get_updates'")
    assert "keras.keras3-api-change" not in failing(
        frame + "\nModuleNotFoundError: No module named 'pydot'")
    assert "keras.keras3-api-change" not in failing(
        frame + "\nAttributeError: module 'numpy' has no attribute 'object'")


def test_stubs_after_the_injected_driver_folder_are_harmless():
    ld_path = line_of("327", "/lib64/stubs:")
    order = "/usr/local/nvidia/lib64:" + ld_path.replace("/usr/local/cuda/lib64/stubs:", "") + \
        ":/usr/local/cuda/lib64/stubs"
    assert "cuda.container-driver-libraries" not in failing("docker run --gpus all -it img\n" + order)
    assert "cuda.container-driver-libraries" in failing("docker run --gpus all -it img\n" + ld_path)


# --- what TensorFlow prints on every machine, and NVIDIA's other bindings ---------------------------


def holdout(split: str, name: str) -> str:
    return next((CORPUS / split).glob(name + "-*.txt")).read_text(encoding="utf-8")


def test_the_go_binding_failing_to_open_nvml_is_a_missing_driver():
    # NVIDIA's Go binding (k8s device plugin, container toolkit) words NVML_ERROR_LIBRARY_NOT_FOUND
    found = failing(holdout("holdout3", "K045"))
    assert set(found) == {"driver.missing"}
    unplaced = failing("Failed to initialize NVML: could not load the report library")
    assert set(unplaced) == {"log.unrecognized"}


def test_cudart_missing_on_a_machine_with_no_gpu_that_fails_otherwise_is_tensorflows_own_notice():
    ci = holdout("holdout4", "L005")  # a GPU-less CI runner whose import fails on protobuf
    assert set(failing(ci)) == {"python.protobuf-mismatch"}
    stub = "\n".join(ln for ln in ci.splitlines() if "cudart" in ln)
    assert "cuda.libraries-missing" in failing(stub)  # alone, the paste is about them
    smi = line_of("035", "Driver Version")  # the same with a GPU shown: they matter
    assert "cuda.libraries-missing" in failing(ci + "\n" + smi)
    xid = line_of("256", "Xid")  # a GPU error the kernel logged shows a GPU too
    assert "cuda.libraries-missing" in failing(ci + "\n" + xid)


def test_an_api_error_raised_inside_protobuf_is_a_protobuf_mismatch():
    text = holdout("holdout4", "L003")
    assert "python.protobuf-mismatch" in failing(text)
    frame = next(ln for ln in text.splitlines() if "google/protobuf/descriptor.py" in ln)
    assert "python.protobuf-mismatch" not in failing(frame + "\nValueError: bad value for field 'x'")
    assert "python.protobuf-mismatch" not in failing(
        frame + "\n" + "\n".join(f"step {i}" for i in range(100)) + "\nAttributeError: 'NoneType' object")


def test_sigill_in_zshs_words_is_the_missing_avx():
    text = holdout("holdout4", "L056")  # an x86 Python under Rosetta 2, which emulates no AVX
    assert "cpu.avx-missing" in failing(text)
    assert "tensorflow.cpu-only-build" not in failing(text)  # the Mac is not what the output is about
    assert "cpu.avx-missing" not in failing("zsh: illegal option -- x")


def test_a_plugin_that_does_not_load_fails_tensorflows_import():
    found = failing(holdout("holdout4", "L058"))  # tensorflow-metal built for a newer macOS
    assert set(found) == {"tensorflow.import-failed"}
    assert "tensorflow-plugins" in found["tensorflow.import-failed"].detail
    assert "tensorflow.import-failed" not in failing("ls site-packages/tensorflow-plugins/")


def test_libcuda_opened_then_not_found_by_tensorflows_diagnostics_is_not_a_missing_driver():
    text = holdout("holdout3", "K029")  # docker --gpus all: libcuda.so.1 opened, cuInit UNKNOWN ERROR
    found = failing(text)
    assert set(found) == {"cuda.init-failed"} and not found["cuda.init-failed"].caused_by
    diagnostics = next(ln for ln in text.splitlines() if "unable to find libcuda.so DSO" in ln)
    assert "driver.missing" in failing(diagnostics)  # alone, it still says the driver is not there


def test_the_toolkit_naming_a_brand_exception_is_still_a_driver_too_old_for_the_images_cuda():
    # NVIDIA_REQUIRE_CUDA="cuda>=10.0 brand=tesla,driver>=384,driver<385": the last condition tried is named
    one_line = failing(holdout("holdout5", "H052"))
    assert {i for i, f in one_line.items() if not f.caused_by} == {"driver.too-old"}
    assert "CUDA 10.0" in one_line["driver.too-old"].detail
    wrapped = failing(holdout("holdout5", "H051"))  # the command wrapped over lines
    assert {i for i, f in wrapped.items() if not f.caused_by} == {"driver.too-old"}
    assert "driver.too-old" not in failing("requirement error: the condition was met")


def test_a_librarys_message_quoted_in_a_sentence_ends_at_its_quote():
    prose = "Sometimes it fails with: `Failed to initialize NVML: Unknown Error`. To trigger it, reload"
    assert "nvml.no-permission" in failing(prose)  # a container that lost its device cgroup
    assert "nvml.no-permission" not in failing("Failed to initialize NVML: Unknown Errors were logged")


def test_a_pasted_cpuinfo_without_avx_is_the_missing_avx():
    system = ROOT / "tests" / "data" / "system"
    found = failing((system / "cpuinfo-core2duo-e7500-no-avx.txt").read_text(encoding="utf-8"))
    assert set(found) == {"cpu.avx-missing"} and "This CPU has no AVX" in found["cpu.avx-missing"].title
    assert not failing((system / "cpuinfo-amd-epyc-local.txt").read_text(encoding="utf-8"))
    assert not failing("flags: none were set")


def test_a_gpu_ignored_for_its_capability_in_a_line_wrapped_mid_word():
    found = failing(holdout("holdout5", "H044"))  # "... with Cuda c" / "ompute capability 3.0. The ..."
    assert set(found) == {"gpu.compute-capability-unsupported"}
    assert "3.0" in found["gpu.compute-capability-unsupported"].title


def test_pips_resolver_explaining_a_conflict_over_tensorflows_keras_pin():
    found = failing(holdout("holdout5", "H067"))  # "tensorflow 2.11.1 depends on keras<2.12 and >=2.11.0"
    assert set(found) == {"tensorflow.conflicting-installs"}
    assert "tensorflow==2.11.1" in " ".join(found["tensorflow.conflicting-installs"].plan.commands())
    assert not failing("my-app 1.0 depends on keras, which is fine")


def test_nvml_refusing_inside_a_container_names_the_images_own_library():
    inside = holdout("holdout3", "K007")  # a root shell whose host name is a container id
    found = failing(inside)
    assert {i for i, f in found.items() if not f.caused_by} == {"cuda.container-driver-libraries"}
    assert "610.43" in found["cuda.container-driver-libraries"].title
    on_host = inside.replace("root@5561000296a4", "root@gpu-node-7")
    assert {i for i, f in failing(on_host).items() if not f.caused_by} == {"driver.library-mismatch"}


def test_no_device_under_a_cuda_visible_devices_list_nothing_can_match():
    found = failing(holdout("holdout3", "K010"))  # train.py set it in os.environ; cuInit: NO_DEVICE
    assert "may name a GPU" in found["gpu.hidden-by-cuda-visible-devices"].title
    assert found["cuda.init-failed"].caused_by == "gpu.hidden-by-cuda-visible-devices"
    cuinit = line_of("011", "cuInit")
    assert "gpu.hidden-by-cuda-visible-devices" not in failing(cuinit)  # not set: nothing to blame
    smi = line_of("020", "communicate")  # no driver at all: the list is not why
    assert "gpu.hidden-by-cuda-visible-devices" not in failing(
        f'os.environ["CUDA_VISIBLE_DEVICES"] = "1"\n{cuinit}\n{smi}')


def test_a_driver_that_takes_on_no_gpu_is_not_a_missing_one():
    """nvidia-smi's "No devices were found" and the kernel's RmInitAdapter lines: the driver is loaded and
    could not take the GPU on; the fix reads the kernel log, and a GPU listed later is not judged so."""
    smi = (ROOT / "tests/data/nvidia-smi/fail-no-devices.txt").read_text()
    kernel = (ROOT / "tests/data/system/syslog-rminitadapter-rtx5090.txt").read_text()
    for text in ("$ nvidia-smi\n" + smi, kernel, "# nvidia-smi\n" + smi + "\n" + kernel):
        found = failing(text)["driver.missing"]
        assert "is loaded but drives no GPU" in found.title and "dmesg" in found.fix, text
    working = (ROOT / "tests/data/nvidia-smi/banner-570.133.20-l4.txt").read_text()
    assert "driver.missing" not in failing(kernel + "\n" + working)
    assert "driver.missing" not in failing("No devices were found in the dataset folder\n")


# --- learned from holdout6 (sources in its cases.toml) ----------------------------------------------


def held_line(split: str, name: str, needle: str) -> str:
    return next(ln for ln in holdout(split, name).splitlines() if needle in ln)


def six(name: str, needle: str) -> str:
    return held_line("holdout6", name, needle)


def test_the_allocators_failing_warning_cut_before_its_dump_is_an_oom():
    cut = six("M002", "ran out of memory trying to allocate")
    assert set(failing(cut)) == {"gpu.out-of-memory"}
    launch = six("M002", "cuDNN launch failure")  # what failed because of it
    assert failing(cut + "\n" + launch)["cudnn.init-failed"].caused_by == "gpu.out-of-memory"
    benign = ("W tensorflow/core/common_runtime/bfc_allocator.cc:267] Allocator (GPU_0_bfc) ran out of memory"
              " trying to allocate 2.20GiB with freed_by_count=0. The caller indicates that this is not a"
              " failure, but may mean that there could be performance gains if more memory were available.")
    assert not failing(benign)


def test_an_error_code_written_against_cjk_text_is_read():
    assert "gpu.out-of-memory" in failing(six("M031", "CUDA_ERROR_OUT_OF_MEMORY"))


def test_cublas_gemv_and_the_convolution_algorithm_refusal():
    assert "cublas.init-failed" in failing(six("M030", "GEMV launch failed"))
    assert "cudnn.init-failed" in failing(six("M042", "convolution algorithms"))


def test_a_forked_worker_asking_for_the_device_count_is_harmless():
    line = six("M017", "could not retrieve CUDA device count")
    assert "cuda.init-failed" not in failing(line)
    failed = "E cuda_driver.cc:318] failed call to cuInit: CUDA_ERROR_NOT_INITIALIZED"  # cuInit itself failed
    assert "cuda.init-failed" in failing(failed)


def test_a_program_refusing_gpus_below_a_minimum_capability():
    found = failing(six("M022", "minimum required compute capability"))
    assert "gpu.compute-capability-unsupported" in found


def test_a_person_reading_no_avx_in_cpuinfo():
    assert "cpu.avx-missing" in failing(six("M039", "does not support AVX"))
    assert "cpu.avx-missing" not in failing("My CPU does not support AVX2, so I built TensorFlow without it.")
    assert "cpu.avx-missing" not in failing("My CPU does not support AVX-512 instructions.")


def test_the_container_toolkits_requirement_wrapped_by_the_terminal():
    text = holdout("holdout6", "M033")
    assert "unsatisfied condi\n" in text  # the paste broke the word across lines
    assert "driver.too-old" in failing(text)


def test_several_mig_instances_in_cuda_visible_devices_are_one_for_a_process():
    found = failing(holdout("holdout6", "M024"))  # `echo $CUDA_VISIBLE_DEVICES` and its value below
    assert "only the first" in found["gpu.mig-enabled"].title
    one = failing("CUDA_VISIBLE_DEVICES=MIG-ff9ad03d-6c8b-5f72-b0dc-70b79aef1bd9")["gpu.mig-enabled"]
    assert one.status == Status.WARN and "slice only" in one.title  # MIG is on, as check says on the machine
    assert "gpu.mig-enabled" not in failing("CUDA_VISIBLE_DEVICES=GPU-ff9ad03d-6c8b-5f72-b0dc-70b79aef1bd9")


def test_keras3_building_a_sequential_only_when_called():
    assert "keras.keras3-api-change" in failing(six("M147", "has never been called"))
    assert "keras.keras3-api-change" not in failing("ValueError: The model has never been trained on it")


def test_tensorflows_own_import_checks_and_a_mixed_protobuf_extension():
    assert "tensorflow.import-failed" in failing(six("M154", "msvcp140_1.dll"))
    assert "python.protobuf-mismatch" in failing(six("M153", "undefined symbol"))
    assert "tensorflow.conflicting-installs" in failing(six("M107", "Keras requires TensorFlow"))


def test_tensorflows_bfloat16_numpy_type_refused_is_numpy_of_another_abi():
    text = holdout("holdout6", "M136")
    assert "python.numpy-abi-mismatch" in failing(text)
    alone = six("M136", "Unable to convert function return value")  # without the frame: not numpy's
    assert "python.numpy-abi-mismatch" not in failing(alone)


def test_a_lowercase_users_folder_is_not_macos():
    report = explain_report("/hpcfs/users/id/labels.slp\nTensorFlow: 2.8.4", MATRIX)
    assert report.environment.get("platform") != "macos"
    assert explain_report("/Users/anna/miniforge3/bin/python\nTensorFlow: 2.8.4",
                          MATRIX).environment.get("platform") == "macos"


# --- learned from holdout7 (its blind score is in its cases.toml) --------------------------------------

def seven(name: str, needle: str) -> str:
    return held_line("holdout7", name, needle)


def test_nvidia_ml_py_raises_each_nvml_code_as_its_own_class():
    found = failing(seven("N001", "NVMLError_NoPermission"))
    assert "nvml.no-permission" in found and found["nvml.no-permission"].caused_by is None
    assert "driver.library-mismatch" in failing("pynvml.NVMLError_LibRmVersionMismatch: RM has detected an"
                                                " NVML/RM version mismatch.")
    assert not failing("class NVMLError_Nothing(Exception): pass")  # not a name NVML defines


def test_a_gpu_falling_off_the_bus_in_a_persons_words():
    assert "gpu.lost" in failing(seven("N003", "falls off the bus"))
    assert "gpu.lost" not in failing("the bus falls off the road")


def test_keras2_wanted_where_keras3_runs():
    assert "keras.keras3-api-change" in failing(seven("N107", "No module named 'tf_keras'"))
    assert "keras.keras3-api-change" in failing(seven("N108", "must end in"))
    assert "keras.keras3-api-change" not in failing("ModuleNotFoundError: No module named 'tf_keras_cv'")


def test_cublas_unable_to_allocate_its_handle_is_cublas_failing_to_start():
    found = failing(seven("N038", "CUBLAS_STATUS_ALLOC_FAILED"))
    assert set(found) == {"cublas.init-failed"} and "ALLOC_FAILED" in found["cublas.init-failed"].title
    oom = "ResourceExhaustedError: OOM when allocating tensor with shape[64,3,224,224]"
    both = failing(oom + "\n" + seven("N038", "CUBLAS_STATUS_ALLOC_FAILED"))
    assert both["cublas.init-failed"].caused_by == "gpu.out-of-memory"  # a real OOM line explains it


def test_an_import_failing_in_protobuf_and_the_loader_refusing_its_extension():
    assert "python.protobuf-mismatch" in failing(holdout("holdout7", "N129"))  # Python 2: no module named
    found = failing(holdout("holdout7", "N110"))  # through protobuf's frames, but libstdc++ is too old
    assert "system.glibc-too-old" in found and "python.protobuf-mismatch" not in found
    assert "system.glibc-too-old" in failing(seven("N111", "GLIBCXX_3.4.21"))
    assert "system.glibc-too-old" not in failing("GLIBCXX_3.4.21 is present in /usr/lib/libstdc++.so.6")


def test_an_add_ons_op_library_built_for_another_tensorflow():
    found = failing(seven("N131", "undefined symbol"))
    assert "tensorflow-text" in found["tensorflow.conflicting-installs"].title
    core = ("ImportError: /usr/lib/python3/site-packages/tensorflow_core/python/"
            "_pywrap_tensorflow_internal.so: undefined symbol: _ZN10tensorflow8OpKernel11TraceString")
    assert "tensorflow.conflicting-installs" not in failing(core)  # TensorFlow's own library: not an add-on


def test_uv_finding_no_tensorflow_wheel_for_the_interpreter():
    found = failing(holdout("holdout7", "N138"))
    assert set(found) == {"tensorflow.python-unsupported"}


def test_a_diverging_model_is_the_programs_numbers_not_the_installation():
    report = explain_report(holdout("holdout7", "N028"), MATRIX)
    bad = {f.id: f for f in report.findings if str(f.status) in ("fail", "warn")}
    assert set(bad) == {"log.program-error"} and "NaN" in bad["log.program-error"].title


def test_a_traceback_cut_where_protobufs_generated_code_builds_a_descriptor():
    assert set(failing(holdout("holdout6", "M101"))) == {"python.protobuf-mismatch"}  # a notebook's arrow
    frame = ('  File "/venv/lib/python3.10/site-packages/tensorflow/core/framework/tensor_shape_pb2.py",'
             ' line 36, in <module>\n    _descriptor.FieldDescriptor(\n')
    cut = "Traceback (most recent call last):\n" + frame
    assert set(failing(cut)) == {"python.protobuf-mismatch"}
    ended = cut + "ValueError: the program's own mistake\n"  # the exception is pasted: it is judged instead
    assert "python.protobuf-mismatch" not in failing(ended)
    listing = "    _descriptor.FieldDescriptor(\n      name='size', index=0,\n"  # code shown, not a failure
    assert not failing(listing)


# --- the GPU a person names in an issue template's field ------------------------------------------------


def test_the_gpu_a_person_names_in_a_field_is_the_reports_gpu():
    def gpus(text: str) -> list:
        return explain_report(text, MATRIX).environment.get("gpus") or []

    typed = held_line("holdout7", "N008", "GPU model and memory")  # "nVidia GeForce GT 710, 1GB of memory"
    assert [g["name"] for g in gpus(typed)] == ["nVidia GeForce GT 710"]
    assert gpus("- **GPU model and memory**: 2 RTX 2080 Super")[0]["name"] == "RTX 2080 Super"
    field = gpus("- GPU: NVIDIA GeForce RTX 5080 (Compute Capability 12.0)")[0]
    assert (field["name"], field["compute_capability"]) == ("NVIDIA GeForce RTX 5080", "12.0")
    assert gpus("GPU: NVIDIA A100 80GB PCIe")[0]["name"] == "NVIDIA A100 80GB PCIe"  # part of its name
    for not_a_gpu in ("- **GPU model and memory**: CPU install only with 4GB memory", "GPU: 0", "GPU: N/A",
                      "GPU model and memory: 24", "GPU: Apple M1"):
        assert not gpus(not_a_gpu), not_a_gpu
    # TensorFlow's own device line says which GPU ran, whatever the person typed
    created = ("Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 7000 MB memory)"
               " -> physical GPU (device: 0, name: NVIDIA GeForce RTX 3070, pci bus id: 0000:01:00.0,"
               " compute capability: 8.6)")
    assert [g["name"] for g in gpus("GPU: GTX 1080\n" + created)] == ["NVIDIA GeForce RTX 3070"]


def test_the_gpu_a_person_names_is_judged_by_its_capability():
    typed = "- TensorFlow version: {}\n- GPU model and memory: GeForce GTX 750 Ti, 2GB\n"
    found = failing(typed.format("2.17.0"))  # built for sm_60 and up: nothing runs on a 5.0
    assert "5.0" in found["gpu.compute-capability-unsupported"].title
    assert not failing(typed.format("2.15.0"))  # built for sm_50


# --- learned from holdout8 (its blind score is in its cases.toml) --------------------------------------

def eight(name: str, needle: str) -> str:
    return held_line("holdout8", name, needle)


def test_an_add_ons_op_library_refused_by_tensorflows_loader():
    for name in ("P103", "P104"):  # wrapped mid-word; cut after the add-on's path
        found = failing(holdout("holdout8", name))
        assert "tensorflow-text" in found["tensorflow.conflicting-installs"].title, name
    frames = ('  File "/venv/lib/python3.9/site-packages/{pkg}/ops.py", line 28, in <module>\n'
              '    lib = load_library.load_op_library(path)\n'
              '  File "/venv/lib/python3.9/site-packages/tensorflow/python/framework/load_library.py",'
              ' line 54, in load_op_library\n    lib_handle = py_tf.TF_LoadLibrary(library_filename)\n')
    refused = "tensorflow.python.framework.errors_impl.NotFoundError: {what}\n"
    addon = frames.format(pkg="tensorflow_addons") + refused.format(what="/v/_ops.so: undefined symbol: _Z")
    assert "tensorflow-addons" in failing(addon)["tensorflow.conflicting-installs"].title
    cuda = frames.format(pkg="tensorflow_addons") + refused.format(
        what="libcudart.so.11.0: cannot open shared object file: No such file or directory")
    assert "tensorflow.conflicting-installs" not in failing(cuda)  # a CUDA library is what is missing
    own = frames.format(pkg="myproject") + refused.format(what="/work/_my_op.so: undefined symbol: _ZN3tsl")
    assert "tensorflow.conflicting-installs" not in failing(own)  # a program's own op: built for whichever


def test_the_keras_packages_own_code_asking_tensorflow_for_what_it_lacks():
    found = failing(holdout("holdout8", "P106"))  # the exception in the title, the traceback after it
    assert "Keras" in found["tensorflow.conflicting-installs"].title
    frame = '  File "/usr/lib/python3/dist-packages/keras/backend.py", line 32, in <module>\n'
    missing_tf = frame + "ModuleNotFoundError: No module named 'tensorflow'\n"
    assert "tensorflow.conflicting-installs" not in failing(missing_tf)  # no TensorFlow at all
    assert "tensorflow.conflicting-installs" not in failing(
        "ModuleNotFoundError: No module named 'tensorflow.python.trackable'\n")  # no keras frame: unplaced


def test_a_gpu_that_needs_a_reset_is_lost():
    assert set(failing(eight("P016", "GPU Reset Required"))) == {"gpu.lost"}
    assert not failing("NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x1 (GPU Reset"
                       " Required) to 0x0 (None)")


def test_library_versions_in_a_persons_words():
    assert set(failing(eight("P148", "GLIBC"))) == {"system.glibc-too-old"}
    assert set(failing(eight("P144", "0x10"))) == {"python.numpy-abi-mismatch"}
    assert not failing("GLIBC 2.17 found in /lib64, all fine")


def test_nvmls_message_ending_a_line_that_names_it():
    assert "nvml.no-permission" in failing(eight("P005", "Insufficient Permissions"))
    assert not failing("python.d ERROR: sudo failed: Insufficient Permissions")  # whose? not NVML's


def test_full_width_punctuation_is_read_as_ascii():
    report = explain_report(held_line("holdout4", "L061", "Graphics card"), MATRIX)
    assert [g["name"] for g in report.environment["gpus"]] == ["RTX 3080 Ti"]


def test_no_release_of_tensorflow_gpu_for_the_interpreter_keeps_the_version_asked():
    found = failing(holdout("holdout8", "P141"))
    assert {fid for fid, f in found.items() if not f.caused_by} == {"tensorflow.python-unsupported"}
    assert "python3.9 -m venv" in found["tensorflow.python-unsupported"].fix
    assert "tensorflow-gpu==2.5.1" in found["tensorflow.python-unsupported"].fix
    offered = ("ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.12.0 (from"
               " versions: 2.8.0, 2.9.0, 2.10.0, 2.10.1, 2.12.0)")
    assert "tensorflow.missing" in failing(offered)  # the name is discontinued: it finds its empty release


def test_tensorflow_on_macos_is_judged_only_when_the_output_is_about_a_gpu():
    assert not failing(holdout("holdout8", "P155"))  # a template's "GPU model and memory: -" is not
    gpu = "- OS: macOS 14.2.1\n- TensorFlow version: 2.16.1\nNum GPUs Available:  0\n"
    assert "tensorflow.cpu-only-build" in failing(gpu)


def test_a_container_started_without_the_gpu_has_no_driver():
    found = failing(holdout("holdout8", "P022"))  # docker run --device /dev/nvidia0 ... : no libraries
    assert set(found) == {"driver.missing"} and "--gpus all" in found["driver.missing"].fix
    error = ("cudaGetDeviceCount returned 35\n"
             "-> CUDA driver version is insufficient for CUDA runtime version\n")
    with_gpus = "docker run --gpus all -it nvidia/cuda:12.4.0-base bash\n" + error
    assert "driver.missing" not in failing(with_gpus) and "driver.too-old" in failing(with_gpus)


def test_code_for_keras3_under_an_older_keras():
    found = failing(holdout("holdout8", "P154"))  # "from keras.src.legacy..." then its module missing
    assert set(found) == {"tensorflow.conflicting-installs"} and "older Keras" in found[
        "tensorflow.conflicting-installs"].title
    keras3 = ("    from keras.src.engine import data_adapter\n"
              "AttributeError: module 'keras.src.engine' has no attribute 'x'")
    assert "keras.keras3-api-change" in failing(keras3)


def test_a_keras_of_another_minor_than_tensorflows_pin():
    listing = "tensorflow==2.12.0\nkeras=={}\n"
    found = failing(listing.format("2.15.0"))
    assert "keras==2.12.*" in found["tensorflow.conflicting-installs"].fix
    assert not failing(listing.format("2.12.0"))
    assert "tensorflow.conflicting-installs" not in failing("tensorflow==2.5.0\nkeras==2.4.3\n")  # not pinned


def test_the_image_cuda_nvidia_docker_refused_and_an_old_gpus_last_branch():
    found = failing(eight("P021", "unsupported CUDA version"))["driver.too-old"]
    assert "367.48" in found.fix and "last driver branch" not in found.fix  # Kepler's R470 runs CUDA 8.0
    k80 = ("| NVIDIA-SMI 450.80.02    Driver Version: 450.80.02    CUDA Version: 11.0     |\n"
           "|   0  Tesla K80           Off  | 00000000:00:1E.0 Off |                    0 |\n"
           "TensorFlow version: 2.15.0\n")
    fix = failing(k80)["driver.too-old"].fix
    assert "last driver branch is R470," in fix  # CUDA 12 needs a branch Kepler never gets


# --- older TensorFlow (1.x, 2.0-2.3): its CUDA from the tested configurations or the runtime it opened ----


def test_an_older_tensorflows_cuda_predating_the_gpu():
    found = failing(holdout("holdout4", "L061"))  # TF 1.13.1 (CUDA 10.0), RTX 3080 Ti, cuBLAS failed
    assert found["gpu.compute-capability-unsupported"].caused_by is None
    assert found["cublas.init-failed"].caused_by == "gpu.compute-capability-unsupported"
    assert "tf1-py3" in found["gpu.compute-capability-unsupported"].fix  # TensorFlow 1.x code's way
    jit = failing(holdout("holdout6", "M054"))  # TF 2.2 (CUDA 10.1), RTX 3070, nothing failed: slow start
    assert set(jit) == {"gpu.compute-capability-ptx-jit"}
    custom = failing(holdout("holdout6", "M048"))  # TF 1.15 built with CUDA 11.1 (cudart64_111.dll opened)
    assert not custom


def test_an_older_tensorflows_driver_too_old_for_its_cuda():
    found = failing(holdout("holdout6", "M019"))  # TF 1.10 (CUDA 9.0) with driver 352.39
    assert "384.81" in found["driver.too-old"].title + found["driver.too-old"].detail


def test_the_gpu_named_in_a_sentence_and_the_cuda_libraries_opened():
    found = failing(holdout("holdout8", "P012"))  # "(Win 10, RTX 3060Ti, ...)"; cublas64_100.dll opened
    assert found["gpu.compute-capability-unsupported"].caused_by is None
    assert "CUDA 10.0" in found["gpu.compute-capability-unsupported"].title
    assert failing(holdout("holdout7", "N002"))["cublas.init-failed"].caused_by  # "显卡是A100"
    newer = failing(held_line("holdout3", "K060", "libcudart.so.12") + "\ntensorflow 1.15.5\nRTX 3060\n")
    assert "gpu.compute-capability-ptx-jit" not in newer  # NVIDIA's TF 1.15 build with CUDA 12
    for prose in ("see http://host/p100/data", "step B12 done", "RTX is on", "an RTX 5000 series GPU"):
        assert not explain_report(prose, MATRIX).environment.get("gpus"), prose


# --- holdout9: what its blind score showed missing -----------------------------------------------------


def nine(name: str) -> str:
    return holdout("holdout9", name)


def facts_of(text: str) -> dict:
    return logs.read_text(text)


def test_a_driver_older_than_xlas_ptx_compiler_is_minor_version_compatibility():
    for name in ("Q014", "Q016"):  # AlphaFold 3 (PTX compiler 12.6.77); a wrap cutting the driver's "11.\n0"
        found = failing(nine(name))
        assert found["driver.minor-version-compat"].status == Status.WARN, name
        assert "driver.too-old" not in found, name
    failed = failing(nine("Q014") + "\nfailed call to cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH\n")
    assert failed["driver.too-old"].status == Status.FAIL  # a refusal is more than a warning


def test_xlas_own_check_of_the_cudnn_it_loaded():
    found = failing(nine("Q003"))  # one line: "Found cuDNN version 8600, but JAX was built against 8906"
    title = found["cudnn.version-mismatch"].title
    assert "8.6.0" in title and "8.9.6" in title
    for name in ("Q004", "Q005"):  # the heading, its versions on lines of their own (pytest's "E   " too)
        title = failing(nine(name))["cudnn.version-mismatch"].title
        assert "8.9.7" in title and "9.1.0" in title, name
    bare = failing("Outdated cuDNN installation found.\n")["cudnn.version-mismatch"].title
    assert "older one" in bare
    later = "Outdated cuDNN installation found.\n" + "step\n" * 12 + "Installed version: 8907\n"
    assert "8.9.7" not in failing(later)["cudnn.version-mismatch"].title  # too far below to be its value


def test_an_exclusive_gpu_that_cuda_found_busy():
    for name in ("Q037", "Q038"):  # E. Process / E. Thread in the banner, "busy or unavailable"
        found = failing(nine(name))
        assert found["gpu.compute-mode-exclusive"].status == Status.FAIL, name
        assert found["cuda.init-failed"].caused_by == "gpu.compute-mode-exclusive", name
    assert failing(nine("Q039"))["gpu.compute-mode-exclusive"].status == Status.WARN  # E. Thread alone
    idle = nine("Q037").replace("E. Process", "   Default").replace("busy or unavailable", "x")
    assert "gpu.compute-mode-exclusive" not in failing(idle)
    moot = failing(corpus("235"))  # a GPU TensorFlow ignores (compute capability 3.0): its mode is moot
    assert moot["gpu.compute-mode-exclusive"].caused_by == "gpu.compute-capability-unsupported"


def test_nvidia_smis_err_sensor_row_is_a_lost_gpu():
    found = failing(nine("Q054"))
    assert "GPU 0" in found["gpu.lost"].title or "A10G" in found["gpu.lost"].title
    assert not failing(nine("Q054").replace("ERR!", " 0% "))  # one good row: nothing lost


def test_wsl2s_libcuda_not_on_the_loaders_path():
    found = failing(nine("Q024"))
    assert found["platform.wsl2-libcuda"].status == Status.FAIL
    assert found["driver.missing"].caused_by == "platform.wsl2-libcuda"
    linux = nine("Q024").replace("WSL", "Linux box").replace("Windows Subsystem for Linux", "server")
    assert "platform.wsl2-libcuda" not in failing(linux)


def test_a_published_tensorflow_gpu_release_not_offered_for_this_python():
    for name, python, spec in (("Q111", "3.6", "tensorflow-gpu==1.10.1"),
                               ("Q112", "3.6", "tensorflow-gpu<=1.12.0"),
                               ("Q113", "3.7", "tensorflow-gpu<=1.14.0,>=1.10.0")):
        finding = failing(nine(name))["tensorflow.python-unsupported"]
        assert f"python{python} -m venv" in finding.fix and spec in finding.fix, name  # the version asked
    newer = failing("ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.12.0"
                    " (from versions: 2.10.0, 2.10.1, 2.12.0)\n")
    assert "tensorflow.python-unsupported" not in newer  # tensorflow-gpu 2.12 is empty: its name is wrong


def test_a_wheel_built_for_another_python():
    found = failing(nine("Q153"))  # compiletime version 3.4 ... does not match runtime version 3.5
    assert found["tensorflow.python-unsupported"].status == Status.WARN
    assert "3.4" in found["tensorflow.python-unsupported"].title
    assert not failing("RuntimeWarning: compiletime version 3.4 of module 'numpy.core' does not match runtime"
                       " version 3.5\n").get("tensorflow.python-unsupported")


def test_a_cpu_without_avx_named_beside_a_native_import_failure():
    for name in ("Q146", "Q147"):  # Xeon X5650, Xeon x5450: "DLL load failed", no "Illegal instruction"
        assert "Xeon" in failing(nine(name))["cpu.avx-missing"].title, name
    new = nine("Q146").replace("Xeon X5650", "Xeon E5-2680 v4")
    assert "cpu.avx-missing" not in failing(new)  # a CPU with AVX: the import failed for another reason
    assert "cpu.avx-missing" not in failing("CPU: Intel Xeon X5650\nTraining works fine.\n")


def test_cpu_models_without_avx():
    from tfdoctor.checks.cpu import lacks_avx

    for model in ("Intel Xeon X5650", "Intel(R) Core(TM)2 Quad CPU Q6600", "Intel(R) Core(TM) i7-920",
                  "Intel(R) Celeron(R) CPU N3050", "AMD Phenom(tm) II X4 965", "Opteron(tm) Processor 6174",
                  "Xeon E7-4870"):
        assert lacks_avx(model), model
    for model in ("i5-3470", "Intel(R) Xeon(R) CPU E5-2680 v4", "Opteron(tm) Processor 6274",
                  "Intel Pentium Gold 7505", "Celeron G6900", "Xeon E7-4870 v2", "i7-10700K", None, ""):
        assert not lacks_avx(model), model
    for line, model in (("CPU Intel Xeon X5650 @ 2.67GHz", "Intel Xeon X5650"), ("the atomic add", None),
                        ("core 2 of 8 busy", None)):
        assert facts_of(line).get("system", {}).get("cpu_model") == model, line


def test_the_standalone_keras_backend_calling_what_tensorflow_2_dropped():
    for name in ("Q149", "Q150"):  # keras/backend/tensorflow_backend.py -> tf.get_default_graph
        assert "tensorflow.conflicting-installs" in failing(nine(name)), name
    own = ('  File "/home/u/train.py", line 3, in <module>\n    g = tf.get_default_graph()\n'
           "AttributeError: module 'tensorflow' has no attribute 'get_default_graph'\n")
    assert "tensorflow.conflicting-installs" not in failing(own)  # a program's own TF1 call


def test_the_wheels_pip_fetches_are_the_distributions_it_installs():
    dists = facts_of(nine("Q114"))["tensorflow"]["distributions"]  # tensorflow-gpu 1.3 pulls tensorflow 1.3
    assert dists.get("tensorflow") == "1.3.0" and dists.get("tensorflow-gpu") == "1.3.0"
    assert "tensorflow.conflicting-installs" in failing(nine("Q114"))
    backtrack = "".join(f"  Downloading tensorflow-2.{m}.0-cp39-cp39-manylinux2014_x86_64.whl (500 MB)\n"
                        for m in (15, 14, 13))
    assert facts_of(backtrack)["tensorflow"]["distributions"] == {"tensorflow": "2.15.0"}  # the first only


def test_an_import_line_then_its_error_in_a_persons_words():
    assert "tensorflow.missing" in failing(nine("Q117"))  # the import, then "Error: ModuleNotFoundError"
    assert "tensorflow.missing" in failing("'No module names Tensorflow' Windows\n")  # a title's typo
    far = "import tensorflow\n" + "x = 1\n" * 4 + "Error: ModuleNotFoundError\n"
    assert "tensorflow.missing" not in failing(far)


def test_a_person_saying_the_run_failed_for_lack_of_memory():
    assert "gpu.out-of-memory" in failing(nine("Q040"))  # "fails with an out of memory issue"
    for text in ("Encountering OOM issues during inference", "the job ran out of GPU memory at epoch 3",
                 'running the code i get an "Out of memory" message.', "CUDA out of memory problem",
                 "파라미터 값을 키울 경우 다음과 같이 cuda out of memory가 뜨는 것을 확인했습니다"):
        assert "gpu.out-of-memory" in failing(text), text
    for text in ("I got out of memory error, so I changed batch_size to 8 and it works",
                 "How can I avoid running out of memory?", "zoom in on the plot"):
        assert "gpu.out-of-memory" not in failing(text), text


def test_the_library_named_after_dlerror():
    assert "cudnn.missing" in failing(nine("Q047"))  # "dlerror: libcudnn.so.7 cudaNN is missing"
    assert not failing("dlerror: none\n")


def test_grpc_could_not_bind_a_tasks_port():
    found = failing(nine("Q118"))  # two tasks of the cluster on one host with port 2223
    assert "2223" in found["distributed.address-duplicate"].title
    assert "distributed.address-duplicate" not in failing("bind: Address already in use (a web server)\n")


def test_two_protobuf_runtimes_registering_one_descriptor():
    assert "python.protobuf-mismatch" in failing(nine("Q140"))


def test_condas_build_string_says_which_tensorflow_it_is():
    found = failing(nine("Q125"))  # tensorflow-base eigen_py38: CPU only; tensorflow-gpu a metapackage
    assert {i for i, f in found.items() if not f.caused_by} == {"tensorflow.cpu-only-build"}
    assert found["runtime.no-gpu-visible"].caused_by == "tensorflow.cpu-only-build"  # with GPUs named
    two = failing(holdout("holdout", "H014"))  # conda-forge's tensorflow and defaults' tensorflow-gpu
    assert "tensorflow.conflicting-installs" in two
    gpu = "tensorflow-base            2.3.0           gpu_py38h7c0fa0d_0\n"
    assert facts_of(gpu)["tensorflow"]["build_info"]["is_cuda_build"] is True


def test_a_cut_nvidia_smi_xml_is_read_as_far_as_it_goes():
    env = explain_report(nine("Q052"), MATRIX).environment
    assert env["driver_version"] == "580.95.05" and env["cuda_driver_version"] == "13.0"
    assert not facts_of("<nvidia_smi_log><driver_version>1</driver<x>\n").get("nvidia_smi")  # malformed


def test_a_tools_report_aligning_its_values():
    env = facts_of(nine("Q009"))  # faceswap's "gpu_driver:          399.24"
    assert env["nvidia_smi"]["driver_version"] == "399.24"
    assert env["tensorflow"]["python_version"] == "3.6.9"
    assert env["system"]["os"] == "Windows-10-10.0.18362-SP0"


def test_more_of_the_ways_a_version_or_a_platform_is_written():
    gpus = explain_report(nine("Q035"), MATRIX).environment["gpus"]  # "Ignoring ... (name: X compute ...)"
    assert gpus[0]["name"] == "GeForce GTX 780M" and gpus[0]["compute_capability"] == "3.0"
    assert facts_of("Upgrading TensorFlow to version 2.15, an issue")["tensorflow"]["version"] == "2.15"
    assert facts_of(nine("Q128"))["system"]["platform"] == "macos"  # "Abort trap: 6" is the BSD shell's


# --- the stack's own words for failures no split has shown yet (JAX, PyTorch, cuDNN 8, TensorFlow 1.x) ------


@pytest.mark.parametrize("text, finding", [
    ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch"
     " installation.", "gpu.compute-capability-unsupported"),
    ("Unable to load cuSPARSE. Is it installed?", "cuda.libraries-missing"),
    ("Unable to load cuDNN. Is it installed?", "cudnn.missing"),
    ("Could not locate zlibwapi.dll. Please make sure it is in your library path!", "cudnn.missing"),
    ("ImportError: Could not find 'cudnn64_7.dll'. TensorFlow requires that this DLL be installed in a"
     " directory that is named in your %PATH% environment variable.", "cudnn.missing"),
    ("Could not load symbol cublasGetSmCountTarget from libcublas.so.11. Error: undefined symbol",
     "cuda.libraries-missing"),
    ("tensorflow.python.framework.errors_impl.NotFoundError: No algorithm worked!", "cudnn.init-failed"),
    ("UnknownError: Fail to find the dnn implementation. [Op:CudnnRNN]", "cudnn.init-failed"),
    ("InternalError: Failed copying input tensor from CPU:0 to GPU:0 in order to run _EagerConst: Dst tensor"
     " is not initialized.", "gpu.out-of-memory"),
    ("The NVIDIA driver on your system is too old (found version 10020).", "driver.too-old"),
    ("UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up"
     " environment", "cuda.init-failed"),
    ("RuntimeError: Physical devices cannot be modified after being initialized", "log.program-error"),
    ("ERROR: No matching distribution found for tensorflow-gpu==2.12.0", "tensorflow.missing"),
    ("F tensorflow/python/lib/core/bfloat16.cc:675] Check failed: PyBfloat16_Type.tp_base != nullptr",
     "python.numpy-abi-mismatch"),
    ("ModuleNotFoundError: No module named 'numpy.core._multiarray_umath'", "python.numpy-abi-mismatch"),
    ("F tensorflow/core/kernels/conv_ops.cc:713] Check failed: stream->parent()->GetConvolveAlgorithms("
     "conv_parameters.ShouldIncludeWinogradNonfusedAlgo<T>(), &algorithms)", "cudnn.init-failed"),
    ("Internal: All algorithms tried for convolution %custom-call.4 failed.", "cudnn.init-failed"),
    ("E tensorflow/stream_executor/cuda/cuda_blas.cc:366] failed to create cublas", "cublas.init-failed"),
    ("F tensorflow/core/common_runtime/gpu/gpu_event_mgr.cc:208] Unexpected Event status: 1",
     "gpu.illegal-address"),
    ("AttributeError: module 'tensorflow.compat.v2' has no attribute '__internal__'",
     "tensorflow.conflicting-installs"),
    ("ModuleNotFoundError: No module named '_pywrap_tensorflow_internal'", "tensorflow.import-failed"),
    ("AttributeError: module 'google._upb._message' has no attribute 'Message'. Did you mean: 'CMessage'?",
     "python.protobuf-mismatch"),
    ("W tensorflow/core/platform/default/subprocess.cc:304] Start cannot spawn child process: No such file or"
     " directory", "xla.toolchain-missing"),
    ("Failed to initialize NVML: GPU access blocked by the operating system", "nvml.no-permission"),
    ("NVIDIA-SMI couldn't find libnvidia-ml.so library in your system.", "driver.missing"),
    ("RuntimeError: No CUDA GPUs are available", "cuda.init-failed"),
    ("An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back"
     " to cpu.", "tensorflow.cpu-only-build"),
])
def test_the_stacks_own_words(text, finding):
    assert finding in failing(text)


def test_near_misses_of_the_stacks_own_words():
    for text in ("is it installed? asked the reviewer", "the PyTorch installation is not compatible with me",
                 "Could not locate the config file", "No algorithm was chosen for the schedule",
                 "No matching distribution found for tensorflow-datasets-extra==9",
                 "Unexpected Event status: 10 reported by the scheduler", "all algorithms tried were fast"):
        assert not failing(text), text


def test_a_person_saying_gpu_memory_stays_held():
    for split, name in (("holdout7", "N042"), ("holdout7", "N043"), ("holdout8", "P015")):
        found = failing(holdout(split, name))  # a zombie; not deallocated after Ctrl-C; "memory cache"
        assert found["gpu.memory-held-by-other-processes"].status == Status.WARN, name
    tab = failing(corpus("249"))  # "I had Jupyter opened ... in another tab": its OOM is explained
    assert tab["gpu.out-of-memory"].caused_by == "gpu.memory-held-by-other-processes"
    for text in ("The memory is released when the session ends.", "Free the memory with clear_session().",
                 "a zombie movie", "I opened the docs in another tab", "memory not shown in the table"):
        assert "gpu.memory-held-by-other-processes" not in failing(text), text


# --- holdout10: what its blind score showed missing ----------------------------------------------------


def ten(name: str) -> str:
    return holdout("holdout10", name)


def test_cuinit_finding_no_device_on_wsl2_is_wsl2s_libcuda():
    for name in ("R025", "R026"):  # numba / genesis on WSL2: CUDA_ERROR_NO_DEVICE
        found = failing(ten(name))
        assert found["platform.wsl2-libcuda"].status == Status.FAIL, name
        assert found["cuda.init-failed"].caused_by == "platform.wsl2-libcuda", name
    linux = failing("failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n")
    assert "platform.wsl2-libcuda" not in linux


def test_a_listing_of_wsls_driver_directory_without_libcuda():
    found = failing(ten("R014"))  # `ls /usr/lib/wsl/lib`: libd3d12.so libd3d12core.so libdirectml.so ...
    assert "platform.wsl2-libcuda" in found
    whole = "WSL2\nlibcuda.so  libcuda.so.1  libd3d12.so  libdxcore.so  libnvidia-ml.so.1\n"
    assert "platform.wsl2-libcuda" not in failing(whole)


def test_podman_without_cdi_takes_the_device_name_for_a_file():
    assert "driver.missing" in failing(ten("R035"))  # Error: stat nvidia.com/gpu=all: no such file


def test_cuda_reporting_an_uncorrectable_ecc_error():
    found = failing(ten("R046"))
    assert found["gpu.ecc-errors"].status == Status.FAIL and "gpu.illegal-address" not in found


def test_no_cuda_context_on_a_gpu_a_snapshot_shows_full():
    found = failing(ten("R052"))  # cuDevicePrimaryCtxRetain failed; nvidia-smi: 6012MiB / 6071MiB
    assert found["gpu.memory-held-by-other-processes"].status == Status.FAIL
    roomy = ten("R052").replace("6012MiB /  6071MiB", "  12MiB /  6071MiB")
    assert "gpu.memory-held-by-other-processes" not in failing(roomy)


def test_the_standalone_keras_of_another_minor_registering_its_metrics_twice():
    for name in ("R118", "R119"):  # AlreadyExistsError: Another metric with the same name already exists
        assert "tensorflow.conflicting-installs" in failing(ten(name)), name


def test_an_add_ons_own_check_of_the_tensorflow_it_runs_with():
    finding = failing(ten("R129"))["tensorflow.conflicting-installs"]  # TensorFlow Probability wants >= 2.9
    assert "tensorflow-probability" in finding.title and "tensorflow-probability" in finding.fix


def test_an_op_library_of_an_installed_package_not_named_tensorflow():
    for name in ("R122", "R123"):  # site-packages/tf_sentencepiece/..._ops.so: undefined symbol
        assert "tf-sentencepiece" in failing(ten(name))["tensorflow.conflicting-installs"].title, name


def test_tf_configs_chief_refused_by_tensorflow():
    assert "distributed.tf-config-invalid" in failing(ten("R114"))


def test_windows_illegal_instruction_as_an_unsigned_number():
    assert "cpu.avx-missing" in failing(ten("R142"))  # dll load failed with errorcode 3221225501
    assert "cpu.avx-missing" not in failing("exit code 32212255010 from the job scheduler")


def test_keras3_refusals_by_the_libraries_on_top_of_it():
    for name in ("R105", "R117"):  # model.weights.h5 expected; transformers refusing Keras 3
        assert "keras.keras3-api-change" in failing(ten(name)), name


def test_a_part_of_the_driver_missing_beside_a_kernel_module_of_another_version():
    found = failing(ten("R027"))  # libnvidia-fatbinaryloader.so.375.51 missing, kernel module 375.26
    assert set(found) == {"driver.library-mismatch"}
    alone = failing("ImportError: libnvidia-fatbinaryloader.so.375.51: cannot open shared object file")
    assert set(alone) == {"driver.missing"}


# --- holdout11: what its blind score showed missing ----------------------------------------------------


def eleven(name: str) -> str:
    return holdout("holdout11", name)


def test_an_installed_packages_library_missing_tensorflows_own_symbols():
    finding = failing(eleven("S103"))["tensorflow.conflicting-installs"]  # tensorflow_addons/...so, no frame
    assert "tensorflow-addons" in finding.title
    title_only = failing("import fails: \"undefined symbol: _ZN10tensorflow12OpDefBuilder4AttrESs\"")
    assert "an add-on" in title_only["tensorflow.conflicting-installs"].title
    own = ("ImportError: /venv/lib/python3.8/site-packages/tensorflow/python/_pywrap_tensorflow_internal.so:"
           " undefined symbol: _ZN10tensorflow8internal")
    assert "tensorflow.conflicting-installs" not in failing(own)  # TensorFlow's own library: its import
    other = "ImportError: /venv/lib/python3.8/site-packages/cv2/cv2.so: undefined symbol: _ZN2cv3Mat"
    assert "tensorflow.conflicting-installs" not in failing(other)


def test_add_ons_refusing_the_tensorflow_they_meet():
    for name in ("S117", "S139", "S155"):  # TFP's check over two lines; tensorflow-io; addons' warning
        assert "tensorflow.conflicting-installs" in failing(eleven(name)), name


def test_pips_conflict_over_protobuf_is_a_protobuf_mismatch():
    found = failing(eleven("S146"))  # tensorflow 2.12.0 requires protobuf>=3.20.3, but you have 3.20.0
    assert "python.protobuf-mismatch" in found and "tensorflow.conflicting-installs" not in found
    numpy1 = failing("tensorflow 2.6.4 requires numpy~=1.19.2, but you have numpy 1.21.6 which is"
                     " incompatible.")
    assert "python.numpy-abi-mismatch" not in numpy1  # a NumPy 1 minor: pip's pin, not an ABI break
    numpy2 = failing("tensorflow 2.15.0 requires numpy<2.0.0,>=1.23.5, but you have numpy 2.1.0 which is"
                     " incompatible.")
    assert "python.numpy-abi-mismatch" in numpy2


def test_cuda_refusing_a_context_already_in_use():
    assert "gpu.compute-mode-exclusive" in failing(eleven("S017"))  # cuCtxSetCurrent (0 vs. 216)


def test_the_underscore_spelling_of_a_tensorflow_package():
    assert "tensorflow.python-unsupported" in failing(eleven("S106"))  # tensorflow_intel==2.14.1


def test_keras3s_sequential_refusing_a_keras2_layer():
    assert "keras.keras3-api-change" in failing(eleven("S148"))  # tensorflow_hub's KerasLayer


# --- versions and capabilities in the forms people and tools write them -----------------------------


def environment(text: str) -> dict:
    return explain_report(text, MATRIX).environment


@pytest.mark.parametrize("text, version", [
    ("ImportError: This version of TensorFlow Probability requires TensorFlow version >= 2.10; Detected an"
     " installation of version 2.9.0. Please upgrade TensorFlow to proceed.", "2.9.0"),
    ("The versions of TensorFlow you are currently using is 2.1.0 and is not supported", "2.1.0"),
    ("TensorFlow updated to version 2.16.1 on March 8, 2024.", "2.16.1"),
    ("When updating TensorFlow to the latest version `2.16.1`, it no longer works.", "2.16.1"),
    ("https://storage.googleapis.com/tensorflow/libtensorflow/libtensorflow-cpu-windows-x86_64-2.5.0.zip",
     "2.5.0"),
    ("ImportError: This version of TensorFlow Probability requires TensorFlow version >= 2.3; Detected an"
     " installation of version 2.0.0-beta1. Please upgrade TensorFlow to proceed.", "2.0.0-beta1"),
    ("pip install tensorflow-gpu==2.0.0-beta1", "2.0.0-beta1"),  # the pre-release kept
    (">>> import tensorflow\n>>> tensorflow.__version__\n'1.12.0'", "1.12.0"),  # the REPL's echo
    ("tensorflow-gpu (1.4.0)\nnumpy (1.13.3)", "1.4.0"),  # pip's legacy list format
])
def test_the_tensorflow_version_a_line_names(text, version):
    assert environment(text)["tensorflow_version"] == version


def test_a_requirement_is_not_the_version_installed():
    text = "This version of TensorFlow Probability requires TensorFlow version >= 2.10; please upgrade."
    assert environment(text).get("tensorflow_version") is None


def test_pip_search_names_what_pypi_has_not_what_is_installed():
    text = "$ pip search tensorflow\ntensorflow (1.12.0)       - TensorFlow is an open source library"
    assert environment(text).get("tensorflow_version") is None


def test_two_tensorflows_in_pips_legacy_list_format():
    assert "tensorflow.conflicting-installs" in failing("tensorflow (1.13.1)\ntensorflow-gpu (1.4.0)\n")


def test_the_environment_modules_a_cluster_job_loads():
    text = "`module load python3/3.6.3`\n`module load tensorflow/2.0.0`\n$ ml cuda/10.1 cudnn/7.6.5\n"
    assert {k: v for k, v in environment(text).items() if k.endswith("_version") and v} == {
        "python_version": "3.6.3", "tensorflow_version": "2.0.0", "nvcc_version": "10.1",
        "cudnn_version": "7.6.5"}
    assert environment("see the html docs/2.0.1 and an xml cuda/10.1 file").get("nvcc_version") is None


@pytest.mark.parametrize("line, version", [
    ("[Thu Apr  4 18:03:56 2024] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.161.07  Sat Feb 17"
     " 22:55:48 UTC 2024", "535.161.07"),
    ("Jun 1 node kernel: NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build",
     "580.65.06"),
])
def test_the_kernel_logs_line_as_the_driver_module_loads(line, version):
    assert environment(line)["driver_version"] == version


@pytest.mark.parametrize("text, version", [
    ("Ultralytics YOLOv8.2.97 Python-3.11.9 torch-2.4.1+cpu CPU", "3.11.9"),
    ("python == 3.9", "3.9"),
    ("- \u4f60\u4f7f\u7528\u7684**Python**\u7248\u672c: py3.8.18", "3.8.18"),
    ("Python \u30d0\u30fc\u30b8\u30e7\u30f3: 3.10", "3.10"),
    ("conda create -n tf --python==3.7.12", "3.7.12"),
    ("$ /opt/hostedtoolcache/Python/3.10.19/x64/bin/python -c 'import tensorflow'", "3.10.19"),
    ("(required by /usr/local/packages/python/2.7.10-anaconda/lib/python2.7/site-packages/x.so)", "2.7.10"),
])
def test_the_python_version_a_line_names(text, version):
    assert environment(text)["python_version"] == version


def test_a_package_named_python_is_not_python():
    assert environment("opencv-python==3.4.2.17 numpy==1.16.6").get("python_version") is None


def test_device_lib_lists_a_gpu_with_its_capability():
    text = ('physical_device_desc: "device: 0, name: GeForce RTX 2080 Ti, pci bus id: 0000:01:00.0,'
            ' compute capability: 7.5"')
    assert environment(text)["gpus"][0] == {"index": 0, "name": "GeForce RTX 2080 Ti",
                                            "compute_capability": "7.5", "memory_total_mib": None}


@pytest.mark.parametrize("text, cc", [
    ("Just a FYI. Running on an Ampere A10 with CC 8.6.", "8.6"),
    ("NVIDIA GeForce RTX 5080 with CUDA capability sm_120 is not compatible with the current PyTorch"
     " installation.", "12.0"),
    ("GPU: NVIDIA RTX 5060 Ti (Blackwell, compute capability `12.0` / `sm_120`)", "12.0"),
])
def test_the_capability_written_beside_a_gpus_name(text, cc):
    assert environment(text)["gpus"][0]["compute_capability"] == cc


# --- the PyPI `tensorflow` wheel before 2.1 -----------------------------------------------------------

_PYPI_CPU = ("- TensorFlow version: {v}\n- GPU model and memory: GTX 1080 Ti 12 GB\n"
             "1. `pip3 install {dist}=={v}`\n2. device_lib.list_local_devices() lists CPU devices, no GPU\n")


def test_the_pypi_tensorflow_wheel_before_2_1_is_cpu_only():
    found = failing(_PYPI_CPU.format(v="1.15.2", dist="tensorflow"))  # holdout8 P111's mechanism
    assert set(found) == {"tensorflow.cpu-only-build"}
    assert "pip install tensorflow-gpu==1.15.2" in found["tensorflow.cpu-only-build"].fix
    assert set(failing(_PYPI_CPU.format(v="1.12.0", dist="tensorflow"))) == {"tensorflow.cpu-only-build"}


@pytest.mark.parametrize("text", [
    _PYPI_CPU.format(v="1.15.0", dist="tensorflow"),  # 1.15.0's tensorflow wheel had CUDA
    _PYPI_CPU.format(v="2.1.0", dist="tensorflow"),  # from 2.1 it always has
    _PYPI_CPU.format(v="1.15.2", dist="tensorflow-gpu"),
    _PYPI_CPU.format(v="1.15", dist="tensorflow"),  # no patch: 1.15.0 or a later one
    _PYPI_CPU.format(v="1.14.0", dist="tensorflow")  # TensorFlow loading CUDA is no CPU-only build
    + "E tensorflow/stream_executor/cuda/cuda_dnn.cc:334] Could not create cudnn handle:"
      " CUDNN_STATUS_INTERNAL_ERROR",
    "pip install tensorflow==1.14.0\nnumpy 1.16 breaks the import of a CPU program\n",  # not about a GPU
])
def test_near_misses_of_the_pypi_cpu_wheel(text):
    assert "tensorflow.cpu-only-build" not in failing(text)


def test_a_jaxlib_without_cuda_is_judged_as_jaxs():
    text = ('I0820 16:00:20.281177 140257858221888 xla_bridge.py:212] Unable to initialize backend \'gpu\':'
            ' Not found: Could not find registered platform with name: "cuda". Available platform names are:'
            ' Interpreter Host\n')  # holdout11 S010
    found = failing(text)
    assert set(found) == {"tensorflow.cpu-only-build"}
    assert found["tensorflow.cpu-only-build"].title == "JAX's jaxlib is a CPU-only build"
    assert "jax[cuda12]" in found["tensorflow.cpu-only-build"].fix
    assert "uninstall -y tensorflow" not in found["tensorflow.cpu-only-build"].fix
    registered = text.replace("Interpreter Host", "Interpreter CUDA Host")
    assert "tensorflow.cpu-only-build" not in failing(registered)


# --- holdout12's lessons -------------------------------------------------------------------------------


def test_a_long_cuda_message_stands_alone_in_a_title():
    text = ("no kernel image is available for execution on the device\n- GPU: GTX 960M\n"
            "- TensorFlow version: 2.3.0\n")  # holdout12 T044
    assert "gpu.compute-capability-unsupported" in failing(text)
    # a short one is anyone's words: "invalid argument" alone says nothing of CUDA
    assert not failing("invalid argument\n")


def test_the_minimum_capability_sentence_on_its_own_line():
    text = ("\tIgnoring visible gpu device (device: 0, name: Tesla M60, pci bus id: 0000:00:1e.0, compute"
            " capability: 5.2) with Cuda compute capability 5.2. \n\tThe minimum required Cuda capability is"
            " 6.0.\n")  # holdout12 T202, wrapped as pasted
    found = failing(text)
    assert set(found) == {"gpu.compute-capability-unsupported"}
    assert "below compute capability 6.0" in found["gpu.compute-capability-unsupported"].detail


def test_a_template_field_with_the_package_and_a_spaced_v():
    text = "  - Tensor flow: tensorflow-gpu v 1.14.0\n  - python: 3.7\n"
    assert environment(text)["tensorflow_version"] == "1.14.0"


def test_markdown_bold_is_not_part_of_a_value():
    text = "**Nvidia driver** version **465.21**\nWindows 10 Version 1909 **build 18363**\n"
    assert environment(text)["driver_version"] == "465.21"


def test_on_wsl2_no_device_with_nvidia_smi_failing_is_the_windows_driver_not_reaching_wsl():
    smi = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the"
           " latest NVIDIA driver is installed and running.\n")
    query = "cudaGetDeviceCount returned 100\n-> no CUDA-capable device is detected\n"
    wsl = "Linux version 5.4.91-microsoft-standard-WSL2 (oe-user@oe-host) #1 SMP Mon Jan 25 18:39:31 2021\n"
    roots = {i for i, f in failing(wsl + smi + query).items() if not f.caused_by}  # holdout12 T142
    assert roots == {"driver.missing"}
    # nvidia-smi answering while CUDA finds no device: a libcuda that is not the Windows driver's
    assert "platform.wsl2-libcuda" in failing(wsl + query)


@pytest.mark.parametrize("text", [
    "fail to load tensorflow 1.1.0 inside docker container - libcuda.so.1 missing\n",  # holdout12 T001
    "tensorflow-gpu crashes without libcuda.so\n",  # holdout12 T004
    "I can't find libcuda.so.1 anywhere in the image\n",
])
def test_a_sentence_naming_the_driver_library_missing(text):
    assert "driver.missing" in failing(text)


def test_a_library_named_beside_missing_words_for_something_else_is_not_missing():
    assert "driver.missing" not in failing("libcuda.so.1 loaded fine; the missing piece was the dataset\n")


@pytest.mark.parametrize("text, engine", [
    ("$ singularity exec tf.sif python train.py\n", "singularity"),
    ("Apptainer> python -c 'import tensorflow'\n", "apptainer"),
    ("I run it in a singularity container on the cluster\n", "singularity"),
    ("NumPy error when installed thru singularity and conda\n", "singularity"),  # holdout17 Y218
    ("  1. run nvidia-smi with rootless podman\n", "podman"),  # holdout20 D020
    ("I tested nccl-tests in nvidia-pytorch docker (downloaded from nvidia-cloud)\n", "docker"),  # Z119
    ("$ python3 docker/run_docker.py --fasta_paths=T1050.fasta --max_template_date=2020-05-14\n",
     "docker"),  # AlphaFold's launcher
])
def test_singularity_and_apptainer_are_container_engines(text, engine):
    assert environment(text)["container"] == engine


def test_docker_named_where_it_is_not_used_is_no_container():
    assert environment("I installed it with pip, not with docker\n").get("container") is None


def test_singularity_without_nv_is_a_container_without_the_driver():
    error = "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory\n"
    found = failing("$ singularity exec tf.sif python train.py\n" + error)
    assert "singularity exec --nv" in found["driver.missing"].fix
    assert "the container was started without the GPU" in found["driver.missing"].detail
    given = failing("$ singularity exec --nv tf.sif python train.py\n" + error)
    assert "the container was started without the GPU" not in given["driver.missing"].detail


@pytest.mark.parametrize("text", [
    # holdout12 T103: TensorFlow Addons' own check
    "/envs/t/lib/python3.7/site-packages/tensorflow_addons/utils/ensure_tf_install.py:68: UserWarning:"
    " Tensorflow Addons supports using Python ops for all Tensorflow versions above or equal to 2.2.0 and"
    " strictly below 2.3.0 (nightly versions are not supported).\n The versions of TensorFlow you are"
    " currently using is 2.1.0 and is not supported.\n",
    # holdout12 T102: a title
    "import tensorflow_addons gives AttributeError: module 'tensorflow_core._api.v2.random' has no attribute"
    " 'Generator'\n",
    # a traceback through an add-on's frames to TensorFlow's missing API
    'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
    "    import tensorflow_hub as hub\n"
    '  File "/usr/lib/python3.8/site-packages/tensorflow_hub/__init__.py", line 88, in <module>\n'
    "    from tensorflow_hub.estimator import LatestModuleExporter\n"
    "AttributeError: module 'tensorflow' has no attribute 'estimator'\n",
])
def test_an_add_on_meeting_a_tensorflow_it_was_not_made_for(text):
    found = failing(text)
    assert set(found) == {"tensorflow.conflicting-installs"}
    assert "requires another TensorFlow release" in found["tensorflow.conflicting-installs"].title


def test_a_programs_own_call_to_a_missing_tensorflow_api_is_not_an_add_on_mismatch():
    text = ('Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
            "    sess = tf.Session()\nAttributeError: module 'tensorflow' has no attribute 'Session'\n")
    assert "tensorflow.conflicting-installs" not in failing(text)


def test_tf_keras_as_keras_3_lacking_keras_2_internals_is_a_keras_mismatch():
    text = "AttributeError: module 'keras._tf_keras.keras' has no attribute '__internal__'\n"  # T104
    found = failing("- TensorFlow version: 2.15.0\n" + text)
    assert {i for i, f in found.items() if not f.caused_by} == {"tensorflow.conflicting-installs"}
    assert "keras==2.15.*" in found["tensorflow.conflicting-installs"].fix
    # under TensorFlow 2.16 the same line is Keras 3 running Keras 2 code, the conflict aside
    assert not failing("- TensorFlow version: 2.16.1\n" + text)["keras.keras3-api-change"].caused_by


def test_a_pip_list_with_an_add_on_made_for_another_tensorflow():
    text = ("(venv) root@0046f004ed0d:/# python -m pip list | grep tensor\n"
            "tensorboard                  2.16.2\ntensorflow                   2.16.1\n"
            "tensorflow-probability       0.23.0\n")  # holdout12 T105
    found = failing(text)
    assert set(found) == {"tensorflow.conflicting-installs"}
    fix = found["tensorflow.conflicting-installs"].fix
    assert "'tensorflow-probability==0.24.*' 'tf-keras~=2.16.0'" in fix
    assert not failing(text.replace("0.23.0", "0.24.0"))


def test_a_placement_log_with_no_device_and_no_cuda_line_is_a_cpu_only_build():
    text = ("2018-07-11 23:47:49.707014: I tensorflow/core/platform/cpu_feature_guard.cc:140] Your CPU"
            " supports instructions that this TensorFlow binary was not compiled to use: AVX2 FMA\n"
            "2018-07-11 23:47:49.707880: I tensorflow/core/common_runtime/direct_session.cc:284] Device"
            " mapping: Device mapping: no known devices.\n")  # holdout12 T121
    found = failing("- TensorFlow version: 1.8.0\n" + text)
    assert set(found) == {"tensorflow.cpu-only-build"}
    assert "pip install tensorflow-gpu==1.8.0" in found["tensorflow.cpu-only-build"].fix
    # a CUDA build that could not start CUDA maps no device either: that failure is what it says
    cuinit = "failed call to cuInit: CUDA_ERROR_NO_DEVICE\n"
    assert "tensorflow.cpu-only-build" not in failing(cuinit + text)


def test_peer_access_refused_between_two_gpus_is_harmless():
    line = ("2017-12-01 09:17:42.115092: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1044] Unable to"
            " enable peer access between device ordinals 9 and 8, status: Internal: failed to enable peer"
            " access from 0x8270570 to 0x7ba7860: CUDA_ERROR_TOO_MANY_PEERS\n")  # holdout12 T016
    assert not failing(line)


def test_iommu_dma_faults_block_nccls_peer_to_peer():
    text = ("[1478401.486621] DMAR: DRHD: handling fault status reg 502\n[1478401.486981] DMAR: [DMA Write]"
            " Request device [02:00.0] fault addr cd139000 [fault reason 05] PTE Write access is not set\n")
    found = failing(text)  # holdout12 T013
    assert set(found) == {"nccl.error"} and "IOMMU" in found["nccl.error"].title
    assert "NCCL_P2P_DISABLE=1" in found["nccl.error"].fix
    assert not failing("[    0.012] DMAR: IOMMU enabled\n")


def test_a_libcuda_lacking_a_driver_api_entry_point_is_a_driver_too_old():
    text = ("F tensorflow/stream_executor/cuda/cuda_driver.cc:94] Check failed: s.ok() could not find"
            " cuDevicePrimaryCtxSetFlags in libcuda DSO; dlerror: /usr/lib/libcuda.so.1: undefined symbol:"
            " cuDevicePrimaryCtxSetFlags\nNVRM version: NVIDIA UNIX x86_64 Kernel Module  340.101  Thu Dec  1"
            " 15:52:31 PST 2016\n")  # holdout12 T031
    found = failing(text)
    assert {i for i, f in found.items() if not f.caused_by} == {"driver.too-old"}


def test_tensorflows_windows_preload_of_the_cuda_runtime_failing():
    text = ("- TensorFlow GPU  version:  1.14.0\n"
            '  File "C:\\Python36\\lib\\site-packages\\tensorflow\\python\\platform\\self_check.py", line 75,'
            " in preload_check\n    ctypes.WinDLL(build_info.cudart_dll_name)\n"
            '  File "C:\\Python36\\lib\\ctypes\\__init__.py", line 348, in __init__\n'
            "    self._handle = _dlopen(self._name, mode)\n"
            "OSError: [WinError 126] The specified module could not be found\n")  # holdout12 T130
    found = failing(text)
    assert set(found) == {"cuda.libraries-missing"}
    assert "cudatoolkit=10.0 cudnn=7.4" in found["cuda.libraries-missing"].fix  # TensorFlow 1.14's
    # WinError 126 after another DLL's load is not the CUDA runtime's
    other = text.replace("ctypes.WinDLL(build_info.cudart_dll_name)", "ctypes.WinDLL('mylib.dll')")
    assert "cuda.libraries-missing" not in failing(other)


def test_dnn_library_not_found_where_cudnn_then_failed_to_start_is_that_failure():
    title = '"DNN library is not found." error when tensorflow is loaded before JAX\n'  # holdout12 T241
    failed = "RuntimeError: UNKNOWN: Failed to determine best cudnn convolution algorithm for:\n"
    roots = {i for i, f in failing(title + failed).items() if not f.caused_by}
    assert roots == {"cudnn.init-failed"}
    assert "cudnn.missing" in failing(title)  # alone, under JAX, cuDNN is what was not found
    # TensorFlow registers no GPU whose cuDNN does not load: at a GPU op, its cuDNN loaded but was refused
    conv = "tensorflow.python.framework.errors_impl.UnimplementedError: DNN library is not found.\n"
    found = failing(conv + "\t [[{{node sequential/conv2d/Conv2D}}]]\n")
    assert set(found) == {"cudnn.version-mismatch"} and "cannot use" in found["cudnn.version-mismatch"].title
    assert set(failing(holdout("holdout30", "N116"))) == {"cudnn.version-mismatch"}
    # ... unless the log shows a cuDNN that did not load
    dlopen = ("Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared"
              " object\n")
    assert "cudnn.missing" in failing(dlopen + conv)
    # XLA's autotuner quoting it as the original error of a convolution (EXLA, JAX) registers GPUs without it
    assert "cudnn.missing" in failing("Original error: UNIMPLEMENTED: DNN library is not found.\n")


def test_failed_to_dlopen_libcuda_on_wsl():
    text = "Failed to dlopen libcuda.so in WSL environment\nRuntimeError: Failed to dlopen libcuda.so\n"
    assert "platform.wsl2-libcuda" in failing(text)


def test_a_mig_slice_named_as_a_product():
    text = ('"device >= 0 && device < num_gpus INTERNAL ASSERT FAILED" with torch 2.5.0 on 2 GPU'
            " NVIDIA-A100-SXM4-80GB-MIG-3g.40gb\n")  # holdout12 T002
    assert "gpu.mig-enabled" in failing(text)
    assert "gpu.mig-enabled" not in failing("2 GPU NVIDIA-A100-SXM4-80GB, no slices\n")


def test_a_link_names_a_page_not_the_machine():
    link = "similar to this [thread](https://discuss.bayesflow.org/t/macos-gpu-tensorflow-metal/81/3)\n"
    assert environment(link)["platform"] != "macos"  # holdout12 T106
    assert environment(link.replace("https://", ""))["platform"] == "macos"  # the same words as text


def test_the_container_toolkit_asked_for_a_gpu_the_host_does_not_have():
    line = ("docker: Error response from daemon: OCI runtime create failed: container_linux.go:367: starting"
            " container process caused: process_linux.go:495: container init caused: Running hook #1::"
            " error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: device error: 1:"
            " unknown device: unknown.\n")  # holdout6 M052
    found = failing(line)
    assert {i for i, f in found.items() if not f.caused_by} == {"gpu.hidden-by-cuda-visible-devices"}
    assert "--gpus device=0" in found["gpu.hidden-by-cuda-visible-devices"].fix
    assert "never expanded" not in found["gpu.hidden-by-cuda-visible-devices"].detail
    # Compose's device_ids with a variable left unexpanded (its $ missing)
    unexpanded = failing(holdout("holdout30", "N220"))["gpu.hidden-by-cuda-visible-devices"]
    assert "{MASKANYONE_GPU_ID:-0}" in unexpanded.title and "never expanded" in unexpanded.detail


@pytest.mark.parametrize("text, status", [
    ("Test suite fails when GPUs are in compute exclusive mode\nexception: Error initializing Context:"
     " CUDA_ERROR_INVALID_DEVICE (101) at CudaContext.cpp:167\n", "fail"),  # holdout11 S018
    ("When I set the nvidia driver in exclusive mode and one of the GPU is already used by another process,"
     " I get a segmentation fault\n", "warn"),  # holdout10 R038
])
def test_an_exclusive_compute_mode_in_a_persons_words(text, status):
    found = failing(text)
    assert str(found["gpu.compute-mode-exclusive"].status) == status
    assert "nvidia-smi -c DEFAULT" in found["gpu.compute-mode-exclusive"].fix


@pytest.mark.parametrize("text", [
    "Should I put the GPUs in exclusive mode?\n",
    "The GPUs are not in exclusive mode, they run in Default mode\n",
])
def test_a_question_or_a_denial_of_exclusive_mode_is_not_it(text):
    assert "gpu.compute-mode-exclusive" not in failing(text)


# --- holdout13's lessons -------------------------------------------------------------------------------


def test_the_kernels_api_mismatch_wrapped_over_nvrm_lines():
    text = ("[    9.424670] NVRM: API mismatch: the client 'kwin_wayland' (pid 1005)\n"
            "               NVRM: has the version 595.84, but this kernel module has\n"
            "               NVRM: the version 595.80.  Please make sure that this\n")  # holdout13 U004
    found = failing(text)
    assert set(found) == {"driver.library-mismatch"}
    assert "595.80" in found["driver.library-mismatch"].title + found["driver.library-mismatch"].detail


def test_a_tools_report_of_mig_on_without_instances():
    text = ("slurmd: fatal: MIG mode is enabled, but no MIG devices were found. Please either create MIG"
            " instances, disable MIG mode, remove AutoDetect=nvml, or remove GPUs from the configuration\n")
    found = failing(text)  # holdout13 U039
    assert set(found) == {"gpu.mig-enabled"} and str(found["gpu.mig-enabled"].status) == "fail"


def test_a_nightlys_cuda_is_not_its_releases():
    banner = "| NVIDIA-SMI 440.33.01    Driver Version: 440.33.01    CUDA Version: 10.2     |\n"
    nightly = "tf-nightly                 2.4.0.dev20200701\n"  # holdout13 U013
    assert "driver.too-old" not in failing(nightly + banner)
    assert "driver.too-old" in failing(nightly.replace("tf-nightly   ", "tensorflow   ")
                                       .replace("2.4.0.dev20200701", "2.4.0") + banner)


def test_a_gpu_listed_only_as_xla_gpu_is_cuda_libraries_not_loaded():
    listing = ("[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU'),\n"  # holdout13 U129
               " PhysicalDevice(name='/physical_device:XLA_CPU:0', device_type='XLA_CPU'),\n"
               " PhysicalDevice(name='/physical_device:XLA_GPU:0', device_type='XLA_GPU')]\n")
    assert set(failing(listing)) == {"cuda.libraries-missing"}
    gpu = " PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]\n"
    assert not failing(listing.replace("device_type='XLA_GPU')]\n", "device_type='XLA_GPU'),\n") + gpu)
    # XLA's flags name xla_gpu too: no device in them
    assert not failing("XLA_FLAGS=--xla_gpu_cuda_data_dir=/usr/local/cuda\n")
    # where the log names the library that failed, that is the finding
    cudnn = "Could not load dynamic library 'libcudnn.so.7'; dlerror: libcudnn.so.7: cannot open\n"
    assert set(failing(cudnn + listing)) == {"cudnn.missing"}


def test_tensorflow_1xs_cudnn_check_with_the_word_the():
    line = ("Loaded runtime CuDNN library: 7.0.5 but the source was compiled with: 7.1.4.  CuDNN library"
            " major and minor version needs to match or have higher minor version\n")  # holdout13 U036
    found = failing(line)
    assert set(found) == {"cudnn.version-mismatch"}
    assert "7.0.5" in found["cudnn.version-mismatch"].title


def test_xla_naming_a_stale_driver_for_its_linker():
    line = ("E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_asm_compiler.cc:57] cuLinkAddData"
            " fails. This is usually caused by stale driver version.\n")  # holdout13 U223
    found = failing(line)
    assert set(found) == {"driver.minor-version-compat"}
    assert "(None)" not in found["driver.minor-version-compat"].title


@pytest.mark.parametrize("text", [
    "- TensorFlow version v1.12.1-45908-g9af48cb079\n",  # holdout13 U205: a nightly, 45908 commits past
    "TensorFlow version: v1.12.1-45908-g9af48cb079\n",
])
def test_a_git_describe_is_no_release(text):
    assert environment(text).get("tensorflow_version") is None


def test_a_git_describe_at_its_tag_is_that_release():
    assert environment("### TensorFlow version\n2.16.1-0-g5bc9d26649c\n")["tensorflow_version"] == "2.16.1"


@pytest.mark.parametrize("text", [
    "Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so: cannot open shared object file: No"
    " such file or directory\n",  # holdout13 U215
    "Fails with `Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so`\n",  # U216's title
])
def test_the_library_a_loaded_library_needed_is_the_one_missing(text):
    found = failing(text)
    assert set(found) == {"cuda.libraries-missing"}
    assert "libnvrtc.so" in found["cuda.libraries-missing"].title


@pytest.mark.parametrize("text, fid", [
    ("When I run the code, I get an \u201cuncorrectable ECC error encountered\u201d after 600 iterations\n",
     "gpu.ecc-errors"),  # holdout13 U210
    ("an illegal memory access was encountered\n", "gpu.illegal-address"),
])
def test_a_short_message_naming_what_only_a_gpu_has_stands_alone(text, fid):
    assert fid in failing(text)


def test_a_short_generic_message_alone_is_no_stack_error():
    assert not failing("the library was not initialized\n")


def test_protobuf_4_beside_a_tensorflow_before_2_12():
    text = ("Collecting protobuf>=3.6.1\n"
            "  Downloading protobuf-4.21.9-cp37-abi3-manylinux2014_x86_64.whl (408 kB)\n"
            "Requirement already satisfied: h5py in ./site-packages (from keras-applications>=1.0.8->"
            "tensorflow==1.15.3) (3.7.0)\n")  # holdout13 U125
    found = failing(text)
    assert set(found) == {"python.protobuf-mismatch"}
    assert "protobuf 4.21.9" in found["python.protobuf-mismatch"].title
    assert not failing(text.replace("tensorflow==1.15.3", "tensorflow==2.12.0"))
    assert not failing(text.replace("protobuf-4.21.9", "protobuf-3.19.6"))


def test_tensorflow_numbering_mixed_gpus_out_of_pci_order():
    text = ("Tensorflow device indexes mismatch with nvidia-smi\n"
            "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1618] Found device 0 with properties:\n"
            "name: GeForce RTX 2080 Ti major: 7 minor: 5 memoryClockRate(GHz): 1.545\n"
            "pciBusID: 0000:03:00.0\n"
            "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1618] Found device 1 with properties:\n"
            "name: GeForce GT 730 major: 3 minor: 5 memoryClockRate(GHz): 0.9015\npciBusID: 0000:01:00.0\n")
    found = failing(text)  # holdout13 U018
    assert set(found) == {"gpu.device-order"}
    assert "CUDA_DEVICE_ORDER=PCI_BUS_ID" in found["gpu.device-order"].fix
    in_order = text.replace("0000:03:00.0", "0000:00:99.0")
    assert not failing(in_order.replace("0000:01:00.0", "0000:04:00.0"))
    # where nothing picks GPUs by nvidia-smi's numbers, the order is told, not warned of (holdout14 V224)
    quiet = explain_report(text.split("\n", 1)[1], MATRIX).findings
    assert [(f.id, str(f.status)) for f in quiet if f.id.startswith("gpu.")] == [("gpu.mapping", "pass")]


@pytest.mark.parametrize("text", [
    " ERROR: modpost: GPL-incompatible module nvidia.ko uses GPL-only symbol 'rcu_read_unlock_strict'\n",
    "Error! Bad return status for module build on kernel: 5.15.0-1067-gcp (x86_64)\n",
    "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n",
])
def test_a_kernel_module_that_did_not_build_or_was_refused(text):
    found = failing(text)
    assert set(found) == {"driver.missing"}
    assert "mokutil" in found["driver.missing"].fix


def test_two_libcuda_versions_side_by_side_in_a_container():
    listing = ("$ nvidia-docker run -it --rm nvidia/cuda:11.2.2-cudnn8-devel-ubuntu20.04 bash\n"
               "lrwxrwxrwx  1 root root 20 Apr 13 16:09 libcuda.so.1 -> libcuda.so.460.32.03\n"
               "-rw-r--r--  1 root root 19615656 Dec 29 06:58 libcuda.so.450.102.04\n"
               "-rw-r--r--  1 root root 21803296 Dec 27 19:03 libcuda.so.460.32.03\n")  # holdout13 U234
    assert "cuda.container-driver-libraries" in failing(listing)
    one = listing.replace("libcuda.so.450.102.04", "libcuda.so.460.32.03")
    assert "cuda.container-driver-libraries" not in failing(one)
    # CUDA's forward-compatibility copy is meant to be another version than the host's
    compat = listing.replace("06:58 libcuda.so.450", "06:58 /usr/local/cuda/compat/libcuda.so.450")
    assert "cuda.container-driver-libraries" not in failing(compat)


def test_jax_finding_an_older_cuda_library_than_the_pip_wheel_installed():
    text = ("CUDA backend failed to initialize: Found cuBLAS version 120205, but JAX was built against"
            " version 120304, which is newer.\nnvidia-cublas-cu12        12.4.2.65\n")  # holdout13 U213
    found = failing(text)
    assert set(found) == {"cuda.loaded-not-pip"}
    assert "cuBLAS 12.2.5" in found["cuda.loaded-not-pip"].title
    assert "cuda.loaded-not-pip" not in failing(text.replace("12.4.2.65", "12.2.5.6"))  # the wheel is old


def test_a_python_2_wheel_refused_by_a_python_3_pip():
    text = ('Python 3.4.3 |Anaconda 2.3.0 (x86_64)| on darwin\n"tensorflow-0.5.0-py2-none-any.whl is not a'
            ' supported wheel on this platform."\n')  # holdout13 U135
    found = failing(text)
    assert set(found) == {"tensorflow.python-unsupported"}
    assert "Python 3.4" in found["tensorflow.python-unsupported"].title


def test_a_package_tensorflow_pins_of_another_release():
    text = ("AttributeError: module 'ml_dtypes' has no attribute 'float8_e4m3b11'. Did you mean:"
            " 'float8_e4m3fn'?\n")  # holdout13 U111
    found = failing(text)
    assert set(found) == {"tensorflow.conflicting-installs"}
    assert "ml_dtypes" in found["tensorflow.conflicting-installs"].title


# --- the GPU device files closed to a user ---------------------------------------------------------


def test_device_files_whose_mode_shuts_out_other_users():
    found = failing(holdout("holdout13", "U017"))  # ls -al /dev/nvidia*: c-w--wx-wT root video
    assert set(found) == {"nvml.no-permission"}
    assert "/dev/nvidiactl c-w--wx-wT root:video" in found["nvml.no-permission"].detail
    assert "/dev/nvidia-modeset" not in found["nvml.no-permission"].detail  # CUDA does not open it


def test_world_readable_device_files_are_no_problem():
    text = ("crw-rw-rw- 1 root root 195,   0 Jun 25 11:05 /dev/nvidia0\n"
            "crw-rw-rw- 1 root root 195, 255 Jun 25 11:05 /dev/nvidiactl\n"
            "crw-rw-rw- 1 root root 510,   0 Jun 25 11:27 /dev/nvidia-uvm\n")
    assert failing(text) == {}


@pytest.mark.parametrize("text", [
    "Torch is not able to use GPU unless superuser, openSuse tumbleweed",
    "it seems torch can only access the gpu when run with sudo",
])
def test_a_gpu_that_works_only_as_root(text):
    assert set(failing(text)) == {"nvml.no-permission"}


@pytest.mark.parametrize("text", [
    "You should only use sudo to install the nvidia driver",
    "Does the GPU work only with sudo?",
    "I run it as root and the GPU works",
])
def test_root_named_without_the_gpu_working_only_so(text):
    assert "nvml.no-permission" not in failing(text)


def test_only_as_root_beside_a_failed_cuinit_is_the_uvm_device_file():
    text = ("Can only utilize GPU after being run as root\n"
            "failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error\n")
    found = failing(text)
    assert "nvml.no-permission" not in found and "nvidia_uvm" in str(found["cuda.init-failed"].plan)


# --- PyTorch's out-of-memory message: what the GPU has, what is free, what the process holds ---------------

_TORCH_OOM = ("RuntimeError: CUDA out of memory. Tried to allocate 12.50 MiB (GPU 0; 10.92 GiB total"
              " capacity; ")


@pytest.mark.parametrize("text", [
    _TORCH_OOM + "8.57 MiB already allocated; 0 bytes free; 4.00 MiB cached)",  # before PyTorch 1.5
    holdout("holdout13", "U237"),  # 47.54 GiB total; 4.88 MiB free; 686.00 MiB reserved by PyTorch
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity"
    " of 23.65 GiB of which 17.06 MiB is free. Process 4123 has 20.1 GiB memory in use. Including non-PyTorch"
    " memory, this process has 3.50 GiB memory in use. Of the allocated memory 3.1 GiB is allocated by"
    " PyTorch",
])
def test_a_pytorch_oom_with_most_memory_held_elsewhere(text):
    found = failing(text)
    assert not found["gpu.memory-held-by-other-processes"].caused_by
    assert found["gpu.out-of-memory"].caused_by == "gpu.memory-held-by-other-processes"


@pytest.mark.parametrize("text", [
    _TORCH_OOM + "9.76 GiB already allocated; 21.12 MiB free; 9.88 GiB reserved in total by PyTorch)",
    _TORCH_OOM + "8.57 MiB already allocated; 0 bytes free; 9.00 GiB cached)",
    # before PyTorch 1.5 "cached" was what it held beyond what was allocated: all of it is its own
    _TORCH_OOM + "10.60 GiB already allocated; 576.00 KiB free; 30.96 MiB cached)",
    # a 1 GiB GPU: the rest is the process's CUDA context, which no figure counts
    holdout("holdout26", "J315"),
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity"
    " of 23.65 GiB of which 17.06 MiB is free. Including non-PyTorch memory, this process has 23.62 GiB"
    " memory in use.",
])
def test_a_pytorch_oom_that_the_process_itself_filled(text):
    assert set(failing(text)) == {"gpu.out-of-memory"}


def test_gpustats_rows_name_the_gpus():
    text = ("[0] NVIDIA GeForce RTX 3090 | 35\u00b0C,   0 % |    10 / 24576 MB |\n"
            "[1] Tesla V100-SXM2-32GB | 33'C,   0 %,   40 / 300 W |     0 / 32510 MB | bob(2000M)\n")
    gpus = environment(text)["gpus"]
    assert [(g["name"], g["memory_total_mib"]) for g in gpus] == [("NVIDIA GeForce RTX 3090", 24576),
                                                                    ("Tesla V100-SXM2-32GB", 32510)]
    assert failing(text) == {}  # a snapshot's memory in use may be the program's own


# --- WSL 2 on a Windows too old to pass the GPU into it --------------------------------------------------


@pytest.mark.parametrize("text, build", [
    ("Windows 10 Version 1909 **build 18363**", 18363),
    ("My PC runs Windows 10 latest official release build 19042 20H2 with WSL2 support", 19042),
    ("Microsoft Windows [Version 10.0.22631.4317]", 22631),
    ("Edition Windows 10 Pro, OS build 19045.3803", 19045),
    ("I use Windows 10 21H2", 19044),
    ("Windows 11 Pro", 22000),
])
def test_the_windows_build_a_paste_names(text, build):
    assert logs.read_text(text)["system"]["windows_build"] == build


def test_a_build_number_not_of_windows_is_none():
    assert "windows_build" not in (logs.read_text("the build 12345 of my app on windows").get("system") or {})


def test_wsl2_on_a_windows_build_before_21h2_has_no_gpu():
    found = failing(holdout("holdout12", "T141"))  # WSL2, Windows 10 1909 build 18363, error 35
    assert "Windows build 18363" in found["driver.missing"].title
    assert found["driver.too-old"].caused_by == "driver.missing"  # CUDA calls no driver "insufficient"
    newer = "Running on WSL2, Windows 10 build 19045\ncode=35(cudaErrorInsufficientDriver)\n"
    assert "driver.missing" not in failing(newer)


# --- holdout14's lessons -------------------------------------------------------------------------------


def test_cuinit_303_inside_a_container_is_the_driver_not_passed_in():
    found = failing(holdout("holdout14", "V022"))  # host driver 560 stated; in docker: cuInit 303
    assert set(found) == {"driver.missing"} and "container" in found["driver.missing"].title
    host = "Nvidia graphics driver 560.35.03\noperation cuInit(0) failed: Unknown CUDA error 303\n"
    assert "driver.missing" not in failing(host)  # outside a container the stated driver stands


def test_a_gpu_of_another_vendor_is_no_nvidia_gpu():
    found = failing(holdout("holdout14", "V023"))  # TensorFlow (ROCm) sees Vega 20; CUDA: no device
    assert found["driver.missing"].title == "The GPU here is not an NVIDIA GPU"
    assert found["cuda.init-failed"].caused_by == "driver.missing"


@pytest.mark.parametrize("name, other", [("Vega 20", True), ("AMD Instinct MI100", True), ("gfx906", True),
                                         ("Intel(R) UHD Graphics 630", True), ("Tesla V100-SXM2-16GB", False),
                                         ("NVIDIA GeForce RTX 4090", False)])
def test_gpu_names_of_other_vendors(name, other):
    from tfdoctor.compat import not_nvidia

    assert not_nvidia(name) is other


def test_wsl2_reaches_no_gpu_in_tcc_mode():
    found = failing(holdout("holdout14", "V026"))  # WSL 2; nvidia-smi: NVIDIA L40S ... TCC
    assert found["driver.missing"].title == "WSL 2 reaches no GPU in TCC mode"
    wddm = holdout("holdout14", "V026").replace(" TCC ", "WDDM ")
    assert "driver.missing" not in failing(wddm)


@pytest.mark.parametrize("text", [
    "Error: no capabilities with [[gpu]], but GPU is available",  # a person retelling Docker's refusal
    'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
])
def test_dockers_gpu_capability_set_refused(text):
    assert set(failing(text)) == {"driver.missing"}


def test_code_of_a_newer_toolkit_than_the_drivers_cuda_does_not_load():
    found = failing(holdout("holdout14", "V229"))  # nvcc 11.7, driver 470 (CUDA 11.4): no kernel image
    assert "cannot load code compiled by CUDA 11.7" in found["driver.minor-version-compat"].title
    assert found["gpu.compute-capability-unsupported"].caused_by == "driver.minor-version-compat"
    same = holdout("holdout14", "V229").replace("release 11.7, V11.7.64", "release 11.4, V11.4.48")
    assert "driver.minor-version-compat" not in failing(same)


def test_ptxas_refusing_a_newer_ptx_isa():
    found = failing("ptxas : Unsupported .version 8.4; current version is '8.2' with jaxlib 0.4.34")
    assert set(found) == {"xla.ptxas-too-old"}
    assert found["xla.ptxas-too-old"].title == "ptxas knows PTX 8.2, older than the PTX 8.4 it was given"


@pytest.mark.parametrize("text", [
    "However this machine only has: ['/cpu:0', '/xla_gpu:0', '/xla_gpu:1', '/xla_cpu:0'].",
    "After I check, my gpu device type is XLA_GPU.",
])
def test_more_ways_a_gpu_shows_only_as_xla_gpu(text):
    assert set(failing(text)) == {"cuda.libraries-missing"}


@pytest.mark.parametrize("text, container", [
    ("I changed the first line of the Dockerfile from cuda 9.0 to 9.1", "docker"),
    ("docker version: 19.03", "docker"),
    ("The same code runs fine inside a docker container on the other host", "docker"),
    ("  - Installation method (Docker, built from source, etc.): Docker", "docker"),
    ("docker is not installed here; I use a venv", None),
    ('"docker" "run" "-u" "1000:1000" "--gpus=all" "tensorflow/tensorflow:latest-gpu-py3" "bash"', "docker"),
    ("$ docker compose up", "docker"),
    ("the standard Tensorflow docker images fail", "docker"),
    ("I am launching my jobs using kubeflow on a node with 4 T4 GPUs", "kubernetes"),
    ("# kubectl describe node k8s-gpu-1", "kubernetes"),
])
def test_more_ways_a_paste_says_it_runs_in_docker(text, container):
    assert (logs.read_text(text).get("system") or {}).get("container") == container


def test_an_invalid_kernel_handle_on_a_gpu_no_ptx_reaches():
    found = failing(holdout("holdout14", "V216"))  # RTX 5060 Ti (Blackwell): CUDA_ERROR_INVALID_HANDLE
    assert not found["gpu.compute-capability-unsupported"].caused_by
    older = holdout("holdout14", "V216").replace("RTX 5060 Ti", "RTX 3060 Ti")
    assert "gpu.compute-capability-unsupported" not in failing(older)  # a handle bug of the program's


def test_a_gpu_newer_than_the_cuda_major_of_the_libraries_tensorflow_opened():
    found = failing(holdout("holdout14", "V220"))  # RTX 3070 (8.6); "Successfully opened libcublas.so.10"
    assert set(found) == {"gpu.compute-capability-ptx-jit"}
    assert "CUDA 10" in found["gpu.compute-capability-ptx-jit"].detail
    newer = holdout("holdout14", "V220").replace("libcublas.so.10", "libcublas.so.11")
    assert "gpu.compute-capability-ptx-jit" not in failing(newer)


# the documented activation script of TF 2.12's pip guide, appending (tests/data/explain/holdout13, U130)
APPENDED = "echo 'export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$CONDA_PREFIX/lib/:$CUDNN_PATH/lib' >> env_vars.sh"
CUT = ("2023-06-01 15:58:54.130390: E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:417] Loaded"
       " runtime CuDNN library: 8.1.1 but source was compiled wit")


def test_a_cudnn_mismatch_message_cut_short_is_still_the_mismatch():
    found = failing("Tensorflow Version: tf 2.12\n" + CUT)
    assert set(found) == {"cudnn.version-mismatch"}
    assert "8.6" in found["cudnn.version-mismatch"].title  # TensorFlow 2.12's cuDNN, from the matrix
    assert not failing("Loaded runtime CuDNN library: unknown")


def test_libraries_appended_after_the_inherited_path_load_an_older_cudnn():
    corpus_text = holdout("holdout13", "U130")
    found = failing(corpus_text)
    assert found["cudnn.version-mismatch"].caused_by == "cuda.ld-library-path-shadowing"
    fix = found["cuda.ld-library-path-shadowing"].fix
    assert "$CONDA_PREFIX/lib/:$CUDNN_PATH/lib:$LD_LIBRARY_PATH" in fix
    assert env(APPENDED)["LD_LIBRARY_PATH"] == "$LD_LIBRARY_PATH:$CONDA_PREFIX/lib/:$CUDNN_PATH/lib"
    # the environment's directories first, or no older cuDNN loaded: nothing shadows
    first = corpus_text.replace("$LD_LIBRARY_PATH:$CONDA_PREFIX/lib/:$CUDNN_PATH/lib",
                                "$CONDA_PREFIX/lib/:$CUDNN_PATH/lib:$LD_LIBRARY_PATH")
    assert "cuda.ld-library-path-shadowing" not in failing(first)
    assert "cuda.ld-library-path-shadowing" not in failing("TensorFlow 2.12\n" + APPENDED)
    # the last assignment is the one in effect
    assert env(APPENDED + "\nexport LD_LIBRARY_PATH=/opt/lib")["LD_LIBRARY_PATH"] == "/opt/lib"


@pytest.mark.parametrize("held", [
    "Requirement already satisfied: tensorflow-gpu==1.0.1 in /usr/lib/python3/dist-packages",  # pip < 10
    "Requirement already satisfied: tensorflow-gpu in ./venv/lib/python3.6/site-packages (1.15.0)",
    "Requirement already satisfied: tensorflow-gpu>=1.0 in ./venv/lib/python3.6/site-packages (from x)"
    " (1.15.0)",
])
def test_a_package_that_pulls_the_cpu_tensorflow_beside_the_gpu_one(held):
    """pip names what the environment holds, then installs a dependency's TensorFlow beside it."""
    pulled = "Collecting tensorflow (from keras)\nSuccessfully installed keras-2.0.0 tensorflow-1.0.1"
    assert "tensorflow.conflicting-installs" in failing(held + "\n" + pulled)
    assert "tensorflow.conflicting-installs" not in failing(held)
    assert "tensorflow.conflicting-installs" not in failing(
        "Requirement already satisfied (use --upgrade to upgrade): tensorflow-gpu in /usr/lib/python3.5\n"
        + pulled)  # no version: nothing to judge


# --- learnt from holdout15 ---------------------------------------------------------------------------


def test_a_program_refusing_a_gpu_below_its_minimum_compute_capability():
    found = failing(holdout("holdout15", "W320"))  # DeepFaceLab on a Tesla K40m (3.5), minimum 3.7
    assert set(found) == {"gpu.compute-capability-unsupported"}
    assert "3.7" in found["gpu.compute-capability-unsupported"].detail
    # the minimum is not the GPU's own capability
    refusal = "Tesla K40m does not meet minimum required compute capability: 3.7."
    gpus = explain_report(refusal).environment["gpus"]
    assert gpus[0]["compute_capability"] is None


def test_a_gemm_launch_failure_named_in_a_title_on_a_gpu_newer_than_the_cuda():
    found = failing(holdout("holdout15", "W213"))  # TF 1.14 (CUDA 10.0), RTX A5000: 'SGEMM launch failed'
    assert found["cublas.init-failed"].caused_by == "gpu.compute-capability-unsupported"
    older = holdout("holdout15", "W213").replace("RTX A5000", "GTX 1080")
    assert "gpu.compute-capability-unsupported" not in failing(older)


def test_two_versions_of_the_driver_library_inside_a_container():
    found = failing(holdout("holdout15", "W020"))  # the image's libnvidia-ml 525 beside the host's 470
    assert found["driver.library-mismatch"].caused_by == "cuda.container-driver-libraries"
    rows = ("libnvidia-ml.so.1 -> libnvidia-ml.so.525.105.17\nlibnvidia-ml.so.470.129.06\n"
            "libnvidia-ml.so.525.105.17\nFailed to initialize NVML: Driver/library version mismatch")
    assert "cuda.container-driver-libraries" not in failing(rows)  # on the host: a half-done driver update
    assert "cuda.container-driver-libraries" in failing("$ docker run --gpus all img nvidia-smi\n" + rows)


def test_a_container_of_nvidia_docker_1_keeps_the_old_drivers_volume():
    found = failing(holdout("holdout15", "W019"))  # nvidia_driver_384.81 after a driver update
    assert found["driver.library-mismatch"].caused_by == "cuda.container-driver-libraries"
    assert "docker volume rm nvidia_driver_384.81" in found["cuda.container-driver-libraries"].fix
    spaced = "Failed to initialize NVML: Driver / library version mismatch"
    assert "driver.library-mismatch" in failing(spaced)


def test_nvml_blocked_by_the_operating_system_in_wsl2_is_no_gpu_passed_in():
    found = failing(holdout("holdout15", "W012"))  # an L40S in TCC mode on Windows Server, WSL 2
    assert found["nvml.no-permission"].caused_by == "driver.missing"
    native = "Failed to initialize NVML: GPU access blocked by the operating system"
    assert set(failing(native)) == {"nvml.no-permission"}  # no WSL 2 seen: NVML's own word


def test_another_vendors_gpu_named_with_a_failed_cuinit():
    found = failing(holdout("holdout15", "W407"))  # an Intel UHD 620 only, tensorflow-gpu on Windows
    assert found["cuda.init-failed"].caused_by == "driver.missing"
    both = holdout("holdout15", "W407").replace("the GPU is Intel", "the GPU is a GTX 1050 and Intel")
    assert "driver.missing" not in failing(both)


@pytest.mark.parametrize("text, name", [
    ("i'm using nvidia-418,titan V,ubuntu 18.04", "titan V"),
    ("an ubuntu workstation with 4 RTXA4000s", "RTXA4000"),
    ("I have a k40 graphics card, a Tesla K40m", "Tesla K40m"),
    ("The GPU is an AMD Radeon RX 580", "AMD Radeon RX 580"),
])
def test_gpu_names_as_people_write_them(text, name):
    assert explain_report(text).environment["gpus"][0]["name"] == name


def test_a_cudnn_function_missing_from_the_cudnn_loaded():
    symbol = ("F tensorflow/stream_executor/cuda/cuda_dnn.cc:221] Check failed: s.ok() could not find {} in"
              " cudnn DSO; dlerror: /opt/conda/lib/python3.5/site-packages/tensorflow/python/"
              "_pywrap_tensorflow.so: undefined symbol: {}")
    assert set(failing(symbol.format("cudnnCreate", "cudnnCreate"))) == {"cudnn.missing"}  # none loaded
    other = symbol.format("cudnnConvolutionBackwardFilter_v2", "cudnnConvolutionBackwardFilter_v2")
    assert set(failing(other)) == {"cudnn.version-mismatch"}  # a cuDNN of another release
    assert "cudnn.version-mismatch" in failing(holdout("holdout15", "W427"))  # as a person retells it


def test_tensorflows_windows_self_check_names_the_dll_it_could_not_load():
    found = failing(holdout("holdout15", "W424"))  # "- Could not load 'cudart64_80.dll'. The GPU version ..."
    assert found["tensorflow.import-failed"].caused_by == "cuda.libraries-missing"
    assert "cudnn.missing" in failing("Tensorflow looks for `libcudnn.so.6` and does not find it")
    assert not failing("Tensorflow looks for `libcudnn.so.8` and finds it")


def test_memory_freed_by_killing_the_notebook_was_held_by_it():
    found = failing(holdout("holdout15", "W114"))
    assert found["gpu.out-of-memory"].caused_by == "gpu.memory-held-by-other-processes"
    oom = "failed to allocate 2.96G (3179741184 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n"
    assert "gpu.memory-held-by-other-processes" not in failing(oom + "after closing the file it worked")


def test_the_first_reservation_of_the_whole_gpu_retried_smaller_is_no_failure():
    text = holdout("holdout15", "W113")  # "Total memory: 10.91GiB", then "failed to allocate 10.91G"
    assert not failing(text)
    assert "gpu.out-of-memory" in failing(text.replace("failed to allocate 10.91G (11715084288",
                                                       "failed to allocate 6.00G (6442450944"))
    again = text.replace("What does it mean?", "E tensorflow/stream_executor/cuda/cuda_driver.cc:1002] failed"
                         " to allocate 9.82G (10543575552 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY")
    assert "gpu.out-of-memory" in failing(again)  # the retry failed too


def test_jax_falling_back_to_the_cpu_with_nothing_of_cuda_in_the_log():
    found = failing(holdout("holdout15", "W315"))  # only the Interpreter platform: a CPU-only jaxlib
    assert set(found) == {"tensorflow.cpu-only-build"}
    assert "jaxlib" in found["tensorflow.cpu-only-build"].title
    failed = "failed call to cuInit: CUDA_ERROR_UNKNOWN\nWARNING:absl:No GPU/TPU found, falling back to CPU."
    assert "tensorflow.cpu-only-build" not in failing(failed)  # a CUDA jaxlib that could not start


def test_the_container_toolkit_on_a_driver_older_than_it_supports():
    found = failing(holdout("holdout15", "W008"))  # driver 367.134: "nvml error: function not found"
    assert not found["driver.too-old"].caused_by
    assert "418.81.07" in found["driver.too-old"].detail
    assert "Container Toolkit" in found["driver.too-old"].title


def test_mig_spelled_out_and_an_uncorrectable_ecc_error_as_written():
    assert "gpu.mig-enabled" in failing(holdout("holdout15", "W009"))
    assert not failing("Does the A100 support Multi-Instance GPU?")
    found = failing(holdout("holdout15", "W028"))  # every pod on the GPU gets 'CUDA error: out of memory'
    assert found["gpu.out-of-memory"].caused_by == "gpu.ecc-errors"
    assert not failing("There are no uncorrectable ECC errors on this GPU")


def test_xla_refusing_a_ptxas_release_it_knows_to_miscompile():
    found = failing(holdout("holdout15", "W105"))  # "ptxas 12.3.103 has a bug that we think can affect XLA"
    assert "12.3.103" in found["xla.ptxas-too-old"].title


def test_ngc_images_warning_of_no_driver_on_wsl2_where_it_cannot_see_one():
    text = holdout("holdout15", "W007")  # NGC 20.03 on WSL 2: the entrypoint looks for /proc/driver/nvidia
    assert not failing(text)
    assert explain_report(text).environment["tensorflow_version"] == "2.1.0"  # not the image's 20.03
    native = text.replace("cuda on wsl2 documentation", "the docs").replace("wsl-user-guide", "guide")
    assert "driver.missing" in failing(native)


def test_grappler_asking_for_an_unregistered_gpu_is_noise():
    line = ("E tensorflow/core/grappler/clusters/utils.cc:127] Not found: TF GPU device with id 0 was not"
            " registered")
    assert not failing(line)


def test_cudart_warnings_on_a_machine_said_to_have_no_gpu():
    assert not failing(holdout("holdout15", "W325"))  # "My VM doesn't have GPU acceleration"
    warnings = holdout("holdout15", "W325").replace("My VM doesn't have GPU acceleration", "My VM has a T4")
    assert "cuda.libraries-missing" in failing(warnings)
    symptom = "\nTensorFlow says the machine has no GPU available"  # what TensorFlow finds, not the hardware
    assert "cuda.libraries-missing" in failing(warnings + symptom)
    # "i don't have any graphics card": CUDA's own probes finding nothing say the same
    found = failing(holdout("holdout31", "O206"))
    assert {i for i, f in found.items() if not f.caused_by} == {"driver.missing"}
    assert logs.read_text("My laptop has no NVIDIA graphics card.\n")["system"]["no_gpu_stated"]
    assert "system" not in logs.read_text("Why does my laptop have no GPU available?\n")


def test_a_gpu_newer_than_tensorflows_cuda_that_computes_wrongly():
    found = failing(holdout("holdout15", "W126"))  # TF 1.14 on an RTX 3090: "images ... totally noisy"
    assert set(found) == {"gpu.compute-capability-unsupported"}
    slow_only = holdout("holdout15", "W126").replace("generated totally noisy", "generated fine")
    assert set(failing(slow_only)) == {"gpu.compute-capability-ptx-jit"}
    assert not failing("The model does not learn when using the GPU")  # a GPU TensorFlow's CUDA knows


@pytest.mark.parametrize("said", [
    "But after install keras, tensorflow only can find CPU.",  # holdout6 M122
    "My model was running fine on GPU, but after installing this package as mentioned in the README , now my"
    " model started running on CPU only.",  # holdout6 M123
])
def test_a_package_installed_after_tensorflow_left_it_on_the_cpu(said):
    found = failing(said)
    assert set(found) == {"tensorflow.conflicting-installs"}
    assert "pip list" in found["tensorflow.conflicting-installs"].fix


def test_cuda_installed_before_the_cpu_is_no_package_conflict():
    assert not failing("after installing CUDA 11.2 tensorflow runs on the CPU")
    assert not failing("after installing keras, it runs on the GPU")


# --- learnt from holdout16 ---------------------------------------------------------------------------


def test_nvml_that_cannot_start_beside_an_insufficient_driver_is_no_driver():
    found = failing(holdout("holdout16", "X005"))  # a GPU serving image started without --gpus
    assert set(found) == {"driver.missing"}
    insufficient = "CUDA driver version is insufficient for CUDA runtime version"
    assert "driver.too-old" in failing(insufficient)  # alone: the driver is there, and old


def test_a_stub_libcuda_where_the_host_runs_no_kernel_driver():
    found = failing(holdout("holdout16", "X001"))  # a GPU image on a Kubernetes node with no GPU
    assert not found["driver.missing"].caused_by
    assert "cuda.container-driver-libraries" not in found


def test_pytorchs_words_for_an_unknown_cuda_error():
    assert set(failing(holdout("holdout16", "X310"))) == {"cuda.init-failed"}


def test_jax_naming_its_platforms_wrapped_over_lines():
    found = failing(holdout("holdout16", "X315"))  # "Could not find \\n registered platform ...: Host"
    assert {i for i, f in found.items() if not f.caused_by} == {"tensorflow.cpu-only-build"}


def test_tensorflow_0x_wording_of_a_cudnn_mismatch():
    found = failing(holdout("holdout16", "X410"))  # "... 4008 but source was compiled against 4007"
    assert found["cudnn.init-failed"].caused_by == "cudnn.version-mismatch"


def test_nearly_no_free_memory_at_start_on_a_gpu_of_its_own():
    found = failing(holdout("holdout16", "X325"))  # 106 of 3011 MiB free on one GPU, 228 of 11438 on another
    assert set(found) == {"gpu.memory-held-by-other-processes"}
    assert not failing(holdout("holdout9", "Q132"))  # a Jetson shares the system's memory


def test_tensorflow_before_1_2_had_cuda_on_macos():
    assert "tensorflow.cpu-only-build" not in failing(holdout("holdout16", "X116"))  # TF 0.9, GTX 960
    newer = holdout("holdout16", "X116").replace("tensorflow version: 0.9.0", "tensorflow version: 1.5.0")
    assert "tensorflow.cpu-only-build" in failing(newer)


def test_an_invalid_device_ordinal_under_mig_follows_from_it():
    found = failing(holdout("holdout16", "X014"))  # ranks 1.. ask for device 1.. on a MIG-partitioned A100
    assert found["cuda.init-failed"].caused_by == "gpu.mig-enabled"


def test_a_kernel_lookup_whose_registered_devices_have_xla_gpu_but_no_gpu():
    found = failing(holdout("holdout16", "X113"))  # "Registered devices: [CPU, XLA_CPU, XLA_GPU]"
    assert found["log.unrecognized"].caused_by == "cuda.libraries-missing"
    assert not failing("Registered devices: [CPU, GPU, XLA_CPU, XLA_GPU]")


def test_cudnn_failing_after_a_kernel_fault_follows_from_it():
    found = failing(holdout("holdout16", "X120"))  # LAUNCH_FAILED, then CUDNN_STATUS_INTERNAL_ERROR
    assert found["cudnn.init-failed"].caused_by == "gpu.illegal-address"


# --- learnt from holdout17 ---------------------------------------------------------------------------


def test_cudnn_sub_libraries_from_two_installs():
    # a CUDA toolkit's cuDNN reached through LD_LIBRARY_PATH beside the pip wheel's
    found = failing(holdout("holdout17", "Y417"))
    assert set(found) == {"cuda.ld-library-path-shadowing"}
    assert "/usr/local/cuda-12.1/lib" in found["cuda.ld-library-path-shadowing"].title
    assert "libcudnn_cnn_infer.so.8" in found["cuda.ld-library-path-shadowing"].title
    # the other wording of the same loader error
    assert set(failing(holdout("holdout17", "Y418"))) == {"cuda.ld-library-path-shadowing"}
    # a conda environment's cuDNN: not LD_LIBRARY_PATH's
    assert set(failing(holdout("holdout17", "Y419"))) == {"cuda.loaded-not-pip"}
    # a sub-library that is simply absent is still cuDNN missing
    absent = ("Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open"
              " shared object file: No such file or directory")
    assert set(failing(absent)) == {"cudnn.missing"}


def test_cudnn_and_cufft_finding_no_memory_for_their_work():
    assert set(failing(holdout("holdout17", "Y407"))) == {"gpu.out-of-memory"}  # a cuFFT plan
    found = failing(holdout("holdout17", "Y103"))  # cuDNN's scratch space, beside a ptxas the driver replaces
    assert found["gpu.out-of-memory"].status == Status.FAIL
    assert found["xla.toolchain-missing"].status == Status.WARN


def test_a_person_calling_the_allocators_benign_notice_running_out_of_memory():
    assert not failing(holdout("holdout17", "Y112"))
    assert "gpu.out-of-memory" in failing("Training ran out of memory and stopped.")


def test_notices_that_are_not_failures():
    unparsed = next(ln for ln in holdout("holdout17", "Y305").splitlines() if "could not be parsed" in ln)
    assert not failing(unparsed)
    ignored_true = unparsed.replace('"False"', '"True"')
    assert "log.unrecognized" in failing(ignored_true)  # a request for memory growth that was ignored
    assert not failing("2021-06-16 07:55:36.860499: W tensorflow/core/platform/profile_utils/cpu_utils.cc"
                       ":108] Failed to find bogomips or clock in /proc/cpuinfo;"
                       " cannot determine CPU frequency")


def test_a_nan_loss_on_a_gpu_newer_than_tensorflows_cuda():
    found = failing(holdout("holdout17", "Y121"))  # "GTX 3090" (an RTX 3090), TensorFlow 1.15
    assert found["gpu.compute-capability-unsupported"].status == Status.FAIL
    assert found["log.program-error"].caused_by == "gpu.compute-capability-unsupported"
    assert not failing("epoch 3: loss: nan")  # a NaN alone is the program's


def test_memory_another_program_holds_as_written():
    found = failing(holdout("holdout17", "Y315"))  # "all works when the app is not running"
    assert found["cudnn.init-failed"].caused_by == "gpu.memory-held-by-other-processes"


def test_tensorflow_imported_from_the_user_site_inside_a_conda_env():
    found = failing(holdout("holdout17", "Y017"))
    assert "/.local/lib/python3.8/site-packages/tensorflow" in found["tensorflow.conflicting-installs"].title
    assert found["cuda.libraries-missing"].caused_by == "tensorflow.conflicting-installs"
    frame = '  File "/home/u/.local/lib/python3.8/site-packages/tensorflow/__init__.py", line 1, in <module>'
    assert "tensorflow.conflicting-installs" not in failing(frame)  # no conda environment shown


def test_a_placement_refused_because_no_gpu_is_registered():
    found = failing(holdout("holdout17", "Y318"))  # TensorFlow 1.0.1 beside a GTX 1070 Theano uses
    assert found["runtime.no-gpu-visible"].caused_by == "tensorflow.cpu-only-build"  # 1.0's CPU package
    assert "no devices matching" in found["runtime.no-gpu-visible"].detail
    no_kernel = ("Cannot assign a device for operation 'x': Could not satisfy explicit device specification"
                 " '/device:GPU:0' because no supported kernel for GPU devices is available.")
    assert "runtime.no-gpu-visible" not in failing("GPU model and memory: GTX 1070\n" + no_kernel)
    fatal = ("F tensorflow/stream_executor/lib/statusor.cc:34] Attempting to fetch value instead of handling"
             " error Internal: no supported devices found for platform CUDA")
    named = failing("GPU model and memory: Tesla T4\n" + fatal)
    assert {i for i, f in named.items() if not f.caused_by} == {"runtime.no-gpu-visible"}
    assert set(failing(fatal)) == {"log.unrecognized"}  # no GPU named: what it means stays open


def test_conda_cuda_packages_of_two_majors_in_one_environment():
    found = failing(holdout("holdout17", "Y414"))  # cuda-nvcc 12.4 beside cudatoolkit 11.8
    assert 'conda install "cuda-nvcc=11.8"' in found["tensorflow.conflicting-installs"].plan.commands()
    assert found["gpu.compute-capability-unsupported"].caused_by == "tensorflow.conflicting-installs"
    same = "cuda-nvcc    11.8.89   0    nvidia\ncudatoolkit    11.8.0    h09e9_13    conda-forge\n"
    assert "tensorflow.conflicting-installs" not in failing(same)
    assert "tensorflow.conflicting-installs" in failing(same.replace("11.8.89", "12.4.131"))


def test_a_kernel_image_refused_after_xla_said_its_ptxas_does_not_know_the_gpu():
    found = failing(holdout("holdout17", "Y113"))  # "ptxas does not support CC 8.9", then INVALID_IMAGE
    assert found["gpu.compute-capability-unsupported"].caused_by == "xla.ptxas-too-old"
    assert not found["xla.ptxas-too-old"].caused_by


# --- learnt from holdout18 ---------------------------------------------------------------------------


def test_a_driver_too_old_for_the_cuda_pytorch_was_built_with():
    found = failing(holdout("holdout18", "Z007"))  # collect_env: CUDA 10.2 build, driver 410.104
    assert set(found) == {"driver.too-old"}
    assert "PyTorch was built for CUDA 10.2" in found["driver.too-old"].detail
    new_enough = holdout("holdout18", "Z007").replace("410.104", "450.51.06")
    assert "driver.too-old" not in failing(new_enough)


def test_an_nvidia_smi_newer_than_the_driver_it_reports():
    found = failing(holdout("holdout18", "Z016"))  # NVIDIA-SMI 450.66, Driver Version: 418.67
    assert set(found) == {"nvml.nvidia-smi-disagrees"}
    assert "nvml.nvidia-smi-disagrees" not in failing(holdout("holdout3", "K032"))  # WSL 2's older nvidia-smi
    docker = holdout("holdout", "H036")  # 390.48 beside 390.59: one branch
    assert "nvml.nvidia-smi-disagrees" not in failing(docker)


def test_more_words_of_known_mechanisms():
    assert roots(holdout("holdout18", "Z212")) == {"python.protobuf-mismatch"}  # a field it lacks
    assert set(failing(holdout("holdout18", "Z217"))) == {"keras.keras3-api-change"}  # title, no colon
    assert set(failing(holdout("holdout18", "Z221"))) == {"cpu.avx-missing"}  # R's "caught illegal operation"


def test_the_templates_cuda_cudnn_field_names_cuda_first():
    def read(text: str) -> dict:
        return explain_report(text, MATRIX).environment

    assert read("- CUDA/cuDNN version: 10.1/7.6")["cudnn_version"] == "7.6"
    assert read("- CUDA/cuDNN version: 10.1/7.6")["nvcc_version"] == "10.1"
    assert read("CUDA/cuDNN version: 9.0 / 7")["cudnn_version"] == "7"
    assert read("- CUDA/cuDNN version: cuDNN 7.6, CUDA 10.1")["cudnn_version"] == "7.6"
    assert not read("- CUDA/cuDNN version: 11.4").get("cudnn_version")
    archive = "CUDA/cuDNN version: cuda_10.0.130_410.48_linux, cudnn-10.0-linux-x64"
    assert not read(archive).get("cudnn_version")
    # with the toolkit stated, an XLA_GPU-only device list still means the CUDA libraries did not load
    assert "cuda.libraries-missing" in failing(holdout("holdout16", "X421"))


def test_a_cudnn_built_for_another_cuda_major():
    found = failing(holdout("holdout18", "Z323"))  # cuDNN's loader wants libcublasLt.so.12; nvcc 11.8
    assert set(found) == {"cudnn.version-mismatch"}
    assert set(failing(corpus("124"))) == {"cudnn.version-mismatch"}  # TensorFlow 2.13 (CUDA 11.8)
    # the same loader line where the environment is CUDA 12: cuBLAS 12 itself is missing
    twelve = "Cuda compilation tools, release 12.2, V12.2.140\n" + line_of("124", "libcublasLt.so.12")
    assert set(failing(twelve)) == {"cuda.libraries-missing"}


def test_nccl_without_room_in_dev_shm():
    found = failing(holdout("holdout18", "Z120"))  # "creating shared memory segment /dev/shm/nccl-..."
    assert "--shm-size" in " ".join(found["nccl.error"].plan.commands())
    assert "shared-memory" not in failing("NCCL error: unhandled system error")["nccl.error"].title


def test_a_quoted_dll_a_title_says_it_could_not_find():
    # a title: "Could not find 'cudart64_100.dll'"
    assert set(failing(holdout("holdout18", "Z404"))) == {"cuda.libraries-missing"}


def test_jax_listing_its_gpus_after_a_fallback_it_quotes():
    assert not failing(holdout("holdout18", "Z313"))  # "No GPU/TPU found" quoted; jax.devices: cuda(id=0..9)
    assert "tensorflow.cpu-only-build" in failing("No GPU/TPU found, falling back to CPU.")


def test_a_kernel_lookup_whose_registered_devices_have_no_gpu():
    found = failing(holdout("holdout18", "Z409"))  # "Registered devices: [CPU]" on an RTX 3070
    assert {i for i, f in found.items() if not f.caused_by} == {"runtime.no-gpu-visible"}


def test_a_ptxas_refusal_cut_before_its_last_word():
    assert set(failing(holdout("holdout18", "Z109"))) == {"xla.ptxas-too-old"}  # "... 'sm_86' is not defin"


# --- learnt from holdout19 ---------------------------------------------------------------------------


def test_slurms_nodevfiles_wherever_the_text_shows_it():
    found = failing(holdout("holdout19", "B004"))  # Ray: "invalid literal for int() ...: 'NoDevFiles'"
    assert {i for i, f in found.items() if not f.caused_by} == {"gpu.hidden-by-cuda-visible-devices"}
    assert "--gres=gpu:N" in found["gpu.hidden-by-cuda-visible-devices"].fix
    assert not failing("CUDA_VISIBLE_DEVICES=1")  # a value alone, without a symptom: perhaps on purpose


def test_xlas_buffer_report_printed_on_out_of_memory():
    assert set(failing(holdout("holdout19", "B316"))) == {"gpu.out-of-memory"}  # "XLA Label: fusion"
    # absl-py's own prefix, with a 15-digit thread id, comes off before the line is read
    assert set(failing(holdout("holdout19", "B113"))) == {"gpu.out-of-memory"}
    assert not failing("The XLA Label: fusion heuristics are described in the docs")


def test_nvcc_refusing_the_gpus_architecture():
    found = failing(holdout("holdout19", "B111"))  # CUDA 11.6's nvcc: "Value 'sm_89' is not defined ..."
    assert found["xla.ptxas-too-old"].title.startswith("nvcc does not know sm_89")


# --- learnt from the older splits, session of 2026-11-28 --------------------------------------------


def test_ray_gives_a_task_that_requests_no_gpu_none():
    # a Ray worker's "(pid=3343) ... cuInit: CUDA_ERROR_NO_DEVICE"
    found = failing(holdout("holdout5", "H032"))
    assert {i for i, f in found.items() if not f.caused_by} == {"gpu.hidden-by-cuda-visible-devices"}
    assert "num_gpus=1" in found["gpu.hidden-by-cuda-visible-devices"].fix
    # Tune's status: "Resources requested: 1/8 CPUs, 0/1 GPUs", no error: a warning
    found = failing(holdout("holdout16", "X009"))
    assert str(found["gpu.hidden-by-cuda-visible-devices"].status) == "warn"
    # trials that hold the GPUs, or a cluster without any, or an error outside Ray: nothing about Ray
    assert not failing("Logical resource usage: 4.0/8 CPUs, 1.0/1 GPUs\n"
                       "Resources requested: 1/8 CPUs, 0/1 GPUs")
    assert not failing("Resources requested: 1/8 CPUs, 0/0 GPUs")
    plain = failing("E tensorflow/stream_executor/cuda/cuda_driver.cc:300] failed call to cuInit:"
                    " CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected")
    assert "gpu.hidden-by-cuda-visible-devices" not in plain


def test_gpus_busy_on_a_batch_schedulers_node():
    found = failing(holdout("holdout12", "T009"))  # #SBATCH script, then error=46 "busy or unavailable"
    assert {i for i, f in found.items() if not f.caused_by} == {"gpu.compute-mode-exclusive"}
    assert found["gpu.compute-mode-exclusive"].title.startswith("CUDA found the GPUs busy on a Slurm node")
    busy = ("THCudaCheck FAIL file=/pytorch/aten/src/THC/THCTensorRandom.cu line=25 error=46 : all"
            " CUDA-capable devices are busy or unavailable")
    assert "gpu.compute-mode-exclusive" not in failing(busy)  # no cluster: a VM's, WSL's or vGPU's refusal
    assert "gpu.compute-mode-exclusive" in failing("#PBS -l nodes=1:gpus=1\n" + busy)
    found = failing(holdout("holdout20", "D113"))  # Summit: "jsrun -n 1 -r 1 -c 42 -g 6 ...", error 46
    assert found["gpu.compute-mode-exclusive"].title.startswith("CUDA found the GPUs busy on a LSF node")
    assert not failing("#SBATCH --gres=gpu:1\nexport NV_GPU=$CUDA_VISIBLE_DEVICES")  # a job script alone


def test_a_person_saying_several_notebooks_were_open():
    found = failing((CORPUS / "248-held-multiple-notebooks-vertex-t4-tf26.txt").read_text(encoding="utf-8"))
    assert {i for i, f in found.items() if not f.caused_by} == {"gpu.memory-held-by-other-processes"}
    assert not failing("I am running several instances of the model class in one script")


def test_cuda_visible_devices_picking_among_mixed_gpus_by_nvidia_smis_numbers():
    found = failing(holdout("holdout12", "T237"))  # CUDA_VISIBLE_DEVICES=3 over 1080 Ti, TITAN V, V100, GP100
    assert set(found) == {"gpu.device-order"}
    assert "CUDA_DEVICE_ORDER=PCI_BUS_ID" in found["gpu.device-order"].fix
    listing = "GPU 0: TITAN V\nGPU 1: Tesla V100-PCIE-16GB\nGPU 2: TITAN V\n"
    assert "gpu.device-order" in failing(listing + "$ CUDA_VISIBLE_DEVICES=1 python train.py")
    assert not failing(listing + "$ CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=1 python train.py")
    assert not failing("GPU 0: TITAN V\nGPU 1: TITAN V\n$ CUDA_VISIBLE_DEVICES=1 python x.py")  # one model


@pytest.mark.parametrize("text, version", [
    ("1.26.3 3.11.5 (main, Sep 11 2023, 13:54:46) [GCC 11.2.0] uname_result(system='Linux')", "3.11.5"),
    ("version:        3.7.1 (default, Dec 10 2018, 22:54:23) [MSC v.1915 64 bit (AMD64)]", "3.7.1"),
    ("3.12.0rc1 (main, Aug  7 2023, 10:00:00) [Clang 14.0.3 ]", "3.12.0"),
    ("- __Python__ '3.6.9 |Anaconda, Inc.| (default, Jul 30 2019, 19:07:31) \\n[GCC 7.3.0]'", "3.6.9"),
])
def test_sys_version_wherever_a_tool_prints_it(text, version):
    assert environment(text)["python_version"] == version


def test_a_version_in_brackets_that_is_not_sys_version():
    assert environment("numpy 1.26.3 (installed, pinned)").get("python_version") is None


@pytest.mark.parametrize("text, name", [
    ("How can I save this problem? I use 3080ti /tensorflow 1.15 / python 3.7.10 / cuda 10.1", "RTX 3080ti"),
    ("在nvidia A4000显卡上无法训练", "RTX A4000"),
    ("the A100 in our cluster", "A100"),
])
def test_a_gpu_model_named_without_its_brand(text, name):
    assert environment(text)["gpus"][0]["name"] == name


def test_a_number_that_is_no_gpu_model():
    assert not environment("trained for 3080 steps, then 4090 more").get("gpus")


def test_a_gpu_named_without_its_brand_beside_a_release_that_predates_it():
    found = failing(holdout("holdout16", "X101"))  # "I use 3080ti /tensorflow 1.15 / python 3.7.10 / ..."
    assert {i for i, f in found.items() if not f.caused_by} == {"gpu.compute-capability-unsupported"}
    assert environment("see /opt/tensorflow 1.15 /bin").get("tensorflow_version") is None  # a path's part


def test_a_later_sentence_adds_the_capability_of_the_gpu_named_first():
    text = ("This error appears on my A6000 GPU running the software.\n"
            "UserWarning: NVIDIA RTX A6000 with CUDA capability sm_86 is not compatible with this PyTorch")
    gpu = environment(text)["gpus"][0]
    assert (gpu["name"], gpu["compute_capability"]) == ("RTX A6000", "8.6")
    other = "My A6000 is slow.\nA Tesla T4 with CUDA capability sm_75 works"  # another model's capability
    assert environment(other)["gpus"][0].get("compute_capability") is None


# --- learnt from holdout20 ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["D218", "D219", "D225"])
def test_generated_code_newer_than_the_protobuf_runtime(name):
    # "TypeError: __new__() got an unexpected keyword argument 'serialized_options'"
    assert "python.protobuf-mismatch" in failing(holdout("holdout20", name))


def test_create_key_from_newer_generated_code():
    line = "TypeError: __init__() got an unexpected keyword argument 'create_key'"
    assert set(failing(line)) == {"python.protobuf-mismatch"}
    assert "python.protobuf-mismatch" not in failing("TypeError: f() got an unexpected keyword argument 'k'")


def test_the_kernel_module_finding_no_device_to_drive():
    found = failing(holdout("holdout20", "D408"))  # modprobe: could not insert 'nvidia': No such device
    assert {i for i, f in found.items() if not f.caused_by} == {"driver.missing"}
    assert found["driver.missing"].title == "No NVIDIA GPU is attached to this machine"
    other = failing("modprobe: FATAL: Module nvidia not found in directory /lib/modules/5.15.0-88-generic")
    assert other["driver.missing"].title != "No NVIDIA GPU is attached to this machine"


@pytest.mark.parametrize("name", ["D301", "D302"])
def test_a_cudnn_pip_installed_that_will_not_load(name):
    # jax[cuda12_pip] installed, then "CUDA backend failed to initialize: Unable to load cuDNN. Is it ..."
    found = failing(holdout("holdout20", name))
    assert {i for i, f in found.items() if not f.caused_by} == {"cudnn.version-mismatch"}
    assert "--force-reinstall" in found["cudnn.version-mismatch"].fix


def test_a_cudnn_that_will_not_load_without_a_pip_extra_is_missing():
    found = failing("CUDA backend failed to initialize: Unable to load cuDNN. Is it installed?")
    assert set(found) == {"cudnn.missing"}


def test_no_device_on_a_machine_said_to_have_no_gpu():
    found = failing(holdout("holdout20", "D026"))  # "A simple import on a CPU node triggers these messages"
    assert "cuda.init-failed" not in found
    no_device = ("E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit:"
                 " CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected")
    assert "cuda.init-failed" in failing(no_device)
    assert "cuda.init-failed" not in failing("I run this on a CPU-only server.\n" + no_device)


def test_pytorchs_warning_for_a_gpu_outside_its_build():
    found = failing(holdout("holdout20", "D419"))  # "Found GPU0 NVIDIA GeForce GTX 1070 Ti which is of ..."
    assert {i for i, f in found.items() if not f.caused_by} == {"gpu.compute-capability-unsupported"}
    old = ("UserWarning: Found GPU0 Tesla K40c which is of cuda capability 3.5.\n"
           "    PyTorch no longer supports this GPU because it is too old.")
    assert "gpu.compute-capability-unsupported" in failing(old)


def test_a_cublas_status_on_a_gpu_newer_than_the_releases_cuda():
    found = failing(holdout("holdout20", "D102"))  # TF 2.1 (CUDA 10.1), RTX 3090: CUBLAS_STATUS_NOT_SUPPORTED
    assert {i for i, f in found.items() if not f.caused_by} == {"gpu.compute-capability-unsupported"}


def test_typographic_quotes_read_as_ascii():
    found = failing(holdout("holdout20", "D214"))  # "... but these aren’t available on your machine."
    assert set(found) == {"cpu.avx-missing"}


def test_an_importerror_naming_a_cuda_library_short():
    found = failing(holdout("holdout20", "D008"))  # title: "ImportError: libcublas.so.8.0 with v0.1.1"
    assert {i for i, f in found.items() if not f.caused_by} == {"cuda.libraries-missing"}
    assert "cuda.libraries-missing" not in failing("ImportError: libfoo.so.1 with v0.1.1")


def test_a_nested_error_quoted_again_by_a_go_runtime():
    found = failing(holdout("holdout20", "D020"))  # rootless podman's hook: "cuda error: unknown error"
    assert "cuda.init-failed" in found
    line = 'caused \\"error running hook: stderr: nvidia-container-cli: initialization error: cuda error: ' \
           'unknown error\\\\\\\\n\\\\\\""'
    assert "cuda.init-failed" in failing(line)


def test_julias_cuda_driver_older_than_every_toolkit():
    found = failing(holdout("holdout20", "D017"))  # "CUDA driver 8.0.0 is not compatible with any ..."
    assert set(found) == {"driver.too-old"}
    assert environment(holdout("holdout20", "D017"))["gpus"][0]["name"] == "quadro 600"


def test_an_empty_buffer_refused_is_no_out_of_memory():
    found = failing(holdout("holdout20", "D027"))  # "failed to allocate 0B (0 bytes) from device: ..."
    assert "gpu.out-of-memory" not in found
    assert "gpu.out-of-memory" in failing("failed to allocate 158.06M (165740544 bytes) from device:"
                                          " CUDA_ERROR_OUT_OF_MEMORY")


def test_julias_versioninfo_names_the_cuda_its_driver_supports():
    env = environment("CUDA toolchain:\n- runtime 13.0, local installation\n- driver 570.172.8 for 13.0\n")
    assert env["cuda_driver_version"] == "13.0"


def test_a_gpu_that_keeps_disappearing_is_lost():
    found = failing(holdout("holdout20", "D311"))  # "Titan V ... keeps disappearing", RmInitAdapter failed
    assert {i for i, f in found.items() if not f.caused_by} == {"gpu.lost"}
    assert found["driver.missing"].caused_by == "gpu.lost"
    assert not failing("The progress bar keeps disappearing in my notebook")


def test_tensorflow_1s_swig_loader_in_a_traceback():
    found = failing(holdout("holdout20", "D019"))  # frames through pywrap_tensorflow_internal.py, cut short
    assert {i for i, f in found.items() if not f.caused_by} == {"tensorflow.import-failed"}
    # a missing driver explains TensorFlow 1.x's failed import (its GPU build links libcuda itself)
    found = failing(holdout("holdout20", "D309"))
    assert found["tensorflow.import-failed"].caused_by == "driver.missing"


@pytest.mark.parametrize("text, gpu", [
    ("GPU: GeForce GTX 780 Ti\nGPU compute capability: 3.5\n", ("GeForce GTX 780 Ti", "3.5")),  # D125
    ("gpu_devices:         GPU_0: GeForce GT 1030\n", ("GeForce GT 1030", None)),  # faceswap's system info
    ("GPU: GeForce GTX 780 Ti\nGPU compute capability: 3.5.1 (driver)\n", ("GeForce GTX 780 Ti", None)),
])
def test_a_stated_gpu_and_its_capability_field(text, gpu):
    found = environment(text)["gpus"][0]
    assert (found["name"], found.get("compute_capability")) == gpu


def test_an_old_release_listing_no_gpu_with_no_gpu_package_named():
    # TF 1.0.1 (conda), a GTX 1070 seen by Theano, TensorFlow's placement finds only the CPU
    found = failing(holdout("holdout17", "Y318"))
    assert {i for i, f in found.items() if not f.caused_by} == {"tensorflow.cpu-only-build"}
    refused = ("tensorflow version 1.0.1\nCannot assign a device to node 'MatMul': Could not satisfy explicit"
               " device specification '/device:GPU:0' because no devices matching that specification are"
               " registered in this process; available devices: /job:localhost/replica:0/task:0/cpu:0\n")
    assert "tensorflow.cpu-only-build" in failing(refused)
    # the GPU package named: its CUDA side is what failed, not the package
    assert "tensorflow.cpu-only-build" not in failing("pip install tensorflow-gpu==1.0.1\n" + refused)
    # a version alone, with no sign that TensorFlow lists no GPU, says nothing of the package
    assert "tensorflow.cpu-only-build" not in failing("tensorflow version 1.13.1\nGPU utilization is low\n")
    # XLA's CUDA platform finding no device is a CUDA build's
    assert "tensorflow.cpu-only-build" not in failing(
        "tensorflow 1.15.4\nInternalError: no supported devices found for platform CUDA\n")


@pytest.mark.parametrize("line", [
    "When trying to use JAX + GPU in a CentOS8 container, I have the following warning",
    "(base) [docker@4d16b48b1a22 ~]$ nvidia-smi",
])
def test_a_container_named_in_prose_or_by_its_prompt(line):
    assert environment(line)["container"] == "docker"


def test_a_container_not_named():
    assert not environment("This is not in a container, it runs on the host").get("container")
    assert not environment("[user@gpu-node-01 ~]$ nvidia-smi").get("container")


def test_an_older_releases_wheel_kernels_reach_a_gpu_by_ptx():
    found = failing(holdout("holdout15", "W123"))  # TF 2.2, GTX 950M (5.0): no sm_50, PTX from compute_35
    assert {i for i, f in found.items() if not f.caused_by} == {"gpu.compute-capability-ptx-jit"}
    # 2.3 kept PTX for 7.0 only, so a 5.0 GPU has no kernel at all
    two_three = "TensorFlow version: 2.3.1\nGPU model and memory: GeForce GTX 950M\n"
    assert "gpu.compute-capability-unsupported" in failing(two_three)
    # a vendor build that opened CUDA libraries of another major is not the wheel
    vendor = two_three + "Successfully opened dynamic library libcudart.so.11.0\n"
    assert "gpu.compute-capability-unsupported" not in failing(vendor)


def test_a_visible_devices_string_that_code_goes_on_to_use_is_no_value():
    joined = 'os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(str(g) for g in ids)'
    assert "CUDA_VISIBLE_DEVICES" not in env(joined)
    assert env('os.environ["CUDA_VISIBLE_DEVICES"] = "1"')["CUDA_VISIBLE_DEVICES"] == "1"


@pytest.mark.parametrize("line", ["TF-GPU v1.14 CUDA runs out of memory", "using tf-gpu 1.14"])
def test_tensorflows_version_after_its_gpu_package_short_name(line):
    assert environment(line)["tensorflow_version"] == "1.14"


@pytest.mark.parametrize("line, version", [
    ("NVIDIA 410.104", "410.104"),  # J108's setup list
    ("gpu: NVIDIA-SMI 440.33.01", "440.33.01"),
    (" - Nvidia driver version = 465.42", "465.42"),
    ("nvidia-drivers-530.41.03", "530.41.03"),  # Gentoo's package
    ("akmod-nvidia-565.77-1.fc41.x86_64", "565.77"),  # Fedora's
    ("ubuntu 24.04, Nvidia 4090, driver nvidia-open 565.57.01", "565.57.01"),
])
def test_the_driver_version_as_people_and_packages_write_it(line, version):
    assert environment(line)["driver_version"] == version


def test_a_pip_package_of_nvidia_is_no_driver():
    assert not environment("nvidia-ml-py 12.535.108").get("driver_version")


def test_a_wheel_pip_refuses_names_another_pythons_tag():
    found = environment(holdout("holdout12", "T116"))  # a cp35 wheel refused; "I am running python3.6"
    assert found["python_version"] == "3.6"
    assert environment("tensorflow-1.0.0-cp35-cp35m-win_amd64.whl")["python_version"] == "3.5"


def test_tensorflow_1s_api_with_no_version_on_a_gpu_newer_than_its_cuda():
    found = failing(holdout("holdout20", "D428"))  # keras on TF 1.x (deprecation_wrapper), RTX 3090, cuBLAS
    assert {i for i, f in found.items() if not f.caused_by} == {"gpu.compute-capability-unsupported"}
    blas = ("E tensorflow/stream_executor/cuda/cuda_blas.cc:428] failed to run cuBLAS routine:"
            " CUBLAS_STATUS_EXECUTION_FAILED\nGPU: NVIDIA GeForce RTX 3090\n")
    assert "gpu.compute-capability-unsupported" not in failing(blas)  # no release shown: nothing to judge
    v1 = "AttributeError: module 'tensorflow._api.v1.config' has no attribute 'list_physical_devices'\n"
    assert "gpu.compute-capability-unsupported" in failing(v1 + blas)


@pytest.mark.parametrize("line", ["bash: /usr/bin/nvidia-smi: No such file or directory",
                                  "zsh: command not found: nvidia-smi"])
def test_a_shell_that_finds_no_nvidia_smi(line):
    assert set(failing(line)) == {"driver.missing"}


def test_keras_registering_its_types_twice_is_a_mismatched_keras():
    found = failing("AssertionError: Duplicate registrations for type 'experimentalOptimizer'")
    assert {i for i, f in found.items() if not f.caused_by} == {"tensorflow.conflicting-installs"}


@pytest.mark.parametrize("line, name", [
    ("cudnn是7.6 GPU是笔记本的3070，显存8G", "RTX 3070"),
    ("my GPU: 4090", "RTX 4090"),
    ("GPU memory 4090 MiB", None),  # a quantity
    ("Epoch 3070 of the training", None),  # no GPU words
])
def test_a_geforce_named_by_its_number_on_a_line_about_the_gpu(line, name):
    gpus = environment(line).get("gpus") or [{}]
    assert gpus[0].get("name") == name


def test_newer_xlas_device_line_with_its_driver_and_cudnn():
    line = ("I0000 00:00:1786697985.585090 2686669 service.cc:194]   StreamExecutor [0]: NVIDIA GeForce"
            " RTX 4060 Laptop GPU, Compute Capability 8.9 (Driver: 13.0.0[580.126.9]; Runtime: 12.8.0;"
            " Toolkit: 12.9.0; DNN: 9.10.2)")
    found = environment(line)
    assert found["gpus"][0]["compute_capability"] == "8.9"
    assert (found["driver_version"], found["cuda_driver_version"], found["cudnn_version"]) == (
        "580.126.09", "13.0", "9.10.2")


def test_rs_word_for_no_importable_tensorflow():
    said = "Error: Valid installation of TensorFlow not found.\n"
    assert {i for i, f in failing(said).items() if not f.caused_by} == {"tensorflow.missing"}
    # the Python exception R prints after it says why, where it is one the engine knows
    why = said + ("Python exception encountered:\n"
                  " AssertionError: Duplicate registrations for type 'optimizer'\n")
    assert {i for i, f in failing(why).items() if not f.caused_by} == {"tensorflow.conflicting-installs"}


@pytest.mark.parametrize("name, root", [
    ("E202", "tensorflow.conflicting-installs"),  # R: "Duplicate registrations for type ..."
    ("E210", "tensorflow.missing"),  # R: "Valid installation of TensorFlow not found", the exception cut off
    ("E103", "gpu.compute-capability-unsupported"),  # TF 1.14, "GPU是笔记本的3070", Blas GEMM launch failed
])
def test_holdout21_cases_by_their_mechanism(name, root):
    found = failing(holdout("holdout21", name))
    assert {i for i, f in found.items() if not f.caused_by} == {root}


def test_a_protobuf_builder_named_alone():
    assert "python.protobuf-mismatch" in failing(holdout("holdout11", "S125"))  # title only
    assert "python.protobuf-mismatch" not in failing("ImportError: cannot import name 'builder' from 'mylib'")


def test_a_gpu_below_every_wheel_where_tensorflow_lists_none():
    found = failing(holdout("holdout17", "Y015"))  # Quadro K420 in a template's table; "no supported devices"
    assert {i for i, f in found.items() if not f.caused_by} == {"gpu.compute-capability-unsupported"}
    line = ("F tensorflow/stream_executor/lib/statusor.cc:34] Internal: no supported devices found for"
            " platform CUDA\n")
    assert "gpu.compute-capability-unsupported" not in failing(line + "GPU: GeForce GTX 1080\n")


def test_tensorflow_js_gpu_binding_windows_could_not_load():
    found = failing(holdout("holdout19", "B311"))  # tfjs-node-gpu 4.22, CUDA 12.5 installed
    assert {i for i, f in found.items() if not f.caused_by} == {"cuda.libraries-missing"}
    cpu = ("Error: The specified module could not be found.\n"
           "\\\\?\\C:\\app\\node_modules\\@tensorflow\\tfjs-node\\lib\\napi-v8\\tfjs_binding.node\n")
    assert "cuda.libraries-missing" not in failing(cpu)  # the CPU binding needs no CUDA


def roots(text: str) -> set[str]:
    return {i for i, f in failing(text).items() if not f.caused_by}


@pytest.mark.parametrize("name, root", [
    ("F405", "cudnn.version-mismatch"),  # PyTorch: "compiled against (8, 7, 0) but found runtime version"
    ("F406", "cudnn.version-mismatch"),  # older PyTorch: "... but linked against (8, 0, 3)"
    ("F416", "tensorflow.cpu-only-build"),  # "AssertionError: Torch not compiled with CUDA enabled"
    ("F425", "cpu.avx-missing"),  # jaxlib's own AVX check
    ("F213", "driver.missing"),  # TensorFlow's Windows preload of nvcuda.dll, WinError 126
    ("F128", "tensorflow.conflicting-installs"),  # keras's own __init__ cannot import keras.api's name
    ("F123", "cuda.container-driver-libraries"),  # a Dockerfile's apt install of nvidia-cuda-toolkit
    ("F318", "cuda.container-driver-libraries"),  # the toolkit cannot mount nvidia-smi over the image's
    ("F315", "cuda.libraries-missing"),  # the placer's device list: XLA_GPU:0 and no GPU:0
])
def test_holdout22_cases_by_their_mechanism(name, root):
    assert roots(holdout("holdout22", name)) == {root}


def test_another_frameworks_checks_set_no_tensorflow_fact():
    facts = logs.read_text(line_of_holdout("holdout22", "F408", "PyTorch was compiled"))
    assert "tensorflow" not in facts and [i["compiled"] for i in facts["log"]["evidence"]] == ["8.7.0"]
    torch = failing(holdout("holdout22", "F416"))["tensorflow.cpu-only-build"]
    assert torch.title == "PyTorch is a CPU-only build"
    assert roots("CUDA used to build PyTorch: 12.1\nIs CUDA available: True\n") == set()


def line_of_holdout(split: str, name: str, needle: str) -> str:
    return next(ln for ln in holdout(split, name).splitlines() if needle in ln)


def test_a_dockerfile_names_driver_packages_only_when_it_installs_them():
    mismatch = "\nFailed to initialize NVML: Driver/library version mismatch\nin a docker container\n"
    for line in ("RUN apt-get update && apt-get install -y --no-install-recommends cuda-11-8 git",
                 "RUN apt-get install -y nvidia-utils-535 && pip install tensorflow"):
        assert "cuda.container-driver-libraries" in roots(line + mismatch), line
    for near in ("RUN apt-get remove -y libnvidia-compute-535",  # the fix itself
                 "RUN conda install -y -c nvidia cuda",  # conda's cuda brings no driver
                 "RUN pip install nvidia-cuda-runtime-cu12 && apt-get install -y git",
                 "RUN apt-key adv --fetch-keys https://x.example/compute/cuda/repos/ && apt install -y git"):
        assert "cuda.container-driver-libraries" not in roots(near + mismatch), near


def test_a_mount_error_over_any_injected_driver_file():
    line = ("nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/x/merged"
            "/usr/bin/nvidia-smi: file exists")
    assert roots(line) == {"cuda.container-driver-libraries"}
    assert roots("cp: cannot create regular file '/tmp/a': File exists") == set()


def test_cudnn_plan_fallback_is_harmless_noise():
    text = holdout("holdout22", "F429")  # "Plan failed with a cudnnException ... CUDNN_STATUS_NOT_SUPPORTED"
    assert roots(text) == set()
    assert logs.read_text(text)["log"]["noise"] == {"cudnn-plan-fallback": 1}


def test_an_exclusive_mode_asked_of_the_scheduler_is_no_warning():
    assert "gpu.compute-mode-exclusive" not in failing(holdout("holdout22", "F322"))  # bsub -gpu "mode=..."
    assert "gpu.compute-mode-exclusive" in failing("The GPUs are set to exclusive process mode.\n")


def test_a_macos_root_folder_not_a_folder_named_users():
    assert logs.read_text('File "/usr/project/dlab/Users/jj/osprey/__init__.py", line 183')[
        "system"].get("platform") != "macos"
    assert logs.read_text('File "/Users/jj/osprey/__init__.py", line 183')["system"]["platform"] == "macos"


def test_a_shape_error_where_the_log_reports_one_is_the_programs():
    found = failing(holdout("holdout22", "F515"))  # InvalidArgumentError: Received a label value of 26 ...
    assert set(found) == {"log.program-error", "log.unrecognized"}
    assert found["log.unrecognized"].caused_by == "log.program-error"
    assert roots("ValueError: Shapes (None, 4) and (None, 10) are incompatible") == {"log.program-error"}
    assert roots("NameError: name 'self' is not defined") == {"log.program-error"}
    assert roots("the docs say shapes (2, 3) and (3, 2) are incompatible for add") == set()  # no error line
    # an environment failure is the root; the program's error beside it is its echo
    both = failing("Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot"
                   " open shared object file\nValueError: Shapes (None, 4) and (None, 10) are incompatible\n")
    assert both["log.program-error"].caused_by is not None


def test_a_cuda_tensorflow_on_macos_is_its_builders():
    text = holdout("holdout22", "F104")  # TF 2.0 built from source on a MacBook's GT 750M (3.0)
    assert "gpu.compute-capability-unsupported" not in failing(text)
    linux = text.replace("libcudart.10.0.dylib", "libcudart.so.10.0").replace("GPU@MacOSX", "GPU@Linux")
    linux = linux.replace("OS X does not support NUMA", "").replace(".dylib", ".so")
    assert "gpu.compute-capability-unsupported" in failing(linux)  # the wheel's kernels start at 3.5


def test_holdout23_cases_by_their_mechanism():
    # Quadro K4200 (3.0) found by TensorFlow's CUDA 10.0 build, nothing registered after it
    assert roots(holdout("holdout23", "G229")) == {"gpu.compute-capability-unsupported"}
    found = "Found device 0 with properties:\nname: Quadro K4200 major: 3 minor: 0\n"
    added = found + "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1746] Adding visible gpu devices: 0\n"
    assert roots(added) == set()  # a build that registers it was made for it
    # XLA's autotuner notice cut mid-line, and a collective cancelled as its step ended
    assert roots(holdout("holdout23", "G121")) == set()
    assert roots(holdout("holdout23", "G415")) == set()
    # MultiWorkerMirroredStrategy made after the program ran ops
    assert roots(holdout("holdout23", "G414")) == {"log.program-error"}


def test_another_vendors_gpu_where_tensorflow_lists_only_the_cpu():
    assert roots(holdout("holdout23", "G124")) == {"driver.missing"}  # Radeon RX 580; list_devices: CPU only
    both = ("Devices visible to TensorFlow: [_DeviceAttributes(/job:localhost/replica:0/task:0/device:CPU:0,"
            " CPU, 268435456), _DeviceAttributes(/job:localhost/replica:0/task:0/device:GPU:0, GPU, 1024)]")
    assert logs.read_text(both).get("runtime", {}).get("tf_visible_gpus") != 0


def test_the_drivers_memory_xids_are_ecc_errors():
    kernel = "NVRM: Xid (PCI:0000:9c:00): 48, pid=1234, name=python, An uncorrectable double bit error (DBE)"
    found = failing(kernel)
    assert {i for i, f in found.items() if not f.caused_by} == {"gpu.ecc-errors"}
    assert "Xid 48" in found["gpu.ecc-errors"].title
    assert roots("- `Xid 63`: Row Remapper marks a new row for remapping") == {"gpu.ecc-errors"}
    assert roots("NVRM: Xid (PCI:0000:9c:00): 13, Graphics Exception") == {"gpu.illegal-address"}
    # not ECC: the GSP firmware stopped answering, a GPU lost until it is reset
    assert roots("NVRM: Xid (PCI:0000:9c:00): 119, Timeout waiting for RPC from GSP") == {"gpu.lost"}


def test_versions_printed_together_and_a_python_tensorflow_ran_under():
    text = (
        "Python 3.6.9 (default, Dec  8 2021, 21:08:43)\n>>> import tensorflow\n>>> import keras\n"
        ">>> print(tensorflow.__version__, keras.__version__)\n2.7.0 2.8.0\n")
    tf = logs.read_text(text)["tensorflow"]
    assert tf["version"] == "2.7.0" and tf["distributions"]["keras"] == "2.8.0"
    # Keras 2.8 under TensorFlow 2.7; Python 3.6 is outside PyPI's 3.7-3.9, yet TensorFlow imported under it
    assert roots(text) == {"tensorflow.conflicting-installs"}
    stated = "Python version: 3.6.9\nTensorFlow version: 2.7.0\n"  # an issue template's fields, nothing run
    assert "tensorflow.python-unsupported" in roots(stated)
    one = logs.read_text(">>> print(tf.__version__, np.__version__)\n2.7.0\n")  # two names, one value
    assert "version" not in one.get("tensorflow", {})


def test_cuda_visible_devices_from_an_unexpanded_shell_variable():
    text = holdout("holdout24", "H320")  # CUDA_VISIBLE_DEVICES=${GPU_ID} ./tools/demo.py; a K520 shown
    assert roots(text) == {"gpu.hidden-by-cuda-visible-devices"}
    assert roots("CUDA_VISIBLE_DEVICES=${GPU_ID} ./tools/demo.py\nepoch 1 loss 0.3\n") == set()  # it ran


def test_nvidias_image_gpu_check_and_xlas_nccl_call():
    # NGC images check the GPUs at start: run without --gpus -> no driver; an RTX 3060 Ti -> too new
    assert roots(holdout("holdout25", "I302")) == {"driver.missing"}
    assert roots(holdout("holdout25", "I305")) == {"gpu.compute-capability-unsupported"}
    line = ("INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:275: NCCL operation ncclCommInitRank(&comm,"
            " nranks, id, rank) failed: unhandled cuda error")
    assert roots(line) == {"nccl.error"}


def test_a_cuda_library_that_needs_another_installs_copy_of_its_toolkit():
    # the pip wheel's libcublas needing the libcublasLt of its own release; another one was loaded first
    found = failing(holdout("holdout23", "G425"))
    assert {i for i, f in found.items() if not f.caused_by} == {"cuda.loaded-not-pip"}
    assert "Two CUDA installs are mixed" in found["cuda.loaded-not-pip"].title
    assert "libcublasLt" in found["cuda.loaded-not-pip"].fix
    # a toolkit's copy under LD_LIBRARY_PATH: the entry to drop is named
    line = ("ImportError: /usr/local/cuda-12.1/lib64/libcusparse.so.12: undefined symbol:"
            " __nvJitLinkAddData_12_1, version libnvJitLink.so.12")
    found = failing(line)
    assert set(found) >= {"cuda.ld-library-path-shadowing"}
    assert "/usr/local/cuda-12.1/lib64" in found["cuda.ld-library-path-shadowing"].fix
    # a program's own library missing a CUDA symbol is not two CUDA installs
    other = "OSError: /opt/app/libmyop.so: undefined symbol: cudaGetDevice, version libcudart.so.11.0"
    assert not {"cuda.loaded-not-pip", "cuda.ld-library-path-shadowing"} & set(failing(other))


def test_a_keras_api_error_without_its_traceback_where_keras_3_is_installed():
    error = "AttributeError: 'Sequential' object has no attribute 'output_names'\n"
    assert roots("tensorflow==2.17.0\n" + error) == {"keras.keras3-api-change"}  # tf.keras is Keras 3
    assert roots("keras 3.3.3\n" + error) == {"keras.keras3-api-change"}
    # under Keras 2, or with nothing installed shown, the line is only an error tfdoctor cannot place
    assert roots("tensorflow==2.12.0\n" + error) == {"log.unrecognized"}
    assert roots(error) == {"log.unrecognized"}
    # another object's missing attribute is the program's own, whatever Keras is installed
    assert roots("tensorflow==2.17.0\nAttributeError: 'NoneType' object has no attribute 'shape'\n") == {
        "log.unrecognized"}


def test_no_gpu_listed_beside_a_toolkit_whose_libraries_tensorflow_does_not_open():
    # TensorFlow 2.2 (and its 1.x run: libcudart.so.10.0); the toolkit is CUDA 10.2; a K40m; no GPU listed
    text = holdout("holdout19", "B208")
    assert logs.read_text(text)["runtime"]["tf_visible_gpus"] == 0  # "returns emplty list []."
    found = failing(text)
    assert {i for i, f in found.items() if not f.caused_by} == {"cuda.libraries-missing"}
    assert "the CUDA toolkit here is 10.2" in found["cuda.libraries-missing"].title
    gpu = "| NVIDIA-SMI 440.31  Driver Version: 440.31  CUDA Version: 10.2 |\n|   0  Tesla K40m  On   |\n"
    empty = "tf.config.list_physical_devices('GPU')` returns an empty list\n"
    found = failing("tensorflow==2.2.0\nnvcc: release 10.2, V10.2.89\n" + gpu + empty)
    assert "libcudart.so.10.1" in found["cuda.libraries-missing"].title
    # the toolkit TensorFlow was built for: the libraries are not what is missing
    assert "cuda.libraries-missing" not in roots("tensorflow==2.2.0\nnvcc: release 10.1, V10.1.243\n" + gpu
                                                 + empty)
    # CUDA 11 names its libraries by the major: 11.8 serves TensorFlow 2.11's CUDA 11.2
    assert "cuda.libraries-missing" not in roots("tensorflow==2.11.0\nnvcc: release 11.8, V11.8.89\n" + gpu
                                                 + empty)
    # TensorFlow 2.14+ finds its pip wheels: the system toolkit is not what it opens
    assert "cuda.libraries-missing" not in roots("tensorflow==2.15.0\nnvcc: release 12.4, V12.4.99\n" + gpu
                                                 + empty)


def test_package_mechanisms_in_other_tools_words():
    # output marked as shell comments: TensorFlow's CPU-only package, as newer pip names it
    assert roots("## numpy                        2.0.0\n## tensorflow_cpu               2.18.0\n") == {
        "tensorflow.cpu-only-build"}
    # a wheel installed from a URL names the platform it is for; TensorFlow on macOS has no NVIDIA GPU
    wheel = ("pip install https://github.com/x/y/releases/download/v2.15/tensorflow-2.15.0-cp311-cp311-macosx_14"
             "_0_arm64.whl\n>>> tf.config.list_physical_devices('GPU')\n[]\n")
    assert roots(wheel) == {"tensorflow.cpu-only-build"}
    assert environment("see https://example.org/macosx_14/notes.html\n").get("platform") is None  # a page
    assert roots("No matching distribution found for tensorflow-metal") == {"tensorflow.python-unsupported"}
    # Keras's access to TensorFlow's internals failing: a Keras of another build than the TensorFlow
    internal = ("AttributeError: module 'tensorflow.compat.v2.__internal__.tracking' has no attribute"
                " 'DelegatingTrackableMixin'")
    assert roots(internal) == {"tensorflow.conflicting-installs"}
    assert roots("AttributeError: `conv2d` is not available with Keras 3.") == {"keras.keras3-api-change"}
    # conda's plan switching its TensorFlow variant selector from the GPU build to a CPU one
    plan = ("The following packages will be UPDATED:\n\n"
            "    _tflow_180_select:   1.0-gpu              --> 3.0-eigen\n"
            "    tensorflow:          1.8.0-hb11d968_0     --> 1.7.0-0\n")
    assert roots(plan) == {"tensorflow.cpu-only-build"}
    listed = "_tflow_select             2.1.0                       gpu\ntensorflow                2.1.0\n"
    assert "tensorflow.cpu-only-build" not in roots(listed)
    # Poetry's resolver: the project's Python range, not an interpreter; PowerShell's prompt is Windows
    poetry = ("(py310) PS > poetry add tensorflow\n"
              "The current project's supported Python range (>=3.10,<4.0) is not compatible with some of the"
              " required packages Python requirement:\n"
              "  - tensorflow-io-gcs-filesystem requires Python >=3.7, <3.12, so it will not be satisfied for"
              " Python >=3.12,<4.0\n")
    found = failing(poetry)
    assert set(found) == {"tensorflow.python-unsupported"}
    assert "pyproject.toml" in found["tensorflow.python-unsupported"].fix
    assert environment(poetry)["platform"] == "windows"
    # SciPy's own check meeting NumPy 2
    scipy = ("/usr/lib/python3/dist-packages/scipy/__init__.py:146: UserWarning: A NumPy version >=1.17.3 and"
             " <1.25.0 is required for this version of SciPy (detected version 2.0.2")
    assert roots(scipy) == {"python.numpy-abi-mismatch"}
    assert roots(scipy.replace("2.0.2", "1.26.4")) == set()  # NumPy 1.x: not an ABI change


def test_a_calls_result_number_after_its_name_and_the_drivers_installer():
    # ollama's discovery: the driver API's cuInit and the runtime's cudaSetDevice returning 999 (UNKNOWN)
    assert roots("cuInit err: 999\n") == {"cuda.init-failed"}
    runtime = 'cudaSetDevice err: 999\nmsg="Unable to load cudart" error="cudart init failure: 999"\n'
    assert roots(runtime) == {"cuda.init-failed"}
    assert "UNKNOWN" in failing("nvcuda init failure: 999")["cuda.init-failed"].title
    assert roots("step 999 failed 3 times") == set()  # no call named
    assert roots("cudnnCreate err: 4\n") == set()  # cuDNN's own status, not a CUresult
    # a search list naming WSL's folder is not a WSL machine
    globs = ('msg="gpu library search" globs="[/usr/local/cuda/lib64/libcudart.so* '
             '/usr/lib/wsl/lib/libcudart.so*]"')
    assert environment(globs).get("platform") != "wsl2"
    assert environment("ls /usr/lib/wsl/lib\nlibcuda.so.1\n")["platform"] == "wsl2"
    # NVIDIA's installer failing to load its module (Secure Boot, a kernel it was not built for)
    text = ("Secure boot - Unable to load the kernel module 'nvidia.ko', ubuntu24.04 DRIVER_VERSION=535.161\n"
            "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when this"
            " kernel module was built against the wrong or improperly configured kernel sources\n")
    assert roots(text) == {"driver.missing"}
    assert environment(text)["os"] == "ubuntu24.04"
    assert environment("FROM nvidia/cuda:11.8.0-runtime-ubuntu22.04\n").get("os") is None  # an image's


def test_pytorchs_capability_check_names_the_gpu():
    line = "Found GPU0 GeForce GT 720 which is of cuda capability 3.5.\n"
    assert environment(line)["gpus"][0] == {**environment(line)["gpus"][0], "name": "GeForce GT 720",
                                            "compute_capability": "3.5"}
    newer = "Found GPU1 NVIDIA GeForce GTX 1070 Ti which is of compute capability (CC) 6.1."
    assert [(g["name"], g["compute_capability"]) for g in environment(newer)["gpus"]] == [
        ("NVIDIA GeForce GTX 1070 Ti", "6.1")]


def test_holdout27_mechanisms():
    # a library named as what TensorFlow looks for, or cannot open, in a person's words
    assert roots("It returns 0 GPUs because it is looking for a `cuda` library called 'libcudart.so.10.1'.\n"
                 "tensorflow 2.3\n") == {"cuda.libraries-missing"}
    assert roots("getting error: 'Cannot open dynamic library **libcublas.so.10**'\ntensorflow 2.3\n") == {
        "cuda.libraries-missing"}
    # a template's example is not this machine
    assert environment("- OS Platform and Distribution (e.g., Linux Ubuntu 18.04):\n").get("os") is None
    # CUDA's "insufficient driver" where the only GPU is another vendor's: no NVIDIA driver at all
    intel = ("Error CUDA driver version is insufficient for CUDA runtime version at line 167 in file ops.cu\n"
             "I'm using a integrated Intel GPU(iris xe graphics). os is win 11\n")
    assert roots(intel) == {"driver.missing"}
    assert environment(intel)["os"] == "win 11"
    # prints of one __version__ each, answered in turn; Keras 3 under TensorFlow 2.15 is the conflict
    printed = ("print(tf.__version__)\nprint(keras.__version__)\n\n2.15.0\n3.4.1\n"
               "AttributeError: module 'keras.api._v2.keras' has no attribute '__version__'\n")
    assert logs.read_text(printed)["tensorflow"]["distributions"]["keras"] == "3.4.1"
    found = failing(printed)
    assert {i for i, f in found.items() if not f.caused_by} == {"tensorflow.conflicting-installs"}
    assert found["keras.keras3-api-change"].caused_by == "tensorflow.conflicting-installs"
    assert environment("Running this on a Google Colab with T4 GPU\n")["platform"] == "linux"
    # a Jetson's GPU shares the system's memory: what is not free is not another GPU process's
    jetson = ("I tensorflow/core/common_runtime/gpu/gpu_device.cc:1405] Found device 0 with properties:\n"
              "name: NVIDIA Tegra X2 major: 6 minor: 2 memoryClockRate(GHz): 1.3005\n"
              "totalMemory: 7.66GiB freeMemory: 1.01GiB\n"
              "W tensorflow/core/framework/op_kernel.cc:1275] OP_REQUIRES failed at transpose_op.cc:199 :"
              " Resource exhausted: OOM when allocating tensor with shape[1,32,952,1424] and type float\n")
    assert roots(jetson) == {"gpu.out-of-memory"}
    # WSL2: Windows' drives mounted under /mnt, and a Linux driver package installed inside it
    wsl = ("nobu@LAPTOP-DNCQ5AAC:/mnt/d/cuda/rapids$ nvidia-smi\n"
           "nobu@LAPTOP-DNCQ5AAC:~$ dpkg --get-selections | grep nvidia\n"
           "libnvidia-compute-530:amd64                     install\n")
    assert environment(wsl)["platform"] == "wsl2"
    found = failing(wsl)
    assert set(found) == {"platform.wsl2-libcuda"}
    assert "libnvidia-compute" in found["platform.wsl2-libcuda"].fix
    assert "platform.wsl2-libcuda" not in failing("ii  nvidia-driver-535  535.104.05-0ubuntu1  amd64\n")


def test_a_gpu_below_every_wheel_where_the_person_says_it_runs_on_the_cpu():
    # a framework on a GPU older than every prebuilt wheel's minimum, in a person's words
    assert roots("My GPU is a Quadro K4000 and `jax` keeps falling back to CPU.\n") == {
        "gpu.compute-capability-unsupported"}
    fermi = "I am trying to train with my NVIDIA GeForce GTX 465 GPU, but it keeps running on CPU.\n"
    assert roots(fermi) == {"gpu.compute-capability-unsupported"}
    assert "2.0" in failing(fermi)["gpu.compute-capability-unsupported"].title
    assert roots("My GPU is a GTX 1080 and it keeps running on CPU.\n") == set()  # a GPU the wheels have
    assert roots("My GPU is a Quadro K4000.\n") == set()  # named, nothing said to fail


def test_holdout28_mechanisms():
    # WSL 1, and the container toolkit finding no GPU WSL passes in
    wsl1 = ("I'm using Windows with WSL1\n"
            "nvidia-container-cli: initialization error: WSL environment detected but no adapters were found:"
            " unknown.\n")
    assert roots(wsl1) == {"driver.missing"} and "WSL 1" in failing(wsl1)["driver.missing"].title
    # a driver library the loader finds but cannot map
    short = "ImportError: /usr/lib/x86_64-linux-gnu/libcuda.so.1: file too short\n"
    assert roots(short) == {"driver.missing"}
    # WSL2: a Linux driver installed by apt, the toolkit's stubs on LD_LIBRARY_PATH, error 500 in a container
    assert roots("WSL2 Ubuntu 22.04\nsudo apt install nvidia-utils-510\n") == {"platform.wsl2-libcuda"}
    stubs = ("WSL2 Ubuntu22.04\n"
             "export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib/stubs:$LD_LIBRARY_PATH\n")
    assert "stub" in failing(stubs)["platform.wsl2-libcuda"].title
    named = ("Windows 11 and WSL2, Docker Desktop\nfailed call to cuInit: CUDA_ERROR_NOT_FOUND: named symbol"
             " not found\n")
    found = failing(named)
    assert {i for i, f in found.items() if not f.caused_by} == {"platform.wsl2-libcuda"}
    assert "Container Toolkit" in found["platform.wsl2-libcuda"].fix
    linux = named.replace("Windows 11 and WSL2, Docker Desktop", "Ubuntu")
    assert "platform.wsl2-libcuda" not in failing(linux)


def test_cudnn_sub_libraries_windows_builds_in_templates_and_image_paths():
    # cuDNN 9's engine sub-library not loaded: a part of cuDNN is missing, not a start-up failure
    sub = ("Unable to load any of {libcudnn_engines_precompiled.so.9.4.0, libcudnn_engines_precompiled.so}\n"
           "RuntimeError: CUDNN_BACKEND_TENSOR_DESCRIPTOR cudnnFinalize failed cudnn_status:"
           " CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED\n")
    assert roots(sub) == {"cudnn.missing"}
    assert roots("cudnn_status: CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED\n") == {"cudnn.missing"}
    # a template's "Windows Version: 10.0.19041" under WSL2: a build that gives WSL 2 no GPU
    text = ("I am using the Docker WSL2 Backend\n"
            "docker run --rm -it --gpus=all nvcr.io/nvidia/k8s/cuda-sample:nbody nbody -gpu -benchmark\n"
            "  - Windows Version: 10.0.19041\n")
    assert roots(text) == {"driver.missing"}
    assert environment(text)["container"] == "docker"  # the image's path names no engine


def test_tensorflows_skipping_registering_gpu_devices_alone():
    # the words TensorFlow prints after "Cannot dlopen some GPU libraries", quoted in a sentence
    text = "tensorflow==2.20.0\npython3.10 + tensorflow2.20 Skipping registering GPU devices...\n"
    assert {i for i, f in failing(text).items() if not f.caused_by} == {"cuda.libraries-missing"}


def test_holdout29_mechanisms():
    # PyTorch's CPU-only wheel, by its local version or collect_env's "Could not collect"
    assert roots("PyTorch version: 1.7.1+cpu\n") == {"tensorflow.cpu-only-build"}
    assert roots("[pip3] torch==2.2.2+cpu\n") == {"tensorflow.cpu-only-build"}
    assert roots("CUDA used to build PyTorch: Could not collect\n") == {"tensorflow.cpu-only-build"}
    assert roots("pip install torch==1.9.1+cpu torchvision==0.10.1+cpu\n") == set()  # asked for only
    # NVRTC not knowing the GPU's architecture: the CUDA it ships predates the GPU
    assert roots("RuntimeError: nvrtc: error: invalid value for --gpu-architecture (-arch)\n") == {
        "gpu.compute-capability-unsupported"}
    # JAX's CUDA plugin failed to start: its "a CUDA-enabled jaxlib is not installed" is not a CPU-only jaxlib
    jax = ("ERROR:jax._src.xla_bridge:444] Jax plugin configuration error: Exception when calling"
           " jax_plugins.xla_cuda12.initialize()\n"
           "RuntimeError: Unable to load cuSPARSE. Is it installed?\n"
           "WARNING:jax._src.xla_bridge:794] An NVIDIA GPU may be present on this machine, but a CUDA-enabled"
           " jaxlib is not installed. Falling back to cpu.\n")
    assert "tensorflow.cpu-only-build" not in failing(jax)
    assert "tensorflow.cpu-only-build" in failing(jax.split("\n", 2)[2])  # the warning alone


def test_a_gpu_the_pcie_error_handler_gave_up_on_is_lost():
    dmesg = ("[  +0.000884] pcieport 0000:00:03.0: PCIe Bus Error: severity=Uncorrected (Fatal),"
             " type=Transaction Layer, (Requester ID)\n"
             "[  +0.000921] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)\n")
    assert roots(dmesg) == {"gpu.lost"}
    assert roots("[  +0.000002] snd_hda_intel 0000:03:00.1: AER: can't recover\n") == set()  # not the GPU
    assert roots("NVRM: Xid (PCI:0000:61:00): 62, pid=1, Internal micro-controller halt\n") == {"gpu.lost"}


def test_keras_3_shown_by_its_own_files_or_objects():
    # a file only Keras 3 has (keras/src/backend/, ops/, trainers/, layers/layer.py) shows it installed
    frame = ' File "/usr/lib/python3.11/site-packages/keras/src/backend/common/variables.py", line 550\n'
    error = "AttributeError: 'Sequential' object has no attribute 'output_names'\n"
    assert roots(frame + "\n" * (TRACEBACK_WINDOW + 2) + error) == {"keras.keras3-api-change"}
    # Keras 2.13-2.15 also keeps its sources in keras/src/, in engine/ and backend.py
    old = ' File "/usr/lib/python3.11/site-packages/keras/src/engine/training.py", line 550\n'
    assert roots(old + "\n" * (TRACEBACK_WINDOW + 2) + error) == {"log.unrecognized"}
    # a Keras 2 model class of a library (DeepChem's) lacking what Keras 3's models have not
    subclass = "AttributeError: '_GraphConvKerasModel' object has no attribute 'inputs'\n"
    assert roots("tensorflow==2.17.0\n" + subclass) == {"keras.keras3-api-change"}
    # Keras 2 code (transformers' TF models) handed a Keras 3 optimizer object
    optimizer = ("ValueError: Could not interpret optimizer identifier: "
                 "<keras.src.optimizers.adam.Adam object at 0x79d9071160e0>\n")
    assert roots("tensorflow 2.16.0rc0\n" + optimizer) == {"keras.keras3-api-change"}
    assert roots("tensorflow 2.15.0\n" + optimizer) == {"log.unrecognized"}
    assert "keras.keras3-api-change" in roots(holdout("holdout30", "N117"))


def test_keras_3s_add_weight_reading_a_keras_2_name_as_the_shape():
    assert roots(holdout("holdout30", "N122")) == {"keras.keras3-api-change"}
    frame = ' File "/usr/lib/python3.11/site-packages/keras/src/layers/layer.py", line 550, in add_weight\n'
    shape = ("ValueError: Cannot convert '('c', 'o', 'u', 'n', 't', 'e', 'r')' to a shape. "
             "Found invalid entry 'c' of type '<class 'str'>'.\n")
    assert roots(frame + shape) == {"keras.keras3-api-change"}
    # a shape of numbers the layer refuses is the program's own
    numbers = "ValueError: Cannot convert '(None, 'x')' to a shape.\n"
    assert "keras.keras3-api-change" not in roots(frame + numbers)
    # ... but an int, which Keras 2 took for a shape (Input(shape=(n_in))), is Keras 3's refusal
    assert roots(holdout("holdout34", "R418")) == {"keras.keras3-api-change"}
    assert roots("ValueError: Cannot convert '10' to a shape.") == {"keras.keras3-api-change"}


def test_a_module_of_tensorflow_missing_is_not_tensorflow_missing():
    # the notebook's header, then the import it failed at, then the module it could not find
    text = holdout("holdout30", "N127")
    assert roots(text) == {"keras.keras3-api-change"}  # tf.keras.layers.experimental: gone in Keras 3
    header = "ModuleNotFoundError                       Traceback (most recent call last)\n"
    missing = "----> 2 from tensorflow.contrib import slim\n"
    assert "tensorflow.missing" not in roots(
        header + missing + "ModuleNotFoundError: No module named 'tensorflow.contrib'\n")
    # without the module's own line, the import named is TensorFlow's
    assert "tensorflow.missing" in roots(header + "----> 2 import tensorflow as tf\n")


def test_a_pluggable_device_built_for_another_tensorflow():
    # tensorflow-metal lacking TensorFlow's own C API symbol: the plugin release is not this TensorFlow's
    found = failing(holdout("holdout30", "N313"))
    assert set(found) == {"tensorflow.conflicting-installs"}
    assert "tensorflow-metal" in found["tensorflow.conflicting-installs"].title
    assert "[and-cuda]" not in found["tensorflow.conflicting-installs"].fix  # macOS has no CUDA wheels
    assert roots("/libmetal_plugin.dylib: Symbol not found: _TF_AssignUpdateVariable") == {
        "tensorflow.conflicting-installs"}
    # the plugin failing to load for another reason is TensorFlow's import failing
    other = ("NotFoundError: dlopen(/opt/env/site-packages/tensorflow-plugins/libmetal_plugin.dylib, 0x0006):"
             " Library not loaded: @rpath/libc++.1.dylib")
    assert roots(other) == {"tensorflow.import-failed"}


def test_a_gpu_slowed_for_heat_as_dcgm_or_nvidia_smi_q_says():
    found = failing(holdout("holdout30", "N410"))  # dcgmi health: "clocks event due to thermal violation"
    assert set(found) == {"gpu.temperature-high"} and "GPU 2" in found["gpu.temperature-high"].title
    assert "-i 2" in found["gpu.temperature-high"].fix
    older = "Detected clock throttling due to thermal violation in GPU 0. Verify that the cooling ..."
    assert roots(older) == {"gpu.temperature-high"}
    assert roots("There were thermal violations totaling 12.5 seconds for GPU 3") == {"gpu.temperature-high"}
    assert roots("            HW Thermal Slowdown               : Active") == {"gpu.temperature-high"}
    # nvidia-smi -q on a cool GPU, and a person's question, are not a slowdown
    assert not roots("            HW Thermal Slowdown               : Not Active")
    assert not roots("How do I see if there was a thermal violation on my GPU?")


def test_paddles_and_cuda_pythons_words_for_a_library_not_loaded():
    paddle = ("RuntimeError: (PreconditionNotMet) Cannot load cudnn shared library. Cannot invoke method"
              " cudnnGetVersion.\n  [Hint: cudnn_dso_handle should not be null.] (at"
              " ../paddle/phi/backends/dynload/cudnn.cc:76)\n")
    assert roots(paddle) == {"cudnn.missing"}
    assert roots("[Hint: cublas_dso_handle should not be null.]") == {"cuda.libraries-missing"}
    # cuda-python (cudf) finding no driver function: no libcuda was loaded
    assert roots('RuntimeError: Function "cuInit" not found') == {"driver.missing"}
    assert roots('RuntimeError: Function "main" not found') == {"log.unrecognized"}


def test_an_apt_pin_of_cudnn_names_cudnn_first_then_its_cuda():
    assert environment("    libcudnn8=$CUDNN_VERSION-1+cuda11.2 \\\n").get("cudnn_version") is None
    assert environment("libcudnn8=8.1.1.33-1+cuda11.2\n")["cudnn_version"] == "8.1.1.33"


def test_an_add_on_saying_its_release_and_tensorflows_do_not_fit():
    # TF-DF's words for its inference.so refused (here with protobuf's check on its duplicate descriptors)
    found = failing(holdout("holdout32", "P407"))
    assert found["tensorflow.conflicting-installs"].caused_by is None
    assert "tensorflow-decision-forests" in found["tensorflow.conflicting-installs"].title
    assert found["python.protobuf-mismatch"].caused_by == "tensorflow.conflicting-installs"
    assert "tensorflow.conflicting-installs" not in roots("The version of TensorFlow and the data are not"
                                                          " compatible with this model")


def test_tensorflow_hub_asking_for_tf_keras_where_keras_3_is_installed():
    assert roots(holdout("holdout32", "P416")) == {"keras.keras3-api-change"}
    frame = ("File ~/env/lib/python3.10/site-packages/tensorflow_hub/__init__.py:100, in"
             " _ensure_keras_2_importable()")
    assert roots(frame + "\nImportError: No module named 'tf_keras'\n") == {"keras.keras3-api-change"}


def test_nvidia_smis_banner_cell_copied_out_is_no_package_row():
    # two machines' "NVIDIA-SMI 440.33.01" / "NVIDIA-SMI 460.91.03" in prose: no distribution installed twice
    assert "tensorflow.conflicting-installs" not in roots(holdout("holdout33", "Q311"))
    assert "tensorflow.duplicates" not in logs.read_text("NVIDIA-SMI 440.33.01\nNVIDIA-SMI 460.91.03\n").get(
        "tensorflow", {})
    assert logs.read_text("numpy 1.26.4\nnumpy 2.0.1\n")["tensorflow"]["duplicates"]  # a package's rows are


def test_tensorflows_gpu_device_code_found_a_device_so_it_is_a_cuda_build():
    # TF 1.9 "tensorflow" (the CPU wheel's name) printing gpu_device.cc's "Found device 0", cut after it
    found = failing(holdout("holdout33", "Q106"))
    assert "tensorflow.cpu-only-build" not in found
    assert logs.read_text(holdout("holdout33", "Q106"))["tensorflow"]["build_info"]["is_cuda_build"] is True


def test_tensorflow_creating_far_less_memory_on_one_gpu_than_on_another_of_its_model():
    found = failing(holdout("holdout33", "Q408"))  # 8 x 1080 Ti: GPU:6 with 681 MB, GPU:5 with 10489 MB
    assert set(found) == {"gpu.memory-held-by-other-processes"} and "681" in found[
        "gpu.memory-held-by-other-processes"].title
    line = ("I tensorflow/core/common_runtime/gpu/gpu_device.cc:1304] Created TensorFlow device"
            " (/job:localhost/replica:0/task:0/device:GPU:{i} with {mb} MB memory) -> physical GPU"
            " (device: {i}, name: {name}, pci bus id: 0000:0{i}:00.0, compute capability: 8.6)\n")
    even = "".join(line.format(i=i, mb=mb, name="NVIDIA RTX A6000") for i, mb in ((0, 46000), (1, 45800)))
    assert not failing(even)
    mixed = (line.format(i=0, mb=46000, name="NVIDIA RTX A6000")
             + line.format(i=1, mb=10000, name="NVIDIA GeForce RTX 3080"))
    assert not failing(mixed)  # two models: each has its own memory


def test_condas_solver_finding_no_tensorflow_build_for_the_envs_python():
    found = failing(holdout("holdout33", "Q302"))["tensorflow.python-unsupported"]
    assert "Python 3.8" in found.title and "3.5, 3.6, 3.7" in found.title
    assert "conda create -n tf python=3.7 tensorflow" in found.fix


def test_an_oom_line_whose_first_letter_was_cut():
    cut = ("OM when allocating tensor with shape[100,256,28,28] and type float on"
           " /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc")
    assert roots(cut) == {"gpu.out-of-memory"}
    assert not roots("ZOOM when allocating a window")


def test_only_the_cpu_used_on_a_gpu_below_every_builds_minimum():
    found = failing(holdout("holdout33", "Q124"))  # GTX 680 (3.0): "Only CPU is used and it's slow !"
    assert set(found) == {"gpu.compute-capability-unsupported"}
    assert "gpu.compute-capability-unsupported" not in failing("My GeForce GTX 680 runs this fine.")


def test_an_installers_check_finding_no_cudnn():
    assert roots("ERROR   cuDNN not found. See https://github.com/deepfakes/faceswap/blob/master/INSTALL.md#cudnn"
                 " for instructions") == {"cudnn.missing"}


def test_jaxs_cuda_plugin_of_another_release_than_jax():
    found = failing(holdout("holdout34", "R302"))  # "Mismatched PJRT plugin PJRT API version (0.54) and ..."
    assert set(found) == {"tensorflow.conflicting-installs"}
    assert "jax[cuda12]" in found["tensorflow.conflicting-installs"].fix
    assert "tensorflow" not in found["tensorflow.conflicting-installs"].fix  # JAX's fix, not TensorFlow's
    for name in ("R314", "R317"):  # the plugin asking jax for what this jax lacks (triton)
        assert "tensorflow.conflicting-installs" in roots(holdout("holdout34", name)), name
    # a jax traceback of the user's own is not the plugin's
    own = ('  File "/home/me/train.py", line 3, in <module>\n'
           "ImportError: cannot import name 'foo' from 'jax.experimental'\n")
    assert "tensorflow.conflicting-installs" not in roots(own)


def test_jaxlibs_version_check_finding_no_cuda_library():
    line = ("RuntimeError: jaxlib/cuda/versions_helpers.cc:81: operation cusparseGetProperty(MAJOR_VERSION,"
            " &major) failed: The cuSPARSE library was not found.")
    assert roots(line) == {"cuda.libraries-missing"}


def test_a_cpu_only_build_where_the_only_gpu_is_another_vendors():
    found = failing(holdout("holdout34", "R307"))  # macOS, Intel UHD Graphics 630, JAX's CPU fallback
    assert "tensorflow.cpu-only-build" not in found
    nvidia = holdout("holdout34", "R307").replace("Intel UHD Graphics 630", "NVIDIA GeForce RTX 3080")
    assert "tensorflow.cpu-only-build" in failing(nvidia)


def test_nccl_finding_no_gpu_memory_for_its_buffers():
    found = failing("misc/argcheck.cc NCCL WARN Cuda failure 'out of memory'\n"
                    "RuntimeError: NCCL operation ncclGroupEnd() failed: unhandled system error\n")
    assert found["nccl.error"].caused_by == "gpu.out-of-memory"
    assert failing(holdout("holdout34", "R326"))["nccl.error"].caused_by == "gpu.out-of-memory"  # "hitting an
    # OOM condition", in words


# --- PTX JIT-compiled while TensorFlow creates its GPU devices: the minutes it takes ---------------------

ADDED = ("2025-05-01 10:58:31.228142: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1490]"
         " Adding visible gpu devices: 0")  # holdout23 G107 (TensorFlow 1.11 on an RTX 4090)
NEXT = ("{}: I tensorflow/core/common_runtime/gpu/gpu_device.cc:971] Device interconnect StreamExecutor with"
        " strength 1 edge matrix:")
FOUND = ("name: NVIDIA GeForce RTX 4090 major: 8 minor: 9 memoryClockRate(GHz): 2.625\n"
         "pciBusID: 0000:01:00.0\n")


def test_a_minute_to_create_the_gpu_devices_is_the_ptx_jit():
    found = failing(FOUND + ADDED + "\n" + NEXT.format("2025-05-01 10:59:30.951311"))
    assert set(found) == {"gpu.compute-capability-ptx-jit"}
    assert "took 60 s to create its GPU devices (line 3)" in found["gpu.compute-capability-ptx-jit"].detail


def test_records_joined_on_one_line_and_a_line_without_a_time_between():
    joined = ADDED + " " + NEXT.format("2025-05-01 11:03:31.2")
    assert "gpu.compute-capability-ptx-jit" in failing(joined)
    cut = ADDED + "\n[...]\n" + NEXT.format("2025-05-01 11:03:31")
    assert "gpu.compute-capability-ptx-jit" in failing(cut)


@pytest.mark.parametrize("later", ["2025-05-01 10:58:43.1",  # 12 s: a Windows start-up with several GPUs
                                   "2025-05-01 10:58:20.0",  # before it: another process's log interleaved
                                   "2025-13-41 10:59:30.9"])  # no date
def test_a_start_up_of_seconds_or_times_that_are_no_gap_are_not_a_stall(later):
    assert "gpu.compute-capability-ptx-jit" not in failing(FOUND + ADDED + "\n" + NEXT.format(later))


def test_a_timestamp_many_lines_later_is_not_the_next_record():
    filler = "".join(f"user print {i}\n" for i in range(10))
    assert "gpu.compute-capability-ptx-jit" not in failing(
        FOUND + ADDED + "\n" + filler + NEXT.format("2025-05-01 11:30:00"))


def test_a_slow_start_on_a_gpu_the_build_has_native_kernels_for_is_not_the_jit():
    # TensorFlow 2.15 ships SASS for compute capability 8.9
    text = "tensorflow==2.15.0\n" + FOUND + ADDED + "\n" + NEXT.format("2025-05-01 10:59:30.951311")
    assert "gpu.compute-capability-ptx-jit" not in failing(text)


def test_a_long_line_of_timestamps_after_the_phrase_costs_one_scan():
    line = ADDED + " " + "2025-05-01 10:58:3" * 4000
    started = time.perf_counter()
    failing(line + "\n" + line)
    assert time.perf_counter() - started < 2


def test_the_gpu_package_named_with_an_underscore_and_condas_single_equals():
    # holdout23 G107: "tensorflow_gpu=1.11, keras_gpu=2.2.4"
    text = "I try to train this model, tensorflow_gpu=1.11, keras_gpu=2.2.4, but unfortunately:"
    assert explain_report(text, MATRIX).environment["tensorflow_version"] == "1.11"


# --- learnt from holdout35 ---------------------------------------------------------------------------

MAPPING = ("Device mapping:\n"
           "/job:localhost/replica:0/task:0/device:XLA_CPU:0 -> device: XLA_CPU device\n"
           "/job:localhost/replica:0/task:0/device:XLA_GPU:0 -> device: XLA_GPU device\n")  # holdout35 T110


def test_a_placement_logs_device_mapping_with_only_xla_gpu_is_tensorflow_without_its_cuda_libraries():
    assert set(failing(MAPPING)) == {"cuda.libraries-missing"}
    gpu = ("/job:localhost/replica:0/task:0/device:GPU:0 -> device: 0, name: GeForce RTX 2080 Ti, pci bus id:"
           " 0000:01:00.0, compute capability: 7.5\n")
    report = explain_report(MAPPING + gpu, MATRIX)
    assert not [f for f in report.findings if str(f.status) == "fail"]
    assert report.environment["gpus"][0]["compute_capability"] == "7.5"


def test_xla_gpu_beside_a_failed_cuinit_is_cuinits_failure():
    cuinit = line_of_holdout("holdout31", "O110", "failed call to cuInit")
    assert roots(cuinit + "\n" + MAPPING) == {"cuda.init-failed"}


def test_a_persons_cannot_opened_dynamic_library_is_the_loaders_failure():
    line = line_of_holdout("holdout35", "T303", "cannot opened dynamic library")
    assert "cuda.libraries-missing" in failing(line)


def test_faceswaps_system_information_saying_no_nvidia_driver():
    found = failing(holdout("holdout35", "T424"))
    assert "driver.missing" in found and found["log.program-error"].caused_by == "driver.missing"
    assert "driver.missing" not in failing("gpu_driver:          535.104.05")


def test_an_index_past_the_gpus_a_person_lists_while_it_runs_on_the_cpu():
    text = holdout("holdout35", "T422")  # one GTX1070, `set CUDA_VISIBLE_DEVICES=1 & spleeter train`
    found = failing(text)["gpu.hidden-by-cuda-visible-devices"]
    assert str(found.status) == "warn" and found.fix.startswith("set CUDA_VISIBLE_DEVICES=")
    assert "gpu.hidden-by-cuda-visible-devices" not in failing(text.replace("DEVICES=1", "DEVICES=0"))
    calm = text.replace("spleeter is only using my CPU", "spleeter works")
    assert "gpu.hidden-by-cuda-visible-devices" not in failing(calm)


def test_multi_backend_keras_without_what_its_caller_needs_is_another_keras_release():
    found = failing(holdout("holdout35", "T421"))  # keras.backend.tensorflow_backend._SESSION, TF 1.14
    conflict = found["tensorflow.conflicting-installs"]
    assert "written for" in conflict.title and "pip install" not in conflict.fix  # no keras==1.14.*
    assert "standalone Keras release" in conflict.fix
    # Keras 2.6+ (TensorFlow's own) keeps its version pin
    metric = "AlreadyExistsError: Another metric with the same name already exists."
    pinned = failing("tensorflow==2.12.0\n" + metric)
    assert "keras==2.12.*" in pinned["tensorflow.conflicting-installs"].fix


def test_without_a_driver_the_missing_cuda_libraries_come_second():
    found = failing(holdout("holdout35", "T322"))  # a Windows PC without an NVIDIA GPU: cudart, nvcuda
    assert found["cuda.libraries-missing"].caused_by == "driver.missing"


@pytest.mark.parametrize("text, code", [
    ("KeyError: 'val_accuracy'", "KeyError"),  # holdout33 Q122
    ("IndexError: list index out of range", "IndexError"),  # holdout31 O213
    ("ValueError: in user code:", "An error in the program's own function"),  # holdout35 T112
    ("tensorflow.python.framework.errors_impl.NotFoundError: content/dataset.tfrecords; No such file or"
     " directory", "A file the program reads is missing"),  # holdout35 T218
    ("FileNotFoundError: [Errno 2] No such file or directory: 'networks/generator.pkl'",
     "A file the program reads is missing"),
    ("tensorflow.python.framework.errors_impl.DataLossError: corrupted record at 12",
     "A data file the program reads is damaged"),
])
def test_the_programs_own_python_errors_and_missing_data_files_by_their_class(text, code):
    found = failing(text)
    assert set(found) == {"log.program-error"} and code in found["log.program-error"].title


@pytest.mark.parametrize("text", [
    "OSError: libcuda.so: cannot open shared object file: No such file or directory",  # holdout9 Q024
    "FileNotFoundError: [Errno 2] No such file or directory: 'nvidia-smi'",
    "FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/bin/ptxas'",
    "said KeyError: 'x' in passing",
])
def test_a_missing_library_or_tool_of_the_installation_is_no_data_file(text):
    assert "log.program-error" not in failing(text)


def test_a_lone_cudart_warning_before_the_programs_own_error_stays_a_notice():
    text = holdout("holdout31", "O213")  # cudart64_110.dll not found, then IndexError in load_dataset
    assert set(failing(text)) == {"log.program-error"}
    named = "I'm running on Windows 10 with GTX 1080Ti.\n" + text  # holdout33 Q424: a GPU set up
    assert "cuda.libraries-missing" in failing(named)


@pytest.mark.parametrize("text, step", [
    ("ValueError: Shapes (None, 4) and (None, 10) are incompatible", "Compare the shapes"),
    ("FileNotFoundError: [Errno 2] No such file or directory: 'data/train.csv'", "Check the path"),
    ("KeyError: 'val_accuracy'", "last frame in the program's own files"),
    ("E0101 00:00:00.0 1 cuda.cc:1] CUDA_ERROR_INVALID_VALUE: invalid argument", "CUDA_LAUNCH_BLOCKING=1"),
])
def test_the_next_step_for_a_programs_error_fits_its_kind(text, step):
    assert step in failing(text)["log.program-error"].fix


def test_a_macs_own_amd_gpu_is_no_nvidia_gpu_a_cpu_only_build_misses():
    text = holdout("holdout35", "T408")  # macOS, "AMD Radeon Pro 530", pip finds no TensorFlow 2.3.0 for 3.9
    assert roots(text) == {"tensorflow.python-unsupported"}
    nvidia = text.replace("AMD Radeon Pro 530", "NVIDIA GeForce GTX 1080")
    assert "tensorflow.cpu-only-build" in roots(nvidia)


@pytest.mark.parametrize("text", [
    "ValueError: Tensor conversion requested dtype float64 for Tensor with dtype float32: 'Tensor(\"N:0\")'",
    "TypeError: Tensors in list passed to 'inputs' of 'Einsum' Op have types [float16, float32] that don't"
    " all match.",  # holdout35 T116
    "InvalidArgumentError: cannot compute MatMul as input #1(zero-based) was expected to be a float tensor"
    " but is a double tensor [Op:MatMul]",
])
def test_the_programs_tensors_of_another_dtype_than_an_operation_takes(text):
    assert "shape, dtype or value" in failing(text)["log.program-error"].title


@pytest.mark.parametrize("text, key, value", [
    ("- Python: `3.12.3`", "python_version", "3.12.3"),  # holdout35 T101's template, values as inline code
    ("- cuDNN: `9`", "cudnn_version", "9"),  # (its major alone, as the whole field)
    ("cuDNN 9 is great", "cudnn_version", None),
    ("At this time, the Nvidia drivers are 410.78 with CUDA 10.0.", "driver_version", "410.78"),  # T108
    ("My nvidia driver versions are 375.66.", "driver_version", "375.66"),  # T401
    ("The currently installed CUDA driver is version 550.54.15 supporting CUDA Toolkit 12.4.",
     "driver_version", "550.54.15"),  # holdout36 U319
    ("驱动版本: 450.102.04", "driver_version", "450.102.04"),  # T215, a CJK template's "driver version"
    ("| python | 3.8.10 |", "python_version", "3.8.10"),  # holdout55 D503: a Markdown table of two cells
    ("| tensorflow-cpu              | 2.10.0|", "tensorflow_version", "2.10.0"),
    ("| Driver Version | 535.54.03 |", "driver_version", "535.54.03"),
    ("| python | tensorflow | 2.10.0 |", "python_version", None),  # (three cells: not a name and its value)
    ("      tf:                 1.9.0", "tensorflow_version", "1.9.0"),  # holdout51 Z413: aligned in a column
])
def test_versions_in_the_forms_people_write_them(text, key, value):
    assert environment("log line\n" + text + "\n").get(key) == value


def test_inline_code_is_kept_where_a_message_quotes_with_it():
    numpy2 = "AttributeError: `np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead."
    assert "python.numpy-abi-mismatch" in failing(numpy2)


# --- learnt from holdout36 ---------------------------------------------------------------------------


def test_nvidias_image_banner_breaks_its_driver_sentence_and_its_requirement_rules():
    text = holdout("holdout36", "U102")  # "...Release 440.33 or later, but\n  version 430.26 was detected"
    found = failing(text)["driver.too-old"]
    assert found.title == "NVIDIA driver 430.26 is too old for this container image (it needs 440.33)"
    assert "440.33 or newer" in found.fix and "418.39" not in found.fix + found.detail
    assert environment(text)["driver_version"] == "430.26"
    one_line = ("ERROR: This container was built for NVIDIA Driver Release 440.33 or later, but version"
                " 430.26 was detected and compatibility mode is UNAVAILABLE.")
    assert environment(one_line)["driver_version"] == "430.26"


def test_macos_loader_not_loading_cudas_dylib_is_a_missing_cuda_library():
    found = failing(holdout("holdout36", "U203"))  # "Library not loaded: @rpath/libcudart.8.0.dylib"
    missing = found["cuda.libraries-missing"]
    assert "CUDA 8" in missing.title
    assert found["tensorflow.import-failed"].caused_by == "cuda.libraries-missing"
    assert "DYLD_LIBRARY_PATH" in missing.detail + missing.fix
    assert "LD_LIBRARY_PATH, the ld" not in missing.detail
    assert "pip install" not in missing.fix  # no CUDA wheels on macOS


def test_the_cuda_majors_of_macos_library_names():
    from tfdoctor.versions import library_cuda_major, library_major

    assert library_cuda_major("libcudart.8.0.dylib") == 8 and library_major("libcudnn.5.dylib") == 5


def test_the_kernels_log_of_an_illegal_instruction_in_tensorflows_library():
    kernel = ("Apr  4 21:03:45 tower kernel: [  552.800686] traps: spleeter[4636] trap invalid opcode"
              " ip:7f40e2481d99 sp:7fffea3652a0 error:0 in libtensorflow_framework.so.1[7f40e1d82000+19120]")
    assert set(failing(kernel)) == {"cpu.avx-missing"}  # holdout36 U115
    assert "cpu.avx-missing" not in failing(kernel.replace("libtensorflow_framework.so.1", "libc.so.6"))


def test_every_stall_is_counted_and_a_bounded_number_kept():
    pairs = "".join(f"2025-05-01 10:{m:02d}:00.0: I gpu_device.cc:1] Adding visible gpu devices: 0\n"
                    f"2025-05-01 10:{m:02d}:59.0: I gpu_device.cc:2] Device interconnect StreamExecutor\n"
                    for m in range(50))
    facts = logs.read_text(pairs)["log"]
    assert facts["counts"]["cc-jit"] == 50
    assert len([i for i in facts["evidence"] if i["kind"] == "cc-jit"]) == logs.MAX_ITEMS_PER_KIND


def test_advice_naming_an_error_is_not_that_error():
    """A program's advice quotes an error it may come to; the same error reported is still read."""
    advice = ("[2025-02-18 07:22:41,365] DEEPMD INFO    If you encounter the error 'an illegal memory "
              "access was encountered', set DP_INFER_BATCH_SIZE to a smaller value.")
    assert "gpu.illegal-address" not in failing(advice)
    happened = ("2025-02-18 07:22:41.365: E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:152] "
                "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered. If you see this "
                "again, file a bug.")
    assert "gpu.illegal-address" in failing(happened)


@pytest.mark.parametrize("text, want", [
    ("- TensorFlow version:2.0.0b1", "2.0.0b1"),
    ("- TensorFlow version (use command below): v2.4.0-rc2-20-g68f236364c 2.4.0-rc3", "2.4.0-rc3"),
    ("pip3 install tensorflow-gpu==1.13.1+nv19.5 --user", "1.13.1+nv19.5"),
    ("-   **TF-nightly 2.4.0-dev20200808 installed with PIP**:", "2.4.0-dev20200808"),
    ("- TensorFlow version: 2.15.0", "2.15.0"),
])
def test_a_releases_pre_release_and_local_tags_are_read_whole(text, want):
    assert logs.read_text(text)["tensorflow"]["version"] == want


def test_a_rocm_images_tensorflow_is_not_the_pypi_cpu_wheel():
    """AMD's images install their build as `tensorflow`: an old release's PyPI CPU-only wheel it is not."""
    listing = "Name: tensorflow\nVersion: 2.0.0b1\nLocation: /usr/local/lib/python3.5/dist-packages\n"
    about_gpu = "My GPU is not used.\n"
    assert "tensorflow.cpu-only-build" in failing(about_gpu + listing)
    rocm = "- TensorFlow installed from the ROCm docker image rocm2.5-tf2.0-beta1-config-v1\n"
    assert "tensorflow.cpu-only-build" not in failing(about_gpu + rocm + listing)
    collect_env = "ROCM used to build PyTorch: N/A\n"  # a report that there is no ROCm
    assert "tensorflow.cpu-only-build" in failing(about_gpu + collect_env + listing)


@pytest.mark.parametrize("text, want", [
    ("cudnn                     7.6.5                cuda10.2_0", "7.6.5"),  # conda list
    ("Driver Version: 460.32.03  CUDA Version: 11.2 CUDNN libcudnn8_8.1.0.77", "8.1.0.77"),
    ("ii  libcudnn8  8.1.0.77-1+cuda11.2  amd64  cuDNN runtime libraries", "8.1.0.77"),
    ("cuDNN version: Probably one of the following:\n/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.4\n"
     "/usr/lib/x86_64-linux-gnu/libcudnn_adv_infer.so.8.9.4", "8.9.4"),
    ("- CUDA/cuDNN version: CUDA==10.0.130 cuDNN==7.4.1", "7.4.1"),
    ("- CUDA/cuDNN version: Driver Version: 440.33.01, CUDA Version: 10.2, cuDNN 7.6.2", "7.6.2"),
    ("- CUDA/cuDNN version: v11.0.3_451.82 / cudnn-11.0-windows-x64-v8.0.4.30.zip", "8.0.4.30"),
    ("- CUDA/cuDNN version: 10.1/7.6", "7.6"),
    ("cuDNN [8.9] installed", "8.9"),
    ("cudnn版本为 8.9.2.26", "8.9.2.26"),
])
def test_the_cudnn_installed_or_named_is_read(text, want):
    assert logs.read_text(text)["runtime"]["cudnn_version"] == want


def test_a_cudnn_windows_dll_or_archive_cuda_is_not_a_cudnn_version():
    for text in ("Could not load dynamic library 'cudnn64_8.dll'", "tar xf cudnn-10.0-linux-x64-v7.tgz"):
        assert logs.read_text(text).get("runtime", {}).get("cudnn_version") is None


@pytest.mark.parametrize("text, want", [
    ("| **Driver Version** | 535.216.03    |", "535.216.03"),  # a markdown table
    ("Failed to initialize NVML - driver:460.32.03 cuda:11.2 k8s:1.23.5", "460.32.03"),
    ("宿主机为Ubuntu20.04 + RTX2080ti,Nvidia driver版本为450.102.04。", "450.102.04"),
    ("NVRM version:   410.104", "410.104"),  # nvidia-container-cli info
    ('DCGM_FI_DEV_GPU_UTIL{DCGM_FI_DRIVER_VERSION="510.47.03", Hostname="x"} 0', "510.47.03"),
    ("despite cuda 11.0 and compatible nvidia drivers (455.28) all working", "455.28"),
])
def test_the_driver_version_in_other_tools_and_words_is_read(text, want):
    assert explain_report(text, MATRIX).environment["driver_version"] == want


@pytest.mark.parametrize("text, want", [
    ("I c:\\l\\work\\tensorflow-1.1.0\\tensorflow\\core\\common_runtime\\gpu\\pool_allocator.cc:247] "
     "PoolAllocator: After 5822 get requests", "1.1.0"),  # a Windows 1.x build's source tree
    ("I do not use the gpu, and the tensorflow is 2.7.1", "2.7.1"),
    ("I am having tensorflow version == 2.2", "2.2"),
    ("我的tf是1.8.0,keras是2.2.4", "1.8.0"),
    ("with batch_size of 24 and tensorflow of 1.13.1, I recently", "1.13.1"),
])
def test_the_tensorflow_version_in_prose_and_build_paths_is_read(text, want):
    assert logs.read_text(text)["tensorflow"]["version"] == want


def test_a_path_through_a_tensorflow_folder_is_no_version():
    text = "File /home/u/src/tensorflow-2.4.1-x/models/train.py, line 3"
    assert "version" not in logs.read_text(text).get("tensorflow", {})


@pytest.mark.parametrize("text, want", [
    ("python                    3.12.9          h9e4cc4f_1_cpython    conda-forge", "3.12.9"),
    ("tensorflow                2.11.1          cuda112py39h01bd6f0_0    conda-forge", "3.9"),
    ("tensorflow-base           1.14.0          gpu_py37h8d69cac_0", "3.7"),
    ("RuntimeWarning: compiletime version 3.5 of module 'tensorflow.python.framework.fast_tensor_util' "
     "does not match runtime version 3.6", "3.6"),
    ("Python V 3.10.6. WSL.", "3.10.6"),
])
def test_the_python_an_environment_holds_is_read(text, want):
    assert logs.read_text(text)["tensorflow"]["python_version"] == want


def test_a_conda_build_string_without_a_python_names_none():
    text = "tensorflow-gpu            2.4.1                h30adc30_0"
    assert "python_version" not in logs.read_text(text).get("tensorflow", {})


def test_tensorflow_1_device_properties_without_their_heading_name_the_gpu():
    text = ("name: GeForce GTX 1080\nmajor: 6 minor: 1 memoryClockRate (GHz) 1.7335\npciBusID 0000:02:00.0\n"
            "Total memory: 7.92GiB\n")
    gpus = logs.read_text(text)["runtime"]["gpus"]
    assert [(g["name"], g["compute_capability"]) for g in gpus] == [("GeForce GTX 1080", "6.1")]
    assert "gpus" not in logs.read_text("major: 6 minor: 1 memoryClockRate (GHz) 1.7335\n").get("runtime", {})


def test_nvidia_container_cli_info_names_the_driver_its_cuda_and_each_gpu():
    text = corpus("holdout/H038")
    report = explain_report(text, MATRIX)
    assert report.environment["driver_version"] == "410.104"
    assert report.environment["cuda_driver_version"] == "10.0"
    gpus = report.environment["gpus"]
    assert [(g["name"], g["compute_capability"]) for g in gpus] == [("TITAN Xp", "6.1")] * 2
    # the same fields without the tool's first line are not its output
    cut = text[text.index("Device Index"):]
    assert not logs.read_text(cut).get("nvidia_smi", {}).get("gpus")


def test_a_compute_capability_stated_for_a_model_completes_listed_gpus_of_that_model():
    log = ("2020-05-02 10:00:00.000000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1241] Created "
           "TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 1500 MB memory) -> physical "
           "GPU (device: 0, name: GeForce GTX 960M, pci bus id: 0000:01:00.0)\n")
    said = "- GPU model and memory: GeForce 960M, compute capability: 5.0\n"
    assert explain_report(log + said, MATRIX).environment["gpus"][0]["compute_capability"] == "5.0"
    other = "- GPU model and memory: GeForce GTX 1080, compute capability: 6.1\n"
    assert explain_report(log + other, MATRIX).environment["gpus"][0]["compute_capability"] is None
    field = "GPU: Nvidia GTX 750 Ti\n\nCompute Capability: 5.0\n"  # its own field, under the GPU's
    assert explain_report(field, MATRIX).environment["gpus"][0]["compute_capability"] == "5.0"
    # TensorFlow's line for a model it ignores names the capability of nvidia-smi's row of that model
    smi = ("|   3  Tesla K10.G2.8GB    Off  | 0000:45:00.0     Off |                  N/A |\n"
           "| N/A   38C    P8    17W / 117W |   3583MiB /  3583MiB |      0%   E. Process |\n")
    ignored = ("I tensorflow/core/common_runtime/gpu/gpu_device.cc:669] Ignoring gpu device (device: 0, name:"
               " Tesla K10.G2.8GB, pci bus id: 0000:45:00.0) with Cuda compute capability 3.0.\n")
    gpus = explain_report(smi + ignored, MATRIX).environment["gpus"]
    assert [(g["index"], g["compute_capability"]) for g in gpus] == [(3, "3.0")]


def test_gpus_chosen_by_cuda_visible_devices_among_mixed_models_warn_of_cudas_order():
    """The value need not be shown: choosing by CUDA's numbers among mixed models is the mechanism."""
    text = corpus("holdout13/U019")
    assert "gpu.device-order" in failing(text)
    one_model = text
    for other in ("TITAN X (Pascal)", "GeForce GTX TIT..."):
        one_model = one_model.replace(other, "GeForce GTX 1080")
    assert "gpu.device-order" not in failing(one_model)
    ordered = text + "\nexport CUDA_DEVICE_ORDER=PCI_BUS_ID\n"
    assert "gpu.device-order" not in failing(ordered)


def test_jaxs_plugin_failing_on_its_own_wheels_library_with_ld_library_path_set_is_shadowing():
    plugin = ("ERROR:2025-07-08 12:39:34,990 jax._src.xla_bridge:444] Jax plugin configuration error:"
              " Exception when calling jax_plugins.xla_cuda12.initialize()\n"
              "RuntimeError: Unable to load cuSPARSE. Is it installed?\n")
    found = failing(plugin + "I cannot unset LD_LIBRARY_PATH since I need to compile CUDA code.\n")
    assert "cuda.ld-library-path-shadowing" in found
    assert found["cuda.libraries-missing"].caused_by == "cuda.ld-library-path-shadowing"
    alone = failing(plugin)
    assert "cuda.ld-library-path-shadowing" not in alone and "cuda.libraries-missing" in alone
    # TensorFlow's own dlopen message prints LD_LIBRARY_PATH whatever it holds: not a person naming it
    tf_line = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic"
               " library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No"
               " such file or directory; LD_LIBRARY_PATH: /usr/local/nvidia/lib64\n")
    assert "cuda.ld-library-path-shadowing" not in failing(plugin + tf_line)


@pytest.mark.parametrize("text, want", [
    ("My graphic card is dual GeForce 780M with a compute capability 3.0. Then", ("GeForce 780M", "3.0")),
    ("- GPU model and memory: Tesla P100-PCIE-16GB major: 6 minor: 0 memoryClockRate(GHz): 1.3285",
     ("Tesla P100-PCIE-16GB", "6.0")),
    ("I train on an NVIDIA GeForce MX450 laptop", ("NVIDIA GeForce MX450", None)),
])
def test_older_geforce_models_and_tensorflow_1_properties_in_a_field_are_read(text, want):
    gpu = explain_report(text, MATRIX).environment["gpus"][0]
    assert (gpu["name"], gpu["compute_capability"]) == want


def test_a_geforce_number_of_the_rtx_era_waits_for_its_family_word():
    """'GeForce 3090' in a title is the person's shorthand: the RTX name given later is the GPU's."""
    text = "GeForce 3090 incompatibility with Nightly\n- GeForce RTX 3090 with 24265MiB\n"
    assert explain_report(text, MATRIX).environment["gpus"][0]["name"] == "GeForce RTX 3090"


@pytest.mark.parametrize("text, key, want", [
    ("CUDA used to build PyTorch: 11.8\nCUDA runtime version: 11.8.89\n", "nvcc_version", "11.8"),
    ("- nvidia-smi shows CUDA Version 12.2", "cuda_driver_version", "12.2"),
    ("NVIDIA driver 460.73.1, for CUDA 11.2", "cuda_driver_version", "11.2"),  # CUDA.jl's versioninfo
])
def test_the_cuda_of_the_toolkit_and_of_the_driver_in_tools_reports(text, key, want):
    assert explain_report(text, MATRIX).environment[key] == want


def test_a_cuda_version_without_nvidia_smis_colon_or_name_is_not_the_drivers():
    assert explain_report("I installed CUDA Version 11.8 from the runfile", MATRIX).environment.get(
        "cuda_driver_version") is None


def test_the_kernel_driver_version_tensorflows_cudnn_report_prints_is_read_as_nvidia_writes_it():
    line = ("2024-02-12 20:36:44.950107: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:488] Possibly"
            " insufficient driver version: 470.182.3\n")
    facts = logs.read_text(line)
    assert facts["system"]["proc_driver_version"] == "470.182.03"
    assert "driver_version" not in facts.get("nvidia_smi", {})  # (not a person's "driver version: ...")


def test_cudnn_8s_loader_not_locating_a_sub_library_is_cudnn_missing():
    found = failing("Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!")
    assert "cudnn.missing" in found
    assert "cudnn.missing" not in failing("Could not locate the config file settings.yaml")


def test_windows_refusing_a_cuda_library_or_its_dependencies_is_that_library_not_loading():
    text = ('OSError: [WinError 126] The specified module could not be found. Error loading "C:\\Users\\x'
            '\\venv\\lib\\site-packages\\torch\\lib\\cudnn_adv_infer64_8.dll" or one of its dependencies.')
    assert "cudnn.missing" in failing(text)
    other = text.replace("cudnn_adv_infer64_8.dll", "shm.dll")  # not a CUDA library: not read as one
    assert "cudnn.missing" not in failing(other)


def test_torchvision_built_for_another_cuda_than_pytorch_is_a_package_conflict():
    text = ("RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. "
            "PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8. Please reinstall the "
            "torchvision that matches your PyTorch install.")
    found = failing(text)["tensorflow.conflicting-installs"]
    assert "11.8" in found.title and "11.7" in found.title and "download.pytorch.org" in found.fix


def test_tensorflows_own_library_lacking_its_own_symbol_is_two_releases_mixed():
    text = ("tensorflow.python.framework.errors_impl.NotFoundError: /usr/local/lib/python3.8/dist-packages/"
            "tensorflow/core/kernels/libtfkernel_sobol_op.so: undefined symbol: "
            "_ZN10tensorflow8OpKernel11TraceStringEPNS_15OpKernelContextEb")
    found = failing(text)["tensorflow.conflicting-installs"]
    assert "two releases" in found.title and "uninstall" in found.fix


def test_apptainers_nv_finding_no_driver_files_on_the_host_is_no_driver():
    found = failing("INFO:    Could not find any nv files on this host!\n")
    assert "--nv found no NVIDIA driver library" in found["driver.missing"].detail


def test_a_container_given_no_gpu_by_nvidia_visible_devices_hides_them_all():
    cuinit = ("E cuda_driver.cc:282] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is"
              " detected\n")
    found = failing("NVIDIA_VISIBLE_DEVICES=void\n" + cuinit)
    assert found["cuda.init-failed"].caused_by == "gpu.hidden-by-cuda-visible-devices"
    assert "--gpus all" in found["gpu.hidden-by-cuda-visible-devices"].fix
    assert "gpu.hidden-by-cuda-visible-devices" not in failing("ENV NVIDIA_VISIBLE_DEVICES all\n" + cuinit)
    assert not failing("NVIDIA_VISIBLE_DEVICES=void\n")  # an image's setting, with nothing failing


def test_cudnn_failing_with_most_memory_free_is_not_for_want_of_memory():
    log = ("E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:474] Could not create cudnn handle:"
           " CUDNN_STATUS_NOT_INITIALIZED\n"
           "E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:478] Memory usage: %d bytes free, %d bytes"
           " total.\n")
    roomy = failing(log % (42069065728, 42505273344))["cudnn.init-failed"]
    assert "memory is not the cause" in roomy.detail and "ALLOW_GROWTH" not in roomy.fix
    full = failing(log % (262144000, 42505273344))["cudnn.init-failed"]
    assert "memory is not the cause" not in full.detail and "ALLOW_GROWTH" in full.fix


def test_an_nvml_calls_number_is_its_nvml_return_code():
    """18 is NVML_ERROR_LIB_RM_VERSION_MISMATCH (nvml.h): the driver's library and kernel module differ."""
    assert "driver.library-mismatch" in failing("nvmlInit_v2 err: 18\n")
    line = ("gpu.go:300 msg=\"Unable to load CUDA management library /usr/lib/libnvidia-ml.so.1: nvml vram"
            " init failure: 18\"")
    assert "driver.library-mismatch" in failing(line)
    assert "driver.library-mismatch" not in failing("cudaSetDevice err: 18\n")  # (a runtime call's 18)


@pytest.mark.parametrize("text", [
    "# Allocation on device\n",
    "torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)",
])
def test_pytorchs_async_allocator_out_of_memory_is_out_of_memory(text):
    assert "gpu.out-of-memory" in failing(text)


def test_a_linux_drivers_versioned_library_on_wsl2_is_a_driver_installed_inside_it():
    text = ("I run ollama in WSL2.\n"
            "gpu.go:259: Unable to load CUDA management library /usr/lib/x86_64-linux-gnu/libnvidia-ml.so"
            ".535.104.05: nvml vram init failure: 9\n")
    found = failing(text)
    assert "libnvidia-ml.so.535.104.05" in found["platform.wsl2-libcuda"].title
    assert found["driver.missing"].caused_by == "platform.wsl2-libcuda"
    assert "platform.wsl2-libcuda" not in failing(text.replace("in WSL2", "on Ubuntu"))


def test_an_nvcc_newer_than_the_drivers_cuda_warns_that_ptx_it_compiles_cannot_load():
    text = ("The currently installed CUDA driver is version 550.54.15 supporting CUDA Toolkit 12.4. However,"
            " the installed CUDA Toolkit is version 12.5 which is incompatible with the driver.\n")
    report = explain_report(text, MATRIX)
    assert (report.environment["nvcc_version"], report.environment["cuda_driver_version"]) == ("12.5", "12.4")
    found = failing(text)["driver.minor-version-compat"]
    assert "nvcc 12.5" in found.title and "-arch=sm_" in found.fix
    same = text.replace("version 12.5", "version 12.4")
    assert "driver.minor-version-compat" not in failing(same)
    older_major = text.replace("version 12.5", "version 11.8")
    assert "driver.minor-version-compat" not in failing(older_major)


def test_pypis_tensorflow_on_a_jetson_has_no_cuda_for_its_gpu():
    text = ("I installed this OS for my Jetson Nano but I cannot get Tensorflow to recognize my GPU.\n"
            "I have tensorflow 2.13.\n")
    assert "not NVIDIA's build for Jetson" in failing(text)["tensorflow.cpu-only-build"].title
    assert "tensorflow.cpu-only-build" not in failing(text.replace("2.13", "2.12.0+nv23.06"))
    assert "tensorflow.cpu-only-build" not in failing(text.replace("2.13", "1.15"))  # (before PyPI's aarch64)


def test_tensorflow_2_18s_cuda_runtime_failing_to_load_is_its_libraries_missing():
    line = ("E0000 00:00:1733000000.000000   12345 cuda_executor.cc:1228] INTERNAL: CUDA Runtime error:"
            " Failed call to cudaGetRuntimeVersion: Error loading CUDA libraries. GPU will not be used.:"
            " Error loading CUDA libraries. GPU will not be used.")
    assert "cuda.libraries-missing" in failing(line)


def test_nvidia_smi_of_another_release_whose_banner_gets_no_cuda_version_is_a_split_driver():
    banner = ("| NVIDIA-SMI 440.59       Driver Version: 550.100      CUDA Version: N/A      |\n"
              "|   0  NVIDIA A100 80G...  Off  | 00000000:01:00.0 Off |                    0 |\n")
    assert "driver.library-mismatch" in failing(banner)
    assert "driver.library-mismatch" not in failing(banner.replace("N/A", "12.4"))  # (WSL2's, a container's)


def test_a_containers_forward_compatibility_libcuda_refused_by_the_gpu_follows_from_the_old_driver():
    text = ("docker run --gpus all -it pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\n"
            "RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 804: forward compatibility was"
            " attempted on non supported HW\n")
    found = failing(text)
    assert found["cuda.container-driver-libraries"].caused_by == "driver.too-old"
    assert "/usr/local/cuda/compat" in found["cuda.container-driver-libraries"].fix
    bare = text.split("\n", 1)[1]  # no container: the host's own cuda-compat, no image to blame
    assert "cuda.container-driver-libraries" not in failing(bare) and "driver.too-old" in failing(bare)


@pytest.mark.parametrize("command", [
    "deeplabcut.train_network(config_path,shuffle=1,gputouse=1,max_snapshots_to_keep=5)",
    "!python evaluation.py --cuda --gpu 1 --data_dir /content/dataset",
])
def test_a_program_told_to_use_gpu_1_where_cuda_then_finds_none_hides_it(command):
    cuinit = "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
    found = failing(command + "\n" + cuinit)
    assert "told to use GPU 1" in found["gpu.hidden-by-cuda-visible-devices"].title
    assert found["cuda.init-failed"].caused_by == "gpu.hidden-by-cuda-visible-devices"
    zero = command.replace("gputouse=1", "gputouse=0").replace("--gpu 1", "--gpu 0")
    assert "gpu.hidden-by-cuda-visible-devices" not in failing(zero + "\n" + cuinit)


def test_a_gpu_count_or_list_is_no_gpu_index_chosen():
    cuinit = "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
    for command in ("python train.py --gpus 2", "python train.py --gpu 0,1"):
        assert "gpu.hidden-by-cuda-visible-devices" not in failing(command + "\n" + cuinit)


def test_jax_finding_an_older_cuda_runtime_than_the_wheel_installed_loads_another_copy():
    listing = "nvidia-cuda-runtime-cu12  12.3.101\n"
    error = ("CUDA backend failed to initialize: Found CUDA version 12010, but JAX was built against version"
             " 12020, which is newer.\n")
    found = failing(listing + error)["cuda.loaded-not-pip"]
    assert "CUDA 12.1 was loaded" in found.title  # (CUDA_VERSION's own encoding: 12010 = 12.1)
    older_wheel = listing.replace("12.3.101", "12.1.105")
    assert "cuda.loaded-not-pip" not in failing(older_wheel + error)


def test_tensorflow_1s_wrapped_import_error_cut_before_its_cause_is_the_native_runtime_failing():
    text = (">>> import tensorflow as tf\nTraceback (most recent call last):\n"
            '  File "/usr/lib/python2.7/dist-packages/tensorflow/python/pywrap_tensorflow.py", line 74, in'
            " <module>\n    raise ImportError(msg)\nImportError: Traceback (most recent call last):\n")
    assert "tensorflow.import-failed" in failing(text)
    assert "log.unrecognized" not in failing(text)


@pytest.mark.parametrize("line", [
    "ValueError: Cannot feed value of shape (10, 256, 256, 3) for Tensor 'annotations:0', which has shape"
    " '(10, 256, 256)'",
    "ValueError: Error when checking input: expected input_1 to have shape (None, 64, 64, 1) but got array"
    " with shape (1, 64, 64, 3)",
    "ValueError: Tensor's shape (300, 800) is not compatible with supplied shape (768, 800)",
    "ValueError: Shape must be rank 1 but is rank 0",
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x5 and 3x7)",
    "RuntimeError: output with shape [4, 320, 1, 1] doesn't match the broadcast shape [4, 320, 3, 3]",
    "ValueError: cannot reshape array of size 324670 into shape (512,256,3,3)",
    "InvalidArgumentError: indices[4,14] = 21130 is not in [0, 21128) [[{{node model_1/Embedding/lookup}}]]",
])
def test_shape_and_index_refusals_as_other_frameworks_word_them_are_the_programs_error(line):
    found = failing(line)
    assert set(found) == {"log.program-error"}
    assert "Compare the shapes" in found["log.program-error"].fix


def test_tensorflow_1s_api_under_tensorflow_2_is_the_programs_tensorflow():
    found = failing("AttributeError: module 'tensorflow' has no attribute 'Session'")
    assert set(found) == {"log.program-error"}
    assert "tensorflow.compat.v1" in found["log.program-error"].fix
    # standalone Keras 2.2 calling get_default_graph is a package conflict, not the program's own TF 1 code
    keras = "AttributeError: module 'tensorflow' has no attribute 'get_default_graph'"
    assert "tensorflow.compat.v1" not in str(failing(keras).get("log.program-error", ""))


def test_pips_resolver_header_is_a_notice_and_the_conflict_under_it_is_read():
    text = ("ERROR: pip's dependency resolver does not currently take into account all the packages that are"
            " installed. This behaviour is the source of the following dependency conflicts.\n"
            "tensorflow 2.15.0 requires keras<2.16,>=2.15.0, but you have keras 3.0.5 which is"
            " incompatible.\n")
    found = failing(text)
    assert set(found) == {"tensorflow.conflicting-installs"}
    assert not failing(text.splitlines()[0])  # the header alone names no conflict


def test_gpus_said_to_be_occupied_by_others_hold_the_memory_an_oom_lacked():
    oom = "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 11.91 GiB total capacity)\n"
    for said in ("I have 4 titan xp gpus on the server, 3 of them are occupied, only the third i can use",
                 "the GPU is used by other users of the cluster"):
        found = failing(said + "\n" + oom)
        assert found["gpu.out-of-memory"].caused_by == "gpu.memory-held-by-other-processes", said
    for other in ("3 of them are idle", "the GPU is used by TensorFlow", "two of them are occupied seats"):
        assert "gpu.memory-held-by-other-processes" not in failing(other + "\n" + oom), other


def test_another_process_on_a_gpu_in_an_exclusive_mode_is_what_the_mode_refuses():
    found = failing(next(CORPUS.rglob("R038-*.txt")).read_text(encoding="utf-8"))
    assert found["gpu.memory-held-by-other-processes"].caused_by == "gpu.compute-mode-exclusive"
    assert found["gpu.compute-mode-exclusive"].caused_by is None


def test_nvml_lacking_a_function_is_a_driver_library_not_the_drivers_own():
    error = "Failed to initialize NVML:Function Not Found.\n"  # (as pasted: no space after the colon)
    found = failing(error)
    assert set(found) == {"driver.library-mismatch"}  # not a program's error, nor "Not Found" alone
    inside = "Installed same version nvidia driver in docker, but `nvidia-smi` got:\n" + error
    found = failing(inside)
    assert found["driver.library-mismatch"].caused_by == "cuda.container-driver-libraries"
    title = found["cuda.container-driver-libraries"].title
    assert "installs NVIDIA's user-space driver (nvidia driver)" in title
    host = "Installed the nvidia driver on the host, then in docker `nvidia-smi` got:\n" + error
    assert "cuda.container-driver-libraries" not in failing(host)
    # the container toolkit's hook on the host: its driver is older than the toolkit, not split
    hook = ("docker: Error response from daemon: OCI runtime create failed: nvidia-container-cli: detection"
            " error: nvml error: function not found: unknown.\n")
    assert "driver.library-mismatch" not in failing(hook)


def test_protobufs_older_wording_and_generated_code_reading_its_descriptors_back():
    found = failing("error: TypeError: Descriptors should not be created directly, but only retrieved from"
                    " their parent.\n")
    assert set(found) == {"python.protobuf-mismatch"}
    cut = ('  File "D:\\models\\research\\object_detection\\protos\\anchor_pb2.py", line 21, in <module>\n'
           "    _FLEXIBLEGRIDANCHORGENERATOR = DESCRIPTOR.\n")
    assert set(failing(cut)) == {"python.protobuf-mismatch"}  # the traceback cut where the code fails
    assert "python.protobuf-mismatch" in failing(
        "AttributeError: 'NoneType' object has no attribute 'message_types_by_name'\n")
    # a descriptor read back in a program's own module is no generated code failing
    assert not failing('  File "train.py", line 3, in <module>\n    _X = DESCRIPTOR.\n')


@pytest.mark.parametrize("said", [
    "Particularly it is looking for a `GLIBC-2.16.so` but can't find it.",
    "it turns out that Tensorflow requires even newer version glibc: 2.16.",
    "the version of glibc installed on the cluster (2.12) is not new enough.",
])
def test_a_glibc_the_system_lacks_in_a_persons_words(said):
    found = failing(said + "\n")
    assert set(found) == {"system.glibc-too-old"}
    assert "2.1" in found["system.glibc-too-old"].title


@pytest.mark.parametrize("said", [
    "TensorFlow's wheels require glibc 2.17 and my system has 2.31.",
    "I was looking for a glibc 2.28 build and found one.",
    "glibc is not the problem here",
])
def test_a_glibc_release_named_without_lacking_it_is_no_finding(said):
    assert "system.glibc-too-old" not in failing(said + "\n")


@pytest.mark.parametrize(("keras", "tf", "wanted"), [
    ("2.6.0", "2.5.1", "keras==2.4.3"),  # keras 2.6+: tf.keras's own code, for TensorFlow 2.6
    ("2.4.3", "1.15.5", "keras==2.3.1"),  # keras 2.4-2.5: a wrapper of TensorFlow 2.2+'s tf.keras
])
def test_a_standalone_keras_made_for_another_tensorflow(keras, tf, wanted):
    text = f"Package    Version\n---------- -------\nkeras      {keras}\ntensorflow {tf}\n"
    found = failing(text)["tensorflow.conflicting-installs"]
    assert f"Keras {keras} is made for TensorFlow" in found.title
    assert wanted in found.fix and f"tensorflow=={tf}" in found.fix  # (the user's TensorFlow kept)


@pytest.mark.parametrize(("keras", "tf"), [("2.4.3", "2.5.1"), ("2.3.1", "1.15.5"), ("2.5.0", "2.2.0")])
def test_a_standalone_keras_that_fits_its_tensorflow_is_no_conflict(keras, tf):
    text = f"Package    Version\n---------- -------\nkeras      {keras}\ntensorflow {tf}\n"
    assert "tensorflow.conflicting-installs" not in failing(text)


_CUBLAS_FAILED = ("E tensorflow/stream_executor/cuda/cuda_blas.cc:428] failed to run cuBLAS routine:"
                  " CUBLAS_STATUS_EXECUTION_FAILED\n")


def test_cublas_failing_on_a_gpu_newer_than_the_environments_cuda():
    conda = ("# Name                    Version                   Build  Channel\n"
             "cudatoolkit               10.0.130                      0\n"
             "cudnn                     7.6.0                cuda10.0_0\n")
    gpu = "GPU: NVIDIA RTX A4000\n"
    found = failing(conda + gpu + _CUBLAS_FAILED)
    unsupported = found["gpu.compute-capability-unsupported"]
    assert "predates" in unsupported.title and "CUDA 10.0" in unsupported.title
    assert found["cublas.init-failed"].caused_by == "gpu.compute-capability-unsupported"
    newer = conda.replace("10.0.130", "11.3.1").replace("cuda10.0_0", "cuda11.3_0")
    assert "gpu.compute-capability-unsupported" not in failing(newer + gpu + _CUBLAS_FAILED)
    nvcc = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 10.1, V10.1.243\n"
    assert "gpu.compute-capability-unsupported" in failing(nvcc + gpu + _CUBLAS_FAILED)
    # the toolkit alone (TensorFlow may load other CUDA libraries) with nothing failing says nothing
    cc_ids = {"gpu.compute-capability-unsupported", "gpu.compute-capability-ptx-jit"}
    assert not cc_ids & set(failing(nvcc + gpu))


def test_a_frameworks_library_needing_a_cudnn_function_the_loaded_one_lacks_is_an_older_cudnn():
    line = ("ImportError: /home/u/lib/python3.7/site-packages/jaxlib/xla_extension.so: symbol"
            " cudnnBatchNormalizationForwardTrainingEx version libcudnn.so.7 not defined in file"
            " libcudnn.so.7 with link time reference\n")
    assert set(failing(line)) == {"cudnn.version-mismatch"}
    # cuDNN's own sub-libraries needing each other's symbols: two installs mixed, not this
    mixed = ("Could not load library libcudnn_cnn_train.so.8. Error: /usr/lib/libcudnn_cnn_train.so.8:"
             " symbol _ZN5cudnn3cnn5infer, version libcudnn_cnn_infer.so.8 not defined in file"
             " libcudnn_cnn_infer.so.8 with link time reference\n")
    assert "cudnn.version-mismatch" not in failing(mixed)


def test_jaxs_filtered_traceback_of_dnn_library_not_found_is_no_cudnn_at_all():
    found = failing("FilteredStackTrace: RuntimeError: Unimplemented: DNN library is not found.\n")
    assert set(found) == {"cudnn.missing"}
    plain = "RuntimeError: Unimplemented: DNN library is not found.\n"  # (TensorFlow: a cuDNN unusable)
    assert set(failing(plain)) == {"cudnn.version-mismatch"}


def test_tensorflows_gpu_libraries_warning_cut_mid_word_is_still_read():
    cut = "W tensorflow/core/common_runtime/gpu/gpu_device.cc:2251] Cannot dlopen some GPU librari\n"
    assert "cuda.libraries-missing" in failing(cut)
    assert "cuda.libraries-missing" not in failing("I cannot dlopen some GPU library docs page\n")


def test_xla_naming_the_nccl_call_that_failed_and_nccl_that_cannot_be_loaded():
    cut = ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: external/org_tensorflow/tensorflow/compiler/xla/"
           "service/gpu/nccl_utils.cc:245: NCCL operation ncclCommInitRank(comm.get(), nranks, id, r\n")
    assert "nccl.error" in failing(cut)  # (the line exists only on a failure, even cut short)
    unloaded = ("external/xla/xla/service/gpu/nccl_utils.cc:133: NCCL operation ncclGetUniqueId(&id) failed:"
                " Unable to load NCCL library. Multi-GPU collectives will not work.\n")
    found = failing(unloaded)["nccl.error"]
    assert found.title == "NCCL could not be loaded: multi-GPU collectives cannot run"
    assert "install nvidia-nccl-cu12" in found.fix
    assert not failing("see the NCCL operation ncclAllReduce docs\n")


def test_nvidia_smis_table_header_shows_linux_and_a_wsl_marker_still_decides():
    header = "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    assert logs.read_text(header)["system"]["platform"] == "linux"
    wsl = "Linux DESKTOP 5.15.90.1-microsoft-standard-WSL2 #1 SMP x86_64\n" + header
    assert logs.read_text(wsl)["system"]["platform"] == "wsl2"
    windows = "| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    assert logs.read_text(windows).get("system", {}).get("platform") != "linux"


def test_tensorflows_version_printed_after_the_libraries_its_import_logs():
    text = ('python -c "import tensorflow; print(tensorflow.__version__)"\n'
            "I tensorflow/stream_executor/dso_loader.cc:108] successfully opened CUDA library libcublas.so"
            " locally\n"
            "I tensorflow/stream_executor/dso_loader.cc:108] successfully opened CUDA library libcudnn.so"
            " locally\n"
            "0.9.0\n"
            "pip package: https://storage.googleapis.com/tensorflow/linux/gpu/tensorflow-0.10.0rc0-cp27-none"
            "-linux_x86_64.whl\n")
    assert logs.read_text(text)["tensorflow"]["version"] == "0.9.0"  # what imported, over the wheel named
    # a second print after the first is another print's answer, read in turn (not this one's)
    turns = "print(keras_ocr.__version__)\nprint(tf.__version__)\nprint(1)\n0.6.3\n2.0.0\n"
    assert logs.read_text(turns).get("tensorflow", {}).get("version") != "0.6.3"


def test_ipythons_answer_to_tensorflows_version():
    text = "In [2]: tf.__version__\nOut[2]: '2.0.0-dev20190725'\n"
    assert logs.read_text(text)["tensorflow"]["version"] == "2.0.0-dev20190725"
    assert "tensorflow" not in logs.read_text("In [2]: np.__version__\nOut[2]: '1.19.5'\n")


def test_log_records_run_together_on_one_line_are_read_one_by_one():
    joined = ("2021-03-25 13:27:24.173715: W tensorflow/stream_executor/platform/default/dso_loader.cc:59]"
              " Could not load dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found"
              " 2021-03-25 13:27:24.173831: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above"
              " cudart dlerror if you do not have a GPU set up on your machine. 2021-03-25 13:27:33.418255: I"
              " tensorflow/stream_executor/platform/default/dso_loader.cc:48] Successfully opened dynamic"
              " library nvcuda.dll\n")
    assert "cuda.libraries-missing" in failing(joined)  # (the notice no longer hides the failure beside it)
    assert "cuda.libraries-missing" in failing(joined.replace(" 2021-03-25 ", "\n2021-03-25 "))


def test_a_notebook_traceback_cut_inside_protobufs_generated_code():
    cut = ("File ~\\miniconda3\\envs\\lab\\lib\\site-packages\\tensorflow\\core\\framework\\"
           "tensor_shape_pb2.py:36\n"
           "     13 _sym_db = _symbol_database.Default()\n"
           "     18 DESCRIPTOR = _descriptor.FileDescriptor(\n"
           "     29 _TENSORSHAPEPROTO_DIM = _descriptor.Descriptor(\n")
    assert set(failing(cut)) == {"python.protobuf-mismatch"}
    # the exception that ends the traceback pasted too: that line is judged, not the cut
    ended = cut + "TypeError: unhashable type: 'list'\n"
    assert "python.protobuf-mismatch" not in failing(ended)


def test_older_nccl_messages_without_their_advice():
    """NCCL's older releases print "unhandled system error" without "(run with NCCL_DEBUG=INFO ...)";
    Horovod says it as "NCCL async error"."""
    assert "nccl.error" in failing("NCCL async error: unhandled system error\n")
    assert "nccl.error" in failing("RuntimeError: NCCL error: unhandled cuda error\n")
    assert "nccl.error" not in failing("cuDNN error: unhandled system error\n")  # (not NCCL's words)


def test_a_program_losing_access_to_the_gpu_is_not_a_gpu_lost():
    assert "gpu.lost" not in failing("after importing keras-nlp, access to GPU is lost:\n")
    lost = "Unable to determine the device handle for GPU 0000:03:00.0: GPU is lost.  Reboot the system\n"
    assert "gpu.lost" in failing(lost)


def test_an_addons_op_library_refused_where_the_traceback_shows_only_its_import():
    """IPython folds the add-on's own frames ("3 frames"): the import line names it."""
    text = ("NotFoundError                             Traceback (most recent call last)\n"
            "<ipython-input-4-8e92e93ce06e> in <module>()\n"
            "----> 1 import tensorflow_addons as tfa\n\n"
            "3 frames\n"
            "/usr/local/lib/python3.6/dist-packages/tensorflow/python/framework/load_library.py in"
            " load_op_library(library_filename)\n"
            "---> 61   lib_handle = py_tf.TF_LoadLibrary(library_filename)\n\n"
            "NotFoundError: libtensorflow_framework.so: cannot open shared object file: No such file or di\n")
    assert set(failing(text)) == {"tensorflow.conflicting-installs"}
    # a program's own op library, no add-on named: nothing says which TensorFlow it was built for
    assert "tensorflow.conflicting-installs" not in failing(text.replace("import tensorflow_addons as tfa",
                                                                         "import my_ops"))


def test_versions_in_dkms_status_and_horovods_issue_template():
    old = "Host dkms status:\n`nvidia-current, 470.199.02, 5.10.0-26-amd64, x86_64: installed`\n"
    new = "nvidia/535.104.05, 5.15.0-88-generic, x86_64: installed\n"
    assert logs.read_text(old)["system"]["proc_driver_version"] == "470.199.02"
    assert logs.read_text(new)["system"]["proc_driver_version"] == "535.104.05"
    assert "system" not in logs.read_text("nvidia/535.104.05, 5.15.0-88-generic, x86_64: built\n")
    horovod = "1. Framework: (TensorFlow, Keras, PyTorch, MXNet) tensorflow\n2. Framework version: 2.3.0\n"
    assert logs.read_text(horovod)["tensorflow"]["version"] == "2.3.0"
    assert "tensorflow" not in logs.read_text("* Framework: PyTorch\n* Framework version: 1.7.0\n")


def test_the_container_toolkit_asking_whether_it_runs_under_wsl_is_no_wsl():
    text = ("I1128 17:35:08.651892 1737 nvc.c:393] attempting to load dxcore to see if we are running under"
            " Windows Subsystem for Linux (WSL)\n"
            "I1128 17:35:08.652188 1737 nvc.c:395] dxcore initialization failed, continuing assuming a"
            " non-WSL environment\n"
            "Host OS: Debian GNU/Linux 11 (bullseye)\n")
    assert logs.read_text(text)["system"]["platform"] == "linux"


def test_a_cuda_library_named_in_an_importerror_in_prose():
    assert "cuda.libraries-missing" in failing("Google colab tensorflow-gpu stuck with importerror:"
                                               " libcublas.so.9.0\n")


def test_pytorchs_older_cudnn_mismatch_and_a_driver_too_old_in_a_persons_words():
    old = "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7102 but linked against 7605\n"
    assert set(failing(old)) == {"cudnn.version-mismatch"}
    assert "driver.too-old" in failing("when i run my program, the msg is that my Nvidia version is too"
                                       " old.\n")
    assert "driver.too-old" not in failing("my GPU is too slow and my CPU is too old\n")
    assert "driver.too-old" not in failing("the GT 710 GPU is too old for this release\n")  # (architecture)
    assert "driver.too-old" in failing("the graphics driver was too old\n")


def test_the_gpus_illegal_instruction_is_not_the_cpus():
    """CUDA's "an illegal instruction was encountered" (and a person's "CUDA illegal instructions") is a GPU
    kernel's fault, not a CPU without AVX; SIGILL still is."""
    gpu = failing("RuntimeError: CUDA error: an illegal instruction was encountered\n")
    assert "cpu.avx-missing" not in gpu and "gpu.illegal-address" in gpu
    said = failing('I constantly get Cuda error message. It is something like "CUDA illegal instructions",'
                   ' "Unknwon CU result: 700".\n')
    assert "cpu.avx-missing" not in said and "gpu.illegal-address" in said
    assert "cpu.avx-missing" in failing("Illegal instruction (core dumped)\n")


def test_a_cuda_error_numbered_as_cuda_10_0_did_is_read_by_its_message():
    """CUDA 10.1 renumbered the runtime's errors (invalid device function: 8, now 98): where the message
    beside the number is the library's own, it says which code it is."""
    old = "I always get the `cuda runtime error (8) : invalid device function` error\n"
    assert set(failing(old)) == {"gpu.compute-capability-unsupported"}
    same = "cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version\n"
    assert set(failing(same)) == {"driver.too-old"}


def test_xla_without_libdevice_in_a_persons_words():
    said = "running `molecule-generation train` with a RTX A4000 fails by not finding libdevice, log below.\n"
    assert "xla.toolchain-missing" in failing(said)
    assert "xla.toolchain-missing" not in failing("I found libdevice in /usr/local/cuda/nvvm/libdevice\n")


def test_grapplers_topological_sort_failing_is_harmless_noise():
    line = ("2019-03-30 08:54:48.861438: E tensorflow/core/grappler/optimizers/dependency_optimizer.cc:666]"
            " Iteration = 0, topological sort failed with message: The graph couldn't be sorted in"
            " topological order.\n")
    assert not failing(line) and logs.read_text(line)["log"]["noise"] == {"grappler-pass": 1}


def test_tensorrt_naming_the_cuda_calls_message():
    trt = ('E0915 15:27:00.910199 134 logging.cc:40] "[defaultAllocator.cpp::allocateAsync::44] Error Code 1:'
           ' Cuda Runtime (out of memory)"\n')
    assert "gpu.out-of-memory" in failing(trt)
    assert "gpu.illegal-address" in failing("Error Code 1: Cuda Runtime (an illegal memory access was"
                                            " encountered)\n")


def test_glibc_required_as_a_person_writes_it_and_a_python_after_a_version():
    said = ("I'm trying to install TensorFlow and it apparently requires glibc >2.17. Is it possible to get a"
            " newer version of glibc (I'm seeing version 2.12)\n")
    assert "system.glibc-too-old" in failing(said)
    env = "我的环境是：CUDA 10.0+tensorflow-gpu1.13+py3.6 3060的显卡\n"
    assert logs.read_text(env)["tensorflow"]["version"] == "1.13"
    assert logs.read_text("tensorflow-gpu 1.15.5+nv22.01\n")["tensorflow"]["version"] == "1.15.5+nv22.01"


def test_nvidia_smi_l_rows_joined_on_one_line():
    joined = ("GPU 0: NVIDIA GeForce RTX 2070 GPU 1: NVIDIA GeForce RTX 2070 GPU 2: NVIDIA GeForce RTX 2070"
              " GPU 3: NVIDIA GeForce RTX 2070\n")
    gpus = logs.read_text(joined)["nvidia_smi"]["gpus"]
    assert [(g["index"], g["name"]) for g in gpus] == [(i, "NVIDIA GeForce RTX 2070") for i in range(4)]
    assert "nvidia_smi" not in logs.read_text("I have GPU 0: NVIDIA Tesla T4 here\n")


def test_dcgms_diagnostic_saying_persistence_mode_is_off():
    said = ('  "detail": "Persistence Mode: Persistence mode for GPU 0 is disabled. Enable persistence mode'
            ' by running \\"nvidia-smi -i <gpuId> -pm 1 \\" as root.",\n')
    off = failing(said)
    assert set(off) == {"gpu.persistence-off"} and "GPU 0" in off["gpu.persistence-off"].title


def test_a_change_of_tensorflow_release_in_prose_reads_the_release_it_went_to():
    for said in ("I upgraded TensorFlow from version 2.12.0 to 2.15.0, and it still fails",
                 "downgraded tensorflow from 2.16.1 to 2.15.0"):
        assert logs.read_text(said)["tensorflow"]["version"] == "2.15.0"


def test_cpm_kernels_failing_to_load_the_cuda_runtime():
    said = "代码运行到cudart.cudaGetDevice()是报错：错误 Library cudart is not initialized。\n"
    assert set(failing(said)) == {"cuda.libraries-missing"}


def test_keras_3s_removed_modules_its_lambda_and_keras_2_13s_moved_private_modules():
    removed = "ModuleNotFoundError: No module named 'keras.preprocessing.text'\n"
    assert "keras.keras3-api-change" in failing(removed)
    lam = ("We could not automatically infer the shape of the Lambda's output. Please specify the"
           " output_shape argument for this Lambda layer.\n")
    assert "keras.keras3-api-change" in failing(lam)
    engine = "ModuleNotFoundError: No module named 'keras.engine'\n"
    assert "keras.keras3-api-change" in failing(engine)  # (gone from Keras 3)
    # under TensorFlow 2.13-2.15 Keras 2 moved it under keras.src: private code, not Keras 3
    assert "keras.keras3-api-change" not in failing("- TensorFlow version: 2.13.0rc0\n" + engine)


def test_protobufs_own_advice_pasted_without_its_first_line():
    said = ("If you cannot immediately regenerate your protos, some other possible workarounds are:\n"
            " 1. Downgrade the protobuf package to 3.20.x or lower.\n")
    assert set(failing(said)) == {"python.protobuf-mismatch"}


def test_an_old_jaxlib_without_cuda_asked_for_its_gpu_backend():
    assert set(failing("RuntimeError: Unknown backend gpu\n")) == {"tensorflow.cpu-only-build"}


def test_jax_asked_for_its_cuda_build_on_native_windows():
    pip = ('C:\\Users\\me\\app>pip install --upgrade "jax[cuda12_pip]" -f https://storage.googleapis.com/jax-'
           'releases/jax_cuda_releases.html\n'
           "  Using cached numpy-1.26.0-cp310-cp310-win_amd64.whl (15.8 MB)\n")
    found = failing(pip)
    assert set(found) == {"platform.windows-native"}
    assert "jax[cuda12_pip]" in found["platform.windows-native"].title
    assert "platform.windows-native" not in failing('pip install --upgrade "jax[cuda12_pip]"\nUbuntu 22.04\n')


def test_a_persons_lines_of_what_is_installed_with_spaces_around_the_equals():
    said = "TensorFlow == 1.15.0\n\nTensorFlow-gpu == 1.13.1\n"
    dists = logs.read_text(said)["tensorflow"]["distributions"]
    assert dists == {"tensorflow": "1.15.0", "tensorflow-gpu": "1.13.1"}
    assert "tensorflow.conflicting-installs" in failing(said)


def test_rays_worker_whose_tensorflow_lists_no_gpu_and_a_cuda_library_named_in_quotes():
    ray = ("RuntimeError: GPUs were assigned to this worker by Ray, but TensorFlow reports GPU acceleration"
           " is disabled. This could be due to a bad CUDA or TF installation.\n")
    assert logs.read_text(ray)["runtime"]["tf_visible_gpus"] == 0
    said = 'When I start a training process i have error like "cudart64_90.dll" not found.\n'
    assert set(failing(said)) == {"cuda.libraries-missing"}


def test_protobufs_extension_refusing_generated_code_and_pytorchs_warning_cut_to_its_last_sentence():
    bad = "SystemError: google/protobuf/pyext/descriptor.cc:358: bad argument to internal function\n"
    assert set(failing(bad)) == {"python.protobuf-mismatch"}
    cut = ("If you want to use the NVIDIA GeForce RTX 3090 GPU with PyTorch, please check the instructions at"
           " https://pytorch.org/get-started/locally/\n")
    assert set(failing(cut)) == {"gpu.compute-capability-unsupported"}


def test_versions_written_as_an_attribute_with_its_value_and_an_images_cudnn_env():
    assert logs.read_text("`tf.__version__` = 2.10.0\n")["tensorflow"]["version"] == "2.10.0"
    assert "tensorflow" not in logs.read_text("print(tf.__version__)\n")
    image = "running with `tensorflow-gpu v2.6.0`, `CUDA_VERSION 11.1.1`, and `CUDNN_VERSION 8.0.4.30`\n"
    assert logs.read_text(image)["runtime"]["cudnn_version"] == "8.0.4.30"


def test_cudart_missing_beside_a_programs_own_error_where_the_gpu_package_is_named():
    """TensorFlow's own note says a CUDA runtime it could not load matters only with a GPU: beside another
    failure and no GPU shown it is noise, but naming tensorflow-gpu says a GPU is what was wanted."""
    log = ("2020-06-10 20:32:32.912840: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could"
           " not load dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found\n"
           "2020-06-10 20:32:32.913156: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above"
           " cudart dlerror if you do not have a GPU set up on your machine.\n"
           "ModuleNotFoundError: No module named 'tensorflow.examples.tutorials'\n")
    assert "cuda.libraries-missing" not in failing(log)
    assert "cuda.libraries-missing" in failing("pip install tensorflow-gpu\n" + log)


def test_a_libraries_type_check_refusing_an_object_of_the_other_keras():
    keras3 = ("FatalTypeError: Expected the model-building function, or HyperModel.build() to return a valid"
              " Keras Model instance. Received: <Sequential name=sequential_1, built=True> of type <class"
              " 'keras.src.models.sequential.Sequential'>.\n")
    assert set(failing(keras3)) == {"keras.keras3-api-change"}
    keras2 = keras3.replace("keras.src.models.sequential", "tf_keras.src.engine.sequential")
    assert set(failing(keras2)) == {"keras.keras3-api-change"}
    # Keras 2.13-2.15's own class path is no sign of the other Keras
    assert "keras.keras3-api-change" not in failing(keras3.replace("keras.src.models", "keras.src.engine"))


def test_a_librarys_message_opening_a_persons_sentence():
    """A message read where a sentence goes on after it ("... on Windows when I use ..."); its words alone,
    without the library's name before them, are anyone's."""
    title = "CUDA error: out of memory on Windows\uff0cwhen I use anythingLLM and Ollama\n"
    assert set(failing(title)) == {"gpu.out-of-memory"}
    assert not failing("My notebook error: out of memory on Windows when I open it\n")
    assert not failing("The CUDA error: out of order delivery of messages in my queue\n")


def test_tensorrt_missing_is_noise_until_a_program_converts_with_tf_trt():
    """TensorRT's missing libraries are TensorFlow's notice on any machine; TF-TRT's stub aborting the
    program that converts with it is the failure. A TensorRT folder on the search path is no notice."""
    stamp = "2021-06-17 20:18:13.799235: "
    loader = "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
    notice = (stamp + loader + "Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvrtc.so.11.1:"
              " cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/lib\n")
    assert not failing(notice)
    aborted = notice + (stamp + "F tensorflow/compiler/tf2tensorrt/stub/nvinfer_stub.cc:49]"
                        " getInferLibVersion symbol not found.\nAborted (core dumped)\n")
    found = failing(aborted)
    assert set(found) == {"cuda.libraries-missing"} and "TF-TRT" in found["cuda.libraries-missing"].title
    cublas = (stamp + loader + "Could not dlopen library 'libcublas.so.10.0'; dlerror: libcublas.so.10.0:"
              " cannot open shared object file: No such file or directory; LD_LIBRARY_PATH:"
              " /usr/local/cuda-10.2/lib64:/home/u/Downloads/TensorRT-7.0.0.11/lib\n")
    assert "cuda.libraries-missing" in failing(cublas)


def test_nvcc_refusing_an_architecture_before_kepler_or_after_its_own():
    """nvcc's "Unsupported gpu architecture": Fermi's compute_21 is the GPU too old for any TensorFlow; an
    architecture newer than the toolkit is the toolkit too old for the GPU."""
    old = "nvcc fatal   : Unsupported gpu architecture 'compute_21'\n"
    assert set(failing(old)) == {"gpu.compute-capability-unsupported"}
    new = "nvcc fatal   : Unsupported gpu architecture 'compute_86'\n"
    assert set(failing(new)) == {"xla.ptxas-too-old"}
    assert "sm_86" in failing(new)["xla.ptxas-too-old"].title


def test_pytorchs_extension_builder_refusing_a_toolkit_of_another_cuda():
    log = ("RuntimeError: \nThe detected CUDA version (12.4) mismatches the version that was used to"
           " compile\nPyTorch (11.8). Please make sure to use the same CUDA versions.\n")
    found = failing(log)
    assert {i for i, f in found.items() if not f.caused_by} == {"cuda.nvcc-differs"}
    assert "(12.4)" in found["cuda.nvcc-differs"].title
    joined = log.replace("compile\n", "compile ")
    assert "CUDA 11.8 toolkit" in failing(joined)["cuda.nvcc-differs"].fix


def test_pytorchs_cpu_wheel_printed_by_a_program():
    printed = "torch: 2.11.0+cpu\nCUDA build: None\nCUDA available: False\n"
    assert set(failing(printed)) == {"tensorflow.cpu-only-build"}
    assert not failing("pip install torch: 2.11.0+cpu is what the README says\n")


def test_the_cuda_runtime_stub_answering_for_a_runtime_it_could_not_load():
    """TensorFlow's cudart stub says "cudaGetErrorString symbol not found" when the CUDA runtime of its major
    did not load (its own error string is a symbol of that library): the libraries, not the driver."""
    line = ("tensorflow.python.framework.errors_impl.InternalError: cudaGetDevice() failed. Status:"
            " cudaGetErrorString symbol not found.\n")
    assert set(failing(line)) == {"cuda.libraries-missing"}
    assert set(failing(line[:line.index(" symbol") + 10] + "\n")) == {"cuda.libraries-missing"}  # (cut)


def test_a_cuda_library_not_found_in_a_persons_words():
    said = "Dependency Walker complained about cudnn64_5.dll not being found.\n"
    assert set(failing("pip show tensorflow-gpu\n" + said)) == {"cudnn.missing"}
    assert "cuda.libraries-missing" in failing("pip install tensorflow-gpu\nlibcudart.so.10.0 is missing\n")
    assert not failing("I checked that cudnn64_8.dll is found and loaded.\n")


def test_tensorflows_own_library_or_the_cpp_runtime_it_needs_not_loading():
    """Read and judged: a library of TensorFlow's own, or the MSVC runtime its DLL needs, that did not load
    is its native runtime failing to load (never a silent pass)."""
    own = "ImportError: libtensorflow_framework.so.2: cannot open shared object file: No such file\n"
    assert set(failing(own)) == {"tensorflow.import-failed"}
    msvc = "ImportError: Could not find 'msvcp140.dll'. TensorFlow requires that this DLL be installed\n"
    assert "tensorflow.import-failed" in failing(msvc)


def test_memory_a_crashed_program_has_not_released_in_a_persons_words():
    said = "My program crashed but device 0 memory hasn't been released.\n"
    assert set(failing(said)) == {"gpu.memory-held-by-other-processes"}
    assert not failing("The memory has been released after the run.\n")


def test_the_process_dying_as_tensorflow_is_imported():
    log = ">>> import torch\n>>> import tensorflow as tf\nSegmentation fault (core dumped)\n"
    assert set(failing(log)) == {"tensorflow.import-failed"}
    later = ">>> import tensorflow as tf\n>>> model.fit(x, y)\nEpoch 1/10\nSegmentation fault (core dumped)\n"
    assert "tensorflow.import-failed" not in failing(later)


@pytest.mark.parametrize(("text", "version"), [
    ("Tensorflow version 1.13.0 from official nvidia docker-hub  nvcr.io/nvidia/tensorflow:18.09-py3.\n",
     "1.13.0"),
    ("1. Framework: (TensorFlow)\n2. Framework version: 1.15.4\n", "1.15.4"),
    ("Tensorflow-gpu 'v2.1.0-rc2-17-ge5bf8de'\n", "2.1.0"),
    ("- TensorFlow version v1.12.1-45908-g9af48cb079\n", None),  # (a nightly: thousands of commits past)
    ("I have been trying to run the provided code on tensorflow version (2.4.1). But every time\n", "2.4.1"),
    ("Benchmark run: {'model_name': 'resnet', 'tensorflow_version': {'version': '1.12.0', 'git_hash': 'x'}}"
     "\n", "1.12.0"),
    ("Version:  2.11.0\nEager mode:  True\n", "2.11.0"),
    ("Version:  2.11.0\nHub version:  0.12.0\n", None),
])
def test_tensorflows_release_as_more_people_and_tools_write_it(text, version):
    assert explain_report(text, MATRIX).environment.get("tensorflow_version") == version


def test_pip_on_windows_stopped_by_the_path_length_limit():
    error = "ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: "
    path = "C:\\\\Users\\\\me\\\\tfenv\\\\Lib\\\\site-packages\\\\tensorflow\\\\" + "deep\\\\" * 30
    found = failing(f"pip install tensorflow\n{error}'{path}x.h'\n")
    assert set(found) == {"tensorflow.missing"} and "LongPathsEnabled" in found["tensorflow.missing"].fix
    assert "LongPathsEnabled" not in str(failing(f"{error}'C:\\\\a.txt'\n"))


def test_jaxs_cuda_plugin_of_another_release_than_jaxlib():
    """JAX's own check, the PJRT C API's struct sizes, a plugin calling what its jaxlib lacks, and a package
    list showing the two releases (not a jaxlib built from source)."""
    for line in ("RuntimeWarning: JAX plugin jax_cuda12_plugin version 0.9.2 is installed, but it is not"
                 " compatible with the installed jaxlib version 0.9.0.1\n",
                 "RuntimeError: Unable to initialize backend 'cuda': INVALID_ARGUMENT: Unexpected"
                 " PJRT_Client_Create_Args size: expected 88, got 72. The plugin is likely built with a later"
                 " version than the framework.\n",
                 "AttributeError: module 'jaxlib.xla_client' has no attribute"
                 " 'generate_pjrt_gpu_plugin_options'\n"):
        assert set(failing(line)) == {"tensorflow.conflicting-installs"}, line
    listed = ("jax                       0.4.38                   pypi_0    pypi\n"
              "jax-cuda12-plugin         0.5.0                    pypi_0    pypi\n"
              "jaxlib                    0.4.38                   pypi_0    pypi\n")
    found = failing(listed)
    assert set(found) == {"tensorflow.conflicting-installs"} and "jax[cuda12]==0.4.38" in found[
        "tensorflow.conflicting-installs"].fix
    assert not failing(listed.replace("0.5.0", "0.4.38"))
    assert not failing(listed.replace("0.4.38                   pypi", "0.4.39.dev20240729        pypi"))


def test_keras_2_classes_keras_3s_preprocessing_no_longer_has():
    line = "ImportError: cannot import name 'ImageDataGenerator' from 'keras.preprocessing.image' \n"
    assert set(failing(line)) == {"keras.keras3-api-change"}
    assert not failing("ImportError: cannot import name 'load_img2' from 'keras.preprocessing.image'\n").get(
        "keras.keras3-api-change")


def test_jax_probing_a_backend_it_lacks_and_xlas_slow_constant_folding_are_noise():
    rocm = ("RuntimeError: Unable to initialize backend 'rocm': NOT_FOUND: Could not find registered platform"
            " with name: \"rocm\". Available platform names are: Interpreter CUDA Host\n")
    folding = "2024-05-01 10:00:00.000000: E external/xla/xla/service/slow_operation_alarm.cc:65] Constant" \
              " folding an instruction is taking > 1s:\n"
    for line, name in ((rocm, "jax-backend-absent"), (folding, "xla-slow-operation")):
        assert not failing(line) and logs.read_text(line)["log"]["noise"] == {name: 1}
    # (no CUDA among the platforms: JAX's CPU-only build, which the line says)
    assert "tensorflow.cpu-only-build" in failing(rocm.replace("CUDA ", "").replace("rocm", "cuda"))


def test_keras_3_loading_a_model_keras_2_saved_and_macos_refusing_tensorflows_library():
    keras = ("TypeError: Could not locate class 'Model'. Make sure custom classes are decorated with"
             " `@keras.saving.register_keras_serializable()`.\n")
    assert set(failing(keras)) == {"keras.keras3-api-change"}
    assert "keras.keras3-api-change" not in failing(keras.replace("'Model'", "'MyAttention'"))
    macos = ("ImportError: dlopen(/Library/Frameworks/Python.framework/Versions/3.10/lib/python3.10/"
             "site-packages/tensorflow/python/_pywrap_tensorflow.so, 0x000A): tried: '/x' (mach-o file, but"
             " is an incompatible architecture (have 'x86_64', need 'arm64'))\n")
    assert set(failing(macos)) == {"tensorflow.import-failed"}


def test_jaxlibs_own_words_for_cublas_statuses():
    line = ("RuntimeError: jaxlib/cuda/versions_helpers.cc:72: operation cublasGetVersion( nullptr, &version)"
            " failed: cuBlas internal error\n")
    assert set(failing(line)) == {"cublas.init-failed"}


def test_tensorflow_failing_to_run_the_ptxas_it_found():
    line = ("2020-12-07 14:30:02.167595: W tensorflow/stream_executor/gpu/asm_compiler.cc:81] Running ptxas"
            " --version returned 256\n")
    assert set(failing(line)) == {"xla.toolchain-missing"}
    assert not failing(line.replace("256", "0"))


def test_torchvision_of_another_cuda_major_than_pytorch_in_its_newer_words():
    line = ("RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major"
            " versions. PyTorch has CUDA Version=11.8 and torchvision has CUDA Version=12.1. Please\n")
    assert set(failing(line)) == {"tensorflow.conflicting-installs"}


def test_a_fatal_line_quoted_in_backticks_is_an_error_line_the_cheap_pass_picks():
    text = ("This test passed with CPU only, but fails for GPU:\n"
            "`F tensorflow/core/common_runtime/direct_session_with_tracking_alloc_test.cc:141] Check failed:"
            " cost_models.size() == 1 (2 vs. 1)`\n")
    assert logs.read_text(text) == logs.read_text(text, every_line=True)
    assert logs.read_text(text)["log"]["unrecognized_count"] == 1


def test_the_keras_package_asking_a_tensorflow_object_for_an_internal_it_lacks():
    text = corpus("holdout50/Y113")  # keras 2.3's tensorboard_v2 callback on TensorFlow 2.0's Model
    assert {i for i, f in failing(text).items() if not f.caused_by} == {"tensorflow.conflicting-installs"}
    # None has no attributes: the program passed it; and the same error raised in the program's own frames
    assert "tensorflow.conflicting-installs" not in failing(
        text.replace("'Model' object has no attribute '_get_distribution_strategy'",
                     "'NoneType' object has no attribute '_inbound_nodes'"))
    assert "tensorflow.conflicting-installs" not in failing(text.replace("site-packages/keras/", "mrcnn/"))


def test_a_projects_cuda_check_macro_that_failed_names_the_runtimes_message():
    line = "I was getting an error  `cudaCheckError() failed : invalid device function` with no traceback.\n"
    assert set(failing(line)) == {"gpu.compute-capability-unsupported"}
    assert not failing("The parser failed : invalid device function name in config.yaml\n")


def test_tensorflow_listing_no_gpu_the_driver_shows_lacks_its_cuda_libraries():
    text = corpus("holdout50/Y121")  # TensorFlow 2.14 on Colab: nvidia-smi lists the A100, TensorFlow none
    found = failing(text)
    assert not found["cuda.libraries-missing"].caused_by
    assert found["runtime.no-gpu-visible"].caused_by == "cuda.libraries-missing"
    assert "cuda.libraries-missing" not in failing(text.replace("2.14.0", "2.0.0"))  # (the CPU package)
    unseen = text.replace("I verified that a GPU (NVIDIA A100-SXM4-40GB) is available using nvidia-smi,", "")
    assert "cuda.libraries-missing" not in failing(unseen)
    assert "cuda.libraries-missing" not in failing(text + "ValueError: Unknown loss function: focal_loss\n")
    cpu = failing(text + "Package         Version\n--------------- -------\ntensorflow-cpu  2.14.0\n")
    assert "cuda.libraries-missing" not in cpu and "tensorflow.cpu-only-build" in cpu


def test_cublas_failing_to_run_on_a_gpu_newer_than_its_architectures_first_cuda():
    text = corpus("holdout50/Y216")  # TensorFlow 1.8 (CUDA 9.0) on an RTX 2080 Ti (Turing: CUDA 10.0)
    found = failing(text)
    assert "compute capability 7.5 need CUDA 10.0" in found["gpu.compute-capability-unsupported"].detail
    assert found["cublas.init-failed"].caused_by == "gpu.compute-capability-unsupported"
    # an allocation failing says memory, not missing kernels (Volta's CUDA 9.0 code runs on Turing)
    alloc = failing(text.replace("CUBLAS_STATUS_EXECUTION_FAILED", "CUBLAS_STATUS_ALLOC_FAILED"))
    assert "gpu.compute-capability-unsupported" not in alloc and not alloc["cublas.init-failed"].caused_by


def test_cudnn_typed_as_its_download_names_it():
    values = logs.read_text("CUDA : 11.1.1\nCUDNN : 11.1 (v8.0.5.39)\n")
    assert values["runtime"]["cudnn_version"] == "8.0.5.39"
    assert logs.read_text("CUDNN : 8.0.5 for CUDA 11.1\n")["runtime"]["cudnn_version"] == "8.0.5"


def test_a_unified_memory_allocation_refused_with_its_result_cut_off():
    line = held_line("holdout50", "Y301", "unified memory")
    assert set(failing(line)) == {"gpu.out-of-memory"}
    assert not failing("2023-05-14 12:24:49.060530: I tensorflow/core/x.cc:1] allocated 17178951680 bytes"
                       " unified memory\n")


def test_a_person_saying_the_machine_has_no_gpu_before_asking_a_question():
    said = "I finally understood that I didn't have a graphic card on my work computer. Is there a way? \n"
    assert logs.read_text(said)["system"]["no_gpu_stated"]
    for asked in ("What if I don't have a GPU?\n", "I don't have a GPU, can I still run it?\n"):
        assert "no_gpu_stated" not in logs.read_text(asked).get("system", {})


def test_a_diagnostic_reports_version_under_its_section():
    report = "[Platform]\n  OS:  Windows 10\n\n[Python]\n  Version:     3.13.9\n  Executable:  C:\\py.exe\n"
    assert logs.read_text(report)["tensorflow"]["python_version"] == "3.13.9"
    uv = "[UV]\n  Version:         uv 0.10.2 (a788db7e5 2026-02-10)\n"
    assert "python_version" not in logs.read_text(uv).get("tensorflow", {})
    far = "[Python]\n" + "x = 1\n" * 20 + "Version: 1.2.3\n"
    assert "python_version" not in logs.read_text(far).get("tensorflow", {})


def test_a_hosted_notebooks_gpu_runtime_is_a_driver_that_shows_the_gpu():
    text = corpus("holdout51/Z108")  # Colab's A100 runtime, TensorFlow 2.15 listing no GPU
    assert not failing(text)["cuda.libraries-missing"].caused_by
    assert "cuda.libraries-missing" not in failing(text.replace("Google Colab", "my workstation"))


def test_a_report_saying_cuda_visible_devices_is_unset():
    said = "DEEPMD INFO    CUDA_VISIBLE_DEVICES: unset\n"
    assert "CUDA_VISIBLE_DEVICES" not in env(said)
    assert env(said.replace("unset", "''")) == {"CUDA_VISIBLE_DEVICES": ""}


def test_a_person_naming_the_library_that_is_needed():
    assert set(failing("However, I met the following trouble, libcublas.so.9.0 is needed!\n")) == {
        "cuda.libraries-missing"}
    assert not failing("libcublas.so.9.0 is needed by the CUDA samples, which built fine\n")


def test_tensorflows_windows_self_check_naming_what_it_could_not_find():
    check = corpus("holdout51/Z302")  # "- Could not find cuDNN 6." under "ERROR: Failed to import ..."
    assert "cudnn.missing" in failing(check)
    assert set(failing("- Could not find cudart64_90.dll. The GPU version of TensorFlow requires\n")) == {
        "cuda.libraries-missing"}
    assert not failing("Could not find cuDNN 6 in the docs, so I installed 7.\n")


def test_a_binding_re_raising_the_loaders_message_cut_short():
    text = corpus("holdout51/Z318")  # tfjs-node-gpu: "Error: libcublas.so.10.0: ca"
    assert {i for i, f in failing(text).items() if not f.caused_by} == {"cuda.libraries-missing"}
    assert "cuda.libraries-missing" not in failing("Error: config.so: unexpected end of file\n")


def test_windows_runtime_dlls_of_cuda_before_10_name_major_and_minor_in_two_digits():
    from tfdoctor.versions import library_cuda_major
    assert [library_cuda_major(n) for n in ("cudart64_90.dll", "cublas64_80.dll", "cudart64_92.dll",
                                            "cudart64_101.dll", "cublas64_11.dll", "cudart64_12.dll")] == [
        9, 8, 9, 10, 11, 12]


def test_another_packages_tensorflow_version_field_is_not_tensorflows():
    text = "[INFO] imagej-tensorflow version: 1.0.1\n[INFO] tensorflow version: 1.6.0\n"
    assert logs.read_text(text)["tensorflow"]["version"] == "1.6.0"
    assert logs.read_text("tf.__version__ is: 2.1.0\n")["tensorflow"]["version"] == "2.1.0"
    assert logs.read_text("tensorflow-gpu version: 1.14.0\n")["tensorflow"]["version"] == "1.14.0"


def test_cudnn_on_a_line_of_its_own():
    assert logs.read_text("CUDA 8\nCUDNN 7\nPython 3.5\n")["runtime"]["cudnn_version"] == "7"
    assert "runtime" not in logs.read_text("CUDNN 7 days ago\n")


def test_grapplers_description_of_a_gpu_in_its_cost_model_warning():
    line = held_line("holdout33", "Q438", 'vendor: "NVIDIA"')
    facts = logs.read_text(line)
    assert facts["runtime"]["gpus"] == [{"index": 0, "name": "Tesla T4", "compute_capability": "7.5"}]
    assert facts["tensorflow"]["build_info"] == {"cuda_version": "11.1", "cudnn_version": "8.0.5"}
    assert "gpus" not in logs.read_text(line.replace('type: "GPU"', 'type: "CPU"')).get("runtime", {})


def test_an_add_on_imported_in_a_title_that_names_the_api_its_tensorflow_lacks():
    title = ("Importing tensorflow_io leads AttributeError: module 'tensorflow._api.v2.experimental' has no"
             " attribute 'register_filesystem_plugin'\n")
    assert set(failing(title)) == {"tensorflow.conflicting-installs"}
    assert not failing("Importing tensorflow_io leads to a slow start\n")


def test_an_add_ons_op_library_refused_as_not_found():
    text = corpus("holdout52/A105")  # tensorflow-quantum 0.3.1 (for TF 2.1) under TensorFlow 2.2
    assert set(failing(text)) == {"tensorflow.conflicting-installs"}
    assert "tensorflow.conflicting-installs" not in failing(
        "NotFoundError: /data/checkpoints/model.ckpt-100.index not found\n")


def test_a_cuda_call_that_failed_with_a_numbered_error():
    assert set(failing("cudaGetDeviceCount() call failed with error 804\n")) == {"driver.too-old"}
    assert not failing("cudaGetDeviceCount() call took 804 ms\n")


def test_paddles_own_words_for_cudnn_and_its_libraries():
    mismatch = held_line("holdout52", "A503", "compiled with CUDNN")
    assert set(failing(mismatch)) == {"cudnn.version-mismatch"}
    dll = held_line("holdout52", "A522", "third-party dynamic library")
    assert set(failing(dll)) == {"cudnn.missing"}


def test_cupys_memory_pool_running_out():
    line = "cupy.cuda.memory.OutOfMemoryError: out of memory to allocate 124928 bytes (total 10688858112)\n"
    assert set(failing(line)) == {"gpu.out-of-memory"}


def test_versions_as_templates_and_tools_write_them():
    assert logs.read_text("* `tensorflow-gpu` version: 2.1.0                h0d30ee6_0\n")["tensorflow"][
        "version"] == "2.1.0"
    assert logs.read_text("* `tensorflow`/`tf-nightly` version: 2.4.1\n")["tensorflow"]["version"] == "2.4.1"
    assert logs.read_text("pip3.6 install --user tensorflow_probability==0.7.0\n")["tensorflow"][
        "python_version"] == "3.6"
    pyenv = "pyenv install 3.10.4\npyenv shell 3.10.4\n"
    assert logs.read_text(pyenv)["tensorflow"]["python_version"] == "3.10.4"
    macos = "  File \"/Users/a/Library/Python/3.6/lib/python/site-packages/tensorflow_x/x.py\", line 1\n"
    assert logs.read_text(macos)["tensorflow"]["python_version"] == "3.6"


def test_nvidias_container_banners_for_a_driver_release_without_its_minor_and_for_a_cpu_without_avx():
    driver = held_line("holdout53", "B203", "built for NVIDIA Driver Release")
    text = driver.lstrip("> ") + "\n  version 396.26 was detected and compatibility mode is UNAVAILABLE.\n"
    assert set(failing(text)) == {"driver.too-old"}
    avx = held_line("holdout53", "B215", "built for CPUs supporting")
    assert set(failing(avx)) == {"cpu.avx-missing"}


def test_a_driver_version_written_as_a_minimum_is_not_the_one_installed():
    said = "the container is supposed to run normally with NVIDIA Driver 384.111+.\n"
    assert "nvidia_smi" not in logs.read_text(said)
    assert "nvidia_smi" not in logs.read_text(said.replace("+.", " or later."))
    assert logs.read_text("I use NVIDIA Driver 384.111.\n")["nvidia_smi"]["driver_version"] == "384.111"


def test_a_tensorflow_module_without_version_is_an_empty_folder_left_by_another_install():
    found = failing("AttributeError: module 'tensorflow' has no attribute '__version__'\n")
    assert set(found) == {"tensorflow.conflicting-installs"}
    assert "__version__" in found["tensorflow.conflicting-installs"].title
    assert "tensorflow.conflicting-installs" not in failing(
        "AttributeError: module 'tensorflow' has no attribute 'Session'\n")


def test_the_tensorflow_imported_is_another_release_than_the_one_listed():
    text = ("Package    Version\n---------- -------\ntensorflow 2.2.0\nnumpy      1.18.5\n"
            ">>> import tensorflow as tf\n>>> tf.__version__\n'1.14.0'\n")
    assert logs.read_text(text)["tensorflow"]["duplicates"] == {"tensorflow": ["2.2.0", "1.14.0"]}
    assert "tensorflow.conflicting-installs" in failing(text)
    assert "duplicates" not in logs.read_text(text.replace("'1.14.0'", "'2.2.0'"))["tensorflow"]


def test_tensorflow_2_0_imported_from_the_user_site_inside_a_conda_environment():
    text = corpus("holdout53/B320")  # ~\AppData\Roaming\Python\Python37\site-packages\tensorflow_core
    assert {i for i, f in failing(text).items() if not f.caused_by} == {"tensorflow.conflicting-installs"}


def test_tensorrt_saying_cuda_failed_to_initialise_with_a_runtime_error_number():
    line = "# ERROR: Cuda initialization failure with error 35. Please check cuda installation\n"
    assert set(failing(line)) == {"driver.too-old"}
    assert set(failing("[TRT] CUDA initialization failure with error: 100\n")) == {"cuda.init-failed"}


def test_paddles_own_words_for_an_architecture_its_wheel_lacks_and_a_cudnn_it_did_not_find():
    arch = held_line("holdout54", "C211", "not compatible with Paddle installation with arch")
    assert set(failing(arch)) == {"gpu.compute-capability-unsupported"}
    note = ("W0117 12:43:09.765803  5764 dynamic_loader.cc:285] Note: [Recommend] copy cudnn into CUDA"
            " installation directory.\n")
    assert set(failing(note)) == {"cudnn.missing"}


def test_conda_build_strings_of_cpu_only_pytorch_and_jaxlib():
    torch = "pytorch                   1.11.0              py3.8_cpu_0    pytorch\n"
    assert set(failing(torch)) == {"tensorflow.cpu-only-build"}
    assert set(failing("pytorch-mutex             1.0                         cpu    pytorch\n")) == {
        "tensorflow.cpu-only-build"}
    jax = "  jaxlib             conda-forge/linux-64::jaxlib-0.4.4-cpu_py311h7146453_1\n"
    assert set(failing(jax)) == {"tensorflow.cpu-only-build"}
    assert not failing(torch.replace("py3.8_cpu_0", "py3.8_cuda11.3_cudnn8.2.0_0"))
    assert not failing("pytorch-mutex             1.0                        cuda    pytorch\n")


def test_sigill_by_its_name_or_number_as_launchers_report_a_process_killed_by_it():
    died = held_line("holdout55", "D121", "exit code -4")  # ROS: the node died with -4
    assert set(failing(died)) == {"cpu.avx-missing"}
    for said in ("simple-ehm execution finishes with a SIGILL signal", "python exited with code 132",
                 "Process finished with exit code 132 (interrupted by signal 4: SIGILL)",
                 "the worker was killed by signal 4"):
        assert set(failing(said + "\n")) == {"cpu.avx-missing"}, said
    for other in ("exit code 1", "process finished with exit code -1", "returned error code 132 from the API",
                  "see section 4.132 of the manual"):
        assert "cpu.avx-missing" not in failing(other + "\n"), other


def test_a_tensorflow_module_without_its_core_api_is_a_broken_install_not_an_old_program():
    broken = held_line("holdout55", "D119", "has no attribute 'nn'")
    assert set(failing(broken)) == {"tensorflow.conflicting-installs"}
    for removed in ("Session", "contrib", "placeholder", "ConfigProto", "random_normal", "log"):
        line = f"AttributeError: module 'tensorflow' has no attribute '{removed}'\n"  # (gone in 2.x)
        assert "tensorflow.conflicting-installs" not in failing(line), removed


def test_singularity_finding_no_nvidia_library_on_the_host():
    text = corpus("holdout55/D412")
    assert {i for i, f in failing(text).items() if not f.caused_by} == {"driver.missing"}


def test_tensorflow_1_4s_own_fast_tensor_util_built_under_python_3_5_is_harmless_on_3_6():
    harmless = held_line("holdout55", "D120", "compiletime version 3.5")
    assert "tensorflow.python-unsupported" not in failing(harmless)
    other = harmless.replace("version 3.5", "version 3.4").replace("runtime version 3.6",
                                                                   "runtime version 3.5")
    assert set(failing(other)) == {"tensorflow.python-unsupported"}


def test_a_printed_list_of_physical_devices_with_the_cpu_alone_is_tensorflow_seeing_no_gpu():
    cpu = "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]\n"
    assert logs.read_text(cpu)["runtime"]["tf_visible_gpus"] == 0
    both = cpu.replace(")]", "), PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]")
    assert logs.read_text(both)["runtime"]["tf_visible_gpus"] == 1
    asked = ">>> tf.config.list_physical_devices('CPU')\n" + cpu  # (the CPU alone was asked for)
    assert "tf_visible_gpus" not in (logs.read_text(asked).get("runtime") or {})


def test_a_data_centre_gpus_name_keeps_its_form_and_memory():
    line = held_line("holdout55", "D303", "Device 0:")
    assert logs.read_text(line)["runtime"]["gpus_stated"][0]["name"] == "Tesla V100-SXM2-16GB"
    assert logs.read_text("we run on A100-PCIE-40GB nodes\n")["runtime"]["gpus_stated"][0]["name"] == (
        "A100-PCIE-40GB")
    assert logs.read_text("my V100 is slow\n")["runtime"]["gpus_stated"][0]["name"] == "V100"


def test_tensorflows_gpu_device_log_is_tensorflow_running_under_the_python_stated():
    text = corpus("holdout55/D608")  # Python 3.9 with TensorFlow 2.4.1 (PyPI's wheels: 3.6-3.8), and it ran
    assert "tensorflow.python-unsupported" not in failing(text)
    fields = "\n".join(line for line in text.splitlines() if "Found device" not in line)
    assert "tensorflow.python-unsupported" in failing(fields)  # (without it: the Python is outside)


def test_the_allocators_failing_warning_cut_inside_its_last_word():
    cut = held_line("holdout55", "D601", "Current allocation summary follow")
    assert set(failing(cut)) == {"gpu.out-of-memory"}


@pytest.mark.parametrize("line, platform", [
    ('  File "/nohome/jaan/envs/ppo/lib/python3.6/site-packages/tensorflow/python/session.py", line 9',
     "linux"),
    ("/usr/lib/python3/dist-packages/apport_python_hook.py", "linux"),
    ("[Mo Mai 11 10:40:26 2020] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/", "linux"),
    ("srun: error: nid02086: task 0: Exited with exit code 1", "linux"),
    ("HINT: This error might have occurred since this system does not have Windows Long Path support on.",
     "windows"),
    ('  File "/Users/me/venv/lib/python3.9/site-packages/keras/x.py", line 1', "macos"),
    ('`anaconda3/envs/dvf/lib/python3.10/site-packages/torch/cuda/__init__.py", line 239', None),
])
def test_the_platform_a_path_a_kernel_message_or_a_scheduler_shows(line, platform):
    assert (logs.read_text(line + "\n").get("system") or {}).get("platform") == platform


def test_dockers_refusal_of_gpus_without_nvidias_runtime_is_a_container():
    refused = held_line("holdout55", "D605", "could not select device driver")
    assert logs.read_text(refused)["system"]["container"] == "docker"
    other = logs.read_text("could not select the best device driver\n")
    assert "container" not in (other.get("system") or {})


def test_a_kernels_failed_assertion_is_the_programs_and_the_cuda_failures_after_it_follow_from_it():
    text = corpus("holdout56/E417")  # an index out of range in PyTorch's kernel, then cuBLAS's handle fails
    found = failing(text)
    assert found["cublas.init-failed"].caused_by == "log.program-error"
    assert {i for i, f in found.items() if not f.caused_by} == {"log.program-error"}
    alone = "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\n"
    assert not failing(alone)["cublas.init-failed"].caused_by
    cudnn = corpus("holdout46/U110")  # the error pasted first, the kernel's assertions after it
    assert failing(cudnn)["cudnn.init-failed"].caused_by == "log.program-error"


def test_a_cudnn_sub_library_missing_a_function_of_cudnns_core_is_an_older_core_loaded():
    text = corpus("holdout56/E205")  # libcudnn_graph.so.9: undefined symbol: cudnnGetLibConfig
    assert set(failing(text)) == {"cudnn.version-mismatch"}
    tf_own = "_pywrap_tensorflow.so: undefined symbol: cudnnCreate\n"  # (TensorFlow's own library: no cuDNN)
    assert "cudnn.version-mismatch" not in failing(tf_own)


def test_a_batched_gemm_that_failed_to_launch_is_cublas_failing():
    line = held_line("holdout56", "E414", "xGEMMBatched launch failed")
    assert set(failing(line)) == {"cublas.init-failed"}


# --- learnt from holdout57 ---------------------------------------------------------------------------


def test_the_container_toolkits_request_to_the_host_driver_failing_is_a_driver_it_cannot_reach():
    text = corpus("holdout57/F421")  # Docker Desktop on WSL 2: "initialization error: driver error: ..."
    found = failing(text)
    assert set(found) == {"driver.missing"}
    assert "Container Toolkit could not reach" in found["driver.missing"].title
    nvml = "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown\n"
    assert "Container Toolkit" not in failing(nvml)["driver.missing"].title


@pytest.mark.parametrize("line", [
    "tensorflow-1.6.0rc0-cp27-cp27mu-linux_aarch64.whl is not a supported wheel on this platform.",  # F514
    "ERROR: tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl is not a supported"
    " wheel on this platform.",  # (manylinux tags run long)
])
def test_pip_refusing_a_tensorflow_wheel_of_a_pre_release_or_a_long_platform_tag(line):
    assert set(failing(line + "\n")) == {"tensorflow.python-unsupported"}


def test_no_wheel_of_microsofts_directml_builds_is_a_python_they_have_none_for():
    found = failing(corpus("holdout57/F406"))["tensorflow.python-unsupported"]  # the plugin on Python 3.11
    assert "tensorflow-directml-plugin" in found.title and "3.10" in found.plan.text()
    older = failing(corpus("holdout55/D521"))["tensorflow.python-unsupported"]  # TensorFlow 1.15's, on 3.8
    assert "tensorflow-directml wheel" in older.title and "Python 3.7" in older.plan.text()


def test_a_path_through_a_wheels_vendored_libraries_names_the_distribution_installed():
    text = corpus("holdout57/F512")  # .../tensorflow_cpu_aws.libs/libgomp-...: on a Jetson Xavier NX
    assert logs.read_text(text)["tensorflow"]["distributions"] == {"tensorflow-cpu-aws": ""}
    assert "not NVIDIA's build for Jetson" in failing(text)["tensorflow.cpu-only-build"].title
    plain = "ImportError: /usr/lib/python3/dist-packages/tensorflow/libs/libfoo.so: cannot open shared\n"
    assert "distributions" not in (logs.read_text(plain).get("tensorflow") or {})


def test_no_kernel_registered_for_ncclallreduce_is_a_build_without_nccl():
    assert set(failing(corpus("holdout57/F615"))) == {"nccl.unsupported-platform"}  # the bare-bracket form
    named = "NotFoundError: No registered 'NcclAllReduce' OpKernel for 'GPU' devices compatible with node\n"
    assert set(failing(named)) == {"nccl.unsupported-platform"}
    xla = "No registered 'NcclAllReduce' OpKernel for XLA_GPU_JIT devices compatible with node {{node x}}\n"
    assert "nccl.unsupported-platform" not in failing(xla)
    ran = " [[{{node NcclAllReduce}}]] [Op:__inference_train_function_1234]\n"  # (a kernel ran and failed)
    assert set(failing(ran)) == {"nccl.error"}


def test_multi_backend_keras_refusing_tensorflow_2_is_keras_of_another_release():
    found = failing(corpus("holdout57/F306"))
    assert "Keras" in found["tensorflow.conflicting-installs"].title


def test_keras_2_3s_backend_asking_tensorflow_2_1_for_the_device_listing_it_removed():
    for case in ("holdout58/G209", "holdout51/Z320"):  # tf.config.experimental_list_devices, gone in 2.1
        assert "tensorflow.conflicting-installs" in failing(corpus(case))
    other = "AttributeError: module 'tensorflow._api.v2.config' has no attribute 'list_logical_devices'\n"
    assert "tensorflow.conflicting-installs" not in failing(other)


def test_a_keras_device_list_naming_the_gpu_beside_its_xla_device_has_a_gpu():
    text = corpus("holdout57/F605")  # multi_gpu_model(gpus=8): "this machine only has: [... '/gpu:0']"
    assert "cuda.libraries-missing" not in failing(text)
    xla_only = ("ValueError: To call `multi_gpu_model` with `gpus=2`, we expect the following devices to be"
                " available: ['/cpu:0', '/gpu:0', '/gpu:1']. However this machine only has: ['/cpu:0',"
                " '/xla_cpu:0', '/xla_gpu:0']. Try reducing `gpus`.\n")
    assert "cuda.libraries-missing" in failing(xla_only)


def test_a_cuda_build_known_only_from_its_log_says_no_unknown_versions():
    report = explain_report(corpus("holdout57/F612"), MATRIX)
    build = next(f for f in report.findings if f.id == "tensorflow.build")
    assert build.title == "TensorFlow, a CUDA build"


# --- learnt from holdout58 ---------------------------------------------------------------------------


def test_an_nvidia_smi_branches_older_than_the_driver_it_talks_to_is_an_old_drivers_files_left():
    found = failing(corpus("holdout58/G401"))  # NVIDIA-SMI 352.63 with Driver Version 384.130, nothing failed
    assert set(found) == {"driver.library-mismatch"}
    wsl = corpus("holdout10/R050")  # WSL 2's Linux nvidia-smi 470.57.02 beside the Windows driver 510.06
    assert "driver.library-mismatch" not in failing(wsl)
    newer = corpus("holdout56/E406")  # (Colab: a newer nvidia-smi than its driver is another finding)
    assert "driver.library-mismatch" not in failing(newer)


def test_the_container_runtime_finding_no_nvidia_smi_is_a_container_without_the_gpu():
    found = failing(corpus("holdout58/G304"))["driver.missing"]  # podman through crun
    assert found.title == "This podman container has no access to the NVIDIA driver"
    assert "nvidia.com/gpu=all" in found.plan.text()
    runc = ('docker: Error response from daemon: OCI runtime create failed: container_linux.go:349:'
            ' starting container process caused "exec: \\"nvidia-smi\\": executable file not found in $PATH":'
            ' unknown.\n')
    assert "container" in failing(runc)["driver.missing"].title
    other = 'exec: "python": executable file not found in $PATH\n'
    assert "driver.missing" not in failing(other)


def test_an_empty_gpu_list_printed_with_a_space_is_no_gpu():
    found = failing(corpus("holdout58/G207"))  # list_physical_devices('GPU') -> "[ ]", driver 550 shown
    assert "cuda.libraries-missing" in found


@pytest.mark.parametrize("text, visible", [
    ("print(tf.test.is_gpu_available())\nFalse\n", 0),
    ("Is there a GPU available: False\n", 0),
    ("Is there a GPU available: \nFalse\n", 0),
    ("GPU available: False, used: False\n", None),  # (PyTorch Lightning's line: its GPU, not TensorFlow's)
    ("print(tf.test.is_gpu_available())\nTrue\n", None),
])
def test_is_gpu_available_answered(text, visible):
    assert (logs.read_text(text).get("runtime") or {}).get("tf_visible_gpus") == visible


def test_a_keras_api_error_under_a_python_older_than_keras_3s_is_not_keras_3():
    found = failing(corpus("holdout58/G115"))  # No module named 'keras.legacy' under Python 3.6
    assert set(found) == {"log.unrecognized"}
    assert "keras.legacy" in found["log.unrecognized"].evidence[0]


def test_a_cuda_a_person_states_predating_the_gpu_whose_cudnn_kernels_failed_to_execute():
    text = corpus("holdout21/E101")  # "CUDA 9.0" stated, an RTX 2080 Ti, CUDNN_STATUS_EXECUTION_FAILED
    found = failing(text)["gpu.compute-capability-unsupported"]
    assert found.title == "This environment's CUDA 9.0 predates RTX 2080 ti (compute capability 7.5)"
    # (cuBLAS's handle failing under a stated CUDA of the GPU's major is not its kernels: holdout43 V119)
    assert "gpu.compute-capability-unsupported" not in failing(corpus("holdout43/V119"))


@pytest.mark.parametrize("line, cuda", [
    ("CUDA 9.0", "9.0"), ("- CUDA version: 10.1", "10.1"), ("CUDA = 12.4", "12.4"), ("CUDA 11.2.1", "11.2"),
    ("cuda 10.0 and cudnn 7.4", None),  # (a sentence, not the line of a version)
])
def test_a_cuda_version_stated_alone(line, cuda):
    assert (logs.read_text(line + "\n").get("system") or {}).get("cuda_stated") == cuda


@pytest.mark.parametrize("line, platform", [
    ("OS: Windows-10-10.0.19041-SP0", "windows"),  # holdout58 G213: Python's platform.platform()
    ("Python 3.7.7 (default, May  6 2020, 11:45:54) [MSC v.1916 64 bit (AMD64)]", "windows"),  # G216: MSVC
    ("Python 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] on linux", "linux"),
    ("a Windows-XP style theme", None),
])
def test_pythons_own_words_for_windows(line, platform):
    assert (logs.read_text(line + "\n").get("system") or {}).get("platform") == platform


@pytest.mark.parametrize("line, name", [
    ("I have a jetson nano", "jetson nano"), ("Jetson AGX Orin 64GB devkit", "Jetson AGX Orin"),
    ("on my Jetson Xavier NX", "Jetson Xavier NX"), ("jetson tx2", "jetson tx2"),
    ("the jetson community", None),
])
def test_a_jetson_board_names_its_gpu(line, name):
    stated = (logs.read_text(line + "\n").get("runtime") or {}).get("gpus_stated") or [{}]
    assert stated[0].get("name") == name


@pytest.mark.parametrize("line", ["Illegal instruction (core dumped)", "PLATFORM=linux_x86_64",
                                  "tensorflow-2.4.0-cp37-none-linux_armv7l.whl", "raspberry pi 4"])
def test_linux_from_a_shells_crash_a_wheels_tag_or_a_linux_board(line):
    assert logs.read_text(line + "\n")["system"]["platform"] == "linux"


# --- holdout59's lessons -------------------------------------------------------------------------

def test_pips_old_resolver_names_two_tensorflows_installed_once_each():
    found = failing(corpus("holdout59/H318"))  # "tensorflow 2.4.1 has requirement ..., but you'll have ..."
    assert found["tensorflow.conflicting-installs"].title.startswith("2 TensorFlow packages installed")
    assert not any(f.title.startswith("Installed twice") for f in found.values())  # (one line per need)
    line = line_of("holdout59/H318", "has requirement gast")
    assert "tensorflow.conflicting-installs" in failing(line + "\n")  # pip's own conflict, alone


@pytest.mark.parametrize("case", ["holdout59/H206", "holdout59/H306", "holdout59/H308"])
def test_tensorflows_own_file_failing_to_import_its_own_name_is_two_releases_mixed(case):
    found = failing(corpus(case))  # Python 3.7's "... from 'tensorflow.python...'" and 3.6's bare name
    assert "own files are of two releases" in found["tensorflow.conflicting-installs"].title


@pytest.mark.parametrize("last_frame", [
    '  File "/usr/lib/python3/dist-packages/tensorflow/core/framework/graph_pb2.py", line 9, in <module>',
    '  File "/usr/lib/python3/dist-packages/numpy/core/__init__.py", line 24, in <module>',
])
def test_a_bare_import_error_in_another_packages_frame_is_not_tensorflows(last_frame):
    text = ('  File "/usr/lib/python3/dist-packages/tensorflow/python/__init__.py", line 13, in <module>\n'
            "    from tensorflow.core.framework.graph_pb2 import *\n"
            f"{last_frame}\n    from x import y\nImportError: cannot import name y\n")
    assert "tensorflow.conflicting-installs" not in failing(text)


def test_an_estimator_of_another_release_than_tensorflow():
    found = failing(corpus("holdout59/H211"))  # tensorflow_estimator's frames: no attribute 'compat'
    title = found["tensorflow.conflicting-installs"].title
    assert title.startswith("Package versions conflict: tensorflow-estimator")


@pytest.mark.parametrize("text, none", [
    (" * GPU models and configuration\nno gpu, os x\n", True),  # holdout59 H204 (stable-baselines' template)
    ("GPU model and memory: None\n", True), ("GPU models and configuration: CPU only\n", True),
    ("GPU model and memory: GTX 1080\n", False), ("GPU models and configuration: none of them work\n", False),
])
def test_a_gpu_field_answered_with_no_gpu(text, none):
    assert bool((logs.read_text(text).get("system") or {}).get("no_gpu_stated")) is none


def test_a_mac_without_a_gpu_says_so_and_is_not_told_to_find_one():
    assert not failing(corpus("holdout59/H204"))


def test_tensorflows_diagnostics_name_a_docker_containers_host():
    found = failing(corpus("holdout59/H512"))  # "for host: 64683ab6f51a", libcuda 418.87.1, kernel 440.64.0
    assert "driver library is 418.87.01, but the host's kernel module is 440.64.0" in found[
        "cuda.container-driver-libraries"].title
    assert found["driver.library-mismatch"].caused_by == "cuda.container-driver-libraries"


@pytest.mark.parametrize("case", ["holdout59/H411", "holdout59/H421"])
def test_singularity_without_nv_and_another_frameworks_no_cuda(case):
    found = failing(corpus(case))  # "CUDA device requested but no devices found", is_available() False
    assert found["driver.missing"].title == "This singularity container has no access to the NVIDIA driver"
    assert "started without the GPU (no --nv or --nvccli)" in found["driver.missing"].detail


def test_a_code_printed_before_the_call_that_returned_it():
    found = failing(corpus("holdout59/H416"))  # "Return value 46 from 'cudaStreamCreate(...)'"
    assert found["cuda.init-failed"].title == "CUDA failed to initialise (DEVICE_UNAVAILABLE)"


def test_musls_loader_refusing_tensorflows_glibc_binaries():
    found = failing(corpus("holdout59/H507"))  # "Error loading shared library ld-linux-x86-64.so.2"
    assert found["system.glibc-too-old"].title.startswith("This system's C library is musl")
    assert "system.glibc-too-old" in failing(
        "Error relocating /usr/lib/libtensorflow.so.2: __memcpy_chk: symbol not found\n")


@pytest.mark.parametrize("text", [
    corpus("holdout59/H123"),  # CudnnRNN with "Registered devices: [CPU]"
    "Could not satisfy explicit device specification '/device:GPU:0' because no devices matching that"
    " specification are registered in this process; available devices: /job:localhost/replica:0/task:0/"
    "device:CPU:0\n",
])
def test_work_placed_on_a_gpu_tensorflow_does_not_have(text):
    assert "runtime.no-gpu-visible" in failing(text)


def test_ptx_xla_handed_the_driver_without_ptxas_is_the_missing_toolchains():
    found = failing(corpus("holdout59/H515"))  # "Can't find ptxas", then CUDA_ERROR_INVALID_PTX
    assert found["gpu.compute-capability-unsupported"].caused_by == "xla.toolchain-missing"


def test_tflites_gpu_delegate_falling_back_to_opengl_is_named_noise():
    text = corpus("holdout59/H501")  # "Can not open OpenCL library ...", "ERROR: Falling back to OpenGL"
    assert not failing(text)
    assert logs.read_text(text)["log"]["noise"] == {"tflite-opencl-fallback": 2}


# --- holdout60's lessons -------------------------------------------------------------------------

@pytest.mark.parametrize("case, title", [
    ("holdout60/I103", "This ROCm TensorFlow build has no code for the AMD GPU (gfx1100)"),  # TF ignores it
    ("holdout60/I101", "This ROCm TensorFlow build has no code for the AMD GPU"),  # hipErrorNoBinaryForGpu
])
def test_a_rocm_build_without_code_for_the_amd_gpus_architecture(case, title):
    assert failing(corpus(case))["gpu.compute-capability-unsupported"].title == title


def test_apples_metal_plugin_is_the_macs_gpu_route():
    text = corpus("holdout60/I123")  # "Metal device set to: Apple M1 Max", then nvidia-smi not found
    assert logs.read_text(text)["system"]["platform"] == "macos"
    assert not failing(text)


def test_conda_seeing_no_driver_for_a_cuda_build():
    found = failing(corpus("holdout60/I302"))["driver.missing"]  # "nothing provides __cuda needed by ..."
    assert found.title == "conda sees no NVIDIA driver: it will not install a CUDA build"
    assert "CONDA_OVERRIDE_CUDA=10.2" in found.plan.text()


def test_xla_finding_no_memory_for_a_constant():
    assert "gpu.out-of-memory" in failing(corpus("holdout60/I402"))  # "Failed to allocate N bytes for new"


def test_the_profiler_without_cupti_is_named_noise():
    text = corpus("holdout60/I221")  # "... failed with error CUPTI could not be loaded or symbol could"
    assert not failing(text)
    assert set(logs.read_text(text)["log"]["noise"]) >= {"cupti-unavailable"}


# --- holdout61's lessons -------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Building DKMS module 'nvidia-535.54.03' for kernel-6.5.0_1... FAILED!",  # Void's hook
    "DKMS module 'nvidia-470.199.02' failed to build, please check /var/lib/dkms",
    "Error! Build of nvidia.ko failed for: 6.8.0-31-generic (x86_64)",
    "ERROR: Failed to run `/usr/sbin/dkms build -m nvidia -v 550.54.14 -k 6.8.0`:",  # NVIDIA's installer
    "akmods: Building and installing nvidia-kmod [FAILED]",
    "dpkg: error processing package nvidia-dkms-470 (--configure):",
])
def test_the_kernel_modules_failed_build_in_each_tools_words(text):
    assert failing(text)["driver.missing"].title.startswith("The NVIDIA kernel module is not loaded")


def test_the_open_kernel_module_refusing_a_gpu_without_gsp():
    text = ("[   60.05] NVRM: The NVIDIA GPU 0000:2c:00.0 (PCI ID: 10de:1c8d)\n"
            "               NVRM: installed in this system is not supported by open\n"
            "               NVRM: nvidia.ko because it does not include the required GPU\n"
            "               NVRM: System Processor (GSP).\n")
    found = failing(text)["driver.missing"]
    assert found.title == "NVIDIA's open kernel module is loaded, and this GPU needs the proprietary one"
    assert "nvidia-open-kernel-dkms" in found.plan.text()
    # (lspci's "Kernel modules:" lists the modules that could drive the GPU, not one that does)
    listed = ("03:00.0 3D controller [0302]: NVIDIA Corporation GP104GL [Tesla P4] [10de:1bb3]\n"
              "        Kernel driver in use: nvidia\n        Kernel modules: nouveau, nvidia_drm, nvidia\n")
    assert "nouveau" not in failing(text + listed)["driver.missing"].title


def test_no_driver_release_for_a_newer_gpu_and_a_driver_package_that_did_not_install():
    found = failing(corpus("holdout61/J410"))["driver.missing"]  # nvidia-detect: "not supported by any ..."
    assert found.title == "No driver release the distribution has (up to 580.119.02) supports this GPU"
    found = failing("dpkg: error processing archive /tmp/nvidia-driver-535_535.54.03-0ubuntu1_amd64.deb"
                    " (--unpack):\n trying to overwrite '/usr/lib/x86_64-linux-gnu/libnvidia-egl.so'")
    assert found["driver.missing"].title == "The NVIDIA driver's package did not install"
    assert "driver.missing" not in failing("dpkg: error processing package libreoffice-core (--configure):")


def test_a_build_without_cuda_asked_for_a_gpu():
    text = ("Cannot assign a device for operation MatMul: node MatMul was explicitly assigned to"
            " /device:GPU:0 but available devices are [ /job:localhost/replica:0/task:0/device:CPU:0 ]. Make"
            " sure the device specification refers to a valid device. The requested device appears to be a"
            " GPU, but CUDA is not enabled.")
    found = failing(text)
    assert "tensorflow.cpu-only-build" in found
    assert found["runtime.no-gpu-visible"].caused_by == "tensorflow.cpu-only-build"


def test_a_tensorflow_folder_without_its_python_package():
    found = failing("ModuleNotFoundError: No module named 'tensorflow.python'")
    assert "tensorflow.conflicting-installs" in found
    # a program's own file named tensorflow.py shadows the package: not a broken install
    shadowed = "ModuleNotFoundError: No module named 'tensorflow.python'; 'tensorflow' is not a package"
    assert "tensorflow.conflicting-installs" not in failing(shadowed)


@pytest.mark.parametrize("text, addon", [
    ("ERROR: Could not find a version that satisfies the requirement tensorflow-text (from versions: none)\n"
     "ERROR: No matching distribution found for tensorflow-text", "tensorflow-text"),
    ("Using pip 24.0 from /opt/py/lib/python3.12/site-packages/pip (python 3.12)\nERROR: Could not find a"
     " version that satisfies the requirement tensorflow-decision-forests (from versions: none)",
     "tensorflow-decision-forests"),
])
def test_no_wheel_of_a_tensorflow_add_on_for_this_python(text, addon):
    assert failing(text)["tensorflow.python-unsupported"].title.startswith(f"pip found no {addon} wheel")


def test_tensorflow_20s_own_modules_named_in_an_add_ons_traceback():
    text = corpus("holdout61/J203")  # add-on frames, then module 'tensorflow_core.keras.utils' ...
    assert failing(text)["tensorflow.conflicting-installs"].title.startswith(
        "Package versions conflict: tensorflow-addons")


def test_xid_69_and_the_allocators_closing_statistics():
    xid = ("NVRM: Xid (PCI:0000:08:00): 69, pid=7329, name=python3, Class Error: ChId 0015, Class 0000c7c0,"
           " Offset 00000164, Data 0000f702, ErrorCode 0000000c")
    assert "gpu.illegal-address" in failing(xid)
    stats = "Stats:\nLimit:        10117644288\nInUse:         9929398016\nLargestFreeBlock:        0\n"
    assert "gpu.out-of-memory" in failing(stats)


def test_one_tensorflow_release_under_two_names_is_a_warning():
    found = failing("tensorflow              2.5.0\ntensorflow-gpu          2.5.0\n")
    assert found["tensorflow.conflicting-installs"].status == Status.WARN
    assert found["tensorflow.conflicting-installs"].title.startswith("One TensorFlow release")
    # ... not before 2.1, nor conda's CPU build beside pip's GPU one (holdout4/L055)
    assert failing("tensorflow   1.15.0\ntensorflow-gpu   1.15.0\n")[
        "tensorflow.conflicting-installs"].status == Status.FAIL
    assert failing(corpus("holdout4/L055"))["tensorflow.conflicting-installs"].status == Status.FAIL


@pytest.mark.parametrize("text, reason", [
    ("AttributeError: module 'tensorflow._api.v2.train' has no attribute 'AdamOptimizer'", "TensorFlow 1.x"),
    ("ModuleNotFoundError: No module named 'tensorflow.contrib'", "TensorFlow 1.x"),
    ("Invalid argument: 'visible_device_list' listed an invalid GPU id '-1' but visible device count is 3",
     "GPU configuration refused"),
    ("tensorflow.python.framework.errors_impl.NotFoundError: Can not get size for: data/train.record : The"
     " system cannot find the path specified.", "A file the program reads is missing"),
    ("TypeError: expected str, bytes or os.PathLike object, not NoneType", "A path the program never set"),
])
def test_more_of_the_programs_own_errors_by_their_words(text, reason):
    found = failing(text)
    assert set(found) == {"log.program-error"}, found
    assert found["log.program-error"].title.startswith(reason)


def test_tensorflow_unable_to_import_the_keras_it_is_told_to_use():
    found = failing(corpus("holdout61/J223"))["keras.keras3-api-change"]  # TF_USE_LEGACY_KERAS, no tf_keras
    assert found.title.endswith("the Keras 2 that TF_USE_LEGACY_KERAS asks for (tf_keras) is not installed")
    assert "tf-keras" in found.plan.text()
    alone = failing("ImportError: Keras cannot be imported. Check that it is installed.")
    assert alone["keras.keras3-api-change"].title.endswith(  # (TF 2.16+)
        "cannot import Keras: the Keras it uses is missing")


def test_the_macs_gpu_is_named_by_the_metal_plugins_line_not_its_device_name():
    text = ("Metal device set to: Apple M1 Pro\n2022-11-05 10:00:00.000000: I tensorflow/core/common_runtime/"
            "pluggable_device/pluggable_device_factory.cc:271] Created TensorFlow device (/job:localhost/"
            "replica:0/task:0/device:GPU:0 with 0 MB memory) -> physical PluggableDevice (device: 0, name:"
            " METAL, pci bus id: <undefined>)\n")
    assert explain_report(text, MATRIX).environment["gpus"][0]["name"] == "Apple M1 Pro"


# --- holdout62's lessons -------------------------------------------------------------------------

def test_nvidia_smi_q_text_names_the_clock_event_reasons_active():
    found = failing(corpus("holdout62/K111"))["gpu.throttled"]  # "HW Power Brake Slowdown : Active"
    assert "external power brake" in found.detail and "power configuration" in found.plan.text()
    text = ("GPU 00000000:3B:00.0\n    Product Name                    : Tesla T4\n    Clocks Event Reasons\n"
            "        Idle                              : Not Active\n"
            "        SW Power Cap                      : Active\n")
    assert "power cap" in failing(text)["gpu.throttled"].detail
    # (a thermal reason is the thermal evidence's: test_a_gpu_slowed_for_heat_as_dcgm_or_nvidia_smi_q_says)
    # (an idle GPU's reasons are no slowdown: a recorded H100's -q)
    assert not failing((ROOT / "tests/data/nvidia-smi/q-h100-sxm-x8-565.txt").read_text())


@pytest.mark.parametrize("text", [
    "NVML: Unable to get the NvLink link utilization counter control for link 0: Insufficient Permissions",
    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters"
    " on the target device 0.",
])
def test_gpu_counters_restricted_to_administrators_is_named_noise(text):
    assert not failing(text)
    assert logs.read_text(text)["log"]["noise"] == {"gpu-counters-restricted": 1}


def test_xlas_autotuner_leaving_out_a_mismatching_algorithm_is_named_noise():
    text = corpus("holdout62/K107")  # E-level "Results mismatch ...", "Difference at 0: 1024 vs 1492"
    assert not failing(text)
    assert logs.read_text(text)["log"]["noise"]["xla-autotune-mismatch"] == 3


def test_ray_trials_requesting_no_gpu_share_the_one_their_tensorflow_finds():
    found = failing(corpus("holdout62/K211"))  # (pid=...) workers each find the V100; 0/1 GPUs requested
    assert found["gpu.memory-held-by-other-processes"].title.startswith("Ray runs its trials side by side")
    assert found["cudnn.init-failed"].caused_by == "gpu.memory-held-by-other-processes"
    assert "gpu.hidden-by-cuda-visible-devices" not in found


def test_an_nccl_kernel_missing_where_tensorflow_registered_no_gpu_is_the_missing_gpu():
    text = ("InvalidArgumentError: No OpKernel was registered to support Op 'NcclAllReduce' used by {{node"
            " div_no_nan/NcclAllReduce}} with these attrs: [T=DT_FLOAT, num_devices=4]\n"
            "Registered devices: [CPU, XLA_CPU]\n")
    found = failing(text)
    assert "runtime.no-gpu-visible" in found
    assert found["nccl.unsupported-platform"].caused_by == "runtime.no-gpu-visible"
    # ... and where it registered a GPU (native Windows), NCCL itself is what is missing
    windows = text.replace("[CPU, XLA_CPU]", "[CPU, GPU]")
    assert failing(windows)["nccl.unsupported-platform"].caused_by is None
