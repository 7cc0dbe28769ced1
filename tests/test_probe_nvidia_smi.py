"""nvidia-smi probe: pure parsers on recorded real outputs, and the CLI with fake nvidia-smi on PATH."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import DATA, run_cli, write_fake

from tfdoctor.probes.nvidia_smi import SmiParseError, failure_kind, parse_banner, parse_query_xml

SMI = DATA / "nvidia-smi"

# file, driver, cuda, number of GPUs, first GPU (name, bus id, total MiB, compute mode)
BANNERS = [
    ("banner-331.62-gtx-680.txt", "331.62", None, 3, ("GeForce GTX 680", "0000:03:00.0", 4095, "default")),
    ("banner-450.57-titan-xp.txt", "450.57", "11.0", 1, ("TITAN Xp", "00000000:17:00.0", 12196, "default")),
    (
        "banner-525.105.17-v100.txt",
        "525.105.17",
        "12.0",
        1,
        ("Tesla V100-SXM2...", "00000000:00:09.0", 32768, "default"),
    ),
    (
        "banner-535.247.01-a10g.txt",
        "535.247.01",
        "12.2",
        1,
        ("NVIDIA A10G", "00000000:00:1E.0", 23028, "default"),
    ),
    ("banner-550.135-tesla-p4.txt", "550.135", "12.4", 1, ("Tesla P4", "00000000:86:00.0", 8192, "default")),
    (
        "banner-555.42.02-a100-sxm4-x4.txt",
        "555.42.02",
        "12.5",
        4,
        ("NVIDIA A100-SXM4-80GB", "00000000:68:00.0", 81920, "default"),
    ),
    (
        "banner-565.57.01-h100-sxm-x8.txt",
        "565.57.01",
        "12.7",
        8,
        ("NVIDIA H100 80GB HBM3", "00000000:18:00.0", 81559, "default"),
    ),
    (
        "banner-570.133.20-l4.txt",
        "570.133.20",
        "12.8",
        1,
        ("NVIDIA L4", "00000000:31:00.0", 23034, "default"),
    ),
    (
        "banner-580.126.09-a100-x2-exclusive.txt",
        "580.126.09",
        "13.0",
        2,
        ("NVIDIA A100-SXM4-40GB", "00000000:10:1C.0", 40960, "exclusive_process"),
    ),
    (
        "banner-610.43.02-b200-x2.txt",
        "610.43.02",
        "13.3",
        2,
        ("NVIDIA B200", "00000000:63:00.0", 183359, "default"),
    ),
]


@pytest.mark.parametrize("name, driver, cuda, count, first", BANNERS, ids=[b[0] for b in BANNERS])
def test_parse_banner_recorded(name, driver, cuda, count, first):
    parsed = parse_banner((SMI / name).read_text())
    assert (parsed["driver_version"], parsed["cuda_version"], len(parsed["gpus"])) == (driver, cuda, count)
    g = parsed["gpus"][0]
    assert (g["name"], g["pci_bus_id"], g["memory_total_mib"], g["compute_mode"]) == first
    assert [x["index"] for x in parsed["gpus"]] == list(range(count))


def test_banner_marks_truncated_names():
    parsed = parse_banner((SMI / "banner-525.105.17-v100.txt").read_text())
    assert parsed["gpus"][0]["name_truncated"] is True
    assert parsed["gpus"][0]["memory_used_mib"] == 308


@pytest.mark.parametrize(
    "name, kind",
    [("fail-no-driver.txt", "driver-not-loaded"), ("fail-driver-library-mismatch.txt", "lib-mismatch"),
     ("fail-no-devices.txt", "no-devices")],
)
def test_failure_texts_recognized(name, kind):
    text = (SMI / name).read_text()
    assert failure_kind(text) == kind
    with pytest.raises(SmiParseError):
        parse_banner(text)


@pytest.mark.parametrize("text", ["", "hello\n", "\ufffd\ufffd\x00garbage", "<nvidia_smi_log>"])
def test_parse_banner_rejects_garbage(text):
    with pytest.raises(SmiParseError):
        parse_banner(text)


def test_parse_xml_a100_mig():
    x = parse_query_xml((SMI / "q-x-a100-sxm4-80gb-535-mig.xml").read_text())
    assert (x["driver_version"], x["cuda_version"], len(x["gpus"])) == ("535.54.03", "12.2", 1)
    g = x["gpus"][0]
    assert g["mig"]["current"] is True and g["mig"]["pending"] is True
    assert [d["memory_total_mib"] for d in g["mig"]["devices"]] == [19968] * 4
    assert g["ecc"] == {
        "mode_current": True,
        "volatile": {"corrected": 0, "uncorrected": 0},
        "aggregate": {"corrected": 0, "uncorrected": 0},
    }
    assert g["remapped_rows"]["pending"] is None  # "<remapped_rows>N/A</remapped_rows>"
    assert g["pcie"] == {"gen": 4, "max_gen": 4, "width": 16, "max_width": 16}
    assert (g["temperature_c"], g["temperature_limit_c"], g["power_w"], g["power_limit_w"]) == (
        27,
        89,
        67.03,
        500,
    )
    assert g["persistence_mode"] is False and g["compute_mode"] == "default"


def test_parse_xml_t4_processes_and_link():
    g = parse_query_xml((SMI / "q-x-tesla-t4-515.xml").read_text())["gpus"][0]
    assert {(p["pid"], p["name"], p["type"], p["used_mib"]) for p in g["processes"]} == {
        (675, "/usr/lib/xorg/Xorg", "G", 22),
        (5762, "python", "C", 1005),
    }
    assert g["retired_pages"] == {"single_bit": 0, "double_bit": 0, "pending": False}
    assert (g["pcie"]["width"], g["pcie"]["max_width"]) == (8, 16)


def test_parse_xml_idle_downtrained_link_and_old_schema():
    a10g = parse_query_xml((SMI / "q-x-a10g-515.xml").read_text())["gpus"][0]
    assert a10g["throttle_reasons"] == ["idle"] and a10g["pcie"]["gen"] == 1 and a10g["pcie"]["max_gen"] == 4
    p400 = parse_query_xml((SMI / "q-x-quadro-p400-418.xml").read_text())
    assert p400["driver_version"] == "418.43" and p400["gpus"][0]["ecc"]["mode_current"] is None
    assert p400["gpus"][0]["throttle_reasons"] == ["idle"]


def test_parse_xml_r595_schema():
    g = parse_query_xml((SMI / "q-x-rtx-3080-595.xml").read_text())["gpus"][0]
    assert (g["power_w"], g["power_limit_w"]) == (142.33, 320)
    assert (g["memory_used_mib"], g["memory_total_mib"], g["processes"]) == (9184, 10240, [])


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not xml at all",
        "<nvidia_smi_log><gpu>",
        "<other/>",
        "\ufffd\ufffd<\ufffd",
        (SMI / "q-h100-sxm-x8-565.txt").read_text(),
    ],
)
def test_parse_xml_rejects_garbage(text):
    with pytest.raises(SmiParseError):
        parse_query_xml(text)


# --- end to end: the CLI with a fake nvidia-smi on PATH ------------------------------------------------


def _fake_smi(bindir: Path, banner: str, xml: str = "", exit_code: int = 0) -> None:
    body = f'if [ "$1" = "-q" ]; then {xml or banner}; else {banner}; fi\nexit {exit_code}'
    write_fake(bindir, "nvidia-smi", body)


def _smi_facts(bindir: Path, *extra: str) -> tuple[dict, object]:
    res = run_cli("check", "--quick", "--json", *extra, path_prepend=bindir)
    assert res.returncode in (0, 1), res.stderr
    assert "Traceback" not in res.stderr
    report = res.json()
    return report, res


def _ids(report: dict) -> dict[str, str]:
    return {f["id"]: f["status"] for f in report["findings"]}


def test_cli_nvidia_smi_fallback_reads_xml(bindir):
    _fake_smi(
        bindir,
        f"cat '{SMI / 'banner-555.42.02-a100-sxm4-x4.txt'}'",
        f"cat '{SMI / 'q-x-a100-sxm4-80gb-535-mig.xml'}'",
    )
    report, _ = _smi_facts(bindir)
    smi = report["facts"]["nvidia_smi"]
    assert smi["found"] and smi["path"] == str(bindir / "nvidia-smi")
    assert smi["error"] is None and smi["xml_error"] is None
    assert smi["driver_version"] == "535.54.03" and smi["gpus"][0]["mig"]["current"] is True
    assert "NVIDIA-SMI 555.42.02" in smi["raw"] and "<nvidia_smi_log>" in smi["raw_xml"]
    # NVML is unusable on this machine (no driver), so health came from nvidia-smi.
    assert report["facts"]["nvml"]["error_kind"] == "library-not-found"
    assert _ids(report)["gpu.mig-enabled"] == "warn"
    assert report["environment"]["driver_version"] == "535.54.03"


def test_cli_banner_only(bindir):
    _fake_smi(bindir, f"cat '{SMI / 'banner-565.57.01-h100-sxm-x8.txt'}'")
    report, _ = _smi_facts(bindir)
    smi = report["facts"]["nvidia_smi"]
    assert (smi["driver_version"], smi["cuda_version"], len(smi["gpus"])) == ("565.57.01", "12.7", 8)
    assert "not nvidia-smi's usual output" in smi["xml_error"]
    assert report["environment"]["gpu_count"] == 8


def test_cli_nvidia_smi_hangs(bindir):
    """A hung nvidia-smi costs at most the short per-command limit, and never more than what is left
    of --timeout, which bounds the whole run."""
    from tfdoctor.commands import STATIC_TIMEOUT

    _fake_smi(bindir, "sleep 30")
    start = time.monotonic()
    report, _ = _smi_facts(bindir, "--timeout", "2")
    assert time.monotonic() - start < STATIC_TIMEOUT  # it was 10 s and more when only the worker had it
    smi = report["facts"]["nvidia_smi"]
    assert smi["error_kind"] == "timeout"
    assert "did not answer within" in smi["error"]
    report, _ = _smi_facts(bindir, "--timeout", "60")
    assert f"did not answer within {STATIC_TIMEOUT:.0f} s" in report["facts"]["nvidia_smi"]["error"]


def test_cli_no_driver(bindir):
    _fake_smi(bindir, f"cat '{SMI / 'fail-no-driver.txt'}'", exit_code=9)
    report, _ = _smi_facts(bindir)
    smi = report["facts"]["nvidia_smi"]
    assert smi["returncode"] == 9 and smi["error_kind"] == "driver-not-loaded"
    assert "couldn't communicate with the NVIDIA driver" in smi["error"]


def test_cli_library_mismatch(bindir):
    _fake_smi(bindir, f"cat '{SMI / 'fail-driver-library-mismatch.txt'}'", exit_code=18)
    report, res = _smi_facts(bindir)
    assert report["facts"]["nvidia_smi"]["error_kind"] == "lib-mismatch"
    mismatch = [f for f in report["findings"] if f["id"] == "driver.library-mismatch"]
    assert mismatch and mismatch[0]["status"] == "fail" and "rmmod" in mismatch[0]["fix"]
    assert res.returncode == 1


def test_cli_nonzero_exit_unknown_text(bindir):
    _fake_smi(bindir, "echo 'Unable to do the thing'", exit_code=3)
    smi = _smi_facts(bindir)[0]["facts"]["nvidia_smi"]
    assert smi["error_kind"] == "failed" and "exited with status 3" in smi["error"]
    assert "Unable to do the thing" in smi["error"]


def test_cli_garbage(bindir):
    _fake_smi(bindir, "echo 'lorem ipsum dolor'; echo '| 0 1 2 |'")
    smi = _smi_facts(bindir)[0]["facts"]["nvidia_smi"]
    assert smi["error_kind"] == "unreadable" and "not nvidia-smi's usual output" in smi["error"]
    assert smi["gpus"] == []


def test_cli_invalid_utf8(bindir):
    _fake_smi(bindir, r"printf '\377\376NVIDIA\200\201 SMI\n'")
    smi = _smi_facts(bindir)[0]["facts"]["nvidia_smi"]
    assert smi["error_kind"] == "unreadable" and "not valid UTF-8" in smi["error"]


def test_banner_err_sensors_mark_a_gpu_that_no_longer_answers():
    # a g5.48xlarge's banner (github.com/NVIDIA/dcgm-exporter issue, holdout9 Q054): GPU 0 reads ERR!
    text = next((DATA / "explain" / "holdout9").glob("Q054-*.txt")).read_text(encoding="utf-8")
    gpus = parse_banner(text[text.index("+---"):], partial=True)["gpus"]
    assert gpus[0]["error_kind"] == "gpu-lost" and "error_kind" not in gpus[1]


def test_parse_xml_cut_short_reads_what_came_before_the_cut():
    text = (DATA / "nvidia-smi" / "q-x-h200-580.xml").read_text(encoding="utf-8")
    cut = text[: text.index("</product_name>") + 200]
    with pytest.raises(SmiParseError):
        parse_query_xml(cut)  # the probe's own run: a cut document is an error
    read = parse_query_xml(cut, partial=True)  # a paste: as far as it goes
    assert read["driver_version"] and read["gpus"][0]["name"] == "NVIDIA H200"
    with pytest.raises(SmiParseError):
        parse_query_xml("<nvidia_smi_log><driver_version>1</driver<x>", partial=True)  # malformed, not cut
