"""Identifier-aware tokenisation and a small BM25 wrapper over `bm25s`, shared by docs and code."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

STOPWORDS = frozenset(
    """a an and are as at be but by for from has have if in into is it its of on or that the
    their then there these this to was were will with not no can should would could we you i
    self def return none true false import class""".split()
)


def tokenize(text: str) -> list[str]:
    """Lowercased terms: every identifier whole, plus its snake_case / camelCase parts.

    `getUserName` → getusername, get, user, name; `load_config` → load_config, load, config.
    """
    out: list[str] = []
    for word in _WORD.findall(text):
        lower = word.lower()
        parts = [p.lower() for piece in word.split("_") if piece for p in _CAMEL.findall(piece)]
        if len(parts) > 1 or "_" in word:
            if lower not in STOPWORDS and len(lower) > 1:
                out.append(lower)
            out.extend(p for p in parts if p not in STOPWORDS and len(p) > 1)
        elif lower not in STOPWORDS and len(lower) > 1:
            out.append(lower)
    return out


class BM25:
    """BM25 over pre-tokenised documents. Scores are raw BM25; normalise per query."""

    def __init__(self, corpus_tokens: Sequence[Sequence[str]], *, k1: float = 1.2, b: float = 0.75) -> None:
        import bm25s

        self.size = len(corpus_tokens)
        self._retriever = bm25s.BM25(k1=k1, b=b)
        vocab: dict[str, int] = {}
        ids = [[vocab.setdefault(t, len(vocab)) for t in doc] for doc in corpus_tokens]
        self._vocab = vocab
        if self.size:
            self._retriever.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocab), show_progress=False)

    def to_state(self) -> dict:
        """Plain data (numbers, strings, numeric arrays) for a cache file: never a pickle."""
        r = self._retriever
        scores = getattr(r, "scores", None) or {}
        return {
            "size": self.size, "k1": float(r.k1), "b": float(r.b), "vocab": dict(self._vocab),
            "vocab_dict": dict(getattr(r, "vocab_dict", {}) or {}),
            "scores": {k: scores[k] for k in ("data", "indices", "indptr", "num_docs") if k in scores},
            "unique": sorted(int(i) for i in getattr(r, "unique_token_ids_set", ()) or ()),
        }

    @classmethod
    def from_state(cls, state: dict) -> BM25:
        """The index `to_state` described; ValueError when `state` is not one."""
        import bm25s

        size, vocab, scores = int(state["size"]), state["vocab"], state["scores"]
        if not isinstance(vocab, dict) or not all(isinstance(k, str) and isinstance(v, int) for k, v in vocab.items()):
            raise ValueError("bad BM25 vocabulary")
        self = cls.__new__(cls)
        self.size = size
        self._vocab = vocab
        self._retriever = bm25s.BM25(k1=float(state["k1"]), b=float(state["b"]))
        if size:
            if set(scores) != {"data", "indices", "indptr", "num_docs"} or int(scores["num_docs"]) != size:
                raise ValueError("bad BM25 scores")
            for k in ("data", "indices", "indptr"):
                if not isinstance(scores[k], np.ndarray) or scores[k].ndim != 1:
                    raise ValueError("bad BM25 scores")
            self._retriever.scores = dict(scores)
            self._retriever.vocab_dict = dict(state["vocab_dict"])
            self._retriever.unique_token_ids_set = set(state["unique"])
            self._retriever.nonoccurrence_array = None  # only set for BM25L/BM25+, not the default method
        return self

    def scores(self, query_tokens: Iterable[str]) -> np.ndarray:
        """One score per document (zeros when no query term is in the corpus)."""
        known = [t for t in query_tokens if t in self._vocab]
        if not self.size or not known:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._retriever.get_scores(known), dtype=np.float32)


def zscore(values: np.ndarray) -> np.ndarray:
    """Standardise scores over the candidates (all zeros when they do not vary)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return values
    std = values.std()
    return (values - values.mean()) / std if std > 1e-12 else np.zeros_like(values)


def minmax(values: np.ndarray) -> np.ndarray:
    """Scale scores into [0, 1] (all zeros when they do not vary)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return values
    lo, hi = values.min(), values.max()
    return (values - lo) / (hi - lo) if hi - lo > 1e-12 else np.zeros_like(values)
