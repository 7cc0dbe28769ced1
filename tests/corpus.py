"""The explain corpus: real pasted outputs with the ids and versions a maintainer reads in them.

tests/data/explain/cases.toml lists the development cases; tests/data/explain/holdout/cases.toml a
split added last and never tuned on; holdout2/ and holdout4/ later splits, each scored once blind
(the score in its cases.toml header). `score` runs the real engine on each case and counts, per id:
named (the case's ids were reported, failing or warning), missed, and false alarms (a root cause
reported that the case does not list; a finding explained by another is not counted).
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from tfdoctor.logs.lines import read_lines
from tfdoctor.model import Report
from tfdoctor.report import explain_report
from tfdoctor.versions import cudnn_from_int

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CORPUS = Path(__file__).parent / "data" / "explain"
SPLITS = {
    "dev": CORPUS,
    "holdout": CORPUS / "holdout",
    "holdout2": CORPUS / "holdout2",
    "holdout3": CORPUS / "holdout3",
    "holdout4": CORPUS / "holdout4",
    "holdout5": CORPUS / "holdout5",
    "holdout6": CORPUS / "holdout6",
    "holdout7": CORPUS / "holdout7",
    "holdout8": CORPUS / "holdout8",
    "holdout9": CORPUS / "holdout9",
    "holdout10": CORPUS / "holdout10",
    "holdout11": CORPUS / "holdout11",
    "holdout12": CORPUS / "holdout12",
    "holdout13": CORPUS / "holdout13",
    "holdout14": CORPUS / "holdout14",
    "holdout15": CORPUS / "holdout15",
    "holdout16": CORPUS / "holdout16",
    "holdout17": CORPUS / "holdout17",
    "holdout18": CORPUS / "holdout18",
    "holdout19": CORPUS / "holdout19",
    "holdout20": CORPUS / "holdout20",
    "holdout21": CORPUS / "holdout21",
    "holdout22": CORPUS / "holdout22",
    "holdout23": CORPUS / "holdout23",
    "holdout24": CORPUS / "holdout24",
    "holdout25": CORPUS / "holdout25",
    "holdout26": CORPUS / "holdout26",
    "holdout27": CORPUS / "holdout27",
    "holdout28": CORPUS / "holdout28",
    "holdout29": CORPUS / "holdout29",
    "holdout30": CORPUS / "holdout30",
    "holdout31": CORPUS / "holdout31",
    "holdout32": CORPUS / "holdout32",
    "holdout33": CORPUS / "holdout33",
    "holdout34": CORPUS / "holdout34",
    "holdout35": CORPUS / "holdout35",
    "holdout36": CORPUS / "holdout36",
    "holdout37": CORPUS / "holdout37",
    "holdout38": CORPUS / "holdout38",
    "holdout39": CORPUS / "holdout39",
    "holdout40": CORPUS / "holdout40",
    "holdout41": CORPUS / "holdout41",
    "holdout42": CORPUS / "holdout42",
    "holdout43": CORPUS / "holdout43",
    "holdout44": CORPUS / "holdout44",
    "holdout45": CORPUS / "holdout45",
    "holdout46": CORPUS / "holdout46",
    "holdout47": CORPUS / "holdout47",
    "holdout48": CORPUS / "holdout48",
    "holdout49": CORPUS / "holdout49",
    "holdout50": CORPUS / "holdout50",
    "holdout51": CORPUS / "holdout51",
    "holdout52": CORPUS / "holdout52",
    "holdout53": CORPUS / "holdout53",
    "holdout54": CORPUS / "holdout54",
    "holdout55": CORPUS / "holdout55",
    "holdout56": CORPUS / "holdout56",
    "holdout57": CORPUS / "holdout57",
    "holdout58": CORPUS / "holdout58",
    "holdout59": CORPUS / "holdout59",
    "holdout60": CORPUS / "holdout60",
    "holdout61": CORPUS / "holdout61",
    "holdout62": CORPUS / "holdout62",
}


def cases(split: str = "dev") -> list[dict]:
    folder = SPLITS[split]
    listed = tomllib.loads((folder / "cases.toml").read_text(encoding="utf-8"))["case"]
    for case in listed:
        case["path"] = folder / case["file"]
    return listed


def explain(case: dict) -> Report:
    """The real engine's report on the case's pasted text."""
    with open(case["path"], "rb") as fh:
        return explain_report(read_lines(fh))


def run(case: dict) -> tuple[set[str], set[str], dict]:
    """(every failing or warning id, the root ones, the environment read)."""
    report = explain(case)
    bad = [f for f in report.findings if str(f.status) in ("fail", "warn")]
    return {f.id for f in bad}, {f.id for f in bad if not f.caused_by}, report.environment


def env_misses(expected: dict, env: dict) -> list[str]:
    wrong = []
    for key, want in expected.items():
        got = env.get(key)
        if key == "gpus":
            got = got or []
            for i, w in enumerate(want):
                g = got[i] if i < len(got) else {}
                for k, val in w.items():
                    if g.get(k) != val:
                        wrong.append(f"gpus[{i}].{k}: want {val!r}, got {g.get(k)!r}")
        elif str(got) != str(want) and not (is_version(key) and same_release(str(got), str(want), key)):
            wrong.append(f"{key}: want {want!r}, got {got!r}")
    return wrong


def same_release(got: str, want: str, key: str = "") -> bool:
    """Two spellings of one release by PEP 440 ("2.2" and "2.2.0", "2.4.0-dev20200701" and
    "2.4.0.dev20200701"); cuDNN's as TensorFlow prints them too ("6021" is 6.0.21)."""
    if "cudnn" in key:
        got, want = cudnn_from_int(got), cudnn_from_int(want)
    try:
        return Version(got) == Version(want)
    except InvalidVersion:
        return False


