"""Doc freshness: names a doc uses that were removed or whose definitions changed since the doc
was last updated, and docs that contradict each other.

Per doc (`assess_docs`); records (release notes, changelogs, history: `record_titles.never_judged`; lists
of deprecated APIs, enhancement proposals: `markup.names_old_apis`) are never judged:

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

A batch (`judge_docs`; `assess_docs` for prompts) is a pipeline, one function per step with
explicit inputs (`docs/freshness.md` draws it): `run_state` reads git once, `open_history`
brings the index to HEAD, `reuse_judgements` keeps stored judgements that still hold (keyed by
the doc's text and these rules, with the HEAD, doc commit and edits they were made under:
`edits`), `read_docs` extracts and resolves the others' references, `changes.read_history`
asks git about their names, `judge` gives and stores the verdicts; `check` reports them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from noface_ctx import _git as git
from noface_ctx._process import start_forked
from noface_ctx.config import Config, cache_dir
from noface_ctx.datatypes import ChangedRef, Doc, MissingRef, RepoFiles, Staleness
from noface_ctx.docs.markup import DEPRECATION_WORDS
from noface_ctx.docs.record_titles import never_judged
from noface_ctx.freshness.changes import Defaults, read_history, start_defaults
from noface_ctx.freshness.clashes import find_clashes
from noface_ctx.freshness.code_words import Handed, handed_out
from noface_ctx.freshness.codebase import Codebase, SymbolTable
from noface_ctx.freshness.edits import Edits, edit_state, edits_since
from noface_ctx.freshness.extract import extract_references
from noface_ctx.freshness.first_reads import start_reading
from noface_ctx.freshness.gaps import history_gaps
from noface_ctx.freshness.history import Commit, HistoryIndex, build_index
from noface_ctx.freshness.judgement import (
    UNCOMMITTED,
    DocFreshness,
    changed_reason,
    from_json,
    last_updated,
    missing_reason,
    to_json,
    verdict,
)
from noface_ctx.freshness.references import Reference
from noface_ctx.freshness.scan import (
    PLAIN_REFERENCES,
    DocHistory,
    DocScan,
    TextReading,
    load_plain_references,
    references_from_json,
    references_to_json,
    save_plain_references,
    scan_doc,
)

__all__ = [
    "DocFreshness",
    "Freshness",
    "JudgeInputs",
    "Reference",
    "assess_docs",
    "changed_reason",
    "extract_references",
    "find_clashes",
    "judge_docs",
    "judge_inputs",
    "missing_reason",
]

RULES = 91  # bump whenever what a judgement means changes: cached judgements are then redone
# lists of deprecated and removed APIs (sphinx's deprecated.rst, django's deprecation.txt, pytest's deprecations.rst)
DEPRECATION_DOCS = DEPRECATION_WORDS  # (`markup.names_old_apis`: after words of scope too, and proposals)
Building = Callable[[], None]  # the history index being built in another process: call to wait for it

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


@dataclass(frozen=True, slots=True)
class RunState:
    """What a run judges against, read from git once, before any judging (`run_state`): HEAD,
    whether the clone is shallow, the files with uncommitted edits and their contents' hashes
    (`edits`), and what the checks can not do here (`warnings`)."""

    head: str | None
    shallow: bool
    dirty: frozenset[str]
    warnings: tuple[str, ...]
    edits: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class JudgeInputs:
    """Everything a batch of judgements reads besides the docs themselves (`judge_inputs`)."""

    repo_files: RepoFiles
    symbols: SymbolTable | None
    state: RunState
    doc_paths: tuple[str, ...]  # every doc of the repository: none of them is code
    records: frozenset[str]  # docs never judged
    stale_after_days: int
    history_db: Path | None  # `<cache_dir>/history.sqlite`
    words_db: Path | None  # `<cache_dir>/words.sqlite`

    @property
    def root(self) -> str:
        return self.repo_files.root


@dataclass(frozen=True, slots=True)
class History:
    """The history index brought to HEAD (`open_history`), and HEAD's commit in it."""

    index: HistoryIndex
    head: Commit | None


# --------------------------------------------------------------------------- the run


def run_state(repo_files: RepoFiles) -> RunState:
    """The run's `RunState`: one `git rev-parse` and one `git diff` (none without git)."""
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
    return RunState(head, shallow, dirty, tuple(warnings), MappingProxyType(edit_state(repo_files.root, dirty)))


