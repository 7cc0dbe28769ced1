"""What a person reads: the terminal screen (root cause first, commands never broken, nothing
wider than the screen), Markdown for a bug tracker, untrusted text kept inert, and progress while
the check runs.

The screens under test are real: this machine's report from the real pipeline (the real worker
included), recorded GPU states (the fake NVML replaying tests/data/nvml, a fake nvidia-smi
replaying tests/data/nvidia-smi), facts of other distributions built from recorded os-release
files, and every pasted log of the explain corpus.
"""

from __future__ import annotations

import io
import json
import os
import re
import socket
import sys
import time
from pathlib import Path

import pytest
from conftest import DATA, ROOT, run_cli, run_in_pty, write_fake

from tfdoctor import plan as P
from tfdoctor.model import Finding, Status
from tfdoctor.render import fixtext, sanitize
from tfdoctor.render.terminal import COMMAND, Screen, render

WIDTHS = (80, 120)
FAKE_NVML = ROOT / "tests" / "fakes" / "nvml"
SMI = DATA / "nvidia-smi"
NASTY = (
    "\x1b]0;pwned\x07",  # window title
    "\x1b[2J\x1b[H",  # clear screen, cursor home
    "\x1b[31;1m",  # colour
    "\x9b2J",  # 8-bit CSI
    "\x1bP1$r\x1b\\",  # DCS
    "\u202e",  # right-to-left override
    "\r",  # carriage return
    "\x07\x08\x7f",  # bell, backspace, DEL
)
BAD = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


# --- reports to look at ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def this_machine() -> tuple[dict, list[dict]]:
    """This machine's report from the real pipeline (the worker runs TensorFlow), and its events."""
    from tfdoctor import pipeline
    from tfdoctor.compat import load_matrix
    from tfdoctor.probes import Context

    events: list[dict] = []
    opts = pipeline.Options(context=Context(python=sys.executable), progress=events.append)
    report = pipeline.run(opts, load_matrix())
    return json.loads(json.dumps(report.to_dict(), default=str)), events


def _quick(env_extra: dict | None = None, path_prepend: Path | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.update(env_extra or {})
    res = run_cli("check", "--quick", "--json", env=env, path_prepend=path_prepend)
    assert res.returncode in (0, 1) and "Traceback" not in res.stderr, res.stderr
    return res.json()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory, this_machine) -> dict[str, dict]:
    """Reports of recorded GPU states, and of this machine's facts on other distributions."""
    reports: dict[str, dict] = {}
    for scenario in (
        "h100-healthy",
        "h100-ecc-uncorrected",
        "a100-mig",
        "h100-gpu-lost",
        "nvml-lib-mismatch",
        "h100-pcie-x4",
        "h100-memory-held",
    ):
        reports[f"nvml:{scenario}"] = _quick(
            {
                "PYTHONPATH": f"{FAKE_NVML}{os.pathsep}{ROOT}",
                "TFDOCTOR_FAKE_NVML": str(DATA / "nvml" / f"{scenario}.json"),
            }
        )
    smi = {
        "a100-mig": (
            f"cat '{SMI / 'banner-555.42.02-a100-sxm4-x4.txt'}'",
            f"cat '{SMI / 'q-x-a100-sxm4-80gb-535-mig.xml'}'",
            0,
        ),
        "h100-x8-banner": (f"cat '{SMI / 'banner-565.57.01-h100-sxm-x8.txt'}'", "", 0),
        "no-driver": (f"cat '{SMI / 'fail-no-driver.txt'}'", "", 9),
        "library-mismatch": (f"cat '{SMI / 'fail-driver-library-mismatch.txt'}'", "", 18),
    }
    for name, (banner, xml, code) in smi.items():
        bindir = tmp_path_factory.mktemp(f"smi-{name}")
        write_fake(
            bindir, "nvidia-smi", f'if [ "$1" = "-q" ]; then {xml or banner}; else {banner}; fi\nexit {code}'
        )
        reports[f"nvidia-smi:{name}"] = _quick(path_prepend=bindir)
    # This machine's facts on other distributions (recorded os-release files), judged again.
    from tfdoctor.compat import load_matrix
    from tfdoctor.probes.system import parse_os_release
    from tfdoctor.report import build_report

    live, _ = this_machine
    for name in ("os-release-almalinux-9.2.txt", "os-release-debian-12-local.txt"):
        release = parse_os_release((DATA / "system" / name).read_text())
        facts = json.loads(json.dumps(live["facts"]))
        facts["system"].update(
            os=release.get("PRETTY_NAME"),
            os_id=release.get("ID"),
            os_id_like=release.get("ID_LIKE"),
            os_version_id=release.get("VERSION_ID"),
            container=None,
        )
        facts.pop("log", None)
        built = build_report("full", facts, load_matrix(), timings=live["timings"])
        reports[f"system:{name}"] = json.loads(json.dumps(built.to_dict(), default=str))
    return reports


