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

Cost (issue #4): docs are judged lazily, when a result is first read, and in batches
(`Freshness.prefetch`), so a prompt pays only for the docs ranking considers while `check-docs`
reads them all. What a judgement depends on is cached in `<cache_dir>/freshness.cache`: each doc's
references by its content, and its resolution, history and churn under a key of the scanned
files' stats, HEAD and the doc set, so an unchanged repository is judged without reading code
or asking git. Suggestions come from `references.FuzzyPool` (exact `difflib` answers, found fast).
"""

from __future__ import annotations

import posixpath
import time
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any, ItemsView, Iterable, Iterator, KeysView, Mapping, Sequence, ValuesView

from noface_ctx import git
from noface_ctx.doc_cache import FreshnessStore, text_key
from noface_ctx.datatypes import Doc, MissingRef, RepoFiles, Staleness
from noface_ctx.doc_history import History, Scan, missing_ref
from noface_ctx.doc_history import churn as doc_churn
from noface_ctx.references import (
    CODE_EXTS,
    KNOWN_EXTS,
    Codebase,
    Reference,
    SymbolTable,
    extract_references,
    file_ext,
    similar,
)

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

    def prefetch(self, slugs: Iterable[str]) -> None:
        """Judge these docs now, in one batch (a no-op for an already computed answer)."""
        prefetch = getattr(self.by_slug, "prefetch", None)
        if callable(prefetch):
            prefetch(slugs)

    @property
    def seconds(self) -> float:
        """Time spent judging docs so far (lazily, inside whoever read the results)."""
        return float(getattr(self.by_slug, "seconds", 0.0))


# --------------------------------------------------------------------------- assessment


def assess_docs(
    docs: Sequence[Doc],
    repo_files: RepoFiles,
    symbols: SymbolTable | None,
    config: Any,
    *,
    git_times: Mapping[str, int] | None = None,
    now: float | None = None,
    suggest_unresolved: bool = True,
) -> Freshness:
    """Judge every doc (see the module docstring); `git_times` maps doc path → last commit time.

    Lazy: a doc is judged when its result is first read (`get`, `by_slug[slug]`, iterating
    `details`), and `prefetch(slugs)` judges several in one batch; see the module docstring.
    `suggest_unresolved=False` skips the "did you mean" of references that never existed (only
    `check-docs` shows those; a prompt shows suggestions for missing references only).
    """
    assessor = _Assessor(docs, repo_files, symbols, config, git_times, now, suggest_unresolved)
    return Freshness(_Results(assessor, "staleness"), tuple(assessor.warnings), _Results(assessor, None))


class _Results(Mapping[str, Any]):
    """slug → `Staleness` (or `DocFreshness`), each computed on first access."""

    def __init__(self, assessor: "_Assessor", attr: str | None) -> None:
        self._assessor = assessor
        self._attr = attr

    def __getitem__(self, slug: str) -> Any:
        if slug not in self._assessor.by_slug:
            raise KeyError(slug)
        found = self._assessor.result(slug)
        return getattr(found, self._attr) if self._attr else found

    def __contains__(self, slug: object) -> bool:
        return slug in self._assessor.by_slug

    def __iter__(self) -> Iterator[str]:
        return iter(self._assessor.by_slug)

    def __len__(self) -> int:
        return len(self._assessor.by_slug)

    def prefetch(self, slugs: Iterable[str]) -> None:
        """Judge these docs now, in one batch (one pass of each git query for all of them)."""
        self._assessor.prefetch(slugs)

    @property
    def seconds(self) -> float:
        return self._assessor.seconds

    def keys(self) -> KeysView[str]:  # reading every key usually means reading every value next
        self.prefetch(self._assessor.by_slug)
        return super().keys()

    def values(self) -> ValuesView[Any]:
        self.prefetch(self._assessor.by_slug)
        return super().values()

    def items(self) -> ItemsView[str, Any]:
        self.prefetch(self._assessor.by_slug)
        return super().items()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self.items()) == dict(other.items())

    def __repr__(self) -> str:
        return f"<lazy freshness of {len(self)} docs, {len(self._assessor.results)} judged>"


class _Assessor:
    """Judges docs in batches, reusing what `<cache_dir>/freshness.cache` knows (see the module docstring)."""

    def __init__(self, docs: Sequence[Doc], repo_files: RepoFiles, symbols: SymbolTable | None, config: Any,
                 git_times: Mapping[str, int] | None, now: float | None, suggest_unresolved: bool = True) -> None:
        self.suggest_unresolved = suggest_unresolved
        self.by_slug = {d.slug: d for d in docs}  # a slug used twice: the last doc answers, as it always did
        self.doc_paths = [d.path for d in docs]
        self.repo_files, self.symbols, self.config = repo_files, symbols, config
        self.git_times = git_times
        self.now = time.time() if now is None else now
        self.root = repo_files.root
        self.head, shallow = git.head(self.root) if repo_files.has_git else (None, False)
        self.has_git = self.head is not None
        self.warnings: list[str] = []
        if not repo_files.has_git:
            self.warnings.append("not a git repository: freshness checks symbols and paths only (no dates, churn or history)")
        elif not self.has_git:
            self.warnings.append("no commits yet: freshness checks symbols and paths only")
        elif shallow:
            self.warnings.append("shallow clone: history is truncated, so last-updated dates, churn and renames may be incomplete")
        self.results: dict[str, DocFreshness] = {}
        self.seconds = 0.0  # spent judging, for the pipeline's stage timings
        self._code: Codebase | None = None
        self._dirty: set[str] | None = None
        self._history: History | None = None
        self._store = (FreshnessStore.open(config, repo_files, symbols, self.head, self.doc_paths, suggest_unresolved)
                       if git_times is None else None)

    def prefetch(self, slugs: Iterable[str]) -> None:
        todo = [self.by_slug[s] for s in dict.fromkeys(slugs) if s in self.by_slug and s not in self.results]
        if todo:
            start = time.perf_counter()
            try:
                self._assess(todo)
            finally:
                self.seconds += time.perf_counter() - start

    def result(self, slug: str) -> DocFreshness:
        if slug not in self.results:
            self.prefetch([slug])
        return self.results[slug]

    def _codebase(self) -> Codebase:
        if self._code is None:
            words = self._store.path.with_name("words.cache") if self._store is not None else None
            self._code = Codebase(self.repo_files, self.symbols, self.doc_paths, words_cache=words)
        return self._code

    def _dirty_files(self) -> set[str]:
        if self._dirty is None:
            self._dirty = git.dirty_files(self.root) if self.has_git else set()
        return self._dirty

    def _assess(self, docs: list[Doc]) -> None:
        store = self._store
        scans: list[Scan] = []
        when: dict[str, tuple[int | None, bool]] = {}  # path -> (last commit time, being edited)
        cached_churn: dict[str, tuple[float | None, Any]] = {}
        misses = []
        for doc in docs:
            hit = store.get(doc) if store is not None else None
            if hit is None:
                misses.append(doc)
                continue
            refs, keys, files, missing, unresolved, git_time, editing, churn_at, churn = hit
            scans.append(Scan(doc, list(refs), list(keys), dict(files), [], list(missing), list(unresolved)))
            when[doc.path] = (git_time, editing)
            cached_churn[doc.path] = (churn_at, churn)
        if misses:
            scans += self._scan_misses(misses, when)
        when_updated: dict[str, float | None] = {}
        for s in scans:
            git_time, editing = when[s.doc.path]
            s.time = when_updated[s.doc.path] = _last_updated(s.doc, git_time, editing, self.now)
        # churn is counted since the doc's last update, which moves while the doc is edited
        reuse = {p for p, (at, _) in cached_churn.items() if at == when_updated.get(p)}
        stale_churn = [s for s in scans if s.doc.path not in reuse]
        churn = doc_churn(self.root, stale_churn) if self.has_git and stale_churn else {}
        for s in scans:
            if s.doc.path in reuse:
                churn[s.doc.path] = cached_churn[s.doc.path][1]
            self.results[s.doc.slug] = _judge(s, churn.get(s.doc.path, (0, {})), self.config.context, self.now)
            if store is not None:
                store.put(s, *when[s.doc.path], s.time, churn.get(s.doc.path, (0, {})))
        if store is not None:
            store.save()

    def _scan_misses(self, docs: list[Doc], when: dict[str, tuple[int | None, bool]]) -> list[Scan]:
        """Resolve the references of docs nothing is cached for, then ask git about the missing ones."""
        code = self._codebase()
        refs = self._store.refs if self._store is not None else None
        scans = [_scan(doc, code, refs) for doc in docs]
        need = [s for s in scans if s.candidates]
        dirty = self._dirty_files()
        commits: dict[str, tuple[str, int, str]] = {}
        if self.has_git and (self.git_times is None or need):  # one streamed `git log` pass for these docs
            wanted = scans if self.git_times is None else need
            commits = git.last_commits(self.root, [s.doc.path for s in wanted])
        times = dict(self.git_times) if self.git_times is not None else {p: c[1] for p, c in commits.items()}
        if self.has_git and need:
            if self._history is None:
                self._history = History(self.root, code, dirty, suggest_unresolved=self.suggest_unresolved)
            self._history.classify([(s, commits.get(s.doc.path), s.doc.path in dirty) for s in need])
        else:
            for s in need:
                s.missing = [missing_ref(ref, lookup, similar(code, lookup, s.files)) for ref, lookup in s.candidates]
        for s in scans:
            path = s.doc.path
            when[path] = (times.get(path), path in dirty or (self.has_git and path not in times))
        return scans


def _scan(doc: Doc, code: Codebase, refs_cache: dict[str, tuple[str, tuple[Reference, ...]]] | None = None) -> Scan:
    refs = _references(doc, refs_cache)
    scan = Scan(doc, refs, [], {}, [])
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


def _references(doc: Doc, cache: dict[str, tuple[str, tuple[Reference, ...]]] | None) -> list[Reference]:
    if cache is None:
        return extract_references(doc)
    key = text_key(doc)
    hit = cache.get(doc.path)
    if hit is not None and hit[0] == key:
        return list(hit[1])
    refs = extract_references(doc)
    cache[doc.path] = (key, tuple(refs))
    return refs


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


def _judge(s: Scan, churn: tuple[int, Mapping[str, list[int]]], ctx: Any, now: float) -> DocFreshness:
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
