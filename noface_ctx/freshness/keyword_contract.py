"""Keywords an example passes that the callee's signature does not take (`unaccepted_keywords`),
whether or not it ever took them (`run(main, debug=True)` written against a `run(func, *args,
backend=..., backend_options=...)` that never had `debug`: a TypeError from the commit that wrote it).

The callee is the repository's function or class that the doc's own import binds (`from anyio import
run`, then `run(...)`; `import seaborn as sns`, then `sns.histplot(...)`): the one file `scan` found it
defined in; or a method of a class so bound (`Marker.__call__` for `@m(...)` after `m = Marker(...)`), when
the class writes it; or, reached through attributes of such an object or inherited, the one class of the
repository defining a method of that distinctive name (`callee_home`). What it takes is its contract (`accepted`):

- a function's parameters, or, when it has `@overload` stubs, theirs: a keyword is taken when some
  overload names it (the implementation's `*args, **kwargs` only forwards them); a class's `__init__`'s
  (or the one a dataclass-like class generates: `definitions.definition`);
- no telling, and so nothing reported, when it takes `**kwargs` (or an overload does), when a decorator
  may change what it takes (any but `SAFE_DECORATORS`: a `@_preprocess_data` adding `data=`, a
  `@rename_parameter`), when the class defines `__new__` or names a metaclass, when the name is
  defined twice at its level (an `if`/`else`), or assigned again (`run = wrap(run)`).

Blame: the commit that took the keyword out of the contract when it was taken out after the doc's line
was written (the home file's versions newest first, back to the line's commit), else the commit that
wrote the line (the doc's versions newest first, back to the oldest that holds the line, or a call of the
callee's name passing the keyword however its lines were laid out, ever since; a merge's branch commit).
Only candidates are read back: a keyword every contract takes costs one parse of its callee's file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from noface_ctx._filetypes import is_test_path
from noface_ctx.datatypes import ChangedRef
from noface_ctx.freshness.code_words import PYTHON_EXTS
from noface_ctx.freshness.decorator_lines import decorators
from noface_ctx.freshness.definitions import _headers, _normal, block_end, definition
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.judgement import UNCOMMITTED
from noface_ctx.freshness.merges import merged_change
from noface_ctx.freshness.parameters import parameters
from noface_ctx.freshness.read_ahead import python_keyword
from noface_ctx.freshness.references import codeish
from noface_ctx.freshness.scan import DocScan

SAFE_DECORATORS = frozenset({"overload", "staticmethod", "classmethod", "abstractmethod", "override", "final",
                             "contextmanager", "asynccontextmanager", "cache", "lru_cache", "no_type_check"})
DOC_VERSIONS = 64  # a doc's versions read back to where a line was written
CODE_VERSIONS = 32  # a home file's versions read back to where a keyword was taken out
STATED_VERSIONS = 160  # ... a parameter a directive states (`directive_keywords`: rarer, and often long stale)
_DECORATOR = re.compile(r"@\s*([\w.]+)")
_OVERLOAD = "overload"


def accepted(text: str, name: str) -> frozenset[str] | None:
    """The keywords a call of the module-level function or class `name` of `text` takes now, or of
    the method `Cls.meth` written in the module-level class `Cls`'s own body (see the module
    docstring); None: any, or no telling (a method of that name only, a definition under an `if`)."""
    if "." in name:
        return _method_contract(text, *name.split(".", 1))
    headers = _headers(text)
    hits = headers.by_name.get(name, [])
    if not hits:
        return None
    top = min(h[0] for h in hits)
    if top:  # only methods of that name (a module re-exporting `to_thread_run_sync as run_sync`): not the callee
        return None
    level = [h for h in hits if h[0] == top]
    if re.search(rf"(?m)^[^\S\n]{{{top}}}{re.escape(name)}\s*(?::[^=\n]*)?=(?!=)", headers.text):
        return None  # assigned again at its level: `run = wrap(run)`
    if len(level) == 1 and level[0][3] == "class":
        return _class_contract(headers.text, name, level[0])
    if any(h[3] != "def" for h in level):
        return None
    return _function_contract(headers.text, level)


def _function_contract(text: str, level: list[tuple[int, int, int, str]]) -> frozenset[str] | None:
    decorated = [(h, [m.group(1).rsplit(".", 1)[-1] if (m := _DECORATOR.match(d)) else "" for d in decorators(text, h[1])])
                 for h in level]
    stubs = [h for h, names in decorated if _OVERLOAD in names]
    if stubs:
        chosen = stubs
    elif len(level) == 1 and set(decorated[0][1]) <= SAFE_DECORATORS:
        chosen = level
    else:
        return None
    names: set[str] = set()
    for indent, start, end, _kw in chosen:
        params = parameters(_normal(text[start:block_end(text, end, indent)], with_body=False))
        if params is None or any(kind == "**" for kind, _, _ in params):
            return None
        names.update(n for kind, n, _ in params if kind not in ("*", "**"))
    return frozenset(names)


def _method_contract(text: str, cls: str, meth: str) -> frozenset[str] | None:
    """What the method `meth` in the body of the module-level class `cls` takes (its overloads
    first); None when the class does not write it (inherited: no telling here) or assigns it."""
    headers = _headers(text)
    owners = headers.by_name.get(cls, [])
    if len(owners) != 1 or owners[0][3] != "class" or owners[0][0]:
        return None
    indent, start, end, _kw = owners[0]
    stop = block_end(headers.text, end, indent)
    body = min((h[0] for hits in headers.by_name.values() for h in hits if start < h[1] < stop), default=-1)
    level = [h for h in headers.by_name.get(meth, []) if start < h[1] < stop and h[0] == body]
    if not level or any(h[3] != "def" for h in level) or re.search(
            rf"(?m)^[^\S\n]{{{body}}}{re.escape(meth)}\s*(?::[^=\n]*)?=(?!=)", headers.text[end:stop]):
        return None  # `__call__ = _call` in the class body
    return _function_contract(headers.text, level)


def owner_class(text: str, meth: str) -> str:
    """The module-level class of `text` whose body defines `meth`, when `meth` is defined once in
    `text` and only there ("" otherwise: a function too, two classes, a nested class)."""
    headers = _headers(text)
    hits = headers.by_name.get(meth, [])
    if len(hits) != 1 or not hits[0][0] or hits[0][3] != "def":
        return ""
    at = hits[0][1]
    before = [(h[1], name) for name, found in headers.by_name.items() for h in found
              if h[3] == "class" and h[0] == 0 and h[1] < at]
    if not before:
        return ""
    _start, name = max(before)
    head = headers.by_name[name][0]
    return name if len(headers.by_name[name]) == 1 and block_end(headers.text, head[2], 0) > at else ""


def _class_contract(text: str, name: str, head: tuple[int, int, int, str]) -> frozenset[str] | None:
    indent, start, end, _kw = head
    stop = block_end(text, end, indent)
    colon = text.find(":", end)
    if "metaclass" in text[end:colon if colon > 0 else end]:
        return None
    inside = [h for hits in _headers(text).by_name.values() for h in hits if start < h[1] < stop]
    body = min((h[0] for h in inside), default=-1)  # the indent of the class's own methods
    inner = [h for n in ("__init__", "__new__") for h in _headers(text).by_name.get(n, []) if start < h[1] < stop and h[0] == body]
    if any(text[h[2] - 7:h[2]] == "__new__" for h in inner):
        return None
    if inner:
        return _function_contract(text, inner)
    defn = definition(text, name)  # a dataclass's, an attrs class's generated `__init__` (bases of the file too)
    params = parameters(defn) if defn is not None else None
    if params is None or any(kind == "**" for kind, _, _ in params):
        return None
    return frozenset(n for kind, n, _ in params if kind not in ("*", "**"))


Candidate = tuple[DocScan, Commit, str, int, str, str, str]  # (scan, since, callee, line, keyword, home, name)


def candidates(plans: Sequence[tuple[DocScan, Commit]], read: Callable[[str], str | None],
               defining: Callable[[str], list[str]] = lambda _name: []) -> list[Candidate]:
    """The keywords the docs' Python examples pass to a callee their own import binds, defined in
    one file of the repository, whose contract there does not take them (`read`: a file now;
    `defining`: the files defining a name now, for `callee_home`)."""
    known: dict[tuple[str, str], frozenset[str] | None] = {}

    def contract(home: tuple[str, str]) -> frozenset[str] | None:
        if home not in known:
            text = read(home[0])
            known[home] = accepted(text, home[1]) if text is not None else None
        return known[home]

    out: list[Candidate] = []
    for s, since in plans:
        homes: dict[str, list[str]] = {}  # callee as the examples write it -> the files defining it
        for ref, files in s.symbols:
            if ref.kind == "method" and ref.binds and not ref.ref.endswith("()"):
                homes[ref.binds] = files  # `from anyio import run`
            elif ref.kind == "method" and ref.ref.endswith("()") and "." in ref.ref and not ref.binds:
                homes.setdefault(ref.ref[:-2], files)  # `sns.histplot()`, through an alias
        seen: set[tuple[int, str]] = set()
        for ref in s.refs:
            callee = ref.ref.split("(", 1)[0]
            if not (python_keyword(ref) and ref.strict and "(" in ref.ref) or (ref.line, ref.name) in seen:
                continue
            home = callee_home(callee, homes, contract, lambda meth: _unique_method(meth, defining, read))
            took = contract(home) if home is not None else None
            if home is not None and took is not None and ref.name not in took:
                seen.add((ref.line, ref.name))
                out.append((s, since, callee, ref.line, ref.name, *home))
    return out


def _unique_method(meth: str, defining: Callable[[str], list[str]], read: Callable[[str], str | None]) -> tuple[str, str] | None:
    """(file, `Cls.meth`) when a distinctive name (`call_historic`, not `get`) is a method of one
    class in the repository's Python code, tests aside, and nothing else there is named so."""
    files = [p for p in defining(meth) if p.rsplit(".", 1)[-1] in PYTHON_EXTS and not is_test_path(p)]
    text = read(files[0]) if len(files) == 1 and codeish(meth) else None
    owner = owner_class(text, meth) if text is not None else ""
    return (files[0], f"{owner}.{meth}") if owner else None


