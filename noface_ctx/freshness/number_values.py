"""Numbers compare by value where a stated default meets the code's (issue 25, rule 5): a Python numeric literal
written unquoted (`.85`, `0.85`, `0.850`, `85e-2`, `1_000`, `0x10`; an int and the float of the same value alike)
is written in one form (`canonical`), so `threshold=.85` in a doc states the code's `threshold=0.85`. A quoted
value is a string and stays its text (`'.85'` is not `'0.85'`); so does anything else (a name, a size with a unit)."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_DECIMAL = re.compile(r"-?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+)?")
_BASED = re.compile(r"-?0(?:[xX][0-9a-fA-F_]+|[oO][0-7_]+|[bB][01_]+)")


def canonical(text: str) -> str:
    """`text` in one form when it is a numeric literal (`.850` → `0.85`, `1_000` → `1000`, `1.0` → `1`, `0x10` →
    `16`), else `text` itself. Exact (decimal, not float): `0.1` stays `0.1`, a long integer keeps every digit."""
    if _BASED.fullmatch(text) is not None:
        try:
            return str(int(text, 0))
        except ValueError:
            return text
    if not _number(text):
        return text
    try:
        value = Decimal(text.replace("_", ""))
    except InvalidOperation:
        return text
    if abs(value.adjusted()) > 40:  # `1e300`: written as it is, not as 300 digits
        return text
    out = format(value.normalize(), "f")
    return "0" if out in ("-0", "0") else out


def same_default(a: str, b: str) -> bool:
    """Whether two defaults as a definition writes them (tokens spaced: `0 . 85`, `. 850`) are the same: the same
    text, or the same number."""
    a, b = a.replace(" ", ""), b.replace(" ", "")
    return a == b or (_number(a) and _number(b) and canonical(a) == canonical(b))


def _number(text: str) -> bool:
    """Whether `text` is a numeric literal (`.85`, `1_000`, `0x10`)."""
    return _BASED.fullmatch(text) is not None or (_DECIMAL.fullmatch(text) is not None and any(c.isdigit() for c in text))
