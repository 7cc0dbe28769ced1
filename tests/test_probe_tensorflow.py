"""The static TensorFlow probe: the real venv, a bare venv, fake packages on PYTHONPATH, bad targets."""

from __future__ import annotations

import importlib.util
import os
import runpy
import shutil
import struct
import subprocess
import sys
import time
import warnings
from importlib import metadata
from pathlib import Path

import pytest
from conftest import write_fake
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tf_releases import parse_readelf

from tfdoctor.probes import Context
from tfdoctor.probes import tensorflow as tfp
from tfdoctor.worker.worker import elf_dynamic

# What the generator writes around the mapping (tensorflow/tools/build_info/gen_build_info.py,
# quoted in /work/shared/compat-facts.md section (f)).
TEMPLATE = (
    '"""Auto-generated module providing information about the build."""\nimport collections\n\n'
    "build_info = collections.OrderedDict({})\n"
)

# Real build_info mappings (compat-facts.md (f)), each with where it was read.
LINUX_2_20 = (  # user paste of tf.sysconfig.get_build_info() on TF 2.20.0, Python < 3.12 repr
    "[('cpu_compiler', 'clang 18'), ('cuda_compute_capabilities', ['sm_60', 'sm_70', 'sm_80', 'sm_89', "
    "'compute_90']), ('cuda_version', '12.5.1'), ('cudnn_version', '9'), ('is_cuda_build', True), "
    "('is_rocm_build', False), ('is_tensorrt_build', False)]"
)
LINUX_2_16 = (  # pip install tensorflow[and-cuda] 2.16, Python 3.12 repr
    "{'cpu_compiler': '/usr/lib/llvm-17/bin/clang', 'cuda_compute_capabilities': ['sm_50', 'sm_60', 'sm_70', "
    "'sm_80', 'compute_90'], 'cuda_version': '12.3', 'cudnn_version': '8', 'is_cuda_build': True, "
    "'is_rocm_build': False, 'is_tensorrt_build': True}"
)
WINDOWS_GPU_2_9 = (  # tf_gpu-2.9.1-cp38-win_amd64 (pypi-data/pypi-mirror-154 packages/tf-gpu/...)
    "[('cpu_compiler', 'C:/Program Files (x86)/Microsoft Visual Studio/2019/Professional/VC/Tools/MSVC/"
    "14.29.30133/bin/HostX64/x64/cl.exe'), ('cuda_compute_capabilities', ['compute_50', 'compute_52', "
    "'compute_60', 'compute_61', 'compute_70', 'compute_75', 'compute_86']), ('cuda_version', '64_116'), "
    "('cudart_dll_name', 'cudart64_116.dll'), ('cudnn_dll_name', 'cudnn64_8.dll'), "
    "('cudnn_version', '64_8'), "
    "('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', False), "
    "('msvcp_dll_names', 'msvcp140.dll,msvcp140_1.dll'), ('nvcuda_dll_name', 'nvcuda.dll')]"
)
WINDOWS_CPU = (  # keras-team/keras repo copy of Lib/site-packages/tensorflow/python/platform/build_info.py
    "[('is_cuda_build', False), ('is_rocm_build', False), ('is_tensorrt_build', False), "
    "('msvcp_dll_names', 'msvcp140.dll,msvcp140_1.dll')]"
)
# TF 1.x Windows module-level form, pasted in a public GitHub file (code-search index id 178256306).
LEGACY = (
    "cuda_version_number = '10.0'\ncudnn_version_number = '7'\nmsvcp_dll_name = 'msvcp140.dll'\n"
    "nvcuda_dll_name = 'nvcuda.dll'\ncudart_dll_name = 'cudart64_100.dll'\ncudnn_dll_name = 'cudnn64_7.dll'\n"
)

TF_SPEC = importlib.util.find_spec("tensorflow")
needs_tf = pytest.mark.skipif(TF_SPEC is None, reason="TensorFlow is not installed in this interpreter")


