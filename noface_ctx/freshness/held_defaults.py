"""Defaults the code holds away from the parameter's own `= value` (issue 25, rule 5).

- A module constant built by a call, used as a default: `DEFAULT_LIMITS = Limits(max_connections=100,
  max_keepalive_connections=20)` behind `limits: Limits = DEFAULT_LIMITS` (while `Limits.__init__` says `None`),
  `DEFAULT_TIMEOUT_CONFIG = Timeout(timeout=5.0)` behind `timeout=DEFAULT_TIMEOUT_CONFIG`: the keyword the doc
  names, passed a literal in that call, is the default users meet (`constant_default`). A constant counts when its
  name says it is a default (`DEFAULT_...`, `..._DEFAULTS`) or the file uses it as a parameter's default.
- A dict of defaults keyed by strings: `DEFAULT_POLICIES = {"urlize.rel": "noopener", ...}`, a class's
  `default_config = ImmutableDict({"SESSION_COOKIE_NAME": "session", ...})`: the literal its key `name` is given.
  In any dict, an option declared with its help text, `self.config = {'html_class': ['wikilink', 'CSS class.']}`
  (a plugin's options: a list or tuple of a literal, then a string of words): that literal.
- The one optional parameter of a function (`def GramSchmidt(vlist, orthonormal=False)`): what "an optional
  argument ... defaults to ``False``" states (`optional_default`).
- For a parameter whose signature says `None` and whose body or callee picks the value, the default the code's own
  docstring entry for it states (`:param max_content_width: ... This defaults to 80 characters if not overridden.`,
  numpydoc `name : int` / Google `name (int):` entries too): `docstring_default`.
"""

from __future__ import annotations

import re

from noface_ctx import _state as state
from noface_ctx.freshness.coded_defaults import LITERAL as _LITERAL
from noface_ctx.freshness.coded_defaults import balanced, comparable
from noface_ctx.freshness.option_defaults import SOURCE_TOKEN
from noface_ctx.freshness.option_defaults import split_items as _items
from noface_ctx.freshness.references import IDENT

_CONSTANT_CALL = re.compile(r"(?m)^([A-Z][A-Z0-9_]*)\s*(?::[^=\n]+)?=\s*[A-Za-z_][\w.]*\s*\(")
_NAMED_DEFAULT = re.compile(r"(?:^|_)DEFAULTS?(?:_|$)")


def constant_default(text: str, name: str, *, keys: bool = False) -> str | None:
    """The literal a default constant's call in `text` passes as keyword `name`, or a dict of defaults gives the key
    `name` (`keys`: see the module docstring), or None when none does, or they give different ones."""
    if name not in text:
        return None
    found = set()
    for args in default_calls(text):  # (a call not naming it passes no such keyword)
        given = re.search(rf"(?:^|[,(\s])(?<![\w.]){re.escape(name)}\s*=(?!=)\s*([^,()\n]+?)\s*(?:,|$)", args) if name in args else None
        if given is not None and _LITERAL.fullmatch(given.group(1).strip()):
            found.add(comparable(given.group(1)))
    if keys and (f'"{name}"' in text or f"'{name}'" in text):  # a key or a code-shaped name: a dict of defaults' key
        found |= {comparable(value) for k, value in keyed_items(text) if k == name}
    return found.pop() if len(found) == 1 else None


@state.cached(maxsize=1024)
def default_calls(text: str) -> tuple[str, ...]:
    """The arguments of each default constant's call in `text` (`DEFAULT_LIMITS = Limits(...)`: a constant named as a
    default, or used as a parameter's default), read once per text: `constant_default` asks it for many names."""
    out = []
    for m in _CONSTANT_CALL.finditer(text) if "(" in text else ():
        constant = m.group(1)
        if _NAMED_DEFAULT.search(constant) is None and re.search(
                rf"def\s+{IDENT}\s*\([^()]*=\s*{re.escape(constant)}\s*[,)]", text) is None:
            continue
        out.append(balanced(text, m.end()))
    return tuple(out)


