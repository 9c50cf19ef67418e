"""The plain baseline: BM25 over whole `.py` files, packed whole in rank order under the budget.

No exclusions beyond "is a .py file" (tests and examples included), the issue text is part of
the prompt and counts against the budget like ours, and a file that does not fit is skipped
(the next one may still fit). Token counts use the same cl100k counter as noface_ctx.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from noface_ctx._lexical import BM25, tokenize  # private: the baseline is the package's own BM25 and tokenizer, bare
from noface_ctx._tokens import count_tokens  # private: the token count every figure is in

_SKIP_DIRS = {".git", ".noface", "__pycache__"}


def python_files(root: Path) -> list[str]:
    """Every `.py` file under `root`, repo-relative POSIX paths, sorted."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        rel = Path(dirpath).relative_to(root)
        out.extend((rel / f).as_posix() for f in filenames if f.endswith(".py"))
    return sorted(out)


def file_block(path: str, text: str) -> str:
    return f"### {path}\n```python\n{text}\n```\n\n"


@dataclass
class BaselineIndex:
    """BM25 over one work tree's Python files; token counts of file blocks computed lazily."""

    root: Path
    paths: list[str]
    texts: list[str]
    bm25: BM25
    token_cache: Path | None = None  # JSON {path: block tokens}, kept next to the work tree
    _tokens: dict[int, int] = field(default_factory=dict)

    @classmethod
    def build(cls, root: Path, token_cache: Path | None = None) -> BaselineIndex:
        paths = python_files(root)
        texts = [(root / p).read_text(encoding="utf-8", errors="replace") for p in paths]
        index = cls(root, paths, texts, BM25([tokenize(t) for t in texts]), token_cache)
        if token_cache is not None and token_cache.is_file():
            known = json.loads(token_cache.read_text())
            index._tokens = {i: known[p] for i, p in enumerate(paths) if p in known}
        return index

    def save_tokens(self) -> None:
        """Remember block token counts: the tree never changes, and counting them is slow."""
        if self.token_cache is not None:
            counts = {self.paths[i]: n for i, n in self._tokens.items()}
            self.token_cache.write_text(json.dumps(counts))

    def rank(self, query: str) -> list[int]:
        """File indices with a positive score, best first (ties by path)."""
        scores = self.bm25.scores(tokenize(query))
        order = np.lexsort((np.arange(len(scores)), -scores))
        return [int(i) for i in order if scores[i] > 0]

    def block_tokens(self, i: int) -> int:
        if i not in self._tokens:
            self._tokens[i] = count_tokens(file_block(self.paths[i], self.texts[i]))
        return self._tokens[i]

    def pack(self, ranked: Sequence[int], query: str, budget: int) -> tuple[list[str], int]:
        """Whole files in rank order that fit in `budget` after the issue text; (paths, tokens used)."""
        used = count_tokens(query)
        chosen: list[str] = []
        for i in ranked:
            if budget - used < 16:
                break
            cost = self.block_tokens(i)
            if used + cost <= budget:
                chosen.append(self.paths[i])
                used += cost
        return chosen, used

    def line_count(self, path: str) -> int:
        text = self.texts[self.paths.index(path)]
        return text.count("\n") + (0 if text.endswith("\n") else 1)
