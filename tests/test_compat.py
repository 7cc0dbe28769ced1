"""The compatibility matrix: the bundled data's consistency, the lookup API with real values, the
`tfdoctor matrix` command, and every kind of malformed data (exit 2, one line, no traceback).

Cross-checks use real artefacts where they exist on this machine: the installed TensorFlow wheel's
build_info.py and and-cuda metadata, the installed nvidia-* wheels, and the real nvcc.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_cli, run_in_pty
from hypothesis import given
from hypothesis import strategies as st
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfdoctor import proc
from tfdoctor.compat import CompatError, kernel_fit, load_matrix, parse_matrix

COMPAT = ROOT / "compat"
TF_ROWS = [f"2.{minor}" for minor in range(4, 22)]
URL = re.compile(r"^https?://[^\s]+$")


@pytest.fixture(scope="module")
def m():
    return load_matrix(COMPAT)


# ---- consistency of the bundled data -----------------------------------------------------------------


def test_bundled_data_loads_and_has_a_dated_version(m):
    assert re.fullmatch(r"20\d\d\.\d\d\.\d\d", m.version)
    assert load_matrix() is load_matrix()  # cached
    assert load_matrix().version == m.version


def test_one_row_per_tensorflow_minor_release_ascending(m):
    assert [r.version for r in m.tensorflow] == TF_ROWS
    assert m.newest_tf().version == "2.21"


def test_rows_are_sorted_unique_and_valid_versions(m):
    for rows, key in ((m.tensorflow, "version"), (m.cuda_drivers, "cuda"), (m.minor_compat, "major")):
        keys = [Version(getattr(r, key)) for r in rows]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)
    for d in m.cuda_drivers:
        for value in (d.linux, d.windows):
            assert value is None or Version(value) >= Version("346.46")  # CUDA 7.0's, the oldest row
    names = [g.name for g in m.gpus]
    assert len(set(names)) == len(names)


def test_every_row_has_an_http_source(m):
    rows = [*m.tensorflow, *m.cuda_drivers, *m.minor_compat, *m.gpus]
    assert rows
    for row in rows:
        assert URL.match(row.source), row
        for extra in getattr(row, "see_also", ()):
            assert URL.match(extra), row


def test_every_tensorflow_cuda_has_a_driver_row(m):
    for rel in m.tensorflow:
        assert m.min_driver(rel.cuda, "linux"), rel.version
        assert m.minor_compat_floor(rel.cuda, "linux"), rel.version
        if rel.windows_gpu:
            assert m.min_driver(rel.cuda, "windows"), rel.version


def test_platform_facts(m):
    assert all(r.linux_gpu and not r.macos_gpu for r in m.tensorflow)
    assert [r.version for r in m.tensorflow if r.windows_gpu] == TF_ROWS[: TF_ROWS.index("2.10") + 1]


def test_python_ranges_are_ordered(m):
    for rel in m.tensorflow:
        assert Version(rel.python_min) <= Version(rel.python_max)
    assert m.tf_release("2.21").python_min == "3.10"  # 3.9 removed in 2.21 (release notes)


def test_kernel_lists_follow_the_cuda_they_were_built_with(m):
    for rel in m.tensorflow:
        assert any(c.startswith("compute_") for c in rel.compute_capabilities), rel.version  # some PTX
        if Version(rel.cuda).major >= 12:  # CUDA 12 cannot target Kepler
            assert not {"sm_35", "sm_37"} & set(rel.compute_capabilities), rel.version
    assert "sm_50" not in m.tf_release("2.17").compute_capabilities  # Maxwell removed in 2.17
    assert "sm_89" in m.tf_release("2.17").compute_capabilities


def test_and_cuda_pins_agree_with_the_tested_configuration(m):
    """Two independent sources: the docs' CUDA/cuDNN columns and the wheels' Requires-Dist."""
    for rel in m.tensorflow:
        if Version(rel.version) < Version("2.14"):
            assert rel.and_cuda == {}, rel.version
            continue
        major = Version(rel.cuda).major
        runtime = SpecifierSet(rel.and_cuda[f"nvidia-cuda-runtime-cu{major}"])
        cudnn = SpecifierSet(rel.and_cuda[f"nvidia-cudnn-cu{major}"])
        floor_runtime = min(Version(s.version) for s in runtime if s.operator in ("==", ">="))
        floor_cudnn = min(Version(s.version) for s in cudnn if s.operator in ("==", ">="))
        assert floor_runtime.release[:2] == Version(rel.cuda).release[:2], rel.version
        assert floor_cudnn.release[:2] == Version(rel.cudnn).release[:2], rel.version


def test_installed_tensorflow_matches_its_row(m):
    """The real TF wheel in this venv: build_info.py read as text (never imported), and its metadata."""
    version = importlib.metadata.version("tensorflow")
    rel = m.tf_release(version)
    assert rel is not None, version
    spec = importlib.util.find_spec("tensorflow")
    assert spec is not None and spec.submodule_search_locations
    text = (Path(spec.submodule_search_locations[0]) / "python/platform/build_info.py").read_text()
    call = re.search(r"OrderedDict\((.*)\)\s*$", text, re.S)
    assert call
    info = dict(ast.literal_eval(call.group(1)))
    assert info["cuda_version"] == rel.cuda
    assert list(info["cuda_compute_capabilities"]) == list(rel.compute_capabilities)
    assert rel.cudnn.split(".")[0] == str(info["cudnn_version"]).split(".")[0]
    reqs = [Requirement(r) for r in importlib.metadata.requires("tensorflow") or []]
    pins = {r.name: r.specifier for r in reqs if r.marker and "and-cuda" in str(r.marker)}
    assert {k: SpecifierSet(v) for k, v in rel.and_cuda.items()} == pins
    for dist, spec_text in rel.and_cuda.items():  # what tensorflow[and-cuda] really installed
        assert Version(importlib.metadata.version(dist)) in SpecifierSet(spec_text), dist


def test_real_nvcc_version_has_a_driver_row(m):
    result = proc.run(["/usr/local/bin/nvcc", "--version"], timeout=30)
    found = re.search(r"release (\d+\.\d+), V(\d+\.\d+\.\d+)", result.stdout)
    assert result.returncode == 0 and found, result
    assert m.min_driver(found.group(1)) is not None
    assert m.driver_row(found.group(1)).cuda == found.group(1) + ".0"  # X.Y -> the GA row


def test_gpu_peaks_are_plausible(m):
    arch_majors = {
        "Fermi": {2},
        "Kepler": {3},
        "Maxwell": {5},
        "Pascal": {6},
        "Volta": {7},
        "Turing": {7},
        "Ampere": {8},
        "Ada Lovelace": {8},
        "Hopper": {9},
        "Blackwell": {10, 11, 12},
        "Blackwell Ultra": {10},
    }
    for g in m.gpus:
        assert int(g.compute_capability.split(".")[0]) in arch_majors[g.architecture], g.name
        for fast in (g.fp16_tflops, g.bf16_tflops, g.tf32_tflops):
            if fast is not None and g.fp32_tflops is not None:
                assert fast >= g.fp32_tflops, g.name
        if g.architecture in ("Kepler", "Maxwell", "Pascal", "Volta", "Turing"):
            assert g.bf16_tflops is None and g.tf32_tflops is None, g.name


# ---- lookups with real values ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,row",
    [
        ("2.15", "2.15"),
        ("2.15.1", "2.15"),
        ("2.15.0.post1", "2.15"),
        ("2.21.0rc1", "2.21"),
        ("2.16", "2.16"),
        ("2.4.0", "2.4"),
        ("2.99", None),
        ("3.0", None),
        ("2", None),
        ("abc", None),
        ("", None),
        ("2.3.0", None),
    ],
)
def test_tf_release(m, text, row):
    found = m.tf_release(text)
    assert (found.version if found else None) == row


@pytest.mark.parametrize(
    "cuda,platform,driver",
    [
        ("12.2", "linux", "535.54.03"),
        ("12.2.2", "linux", "535.104.05"),
        ("12.5.1", "linux", "555.42.06"),
        ("12.5", "linux", "555.42.02"),
        ("12.2", "wsl2", "536.25"),
        ("12.2", "windows", "536.25"),
        ("11.0", "linux", "450.51.05"),
        ("11.0.1", "linux", "450.36.06"),
        ("10.1.243", "linux", "418.39"),
        ("13.0", "linux", "580.65.06"),
        ("13.0", "windows", None),
        ("12.7", "linux", None),
        ("x", "linux", None),
        ("12", "linux", None),
        ("12.2", "macos", None),
    ],
)
def test_min_driver(m, cuda, platform, driver):
    assert m.min_driver(cuda, platform) == driver


@pytest.mark.parametrize(
    "cuda,platform,floor",
    [
        ("11.8", "linux", "450.80.02"),
        ("11.2", "windows", "452.39"),
        ("12.5.1", "linux", "525.60.13"),
        ("12.3", "wsl2", "527.41"),
        ("13.1", "linux", "580.65.06"),
        ("10.2", "linux", None),
        ("junk", "linux", None),
    ],
)
def test_minor_compat_floor(m, cuda, platform, floor):
    assert m.minor_compat_floor(cuda, platform) == floor


def test_unknown_platform_is_an_error(m):
    with pytest.raises(ValueError, match="unknown platform 'beos'"):
        m.min_driver("12.2", "beos")


def test_driver_supports_cuda(m):
    assert m.driver_supports_cuda("535.104.05", "12.2") == (True, None)
    assert m.driver_supports_cuda("470.82", "12.2") == (False, None)
    ok, caveat = m.driver_supports_cuda("525.60.13", "12.5.1")
    assert ok and "minor-version" in caveat and "555.42.06" in caveat and "PTX" in caveat
    ok, caveat = m.driver_supports_cuda("450.80.02", "11.8")
    assert ok and caveat
    assert m.driver_supports_cuda("450.51.05", "11.2") == (False, None)  # below the 11.x floor too
    assert m.driver_supports_cuda("450.51.05", "11.0") == (True, None)
    assert m.driver_supports_cuda("537.13", "12.2", "wsl2") == (True, None)
    assert m.driver_supports_cuda("528.33", "12.3", "wsl2")[1] is not None
    assert m.driver_supports_cuda("999.1", "14.0") == (False, None)  # nothing known
    for bad in ("abc", "", "5x5"):
        with pytest.raises(ValueError, match="driver version"):
            m.driver_supports_cuda(bad, "12.2")


def test_releases_for_driver_470(m):
    runs = m.releases_for_driver("470.82")
    assert [r.version for r, _ in runs] == TF_ROWS[: TF_ROWS.index("2.14") + 1]
    assert all(c is None for r, c in runs if Version(r.version) <= Version("2.11"))
    assert all(c for r, c in runs if Version(r.version) >= Version("2.12"))  # CUDA 11.8 via minor compat
    assert m.tf_release("2.15") not in [r for r, _ in runs]


def test_releases_for_driver_525_runs_cuda12_with_caveats(m):
    runs = dict((r.version, c) for r, c in m.releases_for_driver("525.60.13"))
    assert list(runs) == TF_ROWS
    assert all(runs[v] for v in TF_ROWS if Version(m.tf_release(v).cuda).major == 12)
    assert all(runs[v] is None for v in TF_ROWS if Version(m.tf_release(v).cuda).major == 11)


def test_releases_for_driver_by_platform(m):
    assert [r.version for r, _ in m.releases_for_driver("472.50", "windows")] == TF_ROWS[
        : TF_ROWS.index("2.10") + 1
    ]
    assert m.releases_for_driver("600.1", "macos") == []
    assert m.releases_for_driver("410.48") == []
    assert m.releases_for_driver("555.42.06")[-1][0].version == "2.21"
    with pytest.raises(ValueError):
        m.releases_for_driver("not-a-driver")


# Names as NVML / nvidia-smi print them; most come from the recorded outputs under tests/data/.
@pytest.mark.parametrize(
    "name,cc,fp32",
    [
        ("NVIDIA H100 80GB HBM3", "9.0", 67.0),
        ("NVIDIA H100 PCIe", "9.0", 51.0),
        ("NVIDIA H100 NVL", "9.0", None),
        ("NVIDIA H200", "9.0", 67.0),
        ("NVIDIA GH200 480GB", "9.0", None),
        ("NVIDIA B200", "10.0", None),
        ("NVIDIA A100-SXM4-80GB", "8.0", 19.5),
        ("NVIDIA A100-SXM4-40GB", "8.0", 19.5),
        ("NVIDIA A100-PCIE-40GB", "8.0", 19.5),
        ("NVIDIA A10G", "8.6", 31.2),
        ("NVIDIA A10", "8.6", None),
        ("NVIDIA L4", "8.9", 30.3),
        ("NVIDIA L40S", "8.9", 91.6),
        ("Tesla T4", "7.5", 8.1),
        ("Tesla V100-SXM2-16GB", "7.0", 15.7),
        ("Tesla V100-SXM2...", "7.0", 15.7),
        ("Tesla P4", "6.1", None),
        ("Tesla P100-PCIE-16GB", "6.0", None),
        ("Tesla K80", "3.7", None),
        ("Quadro P400", "6.1", None),
        ("NVIDIA GeForce RTX 4090", "8.9", None),
        ("NVIDIA GeForce RTX 3080", "8.6", None),
        ("NVIDIA GeForce RTX 5090", "12.0", None),
        ("NVIDIA GeForce GTX 1080 Ti", "6.1", None),
        ("GeForce GTX 960M", "5.0", None),
        ("GeForce GTX TITAN X", "5.2", None),
        ("NVIDIA TITAN Xp", "6.1", None),
        ("NVIDIA RTX A6000", "8.6", None),
        ("NVIDIA RTX 6000 Ada Generation", "8.9", None),
        ("Quadro RTX 6000", "7.5", None),
        ("Tesla K20Xm", "3.5", None),
    ],
)
def test_gpu_by_nvml_name(m, name, cc, fp32):
    model = m.gpu(name)
    assert model is not None, name
    assert (model.compute_capability, model.fp32_tflops) == (cc, fp32)


@pytest.mark.parametrize(
    "name,cc",
    [("rtx 2080ti", "7.5"), ("RTX 2070S", "7.5"), ("GTX 1650 SUPER", "7.5"), ("RTX 3060Ti", "8.6"),
     ("GeForce 3090", "8.6"), ("nvidia 5070 TI", "12.0"), ("NVIDIA 1080", "6.1"), ("RTX 4090D", "8.9")],
)
def test_gpu_as_people_type_it(m, name, cc):
    """A suffix run into the number, a GeForce named by its number alone."""
    model = m.gpu(name)
    assert model is not None and model.compute_capability == cc, name


@pytest.mark.parametrize("name", ["Matrox G200eW", "NVIDIA GeForce GT 630", "", "   ", "GeForce 6090",
                                  "Quadro M2090", "1080p capture card", "Radeon 5070"])
def test_gpu_unknown(m, name):
    assert m.gpu(name) is None


@pytest.mark.parametrize(
    "ccs,cc,fit",
    [
        ("sm_60 sm_70 sm_80 sm_89 compute_90", "8.6", "sass"),
        ("sm_60 sm_70 sm_80 sm_89 compute_90", "12.0", "ptx"),
        ("sm_60 sm_70 sm_80 sm_89 compute_90", "5.2", None),
        ("sm_60 sm_70 sm_80 sm_89 compute_90", "9.0", "sass"),
        ("sm_60 sm_70 sm_80 sm_89 compute_90", "7.5", "sass"),
        (["sm_35", "sm_50", "sm_60", "sm_70", "sm_75", "compute_80"], "3.7", "sass"),
        (["sm_35", "sm_50", "sm_60", "sm_70", "sm_75", "compute_80"], "3.0", None),
        (["sm_35", "sm_50", "sm_60", "sm_70", "sm_75", "compute_80"], "9.0", "ptx"),
        (["sm_90a"], "9.0", "sass"),
        (["sm_100a"], "10.3", None),
        (["sm_80"], "9.0", None),
        ("garbage, sm_80", "8.6", "sass"),
        ([], "8.0", None),
    ],
)
def test_kernel_fit(ccs, cc, fit):
    assert kernel_fit(ccs, cc) == fit


@pytest.mark.parametrize("bad", ["8", "abc", "", "8.10", None])
def test_kernel_fit_rejects_a_malformed_compute_capability(bad):
    with pytest.raises(ValueError, match="compute capability"):
        kernel_fit(["sm_80"], bad)


def test_kernel_fit_with_real_rows(m):
    assert (
        kernel_fit(
            m.tf_release("2.21").compute_capabilities, m.gpu("NVIDIA H100 80GB HBM3").compute_capability
        )
        == "sass"
    )
    assert (
        kernel_fit(
            m.tf_release("2.21").compute_capabilities, m.gpu("NVIDIA GeForce RTX 5090").compute_capability
        )
        == "ptx"
    )
    assert (
        kernel_fit(m.tf_release("2.17").compute_capabilities, m.gpu("GeForce GTX 980").compute_capability)
        is None
    )
    assert (
        kernel_fit(m.tf_release("2.16").compute_capabilities, m.gpu("GeForce GTX 980").compute_capability)
        == "sass"
    )


@given(
    st.lists(st.tuples(st.sampled_from(["sm", "compute"]), st.integers(3, 12), st.integers(0, 9))),
    st.integers(3, 12),
    st.integers(0, 9),
)
def test_kernel_fit_properties(entries, major, minor):
    listed = [f"{kind}_{maj}{mnr}" for kind, maj, mnr in entries]
    fit = kernel_fit(listed, f"{major}.{minor}")
    same_major = [(maj, mnr) for _, maj, mnr in entries if maj == major and mnr <= minor]
    ptx_below = [
        (maj, mnr) for kind, maj, mnr in entries if kind == "compute" and (maj, mnr) <= (major, minor)
    ]
    assert (fit == "sass") == bool(same_major)
    assert (fit == "ptx") == (not same_major and bool(ptx_below))


# ---- the CLI -----------------------------------------------------------------------------------------


def one_line_error(result) -> str:
    assert result.returncode == 2, result
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tfdoctor"), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def test_cli_table():
    result = run_cli("matrix")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "compat data" in lines[0]
    assert [line.split()[0] for line in lines[2:-1]] == TF_ROWS[::-1]
    assert lines[-1].startswith("min. driver:")  # what the columns mean


def test_cli_table_on_a_terminal_uses_rich():
    """On a real (pseudo-)terminal the table is drawn by rich; every release still appears."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "160", "NO_COLOR": "1"}
    res = run_in_pty("matrix", env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    text = res.stdout
    assert "─" in text or "│" in text  # rich's box drawing
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)  # the row of the TensorFlow installed here is bold
    for version in TF_ROWS:
        assert f" {version} " in text, version


