"""The chance of passing: its fit, the rule that chooses it, and its quality on measured rows."""