def judge_inputs(docs: Sequence[Doc], repo_files: RepoFiles, symbols: SymbolTable | None, config: Config,
                 state: RunState) -> JudgeInputs:
    """The `JudgeInputs` of a run over these docs (the repository's), read from the config."""
    ctx = config.context
    records = frozenset(d.path for d in docs if never_judged(d, ctx.record_dirs))
    not_code = tuple(d.path for d in docs if not d.path.endswith(".py"))  # a gallery script (`docs.gallery`) is code too
    return JudgeInputs(repo_files, symbols, state, not_code, records, ctx.stale_after_days,
                       _cache_file(config, "history.sqlite"), _cache_file(config, "words.sqlite"))


def _cache_file(config: Config, name: str) -> Path | None:
    try:
        return cache_dir(config) / name
    except OSError:
        return None


def start_history(config: Config) -> Building | None:
    """On a first run (no history index yet, in a git repository), start building the index now
    in a forked process, so that `git log` overlaps the file scan; pass the answer to
    `assess_docs` (`building`). None when there is nothing to start."""
    db_path = _cache_file(config, "history.sqlite")
    if db_path is None or db_path.exists():
        return None
    head, _shallow = git.head(config.root)
    return start_forked(build_index, config.root, db_path, head) if head is not None else None


def open_history(inputs: JudgeInputs, building: Building | None = None) -> History | None:
    """The history index brought to HEAD (`git log` of the new commits; `building`: waited for
    first), None without commits."""
    if building is not None:
        building()
    if inputs.state.head is None:
        return None
    index = HistoryIndex(inputs.root, inputs.history_db)
    index.update(inputs.state.head)
    return History(index, index.commit(inputs.state.head) or index.latest())


def codebase(inputs: JudgeInputs, handed: Handed | None = None) -> Codebase:
    """The code now: what references resolve against (`codebase.Codebase`; `handed`: code
    files another process reads)."""
    return Codebase(inputs.repo_files, inputs.symbols, inputs.doc_paths, words_cache=inputs.words_db, handed=handed)


def assess_docs(docs: Sequence[Doc], repo_files: RepoFiles, symbols: SymbolTable | None, config: Config,
                slugs: Iterable[str] | None = None, building: Building | None = None) -> Freshness:
    """Judge the docs named by `slugs` (every doc when None, two sharing a slug too), now and in
    one batch; records are never judged (see the module docstring). The answer holds the docs
    judged, in `slugs` order (`by_path`: in `docs` order, every doc judged). `building`: the
    history index being built (`start_history`)."""
    state = run_state(repo_files)
    inputs = judge_inputs(docs, repo_files, symbols, config, state)
    by_slug_doc = {d.slug: d for d in docs}  # a slug used twice: the last doc answers (`by_path` has both)
    chosen = list(docs) if slugs is None else [by_slug_doc[s] for s in dict.fromkeys(slugs) if s in by_slug_doc]
    found = judge_docs(chosen, inputs, building)
    wanted = [s for s in dict.fromkeys(by_slug_doc if slugs is None else slugs) if s in by_slug_doc]
    judged = {s: found[by_slug_doc[s].path] for s in wanted}
    return Freshness(MappingProxyType({s: j.staleness for s, j in judged.items()}),
                     (*state.warnings, *history_gaps(inputs.root, inputs.history_db)),
                     MappingProxyType(judged), MappingProxyType({d.path: found[d.path] for d in chosen}))


def judge_docs(docs: Iterable[Doc], inputs: JudgeInputs, building: Building | None = None) -> dict[str, DocFreshness]:
    """path -> judgement of these docs (two sharing a slug too), in one batch: the pipeline of
    the module docstring. Records are answered fresh without being read."""
    wanted = list({d.path: d for d in docs}.values())
    out = {d.path: DocFreshness(d.path, d.slug, Staleness()) for d in wanted if d.path in inputs.records}
    todo = [d for d in wanted if d.path not in inputs.records]
    if todo:
        out.update(_judge_batch(todo, inputs, building))
    return {d.path: out[d.path] for d in wanted}


