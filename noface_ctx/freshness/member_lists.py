"""Hand-written member lists (`member_refs`): a section titled with one span naming a class
(`` ## `URL` ``, ``` ``Response`` ``` underlined) whose list items open with a member's span,
mkdocs API pages' way:

    * `.status_code` - **int**
    * `def .copy_with([scheme], [authority], [path])` - **URL**

Each item is the member `URL.copy_with` (a `method` reference, checked in the class's
hierarchy), with the signature it states (optional ones in brackets: passed by name).

A list a paragraph introduces (its last line ends with `:`) is the same when that paragraph names
one class and no other (`introduced_members`), and so is a span of a paragraph naming one class
and saying it writes its attributes (a class's fields in prose, reStructuredText's way):

    ``retry_state`` is a :class:`~tenacity.RetryCallState`. Its most useful attributes are:

    * ``attempt_number`` -- number of the current attempt
    * ``idle_for`` -- seconds spent sleeping

`RetryCallState.idle_for` is the class's member, set in a method (`self.idle_for = 0.0`) or
defined in its body, looked up in its hierarchy. A paragraph about arguments, parameters or
options lists what a call takes, not what an instance holds: no members.
"""

from __future__ import annotations

import re

from noface_ctx.freshness.references import DOTTED, IDENT, Reference, codeish, placeholder, signature_after

_CLASS_TITLE = re.compile(rf"^\s*(?:#{{1,6}}\s+)?(`+)(?:class\s+)?((?:{IDENT}\.)*[A-Z]\w*)\1\s*#*\s*$")
# `* `def .name(args) -> T``, `- `async def name(args)``, `1. `.name``: the item's first span
_ITEM = re.compile(rf"^\s*(?:[*+-]|\d+[.)])\s+(`+)(?:(?:async\s+)?def\s+\.?({IDENT})\s*\(([^()`]*)\)(?:\s*->[^`]*)?"
                   rf"|\.({IDENT})(?:\(([^()`]*)\))?)\1")


def section_class(title: str) -> str:
    """The class a section title names as its one span (`` `URL` ``, ``` ``httpx.Response`` ```),
    or "" (any other title ends the class's list)."""
    m = _CLASS_TITLE.match(title)
    return m.group(2) if m is not None and re.fullmatch(DOTTED, m.group(2)) and not placeholder(m.group(2)) else ""


def member_refs(line: str, lineno: int, owner: str) -> list[Reference]:
    """The member a list item under the class `owner`'s title names (see the module docstring):
    `[Reference("URL.copy_with(scheme=..., ...)", "URL.copy_with", "method", ...)]`; none for
    another line, no owner, or a dunder (`def __init__(...)` states the constructor, read elsewhere)."""
    m = _ITEM.match(line) if owner else None
    if m is None:
        return []
    name, args = (m.group(2), m.group(3)) if m.group(2) else (m.group(4), m.group(5))
    if name.startswith("__") or placeholder(name):
        return []
    ref = Reference(f"{owner}.{name}", f"{owner}.{name}", "method", lineno)
    params = ", ".join(p for p in (args or "").split(",") if p.strip() not in ("self", "cls"))
    return [signature_after(ref, f"({params})") if args is not None else ref]


_BULLET = re.compile(r"^(\s*)(?:[*+-]|\d+[.)]|#\.)\s+")
# an item opening with a bare name's span (`` ``idle_for`` ``, `` `close()` ``, bold or not), then its description
_NAMED_ITEM = re.compile(rf"(?:\*\*)?(`+)({IDENT})(\(\))?\1(?:\*\*)?(?=\s|[:,;]|$)")
# a class a paragraph names: an object role for classes (Sphinx, MyST) or a span of a capitalised name
_CLASS_ROLE = re.compile(rf"(?::(?:py:)?(?:class|exc|exception):|\{{(?:py:)?(?:class|exc|exception)\}})`(?:[^`<]*<)?[~.!]?({DOTTED})>?`")
_CLASS_SPAN = re.compile(rf"(?<![:}}`])(`+)((?:{IDENT}\.)*[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)\1")
_ANY_ROLE = re.compile(r"(?::[\w-]+(?::[\w-]+)*:|\{[\w-]+(?::[\w-]+)*\})`[^`]*`")
_SPAN = re.compile(rf"(?<![:}}`])(`+)({IDENT})\1(?!\s*[(=])")
_CALLS = re.compile(r"\b(?:arguments?|args|parameters?|params|options?|keywords?|kwargs|settings?)\b", re.I)
_ATTRIBUTES = re.compile(r"\b(?:attributes?|propert(?:y|ies)|fields?)\b", re.I)
_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})")


