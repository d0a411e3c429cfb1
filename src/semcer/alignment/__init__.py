"""Layer 2, unit sequences to typed edits: the alignment, its per-line counts, and what a judge sees
of one edit (the marked pair). Imports only :mod:`semcer.text`."""
