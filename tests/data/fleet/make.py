"""Regenerate the recorded fleet under tests/data/fleet/ (see README.md there).

    python tests/data/fleet/make.py OLD_CHECKOUT

OLD_CHECKOUT holds tfdoctor at commit ddf983f, the last that wrote report schema 1
(`git archive ddf983f | tar -x -C OLD_CHECKOUT`). Each version of tfdoctor writes a real
`report --json --quick` of this machine; every node's report is that one with only what a fleet
varies changed in its facts (the host name and the driver version), judged again by the same
version's real `check --from`, and finally given its date (`created_at`).
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
OLD, NEW = "535.183.01", "550.127.05"
HOSTS = [f"gpu-{i:02d}" for i in range(1, 7)]
# (day, schema of the tfdoctor that wrote it, {host: driver}) — one upgrade, one straggler, one silent host
DAYS = [
    ("2026-11-01", 1, {h: OLD for h in HOSTS}),
    ("2026-11-03", 2, {h: (OLD if h == "gpu-06" else NEW) for h in HOSTS}),
    ("2026-11-05", 2, {h: (OLD if h == "gpu-06" else NEW) for h in HOSTS if h != "gpu-05"}),
]


def cli(checkout: Path, *args: str, stdin: str | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run([sys.executable, "-m", "tfdoctor", *args], cwd=checkout, env=env, input=stdin,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def main(old_checkout: str) -> None:
    checkouts = {1: Path(old_checkout).resolve(), 2: ROOT}
    bases = {v: cli(c, "report", "--json", "--quick") for v, c in checkouts.items()}
    for v, base in bases.items():
        assert base["schema_version"] == v, (v, base["schema_version"])
    scratch = HERE / ".scratch.json"
    try:
        for day, version, drivers in DAYS:
            (HERE / day).mkdir(exist_ok=True)
            for i, (host, driver) in enumerate(sorted(drivers.items())):
                report = copy.deepcopy(bases[version])
                report["facts"]["system"]["hostname"] = host
                report["facts"]["system"]["proc_driver_version"] = driver
                scratch.write_text(json.dumps(report))
                judged = cli(checkouts[version], "check", "--from", str(scratch), "--json")
                judged["created_at"] = f"{day}T06:{i:02d}:00+00:00"
                text = json.dumps(judged, indent=2, ensure_ascii=False) + "\n"
                (HERE / day / f"{host}.json").write_text(text)
    finally:
        scratch.unlink(missing_ok=True)


if __name__ == "__main__":
    main(sys.argv[1])
