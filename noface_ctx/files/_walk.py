"""The repository's files without git: a walk honouring `.gitignore` files, kept while no
directory it visited changed (adding, removing or renaming a file changes its directory's
mtime), so a warm rescan stats directories instead of walking them (issue #4). It is kept in
memory and, for the next process, in `<cache_dir>/walk.json` (derived data: every path in it is
checked to be a plain relative path, and the gate still decides each one).

Python environments are recognised by what makes them one, not by their folder's name: a
directory holding `pyvenv.cfg` (venv, virtualenv, uv) or `conda-meta/` (conda) is left out
wherever it sits and whatever it is called, by the walk and in git's listing alike."""

from __future__ import annotations

import json
import os
import posixpath
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noface_ctx._bounded import MAX_JSON_BYTES, read_head
from noface_ctx._cachefile import is_tracked
from noface_ctx._state import Memo, memo
from noface_ctx._write_gate import write_atomic
from noface_ctx.datatypes import Excluded
from noface_ctx.files._rules import gitignore_spec, holds_source

if TYPE_CHECKING:
    import pathspec

_WALK_MEMO: Memo[str, tuple[list[tuple[str, int | None]], list[str], list[Excluded]]] = memo("files.walks", maxsize=8)


def walk_cached(root: Path, racy_ns: int, excluded_dirs: frozenset[str], package_dirs: frozenset[str],
                store: Path | None = None, key: str = "") -> tuple[list[str], list[Excluded]]:
    """`walk`, reused while no directory it visited (nor any `.gitignore`) changed: adding,
    removing or renaming a file changes its directory's mtime. `store`: the file keeping the
    walk for the next process, valid only under `key` (the gate's rules and code)."""
    memo_key = str(root)
    memo = _WALK_MEMO.get(memo_key)
    if memo is None and store is not None:
        memo = _load_walk(store, key, memo_key)
    if memo is not None and all(_mtime(p) == m for p, m in memo[0]):
        _WALK_MEMO.put(memo_key, memo)
        return list(memo[1]), list(memo[2])
    start = time.time_ns()
    found, pruned, watch = walk(root, excluded_dirs, package_dirs)
    stamps = [(p, _mtime(p)) for p in watch]
    if all(m is not None and m < start - racy_ns for _, m in stamps):  # else an equal mtime proves nothing
        _WALK_MEMO.put(memo_key, (stamps, found, pruned))
        if store is not None and not is_tracked(store):
            data = {"version": WALK_VERSION, "key": key, "root": memo_key, "watch": stamps, "found": found,
                    "pruned": [[e.path, e.reason] for e in pruned]}
            try:
                write_atomic(store, json.dumps(data).encode("ascii"))  # a non-UTF-8 name stays a \udcXX escape
            except (OSError, ValueError):
                pass
    return list(found), list(pruned)


WALK_VERSION = 1


def _load_walk(store: Path, key: str, root: str) -> tuple[list[tuple[str, int | None]], list[str], list[Excluded]] | None:
    """The walk stored for `root` under `key`, or None (absent, damaged, other rules, or holding
    a path that is not a plain relative one, or a watched path outside `root`)."""
    if is_tracked(store):
        return None
    try:
        data, cut = read_head(store, MAX_JSON_BYTES)
        raw: Any = None if cut else json.loads(data)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(raw, dict) or raw.get("version") != WALK_VERSION or raw.get("key") != key \
            or raw.get("root") != root:
        return None
    watch, found, pruned = raw.get("watch"), raw.get("found"), raw.get("pruned")
    if not (isinstance(watch, list) and isinstance(found, list) and isinstance(pruned, list)):
        return None
    inside = root + os.sep
    stamps: list[tuple[str, int | None]] = []
    for row in watch:
        if not (isinstance(row, list) and len(row) == 2 and type(row[0]) is str and type(row[1]) is int
                and (row[0] == root or row[0].startswith(inside)) and _plain(row[0][len(inside):] or ".")):
            return None
        stamps.append((row[0], row[1]))
    if not all(type(p) is str and _plain(p) for p in found):
        return None
    excluded = []
    for row in pruned:
        if not (isinstance(row, list) and len(row) == 2 and type(row[0]) is str and type(row[1]) is str
                and row[0].endswith("/") and _plain(row[0][:-1])):
            return None
        excluded.append(Excluded(row[0], row[1], "path"))
    return stamps, found, excluded


