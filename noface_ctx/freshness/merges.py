"""The commit that made a change a merge brought in (`merged_change`): history is read along
the first-parent chain, where a pull request's work arrives as one merge commit ("Merge pull
request #1602 from adonath/fix_convolution_non..."); a finding names the commit of the merged
branch that made the change (e25cd7bf32, "Changed default of convolve to 'fill'"), which a
reader can look at, with the merge's place in history kept for ordering and its day printed
when later (`Commit.label`: "changed in … (2024-07-27, "…", merged 2024-07-29) since this doc was
last updated (2024-07-28)").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from noface_ctx import _git as git
from noface_ctx.freshness.history import Commit, HistoryIndex


def merged_change(index: HistoryIndex, commit: Commit, path: str, changed: Callable[[str], bool] | None = None) -> Commit:
    """`commit`, or when it merged a branch, the oldest commit of that branch touching `path`
    that made `changed(sha)` hold (the change is there and was not at its first parent: a commit
    that only touched the file while the change was already there made nothing; by default: `path`
    is gone), with `commit`'s position."""
    try:  # a commit that is no merge lists only itself
        out = git.run(index.root, "log", "--reverse", "--topo-order", "--format=%H %ct %P%x00%s",
                      f"{commit.sha}^1..{commit.sha}", "--", path)
    except git.GitError:
        return commit
    holds = changed if changed is not None else (lambda sha: index.versions.text_at(sha, path) is None)
    for line in out.splitlines():
        head, _, subject = line.partition("\x00")
        sha, when, *parents = head.split()
        if sha != commit.sha and when.isdigit() and holds(sha) and not (parents and holds(parents[0])):
            return Commit(commit.seq, sha, int(when), subject, commit.time)
    return commit


def chain_seq(index: HistoryIndex, sha: str) -> int | None:
    """The position on the first-parent chain of `sha` (a full or short id), or of the merge that
    brought it in (a commit `merged_change` named), or None."""
    row = index.db.execute("SELECT seq FROM commits WHERE sha >= ? AND sha < ? LIMIT 1", (sha, sha + "g")).fetchone()
    if row is not None or not re.fullmatch(r"[0-9a-f]{7,40}", sha):
        return int(row[0]) if row is not None else None
    try:  # its descendants (not `--first-parent`: git then drops a branch's commits before its last)
        later = git.run(index.root, "rev-list", "--ancestry-path", f"{sha}..HEAD").split()
    except git.GitError:
        return None
    seqs = [row[0] for i in range(0, len(later), 500) if (row := index.db.execute(  # the first on the chain: the merge
        f"SELECT MIN(seq) FROM commits WHERE sha IN ({','.join('?' * len(later[i:i + 500]))})", later[i:i + 500]
    ).fetchone()) is not None and row[0] is not None]
    return int(min(seqs)) if seqs else None
