"""Issue input → `Issue`, and the issue's file manifest → `Manifest`.

Issues come from beads (`bd show ID --json`, or `.beads/issues.jsonl` when `bd` is absent),
a `.json` file, a Markdown/text file, stdin, or a dict. The manifest comes from, newest source
first: an explicit argument, the newest `MANIFEST:` comment on the issue, `.noface/state.json`.
"""

from __future__ import annotations

import difflib
import json
import posixpath
import re
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Mapping, TextIO

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
    return issue, warnings


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


_MANIFEST_RE = re.compile(r"MANIFEST:\s*(.*)", re.S)
_LIST_RE = re.compile(r"([A-Za-z_]+)\s*[=:]\s*\[([^\]]*)\]")
_ITEM_RE = re.compile(r'"([^"]*)"|\'([^\']*)\'|`([^`]*)`|([^,\s"\'`]+)')


def parse_manifest_comment(
    text: str, *, repo: str | Path | None = None, source: str = "comment"
) -> Manifest | None:
    """`MANIFEST: primary=[a,b] read=[c] forbidden=[d]` → `Manifest`; None when `text` is not one.

    Quotes, backticks and spaces inside the brackets are tolerated; `primary_files=` works too.
    """
    m = _MANIFEST_RE.search(text or "")
    if m is None:
        return None
    lists: dict[str, list[str]] = {"primary": [], "read": [], "forbidden": []}
    found = False
    for key, inner in _LIST_RE.findall(m.group(1)):
        role = _MANIFEST_KEYS.get(key.lower())
        if role is None:
            continue
        found = True
        for groups in _ITEM_RE.findall(inner):
            item = next((g for g in groups if g), "").strip()
            if item:
                lists[role].append(item)
    if not found:
        return None
    root = Path(repo) if repo is not None else None
    return _build_manifest(lists, where=source, root=root, source=source)


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
    manifest_lines = [ln.strip() for ln in lines if ln.lstrip().startswith("MANIFEST:")]
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
    return issue, list(manifest_lines)


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
        found, problem = _bd_show(bd, issue_id, root)
        if found is not None:
            return _from_beads(found, source=f"bd show {issue_id}", default_id=issue_id)
        warnings.append(f"bd show {issue_id} failed ({problem}); reading {JSONL_PATH} instead")
    found = _jsonl_lookup(issue_id, root, warnings)
    return _from_beads(found, source=JSONL_PATH, default_id=issue_id)


def _bd_show(bd: str, issue_id: str, root: Path) -> tuple[Mapping[str, Any] | None, str]:
    try:
        proc = subprocess.run([bd, "show", issue_id, "--json"], cwd=root, capture_output=True,
                              timeout=BD_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, type(exc).__name__
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, (err[-1] if err else f"exit code {proc.returncode}")[:200]
    try:
        data = loads_json(proc.stdout.decode("utf-8", "replace"), "bd show")
    except InputError as exc:
        return None, f"output refused: {exc.message}"
    objects = data if isinstance(data, list) else [data]
    objects = [o for o in objects if isinstance(o, Mapping)]
    match = next((o for o in objects if o.get("id") == issue_id), objects[0] if objects else None)
    return (match, "") if match is not None else (None, "no issue in output")


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
        parsed = parse_manifest_comment(text, repo=root, source=label)
        if parsed is not None:
            return parsed
    return None


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
        if role is None or value is None:
            continue
        if isinstance(value, str):
            value = [v for v in re.split(r"[,\s]+", value) if v]
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
