"""The repository's files without git: a walk honouring `.gitignore` files, kept in memory
while no directory it visited changed (adding, removing or renaming a file changes its
directory's mtime), so a warm rescan stats directories instead of walking them (issue #4).

Python environments are recognised by what makes them one, not by their folder's name: a
directory holding `pyvenv.cfg` (venv, virtualenv, uv) or `conda-meta/` (conda) is left out
wherever it sits and whatever it is called, by the walk and in git's listing alike."""

from __future__ import annotations

import os
import posixpath
import time
from pathlib import Path

import pathspec

from noface_ctx._state import Memo, memo
from noface_ctx.datatypes import Excluded

_WALK_MEMO: Memo[str, tuple[list[tuple[str, int | None]], list[str], list[Excluded]]] = memo("files.walks", maxsize=8)


def walk_cached(root: Path, racy_ns: int, excluded_dirs: frozenset[str], package_dirs: frozenset[str]
                ) -> tuple[list[str], list[Excluded]]:
    """`walk`, reused while no directory it visited (nor any `.gitignore`) changed: adding,
    removing or renaming a file changes its directory's mtime."""
    key = str(root)
    memo = _WALK_MEMO.get(key)
    if memo is not None and all(_mtime(p) == m for p, m in memo[0]):
        return list(memo[1]), list(memo[2])
    start = time.time_ns()
    found, pruned, watch = walk(root, excluded_dirs, package_dirs)
    stamps = [(p, _mtime(p)) for p in watch]
    if all(m is not None and m < start - racy_ns for _, m in stamps):  # else an equal mtime proves nothing
        _WALK_MEMO.put(key, (stamps, found, pruned))
    return list(found), list(pruned)


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def walk(root: Path, excluded_dirs: frozenset[str], package_dirs: frozenset[str]
         ) -> tuple[list[str], list[Excluded], list[str]]:
    """Files under `root` without git: `.gitignore` files honoured (deeper ones win), built-in
    excluded directories pruned and recorded once as `dir/` (those in `package_dirs` are kept
    when they hold an `__init__.py`). Also returns what to watch: every directory visited, every
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
                chain = [*chain, (rel_dir, pathspec.GitIgnoreSpec.from_lines(lines))]
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
            if d in excluded_dirs and not (d in package_dirs and os.path.isfile(os.path.join(dirpath, d, "__init__.py"))):
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
