"""The one thing pyproject.toml cannot yet say without an experimental table: semcer's optional C parts.

``optional=True``: where they cannot be compiled (no C compiler), the install still succeeds and
semcer runs the same code in Python, with identical results: the engine's per-line loop
(``semcer.alignment.engine._python_lines``), the lexicon tables' lookup
(``semcer.judges.rubric.lexicon_store.FileTable._python_get``) and the store's packing of a marked pair
(``semcer.store.packing._python_pack_pair``, which needs zlib's headers to be compiled).
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("semcer.alignment._speedups", ["src/semcer/alignment/_speedups.c"], optional=True),
    Extension("semcer.judges.rubric._lexicon_speedups", ["src/semcer/judges/rubric/_lexicon_speedups.c"], optional=True),
    Extension("semcer.store._packing_speedups", ["src/semcer/store/_packing_speedups.c"], libraries=["z"], optional=True),
])
