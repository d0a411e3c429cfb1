"""Training judges from judged edits (the transformer student); a layer beside the Python API, above
the readers and statistics it uses. Needs the ``hf`` extra (torch, transformers)."""
