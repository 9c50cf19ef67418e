"""Names a doc itself says are gone: "### `pkg.Old` removal", "`pkg.Old` was replaced by `pkg.New`".

A migration guide or an upgrade note names removed APIs on purpose, under a heading that announces the
removal or as the subject of a sentence saying it was removed, replaced or renamed; such a mention is
history, not a stale reference. Only what the sentence says is gone is spared: the name it was replaced
by is judged as any other ("`old` was renamed to `new`": `new` is checked), and so is every other
mention of the gone name ("Use `pkg.Old` to ...").
"""

from __future__ import annotations

import re

from noface_ctx.freshness.blocks import UNDERLINE, line_runs

# a heading announcing removals: "### `X` removal", "Removed APIs", "Dropped `Y`"
_GONE_HEADING = re.compile(r"(?i)\b(?:removals?|removed|dropped|deleted)\b")
# what a sentence says of its subject when that subject is gone
_GONE_PHRASE = re.compile(
    r"(?i)\b(?:(?:was|were|has\s+been|have\s+been|had\s+been|is|are|got|been)\s+(?:now\s+|since\s+|finally\s+|also\s+)?"
    r"(?:removed|replaced|renamed|dropped|deleted|retired|superseded|deprecated)"
    r"|no\s+longer\s+(?:exists?|available|supported|provided|present|defined|part\s+of)"
    r"|(?:is|are)\s+(?:now\s+)?gone|removal\s+of\b)"
)
# a role's, or a literal's, code: `x`, ``x``, :func:`~x`, :class:`title <x>`, {func}`x`
_CODE = re.compile(r"(?:\{[\w:+-]+\}|:[\w:+-]+:)?(`{1,2})([^`\n]+?)\1")
# a name's new one in parentheses after it: "``open_scope()`` (now just ``Scope()``)", or its old one
# after the new: "``Scope`` (formerly ``open_scope``)": the old name is history
_NOW_AFTER = re.compile(r"(?i)((?:\{[\w:+-]+\}|:[\w:+-]+:)?(`{1,2})[^`\n]+?\2)\s*\(\s*(?:now|renamed\s+to|replaced\s+by)\s+"
                        r"(?:(?:just|simply|called|named)\s+)?(?:\{[\w:+-]+\}|:[\w:+-]+:)?`")
_NOW_AFTER_START = re.compile(r"(?i)\(\s*(?:now|renamed\s+to|replaced\s+by)\s")  # what every match holds: found fast
_FORMERLY = re.compile(r"(?i)\(\s*(?:formerly|previously|was|renamed\s+from)\s+([^()]*)\)")
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_SENTENCE_END = re.compile(r"[.!?;:](?:\s|$)")
_CLAUSE_END = re.compile(r"[.!?;:,](?:\s|$)|\s(?:use|see|instead)\b")


def announced_gone(lines: list[str]) -> dict[int, set[str]]:
    """{1-based line: last names of the code it writes that the doc announces as gone there}."""
    out: dict[int, set[str]] = {}
    for i, line in enumerate(lines):
        heading = bool(_MD_HEADING.match(line)) or (
            i + 1 < len(lines) and line.strip() != "" and bool(UNDERLINE.match(lines[i + 1]))
            and len(lines[i + 1].strip()) >= len(line.strip()))
        if heading and _GONE_HEADING.search(line):
            _add(out, i + 1, line, len(line))
    now_after = _NOW_AFTER if _NOW_AFTER_START.search("\n".join(lines)) else None  # (no match anywhere: not looked for)
    for start, text in _paragraphs(lines):
        for named in (*(now_after.finditer(text) if now_after else ()), *_FORMERLY.finditer(text)):
            line_no = start + text.count("\n", 0, named.start(1))
            _add(out, line_no, named.group(1).replace("\n", " "), len(named.group(1)))
        for m in _GONE_PHRASE.finditer(text) if _may_say_gone(text) else ():
            begin = max((e.end() for e in _SENTENCE_END.finditer(text, 0, m.start())), default=0)
            if m.group(0).lower().startswith("removal"):  # "the removal of `X`": what follows, to the sentence's end
                end = next((e.start() for e in _CLAUSE_END.finditer(text, m.end())), len(text))
                begin = m.end()
            else:
                end = m.start()
            offset = 0
            for k, line in enumerate(text.split("\n")):
                lo, hi = max(begin - offset, 0), min(end - offset, len(line))
                if lo < hi:
                    _add(out, start + k, line[lo:hi], hi - lo)
                offset += len(line) + 1
    return out


def _may_say_gone(text: str) -> bool:
    """Whether `text` holds a word every `_GONE_PHRASE` match holds (a fast test before the slow search): its
    lower case, with the letters `(?i)` also takes for `i` and `s` (dotless `ı`, long `ſ`; `İ` lowers to `i` and
    a combining dot) made plain."""
    low = text.lower()
    if not low.isascii():
        low = low.replace("ı", "i").replace("ſ", "s").replace("\u0307", "")
    return any(word in low for word in _GONE_WORDS)


_GONE_WORDS = ("removed", "replaced", "renamed", "dropped", "deleted", "retired", "superseded", "deprecated", "longer",
               "gone", "removal")


def _paragraphs(lines: list[str]) -> list[tuple[int, str]]:
    """(1-based first line, text) of each run of non-blank lines."""
    return [(lo + 1, "\n".join(lines[lo:hi])) for lo, hi in line_runs(lines)]


def _add(out: dict[int, set[str]], line_no: int, text: str, upto: int) -> None:
    for m in _CODE.finditer(text[:upto]):
        code = m.group(2).strip()
        if "<" in code and code.endswith(">"):  # a titled role: its target
            code = code.rsplit("<", 1)[1][:-1]
        code = re.sub(r"\[.*\]|\(.*\)", "", code).strip("~.! ")
        last = code.rsplit(".", 1)[-1]
        if last.isidentifier():
            out.setdefault(line_no, set()).add(last)
