"""What history says of each doc's names since its commit (`read_history` → `DocHistory`): the
removed ones (`presence.record_removals`, in two processes: `removals_split`), the changed definitions of the symbols it names
(`changed_symbols`) and of the defaults it states (`changed_defaults`; a first run over many docs
starts it in a forked worker early: `start_defaults`, `defaults_apart`). Functions of explicit
inputs: the docs' scans with the commit each is checked against, the history index and the work
tree (`Worktree`); each returns its findings by doc path."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from noface_ctx import _git as git
from noface_ctx._filetypes import is_test_path
from noface_ctx.datatypes import ChangedRef, Doc, MissingRef
from noface_ctx.freshness import directive_keywords
from noface_ctx.freshness.ancestry import Ancestry, named_classes
from noface_ctx.freshness.born import born_stale
from noface_ctx.freshness.callback_members import unknown_members
from noface_ctx.freshness.code_use import declared_by_docs
from noface_ctx.freshness.code_words import PYTHON_EXTS
from noface_ctx.freshness.codebase import Codebase
from noface_ctx.freshness.coded_defaults import coded
from noface_ctx.freshness.defaults import Stated
from noface_ctx.freshness.defaults import changed_defaults as defaults_changed
from noface_ctx.freshness.defaults_apart import defaults_apart
from noface_ctx.freshness.definitions import definition
from noface_ctx.freshness.deprecated_paths import deprecated_paths
from noface_ctx.freshness.first_reads import doc_defaults
from noface_ctx.freshness.grep_plan import END, windows
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.judgement import UNCOMMITTED, passed_keyword
from noface_ctx.freshness.keyword_contract import unaccepted_keywords
from noface_ctx.freshness.launder_reach import named_lines
from noface_ctx.freshness.literal_defaults import literal_statements
from noface_ctx.freshness.merges import merged_change
from noface_ctx.freshness.never_defined import never_defined
from noface_ctx.freshness.notice import body_counts, counts_for, gone_keyword, old_default_stated, stated_default_line
from noface_ctx.freshness.option_defaults import shipped_config
from noface_ctx.freshness.presence import EXCLUDES, MAX_SCOPE, Presence, code_files
from noface_ctx.freshness.printed_defaults import printed_statements
from noface_ctx.freshness.references import FENCE_LANGS, file_ext
from noface_ctx.freshness.removals_split import split_removals
from noface_ctx.freshness.required_defaults import required_written
from noface_ctx.freshness.scan import DocHistory, DocScan
from noface_ctx.freshness.setting_values import start_value_findings, stated_values
from noface_ctx.freshness.shown_defaults import setting_of
from noface_ctx.freshness.signed_defaults import registered_as
from noface_ctx.freshness.worded_defaults import word_defaults
from noface_ctx.freshness.written_since import since_written

Plan = tuple[DocScan, Commit]  # a doc's scan and the commit it is checked against
Defaults = Callable[[], dict[str, list[ChangedRef]]]  # the answer of `changed_defaults` started


@dataclass(frozen=True, slots=True)
class Worktree:
    """The work tree a run judges: its root and the files with uncommitted edits (read as they
    are now, each once)."""

    root: str
    dirty: frozenset[str]
    _texts: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)

    def read(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = read_text(str(Path(self.root) / path))
        return self._texts[path]

    def changed_since(self, index: HistoryIndex, path: str, since: Commit) -> bool:
        return path in self.dirty or index.touched_after(path, since.seq)


def changed_symbols(plans: Sequence[Plan], index: HistoryIndex, tree: Worktree,
                    ancestry: Ancestry) -> dict[str, list[ChangedRef]]:
    """Each doc's symbols whose definition changed since its commit, as the doc would notice
    (`notice.counts_for`; see `history.HistoryIndex.symbol_change`); one finding per symbol,
    by doc path."""
    out: dict[str, list[ChangedRef]] = {}
    index.prefetch(  # the versions every doc's symbols are first looked up in, read in one pass
        (since.sha, path) for s, since in plans for ref, files in s.symbols
        if ref.source != "autodoc" and not s.doc.path.endswith(".py") for path in files if tree.changed_since(index, path, since))
    for s, since in plans:
        if s.doc.path.endswith(".py"):  # a gallery script's page (`docs.gallery`): the docs build runs its calls
            continue
        seen: set[tuple[str, tuple[str, ...]]] = set()  # a symbol told once, however the doc names it (`pkg.Flask`, `Flask`)
        tried: set[tuple[object, ...]] = set()  # ... asked once in prose, once in examples: a mention notices less than a call
        signed: dict[tuple[str, tuple[str, ...]], str] = {}  # the first signature written of each symbol
        for ref, files in sorted(s.symbols, key=lambda rf: not rf[0].documented):  # a documented one first
            key = (ref.name.rsplit(".", 1)[-1], tuple(files))
            way: tuple[object, ...] = (*key, ref.source in FENCE_LANGS, ref.source == "span" and "=..." in ref.ref)
            if ref.documented and re.search(r"\(\s*[^)\s]", ref.ref):  # a directive's second signature: asked too
                way = (*way, ref.ref) if signed.setdefault(key, ref.ref) != ref.ref else way
            # the doc's prose (a documented name first), its examples, a signature it states (`Axes3D` (fig[, rect]))
            if key in seen or way in tried or ref.source == "autodoc":  # an autodoc directive renders the code as it is
                continue
            tried.add(way)
            for path in files:
                now_text = tree.read(path) if path in tree.dirty else None
                name = index.def_name(since.sha, path, ref.name) if (
                    now_text is not None or index.touched_after(path, since.seq)) else None
                if name is None:
                    continue
                got = index.symbol_change(path, name, since, now_text, signature_only=not ref.documented,
                                          counts=counts_for(s.doc, ref, _ancestors_of(ancestry, path)),
                                          body_counts=body_counts(s.doc, ref.line))
                if got is not None:
                    commit, what = got
                    line = ref.line
                    if what == "signature":  # a keyword a call passes, gone, or a default stated: named, where the doc writes it
                        now = definition(now_text if now_text is not None else tree.read(path) or "", name)
                        then = index.def_at(since.sha, path, name)
                        stated = replace(s.doc, text="\n" * (ref.line - 1) + ref.ref) if ref.source == "span" and "=..." in ref.ref else s.doc
                        what, line = gone_keyword(stated, ref, then, now) or (  # (a signature a span states: as written)
                            (old_default_stated(s.doc, then, now) or stated_default_line(s.doc, then, now)) if then and now else None) or (what, line)
                    commit = _making(index, commit, path, name)
                    out.setdefault(s.doc.path, []).append(
                        ChangedRef(ref.ref, line, path, commit.label() if commit else UNCOMMITTED, what))
                    seen.add(key)
                    break
    return out


def _making(index: HistoryIndex, commit: Commit | None, path: str, name: str) -> Commit | None:
    """The commit that made `name`'s definition in `path` what `commit` left it: a merge's, the
    merged commit that did (`merged_change`)."""
    final = index.def_at(commit.sha, path, name) if commit else None
    return merged_change(index, commit, path, lambda sha: index.def_at(sha, path, name) == final) if commit and final else commit


def changed_defaults(plans: Sequence[tuple[Doc, Commit]], index: HistoryIndex, tree: Worktree,
                     code: Codebase) -> Defaults:
    """Defaults the docs state whose code default changed since (`defaults`), by doc path: one
    `git grep` at HEAD for every name, in the code files changed since the oldest of these docs'
    commits (an option, `--jobs`, as the code may spell it: `jobs`, `include_naming_hint`). The
    grep runs in the background: call the answer for the findings."""
    defined: dict[str, bool] = {}  # a callable some file defines: a signature stating its defaults is `changed_symbols`'
    asks, worded = [], []  # (a doc's text read by both while its blocks are remembered: `subject_defaults.prose_blocks`)
    for doc, since in plans:
        stated_there, said = doc_defaults(doc)  # (a first run's readers read them: `first_reads`)
        if stated := [*(st for st in stated_there if not st.signed or not (
                defined[st.of] if st.of in defined else defined.setdefault(st.of, code.is_bare(st.of)))),
                      *(Stated(names, line, value, was=True) for names, line, value in literal_statements(doc.text.split("\n"))),
                      *(Stated((param,), line, value, of, near=(of,), was=True)  # a doctest's printed repr
                        for param, line, value, of in printed_statements(doc.text, code.defining_files, code.text))]:
            asks.append((doc, since, stated))
        if said:  # "uses SHA1 by default"
            worded.append((doc, since, said))
    source = _source_of(set(code.paths))
    if not asks:
        return (lambda: word_defaults(worded, index, tree.root, source, tree.read)) if worded else dict
    names = {n for _, _, stated in asks for st in stated for n in st.names}
    oldest = min(since.seq for _, since, _ in asks)  # None: more files than one grep takes (the whole tree)
    scope = windows(index, [(oldest, END)], source, MAX_SCOPE)[oldest, END]
    # where a setting or field is coded: the changed files holding a code-shaped name; a plain
    # word (`prefix`) only in the files defining what its sentence names
    keyed = {n for _, _, stated in asks for st in stated if st.keyed or st.held in ("word", "keys") for n in st.names}
    shaped = sorted(n for n in names if coded(n) or n in keyed)
    spelt = {n: _spellings(n) for n in names if n.startswith("-")}
    spoken = {st.names[0] for _, _, stated in asks for st in stated if st.near}  # a parameter a section speaks of: its
    signed = {st.of for _, _, stated in asks for st in stated if st.signed}  # a callable a signature names: where registered
    words = sorted({*shaped, *spoken, *signed, *(w for forms in spelt.values() for w in forms)})  # files too, still read as plain
    pool = ThreadPoolExecutor(max_workers=1)
    grep = pool.submit(git.grep_words, tree.root, ["HEAD"], words, exclude=EXCLUDES, paths=scope) if (
        words and scope != []) else None
    pool.shutdown(wait=False)  # its thread ends with the grep
    return lambda: _merged(_defaults_found(asks, names, keyed, shaped, spelt, words, grep.result() if grep else {},
                                           source, index, tree, code), word_defaults(worded, index, tree.root, source, tree.read))


def _merged(found: dict[str, list[ChangedRef]], more: dict[str, list[ChangedRef]]) -> dict[str, list[ChangedRef]]:
    """Both answers, a doc's line flagged once."""
    for path, refs in more.items():
        lines = {c.line for c in found.get(path, ())}
        found.setdefault(path, []).extend(c for c in refs if c.line not in lines)
    return {p: refs for p, refs in found.items() if refs}


