"""Where caches live: the user cache root, and one folder per work tree (`repo_key`).

`config.cache_dir(config)` chooses among these (a repository's own `[context] cache_dir` may
win, confined to the repository and the user cache).
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


def prepare_cache_dir(target: Path, root: Path) -> None:
    """Once per directory and process: sweep temp files of killed writers and, for a cache inside
    the repository, tell `cachefile` which files there git tracks (never read)."""
    from noface_ctx import cachefile

    cachefile.sweep_tmp(target)
    try:
        rel = target.resolve().relative_to(Path(root).resolve())
    except ValueError:
        return  # outside the repository: git cannot track it
    import subprocess

    from noface_ctx import git

    try:
        out = subprocess.run(git.argv(root, "ls-files", "-z", "--", rel.as_posix() or "."),
                             capture_output=True, timeout=30, stdin=subprocess.DEVNULL, env=git.env())
    except (OSError, subprocess.TimeoutExpired):
        return
    if out.returncode == 0:
        names = [p for p in out.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
        cachefile.set_tracked({str(base / p) for base in {Path(root), Path(root).resolve()} for p in names})
