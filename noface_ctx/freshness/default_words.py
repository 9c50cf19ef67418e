"""Sentences saying "default": the words they write as code or in quotes (`default_words`: what `notice`
compares with a changed default's old and new values, and what tells `scan` a doc states defaults at
all), and whether one says what a name does by default with no value written (`says_by_default`)."""

from __future__ import annotations

import re
from itertools import pairwise

from noface_ctx import _state as state

DEFAULT_WORD = re.compile(r"(?i)\bdefault(?:s|ed)?\b")
BY_DEFAULT = re.compile(r"(?i)\bby\s+default\b")
SENTENCE_END = re.compile(r"[.!?](?=\s+[^\sa-z])")  # a period in a name (`Dataset.copy`) or a value ends nothing


def default_words(text: str) -> tuple[tuple[int, frozenset[str]], ...]:
    """(line, words) for each sentence saying "default" (at the line of that word; a sentence may
    wrap): the words it writes as code or in quotes, lowercased ("The default theme is
    ``darkgrid``", 'By default, the histograms are "layered"'); not `True`, `False`, `None`."""
    found = _DEFAULT_WORDS.get(text)
    if found is None:
        out, line = [], 1
        for paragraph in re.split(r"(\n[ \t]*\n)", text):
            for m in _IN_SENTENCE.finditer(paragraph) if DEFAULT_WORD.search(paragraph) else ():
                said = DEFAULT_WORD.search(m.group(0))
                words = {w.lower() for ws in _WRITTEN.findall(m.group(0)) for w in ws if w} - {"true", "false", "none"}
                if said is not None and words:
                    out.append((line + paragraph.count("\n", 0, m.start() + said.start()), frozenset(words)))
            line += paragraph.count("\n")
        found = _DEFAULT_WORDS.put(text, tuple(out))
    return found


_DEFAULT_WORDS: state.Memo[str, tuple[tuple[int, frozenset[str]], ...]] = state.memo("freshness.defaults.words", maxsize=64)
_IN_SENTENCE = re.compile(r"[^.!?]+(?:[.!?](?!\s)[^.!?]*)*[.!?]?")  # a period in `Dataset.copy` or `0.5` ends nothing
_WRITTEN = re.compile(r'`+([A-Za-z][\w-]+)`+|\\?"([A-Za-z][\w-]+)\\?"|\'([A-Za-z][\w-]+)\'')  # ``darkgrid``, "layered"


def says_by_default(text: str, name: str, *, alone: bool = False, others: frozenset[str] = frozenset()) -> bool:
    """Whether a sentence of `text` (a paragraph's, it may wrap over lines) says what `name` does
    by default with no value written: "By default, the `lookup` function will interpolate",
    "`lookup` interpolates by default" (`notice` warns such a doc when a default of `name` changed).
    `alone`: a sentence writing another name as code is about that one ("set ``greater_is_better``
    to ``False`` (``True`` by default)", "By default, a `Time` column in a `Table` is written in
    full precision"). `others`: the values other parameters default to; a sentence writing one is about that
    parameter ("By default, 15 digits of precision are used" beside `n=15`, not `maxn`'s cap)."""
    word = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
    for paragraph in _PARAGRAPH.split(text):
        if BY_DEFAULT.search(paragraph) is None:
            continue
        cuts = [0, *(m.end() for m in SENTENCE_END.finditer(paragraph)), len(paragraph)]
        if any(BY_DEFAULT.search(s) and word.search(s) and not (alone and (_coded_names(s) - {name, *_VALUES} or _writes(s, others)))
               for s in (paragraph[a:b] for a, b in pairwise(cuts))):
            return True
    return False


_VALUES = frozenset({"True", "False", "None"})


def _writes(sentence: str, values: frozenset[str]) -> bool:
    """Whether a sentence writes one of `values` (a number, a string's text) as a word of its own."""
    return any(re.search(rf"(?<![\w.]){re.escape(v)}(?![\w]|\.\d)", sentence) for v in values)


def _coded_names(sentence: str) -> set[str]:
    """The last part of each name a sentence writes as code (in backticks, or as a keyword)."""
    spans = re.findall(r"`+([^`]+)`+", sentence)
    names = {re.findall(r"[A-Za-z_]\w*", span)[-1] for span in spans if re.search(r"[A-Za-z_]", span)}
    return names | set(re.findall(r"([A-Za-z_]\w*)\s*=(?!=)", sentence))


_PARAGRAPH = re.compile(r"\n[ \t]*\n")
