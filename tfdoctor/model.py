"""Status, Finding and Report: the data model and the report's JSON shape."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from tfdoctor.plan import Plan

SCHEMA_VERSION = 2
READABLE_SCHEMAS = (1, 2)  # saved reports tfdoctor still reads (--from, fleet)


class Status(enum.IntEnum):
    """Ordered: the overall status of a report is the max of its findings."""

    SKIP = 0
    PASS = 1
    WARN = 2
    FAIL = 3

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Status:
        return cls[text.upper()]


@dataclass(frozen=True)
class Finding:
    """One judged statement about the machine, with its fix when something is wrong.

    `confidence` is "certain" when the evidence is direct (a probe, an error line) and
    "likely" when it is inferred (e.g. a CUDA version read off a banner). `caused_by` names the
    finding that explains this one (None: a root cause); `evidence` quotes the log lines it rests
    on ("line 12: Could not load ..."). `plan` is the fix as data (tfdoctor.plan); `fix`, when not
    given, is the plan's text.
    """

    id: str
    status: Status
    title: str
    detail: str = ""
    fix: str | None = None
    docs: str | None = None
    facts: tuple[str, ...] = ()
    confidence: str = "certain"
    caused_by: str | None = None
    evidence: tuple[str, ...] = ()
    plan: Plan | None = None

    def __post_init__(self) -> None:
        if self.fix is None and self.plan is not None:
            object.__setattr__(self, "fix", self.plan.text())

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": str(self.status),
            "title": self.title,
            "detail": self.detail,
            "fix": self.fix,
            "docs": self.docs,
            "facts": list(self.facts),
            "confidence": self.confidence,
            "caused_by": self.caused_by,
            "evidence": list(self.evidence),
            "plan": self.plan.to_dict() if self.plan is not None else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        return cls(
            id=data["id"],
            status=Status.parse(data["status"]),
            title=data["title"],
            detail=data.get("detail") or "",
            fix=data.get("fix"),
            docs=data.get("docs"),
            facts=tuple(data.get("facts") or ()),
            confidence=data.get("confidence") or "certain",
            caused_by=data.get("caused_by"),
            evidence=tuple(data.get("evidence") or ()),
            plan=Plan.from_dict(data.get("plan")),
        )


def summarize(findings: list[Finding]) -> dict[str, Any]:
    """Counts of root findings per status (a finding another explains is counted under `explained`),
    the root causes that failed or warned (worst first), and the overall status (the worst of all)."""
    counts = {str(s): 0 for s in Status}
    explained = 0
    for f in findings:
        if f.caused_by:
            explained += 1
        else:
            counts[str(f.status)] += 1
    overall = max((f.status for f in findings), default=Status.PASS)
    if overall == Status.SKIP:
        overall = Status.PASS
    roots = [f for f in findings if not f.caused_by and f.status >= Status.WARN]
    roots.sort(key=lambda f: -f.status)
    return {
        **counts,
        "explained": explained,
        "root_causes": list(dict.fromkeys(f.id for f in roots)),
        "status": str(overall),
    }


@dataclass(frozen=True, repr=False)
class Report:
    """A complete run: what was found (facts), what it means (findings), how long it took.

    Also what `tfdoctor.check()` and `tfdoctor.explain()` return: `.ok`, `.status`, `.findings`,
    `.root_causes`, `.to_dict()`, `.to_json()`, `.to_markdown()`; in Jupyter it displays itself, root
    cause first (`_repr_html_`), and rich's console prints it the same way (`__rich__`).
    """

    mode: str
    environment: dict[str, Any]
    facts: dict[str, Any]
    findings: list[Finding]
    timings: dict[str, float] = field(default_factory=dict)
    created_at: str = ""
    tool: dict[str, Any] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    @property
    def status(self) -> Status:
        return Status.parse(summarize(self.findings)["status"])

    @property
    def ok(self) -> bool:
        """Nothing failed."""
        return self.status < Status.FAIL

    @property
    def root_causes(self) -> list[Finding]:
        """The failures and warnings no other finding explains, worst first."""
        roots = [f for f in self.findings if not f.caused_by and f.status >= Status.WARN]
        return sorted(roots, key=lambda f: -f.status)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "tool": self.tool,
            "created_at": self.created_at,
            "mode": self.mode,
            "environment": self.environment,
            "facts": self.facts,
            "findings": [f.to_dict() for f in self.findings],
            "summary": summarize(self.findings),
            "timings": self.timings,
        }

    def to_json(self) -> str:
        """The report as JSON, exactly what `tfdoctor check --json` prints."""
        from tfdoctor.render.json import dumps

        return dumps(self.to_dict())

    def to_markdown(self) -> str:
        """The report as Markdown for a bug tracker, as `tfdoctor report --markdown` writes it."""
        from tfdoctor.render.markdown import render

        return render(self.to_dict())

    def _repr_html_(self) -> str:
        from tfdoctor.render.notebook import html

        return html(self.to_dict())

    def __rich__(self) -> Any:
        from tfdoctor.render.notebook import rich_renderable

        return rich_renderable(self.to_dict())

    def __repr__(self) -> str:
        roots = ", ".join(f.id for f in self.root_causes) or "none"
        return (
            f"<tfdoctor Report {self.mode} {self.created_at or '(no date)'}: {self.status}, "
            f"{len(self.findings)} findings, root causes: {roots}>"
        )
