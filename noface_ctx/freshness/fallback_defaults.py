"""Defaults the code holds behind a `None` sentinel or per key (issue 25, rule 5): what `defaults` compares a stated
default with when the parameter's own `= value` says nothing.

- A parameter defaulting to `None` that the body replaces with a class attribute or a module constant:
  `if digest_method is None: digest_method = self.default_digest_method`, `self.x = x if x is not None else
  self.DEFAULT_X`, `x = x or DEFAULT_X`: the default is that attribute's or constant's value (`fallback_default`),
  unwrapped (`staticmethod(_lazy_sha1)` is `_lazy_sha1`; a module function whose body only returns a call,
  `return hashlib.sha1(string)`, stands for the function it calls: `hashlib.sha1`; a class attribute set to a
  module constant, `X: int = X`, is that constant's value).
- A dataclass or attrs field (`field(default=50, repr=False)`, `attr.ib(default=3)`, `Field(default_factory=list)`):
  the default it passes (`field_default`: `50`, `3`, `[]`); one built by a factory (`attrs.Factory(list)` is
  `default_factory=list`: `[]`) and one a lambda computes (`attrs.Factory(lambda: random())`, `= lambda: ...`) is
  "computed": a change between computed and a literal (`0.0`) is a default change, one lambda for another is none.
- A dict of defaults by key (`DEFAULT_UNKNOWN_BY_LOCATION = {"json": None, "query": ma.EXCLUDE, ...}`) that a doc
  states as one value with exceptions ("By default, webargs will pass `unknown=marshmallow.EXCLUDE` except when the
  location is `json`, `form`, ..."): `keyed_default` gives the stated value while every key outside the exceptions
  maps to it, else the keys that do not (read in the files writing the subject as a word: `unknown=None` in a
  signature beside the dict).
"""

from __future__ import annotations

import re

from noface_ctx.freshness.coded_defaults import class_fields, comparable
from noface_ctx.freshness.held_defaults import split_parameters
from noface_ctx.freshness.option_defaults import split_items
from noface_ctx.freshness.references import IDENT

_SOURCE = rf"(?P<src>(?:self|cls|type\(self\)|[A-Z]\w*)\.{IDENT}|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"
_END = r"[ \t]*(?:#[^\n]*)?(?=\n|$)"
_WRAPPER = re.compile(rf"^(?:staticmethod|classmethod)\(\s*((?:{IDENT}\.)*{IDENT})\s*\)$")


def _fallbacks(word: str) -> list[re.Pattern[str]]:
    """The ways a body replaces `None` in parameter `word` (a regex) with another name: each one's `src` group."""
    target = rf"(?:self\.{IDENT}|{word})\s*(?::[^=\n]+)?="
    return [re.compile(pattern) for pattern in (
        rf"\bif\s+{word}\s+is\s+None\s*:\s*\n[ \t]+{target}\s*{_SOURCE}{_END}",
        rf"{target}\s*{word}\s+if\s+{word}\s+is\s+not\s+None\s+else\s+{_SOURCE}{_END}",
        rf"{target}\s*{_SOURCE}\s+if\s+{word}\s+is\s+None\s+else\s+{word}{_END}",
        rf"{target}\s*{word}\s+or\s+{_SOURCE}{_END}")]


def fallback_default(text: str, name: str) -> str | None:
    """The value parameter `name` gets when left `None` in `text` (see the module docstring), every fallback agreeing;
    None when the body names no attribute or constant, or the file does not give it one value."""
    if name not in text or ("None" not in text and " or " not in text):
        return None
    sources = {m.group("src") for pattern in _fallbacks(re.escape(name)) for m in pattern.finditer(text)}
    found = set()
    for source in sources:
        attribute = source.rsplit(".", 1)[-1]
        values = class_fields(text, re.escape(attribute)) if "." in source else set()
        values = values or _module_values(text, attribute)
        if len(values) != 1:
            return None
        found.add(unwrapped(text, values.pop(), attribute))
    return found.pop() if len(found) == 1 else None


