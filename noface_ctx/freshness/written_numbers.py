"""Numbers as docs and code write them, for comparing a stated default with a coded one (issue 25, rule 5):
a size with a unit ("500kB", "1 MiB", "16 MB"), a number with separators (`500_000`, "1,000"), a product of
integers (`16 * 1024 * 1024`, `2**20`), an exponent (`1e6`). A decimal unit may mean 1,000 or 1,024 (docs write
"16KB" for 16,384 as often as for 16,000): a size stands for both, and matches a number equal to either.
A quantity spoken in words ("2 weeks", "five seconds", "16 kilobytes": `spoken`) is a duration in seconds or a size."""

from __future__ import annotations

import re

_UNITS = {"": 1, "b": 1, "byte": 1, "bytes": 1, "k": 1000, "kb": 1000, "kib": 1024, "m": 1000 ** 2, "mb": 1000 ** 2,
          "mib": 1024 ** 2, "g": 1000 ** 3, "gb": 1000 ** 3, "gib": 1024 ** 3, "t": 1000 ** 4, "tb": 1000 ** 4,
          "tib": 1024 ** 4}
_SIZE = re.compile(r"(?i)(\d+(?:\.\d+)?)\s*(k|m|g|t|[kmgt]i?b|bytes?|b)?")
_FACTOR = re.compile(r"\d+(?:_\d+)*(?:\.\d+)?(?:[eE][+-]?\d+)?")
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "sixty": 60}
SECONDS = {"millisecond": 0.001, "ms": 0.001, "second": 1, "sec": 1, "s": 1, "minute": 60, "min": 60, "hour": 3600,
           "day": 86400, "week": 604800}
_SIZE_WORDS = {"byte": "B", "kilobyte": "kB", "kibibyte": "KiB", "megabyte": "MB", "mebibyte": "MiB", "gigabyte": "GB",
               "gibibyte": "GiB"}
NUMBER = rf"(?<![\w.,-])(\d+(?:\.\d+)?|{'|'.join(NUMBER_WORDS)})(?![\w.]\w)"  # a number, in digits or a word
_UNIT = "|".join(sorted([*SECONDS, *_SIZE_WORDS], key=len, reverse=True))
SPOKEN = rf"(?i:{NUMBER}[\s-]+(?:{_UNIT})s?\b)"  # "2 weeks", "five seconds", "16 kilobytes"
_SPOKEN = re.compile(rf"(?i){NUMBER}[\s-]+({_UNIT})s?\b")


def number(word: str) -> float:
    """A number written in digits or as a word ("five")."""
    return NUMBER_WORDS[word.lower()] if word.lower() in NUMBER_WORDS else float(word)


def written(value: float) -> str:
    """A number as code writes it (`5`, `0.5`)."""
    return str(int(value)) if value == int(value) else repr(value)


def spoken(text: str) -> str:
    """The value a quantity spoken in words at the start of `text` writes: a duration in seconds ("2 weeks" →
    `1209600`), a size with its unit ("16 kilobytes" → `16kB`), or "" when it is neither."""
    m = _SPOKEN.match(text.strip())
    if m is None:
        return ""
    unit = m.group(2).lower()
    if unit in _SIZE_WORDS:
        return written(number(m.group(1))) + _SIZE_WORDS[unit]
    return written(number(m.group(1)) * SECONDS[unit])


def values(text: str) -> frozenset[float]:
    """The numbers `text` may mean (empty when it is not a number): "500kB" → {500000, 512000}, `500_000` →
    {500000}, "1,000" → {1000}, `16 * 1024 * 1024` → {16777216}, `2**20` → {1048576}."""
    text = text.strip().strip("'\"`")
    if not text or not text[0].isdigit():
        return frozenset()
    size = _SIZE.fullmatch(text.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+\D*", text) else text)
    if size is not None:
        number, unit = float(size.group(1)), (size.group(2) or "").lower()
        scale = _UNITS[unit]
        return frozenset(number * s for s in {scale, 1024 ** _power(scale) if "i" not in unit else scale})
    product = _product(text.replace(" ", ""))
    return frozenset() if product is None else frozenset({product})


def same_number(stated: str, coded: str) -> bool:
    """Whether two written values are one number (`500kB` is `500_000`, `1MB` is `1024 * 1024`)."""
    a, b = values(stated), values(coded)
    return bool(a and b and a & b)


def _power(scale: int) -> int:
    """The power of 1,000 a decimal unit's scale is (kB: 1)."""
    power = 0
    while scale >= 1000 and scale % 1000 == 0:
        scale //= 1000
        power += 1
    return power


def _product(text: str) -> float | None:
    """`16*1024*1024`, `2**20`, `500_000`, `1e6` as a number; None for anything else (no name, no division)."""
    total = 1.0
    for term in text.split("*") if "**" not in text else [text]:
        if "**" in term:
            base, _, exponent = term.partition("**")
            if "*" in exponent or _FACTOR.fullmatch(base) is None or not exponent.isdigit() or int(exponent) > 64:
                return None
            total *= float(base.replace("_", "")) ** int(exponent)
        elif _FACTOR.fullmatch(term) is not None:
            total *= float(term.replace("_", ""))
        else:
            return None
    return total