_PAIRED = re.compile(rf"""(["'])([\w.-]+)\1\s*:\s*[\[(]\s*({_LITERAL.pattern}|\{{\}}|\[\]|\(\))\s*,\s*[rRuU]?"""
                     r"""(?P<q>["'])(?:(?!(?P=q))[^\n\\]|\\.)*?\s""")  # `'name': [False, 'Educate angled quotes'`
_DICT = re.compile(r"(?m)^[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]+)?=[ \t]*(?:[A-Za-z_][\w.]*\(\s*)?\{")
_DEFAULTS_NAME = re.compile(r"(?i)(?:^|_)defaults?(?:_|$)")


@state.cached(maxsize=1024)
def keyed_items(text: str) -> tuple[tuple[str, str], ...]:
    """(key, value) of each top-level item a dict of defaults in `text` gives a string key a literal (`DEFAULT_POLICIES
    = {"urlize.rel": "noopener", ...}`, `default_config = ImmutableDict({"SESSION_COOKIE_NAME": "session", ...})`: a
    dict whose name says it holds defaults), and of each option any dict declares with its help (`'name': [False,
    'Educate angled quotes']`), the key unquoted and the value as written; read once per text."""
    out = [(m.group(2), m.group(3)) for m in _PAIRED.finditer(text)] if "'" in text or '"' in text else []
    for m in _DICT.finditer(text):
        if _DEFAULTS_NAME.search(m.group(1)) is None:
            continue
        for item in _items(text, m.end()):
            k, sep, value = item.partition(":")
            if sep and k.strip()[:1] in "\"'" and _LITERAL.fullmatch(value.strip()):
                out.append((k.strip()[1:-1], value))
    return tuple(out)


def optional_default(text: str, function: str) -> str | None:
    """The default of the one parameter with a default of `function` as `text` defines it (every definition
    agreeing), or None."""
    if function not in text:
        return None
    found = set()
    for m in re.finditer(rf"\bdef\s+{re.escape(function)}\s*\(", text):
        params = [p for p in split_parameters(balanced(text, m.end())) if p.strip() not in ("*", "/") and not p.strip().startswith("*")]
        given = [p.split("=", 1)[1] for p in params if re.match(rf"\s*{IDENT}\s*(?::[^=]+)?=", p)]
        if len(given) != 1:
            return None
        found.add(comparable(given[0]))
    return found.pop() if len(found) == 1 else None


def docstring_default(text: str, name: str) -> str | None:
    """The value the docstring entries for parameter `name` in `text` give as its default ("defaults to 80",
    "80 characters by default"; every entry agreeing), or None."""
    if name not in text or "efault" not in text:
        return None
    lines, found = text.split("\n"), set()
    entry = re.compile(rf"^([ \t]*)(?::param(?:\s+[\w\[\]., |]+?)?\s+{re.escape(name)}:|{re.escape(name)}\s*(?:\([^()\n]*\))?\s*:(?!:))")
    for i, line in enumerate(lines):
        head = entry.match(line) if name in line else None
        if head is None:
            continue
        indent, end = len(head.group(1).expandtabs(4)), i + 1
        while end < len(lines) and lines[end].strip() and len(lines[end].expandtabs(4)) - len(lines[end].expandtabs(4).lstrip()) > indent:
            end += 1
        said = " ".join(x.strip() for x in lines[i:end])
        found |= {comparable(m.group(1) or m.group(2) or m.group(3)) for m in _ENTRY_DEFAULT.finditer(said)}
    return found.pop() if len(found) == 1 else None


_ENTRY_DEFAULT = re.compile(r"(?i)\bdefaults?\s+(?:to|is)\s+(?:`+([^`]+)`+|(-?\d+(?:\.\d+)?|True|False|None)\b(?!\.\d))"
                            r"|(?<![\w.])(-?\d+(?:\.\d+)?)(?:\s+[a-z]+)?\s+by\s+default\b")


def split_parameters(params: str) -> list[str]:
    """A parameter list's parameters (a comma inside brackets or a string splits none)."""
    out, depth, start = [], 0, 0
    for m in SOURCE_TOKEN.finditer(params):
        token = m.group()
        depth += token in ("(", "[", "{")
        depth -= token in (")", "]", "}")
        if token == "," and depth == 0:
            out.append(params[start:m.start()])
            start = m.end()
    return [p for p in [*out, params[start:]] if p.strip()]
