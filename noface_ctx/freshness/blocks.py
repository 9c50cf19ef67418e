"""Where a doc's blocks are (`extract` reads what they say): reStructuredText code blocks and
the language each is in, docutils doctest blocks, indented directive bodies, MyST fenced
bodies and Markdown frontmatter."""

from __future__ import annotations

import ast
import builtins
import re
import textwrap
from collections.abc import Callable
from typing import TypeVar

from noface_ctx.freshness.rst_comments import blank_comments as blank_comments  # extract's, beside the other blocks

# a title's underline: one adornment character repeated, three at least (`notice.section` and
# `option_defaults` read narrower and wider ones on purpose: see there)
UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1{2,}\s*$")
T = TypeVar("T")
DOCTEST = "doctest block"  # `rst_block_lang`'s answer for a paragraph of `>>>` prompts (read as `pycon`)
_RST_DIRECTIVE = re.compile(r"^\s*\.\.\s+(code-block|code|sourcecode|testcode|doctest|ipython|jupyter-execute)::\s*(\S+)?\s*$")
_ANY_DIRECTIVE = re.compile(r"^\s*\.\.\s+([\w:-]+)::")
# directives whose body is reStructuredText, a table, math or a file's options, not code
_NOT_CODE = frozenset("""note warning tip hint important caution danger attention error admonition seealso versionadded
versionchanged deprecated versionremoved topic sidebar rubric only container tab tabs tab-set tab-item grid card
dropdown toctree figure image table list-table csv-table math raw include literalinclude glossary productionlist
autosummary currentmodule module function class method classmethod staticmethod attribute property exception data
decorator decoratormethod setting option envvar describe object index contents parsed-literal epigraph highlights
pull-quote compound line-block centered hlist default-role role code-block code sourcecode doctest ipython
jupyter-execute testoutput""".split())
# sphinx.ext.doctest's directives: their bodies are examples (and `testoutput` their output), run with
# the names of the doc's `testsetup` blocks and conf.py's `doctest_global_setup`, never a project's own
_SPHINX_DOCTEST = frozenset({"testsetup", "testcode", "testcleanup", "testoutput", "doctest"})


