"""Source code: tree-sitter grammars, definitions, and the on-disk code index."""
