"""A doc born stale (`born_stale`): a name the doc uses that nothing defines now and that the code
never held while the doc was in the repository (at its commit, its parent, its earlier versions),
because the repository had removed it before the doc was written (a guide added in 2024 with an
example calling a grammar class removed in 2023). Whether a name is stale must not depend on the
doc's age. And a field of a class the doc names, written as a plain literal, stays checked past
the bounds `presence` reads the doc's past within (``needs_raw_stack`` under six edits and two moves).

Where to look is a grid of commits on the first-parent chain (`anchors`: multiples of a
power-of-two step of about an eighth of the history, so the grid stays put as HEAD moves and its
`git grep` answers are kept and shared by every doc; for a doc born within the first step, the
step halved until a grid commit comes before its birth): three grid commits, each twice as far back
as the one before, before the doc was born (its first version, through renames) — in the Python
files changed from there to the doc's birth (a definition gone by then was in one; at most
`BORN_SCOPE`), in a member's scope, or, for a plain field, in the files of the classes the doc
names — or before its commit for a field. Where a file *wrote* the definition there, the commit
that removed it is found and blamed as for any removed name (`presence.record_removals`, from the
grid commit), and kept when it came before the doc was born, or, for a field, when the doc held
the word just before it and ever since. A member's scope is today's paths, looked for at the grid
commit where they were then (`path_then`: a src layout's move followed back); a package that only
imported the name from its own module (`from webargs.core import Arg` in `webargs/__init__.py`)
defined it there. A doc born in the merge that also brought the removal in was born after it when,
on the merged branch, the commit writing the doc descends from the one removing the name (webargs'
#62: `Arg` removed on 2015-09-20, framework_support.rst written with `from webargs import Arg` on
the 27th); not when one commit did both (a note written with the removal).

Looking further back than the doc asks for care: only Python definitions outside tests and demo
scripts count (a bundled JavaScript library's `encodeURIComponent`, a test's `MyRenderer`, an
`examples/` script's keyword are no API), written (not
an import, not `self.x =`); a bare name must be shaped like code (`fetchmany` is PEP 249's as
much as anyone's); a name the doc also writes as a library's (`logging.getLogger`), in a version
note or with Sphinx's `!`, or where its module context is another package's, is never one; and a
name the doc writes only as a plain literal is followed only where it was defined right in the
body of a class the doc names (``needs_raw_stack``, a field of ``BaseRule``; not
``password_reset``, a URL name and a function removed years before).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from noface_ctx import _git as git
from noface_ctx._filetypes import is_test_path
from noface_ctx.freshness.ancestry import in_class_body
from noface_ctx.freshness.code_words import PYTHON_EXTS
from noface_ctx.freshness.codebase import Codebase
from noface_ctx.freshness.grep_plan import Search, SearchAsk, windows
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.merges import chain_seq, merged_change
from noface_ctx.freshness.presence import EXCLUDES, Held, Removals, record_removals
from noface_ctx.freshness.references import EXTERNAL_NAMES, Reference, codeish, file_ext
from noface_ctx.freshness.scan import DocScan
from noface_ctx.freshness.star_reexports import reexported_from
from noface_ctx.freshness.uptake import is_use, took_up

GRID_PARTS = 8  # the grid cuts the history into about this many stretches
ANCHORS = 3  # grid commits searched before a doc was born, newest first
BORN_SCOPE = 500  # Python files (tests aside) changed from a grid commit to a doc's birth beyond which it is not searched there
SOURCE_READS = 8  # files read at a grid commit for one name: a word held more widely is a common one
ORIGIN_LIMIT = 64  # versions read back to a doc's first one: a doc with more is not born recently
FIELD, OTHER, UPTAKE = 0, 1, 2  # the names looked for: a class's fields, the others, those taken up later (UPTAKE + n)


def anchors(index: HistoryIndex, before: int) -> list[Commit]:
    """The grid commits searched for a doc whose commit is at position `before`, newest first."""
    last = index.latest()
    if last is None:
        return []
    step = 1 << (max(1, last.seq // GRID_PARTS) - 1).bit_length()  # a power of two >= an eighth
    while step > 1 and (before - 1) // step == 0:  # born within the first step: a finer grid there (halved,
        step //= 2  # its commits still multiples of a power of two, shared by every doc born that early)
    out: list[Commit] = []
    for _ in range(ANCHORS):  # the last multiple of step, of 2 steps below it, of 4 steps below that
        before = (before - 1) // step * step
        commit = index.latest(before + 1) if before > 0 else None
        if commit is None:
            break
        out.append(commit)
        step *= 2
    return out


def born_stale(plans: Sequence[tuple[DocScan, Commit]], removed: dict[str, Removals],
               plain: Mapping[tuple[str, str], frozenset[str]], index: HistoryIndex, code: Codebase,
               dirty: set[str]) -> dict[str, Removals]:
    """`removed` (by doc path, from `record_removals`) with the names each doc of `plans` uses
    that nothing defines now and that a grid commit before the doc's defined: one `git grep` per
    grid commit for every doc's names, and the removal found as `record_removals` finds it."""
    # a doc's scan with its plain fields, its other names or those it took up later, the grid commits they are
    # looked for at, and which (FIELD, OTHER, or UPTAKE + n: a doc's n-th group of names taken up at one version)
    left: list[tuple[DocScan, list[Commit], int]] = []
    uptaken: dict[tuple[str, str], tuple[list[tuple[Commit, str]], tuple[Commit, str]]] = {}  # (doc, name) -> since
    versions: dict[str, list[tuple[Commit, str]]] = {}  # by doc: its earlier versions, newest first
    births: dict[str, tuple[Commit, str]] = {}  # by doc: its first version and its path then
    broad: dict[str, tuple[Commit, set[str], set[int]]] = {}  # grid commit -> names, when the docs asking were born
    narrow: dict[str, tuple[Commit, set[str], set[str]]] = {}  # grid commit -> names looked for in these files only
    for s, since in plans:
        reported = {(m.ref, m.line) for m in removed[s.doc.path].missing} if s.doc.path in removed else set()
        outside = {r.name.rsplit(".", 1)[-1] for r in s.refs if "." in r.name and (  # `logging.getLogger`: the library's
            r.name.split(".", 1)[0] in EXTERNAL_NAMES or code.names_a_standard_module(r.name))}
        told = {c[1] for c in s.candidates if (c[0].ref, c[0].line) in reported}  # a lookup is reported once
        todo = [c for c in s.candidates if c[0].kind != "path" and c[1] not in told
                and c[0].source != "autodoc" and c[1] not in outside and (c[2] or codeish(c[1]))]
        if not todo or _versions(index, s.doc.path) > ORIGIN_LIMIT:
            continue  # a doc changed that often is not read back (its own versions alone say so: one query)
        lines, foreign = aside(s.doc.text, code)
        todo = [c for c in todo if c[0].line not in lines and c[1] not in foreign]
        earlier = index.earlier(s.doc.path, since.seq, limit=ORIGIN_LIMIT) if todo else []
        if not todo or len(earlier) >= ORIGIN_LIMIT:  # too long a history to read back: no telling
            continue
        versions[s.doc.path] = earlier
        born = earlier[-1][0] if earlier else since  # the doc's first version, through renames
        births[s.doc.path] = earlier[-1] if earlier else (since, s.doc.path)
        fields = tuple(c for c in todo if (s.doc.path, c[1]) in plain)
        others = tuple(c for c in todo if c not in fields)  # removed before the doc was born, or no finding
        homes = {p for c in fields[:1] for cls in sorted(plain[s.doc.path, c[1]]) for p in code.defining_files(cls)}
        groups = [(fields, anchors(index, since.seq) if homes else [], born, FIELD), (others, anchors(index, born.seq), born, OTHER)]
        ups = took_up(index, since, s.doc.path, earlier, [c[1] for c in others if is_use(c[0], c[2], code.importable)])
        for n, up in enumerate(sorted(set(ups.values()), key=lambda v: v[0].seq)):
            uses = tuple(c for c in others if ups.get(c[1]) == up and is_use(c[0], c[2], code.importable))
            groups.append((uses, anchors(index, up[0].seq), up[0], UPTAKE + n))
            uptaken.update(((s.doc.path, c[1]), ([v for v in earlier if v[0].seq >= up[0].seq], up)) for c in uses)
        for cs, grid, start, kind in groups:
            if cs and grid:
                left.append((replace(s, candidates=cs), grid, kind))
            for commit in grid if cs else ():  # a field in the files of the classes the doc names, a member in its scope
                for c in cs:
                    if c[2] or c in fields:
                        ask = narrow.setdefault(commit.sha, (commit, set(), set()))
                        ask[1].add(c[1])
                        ask[2].update(path_then(index, p, commit.seq) for p in c[2] or homes)  # paths now, as they were then
                    else:
                        ask_b = broad.setdefault(commit.sha, (commit, set(), set()))
                        ask_b[1].add(c[1])
                        ask_b[2].add(start.seq)
    if not broad and not narrow:
        return removed
    # a name defined at a grid commit and gone where a doc was born: its file changed in between
    spans = windows(index, {(c.seq + 1, b) for c, _n, borns in broad.values() for b in borns}, _python_source, BORN_SCOPE)
    asks: dict[str, SearchAsk] = {}
    for sha, names, files in [*((sha, names, {f for b in borns for f in spans[commit.seq + 1, b] or ()})  # too wide a
                                for sha, (commit, names, borns) in broad.items()),  # window (over BORN_SCOPE): not searched
                              *((sha, names, homes) for sha, (_c, names, homes) in narrow.items())]:
        if files:  # the same files at the same commit: one search
            asks.setdefault(f"{sha}+{_digest(files)}", (sha, set(), sorted(files), False))[1].update(names)
    pool = ThreadPoolExecutor(max_workers=2)
    try:
        answers = Search(index.root, index, asks, pool, EXCLUDES).result()
    finally:
        pool.shutdown()
    found: dict[str, dict[str, set[str]]] = {}  # grid commit -> name -> files holding it
    for key, hits in answers.items():
        into = found.setdefault(key.split("+", 1)[0], {})
        for name, files in hits.items():
            into.setdefault(name, set()).update(files)
    out = dict(removed)
    sources: dict[tuple[str, str, tuple[str, ...]], set[str]] = {}  # (grid commit, name, scope) -> defining files

    def defining(at: Commit, c: tuple[Reference, str, tuple[str, ...]], files: set[str]) -> set[str]:
        key = (at.sha, c[1], c[2])  # a name many docs use is read once
        if key not in sources:
            sources[key] = _source(index, at, c, files)
        return sources[key]

    kinds = range(max((kind for _s, _g, kind in left), default=OTHER) + 1)
    for k, kind in ((k, kind) for k in range(ANCHORS) for kind in kinds):  # newest grid commits first
        plans_k: list[tuple[DocScan, Commit]] = []
        held_k: list[Held] = []
        lookups: dict[tuple[str, str, int], str] = {}  # (doc, ref, line) -> the name
        for s, grid, of in left:
            at = grid[k] if k < len(grid) else None
            if at is None or of != kind:
                continue
            hits = found.get(at.sha, {})
            lookups.update(((s.doc.path, c[0].ref, c[0].line), c[1]) for c in s.candidates)
            held = {c[1]: (at, files) for c in s.candidates if hits.get(c[1]) and (files := defining(at, c, hits[c[1]])) and (
                (s.doc.path, c[1]) not in plain or any(in_class_body(index.versions.text_at(at.sha, p) or "", c[1], plain[
                    s.doc.path, c[1]]) for p in sorted(files)[:3]))}
            if held:
                plans_k.append((replace(s, candidates=tuple(c for c in s.candidates if c[1] in held)), at))
                held_k.append(held)
        for path, more in record_removals(plans_k, held_k, index, code, dirty).items():
            before = out.get(path)
            gone = []
            for m in more.missing:  # (a name the doc took up later: written after the removal when its uptake was)
                word = lookups[path, m.ref, m.line]
                then, birth = uptaken.get((path, word), (versions[path], births[path]))
                if m.commit and (seq := _seq(index, m.commit)) is not None and _unwritten_or_kept(
                        index, then, seq, word, kind == FIELD, (birth, m.commit.split(" ", 1)[0])):
                    gone.append(m)
            out[path] = Removals([*(before.missing if before else ()), *gone], {**more.files, **(before.files if before else {})})
        settled = {(p, m.ref, m.line) for p, r in out.items() for m in r.missing}
        done = {(s.doc.path, c[1]) for s, _grid, _of in left for c in s.candidates if (s.doc.path, c[0].ref, c[0].line) in settled}
        left = [(replace(s, candidates=rest), grid, of) for s, grid, of in left
                if (rest := tuple(c for c in s.candidates if (s.doc.path, c[1]) not in done))]
    return out


