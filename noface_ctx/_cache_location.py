"""Where caches live: the user cache root, and one folder per work tree (`repo_key`).

`config.cache_dir(config)` chooses among these (a repository's own `[context] cache_dir` may
win, confined to the repository and the user cache). Imports nothing of the package: the writer
gate (`write_gate`) asks it where the user cache is.
"""

from __future__ import annotations

import re
from pathlib import Path


def user_cache_base() -> Path:
    """The user's cache root for this tool: `$NOFACE_CTX_CACHE_DIR`, else
    `$XDG_CACHE_HOME/noface-ctx`, else `~/.cache/noface-ctx` (never inside a work tree)."""
    import os

    if os.environ.get("NOFACE_CTX_CACHE_DIR"):
        return Path(os.environ["NOFACE_CTX_CACHE_DIR"]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "noface-ctx"
    return Path.home() / ".cache" / "noface-ctx"


def repo_key(root: Path) -> str:
    """`<readable name>-<hash of the resolved root>`: one cache per work tree."""
    import hashlib

    resolved = str(Path(root).resolve())
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(resolved).name)[:40] or "root"
    return f"{name}-{hashlib.sha1(resolved.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}"
