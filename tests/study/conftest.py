"""The study tests' helper module (studyhelpers.py, beside this file) made importable."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
