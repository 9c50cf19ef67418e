"""Files as they were at past commits, read from git once per version (`FileVersions`).

A file unchanged between two commits is one blob: each version is known by its blob id, so
it is read and searched once however many commits ask for it. `prefetch` reads many versions
in one pass (`git.Blobs.read_many`) instead of a round trip to git each.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from noface_ctx import _git as git

TEXTS_KEPT = 48 << 20  # characters of file versions kept in memory: what a large repository's docs need at once
PREFETCH_BATCH = 256  # versions asked for in one pipelined pass


class FileVersions:
    """`(commit, path)` → blob id → text, read through one `git cat-file --batch`."""

    def __init__(self, root: str | Path) -> None:
        self.blobs = git.Blobs(root)
        self._ids: dict[tuple[str, str], str | None] = {}  # (commit, path) → blob id (None: not there)
        self._texts: dict[str, str] = {}  # blob id → text, the latest read (`TEXTS_KEPT`)
        self._kept = 0  # characters in `_texts`

    def blob(self, sha: str, path: str) -> str | None:
        """The blob id of `path` at commit `sha`, or None when it is not there."""
        key = (sha, path)
        if key not in self._ids:
            found = self.blobs.read_object(sha, path)
            self._ids[key] = found[0] if found is not None else None
            if found is not None:
                self._keep(*found)
        return self._ids[key]

    def text(self, oid: str) -> str | None:
        """The text of blob `oid`."""
        if oid not in self._texts:
            found = self.blobs.read_object(oid, "")
            if found is None:
                return None
            self._keep(oid, found[1])
        return self._texts[oid]

    def text_at(self, sha: str, path: str) -> str | None:
        """The text of `path` at commit `sha`, or None when it is not there."""
        oid = self.blob(sha, path)
        return self.text(oid) if oid is not None else None

    def prefetch(self, wanted: Iterable[tuple[str, str]]) -> None:
        """Read these `(commit sha, path)` versions in pipelined passes, so that the questions
        asked of them next make no round trip to git each; up to half of `TEXTS_KEPT` read ahead
        (the oldest texts kept make room, as for a version asked; the rest are read when asked)."""
        todo = [key for key in dict.fromkeys(wanted) if key not in self._ids]
        ahead = 0  # characters read ahead by this call: never so many that they push each other out
        for start in range(0, len(todo), PREFETCH_BATCH):
            if ahead >= TEXTS_KEPT // 2:
                break
            batch = todo[start:start + PREFETCH_BATCH]
            for key, found in zip(batch, self.blobs.read_many(batch), strict=True):
                self._ids[key] = found[0] if found is not None else None
                if found is not None:
                    ahead += len(found[1]) if found[0] not in self._texts else 0
                    self._keep(*found)

    def close(self) -> None:
        self.blobs.close()

    def _keep(self, oid: str, text: str) -> None:
        """Keep a blob's text, the oldest ones forgotten past `TEXTS_KEPT` characters."""
        if oid in self._texts:
            return
        self._texts[oid] = text
        self._kept += len(text)
        while self._kept > TEXTS_KEPT and len(self._texts) > 1:
            self._kept -= len(self._texts.pop(next(iter(self._texts))))
