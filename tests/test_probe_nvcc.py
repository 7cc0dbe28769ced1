"""The nvcc probe: recorded real outputs, the real nvcc on this machine, and faulty fakes on PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from conftest import fake_replaying, write_fake

from tfdoctor.probes import Context, nvcc

tomllib = pytest.importorskip("tomllib")  # Python 3.11+
DATA = Path(__file__).parent / "data" / "nvcc"
CASES = tomllib.loads((DATA / "cases.toml").read_text())["case"]
REAL_NVCC = shutil.which("nvcc")


def only(bindir: Path, **extra: str) -> dict[str, str]:
    """An environment whose PATH holds bindir and the few tools the fakes use, and no other nvcc."""
    tools = bindir.parent / "tools"
    tools.mkdir(exist_ok=True)
    for tool in ("cat", "sleep"):
        if not (tools / tool).exists():
            (tools / tool).symlink_to(shutil.which(tool))
    return {"PATH": f"{bindir}{os.pathsep}{tools}", **extra}


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_recorded_outputs_parse(case):
    assert case["source"]
    parsed = nvcc.parse_nvcc_version((DATA / case["file"]).read_text())
    assert parsed == {"version": case["release"], "build": case["build"]}


@pytest.mark.parametrize(
    "text",
    ["", "hello world\n", "nvcc fatal   : Unknown option '--version'\n", "Cuda compilation tools, release\n"],
)
def test_garbage_parses_to_nothing(text):
    assert nvcc.parse_nvcc_version(text) == {"version": None, "build": None}


@pytest.mark.skipif(REAL_NVCC is None, reason="no nvcc on PATH")
def test_real_nvcc_on_this_machine():
    out = subprocess.run([REAL_NVCC, "--version"], capture_output=True, text=True, timeout=60).stdout
    line = next(x for x in out.splitlines() if x.startswith("Cuda compilation tools"))
    release, build = (part.strip() for part in line.split("release", 1)[1].split(","))
    facts = nvcc.probe(Context(python="python3", env={"PATH": os.path.dirname(REAL_NVCC)}, timeout=60))
    assert facts["found"] is True and facts["error"] is None
    assert facts["version"] == release
    first = facts["installs"][0]
    assert first == {"path": REAL_NVCC, "source": "PATH", "version": release, "build": build, "error": None}
    assert line in facts["raw"]


@pytest.mark.parametrize("case", CASES[:3], ids=[c["file"] for c in CASES[:3]])
def test_fake_replaying_recorded_output(bindir, tmp_path, case):
    fake_replaying(bindir, "nvcc", DATA / case["file"])
    facts = nvcc.probe_nvcc(only(bindir), timeout=10, local=tmp_path / "none")
    assert facts["version"] == case["release"]
    assert facts["installs"] == [
        {
            "path": str(bindir / "nvcc"),
            "source": "PATH",
            "version": case["release"],
            "build": case["build"],
            "error": None,
        }
    ]


def test_search_order_sources_and_dedupe(tmp_path):
    path_bin, home = tmp_path / "pathbin", tmp_path / "cudahome"
    local = tmp_path / "local"
    fake_replaying(path_bin, "nvcc", DATA / "cuda-12.6.txt")
    fake_replaying(home / "bin", "nvcc", DATA / "cuda-11.7.txt")
    fake_replaying(local / "cuda-13.0" / "bin", "nvcc", DATA / "cuda-13.0-local.txt")
    fake_replaying(local / "cuda-10.2" / "bin", "nvcc", DATA / "cuda-10.2.txt")
    (local / "cuda").symlink_to(local / "cuda-13.0")  # the usual /usr/local/cuda link: same real file
    facts = nvcc.probe_nvcc(only(path_bin, CUDA_HOME=str(home)), timeout=10, local=local)
    got = [(i["source"], i["version"]) for i in facts["installs"]]
    assert got == [
        ("PATH", "12.6"),
        ("CUDA_HOME", "11.7"),
        (str(local / "cuda"), "13.0"),
        (str(local / "cuda-10.2"), "10.2"),
    ]
    assert facts["version"] == "12.6"


def test_no_nvcc_anywhere(bindir, tmp_path):
    facts = nvcc.probe_nvcc(only(bindir), timeout=5, local=tmp_path / "none")
    assert facts == {"found": False, "version": None, "installs": [], "raw": None, "error": None}


def test_hanging_nvcc_is_killed_at_the_timeout(bindir, tmp_path):
    write_fake(bindir, "nvcc", "sleep 60")
    start = time.monotonic()
    facts = nvcc.probe_nvcc(only(bindir), timeout=1, local=tmp_path / "none")
    assert time.monotonic() - start < 5
    install = facts["installs"][0]
    assert install["version"] is None
    assert "did not answer within" in install["error"] and "killed" in install["error"]
    assert facts["found"] is True and facts["version"] is None and "killed" in facts["error"]


def test_many_hanging_installs_stay_within_the_budget(tmp_path):
    local = tmp_path / "local"
    for v in ("11.8", "12.1", "12.4", "12.6"):
        write_fake(local / f"cuda-{v}" / "bin", "nvcc", "sleep 60")
    start = time.monotonic()
    facts = nvcc.probe_nvcc(only(tmp_path / "empty"), timeout=1, local=local)
    assert time.monotonic() - start < 2 * 1 + 2
    assert len(facts["installs"]) == 4
    assert any("time budget" in (i["error"] or "") for i in facts["installs"])


def test_nonzero_exit(bindir, tmp_path):
    write_fake(bindir, "nvcc", "echo 'nvcc: error while loading shared libraries: libnvvm.so' >&2\nexit 127")
    facts = nvcc.probe_nvcc(only(bindir), timeout=5, local=tmp_path / "none")
    error = facts["installs"][0]["error"]
    assert "exited with status 127" in error and "libnvvm.so" in error


def test_nonzero_exit_with_version_output_still_reports_the_failure(bindir, tmp_path):
    fake_replaying(bindir, "nvcc", DATA / "cuda-11.0.txt", exit_code=3)
    install = nvcc.probe_nvcc(only(bindir), timeout=5, local=tmp_path / "none")["installs"][0]
    assert install["version"] == "11.0" and "exited with status 3" in install["error"]


def test_garbage_output(bindir, tmp_path):
    write_fake(bindir, "nvcc", "echo 'Segmentation fault (core dumped)... or something'")
    facts = nvcc.probe_nvcc(only(bindir), timeout=5, local=tmp_path / "none")
    assert facts["version"] is None
    assert "printed no CUDA release line" in facts["installs"][0]["error"]


def test_invalid_utf8_output(bindir, tmp_path):
    write_fake(bindir, "nvcc", f"printf '\\377\\376\\200 junk\\n'\ncat '{DATA / 'cuda-10.1.txt'}'")
    facts = nvcc.probe_nvcc(only(bindir), timeout=5, local=tmp_path / "none")
    assert facts["version"] == "10.1" and facts["installs"][0]["error"] is None
    assert "\ufffd" in facts["raw"]


def test_only_invalid_utf8_output(bindir, tmp_path):
    write_fake(bindir, "nvcc", "printf '\\377\\376\\375'")
    facts = nvcc.probe_nvcc(only(bindir), timeout=5, local=tmp_path / "none")
    assert facts["version"] is None and "printed no CUDA release line" in facts["error"]


def test_not_executable_nvcc_is_ignored(bindir, tmp_path):
    (bindir / "nvcc").write_text("not a program")
    facts = nvcc.probe_nvcc(only(bindir), timeout=5, local=tmp_path / "none")
    assert facts["found"] is False
