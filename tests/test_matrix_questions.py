"""`tfdoctor matrix` answering the questions users keep asking: `--driver V --python V` (which
TensorFlow can I run with this driver on this Python) and `--gpu NAME` (what this GPU can run).

Expectations are derived from the bundled compat data (and, for --driver/--python, from the driver
check itself, so that `matrix` and `check` agree), not written by hand, except for a few facts that
do not change: an RTX 5090 (12.0) gets only PTX from today's wheels, an H100 (9.0) gets SASS.
"""

from __future__ import annotations

import json
import types

import pytest
from conftest import run_cli

from tfdoctor.checks import run_checks
from tfdoctor.commands import matrix as cmd
from tfdoctor.compat import Matrix, kernel_fit, load_matrix
from tfdoctor.model import Status

M = load_matrix()


def _py(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in v.split(".")[:2])


def _driver_check(driver: str, rel) -> Status:
    """What `check`'s driver-versus-CUDA check says about TensorFlow `rel` on this driver."""
    facts = {
        "system": {"platform": "linux"},
        "nvml": {"available": True, "driver_version": driver, "gpus": []},
        "tensorflow": {"installed": True, "version": f"{rel.version}.0",
                       "build_info": {"is_cuda_build": True, "cuda_version": rel.cuda}},
    }
    findings = run_checks(facts, M, ("driver.too-old",), ())
    return max(f.status for f in findings)


@pytest.mark.parametrize(("driver", "python"), [("470.82", "3.11"), ("470.82", "3.9"), ("535.104.05", "3.12"),
                                                ("525.60.13", "3.10"), ("450.80.02", "3.8")])
def test_driver_and_python_agree_with_check(driver: str, python: str) -> None:
    result = run_cli("matrix", "--driver", driver, "--python", python, "--json")
    assert result.returncode == 0, result.stderr
    answer = result.json()
    rows = {r["tensorflow"]: r for r in answer["releases"]}
    for rel in M.tensorflow:
        wheels = _py(rel.python_min) <= _py(python) <= _py(rel.python_max)
        verdict = _driver_check(driver, rel)
        if not wheels or verdict == Status.FAIL:
            assert rel.version not in rows, (rel.version, verdict)
            continue
        assert rel.version in rows
        assert (rows[rel.version]["caveat"] is not None) is (verdict == Status.WARN)
        assert rows[rel.version]["python"] == {"min": rel.python_min, "max": rel.python_max}
        assert rows[rel.version]["source"] == rel.source
    if rows:
        clean = [v for v, r in rows.items() if r["caveat"] is None]
        assert answer["newest"] == (clean or list(rows))[-1]
        assert answer["sources"] and all(s.startswith("https://") for s in answer["sources"])
    assert answer["compat_data"] == M.version


def test_driver_470_on_python_311_is_minor_version_compat_only() -> None:
    result = run_cli("matrix", "--driver", "470.82", "--python", "3.11")
    assert result.returncode == 0, result.stderr
    answer = cmd.driver_python_answer(M, "470.82", "3.11")
    assert answer["releases"] and all(r["caveat"] for r in answer["releases"])
    newest = answer["newest"]
    assert f"Install: TensorFlow {newest}:" in result.stdout
    assert "minor-version compatibility" in result.stdout and "Caveat:" in result.stdout
    assert "Sources: https://" in result.stdout


def test_no_fit_says_what_to_change() -> None:
    answer = cmd.driver_python_answer(M, "450.80.02", "3.12")
    assert answer["releases"] == [] and answer["newest"] is None
    first = next(r for r in M.tensorflow if _py(r.python_min) <= (3, 12) <= _py(r.python_max))
    assert f"Python 3.12 wheels start with TensorFlow {first.version}" in answer["why_none"]
    assert f"upgrade the driver to >= {M.min_driver(first.cuda)}" in answer["why_none"]
    text = run_cli("matrix", "--driver", "450.80.02", "--python", "3.12").stdout
    assert "none: Python 3.12 wheels start with" in text
    assert "no TensorFlow release" in cmd.driver_python_answer(M, None, "2.7")["why_none"]


def test_python_alone_lists_the_releases_with_wheels() -> None:
    answer = run_cli("matrix", "--python", "3.13.1", "--json").json()
    expected = [r.version for r in M.tensorflow
                if r.linux_gpu and _py(r.python_min) <= (3, 13) <= _py(r.python_max)]
    assert [r["tensorflow"] for r in answer["releases"]] == expected
    assert answer["newest"] == expected[-1] and answer["driver"] is None


def test_windows_platform_uses_its_driver_column_and_gpu_releases() -> None:
    args = ("--driver", "456.71", "--python", "3.8", "--platform", "windows", "--json")
    answer = run_cli("matrix", *args).json()
    assert answer["releases"]
    for r in answer["releases"]:
        rel = M.tf_release(r["tensorflow"])
        assert rel.windows_gpu and r["min_driver"] == M.min_driver(rel.cuda, "windows")
        assert "installed separately" in r["install"]  # no and-cuda extra on Windows


# --- --gpu ------------------------------------------------------------------------------------------


def _newest_with_kernels(cc: str) -> tuple[str, str] | None:
    fits = [(r.version, kernel_fit(r.compute_capabilities, cc)) for r in M.tensorflow if r.linux_gpu]
    fits = [f for f in fits if f[1]]
    return fits[-1] if fits else None


@pytest.mark.parametrize("name", ["Tesla K80", "NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 5090", "Tesla T4",
                                  "NVIDIA A100-SXM4-80GB"])
