"""Was a name in the code when the doc was last changed? (`Presence`): the evidence that a name a
doc uses and the code lacks now was removed, rather than never a reference (`record_removals`).

A name is looked for with `git grep` (whole words, fixed strings; docs, catalogs and binaries
left out: `NOT_CODE`), one process per distinct commit for every doc sharing it, two at a time:
at the doc's last commit, in the files touched since (the whole tree when more than `MAX_SCOPE`
did). A name that commit lacks is looked for at its parent too, in the files that commit
touched: a commit that removed a name from the code and updated the doc in the same change.
Answers are kept in `history.sqlite` (`grep_plan.Search`): those at a doc's commit grow with
HEAD, the parent searches (under the child's sha and `^`) and the earlier versions'
(`origin<doc's commit`) hold at every HEAD.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path

from noface_ctx import _git as git
from noface_ctx._filetypes import FILE_TYPES, bare, is_test_path
from noface_ctx._state import Memo, memo
from noface_ctx.datatypes import MissingRef
from noface_ctx.freshness.code_use import used_as_code
from noface_ctx.freshness.codebase import Codebase
from noface_ctx.freshness.declarations import text_defines
from noface_ctx.freshness.defined_then import declared_in, defines, module_level, role_target
from noface_ctx.freshness.definitions import replacements
from noface_ctx.freshness.deleted import deleted_module, module_left, removed_path
from noface_ctx.freshness.dropped_reexports import dropped_home
from noface_ctx.freshness.grep_plan import END, Search, SearchAsk, windows
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.judgement import UNCOMMITTED, missing_ref
from noface_ctx.freshness.launder_reach import Deep, by_doc, deeper, further_back, proves, reach_pairs
from noface_ctx.freshness.merges import merged_change
from noface_ctx.freshness.parameter_only import api_files
from noface_ctx.freshness.read_ahead import PYTHON_DECLARING, python_keyword, removal_reads, started, within_scope
from noface_ctx.freshness.references import DOC_EXTS, file_ext
from noface_ctx.freshness.scan import DocScan
from noface_ctx.freshness.star_reexports import star_homes

# code files changed from a doc's earlier version to its last commit beyond which that version
# is not searched (`Presence._unlaundered`): a bound on one search's cost that depends on the
# doc's own history only, so that a full run and a pre-commit run search the same
LAUNDER_SCOPE = 2000
MAX_SCOPE = 3000  # more files than this to grep at a commit: grep its whole tree instead
# never code: docs, images, translation catalogs (django's 1,241 `.po` files are a quarter of its
# text), archives and other binaries; leaving them out halves a whole-tree `git grep`
NOT_CODE = DOC_EXTS | bare(frozenset(e for e, row in FILE_TYPES.items() if row.kind == "asset")) | frozenset(
    "po pot mo gz bz2 xz zip tar jar whl ico woff woff2 ttf otf eot pdf dbf shp shx prj graffle pyc so dll".split())
EXCLUDES = tuple(f"*.{e}" for e in sorted(NOT_CODE))

Held = dict[str, tuple[Commit, set[str]]]  # name -> (the commit it was found at, files holding it there)


@dataclass(frozen=True, slots=True)
class Removals:
    """One doc's removed names, and the files that defined them (the doc's line by file)."""

    missing: list[MissingRef]
    files: dict[str, int]


class Presence:
    """The search, started: the `git grep`s at the docs' commits run in the background while the
    caller does other work; `result()` collects them and looks at parents."""

    def __init__(self, root: str | Path, index: HistoryIndex, asks: Sequence[tuple[Commit, set[str], bool, str]],
                 dirty: Iterable[str] = (), plain: Mapping[tuple[str, str], frozenset[str]] | None = None,
                 lines: Mapping[str, Mapping[str, str]] | None = None, roles: Iterable[tuple[str, str]] = ()) -> None:
        """`asks`: per doc, the commit it is checked against, the names, whether it is being
        edited, its path. `dirty`: files with uncommitted edits, searched at every commit too
        (the edits may be what removed a name). `plain`: (doc, name) → the classes the doc names,
        for names a doc uses only as a plain literal (``template_postgis``; not a role's target):
        followed into that doc's past only as a field of one of them (``needs_raw_stack`` of
        ``BaseRule``: a database or a setting can share a name with code that once was)."""
        self.plain, self.lines = dict(plain or {}), dict(lines or {})  # lines: doc -> name -> the line naming it now
        self.roles = set(roles)  # (doc, name): a role's or autodoc's target the docs do not declare themselves
        self.root, self.index, self.asks = root, index, list(asks)
        wanted: dict[str, set[str]] = {}
        for at, names, _editing, _doc in self.asks:
            wanted.setdefault(at.sha, set()).update(names)
        scopes = _touched_since(index, wanted)
        edited = code_files(dirty)
        self._pool = ThreadPoolExecutor(max_workers=2)  # each `git grep` is a process: two at a time
        # the files touched since (kept for this HEAD, and grown at the next), and apart, the
        # edited files not among them (under a key naming them): a pre-commit run searches only those
        searches: dict[str, SearchAsk] = {}
        self._keys: dict[str, list[str]] = {}
        for sha, names in wanted.items():
            scope = scopes.get(sha)
            searches[sha] = (sha, names, scope, True)
            self._keys[sha] = [sha]
            if scope is not None and (extra := sorted(set(edited) - set(scope))):
                key = f"{sha}+{hashlib.sha1(chr(0).join(extra).encode()).hexdigest()[:16]}"
                searches[key] = (sha, names, extra, False)
                self._keys[sha].append(key)
        self._first = Search(root, index, searches, self._pool, EXCLUDES)
        self._rest: Callable[[], list[Held]] | None = None  # `go_on`'s answer

    def result(self) -> list[Held]:
        """For each ask: the names found, with the commit and files."""
        try:
            return (self._rest or self.go_on())()
        finally:
            self._pool.shutdown()

    def go_on(self) -> Callable[[], list[Held]]:
        """Collect the searches at the docs' commits and those at their parents, and start those
        at the docs' earlier versions (`_unlaundered`): the caller works on meanwhile, then
        calls `result()`."""
        try:
            first = self._first.result()
            found: dict[str, dict[str, set[str]]] = {}
            for sha, keys in self._keys.items():
                into = found[sha] = {}
                for key in keys:
                    for name, files in first.get(key, {}).items():
                        into.setdefault(name, set()).update(files)
            out: list[Held] = [{n: (at, found[at.sha][n]) for n in names if found[at.sha].get(n)}
                               for at, names, _, _ in self.asks]
            narrow: dict[str, SearchAsk] = {}
            parents: dict[str, Commit] = {}
            for (at, names, editing, _doc), held in zip(self.asks, out, strict=True):
                parent = self.index.parent(at) if not editing else None
                lacking = {n for n in names if n not in held}
                if parent is None or not lacking:
                    continue
                parents[at.sha] = parent
                scope = narrow.setdefault(at.sha + "^", (parent.sha, set(), code_files(self.index.files_of(at.seq)), False))
                scope[1].update(lacking)
            found = Search(self.root, self.index, narrow, self._pool, EXCLUDES).result()
            for (at, _names, _editing, _doc), held in zip(self.asks, out, strict=True):
                for n, files in found.get(at.sha + "^", {}).items():
                    if files and n not in held:
                        held[n] = (parents[at.sha], files)
            finish = self._unlaundered(out)
        except BaseException:
            self._pool.shutdown()
            raise
        self._rest = lambda: (finish(), out)[1]
        return self._rest

    def _unlaundered(self, out: list[Held]) -> Callable[[], None]:
        """No laundering: a name a doc still uses, found neither at the doc's commit nor its parent, is
        looked for where the doc *started* using it — the oldest of its earlier versions (6 at most, through
        renames and format conversions; further for a class's field: `launder_reach`) that hold the word
        without a break — so that a later edit (a typo fixed, a conversion to Markdown) keeps it a reference."""
        origins: dict[str, tuple[Commit, Commit, set[str]]] = {}  # "origin<doc's commit" -> both, the names
        asked: list[dict[str, list[str]]] = []  # per ask: name -> its keys in `origins`
        classes, deep = by_doc(self.plain), list[Deep]()  # doc -> plain names' classes; the docs read further back
        words = [{n for n, (c, files) in held.items() if n in names and (d, n) in self.roles and not self._in_code(c, n, files)}
                 for (_at, names, _e, d), held in zip(self.asks, out, strict=True)]  # only in strings there ("Context impl")
        begun = started(self.index, [(d, at, {n for n in names if n not in held} | worded) for (at, names, _e, d), held, worded
                                     in zip(self.asks, out, words, strict=True)])  # each doc's versions read back, in rounds
        for (at, _names, _editing, doc), worded, (versions, lacking, start) in zip(self.asks, words, begun, strict=True):
            deep += deeper(self.index, doc, at, lacking - worded, classes, len(versions), len(asked), self.lines.get(doc, {}))
            for n, commit in start.items():
                origins.setdefault(f"{commit.sha}<{at.sha}/{LAUNDER_SCOPE}", (commit, at, set()))[2].add(n)
            asked.append({n: [f"{commit.sha}<{at.sha}/{LAUNDER_SCOPE}"] for n, commit in start.items()})
        # a file not touched from the origin to the doc's commit is one version at both: it was
        # searched at the doc's commit (or the origin's version is the one now). A window of more
        # than `LAUNDER_SCOPE` files is not searched (its names kept as not found there)
        unsettled = {key: (origin.seq, at.seq) for key, (origin, at, names) in origins.items()
                     if names - self.index.greps(key, names).keys()}
        found_windows = windows(self.index, {*unsettled.values(), *reach_pairs(deep)}, _is_code, LAUNDER_SCOPE)
        lined = further_back(self.index, deep, found_windows, (origins, asked, unsettled), LAUNDER_SCOPE)
        searches: dict[str, SearchAsk] = {
            key: (origin.sha, names, found_windows.get(unsettled[key]) or [] if key in unsettled else [], False)
            for key, (origin, at, names) in origins.items()}
        search = Search(self.root, self.index, searches, self._pool, EXCLUDES) if searches else None

        def finish() -> None:  # (the search's answers, once it is done)
            found = search.result() if search is not None else {}
            for place, ((_at, _names, _editing, doc), keys, held) in enumerate(zip(self.asks, asked, out, strict=True)):
                for n, key, deep in ((n, key, i > 0) for n, ks in keys.items() for i, key in enumerate(ks)):
                    files, at = found.get(key, {}).get(n), origins[key][0]
                    if files and n not in held and proves(partial(self._text, at.sha), files, n, self.plain.get((doc, n)), deep,
                                                          (place, n, key) in lined):
                        held[n] = (at, files)
                    elif files and n in words[place] and any(defines(self.index, at.sha, p, n, member=True) for p in sorted(
                            files)[:20] if not is_test_path(p)):  # only in strings at the doc's commit, defined (not in tests) before
                        held[n], words[place] = (at, files), words[place] - {n}
        return finish

    def _in_code(self, at: Commit, name: str, files: set[str]) -> bool:
        """Whether `name` is code in one of `files` at `at` (an import, a call, a definition: anything but
        a Python string or comment); many files, or a file in another language: taken as yes."""
        if len(files) > 20 or any(file_ext(p) not in PYTHON_DECLARING for p in files):
            return True
        return any(used_as_code(self._text(at.sha, p), name) for p in sorted(files))

    def _text(self, sha: str, path: str) -> str:
        return self.index.versions.text_at(sha, path) or ""


@lru_cache(maxsize=1 << 16)
def _is_code(path: str) -> bool:
    return file_ext(path) not in NOT_CODE


def _touched_since(index: HistoryIndex, shas: Iterable[str]) -> dict[str, list[str]]:
    """sha -> code files touched at that commit or after, for the commits with at most
    `MAX_SCOPE` of them (the others: the whole tree), in one walk back from HEAD."""
    commits = {sha: c for sha in shas if (c := index.commit(sha)) is not None}
    found = windows(index, {(c.seq, END) for c in commits.values()}, _is_code, MAX_SCOPE)
    return {sha: files for sha, c in commits.items() if (files := found[c.seq, END]) is not None}


def code_files(paths: Iterable[str]) -> list[str]:
    return sorted(p for p in paths if file_ext(p) not in NOT_CODE)


def record_removals(plans: Sequence[tuple[DocScan, Commit]], found_at: Sequence[Held], index: HistoryIndex,
                    code: Codebase, dirty: set[str]) -> dict[str, Removals]:
    """Split each doc's unresolved names (`plans`: the doc's scan, the commit it is checked
    against) into removed ones — in the code at that commit or its parent (`found_at`, from
    `Presence.result`), with the commit that removed them and the name that took their place
    when history tells — and never-references. By doc path: the removed names and the files
    they were defined in. `dirty`: files with uncommitted edits."""
    out: dict[str, Removals] = {}
    index.prefetch(removal_reads(plans, found_at, index))  # the versions `declared_in` reads below, in one pass
    for (s, since), found in zip(plans, found_at, strict=True):
        missing: list[MissingRef] = []
        defined_in: dict[str, int] = {}
        told, before, last = set(), 0, ""  # lookups reported: told once, by the first of their candidates proved removed
        for ref, lookup, scope in s.candidates:
            told.update([last] if len(missing) > before else [])
            before, last = len(missing), lookup
            if lookup in told and ref.kind != "path":
                continue  # (another reference of it, in another scope, is tried only while none was proved removed)
            if ref.kind == "path":
                missing.extend(removed_path(ref, lookup, since, index))
                continue
            if lookup not in found:  # never in the code: not a reference, unless its module once defined it
                gone = _removed_before(index, lookup, scope, since) if module_level(ref, lookup) else None
                missing.extend(deleted_module(ref, lookup, scope, index, dirty) if gone is None else [missing_ref(
                    ref, lookup, gone[1] if gone[1] and code.known(gone[1]) else None, gone[0].label())])
                continue
            at, files = found[lookup]
            member = bool(scope) or "." in ref.name or ref.kind == "member"
            top = module_level(ref, lookup)
            within = within_scope(index, files, scope, at)  # scope: paths now, files: paths then
            within = within or [p for p in star_homes(index, at.sha, scope, lookup) if p in files]  # `*` imports then
            modules = [p for p in scope if p.endswith((f"/{lookup}.py", f"/{lookup}/__init__.py"))]  # `pkg.lookup`'s files
            within = [*within, *(p for p in modules if p not in within and index.existed(p, at.seq))]  # need not hold the word
            if python_keyword(ref):
                within = [p for p in within if file_ext(p) in PYTHON_DECLARING]
            held = declared_in(index, lookup, at.sha, within, member=member, top=top)  # scope: paths now, files: paths then
            held = held or (role_target(index, ref, lookup, at.sha, files, member=member, top=top) if scope else set())
            held = api_files(held, ref, lookup, scope, partial(index.versions.text_at, at.sha), s.doc.text)  # not a parameter only
            removals = [r for path in sorted(held) if (r := _removal(index, lookup, path, at, member=member, top=top, dirty=bool(
                dirty & {path, index.path_now(path, at.seq)}))) is not None]  # gone with its last definition:
            removals += [r for p in modules if held.intersection(modules) and (
                r := module_left(index, p, at.seq)) is not None]  # a module: its last file gone
            removal = max(removals, key=lambda r: (r[0].seq if r[0] is not None else 1 << 62, bool(r[1]))) if removals else None
            if removal is not None:
                removal = _last_removal(index, lookup, removal, scope, member=member, top=top, dirty=dirty)
                if not removal[1] and scope and not member_of_class(scope, ref.name, lookup):
                    removal = (removal[0], _new_home(index, code, lookup, removal[0], held))
            if removal is None and top and not held:  # a module's name its file no longer defined at the doc's commit
                removal = _removed_before(index, lookup, scope, at)
            if removal is None:  # still defined where it was: never removed (it only stopped being a word elsewhere)
                missing.extend(deleted_module(ref, lookup, scope, index, dirty))
                continue
            suggestion = removal[1] if removal[1] and code.known(removal[1].rsplit(".", 1)[-1]) else None
            missing.append(missing_ref(ref, lookup, suggestion, removal[0].label() if removal[0] else UNCOMMITTED))
            defined_in.update({path: defined_in.get(path, ref.line) for path in held})
        if missing:
            out[s.doc.path] = Removals(missing, defined_in)
    return out


def _last_removal(index: HistoryIndex, name: str, removal: tuple[Commit | None, str | None],
                  scope: Sequence[str], *, member: bool, top: bool, dirty: set[str]) -> tuple[Commit | None, str | None]:
    """The removal of the *last* definition: while the commit that took `name` out of a file
    defined it in another (a move, within `scope` when a class's hierarchy bounds it: flask's
    sans-io split moved `register_blueprint` from `Flask` to its base `App`), follow it there
    (3 moves at most); the commit and suggestion of the last removal."""
    for _ in range(3):
        commit = removal[0]
        dest = _moved_to(index, name, commit, scope) if commit is not None else None
        if dest is None or commit is None or (later := _removal(index, name, dest, commit, member=member, top=top, dirty=bool(
                dirty & {dest, index.path_now(dest, commit.seq)}))) is None:  # `dest`'s edits took it out: commit None
            break
        removal = later
    return removal


# a commit that removed several documented names is diffed once, not once per name
_DIFFS: Memo[tuple[str, str], str] = memo("freshness-commit-diffs", maxsize=4)


def _python_diff(root: str, sha: str) -> str | None:
    """`sha`'s diff of Python files against its first parent (memoised), or None when git fails."""
    diff = _DIFFS.get((root, sha))
    if diff is None:
        try:
            diff = _DIFFS.put((root, sha), git.run(root, "diff", "-M", "-U0", "--no-color", "--no-ext-diff",
                                                   f"{sha}^", sha, "--", "*.py", "*.pyi"))
        except git.GitError:
            return None
    return diff


