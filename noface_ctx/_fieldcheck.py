"""Whether a value read from a cache file fits a dataclass field's annotation, as written
(`noface_ctx._cachefile` refuses a file holding an object with a field that does not)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from noface_ctx._state import Memo, memo

_FIELD_TYPES: Memo[type, dict[str, str]] = memo("fieldcheck.field_types", maxsize=None)
_ALTS: Memo[str, list[str]] = memo("fieldcheck.type_alternatives", maxsize=None)
_SIMPLE: dict[str, Any] = {"str": str, "int": int, "float": (int, float), "bool": bool, "None": type(None)}
_EXACT: dict[str, Callable[[Any], bool]] = {  # what `fits` answers for these, for decoded JSON values
    "str": lambda v: type(v) is str,
    "int": lambda v: type(v) is int,
    "bool": lambda v: type(v) is bool,
    "str | None": lambda v: v is None or type(v) is str,
    "int | None": lambda v: v is None or type(v) is int,
}
_LITERALS = ("Verdict", "RefKind", "FileKind", "ExclusionCategory", "CandidateKind")  # string literal types

Classes = Mapping[str, tuple[Any, ...]]  # allow-listed class name → (the class, ...)


def field_types(cls: type) -> dict[str, str]:
    """A dataclass's field names and their annotations, as written."""
    got = _FIELD_TYPES.get(cls)
    if got is None:
        got = _FIELD_TYPES.put(cls, {f.name: str(f.type) for f in dataclasses.fields(cls)})
    return got


def checker(typ: str, classes: Classes) -> Callable[[Any], bool]:
    """`fits(value, typ, classes)` as a function of the value (a direct type test for the common types)."""
    return _EXACT.get(typ) or (lambda v: fits(v, typ, classes))


def fits(value: object, typ: str, classes: Classes) -> bool:
    """Whether `value` fits the annotation `typ`; `classes` names the classes it may be; a type
    this check does not know is not checked."""
    alts = _ALTS.get(typ)
    if alts is None:
        alts = _ALTS.put(typ, [a.strip() for a in typ.split("|")] if "[" not in typ else [typ.strip()])
    for a in alts:
        simple = _SIMPLE.get(a)
        if simple is not None:
            if isinstance(value, simple) and (a in ("bool", "None") or not isinstance(value, bool)):
                return True
            continue
        if a.startswith("tuple[") and a.endswith(", ...]"):
            inner = a[6:-6]
            if isinstance(value, tuple) and all(fits(x, inner, classes) for x in value):
                return True
            continue
        if a.startswith("tuple[") and a.endswith("]"):
            if isinstance(value, tuple):
                return True
            continue
        if a.startswith(("Mapping[", "dict[")):
            if isinstance(value, dict):
                return True
            continue
        if a in classes:
            if isinstance(value, classes[a][0]):
                return True
            continue
        if a in _LITERALS:
            if isinstance(value, str):
                return True
            continue
        return True  # a type this check does not know: accept
    return False
