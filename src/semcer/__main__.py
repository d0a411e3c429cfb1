"""``python -m semcer`` runs the command line."""

import sys

from semcer.cli import main

sys.exit(main())
