"""One pickled value per cache file under `cache_dir(config)`, kept in memory between builds.

`load` returns what the last `save` wrote, or None when the file is missing, corrupt, or from
another format `version`. A file this process already read (or wrote) is not read again while
its size and mtime are unchanged, so a warm build in the same process costs one `stat`.
Writes go to a temp file swapped in with `os.replace`: a reader never sees half a file, and of
two concurrent writers the last one wins (every cache here is derived data, so that is safe).
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

_MEMO: dict[str, tuple[tuple[int, int], Any, Any]] = {}  # path -> ((mtime_ns, size), version, value)
_MEMO_FILES = 64


def load(path: Path | None, version: Any) -> Any | None:
    """The value stored at `path` with this `version`, or None."""
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    stamp = (st.st_mtime_ns, st.st_size)
    memo = _MEMO.get(str(path))
    if memo is not None and memo[0] == stamp:
        return memo[2] if memo[1] == version else None
    try:
        with open(path, "rb") as fh:
            stored_version, value = pickle.load(fh)
    except Exception:  # missing, truncated, or written by an incompatible version: rebuild
        return None
    _remember(str(path), stamp, stored_version, value)
    return value if stored_version == version else None


def save(path: Path | None, version: Any, value: Any) -> bool:
    """Store `value` atomically; False (and nothing raised) when the cache cannot be written."""
    if path is None:
        return False
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            pickle.dump((version, value), fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        st = os.stat(path)
    except (OSError, pickle.PicklingError):
        try:
            tmp.unlink()
        except OSError:
            pass
        return False
    _remember(str(path), (st.st_mtime_ns, st.st_size), version, value)
    return True


def _remember(key: str, stamp: tuple[int, int], version: Any, value: Any) -> None:
    if key not in _MEMO and len(_MEMO) >= _MEMO_FILES:
        _MEMO.pop(next(iter(_MEMO)))
    _MEMO[key] = (stamp, version, value)