def directive_globals(lines: list[str], body: list[tuple[int, str]]) -> set[str]:
    """The bare names the Python body of a project's example directive calls and never binds
    (`invoke(...)`, `isolated_filesystem()` in click's `.. click:run::`): the directive runs the
    body with them given, they are not the repository's (none for any other block, nor for
    sphinx.ext.doctest's `testcode` / `testsetup`: what they call comes from the doc's setup)."""
    j = body[0][0] - 2 if body else -1  # the line opening the block: above its options and blank lines
    while j >= 0 and (not lines[j].strip() or lines[j].lstrip().startswith(":")):
        j -= 1
    named = _ANY_DIRECTIVE.match(lines[j]) if j >= 0 else None
    kind = named.group(1).removeprefix("py:") if named is not None else "auto"
    ours = kind not in _NOT_CODE and kind not in _SPHINX_DOCTEST and not kind.startswith("auto")
    tree = _parsed([text for _, text in body]) if ours else None
    if tree is None:
        return set()
    nodes = list(ast.walk(tree))
    bound = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {n.name for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    bound |= {(a.asname or a.name).split(".")[0] for n in nodes if isinstance(n, (ast.Import, ast.ImportFrom))
              for a in n.names}
    bound |= {n.arg for n in nodes if isinstance(n, ast.arg)}
    called = {n.func.id for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return called - bound - set(dir(builtins))


def _parsed(body: list[str]) -> ast.Module | None:
    try:
        return ast.parse(textwrap.dedent("\n".join(body))) if body else None
    except (SyntaxError, ValueError):
        return None


def _python_body(lines: list[str], i: int) -> bool:
    """Whether the indented body of the directive at line `i` parses as Python and does something
    (a call, an import, a definition, an assignment): a sentence seldom parses, a word does."""
    tree = _parsed([text for _, text in indented_block(lines, i)[0]])
    return tree is not None and any(isinstance(n, (ast.Call, ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign))
               for n in ast.walk(tree))


def rst_block_lang(lines: list[str], i: int) -> str | None:
    """The language of the reStructuredText code block line `i` opens, or None: `.. code-block::
    python` (and `code`, `sourcecode`, `testcode`, `doctest`), a paragraph ending in `::` (a
    literal block, taken as Python), or `DOCTEST` for a paragraph of `>>>` prompts (a docutils
    doctest block; in a directive's body too: `.. doctest-requires:: asdf`)."""
    line = lines[i]
    m = _RST_DIRECTIVE.match(line)
    if m and m.group(1) not in _SPHINX_DOCTEST:
        return (m.group(2) or "python").lower()
    named = _ANY_DIRECTIVE.match(line)
    kind = named.group(1).removeprefix("py:") if named is not None else "auto"
    if kind in _SPHINX_DOCTEST and kind != "testoutput":  # its argument names a group (`.. testcode:: g1`), not a language
        return "pycon" if kind == "doctest" else "python"
    if kind not in _NOT_CODE and not kind.startswith("auto") and _python_body(lines, i):
        return "python"  # a project's example directive (click's `.. click:example::`): code the docs build runs
    stripped = line.strip()
    if stripped.endswith("::") and not stripped.startswith(".."):
        return "python"
    before = lines[i - 1] if i else ""
    if stripped.startswith(">>>") and (not before.strip() or _ANY_DIRECTIVE.match(before)):  # a paragraph of its own
        return DOCTEST
    return None


def doctest_block(lines: list[str], i: int) -> tuple[list[tuple[int, str]], int]:
    """The doctest block starting at line `i` (its prompts and their output, to a blank line),
    and the index after it."""
    j = i
    while j < len(lines) and lines[j].strip():
        j += 1
    return [(n + 1, lines[n]) for n in range(i, j)], j


def indented_block(lines: list[str], i: int) -> tuple[list[tuple[int, str]], int]:
    """The lines indented under line `i` (blank lines included), and the index after them."""
    indent = len(lines[i]) - len(lines[i].lstrip())
    body = []
    j = i + 1
    while j < len(lines):
        text = lines[j]
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            break
        if text.strip() and not text.lstrip().startswith(":"):  # directive options (`:linenos:`)
            body.append((j + 1, text))
        j += 1
    return body, j


_MYST_CODE = frozenset({"code-cell", "ipython", "jupyter-execute", "code-block", "code", "sourcecode"})
_MYST_DOCTEST = {"doctest": "pycon", "testcode": "python", "testsetup": "python", "testcleanup": "python"}


def myst_code_lang(directive: str, argument: str) -> str | None:
    """The language of a MyST directive's body when it is an example, else None: ```{code-cell}
    ipython3, ```{code-block} python (its argument, Python when none), and sphinx.ext.doctest's
    directives as reStructuredText's: ```{doctest} is `pycon`, ```{testcode} / {testsetup} /
    {testcleanup} Python (their argument names a group, not a language)."""
    if directive in _MYST_DOCTEST:
        return _MYST_DOCTEST[directive]
    if directive not in _MYST_CODE:
        return None
    return (argument or "python").lower().removeprefix("ipython3").replace("ipython", "python") or "python"


def fenced(lines: list[str], i: int) -> tuple[list[tuple[int, str]], int]:
    """A MyST directive's fenced body (options `:x:` aside) and the index after its closing fence."""
    marker = lines[i].strip()[:3]
    body = []
    j = i + 1
    while j < len(lines) and not lines[j].strip().startswith(marker):
        if lines[j].strip() and not lines[j].strip().startswith(":"):
            body.append((j + 1, lines[j]))
        j += 1
    return body, j + 1


def eval_rst(lines: list[str], i: int, module: str, read: Callable[[str], T]) -> tuple[str, T]:
    """(the module context after, what `read` makes of) the MyST ```{eval-rst} block opening at
    line `i`: its body as a reStructuredText text of its own, lines in place, in the page's module
    context; a `.. currentmodule::` in it sets the page's (click's API page is such blocks)."""
    end = fenced(lines, i)[1] - 1  # the closing fence
    text = [""] * len(lines)
    text[i] = f".. currentmodule:: {module}" if module else ""
    text[i + 1:end] = lines[i + 1:end]
    set_here = [m.group(1) for line in lines[i + 1:end] if (m := _MODULE.match(line))]
    after = (set_here[-1] if set_here[-1] != "None" else "") if set_here else module
    return after, read("\n".join(text))


_MODULE = re.compile(r"^\s*\.\.\s+(?:py:)?(?:current)?module::\s+([\w.]+)\s*$")


def frontmatter_end(lines: list[str]) -> int:
    """The index of the first line after a `---` frontmatter (0 when there is none)."""
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                return i + 1
    return 0


_GONE_HEADER = re.compile(r"(?i)\b(?:removed|deprecated|obsolete|old|former|legacy|previous|replaced|before)\b")
_SIMPLE_BORDER = re.compile(r"^\s*=+(?:\s+=+)+\s*$")  # a reStructuredText simple table's `=== ===`
_GRID_BORDER = re.compile(r"^\s*\+[-=+]+\+\s*$")  # a grid table's `+---+---+`
_PIPE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$")  # Markdown's `|---|---|`


def gone_tables(lines: list[str]) -> set[int]:
    """The lines (1-based) of the tables listing names as gone: a column headed "Removed",
    "Deprecated", "Old", "Replaced" ... (astropy's "Removed | Use this" conversion guide). Such a
    table says the names are removed: naming them is no stale reference."""
    out: set[int] = set()
    i = 0
    while i < len(lines):
        line = lines[i]
        if _SIMPLE_BORDER.match(line) or _GRID_BORDER.match(line):
            border = _SIMPLE_BORDER if _SIMPLE_BORDER.match(line) else _GRID_BORDER
            j = i + 1
            while j < len(lines) and not border.match(lines[j]) and lines[j].strip():
                j += 1
            header = lines[i + 1:j]
            end = j + 1
            while end < len(lines) and lines[end].strip() and (border is _GRID_BORDER or not border.match(lines[end])):
                end += 1
            end = end + 1 if border is _SIMPLE_BORDER and end < len(lines) and border.match(lines[end]) else end
        elif i + 1 < len(lines) and "|" in line and _PIPE_RULE.match(lines[i + 1]):
            header, end = [line], i + 2
            while end < len(lines) and "|" in lines[end]:
                end += 1
        else:
            i += 1
            continue
        if any(_GONE_HEADER.search(h) for h in header):
            out.update(range(i + 1, end + 1))
        i = max(end, i + 1)
    return out


def line_runs(lines: list[str]) -> list[tuple[int, int]]:
    """(first, after last), 0-based, of each run of non-blank lines: a doc's paragraphs, as the default readers see them."""
    out, lo = [], None
    for i, line in enumerate([*lines, ""]):
        if line.strip() and lo is None:
            lo = i
        elif not line.strip() and lo is not None:
            out.append((lo, i))
            lo = None
    return out