def test_gpu_answers_from_the_compat_data(name: str) -> None:
    result = run_cli("matrix", "--gpu", name, "--json")
    assert result.returncode == 0, result.stderr
    answer = result.json()
    model = M.gpu(name)
    assert answer["gpu"] == {"name": model.name, "compute_capability": model.compute_capability,
                             "architecture": model.architecture, "notes": model.notes or None,
                             "source": model.source}
    version, fit = _newest_with_kernels(model.compute_capability)
    newest = answer["newest_with_kernels"]
    assert (newest["tensorflow"], newest["fit"]) == (version, fit)
    assert newest["kernels"] == list(M.tf_release(version).compute_capabilities)
    text = run_cli("matrix", "--gpu", name).stdout
    assert f"Compute cap.     {model.compute_capability}" in text
    assert f"TensorFlow {version} ({'SASS' if fit == 'sass' else 'PTX only'}" in text
    assert model.source in text


def test_sass_and_ptx() -> None:
    assert cmd.gpu_answer(M, "NVIDIA H100 80GB HBM3")["newest_with_kernels"]["fit"] == "sass"
    blackwell = cmd.gpu_answer(M, "NVIDIA GeForce RTX 5090")["newest_with_kernels"]
    assert blackwell["fit"] == "ptx"
    assert "PTX only, JIT-compiled" in run_cli("matrix", "--gpu", "NVIDIA GeForce RTX 5090").stdout


def _kepler(last_cuda: str | None = "11.8", branch: str | None = "R470"):
    row = types.SimpleNamespace(name="Kepler", compute_capabilities=("3.5", "3.7"), last_driver_branch=branch,
                                last_cuda=last_cuda, notes="", source="https://docs.nvidia.com/datacenter/x.html")
    return lambda self, cc: row if cc in row.compute_capabilities else None


def test_last_driver_branch_limits_what_runs(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """With the architecture row (Matrix.architecture), the newest TensorFlow a Kepler K80 runs is bounded
    by its last driver branch and its last CUDA, not only by kernels."""
    monkeypatch.setattr(Matrix, "architecture", _kepler(last_cuda="11.2"), raising=False)
    answer = cmd.gpu_answer(M, "Tesla K80")
    assert answer["architecture"]["last_driver_branch"] == "R470" and not answer["architecture"]["supported"]
    newest, runnable = answer["newest_with_kernels"], answer["newest_runnable"]
    expected = [r.version for r in M.tensorflow if r.linux_gpu and kernel_fit(r.compute_capabilities, "3.7")
                and _py(r.cuda) <= (11, 2)]
    assert runnable["tensorflow"] == expected[-1]
    if newest["tensorflow"] != runnable["tensorflow"]:
        assert any("CUDA" in b for b in newest["blocked"])
    assert cmd.matrix_command(None, None, None, False, gpu="Tesla K80") == 0
    out = capsys.readouterr().out
    assert "Last driver      R470" in out and f"Runnable         TensorFlow {runnable['tensorflow']}" in out


def test_a_newer_driver_branch_is_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Matrix, "architecture", _kepler(last_cuda=None, branch="R390"), raising=False)
    answer = cmd.gpu_answer(M, "Tesla K80")  # no CUDA 11 release runs on an R390 driver
    assert answer["newest_with_kernels"] is not None and answer["newest_runnable"] is None
    assert all(r["blocked"] and "beyond R390" in r["blocked"][0] for r in answer["releases"])
    assert cmd.matrix_command(None, None, None, False, gpu="Tesla K80") == 0


def test_gtx_680_with_the_architecture_table() -> None:
    """Kepler GK104: compute capability 3.0, last driver R470; no TensorFlow 2.x wheel has kernels for it."""
    if M.gpu("GeForce GTX 680") is None or not hasattr(M, "architecture"):
        pytest.skip("needs the larger GPU table and Matrix.architecture (compat/architectures.toml)")
    answer = run_cli("matrix", "--gpu", "GeForce GTX 680", "--json").json()
    assert answer["gpu"]["compute_capability"] == "3.0"
    arch = answer["architecture"]
    assert arch["name"] == "Kepler" and arch["last_driver_branch"] == "R470"
    assert answer["newest_with_kernels"] is None and answer["newest_runnable"] is None


@pytest.mark.parametrize("as_json", [False, True])
def test_unknown_gpu_is_one_line_and_exit_2(as_json: bool) -> None:
    args = ("matrix", "--gpu", "Voodoo5 6000") + (("--json",) if as_json else ())
    result = run_cli(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("tfdoctor: unknown GPU 'Voodoo5 6000'")
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--gpu", ""), "--gpu"),
        (("--gpu", "GTX\x1b[2J680"), "--gpu"),
        (("--gpu", "T4", "--driver", "535"), "give one of"),
        (("--python", "3.11", "--tensorflow", "2.15"), "--python goes alone or with --driver"),
        (("--python", "three"), "--python"),
        (("--driver", "470.82", "--python", "3.x"), "--python"),
    ],
)
def test_bad_questions_exit_2(args: tuple[str, ...], needle: str) -> None:
    result = run_cli("matrix", *args)
    assert result.returncode == 2 and needle in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_driver_alone_keeps_its_list_shape() -> None:
    answer = json.loads(run_cli("matrix", "--driver", "470.82", "--json").stdout)
    assert isinstance(answer, list) and answer[0]["tensorflow"] == M.tensorflow[0].version
