"""Defaults a doc states about a name its sentence does not write beside the value (issue 25, rule 5):

- "The default <noun> is X" in a paragraph whose earlier sentences name one parameter or field as code sharing a
  word with the noun: "A signer is configured with a ``digest_method`` ... The default method is
  :func:`hashlib.sha1`": `digest_method`'s default is `hashlib.sha1` (a noun naming no such parameter states
  nothing: "The default salt is ...");
- "V1 instead of V2" (or "rather than V2") in a sentence naming one constant or attribute whose name says it holds
  a default (`DEFAULT_VALIDATION_STATUS`, `default_timeout`, `TIMEOUT_DEFAULT`): "If you'd prefer validation
  errors to return status code ``400`` instead of ``422``, you can override ``DEFAULT_VALIDATION_STATUS``": its
  value is `422`;
- "by default ... `name=value` except when/for/in `k1`, `k2`": a default kept per key, `value` for every key but
  those (`besides`): read in a dict of defaults by key (`fallback_defaults.keyed_default`).

`noun_statements` gives (names, line, value, besides) for each; `noun_words` the names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from noface_ctx import _state as state
from noface_ctx.freshness.coded_defaults import comparable
from noface_ctx.freshness.default_words import BY_DEFAULT, SENTENCE_END
from noface_ctx.freshness.review_defaults import parameters, stems
from noface_ctx.freshness.subject_defaults import SPAN, code_name, prose_blocks

Statement = tuple[tuple[str, ...], int, str, tuple[str, ...]]  # (names, line, value, besides: the keys excepted)

_VALUE = r"(?::[\w:-]+:)?(?P<tick>`+)(?P<span>[^`\n]+?)(?P=tick)|(?P<plain>-?\d+(?:\.\d+)?|True|False|None)(?![\w.]\w)"
_THE_DEFAULT_NOUN = re.compile(rf"(?i)\bthe\s+default\s+(?P<noun>(?:[a-z]+[ \t\n]+){{0,2}}?[a-z]+)\s+(?:is|will\s+be)\s+(?:{_VALUE})")
_INSTEAD = re.compile(rf"(?i)\b(?:instead\s+of|rather\s+than)\s+(?:the\s+default\s+(?:of\s+)?)?(?:{_VALUE})")
_DEFAULT_NAMED = re.compile(r"(?i)^_*defaults?_|_defaults?$")  # `DEFAULT_STATUS`, `timeout_default`: not `_click_default_help`
_KEYWORD_VALUE = re.compile(r"(?::[\w:-]+:)?(`+)\s*(?P<name>[a-z_][a-z0-9_]*)\s*=\s*(?P<value>[^`\s]+)\s*\1")
_EXCEPT = re.compile(r"(?i)\bexcept(?:\s+(?:when|for|in|on|if|where))?\b")
_NOUN_STOP = frozenset({"defa", "valu", "sett", "opti", "beha"})  # said of every default
_CODE = re.compile(SPAN)


def noun_statements(lines: list[str]) -> list[Statement]:
    """The defaults `lines` state as the module docstring says (read once a text)."""
    text = "\n".join(lines)
    if "efault" not in text and "DEFAULT" not in text:
        return []
    return list(_READ.get_or_put(text, lambda: tuple(_statements(lines))))


def noun_words(text: str) -> set[str]:
    """The names these statements are about (what a doc's judgement depends on through them)."""
    if "efault" not in text and "DEFAULT" not in text:
        return set()
    return {n for names, *_rest in noun_statements(text.split("\n")) for n in names}


_READ: state.Memo[str, tuple[Statement, ...]] = state.memo("freshness.defaults.nouns", maxsize=64)


def _statements(lines: list[str]) -> list[Statement]:
    out: list[Statement] = []
    for lo, hi in prose_blocks(lines):
        text = "\n".join(lines[lo:hi])
        if "efault" not in text and "DEFAULT" not in text:
            continue
        cuts = [0, *(m.end() for m in SENTENCE_END.finditer(text)), len(text)]
        sentences = [(a, text[a:b]) for a, b in pairwise(cuts) if b > a]
        for k, (start, sentence) in enumerate(sentences):
            def line(at: int, start: int = start, lo: int = lo, text: str = text) -> int:
                return lo + text.count("\n", 0, start + at) + 1
            for m in _THE_DEFAULT_NOUN.finditer(sentence):
                nouns = stems(m.group("noun")) - _NOUN_STOP
                before = [s for _a, s in sentences[:k]] + [sentence[:m.start()]]
                named = {n for s in before for n in parameters(s) if nouns and stems(n) & nouns}
                if len(named) == 1 and (value := _value(m)):
                    out.append(((named.pop(),), line(m.start() + m.group(0).lower().index("default")), value, ()))  # the line saying "default"
            for m in _INSTEAD.finditer(sentence):
                held = {n[0] for s in _CODE.finditer(sentence) if (n := code_name(s.group(2))) and _DEFAULT_NAMED.search(n[0])}
                if len(held) == 1 and (value := _value(m)):
                    out.append(((held.pop(),), line(m.end() - 1), value, ()))  # the value's line
            out += _keyed(sentence, line)
    return sorted(set(out), key=lambda st: (st[1], st))


def _keyed(sentence: str, line: Callable[[int], int]) -> list[Statement]:
    """"by default ... `name=value` except when ... `k1`, `k2`" in `sentence` (see the module docstring)."""
    said, cut = BY_DEFAULT.search(sentence), _EXCEPT.search(sentence)
    if said is None or cut is None:
        return []
    given = list(_KEYWORD_VALUE.finditer(sentence, 0, cut.start()))
    keys = tuple(s.group(2).strip().strip("\"'") for s in _CODE.finditer(sentence, cut.end()))
    if len(given) != 1 or not keys or any(re.fullmatch(r"[\w.-]+", k) is None for k in keys):
        return []
    return [((given[0].group("name"),), line(given[0].start()), comparable(given[0].group("value")), keys)]


def _value(m: re.Match[str]) -> str:
    """The value a match writes, comparable (a role's `~` or leading `.` before a name aside: not `~/.dbt/`'s)."""
    return re.sub(r"^[~.]+(?=[A-Za-z_])", "", comparable(m.group("span"))) if m.group("span") is not None else m.group("plain") or ""
