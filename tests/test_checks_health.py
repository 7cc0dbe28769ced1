"""GPU health checks, driver/library mismatch and GPU:n mapping: pure functions on fact dicts
(built from recorded nvidia-smi -q -x outputs where possible)."""

from __future__ import annotations

import copy

import pytest
from conftest import DATA

from tfdoctor import facts as fc
from tfdoctor.checks import driver, nvml
from tfdoctor.checks.gpu import health, mapping
from tfdoctor.model import Status
from tfdoctor.probes.nvidia_smi import parse_query_xml

SMI = DATA / "nvidia-smi"



def nvml_and_driver_library(facts, matrix):
    return driver.library_mismatch(facts, matrix) + nvml.bindings(facts, matrix)


def _xml_gpus(name: str) -> list[dict]:
    return parse_query_xml((SMI / name).read_text())["gpus"]


def _facts(gpus: list[dict], platform: str = "linux", source: str = "nvml", **system) -> dict:
    facts = {
        "system": {"platform": platform, "env": {}, "env_complete": True, **system},
        "nvml": {"available": False, "error_kind": "library-not-found"},
        "nvidia_smi": {"found": False},
    }
    if source == "nvml":
        facts["nvml"] = {"available": True, "driver_version": "565.57.01", "gpus": gpus}
    else:
        facts["nvidia_smi"] = {"found": True, "path": "/usr/bin/nvidia-smi", "gpus": gpus}
    return facts


def _run(check, facts) -> dict[str, object]:
    return {f.id: f for f in check(facts, None)}


def _h100(index: int = 0, **over) -> dict:
    g = {
        "index": index,
        "name": "NVIDIA H100 80GB HBM3",
        "uuid": f"GPU-{index}aaa",
        "pci_bus_id": f"00000000:{18 + index}:00.0",
        "memory_total_mib": 81559,
        "memory_used_mib": 453,
        "memory_free_mib": 81106,
        "ecc": {
            "mode_current": True,
            "volatile": {"corrected": 0, "uncorrected": 0},
            "aggregate": {"corrected": 0, "uncorrected": 0},
        },
        "retired_pages": {"single_bit": None, "double_bit": None, "pending": None},
        "remapped_rows": {"pending": False, "failure": False, "correctable": 0, "uncorrectable": 0},
        "throttle_reasons": ["idle"],
        "pcie": {"gen": 5, "max_gen": 5, "width": 16, "max_width": 16},
        "persistence_mode": True,
        "compute_mode": "default",
        "mig": {"current": False, "pending": False, "devices": []},
        "processes": [],
        "temperature_c": 30,
        "temperature_limit_c": 87,
        "power_w": 100.9,
        "power_limit_w": 700,
    }
    g.update(over)
    return g


def test_source_prefers_nvml_then_nvidia_smi():
    assert fc.gpus(_facts([_h100()]))[1] == "NVML"
    assert fc.gpus(_facts(_xml_gpus("q-x-tesla-t4-515.xml"), source="smi"))[1] == "nvidia-smi"
    assert fc.gpus({"nvml": {"probe_failed": True}}) == ([], None)


def test_healthy_gpu_gives_only_a_pass():
    facts = _facts([_h100(0), _h100(1)])
    for check in (health.memory_and_bus_errors, health.link_and_clocks, health.sharing_and_modes, health.mig):
        assert check(facts, None) == []
    summary = health.health_summary(facts, None)
    assert [f.status for f in summary] == [Status.PASS] and "2 GPU(s)" in summary[0].title


def test_recorded_a10g_x8_link_is_reported_and_idle_generation_is_not():
    found = _run(health.link_and_clocks, _facts(_xml_gpus("q-x-a10g-515.xml"), source="smi"))
    assert found["gpu.pcie-link-degraded"].status == Status.WARN
    assert "x8 of x16" in found["gpu.pcie-link-degraded"].detail
    assert "idle GPU lowers its link generation" in found["gpu.pcie-link-degraded"].detail
    # Quadro P400: Gen1 of Gen3 while idle, full width: normal power saving.
    assert _run(health.link_and_clocks, _facts(_xml_gpus("q-x-quadro-p400-418.xml"), source="smi")) == {}