def callee_home(callee: str, homes: Mapping[str, list[str]], contract: Callable[[tuple[str, str]], frozenset[str] | None],
                unique: Callable[[str], tuple[str, str] | None]) -> tuple[str, str] | None:
    """(file, name as `accepted` reads it) of the callee an example's keyword names: a name its
    import binds (`run`, `sns.histplot`: `homes`); a method of a class it binds (`Marker.__call__`
    for `@m(...)` after `m = Marker(...)`, `Flask.run`) when that class writes it; else, reached
    through attributes or a base class (`pm.hook.myhook.call_historic` after `pm =
    PluginManager(...)`: some prefix is ours), the one class defining a method so named (`unique`)."""
    if callee in homes:
        files = homes[callee]
        return (files[0], callee.rsplit(".", 1)[-1]) if len(files) == 1 else None
    head, _, meth = callee.rpartition(".")
    parts = head.split(".") if head else []
    prefixes = [k for k in range(len(parts), 0, -1) if ".".join(parts[:k]) in homes]
    if not prefixes:
        return None
    files = homes[".".join(parts[:prefixes[0]])]
    if prefixes[0] == len(parts) and len(files) == 1 and contract(own := (files[0], f"{parts[-1]}.{meth}")) is not None:
        return own
    return unique(meth)