def _explain_corpus() -> list[Path]:
    return sorted((DATA / "explain").rglob("*.txt"))


# --- reading a screen back ------------------------------------------------------------------------


def _roots(report: dict) -> list[dict]:
    ids = {f["id"] for f in report["findings"]}
    return [
        f for f in report["findings"] if f["status"] in ("fail", "warn") and f.get("caused_by") not in ids
    ]


def _commands_on_screen(lines: list[list[tuple[str, str]]]) -> list[str]:
    """The commands as a person would paste them: command lines joined at their backslashes."""
    out: list[str] = []
    pending: list[str] = []
    for line in lines:
        chunks = [t for t, style in line if style == COMMAND]
        if not chunks:
            continue
        text = "".join(chunks).strip()
        if text.endswith(" \\"):
            pending.append(text[:-2].strip())
            continue
        out.append(" ".join([*pending, text]))
        pending = []
    assert not pending, "a command ends with a continuation backslash"
    return out


def _shown_fixes(report: dict, verbose: bool) -> list[dict]:
    """The findings whose fix the screen shows: root causes; with -v also a finding that follows
    from one when its fix differs."""
    from tfdoctor.render.terminal import _root_of

    shown = _roots(report)
    if verbose:
        by_id = {f["id"]: f for f in report["findings"]}
        for f in report["findings"]:
            root = _root_of(f, by_id)
            if root is not None and f.get("fix") and f["fix"] != root.get("fix"):
                shown.append(f)
    return shown


def _words(command: str) -> list[str]:
    return [command[a:b] for a, b in fixtext.shell_words(command)]


def check_screen(report: dict, width: int, verbose: bool = False) -> str:
    """Render report at width; assert the screen's promises; return the text."""
    from rich.cells import cell_len
    from rich.console import Console

    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    render(report, verbose=verbose, out=console)
    text = console.export_text()
    lines = text.splitlines()
    built = Screen(report, width, verbose).build()
    assert len(lines) == len(built), "rich folded a line the screen had laid out"
    # Nothing wider than the width, but a single word that cannot be broken (a long URL or path), or a whole
    # command of a Windows plan (cmd and PowerShell have no backslash to continue a line).
    windows = [c for f in report.get("findings", []) if isinstance(f, dict)
               for c in fixtext.parts(f).commands if fixtext.parts(f).windows]
    for line in lines:
        if cell_len(line) > width:
            tail = _words(line.strip().removesuffix(" \\"))
            assert len(tail) == 1 or ("://" in line and line.lstrip().startswith("docs:")) or any(
                line.rstrip().endswith(c) for c in windows), (width, line)
    # Every command of every root cause's fix is on the screen whole: the words as written,
    # broken (if at all) only between words with a trailing backslash.
    pasted = [_words(c) for c in _commands_on_screen(built)]
    for f in _shown_fixes(report, verbose):
        for command in fixtext.parts(f).commands:
            assert _words(command) in pasted, (width, f["id"], command, pasted)
    for words in pasted:
        for word in words:
            assert any(word in line for line in lines), (width, word)
    # Plain words: no doubled full stops, no control characters.
    assert not re.search(r"[^\s./…]\.\.(?:\s|$)", text), text
    assert not BAD.search(text)
    return text


# --- the screen -----------------------------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_this_machine_at_80_and_120_columns(this_machine, width: int) -> None:
    report, _ = this_machine
    text = check_screen(report, width)
    check_screen(report, width, verbose=True)
    lines = text.splitlines()
    ids = {f["id"] for f in report["findings"]}
    # Every finding another explains names a finding of this report, and is folded under it.
    for f in report["findings"]:
        if f.get("caused_by"):
            assert f["caused_by"] in ids, f
            folded = [n for n, line in enumerate(lines) if line.lstrip().startswith("↳ ")]
            assert folded, text
    roots = _roots(report)
    assert report["summary"]["fail"] == sum(f["status"] == "fail" for f in roots)
    assert report["summary"]["root_causes"][:1] == [roots[0]["id"]] if roots else True
    env = report["environment"]
    if not env.get("gpu_count") and not Path("/dev/nvidia0").exists():
        # No GPU here: one root failure, the driver; TensorFlow's view of it follows from it.
        assert [f["id"] for f in roots if f["status"] == "fail"] == ["driver.missing"], roots
        assert report["summary"]["fail"] == 1
        assert re.search(r"✗ 1 failure · \d+ warnings?", text)
        assert "runs on the CPU only" in text
    if roots:
        _verdict_names_fix(text, roots[0])
    # The nvcc line in plain words.
    if (
        env.get("nvcc_version")
        and env.get("tf_cuda_version")
        and env["nvcc_version"].split(".")[:2] != env["tf_cuda_version"].split(".")[:2]
    ):
        assert f"system toolkit: CUDA {env['nvcc_version']} (nvcc)" in " ".join(text.split())
        assert f"pip TensorFlow uses its own CUDA {env['tf_cuda_version']} libraries, not this" in " ".join(
            text.split()
        )


def _verdict_names_fix(text: str, root: dict) -> None:
    """The last lines say what to do first: the first root cause's first command, or its words."""
    lines = text.splitlines()
    start = max(n for n, line in enumerate(lines) if line[:2] in ("✗ ", "! ", "✓ "))
    tail = " ".join(" ".join(lines[start:]).split())
    parts = fixtext.parts(root)
    want = parts.commands[0] if parts.commands else " ".join(parts.prose.split()[:4])
    assert "Do first" in tail and " ".join(want.split()[:3]) in tail.replace(" \\ ", " "), (tail, want)


def test_recorded_gpu_states_at_80_and_120_columns(recorded: dict[str, dict]) -> None:
    for name, report in recorded.items():
        for width in WIDTHS:
            text = check_screen(report, width)
            check_screen(report, width, verbose=True)
            roots = _roots(report)
            if roots:
                _verdict_names_fix(text, roots[0])
            else:
                assert "All good." in text, (name, text)
    # The states say what they should.
    healthy = recorded["nvml:h100-healthy"]
    assert healthy["environment"]["gpu_count"] == 2
    screen = check_screen(healthy, 80)
    assert "2 × NVIDIA H100 80GB HBM3" in screen
    assert "✗" in check_screen(recorded["nvml:h100-gpu-lost"], 80)
    rhel = recorded["system:os-release-almalinux-9.2.txt"]
    fixes = [f for f in _shown_fixes(rhel, verbose=True) if "dnf" in (f.get("fix") or "")]
    assert fixes, "no RHEL driver fix"  # its repository URL is longer than 80 columns: whole, alone
    assert "cuda-rhel9.repo" in check_screen(rhel, 80, verbose=True)


def test_explain_corpus_screens() -> None:
    from tfdoctor.report import explain_report

    files = _explain_corpus()
    assert len(files) >= 50
    for path in files:
        report = json.loads(
            json.dumps(explain_report(path.read_text(errors="replace")).to_dict(), default=str)
        )
        for width in WIDTHS:
            check_screen(report, width)
        check_screen(report, 80, verbose=True)


def test_folded_consequence_opens_with_verbose(this_machine) -> None:
    report, _ = this_machine
    explained = [f for f in report["findings"] if f.get("caused_by")]
    if not explained:
        pytest.skip("nothing on this machine follows from another finding")
    short = check_screen(report, 120)
    full = check_screen(report, 120, verbose=True)
    for f in explained:
        assert f"[{f['id']}]" in full and f"[{f['id']}]" not in short
    assert "because of the above" in short


def test_plurals_and_verdicts() -> None:
    from tfdoctor.render.terminal import plural, verdict

    assert (
        plural(1, "GPU") == "1 GPU" and plural(2, "GPU") == "2 GPUs" and plural(0, "failure") == "0 failures"
    )
    assert plural(1, "follows", "follow") == "1 follows" and plural(3, "follows", "follow") == "3 follow"
    env = {"tensorflow_version": "2.21.0"}
    assert verdict({"environment": {**env, "tf_visible_gpus": 1}}) == "TensorFlow sees 1 GPU"
    assert verdict({"environment": {**env, "tf_visible_gpus": 4}}) == "TensorFlow sees 4 GPUs"
    from tfdoctor.fleet import _nodes

    assert _nodes(1) == "1 node" and _nodes(3) == "3 nodes"


