"""Defaults a doc states by a literal value, judged by the change alone (issue 25, rule 5).

The phrase readers (`defaults`, `default_phrases`, `noun_defaults`, ...) each read one way of saying what a name's
default is. This one reads any: a unit of prose that says "default" and writes a value as a literal — in code, quotes
or emphasis (`2048`, *2048*, *"TLSv1"*, '_type', ``True``) — next to what names a parameter, option or setting:

- an option written as code anywhere in the sentence, or at the head of its list item or definition-list term
  ("* `--backlog <int>` - Maximum number of connections ... **Default:** *2048*.", `-n, --name=N`);
- a code-shaped name at the head of its list item or term (`max_retries`, ``Config.timeout_keep_alive``);
- a parameter named only in words: each snake_case name made of two to four of the words the clause around the value
  writes, in their order ("By default, the tag field name is `_type`" → `tag_field_name`, `tag_field`, `tag_name`,
  `field_name`; the clause ends at a comma, a colon, a parenthesis, "and", "or", "which", ..., or a code span);
- in a Markdown table with a "Default" column, a row's value in that column (there also a bare number or
  `True`/`False`/`None`), about the option or code-shaped name its first cell writes.

The units are sentences of paragraphs, list items and definition-list entries (`subject_defaults.prose_blocks`), and
table rows. Reading so loosely is safe because such a statement is judged only by the change (`Stated.was`): it is
stale when the code's default for that name at the doc's last commit was the stated value and is another now — the
doc agreed with the code, and the code moved —, blamed on the commit that changed it. A value that never was the
default, a name the code does not declare a default for, or a sentence about another parameter states nothing.

`literal_statements(lines)` gives (names, line, value) for each, at the value's line; `literal_words(text)` the names
(and `default`: an option's changed line in a table, `"default": 0,`, names nothing else).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import combinations, pairwise

from noface_ctx.freshness.coded_defaults import RETURNS_DEFAULT, coded, comparable
from noface_ctx.freshness.default_words import DEFAULT_WORD, SENTENCE_END
from noface_ctx.freshness.references import IDENT
from noface_ctx.freshness.review_defaults import is_title
from noface_ctx.freshness.subject_defaults import FENCE, prose_blocks

Statement = tuple[tuple[str, ...], int, str]  # (names: one parameter, or an option's long then short spelling), line, value
Literal = tuple[int, int, str, tuple[str, ...]]  # (start, end, value or "", the options an option span writes)

_SPAN = re.compile(r"(?::[\w:-]+:|\{[\w:-]+\})?(`+)([^`\n]+?)\1")
_EMPHASIS = re.compile(r"(?<![\w*])(\*\*|\*|__|_)([^\s*_`][^\s*`]{0,59}?)\1(?![\w*])")  # *2048*, **True**, _off_
_QUOTED = re.compile(r"""(?<![\w"'])(["'])([^\s"']{1,60})\1(?![\w"'])""")  # "layered", '_type'
_OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
_HEAD = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*)?(?::[\w:-]+:|\{[\w:-]+\})?(`+)([^`\n]+?)\1")
_BREAK = re.compile(r"[,;:()\[\]\u2013\u2014]|\s-\s|\b(?:and|or|but|while|which|when|if|unless|so|because|then|than|"
                    r"instead|except|whereas|where|otherwise)\b", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_STOP = frozenset({
    "the", "a", "an", "is", "are", "be", "been", "being", "will", "would", "was", "were", "to", "of", "by", "default",
    "defaults", "defaulted", "for", "its", "it", "this", "that", "these", "those", "in", "on", "at", "as", "with", "set",
    "sets", "uses", "used", "use", "also", "always", "currently", "here", "there", "we", "you", "your", "our", "their",
    "not", "no", "all", "any", "each", "every", "has", "have", "had", "can", "may", "should", "must", "from", "into",
    "equal", "equals", "given", "called", "named", "now", "even", "still", "just", "then", "new", "old", "doesn", "don",
    "isn", "aren", "won", "s", "t"})
_RETURNS_DEFAULT = re.compile(rf"(?<![\w])({RETURNS_DEFAULT.pattern})\(|:(?:py:)?(?:func|meth):`[~.!]?(?:\w+\.)*({RETURNS_DEFAULT.pattern})`")
# (a function as a call, `get_default_pool()`, or a function's role: not a setting, `:confval:`default_role``)
_SAID_AT = re.compile(r"efault|EFAULT")
_VALUE = re.compile(r"[A-Za-z0-9]")  # a value writes a letter or a digit (not `*`, `...`)
_LITERAL = re.compile(r"-?\d+(?:\.\d+)?|True|False|None")  # a bare value a table's Default column writes
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_COPULA_BEFORE = re.compile(r"(?i)\b(?:is|are|was|be|to|of)[\s*_]*\Z")  # "the tag field name is `_type`"
_DEFAULT_AFTER = re.compile(r"(?i)[\s*_]*(?:is|are|was|as)\s+(?:the\s+|its\s+)?default\b")  # "`_type` is the default tag field name"
WORDS_NEAR = 4  # content words read on the value's side of its clause
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)]|#\.)\s")  # a list item of its own: not a paragraph of the item above
_ITEM_LINES = 40  # an item's paragraphs read back to its head
_SAID = 4  # "default" words read in one sentence (a table read as one sentence may write hundreds)


