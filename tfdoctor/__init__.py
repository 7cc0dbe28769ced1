"""tfdoctor: does TensorFlow really train on this machine's NVIDIA GPU, and if not, why.

    import tfdoctor
    report = tfdoctor.check(quick=True)   # the same work as `tfdoctor check --quick`
    report.ok, report.root_causes, report.to_json(), report.to_markdown()
    tfdoctor.explain(pasted_log)          # the same as `tfdoctor explain`
    tfdoctor.fix(dry_run=True)            # the same as `tfdoctor fix --dry-run` (yes=True applies)

`import tfdoctor` stays cheap: the API (tfdoctor/api.py) and the model load on first use.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["Finding", "InputError", "Report", "Status", "check", "explain", "fix"]

_LAZY = {
    "check": "tfdoctor.api",
    "explain": "tfdoctor.api",
    "fix": "tfdoctor.api",
    "InputError": "tfdoctor.api",
    "Report": "tfdoctor.model",
    "Finding": "tfdoctor.model",
    "Status": "tfdoctor.model",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tfdoctor' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
