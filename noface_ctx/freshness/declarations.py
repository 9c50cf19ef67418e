"""What one version of a Python file defines: the definition table a name resolves against.

`declared(text)` answers two sets, read once per text (memoised), the same way for the code as
it is now (`code_words` keeps them per file) and for any commit (`presence`, `history`):

- `names`: what a doc can mean by a bare or qualified name — a `def` or `class` at any depth, a
  function's parameter, an assignment or annotation outside function bodies (module level, in an
  `if` / `try` there, or in a class body: dataclass fields and enum members too), a name an
  `import` outside function bodies binds (a re-export), a string in `__all__`, and a string the module's
  `__getattr__` answers for (an alias or a deprecation shim: a name it compares against, a key of a
  dict it looks up; the function at module level or in a module-level `if not TYPE_CHECKING:` / `try`),
  and a key of an alias table a module-level call is handed (`set_deprecated_aliases({"Event":
  "pkg.Event"})`: every key a name, every value a dotted path; such a call installs the `__getattr__`);
- `attributes`: instance attributes set in methods (`self.name = ...`), which a doc can reach
  as a member (`Flask.config`), never as a bare name;
- `top`: the module's own names (`pkg.models.check_password`): `names` less what only a class
  body (a method), a function (a parameter, a nested def) defines.

A word that only occurs (a call left behind, a string, a comment, a notebook) defines nothing.
"""

from __future__ import annotations

import bisect
import keyword
import re
from dataclasses import dataclass

from noface_ctx import _state as state
from noface_ctx.freshness.bound_words import may_define
from noface_ctx.freshness.definitions import blank_docstrings, block_end

# every pattern below starts at a newline (the text is read with one in front): a literal first
# character lets the search skip to line starts
_HEADER = re.compile(r"\n(?=(?P<indent>[ \t]*))(?P=indent)(?:async\s+)?(?P<kw>def|class)\s+(?P<name>[A-Za-z_]\w*)")
_PARAMS = re.compile(r"\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)", re.S)
_PARAM = re.compile(r"(?:^|,)\s*\**\s*([A-Za-z_]\w*)\s*(?=[:=,]|$)")
_PARAM_COMMENT = re.compile(r"(^|,)[ \t]*#[^\n]*", re.M)  # a comment line, or after a comma: the next parameter follows it
# possessive (`*+`): what a name, a blank or a type took never ends in what may follow it, so
# giving it back never helps (and retrying, line by line, was most of the time)
_ASSIGN = re.compile(r"\n[ \t]*+(?P<names>(?:[A-Za-z_]\w*+[ \t]*+,[ \t]*+)*+[A-Za-z_]\w*+)[ \t]*+(?::[^=\n]*+)?[-+*/|&]?=(?!=)")
_CHAINED = re.compile(r"[ \t]*+([A-Za-z_]\w*+)[ \t]*+=(?!=)")  # `A = B = value`: B after A's `=`
_ANNOTATION = re.compile(r"\n[ \t]++([A-Za-z_]\w*+)[ \t]*+:[ \t]*+[^\s=]")  # a field: `size: int`
_SELF_ATTR = [re.compile(rf"{who}\.([A-Za-z_]\w*+)[ \t]*+(?::[^=\n]*+)?=(?!=)") for who in ("self", "cls")]
_FROM = re.compile(r"from\s+[\w.]+\s+import\s+(\([^)]*\)|[^\n#;]+)")
_IMPORT = re.compile(r"import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)")
_IMPORT_LINE = re.compile(r"\n[ \t]*(?P<stmt>from[ \t]+(?P<module>\S+)[ \t]+import[ \t]*(?P<star>\*)?|import[ \t])")
_ALL = re.compile(r"\n__all__\s*(?::[^=\n]*)?\+?=\s*[\[(]([^\])]*)[\])]")
_STRING_NAME = re.compile(r"[\"']([A-Za-z_]\w*)[\"']")
_KEYWORDS = frozenset(keyword.kwlist) | frozenset({"match", "case", "type"})


@dataclass(frozen=True, slots=True)
class Declared:
    """A file's definition table: `names` a doc can mean, `attributes` set on instances."""

    names: frozenset[str]
    attributes: frozenset[str]
    stars: tuple[str, ...] = ()  # modules imported with `from x import *` (as written: `.x` is relative)
    top: frozenset[str] = frozenset()  # the module's own names: `names` but for class members, parameters, locals
    getattrs: tuple[tuple[int, int], ...] = ()  # the module's `__getattr__` functions: (offset of `def`, end of the body)

    def defines(self, name: str, *, member: bool = False, top: bool = False) -> bool:
        """Whether the file itself defines `name` (as a member: instance attributes too; `top`:
        as a name of the module, `models.check_password`, not a method of a class in it); what
        its `*` imports bring is `codebase.Codebase.module_defines`'s question."""
        if top:
            return name in self.top
        return name in self.names or (member and name in self.attributes)


