"""Names a Sphinx project's doctests get from its `conf.py` (`with_doctest_setup`): the imports of
`doctest_global_setup`, which `sphinx.ext.doctest` runs before every doctest of the project, so
an example may call `Factory(list)` with no import of its own (attrs' `from attr import define,
frozen, field, validators, Factory`).

The `conf.py` is untrusted: it is parsed (`ast`), never run, and so is the setup's string; a
setup the file computes (a call, an f-string) is not read. The setup of the nearest `conf.py` at
or above a doc applies to the doc's interactive examples (`>>>`, a `doctest` block: `pycon`).

For an example's call of a capitalised name neither the doc nor its examples bind (a call kept
but not reported when it does not resolve: it may be any library's class):

- the setup binds it now: it is the setup's import, resolved like one the doc wrote
  (`from attr import Factory`), a library's dropped with the library;
- the setup binds it no more and no code defines it now: the doctest only ran with the name the
  setup bound, so the call is the repository's name, reported like any other when the
  repository defined it at the doc's commit (attrs renaming `Factory`, conf.py's import with it).

Before that, a doc with sphinx.ext.doctest's examples (`testcode`, `doctest`, `>>>`) is read
with the setup's `from module import ...` statements as its own `.. testsetup:: *` block
(`with_global_setup`): a `from pkg import *` there binds every bare name the examples call or
pass (`stop=stop_after_delay(10)`), as a star import of the doc's own setup does, and a name
imported by name is that import's, reported at the doc's first line using it.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from functools import lru_cache

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.references import Reference

CONF = "conf.py"
SETUP = "doctest_global_setup"
MAX_CONF_BYTES = 512 * 1024  # a conf.py larger than this is not parsed
INTERACTIVE = "pycon"  # the examples the setup runs before: `>>>` lines and `doctest` blocks
TRACEBACK = "Traceback"  # `Traceback (most recent call last):`, an expected exception's output
# what sphinx.ext.doctest runs with the global setup: its directives (reStructuredText, MyST) and `>>>` blocks
_DOCTESTS = re.compile(r"^\s*(?:\.\.\s+(?:doctest|testcode)::|>>>\s|`{3,}\s*\{(?:doctest|testcode)\})", re.M)


def with_global_setup(doc: Doc, refs: list[Reference], paths: Collection[str], read: Callable[[str], str | None],
                      extract: Callable[[Doc], list[Reference]]) -> list[Reference]:
    """The doc's references (`refs`, read from its text) read again (`extract`) with its
    `conf.py`'s setup imports as a `.. testsetup:: *` block of its own (see the module docstring),
    or `refs` when it has no doctest or the setup imports nothing `from` a module."""
    if not doc.path.endswith((".rst", ".txt", ".md")) or not _DOCTESTS.search(doc.text):
        return refs
    conf = conf_of(doc.path, paths)
    text = read(conf) if conf is not None else None
    setup = setup_from_imports(text) if text is not None and SETUP in text and len(text) <= MAX_CONF_BYTES else ()
    if not setup:
        return refs
    body = "".join(f"\n    {line}" for line in setup)
    block = f"\n\n```{{testsetup}}{body}\n```\n" if doc.path.endswith(".md") else f"\n\n.. testsetup:: *\n{body}\n"
    lines = doc.text.split("\n")
    out = []
    for ref in extract(replace(doc, text=doc.text + block)):
        if ref.line <= len(lines):
            out.append(ref)
        elif ref.binds and (use := _first_use(lines, ref.binds)):  # the setup's import: where the doc uses it
            out.append(replace(ref, line=use))
    return sorted(out, key=lambda r: r.line)


def _first_use(lines: list[str], name: str) -> int:
    """The first line (1-based) of an example using `name` as code (`name(`, `name.x`, `@name`, a
    line's last word), or 0: an indented or prompted line, else any line (a Markdown fence's)."""
    use = re.compile(rf"(?<![\w.`'\"]){re.escape(name)}(?=\(|\.\w|\s*$)")
    hits = [i + 1 for i, line in enumerate(lines) if use.search(line)]
    code = [n for n in hits if lines[n - 1][:1].isspace() or lines[n - 1].startswith(">>>")]
    return (code or hits or [0])[0]


@lru_cache(maxsize=16)
def setup_from_imports(conf_text: str) -> tuple[str, ...]:
    """The `from module import ...` statements (by name or `*`) of the `doctest_global_setup`
    string a conf.py assigns, each as one line; a relative import or any other statement is left out."""
    setup = _setup_string(conf_text)
    try:
        tree = ast.parse(setup) if setup is not None else None
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    return tuple(ast.unparse(node) for node in tree.body if isinstance(node, ast.ImportFrom) and node.module
                 and not node.level) if tree is not None else ()


def with_doctest_setup(refs: Sequence[Reference], doc_path: str, paths: Collection[str],
                       read: Callable[[str], str | None], defined: Callable[[str], bool]) -> list[Reference]:
    """`refs` with the doc's unbound interactive calls read through the setup of its `conf.py`
    (see the module docstring); `paths`: the repository's files, `read(path)` a file's text,
    `defined(name)`: whether the code defines a name now (one it does is left as it was)."""
    free = [r for r in refs if r.source == INTERACTIVE and r.kind == "call" and not r.strict
            and "." not in r.name and r.name[:1].isupper() and r.name != TRACEBACK]
    if not free:
        return list(refs)
    bound = {r.binds for r in refs if r.binds}
    free = [r for r in free if r.name not in bound]
    conf = conf_of(doc_path, paths)
    text = read(conf) if free and conf is not None else None
    if text is None or SETUP not in text or len(text) > MAX_CONF_BYTES:
        return list(refs)
    imports = setup_imports(text)
    if not imports:
        return list(refs)
    unbound = {id(r) for r in free if r.name not in imports and not defined(r.name)}
    out = [replace(r, strict=True) if id(r) in unbound else r for r in refs]
    for name in dict.fromkeys(r.name for r in free if r.name in imports):  # the setup's import, as if the doc wrote it
        first = next(r for r in free if r.name == name)
        out.append(Reference(name, imports[name], "method", first.line, True, first.source, name))
    return out


def conf_of(doc_path: str, paths: Collection[str]) -> str | None:
    """The nearest `conf.py` at or above the doc's folder, or None."""
    folder = posixpath.dirname(doc_path)
    while True:
        conf = posixpath.join(folder, CONF) if folder else CONF
        if conf in paths:
            return conf
        if not folder:
            return None
        folder = posixpath.dirname(folder)


@lru_cache(maxsize=16)
def setup_imports(conf_text: str) -> dict[str, str]:
    """The names the `doctest_global_setup` string a conf.py assigns binds by its imports: the
    bound name → the dotted name imported (`Factory` → `attr.Factory`, `np` → `numpy`)."""
    setup = _setup_string(conf_text)
    if setup is None:
        return {}
    try:
        tree = ast.parse(setup)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    out: dict[str, str] = {}
    for node in tree.body:  # its top-level statements; an import in an `if` or `try` may not run
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names if a.name != "*"})
        elif isinstance(node, ast.Import):
            out.update({a.asname or a.name.split(".", 1)[0]: a.name if a.asname else a.name.split(".", 1)[0]
                        for a in node.names})
    return out


def _setup_string(conf_text: str) -> str | None:
    """The string constant a conf.py assigns to `doctest_global_setup` (the last one), or None."""
    try:
        tree = ast.parse(conf_text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found = None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == SETUP for t in node.targets)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            found = node.value.value
    return found
