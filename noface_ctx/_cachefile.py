"""One value per cache file under `cache_dir(config)`, kept in memory between builds.

No code runs from data: a cache file is JSON plus raw numeric arrays, never a pickle (a
repository can commit anything, `.noface/` included, and a cache dir can be pointed at it).
The file is `MAGIC`, an 8-byte header length, a JSON header, then the array bytes:

    {"format": 1, "version": <the cache's VERSION>, "arrays": [[dtype, shape, offset, nbytes], ...],
     "value": <tagged JSON>}

JSON stands for itself (str-keyed dicts, lists, str, int, float, bool, None). Anything else is a
JSON object holding the key "\\u0000" naming its type: "t" tuple, "s" set, "f" frozenset,
"b" bytes (base64), "a" numeric numpy array (index into "arrays"; dtypes "biuf" only, never
object), "d" dict with non-str keys (pairs), "o" one of the allow-listed classes in `_CLASSES`
(dataclasses by field, others through their own `to_state` / `from_state`). Decoding builds only
those; an unknown tag, a class not on the list, a wrong field, a bad array or any other surprise
makes the whole file count as absent (the cache is rebuilt), never a crash.

`load` returns what the last `save` wrote, or None when the file is missing, corrupt, tracked by
git (`set_tracked`), or from another format `version`. A file this process already read (or
wrote) is not read again while its size and mtime are unchanged, so a warm build in the same
process costs one `stat`. Writes go to a temp file swapped in with `os.replace`: a reader never
sees half a file, and of two concurrent writers the last one wins (every cache here is derived
data, so that is safe). `sweep_tmp` removes temp files left by killed writers.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import struct
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noface_ctx._fieldcheck import checker, field_types
from noface_ctx._state import Memo, memo
from noface_ctx._write_gate import write_atomic

if TYPE_CHECKING:  # imported when an array is read: `check-docs` never pays for numpy
    import numpy as np

FORMAT = 1
MAGIC = b"NFCTX-CACHE\n"
MAX_HEADER = 1 << 30
TAG = "\x00"
_ALIGN = 16
TMP_MAX_AGE = 10 * 60  # seconds: a temp file older than this belongs to a killed writer

# path -> ((mtime_ns, size), version, value): a value read once is reused while the file is unchanged
_MEMO: Memo[str, tuple[tuple[int, int], Any, Any]] = memo("cachefile.values", maxsize=64)
# Absolute paths of cache files git tracks: never read. A security fact, not a memo: only ever
# grows, under its lock, and `state.clear_all()` does not reach it.
_TRACKED: set[str] = set()
_TRACKED_LOCK = threading.Lock()


class CacheFormatError(ValueError):
    """A cache file that does not decode to what was saved (treated as absent)."""


# --------------------------------------------------------------------------- allow-listed classes


def _classes() -> dict[str, tuple[type, Callable[[Any], Any] | None, Callable[[Any], Any] | None]]:
    from noface_ctx._lexical import BM25
    from noface_ctx.datatypes import Doc, ManifestEntry, MissingRef, Section, Staleness, WikiLink

    out: dict[str, tuple[type, Any, Any]] = {}
    for cls in (Doc, Section, WikiLink, MissingRef, Staleness, ManifestEntry):
        out[cls.__name__] = (cls, None, None)
    out["BM25"] = (BM25, BM25.to_state, BM25.from_state)
    return out


_CLASS_CACHE: Memo[str, dict[str, Any]] = memo("cachefile.classes", maxsize=1)


def _class_table() -> dict[str, Any]:
    table = _CLASS_CACHE.get("all")
    return table if table is not None else _CLASS_CACHE.put("all", _classes())


# --------------------------------------------------------------------------- encoding


class _Encoder:
    def __init__(self) -> None:
        self.arrays: list[np.ndarray] = []
        self.by_type: dict[type, str] = {cls: name for name, (cls, _, _) in _class_table().items()}

    def enc(self, v: Any) -> Any:
        t = type(v)
        if t is str or t is int or t is float or t is bool or v is None:
            return v
        if t is list:
            if all(type(x) is str for x in v):
                return v
            return [self.enc(x) for x in v]
        if t is dict:
            if TAG not in v and all(type(k) is str for k in v):
                return {k: self.enc(x) for k, x in v.items()}
            return {TAG: "d", "v": [[self.enc(k), self.enc(x)] for k, x in v.items()]}
        if t is tuple:
            return {TAG: "t", "v": [self.enc(x) for x in v]}
        if t is set or t is frozenset:
            items = sorted(v, key=repr)
            return {TAG: "s" if t is set else "f", "v": [self.enc(x) for x in items]}
        if t is bytes:
            return {TAG: "b", "v": base64.b64encode(v).decode("ascii")}
        np = sys.modules.get("numpy")  # without numpy loaded, no value is an array
        if np is not None and isinstance(v, np.ndarray):
            if v.dtype.kind not in "biuf":
                raise TypeError(f"cannot cache an array of dtype {v.dtype}")
            self.arrays.append(np.ascontiguousarray(v))
            return {TAG: "a", "v": len(self.arrays) - 1}
        if np is not None and isinstance(v, np.integer):
            return int(v)
        if np is not None and isinstance(v, np.floating):
            return float(v)
        name = self.by_type.get(t)
        if name is None:
            raise TypeError(f"cannot cache a {t.__name__}")
        _, to_state, _ = _class_table()[name]
        if to_state is not None:
            return {TAG: "o", "c": name, "v": self.enc(to_state(v))}
        fields = {f.name: self.enc(getattr(v, f.name)) for f in dataclasses.fields(v)}
        return {TAG: "o", "c": name, "v": fields}


def encode(version: object, value: object) -> bytes:
    """The bytes of a cache file holding `value` (TypeError for a value it cannot hold)."""
    e = _Encoder()
    body = e.enc(value)
    arrays, parts, offset = [], [], 0
    for a in e.arrays:  # each array starts on a 16-byte boundary of the blob
        pad = -offset % _ALIGN
        parts += [b"\0" * pad, a.tobytes()]
        offset += pad
        arrays.append([a.dtype.str, list(a.shape), offset, a.nbytes])
        offset += a.nbytes
    header = json.dumps(
        {"format": FORMAT, "version": e.enc(version), "arrays": arrays, "value": body},
        ensure_ascii=False, separators=(",", ":"),
    ).encode("utf-8", "surrogatepass")
    header += b" " * (-(len(MAGIC) + 8 + len(header)) % _ALIGN)  # so the blob is aligned too
    return b"".join([MAGIC, struct.pack("<Q", len(header)), header, *parts])


def decode(data: bytes | bytearray | memoryview) -> tuple[Any, Any]:
    """(version, value) from cache-file bytes; CacheFormatError for anything else. Arrays are
    views into `data`: pass a writable buffer (as `load` does) to get writable arrays."""
    view = memoryview(data)
    if view.readonly:
        view = memoryview(bytearray(view))
    try:
        return _decode(view)
    except CacheFormatError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError, MemoryError, OverflowError) as exc:
        raise CacheFormatError(f"{type(exc).__name__}: {exc}") from None


def _decode(data: memoryview) -> tuple[Any, Any]:
    n = len(MAGIC)
    if bytes(data[:n]) != MAGIC or len(data) < n + 8:
        raise CacheFormatError("not a noface-ctx cache file")
    (hlen,) = struct.unpack("<Q", data[n : n + 8])
    if hlen > min(MAX_HEADER, len(data) - n - 8):
        raise CacheFormatError("header length out of range")
    text = bytes(data[n + 8 : n + 8 + hlen]).decode("utf-8", "surrogatepass")
    # The arrays are read first, so that values are built while the JSON is parsed (one pass,
    # in `object_hook`); the table read here must be the header's own (checked below).
    specs = _array_specs(text)
    arrays = _arrays(specs, data[n + 8 + hlen :])
    header = json.loads(text, object_hook=_Decoder(arrays).hook)
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise CacheFormatError("unknown cache format")
    if header["arrays"] != specs:
        raise CacheFormatError("array table does not match")
    return header["version"], header["value"]


def _array_specs(text: str) -> Any:
    """The header's "arrays" table, read ahead of the rest (`save` writes it before "value")."""
    at = text.find('"arrays":')
    if at == -1:
        return []
    at += len('"arrays":')
    while text[at:at + 1] in (" ", "\t", "\n", "\r"):
        at += 1
    return json.JSONDecoder().raw_decode(text, at)[0]


