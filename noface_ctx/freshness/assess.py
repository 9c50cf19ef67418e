"""Doc freshness: names a doc uses that were removed or whose definitions changed since the doc
was last updated, and docs that contradict each other.

Per doc (`assess_docs`); records (release notes, changelogs, history: `markup.is_record`; lists
of deprecated APIs: `DEPRECATION_DOCS`) are never judged:

- **references** are the code-like tokens of `noface_ctx.freshness.references` that resolve in the code
  now, or resolved when the doc was last changed. Names the doc's own examples define, bind or
  import from a package outside the repository, and plain words, are not references.
- **last updated**: frontmatter `updated` as written; otherwise the later of frontmatter `date`
  and the doc's last commit (from the history index). A doc with uncommitted edits, or not
  committed yet, counts as updated at the latest commit.
- **removed** (an error, verdict "stale"): a name that does not resolve now and was in the
  code at the doc's last commit, or its parent (`presence`); a member `mod.name` /
  `Class.name` must have lived in that module or class's file, a bare name must have been
  declared (`declarations.declared`: not a local, not a `self.` attribute). The note names the commit that removed it and, when that commit put
  another identifier in its place, suggests it; nothing is guessed otherwise.
- **changed** (a warning, verdict "possibly stale"): a symbol the doc names whose definition
  in its defining file (at most 3 files) differs now from the doc's last commit: its
  signature, or its body when the doc documents it (an API directive's target, or named in a
  section title: `references.Reference.documented`). A mention in prose or an example counts
  only a signature change the doc would notice (`notice.counts_for`); see
  `history.HistoryIndex.symbol_change`. File-level churn alone is not a signal.
- **age**: days between the doc's last update and the repository's latest commit (never the
  wall clock); reported with changed symbols (`stale_after_days`), never alone.

Without git, or for a doc whose commit a shallow clone lacks, only members of repository
modules or classes that do not resolve are reported (no history to tell more), with a note.

Cost: every judgement is kept in `<cache_dir>/history.sqlite` (`judged`), keyed by the doc's
text and these rules, with the HEAD, the doc's last commit and the uncommitted edits it was
made under; after a commit or an edit a doc is judged again only when the change touches an
identifier it uses (`edits`). `assess_docs` judges the docs it is asked about in one batch: a
prompt pays for the docs ranking considers (the pipeline asks for exactly those), `check-docs` for all of them.

Modules: `references` (what a reference is), `codebase` (does it resolve now), `scan` (one
doc's references), `presence` + `history` + `definitions` (what git says), `parameters` + `notice` +
`ancestry` (which signature changes a doc would notice), `judgement` (the answer and its
wording), `clashes` (docs that disagree), this module (the batch and its cache).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from noface_ctx import git
from noface_ctx._process import in_forks, start_forked
from noface_ctx.datatypes import ChangedRef, Doc, MissingRef, RepoFiles, Staleness
from noface_ctx.docs.markup import doc_stem, is_record
from noface_ctx.freshness.changes import Worktree, changed_defaults, changed_symbols
from noface_ctx.freshness.clashes import find_clashes
from noface_ctx.freshness.codebase import Codebase, SymbolTable
from noface_ctx.freshness.edits import Edits, edit_state
from noface_ctx.freshness.extract import extract_references
from noface_ctx.freshness.history import Commit, HistoryIndex, build_index
from noface_ctx.freshness.judgement import (
    DocFreshness,
    changed_reason,
    from_json,
    last_updated,
    missing_reason,
    to_json,
    verdict,
)
from noface_ctx.freshness.presence import Presence, record_removals
from noface_ctx.freshness.references import Reference
from noface_ctx.freshness.scan import DocScan, read_references, references_from_json, references_to_json, scan_doc

__all__ = [
    "DocFreshness",
    "DocJudge",
    "Freshness",
    "Reference",
    "assess_docs",
    "changed_reason",
    "extract_references",
    "find_clashes",
    "missing_reason",
]

RULES = 31  # bump whenever what a judgement means changes: cached judgements are then redone
# lists of deprecated and removed APIs (sphinx's doc/extdev/deprecated.rst, django's
# docs/internals/deprecation.txt, pytest's doc/en/deprecations.rst): records, they rightly name what is gone
DEPRECATION_DOCS = frozenset({"deprecated", "deprecation", "deprecations"})

# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class Freshness:
    """`assess_docs`'s answer: a `Staleness` per doc slug, run warnings, and per-doc details."""

    by_slug: Mapping[str, Staleness]
    warnings: tuple[str, ...] = ()
    details: Mapping[str, DocFreshness] = field(default_factory=dict)
    by_path: Mapping[str, DocFreshness] = field(default_factory=dict)  # every doc judged, two sharing a slug too

    def get(self, slug: str) -> Staleness:
        """The doc's `Staleness`; a fresh one for a doc not judged (a record, or not asked about)."""
        return self.by_slug.get(slug) or Staleness()