def unaccepted_keywords(plans: Sequence[tuple[DocScan, Commit]], index: HistoryIndex, read: Callable[[str], str | None],
                        dirty: frozenset[str], defining: Callable[[str], list[str]] = lambda _name: [],
                        more: Sequence[Candidate] = ()) -> dict[str, list[ChangedRef]]:
    """By doc path: each keyword `candidates` finds (and `more`: a directive's, `directive_keywords`), blamed
    (see the module docstring)."""
    passed = candidates(plans, read, defining)
    found = passed + list(more)
    if not found:
        return {}
    written = line_commits(found, index)
    out: dict[str, list[ChangedRef]] = {}
    for i, ((s, _since, callee, line, keyword, home, name), start) in enumerate(zip(found, written, strict=True)):
        editing = s.doc.path in dirty or index.last_touch(s.doc.path) is None
        if start is None and not editing:
            continue  # the doc's committed text lacks the line (a symlink's versions hold its target): no telling
        stated = i >= len(passed)  # a parameter a directive's signature states: taken out however long ago
        label = _taken_out(index, home, name, keyword, start, STATED_VERSIONS if stated else CODE_VERSIONS
                           ) if start is not None else UNCOMMITTED
        what = f"unaccepted {'parameter' if stated else 'keyword'} {keyword}"
        out.setdefault(s.doc.path, []).append(ChangedRef(callee, line, home, label, what))
    return out