def _arrays(specs: Any, blob: memoryview) -> list[np.ndarray]:
    if not isinstance(specs, list):
        raise CacheFormatError("bad array table")
    arrays = []
    if specs:
        import numpy as np
    for spec in specs:
        dtype_s, shape, off, nbytes = spec
        dtype = np.dtype(str(dtype_s))
        if dtype.kind not in "biuf" or dtype.hasobject:
            raise CacheFormatError(f"array dtype {dtype} not allowed")
        shape = tuple(int(s) for s in shape)
        if any(s < 0 for s in shape) or int(np.prod(shape, dtype=np.int64)) * dtype.itemsize != nbytes:
            raise CacheFormatError("array size does not match its shape")
        if off < 0 or off + nbytes > len(blob):
            raise CacheFormatError("array outside the file")
        arrays.append(np.frombuffer(blob, dtype=dtype, count=int(np.prod(shape, dtype=np.int64)), offset=off).reshape(shape))
    return arrays


class _Decoder:
    """Builds each tagged JSON object as the parser finishes it (`hook`): its parts are built
    already, so no second walk over the value is needed."""

    def __init__(self, arrays: list[np.ndarray]) -> None:
        self.arrays = arrays
        self.classes = _class_table()
        # class name -> (its field names, (field, check) pairs): built once per file, used per object
        self.checks: dict[str, tuple[frozenset[str], list[tuple[str, Callable[[Any], bool]]]]] = {}

    def hook(self, v: dict[str, Any]) -> Any:
        tag = v.get(TAG)
        if tag is None:
            return v
        if tag == "o":
            return self._object(v["c"], v["v"])
        inner = v["v"]
        if tag == "b":
            return base64.b64decode(inner, validate=True)
        if tag == "a":
            if type(inner) is not int or not 0 <= inner < len(self.arrays):
                raise CacheFormatError("no such array")
            return self.arrays[inner]
        if type(inner) is not list:
            raise CacheFormatError(f"tag {tag!r} holds no list")
        if tag == "t":
            return tuple(inner)
        if tag == "s":
            return set(inner)
        if tag == "f":
            return frozenset(inner)
        if tag == "d":
            return dict(inner)
        raise CacheFormatError(f"unknown tag {tag!r}")

    def _object(self, name: Any, state: Any) -> Any:
        entry = self.classes.get(name)
        if entry is None:
            raise CacheFormatError(f"class {name!r} not allowed")
        cls, _, from_state = entry
        if from_state is not None:
            return from_state(state)
        checks = self.checks.get(name)
        if checks is None:
            fields = field_types(cls)
            checks = self.checks[name] = (frozenset(fields), [(n, checker(t, self.classes)) for n, t in fields.items()])
        if not isinstance(state, dict) or state.keys() != checks[0]:
            raise CacheFormatError(f"fields of {name} do not match")
        for field_name, ok in checks[1]:
            if not ok(state[field_name]):
                raise CacheFormatError(f"{name}.{field_name}: not a {field_types(cls)[field_name]}")
        return cls(**state)