def literal_statements(lines: list[str]) -> tuple[Statement, ...]:
    """The defaults `lines` state as the module docstring says, in line order."""
    return _statements("\n".join(lines)) if any("efault" in line for line in lines) else ()


def literal_words(text: str) -> set[str]:
    """The names these statements are about, `-` and `_` spellings of options both, and `default`."""
    if "efault" not in text:
        return set()
    names = {n.lstrip("-") for names, _line, _value in _statements(text) for n in names}
    return {"default", *names, *(n.replace("-", "_") for n in names)} if names else set()


@lru_cache(maxsize=16)
def _statements(text: str) -> tuple[Statement, ...]:
    lines = text.split("\n")
    out: list[Statement] = []
    blocks = prose_blocks(lines)
    firsts = [lo for lo, _hi in blocks]
    returning = _returning(lines, text)
    said, line, at = set(), 0, 0  # the lines saying "default"
    for m in _SAID_AT.finditer(text):
        line, at = line + text.count("\n", at, m.start()), m.start()
        said.add(line)
    for k in sorted({k for line in said if (k := bisect_right(firsts, line) - 1) >= 0 and line < blocks[k][1]}):
        lo, hi = blocks[k]  # (a block saying no "default": not read)
        if lines[lo].lstrip().startswith("|") or is_table(lines, lo, hi):
            out += _table(lines, lo, hi)
            continue
        block = "\n".join(lines[lo:hi])
        heads = _head_names(lines[lo]) or (_item_heads(lines, lo, blocks, firsts) if lines[lo][:1].isspace() and not _ITEM.match(lines[lo]) else [])
        cuts = [0, *(m.end() for m in SENTENCE_END.finditer(block)), len(block)]
        for a, b in pairwise(cuts):
            if DEFAULT_WORD.search(block, a, b) is not None:
                out += [(names, lo + block.count("\n", 0, at) + 1, value)
                        for names, at, value in _sentence(block, a, b, heads, _literals(block, a, b), returning(lo))]
    return tuple(sorted(set(out), key=lambda st: (st[1], st)))


def _head_names(line: str) -> list[tuple[str, ...]]:
    """What a list item's or term's first code span names: its options, or one code-shaped name (its last part)."""
    head = _HEAD.match(line)
    if head is None:
        return []
    span = head.group(2).strip()
    if span.startswith("-"):
        return [names] if (names := _options(span)) else []
    last = span.removesuffix("()").rsplit(".", 1)[-1].split("=", 1)[0].strip()
    return [(last,)] if re.fullmatch(IDENT, last) and coded(last) and (last.islower() or last.isupper()) else []  # no class


