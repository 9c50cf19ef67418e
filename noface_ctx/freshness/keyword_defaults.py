"""Defaults a doc states with a keyword written as code (issue 25, rule 5).

- `keyword_default`: a ``name=value`` span after "the default" / "by default" ("as long as you're using the default
  ``abandon_on_cancel=False``"), or followed by "(the default)" / "is the default" / "by default", states parameter
  `name`'s default `value` (of what the sentence names): the span is split into the parameter and its value.
- `opt_outs`: in a paragraph saying what happens "by default", "setting ``name`` to ``V``", "pass(ing) ``name=V``" or
  "with ``name=V``" tells how to get what the default does not do: `name`'s default is not `V` (a literal), of the
  callable the paragraph names, the one the keyword is passed "to" first (``name=True`` to `start_guest_run`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from noface_ctx.freshness.blocks import line_runs
from noface_ctx.freshness.default_words import BY_DEFAULT
from noface_ctx.freshness.references import IDENT, codeish

_LITERAL = re.compile(r"-?[\d.]+|True|False|None|[A-Z][A-Z0-9_]*")  # a value, not a variable (``limiter=my_limiter``)
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'")
_SPAN = rf"(?::[\w:-]+:)?(`+)({IDENT})\s*=\s*([^`\s][^`]*?)\1"
_BEFORE = re.compile(rf"(?i)(?:\bthe\s+default(?:\s+(?:is|of|value|setting|behaviou?r))*|\bby\s+default,?|\bdefaults?\s+(?:to|is))\s+{_SPAN}")
_AFTER = re.compile(rf"{_SPAN}(?:\s*\(\s*(?:the\s+)?default\s*\)|,?\s+(?:is\s+)?the\s+default\b|\s+by\s+default\b)", re.I)
_SET = re.compile(rf"(?i)\bset(?:ting|s)?\s+(?::[\w:-]+:)?(`+)({IDENT}(?:\.{IDENT})*)\1\s+to\s+(`+)([^`\n]+)\3")
_PASS = re.compile(rf"(?i)\b(?:pass(?:es|ed|ing)?|with)\s+{_SPAN}")
_TO = re.compile(r"\A\s+(?:to|in(?:to)?)\s+(?::[\w:-]+:)?(`+)~?\.?([\w.]+?)(?:\(\))?\1")
_NAMED = re.compile(r"(?::[\w:-]+:)?(`+)~?\.?([\w.]+?)(?:\(\))?\1")


def keyword_default(line: str, following: str = "") -> tuple[str, str] | None:
    """(parameter, value) a line states with a ``name=value`` span beside "default" (the span may wrap onto the
    `following` line), or None."""
    text = f"{line}\n{following}"
    m = next((m for pattern in (_BEFORE, _AFTER) if (m := pattern.search(text)) is not None and m.start() < len(line)), None)
    return (m.group(2), m.group(3).strip()) if m is not None else None


def opt_outs(lines: list[str], comparable: Callable[[str], str]) -> list[tuple[tuple[str, ...], int, str, str, tuple[str, ...], bool]]:
    """(names, line, the value the default is not, the callable it is passed to or "", what the paragraph names, whether
    passed rather than set: `defaults` reads a passed one only where no sentence speaks of it for review) for each keyword a paragraph saying what
    happens by default tells to set or pass ("setting ``_works_on_unparsable`` to ``False`` tells SQLFluff not to ...",
    "disable it by passing ``host_fd=True`` to `start`"), at the keyword's line: a literal value only (`True`, `3`,
    `None`), never a variable (``limiter=my_limiter``)."""
    out = []
    for lo, hi in line_runs(lines):
        text = "\n".join(lines[lo:hi])
        if BY_DEFAULT.search(text) is not None:
            named = [n.rsplit(".", 1)[-1] for _, n in _NAMED.findall(text) if re.fullmatch(rf"{IDENT}(?:\.{IDENT})*", n)]
            found = [(m.group(2), m.group(4), m.start(2), m.end(), False) for m in _SET.finditer(text)]
            found += [(m.group(2), m.group(3), m.start(2), m.end(), True) for m in _PASS.finditer(text)]
            for name, value, at, end, passed in sorted(found, key=lambda f: f[2]):
                parts, quoted, value = name.split("."), _QUOTED.fullmatch(value.strip()), comparable(value)
                to = _TO.match(text[end:])
                of = _callable(to.group(2)) if to is not None else ""
                near = () if of else tuple(dict.fromkeys(n for n in named if n != parts[-1]))
                if (quoted or _LITERAL.fullmatch(value)) and codeish(parts[-1]):
                    out.append(((parts[-1], *parts[-2:-1]), lo + text.count("\n", 0, at) + 1, value, of, near, passed))
    return out


def _callable(written: str) -> str:
    """The callable a dotted name stands for, as `param_default` reads it: `Flask.run` for `flask.Flask.run`, `start` for
    `trio.lowlevel.start`."""
    parts = written.split(".")
    return ".".join(parts[-2:]) if len(parts) > 1 and parts[-2][:1].isupper() else parts[-1]
