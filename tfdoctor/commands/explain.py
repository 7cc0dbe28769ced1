"""`tfdoctor explain FILE|-`: diagnose a pasted log or command output."""

from __future__ import annotations

import argparse

from tfdoctor.commands import color


def run(args: argparse.Namespace) -> int:
    from tfdoctor.explain import explain_command

    return explain_command(args.file, as_json=args.json, color=color(args))