def member_of_class(scope: Sequence[str], name: str, lookup: str = "") -> bool:
    """Whether a missing name is a class's member (`Flask.register_blueprint`: its scope is the
    class's hierarchy) rather than a module's (`flask.testing.FlaskCliRunner`, also when the doc
    goes on to its member: `lookup` `Checker` of `pkg.Checker.check`)."""
    parts = name.split(".")
    parts = parts[:parts.index(lookup) + 1] if lookup in parts else parts
    return len(parts) > 1 and parts[-2][:1].isupper()


def _new_home(index: HistoryIndex, code: Codebase, name: str, commit: Commit | None, held: set[str]) -> str | None:
    """Where a module's name went when `commit` took it out of the module: the dotted module of the file that commit added
    its definition to, if still there (`flask.cli.FlaskCliRunner`, moved out of `flask.testing`; from a private module
    a package re-exports: `Codebase.public_name`); else the module a dropped re-export (`held`) took it from."""
    dest = _moved_to(index, name, commit, ()) if commit is not None else None
    if dest is None or commit is None:
        return dropped_home(index, code, name, commit, held)
    now = index.path_now(dest, commit.seq)
    return code.public_name(now, name) if now and code.module_defines(now, name) else None


def _moved_to(index: HistoryIndex, name: str, commit: Commit, scope: Sequence[str]) -> str | None:
    """A Python file `commit` (a merged branch's: its merge, all of the branch) added a definition of `name` to,
    or renamed to a path defining it (`git mv httpx/_transports/mock.py httpx/testing.py`: no line added);
    in `scope` when given; or None."""
    sha = (index.latest(commit.seq + 1) or commit).sha
    diff = _python_diff(str(index.root), sha)
    if diff is None:
        return None
    added = re.compile(rf"^\+[ \t]*(?:(?:async[ \t]+)?(?:def|class)[ \t]+{re.escape(name)}\b|{re.escape(name)}[ \t]*(?::[^=\n]*)?=(?!=))")
    path = None
    for line in diff.split("\n"):
        dest = line[len("rename to "):] if line.startswith("rename to ") else ""
        if dest and (not scope or dest in scope or index.path_now(dest, commit.seq) in scope) and defines(
                index, sha, dest, name, member=True):
            return dest
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
        elif path is not None and added.match(line) and (not scope or path in scope
                                                          or index.path_now(path, commit.seq) in scope):
            return path  # `scope` holds paths as they are now
    return None


