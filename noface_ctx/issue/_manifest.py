"""The issue's file manifest → `Manifest`: `MANIFEST:` lines, JSON objects and files,
the newest `MANIFEST:` comment of an issue, `.noface/state.json`; each path normalised, globs expanded."""

from __future__ import annotations

import difflib
import os
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from noface_ctx._bounded import read_json as read_bounded_json
from noface_ctx._wording import MANIFEST_MARK, is_manifest_text
from noface_ctx.datatypes import Manifest, ManifestEntry, ManifestRef
from noface_ctx.errors import InputError
from noface_ctx.issue._text import comment_text, find_file, read_json, unescape

__all__ = ["STATE_PATH", "load_manifest", "manifest_from_comments", "manifest_from_state", "parse_manifest_comment"]

STATE_PATH = ".noface/state.json"
_MANIFEST_KEYS = {
    "primary": "primary", "primary_files": "primary",
    "read": "read", "read_files": "read",
    "forbidden": "forbidden", "forbidden_files": "forbidden",
}


def load_manifest(value: ManifestRef, *, where: str | None = None, repo: str | Path | None = None) -> Manifest:
    """A `Manifest`, a dict (`primary[_files]`, `read[_files]`, `forbidden[_files]`), a path to such
    a `.json` file, or a `MANIFEST: ...` line → `Manifest`. Paths are normalised against `repo`."""
    root = Path(repo) if repo is not None else None
    if isinstance(value, Manifest):
        return value
    if isinstance(value, (str, Path)):
        text = str(value)
        if is_manifest_text(text):
            parsed = parse_manifest_comment(text, repo=root, source=where or "explicit")
            if parsed is None:
                raise InputError("not a manifest line", where=where)
            return parsed
        path = find_file(text, root)
        if path is None:
            raise InputError("manifest file not found", where=text)
        data = read_json(path)
        return _manifest_from_dict(data, where=str(path), root=root, source=where or f"explicit ({text})")
    if isinstance(value, Mapping):
        return _manifest_from_dict(value, where=where or "manifest", root=root, source=where or "explicit")
    raise InputError(f"cannot read a manifest from {type(value).__name__}", where=where)


_MANIFEST_RE = re.compile(re.escape(MANIFEST_MARK))
_KEY_RE = re.compile(r"[ \t]*([A-Za-z_][A-Za-z0-9_-]*)[ \t]*[=:][ \t]*")
_SEP_RE = re.compile(r"[ \t,;]*")
_QUOTED_RE = re.compile(r'"([^"\n]*)"|\'([^\'\n]*)\'|`([^`\n]*)`')
_MANIFEST_KEY_NAMES = tuple(_MANIFEST_KEYS)


def parse_manifest_comment(
    text: str, *, repo: str | Path | None = None, source: str = "comment"
) -> Manifest | None:
    """`MANIFEST: primary=[a,b] read=[c] forbidden=[d]` → `Manifest`; None when `text` is not one.

    Items are separated by commas; quotes or backticks allow a path holding a space
    (`["my file.py"]`); `primary_files=` works too. A manifest that cannot be read completely —
    an unclosed `[`, an unknown key (`forbiden=`, with a suggestion), a nested `[`, an unquoted
    path with a space — raises `InputError` naming `source`: a partial manifest could silently
    drop the forbidden list. Prose on the lines after the lists is allowed.
    """
    m = _MANIFEST_RE.search(text or "")
    if m is None:
        return None
    line = text[m.end():].split("\n", 1)[0]
    if not _KEY_RE.match(line) and "[" not in line and "=" not in line:
        return None  # "MANIFEST:" in prose, with nothing that looks like a list after it
    lists = _parse_manifest_lists(text, m.end(), source)
    root = Path(repo) if repo is not None else None
    return _build_manifest(lists, where=source, root=root, source=source)


