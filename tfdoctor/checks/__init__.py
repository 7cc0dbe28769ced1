"""Checks: pure functions `(facts, matrix) -> list[Finding]`, registered by decorator.

A check declares the finding ids it may emit; every id must be in tfdoctor/catalogue.py and carry
the prefix of the check's module (`driver.*` only from checks/driver.py), so each id has one home.
`run_checks` runs the selected checks (a crash becomes a failing finding), removes repeats and
links each finding another one explains (`caused_by`, from the catalogue's `explained_by`).

A gate never passes by accident: a check that judges a requirement the user stated (`judges`, e.g.
--require-gpus) runs whatever --only/--skip select, and a selection that judged nothing (every
check skipped: no GPU to look at, no worker run) is a failure of its own, `tfdoctor.nothing-verified`.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from dataclasses import dataclass, replace
from typing import Any, Callable

from tfdoctor import catalogue
from tfdoctor import plan as P
from tfdoctor.facts import no_gpu_attached
from tfdoctor.model import Finding, Status

CheckFn = Callable[[dict[str, Any], Any], list[Finding]]


@dataclass(frozen=True)
class Check:
    name: str  # "driver.driver_present": module prefix and function name
    fn: CheckFn
    ids: tuple[str, ...]
    judges: str | None = None  # the request option it judges (facts["options"][judges]), if any


CHECKS: list[Check] = []
CRASHED = "tfdoctor.check-crashed"
NOTHING_VERIFIED = "tfdoctor.nothing-verified"


def check(*ids: str, judges: str | None = None) -> Callable[[CheckFn], CheckFn]:
    """Register a check that may emit the given ids (each declared in the catalogue); `judges` names
    the request option (a requirement the user states) it judges: it then always runs when that
    option is given, whatever --only/--skip select."""

    def register(fn: CheckFn) -> CheckFn:
        module = fn.__module__.split("tfdoctor.checks.", 1)[-1].split(".", 1)[0]
        for fid in ids:
            if fid not in catalogue.ENTRIES:
                raise ValueError(f"{fn.__module__}.{fn.__name__}: finding id {fid} is not in the catalogue")
            if catalogue.prefix(fid) != module:
                raise ValueError(
                    f"{fn.__module__}.{fn.__name__}: {fid} belongs to checks/{catalogue.prefix(fid)}"
                )
        name = f"{module}.{fn.__name__}"
        if not any(c.name == name for c in CHECKS):
            CHECKS.append(Check(name, fn, tuple(ids), judges))
        return fn

    return register


def load_all() -> list[Check]:
    """Import every check module once (registration happens at import)."""
    for mod in pkgutil.walk_packages(__path__, prefix=f"{__name__}."):
        if not mod.name.rsplit(".", 1)[-1].startswith("_"):
            importlib.import_module(mod.name)
    return CHECKS


# --- selecting checks (--only / --skip) ---------------------------------------------------------


def _matches(chk: Check, pattern: str) -> bool:
    """A pattern names a check by one of its ids, an id prefix ("driver"), or its name."""
    pattern = pattern.rstrip(".")
    return pattern == chk.name or any(fid == pattern or fid.startswith(pattern + ".") for fid in chk.ids)


def unknown_names(patterns: tuple[str, ...]) -> list[str]:
    """Each pattern that names no check, with the closest known names: ["bogus (did you mean ...?)"]."""
    checks = load_all()
    names = sorted(
        {n for c in checks for n in (c.name, *c.ids)} | {catalogue.prefix(i) for c in checks for i in c.ids}
    )
    out = []
    for p in patterns:
        if not any(_matches(c, p) for c in checks):
            close = difflib.get_close_matches(p, names, n=3, cutoff=0.5)
            out.append(f"{p} (did you mean {', '.join(close)}?)" if close else p)
    return out


def selected(only: tuple[str, ...] = (), skip: tuple[str, ...] = ()) -> list[Check]:
    """The checks --only/--skip leave: a check runs whole, whatever ids it may emit."""
    checks = load_all()
    if only:
        checks = [c for c in checks if any(_matches(c, p) for p in only)]
    return [c for c in checks if not any(_matches(c, p) for p in skip)]


def required(options: Any, chosen: list[Check]) -> list[Check]:
    """The checks of requirements the user stated (in `options`) that the selection left out: they
    run all the same."""
    options = options if isinstance(options, dict) else {}
    return [c for c in load_all() if c.judges and options.get(c.judges) is not None and c not in chosen]


def checks_run(only: tuple[str, ...], skip: tuple[str, ...], options: Any) -> list[Check]:
    """Every check a run with this selection and these options runs."""
    chosen = selected(only, skip)
    return chosen + required(options, chosen)


# --- running ----------------------------------------------------------------------------------


def _crashed(chk: Check, exc: Exception) -> Finding:
    return Finding(
        CRASHED,
        Status.FAIL,
        f"Check {chk.name} crashed: {type(exc).__name__}: {str(exc)[:200]}",
        detail="This is a bug in tfdoctor. What this check judges is unknown, so it counts as failed; the "
        "other checks ran.",
        plan=P.make("python", P.note("Report it with the output of `tfdoctor report --json` attached"
                                     " (secrets are redacted); meanwhile"
                                     f" `--skip {chk.name}` leaves this check out.")),
    )


def _run(chk: Check, facts: dict[str, Any], matrix: Any) -> list[Finding]:
    try:
        return chk.fn(facts, matrix)
    except Exception as exc:  # noqa: BLE001 - a broken check must not stop the report, nor pass it
        return [_crashed(chk, exc)]


def run_checks(
    facts: dict[str, Any],
    matrix: Any,
    only: tuple[str, ...] = (),
    skip: tuple[str, ...] = (),
    verdict: bool = False,
) -> list[Finding]:
    """Run the selected checks, and those of the requirements the user stated; a check that raises
    becomes a failing finding and the run goes on. With `verdict` (a check of a machine, not a
    paste), a selection that judged nothing adds `tfdoctor.nothing-verified`."""
    chosen = selected(only, skip)
    findings = [f for chk in chosen for f in _run(chk, facts, matrix)]
    if verdict and not any(f.status > Status.SKIP for f in findings):
        findings.append(_nothing_verified(findings, only, skip))
    findings += [f for chk in required(facts.get("options"), chosen) for f in _run(chk, facts, matrix)]
    return link_causes(_unique(findings))


def _nothing_verified(skips: list[Finding], only: tuple[str, ...], skip: tuple[str, ...]) -> Finding:
    asked = " ".join([*(f"--only {p}" for p in only), *(f"--skip {p}" for p in skip)]) or "every check"
    reasons = list(dict.fromkeys(f"{f.title}: {f.detail}".rstrip(": ") for f in skips))
    shown = "; ".join(reasons[:4]) + (f"; and {len(reasons) - 4} more" if len(reasons) > 4 else "")
    return Finding(
        NOTHING_VERIFIED,
        Status.FAIL,
        "Nothing was verified: every selected check skipped",
        detail=f"{asked}: {shown or 'no selected check applies to this machine'}. A gate that judged "
        "nothing does not pass.",
        plan=P.make("python", P.note("Select checks this machine can answer (`tfdoctor checks` lists them),"
                                     " run without --quick for the runtime checks, or run on a machine with"
                                     " the GPU they look at.")),
    )


def _unique(findings: list[Finding]) -> list[Finding]:
    """Two checks may reach the same conclusion (e.g. a probe and a log line): say it once."""
    seen: set[tuple[str, Status, str]] = set()
    kept = []
    for f in findings:
        key = (f.id, f.status, f.title)
        if key not in seen:
            seen.add(key)
            kept.append(f)
    return kept


def link_causes(findings: list[Finding]) -> list[Finding]:
    """Mark each failure or warning that another one explains with `caused_by` (catalogue order of
    causes, a cause set by the check itself first); a cause is at least as severe as what it
    explains, and no chain loops back on itself."""
    present: dict[str, Status] = {}
    for f in findings:
        if f.status >= Status.WARN:
            present[f.id] = max(present.get(f.id, Status.SKIP), f.status)
    cause_of: dict[str, str] = {}
    for f in findings:
        if f.status < Status.WARN or f.id in cause_of:
            continue
        wanted = ((f.caused_by,) if f.caused_by else ()) + catalogue.explained_by(f.id)
        if catalogue.ANY in wanted:  # the ids named, then any other finding: those no entry lets it explain
            wanted = tuple(i for i in wanted if i != catalogue.ANY) + tuple(
                i for i in present if catalogue.ANY not in catalogue.explained_by(i))
        usable = [c for c in wanted if c in present and c != f.id and not _leads_to(c, f.id, cause_of)]
        # a cause as severe as the effect first: a warning explains a failure only when nothing
        # failing does (memory held by others -> OOM), never ahead of a failure (no driver)
        cause = next((c for c in usable if present[c] >= f.status), usable[0] if usable else None)
        if cause:
            cause_of[f.id] = cause
    worst: dict[str, Status] = {}
    for f in findings:
        cause = cause_of.get(f.id)
        while cause is not None:  # the root of a failure is a failure
            worst[cause] = max(worst.get(cause, Status.SKIP), f.status)
            cause = cause_of.get(cause)
    out = []
    for f in findings:
        cause = cause_of.get(f.id) if f.status >= Status.WARN else None
        status = max(f.status, worst.get(f.id, f.status)) if f.status >= Status.WARN else f.status
        if cause != f.caused_by or status != f.status:
            f = replace(f, caused_by=cause, status=status)
        out.append(f)
    return out


def _leads_to(start: str, target: str, cause_of: dict[str, str]) -> bool:
    seen = set()
    node: str | None = start
    while node is not None and node not in seen:
        if node == target:
            return True
        seen.add(node)
        node = cause_of.get(node)
    return False


def root_of(finding_id: str, findings: list[Finding]) -> str:
    """Follow caused_by to the root cause's id."""
    by_id = {f.id: f.caused_by for f in findings}
    seen = set()
    node = finding_id
    while by_id.get(node) and node not in seen:
        seen.add(node)
        node = by_id[node]  # type: ignore[assignment]
    return node


def skipped(fid: str, title: str, reason: str, facts_used: tuple[str, ...] = ()) -> Finding:
    """A check that could not judge: the reason, in plain words."""
    return Finding(fid, Status.SKIP, title, detail=reason, facts=facts_used)


def moot_without_gpu(check_fn: CheckFn) -> CheckFn:
    """For checks of GPU software (CUDA, cuDNN, the toolkit, a CPU-only build): on a machine with no
    NVIDIA GPU on its PCI bus their failures are moot, explained by the absent GPU (driver.missing),
    so the report shows one root cause whatever the TensorFlow release logs."""
    import functools

    @functools.wraps(check_fn)
    def wrapped(facts: dict[str, Any], matrix: Any) -> list[Finding]:
        found = check_fn(facts, matrix)
        if not no_gpu_attached(facts):
            return found
        return [replace(f, caused_by="driver.missing") if f.status >= Status.WARN else f for f in found]

    return wrapped
