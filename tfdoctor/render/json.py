"""The report as JSON (the contract's shape: see tfdoctor/schema/report.schema.json)."""

from __future__ import annotations

import json
from typing import Any


def dumps(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n"
