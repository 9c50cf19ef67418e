"""The docs the file gate kept out: what a whole-repository check lists as not judged (issue 25, rule 7).

A doc is judged whatever its size (`freshness.check.with_large_docs`); one kept out for another reason
(a built-in directory, a secret, a binary, the user's `[context] exclude`) is never read, but it is named
with the gate's reason, so no doc the repository holds goes unjudged in silence.
"""

from __future__ import annotations

from dataclasses import replace

from noface_ctx.config import Config
from noface_ctx.datatypes import FileEntry, RepoFiles
from noface_ctx.docs.load import doc_files, resolve_vault


def kept_out_docs(config: Config, repo_files: RepoFiles, suffixes: tuple[str, ...]) -> list[tuple[str, str]]:
    """(path, "kept out by the file gate: why") for each excluded file that would otherwise be a doc."""
    excluded = {e.path: e.reason for e in repo_files.excluded
                if not e.path.endswith("/") and e.path.lower().endswith(suffixes)}
    if not excluded:
        return []
    # The doc globs are discovered over every file, the kept-out ones too: a doc tree the gate
    # keeps out whole (docs under `build/`) is named, not only the pages beside judged ones.
    extra = tuple(FileEntry(p, 0, "doc") for p in sorted(excluded))
    widened = replace(repo_files, files=repo_files.files + extra, excluded=(), _by_path={}, _excluded_by_path={})
    _, hits = doc_files(config, widened, resolve_vault(config), scripts=False)
    return [(p, f"kept out by the file gate: {excluded[p]}") for p, _ in sorted(hits) if p in excluded]
