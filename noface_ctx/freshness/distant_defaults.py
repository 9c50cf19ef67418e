"""A value a sentence states "by default" without naming what has it, tied to a parameter a later sentence of the
section names in the same words (issue 25, rule 5): "The working precision is therefore capped, by default to around
100 digits." ... (two paragraphs on) "To force a higher working precision, the ``maxn`` keyword argument can be
used": `maxn`'s default is 100. The later sentence must share two words with the first and name one parameter (a
keyword passed, a name with an underscore, or one it calls a parameter or keyword argument); one such parameter in
the next paragraphs of the section, or none is taken.

`distant_statements` gives (names, line, value, near) for each (`distant_words` the names): `near`, the names the section writes as code (a plain
parameter, `maxn`, is read in the files defining them: `evalf`).
"""

from __future__ import annotations

import re
from itertools import pairwise

from noface_ctx.freshness.default_words import BY_DEFAULT, SENTENCE_END
from noface_ctx.freshness.review_defaults import PARAMETER, is_title, parameters, section_names, stems
from noface_ctx.freshness.subject_defaults import code_name, prose_blocks

Statement = tuple[tuple[str, ...], int, str, tuple[str, ...]]  # (names, line, value, near: the section's names)

_NUMBER = r"(\d+(?:\.\d+)?)(?![\w.]\w)"
_VALUE = re.compile(rf"(?i)\bby\s+default,?\s+(?:to|at|is)\s+(?:around|about|approximately|roughly)?\s*{_NUMBER}"
                    rf"|(?<![\w.,-]){_NUMBER}(?:\s+[a-z]+)?\s+by\s+default\b")
_NOT_STEMS = frozenset({"defa", "valu", "numb"})  # "default", "value", "number": said of every default
_AHEAD = 4  # paragraphs after the sentence's own searched for the parameter


def distant_statements(lines: list[str]) -> list[Statement]:
    """The defaults `lines` state as the module docstring says."""
    if not any("by default" in line.lower() for line in lines):
        return []
    spans = prose_blocks(lines)
    out: list[Statement] = []
    for k, (lo, hi) in enumerate(spans):
        text = "\n".join(lines[lo:hi])
        for start, sentence in _sentences(text):
            said = _VALUE.search(sentence) if BY_DEFAULT.search(sentence) is not None and "`" not in sentence else None
            if said is None:
                continue
            words = stems(sentence) - _NOT_STEMS
            named = {name for other in _later(lines, spans, k, text, start + len(sentence)) if len(stems(other) & words) >= 2
                     for name in _named(other)}
            if len(named) == 1:
                out.append(((named.pop(),), lo + text.count("\n", 0, start + said.start()) + 1, said.group(1) or said.group(2),
                            section_names(lines, lo, _section_end(lines, hi))))
    return out


def distant_words(text: str) -> set[str]:
    """The parameters these statements are about."""
    return {n for names, *_rest in distant_statements(text.split("\n")) for n in names} if "by default" in text.lower() else set()


def _sentences(text: str) -> list[tuple[int, str]]:
    cuts = [0, *(m.end() for m in SENTENCE_END.finditer(text)), len(text)]
    return [(a, text[a:b]) for a, b in pairwise(cuts) if b > a]


def _later(lines: list[str], spans: tuple[tuple[int, int], ...], k: int, text: str, end: int) -> list[str]:
    """The sentences after position `end` of block `k` (`text`), and those of the next blocks of its section."""
    out = [s for a, s in _sentences(text) if a >= end]
    for lo, hi in spans[k + 1:k + 1 + _AHEAD]:
        if any(is_title(lines, i) for i in range(spans[k][1], lo + 1)):
            break
        out += [s for _a, s in _sentences("\n".join(lines[lo:hi]))]
    return out


def _section_end(lines: list[str], hi: int) -> int:
    """The line before the next title after line `hi`, or the end."""
    return next((i for i in range(hi, len(lines)) if is_title(lines, i)), len(lines))


def _named(sentence: str) -> set[str]:
    """The parameters a sentence names: as `parameters` reads them, or "the ``maxn`` keyword argument"."""
    called = {n[0] for m in PARAMETER.finditer(sentence) if len(n := code_name(m.group(2))) == 1 and n[0].islower()}
    return parameters(sentence) | called
