"""Doc freshness: stale references, churn since the doc last changed, age, and clashing docs.

Per doc (`assess_docs`):

- **last updated**: frontmatter `updated` as written; otherwise the later of frontmatter `date`
  and the doc's last commit (one streamed `git log` pass for all docs). A doc with uncommitted
  edits, or not committed yet, counts as updated now.
- **references**: code-like tokens resolved against the symbol table, the file tree and every
  word of the code; the rules are in `noface_ctx.references`.
- A reference that does not resolve is **missing** when it existed when the doc was last changed
  (`git grep` at the doc's last commit and its parent) and is gone now, else merely
  **unresolved** (a plan, a typo, a library name: a warning, verdict unaffected). Without git
  every unresolved reference counts as missing. A missing reference gets a suggestion: the token
  that replaced it in `git diff <doc commit>` of the files that held it, a git rename for a
  path, else the most similar symbol of those files, else a close name anywhere.
- **churn**: commits and changed lines, since the doc was last updated, in the files it
  references (paths, and the files defining referenced symbols): one `git log --numstat` pass.

Verdict: **stale** with any missing reference; **possibly stale** when the referenced files
changed in at least `stale_churn_commits` commits or `stale_churn_lines` lines since the doc was
last updated, or when the doc is older than `stale_after_days` and its code changed since;
otherwise **fresh** (a doc without references is fresh).
"""

from __future__ import annotations

import difflib
import posixpath
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any, Mapping, Sequence

from noface_ctx import git
from noface_ctx.datatypes import Doc, MissingRef, RepoFiles, Staleness
from noface_ctx.references import (
    CODE_EXTS,
    DOC_EXTS,
    KNOWN_EXTS,
    Codebase,
    Reference,
    SymbolTable,
    close_name,
    extract_references,
    file_ext,
    similar,
)

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

__all__ = ["DocFreshness", "FileChurn", "Freshness", "Reference", "assess_docs", "extract_references", "find_clashes"]

# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class FileChurn:
    """Commits and changed lines in one referenced file since the doc was last updated."""

    path: str
    commits: int
    added: int
    deleted: int
    line: int  # first doc line referencing the file (or a symbol defined in it)


@dataclass(frozen=True, slots=True)
class DocFreshness:
    """Everything `assess_docs` found about one doc; `check-docs` reports from this."""

    path: str
    slug: str
    staleness: Staleness
    references: tuple[Reference, ...] = ()
    unresolved: tuple[MissingRef, ...] = ()
    churn: tuple[FileChurn, ...] = ()
    files: frozenset[str] = frozenset()  # code files the doc is about, including ones that held missing refs
    age_days: int | None = None
    churn_flagged: bool = False
    age_flagged: bool = False


@dataclass(frozen=True, slots=True)
class Freshness:
    """`assess_docs`'s answer: a `Staleness` per doc slug, run warnings, and per-doc details."""

    by_slug: Mapping[str, Staleness]
    warnings: tuple[str, ...] = ()
    details: Mapping[str, DocFreshness] = field(default_factory=dict)

    def get(self, slug: str) -> Staleness:
        return self.by_slug.get(slug) or Staleness()


# --------------------------------------------------------------------------- assessment


@dataclass(slots=True)
class _Scan:
    doc: Doc
    refs: list[Reference]
    keys: list[str]
    files: dict[str, int]  # referenced code file -> first doc line about it
    candidates: list[tuple[Reference, str]]
    missing: list[MissingRef] = field(default_factory=list)
    unresolved: list[MissingRef] = field(default_factory=list)
    time: float | None = None


