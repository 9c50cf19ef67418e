"""A class as a short outline that earns its tokens: the first paragraph of its docstring, its
class attributes with their values (and, for the attributes the issue's words touch, their own
docstrings), the signatures of the members that matter to the issue, and the other members
folded to a count with one `NEED_CODE` line.

Attributes are read from the class body's own lines (not inside a member) at the body's
indentation: `name = value`, `name: type = value` and `name: type`. A value spanning several
lines shows its first line and `...`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from noface_ctx._wording_code import folded_members, outline_docstring
from noface_ctx.datatypes import CodeChunk

_ATTR = re.compile(r"^(?P<name>[A-Za-z_]\w*)\s*(?::\s*(?P<type>[^=]+?))?\s*(?:=\s*(?P<value>.+))?$")
_STRING_START = re.compile(r"^[rRbBuUfF]{0,2}(\"\"\"|'''|\"|')")
VALUE_CHARS = 100  # an attribute's value is cut to this many characters
DOC_CHARS = 260  # a docstring paragraph (the class's, or a touched attribute's) is cut to this
SENTENCE_CHARS = 160  # a first sentence (a definition shown as its signature) is cut to this
MAX_ATTRIBUTES = 16  # class attributes listed at most
MAX_FOLDED_NAMES = 12  # names of folded members listed at most


@dataclass(frozen=True, slots=True)
class Attribute:
    """One class attribute: its line, the statement's first line, and its docstring paragraph."""

    line: int
    name: str
    text: str
    doc: str = ""


def first_paragraph(doc: str, limit: int = DOC_CHARS) -> str:
    """The docstring's first paragraph on one line, cut to `limit` characters."""
    para = re.split(r"\n\s*\n", doc.strip(), maxsplit=1)[0]
    text = " ".join(part.strip() for part in para.splitlines() if part.strip())
    text = text.strip("\"' ")
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def first_sentence(doc: str, limit: int = SENTENCE_CHARS) -> str:
    """The docstring's first sentence (of its first paragraph), cut to `limit` characters."""
    para = first_paragraph(doc, limit=len(doc) + 3)
    end = re.search(r"[.!?](?=\s+[A-Z]|\s*$)", para)
    text = para[: end.end()] if end else para
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def class_attributes(lines: Sequence[str], cls: CodeChunk, members: Sequence[CodeChunk]) -> list[Attribute]:
    """The class-level assignments and annotations of `cls` (1-based `lines` of its file), in order."""
    taken = [(m.start_line, m.end_line) for m in members]
    body = _body_lines(lines, cls, taken)
    if not body:
        return []
    indent = _indent(body[0][1])
    out: list[Attribute] = []
    k = 0
    while k < len(body):
        ln, text = body[k]
        k += 1
        if _indent(text) != indent:
            continue
        stripped = text.strip()
        m = _ATTR.match(stripped)
        if m is None or stripped.startswith(("return", "pass", "if ", "for ", "with ", "def ", "class ")):
            continue
        if m.group("type") is None and m.group("value") is None:
            continue
        shown = stripped if len(stripped) <= VALUE_CHARS else stripped[: VALUE_CHARS - 3] + "..."
        if _open_brackets(stripped) > 0 and not shown.endswith("..."):
            shown += " ..."
        doc = ""
        nxt = next((body[j][1] for j in range(k, len(body)) if _indent(body[j][1]) == indent), "")
        if _STRING_START.match(nxt.strip()):  # an attribute docstring right under it
            doc = _string_at(body, k)
        out.append(Attribute(ln, m.group("name"), shown, doc))
    return out


def _body_lines(lines: Sequence[str], cls: CodeChunk, taken: Sequence[tuple[int, int]]) -> list[tuple[int, str]]:
    """(line number, text) of the class body outside its members, header and docstring skipped."""
    head = cls.start_line + max(1, len(cls.signature.split("\n"))) - 1
    while head <= cls.end_line and head <= len(lines) and lines[head - 1].lstrip().startswith("@"):
        head += 1
    last = min(cls.end_line, len(lines))
    inside = bytearray(last + 2)  # 1 where a member's lines are
    for s, e in taken:
        lo, hi = max(s, 0), min(e, last)
        if lo <= hi:
            inside[lo : hi + 1] = b"\x01" * (hi - lo + 1)
    out = [(n, lines[n - 1]) for n in range(head + 1, last + 1) if not inside[n]]
    out = [(n, t) for n, t in out if t.strip() and not t.strip().startswith("#")]
    if out and cls.docstring and _STRING_START.match(out[0][1].strip()):
        end = _string_end(out, 0)
        out = out[end + 1:]
    return out