def _source(index: HistoryIndex, at: Commit, candidate: tuple[Reference, str, tuple[str, ...]],
            files: Iterable[str]) -> set[str]:
    """The files that count as defining a candidate's name at `at`: Python files, tests aside (a
    test's `MyRenderer` is no API; a JavaScript file's words are no definitions), in its scope
    (a member's class hierarchy, a module's file), that write its definition — a `def`, a
    `class`, an assignment or a parameter; not only an import (`from docutils.statemachine import
    ViewList`: the library's name) nor an instance's attribute (pydicom's `self.PixelData = ...`, a
    DICOM element any dataset may hold)."""
    name, scope = candidate[1], candidate[2]
    word = re.escape(name)
    written = re.compile(rf"^[ \t]*(?:(?:async[ \t]+)?def[ \t]+{word}\b|class[ \t]+{word}\b|{word}[ \t]*(?::[^=\n]+)?=(?!=))"
                         rf"|[(,][ \t]*\*{{0,2}}{word}[ \t]*(?::[^=,)\n]+)?[=,)]", re.M)
    imported = re.compile(rf"^[ \t]*(?:from[ \t]+\S+[ \t]+)?import\b(?:[^\n]*|[ \t]*\([^)]*)\b{word}\b", re.M)
    out: set[str] = set()
    readable = [p for p in sorted(files) if _python_source(p)
                and (not scope or p in scope or index.path_now(p, at.seq) in scope)]
    for p in readable[:SOURCE_READS]:  # a few definitions are enough to blame a removal: a few files read
        text = index.versions.text_at(at.sha, p) or ""
        if written.search(text) and not imported.search(text):
            out.add(p)
        elif (home := reexported_from(index, at.sha, p, text, name)) and written.search(
                home_text := index.versions.text_at(at.sha, home) or "") and not imported.search(home_text):
            out.add(p)  # a package's `from .core import Arg`: the name it offered, written in its own module
    return out