def _judge_batch(docs: list[Doc], inputs: JudgeInputs, building: Building | None) -> dict[str, DocFreshness]:
    keys = {d.path: judgement_key(d, inputs.stale_after_days) for d in docs}
    state = inputs.state
    first = state.head is not None and (building is not None or (
        inputs.history_db is not None and not inputs.history_db.exists()))
    out: dict[str, DocFreshness] = {}
    stored: dict[str, list[Reference] | None] = {}  # references kept for a doc's text (None: damaged)
    head_edits = edits_since(inputs.root, state.head, state.dirty) if state.head is not None else None
    if first:  # nothing judged yet: read the docs and the code while `git log` builds the index
        scans, history, code, defaults = _first_scans(docs, inputs, building)
    else:
        history, defaults = open_history(inputs, building), None
        misses = docs
        if history is not None and head_edits is not None:
            out, misses = reuse_judgements(docs, keys, history, state, head_edits, inputs.stale_after_days)
        if not misses:
            return out
        code = codebase(inputs)
        wanted = {keys[d.path] for d in misses}
        plain = load_plain_references(_plain_file(inputs), RULES) if history is None else {}
        kept = history.index.references(wanted) if history is not None else {k: plain[k] for k in wanted if k in plain}
        stored = {key: references_from_json(value) for key, value in kept.items()}
        scans = read_docs(misses, code, {d.path: stored.get(keys[d.path]) for d in misses})
    histories = read_history(scans, history.index if history is not None else None,
                             history.head if history is not None else None, code, state.dirty, state.shallow, defaults)
    judged, rows = judge(scans, histories, keys, history, state, head_edits, inputs.stale_after_days)
    out.update(judged)
    new = [(keys[s.doc.path], references_to_json(s.refs)) for s in scans if stored.get(keys[s.doc.path]) is None]
    if history is not None:
        history.index.save_judged(rows, new)
    elif new and not first:
        save_plain_references(_plain_file(inputs), RULES, plain, new)
    return out


def _plain_file(inputs: JudgeInputs) -> Path | None:
    """Where a repository without commits keeps its docs' references (`scan.PLAIN_REFERENCES`)."""
    return inputs.history_db.with_name(PLAIN_REFERENCES) if inputs.history_db is not None else None


def judgement_key(doc: Doc, stale_after_days: int) -> str:
    """What a stored judgement is kept under: the doc's text and the rules, hashed."""
    h = hashlib.sha1(f"{RULES}\0{stale_after_days}\0".encode())
    h.update(doc.text.encode("utf-8", "surrogateescape"))
    return h.hexdigest()


# --------------------------------------------------------------------------- step 2: judgements kept


def reuse_judgements(docs: list[Doc], keys: Mapping[str, str], history: History, state: RunState,
                     head_edits: Edits, stale_after_days: int) -> tuple[dict[str, DocFreshness], list[Doc]]:
    """(the stored judgements that still hold, by path; the docs to judge again)."""
    reused: dict[str, DocFreshness] = {}
    misses = []
    since: dict[str, Edits] = {}  # the work tree against an older HEAD a judgement was made under
    for doc in docs:
        hit = history.index.judged(doc.path)
        if hit is not None and hit[0] == keys[doc.path] and _still_holds(doc, hit[1], history.index, state,
                                                                          head_edits, since):
            old = from_json(doc, hit[1])
            st = old.staleness
            reused[doc.path] = _verdict(doc, st.missing, st.changed, hit[1].get("updated"), st.references,
                                        st.signatures, old.files, history.head, stale_after_days)
            continue
        misses.append(doc)
    return reused, misses


def _still_holds(doc: Doc, value: Mapping[str, Any], index: HistoryIndex, state: RunState, head_edits: Edits,
                 since: dict[str, Edits]) -> bool:
    """Whether a stored judgement (of the same doc text and rules) holds now: the doc's last
    commit unchanged, and nothing changed since in the code (commits or edits: `edits`) touches
    an identifier the doc uses."""
    if doc.path in state.dirty:
        return False
    commit = index.last_touch(doc.path)
    if value.get("doc_commit") != (commit.sha if commit is not None else None):
        return False
    then_head, then = value.get("head"), value.get("edits", {})
    now = state.edits
    if then_head == state.head and state.head is not None:
        differ = {p for p in set(then) | set(now) if then.get(p) != now.get(p)}
        if not differ:
            return True
        touched = head_edits.touched(p for p in differ if p in now)
        stale_edits = bool(differ.intersection(then))
    elif then_head is not None and index.commit(then_head) is not None:  # an ancestor of HEAD
        if then_head not in since:
            since[then_head] = edits_since(index.root, then_head)
        touched = since[then_head].touched()
        stale_edits = bool(then)
    else:
        return False
    if stale_edits:  # the edits it was judged under are gone or different
        if any(len(row) > 3 and row[3] == UNCOMMITTED for row in [*value.get("missing", ()), *value.get("changed", ())]):
            return False  # a finding the edits made: now committed or undone, its commit is named again
        touched |= set(value.get("edit_words", ()))
    return touched.isdisjoint(value.get("words", ()))


