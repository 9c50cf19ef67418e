"""Methods attached to an object at run time under another name (`attached`): jinja's i18n
extension does `environment.extend(install_gettext_translations=self._install, ...)`, and its
docs write `.. method:: jinja2.Environment.install_gettext_translations(translations,
newstyle=False)`. The name the docs use is bound by a keyword argument of an attribute-attaching
call, or by the string `setattr` is given, to a function the same file defines: that function's
definition is the name's (`definitions.definition`), so its signature is compared like any
other, and the class the object belongs to has the member (`Codebase.resolve`).

The attaching calls read: `obj.extend(name=func)` (a keyword of `extend`, which no builtin takes),
`obj.__dict__.update(name=func)`, `vars(obj).update(name=func)` and `setattr(obj, "name", func)`;
the value a function the text defines (`func`, `self._func`, `cls.func`), never a value
(`newstyle_gettext=False`) nor another module's function.
"""

from __future__ import annotations

import re
from typing import Protocol

from noface_ctx import _state as state

# each starts with a literal (a fast scan): `.extend(`, `.update(` after `.__dict__` or `vars(...)`, `setattr(`
_CALL = re.compile(r"\.(?:extend|update)\(")
_UPDATED = re.compile(r"(?:\.__dict__|\bvars\([\w.]*\))$")
_SETATTR = re.compile(r"setattr\(\s*[\w.]+\s*,\s*[\"']([A-Za-z_]\w*)[\"']\s*,\s*(?:(?:self|cls)\.)?([A-Za-z_]\w*)\s*\)")
_KEYWORD = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*(?:(?:self|cls)\.)?([A-Za-z_]\w*)\s*$")
_MEMO: state.Memo[str, dict[str, tuple[str, int]]] = state.memo("freshness.attached", maxsize=512)
HINTS = (".extend(", ".update(", "setattr(")  # a text without any of these attaches nothing
_WORDISH = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")


def attached(text: str) -> dict[str, tuple[str, int]]:
    """name -> (the function the text defines that it is bound to, its line): see the module docstring."""
    if not any(h in text for h in HINTS):
        return {}
    found = _MEMO.get(text)
    return found if found is not None else _MEMO.put(text, _read(text))


def attached_function(text: str, name: str) -> str | None:
    """The function `name` is attached as in `text`, or None."""
    hit = attached(text).get(name) if name in text else None
    return hit[0] if hit is not None else None


class _Words(Protocol):
    def declares(self, name: str) -> bool: ...


class _Code(Protocol):  # what `attaching_file` asks of a `Codebase`
    @property
    def words(self) -> _Words: ...

    def defining_files(self, name: str) -> list[str]: ...

    def text(self, path: str) -> str | None: ...


def attaching_file(code: _Code, name: str) -> str:
    """The one file of the repository (a `Codebase`: `code`) attaching a method under `name`, or ""."""
    if not code.words.declares("+" + name):  # `code_words` keeps `+name` for a name a file attaches
        return ""
    files = [p for p in code.defining_files(name) if attached_function(code.text(p) or "", name)]
    return files[0] if len(files) == 1 else ""


def _read(text: str) -> dict[str, tuple[str, int]]:
    pairs: list[tuple[str, str, int]] = []
    for m in _CALL.finditer(text) if ".extend(" in text or ".update(" in text else ():
        if m.group(0) == ".update(" and _UPDATED.search(text, max(0, m.start() - 40), m.start()) is None:
            continue  # a dict's `update`: keys, not attributes
        for arg in _arguments(text, m.end()):
            if (kw := _KEYWORD.match(arg)) is not None:
                pairs.append((kw.group(1), kw.group(2), m.start()))
    pairs += [(m.group(1), m.group(2), m.start()) for m in _SETATTR.finditer(text)
              if text[m.start() - 1:m.start()] not in _WORDISH] if "setattr(" in text else []
    defined = {name for name, func, _at in pairs if re.search(rf"(?m)^[ \t]*(?:async[ \t]+)?def[ \t]+{func}\b", text)}
    return {name: (func, text.count("\n", 0, at) + 1) for name, func, at in pairs
            if name in defined and name != func}


def _arguments(text: str, start: int, limit: int = 4000) -> list[str]:
    """The top-level arguments of the call whose arguments start at `text[start]` ([] when it does
    not close within `limit` characters); strings and comments are not read (a keyword bound to
    a function holds neither)."""
    out, depth, begin = [], 1, start
    end = min(len(text), start + limit)
    i = start
    while i < end:
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                out.append(text[begin:i])
                return out
        elif ch == "," and depth == 1:
            out.append(text[begin:i])
            begin = i + 1
        elif ch == "#":
            i = text.find("\n", i)
            i = end if i < 0 else i
            continue
        elif ch in "\"'":
            close = text.find(ch, i + 1)
            i = end if close < 0 else close
        i += 1
    return []
