"""Defaults a paragraph states for a name it writes away from the sentence (issue 25, rule 5).

A sentence that gives a value as the default ("A border width of about 0.2 appears to work well; this is the
default.", "..., which defaults to 0.1 inches") and names no code, nor does the sentence before it, is about:
a parameter the sentence writes in emphasis, shaped like code (`*pad_inches*`, the numpydoc way of naming
one), or else the one setting its paragraph names by a role (:rc:`axes3d.trackballborder`, a dotted key).
`setting_statements` gives (names, line, value) for each; the code's default of a dotted key is read from
its registration (`_Param("axes3d.trackballborder", default=0.2)`: `coded_defaults`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from noface_ctx.freshness.references import IDENT, codeish

SETTING_KEY = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+")  # `axes3d.trackballborder`, `savefig.pad_inches`
_ROLE_SPAN = re.compile(r":(?:\w+:)?([\w-]+):`([^`\n]+)`")
_OBJECT_ROLES = frozenset({"mod", "func", "class", "meth", "attr", "obj", "data", "exc", "ref", "doc", "file", "math",
                           "download", "term", "numref", "any", "program", "command", "envvar"})  # not a setting
_SPAN = re.compile(r"`+([^`\n]+)`+")
_NAMED = re.compile(rf"[~.!]*{IDENT}(?:\.{IDENT})*(?:\(\))?")  # a span naming code, not a value (``1/9``) nor an expression
_EMPHASIS = re.compile(r"(?<![*\w`])\*([A-Za-z_]\w*)\*(?![*\w])")
_NUMBER = r"-?\d+(?:\.\d+)?(?![\w/]|\.\d)"
_DEFAULTS_TO = re.compile(rf"(?i)\bdefaults?\s+to\s+(?:`+([^`\n]+)`+|({_NUMBER}|True\b|False\b|None\b))")
_IS_THE_DEFAULT = re.compile(r"(?i)\b(?:this|that|which)\s+is\s+the\s+default\b")
_LONE_NUMBER = re.compile(rf"(?<![\w./-]){_NUMBER}")
_SENTENCE_END = re.compile(r"[.!?](?=\s+[^\sa-z])")
_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})")

Statement = tuple[tuple[str, ...], int, str]  # (names, line, value)


def setting_statements(lines: list[str], comparable: Callable[[str], str]) -> list[Statement]:
    """The defaults `lines` state as the module docstring says, each at the line saying "default"."""
    out: list[Statement] = []
    for lo, hi in _paragraphs(lines):
        text = "\n".join(lines[lo:hi])
        if "efault" not in text:
            continue
        settings = {key for role, key in _ROLE_SPAN.findall(text) if role not in _OBJECT_ROLES and SETTING_KEY.fullmatch(key)}
        cuts = [0, *(m.end() for m in _SENTENCE_END.finditer(text)), len(text)]
        sentences = [(a, text[a:b]) for a, b in pairwise(cuts) if b > a]
        for k, (start, sentence) in enumerate(sentences):
            value, at = _value(sentence, comparable)
            if not value or _names_code(sentence) or (k and _names_code(sentences[k - 1][1])):
                continue
            emphasized = {w for w in _EMPHASIS.findall(sentence) if codeish(w)}
            names = emphasized if emphasized else settings if not _EMPHASIS.search(sentence) else set()
            if len(names) == 1:
                out.append(((names.pop(),), lo + text.count("\n", 0, start + at) + 1, value))
    return out


def setting_words(text: str, comparable: Callable[[str], str]) -> set[str]:
    """The identifiers a doc's judgement depends on through these statements: the names' parts, and `default`
    (a registration's changed line, `default=0.3,`, names nothing else)."""
    if "efault" not in text:
        return set()
    names = [n for names, _line, _value in setting_statements(text.split("\n"), comparable) for n in names]
    return {"default", *(w for n in names for w in n.split("."))} if names else set()


def _value(sentence: str, comparable: Callable[[str], str]) -> tuple[str, int]:
    """The value a sentence gives as the default, with where it says so: "defaults to ``False``" / "to 0.1",
    or the one number (or code value) of the sentence before "this is the default"; ("", 0) when none or unclear."""
    said = _DEFAULTS_TO.search(sentence)
    if said is not None:
        return comparable(said.group(1) or said.group(2)), said.start()
    said = _IS_THE_DEFAULT.search(sentence)
    if said is None:
        return "", 0
    before = sentence[:said.start()]
    found = [m.group(1) for m in _SPAN.finditer(before)] + _LONE_NUMBER.findall(_SPAN.sub(" ", before))
    return (comparable(found[0]), said.start()) if len(found) == 1 else ("", 0)


def _names_code(sentence: str) -> bool:
    """Whether a sentence writes a name as code (``prefix``, :meth:`copy`): then `defaults` reads it."""
    return any(_NAMED.fullmatch(span.strip()) and span.strip() not in ("True", "False", "None")
               for span in _SPAN.findall(sentence))


def _paragraphs(lines: list[str]) -> list[tuple[int, int]]:
    """(first, after last) of each prose paragraph: not a directive, an indented block or a fenced one."""
    out, lo, fenced = [], 0, False
    for i, line in enumerate([*lines, ""]):
        if i < len(lines) and _FENCE.match(line):
            fenced, lo = not fenced, i + 1
            continue
        if fenced or line.strip():
            continue
        if lo < i and not lines[lo][:1].isspace() and not lines[lo].startswith((".. ", ">>>")):
            out.append((lo, i))
        lo = i + 1
    return out
