"""References wrong from the day they were written (`never_defined`): a dotted name rooted at one of the
repository's own packages whose module resolves but which that module never defined, re-exported or imported
while the doc has written it, is stale from the commit that wrote the line, however old the doc.

`presence`, `born` and `written_since` report a name the code once had; a reference that never resolved stayed
silent (rich's ``:meth:`~rich.ScreenContext.update``` written in 2021 while `ScreenContext` lives in
`rich.console` and `rich/__init__.py` never exported it; webargs' ``from webargs import json``). Judged here: an
unresolved role (`xref`, `role`), autodoc / autosummary entry, or import of an example, whose written path starts
at a package of the repository (a role written short, `.X` or under a `currentmodule` only, is left: Sphinx
searches for it), whose longest module prefix is a Python file of that package (not a test, not a demo), and whose
part right after the module is the missing name. The module must be one whose names can be read: no module
`__getattr__` (a function or an assigned loader), no `globals()` / `vars()` / `sys.modules[...]` / `exec`, no
module-level `setattr`, `locals()` or `__dict__`, no handing itself to other code (a frame, `find_current_module()`:
astropy's constants are set so), no `__all__` grown at run time, no `.pyi` stub beside it, no compiled module of the name
beside it; a name a doc declares itself (`.. class:: Name`) or that it writes in a version note, a history
paragraph or another package's context is left too, and so is an example's name that is not on an import line
(a value a `*` import may bind, a shell command's dotted path), an import shown failing (`# ImportError: ...` after
it: loguru's troubleshooting page), a name its line does not write (an autodoc member list's, joined to its class).

Where the doc wrote it: the oldest of its versions (through renames, `written_since.LINE_REACH` at most) from which
every one holds the written path (for an import, its line); a doc with more versions than that all holding it is
left (its writing cannot be dated). Never defined since: the module at that commit, and at the commit before it,
does not define the name (its path then; a doc written by the commit taking the name out is `born`'s), and no commit from there to HEAD changed a line of the module that could define it (a `def`, a
`class`, an assignment, an import, a string of `__all__`): one `git log -G` pass over every module asked about, not
a git call per doc. The suggestion is the one module of the package whose own code writes the name's definition
(`def`, `class`, assignment at its top level; an import is no definition): "defined in `rich.console.ScreenContext`".
When no module writes it (rich's ``:meth:`~rich.console.Print.print```: no class `Print` anywhere), the module's
evidence is the same, so it is reported without a suggestion.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from noface_ctx import _git as git
from noface_ctx.datatypes import MissingRef
from noface_ctx.freshness.born import _python_source, aside, path_then
from noface_ctx.freshness.codebase import Codebase
from noface_ctx.freshness.declarations import text_defines
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.merges import chain_seq, merged_change
from noface_ctx.freshness.presence import Removals
from noface_ctx.freshness.references import Reference
from noface_ctx.freshness.scan import DocScan, star
from noface_ctx.freshness.written_since import LINE_REACH, starts, tells_history

SOURCES = ("xref", "role", "autodoc")  # where a reference names its target in full; and an example's import (`binds`)
_DYNAMIC = re.compile(r"\bglobals\(\)|\bsys\.modules\[|^__getattr__\s*=|^__all__\s*(?:\+=|\.(?:extend|append)\b|=(?!\s*[\[(]))",
                      re.M)  # anywhere in the module
_MADE_HERE = re.compile(r"\bvars\(\)|\blocals\(\)|\b__dict__\b|\bsetattr\(|\bexec\(|currentframe\(|_getframe\("
                        r"|\w*current_module\w*\(|import_module\(__name__")  # in the module's own code (not a def or class body)
_BLOCK = re.compile(r"^([ \t]*)(?:async\s+)?(?:def|class)\s")
_GETATTR = re.compile(r"^([ \t]*)def __getattr__\s*\(", re.M)
_COMPILED = (".pyi", ".pyx", ".pxd", ".so", ".pyd", ".c")
Candidate = tuple[Reference, str, tuple[str, ...]]


def target(ref: Reference, lookup: str, code: Codebase, line: str, read: dict[str, bool] | None = None) -> str:
    """The module file whose missing name `ref` (written on `line`) is, judged as the module docstring says, or "";
    `read`: the modules already read, whether static."""
    parts = ref.name.split(".")
    if ref.kind == "path" or not ref.strict or len(parts) < 2 or not (ref.source in SOURCES or ref.binds) or star(ref):
        return ""  # (a call of a name a `*` import binds: the doc's guess of where it comes from, not an import of it)
    written = ref.ref.split("(", 1)[0].lstrip("~!").replace("::", ".")
    if written not in line.replace("::", "."):
        return ""  # a name the doc does not write on its line (an autodoc member list's, joined to its class)
    if ref.source != "autodoc" and not ref.binds and not written.startswith(parts[0] + "."):
        return ""  # `.ScreenContext`, a role read under a `currentmodule`: Sphinx searches for it
    if ref.binds and not re.search(rf"\bimport\b[^*#]*(?<![\w.]){re.escape(ref.binds)}\b", line):
        return ""  # an example's import only (not a value a `*` import may bind, nor a shell command's path)
    k, holder = code.module_holder(parts)
    if not holder or parts[k] != lookup or not holder.endswith(".py") or not _python_source(holder):
        return ""
    if not code.importable(parts[0]):
        return ""
    folder = holder.rsplit("/", 1)[0] + "/" if "/" in holder else ""
    stem = holder[:-len("/__init__.py")] if holder.endswith("/__init__.py") else holder[:-3]
    if any(f"{stem}{e}" in code.paths or f"{folder}{lookup}{e}" in code.paths for e in _COMPILED) or holder + "i" in code.paths:
        return ""  # a stub beside it, or a compiled module of the name
    read = {} if read is None else read
    if holder not in read:
        read[holder] = static(code.text(holder) or "")
    return holder if read[holder] else ""


def static(text: str) -> bool:
    """Whether a module's names can all be read from its text (see the module docstring)."""
    if not text or _DYNAMIC.search(text):
        return False
    lines = text.split("\n")
    inside: int | None = None  # the indentation of the def or class whose body is being read
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if inside is not None and line.strip() and indent <= inside and not line.lstrip().startswith((")", "#")):
            inside = None
        if inside is None and (m := _BLOCK.match(line)) is not None:
            inside = len(m.group(1))
        elif inside is None and _MADE_HERE.search(line):
            return False  # `setattr(...)`, a frame or the module handed to code at import time
    for m in _GETATTR.finditer(text):
        indent, at = len(m.group(1)), text.count("\n", 0, m.start())
        if indent == 0:
            return False
        above = next((line for line in reversed(lines[:at]) if line.strip() and len(line) - len(line.lstrip()) < indent), "")
        if not above.lstrip().startswith("class "):
            return False  # a module-level `if` / `try` holding it, or a function making one
    return True


