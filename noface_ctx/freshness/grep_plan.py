"""`git grep`s at many commits planned so that each version of a file is searched once.

`presence` asks, per doc, whether names were in the code at the doc's commit, in the files
touched since. On a large repository the docs' commits are many and their scopes overlap:
django's 269 docs made 151 greps over 124,000 files, 1.1 GB, where the distinct versions are
16,000 files. A file not touched between two commits asked about is the same version at
both, so it is searched once, at the newer of them, for the words of both (`plan`); the
answers are then handed back to each ask (`GrepPlan.answers`). Which files a commit touched
comes from the history index (HEAD's first-parent chain), never from git.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from noface_ctx.freshness.history import HistoryIndex

Ask = tuple[str, set[str], list[str] | None]  # (commit sha, names, files to search or None for all)
Hits = dict[str, set[str]]  # name -> files holding it


@dataclass(frozen=True, slots=True)
class Grep:
    """One `git grep` to run: `words` at commit `sha`, in `files` (None: the whole tree)."""

    sha: str
    words: frozenset[str]
    files: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class GrepPlan:
    """The greps to run, and which of their hits answer each ask: per ask key, (grep number,
    the files of that grep that answer it, None for all, the ask's names)."""

    greps: tuple[Grep, ...]
    parts: Mapping[str, tuple[tuple[int, frozenset[str] | None, frozenset[str]], ...]]

    def answers(self, hits: Sequence[Hits]) -> dict[str, Hits]:
        """Per ask key, name -> files, from each grep's hits (in `greps` order)."""
        out: dict[str, Hits] = {}
        for key, parts in self.parts.items():
            found: Hits = {}
            for number, files, names in parts:
                for name, where in hits[number].items():
                    if name in names:
                        held = where if files is None else where & files
                        if held:
                            found.setdefault(name, set()).update(held)
            out[key] = found
        return out


def plan(index: HistoryIndex, asks: Mapping[str, Ask]) -> GrepPlan:
    """The greps that answer `asks` (key -> ask), each file version searched once: a file of an
    ask at commit C is searched at the newest commit asked about that has the same version of
    it (no commit of the index touched it in between). Asks for the whole tree, or at a commit
    the index does not hold, are searched as asked."""
    greps: list[Grep] = []
    parts: dict[str, list[tuple[int, frozenset[str] | None, frozenset[str]]]] = {key: [] for key in asks}
    scoped: dict[str, tuple[int, str, set[str], list[str]]] = {}
    for key, (sha, names, files) in asks.items():
        commit = index.commit(sha) if files is not None else None
        if commit is None or files is None:
            parts[key].append((len(greps), None, frozenset(names)))
            greps.append(Grep(sha, frozenset(names), tuple(files) if files is not None else None))
        else:
            scoped[key] = (commit.seq, sha, names, files)
    seqs = sorted({seq for seq, _, _, _ in scoped.values()})
    sha_at = {seq: sha for seq, sha, _, _ in scoped.values()}
    touches = _touches(index, {p for _, _, _, files in scoped.values() for p in files}, seqs[0] if seqs else 0)
    # (commit searched at) -> file -> the asks it answers there
    at: dict[int, dict[str, list[str]]] = {}
    for key, (seq, _sha, _names, files) in scoped.items():
        for path in files:
            after = touches.get(path, ())
            nxt = after[bisect_right(after, seq)] if after and after[-1] > seq else None
            same = seqs[bisect_right(seqs, nxt - 1) - 1] if nxt is not None else seqs[-1]
            at.setdefault(same, {}).setdefault(path, []).append(key)
    for seq, holders in sorted(at.items()):
        number = len(greps)
        words = frozenset(n for keys in {tuple(k) for k in holders.values()} for k in keys for n in scoped[k][2])
        greps.append(Grep(sha_at[seq], words, tuple(sorted(holders))))
        answering: dict[str, set[str]] = {}
        for path, keys in holders.items():
            for key in keys:
                answering.setdefault(key, set()).add(path)
        for key, held in answering.items():
            parts[key].append((number, frozenset(held), frozenset(scoped[key][2])))
    return GrepPlan(tuple(greps), {key: tuple(p) for key, p in parts.items()})


def _touches(index: HistoryIndex, paths: set[str], since: int) -> dict[str, list[int]]:
    """path -> the commits after `since` that touched it (as itself or a rename's old name), in order."""
    out: dict[str, list[int]] = {}
    for path in paths:
        rows = index.db.execute("SELECT seq FROM touches WHERE path = ? AND seq > ? UNION "
                                "SELECT seq FROM touches WHERE old = ? AND seq > ?", (path, since, path, since))
        found = sorted(seq for (seq,) in rows)
        if found:
            out[path] = found
    return out