def test_generation_below_max_only_counts_when_busy():
    busy = _h100(pcie={"gen": 3, "max_gen": 5, "width": 16, "max_width": 16}, throttle_reasons=[])
    found = _run(health.link_and_clocks, _facts([busy]))
    assert "while busy" in found["gpu.pcie-link-degraded"].title
    idle = _h100(pcie={"gen": 1, "max_gen": 5, "width": 16, "max_width": 16})
    assert _run(health.link_and_clocks, _facts([idle])) == {}


def test_throttle_reasons():
    hot = _h100(throttle_reasons=["hw_slowdown", "hw_thermal"], temperature_c=88)
    found = _run(health.link_and_clocks, _facts([hot]))
    assert found["gpu.throttled"].status == Status.WARN and "cooling" in found["gpu.throttled"].fix
    assert found["gpu.temperature-high"].status == Status.WARN
    capped = _run(health.link_and_clocks, _facts([_h100(throttle_reasons=["power_cap"], temperature_c=50)]))
    assert "-pl" in capped["gpu.throttled"].fix and "gpu.temperature-high" not in capped
    assert _run(health.link_and_clocks, _facts([_h100(throttle_reasons=["sync_boost"])])) == {}


def test_ecc_remap_and_retirement():
    now = _h100(
        ecc={
            "mode_current": True,
            "volatile": {"corrected": 0, "uncorrected": 2},
            "aggregate": {"corrected": 0, "uncorrected": 2},
        }
    )
    past = _h100(
        1,
        ecc={
            "mode_current": True,
            "volatile": {"corrected": 0, "uncorrected": 0},
            "aggregate": {"corrected": 5, "uncorrected": 1},
        },
    )
    assert _run(health.memory_and_bus_errors, _facts([now, past]))["gpu.ecc-errors"].status == Status.FAIL
    assert _run(health.memory_and_bus_errors, _facts([past]))["gpu.ecc-errors"].status == Status.WARN
    remap = _h100(
        remapped_rows={"pending": True, "failure": True, "correctable": 0, "uncorrectable": 1},
        retired_pages={"single_bit": 0, "double_bit": 1, "pending": True},
    )
    found = _run(health.memory_and_bus_errors, _facts([remap]))
    assert found["gpu.row-remap-failed"].status == Status.FAIL
    assert (
        found["gpu.row-remap-pending"].status == Status.WARN
        and "nvidia-smi -r -i 0" in found["gpu.row-remap-pending"].fix
    )
    assert found["gpu.retired-pages-pending"].status == Status.WARN


def test_lost_gpu():
    found = _run(
        health.memory_and_bus_errors,
        _facts([_h100(), {"index": 1, "error": "gone", "error_kind": "gpu-lost"}]),
    )
    assert (
        found["gpu.lost"].status == Status.FAIL
        and "GPU 1" in found["gpu.lost"].title
        and "xid" in found["gpu.lost"].fix.lower()
    )


def test_recorded_rtx3080_memory_taken_by_invisible_process():
    found = _run(health.sharing_and_modes, _facts(_xml_gpus("q-x-rtx-3080-595.xml"), source="smi"))
    held = found["gpu.memory-held-by-other-processes"]
    assert held.status == Status.FAIL  # 660 MiB left
    assert "660 MiB left" in held.detail and "no process is visible" in held.detail


def test_memory_held_by_a_named_process_is_a_warning():
    g = _h100(
        memory_used_mib=73400,
        memory_free_mib=8159,
        processes=[{"pid": 4242, "name": "python3", "type": "C", "used_mib": 72946}],
    )
    held = _run(health.sharing_and_modes, _facts([g]))["gpu.memory-held-by-other-processes"]
    assert held.status == Status.WARN and "python3 (pid 4242, 72946 MiB)" in held.detail


