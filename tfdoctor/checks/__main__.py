"""`python -m tfdoctor.checks > docs/checks.md` regenerates the catalogue page."""

import sys

from tfdoctor.checks import catalogue_markdown

sys.stdout.write(catalogue_markdown())