def test_docs_fall_back_to_the_catalogue() -> None:
    from tfdoctor.catalogue import docs
    from tfdoctor.render.markdown import finding_block

    finding = {
        "id": "driver.missing",
        "status": "fail",
        "title": "No driver",
        "detail": "",
        "fix": "sudo reboot",
        "docs": None,
        "caused_by": None,
        "evidence": [],
    }
    assert docs("driver.missing")
    assert f"<{docs('driver.missing')}>" in finding_block(finding)
    report = {"environment": {}, "findings": [finding], "mode": "full"}
    assert docs("driver.missing") in check_screen(report, 200, verbose=True)


# --- a fix's plan as the views lay it out ------------------------------------------------------------


@pytest.mark.parametrize(
    "actions, commands, prose",
    [
        (
            [P.system("sudo ubuntu-drivers install && sudo reboot", "needs a reboot window")],
            ["sudo ubuntu-drivers install && sudo reboot"],
            "needs a reboot window",
        ),
        (
            [P.system("sudo nvidia-ctk runtime configure --runtime=docker",
                      "the host needs the NVIDIA Container Toolkit"),
             P.note("; then start the container with `docker run --gpus all ...`.")],
            ["sudo nvidia-ctk runtime configure --runtime=docker"],
            "the host needs the NVIDIA Container Toolkit; then start the container with"
            " `docker run --gpus all ...`.",
        ),
        (
            [P.pip("install", "nvidia-cudnn-cu12==9.*"),
             P.note(" (conda env active: run pip from inside it)")],
            ["/venv/bin/python -m pip install 'nvidia-cudnn-cu12==9.*'"],
            "(conda env active: run pip from inside it)",
        ),
        (
            [P.env("NCCL_DEBUG", "INFO", "to see the error"), P.system("nvidia-smi topo -m", "peer access"),
             P.note("; in containers pass `--ipc=host`")],
            ["export NCCL_DEBUG=INFO", "nvidia-smi topo -m"],
            "to see the error; peer access; in containers pass `--ipc=host`",
        ),
        (
            [P.note("Install the NVIDIA driver with your distribution's package manager, then reboot")],
            [],
            "Install the NVIDIA driver with your distribution's package manager, then reboot",
        ),
        (
            [P.hook("export A=1", "export B=2"), P.pip("uninstall", "-y", "x"),
             P.pip("uninstall", "-y", "x")],
            ["export A=1 && export B=2", "/venv/bin/python -m pip uninstall -y x"],  # each command once
            "",
        ),
        ([], [], ""),
    ],
)
def test_fix_parts_come_from_the_plan(actions, commands, prose) -> None:
    plan = P.make("/venv/bin/python", *actions)
    f = Finding("cudnn.missing", Status.FAIL, "t", plan=plan).to_dict()
    parts = fixtext.parts(json.loads(json.dumps(f)))
    assert list(parts.commands) == commands
    assert parts.prose == prose == plan.prose()
    assert f["fix"] == plan.text()


@pytest.mark.parametrize("fix", [
    "sudo ubuntu-drivers install && sudo reboot  # needs a reboot window",
    "Upgrade the driver to 535 or newer: sudo ubuntu-drivers install nvidia:535 && sudo reboot.",
    "line one\nline two",
])
def test_a_fix_without_a_plan_is_shown_as_written(fix) -> None:
    """A report saved before plans existed: its text, as prose; no command is guessed out of it."""
    parts = fixtext.parts({"id": "driver.missing", "status": "fail", "fix": f"  {fix} "})
    assert parts.commands == () and parts.prose == fix
    assert fixtext.parts({"id": "driver.missing", "fix": None}) == fixtext.Parts((), "")
    assert fixtext.parts({"id": "driver.missing", "fix": 3, "plan": "junk"}) == fixtext.Parts((), "")


def test_command_lines_break_between_words_only() -> None:
    command = (
        "sudo dnf config-manager --add-repo https://developer.download.nvidia.com/compute/cuda/repos/"
        "rhel9/x86_64/cuda-rhel9.repo && sudo dnf install -y nvidia-open && sudo reboot"
    )
    for width in (30, 40, 60, 80, 200):
        lines = fixtext.command_lines(command, width)
        joined = " ".join(line.strip().removesuffix("\\").strip() for line in lines)
        assert joined.split() == command.split()
        assert all(line.endswith(" \\") for line in lines[:-1]) and not lines[-1].endswith("\\")
        for line in lines:
            assert len(line) <= width or len(line.strip().removesuffix(" \\").split()) == 1
    quoted = "printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee /etc/modprobe.d/x.conf"
    for line in fixtext.command_lines(quoted, 30):
        assert line.count("'") in (0, 2)  # never broken inside quotes (a backslash there is literal)


