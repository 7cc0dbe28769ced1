"""`python -m tfdoctor`."""

import sys

from tfdoctor.cli import main

sys.exit(main())