# --------------------------------------------------------------------------- step 3: references


def read_docs(docs: Sequence[Doc], code: Codebase, refs: Mapping[str, list[Reference] | TextReading | None]) -> list[DocScan]:
    """Each doc's references (`refs[path]` when already read, or all its text says) resolved against the code now."""
    return [scan_doc(doc, code, refs.get(doc.path)) for doc in docs]


def _first_scans(docs: list[Doc], inputs: JudgeInputs,
                 building: Building | None) -> tuple[list[DocScan], History | None, Codebase, Defaults | None]:
    """A first run's scans, history, code and defaults' answer (None: not started). On a large repository the index
    is built (if `start_history` has not started it), the docs read and their defaults judged (`start_defaults`) in
    processes of their own (each is seconds of pure Python work, as is reading the code here); else, or where no
    process can be forked, the index is built in a thread."""
    head = inputs.state.head
    if building is None and len(docs) >= 50 and inputs.history_db is not None and head is not None:
        building = start_forked(build_index, inputs.root, inputs.history_db, head)
    handed = handed_out(inputs.repo_files, set(inputs.doc_paths), inputs.words_db) if len(docs) >= 50 else []
    reading = start_reading(docs, inputs.repo_files, handed) if len(docs) >= 50 else None  # forked before any thread
    with ThreadPoolExecutor(max_workers=1) as pool:
        thread = pool.submit(open_history, inputs) if building is None else None
        code = codebase(inputs, reading[1] if reading is not None else None)
        refs = reading[0]() if reading is not None else {}
        history = thread.result() if thread is not None else open_history(inputs, building)
        defaults = start_defaults(docs, history.index, history.head, code, inputs.state.dirty, inputs.state.shallow
                                  ) if history is not None else None  # forked after the readers above, before any thread
        return read_docs(docs, code, refs), history, code, defaults


# --------------------------------------------------------------------------- step 4: history
# `changes.read_history`: what history says of each doc's names (`DocHistory`).


# --------------------------------------------------------------------------- step 5: verdicts


def judge(scans: Sequence[DocScan], histories: Mapping[str, DocHistory], keys: Mapping[str, str],
          history: History | None, state: RunState, head_edits: Edits | None, stale_after_days: int
          ) -> tuple[dict[str, DocFreshness], list[tuple[str, str, dict[str, object]]]]:
    """(each doc's judgement by path, from its scan and what history says of it; the rows that
    keep them: with the words they depend on and the HEAD and edits they were made under)."""
    head = history.head if history is not None else None
    under = {"head": state.head, "edits": dict(state.edits),
             "edit_words": sorted(head_edits.touched()) if head_edits is not None and state.edits else []}
    out: dict[str, DocFreshness] = {}
    rows: list[tuple[str, str, dict[str, object]]] = []
    for s in scans:
        h = histories.get(s.doc.path, DocHistory())
        files = dict(s.files)
        for path, line in h.files.items():
            files.setdefault(path, line)
        updated = last_updated(s.doc, h.commit, h.editing, head)
        judged = _verdict(s.doc, h.missing, h.changed, updated, s.keys, s.signatures, files, head, stale_after_days)
        out[s.doc.path] = judged
        rows.append((s.doc.path, keys[s.doc.path], {
            **to_json(judged), "words": sorted(s.words), "updated": updated,
            "doc_commit": h.commit.sha if h.commit is not None and not h.editing else None, **under}))
    return out, rows


def _verdict(doc: Doc, missing: Sequence[MissingRef], changed: Sequence[ChangedRef], updated: float | None,
             references: Iterable[str], signatures: Iterable[tuple[str, str]], files: Iterable[str],
             head: Commit | None, stale_after_days: int) -> DocFreshness:
    latest = float(head.time) if head is not None else None
    return verdict(doc, missing, changed, updated, latest, stale_after_days, references, signatures, files)
