"""TOML text → tables, and a value checked against its expected type and bounds, each error
naming `file:line` (tomllib locates syntax errors only). Knows no key of its own: `config.py`
passes the tables, types and ranges it reads."""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Collection
from typing import Any

import tomllib

from noface_ctx.errors import ConfigError

MAX_TOML_DEPTH = 64
STR_LIST = "str_list"  # the expected type of a list of strings (stored as a tuple)
_TYPE_NAMES: dict[object, str] = {bool: "true or false", int: "an integer", float: "a number", str: "a string",
                                  STR_LIST: "a list of strings"}


class Locator:
    """Finds the line of `[table]` / `key =` in the raw text: tomllib only locates syntax errors."""

    def __init__(self, text: str, label: str) -> None:
        self.lines = text.splitlines()
        self.label = label

    def __call__(self, table: str, key: str | None) -> str:
        current = None
        header = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
        for i, line in enumerate(self.lines, 1):
            m = header.match(line)
            if m:
                current = m.group(1).strip().strip('"')
                if key is None and current == table:
                    return f"{self.label}:{i}"
                continue
            if key is not None and current == table and re.match(rf"^\s*\"?{re.escape(key)}\"?\s*=", line):
                return f"{self.label}:{i}"
            if key is not None and current is None and re.match(rf"^\s*{re.escape(table)}\.{re.escape(key)}\s*=", line):
                return f"{self.label}:{i}"
        return self.label


def read_toml(raw_text: str, label: str) -> tuple[dict[str, Any], Locator]:
    """The tables of `raw_text` (named `label` in errors) and a locator of its keys; `ConfigError`
    on a syntax error (with its line) or nesting deeper than `MAX_TOML_DEPTH`."""
    if raw_text.count("[") + raw_text.count("{") > 1000 and _too_deep(raw_text):
        raise ConfigError(f"nested deeper than {MAX_TOML_DEPTH} levels; refused", where=label)
    try:
        data = tomllib.loads(raw_text)
    except RecursionError:
        raise ConfigError("nested too deeply; refused", where=label) from None
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None) or _lineno_from_message(str(exc))
        msg = str(exc).split(" (at line")[0]
        raise ConfigError(f"invalid TOML: {msg}", where=f"{label}:{line}" if line else label) from None
    return data, Locator(raw_text, label)


def checked(value: object, typ: object, name: str, where: str,
            bounds: tuple[float | None, float | None] = (None, None)) -> object:
    """`value` as the type `typ` (bool, int, float, str or `STR_LIST`; an int counts as a float, a
    list of strings becomes a tuple), a number within `bounds` (inclusive, None unbounded); else
    `ConfigError` naming `name` (`[context] key`) at `where`."""
    got: object = value
    if typ is bool:
        ok = isinstance(value, bool)
    elif typ is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif typ is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if isinstance(value, (int, float)) and ok:
            got = float(value)
            if not math.isfinite(got):
                raise ConfigError(f"{name}: must be a finite number, got {got!r}", where=where)
    elif typ is str:
        ok = isinstance(value, str)
    else:
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        got = tuple(value) if isinstance(value, list) and ok else value
    if not ok:
        raise ConfigError(f"{name}: expected {_TYPE_NAMES[typ]}, got {got!r}", where=where)
    lo, hi = bounds
    if isinstance(got, (int, float)) and ((lo is not None and got < lo) or (hi is not None and got > hi)):
        limits = f"at least {lo}" if hi is None else f"between {lo} and {hi}"
        raise ConfigError(f"{name}: must be {limits}, got {got!r}", where=where)
    return got


def suggest(key: str, known: Collection[str]) -> str:
    """` (did you mean 'x'?)` for the closest known key, or nothing."""
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _too_deep(text: str) -> bool:
    """Arrays/inline tables nested deeper than `MAX_TOML_DEPTH` (strings and comments skipped
    roughly: a bracket inside a string can only make this stricter, never crash)."""
    depth = 0
    for m in re.finditer(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]|\n', text):
        c = m.group()
        if c in ("[", "{"):
            depth += 1
            if depth > MAX_TOML_DEPTH:
                return True
        elif c in ("]", "}"):
            depth = max(0, depth - 1)
    return False


def _lineno_from_message(message: str) -> int | None:
    m = re.search(r"at line (\d+)", message)
    return int(m.group(1)) if m else None
