"""The repository's files and the one gate that decides what may enter a prompt."""
