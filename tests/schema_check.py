"""`validate(report)`: every report a test produces goes through the shipped JSON Schema."""

from __future__ import annotations

from typing import Any

import jsonschema

from tfdoctor.schema import load_schema

_VALIDATOR = jsonschema.Draft202012Validator(
    load_schema(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
)


def errors(report: Any) -> list[str]:
    """Every schema violation, as 'path: message' lines (empty when valid)."""
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
        for e in sorted(_VALIDATOR.iter_errors(report), key=lambda e: list(map(str, e.absolute_path)))
    ]


def validate(report: Any) -> Any:
    """Raise AssertionError listing every violation; return the report for chaining."""
    problems = errors(report)
    assert not problems, "report does not match tfdoctor/schema/report.schema.json:\n" + "\n".join(problems)
    return report
