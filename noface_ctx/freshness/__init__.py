"""Doc freshness: references, the git history index, staleness and clashes."""