def test_a_windows_command_is_never_continued_with_a_backslash() -> None:
    """cmd and PowerShell read a trailing backslash as part of the command: a Windows plan's long command
    stays on one line, on screen as in the plan."""
    from tfdoctor.plan import make, system

    command = ("New-ItemProperty -Path HKLM:\\SYSTEM\\CurrentControlSet\\Control\\FileSystem -Name"
               " LongPathsEnabled -Value 1 -PropertyType DWORD -Force")
    assert fixtext.command_lines(command, 40, windows=True) == [command]
    finding = {"id": "tensorflow.missing", "plan": make("py", system(command), windows=True).to_dict()}
    assert fixtext.parts(finding).windows and fixtext.parts(finding).commands == (command,)
    assert len(fixtext.command_lines(command, 40)) > 1  # (a POSIX shell's: continued)


def test_fix_layout_is_linear() -> None:
    for text in ("a: " * 22_000, "`x` " * 16_000, "sudo " + "x " * 32_000, ": sudo '" * 8_000, "(" * 65_536):
        start = time.perf_counter()
        fixtext.parts({"fix": text})
        fixtext.backtick_spans(text)
        fixtext.command_lines(text, 80)
        assert time.perf_counter() - start < 1.0, text[:20]


# --- untrusted text stays text ---------------------------------------------------------------------


@pytest.mark.parametrize("nasty", NASTY)
def test_sanitize_strips_controls_and_keeps_words(nasty: str) -> None:
    value = f"Debian{nasty} GNU/Linux\n\tindented"
    clean = sanitize.text(value)
    assert not BAD.search(clean) and "\x1b" not in clean
    assert clean.startswith("Debian") and "GNU/Linux\n\tindented" in clean
    assert sanitize.text(clean) == clean
    assert sanitize.clean({"k" + nasty: [value, (value, 1)], "n": 3}) == {"k": [clean, (clean, 1)], "n": 3}


def test_sanitize_is_linear() -> None:
    for text in (
        "\x1b[" + "0" * 65_536,
        "\x1b]" * 32_768,
        "\x9b" * 65_536,
        "\x1b" * 65_536,
        "\x1bP" + "a" * 65_536,
        "\u202e\x1b[1" * 13_000,
    ):
        start = time.perf_counter()
        assert not BAD.search(sanitize.text(text))
        assert time.perf_counter() - start < 0.1


def _poisoned(report: dict, node: int = 0) -> dict:
    report = json.loads(json.dumps(report))
    evil = "\x1b]0;pwned\x07\x1b[2J\u202e\x9b31m"
    system = report["facts"]["system"]
    system["os"] = f"Debian{evil} 12"
    system["kernel"] = f"6.1{evil}"
    system["hostname"] = f"node{node}{evil}"
    report["environment"].update(
        os=f"Debian{evil} 12",
        kernel=f"6.1{evil}",
        hostname=f"node{node}{evil}",
        gpus=[{"index": 0, "name": f"H100{evil}", "compute_capability": "9.0"}],
    )
    for f in report["findings"]:
        f["title"] = f["title"] + evil
    return report


@pytest.mark.parametrize("fmt", [(), ("--no-color",), ("--markdown",), ("--json",), ("-v", "--no-color")])
def test_check_from_a_poisoned_report_prints_no_control_sequence(this_machine, tmp_path: Path, fmt) -> None:
    report, _ = this_machine
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(_poisoned(report)))
    res = run_cli("check", "--from", str(path), *fmt)
    assert res.returncode in (0, 1), res.stderr
    assert not BAD.search(res.stdout.replace("\r\n", "\n")), repr(res.stdout[:2000])
    if "--json" in fmt:
        data = res.json()
        assert "\x1b" in data["facts"]["system"]["os"]  # the data is kept, as \u escapes
    else:
        assert "Debian" in res.stdout


def test_fleet_of_poisoned_reports_prints_no_control_sequence(this_machine, tmp_path: Path) -> None:
    report, _ = this_machine
    for n in range(2):
        (tmp_path / f"node{n}.json").write_text(json.dumps(_poisoned(report, n)))  # two hosts
    for args in ((), ("--no-color",), ("--json",)):
        res = run_cli("fleet", str(tmp_path), *args)
        assert res.returncode in (0, 1), res.stderr
        assert not BAD.search(res.stdout), repr(res.stdout[:2000])
        assert "2 nodes" in res.stdout or "--json" in args


