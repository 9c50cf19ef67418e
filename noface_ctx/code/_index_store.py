"""The code index on disk: its records, validation, loading, saving and lock.

One cache file (`index.cache`, the JSON + numeric arrays format of `noface_ctx._cachefile`: never
a pickle) under `cache_dir(config) / "code"`, holding per file its content hash, stat and chunk
range; per chunk its symbol, kind, parent and lines (loaded eagerly: ranking touches them all),
and its signature, docstring, references and language (one UTF-8 JSON byte range per file, in one
uint8 array, decoded when that file is used); the term counts of every chunk and the BM25 weights
built from them. An index that cannot be read, fails validation (`_valid`: shapes, ranges,
types), is tracked by git, or was written by another version, counts as absent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt

from noface_ctx import _cachefile as cachefile
from noface_ctx import _write_gate as write_gate
from noface_ctx._lexical import TermMatrix
from noface_ctx.config import Config, cache_dir

if TYPE_CHECKING:
    from filelock import FileLock

INDEX_VERSION = 6
INDEX_NAME = "index.cache"
LOCK_NAME = "index.lock"


class FileRecord(NamedTuple):
    """One indexed file: what tells whether it changed, and its chunk ids `lo` to `hi - 1`."""

    hash: str
    size: int
    mtime_ns: int
    language: str | None
    lo: int  # first chunk id
    hi: int  # one past the last chunk id


class ChunkDetail(NamedTuple):
    """The per-chunk fields stored in the file's JSON byte range (decoded on demand)."""

    signature: str
    docstring: str
    references: tuple[str, ...]
    language: str | None


NO_DETAIL = ChunkDetail("", "", (), None)


class ChunkRow(NamedTuple):
    """Everything stored about one chunk but its path and text."""

    symbol: str
    kind: str
    start_line: int
    end_line: int
    signature: str
    docstring: str
    parent: str
    references: tuple[str, ...]
    language: str | None

    @property
    def detail(self) -> ChunkDetail:
        """The fields kept in the file's detail JSON."""
        return ChunkDetail(self.signature, self.docstring, self.references, self.language)


