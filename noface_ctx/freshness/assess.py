"""Doc freshness: names a doc uses that were removed or whose definitions changed since the doc
was last updated, and docs that contradict each other.

Per doc (`assess_docs`); records (release notes, changelogs, history: `markup.is_record`) are
never judged:

- **references** are the code-like tokens of `noface_ctx.freshness.references` that resolve in the code
  now, or resolved when the doc was last changed. Names the doc's own examples define, bind or
  import from a package outside the repository, and plain words, are not references.
- **last updated**: frontmatter `updated` as written; otherwise the later of frontmatter `date`
  and the doc's last commit (from the history index). A doc with uncommitted edits, or not
  committed yet, counts as updated at the latest commit.
- **removed** (an error, verdict "stale"): a name that does not resolve now and was in the
  code at the doc's last commit (or its parent): one `git grep` per distinct commit, limited to
  the files touched since (a member `mod.name` / `Class.name` must have lived in that module
  or class's file). The note names the commit that removed it and, when that commit put
  another identifier in its place, suggests it; nothing is guessed otherwise.
- **changed** (a warning, verdict "possibly stale"): a symbol the doc names whose definition
  in its defining file (at most 3 files) differs now from the doc's last commit: its
  signature, or its body when the doc names it in prose (a use in an example counts only
  when the signature changed); see `doc_history.HistoryIndex.symbol_change`. File-level churn
  alone is not a signal.
- **age**: days between the doc's last update and the repository's latest commit (never the
  wall clock); reported with changed symbols (`stale_after_days`), never alone.

Without git, or for a doc whose commit a shallow clone lacks, only members of repository
modules or classes that do not resolve are reported (no history to tell more), with a note.

Cost: every judgement is kept in `<cache_dir>/history.sqlite` (`judged`), keyed by the doc's
text, HEAD and these rules; with local edits a doc is judged again only when a file it depends
on is edited. Docs are judged lazily, in batches (`Freshness.prefetch`), so a prompt pays for
the docs ranking considers while `check-docs` reads them all.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import time
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, Sequence, ValuesView
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any

from noface_ctx import git
from noface_ctx.datatypes import ChangedRef, Doc, MissingRef, RepoFiles, Staleness
from noface_ctx.docs.markup import is_record
from noface_ctx.freshness.codebase import Codebase, SymbolTable
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.references import CODE_EXTS, DOC_EXTS, FENCE_LANGS, Reference, extract_references, file_ext

__all__ = ["DocFreshness", "Freshness", "Reference", "assess_docs", "extract_references", "find_clashes"]

RULES = 10  # bump whenever what a judgement means changes: cached judgements are then redone
MAX_SCOPE = 3000  # more files than this to grep at a commit: grep its whole tree instead
_DOC_EXCLUDES = tuple(f"*.{e}" for e in sorted(DOC_EXTS))

# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class DocFreshness:
    """Everything `assess_docs` found about one doc; `check-docs` reports from this."""

    path: str
    slug: str
    staleness: Staleness
    files: frozenset[str] = frozenset()  # code files the doc is about (what the pre-commit hook matches)
    age_days: int | None = None  # to the repository's latest commit
    age_flagged: bool = False  # older than stale_after_days, and a symbol it names changed since


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


def assess_docs(docs: Sequence[Doc], repo_files: RepoFiles, symbols: SymbolTable | None, config: Any) -> Freshness:
    """Judge every doc but records (see the module docstring); lazily, see `Freshness.prefetch`."""
    assessor = _Assessor(docs, repo_files, symbols, config)
    return Freshness(_Results(assessor, "staleness"), tuple(assessor.warnings), _Results(assessor, None))


class _Results(Mapping[str, Any]):
    """slug → `Staleness` (or `DocFreshness`), each computed on first access."""

    def __init__(self, assessor: _Assessor, attr: str | None) -> None:
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


@dataclass(slots=True)
class _Scan:
    """One doc's references resolved against the current code, then judged against history."""

    doc: Doc
    keys: list[str] = field(default_factory=list)
    files: dict[str, int] = field(default_factory=dict)  # code file -> first doc line about it
    symbols: list[tuple[Reference, list[str]]] = field(default_factory=list)  # found symbols, defining files
    candidates: list[tuple[Reference, str, tuple[str, ...]]] = field(default_factory=list)  # (ref, lookup, scope)
    signatures: list[tuple[str, str]] = field(default_factory=list)
    missing: list[MissingRef] = field(default_factory=list)
    changed: list[ChangedRef] = field(default_factory=list)
    commit: Commit | None = None  # the doc's last commit
    editing: bool = False