def path_then(index: HistoryIndex, path: str, seq: int) -> str:
    """Where the file now at `path` was at commit `seq`: the renames onto it since followed back
    (webargs' `src/webargs/__init__.py` was `webargs/__init__.py` until the 2019 src layout)."""
    cur, after = path, 1 << 62
    for _ in range(8):  # a file renamed more often than this is followed no further
        row = index.db.execute("SELECT seq, old FROM touches WHERE path = ? AND seq > ? AND seq < ? AND old IS NOT NULL "
                               "AND old != '' AND old != path ORDER BY seq DESC LIMIT 1", (cur, seq, after)).fetchone()
        if row is None:
            break
        after, cur = int(row[0]), str(row[1])
    return cur


def _unwritten_or_kept(index: HistoryIndex, versions: list[tuple[Commit, str]], removal: int, word: str,
                       member: bool, birth: tuple[tuple[Commit, str], str]) -> bool:
    """Whether a doc's name removed at position `removal` is stale rather than history the doc
    tells: the doc was written after the removal (its first version, through renames, is later:
    born stale), or, for a class's member, it held the word just before the removal and in every
    version since (a field it described while it lived: no laundering, however many edits later;
    `presence` covers the rest within its bounds). A name the doc took up at or after its removal
    ("``AutodocReporter`` was used for this") is the doc's account of it. A doc born in the merge
    that brought the removal in was written after it when, on the merged branch, the commit that
    wrote the doc descends from the one that removed the name (`_written_after`)."""
    if not versions or versions[-1][0].seq > removal or (
            birth[0][0].seq == removal and _written_after(index, birth[0], birth[1])):
        return True
    if not member:
        return False
    older = next((v for v in versions if v[0].seq < removal), None)
    if older is None:  # the commit removing the name wrote the doc: its account of the removal
        return False
    since = [v for v in versions if v[0].seq >= removal] + [older]
    word_re = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)")
    return all(word_re.search(index.versions.text_at(c.sha, p) or "") for c, p in since)


