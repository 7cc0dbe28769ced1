"""tfdoctor on every TensorFlow release 2.12 -> 2.21 (and a few mixes), each in its own venv.

Creates one venv per release under --venvs (default /work/venvs, outside the repo) with the real
Linux wheels from PyPI, or reuses them with --reuse, then runs
`python -m tfdoctor check --json --python VENV/bin/python` (full, then --quick) with this
checkout's code and prints one table row per run: root failures (status fail and no caused_by,
or every fail when the report has no caused_by), the fixes' commands shortened, the worker's steps
(pass/fail/skip), the CPU training speed, which Keras trained, and the wall time.

Usage:
  python bench/bench_tf_versions.py [--reuse] [--only NAME..] [--jobs N] [--no-quick]
                                    [--save-reports DIR] [--venvs DIR] [--record DIR] [--create-only]
Installing all venvs downloads about 8 GB; keep --jobs small on a 2-core machine.

--record DIR writes, per mix, the real outputs the replay tests read (tests/data/tf-releases/):
the wheel's build_info.py, `readelf -d` of TensorFlow's native libraries, the installed
distributions, the worker's raw stdout and stderr, and the static probes' facts of this machine.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = "python3"  # the interpreter each venv is made from (3.11 here)

# The cu11 wheels of TF 2.12's era (CUDA 11.8, cuDNN 8.6): what users pip-installed by hand before
# the [and-cuda] extra (2.14) existed. Versions as pinned by tensorflow[and-cuda]==2.14.0 except
# cuDNN, which TF 2.12/2.13 were tested with at 8.6.
CU11 = [
    "nvidia-cudnn-cu11==8.6.0.163",
    "nvidia-cuda-runtime-cu11==11.8.89",
    "nvidia-cublas-cu11==11.11.3.6",
    "nvidia-cufft-cu11==10.9.0.58",
    "nvidia-curand-cu11==10.3.0.86",
    "nvidia-cusolver-cu11==11.4.1.48",
    "nvidia-cusparse-cu11==11.7.5.86",
    "nvidia-cuda-cupti-cu11==11.8.87",
    "nvidia-cuda-nvrtc-cu11==11.8.89",
    "nvidia-nccl-cu11==2.16.5",
]
RELEASES = ["2.12.1", "2.13.1", "2.14.1", "2.15.1", "2.16.2", "2.17.1", "2.18.1", "2.19.1", "2.20.0",
            "2.21.0"]


def mixes() -> list[dict]:
    """name, pip requirements (installed in steps, in order), environment for the run."""
    out = [{"name": f"tf-{v}", "steps": [[f"tensorflow=={v}"]], "env": {}} for v in RELEASES]
    out += [
        {"name": "tfcpu-2.21.0", "steps": [["tensorflow-cpu==2.21.0"]], "env": {}},
        {"name": "tf-2.12.1-cu11", "steps": [["tensorflow==2.12.1", *CU11]], "env": {}},
        {"name": "tf-2.16.2-tfkeras", "steps": [["tensorflow==2.16.2", "tf-keras==2.16.0"]],
         "env": {"TF_USE_LEGACY_KERAS": "1"}},
        # keras 2.15 over TF 2.16's keras 3: pip warns about the conflict, as users saw it.
        {"name": "tf-2.16.2-keras2", "steps": [["tensorflow==2.16.2"], ["keras==2.15.0"]], "env": {}},
        {"name": "tf-2.21.0-and-cuda", "steps": [["tensorflow[and-cuda]==2.21.0"]], "env": {}},
        # The cu11 venv again, with the usual workaround for TF < 2.14: LD_LIBRARY_PATH naming the
        # wheels' lib dirs (filled in at run time), so TensorFlow 2.12 does load them.
        {"name": "tf-2.12.1-cu11-ldpath", "venv": "tf-2.12.1-cu11", "steps": [], "env": {},
         "env_nvidia_lib_path": True},
    ]
    return out


def venv_of(mix: dict) -> str:
    return mix.get("venv") or mix["name"]


def mix_env(venvs: Path, mix: dict) -> dict[str, str]:
    """The mix's environment; LD_LIBRARY_PATH = the venv's nvidia/*/lib dirs when it asks for it."""
    env = dict(mix["env"])
    if mix.get("env_nvidia_lib_path"):
        libs = sorted(str(p) for p in (venvs / venv_of(mix)).glob("lib/python3*/site-packages/nvidia/*/lib"))
        env["LD_LIBRARY_PATH"] = ":".join(libs)
    return env


def create(venvs: Path, mix: dict, reuse: bool) -> str:
    if mix.get("venv"):
        return f"{mix['name']}: uses the venv of {mix['venv']}"
    target = venvs / mix["name"]
    done = target / ".done"
    if reuse and done.is_file() and (target / "bin" / "python").exists():
        return f"{mix['name']}: reused"
    log = venvs / "_logs" / f"{mix['name']}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as fh:
        if target.exists():
            subprocess.run(["rm", "-rf", str(target)], check=True)
        subprocess.run([PYTHON, "-m", "venv", str(target)], check=True, stdout=fh, stderr=fh)
        for reqs in mix["steps"]:
            cmd = [str(target / "bin" / "python"), "-m", "pip", "install", "-q", *reqs]
            if subprocess.run(cmd, stdout=fh, stderr=fh).returncode:
                return f"{mix['name']}: pip install failed, see {log}"
    done.write_text(time.strftime("%Y-%m-%d %H:%M:%S\n"))
    return f"{mix['name']}: created"


def run_check(python: Path, env_extra: dict, quick: bool, timeout: float) -> tuple[dict | None, float, str]:
    env = dict(os.environ)
    env.update(env_extra)
    env["PYTHONPATH"] = str(ROOT)
    argv = [sys.executable, "-m", "tfdoctor", "check", "--json", "--python", str(python)]
    if quick:
        argv.append("--quick")
    start = time.perf_counter()
    try:
        proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - start, "timed out"
    elapsed = time.perf_counter() - start
    try:
        return json.loads(proc.stdout), elapsed, ""
    except ValueError:
        return None, elapsed, f"exit {proc.returncode}: {proc.stderr.strip()[-200:]}"


def shorten(cmd: str | None, width: int = 60) -> str:
    if not cmd:
        return ""
    text = " ".join(str(cmd).split())
    for long, short in ((str(ROOT), "."), ("/work/venvs/", "")):
        text = text.replace(long, short)
    return text if len(text) <= width else text[: width - 1] + "…"


# TensorFlow's native libraries whose dynamic section the tensorflow probe reads (NATIVE_LIBRARIES
# in tfdoctor/probes/tensorflow.py; repeated here so this script imports nothing at start-up).
READELF_FILES = ("libtensorflow_framework.so.2", "libtensorflow_framework.so.1", "libtensorflow_cc.so.2",
                 "python/_pywrap_tensorflow_internal.so", "python/lib_pywrap_tensorflow_common.so",
                 "python/_pywrap_tensorflow_common.so")


def trim_repeats(text: str) -> str:
    """Collapse runs of identical lines (the only trimming the recorded files get)."""
    out: list[str] = []
    run = 0
    for line in text.splitlines():
        if out and line == out[-1]:
            run += 1
            continue
        if run:
            out.append(f"[... the line above repeated {run} more times, trimmed]")
            run = 0
        out.append(line)
    if run:
        out.append(f"[... the line above repeated {run} more times, trimmed]")
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def record(venvs: Path, mix: dict, dest: Path) -> str:
    """Record one mix's real outputs under dest/<name>/ (see the module docstring)."""
    sys.path.insert(0, str(ROOT))
    from tfdoctor.privacy import anonymize
    from tfdoctor.probes import runtime as rprobe

    name, python = mix["name"], venvs / venv_of(mix) / "bin" / "python"
    mix = {**mix, "env": mix_env(venvs, mix)}
    out = dest / name
    out.mkdir(parents=True, exist_ok=True)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True).stdout.strip()
    tf_dir = Path(site) / "tensorflow"
    (out / "build_info.py.txt").write_bytes((tf_dir / "python" / "platform" / "build_info.py").read_bytes())
    for rel in READELF_FILES:
        if (tf_dir / rel).is_file():
            text = subprocess.run(["readelf", "-d", str(tf_dir / rel)], capture_output=True, text=True).stdout
            (out / f"readelf-{Path(rel).name}.txt").write_text(text)
    pip_list = [str(python), "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"]
    freeze = subprocess.run(pip_list, capture_output=True, text=True).stdout
    (out / "distributions.txt").write_text(freeze)
    env = rprobe.worker_env(rprobe.Context(python=str(python), env={**os.environ, **mix["env"]}))
    argv = [str(python), "tfdoctor/worker/worker.py"]
    start = time.perf_counter()
    res = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - start
    (out / "worker.stdout").write_text(res.stdout)
    (out / "worker.stderr").write_text(trim_repeats(res.stderr))
    exit_facts = {"returncode": res.returncode, "seconds": round(seconds, 3)}
    (out / "worker.exit.json").write_text(json.dumps(exit_facts) + "\n")
    quick = [sys.executable, "-m", "tfdoctor", "check", "--json", "--quick", "--python", str(python)]
    qenv = {**os.environ, **mix["env"], "PYTHONPATH": str(ROOT)}
    report = json.loads(subprocess.run(quick, cwd=ROOT, env=qenv, capture_output=True, text=True).stdout)
    facts = anonymize(report)["facts"]
    keys = ("system", "nvml", "nvidia_smi", "nvcc", "libraries", "collective", "options")
    static = {k: facts.get(k) for k in keys}
    (out / "probes.json").write_text(json.dumps(static, indent=1, sort_keys=True) + "\n")
    env_words = " ".join(f"{k}={v}" for k, v in mix["env"].items())
    pip_lines = "\n".join(f"    {venvs}/{venv_of(mix)}/bin/python -m pip install {' '.join(reqs)}"
                          for reqs in mix["steps"])
    (out / "README.md").write_text(f"""# {name}: real outputs of the wheel(s) below

Recorded {time.strftime('%Y-%m-%d')} on a CPU-only x86-64 Linux machine (2 cores, no NVIDIA driver, no
/dev/nvidia*, a CUDA 13.0 toolkit under /usr/local/cuda-13.0 in the ld cache), Python 3.11.7, by

    python bench/bench_tf_versions.py --reuse --only {name} --record tests/data/tf-releases

which created the venv with

    python3 -m venv {venvs}/{venv_of(mix)}
{pip_lines or f"    (the venv of {venv_of(mix)}, see its README.md)"}

and then ran, from the repository root:

- build_info.py.txt: a byte-for-byte copy of
  `{tf_dir.relative_to(venvs / venv_of(mix))}/python/platform/build_info.py`
- readelf-*.txt: `readelf -d` of the files under that `tensorflow/` directory (binutils readelf)
- distributions.txt: `{python} -m pip list --format=freeze`
- worker.stdout / worker.stderr: `{env_words + ' ' if env_words else ''}TF_CPP_MIN_LOG_LEVEL=0 \\
  KERAS_BACKEND=tensorflow PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 {python} tfdoctor/worker/worker.py`
  (the environment the runtime probe gives the worker); worker.exit.json: its exit status and
  wall time; stderr only has runs of identical lines collapsed
- probes.json: the system, nvml, nvidia_smi, nvcc, libraries, collective and options facts of
  `python -m tfdoctor check --json --quick --python {python}`, anonymized
  (hostname, user and home replaced)

The worker is this repository's tfdoctor/worker/worker.py at the commit that added this folder.
""")
    return f"{name}: recorded in {out} (worker exit {res.returncode}, {seconds:.1f} s)"


def summarize(report: dict) -> dict:
    findings = report.get("findings") or []
    fails = [f for f in findings if f.get("status") == "fail"]
    has_cause = any("caused_by" in f for f in findings)
    roots = [f for f in fails if not f.get("caused_by")] if has_cause else fails
    rt = (report.get("facts") or {}).get("runtime") or {}
    steps = rt.get("steps") or []
    counts = {s: sum(1 for x in steps if x.get("status") == s) for s in ("pass", "fail", "skip")}
    train = next((s for s in steps if s.get("name") == "train" and "CPU" in str(s.get("device"))), {})
    keras = rt.get("keras") or {}
    return {
        "roots": [f["id"] for f in roots],
        "fixes": [shorten(f.get("fix")) for f in roots if f.get("fix")],
        "steps": f"{counts['pass']}/{counts['fail']}/{counts['skip']}" if steps else "-",
        "train_sps": train.get("steps_per_second"),
        "keras": (f"{keras.get('module')} {keras.get('version')}" if keras.get("module")
                  else "tf.keras failed: " + str(keras["error"])[:60] if keras.get("error") else "-"),
        "worker_s": rt.get("seconds"),
        "status": (report.get("summary") or {}).get("status"),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--venvs", type=Path, default=Path("/work/venvs"))
    p.add_argument("--reuse", action="store_true", help="keep venvs that were completely installed")
    p.add_argument("--only", nargs="+", metavar="NAME", help="these mixes only (e.g. tf-2.15.1)")
    p.add_argument("--jobs", type=int, default=3, help="venvs installed at once (default 3)")
    p.add_argument("--no-quick", action="store_true", help="skip the --quick runs")
    p.add_argument("--timeout", type=float, default=600, help="seconds per check run (default 600)")
    p.add_argument("--save-reports", type=Path, metavar="DIR", help="write each JSON report there")
    p.add_argument("--record", type=Path, metavar="DIR",
                   help="record real outputs there instead of printing the table")
    p.add_argument("--create-only", action="store_true", help="create (or reuse) the venvs, then stop")
    args = p.parse_args()
    chosen = [m for m in mixes() if not args.only or m["name"] in args.only]
    args.venvs.mkdir(parents=True, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for line in pool.map(lambda m: create(args.venvs, m, args.reuse), chosen):
            print(line, file=sys.stderr, flush=True)
    if args.create_only:
        return 0
    if args.record:
        for mix in chosen:
            print(record(args.venvs, mix, args.record), flush=True)
        return 0

    print(f"tfdoctor at {ROOT} (git {_git_head()}), {time.strftime('%Y-%m-%d %H:%M')}, "
          f"{os.cpu_count()} CPUs, no NVIDIA driver expected")
    head = f"{'mix':<22} {'mode':<5} {'status':<6} {'steps p/f/s':<11} {'train st/s':>10} {'worker s':>8} " \
           f"{'time s':>7}  keras / root failures / fixes"
    print(head)
    print("-" * len(head))
    for mix in chosen:
        python = args.venvs / venv_of(mix) / "bin" / "python"
        for quick in ([False] if args.no_quick else [False, True]):
            report, elapsed, err = run_check(python, mix_env(args.venvs, mix), quick, args.timeout)
            mode = "quick" if quick else "full"
            if report is None:
                print(f"{mix['name']:<22} {mode:<5} ERROR  {err}", flush=True)
                continue
            if args.save_reports:
                args.save_reports.mkdir(parents=True, exist_ok=True)
                (args.save_reports / f"{mix['name']}-{mode}.json").write_text(json.dumps(report, indent=1))
            s = summarize(report)
            sps = f"{s['train_sps']:.1f}" if isinstance(s["train_sps"], (int, float)) else "-"
            ws = f"{s['worker_s']:.1f}" if isinstance(s["worker_s"], (int, float)) else "-"
            print(f"{mix['name']:<22} {mode:<5} {s['status'] or '-':<6} {s['steps']:<11} {sps:>10} {ws:>8} "
                  f"{elapsed:>7.1f}  {s['keras']}", flush=True)
            print(f"{'':<22}   roots: {', '.join(s['roots']) or '-'}")
            for fix in s["fixes"]:
                print(f"{'':<22}   fix:   {fix}")
    return 0


def _git_head() -> str:
    try:
        argv = ["git", "rev-parse", "--short", "HEAD"]
        out = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
        return out.stdout.strip() or "?"
    except OSError:
        return "?"


if __name__ == "__main__":
    raise SystemExit(main())
