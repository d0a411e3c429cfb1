"""Layer 6', for people: terminal tables, progress bars. Reports compute nothing: they show results."""