class _Assessor:
    """Judges docs in batches, reusing the judgements `history.sqlite` keeps."""

    def __init__(self, docs: Sequence[Doc], repo_files: RepoFiles, symbols: SymbolTable | None, config: Any) -> None:
        ctx = config.context
        records = {d.slug for d in docs if is_record(d.path, ctx.record_dirs)}
        self.by_slug = {d.slug: d for d in docs}  # a slug used twice: the last doc answers
        self.records = records
        self.doc_paths = [d.path for d in docs]
        self.repo_files, self.symbols, self.config = repo_files, symbols, config
        self.root = repo_files.root
        self.head, shallow = git.head(self.root) if repo_files.has_git else (None, False)
        self.shallow = shallow
        self.warnings: list[str] = []
        if not repo_files.has_git:
            self.warnings.append("not a git repository: freshness checks only that members of the repository's "
                                 "modules and classes named by docs exist (no dates, no history)")
        elif self.head is None:
            self.warnings.append("no commits yet: freshness checks only that names docs use exist")
        elif shallow:
            self.warnings.append("shallow clone: docs whose last commit is missing are checked for names that do "
                                 "not exist only (no history)")
        self.results: dict[str, DocFreshness] = {}
        self.seconds = 0.0
        self._code: Codebase | None = None
        self._dirty: set[str] | None = None
        self._index: HistoryIndex | None = None
        self._head_commit: Commit | None = None

    # ---------------------------------------------------------------- plumbing

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
            self._code = Codebase(self.repo_files, self.symbols, self.doc_paths, words_cache=self._cache_file("words.sqlite"))
        return self._code

    def _cache_file(self, name: str) -> Any:
        from noface_ctx.config import cache_dir

        try:
            return cache_dir(self.config) / name
        except OSError:
            return None

    def _history(self) -> HistoryIndex | None:
        if self.head is None:
            return None
        if self._index is None:
            self._index = HistoryIndex(self.root, self._cache_file("history.sqlite"))
            self._index.update(self.head)
            self._head_commit = self._index.commit(self.head) or self._index.latest()
        return self._index

    def _dirty_files(self) -> set[str]:
        if self._dirty is None:
            self._dirty = git.dirty_files(self.root) if self.head is not None else set()
        return self._dirty

    def _key(self, doc: Doc) -> str:
        h = hashlib.sha1(f"{RULES}\0{self.head}\0{self.config.context.stale_after_days}\0".encode())
        h.update(doc.text.encode("utf-8", "surrogateescape"))
        return h.hexdigest()

    # ---------------------------------------------------------------- judging

    def _assess(self, docs: list[Doc]) -> None:
        for doc in docs:
            if doc.slug in self.records:
                self.results[doc.slug] = DocFreshness(doc.path, doc.slug, Staleness())
        docs = [d for d in docs if d.slug not in self.records]
        if not docs:
            return
        index = self._history()
        dirty = self._dirty_files()
        misses = []
        for doc in docs:
            hit = index.judged(doc.path) if index is not None else None
            if hit is not None and hit[0] == self._key(doc):
                value = hit[1]
                deps = set(value["deps"])
                if not (deps & dirty) and not (dirty and value["candidates"]) and doc.path not in dirty:
                    self.results[doc.slug] = _from_json(doc, value)
                    continue
            misses.append(doc)
        if not misses:
            return
        code = self._codebase()
        scans = [_scan(doc, code) for doc in misses]
        no_history = scans if index is None else []
        if index is not None:
            for s in scans:
                s.editing = s.doc.path in dirty
                s.commit = index.last_touch(s.doc.path)
                if s.commit is None:
                    s.editing = True
            if self.shallow:  # a doc last changed at the shallow boundary: its real commit is cut off
                no_history = [s for s in scans if s.commit is not None and s.commit.seq == 1]
                scans_with = [s for s in scans if s not in no_history]
            else:
                scans_with = scans
            self._removed(scans_with, index, code)
            self._changed(scans_with, index)
        for s in no_history:  # no history to tell: only members of the repository's modules and classes
            s.missing = [MissingRef(ref.ref, ref.line) for ref, _lookup, scope in s.candidates if scope]
        rows = []
        for s in scans:
            judged = self._judge(s)
            self.results[s.doc.slug] = judged
            deps = sorted(set(s.files) | {f for _, fs in s.symbols for f in fs})
            rows.append((s.doc.path, self._key(s.doc),
                         {**_to_json(judged), "deps": deps, "candidates": bool(s.candidates)}))
        if index is not None:
            index.save_judged(rows)

    def _since(self, s: _Scan) -> Commit | None:
        """The commit the doc's words are checked against: its last commit, or HEAD while edited."""
        return self._head_commit if s.editing else s.commit

    def _removed(self, scans: list[_Scan], index: HistoryIndex, code: Codebase) -> None:
        """Split each doc's unresolved names into removed ones (in the code at the doc's commit, or
        its parent) and never-references; one `git grep` per distinct commit for all docs."""
        wanted: dict[str, set[str]] = {}
        plans = []
        for s in scans:
            since = self._since(s)
            names = {lookup for ref, lookup, _ in s.candidates if ref.kind != "path"}
            if since is None or not s.candidates:
                continue
            commits = [since] + ([p] if (p := index.parent(since)) is not None and not s.editing else [])
            for c in commits if names else ():
                wanted.setdefault(c.sha, set()).update(names)
            plans.append((s, commits))
        jobs = []
        for sha, names in wanted.items():
            c = index.commit(sha)
            scope = None
            if c is not None:
                touched = {p for p in index.files_after(c.seq - 1) if file_ext(p) not in DOC_EXTS}
                scope = sorted(touched) if len(touched) <= MAX_SCOPE else None
            if scope != []:
                jobs.append((sha, names, scope))
        with ThreadPoolExecutor(max_workers=2) as pool:  # each `git grep` is a process: two at a time
            greps = pool.map(lambda job: git.grep_words(self.root, [job[0]], job[1], exclude=_DOC_EXCLUDES,
                                                        paths=job[2]), jobs)
            found: dict[str, dict[str, set[str]]] = {job[0]: hits for job, hits in zip(jobs, greps)}
        dirty = self._dirty_files()
        for s, commits in plans:
            for ref, lookup, scope in s.candidates:
                if ref.kind == "path":
                    self._removed_path(s, ref, lookup, commits, index)
                    continue
                held: set[str] = set()
                for c in commits:
                    held |= found.get(c.sha, {}).get(lookup, set())
                if scope:
                    held &= set(scope)
                if not held:
                    continue  # never in the code: not a reference
                since = commits[-1] if len(commits) > 1 and not (found.get(commits[0].sha, {}).get(lookup)) else commits[0]
                removal = None
                for path in sorted(held):
                    removal = index.removal(lookup, path, since, dirty=bool(dirty & {path, index.path_now(path, since.seq)}))
                    if removal is not None:
                        break
                suggestion = removal[1] if removal is not None and removal[1] and code.known(removal[1]) else None
                label = None if removal is None else removal[0].label() if removal[0] else "uncommitted edits"
                s.missing.append(_missing(ref, lookup, suggestion, label))
                for path in held:
                    s.files.setdefault(path, ref.line)

    @staticmethod
    def _removed_path(s: _Scan, ref: Reference, lookup: str, commits: list[Commit], index: HistoryIndex) -> None:
        base = commits[0]
        if not index.existed(lookup, base.seq):
            return
        hist = index.path_history(lookup, base.seq)
        new = hist[-1][1] if hist else None
        commit = hist[-1][0].label() if hist else None
        s.missing.append(MissingRef(ref.ref, ref.line, new, commit))

    def _changed(self, scans: list[_Scan], index: HistoryIndex) -> None:
        dirty = self._dirty_files()
        texts: dict[str, str | None] = {}
        for s in scans:
            since = self._since(s)
            if since is None:
                continue
            seen: set[str] = set()
            for ref, files in s.symbols:
                if ref.name in seen:
                    continue
                seen.add(ref.name)
                for path in files:
                    now_text = None
                    if path in dirty:
                        if path not in texts:
                            texts[path] = _read(self.repo_files.abspath(path))
                        now_text = texts[path]
                    name = index.def_name(since.sha, path, ref.name) if (
                        now_text is not None or index.touched_after(path, since.seq)) else None
                    if name is None:
                        continue
                    got = index.symbol_change(path, name, since, now_text, signature_only=ref.source in FENCE_LANGS)
                    if got is not None:
                        commit, what = got
                        label = commit.label() if commit is not None else "uncommitted edits"
                        s.changed.append(ChangedRef(ref.ref, ref.line, path, label, what))
                        break

    def _judge(self, s: _Scan) -> DocFreshness:
        ctx = self.config.context
        head = self._head_commit
        updated = _parse_date(s.doc.updated)
        if updated is None:
            if s.editing or s.commit is None:
                updated = float(head.time) if head is not None and s.editing else None
            else:
                known = [t for t in (_parse_date(s.doc.date), float(s.commit.time)) if t is not None]
                updated = max(known)
        if updated is None:
            updated = _parse_date(s.doc.date)
        latest = float(head.time) if head is not None else None
        age = int((latest - updated) // 86400) if latest is not None and updated is not None else None
        age_flagged = age is not None and age > ctx.stale_after_days and bool(s.changed)
        when = _iso(updated)
        reasons = []
        for m in s.missing:
            reasons.append(missing_reason(m))
        for c in s.changed:
            reasons.append(changed_reason(c, when))
        if age_flagged:
            reasons.append(f"last updated {when}, {age} days before the latest commit "
                           f"(stale_after_days = {ctx.stale_after_days}), and code it names changed since")
        verdict = "stale" if s.missing else "possibly stale" if s.changed else "fresh"
        staleness = Staleness(verdict=verdict, reasons=tuple(reasons), missing=tuple(s.missing),
                              changed=tuple(s.changed), last_updated=when, references=tuple(s.keys),
                              signatures=tuple(s.signatures))
        return DocFreshness(s.doc.path, s.doc.slug, staleness, frozenset(s.files), age, age_flagged)


def _missing(ref: Reference, lookup: str, suggestion: str | None, commit: str | None) -> MissingRef:
    if suggestion and ref.kind == "method" and lookup != ref.name and lookup in ref.name.split("."):
        suggestion = ".".join(suggestion if p == lookup else p for p in ref.name.split("."))
    return MissingRef(ref.ref, ref.line, suggestion, commit)


def missing_reason(m: MissingRef) -> str:
    what = "moved to" if "/" in (m.suggestion or "") else "renamed to"
    hint = f" ({what} `{m.suggestion}`?)" if m.suggestion else ""
    where = f", removed in {m.commit}" if m.commit else ""
    return f"references `{m.ref}` which no longer exists{where}{hint}"


def changed_reason(c: ChangedRef, updated: str | None) -> str:
    since = f" since this doc was last updated ({updated})" if updated else ""
    return f"{c.what} of `{c.ref}` ({c.path}) changed in {c.commit}{since}"


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def _scan(doc: Doc, code: Codebase) -> _Scan:
    refs = extract_references(doc)
    scan = _Scan(doc)
    foreign: set[str] = set()  # names bound by the examples' imports of packages outside the repository
    doc_dir = posixpath.dirname(doc.path)
    resolved = []
    for ref in refs:
        res = code.resolve(ref, doc_dir)
        if ref.binds and res.status == "skip":  # imported from a package outside the repository
            foreign.add(ref.binds)
            continue
        resolved.append((ref, res))
    for ref, res in resolved:
        if ref.name.split(".", 1)[0] in foreign:
            continue
        if res.status == "found":
            if res.key and res.key not in scan.keys:
                scan.keys.append(res.key)
            if res.path:
                scan.files.setdefault(res.path, ref.line)
                if ref.kind == "method" and file_ext(res.path) in CODE_EXTS:  # `pkg.mod.name`: name in that file
                    scan.symbols.append((ref, [res.path]))
            elif ref.kind != "path":
                files = [p for p in code.defining_files(ref.name) if file_ext(p) in CODE_EXTS and not _is_test(p)]
                for p in files:
                    scan.files.setdefault(p, ref.line)
                if files:
                    scan.symbols.append((ref, files))
            sig = _SIG.match(ref.ref)
            if sig and ref.source in ("span", "prose") and ref.kind != "path":
                scan.signatures.append((ref.name, sig.group(1)))
        elif res.status == "missing" and all(lookup != res.lookup for _, lookup, _ in scan.candidates):
            scan.candidates.append((ref, res.lookup, res.scope))
    return scan


def _is_test(path: str) -> bool:
    """Test code: a definition there is a test's helper, not what a doc describes."""
    parts = path.lower().split("/")
    base = parts[-1].rsplit(".", 1)[0]
    return any(p in ("test", "tests", "testing", "__tests__", "spec") for p in parts[:-1]) or \
        base.startswith("test_") or base.endswith(("_test", "_tests", ".spec", ".test")) or base == "conftest"


_SIG = re.compile(r"^[\w.:]+(\(.*\))(?:\s*->\s*\S+)?$")


def _to_json(d: DocFreshness) -> dict[str, Any]:
    st = d.staleness
    return {
        "verdict": st.verdict, "reasons": list(st.reasons), "last_updated": st.last_updated,
        "missing": [[m.ref, m.line, m.suggestion, m.commit] for m in st.missing],
        "changed": [[c.ref, c.line, c.path, c.commit, c.what] for c in st.changed],
        "references": list(st.references), "signatures": [list(x) for x in st.signatures],
        "files": sorted(d.files), "age": d.age_days, "age_flagged": d.age_flagged,
    }


def _from_json(doc: Doc, v: Mapping[str, Any]) -> DocFreshness:
    st = Staleness(
        verdict=v["verdict"], reasons=tuple(v["reasons"]),
        missing=tuple(MissingRef(*m) for m in v["missing"]), changed=tuple(ChangedRef(*c) for c in v["changed"]),
        last_updated=v["last_updated"], references=tuple(v["references"]),
        signatures=tuple((a, b) for a, b in v["signatures"]),
    )
    return DocFreshness(doc.path, doc.slug, st, frozenset(v["files"]), v["age"], v["age_flagged"])


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


# --------------------------------------------------------------------------- clashes


def find_clashes(chosen: Sequence[Any]) -> list[str]:
    """Lines for included docs that state different things about the same symbol: a different
    signature (parameter names), default value or type annotation, saying what differs.

    Accepts `Candidate`s (or `Chosen`s) with `.staleness`; what a doc states about a symbol is
    a call-shaped span in its prose (`connect(host, timeout=30)`), not a usage in an example.
    When one of the two is flagged stale, the line says which one to distrust.
    """
    docs = []
    for item in chosen:
        cand = getattr(item, "candidate", item)
        st = getattr(cand, "staleness", None)
        if getattr(cand, "kind", "doc") == "doc" and st is not None and st.signatures:
            docs.append((cand.path, st, {sym: _params(args) for sym, args in st.signatures}))
    docs.sort(key=lambda d: d[0])
    lines = []
    for i, (path_a, a, sigs_a) in enumerate(docs):
        for path_b, b, sigs_b in docs[i + 1:]:
            for sym in sorted(set(sigs_a) & set(sigs_b)):
                diff = _differs(sigs_a[sym], sigs_b[sym], path_a, path_b)
                if diff is None:
                    continue
                line = f"`{path_a}` and `{path_b}` disagree about `{sym}`: {diff}"
                if a.stale != b.stale:
                    line += f" — `{path_a if a.stale else path_b}` may be outdated; check the code."
                lines.append(line)
    return lines


def _params(args: str) -> dict[str, tuple[str, str]] | None:
    """`(a, b: int = 3)` → {name: (type, default)}; None when it is a call with values, not a signature."""
    inner = args.strip()[1:-1].strip()
    if not inner:
        return {}
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    out: dict[str, tuple[str, str]] = {}
    for p in parts:
        p = p.strip().lstrip("*")
        if p in ("", "/"):
            continue
        m = re.match(r"^([A-Za-z_]\w*)\s*(?::\s*([^=]+?))?\s*(?:=\s*(.+))?$", p)
        if m is None:
            return None  # a literal or an expression: a call, not a signature
        out[m.group(1)] = ((m.group(2) or "").strip(), (m.group(3) or "").strip())
    return out


def _differs(a: dict[str, tuple[str, str]] | None, b: dict[str, tuple[str, str]] | None,
             path_a: str, path_b: str) -> str | None:
    if a is None or b is None or not a or not b:
        return None
    if list(a) != list(b) and any(t or d for t, d in (*a.values(), *b.values())):
        return f"parameters ({', '.join(a)}) in `{path_a}` but ({', '.join(b)}) in `{path_b}`"
    for name in [n for n in a if n in b]:  # other names without types or defaults: different calls, not a clash
        (ta, da), (tb, db) = a[name], b[name]
        if da and db and da != db:
            return f"`{name}` defaults to `{da}` in `{path_a}` but `{db}` in `{path_b}`"
        if ta and tb and ta != tb:
            return f"`{name}` is `{ta}` in `{path_a}` but `{tb}` in `{path_b}`"
    return None

