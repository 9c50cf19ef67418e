"""Repository scan and exclusions → `RepoFiles` (candidates plus every exclusion with its reason).

Candidates are what git lists (tracked plus untracked-not-ignored); without git the tree is walked
honouring `.gitignore`. Rules are applied in a fixed order so each file is reported once, under the
most important reason: secret, forbidden (manifest), path rules, then size / binary / data.

Secrets are refused whatever else says otherwise: an `explicit` request, the manifest, a config.
Content checks (credentials, binary, generated headers) are cached in `<cache_dir>/scan.json`
keyed by (path, size, mtime_ns), so a warm scan only stats files. The rules themselves live in
`files/_rules.py` (by name and size) and `files/content.py` (by content); this module applies them.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from noface_ctx import _git as git
from noface_ctx._state import Memo, memo
from noface_ctx.config import Config
from noface_ctx.datatypes import Excluded, FileEntry, Manifest, RepoFiles
from noface_ctx.files._last_scan import load_last_scan, rules_key, save_last_scan, walk_file
from noface_ctx.files._rules import (
    EXCLUDED_DIRS,
    NOFACE_DIR,
    PACKAGE_NAMED_DIRS,
    LastScan,
    Rules,
    Stamp,
    file_kind,
    gitignore_spec,
    name_info,
    norm_path,
)
from noface_ctx.files._walk import ignored, split_environments, walk_cached
from noface_ctx.files.content import ScanCache, content_excluded, content_verdict
from noface_ctx.files.secrets import find_secret, is_secret_path

if TYPE_CHECKING:
    import pathspec

__all__ = ["admitted", "check_path", "file_kind", "find_secret", "is_secret_path", "scan_repo"]


# --------------------------------------------------------------------------- scanning

_RULES_MEMO: Memo[tuple[object, ...], Rules] = memo("files.rules", maxsize=8)


def _rules_for(config: Config, manifest: Manifest | None, explicit: Collection[str]) -> Rules:
    """Rules with their per-path verdicts kept for the life of the process (the same repo is
    often scanned several times: a preview, then signals)."""
    key = (str(config.root), config.max_file_size_kb, config.context.exclude, manifest, frozenset(explicit))
    rules = _RULES_MEMO.get(key)
    if rules is None:
        rules = Rules(config, manifest, explicit)
        rules.key = rules_key(config, manifest, rules.explicit)
        rules = _RULES_MEMO.put(key, rules)
    return rules


def scan_repo(config: Config, manifest: Manifest | None = None, *, explicit: Collection[str] = ()) -> RepoFiles:
    """List candidate files and record every exclusion once, with its reason and category.

    `explicit` paths may exceed `max_file_size_kb` (an explicit request); nothing lifts a secret.
    When no listed path changed its stat since this process last scanned with the same rules,
    that scan's `RepoFiles` is returned again (a warm rescan only lists and stats files).
    """
    root = Path(config.root)
    warnings: list[str] = []
    rules = _rules_for(config, manifest, explicit)
    seen: set[str] = set()
    prefix = str(root) + os.sep
    pruned: list[Excluded] = []
    others, tracked = None, None
    try:
        others = git.start(root, "ls-files", "-z", "--others", "--exclude-standard")
        tracked = git.run(root, "ls-files", "-z", "--cached")
    except git.GitError:
        if others is not None:
            others.communicate()
    if others is not None and tracked is not None:
        paths = _unique(tracked.split("\0"), seen)
        stamps = _stamps(prefix, paths)  # while git lists untracked files
        untracked = others.communicate()[0].decode("utf-8", "surrogateescape")
        more = _unique(sorted(untracked.split("\0")) if others.returncode == 0 else (), seen)
        paths += more
        stamps += _stamps(prefix, more)
        kept, pruned = split_environments(paths)  # an environment git lists (not ignored) stays out
        if pruned:
            keep = set(kept)
            stamps = [st for p, st in zip(paths, stamps, strict=True) if p in keep]
            paths = kept
    else:
        warnings.append(f"not a git repository: {root} (walked the tree honouring .gitignore files)")
        walked, pruned = walk_cached(root, RACY_NS, EXCLUDED_DIRS, PACKAGE_NAMED_DIRS, walk_file(config), rules.key)
        paths = _unique(walked, seen)
        stamps = _stamps(prefix, paths)
    last = rules.last
    if last is None:  # a new process: the scan an earlier one stored
        last = rules.last = load_last_scan(config, rules, rules.key)
        rules.stored_racy = last.racy if last is not None else frozenset()
    if last is not None and last.result is not None and last.paths == paths and last.stamps == stamps \
            and last.pruned == pruned and not last.racy and last.result.has_git == (tracked is not None):
        return last.result
    return _full_scan(config, rules, prefix, paths, stamps, pruned, tracked is not None, warnings)


def _unique(paths: Iterable[str], seen: set[str]) -> list[str]:
    out = []
    for path in paths:
        if path and path not in seen and not path.startswith(NOFACE_DIR):
            seen.add(path)
            out.append(path)
    return out


def _stamps(prefix: str, paths: list[str]) -> list[Stamp | None]:
    """One cheap `lstat` per path: what decides whether an earlier scan still holds."""
    out: list[Stamp | None] = []
    lstat, islink = os.lstat, stat.S_ISLNK
    for path in paths:
        try:
            st = lstat(prefix + path)
        except OSError:
            out.append(None)
            continue
        if islink(st.st_mode):
            try:
                target = os.stat(prefix + path)
                out.append((st.st_size, st.st_mtime_ns, st.st_mode, target.st_size, target.st_mtime_ns, target.st_mode))
            except OSError:
                out.append((st.st_size, st.st_mtime_ns, st.st_mode))
        else:
            out.append((st.st_size, st.st_mtime_ns, st.st_mode))
    return out


FEW_CHANGES = 32  # up to this many paths to classify again: no scan.json read, no gate.json write
RACY_NS = 2_000_000_000  # files modified this recently get their content hashed into the fingerprint


def _full_scan(config: Config, rules: Rules, prefix: str, paths: list[str], stamps: list[Stamp | None],
               pruned: list[Excluded], has_git: bool, warnings: list[str]) -> RepoFiles:
    """Classify every path; a path whose stamp is unchanged since the last scan keeps its verdict."""
    excluded: list[Excluded] = list(pruned)
    files: list[FileEntry] = []
    last = rules.last
    before = dict(zip(last.paths, last.stamps, strict=True)) if last is not None else {}
    kept_all = [last.outcome.get(path) if last is not None and path not in last.racy and stamp is not None
                and before.get(path) == stamp else None for path, stamp in zip(paths, stamps, strict=True)]
    classified = kept_all.count(None)
    # A handful of changed files is read again rather than looked up in (and saved to) scan.json.
    cache = ScanCache(config) if last is None or classified > FEW_CHANGES else None
    outcome: dict[str, FileEntry | Excluded] = {}
    for path, stamp, kept in zip(paths, stamps, kept_all, strict=True):
        if kept is not None:
            entry, why = (kept, None) if isinstance(kept, FileEntry) else (None, kept)
        else:
            entry, why = _classify(prefix, path, rules, cache, warnings, stamp)
        if why is not None:
            excluded.append(why)
            outcome[path] = why
        elif entry is not None:
            files.append(entry)
            outcome[path] = entry
    if cache is not None:
        cache.save(set(paths))
    files.sort(key=lambda f: f.path)
    excluded.sort(key=lambda e: e.path)
    since = time.time_ns() - RACY_NS
    racy = frozenset(p for p, st in zip(paths, stamps, strict=True) if st is not None and st[1] >= since)
    digest = hashlib.sha1(repr((has_git, paths, stamps, [(e.path, e.category) for e in excluded])).encode())
    for path in sorted(racy):  # an equal stat does not prove an equal content yet: hash the content
        try:
            digest.update(path.encode("utf-8", "surrogateescape") + b"\0" + _content_digest(prefix + path))
        except OSError:
            digest.update(path.encode("utf-8", "surrogateescape") + b"\0?")
    stats = {p: (st[0], st[1]) for p, st in zip(paths, stamps, strict=True) if st is not None and len(st) == 3}
    result = RepoFiles(root=prefix[:-1], files=tuple(files), excluded=tuple(excluded), has_git=has_git,
                       warnings=tuple(warnings), fingerprint=digest.hexdigest(), stats=stats)
    rules.last = LastScan(paths, stamps, pruned, racy, result, outcome)
    rules.unsaved += classified
    # A few changed paths cost less to classify again than a write; paths stored as racy are
    # classified by every process until stored settled.
    if last is None or rules.unsaved > FEW_CHANGES or rules.stored_racy - racy:
        save_last_scan(config, rules, rules.key, rules.last)
        rules.unsaved, rules.stored_racy = 0, racy
    return result


def _classify(prefix: str, path: str, rules: Rules, cache: ScanCache | None,
              warnings: list[str], stamp: Stamp | None = None) -> tuple[FileEntry | None, Excluded | None]:
    """One path through every rule: (entry, None), (None, exclusion) or (None, None) if gone.
    `stamp`: the path's `lstat` just taken (`_stamps`), when it is not a link."""
    why = rules.before_stat(path)
    if why is not None:
        return None, why
    full = prefix + path
    if stamp is not None and len(stamp) == 3 and stat.S_ISREG(stamp[2]):
        size, mtime = stamp[0], stamp[1]
    else:
        try:
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                why = _link_target_verdict(prefix, path, rules)
                if why is not None:
                    return None, why
                st = os.stat(full)
        except OSError:
            return None, None  # deleted from the work tree, or a dangling link
        if not stat.S_ISREG(st.st_mode):
            return None, None  # submodule or directory link
        size, mtime = st.st_size, st.st_mtime_ns
    why = rules.after_stat(path, size)
    if why is not None:
        if why.category != "size" or not _splittable(path, size):
            return None, why
        # A big source file may still give single definitions (`split_large_sources`): its
        # bytes must pass the same content rules as any other file's.
        verdict = _cached_verdict(full, path, size, mtime, cache, warnings)
        if verdict is None:
            return None, None
        return None, (content_excluded(path, *verdict) if verdict[0] else why)
    verdict = _cached_verdict(full, path, size, mtime, cache, warnings)
    if verdict is None:
        return None, None
    if verdict[0]:
        return None, content_excluded(path, *verdict)
    info = name_info(path[path.rfind("/") + 1:])
    return FileEntry(path=path, size=size, kind=info.kind, language=info.language), None