def _plain(path: str) -> bool:
    """A relative path naming something below the root: no `..`, no empty or `.` parts."""
    return path == "." or (not path.startswith("/") and all(p not in ("", ".", "..") for p in path.split("/")))


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def walk(root: Path, excluded_dirs: frozenset[str], package_dirs: frozenset[str]
         ) -> tuple[list[str], list[Excluded], list[str]]:
    """Files under `root` without git: `.gitignore` files honoured (deeper ones win), built-in
    excluded directories pruned and recorded once as `dir/` (those in `package_dirs` are kept
    when they hold source: `holds_source`). Also returns what to watch: every directory visited, every
    `.gitignore` read, every pruned directory that could become a package."""
    found: list[str] = []
    pruned: list[Excluded] = []
    watch: list[str] = []
    specs: dict[str, list[tuple[str, pathspec.GitIgnoreSpec]]] = {}
    top = str(root)
    for dirpath, dirnames, filenames in os.walk(root):
        watch.append(dirpath)
        rel_dir = dirpath[len(top) + 1:].replace(os.sep, "/") if dirpath != top else ""
        chain = specs.get(posixpath.dirname(rel_dir), []) if rel_dir else []  # top-down: parent first
        if ".gitignore" in filenames:
            watch.append(os.path.join(dirpath, ".gitignore"))
            try:
                lines = Path(dirpath, ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
                chain = [*chain, (rel_dir, gitignore_spec(lines))]
            except OSError:
                pass
        specs[rel_dir] = chain
        keep = []
        for d in sorted(dirnames):
            rel = f"{rel_dir}/{d}" if rel_dir else d
            if d in (".git", ".noface") or ignored(chain, rel + "/"):
                continue
            marker = environment_marker(os.path.join(dirpath, d))
            if marker:
                pruned.append(Excluded(rel + "/", environment_reason(marker), "path"))
                continue
            if d in excluded_dirs and not (d in package_dirs and holds_source(os.path.join(dirpath, d))):
                pruned.append(Excluded(rel + "/", f"{d}/ directory (built-in exclusion)", "path"))
                if d in package_dirs:
                    watch.append(os.path.join(dirpath, d))
                continue
            keep.append(d)
        dirnames[:] = keep
        for f in filenames:
            rel = f"{rel_dir}/{f}" if rel_dir else f
            if not ignored(chain, rel):
                found.append(rel)
    return sorted(found), pruned, watch


def environment_marker(directory: str) -> str:
    """`pyvenv.cfg` or `conda-meta/` when `directory` is a Python environment, else ''."""
    if os.path.isfile(os.path.join(directory, "pyvenv.cfg")):
        return "pyvenv.cfg"
    return "conda-meta/" if os.path.isdir(os.path.join(directory, "conda-meta")) else ""


def environment_reason(marker: str) -> str:
    return f"Python environment (holds {marker})"


def split_environments(paths: list[str]) -> tuple[list[str], list[Excluded]]:
    """(paths outside Python environments, one exclusion per environment) for a listing from git:
    an environment is recognised by its own `pyvenv.cfg` or `conda-meta/…` among the paths."""
    envs: dict[str, str] = {}
    for path in paths:
        parts = path.split("/")
        if len(parts) > 1 and parts[-1] == "pyvenv.cfg":
            envs.setdefault("/".join(parts[:-1]) + "/", "pyvenv.cfg")
        elif "conda-meta" in parts[1:-1]:
            envs.setdefault("/".join(parts[: parts.index("conda-meta", 1)]) + "/", "conda-meta/")
    if not envs:
        return paths, []
    prefixes = tuple(envs)
    kept = [p for p in paths if not p.startswith(prefixes)]
    return kept, [Excluded(d, environment_reason(m), "path") for d, m in sorted(envs.items())]


def ignored(chain: list[tuple[str, pathspec.GitIgnoreSpec]], rel: str) -> bool:
    for base, spec in reversed(chain):  # the deepest .gitignore that has an opinion decides
        sub = rel[len(base) + 1:] if base else rel
        result = spec.check_file(sub)
        if result.include is not None:
            return bool(result.include)
    return False
