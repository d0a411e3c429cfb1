"""Layer 3b, never judge an edit twice: the judged-edit store (SQLite, Parquet exchange) and the
judging pass that goes through it."""
