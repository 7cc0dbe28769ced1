"""`tfdoctor fix`: repair the root causes in the target environment, then prove it with a check.

Exit status: 0 every targeted root cause is gone (with --dry-run: as `check`, 0 when nothing failed);
1 a root cause remains, a step failed (the snapshot was restored), the plan was refused or declined,
or another fix holds the environment's lock; 2 usage (no terminal to ask and no --yes; an interpreter
that is not a venv or conda env of this user).
"""

from __future__ import annotations

import argparse
import sys

from tfdoctor.commands import EXIT_FAIL, EXIT_USAGE, UsageError, emit, resolve_python


def run(args: argparse.Namespace) -> int:
    from tfdoctor import envstate as es
    from tfdoctor import repair

    python = resolve_python(args.python) if args.python else sys.executable
    interactive = repair.interactive()
    if not (args.yes or args.dry_run or interactive):
        raise UsageError("tfdoctor: fix changes the environment only with consent: run it at a terminal,"
                         " or pass --yes (or --dry-run to see the plan)")
    ask = repair.terminal_ask if interactive else None

    def say(text: str) -> None:
        emit(text + "\n")

    try:
        if args.undo:
            return repair.run_undo(python, yes=args.yes, ask=ask, say=say).exit_code
        return repair.run_fix(python, dry_run=args.dry_run, yes=args.yes,
                              allow_tensorflow_change=args.allow_tensorflow_change, timeout=args.timeout,
                              ask=ask, say=say).exit_code
    except es.EnvError as exc:  # another fix holds the lock: 1; an environment fix may not change: 2
        print(str(exc), file=sys.stderr)
        return EXIT_FAIL if isinstance(exc, es.Locked) else EXIT_USAGE
