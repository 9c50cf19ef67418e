"""Defaults a doc states about the subject of its sentence or list item (issue 25, rule 5), in phrasings
`defaults` and `default_phrases` do not read:

- a switch: "If ``merge_slashes`` is enabled (the default)", "``strict_slashes`` is on by default",
  "By default, ``debug`` is disabled": the name's default is `True` (enabled, on) or `False` (disabled, off);
- a switch said of "it" / "this" / "the feature" / "this option" two sentences after the parameter it is about:
  "This will occur if you set the :paramref:`.configure.compare_server_default` parameter to ``True`` ... The
  feature is off by default": the one name the list item or paragraph writes as code before it (`_said_of`);
- "The default is 500kB." / "The default value is ``'auto'``." / "Defaults to 1000." in a list item whose head is
  one name in a role or literal ("-   :attr:`~Request.max_form_memory_size` - Stop reading request data ...") or
  in a paragraph that starts with one (a definition list's term too): the head's default, when nothing from the
  head to that sentence writes another name as code.

`subject_statements` gives (names, line, value) for each, at the line saying "default"; `subject_words` the names.
"""

from __future__ import annotations

import re
from functools import lru_cache

from noface_ctx.freshness.coded_defaults import comparable
from noface_ctx.freshness.references import IDENT
from noface_ctx.freshness.setting_defaults import SETTING_KEY
from noface_ctx.freshness.written_numbers import SPOKEN, spoken

Statement = tuple[tuple[str, ...], int, str, bool]  # (names: the name, then its owner when written), line, value,
# keyed: a string key a definition list's term quotes (``'papersize'``): read by its key in the code)

SPAN = r"(?::[\w:-]+:|\{[\w:-]+\})?(`+)([^`\n]+?)\1"
_STATE = r"(?:(?:turned|switched|set)\s+)?(enabled|disabled|on|off)"
_SWITCH = re.compile(rf"(?i){SPAN}\s+(?:is|are)\s+{_STATE}\s*(?:\(\s*(?:the\s+)?default\s*\)|,?\s+by\s+default\b)")
_SWITCH_AFTER = re.compile(rf"(?i)\bby\s+default,?\s+{SPAN}\s+(?:is|are)\s+{_STATE}\b")
_ON = frozenset({"enabled", "on"})
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz_")
_PRONOUN = re.compile(rf"(?i)(?<![\w`.-])(?:it|this|(?:the|this)\s+(?:feature|option|flag|setting|switch|behaviou?r|check|mode|parameter|argument))"
                      rf"\s+(?:is|are)\s+{_STATE}\s*(?:\(\s*(?:the\s+)?default\s*\)|,?\s+by\s+default\b)")
_NOT_NAMES = re.compile(r"^(?::(?:ref|doc|term|numref|download|any|abbr|pep|rfc|kbd|guilabel|file|program|command|math):|\{(?:ref|doc|term|numref|download|any|abbr|pep|rfc|kbd|guilabel|file|program|command|math)\})")
_VALUE = rf"(?P<tick>`+)(?P<span>[^`\n]+?)(?P=tick)|(?P<spoken>{SPOKEN})|(?P<plain>\d+(?:[_,.]\d+)*(?:\s*(?:[kMGT]i?B|KB|KiB|bytes))?|True|False|None|\"[^\"\n]*\"|'[^'\n]*')"
_THE_DEFAULT = re.compile(rf"(?i)(?:^|(?<=[.!?:,`\u2013\u2014-])\s+|(?<=\()\s*)(?:the\s+default(?:\s+value)?\s+is|(?:it\s+|this\s+)?defaults\s+to|"
                          rf"default:)\s+(?:{_VALUE})(?![\w`])")
_HEAD = re.compile(rf"^\s*(?:[-*+]\s+)?{SPAN}")
_BULLET = re.compile(r"^\s*[-*+]\s")
_CODE_SPAN = re.compile(SPAN)
_DIRECTIVE = re.compile(r"^\s*\.\.\s+[\w:-]+::")  # `.. note::`: prose in its body
_CODE_DIRECTIVE = re.compile(r"^\s*\.\.\s+(?:code-block|code|sourcecode|doctest|testcode|testsetup|ipython|literalinclude)::")
FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})")


