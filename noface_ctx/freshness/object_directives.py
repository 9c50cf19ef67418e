"""Directives that name a Python object by its module and render it from the code (`references`), in
reStructuredText (`.. click:: pkg.cli:main`) and MyST (```` ```{click} pkg.cli:main ````, `:::{click}`):

- `literalinclude` with `:pyobject: Name` (or `Class.method`): Name must be defined in the included
  file (the path relative to the doc, or, written absolute, to the Sphinx source folder: the nearest
  folder above the doc holding `conf.py`, `rooted`; one outside the repository or not Python is left
  alone), read as that file's module (`docs/examples/app.py` → `docs.examples.app.Name`), so a removed
  or renamed definition there is a removed reference of that file;
- sphinx-click's `.. click:: pkg.cli:main`, sphinxcontrib-autoprogram's `.. autoprogram::
  pkg.cli:get_parser()`, sphinxcontrib-typer's `.. typer:: pkg.cli:app` (`module:attribute`), and
  sphinx-argparse's `.. argparse::` with `:module: pkg.cli` and `:func: get_parser` (or `:ref:
  pkg.cli.get_parser`): the object `pkg.cli.main`, resolved like an autodoc target (module path, then
  attributes; a re-export counts).

Each is an `autodoc` reference: text rendered from the code, so removed or moved, never "changed"."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Sequence
from dataclasses import replace

from noface_ctx.freshness.blocks import indented_block, myst_code_lang
from noface_ctx.freshness.doctest_setup import conf_of
from noface_ctx.freshness.references import IDENT, IGNORE_MARK, Reference

_NAME = rf"{IDENT}(?:\.{IDENT})*"
_KINDS = "literalinclude|click|autoprogram|typer|argparse"
_WORDS = ("literalinclude", "click::", "click}", "autoprogram", "typer::", "typer}", "argparse")
_RST = re.compile(rf"^(\s*)\.\.\s+({_KINDS})::[ \t]*(\S*)\s*$")
_MYST = re.compile(rf"^\s{{0,3}}(`{{3,}}|~{{3,}}|:{{3,}})\s*\{{({_KINDS})\}}[ \t]*(\S*)\s*$")
_OPTION = re.compile(r"^\s*:?([\w-]+):\s*(\S.*?)\s*$")  # `:pyobject: Name`, MyST's YAML `pyobject: Name`
_OBJECT = re.compile(rf"^({_NAME}):({_NAME})(?:\(\))?$")  # `pkg.cli:main`, `pkg.cli:get_parser()`
_PATH_PART = re.compile(r"^[\w-]+$")
_RST_CODE = re.compile(r"^\.\.\s+(?:code-block|code|sourcecode|testcode|doctest|ipython|jupyter-execute)::")  # examples
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_MYST_ANY = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})\s*\{([\w:-]+)\}")


def references(path: str, text: str, rst: bool) -> list[Reference]:
    """The objects the doc at `path` (its `text`) names through these directives, in order (module docstring)."""
    out: list[Reference] = []
    if not any(kind in text for kind in _WORDS):  # most docs: none of these directives
        return out
    lines = text.split("\n")
    i = -1
    while i + 1 < len(lines):
        i += 1
        line = lines[i]
        if ("::" not in line and "`" not in line and "~" not in line) or IGNORE_MARK in line:
            continue
        head = _RST.match(line) if rst else _MYST.match(line)
        if head is None:  # a code block's text is an example of the directive (`.. code-block:: rst`), not one
            i = _code_end(lines, i, rst) - 1
            continue
        if rst:
            indent = len(head.group(1))
            body = []
            for text in lines[i + 1:]:
                if text.strip() and len(text) - len(text.lstrip()) <= indent:
                    break
                body.append(text)
        else:
            fence = head.group(1)
            body = []
            for text in lines[i + 1:]:
                if text.strip().startswith(fence[:3]) and not text.strip().strip(fence[0]):
                    break
                body.append(text)
        options = {m.group(1): m.group(2) for text in body if (m := _OPTION.match(text))}
        ref = _reference(path, head.group(2), head.group(3), options, i + 1)
        out += [ref] if ref is not None else []
        i += len(body) + (not rst)  # past its body (and a MyST closing fence)
    return out


def _code_end(lines: list[str], i: int, rst: bool) -> int:
    """The index after the code block line `i` opens (a reStructuredText code block or literal
    paragraph, a Markdown fence), or `i + 1` when it opens none."""
    if rst:
        line = lines[i].strip()
        literal = _RST_CODE.match(line) or (line.endswith("::") and not line.startswith(".."))
        return indented_block(lines, i)[1] if literal else i + 1
    fence, myst = _FENCE.match(lines[i]), _MYST_ANY.match(lines[i])
    if fence is None or (myst is not None and myst_code_lang(myst.group(1), "") is None):
        return i + 1  # a MyST directive that is not code (```{note}): its body is read
    j = i + 1
    while j < len(lines) and not (lines[j].strip().startswith(fence.group(1)) and not lines[j].strip().strip(fence.group(1)[0])):
        j += 1
    return j + 1


def _reference(path: str, kind: str, argument: str, options: dict[str, str], lineno: int) -> Reference | None:
    if kind == "literalinclude":
        return _included(path, argument, options.get("pyobject", ""), lineno)
    if kind == "argparse":
        module, func = options.get("module", ""), options.get("func", "")
        target = f"{module}.{func}" if module and func else options.get("ref", "")
        written = f"{module}:{func}" if module and func else target
    else:
        m = _OBJECT.match(argument)
        target = f"{m.group(1)}.{m.group(2)}" if m is not None else argument if kind == "typer" else ""
        written = argument
    if not re.fullmatch(_NAME, target) or "." not in target:
        return None
    return Reference(written, target, "method", lineno, True, "autodoc", documented=True)


def _included(path: str, argument: str, pyobject: str, lineno: int) -> Reference | None:
    """`:pyobject: Name` of the file `argument` a doc at `path` includes, as a name of that file's
    module; an absolute `argument` (`/examples/app.py`, the Sphinx source folder's) as `/examples/app.py:Name`,
    which `rooted` reads once the repository's files are known."""
    if not re.fullmatch(_NAME, pyobject) or not argument.endswith(".py"):
        return None
    if argument.startswith("/"):
        ok = not argument.startswith("//") and _module_parts(argument[1:]) is not None
        return Reference(pyobject, f"{argument}:{pyobject}", "method", lineno, True, "autodoc", documented=True) if ok else None
    parts = _module_parts(posixpath.join(posixpath.dirname(path), argument))
    return None if parts is None else Reference(pyobject, ".".join([*parts, pyobject]), "method", lineno, True,
                                                "autodoc", documented=True)


def _module_parts(path: str) -> list[str] | None:
    """The module path of a Python file's repository path (`docs/examples/app.py`: docs, examples, app),
    or None for one outside the repository or not importable by its name."""
    target = posixpath.normpath(path)
    parts = target.rsplit(".", 1)[0].split("/")
    return None if target.startswith(("../", "/")) or target == ".." or not all(_PATH_PART.match(p) for p in parts) else parts


def rooted(refs: Sequence[Reference], doc_path: str, paths: Collection[str]) -> list[Reference]:
    """`refs` with each absolute `literalinclude`'s object (`/examples/app.py:Name`) read in the file the
    path names under the doc's Sphinx source folder (the nearest above it with a `conf.py`:
    `docs/examples/app.py` → `docs.examples.app.Name`); without one, the reference is dropped."""
    if not any(r.source == "autodoc" and r.name.startswith("/") for r in refs):
        return list(refs)
    conf = conf_of(doc_path, paths)
    out = []
    for r in refs:
        if r.source != "autodoc" or not r.name.startswith("/"):
            out.append(r)
            continue
        file, _, name = r.name.rpartition(":")
        parts = _module_parts(posixpath.join(posixpath.dirname(conf), file[1:])) if conf is not None else None
        out += [replace(r, name=".".join([*parts, name]))] if parts is not None else []
    return out