# django's first run reads 1,846 distinct texts' tables, 535 of them twice (a file's words, then
# the references resolved and the removals): 512 let those go and read them again
_MEMO: state.Memo[str, Declared] = state.memo("freshness.declarations", maxsize=2048)


def declared(text: str) -> Declared:
    """The definition table of Python source `text` (see the module docstring)."""
    found = _MEMO.get(text)
    return found if found is not None else _MEMO.put(text, _read(text))


def text_defines(text: str, name: str, *, member: bool = False, top: bool = False) -> bool:
    """`declared(text).defines(name, ...)`; a text that does not hold `name` at all, or holds it
    only where no definition puts a name (`bound_words.may_define`: `name(...)`, `obj.name`),
    defines nothing (every name of a table is a part of its text): its table is not read."""
    return name in text and may_define(text, name) and declared(text).defines(name, member=member, top=top)


def _read(text: str) -> Declared:
    text = "\n" + blank_docstrings(text)
    names: set[str] = set()
    outer: set[str] = set()  # defined outside class and function bodies somewhere
    bodies: list[tuple[int, int]] = []  # the outermost function bodies, in order: (start, end)
    classes: list[tuple[int, int]] = []  # class bodies: (start, end)
    class_end = 0  # the furthest end of a class body so far: a header before it is in a class
    getattrs: list[tuple[int, int]] = []  # offsets in the text as given (one less than here)
    for m in _HEADER.finditer(text):
        kind, name, at = m.group("kw"), m.group("name"), m.start("kw")
        names.add(name)
        in_body = bool(bodies) and bodies[-1][0] <= at < bodies[-1][1]
        if not (at < class_end or in_body):  # every class so far starts before `at`
            outer.add(name)
        if kind == "class":
            classes.append((m.end(), block_end(text, m.end(), len(m.group("indent").expandtabs(4)))))
            class_end = max(class_end, classes[-1][1])
        if kind != "def":
            continue
        params = _PARAMS.match(text, m.end())
        if params is not None:
            written = params.group(1)
            names.update(p for p in _PARAM.findall(_PARAM_COMMENT.sub(r"\1", written) if "#" in written else written)
                         if p not in ("self", "cls"))
        if in_body:
            continue  # a nested function: inside a body already
        indent = len(m.group("indent").expandtabs(4))
        end = block_end(text, m.end(), indent)
        bodies.append((m.end(), end))
        if name == "__getattr__" and at >= class_end:  # a module's aliases and deprecation shims (at
            # module level, or in a module-level `if not TYPE_CHECKING:` / `try`: still the module's)
            shims = set(_STRING_NAME.findall(text, m.end(), end)) | _table_keys(text, text[m.end():end])
            names.update(shims)
            outer.update(shims)
            getattrs.append((at - 1, end - 1))
    gaps = [(0 if i == 0 else bodies[i - 1][1], start) for i, (start, _end) in enumerate(bodies)]
    gaps.append((bodies[-1][1] if bodies else 0, len(text)))  # the text outside function bodies
    in_class = _Spans(classes)
    for lo, hi in gaps:
        for m in _ASSIGN.finditer(text, lo, hi):
            found = {n.strip() for n in m.group("names").split(",")}
            at = m.end()
            while (chained := _CHAINED.match(text, at, hi)) is not None:
                found.add(chained.group(1))
                at = chained.end()
            names.update(found)
            if not in_class(m.start()):
                outer.update(found)
        for m in _ANNOTATION.finditer(text, lo, hi):
            if m.group(1) not in _KEYWORDS:
                names.add(m.group(1))
                if not in_class(m.start()):
                    outer.add(m.group(1))
    stars = []
    for lo, hi in gaps:  # an import in a function binds a local, not a name of the module
        for m in _IMPORT_LINE.finditer(text, lo, hi):
            found = _imported(text, m.start("stmt"))
            names.update(found)
            if not in_class(m.start()):
                outer.update(found)
            if m.group("star") is not None:
                stars.append(m.group("module"))
    tables, serving = "{" in text, _may_serve(text)  # neither searched in a text that cannot hold it
    for lo, hi in gaps:  # alias tables handed to a call outside function bodies
        for m in _CALLED_TABLE.finditer(text, lo + 1, hi) if tables else ():
            if not _CALLEE_END.match(text, m.start() - 1):
                continue
            aliases = _ALIAS_ENTRY.findall(m.group(1))
            if aliases and not _ALIAS_ENTRY.sub("", m.group(1)).strip():
                names.update(aliases)
                outer.update(aliases)
        served = _served_keys(text, lo, hi) if serving else set()
        names.update(served)
        outer.update(served)
    for block in _ALL.findall(text):
        names.update(_STRING_NAME.findall(block))
        outer.update(_STRING_NAME.findall(block))
    names.difference_update(_KEYWORDS)
    attributes = {a for pattern in _SELF_ATTR for a in pattern.findall(text)}
    return Declared(frozenset(names), frozenset(attributes), tuple(stars), frozenset(outer - _KEYWORDS), tuple(getattrs))


