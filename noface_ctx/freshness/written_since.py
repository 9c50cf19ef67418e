"""No laundering for a dotted path (`since_written`): a module name the doc writes under the module
that defined it when the doc wrote it, and that the module lost since, is stale however many later
commits edited the doc.

`presence` looks for a missing name at the doc's last commit (its parent, its last six versions)
and `born` before the doc was born; a reference written years ago into a page edited often falls
between them. trio's reference-core.rst has said `trio.current_default_thread_limiter()` since
c13c60e8 (June 2019, when trio's top level imported it); 1768aeab moved it to `trio.to_thread` a
month later, and the page, edited thirty times since, was never flagged: at its last commit the
name was no longer trio's (it was still the code's, in `trio/_threads.py`, so no older search ran).

Where the doc wrote the reference is read from its own versions (`index.earlier`, through renames
and format conversions, `LINE_REACH` at most, one `git cat-file --batch` pass): the oldest version
from which every one writes the dotted path, found by halving (a few reads per name). The module
the path names (its file then, followed back through renames: `path_then`) must define the last
part there as a module name — a `def`, a `class`, an assignment, an import outside function bodies,
`__all__` (never a parameter or a local) —; the commit after that which took it out of the module
is blamed (`presence.record_removals`, as for any removed name, with its suggestion). A path the
doc took up after its module lost the name (a name the module never had while the doc wrote it) is
not blamed here on an older removal: the other rules judge it. A class's member (`pkg.Class.meth`)
and a path written under another package's name are not judged here; nor is a path in a paragraph
that tells its history (`tells_history`: "Users familiar with older versions will wonder what happened
to ``astropy.io.fits.new_table``", "a global variable ``fits.STRIP_HEADER_WHITESPACE`` was introduced"
in a transition guide), nor in a version note (`.. deprecated::` "Until Sphinx 1.6,
``sphinx.ext.autodoc.AutodocReporter`` was used for this purpose"): a page written while a name was
deprecated tells what became of it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from noface_ctx.freshness.born import aside, path_then
from noface_ctx.freshness.codebase import Codebase
from noface_ctx.freshness.declarations import text_defines
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.merges import chain_seq
from noface_ctx.freshness.presence import Removals, member_of_class, record_removals
from noface_ctx.freshness.references import Reference
from noface_ctx.freshness.scan import DocScan

# a paragraph speaking of a name's past: older versions, what happened to it, what it was made or became
_HISTORY = re.compile(r"(?i)\b(?:(?:older|earlier|previous|prior|past)\s+versions?|what\s+happened\s+to|used\s+to"
                      r"|(?:was|were|has\s+been|have\s+been|had\s+been)\s+(?:first\s+)?(?:introduced|added|deprecated|removed"
                      r"|renamed|replaced|moved|dropped|used)|replaced\s+by|formerly|previously|historically|no\s+longer|deprecat\w*)\b")
LINE_REACH = 64  # the doc's earlier versions read back for where it wrote a path (halving: 7 reads at most)
DATING_ROUNDS = 8  # `dated_starts`: LINE_REACH more versions a round while every one read holds the word
Candidate = tuple[Reference, str, tuple[str, ...]]


def judged(ref: Reference, lookup: str, scope: Sequence[str]) -> bool:
    """Whether a missing candidate is a module's name under the dotted path written (`pkg.name`,
    `pkg.mod.name`): lowercase module parts up to it, a module file to look in, not a class's member."""
    parts = ref.name.split(".")
    if ref.kind == "path" or ref.source == "autodoc" or lookup not in parts[1:] or not any(p.endswith(".py") for p in scope):
        return False
    head = parts[:parts.index(lookup, 1)]
    return all(p[:1].islower() and p.isidentifier() for p in head) and not member_of_class(scope, ref.name, lookup)


def tells_history(lines: Sequence[str], line: int) -> bool:
    """Whether the paragraph holding 1-based `line` of a doc (its run of non-blank lines) speaks of a name's past."""
    if not 0 < line <= len(lines):
        return False
    lo, hi = line - 1, line - 1
    while lo > 0 and lines[lo - 1].strip():
        lo -= 1
    while hi + 1 < len(lines) and lines[hi + 1].strip():
        hi += 1
    return _HISTORY.search(" ".join(lines[lo:hi + 1])) is not None


def written_from(index: HistoryIndex, doc: str, at: Commit, word: str, versions: list[tuple[Commit, str]]) -> Commit:
    """The oldest of the doc's `versions` (newest first, before `at`) from which every one writes `word`
    (halving: written once and kept since), or `at` when the one before it does not."""
    return starts(index, [(word, versions, at)])[0]


