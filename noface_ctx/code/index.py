"""The code index of one repository: every definition, looked up by path, symbol or chunk id, and
BM25 over chunks and whole files.

Built by `_index_build` (what to re-parse, the term tables), parsed by `_index_parse`, stored by
`_index_store` (the on-disk format: `cache_dir(config) / "code" / "index.cache"`); text is never
stored: it comes from the files.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from noface_ctx.code._index_build import BuildStats, build_index, is_sized_out_source
from noface_ctx.code._index_parse import Progress, decode_text
from noface_ctx.code._index_store import INDEX_NAME, ChunkDetail, ChunkRow, IndexData, decode_details
from noface_ctx.config import Config
from noface_ctx.datatypes import CodeChunk, RepoFiles

__all__ = ["INDEX_NAME", "ChunkRow", "CodeIndex", "is_sized_out_source"]


class CodeIndex:
    """Definitions and BM25 for one repository. Build with `CodeIndex.build`."""

    def __init__(self, root: str, data: IndexData, stats: BuildStats) -> None:
        self.root = root
        self.stats = stats
        self._data = data
        self._files = data.files
        self._symbols = data.symbols
        self._kinds = data.kinds
        self._parents = data.parents
        self._lines = data.lines
        self._details: dict[str, list[ChunkDetail]] = {}
        self._file_pos: dict[str, int] | None = None
        self._vocab = data.vocab
        self._file_order = data.file_order
        self._term_ids: dict[str, int] | None = None
        self._by_name: dict[str, list[int]] | None = None
        self._symbol_names: frozenset[str] | None = None
        self._callers: dict[str, list[int]] | None = None
        self._chunk_file: npt.NDArray[np.int32] | None = None
        self._text_cache: dict[str, str] = {}
        self._lines_cache: dict[str, list[str]] = {}
        self.memo: dict[str, object] = {}  # values derived from this index by its users (rank_code)

    @classmethod
    def build(cls, repo_files: RepoFiles, config: Config, *, progress: Progress | None = None) -> CodeIndex:
        """Load the index for `repo_files`, re-parsing only files whose content changed."""
        data, stats = build_index(repo_files, config, progress)
        return cls(repo_files.root, data, stats)

    # ------------------------------------------------------------------ lookups

    def paths(self) -> tuple[str, ...]:
        """Indexed files, sorted."""
        return tuple(self._file_order)

    def __len__(self) -> int:
        """Number of chunks."""
        return len(self._symbols)

    def chunks_for(self, path: str) -> tuple[CodeChunk, ...]:
        """Every chunk of one file (definitions and blocks, or windows), in line order."""
        rec = self._files.get(path)
        if rec is None:
            return ()
        lines = self.file_lines(path)
        return tuple(self._chunk(i, path, lines) for i in range(rec.lo, rec.hi))

    def all_chunks(self) -> Iterator[CodeChunk]:
        """Every chunk, file by file in `paths()` order."""
        for path in self._file_order:
            yield from self.chunks_for(path)

    def chunk(self, chunk_id: int) -> CodeChunk:
        """One chunk by id (ids are positions in the index, stable until the next rebuild)."""
        path = self.path_of(chunk_id)
        return self._chunk(chunk_id, path, self.file_lines(path))

    def path_of(self, chunk_id: int) -> str:
        """The file a chunk belongs to."""
        return self._file_order[int(self.chunk_files()[chunk_id])]

    def row(self, chunk_id: int) -> ChunkRow:
        """Everything stored about one chunk (its path is `path_of`, its text from the file)."""
        path = self.path_of(chunk_id)
        sig, doc, refs, lang = self._detail(path)[chunk_id - self._files[path].lo]
        start, end = self._lines[chunk_id]
        return ChunkRow(
            self._symbols[chunk_id], self._kinds[chunk_id], int(start), int(end), sig, doc, self._parents[chunk_id], refs, lang
        )

    def symbol(self, chunk_id: int) -> str:
        """A chunk's qualified symbol ('' for blocks and windows)."""
        return self._symbols[chunk_id]

    def kind(self, chunk_id: int) -> str:
        """A chunk's kind: function, method, class, ..., block or window."""
        return self._kinds[chunk_id]

    def parent(self, chunk_id: int) -> str:
        """The qualified symbol of a chunk's enclosing definition ('' at top level)."""
        return self._parents[chunk_id]

    def lines(self, chunk_id: int) -> tuple[int, int]:
        """A chunk's first and last line (1-based, inclusive)."""
        start, end = self._lines[chunk_id]
        return int(start), int(end)

    def symbols(self) -> list[str]:
        """Qualified symbol of every chunk id ('' for blocks and windows)."""
        return self._symbols

    def kinds(self) -> list[str]:
        """The kind of every chunk id."""
        return self._kinds

    def line_spans(self) -> npt.NDArray[np.int32]:
        """(n_chunks, 2) array of start and end lines."""
        return self._lines

    def content_hash(self, path: str) -> str:
        """The indexed file's content hash (what its definitions were parsed from)."""
        return self._files[path].hash

    def chunk_ids(self, path: str) -> range:
        """The chunk ids of one file (empty when it is not indexed)."""
        rec = self._files.get(path)
        return range(rec.lo, rec.hi) if rec else range(0)

    def chunk_files(self) -> npt.NDArray[np.int32]:
        """File number (position in `paths()`) of every chunk id."""
        if self._chunk_file is None:
            counts = [self._files[p].hi - self._files[p].lo for p in self._file_order]
            self._chunk_file = np.repeat(np.arange(len(self._file_order), dtype=np.int32), counts)
        return self._chunk_file

    def find_symbol(self, name: str) -> list[CodeChunk]:
        """Definitions named `name`: bare (`get_user`), qualified (`User.get`) or `path::Qualified`."""
        path, _, symbol = name.rpartition("::")
        ids = self.symbol_ids(symbol)
        if path:
            ids = [i for i in ids if self.path_of(i) == path]
        return [self.chunk(i) for i in ids]

    def symbol_ids(self, name: str) -> list[int]:
        """Chunk ids whose qualified name, or its last part, is `name` (or ends with `.name`)."""
        name = name.strip().replace("::", ".")
        if not name:
            return []
        by_name = self._names()
        if "." not in name:
            return list(by_name.get(name, ()))
        last = name.rpartition(".")[2]
        return [i for i in by_name.get(last, ()) if (s := self._symbols[i]) == name or s.endswith("." + name)]

    def has_symbol(self, name: str) -> bool:
        """True when `find_symbol(name)` would find a definition, in any file."""
        return bool(self.symbol_ids(name.rpartition("::")[2]))

    def symbol_names(self) -> frozenset[str]:
        """Every qualified name and every bare (last-part) name."""
        if self._symbol_names is None:
            self._symbol_names = frozenset(self._names()) | frozenset(s for s in self._symbols if s)
        return self._symbol_names

    def callers_of(self, name: str) -> list[int]:
        """Chunk ids whose references include the bare name `name`."""
        if self._callers is None:
            callers: dict[str, list[int]] = {}
            for path in self._file_order:
                lo = self._files[path].lo
                for offset, detail in enumerate(self._detail(path)):
                    for ref in detail.references:
                        callers.setdefault(ref, []).append(lo + offset)
            self._callers = callers
        return self._callers.get(name.rpartition(".")[2], [])

    def file_text(self, path: str) -> str:
        """The current text of an indexed (or any repo) file; '' when it cannot be read."""
        cached = self._text_cache.get(path)
        if cached is None:
            try:
                cached = decode_text(Path(self.root, path).read_bytes())
            except OSError:
                cached = ""
            if len(self._text_cache) > 256:
                self._text_cache.clear()
            self._text_cache[path] = cached
        return cached

    def file_lines(self, path: str) -> list[str]:
        """`file_text(path)` split on newlines (shared: do not modify the list)."""
        got = self._lines_cache.get(path)
        if got is None:
            if len(self._lines_cache) > 256:
                self._lines_cache.clear()
            got = self._lines_cache[path] = self.file_text(path).split("\n")
        return got

    def language_of(self, path: str) -> str | None:
        """The grammar an indexed file was parsed with (None: none, or not indexed)."""
        rec = self._files.get(path)
        return rec.language if rec else None

    # ------------------------------------------------------------------ BM25

    def term_ids(self, terms: Sequence[str]) -> list[int]:
        """Vocabulary ids of the distinct known terms, in order."""
        ids = self._term_id_map()
        return [ids[t] for t in dict.fromkeys(terms) if t in ids]

    def _term_id_map(self) -> dict[str, int]:
        if self._term_ids is None:
            self._term_ids = {t: i for i, t in enumerate(self._vocab)}
        return self._term_ids

    def bm25(
        self, terms: Sequence[str], *, level: str = "chunk", weights: dict[str, float] | None = None
    ) -> npt.NDArray[np.float32]:
        """BM25 of every chunk (`level="chunk"`) or file (`"file"`, in `paths()` order)."""
        matrix = self._data.bm25 if level == "chunk" else self._data.file_bm25
        ids = self._term_id_map()
        query = [(ids[t], weights.get(t, 1.0) if weights else 1.0) for t in dict.fromkeys(terms) if t in ids]
        return matrix.scores(query)

    # ------------------------------------------------------------------ internals

    def _names(self) -> dict[str, list[int]]:
        if self._by_name is None:
            by_name: dict[str, list[int]] = {}
            for i, s in enumerate(self._symbols):
                if s:
                    by_name.setdefault(s.rpartition(".")[2], []).append(i)
            self._by_name = by_name
        return self._by_name

    def _detail(self, path: str) -> list[ChunkDetail]:
        got = self._details.get(path)
        if got is None:
            if self._file_pos is None:
                self._file_pos = {p: i for i, p in enumerate(self._file_order)}
            rec = self._files[path]
            got = decode_details(self._data.detail_bytes(self._file_pos[path]), rec.hi - rec.lo)
            self._details[path] = got
        return got

    def _chunk(self, i: int, path: str, lines: list[str]) -> CodeChunk:
        symbol, kind, start, end, signature, docstring, parent, refs, language = self.row(i)
        return CodeChunk(
            path=path,
            symbol=symbol,
            kind=kind,
            start_line=start,
            end_line=end,
            signature=signature,
            docstring=docstring,
            text="\n".join(lines[start - 1 : end]),
            parent=parent,
            references=refs,
            language=language,
        )