def test_ordered_dict_list_form():
    info = tfp.parse_build_info(TEMPLATE.format(LINUX_2_20))
    assert info["cuda_version"] == "12.5.1" and info["cudnn_version"] == "9" and info["is_cuda_build"] is True
    assert info["cuda_compute_capabilities"] == ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"]


def test_ordered_dict_dict_form():
    info = tfp.parse_build_info(TEMPLATE.format(LINUX_2_16))
    assert info["cuda_version"] == "12.3" and info["is_tensorrt_build"] is True


def test_plain_dict_and_bare_ordered_dict_name():
    assert tfp.parse_build_info(f"build_info = {LINUX_2_16}\n")["cudnn_version"] == "8"
    text = f"from collections import OrderedDict\nbuild_info = OrderedDict({LINUX_2_20})\n"
    assert tfp.parse_build_info(text)["cuda_version"] == "12.5.1"


def test_windows_builds():
    gpu = tfp.parse_build_info(TEMPLATE.format(WINDOWS_GPU_2_9))
    assert gpu["cuda_version"] == "64_116" and gpu["cudart_dll_name"] == "cudart64_116.dll"
    cpu = tfp.parse_build_info(TEMPLATE.format(WINDOWS_CPU))
    assert cpu["is_cuda_build"] is False and "cuda_version" not in cpu


def test_legacy_module_level_form():
    info = tfp.parse_build_info(LEGACY)
    assert info["cuda_version"] == "10.0" and info["cudnn_version"] == "7"
    assert info["cudart_dll_name"] == "cudart64_100.dll"


def test_build_info_is_never_executed(tmp_path):
    marker = tmp_path / "ran"
    text = f"import os\nos.mkdir({str(marker)!r})\n" + TEMPLATE.format(LINUX_2_20)
    assert tfp.parse_build_info(text)["cuda_version"] == "12.5.1"
    assert not marker.exists()


@pytest.mark.parametrize(
    "text",
    [
        "build_info = collections.OrderedDict([(\n",
        "\x00\x01 not python",
        "x = 1\n",
        "build_info = compute()\n",
        "",
    ],
)
def test_bad_build_info_raises_plain_value_error(text):
    with pytest.raises(ValueError):
        tfp.parse_build_info(text)


def test_hostile_build_info_prints_no_syntax_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would reach the user's stderr
        info = tfp.parse_build_info("y = 1if 1 else 2\nbuild_info = {'cuda_version': '12.5.1'}\n")
    assert info["cuda_version"] == "12.5.1"


def test_distribution_selection_and_duplicates():
    pairs = [
        ["tensorflow", "2.21.0"],
        ["Tensorflow_CPU", "2.20.0"],
        ["numpy", "2.1.0"],
        ["tf_nightly", "2.23.0.dev1"],
        ["nvidia-cudnn-cu12", "9.3.0.75"],
        ["tensorflow", "2.19.0"],
        ["keras", "3.9.0"],
        ["", "1"],
        "junk",
    ]
    dists, dups = tfp.select_distributions(pairs)
    assert dists == {
        "keras": "3.9.0",
        "numpy": "2.1.0",  # kept: TensorFlow before 2.18 cannot use NumPy 2 (python.numpy-abi-mismatch)
        "nvidia-cudnn-cu12": "9.3.0.75",
        "tensorflow": "2.21.0",
        "tensorflow-cpu": "2.20.0",
        "tf-nightly": "2.23.0.dev1",
    }
    assert dups == {"tensorflow": ["2.21.0", "2.19.0"]}
    assert tfp.tensorflow_version(dists) == "2.21.0"
    assert tfp.tensorflow_version({"tf-nightly": "2.23.0.dev1"}) == "2.23.0.dev1"
    # (what `tensorflow` installs on Linux aarch64, CPU-only: checks/tensorflow.py CPU_DISTS)
    assert tfp.select_distributions([["tensorflow_cpu_aws", "2.15.1"]])[0] == {"tensorflow-cpu-aws": "2.15.1"}
    assert tfp.tensorflow_version({"tensorflow-cpu-aws": "2.15.1"}) == "2.15.1"
    assert tfp.tensorflow_version({"keras": "3"}) is None


