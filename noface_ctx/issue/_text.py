"""Reading issue input: bounded file reads, beads comments in order, text fields as plain text."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from noface_ctx._bounded import MAX_JSON_BYTES, loads_json, read_head
from noface_ctx.errors import InputError

__all__ = ["as_text", "comment_text", "find_file", "ordered_comments", "read_json", "read_text", "unescape"]


def ordered_comments(comments: object) -> list[object]:
    """Chronological order: by `created_at` when every comment has one, else as listed."""
    if not isinstance(comments, (list, tuple)):
        return []
    items = list(comments)
    stamps = [_timestamp(c.get("created_at")) if isinstance(c, Mapping) else None for c in items]
    if items and all(s is not None for s in stamps):
        order = sorted(range(len(items)), key=lambda i: (stamps[i], i))
        return [items[i] for i in order]
    return items


def _timestamp(value: Any) -> float | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt.timestamp()  # naive stamps read as local time; one tracker uses one convention


def comment_text(comment: object) -> str:
    """A comment's text: the string itself, or its `text` / `body` / `content` field ("" otherwise)."""
    if isinstance(comment, str):
        return comment
    if isinstance(comment, Mapping):
        for key in ("text", "body", "content"):
            value = comment.get(key)
            if isinstance(value, str):
                return value
    return ""


def as_text(value: object) -> str:
    """A JSON field as prose: strings stripped, numbers written, lists joined by lines, objects dropped."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "\n".join(as_text(v) for v in value if as_text(v))
    return ""  # nested objects are not prose; never leak raw JSON into the prompt


_CODE_SPAN_RE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
_ESCAPE_RE = re.compile(r"(?<!\\)\\([nt])")


def unescape(text: str) -> str:
    r"""Turn a literal two-character `\n` / `\t` (written by shells into beads) into the real thing.

    When the text already has real newlines, code spans are left alone (`"\n".join` stays).
    """
    if "\\" not in text:
        return text

    def fix(s: str) -> str:
        return _ESCAPE_RE.sub(lambda m: "\n" if m.group(1) == "n" else "\t", s)

    if "\n" not in text:
        return fix(text).strip()
    out, pos = [], 0
    for m in _CODE_SPAN_RE.finditer(text):
        out += [fix(text[pos:m.start()]), m.group(0)]
        pos = m.end()
    out.append(fix(text[pos:]))
    return "".join(out).strip()


# --------------------------------------------------------------------------- files


def find_file(name: str, root: Path | None) -> Path | None:
    """`name` as given (relative to the working directory), else relative to the repo."""
    candidates = [Path(name)]
    if root is not None and not Path(name).is_absolute():
        candidates.append(root / name)
    return next((p for p in candidates if p.is_file()), None)


def read_text(path: Path) -> str:
    """The file as text (UTF-8, BOM dropped), bounded by `MAX_JSON_BYTES`; `InputError` otherwise."""
    try:
        data, cut = read_head(path, MAX_JSON_BYTES)  # bounded: never a whole multi-GB file
        if cut:
            raise InputError(f"larger than {MAX_JSON_BYTES // (1024 * 1024)} MB; refused", where=str(path))
        return data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc.__class__.__name__}: {exc}", where=str(path)) from None


def read_json(path: Path) -> object:
    """The file as JSON, bounded in size and depth; `InputError` otherwise."""
    try:
        data, cut = read_head(path, MAX_JSON_BYTES)  # bounded: a 40 MB issue file is not read whole
    except OSError as exc:
        raise InputError(f"cannot read: {exc.__class__.__name__}: {exc}", where=str(path)) from None
    if cut:
        raise InputError(f"JSON larger than {MAX_JSON_BYTES // (1024 * 1024)} MB; refused", where=str(path))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read: not UTF-8 ({exc.reason} at byte {exc.start})", where=str(path)) from None
    return loads_json(text, str(path))