def test_cli_full_json(m):
    result = run_cli("matrix", "--json")
    assert result.returncode == 0, result.stderr
    data = result.json()
    assert data["version"] == m.version
    assert [r["version"] for r in data["tensorflow"]] == TF_ROWS
    assert {"cuda", "label", "linux", "windows", "source"} <= set(data["cuda_drivers"][0])
    assert {"name", "patterns", "compute_capability", "fp32_tflops"} <= set(data["gpus"][0])


def test_cli_tensorflow_json():
    data = run_cli("matrix", "--tensorflow", "2.15.1", "--json").json()
    assert data["tensorflow"] == "2.15" and data["cuda"] == "12.2" and data["cudnn"] == "8.9"
    assert data["python"] == {"min": "3.9", "max": "3.11"}
    assert data["min_driver"] == {
        "linux": {"exact": "535.54.03", "minor_compat": "525.60.13"},
        "windows": {"exact": "536.25", "minor_compat": "527.41"},
    }
    assert data["platforms"] == {"linux": True, "wsl2": True, "windows": False, "macos": False}
    assert data["and_cuda"]["nvidia-cudnn-cu12"] == "==8.9.4.25"
    assert data["compute_capabilities"][-1] == "compute_80"  # measured from the real 2.15.1 wheel
    old = run_cli("matrix", "--tensorflow", "2.10", "--json").json()
    assert old["platforms"]["windows"] is True and old["and_cuda"] == {}