def test_json_output_escapes_what_a_terminal_would_obey() -> None:
    from tfdoctor.render.json import dumps

    value = {"os": "x\x1b[2J\x9b31m\u202e\u2028y", "n": 1}
    text = dumps(value)
    assert not BAD.search(text) and "\u2028" not in text
    assert json.loads(text) == value


# --- Markdown -----------------------------------------------------------------------------------------


INJECT = "</details><img src=x onerror=alert(1)>"


def test_markdown_escapes_every_value(this_machine) -> None:
    from tfdoctor.render.markdown import render as markdown

    report, _ = this_machine
    report = json.loads(json.dumps(report))
    report["timings"]["probes_total"] = INJECT
    report["timings"][INJECT] = 1.0
    report["environment"].update(os=INJECT, gpus=[{"index": 0, "name": INJECT, "compute_capability": "9.0"}])
    report["findings"].append(
        {
            "id": f"gpu.x{INJECT}",
            "status": "fail",
            "title": f"lost {INJECT}",
            "detail": f"```\n{INJECT}\n# head",
            "fix": f"Do this: `{INJECT}` then {INJECT} and `` ` ``",
            "docs": f"https://x.org/ {INJECT}",
            "caused_by": None,
            "evidence": [f"line 1: {INJECT}"],
            "facts": [],
            "confidence": "certain",
        }
    )
    report["findings"].append(
        {
            "id": "runtime.x",
            "status": "warn",
            "title": INJECT,
            "detail": INJECT,
            "fix": INJECT,
            "docs": None,
            "caused_by": f"gpu.x{INJECT}",
            "evidence": [],
            "facts": [],
            "confidence": "certain",
        }
    )
    md = markdown(report)
    assert not BAD.search(md)
    # As GitHub would read it (CommonMark with raw HTML on): no tag but tfdoctor's own.
    html = _html(md)
    assert "<img" not in html
    assert html.count("<details>") == html.count("</details>") == md.count("<details>")
    assert "&lt;/details&gt;&lt;img src=x onerror=alert(1)&gt;" in html  # shown, as text


