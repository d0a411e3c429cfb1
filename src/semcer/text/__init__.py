"""Layer 1, what is compared: units (code points or grapheme clusters), text policies, scripts.

Nothing here knows about alignment, judges or scores. ``tables/`` holds generated Unicode tables.
"""
