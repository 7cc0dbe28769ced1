"""The report as JSON (the contract's shape: see tfdoctor/schema/report.schema.json)."""

from __future__ import annotations

from typing import Any

from tfdoctor.jsonsafe import dumps as strict_dumps


def dumps(report: dict[str, Any]) -> str:
    """Strict JSON: no NaN or Infinity, whatever the facts hold (see tfdoctor/jsonsafe.py)."""
    return strict_dumps(report, indent=2, ensure_ascii=False) + "\n"
