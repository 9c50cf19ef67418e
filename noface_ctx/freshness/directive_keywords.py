"""A parameter a Sphinx directive's written signature names (`.. method:: URL.build(*, scheme, \\`
`query_string, strict=False)`, `.. autofunction:: sample(iterable, k=1)`) that the documented
callable does not take now is stale whatever the doc's date: a reader passing it gets a TypeError.
The callable is the one the directive's target resolves to (through re-exports; a method through the
class hierarchy: the file of the class defining it, `owner_class`); what it takes is its contract
(`keyword_contract.accepted`: its overloads', none when it takes `**kwargs`, a decorator may change it,
or the name is bound twice). A stub (`.pyi`) beside its module: the module's. Blame as
`keyword_contract` blames: the commit that took the parameter out after the line naming it was written,
else that line's commit.

What a written signature names (`written_parameters`): Sphinx's optional brackets (`f(a[, b])`,
`minmax(iterable, *[, key, default])`) read as commas; only a parameter written with a default or
keyword-only (after `*` or `*args`) is one a caller passes by name: a positional one (`File(file_object)`,
`__contains__(key)`) is passed by place, whatever the doc calls it; nor does a parameter before a `/`, nor a
signature that does not read as Python parameters (a C declaration, prose), name anything. Each signature line a
directive writes is read (`.. method:: URL.with_query(query)` then `URL.with_query(*, strict=False)` below it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from noface_ctx.freshness.directive_lines import continued
from noface_ctx.freshness.held_defaults import split_parameters
from noface_ctx.freshness.history import Commit
from noface_ctx.freshness.keyword_contract import Candidate, accepted, owner_class
from noface_ctx.freshness.scan import DocScan

_DIRECTIVE_LINE = re.compile(r"^\s*\.\.\s+(?:py:)?(?:auto)?(?:function|method|classmethod|staticmethod|class|"
                             r"exception|decorator|decoratormethod)::\s")
_PARAM = re.compile(r"([A-Za-z_]\w*)\s*(?::[^=]+)?(?:=.*)?", re.S)


def written_parameters(signature: str) -> list[str]:
    """The parameter names a directive's written signature states a caller passes by name: each
    written with a default (`strict=False`) or keyword-only (after `*` or `*args`); a positional one
    (`open(path)`) is passed by place, whatever the doc calls it."""
    open_at = signature.find("(")
    close_at = signature.rfind(")")
    if open_at < 0 or close_at < open_at:
        return []
    parts = split_parameters(_optional_unbracketed(signature[open_at + 1:close_at]))
    names: list[str] = []
    keyword = False  # after `*` or `*args`: keyword-only
    for i, part in enumerate(p.strip() for p in parts):
        if part == "/":
            names = []  # positional-only: its name is no caller's concern
        elif part in ("*", "", "...") or part.startswith("*"):
            keyword = keyword or not part.startswith("**")
        elif (m := _PARAM.fullmatch(part)) is None:
            return []  # not Python parameters
        elif not (i == 0 and m.group(1) in ("self", "cls")) and (keyword or "=" in part):
            names.append(m.group(1))
    return names


def _optional_unbracketed(inner: str) -> str:
    """Sphinx's optional parameters written bare: `a[, b[, c]]` → `a, b, c` (a default's own
    brackets, `x=[1, 2]`, kept)."""
    inner = re.sub(r"\[\s*,", ",", inner)
    kept, depth = [], 0
    for ch in inner:
        if ch == "[":
            depth += 1
        elif ch == "]":
            if depth == 0:
                continue  # an optional bracket's close
            depth -= 1
        kept.append(ch)
    return "".join(kept)


def _contract(text: str, name: str) -> frozenset[str] | None:
    """What the callable `name` (`pkg.Class.meth`, `pkg.func`) written in `text` takes now."""
    parts = name.removesuffix("()").split(".")
    last = parts[-1]
    if len(parts) > 1 and parts[-2][:1].isupper():  # a method: its class's own, else the class in the file defining it
        took = accepted(text, f"{parts[-2]}.{last}")
        owner = owner_class(text, last) if took is None else ""
        return accepted(text, f"{owner}.{last}") if owner else took
    return accepted(text, last)


def candidates(plans: Sequence[tuple[DocScan, Commit]], read: Callable[[str], str | None],
               paths: frozenset[str] | set[str]) -> list[Candidate]:
    """The parameters the docs' API directives write that the callable they document does not take
    (`read`: a file now; `paths`: the repository's files, for a stub's module)."""
    out: list[Candidate] = []
    for s, since in plans:
        lines = s.doc.text.split("\n")
        seen: set[tuple[int, str]] = set()
        for ref, files in s.symbols:
            if not (ref.documented and "(" in ref.ref and 0 < ref.line <= len(lines)
                    and _DIRECTIVE_LINE.match(lines[ref.line - 1])):
                continue
            homes = {f[:-1] if f.endswith(".pyi") and f[:-1] in paths else f for f in files}  # a stub: its module's
            home = homes.pop() if len(homes) == 1 else ""
            text = read(home) if home else None
            took = _contract(text, ref.name) if text is not None else None
            if took is None:
                continue
            for at_line, signature in [(ref.line, ref.ref)] + [(j + 1, t) for j, t in continued(lines, ref.line - 1)]:
                for param in written_parameters(signature):  # each signature the directive writes
                    if param not in took and (ref.line, param) not in seen:
                        seen.add((ref.line, param))
                        at = re.compile(rf"(?<![\w.]){re.escape(param)}\b")
                        line = next((j for j in range(at_line, min(at_line + 10, len(lines) + 1))
                                     if at.search(lines[j - 1])), at_line)  # where it is written (a `\` continuation)
                        out.append((s, since, ref.name.removesuffix("()"), line, param, home, _callable(text or "", ref.name)))
    return out


def _callable(text: str, name: str) -> str:
    """`name` as `accepted` reads it in `text` (for blame: its versions are read the same way)."""
    parts = name.removesuffix("()").split(".")
    if len(parts) > 1 and parts[-2][:1].isupper():
        if accepted(text, f"{parts[-2]}.{parts[-1]}") is not None:
            return f"{parts[-2]}.{parts[-1]}"
        owner = owner_class(text, parts[-1])
        return f"{owner}.{parts[-1]}" if owner else parts[-1]
    return parts[-1]