def _parse_manifest_lists(text: str, pos: int, source: str) -> dict[str, list[str]]:
    def fail(message: str) -> InputError:
        return InputError(f"unreadable MANIFEST: {message}; no part of it was used", where=source)

    lists: dict[str, list[str]] = {"primary": [], "read": [], "forbidden": []}
    found = False
    n = len(text)
    while True:
        sep = _SEP_RE.match(text, pos)  # always matches (maybe empty)
        pos = sep.end() if sep else pos
        if pos >= n:
            break
        if text[pos] in "\r\n":
            # A new line: more lists, or the prose that follows the manifest.
            rest = text[pos:].lstrip()
            if found and not _KEY_RE.match(rest) and not rest.startswith("["):
                break
            pos = n - len(rest)
            if pos >= n:
                break
        key_m = _KEY_RE.match(text, pos)
        if key_m is None or key_m.end() >= n or text[key_m.end()] != "[":
            word = text[pos:pos + 40].splitlines()[0] if text[pos:pos + 40].strip() else text[pos:pos + 40]
            if key_m is not None:
                raise fail(f"expected '[' after {key_m.group(1)}= (at {word!r})")
            raise fail(f"expected key=[paths] (primary, read or forbidden), found {word!r}")
        key = key_m.group(1)
        role = _MANIFEST_KEYS.get(key.lower())
        if role is None:
            close = difflib.get_close_matches(key.lower(), _MANIFEST_KEY_NAMES, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]}=?" if close else " (keys: primary, read, forbidden)"
            raise fail(f"unknown key {key}={hint}")
        start = key_m.end() + 1
        end = text.find("]", start)
        if end == -1:
            raise fail(f"{key}=[ is never closed with ']'")
        items = _manifest_items(text[start:end], key, fail)
        lists[role].extend(items)
        found = True
        pos = end + 1
    if not found:
        raise fail("no primary=[...], read=[...] or forbidden=[...] list")
    return lists


def _manifest_items(inner: str, key: str, fail: Any) -> list[str]:
    if "[" in inner:
        raise fail(f"'[' inside {key}=[...] (nested list, or a ']' missing before the next key)")
    items: list[str] = []
    for raw in _split_items(inner):
        piece = raw.strip()
        if not piece:
            continue
        q = _QUOTED_RE.fullmatch(piece)
        if q is not None:
            item = next((g for g in q.groups() if g is not None), "")
            if item.strip():
                items.append(item)
            continue
        if any(c in piece for c in "\"'`"):
            raise fail(f"unbalanced quote in {key}=[...] item {piece!r}")
        if re.search(r"[=:]\s*$|\s[A-Za-z_]+\s*[=:]", piece) or "=" in piece:
            raise fail(f"item {piece!r} in {key}=[...] looks like a key: is a ']' missing?")
        if any(c.isspace() for c in piece):
            raise fail(f"item {piece!r} in {key}=[...] holds a space: separate paths with commas, "
                       "and quote a path that contains a space")
        items.append(piece)
    return items


def _split_items(inner: str) -> list[str]:
    """Split on commas outside quotes."""
    out, cur, quote = [], [], ""
    for c in inner:
        if quote:
            cur.append(c)
            if c == quote:
                quote = ""
        elif c in "\"'`":
            quote = c
            cur.append(c)
        elif c == "," or c == "\n":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur))
    return out


# --------------------------------------------------------------------------- manifest sources


def manifest_from_comments(raw_comments: Sequence[object], root: Path) -> Manifest | None:
    """The newest `MANIFEST:` comment wins (noface took the oldest, which was a bug)."""
    for number in range(len(raw_comments), 0, -1):
        comment = raw_comments[number - 1]
        text = unescape(comment_text(comment))
        if MANIFEST_MARK not in text:
            continue
        when = comment.get("created_at") if isinstance(comment, Mapping) else None
        label = f"beads comment {number}" + (f" ({when})" if when else "")
        if isinstance(comment, Mapping) and isinstance(comment.get("source"), str):  # a line of an .md issue
            label = _relative_label(comment["source"], root)
        parsed = parse_manifest_comment(text, repo=root, source=label)
        if parsed is not None:
            return parsed
    return None


def _relative_label(source: str, root: Path) -> str:
    """`/abs/repo/issues/x.md:12` → `issues/x.md:12` when the file lies in the repository."""
    if not Path(source).is_absolute():
        return source
    try:
        return Path(source).resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return source


def manifest_from_state(issue_id: str, root: Path, warnings: list[str]) -> Manifest | None:
    path = root / STATE_PATH
    if not issue_id or not path.is_file():
        return None
    top = os.path.realpath(root)
    if os.path.commonpath([os.path.realpath(path), top]) != top:
        warnings.append(f"{STATE_PATH}: ignored: a symlink leading outside the repository")
        return None
    try:
        state = read_bounded_json(path, STATE_PATH)
    except InputError as exc:
        warnings.append(f"{STATE_PATH}: ignored: " + ("JSONDecodeError" if exc.message.startswith("invalid JSON") else exc.message))
        return None
    issues = state.get("issues") if isinstance(state, Mapping) else None
    entry: Any = None
    if isinstance(issues, Mapping):
        entry = issues.get(issue_id)
    elif isinstance(issues, list):
        entry = next((i for i in issues if isinstance(i, Mapping) and i.get("id") == issue_id), None)
    manifest = entry.get("manifest") if isinstance(entry, Mapping) else None
    if not isinstance(manifest, Mapping):
        return None
    return _manifest_from_dict(manifest, where=STATE_PATH, root=root, source=STATE_PATH)


