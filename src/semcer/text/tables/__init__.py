"""GENERATED tables (``tools/gen_*.py``); never edited by hand. Each records the library releases
it was made for, and the code that reads it falls back to computing at run time for other releases."""
