"""`tfdoctor fleet`: many nodes' reports side by side, drift highlighted."""

from __future__ import annotations

import argparse
import sys

from tfdoctor.commands import EXIT_FAIL, EXIT_OK, EXIT_USAGE, color


def run(args: argparse.Namespace) -> int:
    """Print the fleet (table or JSON); exit 2 if any report was unreadable, else 1 if any failed."""
    from tfdoctor.fleet import build, render_table, write_json
    from tfdoctor.render import sanitize

    fleet = build(args.reports)
    if args.json:
        write_json(fleet)
    else:
        render_table(fleet, color(args))  # each cell made inert: saved reports are untrusted text
    bad = [n for n in fleet["nodes"] if n["error"]]
    if bad:
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        print(sanitize.line(f"tfdoctor: {bad[0]['file']}: {bad[0]['error']}{more}"), file=sys.stderr)
        return EXIT_USAGE
    return EXIT_FAIL if fleet["summary"]["fail"] else EXIT_OK
