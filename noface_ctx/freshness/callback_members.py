"""A member read on a callback's parameter that nothing in the repository has (`unknown_members`).

A function an example defines and hands on by name (`retry_error_callback=return_last_value`, `on(cb)`) is called
by the library with the library's own object. When the repository's code (outside tests) constructs one class, and
only one, under that parameter's name (`retry_state = RetryCallState(...)`; other assignments, `retry_state =
make_state(...)`, say nothing), the parameter is that class's instance, and an attribute the example reads on it
(`retry_state.last_outcome`) that no code file has as a word at all (no definition, no attribute, no string) is an
AttributeError from the commit that wrote the line (blamed as `keyword_contract` blames a keyword never taken).

Not judged: a word the code has anywhere (a member of another class, a name once defined and removed: `presence`
judges removals), a parameter of a function the doc never hands on, a name the code constructs as two classes or as
none, a class with `__getattr__`/`__getattribute__`, or one with a base the repository does not define (its members
are another library's)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from noface_ctx import _git as git
from noface_ctx._filetypes import is_test_path
from noface_ctx.datatypes import ChangedRef
from noface_ctx.freshness.code_words import PYTHON_EXTS
from noface_ctx.freshness.codebase import Codebase
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.judgement import UNCOMMITTED
from noface_ctx.freshness.keyword_contract import Candidate, line_commits
from noface_ctx.freshness.presence import EXCLUDES
from noface_ctx.freshness.references import SELF_NAMES, file_ext
from noface_ctx.freshness.scan import DocScan

UNKNOWN_MEMBER = "unknown member"  # ChangedRef.what: "unknown member NAME"
_DEF = re.compile(r"^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(([^)]*)")
_DYNAMIC = re.compile(r"^\s+def\s+__getattr(?:ibute)?__\s*\(", re.M)


def unknown_members(plans: Sequence[tuple[DocScan, Commit]], index: HistoryIndex, code: Codebase,
                    dirty: frozenset[str]) -> dict[str, list[ChangedRef]]:
    """By doc path: each attribute read on a handed callback's parameter typed by the code's constructions (see the
    module docstring), blamed on the commit that wrote its line."""
    asks: list[tuple[DocScan, Commit, str, str, int]] = []  # (scan, since, parameter, attribute, line)
    for s, since in plans:
        lines: list[str] = []
        for ref in s.refs:
            if ref.kind != "member" or ref.source != "python" or code.known(ref.name) or code.defined(ref.name, member=True):
                continue
            lines = lines or s.doc.text.split("\n")
            if (param := _handed_parameter(lines, ref.line, ref.name)) is not None:
                asks.append((s, since, param, ref.name, ref.line))
    if not asks:
        return {}
    types = _constructed(index.root, {param for _, _, param, _, _ in asks}, code)
    found: list[Candidate] = [(s, since, types[param][0], line, attr, types[param][1], types[param][0])
                              for s, since, param, attr, line in asks if param in types]
    out: dict[str, list[ChangedRef]] = {}
    for (s, _since, cls, line, attr, home, _name), start in zip(found, line_commits(found, index), strict=True):
        if start is None and not (s.doc.path in dirty or index.last_touch(s.doc.path) is None):
            continue  # the doc's committed text lacks the line: no telling
        label = start.label() if start is not None else UNCOMMITTED
        out.setdefault(s.doc.path, []).append(ChangedRef(cls, line, home, label, f"{UNKNOWN_MEMBER} {attr}"))
    return out


def _handed_parameter(lines: list[str], line: int, attr: str) -> str | None:
    """The parameter `attr` is read on at `line` (1-based), when it is a parameter of the nearest function defined
    above whose name the doc writes elsewhere not called (handed on: `hook=cb`, `register(cb)`), else None."""
    got = re.search(rf"(?<![\w.])([A-Za-z_]\w*)\.{re.escape(attr)}\b", lines[line - 1])
    if got is None or got.group(1) in SELF_NAMES:
        return None
    param = got.group(1)
    for j in range(line - 2, -1, -1):
        d = _DEF.match(lines[j])
        if d is None:
            continue
        params = {p.strip().split("=", 1)[0].split(":", 1)[0].lstrip("*").strip() for p in d.group(2).split(",")}
        if param not in params:
            return None
        handed = re.compile(rf"(?<![\w.]){re.escape(d.group(1))}\b(?!\s*\()")
        return param if any(handed.search(text) for k, text in enumerate(lines) if k != j) else None
    return None


def _constructed(root: str | Path, params: set[str], code: Codebase) -> dict[str, tuple[str, str]]:
    """Parameter name -> (class, its file) for each name the code outside tests assigns a construction of one class
    to, and only one (a class the repository defines in one file, no `__getattr__`, its bases the repository's)."""
    holders = git.grep_words(root, ["HEAD"], sorted(params), exclude=EXCLUDES)
    out: dict[str, tuple[str, str]] = {}
    for param in sorted(params):
        made: set[str] = set()
        for path in sorted(holders.get(param, ())):
            if file_ext(path) in PYTHON_EXTS and not is_test_path(path):
                text = code.text(path) or ""
                made.update(m.group(1).rsplit(".", 1)[-1] for m in re.finditer(
                    rf"^\s*{re.escape(param)}\s*(?::[^=\n]+)?=\s*([A-Za-z_][\w.]*)\s*\(", text, re.M))
        classes = {c for c in made if c[:1].isupper() and not c.isupper()}
        if len(classes) == 1 and (home := _plain_class(next(iter(classes)), code, 3)):
            out[param] = (next(iter(classes)), home)
    return out


def _plain_class(cls: str, code: Codebase, depth: int) -> str:
    """The one file defining class `cls` when its members are all the repository's (no `__getattr__`, every base
    defined by the repository, `depth` levels up), else ""."""
    files = [p for p in code.defining_files(cls) if file_ext(p) in PYTHON_EXTS and not is_test_path(p)]
    text = (code.text(files[0]) or "") if len(files) == 1 else ""
    head = re.search(rf"^class\s+{re.escape(cls)}\b\s*(?:\(([^)]*)\))?\s*:", text, re.M)
    if head is None or depth == 0:
        return ""
    end = re.search(r"^\S", text[head.end():], re.M)
    if _DYNAMIC.search(text[head.end():head.end() + end.start() if end else len(text)]):
        return ""
    bases = [b.strip().rsplit(".", 1)[-1] for b in (head.group(1) or "").split(",") if b.strip()]
    if any("=" in b or (b != "object" and not _plain_class(b, code, depth - 1)) for b in bases):
        return ""
    return files[0]