class _Spans:
    """Whether an offset lies in one of some (start, end) spans: their union, searched by bisection."""

    __slots__ = ("ends", "starts")

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        for lo, hi in sorted(s for s in spans if s[0] < s[1]):
            if self.ends and lo <= self.ends[-1]:
                self.ends[-1] = max(self.ends[-1], hi)
            else:
                self.starts.append(lo)
                self.ends.append(hi)

    def __call__(self, at: int) -> bool:
        i = bisect.bisect_right(self.starts, at) - 1
        return i >= 0 and at < self.ends[i]


def _table_keys(text: str, getattr_body: str) -> set[str]:
    """The string keys of the module-level dicts a `__getattr__` looks names up in
    (`if name in _DEPRECATED: return _DEPRECATED[name]`: pydicom's deprecation shims)."""
    tables = {a or b for a, b in _LOOKUP.findall(getattr_body)}
    out: set[str] = set()
    for m in _DICT.finditer(text):
        if m.group(1) in tables:
            end = block_end(text, m.end(), 0)
            out.update(_KEY.findall(text, m.end(), end))
    return out


def _served_keys(text: str, lo: int, hi: int) -> set[str]:
    """The string keys of a dict literal handed to a module-level call whose name says it serves
    names (`deprecate_attributes(__name__, {"Old": DeprecatedAttribute(_Old, ...)})`, `set_aliases`,
    `lazy_import`): names the module hands out, whatever the values are (calls, strings, objects)."""
    out: set[str] = set()
    for m in _SERVING_CALL.finditer(text, lo, hi):
        stack, flat = ["("], []
        for ch in text[m.end():block_end(text, m.end(), 0)]:
            if ch in "([{":
                stack.append(ch)
            elif ch in ")]}" and len(stack) > 1:
                stack.pop()
            elif ch in ")]}":
                break
            flat.append(ch if stack == ["(", "{"] else " ")  # a dict argument's own text, its values' insides blanked
        out.update(_KEY.findall("".join(flat)))
    return out


def _may_serve(text: str) -> bool:
    """Whether `_SERVING_CALL` may match in `text`: not when its lower case holds none of its words
    (with `ı`, `ſ` and `İ`'s combining dot made plain: what `re.IGNORECASE` also takes for `i` and `s`)."""
    lower = text.lower()
    if not text.isascii():
        lower = lower.replace("\u0131", "i").replace("\u017f", "s").replace("\u0307", "")
    return "deprecat" in lower or "alias" in lower or "lazy" in lower


_SERVING_CALL = re.compile(r"^[ \t]*[\w.]*?(?:deprecat|alias|lazy)\w*\s*\(", re.IGNORECASE | re.MULTILINE)
# `f({...})`: a dict literal as a call's argument, the callee's last character (`[\w\]]`) checked apart: a
# pattern starting at the literal `(` lets the search skip to it (with the class first: a third of `_read`)
_CALLED_TABLE = re.compile(r"\(\s*\{([^{}]*)\}\s*[,)]")
_CALLEE_END = re.compile(r"[\w\]]")
_ALIAS_ENTRY = re.compile(r"""\s*["']([A-Za-z_]\w*)["']\s*:\s*["'][A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+["']\s*,?(?:[ \t]*#[^\n]*)?""")
_LOOKUP = re.compile(r"\bin\s+([A-Za-z_]\w*)\b|\b([A-Za-z_]\w*)(?:\[|\.get\()")
_DICT = re.compile(r"\n([A-Za-z_]\w*)\s*(?::[^=\n]*)?=\s*(?:dict\()?\{")
_KEY = re.compile(r"[\"']([A-Za-z_]\w*)[\"']\s*:")


def _imported(text: str, at: int) -> set[str]:
    """The names an import statement starting at `at` binds."""
    m = _FROM.match(text, at)
    if m is not None:
        body = m.group(1).strip("() \t")
        out = set()
        for part in re.split(r"[,\n]", body):
            name, _, alias = part.split("#", 1)[0].strip().partition(" as ")
            bound = (alias or name).strip()
            if bound.isidentifier():
                out.add(bound)
        return out
    m = _IMPORT.match(text, at)
    if m is None:
        return set()
    out = set()
    for part in m.group(1).split(","):
        name, _, alias = part.strip().partition(" as ")
        out.add(alias.strip() or name.strip().split(".", 1)[0])
    return out