def _removed_before(index: HistoryIndex, name: str, scope: Sequence[str], at: Commit) -> tuple[Commit, str | None] | None:
    """The commit before `at` that took the module-level `name` out of a module file of `scope`
    (its last 12 versions read, newest first), with the name that took its place there: django's
    `fe914341c8` dropped `check_password` from `auth/models.py` and edited the doc importing it
    in the same change; a class renamed before a doc's rewording keeps its suggestion. A merge
    names the commit of its branch that took the name out (`merges.merged_change`)."""
    for path in (p for p in scope if p.endswith(".py")):
        newer: tuple[Commit, str | None] | None = None
        for commit, then in index.earlier(path, at.seq + 1, limit=12):
            text = index.versions.text_at(commit.sha, then)
            if text is not None and text_defines(text, name, top=True):
                if newer is None:
                    return None
                took = merged_change(index, newer[0], then, partial(_lost, index, then, name))  # a merge: its branch's commit
                return took, _replacement(index, name, took, {p for p in (then, newer[1]) if p})
            newer = (commit, then)
    return None


def _lost(index: HistoryIndex, path: str, name: str, sha: str) -> bool:
    """Whether `path` at commit `sha` no longer defines the module-level `name`."""
    return not text_defines(index.versions.text_at(sha, path) or "", name, top=True)


