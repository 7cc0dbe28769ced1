"""The catalogue page stays generated, and `tfdoctor checks` lists the contract ids."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT, run_cli

# "Finding ids `explain` and `check` share (contract)" in DESIGN.md
CONTRACT_IDS = (
    "driver.missing",
    "driver.library-mismatch",
    "driver.too-old",
    "cuda.libraries-missing",
    "cudnn.missing",
    "cudnn.version-mismatch",
    "tensorflow.cpu-only-build",
    "platform.windows-native",
    "cuda.init-failed",
    "gpu.compute-capability-unsupported",
    "xla.toolchain-missing",
    "gpu.out-of-memory",
    "nccl.error",
    "tensorflow.missing",
    "tensorflow.python-unsupported",
)


def _module_output() -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "tfdoctor.checks"],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_docs_checks_md_is_the_generated_catalogue():
    page = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
    assert page == _module_output(), (
        "docs/checks.md is stale: run `python -m tfdoctor.checks > docs/checks.md`"
    )


def test_generated_page_is_one_table_with_unique_sorted_ids():
    text = _module_output()
    assert text.count("# Finding ids") == 1
    ids = re.findall(r"^\| `([^`]+)` \| (.+) \|$", text, flags=re.M)
    names = [i for i, _ in ids]
    assert names == sorted(set(names)) and len(names) >= len(CONTRACT_IDS)
    assert all(meaning.strip() for _, meaning in ids)


def test_tfdoctor_checks_lists_every_declared_contract_id():
    result = run_cli("checks")
    assert result.returncode == 0, result.stderr
    listed = {line.split()[0] for line in result.stdout.splitlines() if line.strip()}
    for fid in CONTRACT_IDS:
        assert fid in listed, fid
    assert all(re.fullmatch(r"[a-z0-9]+(\.[a-z0-9-]+)+", fid) for fid in listed), listed
