"""Exact `difflib` close-match answers over large name pools, found fast (issue #4).

Freshness suggests replacements ("renamed to `X`?") from every symbol or path of a repository;
`difflib.get_close_matches` over 20,000 names costs seconds per reference. `FuzzyPool` gives
the very same answers from a handful of exact ratios.
"""

from __future__ import annotations

import difflib
from collections import Counter
from typing import Any, Iterable


class FuzzyPool:
    """Names with their character counts, so `difflib` answers come from a few exact ratios.

    `quick_ratio` (twice the shared character multiset over both lengths) bounds
    `SequenceMatcher.ratio` from above; it is computed for every name at once with numpy and
    only names whose bound can still win get the exact (slow) ratio. Answers are identical to
    `difflib.get_close_matches(word, sorted(names), n=1, cutoff)` and to taking the highest
    `(SequenceMatcher(None, word, name).ratio(), name)` pair.
    """

    def __init__(self, names: Iterable[str]) -> None:
        import numpy as np

        self.names = sorted(set(names))
        self.lens = np.fromiter((len(n) for n in self.names), dtype=np.int64, count=len(self.names))
        joined = "".join(self.names)
        codes = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32) if joined else np.zeros(0, np.uint32)
        alphabet, cols = np.unique(codes, return_inverse=True)
        self.column = {chr(int(c)): i for i, c in enumerate(alphabet)}
        rows = np.repeat(np.arange(len(self.names)), self.lens)
        width = max(1, len(alphabet))
        flat = np.bincount(cols.reshape(-1) * len(self.names) + rows, minlength=len(self.names) * width)
        self.counts = flat.reshape(width, len(self.names)).astype(np.int32)  # one contiguous row per character

    def _bounds(self, word: str) -> "Any":
        """`quick_ratio` of `word` against every name (numpy float64, as difflib computes it)."""
        import numpy as np

        matches = np.zeros(len(self.names), dtype=np.int64)
        for ch, k in Counter(word).items():
            col = self.column.get(ch)
            if col is not None:
                matches += np.minimum(self.counts[col], k)
        return 2.0 * matches / (self.lens + len(word))

    def closest(self, word: str, cutoff: float, *, exclude: str | None = None) -> str | None:
        """`difflib.get_close_matches(word, sorted(names - {exclude}), n=1, cutoff)[0]`, or None."""
        import numpy as np

        if not self.names:
            return None
        la = len(word)
        real_quick = 2.0 * np.minimum(self.lens, la) / (self.lens + la)
        keep = np.flatnonzero((real_quick >= cutoff) & (self._bounds(word) >= cutoff))
        matcher = difflib.SequenceMatcher()
        matcher.set_seq2(word)
        best: tuple[float, str] | None = None
        for i in keep:
            name = self.names[i]
            if name == exclude:
                continue
            matcher.set_seq1(name)
            ratio = matcher.ratio()
            if ratio >= cutoff and (best is None or (ratio, name) > best):
                best = (ratio, name)
        return best[1] if best else None

    def most_similar(self, word: str, floor: float) -> str | None:
        """The name with the highest `(SequenceMatcher(None, word, name).ratio(), name)`, if ≥ `floor`."""
        import numpy as np

        if not self.names:
            return None
        bounds = self._bounds(word)
        best: tuple[float, str] | None = None
        for i in np.argsort(-bounds, kind="stable"):
            bound = float(bounds[i])
            if bound < floor or (best is not None and bound < best[0]):
                break  # sorted by bound: no later name can reach `floor` or beat `best`
            name = self.names[i]
            ratio = difflib.SequenceMatcher(None, word, name).ratio()
            if best is None or (ratio, name) > best:
                best = (ratio, name)
        return best[1] if best is not None and best[0] >= floor else None
