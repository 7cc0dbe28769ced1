"""The gate's verdict over every kind of selection: `--only`/`--skip` (ids, prefixes, names) x
`--require-gpus 0..2` x `--allow-cpu` x `--strict`, on this GPU-less machine (real probes, in-process
`tfdoctor.check(quick=True)`) and on recorded GPU machines (a quick report taken with the fake NVML
replaying a recorded scenario, judged again in-process with `from_report`). A few CLI runs confirm
that the command line gives the same exit codes.

Exit 0 is allowed only where the verdict is honestly a pass:
- a stated GPU requirement above the machine's GPU count never passes;
- the selection judged something (a pass or a warning of a selected check), or --allow-cpu says a
  machine without a GPU is expected;
- no check the selection ran fails when the same options judge the whole machine.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

import pytest
from conftest import ROOT, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tfdoctor
from tfdoctor import catalogue
from tfdoctor.checks import load_all

CHECKS = load_all()
PREFIXES = sorted({catalogue.prefix(i) for c in CHECKS for i in c.ids})
NAMES = sorted(c.name for c in CHECKS)
IDS = sorted({i for c in CHECKS for i in c.ids})
PATTERNS = PREFIXES + NAMES + IDS
FAKE_NVML = ROOT / "tests" / "fakes" / "nvml"
NVML = ROOT / "tests" / "data" / "nvml"
MACHINES = ("h100-healthy.json", "a100-mig.json")  # recorded NVML scenarios


def _covers(pattern: str, check) -> bool:
    """The documented meaning of a pattern: a check's name, one of its ids, or an id prefix."""
    return pattern == check.name or any(i == pattern or i.startswith(pattern + ".") for i in check.ids)


def _selected_ids(only: tuple[str, ...], skip: tuple[str, ...]) -> set[str]:
    chosen = [c for c in CHECKS if not only or any(_covers(p, c) for p in only)]
    return {i for c in chosen if not any(_covers(p, c) for p in skip) for i in c.ids}


def _exit(report: tfdoctor.Report, strict: bool) -> int:
    worst = str(report.status)
    return 1 if worst == "fail" or (strict and worst == "warn") else 0


def _why_not_a_pass(report, full, gpus: int, only, skip, need, allow_cpu) -> str | None:
    """Why exit 0 would be dishonest here, or None when a pass is honest."""
    if need is not None and need > gpus:
        return f"--require-gpus {need} passed on a machine with {gpus} GPU(s)"
    ids = _selected_ids(only, skip)
    judged = [f for f in report.findings if f.id in ids and str(f.status) in ("pass", "warn")]
    if not judged and not (allow_cpu and gpus == 0 and not need):
        return "passed with nothing judged: every selected check skipped"
    hidden = {f.id for f in full.findings if str(f.status) == "fail"} & ids
    hidden -= {f.id for f in report.findings if str(f.status) == "fail"}
    if hidden:
        return f"selected checks fail on the whole machine but not here: {sorted(hidden)}"
    return None


def _assert_honest(judge, gpus: int, only, skip, need, allow_cpu) -> None:
    report = judge(only=only, skip=skip, require_gpus=need, allow_cpu=allow_cpu)
    full = judge(require_gpus=need, allow_cpu=allow_cpu)
    why = _why_not_a_pass(report, full, gpus, only, skip, need, allow_cpu)
    for strict in (False, True):
        if why is not None:
            assert _exit(report, strict) == 1, (
                f"only={only} skip={skip} require_gpus={need} allow_cpu={allow_cpu} strict={strict}: {why}; "
                f"findings {[(f.id, str(f.status)) for f in report.findings]}"
            )


# --- this machine: no NVIDIA GPU ----------------------------------------------------------------


def _here(**kwargs):
    return tfdoctor.check(quick=True, **kwargs)


def _gpus_here() -> int:
    """This machine's GPU count, read from the kernel, not from tfdoctor."""
    return sum(1 for n in os.listdir("/dev") if n.startswith("nvidia") and n[6:].isdigit())


@pytest.mark.parametrize("flag", ["only", "skip"])
@pytest.mark.parametrize("need", [None, 0, 1, 2])
@pytest.mark.parametrize("allow_cpu", [False, True])
def test_every_prefix_here(flag: str, need: int | None, allow_cpu: bool) -> None:
    assert _gpus_here() == 0, "these expectations are for a machine without an NVIDIA GPU"
    for prefix in PREFIXES:
        only, skip = ((prefix,), ()) if flag == "only" else ((), (prefix,))
        _assert_honest(_here, 0, only, skip, need, allow_cpu)


