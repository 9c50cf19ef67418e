"""A parameter default written as a module constant stands for the constant's value: in
`def configure(*, size=_DEFAULT_SIZE)` with `_DEFAULT_SIZE = 256` the one binding of that name in
the file, at module level, to a literal, `size`'s default is `256`, then and now. So a doc
writing `configure(*, size=256)` states the code's default, and a commit that sets the constant
to 1024 changes the default of every parameter written with it (`definitions.definition` answers
the function's header with the literal in the name's place; history's blame then finds that
commit). A name bound more than once in the file (an `if`/`else`, a local of the same name, an
import, a loop), bound to anything but a literal, or not bound in the file stays a name. A constant
bound once to a call reading an environment variable with a literal fallback
(`env_fallbacks.env_fallback`: `os.getenv("PKG_SIZE", 256)`) holds that fallback.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from noface_ctx import _state as state
from noface_ctx.freshness.body_tokens import IDENT, closing, tokens
from noface_ctx.freshness.env_fallbacks import env_fallback

if TYPE_CHECKING:
    from noface_ctx.freshness.references import Reference

# a parameter's default in a comparable header (`definitions`: tokens joined by spaces): `, size = _DEFAULT_SIZE )`
_NAMED_DEFAULT = re.compile(r"(?<=[(,] )(\w+ = )([A-Za-z_]\w*)(?= [,)])")
_NOT_CONSTANTS = frozenset({"True", "False", "None", "Ellipsis", "NotImplemented"})
_LITERAL = (r"-?\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?|True|False|None|b?\"[^\"\\\n]*\"|b?'[^'\\\n]*'")
_LITERALS: state.Memo[tuple[str, str], str] = state.memo("freshness.constant_defaults", maxsize=4096)
_DEF = re.compile(r"^[ \t]*(?:async\s+)?def\s+(\w+)\s*\(", re.M)  # a `def`'s name, its header after the match
_DEFAULT_NAME = re.compile(r"=\s*([A-Za-z_]\w*)\s*(?=[,)\n#]|$)")
_DEFAULT_ATTRIBUTE = re.compile(r"=\s*[A-Za-z_]\w*\.([A-Za-z_]\w*)\s*(?=[,)\n#]|$)")
_HEADS: state.Memo[str, tuple[dict[str, list[int]], dict[int, frozenset[str]]]] = state.memo("freshness.constant_defaults.heads", maxsize=256)


def with_literals(header: str, text: str) -> str:
    """`header` (a comparable definition header read from `text`) with each parameter default
    that is a module constant of `text` bound once to a literal written as that literal."""
    if " = " not in header:
        return header

    def literal(m: re.Match[str]) -> str:
        value = module_literal(text, m.group(2)) if m.group(2) not in _NOT_CONSTANTS else ""
        return m.group(1) + value if value else m.group()

    return _NAMED_DEFAULT.sub(literal, header)


def literal_of(text: str, default: str) -> str:
    """A default as written in `text` (`_DEFAULT_SIZE`, `"x"`), the constant's literal in a name's place."""
    name = default.strip()
    return (module_literal(text, name) or default) if IDENT.fullmatch(name) and name not in _NOT_CONSTANTS else default


def module_literal(text: str, name: str) -> str:
    """The literal (as comparable tokens) `name` is bound to in `text`, when its one binding there
    is a module-level assignment of a literal (`NAME = 256`, `NAME: int = 256  # note`); '' else."""
    key = (text, name)
    found = _LITERALS.get(key)
    if found is None:
        found = _LITERALS.put(key, _module_literal(text, name))
    return found


def _module_literal(text: str, name: str) -> str:
    if name not in text:
        return ""
    word = re.escape(name)
    binding = re.compile(  # every way a line binds the name: assigned (also in a tuple, augmented, walrus),
        rf"^[ \t]*(?:(?:[\w.\[\]]+\s*,\s*)*{word}\s*(?:,\s*[\w.\[\]]+\s*)*(?::[^=\n]*)?(?:[-+*/%&|^@]|//|<<|>>|\*\*)?=(?!=)"
        rf"|(?:global|nonlocal)\b.*\b{word}\b|(?:async\s+)?def\s+{word}\b|class\s+{word}\b"  # declared, defined,
        rf"|(?:from\s+\S+\s+)?import\b.*\b{word}\b|(?:async\s+)?for\s.*?\b{word}\b.*?\sin\b"  # imported, a loop's
        rf"|(?:async\s+)?with\b.*\bas\s+\(?{word}\b)"
        rf"|\b{word}\s*:=", re.M)  # or a `with`'s target
    hits = list(binding.finditer(text))
    if len(hits) != 1:
        return ""
    line_end = text.find("\n", hits[0].start())
    line = text[hits[0].start():line_end if line_end >= 0 else len(text)]
    m = re.fullmatch(rf"{word}\s*(?::[^=\n]*)?=\s*({_LITERAL})\s*(?:#.*)?", line.rstrip())
    if m is None and line.startswith(name) and (fallback := env_fallback(text, hits[0].start(), name)):
        return tokens(fallback)  # `NAME = os.getenv("PKG_NAME", 5)`: its fallback
    return tokens(m.group(1)) if m is not None else ""


def default_constants(symbols: Iterable[tuple[Reference, Sequence[str]]], text_of: Callable[[str], str | None]) -> set[str]:
    """The module constants (bound once, to a literal) written as parameter defaults of the
    functions `symbols` names (a class: its `__init__`) in their files: a doc's judgement depends
    on them as on the names it writes (a commit changing only `_DEFAULT_SIZE = 256` is judged); a constant of
    another module (`_defaults.DIAGNOSE`, an imported `DIAGNOSE`: `imported_constants`) too."""
    out: set[str] = set()
    for ref, files in symbols:
        last = ref.name.removesuffix("()").rsplit(".", 1)[-1]
        if not IDENT.fullmatch(last):
            continue
        for path in files:
            text = text_of(path)
            if text and "def " in text:
                out |= _header_constants(text, last)
    return out


def _header_constants(text: str, name: str) -> set[str]:
    """The constants written as defaults in the headers of `def name(` and `def __init__(` in `text`."""
    heads = _HEADS.get(text)
    if heads is None:  # every `def`'s header found once per text, by its name; its constants once
        named: dict[str, list[int]] = {}
        for m in _DEF.finditer(text):
            named.setdefault(m.group(1), []).append(m.end())
        heads = _HEADS.put(text, (named, {}))
    starts, constants = heads
    found: set[str] = set()
    for start in starts.get(name, []) + (starts.get("__init__", []) if name != "__init__" else []):
        if start not in constants:
            end = closing(text, start - 1)
            header = text[start:end if end > 0 else start + 2000]
            constants[start] = frozenset({n for n in _DEFAULT_NAME.findall(header) if n not in _NOT_CONSTANTS and (
                module_literal(text, n) or n.isupper())}  # (imported: `imported_constants`)
                | set(_DEFAULT_ATTRIBUTE.findall(header)))  # `_defaults.LOGURU_DIAGNOSE`
        found |= constants[start]
    return found