def assess_docs(
    docs: Sequence[Doc],
    repo_files: RepoFiles,
    symbols: SymbolTable | None,
    config: Any,
    *,
    git_times: Mapping[str, int] | None = None,
    now: float | None = None,
) -> Freshness:
    """Judge every doc (see the module docstring); `git_times` maps doc path → last commit time."""
    now = time.time() if now is None else now
    root = repo_files.root
    has_git = repo_files.has_git and git.has_commits(root)
    warnings: list[str] = []
    if not repo_files.has_git:
        warnings.append("not a git repository: freshness checks symbols and paths only (no dates, churn or history)")
    elif not has_git:
        warnings.append("no commits yet: freshness checks symbols and paths only")
    elif git.is_shallow(root):
        warnings.append("shallow clone: history is truncated, so last-updated dates, churn and renames may be incomplete")
    code = Codebase(repo_files, symbols, [d.path for d in docs])
    scans = [_scan(doc, code) for doc in docs]

    need = [s for s in scans if s.candidates]
    dirty = git.dirty_files(root) if has_git else set()
    commits: dict[str, tuple[str, int, str]] = {}
    if has_git and (git_times is None or need):  # one streamed `git log` pass for every doc
        commits = git.last_commits(root, [d.path for d in docs] if git_times is None else [s.doc.path for s in need])
    times = dict(git_times) if git_times is not None else {p: c[1] for p, c in commits.items()}
    if has_git and need:
        history = _History(root, code)
        for s in need:
            history.classify(s, commits.get(s.doc.path), s.doc.path in dirty)
    else:
        for s in need:
            s.missing = [_missing(ref, lookup, similar(code, lookup, s.files)) for ref, lookup in s.candidates]
    for s in scans:
        s.time = _last_updated(s.doc, times.get(s.doc.path), s.doc.path in dirty or (has_git and s.doc.path not in times), now)
    churn = _churn(root, scans) if has_git else {}
    ctx = config.context
    details = {s.doc.slug: _judge(s, churn.get(s.doc.slug, (0, {})), ctx, now) for s in scans}
    return Freshness({k: v.staleness for k, v in details.items()}, tuple(warnings), details)


def _scan(doc: Doc, code: Codebase) -> _Scan:
    refs = extract_references(doc)
    scan = _Scan(doc, refs, [], {}, [])
    doc_dir = posixpath.dirname(doc.path)
    for ref in refs:
        res = code.resolve(ref, doc_dir)
        if res.status == "found":
            if res.key and res.key not in scan.keys:
                scan.keys.append(res.key)
            if res.path:
                scan.files.setdefault(res.path, ref.line)
            elif ref.kind != "path":
                for p in code.defining_files(ref.name):
                    scan.files.setdefault(p, ref.line)
        elif res.status == "missing" and all(lookup != res.lookup for _, lookup in scan.candidates):
            scan.candidates.append((ref, res.lookup))
    return scan


def _last_updated(doc: Doc, git_time: int | None, editing: bool, now: float) -> float | None:
    """Frontmatter `updated`; else now for a doc being edited; else max(frontmatter `date`, last commit)."""
    updated = _parse_date(doc.updated)
    if updated is not None:
        return updated
    if editing:
        return now
    known = [t for t in (_parse_date(doc.date), git_time) if t is not None]
    return float(max(known)) if known else None


