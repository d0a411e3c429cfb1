"""``python -m semcer`` runs the command line."""

import sys

from . import main

sys.exit(main())
