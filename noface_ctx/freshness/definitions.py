"""Definitions compared across versions of a file, and what replaced a removed name in a diff.

`definition(text, name)` is a regex definition finder (nesting by indentation) that answers a
definition's comparable text: a function's signature and body (docstrings, comments, blank
lines, layout, type annotations and type parameters aside), a class's header line and
`__init__` signature; `signature` and `body` split it. Whether a caller notices a signature
change is `noface_ctx.freshness.parameters`'s question.
`replacements(diff, name)` votes for the identifiers that took `name`'s place in a `-U0` diff.
`noface_ctx.freshness.history` asks both of two versions read from git.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterator

from noface_ctx import _state as state
from noface_ctx.freshness.attached import attached_function
from noface_ctx.freshness.body_tokens import IDENT as _IDENT
from noface_ctx.freshness.body_tokens import closing, comment_start, comparable_body
from noface_ctx.freshness.body_tokens import tokens as _tokens
from noface_ctx.freshness.code_digest import sources_version
from noface_ctx.freshness.constant_defaults import with_literals
from noface_ctx.freshness.generated_init import generated_init

# The version of what `definition`, `signature` and `body` answer, for the caches that keep it (history's
# `defs`): the code's digest, so a change here or in a helper is never read back from an older cache. Raise
# the number only for a change the sources do not show. 6: a method attached under another name is that
# function's definition; 2: `defs` and `greps` kept; 3: a body's own locals numbered, split strings joined;
# 4: greps kept across commits; 5: a docstring's closing line with a comment no longer ends the definition.
ANSWERS_VERSION = sources_version(6, "definitions", "attached", "body_tokens", "generated_init", "constant_defaults")

_INDENT = r"(?=(?P<indent>[ \t]*))(?P=indent)"  # atomic: giving back indentation never helps, and retrying is slow
_DEF_HEAD = "^" + _INDENT + (
    r"(?:(?:export|default|public|private|protected|internal|static|final|abstract|async|"
    r"pub(?:\([^)]*\))?|unsafe|extern|inline|virtual|override|open|suspend|const|declare)\s+)*"
    r"(?P<kw>def|class|function\*?|fn|func|struct|enum|trait|interface|type|impl|union|object|record)\s+"
    r"(?:\([^)]*\)\s*)?"
)
DEFINITION_HEADER = re.compile(_DEF_HEAD + r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)\b", re.M)  # a definition's start
# the same after a newline: a literal first character lets the search skip to line starts
_HEADER_AFTER_NEWLINE = re.compile("\n" + DEFINITION_HEADER.pattern[1:])
_CONTAINERS = frozenset({"class", "struct", "enum", "trait", "interface", "impl", "union", "object", "record"})
_DOCSTRING = re.compile(r"(\"\"\"|''')[\s\S]*?\1")
_COMMENT = re.compile(r"^\s*(#|//)")
_STRING = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'")


def definition(text: str, name: str) -> str | None:
    """The comparable text of `name`'s definition in `text` (`Class.method` is looked up inside
    `Class`), or None when it is not defined there or defined more than once at that level.
    A function: its header without type annotations, then its body as tokens (docstrings,
    comments, layout aside); a container (class, struct, ...): its header and its `__init__`
    signature. The headers of a text are found once (`_headers`), for every name asked of it."""
    headers = _headers(text)
    text = headers.text
    lo, hi, outer = 0, len(text), -1
    found: tuple[int, int, int, str] | None = None
    for part in name.split("."):
        if _IDENT.fullmatch(part):
            hits = [h for h in headers.by_name.get(part, ()) if lo <= h[1] and h[2] <= hi and h[0] > outer]
        else:  # not an identifier: the slow way
            pattern = re.compile(_DEF_HEAD + re.escape(part) + r"\b", re.M)
            hits = [(len(m.group("indent").expandtabs(4)), m.start(), m.end(), m.group("kw"))
                    for m in pattern.finditer(text, lo, hi)]
            hits = [h for h in hits if h[0] > outer]
        if not hits:  # a method attached under another name (`obj.extend(name=self._func)`): the function's
            func = attached_function(headers.text, name) if part == name else None
            return definition(headers.text, func) if func else None
        top = min(h[0] for h in hits)
        level = [h for h in hits if h[0] == top]
        if len(level) != 1:
            return None
        _ind, m_start, m_end, kw = level[0]
        end = block_end(text, m_end, top)
        found = (m_start, end, top, kw)
        lo, hi, outer = m_end, end, top
    assert found is not None
    start, end, _indent, kw = found
    block = text[start:end]
    if kw not in _CONTAINERS:  # a default written as a module constant: its literal (`constant_defaults`)
        header, nl, rest = _normal(block).partition("\n")
        return with_literals(header, text) + nl + rest
    head = with_literals(_signature(block), text)
    init = re.compile(_DEF_HEAD + r"__init__\b", re.M).search(text, start, end)
    if init is not None:
        head += "\n" + with_literals(_signature(text[init.start():block_end(text, init.end(), len(init.group("indent")))]), text)
    elif kw == "class" and (generated := generated_init(text, start, end)) is not None:
        head += "\n" + _signature(generated)  # a dataclass's, an attrs class's, a NamedTuple's: from its fields
    return head


def blank_docstrings(text: str) -> str:
    """`text` with each docstring (a `_DOCSTRING` match: triple quotes to the next same three)
    as spaces, its newlines kept: what follows its closing quotes (a `# noqa: E501` comment Ruff
    added there, in pydicom) keeps its column, so the block around it does not end there."""
    parts: list[str] = []
    done = pos = 0
    while (m := _TRIPLE.search(text, pos)) is not None:
        close = text.find(m.group(), m.end())
        if close < 0:  # never closed: no docstring starts here
            pos = m.start() + 1
            continue
        parts += text[done:m.start()], "\n".join(" " * len(line) for line in text[m.start():close + 3].split("\n"))
        done = pos = close + 3
    return "".join(parts) + text[done:] if parts else text


_TRIPLE = re.compile(r"\"\"\"|'''")


class _Headers:
    """A text with its docstrings blanked out (examples in docstrings define nothing), and every
    definition header in it by name: (indent, start, end of the header up to the name, keyword)."""

    __slots__ = ("by_name", "text")

    def __init__(self, text: str) -> None:
        self.text = blank_docstrings(text)
        self.by_name: dict[str, list[tuple[int, int, int, str]]] = {}
        for m in _header_matches(self.text):
            self.by_name.setdefault(m.group("name"), []).append(
                (len(m.group("indent").expandtabs(4)), m.start("indent"), m.end(), m.group("kw")))


def _header_matches(text: str) -> Iterator[re.Match[str]]:
    """`DEFINITION_HEADER.finditer(text)`, faster: a match starts at a line start, the text's
    first or one after a newline."""
    first = DEFINITION_HEADER.match(text)
    if first is not None:
        yield first
    yield from _HEADER_AFTER_NEWLINE.finditer(text, first.end() if first is not None else 0)


# django's first run builds the headers of 656 distinct texts (14 M characters), asked 5,483 times by
# `definition`: 128 kept built 923 (22 M characters), 512 build 667
_HEADERS: state.Memo[str, _Headers] = state.memo("freshness.definitions.headers", maxsize=512)


def _headers(text: str) -> _Headers:
    found = _HEADERS.get(text)
    return found if found is not None else _HEADERS.put(text, _Headers(text))


def block_end(text: str, pos: int, indent: int) -> int:
    """Where the block whose header ends at `pos` ends: the next non-blank line indented at most
    `indent` (closing brackets aside) that does not continue the line before it (a backslash at a
    line's end: pylint's `Run` holds a string continued onto a line at column 0)."""
    if "\t" not in text:  # indentation is a count of characters: one regex search
        found = _block_ender(indent).search(text, pos)
        return found.start() if found is not None else len(text)
    return _block_end_by_lines(text, pos, indent)


def _block_end_by_lines(text: str, pos: int, indent: int) -> int:
    """`block_end` line by line, tabs expanded to 4 columns."""
    nl = text.find("\n", pos)
    while nl != -1:
        line_start = nl + 1
        nxt = text.find("\n", line_start)
        line = text[line_start:nxt if nxt != -1 else len(text)]
        stripped = line.strip()
        if (stripped and len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip()) <= indent
                and stripped[0] not in ")]}" and text[nl - 1:nl] != "\\"):
            return nl
        nl = nxt
    return len(text)


_ENDERS: dict[int, re.Pattern[str]] = {}


def _block_ender(indent: int) -> re.Pattern[str]:
    """A newline, not after a backslash, followed by a line indented at most `indent` whose first
    character is neither white space nor a closing bracket (what `block_end` looks for, in a text
    without tabs)."""
    pattern = _ENDERS.get(indent)
    if pattern is None:
        # the newline first: a literal start lets the search skip to it (a lookbehind first made it 4-7 times slower)
        pattern = _ENDERS[indent] = re.compile(r"\n(?<!\\\n)(?=[^\S\n]{0," + str(indent) + r"}[^\s)\]}])")
    return pattern


def _first(text: str) -> str:
    """The first line of a definition's comparable text (its header)."""
    return text.split("\n", 1)[0].strip()


