"""Issue input → `Issue`, and the issue's file manifest → `Manifest`.

Issues come from beads (`bd show ID --json`, or `.beads/issues.jsonl` when `bd` is absent),
a `.json` file, a Markdown/text file, stdin, or a dict. The manifest comes from, newest source
first: an explicit argument, the newest `MANIFEST:` comment on the issue, `.noface/state.json`.
"""

from __future__ import annotations

import difflib
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from noface_ctx.bounded import MAX_JSON_BYTES, check_depth, loads_json, read_head, read_json
from noface_ctx.datatypes import Issue, Manifest, ManifestEntry
from noface_ctx.errors import InputError

BD_TIMEOUT = 15  # seconds; `bd` may sync its database on first use
JSONL_PATH = ".beads/issues.jsonl"
STATE_PATH = ".noface/state.json"

_TEXT_FIELDS = ("title", "description", "design", "acceptance_criteria", "notes")
_MD_SUFFIXES = (".md", ".markdown", ".txt")
_MANIFEST_KEYS = {
    "primary": "primary", "primary_files": "primary",
    "read": "read", "read_files": "read",
    "forbidden": "forbidden", "forbidden_files": "forbidden",
}


# --------------------------------------------------------------------------- public API


def load_issue(
    ref: Any, repo: str | Path = ".", *, manifest: Any = None, stdin: TextIO | None = None
) -> Issue:
    """Read an issue from `ref` (see `load_issue_with_warnings`), dropping the warnings."""
    return load_issue_with_warnings(ref, repo, manifest=manifest, stdin=stdin)[0]


def load_issue_with_warnings(
    ref: Any, repo: str | Path = ".", *, manifest: Any = None, stdin: TextIO | None = None
) -> tuple[Issue, list[str]]:
    """Read an issue and attach its manifest; return it with warnings a person should see.

    `ref` is an `Issue`, a beads dict, `"-"` (stdin: JSON or Markdown), a `.json` file (object,
    or array whose first element is the issue), a `.md`/`.txt` file, or a beads issue id.
    """
    root = Path(repo)
    warnings: list[str] = []
    raw_comments: list[Any] = []
    if isinstance(ref, Issue):
        issue = ref
        raw_comments = list(ref.comments)
    elif isinstance(ref, Mapping):
        issue, raw_comments = _from_beads(ref, source="dict")
    elif not isinstance(ref, (str, Path)):
        raise InputError(f"cannot read an issue from {type(ref).__name__}")
    elif str(ref) == "-":
        issue, raw_comments = _from_text((stdin or sys.stdin).read(), source="stdin", default_id="stdin")
    else:
        issue, raw_comments = _from_ref(str(ref), root, warnings)

    chosen = _choose_manifest(issue, raw_comments, manifest, root, warnings)
    if chosen is not None:
        issue = _replace(issue, manifest=chosen)
        warnings.extend(_unmatched_entries(chosen, root))
    issue = _mask_secrets(issue, warnings)
    return issue, warnings


def _unmatched_entries(manifest: Manifest, root: Path) -> list[str]:
    """A warning per manifest entry that names no file or directory in the repository."""
    out = []
    for role, entries in (("primary", manifest.primary), ("read", manifest.read), ("forbidden", manifest.forbidden)):
        for e in entries:
            if e.path == "./":
                continue
            if not os.path.lexists(root / e.path.rstrip("/")):
                src = f" ({manifest.source})" if manifest.source else ""
                out.append(f"manifest{src}: {role} entry {e.path!r} matches no file in the repository")
    return out


def _mask_secrets(issue: Issue, warnings: list[str]) -> Issue:
    """Credentials pasted into the issue never reach the prompt: each is replaced by
    `[REDACTED: kind]`, with a warning naming the field and the kind (never the value)."""
    from noface_ctx.files.secrets import redact_secrets

    changes: dict[str, Any] = {}
    for name in _TEXT_FIELDS:
        masked, kinds = redact_secrets(getattr(issue, name))
        if kinds:
            changes[name] = masked
            warnings.append(f"issue {issue.id} {name}: {_kinds(kinds)} masked as [REDACTED]; rotate it if it was real")
    comments = []
    for number, text in enumerate(issue.comments, 1):
        masked, kinds = redact_secrets(text)
        if kinds:
            warnings.append(f"issue {issue.id} comment {number}: {_kinds(kinds)} masked as [REDACTED]; "
                            "rotate it if it was real")
        comments.append(masked)
    if tuple(comments) != issue.comments:
        changes["comments"] = tuple(comments)
    return _replace(issue, **changes) if changes else issue