def _manifest_from_dict(data: Any, *, where: str, root: Path | None, source: str) -> Manifest:
    if isinstance(data, Mapping) and isinstance(data.get("manifest"), Mapping):
        data = data["manifest"]
    if not isinstance(data, Mapping):
        raise InputError("a manifest must be a JSON object with primary/read/forbidden lists", where=where)
    lists: dict[str, list[str]] = {"primary": [], "read": [], "forbidden": []}
    for key, value in data.items():
        role = _MANIFEST_KEYS.get(str(key).lower())
        if role is None:
            close = difflib.get_close_matches(str(key).lower(), _MANIFEST_KEY_NAMES, n=1, cutoff=0.75)
            if close:  # a misspelt list would silently drop it (a forbidden list above all)
                raise InputError(f"manifest: unknown key {key!r}; did you mean {close[0]!r}?", where=where)
            continue
        if value is None:
            continue
        if isinstance(value, str):  # "a.py, b.py": commas separate; a path may hold a space
            value = [v.strip() for v in re.split(r"[,\n]+", value) if v.strip()]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise InputError(f"manifest {key}: expected a list of paths", where=where)
        lists[role].extend(value)
    return _build_manifest(lists, where=where, root=root, source=source)


def _build_manifest(lists: Mapping[str, Iterable[str]], *, where: str, root: Path | None,
                    source: str) -> Manifest:
    built = {role: tuple(_dedupe(e for p in lists.get(role, ()) for e in _entries(p, where, root)))
             for role in ("primary", "read", "forbidden")}
    return Manifest(primary=built["primary"], read=built["read"], forbidden=built["forbidden"], source=source)


_RANGE_RE = re.compile(r"^(.*?):(\d+)(?:\s*-\s*(\d+))?$")


def _entries(raw: str, where: str, root: Path | None) -> list[ManifestEntry]:
    """One manifest string → entries; a glob (`src/*.py`) expands to the repo files it matches."""
    entry = _entry(raw, where, root)
    if root is None or entry.start is not None or not any(c in entry.path for c in "*?["):
        return [entry]
    try:
        matches = sorted(p.relative_to(root).as_posix() for p in root.glob(entry.path.rstrip("/")))
    except (ValueError, OSError):
        matches = []
    matches = [m for m in matches if not m.startswith(".git/") and (root / m).is_file()]
    return [ManifestEntry(m) for m in matches] or [entry]


def _entry(raw: str, where: str, root: Path | None) -> ManifestEntry:
    """`./src\\a.py:10-40` → ManifestEntry("src/a.py", 10, 40); directories get a trailing `/`."""
    text = raw.strip().strip("\"'`").replace("\\", "/")
    start = end = None
    m = _RANGE_RE.match(text)
    if m:
        text, start = m.group(1), int(m.group(2))
        end = int(m.group(3)) if m.group(3) else start
        if start < 1 or end < start:
            raise InputError(f"manifest entry {raw!r}: bad line range", where=where)
    if not text:
        raise InputError(f"manifest entry {raw!r}: empty path", where=where)
    if text.startswith(("/", "~")) or re.match(r"^[A-Za-z]:/", text):
        raise InputError(f"manifest entry {raw!r}: absolute paths are not allowed", where=where)
    is_dir = text.endswith("/")
    norm = posixpath.normpath(text)
    if norm == ".." or norm.startswith("../"):
        raise InputError(f"manifest entry {raw!r}: escapes the repository", where=where)
    if norm == ".":
        return ManifestEntry("./")
    if not is_dir and root is not None and start is None and (root / norm).is_dir():
        is_dir = True
    return ManifestEntry(norm + "/" if is_dir else norm, start, end)


def _dedupe(entries: Iterable[ManifestEntry]) -> list[ManifestEntry]:
    seen: dict[ManifestEntry, None] = {}
    for e in entries:
        seen.setdefault(e, None)
    return list(seen)
