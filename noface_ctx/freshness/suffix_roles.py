"""A role written with a leading dot and a dotted target (`:func:`.autogenerate.compare_metadata``):
Sphinx searches the full names that END with the whole target (`.autogenerate.compare_metadata`),
not any definition of its last name. `mark` keeps the dot on the reference as written; `resolve`
reads it among the modules whose dotted path ends with the target's module part (`.../autogenerate.py`,
`.../autogenerate/__init__.py`), by what they define or re-export now: found when one does, missing (in
those modules) when none does. A target whose module part is no such module (`.Class.method`, `.f`) is
left to the usual reading."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Protocol, TypeVar

from noface_ctx.freshness.code_words import PYTHON_EXTS
from noface_ctx.freshness.references import Reference

T = TypeVar("T")


class _Code(Protocol):
    """What `resolve` reads of a `Codebase` (which calls it: no import of it here)."""

    paths: set[str]

    def module_defines(self, path: str, name: str, depth: int = 0, *, top: bool = True) -> bool: ...


def mark(ref: Reference, written: str) -> Reference:
    """The role's reference, its written leading dot kept on `ref` when its target is dotted."""
    target = written.lstrip(".")
    return replace(ref, ref="." + ref.ref) if written[:1] == "." and "." in target and ref.kind == "method" else ref


def holders(paths: set[str], module_parts: list[str]) -> list[str]:
    """The Python module files whose dotted path is, or ends with, `module_parts`."""
    tail = "/".join(module_parts)
    out = []
    for p in paths:
        stem, dot, ext = p.rpartition(".")
        if not dot or ext not in PYTHON_EXTS:
            continue
        stem = stem.removesuffix("/__init__") if stem.endswith("/__init__") else stem
        if stem == tail or stem.endswith("/" + tail):
            out.append(p)
    return sorted(out)


def resolve(code: _Code, ref: Reference, made: Callable[..., T]) -> T | None:
    """A leading-dot dotted role's resolution by suffix (module docstring), made by `made` (`Resolution`),
    or None: read as usual."""
    parts = ref.name.split(".")
    if not ref.ref.startswith(".") or len(parts) < 2 or not parts[0][:1].islower():
        return None
    files = holders(code.paths, parts[:-1])
    if not files:
        return None
    for path in files:
        if code.module_defines(path, parts[-1]):
            return made("found", ref.name, path=path)
    return made("missing", lookup=parts[-1], scope=tuple(files))
