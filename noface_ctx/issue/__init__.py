"""Issues from beads, JSON, Markdown or stdin, and their manifests."""
