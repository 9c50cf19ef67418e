"""The code an example's comments name (`comment_refs`): `site = Router()  # Use eg.
`@site.route()` to configure this.`, `# Because we've configured the DatabaseMiddleware with
`rollback_on_shutdown``.

A comment in a code example tells the reader what to write next, or what the code around it
relies on: its backticked code is read as the example's own code would be (a call or attribute
on an object the example makes is a member of its class, `site.route()` is `Router.route`; a
decorator's `@` dropped), a backticked bare name as a name of the repository unless the example
binds it. Outside backticks only a code-shaped identifier counts (`DatabaseMiddleware`,
`rollback_on_shutdown`; never `configure`, `Python`, an ALL_CAPS constant or a placeholder), and
like every name a doc uses it is reported only when history proves the repository defined it
and removed it (`presence`): a library's name in a comment is never proved. A comment states no
signature nor behaviour: its references (source `comment`) are checked for removal only.
"""

from __future__ import annotations

import re
from dataclasses import replace

from noface_ctx.freshness.body_tokens import comment_start
from noface_ctx.freshness.examples import PYTHON, Block, example_refs
from noface_ctx.freshness.references import (
    DOTTED,
    EXTERNAL_NAMES,
    IDENT,
    IGNORE_MARK,
    KNOWN_EXTS,
    PROMPT,
    SELF_NAMES,
    STRING,
    Reference,
    codeish,
    file_ext,
    placeholder,
)

_SPAN = re.compile(r"(`+)([^`\n]+?)\1")
_CODE = re.compile(rf"^@?({DOTTED}(?:\(.*\))?)$")  # `name`, `obj.attr`, `call(...)`, `@decorator(...)`
_WORD = re.compile(rf"(?<![\w.`'\"/-]){IDENT}(?![\w(`'\"/-]|\.\w)")  # a word alone (not `x.y`, `x(`, `test_x.py`)
HASH_LANGS = PYTHON | frozenset({"ruby", "rb"})
COMMENT = "comment"  # the source of a comment's references: checked for removal only (`scan`)


def comment_text(raw: str, marker: str) -> str:
    """The comment a code line ends with (after `marker` outside strings), "" when none."""
    start = comment_start(raw, (marker,))
    return raw[start + len(marker):] if start >= 0 else ""


def comment_refs(block: Block, lang: str, local: set[str], types: dict[str, str],
                 aliases: dict[str, str]) -> list[Reference]:
    """The references the comments of one code block make (see the module docstring)."""
    marker = "#" if lang in HASH_LANGS else "//"
    out: list[Reference] = []
    for lineno, raw in block:
        text = comment_text(PROMPT.sub("", raw), marker) if marker in raw and IGNORE_MARK not in raw else ""
        if not text.strip():
            continue
        for m in _SPAN.finditer(text):
            out += _span_code(m.group(2).strip(), lineno, lang, local, types, aliases)
        for m in _WORD.finditer(_SPAN.sub(" ", text)):
            word = m.group(0)
            if codeish(word) and not placeholder(word) and word not in local and word not in SELF_NAMES:
                out.append(Reference(word, word, "symbol", lineno, True, lang))
    return [replace(r, source=COMMENT) for r in out]


def _span_code(text: str, lineno: int, lang: str, local: set[str], types: dict[str, str],
               aliases: dict[str, str]) -> list[Reference]:
    """One backticked span of a comment read as a line of the example: calls and attributes
    through `example_refs`, a bare name as a `symbol` (code-shaped: strict)."""
    m = _CODE.match(STRING.sub('""', text))
    if m is None:
        return []
    code = m.group(1)
    if "(" in code or ("." in code and code.split(".", 1)[0] in types):
        return example_refs([(lineno, code)], lang, local, types, aliases)
    root = code.split(".", 1)[0]
    if root in local or root in SELF_NAMES or code in EXTERNAL_NAMES or placeholder(code) or root in EXTERNAL_NAMES:
        return []
    if "." in code:  # `pkg.mod.name`; not a file (`conf.py`, `source.c`)
        return [] if file_ext(code) in KNOWN_EXTS else [Reference(text, code, "method", lineno, True, lang)]
    return [Reference(text, code, "symbol", lineno, codeish(code), lang)] if code.upper() != code else []
