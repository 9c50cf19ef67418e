"""On-disk caches of what is derived from each doc, so a new process (or a changed vault)
redoes only the docs that changed (issue #4). Each cache is one file (JSON and numeric arrays, never a pickle) under `cache_dir(config)`
(see `noface_ctx._cachefile`), with a VERSION to bump whenever what it holds is computed differently.

- `ParseCache` (`docs.cache`): each doc file parsed into a `Doc`, by path and content.
- `TermCache` (`doc-terms.cache`): each doc's terms, and the vault's BM25 index, for doc ranking.
- `count_tokens`: token counts of rendered doc forms, remembered in memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from noface_ctx import _cachefile as cachefile
from noface_ctx.config import Config
from noface_ctx.datatypes import Doc
from noface_ctx.docs.docset import DocSet

if TYPE_CHECKING:  # numpy: the hook reads docs without it
    from noface_ctx._lexical import BM25


class ParseCache:
    """Parsed docs by path and content hash: in memory, and in `<cache_dir>/docs.cache`."""

    VERSION = 1  # bump whenever parsing changes what a `Doc` holds
    _memory: ClassVar[dict[str, tuple[str, Doc, str]]] = {}  # absolute path -> (text, doc, warning)

    def __init__(self, config: Config) -> None:
        self.config = config
        self.disk: dict[str, tuple[str, Doc, str]] | None = None  # path -> (sha1, doc, warning)
        self.dirty = False
        self.path: Path | None = None
        self.seen: set[str] = set()

    def parse(self, path: str, abs_path: Path, text: str, parser: Callable[[str, str], tuple[Doc, str]]) -> tuple[Doc, str]:
        """`parser(path, text)`, or what it answered for this path and content before."""
        self.seen.add(path)
        key = str(abs_path)
        hit = self._memory.get(key)
        if hit is not None and hit[0] == text:
            return hit[1], hit[2]
        digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
        stored = self._disk().get(path)
        if stored is not None and stored[0] == digest and stored[1].path == path:
            doc, warning = stored[1], stored[2]
        else:
            doc, warning = parser(path, text)
            self._disk()[path] = (digest, doc, warning)
            self.dirty = True
        if len(self._memory) > 20_000:
            self._memory.clear()
        self._memory[key] = (text, doc, warning)
        return doc, warning

    def _disk(self) -> dict[str, tuple[str, Doc, str]]:
        if self.disk is None:
            from noface_ctx.config import cache_dir

            try:
                self.path = cache_dir(self.config) / "docs.cache"
            except OSError:
                self.path = None
            loaded = cachefile.load(self.path, self.VERSION, _valid_parsed)
            self.disk = dict(loaded) if isinstance(loaded, dict) else {}
        return self.disk

    def save(self) -> None:
        if self.dirty and self.disk is not None:  # docs no longer in the vault are forgotten
            cachefile.save(self.path, self.VERSION, {p: v for p, v in self.disk.items() if p in self.seen})


Terms = tuple[list[str], list[list[str]]]  # a doc's title-and-description terms, and each section's
Joined = tuple[str, list[str]]  # the same as stored: each list of terms joined by spaces


class TermCache:
    """Each doc's terms by content, and the BM25 index of the whole vault, in
    `<cache_dir>/doc-terms.cache`: a new process re-tokenises only docs that changed. A doc's
    terms are stored as space-joined strings (terms are word characters), one per section, so
    reading and checking the file costs per section, not per term."""

    VERSION = 3  # bump whenever `tokenize`, sections or the BM25 parameters change

    def __init__(self, config: Config, docset: DocSet, tokenizer: Callable[[Doc], Terms]) -> None:
        from noface_ctx.config import cache_dir

        self.tokenizer = tokenizer
        try:
            self.path: Any = cache_dir(config) / "doc-terms.cache"
        except OSError:
            self.path = None
        stored = cachefile.load(self.path, self.VERSION, _valid_terms)
        self.keys = {doc.path: hashlib.sha1(doc.text.encode("utf-8", "surrogatepass")).hexdigest() for doc in docset.docs}
        self.signature = hashlib.sha1(repr([(d.path, self.keys[d.path]) for d in docset.docs]).encode()).hexdigest()
        valid: dict[str, Any] | None = stored if isinstance(stored, dict) else None
        self.docs: dict[str, tuple[str, Joined]] = dict(valid["docs"]) if valid is not None else {}
        same = valid is not None and valid.get("signature") == self.signature
        self._bm25 = valid.get("bm25") if same and valid is not None else None
        self._df: dict[str, int] | None = valid.get("df") if same and valid is not None else None
        self.dirty = False

    def tokens(self, doc: Doc) -> Terms:
        hit = self.docs.get(doc.path)
        if hit is not None and hit[0] == self.keys[doc.path]:
            return hit[1][0].split(), [sec.split() for sec in hit[1][1]]
        value = self.tokenizer(doc)
        self.docs[doc.path] = (self.keys[doc.path], (" ".join(value[0]), [" ".join(sec) for sec in value[1]]))
        self.dirty = True
        return value

    def bm25(self) -> tuple[BM25 | None, dict[str, int] | None]:
        """The vault's BM25 index and its document frequencies (term → sections holding it),
        when stored for these very docs; else (None, None)."""
        return (self._bm25, self._df) if self._bm25 is not None and self._df is not None else (None, None)

    def keep_bm25(self, bm25: BM25, df: dict[str, int]) -> None:
        self._bm25, self._df = bm25, df
        self.dirty = True

    def save(self) -> None:
        if self.dirty:
            docs = {p: v for p, v in self.docs.items() if p in self.keys}  # forget removed docs
            cachefile.save(self.path, self.VERSION, {"signature": self.signature, "docs": docs, "bm25": self._bm25,
                                                     "df": self._df})
            self.dirty = False


def _pairs(value: Any, check: Callable[[Any], bool]) -> bool:
    """A dict of path -> (str key, value passing `check`)."""
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) and check(v[1])
        for k, v in value.items()
    )


def _strs(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def _valid_parsed(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, tuple) and len(v) == 3 and isinstance(v[0], str)
        and isinstance(v[1], Doc) and isinstance(v[2], str)
        for k, v in value.items()
    )


def _valid_terms(value: Any) -> bool:
    from noface_ctx._lexical import BM25

    def terms(v: Any) -> bool:
        return isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) and _strs(v[1])

    df = value.get("df") if isinstance(value, dict) else None
    return (isinstance(value, dict) and isinstance(value.get("signature"), str) and _pairs(value.get("docs"), terms)
            and (value.get("bm25") is None or isinstance(value.get("bm25"), BM25))
            and (df is None or (isinstance(df, dict) and all(type(k) is str and type(n) is int for k, n in df.items()))))


class TokenMemo:
    """`count_tokens`, remembered: the same docs are rendered into forms on every build."""

    LIMIT = 32_000_000  # characters held before everything is forgotten

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.chars = 0

    def __call__(self, text: str) -> int:
        n = self.counts.get(text)
        if n is None:
            from noface_ctx._tokens import count_tokens as count

            n = count(text)
            if self.chars + len(text) > self.LIMIT:
                self.counts.clear()
                self.chars = 0
            self.counts[text] = n
            self.chars += len(text)
        return n


count_tokens = TokenMemo()
