"""The report's JSON Schema, shipped as package data (report.schema.json)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

SCHEMA_FILE = "report.schema.json"


def load_schema() -> dict[str, Any]:
    """The report schema as a fresh dict, read from the installed package."""
    text = resources.files(__name__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)