def _html(md: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table").render(md)


def test_markdown_puts_the_root_cause_and_fix_on_top(this_machine) -> None:
    from tfdoctor.render.markdown import render as markdown

    report, _ = this_machine
    md = markdown(report)
    lines = md.splitlines()
    assert lines[0].startswith("### tfdoctor: ")
    assert not any(re.fullmatch(r"\|(\s*\|)+", line) for line in lines), "an empty header row"
    table = md.index("| Component | Found |")
    roots = [f for f in _roots(report) if f["status"] == "fail"]
    if roots:
        first = roots[0]
        assert md.index(f"(`{first['id']}`)") < table
        commands = fixtext.parts(first).commands
        if commands:
            assert md.index(f"```sh\n{commands[0]}") < table
        for f in report["findings"]:
            if f.get("caused_by") == first["id"]:
                assert md.index(f"(`{f['id']}`)") < table  # follows from it, next to it
    assert md.index("<details>") > table


def test_check_markdown_honours_anonymize() -> None:
    host = socket.gethostname()
    res = run_cli("check", "--quick", "--markdown", "--anonymize")
    assert res.returncode in (0, 1), res.stderr
    assert f'"hostname": "{host}"' not in res.stdout
    assert '"hostname": "<hostname>"' in res.stdout
    plain = run_cli("check", "--quick", "--markdown")
    assert f'"hostname": "{host}"' in plain.stdout


# --- progress ------------------------------------------------------------------------------------------


def test_pipeline_emits_probe_and_step_events(this_machine) -> None:
    from tfdoctor.probes import NAMES

    _, events = this_machine
    probes = {(e["name"], e["status"]) for e in events if e["event"] == "probe"}
    for name in (*NAMES, "runtime"):
        assert (name, "start") in probes and (name, "done") in probes, name
    done = [e for e in events if e["event"] == "probe" and e["status"] == "done"]
    assert all(isinstance(e["seconds"], float) for e in done)
    steps = [(e["name"], e["status"]) for e in events if e["event"] == "step"]
    assert steps[:2] == [("import", "running"), ("import", "pass")], steps
    assert all({"name", "device", "status", "seconds"} <= set(e) for e in events if e["event"] == "step")


def test_step_events_from_worker_lines() -> None:
    from tfdoctor.probes.runtime import step_events

    got: list[dict] = []
    listen = step_events(got.append)
    listen(
        'TFDOCTOR-STEP {"name": "devices", "device": null, "status": "pass", "seconds": 0.1, '
        '"gpus": [{"tf_device": "/device:GPU:0", "name": "RTX 5090", "compute_capability": "12.0"}]}'
    )
    listen("TFDOCTOR-STEP {not json")
    listen("I0000 some TensorFlow line")
    assert got == [
        {
            "event": "step",
            "name": "devices",
            "device": None,
            "status": "pass",
            "seconds": 0.1,
            "gpus": [{"tf_device": "/device:GPU:0", "name": "RTX 5090", "compute_capability": "12.0"}],
        }
    ]


def test_proc_on_line_sees_lines_as_they_come() -> None:
    from tfdoctor import proc

    seen: list[tuple[float, str]] = []
    script = "import sys, time; print('a', flush=True); time.sleep(0.6); print('b'); sys.stdout.write('tail')"
    res = proc.run([sys.executable, "-c", script], 10, on_line=lambda s: seen.append((time.monotonic(), s)))
    end = time.monotonic()
    assert [s for _, s in seen] == ["a", "b", "tail"]  # the last line, unterminated, when the child ends
    assert end - seen[0][0] > 0.4  # "a" arrived while the child still ran
    plain = proc.run([sys.executable, "-c", script], 10)
    assert (
        (res.stdout, res.stderr, res.returncode)
        == (plain.stdout, plain.stderr, plain.returncode)
        == ("a\nb\ntail", "", 0)
    )
    cut = proc.run(
        [sys.executable, "-c", "import time; print('x', flush=True); time.sleep(30)"],
        1,
        on_line=lambda s: None,
    )
    assert cut.timed_out and cut.stdout == "x\n" and cut.seconds < 10


def _progress(events: list[dict], clock: list[float]):
    from rich.console import Console

    from tfdoctor.render.progress import Progress

    view = Progress(Console(width=100, file=io.StringIO(), color_system=None), clock=lambda: clock[0])
    for event in events:
        view(event)
    return view


def _shown(view) -> str:
    from rich.console import Console

    console = Console(width=100, record=True, file=io.StringIO(), color_system=None)
    console.print(view)
    return console.export_text()


def test_progress_shows_steps_and_the_first_run_jit() -> None:
    clock = [0.0]
    caps = ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"]
    view = _progress(
        [
            {"event": "probe", "name": "runtime", "status": "start"},
            {
                "event": "probe",
                "name": "system",
                "status": "done",
                "seconds": 0.1,
                "facts": {"os": "Debian\x1b[2J 12", "python_version": "3.11.7"},
            },
            {
                "event": "probe",
                "name": "tensorflow",
                "status": "done",
                "seconds": 0.6,
                "facts": {
                    "installed": True,
                    "version": "2.21.0",
                    "build_info": {"cuda_version": "12.5.1", "cuda_compute_capabilities": caps},
                },
            },
            {"event": "step", "name": "import", "device": None, "status": "running", "seconds": None},
        ],
        clock,
    )
    clock[0] = 1.9
    assert "importing TensorFlow… 1.9 s" in _shown(view)
    gpus = [
        {"tf_device": "/device:GPU:0", "name": "RTX 5090", "compute_capability": "12.0"},
        {"tf_device": "/device:GPU:1", "name": "A100", "compute_capability": "8.0"},
    ]
    for event in (
        {"event": "step", "name": "import", "device": None, "status": "pass", "seconds": 1.9},
        {"event": "step", "name": "devices", "device": None, "status": "pass", "seconds": 0.0, "gpus": gpus},
        {"event": "step", "name": "matmul", "device": "/device:GPU:0", "status": "running"},
    ):
        view(event)
    clock[0] = 4.0
    text = _shown(view)
    assert "✓ importing TensorFlow 1.9 s" in text and "matmul on GPU:0… 2.1 s" in text
    assert "JIT-compiling" not in text  # not long yet
    assert "Debian 12" in text and "\x1b" not in text
    clock[0] = 30.0
    assert "JIT-compiling kernels for sm_120 (first run)…" in _shown(view)
    view({"event": "step", "name": "matmul", "device": "/device:GPU:0", "status": "pass", "seconds": 26.0})
    view({"event": "step", "name": "matmul", "device": "/device:GPU:1", "status": "running"})
    clock[0] = 60.0
    text = _shown(view)
    assert "✓ matmul on GPU:0 26.0 s" in text and "JIT-compiling" not in text  # sm_80 has native kernels


def _pty_run(*args: str, env_extra: dict | None = None, timeout: float = 600) -> str:
    """`tfdoctor ARGS` on a pseudo-terminal: everything it drew, in order."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100", "LINES": "40", "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    env.update(env_extra or {})
    res = run_in_pty(*args, env=env, timeout=timeout)
    assert res.returncode in (0, 1), res.stderr
    return res.stdout


def test_progress_on_a_terminal_and_none_when_piped() -> None:
    drawn = _pty_run("check")
    header = drawn.rindex("tfdoctor 0.1.0 · TensorFlow GPU check")
    before = drawn[:header]
    assert "Checking this machine" in before and "importing TensorFlow" in before
    assert re.search(r"✓\S* \S*importing TensorFlow \d+\.\d s", before)  # the step, timed, once it ended
    assert "System" in before and "TensorFlow worker" in before
    assert "Do first" in drawn[header:] or "All good." in drawn[header:]
    piped = run_cli("check", env={**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"})
    assert piped.returncode in (0, 1)
    assert "Checking this machine" not in piped.stdout and "importing TensorFlow" not in piped.stdout
    assert "\x1b[" not in piped.stdout and piped.stdout.startswith("tfdoctor ")


@pytest.mark.parametrize(
    "args, env",
    [
        (("check", "--quick", "--json"), {}),
        (("check", "--quick", "--markdown"), {}),
        (("check", "--quick"), {"TERM": "dumb"}),
    ],
)
def test_no_progress_for_scripts_or_dumb_terminals(args, env) -> None:
    drawn = _pty_run(*args, env_extra=env)
    assert "Checking this machine" not in drawn


def test_quick_check_on_a_terminal_shows_probes() -> None:
    drawn = _pty_run("check", "--quick")
    header = drawn.rindex("tfdoctor 0.1.0 · TensorFlow GPU check")
    assert "Checking this machine" in drawn[:header]


# --- words ---------------------------------------------------------------------------------------------


def test_every_option_of_every_subcommand_is_explained() -> None:
    import argparse

    from tfdoctor.cli import build_parser

    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in subs.choices.items():
        assert sub.description, name
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help and len(action.help) >= 15, (name, action.dest)
        out = run_cli(name, "--help")
        assert out.returncode == 0 and "usage: tfdoctor" in out.stdout


def test_empty_no_color_keeps_colour() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FORCE_COLOR": "1", "NO_COLOR": ""}
    assert "\x1b[" in run_cli("check", "--quick", "--only", "driver", env=env).stdout


def test_matrix_marks_the_installed_release(monkeypatch, capsys) -> None:
    from tfdoctor.commands import matrix

    monkeypatch.setattr(matrix, "installed_tensorflow", lambda: "2.15.1")
    assert matrix.matrix_command(None, None, None, False) == 0
    lines = capsys.readouterr().out.splitlines()
    marked = [line for line in lines if "installed here" in line]
    assert len(marked) == 1 and marked[0].split()[0] == "2.15" and "(2.15.1)" in marked[0]
    assert "8.0+PTX" in marked[0]  # the real 2.15.1 wheel: compute_80 is its newest PTX
    monkeypatch.setattr(matrix, "installed_tensorflow", lambda: None)
    matrix.matrix_command(None, None, None, False)
    assert "installed here" not in capsys.readouterr().out
    assert matrix.kernels(("sm_35", "sm_50", "compute_80")) == "3.5 5.0 8.0+PTX"


def test_huge_values_render_quickly() -> None:
    """A saved report can hold anything: 64 KB titles, words and log lines cost well under a second."""
    word = "x" * 65_536
    prose = "word " * 13_000
    finding = {
        "id": "gpu.x",
        "status": "fail",
        "title": word,
        "detail": prose + word,
        "fix": f"{prose}: `{word}`",
        "docs": None,
        "caused_by": None,
        "evidence": [prose, word],
    }
    report = {"environment": {"os": word, "gpus": [{"name": prose}]}, "findings": [finding], "mode": "full"}
    from tfdoctor.render.markdown import render as markdown

    for verbose in (False, True):
        start = time.perf_counter()
        check_screen(report, 80, verbose=verbose)
        markdown(report)
        assert time.perf_counter() - start < 3