def _removal(index: HistoryIndex, name: str, path: str, since: Commit, *, member: bool = False,
             top: bool = False, dirty: bool = False) -> tuple[Commit | None, str | None] | None:
    """(the commit after `since` that removed the word `name` from `path` — followed through
    renames —, the identifier that took its place there or None: `definitions.replacements` in
    that commit's diff), or None when not found. `dirty`: `path` has uncommitted edits, which
    are where the name went when no commit removed it (the commit is then None)."""
    versions = index.path_history(path, since.seq)
    current = versions[-1][1] if versions else path
    if current is not None and (not versions or defines(index, versions[-1][0].sha, current, name, member=member, top=top)):
        if not dirty:  # still in the committed file
            return None
        diff = git.run(index.root, "diff", "-U0", "--no-color", "--no-ext-diff", "HEAD", "--", current, check=False)
        return None, next((c for c, _ in replacements(diff, name).most_common() if c != name), None)

    def absent(i: int) -> bool:
        c, p = versions[i]
        return p is None or not defines(index, c.sha, p, name, member=member, top=top)

    lo, hi = 0, len(versions) - 1  # the first version without the word
    while lo < hi:
        mid = (lo + hi) // 2
        if absent(mid):
            hi = mid
        else:
            lo = mid + 1
    commit, new_path = versions[lo]
    old_path = versions[lo - 1][1] or path if lo else path
    commit = merged_change(index, commit, old_path, lambda sha: not defines(index, sha, old_path, name, member=member, top=top))
    return commit, _replacement(index, name, commit, {p for p in (old_path, new_path) if p})


def _replacement(index: HistoryIndex, name: str, commit: Commit, paths: set[str]) -> str | None:
    """The identifier that took `name`'s place in `commit`'s diff of `paths`, or None."""
    try:
        diff = git.run(index.root, "diff", "-M", "-U0", "--no-color", "--no-ext-diff", f"{commit.sha}^", commit.sha,
                       "--", *sorted(paths))
    except git.GitError:
        return None
    return next((cand for cand, _ in replacements(diff, name).most_common() if cand != name), None)