# --------------------------------------------------------------------------- files


def set_tracked(paths: set[str]) -> None:
    """Absolute paths of cache files git tracks in the repository: `load` never reads them."""
    with _TRACKED_LOCK:
        _TRACKED.update(paths)


def is_tracked(path: Path) -> bool:
    """Whether git tracks this cache file (a sqlite cache that is must not be opened either)."""
    with _TRACKED_LOCK:
        return str(path) in _TRACKED


def load(path: Path | None, version: object, valid: Callable[[Any], bool] | None = None) -> Any | None:
    """The value stored at `path` with this `version` (and passing `valid`, when given), or None."""
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = str(path)
    if is_tracked(Path(key)):
        return None
    stamp = (st.st_mtime_ns, st.st_size)
    seen = _MEMO.get(key)
    if seen is not None and seen[0] == stamp:
        return seen[2] if seen[1] == version else None  # validated when it was read
    try:
        buf = bytearray(st.st_size)  # writable, so arrays decoded from it are writable too
        with open(path, "rb") as fh:
            got = fh.readinto(buf)
        stored_version, value = decode(memoryview(buf)[:got])
    except (OSError, CacheFormatError):  # missing, truncated, foreign or from another version: rebuild
        return None
    if stored_version != version:
        return None
    if valid is not None:
        try:
            ok = bool(valid(value))
        except Exception:  # a malformed value may break the check itself: same answer
            ok = False
        if not ok:
            return None
    _remember(key, stamp, stored_version, value)
    return value