def _item_heads(lines: list[str], lo: int, blocks: Sequence[tuple[int, int]], firsts: list[int]) -> list[tuple[str, ...]]:
    """What the head of the list item or term an indented paragraph continues names ("* **`html_class`**: CSS class."
    then, after a blank line, "    Default: `'wikilink'`"): the block of the nearest line above indented less (a
    nested list item is no paragraph of it: `_ITEM`)."""
    indent, j = _indent(lines[lo]), lo - 1
    while j >= max(0, lo - _ITEM_LINES) and (not lines[j].strip() or _indent(lines[j]) >= indent):
        j -= 1
    k = bisect_right(firsts, j) - 1 if j >= 0 and lines[j].strip() and _indent(lines[j]) < indent else -1
    return _head_names(lines[blocks[k][0]]) if k >= 0 and j < blocks[k][1] and _indent(lines[blocks[k][0]]) < indent else []


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def _options(span: str) -> tuple[str, ...]:
    """The options a span writes (`-n, --name <int>` → `--name`, `-n`), long ones first."""
    found = [o for o in _OPTION.findall(span.split("<", 1)[0].split("=", 1)[0]) if not o.startswith("---")]
    return tuple(dict.fromkeys([o for o in found if o.startswith("--")] + [o for o in found if not o.startswith("--")]))


def _returning(lines: list[str], text: str) -> Callable[[int], list[tuple[str, set[str]]]]:
    """For a line, the functions its section names whose name says they return a default (`default_pool`,
    `get_default_pool`, `current_default_thread_limiter()`, called or as code), each with the words after `default`."""
    named = [(text.count("\n", 0, m.start()), m.group(1) or m.group(2)) for m in _RETURNS_DEFAULT.finditer(text)] if "default_" in text else []
    fenced, titles = False, []  # (a fence's closing line is no underline, a comment in it no heading)
    for i, line in enumerate(lines if named else ()):
        fenced ^= FENCE.match(line) is not None
        titles += [i] if not fenced and FENCE.match(line) is None and is_title(lines, i) and not (
            i + 1 < len(lines) and FENCE.match(lines[i + 1])) else []
    def at(line: int) -> list[tuple[str, set[str]]]:
        k = bisect_right(titles, line)
        lo, hi = titles[k - 1] if k else 0, titles[k] if k < len(titles) else len(lines)
        return [(fn, {w.removesuffix("s") for w in fn.split("default_", 1)[1].split("_")}) for fn in dict.fromkeys(fn for i, fn in named if lo <= i < hi)]
    return at


def _sentence(block: str, a: int, b: int, heads: list[tuple[str, ...]], literals: list[Literal],
              returning: Sequence[tuple[str, set[str]]] = ()) -> list[tuple[tuple[str, ...], int, str]]:
    """(names, where the value is, value) for a sentence `block[a:b]` saying "default" (`literals`: its own): its
    values next to the word (the first literal after it, the last before it), each about the item's head, the options
    the sentence writes, and the snake_case names the words of the value's clause make; a value after the word, also
    about each function of `returning` (`_returning`) whose words the sentence writes between ("The default pool has
    a size of **40**" in a section calling `default_pool()`: its value is built of 40, `coded_defaults.built_default`)."""
    options = [lit[3] for lit in literals if lit[3]]
    values = [lit for lit in literals if lit[2]]
    said = [m for m in DEFAULT_WORD.finditer(block, a, b) if not any(lo <= m.start() < hi for lo, hi, *_ in literals)][:_SAID]
    starts, ends = [lit[0] for lit in values], [lit[1] for lit in values]
    chosen: dict[int, Literal] = {}
    follows: dict[int, int] = {}  # a value after the word: where the word ends
    for m in said:  # the first value after the word, the last before it
        after, before = bisect_left(starts, m.end()), bisect_right(ends, m.start()) - 1
        chosen.update({values[k][0]: values[k] for k in (after, before) if 0 <= k < len(values)})
        follows.update({values[after][0]: m.end()} if after < len(values) else {})
    out = []
    for lo, hi, value, _names in chosen.values():
        words = _clause(block, a, lo, backward=True) if _COPULA_BEFORE.search(block, a, lo) else []
        words = words or (_clause(block, hi, b, backward=False) if _DEFAULT_AFTER.match(block, hi, b) else [])
        named = [*heads, *options, *((w,) for w in _worded(words))]
        between = {w.lower().removesuffix("s") for w in _WORD.findall(block, follows[lo], lo)} if lo in follows and returning else set()
        named += [(fn,) for fn, parts in returning if between and parts <= between]
        out += [(names, lo, value) for names in dict.fromkeys(named) if value not in names and value.lstrip("-") not in names
                and _VALUE.search(value)]
    return out


