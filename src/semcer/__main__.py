"""``python -m semcer`` runs the command line."""

import sys

from semcer.cli import run

sys.exit(run())