def _cached_verdict(full: str, path: str, size: int, mtime: int, cache: ScanCache | None,
                    warnings: list[str]) -> tuple[str, str] | None:
    """The content verdict of one file (read once, then cached by size and mtime); None if unreadable."""
    verdict = cache.get(path, size, mtime) if cache is not None else None
    if verdict is None:
        try:
            data = _read_bytes(full)
        except OSError as exc:
            warnings.append(f"{path}: cannot read ({exc.__class__.__name__}); skipped")
            return None
        verdict = content_verdict(path, data)
        if cache is not None:
            cache.put(path, size, mtime, verdict)
    return verdict


SPLIT_SOURCE_BYTES = 2_000_000  # = index.MAX_SOURCE_BYTES: sized-out sources up to this are split


def _splittable(path: str, size: int) -> bool:
    """A source file with a grammar, excluded only for its size, that may still be split."""
    return size <= SPLIT_SOURCE_BYTES and name_info(path[path.rfind("/") + 1:]).language is not None


def _link_target_verdict(prefix: str, path: str, rules: Rules) -> Excluded | None:
    """The gate's rules applied to what a symlink points at, under the link's own path.

    A link is judged by its target as well as by its name: outside the repository, a secret
    name (`src/settings.py -> ../.env`), a forbidden file, or any path rule of the target.
    """
    real, top = os.path.realpath(prefix + path), os.path.realpath(prefix)
    if os.path.commonpath([real, top]) != top:
        return Excluded(path, "symlink pointing outside the repository", "path")
    target = Path(real).relative_to(top).as_posix()
    if target == path:
        return None
    if target.startswith((NOFACE_DIR, ".git/")) or target == ".git":
        return Excluded(path, f"symlink to {target} (never sent)", "path")
    why = rules.before_stat(target)
    if why is None:
        return None
    return Excluded(path, f"symlink to {target}: {why.reason}", why.category)