def test_persistence_only_on_linux_datacentre_gpus():
    a100 = _xml_gpus("q-x-a100-sxm4-80gb-535-mig.xml")
    assert "gpu.persistence-off" in _run(health.sharing_and_modes, _facts(a100, source="smi"))
    assert "gpu.persistence-off" not in _run(
        health.sharing_and_modes, _facts(a100, platform="wsl2", source="smi")
    )
    p400 = _xml_gpus("q-x-quadro-p400-418.xml")  # no ECC: a desktop card
    assert "gpu.persistence-off" not in _run(health.sharing_and_modes, _facts(p400, source="smi"))


def test_compute_modes():
    found = _run(health.sharing_and_modes, _facts([_h100(compute_mode="prohibited")]))
    assert (
        found["gpu.compute-mode-prohibited"].status == Status.FAIL
        and "-c DEFAULT" in found["gpu.compute-mode-prohibited"].fix
    )
    busy = _h100(
        compute_mode="exclusive_process",
        processes=[{"pid": 7, "name": "train", "type": "C", "used_mib": 900}],
    )
    assert _run(health.sharing_and_modes, _facts([busy]))["gpu.compute-mode-exclusive"].status == Status.WARN
    assert _run(health.sharing_and_modes, _facts([_h100(compute_mode="exclusive_process")])) == {}


def test_mig_states():
    found = _run(health.mig, _facts(_xml_gpus("q-x-a100-sxm4-80gb-535-mig.xml"), source="smi"))
    assert found["gpu.mig-enabled"].status == Status.WARN and "MIG-<uuid>" in found["gpu.mig-enabled"].fix
    empty = _h100(mig={"current": True, "pending": True, "devices": []})
    assert _run(health.mig, _facts([empty]))["gpu.mig-enabled"].status == Status.FAIL
    pending = _h100(mig={"current": False, "pending": True, "devices": []})
    assert "pending" in _run(health.mig, _facts([pending]))["gpu.mig-enabled"].title


def test_library_mismatch_sources_and_fixes():
    by_version = _facts([_h100()], proc_driver_version="560.35.03")
    found = _run(nvml_and_driver_library, by_version)
    assert found["driver.library-mismatch"].status == Status.FAIL
    assert "kernel module 560.35.03" in found["driver.library-mismatch"].detail
    assert "modprobe nvidia" in found["driver.library-mismatch"].fix
    assert _run(nvml_and_driver_library, _facts([_h100()], proc_driver_version="565.57.01")) == {}
    nvml_err = {"system": {"platform": "wsl2"}, "nvml": {"available": False, "error_kind": "lib-mismatch"}}
    assert "wsl --shutdown" in _run(nvml_and_driver_library, nvml_err)["driver.library-mismatch"].fix
    in_docker = {
        "system": {"platform": "linux", "container": "docker"},
        "nvidia_smi": {"error_kind": "lib-mismatch", "error": "Driver/library version mismatch"},
    }
    assert "host" in _run(nvml_and_driver_library, in_docker)["driver.library-mismatch"].fix


def test_bindings_and_disagreement_findings():
    fork = {"nvml": {"error_kind": "fork", "error": "unofficial"}}
    assert (
        "pip install nvidia-ml-py" in _run(nvml_and_driver_library, fork)["nvml.unofficial-pynvml"].fix
    )
    denied = {"nvml": {"error_kind": "no-permission", "error": "no permission"}}
    assert "nvml.no-permission" in _run(nvml_and_driver_library, denied)
    facts = _facts([_h100()])
    facts["nvidia_smi"] = {"driver_version": "550.54.15", "path": "/usr/bin/nvidia-smi"}
    assert _run(nvml_and_driver_library, facts)["nvml.nvidia-smi-disagrees"].status == Status.WARN


@pytest.mark.parametrize(
    "raw, norm",
    [
        ("00000000:3B:00.0", "0000:3b:00.0"),
        ("0000:3b:00.0", "0000:3b:00.0"),
        ("3B:00.0", "0000:3b:00.0"),
        ("00000001:0A:1F.3", "0001:0a:1f.3"),
        ("garbage", None),
        (None, None),
        ("00000000:3B:00.9", None),
    ],
)
def test_normalize_pci(raw, norm):
    assert fc.normalize_pci(raw) == norm


