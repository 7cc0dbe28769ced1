"""Every real pasted output in tests/data/explain/ through the engine: expected ids and values.

Prints precision and recall per finding id (run with -s to see the table).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

from tfdoctor.explain import explain_lines, read_lines

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CORPUS = Path(__file__).parent / "data" / "explain"
CASES = tomllib.loads((CORPUS / "cases.toml").read_text(encoding="utf-8"))["case"]


def _run(case: dict) -> tuple[set[str], dict]:
    with open(CORPUS / case["file"], "rb") as fh:
        result = explain_lines(read_lines(fh))
    failing = {f.id for f in result.findings if str(f.status) in ("fail", "warn")}
    return failing, result.environment


def _env_matches(expected: dict, env: dict) -> list[str]:
    wrong = []
    for key, want in expected.items():
        got = env.get(key)
        if key == "gpus":
            got = got or []
            for i, w in enumerate(want):
                g = got[i] if i < len(got) else {}
                for k, v in w.items():
                    if g.get(k) != v:
                        wrong.append(f"gpus[{i}].{k}: want {v!r}, got {g.get(k)!r}")
        elif got != want:
            wrong.append(f"{key}: want {want!r}, got {got!r}")
    return wrong


def test_corpus_is_large_and_sourced():
    assert len(CASES) >= 45
    healthy = [c for c in CASES if not c["ids"]]
    assert len(healthy) >= 6
    for case in CASES:
        assert (CORPUS / case["file"]).is_file(), case["file"]
        assert case["source"].startswith("https://"), case["file"]
    files = {p.name for p in CORPUS.glob("*.txt")}
    assert files == {c["file"] for c in CASES}, "every corpus file has exactly one case entry"


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_case(case):
    got, env = _run(case)
    assert got == set(case["ids"]), f"{case['file']}: want {sorted(case['ids'])}, got {sorted(got)}"
    assert not _env_matches(case.get("env", {}), env)


def test_precision_recall_per_id(capsys):
    tp, fp, fn = Counter(), Counter(), Counter()
    for case in CASES:
        got, _ = _run(case)
        want = set(case["ids"])
        for fid in got & want:
            tp[fid] += 1
        for fid in got - want:
            fp[fid] += 1
        for fid in want - got:
            fn[fid] += 1
    ids = sorted(set(tp) | set(fp) | set(fn))
    lines = [f"{'id':<36} {'tp':>3} {'fp':>3} {'fn':>3} {'precision':>9} {'recall':>7}"]
    for fid in ids:
        p = tp[fid] / (tp[fid] + fp[fid]) if tp[fid] + fp[fid] else 1.0
        r = tp[fid] / (tp[fid] + fn[fid]) if tp[fid] + fn[fid] else 1.0
        lines.append(f"{fid:<36} {tp[fid]:>3} {fp[fid]:>3} {fn[fid]:>3} {p:>9.2f} {r:>7.2f}")
    total_tp, total_fp, total_fn = sum(tp.values()), sum(fp.values()), sum(fn.values())
    lines.append(
        f"{'ALL':<36} {total_tp:>3} {total_fp:>3} {total_fn:>3} "
        f"{total_tp / max(1, total_tp + total_fp):>9.2f} {total_tp / max(1, total_tp + total_fn):>7.2f}"
    )
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert total_tp / max(1, total_tp + total_fp) >= 0.9
    assert total_tp / max(1, total_tp + total_fn) >= 0.9
