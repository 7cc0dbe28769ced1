"""The Python API in a real Jupyter kernel: notebooks executed headless with nbclient.

tests/data/notebook/check.ipynb is what a user would write: `tfdoctor.check(quick=True)` as the
last line of a cell. The kernel is ipykernel in this test environment (the native `python3`
kernel runs this interpreter), started in a child process, talking ZMQ over loopback.
"""

from __future__ import annotations

import ast
import html
import json
import os
import re
from pathlib import Path

import pytest
from conftest import DATA, ROOT, run_cli

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = DATA / "notebook" / "check.ipynb"


def execute(nb, timeout: int = 240, first_on_path: tuple[str, ...] = ()):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (*first_on_path, str(ROOT), env.get("PYTHONPATH")) if p)
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute(env=env)
    return nb


def outputs(cell, mime: str) -> list[str]:
    return [o["data"][mime] for o in cell.get("outputs", []) if o.get("output_type") in
            ("execute_result", "display_data") and mime in o.get("data", {})]


def visible_text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment))


@pytest.fixture(scope="module")
def executed():
    return execute(nbformat.read(NOTEBOOK, as_version=4))


@pytest.fixture(scope="module")
def cli_report() -> dict:
    result = run_cli("check", "--quick", "--json")
    assert result.returncode in (0, 1), result.stderr
    return result.json()


def test_the_report_displays_itself_root_cause_first(executed, cli_report: dict) -> None:
    cell = executed.cells[1]
    assert not [o for o in cell.outputs if o.get("output_type") == "error"], cell.outputs
    (fragment,) = outputs(cell, "text/html")
    assert fragment.startswith('<div class="tfdoctor-report"') and "<script" not in fragment
    text = visible_text(fragment)
    roots = cli_report["summary"]["root_causes"]
    assert roots, "this machine has no GPU driver: there is a root cause to show"
    first = next(f for f in cli_report["findings"] if f["id"] == roots[0])
    # the verdict names the root cause, then the root cause comes before every other finding
    assert "Root cause" in text
    assert text.index("Root cause") < text.index(first["title"], text.index("Root cause"))
    root_block = fragment.index(f'data-id="{first["id"]}"')
    table = fragment.index("<details>")
    assert root_block < table
    assert html.escape(first["fix"].splitlines()[0], quote=True)[:60] in fragment
    for f in cli_report["findings"]:  # every finding is listed in the folded table
        assert f"<code>{html.escape(f['id'])}</code>" in fragment[table:]
    (plain,) = outputs(cell, "text/plain")
    assert plain.startswith("<tfdoctor Report quick") and roots[0] in plain


def test_the_api_answers_as_the_cli(executed, cli_report: dict) -> None:
    (plain,) = outputs(executed.cells[2], "text/plain")
    ok, roots = ast.literal_eval(plain)  # the repr of (bool, [str, ...])
    assert ok is (cli_report["summary"]["status"] != "fail")
    assert roots == cli_report["summary"]["root_causes"]


def test_a_kernel_that_imported_tensorflow_is_named_in_the_facts() -> None:
    """The kernel's own PID (and its parent's) go into facts.options, so the GPU-memory check can say
    that this notebook kernel is the process holding the GPU."""
    pytest.importorskip("tensorflow")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import os, json\nimport tensorflow as tf\nimport tfdoctor"),
        nbformat.v4.new_code_cell(
            "r = tfdoctor.check(quick=True)\n"
            "print(json.dumps({'options': r.facts['options'], 'pid': os.getpid(), 'ppid': os.getppid()}))"
        ),
    ]
    execute(nb, timeout=300)
    stream = "".join(o.get("text", "") for o in nb.cells[1].outputs if o.get("output_type") == "stream")
    seen = json.loads(stream.strip().splitlines()[-1])
    options = seen["options"]
    assert options["caller_pids"] == [seen["pid"], seen["ppid"]]
    assert options["caller"] == {"interface": "notebook", "pid": seen["pid"], "ppid": seen["ppid"],
                                 "tensorflow_imported": True}


def test_a_kernel_holding_the_gpu_is_named_as_the_holder(tmp_path) -> None:
    """NVML replayed at the edge (tests/data/nvml/h100-memory-held.json) with the kernel's own PID as
    the process holding 73 GiB: the report names this notebook's kernel, and its fix is to restart
    the kernel, not to kill a stranger."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import json, os\n"
            f"scenario = json.load(open({str(DATA / 'nvml' / 'h100-memory-held.json')!r}))\n"
            "scenario['gpus'][0]['compute_processes'][0]['pid'] = os.getpid()\n"
            "scenario['process_names'] = {str(os.getpid()): 'python3'}\n"
            f"path = {str(tmp_path / 'held-by-kernel.json')!r}\n"
            "json.dump(scenario, open(path, 'w'))\n"
            "os.environ['TFDOCTOR_FAKE_NVML'] = path\n"
            "import tfdoctor"
        ),
        nbformat.v4.new_code_cell(
            "r = tfdoctor.check(quick=True)\n"
            "f = next(f for f in r.findings if f.id == 'gpu.memory-held-by-other-processes')\n"
            "print(json.dumps({'pid': os.getpid(), 'title': f.title, 'detail': f.detail, 'fix': f.fix}))"
        ),
    ]
    execute(nb, timeout=300, first_on_path=(str(ROOT / "tests" / "fakes" / "nvml"),))
    errors = [o for c in nb.cells for o in c.outputs if o.get("output_type") == "error"]
    assert not errors, errors
    stream = "".join(o.get("text", "") for o in nb.cells[1].outputs if o.get("output_type") == "stream")
    seen = json.loads(stream.strip().splitlines()[-1])
    assert "this notebook's kernel holds most of its memory" in seen["title"]
    assert f"python3 (pid {seen['pid']}, 72946 MiB: this notebook's kernel" in seen["detail"]
    assert "Restart the kernel" in seen["fix"] and "kill PID" not in seen["fix"]


def test_the_notebook_in_the_repository_has_no_stored_outputs() -> None:
    nb = json.loads(Path(NOTEBOOK).read_text())
    assert all(not c.get("outputs") for c in nb["cells"] if c["cell_type"] == "code")
