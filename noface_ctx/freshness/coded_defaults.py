"""The default the code gives a name (`code_default`, `param_default`): what a default a doc
states is compared with (`defaults`). Read from one file's text: a registration call
(`add_config_value('name', '¶', ...)`, `addini("name", ..., default="3")`), a parameter
(`def from_prefixed_env(self, prefix: str = "FLASK", ...)`; with several, the one of a function
the doc's sentence names), a class or module level assignment (a dataclass field, a settings
constant), or the one literal a function whose name says it returns a default builds it with (`built_default`), each
written in one comparable form (`comparable`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from noface_ctx import _state as state
from noface_ctx.freshness.definitions import block_end
from noface_ctx.freshness.env_fallbacks import env_default
from noface_ctx.freshness.imported_constants import literal_of
from noface_ctx.freshness.number_values import canonical
from noface_ctx.freshness.option_defaults import SOURCE_TOKEN
from noface_ctx.freshness.references import IDENT, codeish
from noface_ctx.freshness.setting_defaults import SETTING_KEY

_WORD = re.compile(r"\w+")
_WORD_CHAR = re.compile(r"\w")
_DEF_OPEN = re.compile(rf"def\s+({IDENT})\s*\(")
_BRACKET = re.compile(r"[()]")
_CLASS_HEAD = re.compile(r"(?:^|\n)([ \t]*)class(?=\s+(\w+))")  # the name looked at, not read past: `class\n class X`
LITERAL = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|True|False|None|\"[^\"\n]*\"|'[^'\n]*'")
RETURNS_DEFAULT = re.compile(r"(?:get_|current_)?default(?:_[a-z0-9]+)+")  # a function returning a default: `get_default_pool`
_ONE_LITERAL_CALL = re.compile(rf"(?<![\w.])[A-Za-z_][\w.]*\(\s*({LITERAL.pattern})\s*\)")  # `CapacityLimiter(40)`
_DOCSTRING = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'')
_CONSTANT = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # a setting or module constant: `DATA_UPLOAD_MAX_NUMBER_FIELDS`


def _plain(name: str) -> bool:
    """A plain word (`prefix`, `path`): too common to stand for a setting or field alone."""
    return not coded(name)


def coded(name: str) -> bool:
    """A name shaped like code (`max_retries`, `getItem`) or like a setting (`SESSION_COOKIE_AGE`,
    `savefig.pad_inches`): where it is coded, it stands for itself."""
    return codeish(name) or _CONSTANT.fullmatch(name) is not None or SETTING_KEY.fullmatch(name) is not None


def comparable(text: str) -> str:
    """A stated or coded default, comparable: quotes (either style), backticks, roles, a comment,
    white space and a trailing `_` aside (Black's reformatting changes no default); an unquoted number
    in one form (`number_values.canonical`: `.85` is `0.85`)."""
    text = re.sub(r":[\w:-]+:", "", text).strip()
    spans = re.findall(r"`+([^`]+)`+", text)
    text = spans[0] if spans else text.split(" (", 1)[0].split("  #", 1)[0]
    text = re.sub(r"\s+", "", text.strip().rstrip(",")).replace("'", '"')
    return canonical(text.rstrip("_")) if '"' not in text else text.strip('"').rstrip("_")


def code_default(text: str, name: str, near: Iterable[str] = (), *, keyed: bool = False) -> str | None:
    """The default the code in `text` gives `name` (see the module docstring; `keyed`: an option
    read by its key, `getattr(meta, "unknown", RAISE)`, `options.get("unknown", RAISE)`, `kwargs.pop(...)`), or None."""
    if name not in text:
        return None
    word = re.escape(name)
    quoted = f'"{name}"' in text or f"'{name}'" in text  # (else no pattern reading it quoted is searched)
    if keyed:
        found = {comparable(m.group(2)) for m in re.finditer(
            rf"""(?:\bgetattr\(\s*[\w.]+\s*,|\.(?:get|pop|setdefault)\()\s*(["']){word}\1\s*,\s*([^()\n,]+?)\s*\)""", text)} if quoted else set()
        return found.pop() if len(found) == 1 else None
    near = [n for n in near if n != name]
    if quoted and _CONSTANT.fullmatch(name) and (env := env_default(text, name)) is not None:
        return comparable(env)  # an environment variable read with a literal fallback (`env_fallbacks`)
    # `add_config_value('name', '¶', ...)`, `addini(\n "name", ..., default="3")`: the name a call's first argument
    call = None if _plain(name) else (re.search(rf"""\(\s*(["']){word}\1\s*,\s*([^,)\n]+)""", text) if quoted else None) or _registered(text, word)
    if call is not None:
        if (given := re.match(r"default\s*=\s*(.+)", call.group(2).strip())) is not None:  # `_Param("a.b", default=0.2, ...)`
            return comparable(given.group(1))
        rest = text[call.end(): call.end() + 400]
        keyword = re.search(r"\bdefault\s*=\s*([^,)\n]+)", rest.split("\n)", 1)[0])
        positional = call.group(2).strip()
        if keyword is not None:
            return comparable(keyword.group(1))
        if not re.match(r"^\w+\s*=", positional):
            return comparable(positional)
    params = {f: comparable(literal_of(text, v))  # a parameter: `def f(self, name: str = "x")`; `= _SIZE`: its literal
              for f, v in parameter_defaults(text, name)}
    params = {f: _applied(text, word) or v if v == "None" else v for f, v in params.items()
              if v != "..." and not (v == "None" and _deferred(text, word))}  # a stub's `= ...` states no value
    chosen = [v for f, v in params.items() if f in set(near)]
    for head, indent in classes(text, near) if any(f"class {n}" in text for n in near) else ():  # a field of a class named beside it
        end = block_end(text, head, indent)
        inner = re.search(r"\n([ \t]+)\S", text[head:end])  # the body's own level: not a method's locals
        level = re.escape(inner.group(1)) if inner is not None else "[ \t]+"
        field = re.search(rf"\n{level}{word}\s*(?::[^=\n]+)?=(?!=)\s*([^\n]+)", text[head:end])
        if field is not None:
            chosen.append(comparable(field.group(1)))
    chosen += [v for n in near if n[:1].isupper() and f"class {n}" in text and (v := param_default(text, n, name)) is not None]
    if _plain(name):  # a plain word: only as a parameter or field of what is named beside it
        return chosen[0] if len(set(chosen)) == 1 else None
    if params or chosen:  # (a signature the pattern above cannot read, `allow_origins=()`: its class's, when named)
        values = set(chosen or params.values())
        return values.pop() if len(values) == 1 else None
    if name != name.lower() and not _CONSTANT.fullmatch(name):  # a class or an alias (`RemovedInNextVersionWarning = ...`) has no default
        return None
    assign = re.search(rf"(?:^|\n){word}\s*(?::[^=\n]+)?=(?!=)\s*([^\n]+)", text) if (  # module level only: not a local
        text.startswith(name) or f"\n{name}" in text) else None
    if assign is not None:
        return comparable(assign.group(1))
    fields = class_fields(text, word)  # a class attribute subclasses override (`_works_on_unparsable = True`)
    return fields.pop() if len(fields) == 1 else built_default(text, name) if RETURNS_DEFAULT.fullmatch(name) else None


def built_default(text: str, function: str) -> str | None:
    """The literal `function` (named as returning a default: `current_default_thread_limiter`) builds its value with:
    the argument of the one call in its body given one literal and nothing else (`limiter = CapacityLimiter(40)`), every
    definition in `text` building one agreeing (one delegating to another builds none); else None."""
    found = set()
    for m in word_start(re.compile(rf"def\s+{re.escape(function)}\s*\("), text):
        start = text.rfind("\n", 0, m.start()) + 1
        body = m.end() + len(balanced(text, m.end()))
        body_text = _DOCSTRING.sub("", text[body:block_end(text, body, len(text[start:m.start()].expandtabs(4)))])
        calls = [c.group(1) for c in _ONE_LITERAL_CALL.finditer(body_text)]
        found |= {comparable(calls[0])} if len(calls) == 1 else set()
    return found.pop() if len(found) == 1 else None


def _registered(text: str, word: str) -> re.Match[str] | None:
    """A setting registered under a dotted key ending in the parameter's name (`pad_inches`:
    `_Param("savefig.pad_inches", default=0.1)`), when the file registers one such key."""
    found = list(re.finditer(rf"""\(\s*(["'])[a-z][\w.]*\.{word}\1\s*,\s*([^,)\n]+)""", text)) if "." + word.replace("\\", "") in text else []
    return found[0] if len(found) == 1 else None


def _deferred(text: str, word: str) -> bool:
    """A parameter defaulting to None that the body replaces with a setting's value (`if pad_inches in [None,
    "layout"]:` then `pad_inches = rcParams['savefig.pad_inches']`): its default is that setting's, not None."""
    return next(word_start(re.compile(
        rf"""if\s+{word}\s+(?:is\s+None|in\s+[\[(]\s*None\b[^\n]*?)\s*:\s*\n[ \t]+{word}\s*=\s*[\w.]+\[\s*(["'])[\w.-]+\1\s*\]"""), text), None) is not None


def _applied(text: str, word: str) -> str | None:
    """The value a body gives a parameter whose default is None (`if chunk_n_max is None:` then
    `chunk_n_max = 500`): a literal, when the file applies one and only one."""
    found = {comparable(m.group(1)) for m in word_start(re.compile(
        rf"if\s+{word}\s+is\s+None\s*:\s*\n[ \t]+{word}\s*=\s*([\d.]+|True|False|\"[^\"\n]*\"|'[^'\n]*')[ \t]*(?:#[^\n]*)?\n"), text)}
    return found.pop() if len(found) == 1 else None


def class_fields(text: str, word: str) -> set[str]:
    """The values assignments to `word` (a regex) right in a class body give, whatever the class:
    an assignment's block is opened by the last line before it indented less (a method's local
    is not a field)."""
    out = set()
    for m in re.finditer(rf"\n([ \t]+){word}\s*(?::[^=\n]+)?=(?!=)\s*([^\n]+)", text):
        indent, at = len(m.group(1).expandtabs(4)), m.start()
        while at > 0:
            start = text.rfind("\n", 0, at - 1) + 1
            line = text[start:at].rstrip("\n")
            if line.strip() and len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip()) < indent:
                if re.match(r"[ \t]*class\s", line):
                    out.add(comparable(m.group(2)))
                break
            at = start
    return out


def param_default(text: str, of: str, name: str) -> str | None:
    """The default `of`'s parameter `name` has in `text`: `of` a function (`get`), a class (its
    `__init__`: `HTTPAdapter`) or a method (`Dataset.copy`); None when the file does not define
    it, or defines it more than once with different defaults."""
    parts = of.split(".")
    cls = parts[-2] if len(parts) > 1 else parts[-1] if parts[-1][:1].isupper() else ""
    fn = "__init__" if cls == parts[-1] else parts[-1]
    if name not in text or (cls and f"class {cls}" not in text):
        return None
    spans = [(0, len(text))]
    if cls:
        spans = [(head, block_end(text, head, indent)) for head, indent in classes(text, [cls])]
    found = set()
    for lo, hi in spans:
        for m in word_start(re.compile(rf"def\s+{re.escape(fn)}\s*\("), text[lo:hi]):
            params = balanced(text, lo + m.end())
            got = re.search(rf"(?:^|[(,\s*])(?<![\w.]){re.escape(name)}\s*(?::[^=,]+)?=\s*([^,\n]+)", params)
            if got is not None:
                found.add(comparable(literal_of(text, got.group(1).rstrip(")").strip())))  # `= _SIZE`: its literal
    return found.pop() if len(found) == 1 else None


def parameter_defaults(text: str, name: str) -> list[tuple[str, str]]:
    """(function, default as written) for each parameter `name` of a `def` in `text` with a default before any bracket
    in its signature: what `def\\s+(IDENT)\\s*\\([^()]*?(?<![\\w.])NAME\\s*(?::[^=,()]+)?=\\s*([^,()\\n]+)` finds. The
    signatures are read once per text (`signatures`) and searched for the name (a name that is not a plain word: by
    that pattern itself)."""
    word = re.escape(name)
    if _WORD.fullmatch(name) is None:
        return [(m.group(1), m.group(2)) for m in re.finditer(
            rf"def\s+({IDENT})\s*\([^()]*?(?<![\w.]){word}\s*(?::[^=,()]+)?=\s*([^,()\n]+)", text)]
    out, after = [], 0  # (a match ending past the next `def`: that one is not read, as by `finditer`)
    for function, start, lo, hi in signatures(text):
        if start >= after and text.find(name, lo, hi) >= 0 and (m := re.compile(  # (compiled once: `re`'s cache)
                rf"(?<![\w.]){word}\s*(?::[^=,()]+)?=\s*([^,()\n]+)").search(text, lo, hi)) is not None:
            out.append((function, m.group(1)))
            after = m.end()
    return out


@state.cached(maxsize=1024)
def signatures(text: str) -> tuple[tuple[str, int, int, int], ...]:
    """Each `def NAME(` in `text`: (NAME, where `def` is, where its parameters start, where the first bracket after
    that is: no parameter default `parameter_defaults` reads goes past it)."""
    out = []
    for m in _DEF_OPEN.finditer(text):
        bracket = _BRACKET.search(text, m.end())
        out.append((m.group(1), m.start(), m.end(), bracket.start() if bracket is not None else len(text)))
    return tuple(out)


def classes(text: str, names: Iterable[str]) -> list[tuple[int, int]]:
    """(where the name ends, the indentation) of each `class NAME` at a line's start in `text` naming one of `names`:
    what `(?:^|\\n)([ \\t]*)class\\s+(NAME|...)\\b` finds, read from `class_heads` (names not plain words: by the pattern)."""
    names = list(names)  # (in order: the pattern's alternatives are tried in turn)
    if not names or any(_WORD.fullmatch(n) is None for n in names):
        return [(m.end(), len(m.group(1).expandtabs(4))) for m in re.finditer(
            rf"(?:^|\n)([ \t]*)class\s+({'|'.join(map(re.escape, names))})\b", text)] if names else []
    out, after, wanted = [], 0, set(names)
    for name, start, end, indent in class_heads(text):
        if name in wanted and start >= after:
            out.append((end, indent))
            after = end
    return out


@state.cached(maxsize=1024)
def class_heads(text: str) -> tuple[tuple[str, int, int, int], ...]:
    """Each `class NAME` at a line's start in `text`: (NAME, where the match starts, where NAME ends, the indentation)."""
    return tuple((m.group(2), m.start(), m.end(2), len(m.group(1).expandtabs(4))) for m in _CLASS_HEAD.finditer(text))


def word_start(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """What `re.finditer` of `\\b` + `pattern` gives (`pattern` opening with a word character, `if\\s+name...`): the
    matches of `pattern` no word character precedes, each searched from the end of the one before. Without `\\b` the
    pattern opens with a literal the search skips ahead to; with it, every position of a long file is tried (30 times
    slower)."""
    at = 0
    while (m := pattern.search(text, at)) is not None:
        if m.start() == 0 or _WORD_CHAR.match(text, m.start() - 1) is None:
            yield m
            at = m.end()
        else:  # (a match `\\b` refuses, `elif name is None:`: the search goes on from its next character)
            at = m.start() + 1


def balanced(text: str, start: int) -> str:
    """The text from `start` (just after an opening parenthesis) to its closing one (a bracket
    in a string or a comment, `sep=")"`, is none), or to the end when it does not close."""
    depth = 1
    for m in SOURCE_TOKEN.finditer(text, start):
        depth += m.group() in ("(", "[", "{")
        depth -= m.group() in (")", "]", "}")
        if not depth:
            return text[start:m.start()]
    return text[start:]
