"""Layer 4, rows of sufficient statistics -> CER and semCER: exact sums of lines, one aggregation
rule for every path, the typed results and the signature. No JSON or printing here."""