def _pair() -> list[dict]:
    return [
        _h100(0, pci_bus_id="00000000:18:00.0", uuid="GPU-b42dd28e-ffdd"),
        _h100(1, pci_bus_id="00000000:3B:00.0", uuid="GPU-7c3cadbd-17e5"),
    ]


def test_map_by_pci_bus_id_from_tensorflow():
    tf = [
        {"tf_device": "/physical_device:GPU:0", "pci_bus_id": "0000:3b:00.0"},
        {"tf_device": "/physical_device:GPU:1", "pci_bus_id": "0000:18:00.0"},
    ]
    m = mapping.map_devices(_pair(), tf, {})
    assert m["how"] == "pci" and [(r["tf_device"], r["nvml_index"]) for r in m["rows"]] == [
        ("GPU:0", 1),
        ("GPU:1", 0),
    ]


@pytest.mark.parametrize(
    "cvd, expect",
    [
        (None, [0, 1]),
        ("1", [1]),
        ("1,0", [1, 0]),
        ("GPU-7c3c", [1]),
        ("0,7,1", [0]),
        ("", []),
        ("-1", []),
    ],
)
def test_map_predicted_from_cuda_visible_devices(cvd, expect):
    env = {} if cvd is None else {"CUDA_VISIBLE_DEVICES": cvd}
    m = mapping.map_devices(_pair(), None, env)
    assert m["how"] == "predicted" and [r["nvml_index"] for r in m["rows"]] == expect


def test_mixed_models_need_pci_bus_id_order():
    gpus = [_h100(0), _h100(1, name="NVIDIA A100-SXM4-80GB")]
    assert mapping.map_devices(gpus, None, {"CUDA_VISIBLE_DEVICES": "0"})["how"] == "ambiguous"
    assert mapping.map_devices(gpus, None, {})["how"] == "ambiguous"
    env = {"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": "1"}
    ordered = mapping.map_devices(gpus, None, env)
    assert [r["nvml_index"] for r in ordered["rows"]] == [1]
    facts = _facts(gpus)
    found = _run(mapping.device_mapping, facts)
    assert found["gpu.device-order"].status == Status.WARN and "gpu.mapping" not in found
    facts["system"]["env"] = {"CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
    assert set(_run(mapping.device_mapping, facts)) == {"gpu.mapping"}


def test_mapping_finding_uses_runtime_devices():
    facts = _facts(_pair())
    facts["runtime"] = {"gpus": [{"tf_device": "/physical_device:GPU:0", "pci_bus_id": "0000:3b:00.0"}]}
    found = _run(mapping.device_mapping, facts)["gpu.mapping"]
    assert (
        found.title == "GPU:0 = NVML 1 (NVIDIA H100 80GB HBM3, 0000:3b:00.0)"
        and found.confidence == "certain"
    )


WEIRD = [
    {},
    {"nvml": "broken", "nvidia_smi": None, "system": []},
    {"nvml": {"available": True, "gpus": ["x", None, 3, {"index": 0}]}},
    {
        "nvml": {
            "available": True,
            "gpus": [
                {
                    "pcie": "x",
                    "ecc": None,
                    "mig": [],
                    "processes": "p",
                    "throttle_reasons": None,
                    "memory_total_mib": 0,
                }
            ],
        }
    },
    {"nvidia_smi": {"gpus": [{"index": 0, "pci_bus_id": 5, "name": None}]}, "runtime": {"gpus": [{}, "x"]}},
]


@pytest.mark.parametrize("facts", WEIRD)
def test_checks_survive_odd_facts(facts):
    for check in (
        nvml_and_driver_library,
        health.memory_and_bus_errors,
        health.link_and_clocks,
        health.sharing_and_modes,
        health.mig,
        health.health_summary,
        mapping.device_mapping,
    ):
        check(copy.deepcopy(facts), None)
