"""The gate's last scan kept across processes, in `<cache_dir>/gate.json`.

Within a process `Rules.last` lets a rescan reuse each path's verdict while the path's stamp
(size, mtime, mode) is unchanged. A new process (`check-docs` from a pre-commit hook, a
`preview`) starts with that scan read from here, so it classifies only the paths that changed,
in a git work tree or a plain one (whose listing `_walk` keeps beside it, in `walk.json`).

The file is derived data, trusted no more than `scan.json` (whose content verdicts it repeats):
it is ignored when git tracks it, when it was written under other rules (configuration,
manifest, explicit paths or the gate's own code: `rules_key`), when a package-named directory
(`build/`, `dist/`) changed whether it holds source (`holds_source`), or when any column is malformed; a
row admitting a file with a secret's name (`.env`, `id_rsa`) is malformed.
Columns, one row per listed path: `paths`, `stamps` (flat ints, each stamp preceded by its
length, 0 for a path gone), `kinds` ("code" / "doc" / "other" for a file, "x:<category>" for an
exclusion, "" for no verdict) and `notes` (the file's grammar, or the exclusion's reason).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, get_args

from noface_ctx import _filetypes as filetypes
from noface_ctx._bounded import MAX_JSON_BYTES, read_head
from noface_ctx._cachefile import is_tracked
from noface_ctx._filetypes import GRAMMAR_BY_EXTENSION
from noface_ctx._state import Memo, memo
from noface_ctx._write_gate import write_atomic
from noface_ctx.config import Config, cache_dir
from noface_ctx.datatypes import Excluded, ExclusionCategory, FileEntry, FileKind, Manifest
from noface_ctx.files._rules import LastScan, Rules, Stamp, holds_source
from noface_ctx.files.secrets import secret_path_kind

__all__ = ["load_last_scan", "rules_key", "save_last_scan", "walk_file"]

VERSION = 1
FILE_NAME = "gate.json"
WALK_FILE_NAME = "walk.json"
_KINDS: frozenset[str] = frozenset(get_args(FileKind))
_CATEGORIES: frozenset[str] = frozenset(get_args(ExclusionCategory))
_LANGUAGES = frozenset(GRAMMAR_BY_EXTENSION.values())

_CODE_DIGEST: Memo[str, str] = memo("files.gate_code_digest", maxsize=1)


def _code_digest() -> str:
    """A digest of the gate's own source (every module of `files/`, and `_filetypes.py`): a changed
    rule invalidates every stored scan, whatever the modules are named."""
    got = _CODE_DIGEST.get("gate")
    if got is None:
        h = hashlib.sha1(str(VERSION).encode())
        for path in [*sorted(Path(__file__).parent.glob("*.py")), Path(filetypes.__file__)]:
            h.update(path.name.encode())
            h.update(path.read_bytes())
        got = _CODE_DIGEST.put("gate", h.hexdigest())
    return got


def rules_key(config: Config, manifest: Manifest | None, explicit: set[str]) -> str:
    """What a stored scan must have been made under to be reused."""
    parts = (_code_digest(), str(config.root), config.max_file_size_kb, list(config.context.exclude),
             repr(manifest), sorted(explicit))
    return hashlib.sha1(json.dumps(parts, default=str).encode("utf-8", "surrogateescape")).hexdigest()


def _file(config: Config, name: str = FILE_NAME) -> Path | None:
    try:
        return cache_dir(config) / name
    except OSError:
        return None


def walk_file(config: Config) -> Path | None:
    """Where the walk of a tree without git is kept for the next process (`_walk.walk_cached`)."""
    return _file(config, WALK_FILE_NAME)


def load_last_scan(config: Config, rules: Rules, key: str) -> LastScan | None:
    """The scan stored under `key`, or None (absent, damaged, other rules, packages changed)."""
    path = _file(config)
    if path is None:
        return None
    if is_tracked(path):
        return None
    try:  # flat columns: no depth walk (`_bounded`) is needed, `_decode` accepts nothing nested
        data, cut = read_head(path, MAX_JSON_BYTES)
        return None if cut else _decode(json.loads(data), rules, key)
    except (OSError, ValueError, TypeError, KeyError, IndexError, RecursionError):
        return None


def _decode(raw: Any, rules: Rules, key: str) -> LastScan | None:
    if not isinstance(raw, dict) or raw.get("version") != VERSION or raw.get("key") != key:
        return None
    paths, flat, kinds, notes = raw["paths"], raw["stamps"], raw["kinds"], raw["notes"]
    if not (isinstance(paths, list) and isinstance(flat, list) and isinstance(kinds, list) and isinstance(notes, list)):
        return None
    if not len(paths) == len(kinds) == len(notes) or not all(type(p) is str for p in paths):
        return None
    packages = raw["packages"]
    if not isinstance(packages, dict):
        return None
    for d, flag in packages.items():  # a directory that became (or stopped being) a package: start again
        if type(flag) is not bool or holds_source(rules.root / d) != flag:
            return None
    stamps = _stamps(flat, len(paths))
    outcome: dict[str, FileEntry | Excluded] = {}
    for path, stamp, kind, note in zip(paths, stamps, kinds, notes, strict=True):
        if type(kind) is not str or type(note) is not str:
            return None
        if not kind:
            continue
        if kind.startswith("x:"):
            category = kind[2:]
            if category not in _CATEGORIES:
                return None
            outcome[path] = Excluded(path, note, category)  # type: ignore[arg-type]
        elif kind in _KINDS and (not note or note in _LANGUAGES) and stamp is not None \
                and secret_path_kind(path) is None:  # a secret's name is never admitted
            outcome[path] = FileEntry(path=path, size=stamp[3] if len(stamp) == 6 else stamp[0],
                                      kind=kind, language=note or None)  # type: ignore[arg-type]
        else:
            return None
    racy = raw["racy"]
    if not isinstance(racy, list) or not all(type(p) is str for p in racy):
        return None
    rules.packages.update(packages)
    return LastScan(paths, stamps, [], frozenset(racy), None, outcome)


def _stamps(flat: list[Any], count: int) -> list[Stamp | None]:
    out: list[Stamp | None] = []
    i, n = 0, len(flat)
    while i < n:
        width = flat[i]
        if type(width) is not int or width not in (0, 3, 6) or i + 1 + width > n:
            raise ValueError("bad stamp")
        stamp = tuple(flat[i + 1:i + 1 + width])
        if not all(type(v) is int for v in stamp):
            raise ValueError("bad stamp")
        out.append(stamp or None)
        i += 1 + width
    if len(out) != count:
        raise ValueError("stamps do not match paths")
    return out


def save_last_scan(config: Config, rules: Rules, key: str, last: LastScan) -> None:
    """Store `last` for the next process; nothing raised."""
    path = _file(config)
    if path is None:
        return
    flat: list[int] = []
    kinds: list[str] = []
    notes: list[str] = []
    for p, stamp in zip(last.paths, last.stamps, strict=True):
        flat.append(len(stamp) if stamp else 0)
        flat.extend(stamp or ())
        got = last.outcome.get(p)
        if isinstance(got, FileEntry):
            kinds.append(got.kind)
            notes.append(got.language or "")
        elif isinstance(got, Excluded):
            kinds.append("x:" + got.category)
            notes.append(got.reason)
        else:
            kinds.append("")
            notes.append("")
    data = {"version": VERSION, "key": key, "paths": last.paths, "stamps": flat, "kinds": kinds, "notes": notes,
            "racy": sorted(last.racy), "packages": dict(rules.packages)}
    if is_tracked(path):
        return
    try:
        write_atomic(path, json.dumps(data).encode("ascii"))  # a non-UTF-8 name stays a \udcXX escape
    except (OSError, ValueError):
        pass
