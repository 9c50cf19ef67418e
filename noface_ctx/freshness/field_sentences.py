"""A sentence saying "by default" / "the default" that names one class and one of its fields as code, and writes
no value ("By default, a :class:`SystemClock` adds a large random ``offset``"), speaks of that field's default
(issue 25, rule 5): any change of it since the doc's last commit is reported (computed → `0.0`: `field_default`).
A sentence naming more code, or writing a value (read by the other rules), is not read here."""

from __future__ import annotations

import re
from itertools import pairwise

from noface_ctx.freshness.default_words import SENTENCE_END
from noface_ctx.freshness.references import IDENT
from noface_ctx.freshness.subject_defaults import SPAN

_SAYS = re.compile(r"(?i)\bby\s+default\b|\bthe\s+default\b")
_CODE = re.compile(SPAN)
_NAME = re.compile(rf"~?\.?(?:{IDENT}\.)*({IDENT})(?:\(\))?")
_NOT_NAMES = re.compile(r"^:(?:ref|doc|term|file|program|command|envvar|kbd|guilabel|math):")


def field_statements(lines: list[str]) -> list[tuple[tuple[str, ...], int, tuple[str, ...]]]:
    """(field, line of the default word, (class,)) for each sentence as the module docstring says."""
    out, lo = [], 0
    while lo < len(lines):
        hi = lo
        while hi < len(lines) and lines[hi].strip():
            hi += 1
        text = "\n".join(lines[lo:hi])
        cuts = [0, *(m.end() for m in SENTENCE_END.finditer(text)), len(text)]
        for a, b in pairwise(cuts) if _SAYS.search(text) else ():
            sentence = text[a:b]
            said = _SAYS.search(sentence)
            spans = [m for m in _CODE.finditer(sentence) if _NOT_NAMES.match(m.group(0)) is None]
            names = [n.group(1) for m in spans if (n := _NAME.fullmatch(m.group(2).strip())) is not None]
            if said is None or len(spans) != 2 or len(names) != 2 or re.fullmatch(r"True|False|None", names[1]):
                continue
            classes = [n for n in names if n[:1].isupper() and not n.isupper()]
            fields = [n for n in names if n[:1].islower() or n[:1] == "_"]
            if len(classes) == 1 and len(fields) == 1 and len(fields[0]) > 2:
                out.append(((fields[0],), lo + text.count("\n", 0, a + said.start()) + 1, (classes[0],)))
        lo = hi + 1
    return out
