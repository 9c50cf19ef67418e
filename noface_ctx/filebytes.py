"""File bytes: the one binary sniff, content hash and atomic write every module uses."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

SNIFF_BYTES = 8192  # how much of a file's start decides whether it is binary


def looks_binary(data: bytes) -> bool:
    """Whether `data` (a file's first bytes, or all of them) holds a NUL in its first `SNIFF_BYTES`."""
    return b"\0" in data[:SNIFF_BYTES]


def content_hash(data: bytes) -> str:
    """A file content's hash, as the code index and the freshness word table keep it: a file
    whose stat changed but whose hash did not is not read again."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def temp_name(path: Path, suffix: str = ".tmp") -> Path:
    """A sibling temp path unique to this process and thread (`cachefile.sweep_tmp` removes
    the ones a killed writer left)."""
    return path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}{suffix}")


def write_atomic(path: Path, data: bytes) -> bool:
    """`data` into `path` through a temp file and `os.replace`: a reader sees the old file or the
    new one, never a mix; False when it cannot be written (the temp file is removed)."""
    tmp = temp_name(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        return True
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        return False
