"""Defaults a doc states, against the code's (issue 25, rule 5).

`stated_defaults(doc)` finds where a doc states a default: a `:default:` option under a
directive (`.. confval:: tmp_path_retention_count` then `:default: ``"3"```), or a sentence
saying "by default" / "defaults to" / "Default:" next to a name in code (``prefix``,
:confval:`name`, on that line or the one before or after in its paragraph), with the value it
gives when it quotes one. `code_default(text, name, near)` reads a name's default in a code
file: a registration call (`add_config_value('name', '¶', ...)`, `addini("name", ...,
default="3")`), a parameter (`def from_prefixed_env(self, prefix: str = "FLASK", ...)`; with
several, the one of a function the doc's sentence names), or a class or module level
assignment (a dataclass field, a settings constant).

`changed_defaults` reports a stated default whose code default changed since the doc's last
commit (and differs from what the doc says), naming the commit that changed it; a default the
code never states, or that did not change, is never a finding.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from noface_ctx.datatypes import ChangedRef, Doc
from noface_ctx.freshness.definitions import block_end
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.judgement import UNCOMMITTED
from noface_ctx.freshness.references import IDENT, codeish

_DEFAULT_WORD = re.compile(r"(?i)\bdefault(?:s|ed)?\b")
_OPTION = re.compile(r"^\s+:default:\s*(.+?)\s*$")
_DIRECTIVE = re.compile(rf"^\s*\.\.\s+[\w:-]+::\s+({IDENT}(?:\.{IDENT})*)")
_SPAN = re.compile(r"(?::[\w:-]+:)?(`+)([^`]+?)\1")
_TITLE = re.compile(r"^.*<([^<>]+)>$")
_LITERAL = re.compile(r"[\d.]+|True|False|None|[A-Z][A-Z0-9_]*")  # a value prose states unquoted
_VALUE_AFTER = re.compile(r"(?i)\b(?:defaults?\s+(?:to|is)|by\s+default,?(?:\s+the\s+last)?|default:)\s+([\w.'\"+-]+)")


@dataclass(frozen=True, slots=True)
class Stated:
    """A default a doc states: the names it may be about, the line, the value quoted (or "")."""

    names: tuple[str, ...]
    line: int
    value: str


def stated_defaults(doc: Doc) -> list[Stated]:
    """Where the doc states a default (see the module docstring)."""
    lines = doc.text.split("\n")
    out: list[Stated] = []
    target = ""
    for i, line in enumerate(lines):
        d = _DIRECTIVE.match(line)
        if d is not None:
            target = d.group(1).rsplit(".", 1)[-1]
            continue
        option = _OPTION.match(line)
        if option is not None and target:
            out.append(Stated((target,), i + 1, _value(option.group(1))))
            continue
        if not line.strip():
            target = ""
        if _DEFAULT_WORD.search(line) is None or line.lstrip().startswith(":"):
            continue
        around = [lines[j] for j in (i - 1, i, i + 1) if 0 <= j < len(lines) and lines[j].strip()]
        names = tuple(dict.fromkeys(n for text in around for n in _names(text)))
        if names:
            spans = [s for s in _spans(line) if s.removesuffix("()").rsplit(".", 1)[-1] not in names]
            after = _VALUE_AFTER.search(line)
            value = _value(spans[0]) if spans else _value(after.group(1)) if after else ""
            value = value if spans or _LITERAL.fullmatch(value) else ""
            if value:  # a sentence that says what the default is: one that can be wrong
                out.append(Stated(names, i + 1, value))
    return out


def _spans(line: str) -> list[str]:
    return [(t.group(1) if (t := _TITLE.match(m.group(2))) else m.group(2)).strip().lstrip("~.!")
            for m in _SPAN.finditer(line)]


def _names(line: str) -> list[str]:
    """Code names a line's spans and roles give: `prefix`, `~flask.Config.from_prefixed_env`
    (a plain word, `prefix`, only counts as a parameter of a function named beside it)."""
    out = []
    for span in _spans(line):
        parts = span.removesuffix("()").split(".")
        for name in parts[-2:][::-1]:  # `Options.timeout`: the field, and the class it belongs to
            if re.fullmatch(IDENT, name) and (codeish(name) or name.islower() or (name[:1].isupper() and not name.isupper())) and len(name) > 2:
                out.append(name)
    return out


def _plain(name: str) -> bool:
    """A plain word (`prefix`, `path`): too common to stand for a setting or field alone."""
    return not codeish(name)


def _value(text: str) -> str:
    """A stated or coded default, comparable: quotes (either style), backticks, roles, a comment,
    white space and a trailing `_` aside (Black's reformatting changes no default)."""
    text = re.sub(r":[\w:-]+:", "", text).strip()
    spans = re.findall(r"`+([^`]+)`+", text)
    text = spans[0] if spans else text.split(" (", 1)[0].split("  #", 1)[0]
    text = re.sub(r"\s+", "", text.strip().rstrip(",")).replace("'", '"')
    return text.strip('"').rstrip("_")


def code_default(text: str, name: str, near: Iterable[str] = ()) -> str | None:
    """The default the code in `text` gives `name` (see the module docstring), or None."""
    if name not in text:
        return None
    word = re.escape(name)
    near = [n for n in near if n != name]
    # `add_config_value('name', '¶', ...)`, `addini(\n "name", ..., default="3")`: the name a call's first argument
    call = None if _plain(name) else re.search(rf"""\(\s*(["']){word}\1\s*,\s*([^,)\n]+)""", text)
    if call is not None:
        rest = text[call.end(): call.end() + 400]
        keyword = re.search(r"\bdefault\s*=\s*([^,)\n]+)", rest.split("\n)", 1)[0])
        positional = call.group(2).strip()
        if keyword is not None:
            return _value(keyword.group(1))
        if not re.match(r"^\w+\s*=", positional):
            return _value(positional)
    params = {m.group(1): _value(m.group(2)) for m in re.finditer(  # a parameter: `def f(self, name: str = "x")`
        rf"def\s+({IDENT})\s*\([^()]*?(?<![\w.]){word}\s*(?::[^=,()]+)?=\s*([^,()\n]+)", text)}
    chosen = [v for f, v in params.items() if f in set(near)]
    for cls in re.finditer(rf"(?:^|\n)([ \t]*)class\s+({'|'.join(map(re.escape, near))})\b", text) if any(
            f"class {n}" in text for n in near) else ():  # a field of a class named beside it
        if cls.group(2) in near:
            indent = len(cls.group(1).expandtabs(4))
            end = block_end(text, cls.end(), indent)
            inner = re.search(r"\n([ \t]+)\S", text[cls.end():end])  # the body's own level: not a method's locals
            level = re.escape(inner.group(1)) if inner is not None else "[ \t]+"
            field = re.search(rf"\n{level}{word}\s*(?::[^=\n]+)?=(?!=)\s*([^\n]+)", text[cls.end():end])
            if field is not None:
                chosen.append(_value(field.group(1)))
    if _plain(name):  # a plain word: only as a parameter or field of what is named beside it
        return chosen[0] if len(set(chosen)) == 1 else None
    if params:
        values = set(chosen or params.values())
        return values.pop() if len(values) == 1 else None
    if name != name.lower():  # a class or an alias (`RemovedInNextVersionWarning = ...`) has no default
        return None
    assign = re.search(rf"(?:^|\n){word}\s*(?::[^=\n]+)?=(?!=)\s*([^\n]+)", text)  # module level only: not a local
    return _value(assign.group(1)) if assign is not None else None


def changed_defaults(stated: Sequence[Stated], since: Commit, index: HistoryIndex,
                     holders: dict[str, set[str]], now_text: Callable[[str], str | None],
                     touched: Callable[[str], bool]) -> list[ChangedRef]:
    """The stated defaults whose code default changed since commit `since` (the doc's last):
    `holders` maps a name to the code files holding it now, `now_text` reads a file now,
    `touched(path)` tells whether it changed since `since` (commits or uncommitted edits)."""
    out: list[ChangedRef] = []
    seen: set[str] = set()
    for st in stated:
        for name in st.names:
            if name in seen:
                continue
            homes = [p for p in sorted(holders.get(name, ())) if code_default(now_text(p) or "", name, st.names) is not None]
            if len({code_default(now_text(p) or "", name, st.names) for p in homes}) > 1:  # coded in several files (`template_name` on many views): the one naming what the doc names
                named = [p for p in homes if any(f"class {n}" in (text := now_text(p) or "") or f"def {n}" in text
                                                 for n in st.names if n != name)]
                homes = named if len(named) == 1 else []
            for path in homes:
                if not touched(path):
                    continue
                now = code_default(now_text(path) or "", name, st.names)
                then_text = index.versions.text_at(since.sha, path)
                then = code_default(then_text, name, st.names) if then_text is not None else None
                if now is None or then is None or now == then or (st.value and st.value == now):
                    continue
                seen.add(name)
                out.append(ChangedRef(name, st.line, path, _changed_at(index, path, since, name, st.names, then),
                                      "default"))
                break
    return out


def _changed_at(index: HistoryIndex, path: str, since: Commit, name: str, near: Sequence[str], then: str) -> str:
    """The label of the first commit after `since` where `path`'s default for `name` is no
    longer `then` ("uncommitted edits" when no commit changed it)."""
    for commit, current in index.path_history(path, since.seq):
        text = index.versions.text_at(commit.sha, current) if current is not None else None
        if text is None or code_default(text, name, near) != then:
            return commit.label()
    return UNCOMMITTED