@needs_tf
def test_real_venv_tensorflow():
    facts = tfp.probe(Context(python=sys.executable, env=dict(os.environ), timeout=60))
    location = TF_SPEC.submodule_search_locations[0]
    oracle = runpy.run_path(os.path.join(location, "python", "platform", "build_info.py"))["build_info"]
    assert facts["error"] is None and facts["installed"] is True
    assert facts["version"] == metadata.version("tensorflow")
    assert facts["location"] == location
    assert facts["python_version"] == ".".join(map(str, sys.version_info[:3]))
    assert facts["python_bits"] == (64 if sys.maxsize > 2**32 else 32)
    assert facts["build_info"] == dict(oracle)
    assert facts["build_info"]["cuda_version"] == "12.5.1"
    assert facts["build_info"]["cudnn_version"] == "9"
    assert facts["build_info"]["is_cuda_build"] is True
    assert facts["distributions"]["tensorflow"] == metadata.version("tensorflow")
    assert any(name.startswith("nvidia-") for name in facts["distributions"])


@pytest.fixture(scope="session")
def bare_python(tmp_path_factory) -> str:
    venv = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    return str(venv / "bin" / "python")


def test_bare_venv_has_no_tensorflow(bare_python):
    facts = tfp.probe_tensorflow(bare_python, {"PATH": "/usr/bin:/bin"}, timeout=60)
    assert facts["error"] is None
    assert facts["installed"] is False and facts["version"] is None and facts["build_info"] is None
    assert facts["distributions"] == {}
    assert facts["python_version"] == ".".join(map(str, sys.version_info[:3]))


def fake_tf(
    root: Path, init: str, build_info: str | None, version: str = "2.16.1", dist: str = "tensorflow"
) -> Path:
    """A tensorflow package dir plus its dist-info: the edge fake of an install on PYTHONPATH."""
    pkg = root / "tensorflow"
    (pkg / "python" / "platform").mkdir(parents=True)
    (pkg / "__init__.py").write_text(init)
    if build_info is not None:
        (pkg / "python" / "platform" / "build_info.py").write_text(build_info)
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    return pkg


def test_package_whose_import_raises_is_read_not_imported(bare_python, tmp_path):
    pkg = fake_tf(tmp_path, "raise RuntimeError('tensorflow was imported')\n", TEMPLATE.format(LINUX_2_16))
    facts = tfp.probe_tensorflow(
        bare_python, {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)}, timeout=60
    )
    assert facts["error"] is None
    assert facts["installed"] is True and facts["location"] == str(pkg)
    assert facts["version"] == "2.16.1" and facts["build_info"]["cuda_version"] == "12.3"


def test_package_whose_import_hangs_does_not_hang_the_probe(bare_python, tmp_path):
    fake_tf(tmp_path, "import time\ntime.sleep(120)\n", TEMPLATE.format(LINUX_2_20), version="2.20.0")
    start = time.monotonic()
    facts = tfp.probe_tensorflow(
        bare_python, {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)}, timeout=30
    )
    assert time.monotonic() - start < 15
    assert facts["error"] is None and facts["build_info"]["cuda_version"] == "12.5.1"


def test_unparseable_build_info_is_an_error_fact(bare_python, tmp_path):
    fake_tf(tmp_path, "", "build_info = collections.OrderedDict([(\n")
    facts = tfp.probe_tensorflow(
        bare_python, {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)}, timeout=60
    )
    assert facts["installed"] is True and facts["build_info"] is None
    assert "not valid Python" in facts["error"]


def test_missing_build_info_is_an_error_fact(bare_python, tmp_path):
    fake_tf(tmp_path, "", None)
    facts = tfp.probe_tensorflow(
        bare_python, {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)}, timeout=60
    )
    assert facts["installed"] is True and "build_info.py" in facts["error"]