def _literals(block: str, a: int = 0, b: int | None = None) -> list[Literal]:
    """What `block[a:b]` writes as code, in emphasis or in quotes, in order: (start in `block`, end, the value as
    comparable or "" for an option, the options an option span writes)."""
    text = block[a:b]
    found: list[Literal] = []
    for m in _SPAN.finditer(text):
        span = m.group(2).strip()
        if span.startswith("-") and _OPTION.match(span) and not re.fullmatch(r"-?\d[\d.]*", span):
            found.append((m.start(), m.end(), "", _options(span)))
        else:
            found.append((m.start(), m.end(), comparable(span), ()))
    blank = _blanked(text, found)
    for pattern in (_EMPHASIS, _QUOTED):
        more: list[Literal] = [(m.start(), m.end(), comparable(m.group(2).strip("*_")), ()) for m in pattern.finditer(blank)
                if DEFAULT_WORD.search(m.group(2)) is None] if any(c in blank for c in "*_\"'") else []
        found += more
        blank = _blanked(blank, more) if more else blank
    return sorted(((lo + a, hi + a, value, names) for lo, hi, value, names in found if value or names), key=lambda lit: lit[0])


def _blanked(text: str, spans: Sequence[Literal]) -> str:
    """`text` with each of `spans` blanked out (its length kept)."""
    parts, at = [], 0
    for lo, hi, *_rest in sorted(spans):
        if lo >= at:
            parts += [text[at:lo], " " * (hi - lo)]
            at = hi
    return "".join([*parts, text[at:]])


def _clause(block: str, lo: int, hi: int, *, backward: bool) -> list[str]:
    """The content words of `block[lo:hi]` next to the value (its end when `backward`, its start otherwise), up to the
    first clause break or code span from there: at most `WORDS_NEAR`, in their order."""
    text = block[lo:hi]
    cuts = [m.start() if not backward else m.end() for m in [*_BREAK.finditer(text), *_SPAN.finditer(text)]]
    if backward:
        text = text[max((c for c in cuts), default=0):]
    else:
        text = text[:min((c for c in cuts), default=len(text))]
    words = [w.lower() for w in _WORD.findall(re.sub(r"\*+|_{2,}", " ", text))]
    words = [w for w in words if w not in _STOP and len(w) > 1 and not (len(w) > 5 and w.endswith("ly"))]  # not "correctly"
    return words[-WORDS_NEAR:] if backward else words[:WORDS_NEAR]


def _worded(words: list[str]) -> list[str]:
    """Each snake_case name two or more of `words` make in their order (`tag field name` → `tag_field_name`,
    `tag_field`, `tag_name`, `field_name`); a word once."""
    if len(set(words)) != len(words):
        words = list(dict.fromkeys(words))
    return ["_".join(words[i] for i in picked) for r in range(len(words), 1, -1) for picked in combinations(range(len(words)), r)]


def is_table(lines: list[str], lo: int, hi: int) -> bool:
    """`lines[lo:hi]` are a Markdown table: a header, a rule of dashes and pipes, rows (`|` opening them or not)."""
    return hi - lo > 2 and "|" in lines[lo + 1] and "|" in lines[lo] and _TABLE_RULE.match(lines[lo + 1]) is not None


def _table(lines: list[str], lo: int, hi: int) -> list[Statement]:
    """A Markdown table's rows whose "Default" column writes a value: (the first cell's option or code-shaped name,
    the row's line, the value)."""
    if hi - lo < 3 or not _TABLE_RULE.match(lines[lo + 1]):
        return []
    header = _cells(lines[lo])
    column = next((k for k, cell in enumerate(header) if DEFAULT_WORD.search(cell) and len(cell.split()) <= 2), None)
    if column is None or column == 0:
        return []
    out: list[Statement] = []
    for i in range(lo + 2, hi):
        cells = _cells(lines[i])
        if len(cells) <= column:
            continue
        head, cell = _head_names(cells[0]), cells[column].strip()
        value = next((lit[2] for lit in _literals(cell) if lit[2]), cell if _LITERAL.fullmatch(cell) else "")
        out += [(names, i + 1, value) for names in head[:1] if value]
    return out


def _cells(line: str) -> list[str]:
    """A table row's cells (`|` inside code spans kept)."""
    text = _SPAN.sub(lambda m: m.group(0).replace("|", "\0"), line.strip().strip("|"))
    return [cell.replace("\0", "|").strip() for cell in text.split("|")]