def _shows_error(lines: list[str], line: int) -> bool:
    """Whether an example's import line, or the next line written, shows that it fails (`# ImportError: ...`)."""
    after = next((x for x in lines[line:line + 3] if x.strip()), "").strip()
    said = [lines[line - 1].partition("#")[2], after.lstrip("#") if after.startswith(("#", "Traceback")) or re.match(
        r"\w*Error\b", after) else ""]  # the import's comment, a comment or an error shown after it
    return any(re.search(r"\w*Error\b|\bfails?\b|\braises?\b|Traceback", text) for text in said)


def _may_define(line: str, name: str) -> bool:
    """Whether a changed line could define `name` in a module (any depth: a careful reading)."""
    if not re.search(rf"(?<![\w.]){re.escape(name)}\b", line):
        return False
    return bool(re.match(rf"\s*(?:(?:async\s+)?def|class)\s+{name}\b", line) or "import" in line
                or re.match(rf"\s*[\w\s,()*\[\].]*(?<![\w.]){name}\b[\w\s,()*\[\].:]*=(?!=)", line)
                or re.match(rf"\s*\(?\s*{name}\s*(?:,|\)|\bas\b|$)", line) or re.search(rf"""(["']){name}\1""", line))


def never_defined(plans: Sequence[tuple[DocScan, Commit]], removed: dict[str, Removals], index: HistoryIndex,
                  code: Codebase, declared: set[str]) -> dict[str, Removals]:
    """`removed` with each doc's references to a name their module never defined while the doc wrote them (see
    the module docstring), blamed on the commit that wrote the line; `declared`: the names docs declare."""
    asks: list[tuple[DocScan, Candidate, str, str, list[tuple[Commit, str]], Commit]] = []
    read: dict[str, bool] = {}
    for s, since in plans:
        told = {c[1] for c in s.candidates if (c[0].ref, c[0].line) in {
            (m.ref, m.line) for m in (removed[s.doc.path].missing if s.doc.path in removed else ())}}
        lines = s.doc.text.split("\n")
        todo = [(c, holder) for c in s.candidates if c[1] not in told and c[1] not in declared and 0 < c[0].line <= len(lines)
                and (holder := target(c[0], c[1], code, lines[c[0].line - 1], read))]
        if not todo:
            continue
        notes, foreign = aside(s.doc.text, code)
        versions = index.earlier(s.doc.path, since.seq, limit=LINE_REACH)
        for (ref, lookup, scope), holder in {c[1]: (c, h) for c, h in reversed(todo)}.values():
            if tells_history(lines, ref.line) or ref.line in notes or lookup in foreign or (ref.binds and _shows_error(lines, ref.line)):
                continue
            word = ref.name if ref.name in lines[ref.line - 1] else lines[ref.line - 1].strip()
            asks.append((s, (ref, lookup, scope), holder, word, versions, since))
    if not asks:
        return removed
    begun = starts(index, [(word, versions, since) for _s, _c, _h, word, versions, since in asks])
    kept = []
    for ask, start in zip(asks, begun, strict=True):
        versions = ask[4]
        if len(versions) >= LINE_REACH and start.sha == versions[-1][0].sha:
            continue  # held by every version read: where it was written is not known
        kept.append((*ask, start, path_then(index, ask[2], start.seq)))
    prior = {k[6].sha: index.latest(k[6].seq) for k in kept}  # the chain's commit before the line's
    reads = [(k[6], k[7]) for k in kept] + [(c, path_then(index, k[2], c.seq)) for k in kept if (c := prior[k[6].sha])]
    index.prefetch((c.sha, path) for c, path in reads)
    kept = [k for k in kept if not any(text_defines(index.versions.text_at(c.sha, path_then(index, k[2], c.seq)) or "",
                                                    k[1][1], top=True) for c in (k[6], prior[k[6].sha]) if c is not None)]
    # (defined just before: the commit writing the line took it out, a note written with the removal: `born`'s)
    changed = _defining_changes(index, {k[1][1] for k in kept}, {p for k in kept for p in (k[2], k[7])},
                                min((k[6] for k in kept), key=lambda c: c.seq, default=None))
    out = dict(removed)
    for s, (ref, lookup, _scope), holder, word, versions, _since, start, then in kept:
        if any(p in (holder, then) and (seq is None or seq > start.seq) for p, seq in changed.get(lookup, ())):
            continue  # the module's definitions of it changed since: a removal's business, not this rule's
        home = _home(code, lookup, holder)
        before = out.get(s.doc.path)
        gone = MissingRef(ref.ref, ref.line, home or None, branch_commit(index, start, versions, s.doc.path, word).label(), never=True)
        out[s.doc.path] = Removals([*(before.missing if before else ()), gone], dict(before.files) if before else {})
    return out