def _kinds(kinds: list[str]) -> str:
    unique = list(dict.fromkeys(kinds))
    return ("a secret" if len(kinds) == 1 else f"{len(kinds)} secrets") + f" ({', '.join(unique)})"


def load_manifest(value: Any, *, where: str | None = None, repo: str | Path | None = None) -> Manifest:
    """A `Manifest`, a dict (`primary[_files]`, `read[_files]`, `forbidden[_files]`), a path to such
    a `.json` file, or a `MANIFEST: ...` line → `Manifest`. Paths are normalised against `repo`."""
    root = Path(repo) if repo is not None else None
    if isinstance(value, Manifest):
        return value
    if isinstance(value, (str, Path)):
        text = str(value)
        if text.lstrip().startswith("MANIFEST:"):
            parsed = parse_manifest_comment(text, repo=root, source=where or "explicit")
            if parsed is None:
                raise InputError("not a manifest line", where=where)
            return parsed
        path = _find_file(text, root)
        if path is None:
            raise InputError("manifest file not found", where=text)
        data = _read_json(path)
        return _manifest_from_dict(data, where=str(path), root=root, source=where or f"explicit ({text})")
    if isinstance(value, Mapping):
        return _manifest_from_dict(value, where=where or "manifest", root=root, source=where or "explicit")
    raise InputError(f"cannot read a manifest from {type(value).__name__}", where=where)


_MANIFEST_RE = re.compile(r"MANIFEST:")
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
        pos = _SEP_RE.match(text, pos).end()
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


# --------------------------------------------------------------------------- issue sources


def _from_ref(ref: str, root: Path, warnings: list[str]) -> tuple[Issue, list[Any]]:
    suffix = Path(ref).suffix.lower()
    if suffix == ".json" or suffix in _MD_SUFFIXES:
        path = _find_file(ref, root)
        if path is None:
            raise InputError("issue file not found", where=ref)
        if suffix == ".json":
            return _from_json_value(_read_json(path), source=str(path), default_id=path.stem)
        return _from_text(_read_text(path), source=str(path), default_id=path.stem)
    return _from_beads_id(ref, root, warnings)


def _from_json_value(data: Any, *, source: str, default_id: str) -> tuple[Issue, list[Any]]:
    if isinstance(data, list):
        objects = [d for d in data if isinstance(d, Mapping)]
        if not objects:
            raise InputError("JSON array holds no issue object", where=source)
        data = objects[0]
    if not isinstance(data, Mapping):
        raise InputError("expected a JSON object (a beads issue) or an array of them", where=source)
    return _from_beads(data, source=source, default_id=default_id)


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
    manifest_at = [(n + skipped, ln.strip()) for n, ln in enumerate(lines, 1) if ln.lstrip().startswith("MANIFEST:")]
    manifest_lines = [ln for _n, ln in manifest_at]
    body = [ln for ln in lines if not ln.lstrip().startswith("MANIFEST:")]
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


def _from_beads(data: Mapping[str, Any], *, source: str, default_id: str = "") -> tuple[Issue, list[Any]]:
    """A beads issue object → `Issue`. Only text fields are kept; never raw JSON."""
    fields = {k: _unescape(_as_text(data.get(k))) for k in _TEXT_FIELDS}
    issue_id = _as_text(data.get("id")) or default_id
    if not fields["title"]:
        fields["title"] = issue_id or "(untitled)"
    labels = data.get("labels") or ()
    if isinstance(labels, str):
        labels = [s.strip() for s in labels.split(",")]
    raw_comments = _ordered_comments(data.get("comments") or ())
    texts = tuple(t for t in (_unescape(_comment_text(c)) for c in raw_comments) if t)
    issue = Issue(
        id=issue_id,
        labels=tuple(str(x) for x in labels if str(x).strip()) if isinstance(labels, (list, tuple)) else (),
        comments=texts,
        issue_type=_as_text(data.get("issue_type") or data.get("type")),
        source=source,
        **fields,
    )
    return issue, raw_comments