def _content_digest(full: str) -> bytes:
    with open(full, "rb") as fh:
        return hashlib.sha1(fh.read()).digest()


def _read_bytes(full: str) -> bytes:
    with open(full, "rb") as fh:
        return fh.read()


# --------------------------------------------------------------------------- the gate's verdicts


def admitted(repo_files: RepoFiles, path: str, manifest: Manifest | None = None, *,
             single_definitions: bool = False) -> bool:
    """May bytes of `path` enter a prompt, by the verdict the scan (`_classify`) already gave it?

    Only a file the scan listed (inside the repository with symlinks resolved, not secret by
    name of link or target nor by content, not forbidden, not excluded) is admitted; the one
    exception is a source file excluded only for its size, and only as single definitions
    (`single_definitions`), after its content passed the same secret check. The manifest is
    checked again on the path itself: a caller may hold a scan made without it.
    """
    if manifest is not None and manifest.is_forbidden(path):
        return False
    if repo_files.get(path) is not None:
        return True
    if not single_definitions:
        return False
    ex = repo_files.exclusion(path)
    return ex is not None and ex.category == "size"


# --------------------------------------------------------------------------- one path


def check_path(config: Config, path: str, manifest: Manifest | None = None, *,
               explicit: bool = False) -> Excluded | None:
    """The scan's rules for one requested path; None when it may be served.

    Secrets are always refused; `explicit` lifts only the size limit. Missing files return None
    (the caller reports "not found"); paths outside the repository are refused.
    """
    root = Path(config.root)
    rel = norm_path(path)
    if os.path.isabs(rel):
        try:
            rel = Path(os.path.realpath(rel)).relative_to(os.path.realpath(root)).as_posix()
        except ValueError:
            return Excluded(path, "outside the repository", "path")
    if not rel:
        return None  # the repository itself: nothing to refuse
    if rel == ".." or rel.startswith("../"):
        return Excluded(path, "outside the repository", "path")
    if rel.startswith(NOFACE_DIR):
        return Excluded(rel, "noface_ctx's own cache directory", "path")
    top = os.path.realpath(root)
    if os.path.commonpath([os.path.realpath(root / rel), top]) != top:
        return Excluded(rel, "resolves outside the repository (symlink)", "path")
    rules = Rules(config, manifest, [rel] if explicit else ())
    why = rules.before_stat(rel)
    if why is None and _git_ignored(root, rel):
        why = Excluded(rel, "ignored by .gitignore", "path")
    if why is not None:
        return why
    return _classify(str(root) + os.sep, rel, rules, None, [])[1]


def _git_ignored(root: Path, rel: str) -> bool:
    answer = git.is_ignored(root, rel)
    if answer is not None:
        return answer
    # not a repository: read .gitignore files along the path
    chain: list[tuple[str, pathspec.GitIgnoreSpec]] = []
    parts = rel.split("/")
    for i in range(len(parts)):
        base = "/".join(parts[:i])
        gi = root / base / ".gitignore"
        if gi.is_file():
            try:
                chain.append((base, gitignore_spec(gi.read_text(errors="replace").splitlines())))
            except OSError:
                pass
        prefix = "/".join(parts[: i + 1])
        if ignored(chain, prefix + ("/" if i < len(parts) - 1 else "")):
            return True
    return False