_selection = st.lists(st.sampled_from(PATTERNS), max_size=3).map(tuple)
_need = st.sampled_from([None, 0, 1, 2])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(only=_selection, skip=_selection, need=_need, allow_cpu=st.booleans())
def test_any_selection_here(only, skip, need, allow_cpu) -> None:
    _assert_honest(_here, 0, only, skip, need, allow_cpu)


def test_the_audit_reproductions_here() -> None:
    assert not tfdoctor.check(quick=True, require_gpus=2, only=["platform"]).ok
    assert not tfdoctor.check(quick=True, require_gpus=1, skip=["driver", "gpu"]).ok
    only_gpu = tfdoctor.check(quick=True, only="gpu")
    assert not only_gpu.ok and "tfdoctor.nothing-verified" in [f.id for f in only_gpu.root_causes]
    # --allow-cpu: a machine without a GPU is expected, so GPU checks that cannot look warn ...
    assert str(tfdoctor.check(quick=True, only="gpu", allow_cpu=True).status) == "warn"
    # ... unless GPUs are required all the same
    assert not tfdoctor.check(quick=True, only="gpu", allow_cpu=True, require_gpus=1).ok
    # a requirement of none is met, and a selection that judged something passes
    assert tfdoctor.check(quick=True, only="gpu.count-ok", require_gpus=0).ok
    assert tfdoctor.check(quick=True, only="platform").ok


# --- recorded GPU machines ------------------------------------------------------------------------


@cache
def _recorded(scenario: str, folder: str) -> tuple[str, int]:
    """A quick report of this machine with the NVML of a recorded GPU machine, and its GPU count."""
    env = dict(os.environ, PYTHONPATH=f"{FAKE_NVML}{os.pathsep}{ROOT}",
               TFDOCTOR_FAKE_NVML=str(NVML / scenario))
    result = run_cli("report", "--quick", "--json", env=env)
    assert result.returncode == 0, result.stderr
    path = Path(folder) / scenario
    path.write_text(result.stdout)
    gpus = json.loads((NVML / scenario).read_text())["gpus"]
    return str(path), len(gpus)


@pytest.fixture(scope="module")
def machines(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, int]]:
    folder = str(tmp_path_factory.mktemp("recorded"))
    return {name: _recorded(name, folder) for name in MACHINES}


@pytest.mark.parametrize("scenario", sorted(MACHINES))
def test_every_pattern_on_recorded_gpu_machines(machines, scenario: str) -> None:
    path, gpus = machines[scenario]
    assert gpus > 0

    @cache  # the whole machine's verdict, judged once per set of options
    def judge(**kwargs):
        return tfdoctor.check(from_report=path, **kwargs)

    for need in (None, 0, 1, 2, gpus + 1):
        for allow_cpu in (False, True):
            for pattern in PREFIXES + NAMES:
                _assert_honest(judge, gpus, (pattern,), (), need, allow_cpu)
                _assert_honest(judge, gpus, (), (pattern,), need, allow_cpu)


# --- the command line agrees ------------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    "--only tensorflow --require-gpus 4 --strict",
    "--quick --skip driver,gpu --require-gpus 1",
    "--quick --only tensorflow --require-gpus 1",
    "--quick --only gpu",
    "--quick --only gpu --allow-cpu --strict",
    "--quick --only gpu --allow-cpu",
    "--quick --only platform --skip gpu.count-ok --require-gpus 0",
])
def test_cli_exit_codes_match_the_api(args: str) -> None:
    argv = args.split()
    result = run_cli("check", "--json", *argv)
    only = tuple(p for i, a in enumerate(argv) if a == "--only" for p in argv[i + 1].split(","))
    skip = tuple(p for i, a in enumerate(argv) if a == "--skip" for p in argv[i + 1].split(","))
    need = int(argv[argv.index("--require-gpus") + 1]) if "--require-gpus" in argv else None
    api = tfdoctor.check(quick=True, only=only, skip=skip, require_gpus=need, allow_cpu="--allow-cpu" in argv)
    assert result.returncode == _exit(api, "--strict" in argv), result.stdout[-3000:]
    if "--quick" in argv:
        # the verdict's findings agree (what else a run in this test process saw may differ: it has run
        # other tests before)
        cli_failed = {f["id"] for f in result.json()["findings"] if f["status"] == "fail"}
        assert cli_failed == {f.id for f in api.findings if str(f.status) == "fail"}