def unwrapped(text: str, value: str, own: str = "") -> str:
    """`value` as a caller meets it: `staticmethod(f)` as `f`; a module function of `text` that only returns a call
    of another (`return hashlib.sha1(string)`) as that one; a module constant (or `own`, a class attribute's name
    set to the module constant of that name, `X: int = X`) as the constant's value."""
    wrapped = _WRAPPER.match(value)
    value = wrapped.group(1) if wrapped is not None else value
    if re.fullmatch(IDENT, value) is None:
        return value
    body = re.search(rf"(?m)^def\s+{re.escape(value)}\s*\([^\n]*:\s*\n((?:[ \t]+[^\n]*\n|[ \t]*\n)+)", text + "\n")
    if body is not None:
        lines = [line.strip() for line in _without_docstring(body.group(1)).split("\n") if line.strip() and not line.strip().startswith("#")]
        call = re.fullmatch(rf"return\s+((?:{IDENT}\.)*{IDENT})\s*\(.*\)", lines[0]) if len(lines) == 1 else None
        return call.group(1) if call is not None else value
    if value == own or re.fullmatch(r"[A-Z][A-Z0-9_]*", value):
        held = _module_values(text, value)
        return held.pop() if len(held) == 1 and held != {value} else value
    return value


def _without_docstring(body: str) -> str:
    return re.sub(r'^\s*(?:"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"[^"\n]*"|\'[^\'\n]*\')[ \t]*\n', "", body, count=1)


def _module_values(text: str, name: str) -> set[str]:
    """The values module level assignments to `name` give (comparable)."""
    return {comparable(m.group(1)) for m in re.finditer(rf"(?m)^{re.escape(name)}\s*(?::[^=\n]+)?=(?!=)\s*([^\n]+)", text)}


_DICT = re.compile(r"(?m)^[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]+)?=[ \t]*(?:[A-Za-z_][\w.]*\(\s*)?\{")


def keyed_default(text: str, subject: str, value: str, besides: tuple[str, ...]) -> str | None:
    """For a dict of defaults by key in `text` whose name says it holds defaults of `subject`
    (`DEFAULT_UNKNOWN_BY_LOCATION` for `unknown`) and gives some key `value`: `value` when every key outside
    `besides` maps to it, else "`value` except k1,k2" (the keys that do not); None when no such dict, or they differ."""
    if subject.upper() not in text.upper() or "{" not in text:
        return None
    found = set()
    for m in _DICT.finditer(text):
        words = m.group(1).upper().split("_")
        if not {"DEFAULT", "DEFAULTS"} & set(words) or subject.upper() not in words:
            continue
        entries = [(k.strip()[1:-1], _last(v)) for k, sep, v in (item.partition(":") for item in split_items(text, m.end()))
                   if sep and k.strip()[:1] in "\"'" and k.strip()[-1:] == k.strip()[:1]]
        if not any(v == _last(value) for _k, v in entries):
            continue
        off = sorted(k for k, v in entries if v != _last(value) and k not in besides)
        found.add(f"{value} except {','.join(off)}" if off else value)
    return found.pop() if len(found) == 1 else None


def _last(value: str) -> str:
    """A value's last dotted part (`ma.EXCLUDE` and `marshmallow.EXCLUDE` are one value)."""
    return comparable(value).rsplit(".", 1)[-1]


_FIELD = re.compile(r"^(?:[\w.]*\.)?(?:field|Field|ib|attrib)\((.*)\)$")
_FACTORIES = {"list": "[]", "dict": "{}", "tuple": "()", "set": "set()", "str": "", "int": "0"}


_FACTORY = re.compile(r"^(?:[\w.]*\.)?Factory\((.*)\)$")  # attrs' `Factory(list)`, `attrs.Factory(lambda: ...)`


def _made_by(factory: str) -> str:
    """The value a factory makes: `[]` for `list`, "computed" for a lambda, `make()` for a function `make`."""
    factory = factory.strip()
    return "computed" if re.match(r"lambda\b", factory) else _FACTORIES.get(factory, factory + "()")


def field_default(value: str | None) -> str | None:
    """A field declaration's default (see the module docstring), or `value` as it is."""
    if value is None:
        return None
    if (made := _FACTORY.match(value)) is not None or re.match(r"lambda\b", value):
        return _made_by((split_parameters(made.group(1)) or [""])[0] if made is not None else value)
    call = _FIELD.match(value) if "(" in value else None
    if call is None:
        return value
    for item in split_parameters(call.group(1)):
        key, sep, given = item.partition("=")
        if sep and key.strip() == "default":
            return comparable(given)
        if sep and key.strip() in ("default_factory", "factory"):
            return _made_by(given)
    return value
