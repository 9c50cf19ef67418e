"""Identifier-aware tokenisation and BM25, shared by docs and code.

BM25 lives here once: `bm25_idf` (the Lucene IDF), `bm25_weights` (the Robertson term weight),
`bm25_matrix` (every document's weights grouped by term, as the code index stores them) and
`BM25`, a wrapper over `bm25s` for the docs (whose per-term weights `bm25s` computes, with the
same IDF and without the constant `k1 + 1` factor).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, overload

import numpy as np
import numpy.typing as npt

K1 = 1.2  # term-frequency saturation
B = 0.75  # document-length normalisation

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


@overload
def bm25_idf(n_docs: int, df: int) -> float: ...
@overload
def bm25_idf(n_docs: int, df: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]: ...
def bm25_idf(n_docs: int, df: int | npt.NDArray[np.float64]) -> float | npt.NDArray[np.float64]:
    """Lucene's BM25 IDF, log(1 + (N - df + 0.5) / (df + 0.5)), of terms in `df` of `n_docs` documents.

    A number gives a float (`math.log(1 + x)`), an array an array (`np.log1p(x)`): the two can
    differ in the last bit, and each caller keeps the one its rankings were tuned with.
    """
    ratio = (n_docs - df + 0.5) / (df + 0.5)
    if isinstance(ratio, np.ndarray):
        return np.log1p(ratio)
    return math.log(1 + ratio)


def bm25_weights(
    idf: npt.NDArray[np.float64],
    counts: npt.NDArray[np.float32],
    doc_len: npt.NDArray[np.float64],
    avgdl: float,
    *,
    k1: float = K1,
    b: float = B,
) -> npt.NDArray[np.float64]:
    """idf · tf · (k1 + 1) / (tf + k1 · (1 - b + b · len / avgdl)), element by element.

    Each argument but `avgdl` holds one value per (document, term) occurrence.
    """
    norm = k1 * (1 - b + b * doc_len / max(avgdl, 1e-9))
    weights: npt.NDArray[np.float64] = idf * counts * (k1 + 1) / (counts + norm)
    return weights


class TermMatrix(NamedTuple):
    """BM25 weight of every (document, term) pair, grouped by term: the documents using term
    `t` are `rows[indptr[t]:indptr[t + 1]]`, with weights `weights[...]` at the same positions."""

    n: int  # documents
    indptr: npt.NDArray[np.int64]
    rows: npt.NDArray[np.int32]
    weights: npt.NDArray[np.float32]

    @classmethod
    def empty(cls, n_docs: int, n_terms: int) -> TermMatrix:
        """A matrix where no document uses any term."""
        return cls(n_docs, np.zeros(n_terms + 1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.float32))

    def scores(self, term_scales: Iterable[tuple[int, float]]) -> npt.NDArray[np.float32]:
        """BM25 of every document for the query terms given as (term id, weight), in that order."""
        scores = np.zeros(self.n, dtype=np.float32)
        indptr, rows, w = self.indptr, self.rows, self.weights
        for tid, scale in term_scales:
            s, e = indptr[tid], indptr[tid + 1]
            scores[rows[s:e]] += w[s:e] * scale
        return scores


def bm25_matrix(
    indptr: npt.NDArray[np.int64], terms: npt.NDArray[np.int32], counts: npt.NDArray[np.float32], n_terms: int
) -> TermMatrix:
    """BM25 over documents given by their term counts, document by document (CSR: the terms of
    document `d` are `terms[indptr[d]:indptr[d + 1]]`, with `counts` beside them)."""
    n_docs = len(indptr) - 1
    doc_of = np.repeat(np.arange(n_docs, dtype=np.int32), np.diff(indptr))
    doc_len = np.zeros(n_docs, dtype=np.float64)
    np.add.at(doc_len, doc_of, counts)
    avgdl = float(doc_len.mean()) if n_docs else 1.0
    df = np.bincount(terms, minlength=n_terms).astype(np.float64)
    idf = bm25_idf(n_docs, df)
    weights = bm25_weights(idf[terms], counts, doc_len[doc_of], avgdl).astype(np.float32)
    order = np.argsort(terms, kind="stable")
    by_term = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(np.bincount(terms, minlength=n_terms), out=by_term[1:])
    return TermMatrix(n_docs, by_term, doc_of[order], weights[order])


class BM25:
    """BM25 over pre-tokenised documents. `bm25s` builds the index (its term-major matrix of
    per-document scores); scoring and loading a stored index are done here on those arrays, so
    a process that only queries a cached index never imports `bm25s`. Scores are raw BM25 (the
    same float32 sums as `bm25s.BM25.get_scores`); normalise per query."""

    def __init__(self, corpus_tokens: Sequence[Sequence[str]], *, k1: float = K1, b: float = B) -> None:
        import bm25s

        self.size = len(corpus_tokens)
        self.k1, self.b = float(k1), float(b)
        retriever = bm25s.BM25(k1=k1, b=b)
        vocab: dict[str, int] = {}
        ids = [[vocab.setdefault(t, len(vocab)) for t in doc] for doc in corpus_tokens]
        self._vocab = vocab
        self._vocab_dict: dict[str, int] = {}
        self._scores: dict[str, Any] = {}
        if self.size and vocab:  # (bm25s cannot index a corpus without a single term)
            retriever.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocab), show_progress=False)
            got = retriever.scores
            self._scores = {k: got[k] for k in ("data", "indices", "indptr", "num_docs")}
            self._vocab_dict = dict(retriever.vocab_dict)

    def to_state(self) -> dict[str, Any]:
        """Plain data (numbers, strings, numeric arrays) for a cache file: never a pickle."""
        return {
            "size": self.size, "k1": self.k1, "b": self.b, "vocab": dict(self._vocab),
            "vocab_dict": dict(self._vocab_dict), "scores": dict(self._scores),
            "unique": sorted(set(self._vocab_dict.values())),
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> BM25:
        """The index `to_state` described; ValueError when `state` is not one."""
        size, vocab, scores = int(state["size"]), state["vocab"], state["scores"]
        if not isinstance(vocab, dict) or not all(isinstance(k, str) and isinstance(v, int) for k, v in vocab.items()):
            raise ValueError("bad BM25 vocabulary")
        self = cls.__new__(cls)
        self.size, self.k1, self.b = size, float(state["k1"]), float(state["b"])
        self._vocab = vocab
        self._vocab_dict, self._scores = {}, {}
        if size and scores:
            if set(scores) != {"data", "indices", "indptr", "num_docs"} or int(scores["num_docs"]) != size:
                raise ValueError("bad BM25 scores")
            for k in ("data", "indices", "indptr"):
                if not isinstance(scores[k], np.ndarray) or scores[k].ndim != 1 or scores[k].dtype.kind not in "iuf":
                    raise ValueError("bad BM25 scores")
            data, indices, indptr = scores["data"], scores["indices"], scores["indptr"]
            if (len(indices) != len(data) or indptr.dtype.kind == "f" or indices.dtype.kind == "f" or len(indptr) < 1
                    or int(indptr[0]) != 0 or int(indptr[-1]) != len(data) or np.any(np.diff(indptr) < 0)
                    or (len(indices) and (int(indices.min()) < 0 or int(indices.max()) >= size))):
                raise ValueError("bad BM25 scores")
            vocab_dict = state["vocab_dict"]
            if not isinstance(vocab_dict, dict) or not all(  # ("" is bm25s's empty token, past the matrix)
                    isinstance(k, str) and type(v) is int and (0 <= v < len(indptr) - 1 or k == "")
                    for k, v in vocab_dict.items()):
                raise ValueError("bad BM25 vocabulary")
            self._scores = {"data": data, "indices": indices, "indptr": indptr, "num_docs": size}
            self._vocab_dict = vocab_dict
        return self

    def scores(self, query_tokens: Iterable[str]) -> np.ndarray:
        """One score per document (zeros when no query term is in the corpus). Each query term
        adds its column of the score matrix, in query order (a repeated term counts again)."""
        known = [self._vocab_dict[t] for t in query_tokens if t and t in self._vocab and t in self._vocab_dict]
        out = np.zeros(self.size, dtype=np.float32)
        if not self._scores or not known:
            return out
        data, indices, indptr = self._scores["data"], self._scores["indices"], self._scores["indptr"]
        rows = [indices[indptr[t]:indptr[t + 1]] for t in known]
        values = [data[indptr[t]:indptr[t + 1]] for t in known]
        np.add.at(out, np.concatenate(rows), np.concatenate(values).astype(np.float32, copy=False))
        return out


def zscore(values: np.ndarray) -> np.ndarray:
    """Standardise scores over the candidates (all zeros when they do not vary)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return values
    std = values.std()
    return (values - values.mean()) / std if std > 1e-12 else np.zeros_like(values)


def split_outside_brackets(text: str, sep: str = ",") -> list[str]:
    """`text` split at every `sep` not inside (), [] or {} (parameter lists, base-class lists)."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts

