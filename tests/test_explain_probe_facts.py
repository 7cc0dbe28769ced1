"""One parser per output: for every recorded tool output under tests/data/, the facts `explain` reads
from the text include everything the probe reads from it (the probe's own pure parser, mapped to the
fact keys as the probe maps them). Pasted forms (quoted, indented, log-prefixed, table borders lost,
cut short) are read the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import DATA

from tfdoctor import logs
from tfdoctor.probes import nvcc, nvidia_smi, system
from tfdoctor.probes import tensorflow as tf_probe
from tfdoctor.worker.worker import created_devices

SMI = DATA / "nvidia-smi"

# Recorded files that are not a tool output explain can read the way a probe does, and why.
NOT_READ = {
    "nvidia-smi/q-h100-sxm-x8-565.txt": "`nvidia-smi -q` as text: no probe parses it (the probe runs -q -x)",
    "nvidia-smi/query-470-compute-cap-invalid.txt": "a refused query: the probe reads no value from it",
    "nvidia-smi/query-invalid-field-exit2.txt": "a refused query: the probe reads no value from it",
    "system/lsmod-nvidia-ollama-17069.txt": "an `lsmod | grep nvidia` excerpt: absent rows say nothing",
    "system/dev-nvidia-ollama-17069.txt": "bare names taken from `ls -l /dev/nvidia*`, not its output",
    "system/syslog-rminitadapter-rtx5090.txt": "a kernel log excerpt: no probe reads the kernel log",
}


def _probe_view(path: Path) -> dict[str, Any]:
    """What the probe's parser reads from one recorded output, under the probe's fact keys."""
    text = path.read_text(encoding="utf-8", errors="replace")
    rel = f"{path.parent.name}/{path.name}"
    if path.parent == SMI:
        if path.name.startswith("banner-"):
            parsed = nvidia_smi.parse_banner(text)
            return {"nvidia_smi": {k: parsed[k] for k in ("driver_version", "cuda_version", "gpus")}}
        if path.name.startswith("q-x-"):
            parsed = nvidia_smi.parse_query_xml(text)
            return {"nvidia_smi": {k: parsed[k] for k in ("driver_version", "cuda_version", "gpus")}}
        if path.name.startswith("fail-"):
            return {"nvidia_smi": {"error_kind": nvidia_smi.failure_kind(text)}}
        if path.name.startswith("query-"):
            fields = [f.strip().split(" [", 1)[0] for f in text.splitlines()[0].split(",")]
            rows = nvidia_smi.parse_query_gpu(text, fields)["gpus"]
            return {"nvidia_smi": {"gpus": [{**r, "index": r.get("index", i)} for i, r in enumerate(rows)]}}
    if path.parent.name == "nvcc":
        parsed = nvcc.parse_nvcc_version(text)
        return {"nvcc": {"version": parsed["version"], "installs": [parsed]}}
    if path.name.startswith("driver-version-"):
        return {"system": {"proc_driver_version": system.parse_driver_version(text),
                           "proc_driver_open": "Open Kernel Module" in text}}
    if path.name.startswith("os-release-"):
        osr = system.parse_os_release(text)
        return {"system": {"os": osr.get("PRETTY_NAME") or osr.get("NAME"), "os_id": osr.get("ID"),
                           "os_id_like": osr.get("ID_LIKE"), "os_version_id": osr.get("VERSION_ID")}}
    if path.name.startswith("cpuinfo-"):
        return {"system": {"cpu_flags": system.parse_cpu_flags(text)}}
    if path.name.startswith("proc-version-"):
        wsl = system.wsl_version(text)
        return {"system": {"wsl_version": wsl, "platform": "wsl2" if wsl == 2 else "linux"}}
    if path.name == "distributions.txt":  # pip freeze
        pairs = [line.split("==", 1) for line in text.splitlines() if "==" in line]
        dists, dups = tf_probe.select_distributions(pairs)
        return {"tensorflow": {"distributions": dists, "duplicates": dups,
                               "version": tf_probe.tensorflow_version(dists)}}
    if path.name == "build_info.py.txt":
        return {"tensorflow": {"build_info": tf_probe.parse_build_info(text)}}
    if path.parent.name == "worker":
        keys = ("name", "memory_mib", "pci_bus_id", "compute_capability")
        return {"runtime": {"gpus": [{"index": d["device"], **{k: d[k] for k in keys}}
                                     for d in created_devices(text.splitlines()).values()]}}
    raise AssertionError(f"{rel}: a recorded output this test does not know; add it here or to NOT_READ")


def _outputs() -> list[Path]:
    found = sorted([*SMI.iterdir(), *(DATA / "nvcc").glob("*.txt"), *(DATA / "system").glob("*.txt"),
                    *(DATA / "tf-releases").glob("*/distributions.txt"),
                    *(DATA / "tf-releases").glob("*/build_info.py.txt"), *(DATA / "worker").glob("*.txt")])
    return [p for p in found if p.suffix != ".md" and f"{p.parent.name}/{p.name}" not in NOT_READ
            and not (p.parent.name == "worker" and not created_devices(p.read_text().splitlines()))]


def _missing(want: Any, got: Any, where: str) -> list[str]:
    """Where `got` lacks what `want` holds (dicts by key, lists item by item; None and empty want nothing)."""
    if want is None or want == {} or want == []:
        return []
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{where}: want {want!r}, got {got!r}"]
        return [m for k, v in want.items() for m in _missing(v, got.get(k), f"{where}.{k}")]
    if isinstance(want, list) and want and isinstance(want[0], dict) and "index" in want[0]:
        by_index = {g.get("index"): g for g in got or [] if isinstance(g, dict)}
        return [m for w in want for m in _missing(w, by_index.get(w["index"]), f"{where}[{w['index']}]")]
    if isinstance(want, list) and want and isinstance(want[0], dict):
        got = got if isinstance(got, list) else []
        return [m for i, w in enumerate(want)
                for m in _missing(w, got[i] if i < len(got) else None, f"{where}[{i}]")]
    return [] if want == got else [f"{where}: want {want!r}, got {got!r}"]


def _explain(text: str) -> dict[str, Any]:
    return {k: v for k, v in logs.read_text(text).items() if k != "log"}


@pytest.mark.parametrize("path", _outputs(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_explain_reads_everything_the_probe_reads(path):
    want = _probe_view(path)
    assert any(v not in (None, {}, []) for sec in want.values() for v in sec.values()), "the probe read none"
    text = path.read_text(encoding="utf-8", errors="replace")
    assert _missing(want, _explain(text), "facts") == []


# How pastes mangle a tool output: quoted as markdown, indented, under log prefixes, in CRLF.
MANGLES = {
    "markdown quote": lambda t: "".join("> " + ln for ln in t.splitlines(True)),
    "indented": lambda t: "".join("    " + ln for ln in t.splitlines(True)),
    "log prefix": lambda t: "".join(f"[2024-05-01 12:00:{i % 60:02d}] " + ln
                                    for i, ln in enumerate(t.splitlines(True))),
    "crlf inside a log": lambda t: "Training started\r\n" + t.replace("\n", "\r\n") + "\r\nEpoch 1/10\r\n",
}


@pytest.mark.parametrize("mangle", MANGLES, ids=list(MANGLES))
@pytest.mark.parametrize("name", ["banner-610.43.02-b200-x2.txt", "banner-525.105.17-v100.txt",
                                  "banner-331.62-gtx-680.txt", "q-x-tesla-t4-515.xml"])
def test_mangled_pastes_read_the_same(name, mangle):
    text = (SMI / name).read_text()
    want = _probe_view(SMI / name)
    assert _missing(want, _explain(MANGLES[mangle](text)), "facts") == []


def test_rows_without_their_left_border_and_a_table_without_its_header():
    rows = [ln for ln in (SMI / "banner-610.43.02-b200-x2.txt").read_text().splitlines()[8:]]
    lost = "\n".join(ln[1:].strip() if ln.startswith("|   ") else ln for ln in rows)  # "0  NVIDIA B200 ..."
    got = _explain("| GPU  Name   Persistence-M | Bus-Id   Disp.A | Volatile Uncorr. ECC |\n" + lost)
    gpus = got["nvidia_smi"]["gpus"]
    assert [(g["index"], g["name"], g["pci_bus_id"], g["memory_total_mib"]) for g in gpus] == [
        (0, "NVIDIA B200", "00000000:63:00.0", 183359), (1, "NVIDIA B200", "00000000:68:00.0", 183359)]
    assert "driver_version" not in got["nvidia_smi"]  # no header, no versions: nothing invented


def test_a_banner_cut_after_its_header_gives_the_versions():
    head = "\n".join((SMI / "banner-610.43.02-b200-x2.txt").read_text().splitlines()[:3])
    got = _explain(head)["nvidia_smi"]
    assert (got["driver_version"], got["cuda_version"]) == ("610.43.02", "13.3")


def test_two_tensorflows_in_one_pip_list_are_duplicates_but_two_lists_are_not():
    one = "Package    Version\n---------- -------\ntensorflow 2.15.0\nnumpy 1.26.4\ntensorflow 2.16.1\n"
    assert _explain(one)["tensorflow"]["duplicates"] == {"tensorflow": ["2.15.0", "2.16.1"]}
    two = one.replace("tensorflow 2.16.1\n", "") + "\n$ pip list\nPackage    Version\n---------- -------\n" \
        "tensorflow 2.15.0\n"
    assert "duplicates" not in _explain(two)["tensorflow"]


def test_build_info_as_tf_sysconfig_prints_it():
    text = ("OrderedDict([('cpu_compiler', '/dt9/usr/bin/gcc'), ('cuda_compute_capabilities', ['sm_35', "
            "'sm_50', 'sm_60', 'sm_70', 'sm_75', 'compute_80']), ('cuda_version', '11.2'), "
            "('cudnn_version', '8'), "
            "('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)])")
    assert _explain(text)["tensorflow"]["build_info"] == tf_probe.parse_build_info("build_info = " + text)


def test_hostile_xml_in_a_paste_is_refused_quietly():
    bomb = ('<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n'
            "<nvidia_smi_log><driver_version>&b;</driver_version>\n" + "<gpu>\n" * 5000)
    got = _explain(bomb)  # the DOCTYPE is not part of the block: the entity is undefined, the block unread
    assert "driver_version" not in got.get("nvidia_smi", {})


def test_an_unterminated_xml_block_ends_at_its_cap():
    text = "<nvidia_smi_log>\n" + "".join(f"<gpu id=\"{i}\"><x>{'y' * 200}</x></gpu>\n" for i in range(12000))
    text += "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n"
    got = logs.read_text(text)["nvidia_smi"]  # the banner after it is read as a banner, not as XML
    assert (got["driver_version"], got["cuda_version"]) == ("535.104.05", "12.2")