def _defaults_found(asks: list[tuple[Doc, Commit, list[Stated]]], names: set[str], keyed: set[str],
                    shaped: list[str], spelt: dict[str, set[str]], words: list[str], found: dict[str, set[str]],
                    source: Callable[[str], bool], index: HistoryIndex, tree: Worktree,
                    code: Codebase) -> dict[str, list[ChangedRef]]:
    """`changed_defaults`' findings, from the grep's answer (`found`)."""
    found = {w: {p for p in paths if source(p)} for w, paths in found.items()}
    for path in code_files(tree.dirty):  # uncommitted edits: read as they are
        if file_ext(path) in PYTHON_EXTS or source(path):
            text = tree.read(path) or ""
            for word in {*re.findall(r"[A-Za-z_]\w*", text), *re.findall(r"[\w-]+", text)}.intersection({*words, *names}):
                found.setdefault(word, set()).add(path)
    holders = {n: paths for n, paths in found.items() if n in names and not n.startswith("-")}
    holders.update({n: {p for w in forms for p in found.get(w, ())} for n, forms in spelt.items()})
    near = {n for _, _, stated in asks for st in stated for n in st.names if _plain(n, keyed)}
    for st in (st for _, _, stated in asks for st in stated):  # a plain word: in the files of what its sentence names
        for name in st.names:
            if _plain(name, keyed):
                holders.setdefault(name, set()).update(
                    p for other in (*st.names, *st.near) if other != name and (other in near | set(shaped) or other in st.near)
                    for p in code.defining_files(other) if not is_test_path(p))
    asks = [(doc, since, _registered(stated, found, holders, tree, code)) for doc, since, stated in asks]
    out: dict[str, list[ChangedRef]] = {}
    known: dict[tuple[object, ...], str | None] = {}  # the code defaults now, read once for every doc
    for doc, since, stated in asks:
        changed = defaults_changed(stated, since, index, holders, tree.read, _touched(tree, index, since), known)
        nouns = {st.names[0] for st in stated if st.held == "const"}  # a noun read in a default constant: what it is the default of
        changed = [replace(c, ref=setting_of(tree.read(c.path) or "", c.ref)) if c.ref in nouns else c for c in changed]
        if changed:
            out.setdefault(doc.path, []).extend(changed)
    return out