def _written_after(index: HistoryIndex, birth: tuple[Commit, str], removed_by: str) -> bool:
    """Whether the doc first written in the merge `birth` (its commit, the doc's path then) was
    written on the merged branch by a commit descending from `removed_by` (the branch's commit that
    removed a name, as a finding labels it): webargs' #62 removed `Arg` on 2015-09-20 and wrote
    framework_support.rst, with `from webargs import Arg`, a week later, both merged in one commit.
    Not when one commit did both (a note written with the removal) nor when the doc came first."""
    commit, path = birth
    wrote = merged_change(index, commit, path, lambda sha: index.versions.text_at(sha, path) is not None)
    if wrote.sha == commit.sha or not re.fullmatch(r"[0-9a-f]{7,40}", removed_by) or wrote.sha.startswith(removed_by):
        return False
    try:
        base = git.run(index.root, "merge-base", removed_by, wrote.sha)
    except git.GitError:
        return False
    return base.strip().startswith(removed_by)


def _versions(index: HistoryIndex, path: str) -> int:
    """How many commits touched `path` under this name (renames not followed: at most its versions)."""
    return int(index.db.execute("SELECT COUNT(*) FROM touches WHERE path = ?", (path,)).fetchone()[0])


_DEMOS = frozenset({"examples", "example", "gallery"})  # folders of scripts that show the API, not define it


