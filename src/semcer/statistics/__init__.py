"""Layer 5, inference over metric rows and judged edits: correlations, bootstrap intervals, judge
evaluation. Never re-aligns text. numpy and scipy only."""
