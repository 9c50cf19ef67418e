"""Issue input → `Issue`, and the issue's file manifest → `Manifest`.

Issues come from beads (`bd show ID --json`, or `.beads/issues.jsonl` when `bd` is absent),
a `.json` file, a Markdown/text file, stdin, or a dict. The manifest comes from, newest source
first: an explicit argument, the newest `MANIFEST:` comment on the issue, `.noface/state.json`.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from noface_ctx._bounded import check_depth
from noface_ctx._wording import is_manifest_text
from noface_ctx.datatypes import Issue, IssueRef, Manifest, ManifestRef
from noface_ctx.errors import InputError
from noface_ctx.issue._manifest import (
    load_manifest,
    manifest_from_comments,
    manifest_from_state,
    parse_manifest_comment,
)
from noface_ctx.issue._text import find_file, read_json, read_text
from noface_ctx.issue.beads import TEXT_FIELDS, from_beads, from_beads_id

__all__ = ["load_issue", "load_issue_with_warnings", "load_manifest", "parse_manifest_comment"]

_MD_SUFFIXES = (".md", ".markdown", ".txt")


# --------------------------------------------------------------------------- public API


def load_issue(
    ref: IssueRef, repo: str | Path = ".", *, manifest: ManifestRef | None = None, stdin: TextIO | None = None,
    as_id: bool = False,
) -> Issue:
    """Read an issue from `ref` (see `load_issue_with_warnings`), dropping the warnings."""
    return load_issue_with_warnings(ref, repo, manifest=manifest, stdin=stdin, as_id=as_id)[0]


def load_issue_with_warnings(
    ref: IssueRef, repo: str | Path = ".", *, manifest: ManifestRef | None = None, stdin: TextIO | None = None,
    as_id: bool = False,
) -> tuple[Issue, list[str]]:
    """Read an issue and attach its manifest; return it with warnings a person should see.

    `ref` is an `Issue`, a beads dict, `"-"` (stdin: JSON or Markdown), a `.json` file (object,
    or array whose first element is the issue), a `.md`/`.txt` file, or a beads issue id. With
    `as_id` a string is a beads id only, never a file (`_issue_sources`: ids a tracker listed).
    """
    root = Path(repo)
    warnings: list[str] = []
    raw_comments: list[Any] = []
    if isinstance(ref, Issue):
        issue = ref
        raw_comments = list(ref.comments)
    elif isinstance(ref, Mapping):
        issue, raw_comments = from_beads(ref, source="dict")
    elif not isinstance(ref, (str, Path)):
        raise InputError(f"cannot read an issue from {type(ref).__name__}")
    elif as_id:
        issue, raw_comments = from_beads_id(str(ref), root, warnings)
    elif str(ref) == "-":
        issue, raw_comments = _from_text((stdin or sys.stdin).read(), source="stdin", default_id="stdin")
    else:
        issue, raw_comments = _from_ref(str(ref), root, warnings)

    chosen = _choose_manifest(issue, raw_comments, manifest, root, warnings)
    if chosen is not None:
        issue = replace(issue, manifest=chosen)
        warnings.extend(_unmatched_entries(chosen, root))
    issue = _mask_secrets(issue, warnings)
    return issue, warnings


def _unmatched_entries(manifest: Manifest, root: Path) -> list[str]:
    """A warning per manifest entry that names no file or directory in the repository."""
    from noface_ctx.files.secrets import redact_secrets

    out = []
    for role, entries in (("primary", manifest.primary), ("read", manifest.read), ("forbidden", manifest.forbidden)):
        for e in entries:
            if e.path == "./":
                continue
            if not os.path.lexists(root / e.path.rstrip("/")):
                src = f" ({manifest.source})" if manifest.source else ""
                shown = redact_secrets(e.path)[0]
                out.append(f"manifest{src}: {role} entry {shown!r} matches no file in the repository")
    return out


def _mask_secrets(issue: Issue, warnings: list[str]) -> Issue:
    """Credentials pasted into the issue never reach the prompt: each is replaced by
    `[REDACTED: kind]`, with a warning naming the field and the kind (never the value)."""
    from noface_ctx.files.secrets import redact_secrets

    changes: dict[str, Any] = {}
    shown_id, id_kinds = redact_secrets(issue.id)  # the id stays as read (lookups, logs); shown masked
    if id_kinds:
        warnings.append(f"issue {shown_id} id: {_kinds(id_kinds)} masked as [REDACTED]; rotate it if it was real")
    for name in TEXT_FIELDS:
        masked, kinds = redact_secrets(getattr(issue, name))
        if kinds:
            changes[name] = masked
            warnings.append(f"issue {shown_id} {name}: {_kinds(kinds)} masked as [REDACTED]; rotate it if it was real")
    comments = []
    for number, text in enumerate(issue.comments, 1):
        masked, kinds = redact_secrets(text)
        if kinds:
            warnings.append(f"issue {shown_id} comment {number}: {_kinds(kinds)} masked as [REDACTED]; "
                            "rotate it if it was real")
        comments.append(masked)
    if tuple(comments) != issue.comments:
        changes["comments"] = tuple(comments)
    return replace(issue, **changes) if changes else issue


def _kinds(kinds: list[str]) -> str:
    unique = list(dict.fromkeys(kinds))
    return ("a secret" if len(kinds) == 1 else f"{len(kinds)} secrets") + f" ({', '.join(unique)})"


# --------------------------------------------------------------------------- issue sources


def _from_ref(ref: str, root: Path, warnings: list[str]) -> tuple[Issue, list[Any]]:
    suffix = Path(ref).suffix.lower()
    if suffix == ".json" or suffix in _MD_SUFFIXES:
        path = find_file(ref, root)
        if path is None:
            raise InputError("issue file not found", where=ref)
        if suffix == ".json":
            return _from_json_value(read_json(path), source=str(path), default_id=path.stem)
        return _from_text(read_text(path), source=str(path), default_id=path.stem)
    return from_beads_id(ref, root, warnings)


def _from_json_value(data: Any, *, source: str, default_id: str) -> tuple[Issue, list[Any]]:
    if isinstance(data, list):
        objects = [d for d in data if isinstance(d, Mapping)]
        if not objects:
            raise InputError("JSON array holds no issue object", where=source)
        data = objects[0]
    if not isinstance(data, Mapping):
        raise InputError("expected a JSON object (a beads issue) or an array of them", where=source)
    return from_beads(data, source=source, default_id=default_id)


def _from_text(text: str, *, source: str, default_id: str) -> tuple[Issue, list[Any]]:
    """Stdin or a file: JSON when it parses as an object/array, Markdown otherwise."""
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = None  # Markdown that happens to start with a bracket
        except RecursionError:
            raise InputError("JSON nested too deeply; refused", where=source) from None
        if value is not None:
            check_depth(value, source, what="JSON ")
            return _from_json_value(value, source=source, default_id=default_id)
    return _from_markdown(text, source=source, default_id=default_id)


def _from_markdown(text: str, *, source: str, default_id: str) -> tuple[Issue, list[Any]]:
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[0].strip() == "---":  # YAML-ish frontmatter: skip it
        end = next((i for i, ln in enumerate(lines[1:], 1) if ln.strip() in ("---", "...")), None)
        if end is not None:
            lines = lines[end + 1:]
    skipped = len(text.replace("\r\n", "\n").split("\n")) - len(lines)  # frontmatter lines, for line numbers
    manifest_at = [(n + skipped, ln.strip()) for n, ln in enumerate(lines, 1) if is_manifest_text(ln)]
    manifest_lines = [ln for _n, ln in manifest_at]
    body = [ln for ln in lines if not is_manifest_text(ln)]
    idx = next((i for i, ln in enumerate(body) if re.match(r"#\s+\S", ln)), None)
    if idx is None:
        idx = next((i for i, ln in enumerate(body) if ln.strip()), None)
    if idx is None:
        raise InputError("issue text is empty", where=source)
    title = re.sub(r"^#+\s*", "", body[idx]).strip().rstrip("#").strip()
    description = "\n".join(body[:idx] + body[idx + 1:]).strip()
    issue = Issue(id=default_id, title=title, description=description, source=source,
                  comments=tuple(manifest_lines))
    # labelled by where they really are, not as beads comments
    return issue, [{"text": ln, "source": f"{source}:{n}"} for n, ln in manifest_at]


def _choose_manifest(issue: Issue, raw_comments: list[Any], explicit: Any, root: Path,
                     warnings: list[str]) -> Manifest | None:
    if explicit is not None:
        chosen = load_manifest(explicit, repo=root, where=None)
        return chosen if chosen.source else replace(chosen, source="explicit")
    if issue.manifest is not None:  # an `Issue` passed in already carries its resolved manifest
        return issue.manifest
    from_comments = manifest_from_comments(raw_comments, root)
    if from_comments is not None:
        return from_comments
    return manifest_from_state(issue.id, root, warnings)