def test_cli_tensorflow_text():
    result = run_cli("matrix", "--tensorflow", "2.15")
    assert result.returncode == 0, result.stderr
    for needle in (
        "3.9-3.11",
        "12.2",
        "535.54.03",
        "525.60.13",
        "536.25",
        "nvidia-cudnn-cu12==8.9.4.25",
        "macOS no",
    ):
        assert needle in result.stdout, needle


def test_cli_driver_json():
    result = run_cli("matrix", "--driver", "470.82", "--json")
    assert result.returncode == 0, result.stderr
    rows = result.json()
    assert [r["tensorflow"] for r in rows] == TF_ROWS[: TF_ROWS.index("2.14") + 1]
    for row in rows:
        assert set(row) == {"tensorflow", "cuda", "min_driver", "caveat"}
    assert rows[0] == {"tensorflow": "2.4", "cuda": "11.0", "min_driver": "450.51.05", "caveat": None}
    assert rows[-1]["cuda"] == "11.8" and "minor-version" in rows[-1]["caveat"]


def test_cli_driver_text_and_none():
    result = run_cli("matrix", "--driver", "525.60.13")
    assert result.returncode == 0 and "2.21" in result.stdout and "Caveat:" in result.stdout
    old = run_cli("matrix", "--driver", "410.48", "--json")
    assert old.returncode == 0 and old.json() == []