def test_two_installs_on_the_path_are_reported(bare_python, tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    fake_tf(first, "", TEMPLATE.format(LINUX_2_20), version="2.20.0")
    fake_tf(second, "", TEMPLATE.format(LINUX_2_16), version="2.16.1")
    (second / "tensorflow_cpu-2.16.1.dist-info").mkdir()
    (second / "tensorflow_cpu-2.16.1.dist-info" / "METADATA").write_text(
        "Name: tensorflow-cpu\nVersion: 2.16.1\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{first}{os.pathsep}{second}"}
    facts = tfp.probe_tensorflow(bare_python, env, timeout=60)
    assert facts["version"] == "2.20.0" and facts["build_info"]["cuda_version"] == "12.5.1"
    assert facts["duplicates"] == {"tensorflow": ["2.20.0", "2.16.1"]}
    assert facts["distributions"]["tensorflow-cpu"] == "2.16.1"


def test_missing_interpreter(tmp_path):
    facts = tfp.probe_tensorflow(str(tmp_path / "nope" / "python"), {"PATH": ""}, timeout=10)
    assert facts["installed"] is None and "not found" in facts["error"]


def test_interpreter_that_is_not_python(bindir):
    fake = write_fake(bindir, "python", "echo 'usage: frobnicate [-h]'")
    facts = tfp.probe_tensorflow(str(fake), {"PATH": "/usr/bin:/bin"}, timeout=10)
    assert "printed no result" in facts["error"] and "frobnicate" in facts["error"]


def test_interpreter_that_fails(bindir):
    fake = write_fake(bindir, "python", "echo 'Fatal Python error: init_fs_encoding' >&2\nexit 1")
    facts = tfp.probe_tensorflow(str(fake), {"PATH": "/usr/bin:/bin"}, timeout=10)
    assert "exit status 1" in facts["error"] and "init_fs_encoding" in facts["error"]


def test_not_executable_file(tmp_path):
    target = tmp_path / "python"
    target.write_text("just text")
    facts = tfp.probe_tensorflow(str(target), {"PATH": ""}, timeout=10)
    assert "permission denied" in facts["error"]


def test_hanging_interpreter_is_killed(bindir):
    fake = write_fake(bindir, "python", "sleep 60")
    start = time.monotonic()
    facts = tfp.probe_tensorflow(str(fake), {"PATH": "/usr/bin:/bin"}, timeout=1)
    assert time.monotonic() - start < 5
    assert "did not answer within" in facts["error"]


def test_probe_never_imports_tensorflow_in_this_process():
    code = (
        "import sys, os; sys.path.insert(0, os.getcwd());"
        "from tfdoctor.probes import Context, tensorflow as t;"
        "t.probe(Context(python=sys.executable)); print('tensorflow' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert out.stdout.strip() == "False", out.stderr


# --- RUNPATH of TensorFlow's native libraries: the ELF dynamic-section reader ---------------------


def tiny_elf(runpath: str | None = "$ORIGIN/../nvidia/cublas/lib:$ORIGIN/", soname: str = "libx.so.2",
             needed: tuple[str, ...] = ("libc.so.6",), rpath_tag: int = 29, big_endian: bool = False,
             elf32: bool = False) -> bytes:
    """A minimal, valid ELF shared object: header, PT_LOAD + PT_DYNAMIC, .dynamic, .dynstr."""
    e = ">" if big_endian else "<"
    strings = b"\0"
    offsets = {}
    for text in (soname, *needed, *([runpath] if runpath is not None else [])):
        offsets[text] = len(strings)
        strings += text.encode() + b"\0"
    ehsize, phentsize = (52, 32) if elf32 else (64, 56)
    phoff = ehsize
    strtab_off = phoff + 2 * phentsize
    dyn_off = strtab_off + len(strings) + (-len(strings)) % 8
    vaddr_base = 0x400000
    entries = [(1, offsets[n]) for n in needed] + [(14, offsets[soname])]
    if runpath is not None:
        entries.append((rpath_tag, offsets[runpath]))
    entries += [(5, vaddr_base + strtab_off), (10, len(strings)), (0, 0)]
    dyn_fmt = e + ("iI" if elf32 else "qQ")
    dynamic = b"".join(struct.pack(dyn_fmt, t, v) for t, v in entries)
    total = dyn_off + len(dynamic)
    ident = b"\x7fELF" + bytes([1 if elf32 else 2, 2 if big_endian else 1, 1]) + b"\0" * 9
    if elf32:
        fields = (3, 3, 1, 0, phoff, 0, 0, ehsize, phentsize, 2, 40, 0, 0)
        header = ident + struct.pack(e + "HHIIIIIHHHHHH", *fields)
        ph = struct.pack(e + "IIIIIIII", 1, 0, vaddr_base, vaddr_base, total, total, 5, 0x1000)
        ph += struct.pack(e + "IIIIIIII", 2, dyn_off, vaddr_base + dyn_off, vaddr_base + dyn_off,
                          len(dynamic), len(dynamic), 6, 4)
    else:
        fields = (3, 62, 1, 0, phoff, 0, 0, ehsize, phentsize, 2, 64, 0, 0)
        header = ident + struct.pack(e + "HHIQQQIHHHHHH", *fields)
        ph = struct.pack(e + "IIQQQQQQ", 1, 5, 0, vaddr_base, vaddr_base, total, total, 0x1000)
        ph += struct.pack(e + "IIQQQQQQ", 2, 6, dyn_off, vaddr_base + dyn_off, vaddr_base + dyn_off,
                          len(dynamic), len(dynamic), 8)
    body = header + ph + strings
    return body + b"\0" * (dyn_off - len(body)) + dynamic


@pytest.mark.parametrize("elf32", [False, True])
@pytest.mark.parametrize("big_endian", [False, True])
def test_elf_reader_on_a_built_file(tmp_path, elf32, big_endian):
    path = tmp_path / "libx.so.2"
    path.write_bytes(tiny_elf(big_endian=big_endian, elf32=elf32))
    assert elf_dynamic(str(path)) == {"soname": "libx.so.2", "needed": ["libc.so.6"], "rpath": None,
                                      "runpath": ["$ORIGIN/../nvidia/cublas/lib", "$ORIGIN/"], "error": None}
    path.write_bytes(tiny_elf(runpath="/opt/x:/opt/y", rpath_tag=15, elf32=elf32))
    got = elf_dynamic(str(path))
    assert got["rpath"] == ["/opt/x", "/opt/y"] and got["runpath"] is None
    path.write_bytes(tiny_elf(runpath=None, elf32=elf32))
    assert elf_dynamic(str(path))["runpath"] is None and elf_dynamic(str(path))["error"] is None


def test_elf_reader_matches_readelf_on_tensorflows_own_libraries():
    """The installed TensorFlow's real files, against binutils' readelf."""
    if TF_SPEC is None or shutil.which("readelf") is None:
        pytest.skip("needs TensorFlow and readelf")
    location = Path(TF_SPEC.submodule_search_locations[0])
    checked = 0
    for rel in tfp.NATIVE_LIBRARIES:
        path = location / rel
        if not path.is_file():
            continue
        text = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, timeout=60).stdout
        oracle = parse_readelf(text)
        got = elf_dynamic(str(path))
        assert got["error"] is None
        assert (got["soname"], got["needed"], got["runpath"], got["rpath"]) == (
            oracle["soname"], oracle["needed"], oracle["runpath"], oracle["rpath"]), rel
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "not an ELF file"),
        (b"\x7fEL", "not an ELF file"),
        (b"garbage" * 100, "not an ELF file"),
        (b"\x7fELF\x03\x01" + b"\0" * 58, "unknown ELF class"),
        (b"\x7fELF\x02\x01\x01" + b"\0" * 20, "truncated ELF header"),
    ],
)
def test_elf_reader_on_garbage(tmp_path, content, words):
    path = tmp_path / "bad.so"
    path.write_bytes(content)
    got = elf_dynamic(str(path))
    assert words in got["error"] and got["runpath"] is None and got["needed"] == []