def read_json(path: Path) -> object:
    """A JSON cache file (bounded size and depth); ValueError when git tracks it, `InputError`
    when it is not JSON or too big or deep, OSError when it cannot be read."""
    if str(path) in _TRACKED:
        raise ValueError("tracked by git")
    from noface_ctx._bounded import read_json as bounded_read

    return bounded_read(path)


def save(path: Path | None, version: object, value: object) -> bool:
    """Store `value` atomically; False (and nothing raised) when the cache cannot be written."""
    if path is None or str(path) in _TRACKED:
        return False
    try:
        data = encode(version, value)
    except (TypeError, ValueError, RecursionError):
        return False
    if not write_atomic(path, data):
        return False
    try:
        st = os.stat(path)
    except OSError:
        return False
    _remember(str(path), (st.st_mtime_ns, st.st_size), version, value)
    return True


def prepare_dir(target: Path, root: Path) -> None:
    """Once per cache directory and process: sweep temp files of killed writers and, for a cache
    inside the repository, learn which files there git tracks (never read, written nor swept)."""
    try:
        rel = target.resolve().relative_to(Path(root).resolve())
    except ValueError:
        sweep_tmp(target)
        return  # outside the repository: git cannot track it
    import subprocess

    from noface_ctx import _git as git
    try:
        out = subprocess.run(git.argv(root, "ls-files", "-z", "--", rel.as_posix() or "."),
                             capture_output=True, timeout=30, stdin=subprocess.DEVNULL, env=git.env())
    except (OSError, subprocess.TimeoutExpired):
        return
    if out.returncode == 0:
        names = [p for p in out.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
        set_tracked({str(base / p) for base in {Path(root), Path(root).resolve()} for p in names})
    sweep_tmp(target)


def sweep_tmp(directory: Path, max_age: float = TMP_MAX_AGE, depth: int = 3) -> int:
    """Remove temp files of killed writers (`*.tmp`, `*.tmp.*`) older than `max_age` seconds,
    up to `depth` folder levels under `directory` (links are not followed); the count."""
    removed = 0
    now = time.time()
    base = len(Path(directory).parts)
    for folder, dirs, files in os.walk(directory):
        if len(Path(folder).parts) - base >= depth - 1:
            dirs[:] = []
        for name in files:
            if not (name.endswith(".tmp") or ".tmp." in name) or is_tracked(Path(folder, name)):
                continue
            p = Path(folder, name)
            try:
                st = p.lstat()
                if os.path.isfile(p) and not p.is_symlink() and now - st.st_mtime > max_age:
                    p.unlink()
                    removed += 1
            except OSError:
                pass
    return removed


def _remember(key: str, stamp: tuple[int, int], version: Any, value: Any) -> None:
    _MEMO.put(key, (stamp, version, value))
