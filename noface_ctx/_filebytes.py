"""File bytes: the one binary sniff and content hash every module uses (writes: `write_gate`)."""

from __future__ import annotations

import hashlib
from pathlib import Path

SNIFF_BYTES = 8192  # how much of a file's start decides whether it is binary


def looks_binary(data: bytes) -> bool:
    """Whether `data` (a file's first bytes, or all of them) holds a NUL in its first `SNIFF_BYTES`."""
    return b"\0" in data[:SNIFF_BYTES]


def content_hash(data: bytes) -> str:
    """A file content's hash, as the code index and the freshness word table keep it: a file
    whose stat changed but whose hash did not is not read again."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def read_head(path: Path, limit: int) -> str:
    """The first `limit` bytes of `path` as text (undecodable bytes replaced); "" when unreadable."""
    try:
        with path.open("rb") as fh:
            return fh.read(limit).decode("utf-8", "replace")
    except OSError:
        return ""
