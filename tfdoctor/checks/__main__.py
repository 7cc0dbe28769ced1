"""`python -m tfdoctor.checks > docs/checks.md` regenerates the catalogue page."""

import sys

from tfdoctor.commands.checks import markdown

sys.stdout.write(markdown())