def _from_beads_id(issue_id: str, root: Path, warnings: list[str]) -> tuple[Issue, list[Any]]:
    bd = shutil.which("bd")
    if bd is not None:
        found, problem = _bd_show(bd, issue_id, root, warnings)
        if found is not None:
            return _from_beads(found, source=f"bd show {issue_id}", default_id=issue_id)
        warnings.append(f"bd show {issue_id} failed ({problem}); reading {JSONL_PATH} instead")
    found = _jsonl_lookup(issue_id, root, warnings)
    return _from_beads(found, source=JSONL_PATH, default_id=issue_id)


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
    return any(_comment_text(c).strip() for c in comments)


def _jsonl_lookup(issue_id: str, root: Path, warnings: list[str]) -> Mapping[str, Any]:
    path = root / JSONL_PATH
    if not path.is_file():
        raise InputError(f"unknown issue id {issue_id!r} (bd is not available and there is no {JSONL_PATH})",
                         where=str(root))
    found: Mapping[str, Any] | None = None
    ids: list[str] = []
    for lineno, line in enumerate(_read_text(path).splitlines(), 1):
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
        ids.append(str(obj.get("id", "")))
        if obj.get("id") == issue_id:
            found = obj  # a later line for the same id wins
    if found is None:
        close = difflib.get_close_matches(issue_id, ids, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise InputError(f"unknown issue id {issue_id!r} (not in {JSONL_PATH}){hint}", where=str(path))
    return found


# --------------------------------------------------------------------------- comments + text


def _ordered_comments(comments: Any) -> list[Any]:
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


def _comment_text(comment: Any) -> str:
    if isinstance(comment, str):
        return comment
    if isinstance(comment, Mapping):
        for key in ("text", "body", "content"):
            if isinstance(comment.get(key), str):
                return comment[key]
    return ""


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "\n".join(_as_text(v) for v in value if _as_text(v))
    return ""  # nested objects are not prose; never leak raw JSON into the prompt


_CODE_SPAN_RE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
_ESCAPE_RE = re.compile(r"(?<!\\)\\([nt])")


def _unescape(text: str) -> str:
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


# --------------------------------------------------------------------------- manifest sources


def _choose_manifest(issue: Issue, raw_comments: list[Any], explicit: Any, root: Path,
                     warnings: list[str]) -> Manifest | None:
    if explicit is not None:
        chosen = load_manifest(explicit, repo=root, where=None)
        return chosen if chosen.source else _replace(chosen, source="explicit")
    if issue.manifest is not None:  # an `Issue` passed in already carries its resolved manifest
        return issue.manifest
    from_comments = _manifest_from_comments(raw_comments, root)
    if from_comments is not None:
        return from_comments
    return _manifest_from_state(issue.id, root, warnings)


def _manifest_from_comments(raw_comments: list[Any], root: Path) -> Manifest | None:
    """The newest `MANIFEST:` comment wins (noface took the oldest, which was a bug)."""
    for number in range(len(raw_comments), 0, -1):
        comment = raw_comments[number - 1]
        text = _unescape(_comment_text(comment))
        if "MANIFEST:" not in text:
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


def _manifest_from_state(issue_id: str, root: Path, warnings: list[str]) -> Manifest | None:
    path = root / STATE_PATH
    if not issue_id or not path.is_file():
        return None
    try:
        state = read_json(path, STATE_PATH)
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
    if text.startswith("/") or re.match(r"^[A-Za-z]:/", text) or text.startswith("~"):
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


# --------------------------------------------------------------------------- small helpers


def _dedupe(entries: Iterable[ManifestEntry]) -> list[ManifestEntry]:
    seen: dict[ManifestEntry, None] = {}
    for e in entries:
        seen.setdefault(e, None)
    return list(seen)


def _find_file(name: str, root: Path | None) -> Path | None:
    """`name` as given (relative to the working directory), else relative to the repo."""
    candidates = [Path(name)]
    if root is not None and not Path(name).is_absolute():
        candidates.append(root / name)
    return next((p for p in candidates if p.is_file()), None)


def _read_text(path: Path) -> str:
    try:
        data, cut = read_head(path, MAX_JSON_BYTES)  # bounded: never a whole multi-GB file
        if cut:
            raise InputError(f"larger than {MAX_JSON_BYTES // (1024 * 1024)} MB; refused", where=str(path))
        return data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc.__class__.__name__}: {exc}", where=str(path)) from None


def _read_json(path: Path) -> Any:
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


def _replace(issue_or_manifest: Any, **changes: Any) -> Any:
    import dataclasses

    return dataclasses.replace(issue_or_manifest, **changes)
