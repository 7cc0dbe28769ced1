"""The GPU name table (compat/gpus.toml), the architecture table (compat/architectures.toml) and the
nvidia-smi compute-capability query.

Every GPU name recorded under tests/data resolves to the compute capability the recording itself shows
(or, where it shows none, to the one NVIDIA's CUDA GPU pages give); every physical-GPU name in NVIDIA's
driver name table resolves to the compute capability of its chip (by PCI device id); real names from
public threads resolve right; near misses and junk resolve to None; the loader rejects malformed rows.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from conftest import DATA, ROOT, run_cli, write_fake
from hypothesis import given, settings
from hypothesis import strategies as st

from tfdoctor.compat import _backtracking_risk, _compiled, load_matrix
from tfdoctor.logs.lines import read_lines
from tfdoctor.probes.nvidia_smi import (
    MAX_QUERY_GPUS,
    NAME_QUERY_ARGS,
    QUERY_ARGS,
    QUERY_FIELDS,
    parse_banner,
    parse_query_gpu,
    parse_query_xml,
)
from tfdoctor.report import explain_report

COMPAT = ROOT / "compat"
SMI = DATA / "nvidia-smi"
NAMES_TSV = DATA / "gpu-names" / "nvidia-driver-580.142-595.45.04.tsv"
CUDA_GPUS = "https://developer.nvidia.com/cuda-gpus"
LEGACY = "https://developer.nvidia.com/cuda-legacy-gpus"


@pytest.fixture(scope="module")
def m():
    return load_matrix(COMPAT)


def cc_of(m, name):
    model = m.gpu(name)
    return model.compute_capability if model is not None else None


# ---- the architecture table ------------------------------------------------------------------------


def test_architectures_cover_kepler_to_blackwell_with_last_branches(m):
    branches = {a.name: a.last_driver_branch for a in m.architectures}
    assert branches == {
        "Fermi": "R390",
        "Kepler": "R470",
        "Maxwell": "R580",
        "Pascal": "R580",
        "Volta": "R580",
        "Turing": None,
        "Ampere": None,
        "Ada Lovelace": None,
        "Hopper": None,
        "Blackwell": None,
    }
    for arch in m.architectures:
        assert arch.source.startswith("https://"), arch
        assert arch.supported is (arch.last_driver_branch is None)
        assert (arch.last_cuda is None) is arch.supported, arch
    ccs = [cc for a in m.architectures for cc in a.compute_capabilities]
    assert len(ccs) == len(set(ccs))


@pytest.mark.parametrize(
    "cc, name, branch, major, last_cuda",
    [
        ("2.0", "Fermi", "R390", 390, "8.0"),
        ("2.1", "Fermi", "R390", 390, "8.0"),
        ("3.0", "Kepler", "R470", 470, "10.2"),
        ("3.2", "Kepler", "R470", 470, "10.2"),
        ("3.5", "Kepler", "R470", 470, "11.8"),
        ("3.7", "Kepler", "R470", 470, "11.8"),
        ("5.0", "Maxwell", "R580", 580, "12.9"),
        ("5.2", "Maxwell", "R580", 580, "12.9"),
        ("5.3", "Maxwell", "R580", 580, "12.9"),
        ("6.0", "Pascal", "R580", 580, "12.9"),
        ("6.1", "Pascal", "R580", 580, "12.9"),
        ("6.2", "Pascal", "R580", 580, "12.9"),
        ("7.0", "Volta", "R580", 580, "12.9"),
        ("7.2", "Volta", "R580", 580, "12.9"),
        ("7.5", "Turing", None, None, None),
        ("8.0", "Ampere", None, None, None),
        ("8.6", "Ampere", None, None, None),
        ("8.7", "Ampere", None, None, None),
        ("8.9", "Ada Lovelace", None, None, None),
        ("9.0", "Hopper", None, None, None),
        ("10.0", "Blackwell", None, None, None),
        ("10.1", "Blackwell", None, None, None),  # Jetson Thor before CUDA 13 renamed it 11.0
        ("10.3", "Blackwell", None, None, None),
        ("11.0", "Blackwell", None, None, None),
        ("12.0", "Blackwell", None, None, None),
        ("12.1", "Blackwell", None, None, None),
        (" 8.6 ", "Ampere", None, None, None),
    ],
)
def test_architecture_lookup(m, cc, name, branch, major, last_cuda):
    arch = m.architecture(cc)
    assert arch is not None, cc
    assert (arch.name, arch.last_driver_branch, arch.last_driver_major, arch.last_cuda) == (
        name,
        branch,
        major,
        last_cuda,
    )


@pytest.mark.parametrize(
    "cc", ["1.3", "4.0", "9.9", "13.0", "8", "8.10", "sm_86", "86", "", "   ", "8.6.0", None, 8.6]
)
def test_architecture_unknown_or_malformed(m, cc):
    assert m.architecture(cc) is None


def test_every_gpu_row_names_the_architecture_of_its_compute_capability(m):
    for g in m.gpus:
        arch = m.architecture(g.compute_capability)
        assert arch is not None and arch.name == g.architecture, g.name


def test_every_gpu_row_is_sourced_and_inferred_rows_say_so(m):
    for g in m.gpus:
        assert g.source.startswith(("https://", "http://")), g.name
        if "open-gpu-kernel-modules" in g.source:  # a driver table proves the name, not the capability
            assert "[inferred]" in g.notes, g.name


def test_matrix_json_lists_architectures():
    data = run_cli("matrix", "--json").json()
    kepler = [a for a in data["architectures"] if a["name"] == "Kepler"]
    assert [a["compute_capabilities"] for a in kepler] == [["3.0", "3.2"], ["3.5", "3.7"]]
    assert {a["last_driver_branch"] for a in kepler} == {"R470"}
    assert all(a["source"].startswith("https://") for a in data["architectures"])


# ---- every GPU name recorded under tests/data --------------------------------------------------------

# Names the recordings show without a compute capability next to them -> NVIDIA's cuda-gpus / legacy pages.
RECORDED_WITHOUT_CC = {
    "GeForce GTX 680": "3.0",
    "TITAN Xp": "6.1",
    "NVIDIA A10G": "8.6",
    "Tesla P4": "6.1",
    "NVIDIA A100-SXM4-40GB": "8.0",
    "NVIDIA L4": "8.9",
    "NVIDIA B200": "10.0",
    "Quadro P400": "6.1",
    "NVIDIA GeForce RTX 3080": "8.6",
    "Tesla T4": "7.5",
    "Quadro GV100": "7.0",
    "NVIDIA GeForce GTX 1650": "7.5",
    "GeForce GT 750M": "3.0",
    "Tesla K20c": "3.5",
    "Tesla K40c": "3.5",
    "NVIDIA A100-PCIE-40GB": "8.0",
    "NVIDIA A100 80GB PCIe": "8.0",
    "NVIDIA A800 80GB PCIe": "8.0",
    "NVIDIA H100 PCIe": "9.0",
    "NVIDIA GeForce RTX 2060": "7.5",
    "NVIDIA H200": "9.0",  # recorded on the lent machine (tests/data/real-gpu)
    # GPUs people named in issue templates (tests/data/explain), as they typed them
    "A100- 40G": "8.0",
    "GTX970": "5.2",
    "RTX4060": "8.9",
    "GeForce RTX 2080 SUPER": "7.5",
    "Geforce RTX 2060": "7.5",
    "NVIDIA GeForce GTX 960M": "5.0",
    "NVIDIA Geforce GTX 970": "5.2",
    "NVIDIA RTX 5060 Ti": "12.0",
    "Nvidia Tesla P100-16GB": "6.0",
    "RTX 2080": "7.5",
    "GTX660": "3.0",
    "GeForce GTX 1650": "7.5",
    "RTX3090": "8.6",
    "NVIDIA GeForce RTX 3060": "8.6",
    "RTX A6000": "8.6",
    "H800": "9.0",
    "GEFORCE GTX 4090": "8.9",  # a typo for RTX 4090: no GeForce GTX has a 20-50 series number to confuse
    "NVIDIA GeForce GT 710": None,  # Fermi or Kepler by variant: left out of the matrix on purpose
}


def _recorded_names() -> tuple[set[str], dict[str, str]]:
    """(names without a recorded compute capability, {name: compute capability the recording shows})."""
    bare: set[str] = set()
    shown: dict[str, str] = {}
    for path in sorted(SMI.glob("banner-*.txt")):
        bare |= {g["name"] for g in parse_banner(path.read_text())["gpus"]}
    for path in sorted(SMI.glob("q-x-*.xml")):
        bare |= {g["name"] for g in parse_query_xml(path.read_text())["gpus"]}
    for path in sorted(SMI.glob("q-*.txt")):
        bare |= {m.group(1).strip() for m in re.finditer(r"Product Name\s+:\s*(.+)", path.read_text())}
    for path in sorted((DATA / "nvml").glob("*.json")):
        text = path.read_text()
        bare |= set(re.findall(r'"name":\s*"([^"]+)"', text)) - {"python", "python3"}
        json.loads(text)  # still a JSON file
    for path, fields in (
        (
            SMI / "query-570-titan-v-rtx5880.csv",
            ("compute_cap", "compute_mode", "driver_version", "name", "index"),
        ),
        (SMI / "query-h100-x8-name-cc.csv", ("name", "compute_cap")),
    ):
        for row in parse_query_gpu(path.read_text(), fields)["gpus"]:
            shown[row["name"]] = row["compute_capability"]
    for path in sorted((DATA / "explain").glob("*.txt")):
        with open(path, "rb") as fh:
            env = explain_report(read_lines(fh)).environment
        for g in env.get("gpus") or []:
            if g.get("name") and g.get("compute_capability"):
                shown[g["name"]] = g["compute_capability"]
            elif g.get("name"):
                bare.add(g["name"])
    bare -= {n for n in bare if "process" in n.lower() or n.endswith("...")}  # banner names cut by nvidia-smi
    return bare - set(shown), shown


def test_recorded_names_are_all_known_to_this_test():
    bare, shown = _recorded_names()
    assert len(shown) >= 10
    assert bare == set(RECORDED_WITHOUT_CC), "a new recording names a GPU: add it to RECORDED_WITHOUT_CC"


def test_every_recorded_gpu_name_resolves_to_its_compute_capability(m):
    bare, shown = _recorded_names()
    for name, cc in shown.items():  # the recording itself shows the capability
        assert cc_of(m, name) == cc, name
    for name in bare:
        assert cc_of(m, name) == RECORDED_WITHOUT_CC[name], name


# ---- real names per family from public sources --------------------------------------------------------

REAL_NAMES = [
    # Data centre
    ("Tesla K80", "3.7"),  # Azure NC / AWS p2 name; CC: cuda-legacy-gpus
    ("Tesla K40m", "3.5"),  # legacy page "Tesla K40"; NVML suffixes m/c/s/t
    ("Tesla K20Xm", "3.5"),  # same
    ("Tesla M60", "5.2"),  # g_nv_name_released.h (580.142) 0x13F2; CC: cuda-legacy-gpus
    ("Tesla M40 24GB", "5.2"),  # g_nv_name_released.h 0x17FD
    ("NVIDIA Tesla M40 12GB", "5.2"),  # github.com/zzc0721/torch-performance-test-data database.md
    ("Tesla P100-SXM2-16GB", "6.0"),  # tests/data/explain/012 (TensorFlow log, major 6 minor 0)
    ("Tesla P100-PCIE-16GB", "6.0"),  # g_nv_name_released.h 0x15F8
    ("Tesla P40", "6.1"),  # g_nv_name_released.h 0x1B38
    ("Tesla V100-SXM2-32GB", "7.0"),  # g_nv_name_released.h 0x1DB5
    ("Tesla V100S-PCIE-32GB", "7.0"),  # g_nv_name_released.h 0x1DF6
    ("Tesla T4", "7.5"),  # tests/data/nvidia-smi/q-x-tesla-t4-515.xml
    ("NVIDIA A100 80GB PCIe", "8.0"),  # g_nv_name_released.h 0x20B5
    ("NVIDIA A100-PCIE-40GB", "8.0"),  # g_nv_name_released.h 0x20F1
    ("NVIDIA A800-SXM4-80GB", "8.0"),  # g_nv_name_released.h 0x20F3
    ("NVIDIA A800 80GB PCIe", "8.0"),  # g_nv_name_released.h 0x20F5
    ("NVIDIA PG509-210", "8.0"),  # https://github.com/facebookincubator/AITemplate/pull/749 (A100 80GB SXM)
    ("NVIDIA A30", "8.0"),  # g_nv_name_released.h 0x20B7
    ("NVIDIA A10", "8.6"),  # g_nv_name_released.h 0x2236
    ("NVIDIA A40", "8.6"),  # g_nv_name_released.h 0x2235
    ("NVIDIA A16", "8.6"),  # g_nv_name_released.h 0x25B6
    ("NVIDIA A2", "8.6"),  # g_nv_name_released.h 0x25B6
    ("NVIDIA L40S", "8.9"),  # https://github.com/zzc0721/torch-performance-test-data database.md
    ("NVIDIA L20", "8.9"),  # g_nv_name_released.h 0x26BA
    ("NVIDIA H100 PCIe", "9.0"),  # g_nv_name_released.h 0x2331
    ("NVIDIA H100 NVL", "9.0"),  # g_nv_name_released.h 0x2321
    ("NVIDIA H800", "9.0"),  # g_nv_name_released.h 0x2324
    ("NVIDIA H20", "9.0"),  # g_nv_name_released.h 0x2329
    ("NVIDIA H200", "9.0"),  # https://github.com/zzc0721/torch-performance-test-data database.md
    ("NVIDIA H200 NVL", "9.0"),  # g_nv_name_released.h 0x233B
    ("NVIDIA GH200 480GB", "9.0"),  # g_nv_name_released.h 0x2342
    ("NVIDIA GH200 144G HBM3e", "9.0"),  # g_nv_name_released.h 0x2348
    ("NVIDIA GB200", "10.0"),  # g_nv_name_released.h 0x2941
    ("NVIDIA B300 SXM6 AC", "10.3"),  # g_nv_name_released.h (595.45.04) 0x3182
    ("NVIDIA GB300", "10.3"),  # g_nv_name_released.h (595.45.04) 0x31C2
    # Workstation
    ("Quadro K5000", "3.0"),  # cuda-legacy-gpus
    ("Quadro K6000", "3.5"),  # cuda-legacy-gpus
    ("Quadro K1200", "5.0"),  # cuda-legacy-gpus; g_nv_name_released.h 0x13BC (a Maxwell "K")
    ("Quadro M1200", "5.0"),  # https://github.com/tensorflow/tensorflow/issues/10656 (major 5 minor 0)
    ("Quadro M6000 24GB", "5.2"),  # g_nv_name_released.h 0x17F1
    ("Quadro P5200 with Max-Q Design", "6.1"),  # g_nv_name_released.h 0x1BB5
    ("Quadro GP100", "6.0"),  # g_nv_name_released.h 0x15F0
    ("Quadro RTX 6000", "7.5"),  # https://github.com/tensorflow/tensorflow/issues/33379 (major 7 minor 5)
    ("Quadro RTX 5000 with Max-Q Design", "7.5"),  # g_nv_name_released.h
    ("Quadro T2000 with Max-Q Design", "7.5"),  # g_nv_name_released.h
    ("NVIDIA T1000 8GB", "7.5"),  # g_nv_name_released.h 0x1FF0
    ("NVIDIA T550 Laptop GPU", "7.5"),  # g_nv_name_released.h
    ("NVIDIA RTX A6000", "8.6"),  # https://github.com/zzc0721/torch-performance-test-data database.md
    ("NVIDIA RTX A2000 12GB", "8.6"),  # g_nv_name_released.h 0x2571
    ("NVIDIA RTX A5500 Laptop GPU", "8.6"),  # g_nv_name_released.h 0x2438
    ("NVIDIA RTX A400", "8.6"),  # g_nv_name_released.h
    ("NVIDIA RTX 6000 Ada Generation", "8.9"),  # g_nv_name_released.h 0x26B1
    ("NVIDIA RTX 5880 Ada Generation", "8.9"),  # https://github.com/triton-inference-server/server/pull/8070
    ("NVIDIA RTX 4000 SFF Ada Generation", "8.9"),  # g_nv_name_released.h 0x27B0
    ("NVIDIA RTX 2000E Ada Generation", "8.9"),  # g_nv_name_released.h
    ("NVIDIA RTX 500 Ada Generation Laptop GPU", "8.9"),  # g_nv_name_released.h
    # zzc0721/torch-performance-test-data database.md
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0"),
    ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "12.0"),  # g_nv_name_released.h 0x2BB4
    ("NVIDIA RTX PRO 4500 Blackwell", "12.0"),  # g_nv_name_released.h 0x2C31
    ("NVIDIA RTX PRO 5000 72GB Blackwell", "12.0"),  # g_nv_name_released.h 0x2BB3
    ("NVIDIA RTX PRO 500 Blackwell Generation Laptop GPU", "12.0"),  # g_nv_name_released.h 0x2DB9
    # GeForce, desktop and laptop
    # https://github.com/tensorflow/tensorflow/issues/6125 (compute capability 3.0)
    ("GeForce GTX 660 Ti", "3.0"),
    ("GeForce GTX 780 Ti", "3.5"),  # cuda-legacy-gpus
    ("GeForce GTX TITAN Black", "3.5"),  # cuda-legacy-gpus
    ("GeForce GTX 770M", "3.0"),  # cuda-legacy-gpus
    ("GeForce 920M", "3.5"),  # cuda-legacy-gpus
    ("NVIDIA GeForce GTX 750Ti", "5.0"),  # g_nv_name_released.h 0x139B (no space, Lenovo)
    ("GeForce GTX 970", "5.2"),  # https://github.com/AlexeyAB/darknet/issues/3334 (deviceQuery 5.2)
    ("GeForce GTX 960M", "5.0"),  # tests/data/explain/036 (computeCapability: 5.0)
    ("NVIDIA GeForce 940MX", "5.0"),  # g_nv_name_released.h 0x134D (GM108)
    ("GeForce GTX TITAN X", "5.2"),  # cuda-legacy-gpus
    ("NVIDIA TITAN X (Pascal)", "6.1"),  # g_nv_name_released.h 0x1B00
    ("NVIDIA TITAN Xp COLLECTORS EDITION", "6.1"),  # g_nv_name_released.h 0x1B02
    # https://github.com/pocokhc/agent57/issues/9 (computeCapability 6.1)
    ("NVIDIA GeForce GTX 1060 3GB", "6.1"),
    # https://github.com/luolangaga/tubatoolsPlugin/pull/1062
    ("NVIDIA GeForce GTX 1050 Ti with Max-Q Design", "6.1"),
    ("NVIDIA GeForce GT 1030", "6.1"),  # g_nv_name_released.h 0x1D01
    ("NVIDIA GeForce MX150", "6.1"),  # g_nv_name_released.h 0x1D10
    # https://github.com/triton-inference-server/server/pull/8070 (compute_cap 7.0)
    ("NVIDIA TITAN V", "7.0"),
    # https://github.com/tensorflow/tensorflow/issues/47623 (computeCapability 7.5)
    ("GeForce RTX 2060", "7.5"),
    ("GeForce RTX 2080 SUPER", "7.5"),  # https://github.com/tensorflow/tensorflow/issues/46043 (7.5)
    ("NVIDIA GeForce RTX 2070 Super with Max-Q Design", "7.5"),  # g_nv_name_released.h
    ("NVIDIA GeForce GTX 1650 Ti", "7.5"),  # g_nv_name_released.h 0x1F95
    ("NVIDIA GeForce GTX 1630", "7.5"),  # g_nv_name_released.h 0x1F83
    ("NVIDIA GeForce MX450", "7.5"),  # g_nv_name_released.h 0x1F97
    ("NVIDIA TITAN RTX", "7.5"),  # g_nv_name_released.h 0x1E02
    ("NVIDIA GeForce RTX 2050", "8.6"),  # g_nv_name_released.h 0x25A9 (GA107)
    ("NVIDIA GeForce MX570", "8.6"),  # g_nv_name_released.h 0x25A6 (GA107)
    # https://github.com/tensorflow/tensorflow/issues/45285 (computeCapability 8.6)
    ("GeForce RTX 3090", "8.6"),
    ("NVIDIA GeForce RTX 3060", "8.6"),  # https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/790
    # https://github.com/zzc0721/torch-performance-test-data/issues/169
    ("NVIDIA GeForce RTX 3060 Laptop GPU", "8.6"),
    ("NVIDIA GeForce RTX 3050Ti Laptop GPU", "8.6"),  # g_nv_name_released.h 0x25A0 (no space)
    ("NVIDIA GeForce RTX 3050 6GB Laptop GPU", "8.6"),  # g_nv_name_released.h 0x25AC
    ("NVIDIA GeForce RTX 3050 A Laptop GPU", "8.9"),  # g_nv_name_released.h 0x28A3 (AD107)
    ("NVIDIA GeForce RTX 4060 Laptop GPU", "8.9"),  # https://github.com/trexminer/T-Rex/issues/1451
    ("NVIDIA GeForce RTX 4070 Ti SUPER", "8.9"),  # g_nv_name_released.h 0x2705
    ("NVIDIA GeForce RTX 4090 D", "8.9"),  # g_nv_name_released.h 0x2685
    # https://github.com/zzc0721/torch-performance-test-data database.md
    ("NVIDIA GeForce RTX 5050 Laptop GPU", "12.0"),
    ("NVIDIA GeForce RTX 5090 D v2", "12.0"),  # same
    ("NVIDIA GeForce RTX 5060 Ti", "12.0"),  # tests/data/explain/040 (compute capability: 12.0)
    ("NVIDIA GeForce RTX 5070 Ti Laptop GPU", "12.0"),  # g_nv_name_released.h 0x2F18
    # Jetson and DGX Spark, as TensorFlow / deviceQuery / NVML name them
    ("GK20A", "3.2"),  # Jetson TK1 deviceQuery name; CC 3.2: https://github.com/tmcdonell/cuda/issues/15
    # https://github.com/tensorflow/tensorflow/issues/45422 (compute capability: 5.3)
    ("NVIDIA Tegra X1", "5.3"),
    ("GP10B", "6.2"),  # https://github.com/opencv/opencv/issues/8554 (deviceQuery, CUDA 8, 6.2)
    ("NVIDIA Tegra X2", "6.2"),  # TensorFlow 1.x logs "name: NVIDIA Tegra X2 major: 6 minor: 2"
    ("Xavier", "7.2"),  # TensorFlow logs "name: Xavier ... compute capability: 7.2"; opencv/opencv PR 13430
    ("Orin", "8.7"),  # https://github.com/tmcdonell/cuda/issues/77 ("Device 0: Orin", CUDA capability 8.7)
    ("Orin (nvgpu)", "8.7"),  # nvidia-smi 540.4.0, JetPack 6: https://github.com/anduril/jetpack-nixos/pull/371
    ("NVIDIA Thor", "11.0"),  # CUDA 13 name; https://github.com/openxla/xla/pull/30514 (sm_101 -> sm_110)
    ("NVIDIA GB10", "12.1"),  # g_nv_name_released.h (595.45.04) 0x2E12; cuda-gpus 12.1
]


@pytest.mark.parametrize("name, cc", REAL_NAMES, ids=[n for n, _ in REAL_NAMES])
def test_real_names_resolve(m, name, cc):
    assert cc_of(m, name) == cc


def test_real_names_cover_every_family_and_architecture(m):
    archs = {m.architecture(cc).name for _, cc in REAL_NAMES}
    assert archs >= {
        "Kepler",
        "Maxwell",
        "Pascal",
        "Volta",
        "Turing",
        "Ampere",
        "Ada Lovelace",
        "Hopper",
        "Blackwell",
    }
    text = " ".join(n for n, _ in REAL_NAMES)
    for word in (
        "Tesla",
        "Quadro",
        "RTX A",
        "Ada Generation",
        "RTX PRO",
        "GeForce",
        "Laptop GPU",
        "Max-Q",
        "MX",
        "TITAN",
        "Tegra",
        "Orin",
        "Xavier",
        "A800",
        "H800",
        "H20",
        "GH200",
        "B300",
        "GB200",
    ):
        assert word in text, word


# ---- NVIDIA's driver name table, checked against the chip (PCI device id) --------------------------------

# Device-id ranges of NVIDIA's chips -> compute capability. [inferred] from the chips the ranges hold (GM107/8
# 0x134x-0x13Bx, GM204 0x13Cx-0x13Fx and 0x16xx, GM206 0x140x-0x143x, GP100 0x15Fx, GM200 0x17Cx, GP10x
# 0x1Bxx-0x1Dxx, GV100 0x1D8x-0x1DFx, TU10x 0x1Exx-0x1Fxx and TU116 0x21xx, GA100 0x20xx, GA10x 0x22xx and
# 0x24xx-0x25xx, GH100 0x23xx, AD10x 0x26xx-0x28xx, GB100 0x29xx, GB20x 0x2Bxx-0x2Fxx, GB110 0x31xx), an
# oracle independent of the name patterns: the two must agree on every name in the table.
CHIP_RANGES = [
    (0x1340, 0x13BF, "5.0"),
    (0x13C0, 0x13FF, "5.2"),
    (0x1400, 0x143F, "5.2"),
    (0x15F0, 0x15FF, "6.0"),
    (0x1600, 0x167F, "5.2"),
    (0x1740, 0x179F, "5.0"),
    (0x17C0, 0x17FF, "5.2"),
    (0x1B00, 0x1D7F, "6.1"),
    (0x1D80, 0x1DFF, "7.0"),
    (0x1E00, 0x1FFF, "7.5"),
    (0x2080, 0x20FF, "8.0"),
    (0x2180, 0x21FF, "7.5"),
    (0x2200, 0x22FF, "8.6"),
    (0x2300, 0x23FF, "9.0"),
    (0x2400, 0x25FF, "8.6"),
    (0x2600, 0x28FF, "8.9"),
    (0x2900, 0x29FF, "10.0"),
    (0x2B00, 0x2DFF, "12.0"),
    (0x2E12, 0x2E12, "12.1"),
    (0x2F00, 0x2FFF, "12.0"),
    (0x3180, 0x31FF, "10.3"),
]
# Names in the table that resolve to None on purpose.
UNKNOWN_BY_DESIGN = {
    "NVIDIA GeForce GTX 860M",  # GK104 (3.0) or GM107 (5.0): the name does not tell
    "Quadro K2200M",  # NVIDIA's legacy page says 3.0, its device id 0x13B3 is GM107: sources disagree
    "Quadro M620",  # NVIDIA's page says 5.2, device id 0x13B4 is GM107
    "Quadro M3000M",
    "Quadro M4000M",
    "Quadro M5000M",  # NVIDIA's page says 5.0, device ids are GM204
    "NVIDIA GeForce GPU",
    "NVIDIA N15M-Q3",
    "NVIDIA DGX Display",
    "NVIDIA DRIVE P2021",  # not products to train on
}
UNKNOWN_PREFIXES = ("EIZO Quadro MED-", "Matrox D-Series ")  # OEM rebrands, left unknown
# (name, device id): entries whose name belongs to another chip. Cloud-gaming vGPU names on data-centre boards
# (A10G 0x2237, L40-class 0x26Bx, RTX PRO 6000 0x2BB5/0x2BB9, T10 0x1E37) and a GM206 "GTX 750" (0x1407):
# the name table answers for the product the name says, which is what the user sees.
ALIASES = {
    ("NVIDIA GeForce GTX 1060", "1E37"),
    ("NVIDIA GeForce GTX 750", "1407"),
    *{
        (n, d)
        for n in ("NVIDIA GeForce RTX 3050", "NVIDIA GeForce RTX 3060")
        for d in ("26B5", "26B8", "26B9", "26BA", "2BB5", "2BB9")
    },
}


def _chip_cc(device: int) -> str | None:
    return next((cc for lo, hi, cc in CHIP_RANGES if lo <= device <= hi), None)


def _driver_names() -> list[tuple[str, str]]:
    rows = []
    for line in NAMES_TSV.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        device, _subsys, _vendor, name = line.split("\t")
        rows.append((device, name))
    return rows


def test_driver_name_table_is_large():
    rows = _driver_names()
    assert len(rows) > 1000 and len({n for _, n in rows}) > 350


def test_every_driver_table_name_resolves_to_its_chip(m):
    wrong, unknown = [], []
    for device, name in _driver_names():
        got = cc_of(m, name)
        want = _chip_cc(int(device, 16))
        assert want is not None, (device, name)
        if name in UNKNOWN_BY_DESIGN or name.startswith(UNKNOWN_PREFIXES):
            assert got is None, name
        elif got is None:
            unknown.append(name)
        elif got != want and (name, device) not in ALIASES:
            wrong.append((name, device, got, want))
    assert not wrong, wrong
    assert not unknown, sorted(set(unknown))


def test_aliases_and_exclusions_are_still_in_the_table():
    rows = set(_driver_names())
    names = {n for _, n in rows}
    assert UNKNOWN_BY_DESIGN <= names
    assert {(d, n) for n, d in ALIASES} <= rows


# ---- precision: variants that differ, near misses and junk ------------------------------------------------


@pytest.mark.parametrize(
    "a, b",
    [
        ("NVIDIA A10", "NVIDIA A100-SXM4-80GB"),
        ("NVIDIA A10", "NVIDIA A10G"),
        ("NVIDIA L4", "NVIDIA L40"),
        ("NVIDIA L40", "NVIDIA L40S"),
        ("Tesla T4", "NVIDIA T400"),
        ("NVIDIA A2", "NVIDIA RTX A2000"),
        ("NVIDIA H100 PCIe", "NVIDIA H100 80GB HBM3"),
        ("NVIDIA H100 NVL", "NVIDIA H100 80GB HBM3"),
        ("NVIDIA H100 NVL", "NVIDIA H100 PCIe"),
        ("NVIDIA H200 NVL", "NVIDIA H200"),
        ("NVIDIA GH200 480GB", "NVIDIA H200"),
        ("NVIDIA GB200", "NVIDIA B200"),
        ("NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-80GB"),
        ("NVIDIA A100 80GB PCIe", "NVIDIA A100-SXM4-80GB"),
        ("NVIDIA GeForce RTX 3050 A Laptop GPU", "NVIDIA GeForce RTX 3050 Laptop GPU"),
        ("GeForce GTX 960", "GeForce GTX 960M"),
        ("GeForce GTX 780", "GeForce GTX 780M"),
        ("GeForce 920M", "NVIDIA GeForce 920MX"),
        ("GeForce GTX TITAN", "GeForce GTX TITAN X"),
        ("GeForce GTX TITAN X", "NVIDIA TITAN X (Pascal)"),
        ("NVIDIA GeForce RTX 2050", "NVIDIA GeForce RTX 2060"),
        ("NVIDIA RTX 6000 Ada Generation", "Quadro RTX 6000"),
        ("Quadro RTX 6000", "NVIDIA RTX A6000"),
        ("Tesla V100-SXM2-16GB", "Tesla V100-PCIE-16GB"),
        ("Tesla P100-SXM2-16GB", "Tesla P100-PCIE-16GB"),
    ],
)
def test_variants_get_different_rows(m, a, b):
    ra, rb = m.gpu(a), m.gpu(b)
    assert ra is not None and rb is not None, (a, b)
    assert ra.name != rb.name, (a, b)


def test_same_capability_variants_may_share_a_row(m):
    assert m.gpu("Tesla P4").name == m.gpu("Tesla P40").name and cc_of(m, "Tesla P40") == "6.1"
    assert cc_of(m, "NVIDIA GeForce RTX 3060") == cc_of(m, "NVIDIA GeForce RTX 3060 Ti") == "8.6"


def test_peaks_tell_h100_variants_apart(m):
    sxm, pcie, nvl = m.gpu("NVIDIA H100 80GB HBM3"), m.gpu("NVIDIA H100 PCIe"), m.gpu("NVIDIA H100 NVL")
    assert (sxm.fp32_tflops, sxm.bf16_tflops, sxm.memory_bandwidth_gbs) == (67.0, 989.4, 3350)
    assert (pcie.fp32_tflops, pcie.bf16_tflops, pcie.memory_bandwidth_gbs) == (51.0, 756.5, 2000)
    assert (nvl.fp32_tflops, nvl.bf16_tflops) == (None, None)  # not confirmed: absent, not guessed
    assert m.gpu("NVIDIA H100").fp32_tflops is None


@pytest.mark.parametrize(
    "name",
    [
        "NVIDIA GeForce GTX 560 Ti 448 Cores",  # a Fermi GF110 sold under a GF114 name
        "NVIDIA GeForce GT 630",  # Fermi or Kepler: two chips share the name
        "GeForce GTX 670M",  # Fermi notebook part beside Kepler names
        "GeForce GT 640M LE",  # GK107 or Fermi GF108
        "GeForce GT 730",  # GK208 (3.5) or GF108 (2.1)
        "GeForce GT 640",
        "NVIDIA GeForce GTX 860M",
        "TITAN X",  # Maxwell or Pascal
        "Quadro M5000M",
        "NVIDIA RTX 7090",
        "NVIDIA GeForce RTX 6090",
        "NVIDIA H300",
        "NVIDIA A1000",
        "NVIDIA RTX A7000",
        "NVIDIA B200X-1-23C",  # a vGPU type whose base the name does not give plainly
        "NVIDIA H100XM-1-10C",
        "NVIDIA L40G-24Q",
        "Tesla K30",
        "GeForce GTX 1090",
        "GeForce RTX 2090",
    ],
)
def test_near_misses_are_unknown(m, name):
    assert m.gpu(name) is None


@pytest.mark.parametrize(
    "name",
    [
        "",
        "   ",
        "\x00\xff\ufffd",
        "NVIDIA",
        "GeForce",
        "Quadro",
        "Tesla",
        "RTX",
        "GPU 0",
        "0",
        "Matrox G200eW",
        "AMD Radeon RX 7900 XT",
        "AMD Instinct MI300X",
        "Intel(R) Arc(TM) A770 Graphics",
        "AMD Radeon Pro A10",
        "Apple M4",
        "L2 cache",
        "llvmpipe (LLVM 15.0.7, 256 bits)",
        "Host",
        None,
        42,
        "NVIDIA H100 80GB HBM3" + " " * 300,  # longer than any product name
    ],
)
def test_junk_is_unknown(m, name):
    assert m.gpu(name) is None


def test_mig_slices_and_vgpu_profiles_keep_the_capability_but_not_the_peaks(m):
    for name, cc, row in [
        ("NVIDIA H100 80GB HBM3 MIG 1g.10gb", "9.0", "H100 SXM5 80GB"),
        ("NVIDIA A100-SXM4-40GB MIG 1g.5gb", "8.0", "A100 40GB (SXM4, PCIe)"),
        ("NVIDIA B200 MIG 1g.23gb", "10.0", "B200"),
        ("NVIDIA A10-24Q", "8.6", "A10"),
        ("NVIDIA L4-24Q", "8.9", "L4"),
        ("GRID T4-16Q", "7.5", "T4"),
        ("NVIDIA H100-1-10C", "9.0", "H100 (other variants)"),
        ("GRID M10-8Q", "5.0", "Tesla M10"),
    ]:
        model = m.gpu(name)
        assert (model.compute_capability, model.name) == (cc, row), name
        assert (
            model.fp32_tflops is model.bf16_tflops is model.tf32_tflops is model.memory_bandwidth_gbs is None
        )
        assert "MIG slice or vGPU" in model.notes
    assert m.gpu("NVIDIA H100 80GB HBM3").fp32_tflops == 67.0  # the row itself is untouched


# ---- the patterns are linear ---------------------------------------------------------------------------


def test_every_pattern_has_only_bounded_unnested_quantifiers(m):
    for g in m.gpus:
        for pattern in g.patterns:
            assert _backtracking_risk(pattern) is None, (g.name, pattern)


@pytest.mark.parametrize(
    "pattern, problem",
    [
        (r"(a+)+b", "unbounded"),
        (r"\bH100\b.*\bSXM", "unbounded"),
        (r"x{2,}", "unbounded"),
        (r"(?:ab?){2}", "nested"),
        (r"(?:(?:a|b){1,3}){1,3}", "nested"),
        (r"(?!a+)", "unbounded"),
        (r"\bRTX \d{3,4}(?: Ti)?\b", None),
    ],
)
def test_backtracking_checker(pattern, problem):
    got = _backtracking_risk(pattern)
    assert (got is None) if problem is None else (problem in got)


PATHOLOGICAL = [
    "RTX " * 16384,
    "A" * 65536,
    "H100 " * 13107,
    "NVIDIA GeForce GTX 1" * 3276,
    "RTX PRO 1000 " * 5041,
    "Tesla K2" * 8192,
    "\ufffd" * 65536,
    "-1" * 32768,
]


@pytest.mark.parametrize("text", PATHOLOGICAL, ids=range(len(PATHOLOGICAL)))
def test_lookup_of_64k_junk_is_fast_and_unknown(m, text):
    start = time.perf_counter()
    assert m.gpu(text) is None
    assert time.perf_counter() - start < 0.1


def test_each_pattern_is_linear_on_64k_input(m):
    """Without the length cap too: every pattern scans 64 KB of near-matches in well under 0.1 s."""
    worst = 0.0
    for g in m.gpus:
        for rx in _compiled(g.patterns):
            for text in PATHOLOGICAL:
                start = time.perf_counter()
                rx.search(text)
                worst = max(worst, time.perf_counter() - start)
    assert worst < 0.1, worst


# ---- the loader rejects malformed architecture data -----------------------------------------------------


# ---- the nvidia-smi --query-gpu CSV parser ---------------------------------------------------------------


def test_query_fields_ask_for_compute_cap():
    assert QUERY_FIELDS == ("index", "pci.bus_id", "name", "compute_cap")
    assert QUERY_ARGS == ("--query-gpu=index,pci.bus_id,name,compute_cap", "--format=csv,noheader")
    assert NAME_QUERY_ARGS == ("--query-gpu=index,pci.bus_id,name", "--format=csv,noheader")


def test_parse_recorded_query_with_header():
    fields = ("compute_cap", "compute_mode", "driver_version", "name", "index")
    out = parse_query_gpu((SMI / "query-570-titan-v-rtx5880.csv").read_text(), fields)
    assert out["unsupported_field"] is None and out["skipped"] == 0
    assert out["gpus"] == [
        {
            "compute_capability": "7.0",
            "compute_mode": "Default",
            "driver_version": "570.86.15",
            "name": "NVIDIA TITAN V",
            "index": 0,
        },
        {
            "compute_capability": "8.9",
            "compute_mode": "Default",
            "driver_version": "570.86.15",
            "name": "NVIDIA RTX 5880 Ada Generation",
            "index": 1,
        },
    ]


def test_parse_recorded_query_eight_h100():
    out = parse_query_gpu((SMI / "query-h100-x8-name-cc.csv").read_text(), ("name", "compute_cap"))
    assert [(g["name"], g["compute_capability"]) for g in out["gpus"]] == [
        ("NVIDIA H100 80GB HBM3", "9.0")
    ] * 8


def test_parse_recorded_query_single_field():
    out = parse_query_gpu((SMI / "query-570-compute-cap-only.csv").read_text(), ("compute_cap",))
    assert out == {"gpus": [{"compute_capability": "8.9"}], "unsupported_field": None, "skipped": 0}


@pytest.mark.parametrize(
    "fname, field",
    [("query-470-compute-cap-invalid.txt", "compute_cap"), ("query-invalid-field-exit2.txt", "device_minor")],
)
def test_parse_recorded_old_driver_refusal(fname, field):
    out = parse_query_gpu((SMI / fname).read_text())
    assert out == {"gpus": [], "unsupported_field": field, "skipped": 0}


def test_parse_query_rows_of_the_probe_query():
    text = (
        "0, 00000000:18:00.0, NVIDIA H100 80GB HBM3, 9.0\n"
        "1, 00000000:2A:00.0, NVIDIA H100 80GB HBM3 MIG 1g.10gb, [N/A]\n"
        "2, 0000:03:00.0, GeForce GTX 680, 3.0\n"
    )
    assert parse_query_gpu(text)["gpus"] == [
        {
            "index": 0,
            "pci_bus_id": "00000000:18:00.0",
            "name": "NVIDIA H100 80GB HBM3",
            "compute_capability": "9.0",
        },
        {
            "index": 1,
            "pci_bus_id": "00000000:2A:00.0",
            "name": "NVIDIA H100 80GB HBM3 MIG 1g.10gb",
            "compute_capability": None,
        },
        {"index": 2, "pci_bus_id": "0000:03:00.0", "name": "GeForce GTX 680", "compute_capability": "3.0"},
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        (SMI / "banner-565.57.01-h100-sxm-x8.txt").read_text(),  # a banner where a CSV was expected
        (SMI / "fail-no-driver.txt").read_text(),
        (SMI / "fail-driver-library-mismatch.txt").read_text(),
        "x, y, z, w\n",
        "0, 00000000:18:00.0, NVIDIA H100 80GB HBM3, nine\n",
        "zero, 00000000:18:00.0, NVIDIA H100 80GB HBM3, 9.0\n",
        "0, 00000000:18:00.0, NVIDIA H100 80GB HBM3\n",  # a field short
        "\x00\xff\ufffd,,,\n",
        'Field "compute_cap" is not a valid field to query',  # no period, still the refusal
    ],
)
def test_parse_query_junk_gives_no_rows(text):
    out = parse_query_gpu(text)
    assert out["gpus"] == []


@pytest.mark.parametrize(
    "text",
    [
        "0, " * 21845 + "\n",
        "A" * 65536,
        "0, 00000000:18:00.0, " + "N" * 65536 + ", 9.0\n",
        'Field "' + "c" * 65536 + '" is not a valid field to query.\n',
        "0, 00000000:18:00.0, NVIDIA H100 80GB HBM3, 9.0\n" * 2000,
        ", " * 32768,
    ],
)
def test_parse_query_64k_pathological_input_is_fast(text):
    start = time.perf_counter()
    out = parse_query_gpu(text)
    assert time.perf_counter() - start < 0.1
    assert len(out["gpus"]) <= MAX_QUERY_GPUS


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=2000),
    st.lists(st.sampled_from(["index", "name", "compute_cap", "pci.bus_id", "uuid"]), min_size=1, max_size=5),
)
def test_parse_query_never_raises(text, fields):
    out = parse_query_gpu(text, fields)
    assert set(out) == {"gpus", "unsupported_field", "skipped"}
    for row in out["gpus"]:
        cc = row.get("compute_capability")
        assert cc is None or re.fullmatch(r"\d{1,2}\.\d{1,2}", cc)
        assert row.get("index") is None or isinstance(row["index"], int)


def test_parse_query_non_text_input():
    assert parse_query_gpu(None)["gpus"] == []  # type: ignore[arg-type]


# ---- the probe, end to end with a fake nvidia-smi on PATH --------------------------------------------------


def _fake(bindir: Path, banner: Path, query: str, query_exit: int = 0, names: str = "") -> None:
    """A fake nvidia-smi: the recorded banner; -q -x prints nothing usable; --query-gpu answers `query`."""
    body = (
        'case "$1" in\n'
        '  -q) echo "not xml"; exit 0 ;;\n'
        f"  {NAME_QUERY_ARGS[0]}) {names or 'exit 2'} ;;\n"
        f"  --query-gpu=*) {query}; exit {query_exit} ;;\n"
        "esac\n"
        f"cat '{banner}'\n"
    )
    write_fake(bindir, "nvidia-smi", body)


def _smi(bindir: Path, *extra: str) -> dict:
    res = run_cli("check", "--quick", "--json", *extra, path_prepend=bindir)
    assert res.returncode in (0, 1), res.stderr
    assert "Traceback" not in res.stderr
    return res.json()


def test_probe_reads_compute_cap_from_the_query(bindir):
    # The rows are the recorded banner's own GPUs (index, bus id, name) with the 9.0 an H100 reports.
    banner = SMI / "banner-565.57.01-h100-sxm-x8.txt"
    gpus = parse_banner(banner.read_text())["gpus"]
    rows = "\\n".join(f"{g['index']}, {g['pci_bus_id']}, {g['name']}, 9.0" for g in gpus)
    _fake(bindir, banner, f"printf '{rows}\\n'")
    report = _smi(bindir)
    smi = report["facts"]["nvidia_smi"]
    assert smi["query_error"] is None and "9.0" in smi["raw_query"]
    assert [(g["compute_capability"], g["compute_capability_source"]) for g in smi["gpus"]] == [
        ("9.0", "nvidia-smi")
    ] * 8
    assert [g["compute_capability"] for g in report["environment"]["gpus"]] == ["9.0"] * 8


def test_probe_falls_back_to_the_name_table_on_an_old_driver(bindir):
    # R450 and R331 drivers predate compute_cap: the recorded refusal, exit status 2.
    refusal = f"cat '{SMI / 'query-470-compute-cap-invalid.txt'}'"
    _fake(bindir, SMI / "banner-450.57-titan-xp.txt", refusal, query_exit=2)
    smi = _smi(bindir)["facts"]["nvidia_smi"]
    assert 'does not know the field "compute_cap"' in smi["query_error"]
    assert [(g["name"], g["compute_capability"], g["compute_capability_source"]) for g in smi["gpus"]] == [
        ("TITAN Xp", "6.1", "name table")
    ]
    _fake(bindir, SMI / "banner-331.62-gtx-680.txt", refusal, query_exit=2)
    smi = _smi(bindir)["facts"]["nvidia_smi"]
    assert [g["compute_capability"] for g in smi["gpus"]] == ["3.0", "3.0", "3.0"]
    assert {g["compute_capability_source"] for g in smi["gpus"]} == {"name table"}


def test_probe_asks_for_full_names_when_the_banner_truncates_them(bindir):
    # The V100 banner cuts the name ("Tesla V100-SXM2..."); compute_cap refused, the probe asks for names.
    refusal = f"cat '{SMI / 'query-470-compute-cap-invalid.txt'}'"
    _fake(
        bindir,
        SMI / "banner-525.105.17-v100.txt",
        refusal,
        query_exit=2,
        names="echo '0, 00000000:00:09.0, Tesla V100-SXM2-32GB'; exit 0",
    )
    gpu = _smi(bindir)["facts"]["nvidia_smi"]["gpus"][0]
    assert (gpu["name"], gpu["compute_capability"], gpu["compute_capability_source"]) == (
        "Tesla V100-SXM2...",
        "7.0",
        "name table",
    )
    _fake(bindir, SMI / "banner-525.105.17-v100.txt", refusal, query_exit=2)  # and when that fails too
    gpu = _smi(bindir)["facts"]["nvidia_smi"]["gpus"][0]
    assert (gpu["compute_capability"], gpu["compute_capability_source"]) == (None, None)


def test_probe_survives_a_hanging_or_garbled_query(bindir):
    _fake(bindir, SMI / "banner-570.133.20-l4.txt", "sleep 30")
    start = time.monotonic()
    smi = _smi(bindir, "--timeout", "2")["facts"]["nvidia_smi"]
    assert time.monotonic() - start < 30
    assert "did not answer" in smi["query_error"]
    assert (smi["gpus"][0]["compute_capability"], smi["gpus"][0]["compute_capability_source"]) == (
        "8.9",
        "name table",
    )
    _fake(bindir, SMI / "banner-570.133.20-l4.txt", "head -c 70000 /dev/zero | tr '\\\\0' 'x'")
    smi = _smi(bindir)["facts"]["nvidia_smi"]
    assert "not nvidia-smi's usual output" in smi["query_error"]
    assert smi["gpus"][0]["compute_capability"] == "8.9" and len(smi["raw_query"]) < 5000
