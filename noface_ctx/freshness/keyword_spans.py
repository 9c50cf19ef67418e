"""Keyword spans in prose beside the object an example calls (`beside_called`).

A page's examples may bind a name to an instance of a class (`hookimpl = HookimplMarker("project")`, in any
block of the page) and then call that instance (`hookimpl(...)`, `@hookimpl(specname="x")`: its class's
`__call__`, `examples._callee`). Plugin markers, app routers and command groups document their options this
way, and the prose around says it too: "by using the ``specname`` option ... if ``specname="x"`` is
provided to the ``hookimpl`` decorator". In a paragraph that names such an instance as code (``hookimpl``,
``@hookimpl``, ``hookimpl()``), a ``name=value`` span, and a ``name`` span whose name the examples pass to that
call, is the same keyword reference as the examples' (keyed by callee and keyword: `keyword_contract` judges it
against the class's `__call__`), at the paragraph's line. Not one: a span in a paragraph that does not name the
instance, a bare ``name`` the examples never pass to it (``setup_project``, a hook's name), and any span when
the examples never call the instance (``app`` beside ``debug=True``: `app.run(...)`'s keyword, not `app(...)`'s).
"""

from __future__ import annotations

import re
from dataclasses import replace

from noface_ctx.freshness.references import IDENT, Reference

_SPAN = re.compile(r"(`+)([^`]+?)\1")
_NAMED = re.compile(rf"^@?({IDENT})(?:\(\))?$")  # ``hookimpl``, ``@hookimpl``, ``hookimpl()``
_KEYWORD = re.compile(rf"^({IDENT})\s*=\s*[^=\s]")  # ``specname="setup_project"``
_CALL = "__call__"


def beside_called(lines: list[str], start: int, types: dict[str, str], keywords: list[Reference]) -> list[Reference]:
    """The keyword references the prose of `lines` (from `start`) writes beside an instance its examples
    call (`types`: example name -> class; `keywords`: the examples' keyword references)."""
    passed: dict[str, dict[str, Reference]] = {}  # instance -> keyword -> the examples' first reference
    for ref in keywords:
        callee = ref.ref.split("(", 1)[0]
        for var, cls in types.items():
            if callee == f"{cls}.{_CALL}":
                passed.setdefault(var, {}).setdefault(ref.name, ref)
    if not passed:
        return []
    out: list[Reference] = []
    paragraph: list[tuple[int, str]] = []
    for lineno, line in [*enumerate(lines[start:], start + 1), (len(lines) + 1, "")]:
        if line.strip():
            paragraph.append((lineno, line))
            continue
        out += _in_paragraph(paragraph, passed)
        paragraph = []
    return out


def _in_paragraph(paragraph: list[tuple[int, str]], passed: dict[str, dict[str, Reference]]) -> list[Reference]:
    spans = [(lineno, m.group(2).strip()) for lineno, line in paragraph if "`" in line for m in _SPAN.finditer(line)]
    named = {m.group(1) for _, text in spans if (m := _NAMED.match(text)) and m.group(1) in passed}
    out: list[Reference] = []
    for var in sorted(named):
        for lineno, text in spans:
            keyword = _KEYWORD.match(text)
            name = keyword.group(1) if keyword else text if text in passed[var] else ""
            example = passed[var].get(name)
            if example is not None:
                out.append(replace(example, line=lineno))
            elif keyword is not None:
                cls = next(iter(passed[var].values())).ref.split("(", 1)[0]
                out.append(replace(next(iter(passed[var].values())), ref=f"{cls}({name}=...)", name=name, line=lineno))
    return out