def test_cli_cuda():
    data = run_cli("matrix", "--cuda", "12.3", "--json").json()
    assert data["tensorflow"] == ["2.16", "2.17"]
    assert data["min_driver"] == {"linux": "545.23.06", "windows": "545.84"}
    assert data["minor_compat"]["linux"] == "525.60.13"
    text = run_cli("matrix", "--cuda", "12.5.1")
    assert text.returncode == 0 and "555.42.06" in text.stdout and "2.18, 2.19, 2.20, 2.21" in text.stdout


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--tensorflow", "2.99"], "unknown TensorFlow release '2.99'"),
        (["--tensorflow", "abc"], "not a version"),
        (["--tensorflow", ""], "not a version"),
        (["--driver", "abc", "--json"], "--driver 'abc': not a version"),
        (["--driver", "535.104.05; rm -rf /"], "not a version"),
        (["--cuda", "12.7"], "unknown CUDA version '12.7'"),
        (["--cuda", "twelve"], "not a version"),
        (["--tensorflow", "2.15", "--driver", "535.104.05"], "give one of"),
        (["--driver"], "expected one argument"),
    ],
)
def test_cli_bad_input(args, needle):
    assert needle in one_line_error(run_cli("matrix", *args))


def test_matrix_command_imports_nothing_heavy():
    code = (
        "import sys, tfdoctor.compat as c; c.load_matrix(); "
        "print(sorted(m for m in ('tensorflow', 'rich', 'pynvml') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=str(ROOT),
    )
    assert out.returncode == 0 and out.stdout.strip() == "[]", out


