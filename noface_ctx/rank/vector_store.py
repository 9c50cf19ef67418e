"""The on-disk vector store: `CachedEmbedder` wraps any `Embedder` with vectors kept by (model,
content hash), a memory-mapped matrix plus a small side file for new vectors (numpy,
`allow_pickle=False`: never a pickle). `noface-ctx index` fills it; a prompt embeds only what is
missing (its issue, after `index`).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from noface_ctx import _write_gate as write_gate
from noface_ctx.rank.embed import Embedder

__all__ = ["DELTA_MAX", "CachedEmbedder", "content_key"]


def content_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


DELTA_MAX = 4096  # vectors kept in the small side file before `save` rewrites the main matrix


class CachedEmbedder:
    """Wraps an embedder with an on-disk cache keyed by (model, content hash).

    The cache is one `.npy` matrix plus a JSON key list per model, and a small side file
    (`.delta.npz`: keys and vectors) for the vectors added since; each is replaced atomically
    under a file lock, and a corrupt one is discarded and rebuilt. A prompt that embeds only its
    issue therefore writes a few kilobytes, not the whole matrix (80 MB on django); the matrix is
    rewritten when the side file passes `DELTA_MAX` vectors or when vectors are dropped.
    The stored matrix stays memory-mapped: only a key -> row map is held in memory (no per-row
    objects), and rows are read when a text asks for them.
    """

    def __init__(self, inner: Embedder, cache_dir: str | Path | None) -> None:
        self.inner = inner
        self.name = inner.name
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self._rows: dict[str, int] = {}  # key -> row of the stored (memory-mapped) matrix
        self._matrix: np.ndarray | None = None
        self._delta: dict[str, np.ndarray] = {}  # stored in the side file
        self._new: dict[str, np.ndarray] = {}  # not saved yet
        self._loaded = False
        self._dirty = False
        self._pruned = False  # vectors were dropped: the next save rewrites the matrix
        # one caller at a time: `save` swaps the matrix and its row map together (the MCP server
        # and an orchestrator may build prompts from several threads)
        self._lock = threading.RLock()
        self.misses = 0  # texts this process had to embed (not found in the cache)

    def _paths(self) -> tuple[Path, Path, Path]:
        assert self.cache_dir is not None
        stem = "emb-" + hashlib.sha1(self.name.encode()).hexdigest()[:12]
        return (self.cache_dir / f"{stem}.npy", self.cache_dir / f"{stem}.json", self.cache_dir / f"{stem}.lock")

    def _delta_path(self) -> Path:
        npy = self._paths()[0]
        return npy.with_name(npy.stem + ".delta.npz")

    def _load(self) -> None:
        if self._loaded or self.cache_dir is None:
            self._loaded = True
            return
        self._loaded = True
        npy, keys_path, _ = self._paths()
        try:
            keys = json.loads(keys_path.read_text())
            matrix = np.load(npy, allow_pickle=False, mmap_mode="r")  # rows are read when used
            if isinstance(keys, list) and matrix.ndim == 2 and len(keys) == matrix.shape[0]:
                self._matrix = matrix
                self._rows = {k: i for i, k in enumerate(keys)}
        except (OSError, ValueError):
            pass  # missing or corrupt: start empty, rebuilt on save
        try:
            with np.load(self._delta_path(), allow_pickle=False) as z:
                dkeys, dvecs = z["keys"], z["vectors"]
            dim = self._matrix.shape[1] if self._matrix is not None else dvecs.shape[-1]
            if dkeys.ndim == 1 and dvecs.shape == (len(dkeys), dim) and dvecs.dtype == np.float32:
                self._delta = dict(zip((k.decode("ascii") for k in dkeys.tolist()), dvecs, strict=True))
        except (OSError, ValueError, KeyError, UnicodeDecodeError, AttributeError, zipfile.BadZipFile, EOFError):
            pass  # missing or corrupt side file: its vectors are embedded again when needed

    def __contains__(self, key: str) -> bool:
        return key in self._new or key in self._delta or key in self._rows

    def __len__(self) -> int:
        self._load()
        return len(self._rows) + len(self._delta.keys() - self._rows.keys()) + len(self._new)

    def _vectors(self, keys: Sequence[str]) -> np.ndarray:
        """The vectors of `keys`, all known, as one float32 matrix in their order."""
        held = [(j, self._new.get(k, self._delta.get(k))) for j, k in enumerate(keys)]
        fresh = [(j, v) for j, v in held if v is not None]
        stored = [(j, self._rows[k]) for (j, v), k in zip(held, keys, strict=True) if v is None]
        dim = fresh[0][1].shape[0] if fresh else self._matrix.shape[1]  # type: ignore[union-attr]
        out = np.empty((len(keys), dim), dtype=np.float32)
        for j, vec in fresh:
            out[j] = vec
        if stored:
            at, rows = zip(*stored, strict=True)
            out[list(at)] = self._matrix[np.array(rows)]  # type: ignore[index]
        return out

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        self._load()
        keys = [content_key(t) for t in texts]
        todo = {k: t for k, t in zip(keys, texts, strict=False) if k not in self}
        if todo:
            self.misses += len(todo)
            fresh = np.asarray(self.inner.embed(list(todo.values())), dtype=np.float32)
            self._new.update(zip(todo.keys(), fresh, strict=False))
            self._dirty = True
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return self._vectors(keys)

    def similarities(self, keys: Sequence[str], query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(dot product of each key's stored vector with `query`, whether it is stored): the
        matrix is read in slices of rows in file order (all of it when most rows are asked for),
        never copied whole."""
        with self._lock:
            self._load()
            out = np.zeros(len(keys), dtype=np.float32)
            known = np.zeros(len(keys), dtype=bool)
            q = np.asarray(query, dtype=np.float32)
            at, rows = [], []
            for j, k in enumerate(keys):
                vec = self._new.get(k)
                if vec is None:
                    vec = self._delta.get(k)
                if vec is not None:
                    out[j], known[j] = float(vec @ q), True
                    continue
                row = self._rows.get(k)
                if row is not None:
                    at.append(j)
                    rows.append(row)
            m = self._matrix
            if rows and m is not None:
                where, picked = np.array(at, dtype=np.int64), np.array(rows, dtype=np.int64)
                if len(picked) * 4 > len(m):  # most of the matrix: one pass over contiguous slices
                    full = np.empty(len(m), dtype=np.float32)
                    for s in range(0, len(m), 8192):
                        full[s:s + 8192] = m[s:s + 8192] @ q
                    out[where] = full[picked]
                else:
                    order = np.argsort(picked, kind="stable")
                    for s in range(0, len(order), 8192):
                        part = order[s:s + 8192]
                        out[where[part]] = m[picked[part]] @ q
                known[where] = True
            return out, known

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The texts (once each) whose vectors are not stored yet."""
        todo = {content_key(t): t for t in texts}
        with self._lock:
            self._load()
            return [t for k, t in todo.items() if k not in self]

    def keep_only(self, texts: Sequence[str]) -> int:
        """Forget stored vectors of any other text (a deleted or changed definition); how many."""
        keep = {content_key(t) for t in texts}
        with self._lock:
            return self._keep_only(keep)

    def _keep_only(self, keep: set[str]) -> int:
        self._load()
        gone: set[str] = set()
        for table in (self._rows, self._delta, self._new):
            drop = [k for k in table if k not in keep]
            for k in drop:
                del table[k]
            gone.update(drop)
        if gone:
            self._dirty = self._pruned = True
        return len(gone)

    def save(self) -> None:
        """Persist new vectors; safe with concurrent writers (last complete write wins). Few new
        vectors go to the side file; many, or any dropped, rewrite the matrix."""
        with self._lock:
            self._save()

    def _save(self) -> None:
        if not self._dirty or self.cache_dir is None or not len(self):
            return
        from filelock import FileLock

        write_gate.make_dirs(self.cache_dir)
        npy, keys_path, lock = self._paths()
        delta = {**self._delta, **self._new}
        with FileLock(str(write_gate.checked_file(lock)), timeout=60):
            if self._matrix is not None and not self._pruned and len(delta) <= DELTA_MAX:
                self._save_delta(delta)
                self._delta, self._new = delta, {}
            else:
                self._save_matrix(npy, keys_path, delta)
        self._dirty = self._pruned = False

    def _save_delta(self, delta: dict[str, np.ndarray]) -> None:
        path = self._delta_path()
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
        keys = np.array([k.encode("ascii") for k in delta], dtype="S32")
        with write_gate.open_stream(tmp) as f:
            np.savez(f, keys=keys, vectors=np.stack(list(delta.values())).astype(np.float32))
        os.replace(tmp, path)

    def _save_matrix(self, npy: Path, keys_path: Path, delta: dict[str, np.ndarray]) -> None:
        """Write every vector into a new matrix (streamed: never two copies in memory) and
        empty the side file."""
        extra = {k: v for k, v in delta.items() if k not in self._rows}
        keys = [*self._rows, *extra]
        dim = next(iter(extra.values())).shape[0] if extra else self._matrix.shape[1]  # type: ignore[union-attr]
        tmp_npy = npy.with_suffix(f".{os.getpid()}.tmp.npy")
        tmp_keys = keys_path.with_suffix(f".{os.getpid()}.tmp")
        rows = np.fromiter(self._rows.values(), dtype=np.int64, count=len(self._rows))
        step = 8192  # copy stored rows in slices: never the whole matrix in memory at once
        with write_gate.open_stream(tmp_npy) as f:  # plain writes, not a writable map (whose pages count as RSS)
            np.lib.format.write_array_header_1_0(
                f, {"descr": np.lib.format.dtype_to_descr(np.dtype(np.float32)), "fortran_order": False,
                    "shape": (len(keys), dim)})
            for s in range(0, len(rows), step):
                np.ascontiguousarray(self._matrix[rows[s:s + step]], dtype=np.float32).tofile(f)  # type: ignore[index]
            if extra:
                np.stack(list(extra.values())).astype(np.float32).tofile(f)
        with write_gate.open_stream(tmp_keys) as fk:
            fk.write(json.dumps(keys).encode("utf-8"))
        matrix = np.load(tmp_npy, allow_pickle=False, mmap_mode="r")  # what this process reads from now
        os.replace(tmp_npy, npy)
        os.replace(tmp_keys, keys_path)
        self._delta_path().unlink(missing_ok=True)
        self._matrix, self._rows, self._delta, self._new = matrix, {k: i for i, k in enumerate(keys)}, {}, {}
