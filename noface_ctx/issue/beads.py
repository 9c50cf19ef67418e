"""Beads issues: `bd show ID --json` when `bd` is on PATH, else `.beads/issues.jsonl`; a beads
issue object becomes an `Issue` (text fields only, never raw JSON)."""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from noface_ctx._bounded import loads_json
from noface_ctx.datatypes import Issue
from noface_ctx.errors import InputError
from noface_ctx.issue._text import as_text, comment_text, ordered_comments, read_text, unescape

__all__ = ["BD_TIMEOUT", "JSONL_PATH", "TEXT_FIELDS", "from_beads", "from_beads_id", "jsonl_issues"]

BD_TIMEOUT = 15  # seconds; `bd` may sync its database on first use
JSONL_PATH = ".beads/issues.jsonl"
TEXT_FIELDS = ("title", "description", "design", "acceptance_criteria", "notes")


def from_beads(data: Mapping[str, Any], *, source: str, default_id: str = "") -> tuple[Issue, list[Any]]:
    """A beads issue object → `Issue`. Only text fields are kept; never raw JSON."""
    fields = {k: unescape(as_text(data.get(k))) for k in TEXT_FIELDS}
    issue_id = as_text(data.get("id")) or default_id
    if not fields["title"]:
        fields["title"] = issue_id or "(untitled)"
    labels = data.get("labels") or ()
    if isinstance(labels, str):
        labels = [s.strip() for s in labels.split(",")]
    raw_comments = ordered_comments(data.get("comments") or ())
    texts = tuple(t for t in (unescape(comment_text(c)) for c in raw_comments) if t)
    issue = Issue(
        id=issue_id,
        labels=tuple(str(x) for x in labels if str(x).strip()) if isinstance(labels, (list, tuple)) else (),
        comments=texts,
        issue_type=as_text(data.get("issue_type") or data.get("type")),
        source=source,
        title=fields["title"],
        description=fields["description"],
        design=fields["design"],
        acceptance_criteria=fields["acceptance_criteria"],
        notes=fields["notes"],
    )
    return issue, raw_comments


def from_beads_id(issue_id: str, root: Path, warnings: list[str]) -> tuple[Issue, list[Any]]:
    """The issue `issue_id` from `bd show`, or from `.beads/issues.jsonl` when bd is absent or fails."""
    bd = shutil.which("bd")
    if bd is not None:
        found, problem = _bd_show(bd, issue_id, root, warnings)
        if found is not None:
            return from_beads(found, source=f"bd show {issue_id}", default_id=issue_id)
        warnings.append(f"bd show {issue_id} failed ({problem}); reading {JSONL_PATH} instead")
    found = _jsonl_lookup(issue_id, root, warnings)
    return from_beads(found, source=JSONL_PATH, default_id=issue_id)


def _bd_show(bd: str, issue_id: str, root: Path,
             warnings: list[str] | None = None) -> tuple[Mapping[str, Any] | None, str]:
    """`bd show ID --json --include-comments` (bd >= 1.1 omits comment bodies without the flag);
    an older bd that rejects the flag is asked again without it. Output that still says
    `comments_omitted` without the bodies is a loud warning: the MANIFEST may be among them."""
    data, problem = _bd_json(bd, issue_id, root, "--include-comments")
    if data is None and problem not in ("OSError", "TimeoutExpired", "FileNotFoundError", "PermissionError"):
        data, problem = _bd_json(bd, issue_id, root)  # an older bd rejects the flag
    if data is None:
        return None, problem
    objects = data if isinstance(data, list) else [data]
    objects = [o for o in objects if isinstance(o, Mapping)]
    match = next((o for o in objects if o.get("id") == issue_id), objects[0] if objects else None)
    if match is None:
        return None, "no issue in output"
    if match.get("comments_omitted") and not _has_comment_bodies(match.get("comments")):
        if warnings is not None:
            warnings.append(
                f"bd show {issue_id}: comments were omitted (comments_omitted: true) and could not be read; "
                "a MANIFEST comment (its forbidden list included) may be missing: upgrade bd or pass --manifest")
    return match, ""


def _bd_json(bd: str, issue_id: str, root: Path, *flags: str) -> tuple[Any, str]:
    try:
        proc = subprocess.run([bd, "show", issue_id, "--json", *flags], cwd=root, capture_output=True,
                              timeout=BD_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, type(exc).__name__
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, (err[-1] if err else f"exit code {proc.returncode}")[:200]
    try:
        return loads_json(proc.stdout.decode("utf-8", "replace"), "bd show"), ""
    except InputError as exc:
        return None, f"output refused: {exc.message}"


def _has_comment_bodies(comments: Any) -> bool:
    if not isinstance(comments, (list, tuple)) or not comments:
        return False
    return any(comment_text(c).strip() for c in comments)


def jsonl_issues(root: Path, warnings: list[str]) -> list[Mapping[str, Any]] | None:
    """Every issue object of `.beads/issues.jsonl` in file order (None without the file), read
    with the bounded JSON reader: a bad line (not JSON, nested too deep, not an object) is
    skipped with a warning naming it. A file whose real path leaves the repository is refused."""
    path = root / JSONL_PATH
    if not path.is_file():
        return None
    real, top = os.path.realpath(path), os.path.realpath(root)
    if os.path.commonpath([real, top]) != top:
        raise InputError("a symlink leading outside the repository; refused", where=str(path))
    found: list[Mapping[str, Any]] = []
    for lineno, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = loads_json(line, f"{JSONL_PATH}:{lineno}")
        except InputError as exc:  # one bad line must not break every other id
            why = "not valid JSON" if exc.message.startswith("invalid JSON") else exc.message
            warnings.append(f"{JSONL_PATH}:{lineno}: skipped: {why}")
            continue
        if not isinstance(obj, Mapping):
            warnings.append(f"{JSONL_PATH}:{lineno}: skipped: not a JSON object")
            continue
        found.append(obj)
    return found


def _jsonl_lookup(issue_id: str, root: Path, warnings: list[str]) -> Mapping[str, Any]:
    path = root / JSONL_PATH
    issues = jsonl_issues(root, warnings)
    if issues is None:
        raise InputError(f"unknown issue id {issue_id!r} (bd is not available and there is no {JSONL_PATH})",
                         where=str(root))
    found: Mapping[str, Any] | None = None
    ids: list[str] = []
    for obj in issues:
        ids.append(str(obj.get("id", "")))
        if obj.get("id") == issue_id:
            found = obj  # a later line for the same id wins
    if found is None:
        close = difflib.get_close_matches(issue_id, ids, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise InputError(f"unknown issue id {issue_id!r} (not in {JSONL_PATH}){hint}", where=str(path))
    return found
