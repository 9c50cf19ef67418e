"""A bare name that a file only ever held as a function's parameter is no API the file defined
(`api_files`): a doc that writes the name without naming one of those functions used a word, not
the function's argument.

`declarations.declared` counts a parameter as a name a doc can mean (a doc describing
``generate_version_py(packagename, ...)`` explains its argument), so a doc word that only a
parameter ever spelt looks removed when that function goes: astropy's page template's section
title "Using `packagename`" (a placeholder) was blamed on the 2014 commit that moved its setup
helpers out, whose functions took a `packagename` argument. A parameter counts for a bare name
only where the doc also names one of the functions taking it, or the class holding one (httpx's
`max_keepalive`, a keyword of `Limits`' constructor, beside `httpx.Limits`); a name the file also defines
otherwise (a `def`, a `class`, an assignment outside function bodies, an import, `__all__`, an attribute
`self.name = ...` or a class body's annotation) is a definition as before. Keyword references (``limiter=``), members and dotted names are not judged
here: a keyword is a parameter by nature, and a dotted path names its holder.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from noface_ctx.freshness.declarations import declared
from noface_ctx.freshness.definitions import block_end
from noface_ctx.freshness.references import Reference

BARE_KINDS = frozenset({"symbol", "call"})
_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*(?=\()", re.M)
_CLASS = re.compile(r"^([ \t]*)class[ \t]+([A-Za-z_]\w*)", re.M)
_PARAM = re.compile(r"(?:^|,)\s*\**\s*([A-Za-z_]\w*)\s*(?=[:=,]|$)")  # a parameter's name, not a default's words
_PARAMS = re.compile(r"\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)", re.S)


def bare(ref: Reference, scope: Iterable[str]) -> bool:
    """Whether a reference is a bare name this rule judges: a symbol or call, no dotted path, no scope."""
    return ref.kind in BARE_KINDS and "." not in ref.name and not tuple(scope)


def taking(text: str, name: str) -> tuple[set[str], str]:
    """(the functions of `text` taking `name` as a parameter and the classes holding them — a doc naming
    `Limits` names its constructor —, `text` with every parameter list blanked)."""
    classes = [(m.start(), block_end(text, m.end(), len(m.group(1).expandtabs(4))), m.group(2)) for m in _CLASS.finditer(text)]
    functions: set[str] = set()
    pieces, at = [], 0
    for m in _DEF.finditer(text):
        params = _PARAMS.match(text, m.end())
        if params is None or params.start() < at:
            continue
        if name in _PARAM.findall(re.sub(r"#[^\n]*", "", params.group(1))):
            functions.add(m.group(1))
            functions.update(c for start, end, c in classes if start < m.start() < end)
        pieces += [text[at:params.start(1)], re.sub(r"[^\n]", " ", params.group(1))]
        at = params.end(1)
    return functions, "".join(pieces) + text[at:]


def _attribute(text: str, name: str) -> bool:
    """Whether `text` (parameter lists blanked) makes `name` an attribute: `self.name = ...`, `cls.name: T`, or an
    annotation in a class body (`name: str | None`) — a member a doc can mean (click's `auto_envvar_prefix`)."""
    n = re.escape(name)
    return re.search(rf"\b(?:self|cls)\.{n}[ \t]*(?::[^\n=]*)?=(?!=)|^[ \t]+{n}[ \t]*:(?!=)", text, re.M) is not None


def parameter_only(text: str, name: str, doc_text: str) -> bool:
    """Whether `text` (Python source) holds `name` only as a parameter of functions `doc_text` never names."""
    if name not in text:
        return False
    functions, blanked = taking(text, name)
    if not functions or declared(blanked).defines(name) or _attribute(blanked, name):
        return False
    return not any(re.search(rf"(?<!\w){re.escape(f)}(?!\w)", doc_text) for f in functions)


def api_files(held: set[str], ref: Reference, name: str, scope: Iterable[str], text_at: Callable[[str], str | None],
              doc_text: str) -> set[str]:
    """`held` (files defining a missing `name` at some commit; `text_at(path)`: a file's text there) less the
    Python files that only took it as a parameter of functions the doc never names, for a bare reference."""
    if not held or not bare(ref, scope):
        return held
    return {p for p in held if not (p.endswith((".py", ".pyi")) and parameter_only(text_at(p) or "", name, doc_text))}
