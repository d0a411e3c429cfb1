"""The one thing pyproject.toml cannot yet say without an experimental table: semcer's optional C loop.

``optional=True``: where it cannot be compiled (no C compiler), the install still succeeds and
semcer runs the same loop in Python (``semcer.alignment.engine._python_lines``), with identical results.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("semcer.alignment._speedups", ["src/semcer/alignment/_speedups.c"], optional=True)])