# ---- malformed compat data ---------------------------------------------------------------------------


def _replace(fname: str, old: str, new: str, count: int = 1):
    def edit(d: Path) -> None:
        text = (d / fname).read_text()
        assert old in text, old
        (d / fname).write_text(text.replace(old, new, count))

    return edit


def _write(fname: str, data: bytes):
    def edit(d: Path) -> None:
        (d / fname).write_bytes(data)

    return edit


def _make_dir(fname: str):
    def edit(d: Path) -> None:
        (d / fname).unlink()
        (d / fname).mkdir()

    return edit


BAD = {
    "malformed-toml": (
        _replace("tensorflow.toml", 'version = "2.15"', 'version = "2.15'),
        r"tensorflow\.toml: malformed TOML",
    ),
    "missing-file": (lambda d: (d / "gpus.toml").unlink(), r"gpus\.toml: missing compat data file"),
    "unreadable-file": (_make_dir("cuda.toml"), r"cuda\.toml: cannot read"),
    "not-utf8": (_write("meta.toml", b'version = "\xff"\n'), r"meta\.toml: not UTF-8"),
    "empty-file": (_write("tensorflow.toml", b""), r"tensorflow\.toml: missing key 'release'"),
    "missing-key": (
        _replace("tensorflow.toml", 'cudnn = "8.9"\ncompute', "compute"),
        r"release #12 \(2\.15\): missing key 'cudnn'",
    ),
    "unknown-key": (
        _replace("tensorflow.toml", 'cudnn = "8.9"', 'cudnn = "8.9"\ncdua = "1"'),
        r"\(2\.15\): unknown key 'cdua'",
    ),
    "bad-version": (
        _replace("tensorflow.toml", 'cuda = "12.2"', 'cuda = "12.x"'),
        r"\(2\.15\): cuda '12\.x' is not a dotted version",
    ),
    "bad-tf-version": (
        _replace("tensorflow.toml", 'version = "2.15"', 'version = "2.15.0"'),
        r"must be MAJOR\.MINOR",
    ),
    "bad-python-range": (
        _replace("tensorflow.toml", 'python_max = "3.11"', 'python_max = "3.1"'),
        r"release #9 \(2\.12\): python_min 3\.8 is above python_max 3\.1$",
    ),
    "bad-pip-cuda": (
        _replace("tensorflow.toml", 'pip_cuda = ["1.15.0"]', 'pip_cuda = ["1.15"]'),
        r"older #16 \(1\.15\): pip_cuda must list MAJOR\.MINOR\.PATCH releases",
    ),
    "pip-cuda-without-source": (
        _replace("tensorflow.toml", 'pip_cuda_source = "https://github.com/tensorflow/tensorflow/releases/tag/v1.15.2"',
                 ""),
        r"older #16 \(1\.15\): pip_cuda_source None is not an http\(s\) URL",
    ),
    "addon-unsorted": (
        _replace("addons.toml", 'release = "0.12.1"', 'release = "0.12.3"'),
        r"addon #1 \(tensorflow-probability\): release 0\.12\.2 out of order",
    ),
    "addon-bad-range": (
        _replace("addons.toml", 'tf_min = "2.15", tf_below = "2.16"', 'tf_min = "2.15", tf_below = "2.15"'),
        r"release 0\.23\.0: tf_below 2\.15 is not above tf_min 2\.15",
    ),
    "addon-no-rule": (
        _replace("addons.toml", 'same_minor_from = "1.15.0"', ""),
        r"addon #3 \(tensorflow-text\): needs rows or same_minor_from",
    ),
    "addons-missing": (lambda d: (d / "addons.toml").unlink(), r"addons\.toml: missing compat data file"),
    "unsorted": (
        _replace("tensorflow.toml", 'version = "2.6"', 'version = "2.3"'),
        r"release 2\.3: out of order after 2\.5",
    ),
    "duplicate": (
        _replace("tensorflow.toml", 'version = "2.6"', 'version = "2.5"'),
        r"release 2\.5: duplicate row",
    ),
    "cuda-without-driver-row": (
        _replace("tensorflow.toml", 'cuda = "12.2"', 'cuda = "12.7"'),
        r"release 2\.15: CUDA 12\.7 has no row in cuda\.toml",
    ),
    "no-source": (
        _replace("tensorflow.toml", 'source = "https://www.tensorflow.org/install/source#gpu"\n', ""),
        r"release #1 \(2\.4\): missing key 'source'",
    ),
    "source-not-url": (
        _replace("cuda.toml", 'source = "https://docs', 'source = "see docs', 1),
        r"cuda\.toml: driver #1 \(7\.0\.28\): source 'see docs",
    ),
    "bad-see-also": (
        _replace(
            "tensorflow.toml",
            'see_also = ["https://www.tensorflow.org/install/source_windows#gpu", "https',
            'see_also = ["www.example", "https',
        ),
        r"see_also 'www\.example'",
    ),
    "bad-kernel": (
        _replace("tensorflow.toml", '"sm_60", "sm_70"', '"sm_6x", "sm_70"'),
        r"compute_capabilities must be a list",
    ),
    "bad-pin": (
        _replace("tensorflow.toml", '"==8.9.4.25"', '"8.9.4.25"'),
        r"nvidia-cudnn-cu12 = '8\.9\.4\.25' is not a requirement",
    ),
    "bool-as-string": (
        _replace("tensorflow.toml", "macos_gpu = false", 'macos_gpu = "no"'),
        r"'macos_gpu' must be true or false",
    ),
    "driver-unsorted": (
        _replace("cuda.toml", 'cuda = "12.2.1"', 'cuda = "12.9.9"'),
        r"driver 12\.2\.2: out of order after 12\.9\.9",
    ),
    "driver-bad-patch": (
        _replace("cuda.toml", 'cuda = "12.2.1"', 'cuda = "12.2"'),
        r"driver #\d+ \(12\.2\): cuda '12\.2' must be MAJOR\.MINOR\.PATCH",
    ),
    "driver-bad-value": (
        _replace("cuda.toml", 'linux = "535.104.05"', 'linux = ">=535.104.05"'),
        r"linux '>=535\.104\.05' is not a dotted version or \"N/A\"",
    ),
    "windows-release-without-windows-driver": (
        _replace("cuda.toml", 'windows = "460.82"', 'windows = "N/A"'),
        r"release 2\.5: CUDA 11\.2 has no Windows driver",
    ),
    "bad-regex": (
        _replace("gpus.toml", "patterns = ['\\bK80\\b']", "patterns = ['(K80']"),
        r"gpu #\d+ \(Tesla K80\): bad pattern",
    ),
    "bad-cc": (
        _replace("gpus.toml", 'compute_capability = "3.7"', 'compute_capability = "37"'),
        r"\(Tesla K80\): compute_capability '37'",
    ),
    "negative-tflops": (
        _replace("gpus.toml", "fp32_tflops = 8.1", "fp32_tflops = -8.1"),
        r"\(T4\): 'fp32_tflops' must be a positive",
    ),
    "bad-meta-version": (
        _write("meta.toml", b'version = "soon"\n'),
        r"meta\.toml: version 'soon' is not a dotted version",
    ),
    # compat/architectures.toml and the GPU rows that name an architecture
    "arch-missing-file": (
        lambda d: (d / "architectures.toml").unlink(),
        r"architectures\.toml: missing compat data file",
    ),
    "arch-no-rows": (
        lambda d: (d / "architectures.toml").write_text(""),
        r"architectures\.toml: missing key 'architecture'",
    ),
    "arch-missing-key": (
        _replace("architectures.toml", 'name = "Turing"\ncompute_capabilities = ["7.5"]\n',
                 'name = "Turing"\n'),
        r"architectures\.toml: architecture #\d+ \(Turing\): missing key 'compute_capabilities'",
    ),
    "arch-unknown-key": (
        _replace("architectures.toml", 'name = "Turing"', 'name = "Turing"\nlast_branch = "R999"'),
        r"\(Turing\): unknown key 'last_branch'",
    ),
    "arch-bad-cc": (
        _replace("architectures.toml", 'compute_capabilities = ["7.5"]', 'compute_capabilities = ["75"]'),
        r"\(Turing\): compute_capabilities must be a non-empty list",
    ),
    "arch-empty-ccs": (
        _replace("architectures.toml", 'compute_capabilities = ["7.5"]', "compute_capabilities = []"),
        r"\(Turing\): compute_capabilities must be a non-empty list",
    ),
    "arch-unsorted-ccs": (
        _replace("architectures.toml", '["8.0", "8.6", "8.7"]', '["8.6", "8.0", "8.7"]'),
        r"\(Ampere\): compute_capabilities must be ascending and unique",
    ),
    "arch-cc-twice": (
        _replace("architectures.toml", 'compute_capabilities = ["7.5"]', 'compute_capabilities = ["7.2"]'),
        r"\(Turing\): compute capability 7\.2 is already in architecture #\d+ \(Volta\)",
    ),
    "arch-rows-unsorted": (
        _replace("architectures.toml", 'compute_capabilities = ["9.0"]', 'compute_capabilities = ["8.8"]'),
        r"\(Hopper\): out of order after Ada Lovelace",
    ),
    "arch-bad-branch": (
        _replace("architectures.toml", 'last_driver_branch = "R470"', 'last_driver_branch = "470"'),
        r"\(Kepler\): last_driver_branch '470' must be a driver branch such as \"R470\"",
    ),
    "arch-branch-not-string": (
        _replace("architectures.toml", 'last_driver_branch = "R390"', "last_driver_branch = 390"),
        r"\(Fermi\): last_driver_branch 390 must be a driver branch",
    ),
    "arch-bad-last-cuda": (
        _replace("architectures.toml", 'last_cuda = "8.0"', 'last_cuda = "8.x"'),
        r"\(Fermi\): last_cuda '8\.x' must be a CUDA version",
    ),
    "arch-last-cuda-without-branch": (
        _replace("architectures.toml", 'name = "Turing"', 'name = "Turing"\nlast_cuda = "13.2"'),
        r"\(Turing\): last_cuda without last_driver_branch",
    ),
    "arch-source-not-url": (
        _replace(
            "architectures.toml",
            'name = "Hopper"\ncompute_capabilities = ["9.0"]\nsource = "https://',
            'name = "Hopper"\ncompute_capabilities = ["9.0"]\nsource = "docs.nvidia.com ',
        ),
        r"\(Hopper\): source 'docs\.nvidia\.com",
    ),
    "arch-gpu-architecture-mismatch": (
        _replace(
            "gpus.toml",
            'name = "T4"\npatterns = [\'\\bT4\\b\']\ncompute_capability = "7.5"\narchitecture = "Turing"',
            'name = "T4"\npatterns = [\'\\bT4\\b\']\ncompute_capability = "7.5"\narchitecture = "Volta"',
        ),
        r"gpus\.toml: gpu #\d+ \(T4\): architecture 'Volta', but architectures\.toml puts 7\.5 in 'Turing'",
    ),
    "arch-gpu-cc-without-architecture": (
        _replace(
            "gpus.toml",
            'compute_capability = "7.5"\narchitecture = "Turing"\nfp32_tflops = 8.1',
            'compute_capability = "7.7"\narchitecture = "Turing"\nfp32_tflops = 8.1',
        ),
        r"\(T4\): compute capability 7\.7 has no row in architectures\.toml",
    ),
    "arch-gpu-pattern-backtracks": (
        _replace("gpus.toml", "patterns = ['\\bT4\\b']", "patterns = ['\\bT4\\b.*x']"),
        r"\(T4\): pattern '.*': unbounded repetition",
    ),
}


