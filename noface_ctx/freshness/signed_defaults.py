"""Defaults a hand-written signature states for a callable the code registers under another name (issue 25, rule 5).

A directive writes a signature (`.. function:: lipsum(n=5, html=True, min=20, max=100)`): each parameter given a value
states its default (`signed_statements`). A callable some file defines is the signature rule's (`changes`); one
defined nowhere is looked for where the code registers a function under that name: a dict entry
(`"lipsum": generate_lorem_ipsum` in a namespace of template globals) or a registration call
(`register("lipsum", generate_lorem_ipsum)`, `env.filters["lipsum"] = ...`): the one function so named
(`registered_as`) is the one whose parameters are compared.
"""

from __future__ import annotations

import re

from noface_ctx.freshness.coded_defaults import comparable
from noface_ctx.freshness.directive_lines import joined
from noface_ctx.freshness.held_defaults import split_parameters
from noface_ctx.freshness.references import IDENT

Statement = tuple[tuple[str, ...], int, str, str]  # (names: the parameter, the callable), line, value, the callable)

_SIGNED = re.compile(rf"^\s*\.\.\s+(?:py:)?(?:function|method|class|classmethod|staticmethod|decorator)::\s+"
                     rf"((?:{IDENT}\.)*{IDENT})\s*\((.*)\)\s*(?:->.*)?$")
_PARAMETER = re.compile(rf"^\s*({IDENT})\s*(?::[^=]+)?=\s*(.+?)\s*$")


def signed_statements(lines: list[str]) -> list[Statement]:
    """The defaults the signatures of `lines`' callable directives state, one per parameter given a value."""
    out: list[Statement] = []
    for i, line in enumerate(joined(lines)):  # continued with `\`, or several signatures: each read
        m = _SIGNED.match(line) if ".. " in line and "=" in line else None
        if m is None:
            continue
        callable_ = m.group(1).rsplit(".", 1)[-1]
        for parameter in split_parameters(m.group(2).replace("\\*", "*")):
            given = _PARAMETER.match(parameter)
            if given is not None and (value := comparable(given.group(2))):
                out.append(((given.group(1), callable_), i + 1, value, callable_))
    return out


def signed_words(text: str) -> set[str]:
    """The parameters and callables these statements name (what a doc's judgement depends on through them)."""
    if ".. " not in text or "=" not in text:
        return set()
    return {n for names, *_rest in signed_statements(text.split("\n")) for n in names}


def registered_as(text: str, alias: str) -> set[str]:
    """The functions `text` registers under the name `alias` (the last part of each): a dict entry `"alias": func`,
    a call `register("alias", func)`, an item assignment `filters["alias"] = func`."""
    if alias not in text:
        return set()
    word = re.escape(alias)
    found = re.finditer(rf"""(["']){word}\1\s*(?::|,|\]\s*=)\s*((?:{IDENT}\.)*{IDENT})\s*(?=[,)}}\n#])""", text)
    return {m.group(2).rsplit(".", 1)[-1] for m in found if m.group(2) not in ("None", "True", "False")}