def line_commits(found: list[Candidate], index: HistoryIndex) -> list[Commit | None]:
    """For each candidate, the oldest commit from which the doc's versions hold its line ever since
    (None: the line is only in the work tree), or a call of the callee's name passing the keyword,
    however its lines were laid out (`f(\n  config=c,\n)` joined by a formatter, an argument added)."""
    out: list[Commit | None] = []
    for s, since, callee, line, kw, _home, _name in found:
        wanted = s.doc.text.split("\n")[line - 1].strip()
        last = callee.rsplit(".", 1)[-1]
        passing = re.compile(rf"(?<!\w){re.escape(last)}\s*\((?:[^()]|\([^()]*\))*?(?<![\w.]){re.escape(kw)}\s*=(?!=)")
        how = (wanted, passing if passing.search(wanted) else None)
        versions = [(since, s.doc.path), *index.earlier(s.doc.path, since.seq, limit=DOC_VERSIONS)]
        index.prefetch((c.sha, p) for c, p in versions)
        start: tuple[Commit, str] | None = None
        for commit, path in versions:
            if not _holds(index.versions.text_at(commit.sha, path), *how):
                break
            start = (commit, path)
        # a merge bringing the line in: the merged branch's commit that wrote it (`merged_change`)
        out.append(merged_change(index, start[0], start[1], partial(_held_at, index, start[1], how))
                   if start is not None else None)
    return out


def _held_at(index: HistoryIndex, path: str, how: tuple[str, re.Pattern[str] | None], sha: str) -> bool:
    return _holds(index.versions.text_at(sha, path), *how)


def _holds(text: str | None, line: str, passing: re.Pattern[str] | None) -> bool:
    """Whether a doc's version holds `line`, or a call `passing` the keyword (when the line is one)."""
    return text is not None and (line in {ln.strip() for ln in text.split("\n")} or (
        passing is not None and passing.search(text) is not None))


def _taken_out(index: HistoryIndex, home: str, name: str, keyword: str, start: Commit, limit: int = CODE_VERSIONS) -> str:
    """The label of the commit after `start` that took `keyword` out of `name`'s contract in `home`
    (its versions newest first, back to the one in effect at `start`: `UNCOMMITTED` when the last
    commit's still takes it), else `start`'s."""
    latest = index.latest()
    versions = index.earlier(home, (latest.seq if latest is not None else 0) + 1, limit=limit)
    index.prefetch((c.sha, p) for c, p in versions[:8])
    newer: Commit | None = None
    for commit, path in versions:
        text = index.versions.text_at(commit.sha, path)
        took = accepted(text, name) if text is not None else None
        if took is None:
            break
        if keyword in took:
            return newer.label() if newer is not None else UNCOMMITTED
        if commit.seq <= start.seq:
            break
        newer = commit
    return start.label()
