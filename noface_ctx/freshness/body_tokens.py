"""A function body as comparable tokens (`comparable_body`, used by
`noface_ctx.freshness.definitions`): strings in one quote style and joined when split over
lines, grouping parentheses and trailing commas dropped, `functools.wraps` dropped, the body's
own locals numbered, so that reformatting, renaming a local or restyling a decorator is no
change while anything a caller could notice is."""

from __future__ import annotations

import keyword
import re
from collections.abc import Sequence

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # an identifier (definitions uses it too)
_KEYWORDS = frozenset(keyword.kwlist)
_TOKEN = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|\w+|\S")


def comparable_body(text: str) -> str:
    """A body's text (comments and docstrings already gone) as comparable tokens."""
    return " ".join(_locals_numbered(_without_wraps(_token_list(text))))


def tokens(text: str) -> str:
    """Tokens joined by spaces; grouping parentheses (not calls, not tuples' commas) dropped."""
    return " ".join(_token_list(text))


def _token_list(text: str) -> list[str]:
    out: list[str] = []
    groups: list[int] = []  # per open "(": where a grouping one opened in `out` (-1: a call's); dropped with its ")"
    for tok in _TOKEN.findall(text):
        if tok[0] in "'\"":
            tok = '"' + tok[1:-1] + '"'
            if out and out[-1][0] == '"':  # a string split over lines to fit a line length: one string
                out[-1] = out[-1][:-1] + tok[1:]
                continue
        elif tok in ")]}" and out and out[-1] == ",":
            out.pop()
        if tok == "(":
            grouping = not out or out[-1] in _KEYWORDS or not (out[-1][-1].isalnum() or out[-1][-1] in "_)]\"")
            groups.append(len(out) if grouping else -1)
            if grouping:
                continue
        elif tok == ")" and groups and (at := groups.pop()) >= 0:
            if at == len(out):  # nothing inside: an empty tuple (`x = ()`), no grouping
                out += ["(", ")"]
            continue
        out.append(tok)
    return out


def _without_wraps(toks: list[str]) -> list[str]:
    """Tokens without `functools.wraps`: it copies a name and a docstring, no behaviour, so
    `@wraps(f)` over a nested `def` and `return wraps(f)(wrapper)` read the same (django's
    "Normalized decorator style for functools.wraps.")."""
    out: list[str] = []
    i = 0
    while i < len(toks):
        j = i + 2 if toks[i:i + 3] == ["functools", ".", "wraps"] else i
        if toks[j:j + 2] == ["wraps", "("]:
            close = closing(toks, j + 1)
            decorator = out[-1:] == ["@"]
            if close != -1 and (decorator or toks[close + 1:close + 2] == ["("]):
                if decorator:
                    out.pop()
                    i = close + 1
                    continue
                inner = closing(toks, close + 1)
                if inner == close + 3:  # `wraps(f)(name)` -> `name`
                    out.append(toks[close + 2])
                    i = inner + 1
                    continue
        out.append(toks[i])
        i += 1
    return out


def closing(items: Sequence[str], at: int) -> int:
    """Index of the bracket closing the one at `at` (characters of a text, or tokens), or -1."""
    depth = 0
    for k in range(at, len(items)):
        if items[k] in ("(", "[", "{"):
            depth += 1
        elif items[k] in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return k
    return -1


def _locals_numbered(toks: list[str]) -> list[str]:
    """A body's tokens with the names it binds itself (nested `def`/`class` names and their
    parameters, assignment, `for` and `as` targets) numbered in order of first use, so that
    renaming a local (`_wrapped_view_func` → `_wrapper_view_func`) is no change; attributes
    (`x.name`) and keyword argument names (`f(name=...)`) keep their names."""
    bound: set[str] = set()
    depth, param_depth = 0, -1
    for i, tok in enumerate(toks):
        prev = toks[i - 1] if i else ""
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if tok in "([{":
            depth += 1
            if prev and toks[i - 2:i - 1] == ["def"]:
                param_depth = depth
        elif tok in ")]}":
            depth -= 1
            if depth < param_depth:
                param_depth = -1
        elif IDENT.fullmatch(tok) and tok not in _KEYWORDS and prev != ".":
            if prev in ("def", "class", "as", "for") or (prev == "," and _in_for_target(toks, i)) or (
                    depth == param_depth and prev in ("(", ",", "*") and nxt in (",", ")", "=", ":")) or (
                    depth == 0 and nxt == "=" and toks[i + 2:i + 3] != ["="]):
                bound.add(tok)
    numbers: dict[str, str] = {}
    out = []
    calls: list[bool] = []  # per open bracket: a call's parenthesis
    for i, tok in enumerate(toks):
        if tok in "([{":
            calls.append(tok == "(" and i > 0 and (bool(IDENT.fullmatch(toks[i - 1])) or toks[i - 1] in ")]"))
        elif tok in ")]}" and calls:
            calls.pop()
        keyword_arg = bool(calls and calls[-1]) and toks[i + 1:i + 2] == ["="] and toks[i + 2:i + 3] != ["="] and \
            toks[i - 1] in ("(", ",")
        if tok in bound and (not i or toks[i - 1] != ".") and not keyword_arg:
            tok = numbers.setdefault(tok, f"_{len(numbers)}")
        out.append(tok)
    return out


def _in_for_target(toks: list[str], i: int) -> bool:
    """Token `i` (after a comma) is one of the names between a `for` and its `in`."""
    j = i - 1
    while j > 0 and (toks[j] == "," or IDENT.fullmatch(toks[j])) and toks[j] not in _KEYWORDS:
        j -= 1
    return toks[j] == "for"


def comment_start(line: str, markers: tuple[str, ...], *, spaced: bool = False) -> int:
    """Where a trailing comment begins in a code line (the first of `markers` outside strings; with
    `spaced`, only at the start or after whitespace), -1 when none."""
    quote = ""
    i = 0
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif any(line.startswith(m, i) for m in markers) and (not spaced or i == 0 or line[i - 1].isspace()):
            return i
        i += 1
    return -1
