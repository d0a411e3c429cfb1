"""Layer 6, the edge: formats in and out (collections, labels, judged edits, edit lists, JSON),
and atomic writing. Every reader reports a user mistake as an InputError naming the file and line."""
