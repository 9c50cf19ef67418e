"""The design docs: the vault, frontmatter, wikilinks and sections."""
