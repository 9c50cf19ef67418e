"""Defaults a doc states in phrasings `defaults` does not read (issue 25, rule 5), each tied to one name.

- a list item naming an option first, then "(Defaults 20)" / "(default: 20)" / "(Default ``20``)" in it:
  "- `max_keepalive_connections`, number of allowable keep-alive connections ... (Defaults 20)";
- a value written before "by default": "to a maximum of 80 characters by default, but this can be modified with
  {attr}`~Context.max_content_width`", about the one name the sentence writes as code;
- a duration a sentence saying "default" gives ("after 5 seconds of network inactivity", "is five seconds"),
  about the one word of the sentence naming a duration setting (`timeout` in `TimeoutException` or in "The default
  timeout"); the value in seconds. Such a word is plain: its default is read only where a default constant built by
  a call passes it (`held_defaults.constant_default`), so `kind` is "word";
- "an optional argument ... defaults to ``False``" naming no code, when the example right after the paragraph calls
  one function with one more positional argument in one call than in another (`GramSchmidt(L)`,
  `GramSchmidt(L, True)`): the default of that function's one optional parameter (`kind` "optional").

`phrase_statements` gives (names, line, value, kind) for each; `phrase_words` the words a doc's judgement depends on
through them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise

from noface_ctx import _state as state
from noface_ctx.freshness.coded_defaults import comparable
from noface_ctx.freshness.default_words import DEFAULT_WORD, SENTENCE_END
from noface_ctx.freshness.references import IDENT, STRING, codeish
from noface_ctx.freshness.subject_defaults import code_name
from noface_ctx.freshness.written_numbers import NUMBER as _NUMBER
from noface_ctx.freshness.written_numbers import SECONDS as _SECONDS
from noface_ctx.freshness.written_numbers import number as _number
from noface_ctx.freshness.written_numbers import written as _written

Statement = tuple[tuple[str, ...], int, str, str]  # (names, line, value, kind: "" | "word" | "optional")

_DURATION = re.compile(rf"(?i){_NUMBER}[\s-]+({'|'.join(sorted(_SECONDS, key=len, reverse=True))})s?\b")
_DURATION_SETTINGS = frozenset({"timeout", "delay", "interval", "expiry", "ttl"})  # what a duration is the value of
_BEFORE_BY_DEFAULT = re.compile(rf"(?i){_NUMBER}(?:[\s-]+([a-z]+))?\s+by\s+default\b")
_ITEM = re.compile(r"^\s*[-*+]\s+(?::[\w:-]+:|\{[\w:-]+\})?(`+)([^`\n]+)\1")
_BULLET = re.compile(r"^\s*[-*+]\s")
_ITEM_DEFAULT = re.compile(r"(?i)\(\s*defaults?(?:\s+value)?\s*(?:is|to|:|=)?\s*(?:(`+)([^`\n]+)\1|([\w.+-]+))\s*\)")
_SPAN = re.compile(r"(?::[\w:-]+:|\{[\w:-]+\})?(`+)([^`\n]+?)\1")
_OPTIONAL = re.compile(r"(?i)\boptional\s+(?:argument|parameter|flag)\b")
_DEFAULTS_TO = re.compile(r"(?i)\b(?:defaults?\s+(?:to|is)|by\s+default\s+(?:it\s+is\s+)?)\s*(?:(`+)([^`\n]+)\1|(True|False|None|\d+(?:\.\d+)?)\b)")
_CALL = re.compile(rf"(?<![\w.])({IDENT})\s*\(")
_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})")
_FENCES = re.compile(r"(?m)^[ \t]{0,3}(?:`{3,}|~{3,})")


def phrase_statements(lines: list[str]) -> list[Statement]:
    """The defaults `lines` state as the module docstring says, each at the line saying "default" (read once a text)."""
    text = "\n".join(lines)
    if "efault" not in text:
        return []
    return list(_PHRASED.get_or_put(text, lambda: tuple(_statements(lines))))


def phrase_words(text: str) -> set[str]:
    """The identifiers a doc's judgement depends on through these statements: the names, and `default(s)` (a
    default constant's or a docstring's changed line, `This defaults to 100 characters`, names nothing else)."""
    if "efault" not in text:
        return set()
    names = {n for names, _line, _value, _kind in phrase_statements(text.split("\n")) for n in names}
    return names | {"default", "defaults"} if names else set()


_PHRASED: state.Memo[str, tuple[Statement, ...]] = state.memo("freshness.defaults.phrases", maxsize=64)


def _statements(lines: list[str]) -> list[Statement]:
    out: list[Statement] = []
    text = "\n".join(lines)
    fenced = _fenced(text, len(lines))
    read: set[int] = set()  # paragraphs read, by first line
    for i in sorted(set(_line_numbers(text, re.finditer("efault", text)))):
        if i in fenced:
            continue
        said = _ITEM_DEFAULT.search(lines[i])
        item = _item_start(lines, i) if said is not None else None
        if said is not None and item is not None and (value := comparable(said.group(2) or said.group(3)).rstrip(".")):
            out.append(((item,), i + 1, value, ""))
        lo, hi = _paragraph(lines, i, fenced)
        if lo in read or lines[lo][:1].isspace() or lines[lo].startswith((".. ", ">>>")):
            continue
        read.add(lo)
        text = "\n".join(lines[lo:hi])
        cuts = [0, *(m.end() for m in SENTENCE_END.finditer(text)), len(text)]
        sentences = [(a, text[a:b]) for a, b in pairwise(cuts) if b > a]
        for k, (start, sentence) in enumerate(sentences):
            said = DEFAULT_WORD.search(sentence)
            if said is None:
                continue
            at = lo + text.count("\n", 0, start + said.start()) + 1
            found = _sentence_default(sentence)
            if found is not None:
                out.append((found[0], at, found[1], found[2]))
                continue
            optional = _optional_default(sentence, sentences[k - 1][1] if k else "")
            callee = _varied_callee(lines, hi) if optional else ""
            if optional and callee:
                out.append(((callee,), at, optional, "optional"))
    return sorted(set(out), key=lambda st: (st[1], st))


def _sentence_default(sentence: str) -> tuple[tuple[str, ...], str, str] | None:
    """(names, value, kind) of a value written before "by default" about the sentence's one code name, or of a
    duration about its one duration word; None when the sentence says neither or its name is unclear."""
    before = _BEFORE_BY_DEFAULT.search(sentence)
    durations = _DURATION.findall(sentence)
    if before is None and len(durations) != 1:
        return None
    if len(durations) == 1:
        value = _number(durations[0][0]) * _SECONDS[durations[0][1].lower()]
    elif before is not None and not durations:
        value = _number(before.group(1))
    else:
        return None
    spans = {n for m in _SPAN.finditer(sentence) if (n := _code_name(m.group(2))) and n[0][:1].islower()}
    if len(spans) == 1:  # the one parameter, field or setting the sentence writes as code
        return spans.pop(), _written(value), ""
    words = {w.lower().removesuffix("s") for w in re.findall(r"[A-Z]?[a-z]+", sentence)} & _DURATION_SETTINGS
    return ((words.pop(),), _written(value), "word") if durations and not spans and len(words) == 1 else None


def _optional_default(sentence: str, before: str) -> str:
    """The value "an optional argument ... defaults to ``False``" gives, when neither it nor the sentence
    before it writes a name as code; else ""."""
    said = _DEFAULTS_TO.search(sentence)
    if _OPTIONAL.search(sentence) is None or said is None or any(_code_name(m.group(2)) for s in (sentence, before)
                                                                 for m in _SPAN.finditer(s)):
        return ""
    return comparable(said.group(2) or said.group(3))


def _varied_callee(lines: list[str], hi: int) -> str:
    """The one function the example right after the paragraph ending before line `hi` calls with more
    positional arguments in one call than in another (the optional one passed), or ""."""
    at = hi
    while at < len(lines) and not lines[at].strip():
        at += 1
    end = at + 1
    if at < len(lines) and _FENCE.match(lines[at]):
        while end < len(lines) and _FENCE.match(lines[end]) is None:
            end += 1
    elif at < len(lines) and lines[at][:1].isspace():
        while end < len(lines) and (not lines[end].strip() or lines[end][:1].isspace()):
            end += 1
    else:
        return ""
    code = STRING.sub('""', "\n".join(re.sub(r"^\s*(?:>>>|\.\.\.) ?", "", x) for x in lines[at:end]))
    counts: dict[str, set[int]] = {}
    for m in _CALL.finditer(code):
        args = _arguments(code, m.end())
        if args is not None and not any("=" in a for a in args):
            counts.setdefault(m.group(1), set()).add(len(args))
    varied = [name for name, n in counts.items() if len(n) > 1 and codeish(name)]
    return varied[0] if len(varied) == 1 else ""


def _arguments(code: str, start: int) -> list[str] | None:
    """The top-level arguments of the call whose "(" ends just before `start`; None when it does not close."""
    depth, arg, args = 1, "", list[str]()
    for ch in code[start:]:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0:
            return [*args, arg] if arg.strip() or args else []
        if depth == 1 and ch == ",":
            args.append(arg)
            arg = ""
        else:
            arg += ch
    return None


def _code_name(span: str) -> tuple[str, ...]:
    """A span naming code (`max_keepalive_connections`, `~Context.max_content_width`) as (name, its owner?),
    or () for a value or an expression."""
    if span.strip().lstrip("~.!").startswith("@"):  # a decorator is not a setting
        return ()
    names = code_name(span)
    return names if names and (codeish(names[0]) or "_" in names[0]) else ()


def _item_start(lines: list[str], i: int) -> str | None:
    """The name the list item holding line `i` writes first (`max_keepalive_connections`), or None."""
    j = i
    while j > 0 and lines[j].strip() and _BULLET.match(lines[j]) is None:
        j -= 1
    item = _ITEM.match(lines[j])
    name = _code_name(item.group(2)) if item is not None else ()
    return name[0] if name else None


def _fenced(text: str, count: int) -> set[int]:
    """The lines of `text`'s fenced blocks (`count` lines), fences included."""
    fences = _line_numbers(text, _FENCES.finditer(text)) if "```" in text or "~~~" in text else []
    out: set[int] = set()
    for a, b in zip(fences[::2], [*fences[1::2], count], strict=False):
        out.update(range(a, b + 1))
    return out


def _line_numbers(text: str, found: Iterable[re.Match[str]]) -> list[int]:
    """The line (from 0) of each match, counted on from the one before."""
    out, line, at = [], 0, 0
    for m in found:
        line += text.count("\n", at, m.start())
        at = m.start()
        out.append(line)
    return out


def _paragraph(lines: list[str], i: int, fenced: set[int]) -> tuple[int, int]:
    """(first, after last) of the paragraph holding line `i`: up to blank lines or a fence."""
    lo, hi = i, i + 1
    while lo > 0 and lines[lo - 1].strip() and lo - 1 not in fenced:
        lo -= 1
    while hi < len(lines) and lines[hi].strip() and hi not in fenced:
        hi += 1
    return lo, hi