# --------------------------------------------------------------------------- assessment


def start_history(config: Any) -> Callable[[], None] | None:
    """On a first run (no history index yet, in a git repository), start building the index now
    in a forked process, so that `git log` overlaps the file scan; pass the answer to
    `assess_docs` (`building`). None when there is nothing to start."""
    from noface_ctx.config import cache_dir

    try:
        db_path = cache_dir(config) / "history.sqlite"
    except OSError:
        return None
    if db_path.exists():
        return None
    head, _shallow = git.head(config.root)
    return start_forked(build_index, config.root, db_path, head) if head is not None else None


def assess_docs(docs: Sequence[Doc], repo_files: RepoFiles, symbols: SymbolTable | None, config: Any,
                slugs: Iterable[str] | None = None, building: Callable[[], None] | None = None) -> Freshness:
    """Judge the docs named by `slugs` (every doc when None, two sharing a slug too), now and in
    one batch; records are never judged (see the module docstring). The answer holds the docs
    judged, in `slugs` order (`by_path`: in `docs` order, every doc judged). `building`: the
    history index being built (`start_history`)."""
    judge = DocJudge(docs, repo_files, symbols, config, run_state(repo_files), building)
    chosen = list(docs) if slugs is None else [judge.by_slug[s] for s in dict.fromkeys(slugs) if s in judge.by_slug]
    by_path = judge.judge_docs(chosen)
    judged = judge.judge(judge.by_slug if slugs is None else slugs)
    by_slug = {slug: found.staleness for slug, found in judged.items()}
    return Freshness(MappingProxyType(by_slug), tuple(judge.warnings), MappingProxyType(judged),
                     MappingProxyType(by_path))


@dataclass(frozen=True, slots=True)
class RunState:
    """What a run judges against, read from git once, before any judging (`run_state`): HEAD,
    whether the clone is shallow, the files with uncommitted edits, and what the checks can
    not do here (`warnings`)."""

    head: str | None
    shallow: bool
    dirty: frozenset[str]
    warnings: tuple[str, ...]


def run_state(repo_files: RepoFiles) -> RunState:
    """The run's `RunState`: one `git rev-parse` and one `git status` (none without git)."""
    head, shallow = git.head(repo_files.root) if repo_files.has_git else (None, False)
    warnings = []
    if not repo_files.has_git:
        warnings.append("not a git repository: freshness checks only that members of the repository's "
                        "modules and classes named by docs exist (no dates, no history)")
    elif head is None:
        warnings.append("no commits yet: freshness checks only that names docs use exist")
    elif shallow:
        warnings.append("shallow clone: docs whose last commit is missing are checked for names that do "
                        "not exist only (no history)")
    dirty = frozenset(git.dirty_files(repo_files.root)) if head is not None else frozenset()
    return RunState(head, shallow, dirty, tuple(warnings))


