"""Defaults a doctest's output shows (issue 25, rule 5): a `>>>` session whose output prints a repr with keywords
(`ClassProps(is_slotted=True, has_weakref_slot=True)`) shows, for each `key=literal`, the value a parameter took
because the session did not pass it. That parameter is the key itself when a callable the session calls (or decorates
with: `@define`) takes it, or the parameter the code hands on to the key (`ClassProps(..., has_weakref_slot=
weakref_slot)`, `self.key = param`), read in the files defining the printed class, the key or that callable.
Judged by the change alone (`Stated.was`): stale only when that callable's default for the parameter was the printed
value at the doc's commit and is another now. A parameter the session passes (`@define(weakref_slot=True)`) shows the
session's value, never the default; a key no parameter reaches (a computed field) states nothing."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from noface_ctx._filetypes import is_test_path
from noface_ctx.freshness.coded_defaults import comparable, param_default

_PROMPT = re.compile(r"^(\s*)(?:>>>|\.\.\.)(?: (.*))?$")
_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})")
_CALLED = re.compile(r"(?:(?<![\w.])@\s*([A-Za-z_][\w.]*)\s*(?:\(|$))|(?<![\w.])([A-Za-z_][\w.]*)\s*\(", re.M)
_PASSED = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*=(?!=)")
_REPR = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(")
_SHOWN = re.compile(r"(?<![\w.'\"])([A-Za-z_]\w*)=(True|False|None|-?\d+(?:\.\d+)?|'[^'\\\n]*'|\"[^\"\\\n]*\")(?=\s*[,)])")
_NOT_PARAMETERS = frozenset({"True", "False", "None", "self", "cls"})

Shown = tuple[str, int, str, tuple[str, ...], tuple[str, ...], frozenset[str]]  # key, line, value, reprs, callees, passed


def shown_keys(lines: list[str]) -> Iterator[Shown]:
    """Each `key=literal` of a repr a doctest's output line prints: the key, its line (1-based), the value, the classes
    whose reprs the line prints, the callables the session called before it (last dotted part) and the keywords it
    passed. A session runs from a prompt to the first line that is neither a prompt, an output line (right after a
    prompt or output, no blank between) nor a blank line followed by another prompt."""
    indent: str | None = None
    code: list[str] = []  # the session's code lines, read for calls and keywords only when a repr shows a key
    output = False
    for i, line in enumerate(lines):
        if indent is None and ">>>" not in line:
            continue  # (outside a session: only a prompt opens one)
        prompt = _PROMPT.match(line)
        if prompt is not None:
            if prompt.group(1) != indent:
                indent, code = prompt.group(1), []
            code.append(prompt.group(2) or "")
            output = True
            continue
        if indent is None:
            continue
        if not line.strip():
            output = False
            continue
        if not output or _FENCE.match(line) or not line.startswith(indent):
            indent, output = None, False
            continue
        if "=" not in line or not (shown := list(_SHOWN.finditer(line))) or not (reprs := tuple(dict.fromkeys(_REPR.findall(line)))):
            continue
        session = "\n".join(code)
        callees = tuple(dict.fromkeys((m.group(1) or m.group(2)).rsplit(".", 1)[-1] for m in _CALLED.finditer(session)))
        passed = frozenset(m.group(1) for m in _PASSED.finditer(session))
        for m in shown:
            yield m.group(1), i + 1, comparable(m.group(2)), reprs, callees, passed


def printed_statements(text: str, defining: Callable[[str], list[str]],
                       read: Callable[[str], str | None]) -> list[tuple[str, int, str, str]]:
    """(parameter, line, printed value, callable) for each key a doctest prints that a callable of its session takes
    as a parameter with a default, or that the code hands a parameter of that callable on to (module docstring);
    `defining(name)`: the files defining a name, `read(path)`: a file's text now."""
    if ">>>" not in text:
        return []
    texts: dict[str, str] = {}
    def text_of(path: str) -> str:
        if path not in texts:
            texts[path] = read(path) or ""
        return texts[path]
    def files(name: str) -> list[str]:
        return [p for p in defining(name) if not is_test_path(p)]
    out: list[tuple[str, int, str, str]] = []
    for key, line, value, reprs, callees, passed in shown_keys(text.split("\n")):
        homes = {f: files(f) for f in callees if f not in _NOT_PARAMETERS}
        homes = {f: paths for f, paths in homes.items() if paths}
        if not homes:
            continue
        handed = {key}
        for path in dict.fromkeys(p for n in (*reprs, key, *homes) for p in files(n)):
            handed.update(_handed_to(text_of(path), key))
        for param in sorted(handed - passed - _NOT_PARAMETERS):
            for callee, paths in homes.items():
                if any(param_default(text_of(p), callee, param) is not None for p in paths):
                    out.append((param, line, value, callee))
    return out


def _handed_to(text: str, key: str) -> set[str]:
    """The names the code hands on to `key`: `key=name` passed in a call, `self.key = name` assigned."""
    if key not in text:
        return set()
    k = re.escape(key)
    return {m.group(1) for m in re.finditer(rf"(?<![\w.]){k}\s*=\s*([A-Za-z_]\w*)\s*(?=[,)\n])", text)} | {
        m.group(1) for m in re.finditer(rf"\bself\.{k}\s*=\s*([A-Za-z_]\w*)\s*$", text, re.M)}