def introduced_members(lines: list[str], start: int = 0, *, rst: bool = True) -> list[Reference]:
    """The members a paragraph naming one class lists or names (see the module docstring): a
    `Class.name` reference for each list item opening with `name`'s span under a paragraph ending
    in `:`, and for each plain span of a paragraph that speaks of attributes (`rst`: no fences,
    `~~~` underlines a title)."""
    out: list[Reference] = []
    owner, indent = "", -1  # the list's class, the indentation of its items
    para: list[tuple[int, str]] = []  # the paragraph read so far
    last: list[tuple[int, str]] = []  # the paragraph before the blank lines just read: a list's intro
    fenced = False
    for i in range(start, len(lines)):
        line = lines[i]
        if not rst and _FENCE.match(line):
            fenced, owner, para, last = not fenced, "", [], []
            continue
        if fenced:
            continue
        if not line.strip():
            if para:
                out += _paragraph_members(para)
                last, para = para, []
            continue
        item = _BULLET.match(line)
        if item is not None:
            intro = para or last
            if intro:  # a list's first item
                out += _paragraph_members(para)
                owner, indent, para, last = _intro_class(intro), len(item.group(1)), [], []
            named = _NAMED_ITEM.match(line, item.end()) if owner and len(item.group(1)) == indent else None
            if named is not None and not named.group(2).startswith("__") and not placeholder(named.group(2)):
                out.append(Reference(f"{owner}.{named.group(2)}", f"{owner}.{named.group(2)}", "method", i + 1))
            continue
        if owner and len(line) - len(line.lstrip()) > indent:
            continue  # an item's continuation
        owner, last, para = "", [], [*para, (i + 1, line)]
    return out + _paragraph_members(para)


def _intro_class(para: list[tuple[int, str]]) -> str:
    """The one class a paragraph introducing a list names (ending in one `:`), or ""."""
    text = " ".join(line.strip() for _, line in para)
    if not text.endswith(":") or text.endswith("::") or _CALLS.search(re.split(r"[.!?]\s", text)[-1]):
        return ""  # a list of what a call takes ("It accepts these arguments:")
    return _one_class(text)


def _one_class(text: str) -> str:
    found = {m.group(1) for m in _CLASS_ROLE.finditer(text)}
    found |= {m.group(2) for m in _CLASS_SPAN.finditer(_ANY_ROLE.sub(" ", text))}
    names = {re.sub(r"^.*\.", "", n) for n in found}  # `~pkg.State` and ``State``: one class
    return max(found, key=len) if len(names) == 1 and not placeholder(next(iter(names))) else ""


def _paragraph_members(para: list[tuple[int, str]]) -> list[Reference]:
    """A paragraph's plain code-shaped spans as members of the one class it names, when it speaks
    of attributes (not of arguments)."""
    text = " ".join(line for _, line in para)
    if not para or not _ATTRIBUTES.search(text) or _CALLS.search(text) or not (owner := _one_class(text)):
        return []
    out = []
    for lineno, line in para:
        out += [Reference(f"{owner}.{m.group(2)}", f"{owner}.{m.group(2)}", "method", lineno)
                for m in _SPAN.finditer(_ANY_ROLE.sub(" ", line)) if codeish(m.group(2)) and m.group(2)[:1].islower()
                and not placeholder(m.group(2))]
    return out
