"""The same engine on more machinery: the collector pause for large batches (more to come: streaming,
worker processes, Ray)."""