def _python_source(path: str) -> bool:
    """A Python file that can define the repository's API: not a test (`MyRenderer`), nor a demo
    script under `examples/` (astropy's Sgr frame example, converted into a doc when the gallery
    went: its `pm_Lambda_cosBeta=` keyword, on a line of its own, is no definition the doc lost)."""
    return file_ext(path) in PYTHON_EXTS and not is_test_path(path) and _DEMOS.isdisjoint(path.split("/")[:-1])


def _digest(files: Iterable[str]) -> str:
    return hashlib.sha1("\0".join(sorted(files)).encode()).hexdigest()[:16]


def _seq(index: HistoryIndex, label: str) -> int | None:
    """The position on the chain of the commit a finding's label names (`sha (day, "subject")`;
    a merged branch's commit: its merge's)."""
    return chain_seq(index, label.split(" ", 1)[0])


_NOTE = re.compile(r"^(\s*)(?:\.\.\s+|`{3,}\s*\{)(?:deprecated|versionchanged|versionadded|versionremoved|deprecated-removed)\b")
_NAMED = re.compile(r"`[~!.]*(?:[\w.]+\.)?(\w+)(?:\(\))?`|^\s*\.\.\s+[\w:]+::\s+(?:[\w.]+\.)?(\w+)")  # a span, a directive's target
_MODULE = re.compile(r"^\s*(?:\.\.\s+(?:py:)?(?:current)?module::|`{3,}\s*\{(?:py:)?(?:current)?module\})\s*([\w.]+)")


def aside(text: str, code: Codebase) -> tuple[set[int], set[str]]:
    """What a doc says of history or of another package, never a born-stale reference: the lines
    of its version notes (`.. deprecated::`, `.. versionchanged::`: "``AutodocReporter`` was used
    for this"), and the names it writes where its module context is a package outside the
    repository (`.. currentmodule:: sphinxcontrib.serializinghtml`: the builders moved there)."""
    lines: set[int] = set()
    names: set[str] = set()
    note: int | None = None  # the indentation of the version note being read
    outside = False
    for n, line in enumerate(text.split("\n"), 1):
        indent = len(line) - len(line.lstrip())
        if note is not None and line.strip() and (indent <= note or line.lstrip().startswith("```")):
            note = None
        if (m := _NOTE.match(line)) is not None:
            note = len(m.group(1))
        if (m := _MODULE.match(line)) is not None:
            root = m.group(1).split(".", 1)[0]
            outside = root not in code.modules and root not in code.top
        if outside or note is not None:
            lines.add(n)
            names.update(m.group(1) or m.group(2) for m in _NAMED.finditer(line))
        if "`!" in line:  # Sphinx's `!`: a name written on purpose without a link
            names.update(re.findall(r"`!(?:[\w.]+\.)?(\w+)", line))
    return lines, names