def _parse_date(value: Any) -> float | None:
    """A frontmatter date as a unix time (a bare date counts as the end of that day, UTC)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).timestamp()
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, 23, 59, 59, tzinfo=timezone.utc).timestamp()
    text = str(value).strip()
    try:
        if len(text) == 10:
            return _parse_date(date.fromisoformat(text))
        return _parse_date(datetime.fromisoformat(text.replace("Z", "+00:00")))
    except ValueError:
        return None


def _iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, timezone.utc).date().isoformat()


def _missing(ref: Reference, lookup: str, suggestion: str | None) -> MissingRef:
    if suggestion and ref.kind == "method" and lookup != ref.name and lookup in ref.name.split("."):
        suggestion = ".".join(suggestion if p == lookup else p for p in ref.name.split("."))
    return MissingRef(ref.ref, ref.line, suggestion)


class _History:
    """Git history questions about references that no longer resolve."""

    def __init__(self, root: str, code: Codebase) -> None:
        self.root = root
        self.code = code
        self._trees: dict[str, set[str]] = {}
        self._renames: dict[str, dict[str, str]] = {}

    def classify(self, scan: _Scan, commit: tuple[str, int, str] | None, dirty: bool) -> None:
        """Split candidates into missing (existed when the doc last changed) and unresolved."""
        revs = [commit[0], commit[2]] if commit else []
        if commit is None or dirty:
            revs.append("HEAD")
        revs = [r for r in revs if r]
        names = {lookup for ref, lookup in scan.candidates if ref.kind != "path"}
        held = git.grep_words(self.root, revs, names, exclude=[f"*.{e}" for e in sorted(DOC_EXTS)]) if names else {}
        tree: set[str] = set()
        if any(ref.kind == "path" for ref, _ in scan.candidates):
            for r in revs:
                tree |= self._tree(r)
        base = revs[0] if revs else "HEAD"
        for ref, lookup in scan.candidates:
            if ref.kind == "path":
                hits = [p for p in tree if p == lookup or p.endswith("/" + lookup) or p.startswith(lookup + "/")]
                if not hits:
                    scan.unresolved.append(MissingRef(ref.ref, ref.line, close_name(self.code, lookup)))
                    continue
                scan.files.setdefault(hits[0], ref.line)
                moved = self._rename(base).get(hits[0])
                scan.missing.append(_missing(ref, lookup, moved or similar(self.code, hits[0], ())))
            elif lookup in held:
                files = held[lookup]
                scan.files.update({f: ref.line for f in files if f not in scan.files})
                scan.missing.append(_missing(ref, lookup, self._suggest(base, lookup, files, scan.files)))
            else:
                scan.unresolved.append(MissingRef(ref.ref, ref.line, close_name(self.code, lookup)))

    def _tree(self, rev: str) -> set[str]:
        if rev not in self._trees:
            self._trees[rev] = git.tree_paths(self.root, rev)
        return self._trees[rev]

    def _rename(self, rev: str) -> dict[str, str]:
        if rev not in self._renames:
            self._renames[rev] = git.renames_since(self.root, rev)
        return self._renames[rev]

    def _suggest(self, rev: str, name: str, held_in: set[str], doc_files: Mapping[str, int]) -> str | None:
        renames = self._rename(rev)
        paths = set(held_in) | {renames[p] for p in held_in if p in renames}
        votes = _replacements(git.diff_since(self.root, rev, paths), name)
        for cand, _n in votes.most_common():
            if cand != name and self.code.known(cand):
                return cand
        return similar(self.code, name, paths | set(doc_files))


def _replacements(diff: str, name: str) -> Counter[str]:
    """Identifiers that took `name`'s place in the hunks of a `-U0` diff that removed it."""
    votes: Counter[str] = Counter()
    removed: list[str] = []
    added: list[str] = []

    def flush() -> None:
        for r in removed:
            rt = _IDENT.findall(r)
            if name not in rt or not added:
                continue
            ratio, best = max((difflib.SequenceMatcher(None, r, a).ratio(), a) for a in added)
            if ratio < 0.5:  # no added line resembles the removed one: not a rename
                continue
            at = _IDENT.findall(best)
            for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, rt, at, autojunk=False).get_opcodes():
                if op == "replace" and i2 - i1 == j2 - j1:
                    votes.update(at[j1 + k] for k in range(i2 - i1) if rt[i1 + k] == name and at[j1 + k] != name)
        removed.clear()
        added.clear()

    in_hunk = False
    for line in diff.split("\n"):
        if line.startswith("@@") or line.startswith("diff "):
            flush()
            in_hunk = line.startswith("@@")
        elif in_hunk and line.startswith("-"):
            removed.append(line[1:])
        elif in_hunk and line.startswith("+"):
            added.append(line[1:])
    flush()
    return votes


def _churn(root: str, scans: list[_Scan]) -> dict[str, tuple[int, dict[str, list[int]]]]:
    """slug -> (commits, path -> [commits, added, deleted]) since the doc was last updated.

    Only source files count (a changed README or version bump says nothing about a design doc).
    One `git log --numstat` pass over every referenced source file of every doc.
    """
    code = {s.doc.slug: {p for p in s.files if file_ext(p) in CODE_EXTS} for s in scans}
    live = [s for s in scans if code[s.doc.slug] and s.time is not None]
    if not live:
        return {}
    paths = set().union(*(code[s.doc.slug] for s in live))
    since = min(s.time for s in live if s.time is not None)
    out: dict[str, tuple[int, dict[str, list[int]]]] = {s.doc.slug: (0, {}) for s in live}
    for when, changes in git.iter_numstat(root, paths if len(paths) <= 500 else None, since=int(since)):
        for s in live:
            if s.time is None or when <= s.time:
                continue
            count, per = out[s.doc.slug]
            touched = False
            for added, deleted, path in changes:
                if path in code[s.doc.slug]:
                    stat = per.setdefault(path, [0, 0, 0])
                    stat[0] += 1
                    stat[1] += added
                    stat[2] += deleted
                    touched = True
            if touched:
                out[s.doc.slug] = (count + 1, per)
    return out