def _string_end(body: Sequence[tuple[int, str]], k: int) -> int:
    """Index in `body` of the last line of the string literal starting at `body[k]`."""
    first = body[k][1].strip()
    m = _STRING_START.match(first)
    quote = m.group(1) if m else '"'
    rest = first[m.end() if m else 1:]
    if len(quote) == 1 or quote in rest:
        return k
    for j in range(k + 1, len(body)):
        if quote in body[j][1]:
            return j
    return len(body) - 1


def _string_at(body: Sequence[tuple[int, str]], k: int) -> str:
    end = _string_end(body, k)
    return first_paragraph("\n".join(t for _n, t in body[k:end + 1]))


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _open_brackets(text: str) -> int:
    return sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")


def render_class_outline(
    head: str,
    cls: CodeChunk,
    attributes: Sequence[Attribute],
    rows: Sequence[tuple[str, str]],
    *,
    members: Sequence[str],
    touched: Collection[str],
    fetch: Callable[[str], str],
    limit: int,
    count: Callable[[str], int],
) -> str | None:
    """The outline's text block, within `limit` tokens, or None when even the smallest does not fit.

    `head` is the title line; `rows` are (member symbol, its outline row) of the members that
    matter, best first; `members` every member's symbol, in line order; `touched` are the attribute names whose docstrings the issue's words
    touch; `fetch(symbol)` is the `NEED_CODE` line of a folded member. Members beyond those
    shown are folded. What gives way first when over `limit`: attribute docstrings, then
    attributes the issue does not touch, then the least preferred members.
    """
    shown = list(rows)
    attrs = list(attributes)
    with_docs = True
    while True:
        text = _compose(head, cls, attrs, shown, touched if with_docs else ()) + _fold_line(members, shown, fetch)
        if count(text) <= limit:
            return text
        if with_docs and any(a.doc and a.name in touched for a in attrs):
            with_docs = False
        elif len(attrs) > 0 and any(a.name not in touched for a in attrs):
            attrs = [a for a in attrs if a.name in touched] or attrs[: len(attrs) // 2]
        elif len(shown) > 0:
            shown.pop()
        elif attrs:
            attrs = attrs[: len(attrs) // 2]
        else:
            return None


def _compose(head: str, cls: CodeChunk, attrs: Sequence[Attribute], rows: Sequence[tuple[str, str]],
             touched: Collection[str]) -> str:
    sig = " ".join(part.strip() for part in (cls.signature or cls.symbol).split("\n") if part.strip())
    out = [f"{cls.start_line}-{cls.end_line}  {sig}"]
    pad = "    "
    if cls.docstring:
        out.append(pad + outline_docstring(first_paragraph(cls.docstring)))
    for a in attrs[:MAX_ATTRIBUTES]:
        doc = f"  — {a.doc}" if a.doc and a.name in touched else ""
        out.append(f"{pad}{a.line}: {a.text}{doc}")
    if len(attrs) > MAX_ATTRIBUTES:
        out.append(f"{pad}... ({len(attrs) - MAX_ATTRIBUTES} more attributes)")
    out.extend(row for _sym, row in sorted(rows, key=lambda r: _row_line(r[1])))
    return head + "\n```text\n" + "\n".join(out) + "\n```"


def _row_line(row: str) -> int:
    digits = re.match(r"\s*(\d+)", row)
    return int(digits.group(1)) if digits else 0


def _fold_line(members: Sequence[str], rows: Sequence[tuple[str, str]], fetch: Callable[[str], str]) -> str:
    """The line folding the members not shown: how many, their names, and how to fetch one."""
    shown = {sym for sym, _ in rows}
    folded = [m for m in members if m not in shown]
    if not folded:
        return ""
    names = [m.rpartition(".")[2] for m in folded]
    return "\n" + folded_members(len(folded), names[:MAX_FOLDED_NAMES], fetch(folded[0]))
