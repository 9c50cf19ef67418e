"""The default thing a sentence speaks of is the instance the code builds when no other is given (issue 25, rule 5).

"The default clock is currently implemented as :func:`time.perf_counter` plus a large random offset": "the default
clock" is what a function builds when its parameter `clock` is None (`if clock is None: clock = SystemClock()`,
`clock = clock or SystemClock()`); a word of the sentence naming a field of that class (`offset`) speaks of that
field's default, and a change of it since the doc's last commit (computed → `0.0`: `field_default`) is reported. The
function is looked for in the files defining what the sentence's section names as code (:func:`run`).
`instance_statements` reads the doc, `instance_default` the code.
"""

from __future__ import annotations

import re
from itertools import pairwise

from noface_ctx.freshness.blocks import line_runs
from noface_ctx.freshness.coded_defaults import code_default
from noface_ctx.freshness.default_words import SENTENCE_END
from noface_ctx.freshness.fallback_defaults import field_default
from noface_ctx.freshness.review_defaults import section_names

_THE_DEFAULT = re.compile(r"(?i)the\s+default\s+([a-z][a-z_]{2,})\b")
_NOT_NOUNS = frozenset({"value", "values", "behaviour", "behavior", "setting", "settings", "is", "was", "will", "for",
                        "of", "and", "way", "case", "one", "ones", "option", "options", "mode", "implementation", "can", "may",
                        "uses", "has", "should", "must", "does", "parameter", "parameters", "argument", "arguments"})
_COMMON = ("that", "this", "which", "with", "from", "when", "will", "have", "been", "into", "also", "only", "than", "then",
           "uses", "used", "using", "same", "more", "most", "some", "such", "other", "each", "there", "their", "what")
_CODE = re.compile(r"(?::[\w:-]+:)?(`+)[^`]*?\1")
_WORD = re.compile(r"(?<![\w.-])[a-z][a-z0-9_]{3,}(?![\w-])")


def instance_statements(lines: list[str]) -> list[tuple[tuple[str, ...], int, str]]:
    """((word, *what the section names), line, noun) for each word of each sentence whose subject is "the default
    NOUN" (not "the default value"), when the section names something as code."""
    out = []
    for lo, hi in line_runs(lines):
        text = "\n".join(lines[lo:hi])
        cuts = [0, *(m.end() for m in SENTENCE_END.finditer(text)), len(text)]
        for a, b in pairwise(cuts) if _THE_DEFAULT.search(text) and not text.lstrip().startswith("..") else ():
            said = _THE_DEFAULT.match(sentence := text[a:b].lstrip())  # its subject: "The default clock is ..."
            if said is None or (noun := said.group(1).lower()) in _NOT_NOUNS or not (named := section_names(lines, lo, hi)):
                continue
            words = dict.fromkeys(w for w in _WORD.findall(_CODE.sub(" ", sentence)) if w not in (noun, "default", *_COMMON))
            out += [((w, *named), lo + text.count("\n", 0, b - len(sentence)) + 1, noun) for w in words]
    return out


def instance_default(text: str, field: str, noun: str) -> str | None:
    """The default of `field` of the class `text` builds when parameter `noun` is None, or None."""
    if f"{noun} is None" not in text and f"{noun} or " not in text:
        return None
    built = {m.group(1) for m in re.finditer(
        rf"(?:\bif\s+{noun}\s+is\s+None\s*:\s*\n[ \t]+(?:self\.)?{noun}\s*=|(?<![\w.]){noun}\s*=\s*{noun}\s+or)\s*([A-Z]\w*)\(", text)}
    if len(built) != 1 or f"class {(cls := built.pop())}" not in text:
        return None
    return field_default(code_default(text, field, (cls,)))