class TermCounts(NamedTuple):
    """Term counts chunk by chunk (CSR): chunk `i` has `terms[indptr[i]:indptr[i + 1]]`."""

    indptr: npt.NDArray[np.int64]
    terms: npt.NDArray[np.int32]
    counts: npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class IndexData:
    """The whole stored index, as loaded or as just assembled."""

    files: dict[str, FileRecord]
    file_order: list[str]  # sorted paths: file number i is file_order[i]
    symbols: list[str]
    kinds: list[str]
    parents: list[str]
    lines: npt.NDArray[np.int32]  # (n_chunks, 2) start and end lines
    details_blob: npt.NDArray[np.uint8]  # every file's detail JSON, in file order
    details_offsets: npt.NDArray[np.int64]  # file i's JSON is blob[offsets[i]:offsets[i + 1]]
    vocab: list[str]
    tf: TermCounts
    bm25: TermMatrix  # over chunks
    file_bm25: TermMatrix  # over files, in file order

    def detail_bytes(self, pos: int) -> bytes:
        """The detail JSON of file number `pos`."""
        return self.details_blob[int(self.details_offsets[pos]) : int(self.details_offsets[pos + 1])].tobytes()

    def to_state(self) -> dict[str, Any]:
        """The value stored in the cache file (key order and containers as every version wrote them)."""
        return {
            "version": INDEX_VERSION,
            "files": {p: tuple(rec) for p, rec in self.files.items()},
            "file_order": self.file_order,
            "symbols": self.symbols,
            "kinds": self.kinds,
            "parents": self.parents,
            "lines": self.lines,
            "details": {"blob": self.details_blob, "offsets": self.details_offsets},
            "vocab": self.vocab,
            "tf": dict(self.tf._asdict()),
            "bm25": dict(self.bm25._asdict()),
            "file_bm25": dict(self.file_bm25._asdict()),
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> IndexData:
        """The index `to_state` described (pass only states `_valid` accepted)."""
        return cls(
            files={p: FileRecord(*rec) for p, rec in state["files"].items()},
            file_order=state["file_order"],
            symbols=state["symbols"],
            kinds=state["kinds"],
            parents=state["parents"],
            lines=state["lines"],
            details_blob=state["details"]["blob"],
            details_offsets=state["details"]["offsets"],
            vocab=state["vocab"],
            tf=TermCounts(**state["tf"]),
            bm25=TermMatrix(**state["bm25"]),
            file_bm25=TermMatrix(**state["file_bm25"]),
        )


def index_dir(config: Config) -> Path | None:
    """The index's directory (created), or None when there is no writable cache directory."""
    try:
        return write_gate.make_dirs(cache_dir(config) / "code")
    except OSError:
        return None


def load(where: Path | None) -> tuple[IndexData | None, str]:
    """The stored index, or None with the reason it cannot be used."""
    if where is None:
        return None, "no writable cache directory"
    path = where / INDEX_NAME
    if not path.exists():
        return None, ""
    state = cachefile.load(path, INDEX_VERSION)
    if state is None:
        return None, "index unreadable, tracked by git or from another version, rebuilt"
    if not _valid(state):
        return None, "index fails validation, rebuilt"
    return IndexData.from_state(state), ""


def save(where: Path, data: IndexData) -> bool:
    """Write the index (atomically); False when it could not be written."""
    return cachefile.save(where / INDEX_NAME, INDEX_VERSION, data.to_state())


def lock(where: Path | None) -> FileLock | None:
    """The lock that serialises builds of one index (None without a cache directory)."""
    if where is None:
        return None
    from filelock import FileLock

    try:
        return FileLock(str(write_gate.checked_file(where / LOCK_NAME)))
    except OSError:  # a link or a foreign file where the lock goes: built in memory
        return None


_KEYS = frozenset({"files", "file_order", "symbols", "kinds", "parents", "lines", "details", "vocab", "tf", "bm25", "file_bm25"})


def _valid(data: Any) -> bool:
    """Every shape, range and type that lookups rely on (so a bad file is rebuilt, never a crash)."""
    try:
        if not isinstance(data, dict) or not _KEYS <= set(data):
            return False
        n = len(data["symbols"])
        order, files, vocab = data["file_order"], data["files"], data["vocab"]
        if not (isinstance(order, list) and isinstance(files, dict) and isinstance(vocab, list)):
            return False
        if set(order) != set(files) or len(data["kinds"]) != n or len(data["parents"]) != n:
            return False
        for lst in (data["symbols"], data["kinds"], data["parents"], vocab, order):
            if not set(map(type, lst)) <= {str}:  # every item a str (no subclass): in C, not a Python loop
                return False
        for p in order:
            rec = files[p]
            if not (isinstance(rec, tuple) and len(rec) == 6 and 0 <= rec[4] <= rec[5] <= n):
                return False

        lines = data["lines"]
        if not isinstance(lines, np.ndarray) or lines.shape != (n, 2):
            return False
        blob, offsets = data["details"]["blob"], data["details"]["offsets"]
        if blob.dtype != np.uint8 or blob.ndim != 1 or offsets.ndim != 1 or len(offsets) != len(order) + 1:
            return False
        if len(offsets) and (int(offsets[0]) != 0 or int(offsets[-1]) != len(blob) or (np.diff(offsets) < 0).any()):
            return False
        tf = data["tf"]
        indptr, terms, counts = tf["indptr"], tf["terms"], tf["counts"]
        if len(indptr) != n + 1 or len(terms) != len(counts) or (len(indptr) and int(indptr[-1]) != len(terms)):
            return False
        if len(terms) and (int(terms.min()) < 0 or int(terms.max()) >= len(vocab)):
            return False
        for m, rows in ((data["bm25"], n), (data["file_bm25"], len(order))):
            if int(m["n"]) != rows or len(m["indptr"]) != len(vocab) + 1 or len(m["rows"]) != len(m["weights"]):
                return False
            if len(m["indptr"]) and (int(m["indptr"][0]) != 0 or int(m["indptr"][-1]) != len(m["rows"])):
                return False
            if len(m["rows"]) and (int(m["rows"].min()) < 0 or int(m["rows"].max()) >= rows):
                return False
        return True
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return False


def pack_details(parts: list[bytes]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """Every file's detail JSON in one byte array, with offsets: nothing to parse at load time."""
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in parts], out=offsets[1:])
    return np.frombuffer(b"".join(parts), dtype=np.uint8).copy(), offsets


def encode_details(rows: list[ChunkRow]) -> bytes:
    """One file's detail JSON: [signature, docstring, references, language] per chunk."""
    return json.dumps([r.detail for r in rows], ensure_ascii=False).encode("utf-8", "surrogatepass")


def decode_details(raw: bytes | None, n: int) -> list[ChunkDetail]:
    """One file's details per chunk, from its JSON (blank details when it does not hold `n`)."""
    try:
        got = json.loads(raw) if raw else []
        out = [ChunkDetail(str(s), str(d), tuple(str(r) for r in refs), lang if isinstance(lang, str) else None)
               for s, d, refs, lang in got]
    except (ValueError, TypeError, RecursionError):
        out = []
    if len(out) != n:
        out = [NO_DETAIL] * n
    return out
