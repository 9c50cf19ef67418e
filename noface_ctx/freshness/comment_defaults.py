"""A default stated by a comment line of a Python example, read as prose.

`# Caution, "diagnose=True" is the default and may leak sensitive data` above `logger.add("out.log", diagnose=True)`,
or `# verbose defaults to True`: a whole-line comment of a Python example (a Markdown fence in Python or without a
language, a reStructuredText code block or literal block) that says "default" is a sentence; its quoted code (`"name=V"`,
`'name'`) is read as a code span, and it states parameter `name`'s default `V` (`keyword_defaults.keyword_default`:
"``name=V`` is the default", "the default ``name=V``"; or "name defaults to V") of the callable the example passes
`name=` to (one callee; a name shaped like code, `max_size`, also when none passes it). A comment with no default word
(`# verbose=True here`), a value that is no literal, or a keyword passed to two callables states nothing.
"""

from __future__ import annotations

import re

from noface_ctx.freshness.blocks import indented_block, rst_block_lang
from noface_ctx.freshness.default_words import DEFAULT_WORD
from noface_ctx.freshness.examples import PYTHON
from noface_ctx.freshness.keyword_calls import keyword_calls
from noface_ctx.freshness.keyword_defaults import keyword_default
from noface_ctx.freshness.references import IDENT, codeish

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*\{?([\w+-]*)\}?\s*(\S*)")
_COMMENT = re.compile(r"^\s*(?:(?:>>>|\.\.\.)\s+)?#+\s*(\S.*)$")
_QUOTED_CODE = re.compile(rf"([\"'])({IDENT}(?:\.{IDENT})*(?:\s*=\s*[^\"'\s]+)?)\1")
_DEFAULTS_TO = re.compile(rf"(?<![\w.`])`?({IDENT})`?\s+defaults\s+to\s+`?(-?\d[\d_.]*|True|False|None|\"[^\"]*\"|'[^']*')`?(?![\w.])")
_VALUE = re.compile(r"-?\d[\d_.]*(?:[eE][+-]?\d+)?|True|False|None|\"[^\"\n]*\"|'[^'\n]*'")


def comment_words(text: str) -> set[str]:
    """The parameters and callables the comments of `text`'s examples state defaults of: the judgement depends on them."""
    if "#" not in text or DEFAULT_WORD.search(text) is None:
        return set()
    return {n for names, _at, _value, _of in comment_statements(text.split("\n")) for n in names}


def comment_statements(lines: list[str]) -> list[tuple[tuple[str, ...], int, str, str]]:
    """(names: the parameter, then the callable's parts; the comment's line; the value; the callable or "") for each
    default a Python example's comment line states (see the module docstring)."""
    out: list[tuple[tuple[str, ...], int, str, str]] = []
    for lo, hi in _python_blocks(lines):
        code = "\n".join(line for line in lines[lo:hi] if _COMMENT.match(line) is None)
        for i in range(lo, hi):
            m = _COMMENT.match(lines[i])
            if m is None or DEFAULT_WORD.search(m.group(1)) is None:
                continue
            prose = _QUOTED_CODE.sub(lambda q: f"`{q.group(2)}`", m.group(1))
            said = keyword_default(prose) or ((d.group(1), d.group(2)) if (d := _DEFAULTS_TO.search(prose)) else None)
            if said is None or _VALUE.fullmatch(said[1].strip()) is None:
                continue
            callees = {c.rsplit(".", 1)[-1] for c, k in keyword_calls(code) if k == said[0]}
            if len(callees) == 1:
                of = callees.pop()
                out.append(((said[0], of), i + 1, said[1].strip(), of))
            elif not callees and codeish(said[0]):
                out.append(((said[0],), i + 1, said[1].strip(), ""))
    return out


def _python_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(first line, after the last) of each Python example: a Markdown fence's body, a reStructuredText block's."""
    out, i = [], 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence is not None:
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith(fence.group(1)):
                j += 1
            lang = (fence.group(3) if fence.group(2) in ("code-block", "code", "sourcecode") else fence.group(2)).lower()
            if lang in PYTHON or lang in ("", "ipython", "ipython3"):
                out.append((i + 1, j))
            i = j + 1
            continue
        stripped = lines[i].strip()
        if (stripped.endswith("::") or stripped.startswith(".. ")) and rst_block_lang(lines, i) in PYTHON:
            body, end = indented_block(lines, i)
            if body:
                out.append((body[0][0] - 1, end))
            i = max(end, i + 1)
            continue
        i += 1
    return out