def subject_statements(lines: list[str]) -> list[Statement]:
    """The defaults `lines` state as the module docstring says."""
    if not any("efault" in line for line in lines):
        return []
    out: list[Statement] = []
    for lo, hi in prose_blocks(lines):
        text = "\n".join(lines[lo:hi])
        if "efault" not in text:
            continue
        for m in [*_SWITCH.finditer(text), *_SWITCH_AFTER.finditer(text)]:
            names = code_name(m.group(2))
            if names:
                at = lo + text.count("\n", 0, m.end()) + 1  # the line of "default"
                out.append((names, at, "True" if m.group(3).lower() in _ON else "False", False))
        out += _said_of(lo, text)
        out += _the_default(lines, lo, text)
    return sorted(set(out), key=lambda st: (st[1], st))


def subject_words(text: str) -> set[str]:
    """The names these statements are about (what a doc's judgement depends on through them)."""
    if "efault" not in text:
        return set()
    return {n for names, *_rest in subject_statements(text.split("\n")) for n in names}


def _said_of(lo: int, text: str) -> list[Statement]:
    """"It / The feature / This option is off by default" in the item or paragraph `text` (from line `lo`): the
    switch of the one name written as code before it in `text` (not in its own sentence: that is `_SWITCH`'s); none
    when two names are written there, or none."""
    out: list[Statement] = []
    for m in _PRONOUN.finditer(text):
        names = {n for s in _CODE_SPAN.finditer(text, 0, m.start()) if _NOT_NAMES.match(s.group(0)) is None
                 and (n := code_name(s.group(2)))}
        if len({n[0] for n in names}) == 1 and (named := max(names, key=len))[0][:1] in _LOWER:  # a parameter's, not a class's
            out.append((named, lo + text.count("\n", 0, m.end()) + 1, "True" if m.group(1).lower() in _ON else "False", False))
    return out


def _the_default(lines: list[str], lo: int, text: str) -> list[Statement]:
    """"The default is V" in the item or paragraph `text` (from line `lo`) whose head is one code name, or in a
    paragraph of a definition list entry's body whose term is one (`_term`)."""
    head = _HEAD.match(text)
    names = code_name(head.group(2)) if head is not None else ()
    parts = set(head.group(2).strip().lstrip("~.!").split(".")) if head is not None else set()
    if head is not None and SETTING_KEY.fullmatch(key := head.group(2).strip()):  # a dotted key (`urlize.rel`): itself first
        names = (key, *names)
    keyed, start = False, head.end() if head is not None else 0
    if (term := _TERM.match(text.split("\n", 1)[0])) is not None and "\n" in text:  # a term, its body below it
        (names, keyed), start = _term_names(term), term.end()
        parts = set(names)
    elif not names and text[:1].isspace():
        names, keyed = _term(lines, lo)
        parts, start, text = set(names), 0, text.lstrip()
    out: list[Statement] = []
    for m in _THE_DEFAULT.finditer(text) if names else ():
        if any(set(code_name(s.group(2))) - parts for s in _CODE_SPAN.finditer(text, start, m.start())):  # another name between the head and the sentence: whose is unclear
            break  # (not a part of the head's: "``urlize.rel``: ... the `rel` attribute of links of the `urlize` filter")
        value = spoken(m.group("spoken")) if m.group("spoken") else comparable(m.group("span") if m.group("span") is not None else m.group("plain"))
        if value and value not in ("true", "false", "none"):  # "the default is none": a word, not `None`
            out.append((names, lo + text.count("\n", 0, m.start() + len(m.group(0)) - len(m.group(0).lstrip())) + 1, value, keyed))
    return out


_TERM = re.compile(rf"^\s*(?:{SPAN}|\*\*(?P<bold>{IDENT})\*\*)\s*:?\s*$")  # ``'papersize'``, ``urlize.rel``:, **nonl**
_VALUE_DIRECTIVE = re.compile(rf"^\s*\.\.\s+(?:py:)?(?:data|attribute|confval|setting)::\s+((?:{IDENT}\.)*{IDENT})\s*$")