def _registered(stated: list[Stated], found: dict[str, set[str]], holders: dict[str, set[str]], tree: Worktree,
                code: Codebase) -> list[Stated]:
    """`stated` with each default a signature states (`signed`) of a callable no file defines tied to the one function
    the code registers under its name (`signed_defaults.registered_as`; its files added to `holders`), the others
    dropped."""
    out = []
    for st in stated:
        if st.signed:  # (of a callable no file defines: `changed_defaults` dropped the others)
            targets = {t for p in sorted(found.get(st.of, ())) if not is_test_path(p) for t in registered_as(tree.read(p) or "", st.of)}
            target = targets.pop() if len(targets) == 1 else ""
            files = [p for p in code.defining_files(target) if not is_test_path(p)] if target else []
            if not files:
                continue
            holders.setdefault(st.names[0], set()).update(files)
            st = replace(st, names=(st.names[0], st.of, target), of=target)
        out.append(st)
    return out


def read_history(scans: Sequence[DocScan], index: HistoryIndex | None, head: Commit | None, code: Codebase,
                 dirty: frozenset[str], shallow: bool,
                 started: Defaults | None = None) -> dict[str, DocHistory]:
    """Each doc's last commit, and what history says of its names (`DocHistory`, by path): the
    removed ones (`missing`), the changed definitions and defaults (`changed`; `started`:
    `start_defaults`' answer for these docs, when started). Without history (no git, or a doc at
    a shallow clone's boundary) only members of the repository's modules and classes are checked."""
    out: dict[str, DocHistory] = {}
    no_history = list(scans) if index is None else []
    if index is not None:
        last = {s.doc.path: index.last_touch(s.doc.path) for s in scans}
        editing = {p for p, commit in last.items() if commit is None or p in dirty}
        by_path = {s.doc.path: s for s in scans}
        checked = [(by_path[doc.path], since) for doc, since in checked_docs([s.doc for s in scans], index, head, dirty, shallow)]
        no_history = [s for s in scans if shallow and (c := last[s.doc.path]) is not None and c.seq == 1]
        plans = [(s, since) for s, since in checked if s.candidates]
        asks = [(since, {c[1] for c in s.candidates if c[0].kind != "path"}, s.doc.path in editing, s.doc.path)
                for s, since in plans]
        plain = {(s.doc.path, c[1]): named_classes(r.name for r in s.refs) for s, _since in plans for c in s.candidates
                 if c[0].kind == "symbol" and c[0].source in ("span", "prose")}
        tree = Worktree(index.root, dirty)
        lines = {s.doc.path: named_lines(s.doc.text, s.candidates) for s, _since in plans}  # where a class-shaped name is written now
        declared = declared_by_docs(s.doc.text for s in scans)  # `.. class:: WebSupport`: the docs' own targets
        roles = {(s.doc.path, c[1]) for s, _since in plans for c in s.candidates
                 if c[0].source in ("role", "autodoc") and c[1].rsplit(".", 1)[-1] not in declared}
        presence = Presence(index.root, index, asks, dirty, plain, lines, roles)  # greps run while `changed_symbols` reads
        defaults_found = started or changed_defaults([(s.doc, since) for s, since in checked], index, tree, code)  # its grep too
        values_found = start_value_findings(index.root, {s.doc.path: v for s, _since in checked if (v := stated_values(
            s.doc.text))}, _source_of(set(code.paths)), tree.read, index.versions.text_at, EXCLUDES)  # and this one's
        symbols = changed_symbols(checked, index, tree, code.ancestry)
        written = directive_keywords.candidates(checked, tree.read, set(code.paths))  # `.. method:: f(strict=False)`
        unaccepted = unaccepted_keywords(checked, index, tree.read, dirty, code.defining_files, written)  # `run(main, debug=True)`
        unknown = unknown_members(checked, index, code, dirty)  # `def cb(retry_state): retry_state.last_outcome`: no such member
        required = required_written(checked, index, code, tree.read)  # `sample(iterable, k=1)` written, `k` required
        presence.go_on()  # its searches at the docs' earlier versions run while the defaults are read
        defaults, values = defaults_found(), values_found()
        shims = deprecated_paths({s.doc.path: s.refs for s, _since in checked}, code, tree.read, index)
        removed = split_removals(plans, presence.result(), index, code, set(dirty))
        removed = born_stale(plans, removed, plain, index, code, set(dirty))  # removed before the doc was written
        removed = since_written(plans, removed, index, code, set(dirty))  # a module's name lost since the doc wrote it
        removed = never_defined(plans, removed, index, code, declared)  # a module's name it never had while written
        for s in scans:
            p = s.doc.path
            gone = removed.get(p)
            passed = {passed_keyword(m.ref) or re.split(r"[=(]", m.ref)[0] for m in gone.missing} if gone else set()
            told = {c.line for c in defaults.get(p, ())}  # a default a line states: told once, as a stated default
            taking = {c.ref for c in unaccepted.get(p, ()) if c.what.startswith("unaccepted parameter ")}  # a directive's:
            # a signature stating what the callable no longer takes is told so, not "changed"
            changed = [c for c in symbols.get(p, ()) if (not c.what.startswith("keyword ") or c.what.split()[1] not in passed)
                       and not (c.what.startswith("default ") and c.line in told)
                       and not (c.what == "signature" and c.ref.split("(", 1)[0] in taking)]
            passed |= {c.what.split()[1] for c in changed if c.what.startswith("keyword ")}
            changed += [c for c in unaccepted.get(p, ()) if c.what.split()[2] not in passed]
            told_gone = {m.ref for m in gone.missing} if gone else set()  # (a member removed: told once, as removed)
            changed += [c for c in unknown.get(p, ()) if c.what.split()[2] not in told_gone]
            changed += [c for c in required.get(p, ()) if c.line not in {x.line for x in changed}]
            # (a keyword gone from a signature that the doc also names as removed: told once, as removed)
            out[p] = DocHistory(last[p], p in editing, gone.missing if gone else (),
                                [*changed, *defaults.get(p, ()), *values.get(p, ()), *shims.get(p, ())], gone.files if gone else {})
    for s in no_history:  # no history to tell: only members of the repository's modules and classes
        before = out.get(s.doc.path, DocHistory())
        out[s.doc.path] = DocHistory(before.commit, before.editing,
                                     [MissingRef(ref.ref, ref.line, proven=False) for i, (ref, lookup, scope) in enumerate(
                                         s.candidates) if scope and lookup not in {c[1] for c in s.candidates[:i] if c[2]}])
    return out