def _judge(s: _Scan, churn: tuple[int, Mapping[str, list[int]]], ctx: Any, now: float) -> DocFreshness:
    """The verdict and its reasons for one scanned doc."""
    updated = _iso(s.time)
    commits, per_file = churn
    files = [FileChurn(p, c, a, d, s.files.get(p, 1)) for p, (c, a, d) in per_file.items()]
    files.sort(key=lambda f: (-f.commits, -(f.added + f.deleted), f.path))
    lines = sum(f.added + f.deleted for f in files)
    churn_flagged = bool(files) and (commits >= ctx.stale_churn_commits or lines >= ctx.stale_churn_lines)
    age = int((now - s.time) // 86400) if s.time is not None else None
    age_flagged = age is not None and age > ctx.stale_after_days and bool(files)
    reasons = []
    for m in s.missing:
        what = "moved to" if "/" in (m.suggestion or "") else "renamed to"
        hint = f" ({what} `{m.suggestion}`?)" if m.suggestion else ""
        reasons.append(f"references `{m.ref}` which no longer exists{hint}")
    if churn_flagged:
        for f in files[:3]:
            plural = "s" if f.commits != 1 else ""
            reasons.append(
                f"{f.path} changed in {f.commits} commit{plural} (+{f.added}/-{f.deleted} lines) "
                f"since this doc was last updated ({updated})"
            )
    if age_flagged:
        reasons.append(
            f"last updated {updated}, {age} days ago (stale_after_days = {ctx.stale_after_days}), "
            "and the code it references changed since"
        )
    verdict = "stale" if s.missing else "possibly stale" if (churn_flagged or age_flagged) else "fresh"
    staleness = Staleness(
        verdict=verdict,
        reasons=tuple(reasons),
        missing=tuple(s.missing),
        churn_commits=commits,
        churn_lines=lines,
        last_updated=updated,
        references=tuple(s.keys),
    )
    return DocFreshness(
        s.doc.path, s.doc.slug, staleness, tuple(s.refs), tuple(s.unresolved), tuple(files),
        frozenset(s.files), age, churn_flagged, age_flagged,
    )


# --------------------------------------------------------------------------- clashes


def find_clashes(chosen: Sequence[Any]) -> list[str]:
    """Explicit lines for included docs that describe the same code when one is older or stale.

    Accepts `Candidate`s (or `Chosen`s) with `.staleness`; docs without staleness are skipped.
    "The same code" is a shared symbol or source path (a shared README or config file is not).
    A stale doc is called suspect; between two fresh docs the newer one is preferred.
    """
    docs = []
    for item in chosen:
        cand = getattr(item, "candidate", item)
        st = getattr(cand, "staleness", None)
        if getattr(cand, "kind", "doc") == "doc" and st is not None:
            about = set(st.references) | {m.suggestion for m in st.missing if m.suggestion}
            about |= {m.ref.rstrip("()") for m in st.missing}
            docs.append((cand.path, st, {x for x in about if _is_code_key(x)}))
    docs.sort(key=lambda d: d[0])
    lines = []
    for i, (path_a, a, about_a) in enumerate(docs):
        for path_b, b, about_b in docs[i + 1:]:
            shared = sorted(about_a & about_b)
            if not shared:
                continue
            what = ", ".join(f"`{x}`" for x in shared[:3]) + (f" and {len(shared) - 3} more" if len(shared) > 3 else "")
            head = f"`{path_a}` and `{path_b}` both describe {what}"
            order = _suspect(path_a, a, path_b, b)
            if order is None:
                if a.stale and b.stale:
                    lines.append(f"{head}; both may be outdated — prefer the current code.")
                continue
            (new_path, new), (old_path, old) = order
            newer = "newer" if (new.last_updated or "") > (old.last_updated or "") else "not flagged stale"
            when = new.last_updated or "date unknown"
            if not old.stale:
                lines.append(f"{head}; `{new_path}` is newer ({when}) — where they disagree, prefer it over "
                             f"`{old_path}` ({old.last_updated}).")
                continue
            old_note = ", ".join(x for x in (old.last_updated, old.verdict) if x)
            lines.append(f"{head}; `{new_path}` is {newer} ({when}) — treat `{old_path}` ({old_note}) as suspect.")
    return lines


def _is_code_key(key: str) -> bool:
    """A symbol (`name`, `Class.method`) or a source file; not a directory, doc or config file."""
    if key.endswith("/"):
        return False
    ext = file_ext(key)
    return ext in CODE_EXTS if ("/" in key or ext in KNOWN_EXTS) else True


def _suspect(path_a: str, a: Staleness, path_b: str, b: Staleness):
    """((trusted path, staleness), (suspect path, staleness)), or None when neither stands out."""
    rank = {"fresh": 0, "possibly stale": 1, "stale": 2}
    if rank[a.verdict] != rank[b.verdict]:
        return ((path_a, a), (path_b, b)) if rank[a.verdict] < rank[b.verdict] else ((path_b, b), (path_a, a))
    if a.last_updated and b.last_updated and a.last_updated != b.last_updated:
        return ((path_a, a), (path_b, b)) if a.last_updated > b.last_updated else ((path_b, b), (path_a, a))
    return None