def env_count(expected: dict) -> int:
    return sum(sum(len(g) for g in want) if key == "gpus" else 1 for key, want in expected.items())


def is_version(miss_or_key: str) -> bool:
    """Whether an env key (or a miss naming it) is a version: a `*_version` or a compute capability,
    not a name, an OS or a platform."""
    key = miss_or_key.split(":")[0]
    return key.endswith("_version") or key.endswith("compute_capability")


def version_count(expected: dict) -> int:
    return sum(sum(is_version(k) for g in want for k in g) if key == "gpus" else is_version(key)
               for key, want in expected.items())


@dataclass
class Score:
    tp: Counter = field(default_factory=Counter)
    fp: Counter = field(default_factory=Counter)
    fn: Counter = field(default_factory=Counter)
    cases: int = 0
    named: int = 0  # cases whose every listed id was reported
    clean: int = 0  # cases with no false alarm
    values: int = 0
    values_read: int = 0
    versions: int = 0  # of the values, the versions alone (see is_version)
    versions_read: int = 0
    failures: list[str] = field(default_factory=list)

    def precision(self) -> float:
        tp, fp = sum(self.tp.values()), sum(self.fp.values())
        return tp / (tp + fp) if tp + fp else 1.0

    def recall(self) -> float:
        tp, fn = sum(self.tp.values()), sum(self.fn.values())
        return tp / (tp + fn) if tp + fn else 1.0

    def table(self) -> str:
        ids = sorted(set(self.tp) | set(self.fp) | set(self.fn))
        lines = [f"{'id':<38} {'tp':>3} {'fp':>3} {'fn':>3} {'precision':>9} {'recall':>7}"]
        for fid in ids:
            tp, fp, fn = self.tp[fid], self.fp[fid], self.fn[fid]
            p = tp / (tp + fp) if tp + fp else 1.0
            r = tp / (tp + fn) if tp + fn else 1.0
            lines.append(f"{fid:<38} {tp:>3} {fp:>3} {fn:>3} {p:>9.2f} {r:>7.2f}")
        lines.append(
            f"{'ALL':<38} {sum(self.tp.values()):>3} {sum(self.fp.values()):>3} {sum(self.fn.values()):>3}"
            f" {self.precision():>9.2f} {self.recall():>7.2f}"
        )
        lines.append(
            f"cases {self.cases}: named right {self.named} ({self.named / max(1, self.cases):.0%}), "
            f"no false alarm {self.clean} ({self.clean / max(1, self.cases):.0%}); values read "
            f"{self.values_read}/{self.values} ({self.values_read / max(1, self.values):.0%}), "
            f"of them versions {self.versions_read}/{self.versions}"
            f" ({self.versions_read / max(1, self.versions):.0%})"
        )
        return "\n".join(lines)


def score(split: str = "dev") -> Score:
    result = Score()
    for case in cases(split):
        found, roots, env = run(case)
        want, allowed = set(case["ids"]), set(case["ids"]) | set(case.get("also", []))
        result.cases += 1
        for fid in want & found:
            result.tp[fid] += 1
        for fid in want - found:
            result.fn[fid] += 1
        for fid in roots - allowed:
            result.fp[fid] += 1
        result.named += want <= found
        result.clean += not (roots - allowed)
        expected = case.get("env", {})
        misses = env_misses(expected, env)
        result.values += env_count(expected)
        result.values_read += env_count(expected) - len(misses)
        result.versions += version_count(expected)
        result.versions_read += version_count(expected) - sum(is_version(m) for m in misses)
        if want - found or roots - allowed or misses:
            result.failures.append(
                f"{case['file']}: want {sorted(want)} got roots {sorted(roots)} all {sorted(found)}"
                + (f"; env {misses}" if misses else "")
            )
    return result


if __name__ == "__main__":  # python tests/corpus.py [dev|holdout|holdout2|...|holdout6] [-v]
    which = sys.argv[1] if len(sys.argv) > 1 else "dev"
    s = score(which)
    print(s.table())
    if "-v" in sys.argv:
        print("\n".join(s.failures))