def checked_docs(docs: Sequence[Doc], index: HistoryIndex, head: Commit | None, dirty: frozenset[str],
                 shallow: bool) -> list[tuple[Doc, Commit]]:
    """The docs whose history is read, each with the commit it is checked against: its last
    commit, HEAD while it is being edited; not a doc last changed at a shallow clone's boundary
    (its real commit is cut off)."""
    last = {d.path: index.last_touch(d.path) for d in docs}
    return [(d, since) for d in docs if not (shallow and (c := last[d.path]) is not None and c.seq == 1)
            and (since := head if last[d.path] is None or d.path in dirty else last[d.path]) is not None]


def start_defaults(docs: Sequence[Doc], index: HistoryIndex, head: Commit | None, code: Codebase,
                   dirty: frozenset[str], shallow: bool) -> Defaults | None:
    """`changed_defaults` of these docs started in a forked worker now, before their references
    are resolved (`defaults_apart`: a first run over many docs), for `read_history(defaults=)`;
    None when not started."""
    return defaults_apart(changed_defaults, checked_docs(docs, index, head, dirty, shallow), index,
                          Worktree(index.root, dirty), code)


def _source_of(paths: set[str]) -> Callable[[str], bool]:
    """Where a default is coded: Python source outside the tests, and a config file a package
    ships (`option_defaults.shipped_config`: sqlfluff's `core/default_config.cfg`; not a
    repository's own `setup.cfg` or `tox.ini`, whose values are its tools')."""
    return lambda path: (bool(code_files([path])) and file_ext(path) in PYTHON_EXTS and not is_test_path(path)) \
        or shipped_config(path, paths)


def _plain(name: str, keyed: set[str]) -> bool:
    return not coded(name) and name not in keyed and not name.startswith("-")


def _spellings(option: str) -> set[str]:
    """The words an option (`--include-naming-hint`, `-j`) is written with in code."""
    key = option.lstrip("-")
    return {key, key.replace("-", "_"), key.replace("_", "-")} if len(key) > 1 else {option}


def _ancestors_of(ancestry: Ancestry, home: str) -> Callable[[Iterable[str]], set[str]]:
    return lambda names: ancestry.ancestors(names, home)


def _touched(tree: Worktree, index: HistoryIndex, since: Commit) -> Callable[[str], bool]:
    return lambda path: tree.changed_since(index, path, since)


def read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None