def is_container(defn: str) -> bool:
    """Whether a `definition` is a container's (class, struct, ...), not a function's."""
    return defn.startswith(tuple(f"{kw} " for kw in _CONTAINERS))


def signature(defn: str) -> str:
    """What a caller sees of a `definition`: a function's header; a container's header and
    `__init__` signature (all of its comparable text)."""
    return defn if is_container(defn) else _first(defn)


def body(defn: str) -> str:
    """A function `definition`'s body (a container's: empty, its signature is all of it)."""
    return "" if is_container(defn) else defn.partition("\n")[2]


_NORMAL: state.Memo[tuple[str, bool], str] = state.memo("freshness.definitions.normal", maxsize=4096)


def _normal(block: str, *, with_body: bool = True) -> str:
    """A definition as comparable text: its header without type annotations on the first line
    (however many lines it is written on), then its body as tokens (docstrings, comments,
    layout, quote style, strings split over lines and trailing commas aside), so reformatting (Black) or an
    annotation-only change is no change. A definition unchanged between versions of a file is
    the same block: worked out once (`_NORMAL`)."""
    found = _NORMAL.get((block, with_body))
    return found if found is not None else _NORMAL.put((block, with_body), _normalise(block, with_body))


def _normalise(block: str, with_body: bool) -> str:
    if not with_body:  # a header is never longer than this: the rest of a long class is not read
        block = "\n".join(block.split("\n", 80)[:80])
    lines = [_uncommented(ln) for ln in _DOCSTRING.sub("", block).split("\n") if ln.strip() and not _COMMENT.match(ln)]
    if not lines:
        return ""
    head = 1  # a header written over several lines ends where its brackets close
    while head < len(lines) and _depth(" ".join(lines[:head])) > 0:
        head += 1
    header = _untyped_header(_untyped_params(" ".join(ln.strip() for ln in lines[:head])))
    if not with_body:
        return _tokens(header)
    return _tokens(header) + "\n" + comparable_body(" ".join(lines[head:]))


