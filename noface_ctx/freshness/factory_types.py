"""Example names typed by a factory function's return annotation (`factory_refs`).

The rule: in a Python example, `x = pkg.make(...)` where `pkg` is the repository's own package and
`make` a module-level function of it (followed through its package's re-exports) annotated to
return one class of the repository (`def utcnow() -> Arrow`, `-> "Arrow"`, every overload agreeing)
types `x` by that class, as `x = Arrow(...)` does (`examples.example_types`): `x.name(...)` and
`x.name` are `method` references to `Arrow.name`. Every assignment of `x` in the doc must give that
same class (a constructor call of it, or another such function); anything else leaves `x` untyped.
Not typed: `-> Optional[Arrow]`, a union, `Any`, a builtin, a class the repository does not define,
a function of another package, a name the examples type already.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from noface_ctx.freshness.references import DOTTED, IDENT, PROMPT, STRING, Reference

if TYPE_CHECKING:
    from noface_ctx.freshness.codebase import Codebase

_FENCE = re.compile(r"^\s*(```+|~~~+)\s*\{?(python|py|pycon|python3)\}?\s*$")
_RST_CODE = re.compile(r"^(\s*)\.\. (?:code-block|code|sourcecode|testcode|doctest)::\s*(python|py|pycon|python3)?\s*$")
_ASSIGN = re.compile(rf"^\s*({IDENT})\s*=\s*({DOTTED})\s*\(")
_ANY_ASSIGN = re.compile(rf"^\s*({IDENT})\s*(?::[^=\n]*)?=(?!=)")


def example_lines(text: str) -> list[tuple[int, str]]:
    """(line number, code) of the doc's Python example lines: doctest prompts anywhere, the
    bodies of Python fences and of reStructuredText Python code directives; strings blanked,
    comments dropped."""
    out: list[tuple[int, str]] = []
    fence, indent = "", -1
    for i, raw in enumerate(text.split("\n")):
        code = ""
        if fence:
            fence = "" if raw.strip().startswith(fence) else fence
            code = PROMPT.sub("", raw) if fence else ""
        elif (m := _FENCE.match(raw)) is not None:
            fence = m.group(1)
        elif indent >= 0 and (not raw.strip() or len(raw) - len(raw.lstrip()) > indent):
            code = PROMPT.sub("", raw) if raw.strip() and not raw.strip().startswith(":") else ""
        elif (m := _RST_CODE.match(raw)) is not None:
            indent = len(m.group(1))
            continue
        else:
            indent = -1
            code = PROMPT.sub("", raw) if PROMPT.match(raw) else ""
        if code.strip():
            out.append((i + 1, STRING.sub('""', code).split("#", 1)[0]))
    return out


@lru_cache(maxsize=256)
def _returns(text: str, name: str) -> str | None:
    """The one class name every module-level `def name` of `text` is annotated to return, "" when a
    definition's annotation is no plain class name, None when `text` defines no such function."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ""
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            ret = node.returns
            if isinstance(ret, ast.Constant) and isinstance(ret.value, str) and re.fullmatch(IDENT, ret.value):
                found.add(ret.value)
            elif isinstance(ret, ast.Name):
                found.add(ret.id)
            else:
                return ""
    if not found:
        return None
    cls = found.pop() if len(found) == 1 else ""
    return cls if cls[:1].isupper() and not cls.isupper() else ""


def returned_class(code: Codebase, callee: str) -> str:
    """The class `callee` (`pkg.func`, `pkg.mod.func`) returns by its annotation, "" when unknown."""
    module, _, func = callee.rpartition(".")
    if not module or not func[:1].islower() or not code.importable(module.split(".", 1)[0]):
        return ""
    parts = [*module.split("."), func]
    held, path = code.module_holder(parts)  # the module file itself, not a package above it
    path, seen = path if held == len(parts) - 1 else "", set()
    while path and path not in seen:  # `from .api import utcnow` in the package: api.py's
        seen.add(path)
        text = code.text(path)
        cls = _returns(text, func) if text is not None else ""
        if cls is not None:
            return cls if cls and code.defining_files(cls) else ""
        path = code.reexported_from(path, func)
    return ""


def factory_refs(text: str, code: Codebase, typed: set[str], lang: str = "python") -> list[Reference]:
    """`method` references of calls and attributes on example names a factory function types
    (see the module docstring); `typed`: the names the examples type already (left to them)."""
    lines = example_lines(text)
    made: dict[str, set[str]] = {}
    for _, line in lines:
        m = _ANY_ASSIGN.match(line)
        if m is None or m.group(1) in typed:
            continue
        call = _ASSIGN.match(line)
        callee = call.group(2) if call is not None else ""
        last = callee.rsplit(".", 1)[-1]
        cls = last if last[:1].isupper() and not last.isupper() else (returned_class(code, callee) if callee else "")
        made.setdefault(m.group(1), set()).add(cls)
    types = {var: next(iter(c)) for var, c in made.items() if len(c) == 1 and "" not in c}
    factory = {var for var, cls in types.items() if any(
        (call := _ASSIGN.match(line)) is not None and call.group(1) == var and not call.group(2).rsplit(".", 1)[-1][:1].isupper()
        for _, line in lines)}
    types = {var: cls for var, cls in types.items() if var in factory}  # a constructor alone: `example_types`'
    if not types:
        return []
    used = re.compile(rf"(?<![\w.])({'|'.join(map(re.escape, types))})\.({IDENT})\b(\s*\()?")
    out: list[Reference] = []
    for lineno, line in lines:
        for m in used.finditer(line):
            written = m.group(0).rstrip("( ") + ("()" if m.group(3) else "")
            out.append(Reference(written, f"{types[m.group(1)]}.{m.group(2)}", "method", lineno, True, lang))
    return out
