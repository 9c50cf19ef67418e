"""Hand-written member lists (`member_refs`): a section titled with one span naming a class
(`` ## `URL` ``, ``` ``Response`` ``` underlined) whose list items open with a member's span,
mkdocs API pages' way:

    * `.status_code` - **int**
    * `def .copy_with([scheme], [authority], [path])` - **URL**

Each item is the member `URL.copy_with` (a `method` reference, checked in the class's
hierarchy), with the signature it states (optional ones in brackets: passed by name).

A list a paragraph introduces (its last line ends with `:`) is the same when that paragraph names
one class and no other (`introduced_members`), and so is a span a sentence names as the class's
attribute ("the :class:`State` attribute ``idle_for``", "the ``idle_for`` attribute of ``State``"):

    ``retry_state`` is a :class:`~tenacity.RetryCallState`. Its most useful attributes are:

    * ``attempt_number`` -- number of the current attempt
    * ``idle_for`` -- seconds spent sleeping

`RetryCallState.idle_for` is the class's member, set in a method (`self.idle_for = 0.0`) or
defined in its body, looked up in its hierarchy. A paragraph about arguments, parameters or
options lists what a call takes, not what an instance holds: no members.
"""

from __future__ import annotations

import builtins
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
# a list item opening with a span, at a line start: a list's first item when the line above (blank lines
# aside) ends a paragraph in one `:`
_ITEM_SPAN = re.compile(r"\n[ \t]*(?:[*+-]|\d+[.)]|#\.)[ \t]+(?:\*\*)?`")
# a class a paragraph names: an object role for classes (Sphinx, MyST) or a span of a capitalised name
_ROLE = r"(?::(?:py:)?(?:class|exc|exception):|\{(?:py:)?(?:class|exc|exception)\})"
_CLASS_NAME = rf"(?:{IDENT}\.)*[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*"
_CLASS = rf"(?:{_ROLE}`(?:[^`<]*<)?[~.!]?(?P<r>{DOTTED})>?`|(?<![:}}`])(?P<t>`+)(?P<s>{_CLASS_NAME})(?P=t))"
_CLASS_ROLE = re.compile(rf"{_ROLE}`(?:[^`<]*<)?[~.!]?({DOTTED})>?`")
_CLASS_SPAN = re.compile(rf"(?<![:}}`])(`+)({_CLASS_NAME})\1")
_ANY_ROLE = re.compile(r"(?::[\w-]+(?::[\w-]+)*:|\{[\w-]+(?::[\w-]+)*\})`[^`]*`")
_CALLS = re.compile(r"\b(?:arguments?|args|parameters?|params|options?|keywords?|kwargs|settings?)\b", re.I)
# a class and its attribute named together: "the :class:`State` attribute ``idle_for``", "``State``'s
# ``idle_for``", "the ``idle_for`` attribute of :class:`State`": what joins them, after a closing backtick
_JOIN = re.compile(r"`(?:(?P<poss>'s)\s+(?:(?:attribute|property|field)\s+)?"
                   r"|\s+(?:attribute|property|field)\s+(?P<of>of\s+(?:(?:the|a|an|each|every|any)\s+)?)?)(?=[:{`])")
_CLASS_BEFORE = re.compile(_CLASS + r"\Z")
_CLASS_AFTER = re.compile(_CLASS)
_SPAN_BEFORE = re.compile(rf"(?<![:}}`])(?P<t>`+)(?P<a>{IDENT})(?P=t)\Z")
_SPAN_AFTER = re.compile(rf"(?P<t>`+)(?P<a>{IDENT})(?P=t)(?![\w(])")
_NOT_CLASSES = frozenset(n for n in dir(builtins) if n[:1].isupper())  # ``True``, ``ValueError``: no class of ours


def introduced_members(lines: list[str], start: int = 0) -> list[Reference]:
    """The members a paragraph naming one class lists or names (see the module docstring): a
    `Class.name` reference for each list item opening with `name`'s span under a paragraph ending
    in `:`, and for each span a sentence names as the class's attribute."""
    text = "\n" + "\n".join(lines[start:])
    if "`" not in text:
        return []
    out: list[Reference] = []
    at, row = 0, start - 1  # an offset of `text`, and its line's index in `lines`
    for m in _ITEM_SPAN.finditer(text):
        row, at = row + text.count("\n", at, m.start() + 1), m.start() + 1  # the item's line
        above = row - 1
        while above >= start and not lines[above].strip():
            above -= 1
        intro = lines[above].rstrip() if above >= start else ""
        if not intro.endswith(":") or intro.endswith("::") or _BULLET.match(intro) or (above == row - 1 and (
                len(intro) - len(intro.lstrip()) > len(lines[row]) - len(lines[row].lstrip()))):
            continue
        first = above
        while first > start and lines[first - 1].strip() and not _BULLET.match(lines[first - 1]):
            first -= 1
        owner = _intro_class(" ".join(line.strip() for line in lines[first:above + 1]))
        out += _items(lines, row, owner) if owner else []
    for m in _JOIN.finditer(text):
        before = text[max(text.rfind(" ", 0, m.start()), text.rfind("\n", 0, m.start())) + 1:m.start() + 1]  # one word
        if m.group("of"):  # "the ``idle_for`` attribute of :class:`State`"
            span, cls = _SPAN_BEFORE.search(before), _CLASS_AFTER.match(text, m.end())
        else:
            cls, span = _CLASS_BEFORE.search(before), _SPAN_AFTER.match(text, m.end())
        if span is None or cls is None:
            continue
        owner, name = cls.group("r") or cls.group("s"), span.group("a")
        if codeish(name) and name[:1].islower() and _class_name(owner) and not placeholder(name):
            line = start + text.count("\n", 0, m.end() if m.group("of") is None else m.start())
            out.append(Reference(f"{owner}.{name}", f"{owner}.{name}", "method", line))
    return sorted(out, key=lambda r: r.line)


def _items(lines: list[str], i: int, owner: str) -> list[Reference]:
    """The members a list starting at line index `i` names, one per item at its first item's
    indentation opening with a name's span."""
    first = _BULLET.match(lines[i]) if i < len(lines) else None
    indent = len(first.group(1)) if first is not None else -1
    out = []
    while first is not None and i < len(lines):
        line = lines[i]
        item = _BULLET.match(line)
        if item is not None and len(item.group(1)) == indent:
            named = _NAMED_ITEM.match(line, item.end())
            name = named.group(2) if named is not None else ""  # lowercase: a class or a CONSTANT item is no attribute
            if (name[:1].islower() or (name[:1] == "_" and name[1:2].islower())) and not placeholder(name):
                out.append(Reference(f"{owner}.{name}", f"{owner}.{name}", "method", i + 1))
        elif line.strip() and len(line) - len(line.lstrip()) <= indent:
            break  # the list ended
        i += 1
    return out


def _intro_class(text: str) -> str:
    """The one class a paragraph introducing a list names (ending in one `:`), or ""."""
    if _CALLS.search(re.split(r"[.!?]\s", text)[-1]):
        return ""  # a list of what a call takes ("It accepts these arguments:")
    found = {m.group(1) for m in _CLASS_ROLE.finditer(text)}
    found |= {m.group(2) for m in _CLASS_SPAN.finditer(_ANY_ROLE.sub(" ", text))}
    names = {n.rsplit(".", 1)[-1] for n in found}  # `~pkg.State` and ``State``: one class
    return max(found, key=len) if len(names) == 1 and _class_name(next(iter(found))) else ""


def _class_name(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return last not in _NOT_CLASSES and not placeholder(last)
