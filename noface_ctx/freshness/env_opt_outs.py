"""An opt-out written as an environment variable: "turn it off (or set the ``PKG_DIAGNOSE=NO`` environment
variable)" in a paragraph saying what happens by default tells that variable's default is not `NO`.

Like `keyword_defaults.opt_outs`' "setting ``name`` to ``V``", in a paragraph saying "by default": "set (the)
``NAME=V`` environment variable", "set the environment variable ``NAME=V``" (``NAME`` upper case, as environment
variables are named). The value as the code reads it (`env_fallbacks`): a word an environment reader takes for a
boolean (`NO`, `off`, `0`; `yes`, `true`, `1`) is `False` or `True`, another value its text. The default is what the
code falls back to when the variable is unset (`coded_defaults.code_default` through `env_fallbacks.env_default`):
the doc is stale when it became `V`. A variable the code never reads with a fallback states nothing.
"""

from __future__ import annotations

import re

from noface_ctx.freshness.blocks import line_runs
from noface_ctx.freshness.default_words import BY_DEFAULT

_VAR = r"(`+)([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=([^`\s]+)\1"
_SET = re.compile(rf"(?i:\bset(?:ting|s)?\s+(?:the\s+|an?\s+)?)(?:{_VAR}(?i:\s+env(?:ironment)?\s+var(?:iable)?)"
                  rf"|(?i:env(?:ironment)?\s+var(?:iable)?\s+){_VAR})")
_TRUE, _FALSE = frozenset({"1", "true", "yes", "y", "on"}), frozenset({"0", "false", "no", "n", "off"})


def env_words(text: str) -> set[str]:
    """The environment variables `text` tells to set to opt out of a default: the judgement depends on them."""
    return {names[0] for names, *_ in env_opt_outs(text.split("\n"))} if "=" in text and BY_DEFAULT.search(text) else set()


def env_opt_outs(lines: list[str]) -> list[tuple[tuple[str, ...], int, str, str, tuple[str, ...], bool]]:
    """(names: the variable; line; the value its default is not; "" (no callable); (); False: set, not passed) for
    each environment variable a paragraph saying what happens by default tells to set (`opt_outs`' shape)."""
    out: list[tuple[tuple[str, ...], int, str, str, tuple[str, ...], bool]] = []
    for lo, hi in line_runs(lines):
        text = "\n".join(lines[lo:hi])
        if BY_DEFAULT.search(text) is None:
            continue
        for m in _SET.finditer(text):
            name, value = (m.group(2), m.group(3)) if m.group(2) else (m.group(5), m.group(6))
            word = value.strip("\"'").lower()
            value = "True" if word in _TRUE else "False" if word in _FALSE else value.strip("\"'")
            out.append(((name,), lo + text.count("\n", 0, m.start()) + 1, value, "", (), False))
    return out