def _uncommented(line: str) -> str:
    """`line` without a trailing `#` comment (or `// ` one), strings kept whole."""
    if "#" not in line and "// " not in line:
        return line
    start = comment_start(line, ("#", "// "), spaced=True)
    return line[:start].rstrip() if start >= 0 else line


def _depth(text: str) -> int:
    """How many parentheses and square brackets `text` leaves open (strings aside; a brace
    opens a body in most languages, not a header)."""
    text = _STRING.sub('""', text)
    return sum(text.count(c) for c in "([") - sum(text.count(c) for c in ")]")


def _untyped_params(header: str) -> str:
    """A header without what only type checkers read: type parameters (`def f[T](`, `class
    C[T](`), a `Generic[...]` base and the subscripts of bases (`Base[int]` → `Base`)."""
    m = re.match(r"^(\s*(?:async\s+)?(?:def|class)\s+\w+)\s*\[", header)
    if m:
        end = closing(header, m.end() - 1)
        header = m.group(1) + header[end + 1:] if end > 0 else header
    if not header.lstrip().startswith("class "):
        return header
    open_at = header.find("(")
    close_at = closing(header, open_at) if open_at >= 0 else -1
    if close_at < 0:
        return header
    bases = []
    for base in _split_all(header[open_at + 1:close_at], ","):
        base = base.strip()
        while "[" in base and base.endswith("]"):
            base = base[:base.index("[")].rstrip()
        if base and base.rsplit(".", 1)[-1] != "Generic":
            bases.append(base)
    return header[:open_at] + (f"({', '.join(bases)})" if bases else "") + header[close_at + 1:]