class DocJudge:
    """Judges docs in batches, reusing the judgements `history.sqlite` keeps; a doc once judged
    is answered from memory. Use one per run, with the run's `RunState` (HEAD and the working
    tree's state: it runs no git itself until it judges)."""

    def __init__(self, docs: Sequence[Doc], repo_files: RepoFiles, symbols: SymbolTable | None, config: Any,
                 state: RunState, building: Callable[[], None] | None = None) -> None:
        self._building = building  # the history index being built in another process: wait for it first
        ctx = config.context
        records = {d.path for d in docs if is_record(d.path, ctx.record_dirs) or doc_stem(d.path) in DEPRECATION_DOCS}
        self.by_slug = {d.slug: d for d in docs}  # a slug used twice: the last doc answers (`judge_docs` takes both)
        self.records = records
        self.doc_paths = [d.path for d in docs]
        self.repo_files, self.symbols, self.config = repo_files, symbols, config
        self.root = repo_files.root
        self.head, self.shallow = state.head, state.shallow
        self.warnings: list[str] = list(state.warnings)
        self.results: dict[str, DocFreshness] = {}  # by doc path
        self._keys: dict[str, str] = {}  # doc path -> `_key`
        self._code: Codebase | None = None
        self._dirty: set[str] = set(state.dirty)
        self._edit_state: dict[str, str] | None = None
        self._edits: dict[str, Edits] = {}  # by the commit compared with the work tree
        self._index: HistoryIndex | None = None
        self._head_commit: Commit | None = None

    # ---------------------------------------------------------------- plumbing

    def judge(self, slugs: Iterable[str]) -> dict[str, DocFreshness]:
        """slug → judgement for these docs (unknown slugs left out), those not judged yet in one batch."""
        wanted = [s for s in dict.fromkeys(slugs) if s in self.by_slug]
        found = self.judge_docs([self.by_slug[s] for s in wanted])
        return {s: found[self.by_slug[s].path] for s in wanted}

    def judge_docs(self, docs: Iterable[Doc]) -> dict[str, DocFreshness]:
        """path → judgement for these docs (two sharing a slug too), those not judged yet in one batch."""
        wanted = list({d.path: d for d in docs}.values())
        todo = [d for d in wanted if d.path not in self.results]
        if todo:
            self._assess(todo)
        return {d.path: self.results[d.path] for d in wanted}

    def _codebase(self) -> Codebase:
        if self._code is None:
            self._code = Codebase(self.repo_files, self.symbols, self.doc_paths, words_cache=self._cache_file("words.sqlite"))
        return self._code

    def _cache_file(self, name: str) -> Path | None:
        from noface_ctx.config import cache_dir

        try:
            return cache_dir(self.config) / name
        except OSError:
            return None

    def _history(self) -> HistoryIndex | None:
        if self._building is not None:
            self._building()
            self._building = None
        if self.head is None:
            return None
        if self._index is None:
            self._index = HistoryIndex(self.root, self._cache_file("history.sqlite"))
            self._index.update(self.head)
            self._head_commit = self._index.commit(self.head) or self._index.latest()
        return self._index

    def _first_index(self) -> bool:
        """No history index exists yet (a first run): every doc will be judged."""
        path = self._cache_file("history.sqlite")
        return self.head is not None and self._index is None and (
            self._building is not None or (path is not None and not path.exists()))

    def _dirty_files(self) -> set[str]:
        return self._dirty

    def _state(self) -> dict[str, str]:
        if self._edit_state is None:
            self._edit_state = edit_state(self.root, self._dirty_files())
        return self._edit_state

    def _edits_since(self, base: str) -> Edits:
        if base not in self._edits:
            self._edits[base] = Edits(self.root, base, self._dirty_files() if base == self.head else None)
        return self._edits[base]

    def _still_holds(self, doc: Doc, key: str, value: Mapping[str, Any], index: HistoryIndex) -> bool:
        """Whether a stored judgement holds now: same doc text and rules, the doc's last commit
        unchanged, and nothing changed since in the code (commits or edits: `edits`) touches an
        identifier the doc uses."""
        if key != self._key(doc) or doc.path in self._dirty_files():
            return False
        commit = index.last_touch(doc.path)
        if value.get("doc_commit") != (commit.sha if commit is not None else None):
            return False
        then_head, then = value.get("head"), value.get("edits", {})
        state = self._state()
        if then_head == self.head and self.head is not None:
            differ = {p for p in set(then) | set(state) if then.get(p) != state.get(p)}
            if not differ:
                return True
            touched = self._edits_since(self.head).touched(p for p in differ if p in state)
            stale_edits = bool(differ.intersection(then))
        elif then_head is not None and index.commit(then_head) is not None:  # an ancestor of HEAD
            touched = self._edits_since(then_head).touched()
            stale_edits = bool(then)
        else:
            return False
        if stale_edits:  # the edits it was judged under are gone or different
            touched |= set(value.get("edit_words", ()))
        return touched.isdisjoint(value.get("words", ()))

    def _key(self, doc: Doc) -> str:
        """The doc's text and the rules, hashed once per doc and run."""
        key = self._keys.get(doc.path)
        if key is None:
            h = hashlib.sha1(f"{RULES}\0{self.config.context.stale_after_days}\0".encode())
            h.update(doc.text.encode("utf-8", "surrogateescape"))
            key = self._keys[doc.path] = h.hexdigest()
        return key

    # ---------------------------------------------------------------- judging

    def _assess(self, docs: list[Doc]) -> None:
        for doc in docs:
            if doc.path in self.records:
                self.results[doc.path] = DocFreshness(doc.path, doc.slug, Staleness())
        docs = [d for d in docs if d.path not in self.records]
        if not docs:
            return
        stored: dict[str, list[Reference] | None] = {}  # references kept for a doc's text (None: damaged)
        if self._first_index():  # nothing judged yet: read the docs and the code while `git log` builds the index
            scans, index = self._first_scans(docs)
            code = self._codebase()
        else:
            index = self._history()
            misses = []
            for doc in docs:
                hit = index.judged(doc.path) if index is not None else None
                if hit is not None and index is not None and self._still_holds(doc, hit[0], hit[1], index):
                    self.results[doc.path] = self._reuse(doc, hit[1])
                    continue
                misses.append(doc)
            if not misses:
                return
            code = self._codebase()
            kept = index.references(self._key(d) for d in misses) if index is not None else {}
            stored = {key: references_from_json(value) for key, value in kept.items()}
            scans = [scan_doc(doc, code, stored.get(self._key(doc))) for doc in misses]
        dirty = self._dirty_files()
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
            plans = [(s, since) for s in scans_with if s.candidates and (since := self._since(s)) is not None]
            presence = Presence(self.root, index, [  # its greps run while `_changed` reads definitions
                (since, {lookup for ref, lookup, _ in s.candidates if ref.kind != "path"}, s.editing, s.doc.path)
                for s, since in plans],
                self._dirty_files(), {(s.doc.path, lookup) for s, _ in plans for ref, lookup, _ in s.candidates
                                      if ref.kind == "symbol" and ref.source in ("span", "prose")})
            checked = [(s, since) for s in scans_with if (since := self._since(s)) is not None]
            tree = Worktree(str(self.root), frozenset(self._dirty_files()))
            changed_symbols(checked, index, tree, self._codebase().ancestry)
            changed_defaults(checked, index, tree, self._codebase())
            record_removals(plans, presence.result(), index, code, self._dirty_files())
        for s in no_history:  # no history to tell: only members of the repository's modules and classes
            s.missing = [MissingRef(ref.ref, ref.line, proven=False) for ref, _lookup, scope in s.candidates if scope]
        rows = []
        under = {"head": self.head, "edits": self._state(),
                 "edit_words": sorted(self._edits_since(self.head).touched()) if self.head and self._state() else []}
        for s in scans:
            updated = last_updated(s.doc, s.commit, s.editing, self._head_commit)
            judged = self._verdict(s.doc, s.missing, s.changed, updated, s.keys, s.signatures, s.files)
            self.results[s.doc.path] = judged
            rows.append((s.doc.path, self._key(s.doc), {
                **to_json(judged), "words": sorted(s.words), "updated": updated,
                "doc_commit": s.commit.sha if s.commit is not None and not s.editing else None, **under}))
        if index is not None:
            index.save_judged(rows, [(self._key(s.doc), references_to_json(s.refs)) for s in scans
                                     if stored.get(self._key(s.doc)) is None])

    def _first_scans(self, docs: list[Doc]) -> tuple[list[DocScan], HistoryIndex | None]:
        """A first run's scans and history index. On a large repository the index is built (if
        `start_history` has not started it) and the docs read in processes of their own (each is
        seconds of pure Python work, as is reading the code here); else, or where no process
        can be forked, the index is built in a thread."""
        db_path = self._cache_file("history.sqlite")
        if self._building is None and len(docs) >= 50 and db_path is not None and self.head is not None:
            self._building = start_forked(build_index, self.root, db_path, self.head)
        reading = in_forks((read_references, (docs,))) if len(docs) >= 50 else None  # forked before any thread
        with ThreadPoolExecutor(max_workers=1) as pool:
            thread = pool.submit(self._history) if self._building is None else None
            code = self._codebase()
            refs = reading[0]() if reading is not None else {}
            scans = [scan_doc(doc, code, refs.get(doc.path)) for doc in docs]
            return scans, thread.result() if thread is not None else self._history()

    def _since(self, s: DocScan) -> Commit | None:
        """The commit the doc's words are checked against: its last commit, or HEAD while edited."""
        return self._head_commit if s.editing else s.commit

    def _reuse(self, doc: Doc, value: Mapping[str, Any]) -> DocFreshness:
        """A stored judgement, its age counted again against today's latest commit."""
        old = from_json(doc, value)
        st = old.staleness
        return self._verdict(doc, st.missing, st.changed, value.get("updated"), st.references, st.signatures, old.files)

    def _verdict(self, doc: Doc, missing: Sequence[MissingRef], changed: Sequence[ChangedRef], updated: float | None,
                 references: Iterable[str], signatures: Iterable[tuple[str, str]], files: Iterable[str]) -> DocFreshness:
        latest = float(self._head_commit.time) if self._head_commit is not None else None
        return verdict(doc, missing, changed, updated, latest, self.config.context.stale_after_days,
                       references, signatures, files)

