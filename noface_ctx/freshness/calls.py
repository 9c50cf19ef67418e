"""Calls as a doc writes them (`written_call`: the arguments of `f(x, key=1)` as text) and the
parameter names a doc gives a callable (`named_for`): what `notice` asks before it counts a
signature change against a doc.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from noface_ctx import _state as state


class Call(NamedTuple):
    """A call as a doc writes it: its positional arguments and its keyword arguments (name, value), as text."""

    positional: tuple[str, ...]
    keywords: tuple[tuple[str, str], ...]

    @property
    def shape(self) -> tuple[int, list[str]]:
        """(positional count, keyword names): what `parameters.binds` asks."""
        return len(self.positional), [n for n, _ in self.keywords]


_KEYWORD_ARG = re.compile(r"^([A-Za-z_]\w*)\s*=(?!=)")  # `engine='netcdf4'`, not `a == b`
_CALL_TOKEN = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|[()\[\]{},]|[^()\[\]{},\"']+|[\"']")


def written_call(text: str, line: int, name: str, *, unpacked: bool = False) -> Call | None:
    """The first call of `name` on doc line `line` (continued over the next lines while its
    parentheses are open); None when there is none, or it unpacks `*args` / `**kwargs` — but
    with `unpacked`, a `**kwargs` is left out (it passes keywords the doc does not state: the
    call still passes the arguments it writes, and no positional one unread)."""
    lines = [re.sub(r"^\s*(?:>>>|\.\.\.)(?: |$)", "", ln) for ln in text.split("\n")[line - 1:line + 9]]
    call = re.search(rf"(?<![\w.]){re.escape(name)}\s*\(", lines[0] if lines else "")
    if call is None:
        return None
    rest = "\n".join(lines)[call.end():]  # prompts gone first: `>>> regr = f(regressor=r,` keeps its keyword
    depth, cur = 1, ""
    args: list[str] = []
    for tok in _CALL_TOKEN.findall(rest):
        if tok in ("(", "[", "{"):
            depth += 1
        elif tok in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                break
        if tok == "," and depth == 1:
            args.append(cur.strip())
            cur = ""
        else:
            cur += tok
    else:
        return None
    args = _unannotated([a for a in [*args, cur.strip()] if a and not (unpacked and a.startswith("**"))])
    if any(a.startswith("*") for a in args):
        return None
    keywords = tuple((m.group(1), a[m.end():].strip()) for a in args if (m := _KEYWORD_ARG.match(a)))
    return Call(tuple(a for a in args if not _KEYWORD_ARG.match(a)), keywords)


_ANNOTATED = re.compile(r"(?!lambda\b)([A-Za-z_]\w*)\s*:(?!=)[^=]*?(?:=(?!=)(.*))?", re.S)


def _unannotated(args: list[str]) -> list[str]:
    """A signature's arguments as a call's: annotations aside (`timeout: float = 5` →
    `timeout=5`, `url: str` → `url`), a `/` dropped and the names after a bare `*` passed by
    keyword (`f(a, /, b, *, c)` reads as `f(a, b, c=)`), as the code's parameters are read."""
    out: list[str] = []
    keyword_only = False
    for a in args:
        m = _ANNOTATED.fullmatch(a)
        a = (m.group(1) if m.group(2) is None else f"{m.group(1)}={m.group(2).strip()}") if m else a
        if a in ("/", "*"):
            keyword_only |= a == "*"
            continue
        out.append(f"{a}=" if keyword_only and re.fullmatch(r"[A-Za-z_]\w*", a) else a)
    return out


_NAMED: state.Memo[tuple[str, str], frozenset[str]] = state.memo("freshness.calls.named", maxsize=64)
_SPAN = re.compile(r"(?<!`)(`{1,2})([^`\n]+)\1(?!`)")  # an inline span, not a fenced block's text
_KEYWORD = re.compile(r"([A-Za-z_]\w*)\s*=(?!=)")
_SPECIAL = frozenset({"__init__", "__new__", "__call__"})
_SPAN_WORD = re.compile(r"(?<![\w.])[A-Za-z_]\w*")  # a name, not an attribute (`request.name`)
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'")


def named_for(text: str, name: str) -> frozenset[str]:
    """The parameter names a doc gives as code for the callable `name` (`pkg.Client`,
    `Client.__init__`): the names of its inline spans (`proxies`, ``timeout=5``; not a fenced
    block's variables, an attribute, `request.name`, nor a string's words), less the
    keywords a span passes to another callable; and the keywords its calls of that name pass, in
    prose or examples, on any receiver (`Client(app=...)`, `client.get(url, params=...)`). Not a
    keyword passed to another callable (`WSGITransport(app=app)`), nor a variable (`proxies = [...]`)."""
    found = _NAMED.get((text, name))
    if found is not None:
        return found
    last = _callee(name)
    ours = re.compile(rf"(?<!\w){re.escape(last)}\s*\(") if last else None
    words: set[str] = set()
    for _, span in _SPAN.findall(text):
        idents = set(_SPAN_WORD.findall(_QUOTED.sub('""', span)))  # `route.name`, `"name"`: an attribute, a string
        if "(" in span and not (ours and ours.search(span)):
            idents -= set(_KEYWORD.findall(span))  # `WSGITransport(app=app)`: another callable's keyword
        words |= idents
    words |= {n for call in calls_of(text, name) for n, _ in call.keywords}
    return _NAMED.put((text, name), frozenset(words))


def _callee(name: str) -> str:
    """The name a call of the callable `name` writes (`Client` for `pkg.Client.__init__`)."""
    parts = [p for p in name.removesuffix("()").split(".") if p]
    return next((p for p in reversed(parts) if p not in _SPECIAL), "")


_CALLS: state.Memo[tuple[str, str], tuple[Call, ...]] = state.memo("freshness.calls.calls_of", maxsize=64)


def calls_of(text: str, name: str) -> tuple[Call, ...]:
    """Every call of the callable `name` a doc writes, in prose or examples, on any receiver
    (`Client(app=...)`, `client.get(url, params=...)`, a signature written as a call,
    `url_for(name, **path_params)`), as it reads them (`written_call`, a `**kwargs` left out; a
    call unpacking `*args` is not read)."""
    found = _CALLS.get((text, name))
    if found is not None:
        return found
    last = _callee(name)
    called = re.compile(rf"(?<![\w.])((?:[A-Za-z_]\w*\.)*{re.escape(last)})\s*\(") if last else None
    out = [written_call(text, i, m.group(1), unpacked=True) for i, line in enumerate(text.split("\n"), 1)
           for m in (called.finditer(line) if called and last in line else ())]
    return _CALLS.put((text, name), tuple(c for c in out if c is not None))
