"""Two questions asked of a Python text for many names, answered without a pattern per name.

A cold run on a large repository asks them thousands of times, each for another name: a regex
written around the name was compiled each time (most of a second on django's main thread).
Here each text is read once with fixed patterns, and a name is a lookup in what was read; a
name that is not a plain word (`\\w+`) is asked with the pattern written around it, as before,
so every answer is the one that pattern gives.

- `class_defines(text, name, classes)`: whether one of `classes` defines `name` right in its
  body: a method (`def name`) or a field (`name = ...`, `name: T = ...`) at the body's own
  indentation (a method's local is deeper).
- `imported_from(text, name)`: the module of the first `from MODULE import ...` statement
  importing `name` (in its parentheses, or on its line), or None.
"""

from __future__ import annotations

import re

from noface_ctx import _state as state
from noface_ctx.freshness.definitions import block_end

_WORDS = re.compile(r"\w+")
_WORD_CHAR = re.compile(r"\w")
_SPACE = re.compile(r"\s")
_CLASS = re.compile(r"(?:^|\n)([ \t]*)class[ \t]+(\w+)")
_LEVEL = re.compile(r"\n([ \t]+)\S")  # a class body's own indentation: its first indented line's
_METHOD = re.compile(r"\n([ \t]*)(?:async[ \t]+)?def[ \t]+(\w+)")
_FIELD = re.compile(r"\n([ \t]*)(\w+)[ \t]*(?::[^=\n]+)?=(?!=)")
_FROM = re.compile(r"^\s*from\s+([\w.]+)\s+import(?=\s)", re.M)

Members = tuple[tuple[str, frozenset[str]], ...]  # (class name, what its body defines at its own level), in order
_MEMBERS: state.Memo[str, Members] = state.memo("freshness.name_lookups.members", maxsize=256)


def class_defines(text: str, name: str, classes: frozenset[str]) -> bool:
    """Whether `text` defines `name` right in the body of one of `classes` (see the module docstring)."""
    if name not in text:
        return False
    if _WORDS.fullmatch(name) is None:
        return _class_defines_by_pattern(text, name, classes)
    members = _MEMBERS.get(text)
    if members is None:
        members = _MEMBERS.put(text, _members(text))
    return any(name in names for cls, names in members if cls in classes)


def _members(text: str) -> Members:
    """Each class of `text` (nested ones too) with the names its body defines at its own level."""
    out: list[tuple[str, frozenset[str]]] = []
    for m in _CLASS.finditer(text):
        body = text[m.end():block_end(text, m.end(), len(m.group(1).expandtabs(4)))]
        level = _LEVEL.search(body)
        if level is None:
            out.append((m.group(2), frozenset()))
            continue
        at = level.group(1)
        names = {f.group(2) for pattern in (_METHOD, _FIELD) for f in pattern.finditer(body) if f.group(1) == at}
        out.append((m.group(2), frozenset(names)))
    return tuple(out)


def _class_defines_by_pattern(text: str, name: str, classes: frozenset[str]) -> bool:
    for m in _CLASS.finditer(text):
        if m.group(2) in classes:
            body = text[m.end():block_end(text, m.end(), len(m.group(1).expandtabs(4)))]
            level = _LEVEL.search(body)
            if level is not None and re.search(rf"\n{re.escape(level.group(1))}(?:(?:async[ \t]+)?def[ \t]+{re.escape(name)}\b|"
                                               rf"{re.escape(name)}[ \t]*(?::[^=\n]+)?=(?!=))", body):
                return True
    return False


def imported_from(text: str, name: str) -> str | None:
    """The module of the first `from MODULE import` statement naming `name` as a word in its
    parentheses (up to the first `)`) or on the line its imported names start, else None."""
    if name not in text:
        return None
    if _WORDS.fullmatch(name) is None:
        m = re.search(rf"^\s*from\s+([\w.]+)\s+import\s+(?:\([^)]*\b{re.escape(name)}\b[^)]*\)|[^\n]*\b{re.escape(name)}\b)",
                      text, re.M)
        return m.group(1) if m is not None else None
    for m in _FROM.finditer(text):
        start = m.end()
        while start < len(text) and _SPACE.match(text, start):  # where the imported names start
            start += 1
        if text.startswith("(", start):
            close = text.find(")", start + 1)
            if close >= 0 and _word_in(text, name, start + 1, close):
                return m.group(1)
        end = text.find("\n", start)
        if _word_in(text, name, start, end if end >= 0 else len(text)):
            return m.group(1)
    return None


def _word_in(text: str, name: str, lo: int, hi: int) -> bool:
    """Whether the word `name` (all word characters) stands whole in `text[lo:hi]`."""
    at = text.find(name, lo, hi)
    while at >= 0:
        after = at + len(name)
        if (at == 0 or not _WORD_CHAR.match(text, at - 1)) and (after == len(text) or not _WORD_CHAR.match(text, after)):
            return True
        at = text.find(name, at + 1, hi)
    return False


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASCII_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_DIGITS = frozenset("0123456789")
FEW_NAMES = 8  # up to this many, each name is looked for in the text; more: the text's identifiers are listed


def identifiers_among(text: str, names: set[str]) -> set[str]:
    """`names & set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))`: the names that are identifiers of
    `text` (a run of ASCII word characters less its leading digits), without listing them all."""
    if len(names) > FEW_NAMES:
        return names & set(_IDENTIFIER.findall(text))
    return {n for n in names if _IDENTIFIER.fullmatch(n) is not None and _identifier_in(text, n)}


def _identifier_in(text: str, name: str) -> bool:
    at = text.find(name)
    while at >= 0:
        end, before = at + len(name), at - 1
        while before >= 0 and text[before] in _DIGITS:  # `9abc` reads as `abc`
            before -= 1
        if (end == len(text) or text[end] not in _ASCII_WORD) and (before < 0 or text[before] not in _ASCII_WORD):
            return True
        at = text.find(name, at + 1)
    return False
