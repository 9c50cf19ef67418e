"""Modules and paths a doc names that history deleted or renamed away: a dotted name through a
module whose file is gone (`deleted_module`), a file path no longer in the tree (`removed_path`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from noface_ctx.datatypes import MissingRef
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.judgement import UNCOMMITTED, missing_ref
from noface_ctx.freshness.merges import merged_change
from noface_ctx.freshness.references import Reference


def module_name(path: str) -> str:
    """The name a Python file is imported by: its stem, or its package's for `__init__.py`."""
    parts = path.rsplit("/", 2)
    stem = parts[-1].rsplit(".", 1)[0]
    return parts[-2] if stem == "__init__" and len(parts) > 1 else stem


def deleted_module(ref: Reference, lookup: str, scope: Sequence[str], index: HistoryIndex,
                   dirty: set[str]) -> list[MissingRef]:
    """A module a dotted name goes through (`.. module:: django.middleware.exception`,
    `pkg.mod.Class`; not a name ending the reference, `UserManager.create_superuser`, which a
    module of that name once deleted says nothing about) whose file a commit deleted or renamed
    away (`git mv pkg/dot.py pkg/graphviz.py`: then renamed to the new module) and nothing brought
    back: removed by that commit, or by the uncommitted edits, however often the doc was edited since."""
    parts = ref.name.split(".")
    named = ref.kind == "method" and lookup in parts[1:] and (ref.source == "autodoc" or parts[-1] != lookup)
    for path in [p for p in scope if p.endswith((f"/{lookup}.py", f"/{lookup}/__init__.py"))] if named else []:
        hist = index.path_history(path, 0)
        left = module_left(index, path, 0) if hist and hist[-1][1] != path else None
        if left is not None or (path in dirty and not (Path(index.root) / path).exists()):
            return [missing_ref(ref, lookup, left[1] if left else None, left[0].label() if left else UNCOMMITTED)]
    return []


def module_left(index: HistoryIndex, path: str, seq: int) -> tuple[Commit, str | None] | None:
    """The commit after `seq` that took the module file `path` away (a merged branch's: its own commit), with
    the module it was renamed to when it stayed in its package (`git mv pkg/dot.py pkg/graphviz.py`), or None."""
    hist = index.path_history(path, seq)
    left = next((c for c, now in hist if now != path), None)
    new = hist[-1][1] if left is not None else None
    return None if left is None else (merged_change(index, left, path),
                                      module_name(new) if new and _package(new) == _package(path) else None)


def _package(path: str) -> str:
    return path.removesuffix("/__init__.py").rpartition("/")[0]


def removed_path(ref: Reference, lookup: str, base: Commit, index: HistoryIndex) -> list[MissingRef]:
    """A file path the doc names that existed at `base`: removed (or moved) by the commit that took it away."""
    hist = index.path_history(lookup, base.seq) if index.existed(lookup, base.seq) else None
    return [] if hist is None else [MissingRef(ref.ref, ref.line, hist[-1][1] if hist else None,
                                               hist[-1][0].label() if hist else None)]