def test_elf_reader_on_truncated_real_shapes_and_non_files(tmp_path):
    whole = tiny_elf()
    for cut in (16, 63, 64, 100, 120, 176, 200, len(whole) - 8, len(whole) - 1):
        path = tmp_path / f"cut{cut}.so"
        path.write_bytes(whole[:cut])
        got = elf_dynamic(str(path))
        assert got["error"] or got["runpath"] is None or got["runpath"], cut  # never raises
    assert "not a regular file" in elf_dynamic(str(tmp_path))["error"]
    assert "No such file" in elf_dynamic(str(tmp_path / "absent.so"))["error"]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert "not a regular file" in elf_dynamic(str(fifo))["error"]  # would block a plain open()
    loop = tmp_path / "loop.so"
    loop.symlink_to(loop)
    assert elf_dynamic(str(loop))["error"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_elf_reader_never_raises_on_mutated_files(tmp_path, data):
    raw = bytearray(tiny_elf(elf32=data.draw(st.booleans())))
    for _ in range(data.draw(st.integers(1, 8))):
        pos = data.draw(st.integers(0, len(raw) - 1))
        raw[pos] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    path = tmp_path / "m.so"
    path.write_bytes(bytes(raw[:cut]))
    got = elf_dynamic(str(path))
    assert set(got) == {"soname", "needed", "rpath", "runpath", "error"}
    assert len(got["needed"]) <= 256


# --- runpath facts --------------------------------------------------------------------------------


def test_nvidia_lib_dirs_resolve_origin_per_file():
    framework = ["$ORIGIN/../../nvidia/cublas/lib", "$ORIGIN/../nvidia/cublas/lib", "$ORIGIN/",
                 "${ORIGIN}/../nvidia/cudnn/lib", "/usr/local/cuda/lib64", "$ORIGIN/../tensorrt"]
    assert tfp.nvidia_lib_dirs(framework, "libtensorflow_framework.so.2") == ["cublas", "cudnn"]
    # the same entries from python/: one more .. is needed to reach site-packages
    assert tfp.nvidia_lib_dirs(["$ORIGIN/../../nvidia/nccl/lib", "$ORIGIN/../nvidia/x/lib"],
                               "python/_pywrap_tensorflow_internal.so") == ["nccl"]
    assert tfp.nvidia_lib_dirs(["$ORIGIN/"], "libtensorflow_framework.so.2") == []


def test_runpath_facts_shapes():
    libs = [
        {"file": "libtensorflow_framework.so.2", "soname": "libtensorflow_framework.so.2",
         "runpath": ["$ORIGIN/../nvidia/cublas/lib", "$ORIGIN/"], "rpath": None, "error": None},
        {"file": "python/_pywrap_tensorflow_internal.so", "soname": None, "runpath": None,
         "rpath": ["$ORIGIN/../", "$ORIGIN/"], "error": None},
    ]
    facts = tfp.runpath_facts(libs)
    assert facts["runpath"] == ["$ORIGIN/../nvidia/cublas/lib", "$ORIGIN/", "$ORIGIN/../"]
    assert facts["runpath_nvidia"] is True and facts["runpath_nvidia_packages"] == ["cublas"]
    assert [n["tag"] for n in facts["native_libraries"]] == ["RUNPATH", "RPATH"]
    unreadable = tfp.runpath_facts([{"file": "libtensorflow_framework.so.2", "runpath": None, "rpath": None,
                                     "soname": None, "error": "x: not an ELF file"}])
    assert unreadable["runpath"] is None and unreadable["runpath_nvidia"] is None
    assert tfp.runpath_facts([])["runpath_nvidia"] is None


@needs_tf
def test_real_venv_runpath():
    facts = tfp.probe(Context(python=sys.executable, env=dict(os.environ), timeout=60))
    assert facts["runpath"] and facts["native_libraries"][0]["file"] == "libtensorflow_framework.so.2"
    assert isinstance(facts["runpath_nvidia"], bool)
    release = tuple(map(int, facts["version"].split(".")[:2]))
    if facts["build_info"].get("is_cuda_build") and release >= (2, 14):
        assert facts["runpath_nvidia"] is True and "cudnn" in facts["runpath_nvidia_packages"]