def branch_commit(index: HistoryIndex, start: Commit, versions: list[tuple[Commit, str]], path: str, word: str) -> Commit:
    """`start`, or when it merged a branch, the branch's commit that wrote `word` into the doc (`merged_change`)."""
    then = next((p for c, p in versions if c.sha == start.sha), path)
    return merged_change(index, start, then, lambda sha: word in (index.versions.text_at(sha, then) or ""))


def _home(code: Codebase, name: str, holder: str) -> str:
    """The one public path of a module of `holder`'s package writing `name`'s definition at its top level, or ""."""
    package = holder.split("/", 1)[0] + "/"
    written = re.compile(rf"^(?:(?:async\s+)?def|class)\s+{name}\b|^{name}\s*(?::[^=\n]*)?=(?!=)", re.M)
    homes = {code.public_name(p, name) for p in code.defining_files(name) if p != holder and p.startswith(package)
             and _python_source(p) and written.search(code.text(p) or "")}
    return homes.pop() if len(homes) == 1 else ""


def _defining_changes(index: HistoryIndex, names: set[str], paths: set[str],
                      oldest: Commit | None) -> dict[str, list[tuple[str, int | None]]]:
    """name -> (path, the chain position of the commit) of each change since `oldest` of a line of one of `paths`
    that could define it (`_may_define`): one `git log -G` pass."""
    if oldest is None or not names:
        return {}
    words = "|".join(sorted(re.escape(n) for n in names))
    try:
        out = git.run(index.root, "log", "--format=%x00%H", "-p", "-U0", "--no-color", "--no-ext-diff", "--no-renames",
                      f"-G(^|[^A-Za-z0-9_])({words})([^A-Za-z0-9_]|$)", f"{oldest.sha}..HEAD", "--", *sorted(paths))
    except git.GitError:
        return {n: [(p, None) for p in paths] for n in names}
    found: dict[str, list[tuple[str, int | None]]] = {}
    seqs: dict[str, int | None] = {}
    sha, path = "", ""
    for line in out.split("\n"):
        if line.startswith("\0"):
            sha = line[1:].strip()
        elif line.startswith(("+++ b/", "--- a/")):
            path = line[6:]
        elif line[:1] in "+-" and not line.startswith(("+++", "---")):
            for n in names:
                if _may_define(line[1:], n):
                    if sha not in seqs:
                        seqs[sha] = chain_seq(index, sha)
                    found.setdefault(n, []).append((path, seqs[sha]))
    return found