def _split_all(text: str, sep: str) -> list[str]:
    """`text` split at every top-level `sep`."""
    parts = []
    while True:
        head, found, text = _split_top(text, sep)
        parts.append(head)
        if not found:
            return parts


def _untyped_header(block: str) -> str:
    """`def f(a: int = 1, *b: str) -> X:` → `def f(a=1, *b):` (the rest of the block unchanged)."""
    open_at = block.find("(")
    if open_at < 0 or not block.lstrip().startswith(("def ", "async def ")):
        return block
    depth, i = 0, open_at
    parts, cur = [], ""
    while i < len(block):
        ch = block[i]
        if ch in "([{":
            depth += 1
            if depth > 1:
                cur += ch
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                break
            cur += ch
        elif ch == "," and depth == 1:
            parts.append(cur)
            cur = ""
        elif depth >= 1:
            cur += ch
        i += 1
    else:
        return block
    parts.append(cur)
    params = []
    for part in parts:
        name, _, default = _split_top(part, "=")
        name = _split_top(name, ":")[0].strip()
        if name:
            params.append(name + ("=" + " ".join(default.split()) if default.strip() else ""))
    end = block.find(":", i)
    while end >= 0 and block[end + 1:end + 2] not in ("", "\n", " ", "\t"):
        end = block.find(":", end + 1)
    rest = block[end + 1:] if end >= 0 else ""
    return f"{block[:open_at]}({', '.join(params)}):{rest}"


def _split_top(text: str, sep: str) -> tuple[str, str, str]:
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0 and not (sep == "=" and text[i + 1:i + 2] == "="):
            return text[:i], sep, text[i + 1:]
    return text, "", ""


def _signature(block: str) -> str:
    """A definition's header (its comparable first line)."""
    return _first(_normal(block, with_body=False))


def replacements(diff: str, name: str) -> Counter[str]:
    """Identifiers that took `name`'s place in the hunks of a `-U0` diff that removed it."""
    votes: Counter[str] = Counter()
    removed: list[str] = []
    added: list[str] = []

    def flush() -> None:
        for r in removed:
            rt = _IDENT.findall(r)
            if name not in rt or not added:
                continue
            ratio, best = max((difflib.SequenceMatcher(None, r, a).ratio(), a) for a in added)
            if ratio < 0.5 or any(difflib.SequenceMatcher(None, o, best).ratio() > ratio for o in removed if o != r):
                continue  # no added line resembles the removed one, or it is another removed line's edit: not a rename
            at = _IDENT.findall(best)
            for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, rt, at, autojunk=False).get_opcodes():
                if op == "replace" and i2 - i1 == j2 - j1:
                    votes.update(at[j1 + k] for k in range(i2 - i1) if rt[i1 + k] == name and at[j1 + k] != name)
        removed.clear()
        added.clear()

    in_hunk = False
    for line in diff.split("\n"):
        if line.startswith(("@@", "diff ")):
            flush()
            in_hunk = line.startswith("@@")
        elif in_hunk and line.startswith("-"):
            removed.append(line[1:])
        elif in_hunk and line.startswith("+"):
            added.append(line[1:])
    flush()
    return votes