def _term(lines: list[str], lo: int) -> tuple[tuple[str, ...], bool]:
    """The name a definition list entry's term gives the indented paragraph at line `lo` (a span alone on its line,
    a quoted key as its string: `papersize`, keyed; a name in bold; a directive naming one value, `.. data::
    reldelim1`), and whether it is a string key; ((), False) when the line it is indented under is none of these."""
    indent = len(lines[lo]) - len(lines[lo].lstrip())
    j = lo - 1
    while j >= 0 and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) >= indent):
        j -= 1
    term = _TERM.match(lines[j]) if j >= 0 else None
    if term is None:
        directive = _VALUE_DIRECTIVE.match(lines[j]) if j >= 0 else None
        return (code_name(directive.group(1)), False) if directive is not None else ((), False)
    return _term_names(term)


def _term_names(term: re.Match[str]) -> tuple[tuple[str, ...], bool]:
    """The names a term gives (see `_term`), and whether it is a quoted key."""
    if term.group("bold"):
        return (term.group("bold"),), False
    span = term.group(2).strip()
    if re.fullmatch(r"""(["'])[\w.-]+\1""", span):
        return (span[1:-1],), True
    return ((span, *code_name(span)) if SETTING_KEY.fullmatch(span) else code_name(span)), False


def code_name(span: str) -> tuple[str, ...]:
    """The name a span writes (`~Request.max_form_memory_size` → (max_form_memory_size, Request)), or () for a
    value or an expression."""
    text = span.strip().lstrip("~.!@").removesuffix("()")
    if re.fullmatch(rf"{IDENT}(?:\.{IDENT})*", text) is None or text in ("True", "False", "None"):
        return ()
    return tuple(text.split(".")[-2:][::-1])


def prose_blocks(lines: list[str]) -> tuple[tuple[int, int], ...]:
    """`blocks` outside `code_lines`, kept for the last docs read: the three default readers ask in turn."""
    return _prose_blocks("\n".join(lines))


@lru_cache(maxsize=16)
def _prose_blocks(text: str) -> tuple[tuple[int, int], ...]:
    lines = text.split("\n")
    return tuple(blocks(lines, code_lines(lines)))


def blocks(lines: list[str], code: set[int]) -> list[tuple[int, int]]:
    """(first, after last) of each list item and paragraph outside code: a bullet starts an item, a blank line
    or a code line ends one."""
    out: list[tuple[int, int]] = []
    lo: int | None = None
    for i, line in enumerate([*lines, ""]):
        starts = _BULLET.match(line) is not None
        if lo is not None and (not line.strip() or i in code or starts):
            out.append((lo, i))
            lo = None
        if lo is None and line.strip() and i not in code and i < len(lines):
            lo = i
    return out


def code_lines(lines: list[str]) -> set[int]:
    """Lines of fenced blocks, literal blocks after a line ending in "::", and interpreter sessions."""
    out: set[int] = set()
    fence, literal = False, -1  # literal: the indentation a "::" block must pass (-1: none open)
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if FENCE.match(line) and not (not fence and _underlines(lines, i)):  # `~~~~` under a title: no fence
            fence = not fence
            out.add(i)
            continue
        if literal >= 0 and line.strip() and indent <= literal:
            literal = -1
        if fence or (literal >= 0 and line.strip()) or line.lstrip().startswith((">>>", "...")):
            out.add(i)
        elif (line.rstrip().endswith("::") and not _DIRECTIVE.match(line)) or _CODE_DIRECTIVE.match(line):
            literal = indent
    return out


def _underlines(lines: list[str], i: int) -> bool:
    """Line `i` is a reStructuredText title's underline (`~~~~` or backticks as long as the title above it), not a fence."""
    text, above = lines[i].rstrip(), lines[i - 1].rstrip() if i else ""
    return bool(above.strip()) and not above[:1].isspace() and len(set(text)) == 1 and len(text) >= len(above) and FENCE.match(above) is None