@pytest.fixture
def bad_copy(tmp_path: Path):
    def make(case: str) -> Path:
        target = tmp_path / f"compat-{case}"
        shutil.copytree(COMPAT, target, ignore=shutil.ignore_patterns("__pycache__"))
        BAD[case][0](target)
        return target

    return make


@pytest.mark.parametrize("case", sorted(BAD))
def test_malformed_data(bad_copy, case):
    directory = bad_copy(case)
    with pytest.raises(CompatError, match=BAD[case][1]) as info:
        load_matrix(directory)
    assert "\n" not in str(info.value)
    line = one_line_error(
        run_cli("matrix", "--json", env={**os.environ, "TFDOCTOR_COMPAT_DIR": str(directory)})
    )
    assert re.search(BAD[case][1], line), line


def test_compat_dir_that_is_not_a_directory(tmp_path: Path):
    missing = tmp_path / "nowhere"
    with pytest.raises(CompatError, match="not a directory of compat data"):
        load_matrix(missing)
    line = one_line_error(run_cli("matrix", env={**os.environ, "TFDOCTOR_COMPAT_DIR": str(missing)}))
    assert str(missing) in line


def test_compat_dir_env_is_honoured(bad_copy, tmp_path: Path):
    good = tmp_path / "good"
    shutil.copytree(COMPAT, good)
    (good / "meta.toml").write_text('version = "1999.01.01"\n')
    data = run_cli("matrix", "--json", env={**os.environ, "TFDOCTOR_COMPAT_DIR": str(good)}).json()
    assert data["version"] == "1999.01.01"


def test_checked_gpu_patterns_are_remembered_only_for_those_patterns(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    data = tmp_path / "compat"
    shutil.copytree(COMPAT, data, ignore=shutil.ignore_patterns("__pycache__"))
    first = parse_matrix(data)
    assert len(list((data / "__pycache__").glob("compat-patterns-*.ok"))) == 1
    assert parse_matrix(data).gpus == first.gpus  # the second load trusts the proof
    BAD["arch-gpu-pattern-backtracks"][0](data)  # a changed pattern is checked again
    with pytest.raises(CompatError, match="unbounded repetition"):
        parse_matrix(data)
