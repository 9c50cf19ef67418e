"""Dense first stage: the definitions nearest the issue among every stored vector of the code index.

`noface-ctx index` embeds every definition outside test files (`vectors.embed_index`,
`embedded_paths`) and records, per file (its path and content hash), the content keys of its
definitions' texts (`save_chunk_keys`: `chunk-keys.npz` beside the vector store; numpy, loaded
with `allow_pickle=False`). A prompt then scores every
definition of every file unchanged since with one pass of dot products against the issue's
vector (`nearest`), and the best join BM25's pool (`rank.code`), so a definition that shares no
word with the issue can still be found. Definitions of files changed since `index` (or never
embedded) take part through BM25 only; `DenseStage.covered` says how many took part.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from noface_ctx import _write_gate as write_gate
from noface_ctx._filetypes import is_test_path

if TYPE_CHECKING:
    from noface_ctx.code.index import CodeIndex
    from noface_ctx.rank.vector_store import CachedEmbedder

KEYS_NAME = "chunk-keys.npz"
VERSION = 1  # bump whenever `rank.code.chunk_embed_text` writes a definition's text differently


@dataclass(frozen=True, slots=True)
class DenseStage:
    """Per definition that took part: its chunk id and cosine to the issue; and how many there are of all."""

    ids: np.ndarray  # chunk ids, int64
    cosine: np.ndarray  # float32, same order
    total: int  # definitions in the index

    @property
    def covered(self) -> int:
        return len(self.ids)


def _label(path: str, content_hash: str) -> bytes:
    return f"{path}\0{content_hash}".encode("utf-8", "surrogateescape")


def embedded_paths(index: CodeIndex) -> list[str]:
    """The files whose definitions `index` embeds and the dense stage searches: all but tests."""
    return [p for p in index.paths() if not is_test_path(p)]


def save_chunk_keys(store: CachedEmbedder, index: CodeIndex, keys: Sequence[str]) -> None:
    """Record `keys` (the content key of each definition's text, `embedded_paths` in order) by file."""
    paths = embedded_paths(index)
    counts = [len(index.chunk_ids(p)) for p in paths]
    if store.cache_dir is None or len(keys) != sum(counts):
        return
    labels = [_label(p, index.content_hash(p)) for p in paths]
    target = store.cache_dir / KEYS_NAME
    tmp = target.with_name(f"{target.stem}.{os.getpid()}.tmp.npz")
    with write_gate.open_stream(tmp) as f:  # the folder made, no link followed (`write_gate`)
        np.savez(f, version=np.array([VERSION], dtype=np.int64), labels=np.array(labels, dtype=bytes),
                 counts=np.array(counts, dtype=np.int64),
                 keys=np.array([k.encode("ascii") for k in keys], dtype="S32"))
    os.replace(tmp, target)


def nearest(store: CachedEmbedder, index: CodeIndex, query: np.ndarray) -> DenseStage | None:
    """Cosine of the issue (`query`, unit length) to every definition whose file's keys were
    recorded for its current content and whose vector is stored; None when none is."""
    if store.cache_dir is None:
        return None
    found = _chunk_keys(store.cache_dir / KEYS_NAME, index)
    if found is None:
        return None
    ids, keys, total = found
    cosine, known = store.similarities(keys, query)
    if not known.any():
        return None
    return DenseStage(ids[known], cosine[known], total)


def _chunk_keys(path: Path, index: CodeIndex) -> tuple[np.ndarray, list[str], int] | None:
    """(chunk ids, content keys) of the definitions whose file is recorded with its current
    content, and how many definitions `index` would have recorded (`embedded_paths`)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    stamp = (str(path), st.st_size, st.st_mtime_ns)
    hit = index.memo.get("dense.chunk_keys")  # kept with the index it was read for
    if isinstance(hit, tuple) and hit[0] == stamp:
        return hit[1]  # type: ignore[no-any-return]
    try:
        with np.load(path, allow_pickle=False) as z:
            version, labels, counts, keys = z["version"], z["labels"], z["counts"], z["keys"]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError):
        return None  # missing or damaged: the dense stage waits for the next `index`
    if version.tolist() != [VERSION] or labels.ndim != 1 or counts.shape != labels.shape or keys.ndim != 1 \
            or labels.dtype.kind != "S" or keys.dtype.kind != "S" or counts.dtype.kind not in "iu" \
            or int(counts.sum()) != len(keys) or (counts < 0).any():
        return None
    starts = np.concatenate([[0], np.cumsum(counts)])
    where = {bytes(lab): k for k, lab in enumerate(labels.tolist())}
    ids: list[int] = []
    picked: list[int] = []
    total = 0
    for path_ in embedded_paths(index):
        k = where.get(_label(path_, index.content_hash(path_)))
        chunk_ids = index.chunk_ids(path_)
        total += len(chunk_ids)
        if k is None or int(counts[k]) != len(chunk_ids):
            continue  # changed since `index`: BM25 only
        ids.extend(chunk_ids)
        picked.extend(range(int(starts[k]), int(starts[k + 1])))
    found = (np.array(ids, dtype=np.int64), [bytes(b).decode("ascii", "replace") for b in keys[picked].tolist()], total)
    index.memo["dense.chunk_keys"] = (stamp, found)
    return found