def starts(index: HistoryIndex, asks: Sequence[tuple[str, list[tuple[Commit, str]], Commit]]) -> list[Commit]:
    """`written_from` of each (word, the doc's versions, its commit), the versions each round of halving
    reads asked of git together (`HistoryIndex.prefetch`: one pipelined pass a round, not a round trip a read)."""
    out: list[Commit | None] = [None if versions else at for _word, versions, at in asks]
    probe = {i: 0 for i, (_w, versions, _a) in enumerate(asks) if versions}
    bounds: dict[int, tuple[int, int]] = {}
    while probe:
        index.prefetch((asks[i][1][k][0].sha, asks[i][1][k][1]) for i, k in probe.items())
        ahead: dict[int, int] = {}
        for i, k in probe.items():
            word, versions, at = asks[i]
            held = word in (index.versions.text_at(versions[k][0].sha, versions[k][1]) or "")
            if i not in bounds and not held:  # the version before the doc's commit lacks it: written there
                out[i] = at
                continue
            lo, hi = bounds.get(i, (0, len(versions) - 1))
            lo, hi = (k, hi) if held else (lo, k - 1)
            bounds[i] = (lo, hi)
            if lo < hi:
                ahead[i] = (lo + hi + 1) // 2
            else:
                out[i] = versions[lo][0]
        probe = ahead
    return [c if c is not None else at for c, (_w, _v, at) in zip(out, asks, strict=True)]


def dated_starts(index: HistoryIndex, asks: Sequence[tuple[str, str, Commit]],
                 rounds: int = DATING_ROUNDS) -> list[tuple[Commit | None, list[tuple[Commit, str]]]]:
    """For each (word, doc path, its commit): (the commit that wrote the word into the doc, the doc's versions read),
    reading the versions further back `LINE_REACH` at a time while every one read holds the word (`rounds` at most);
    None when the word is older than that: the oldest version read is only where the reading stopped, no writing."""
    versions = [index.earlier(path, at.seq, limit=LINE_REACH) for _w, path, at in asks]
    found: list[Commit | None] = list(starts(index, [(w, v, at) for (w, _p, at), v in zip(asks, versions, strict=True)]))
    cut = [len(v) >= LINE_REACH for v in versions]  # the last read stopped at the reach, not at the doc's first version
    for _round in range(rounds):
        todo = [i for i, c in enumerate(found) if cut[i] and c is not None and c.sha == versions[i][-1][0].sha]
        if not todo:
            break
        older = {i: index.earlier(versions[i][-1][1], versions[i][-1][0].seq, limit=LINE_REACH) for i in todo}
        begun = starts(index, [(asks[i][0], older[i], versions[i][-1][0]) for i in todo])
        for i, start in zip(todo, begun, strict=True):
            found[i], versions[i], cut[i] = start, versions[i] + older[i], len(older[i]) >= LINE_REACH
    return [(None if cut[i] and c is not None and c.sha == versions[i][-1][0].sha else c, versions[i])
            for i, c in enumerate(found)]


def since_written(plans: Sequence[tuple[DocScan, Commit]], removed: dict[str, Removals], index: HistoryIndex,
                  code: Codebase, dirty: set[str]) -> dict[str, Removals]:
    """`removed` with each doc's module names (`judged`) that the module named defined where the doc wrote
    the path, blamed on the commit after that which removed them (see the module docstring)."""
    out = dict(removed)
    found: list[tuple[DocScan, Commit, list[Candidate], list[tuple[str, list[tuple[Commit, str]], Commit]]]] = []
    for s, since in plans:
        reported = {(m.ref, m.line) for m in removed[s.doc.path].missing} if s.doc.path in removed else set()
        told = {c[1] for c in s.candidates if (c[0].ref, c[0].line) in reported}  # a name is reported once a doc
        todo = [c for c in s.candidates if c[1] not in told and judged(*c)]
        lines = s.doc.text.split("\n") if todo else []
        notes, foreign = aside(s.doc.text, code) if todo else (set(), set())  # version notes, `!name`, other packages'
        todo = [c for c in todo if not tells_history(lines, c[0].line) and c[0].line not in notes and c[1] not in foreign]
        if todo:
            versions = index.earlier(s.doc.path, since.seq, limit=LINE_REACH)
            firsts = list({c[1]: c for c in reversed(todo)}.values())  # one a name: its first mention
            found.append((s, since, todo, [(c[0].name, versions, since) for c in firsts]))
    begun = iter(starts(index, [ask for *_rest, asks in found for ask in asks]))
    checks: list[tuple[DocScan, list[Candidate], Candidate, Commit, list[str]]] = []
    for s, _since, todo, _asks in found:
        for c in list({c[1]: c for c in reversed(todo)}.values()):
            start = next(begun)
            checks.append((s, todo, c, start, [path_then(index, p, start.seq) for p in c[2] if p.endswith(".py")]))
    index.prefetch((start.sha, then) for *_rest, start, paths in checks for then in paths)  # the modules then, one pass
    for s, todo, (_ref, lookup, _scope), start, paths in checks:
        homes = {then for then in paths if text_defines(index.versions.text_at(start.sha, then) or "", lookup, top=True)}
        if not homes:
            continue
        plan = (replace(s, candidates=tuple(c for c in todo if c[1] == lookup)), start)
        for path, more in record_removals([plan], [{lookup: (start, homes)}], index, code, dirty).items():
            gone = [m for m in more.missing if m.commit and (seq := chain_seq(index, m.commit.split(" ", 1)[0])) is not None
                    and seq > start.seq]
            if gone:
                before = out.get(path)
                out[path] = Removals([*(before.missing if before else ()), *gone], {**more.files, **(before.files if before else {})})
    return out
