"""A derived cache's version read off the code that fills it.

A cache of answers (a definition's signature, a file's declared names) is only right for the
code that wrote it. A schema number raised by hand is forgotten sooner or later, and an old
answer read back next to a new one looks like a change in the user's code. So the version kept
in a cache's header also holds a digest of the source files whose answers it keeps: other code,
other version, and the cache is dropped and filled again.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_HERE = Path(__file__).parent


def sources_version(schema: int, *modules: str, folder: Path = _HERE) -> int:
    """`schema` (0–127) in the top byte, a digest of `folder/<module>.py` for each module below
    it: a positive 32-bit `PRAGMA user_version`. A source that cannot be read (an install
    without sources) counts as empty, so the version is still the same from run to run."""
    digest = hashlib.sha1(str(schema).encode())
    for name in modules:
        try:
            digest.update((folder / f"{name}.py").read_bytes())
        except OSError:
            digest.update(b"\0")
    return (schema & 0x7F) << 24 | int.from_bytes(digest.digest()[:3], "big")
