"""The `__init__` a class decorator or base writes from a class's annotated fields.

A class without `__init__` that is a dataclass (`@dataclass`, `@dataclasses.dataclass(...)`),
an attrs class (`@define`, `@frozen`, `@mutable`, `@attr.s`/`@attrs.define`/...) or a
`NamedTuple`/`TypedDict` has a constructor all the same: its fields in order, `ClassVar`s and
`init=False` fields out, the ones after a `KW_ONLY` sentinel or under `kw_only=True` keyword-only,
a default from `= value` or `field(default=...)`. `generated_init(text, start, end)` writes it as
a header (`def __init__(self, a, *, b=None):`) for `noface_ctx.freshness.definitions.definition`
to compare as any `__init__`'s: a hand-written keyword-only `__init__` replaced by
`@dataclass(kw_only=True)` with the same fields is no change for a caller.

A pydantic model (a class deriving `BaseModel` imported from pydantic) has one too: its annotated
fields, keyword-only (`Model(**data)`), private `_x` attributes and `ClassVar`s out, a default
from `= value` or `Field(default)`/`Field(default=...)`/`default_factory=`, an `alias=` as the
keyword. Fields of bases come first, in reverse method resolution order (the last base's first,
each base's own bases before it), as dataclasses and pydantic order them; a field written again
keeps its first place. A base is read only when it is a class of the same file (a dataclass's
dataclass base, an attrs class's attrs base, a model's model base; a dataclass's plain base
without bases of its own adds nothing): a base imported from another module or from outside the
repository leaves the constructor unknown (None), as does a model's own `__init__`, a dataclass
deriving a model, or a class with no generator at all. Another file's base is not followed:
`definition` answers for one text, and `history` keeps its answers by blob.
"""

from __future__ import annotations

import re

from noface_ctx.freshness import decorator_lines

_DATACLASS = re.compile(r"@(?:dataclasses\.)?dataclass\b")
_ATTRS = re.compile(r"@(?:(?:attr|attrs)\.(?:s|attrs|define|frozen|mutable)|define|frozen|mutable)\b")
_ATTRS_IMPORTED = re.compile(r"^\s*(?:import\s+attrs?\b|from\s+attrs?\s+import\b)", re.M)
_SPECIAL_BASES = {"NamedTuple", "TypedDict"}
_PLAIN_BASES = {"", "object", "Generic", "Protocol"}  # bases that add no field
_FIELD = re.compile(r"([A-Za-z_]\w*)\s*(?::(?!=)\s*(.*?))?\s*(?:=(?!=)\s*(.*))?$", re.S)
_FIELD_CALL = re.compile(r"^(?:dataclasses\.|attr\.|attrs\.)?(?:field|ib|attrib)\s*\(")


def generated_init(text: str, start: int, end: int) -> str | None:
    """The header of the `__init__` generated for the class whose block is `text[start:end]`
    (its decorators are the lines right above `start`), or None when nothing generates one or
    its fields cannot all be read here."""
    got = _class_fields(text, start, end, 0)
    if got is None or not got[1]:
        return None
    fields = got[1]
    positional = [f"{n}={d}" if d else n for n, d, kw in fields.values() if not kw]
    keyword = [f"{n}={d}" if d else n for n, d, kw in fields.values() if kw]
    params = ["self", *positional] + (["*", *keyword] if keyword else [])
    return f"def __init__({', '.join(params)}):"


Field = tuple[str, str, bool]  # (the constructor's keyword, its default as written, keyword-only)


def _class_fields(text: str, start: int, end: int, depth: int) -> tuple[str, dict[str, Field]] | None:
    """(the generator's kind, the fields by attribute name in the constructor's order: the bases'
    first, in reverse method resolution order, then the class's own) of the class whose block is
    `text[start:end]`; None when no generator writes its constructor or a base is not read here."""
    head = text[start:end]
    m = re.match(r"\s*class\s+\w+\s*(?:\[[^\]]*\]\s*)?(?:\((.*?)\))?\s*:", head, re.S)
    if m is None or depth > 6:
        return None
    written = [b for b in _top_split(m.group(1) or "") if "=" not in b]
    bases = [b.split("[", 1)[0].replace(" ", "") for b in written]
    keywords = [b for b in _top_split(m.group(1) or "") if "=" in b]
    special = _SPECIAL_BASES & {b.rsplit(".", 1)[-1] for b in bases}
    own = [b for b in bases if b.rsplit(".", 1)[-1] not in _PLAIN_BASES | special]
    decorators = decorator_lines.decorators(text, start)
    deco = next((d for d in decorators if _DATACLASS.match(d) or (_ATTRS.match(d) and (
        "." in d.split("(", 1)[0] or _ATTRS_IMPORTED.search(text)))), None)
    if special:
        kind, all_kw = ("tuple" if "NamedTuple" in special else "dict"), "TypedDict" in special
        if own:
            return None
        inherited: dict[str, Field] = {}
    elif deco is not None:
        if _keyword(deco, "init") == "False":
            return None
        kind = "dataclass" if _DATACLASS.match(deco) else "attrs"
        if re.match(r"@(?:attr|attrs)\.(?:s|attrs)\b", deco) and _keyword(deco, "auto_attribs") != "True":
            kind = "attr.s"
        all_kw = _keyword(deco, "kw_only") == "True"
        got = _inherited(text, own, {"dataclass"} if kind == "dataclass" else {"attrs", "attr.s"}, depth, False)
        if got is None:
            return None
        inherited = got
    elif "BaseModel" not in text:  # no model of this file: nothing generates the constructor
        return None
    else:  # a pydantic model: `BaseModel` from pydantic, or a base of this file that is one; keyword-only fields
        kind, all_kw = "pydantic", True
        models = [b for b in own if _pydantic(text, b)]
        got = _inherited(text, [b for b in own if b not in models], {"pydantic"}, depth, True)
        if got is None or (not models and not got):
            return None
        inherited = got
    if kind == "pydantic" and re.search(r"^\s+(?:async\s+)?def\s+__init__\b", head, re.M):
        return None  # a model's own `__init__` (`definition` reads it for the class itself): not generated
    total = not (kind == "dict" and any(k.replace(" ", "") == "total=False" for k in keywords))
    fields = dict(inherited)
    fields.update(_own_fields(head[m.end():], kind, all_kw, total))  # a field written again keeps its place
    return kind, fields


def _inherited(text: str, bases: list[str], kinds: set[str], depth: int, models: bool) -> dict[str, Field] | None:
    """The fields a class's `bases` (besides plain and generating ones) give it, the last base's
    first (a simple reverse method resolution order: each base's own bases before it); None when
    one is not a class of this file, or is one whose constructor another generator writes (an attrs
    base under a dataclass). `models`: every base must be a model too (a pydantic model's plain base
    is not read)."""
    out: dict[str, Field] = {}
    for base in reversed(bases):
        if "." in base:  # `models.Base`: another module's class
            return None
        block = _class_block(text, base)
        if block is None:
            return None
        got = _class_fields(text, *block, depth + 1)
        if got is None:
            if models or re.search(r"\(\s*[^)\s]", text[block[0]:text.find(":", block[0])] or ""):
                return None  # a plain base of its own with bases: not read
            continue  # a plain class of this file: no fields for a dataclass
        if got[0] not in kinds:
            return None
        out.update(got[1])  # a field written again keeps its first place (as dataclasses order them)
    return out


def _pydantic(text: str, base: str) -> bool:
    """Whether a base is pydantic's `BaseModel` (`pydantic.BaseModel`, or imported from pydantic)."""
    if base == "pydantic.BaseModel":
        return True
    return base == "BaseModel" and _PYDANTIC_IMPORT.search(text) is not None


_PYDANTIC_IMPORT = re.compile(r"^\s*from\s+pydantic(?:\.v1)?\s+import\s+(?:\([^)]*|[^\n]*)\bBaseModel\b", re.M)


def _class_block(text: str, name: str) -> tuple[int, int] | None:
    """The block of the one top-level class `name` of `text` (start, end), or None."""
    found = list(re.finditer(rf"^class\s+{re.escape(name)}\b", text, re.M))
    if len(found) != 1:
        return None
    begin = found[0].start()
    ender = re.compile(r"\n(?<!\\\n)(?=[^\s)\]}])")
    stop = ender.search(text, found[0].end())
    return begin, stop.start() if stop is not None else len(text)


def _own_fields(body: str, kind: str, all_kw: bool, total: bool) -> dict[str, Field]:
    """The fields a class body writes itself, by attribute name."""
    out: dict[str, Field] = {}
    after_sentinel = False
    for stmt in _body_statements(body):
        f = _FIELD.match(stmt)
        if f is None:
            continue
        name, annotation, value = f.group(1), (f.group(2) or "").strip(), (f.group(3) or "").strip()
        if not annotation and not (kind in ("attrs", "attr.s") and _FIELD_CALL.match(value)):
            continue  # a plain class attribute, no field
        if kind == "attr.s" and not _FIELD_CALL.match(value):
            continue
        if re.match(r"(?:\w+\.)*ClassVar\b", annotation) or (kind == "pydantic" and name.startswith("_")):
            continue  # a model's private attribute is no field
        if kind == "dataclass" and re.fullmatch(r"(?:dataclasses\.)?KW_ONLY", annotation):
            after_sentinel = True
            continue
        default, kw_only, key = value, False, name
        if _FIELD_CALL.match(value) or (kind == "pydantic" and _MODEL_FIELD.match(value)):
            if _keyword(value, "init") == "False":
                continue
            kw_only = _keyword(value, "kw_only") == "True"
            default = _keyword(value, "default") or (_first_argument(value) if kind == "pydantic" else "") or ""
            default = "" if default in ("...", "Ellipsis") else default
            factory = _keyword(value, "default_factory") or _keyword(value, "factory")
            if factory:
                default = f"{factory}()"
            if kind == "pydantic":
                key = (_keyword(value, "alias") or name).strip("'\"")
        elif value.startswith(("Factory(", "attr.Factory(", "attrs.Factory(")):
            default = value.split("(", 1)[1].rsplit(")", 1)[0].split(",", 1)[0].strip() + "()"
        if kind == "dict":
            default = "..." if not total or annotation.startswith("NotRequired[") else ""
        if kind in ("attrs", "attr.s"):
            key = _keyword(value, "alias") or name.lstrip("_") if _FIELD_CALL.match(value) else name.lstrip("_")
            key = key.strip("'\"")
        out[name] = (key, default, all_kw or kw_only or after_sentinel)
    return out


_MODEL_FIELD = re.compile(r"^(?:pydantic\.)?Field\s*\(")


def _first_argument(call: str) -> str:
    """A call's first positional argument as written (`Field(3, ge=0)`: `3`), or ""."""
    inner = call[call.find("(") + 1:call.rfind(")")]
    first = next(iter(_top_split(inner)), "")
    return "" if re.match(r"^\w+\s*=(?!=)", first) else first


def _keyword(call: str, name: str) -> str | None:
    """The value a call's top-level keyword argument `name` is given (`kw_only=True`), as written."""
    open_at = call.find("(")
    if open_at < 0:
        return None
    inner = call[open_at + 1:call.rfind(")")] if ")" in call else call[open_at + 1:]
    for part in _top_split(inner):
        key, eq, value = part.partition("=")
        if eq and key.strip() == name and not value.startswith("="):
            return " ".join(value.split())
    return None


def _top_split(text: str) -> list[str]:
    """`text` split at its top-level commas (brackets and strings kept whole)."""
    parts, depth, cur, quote = [], 0, "", ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _body_statements(body: str) -> list[str]:
    """The statements written right in a class body (its first line's indentation), each joined
    over the lines its brackets span; nested blocks (methods, inner classes) are skipped."""
    out: list[str] = []
    indent = -1
    cur = ""
    depth = 0
    for line in body.split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if depth > 0:
            cur += " " + stripped
        else:
            width = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())
            if indent < 0:
                indent = width
            if width != indent:
                continue
            cur = stripped
        depth += sum(cur.count(c) for c in "([{") - sum(cur.count(c) for c in ")]}") if depth == 0 else \
            sum(stripped.count(c) for c in "([{") - sum(stripped.count(c) for c in ")]}")
        if depth <= 0:
            depth = 0
            if not cur.startswith(("def ", "async ", "class ", "@", "if ", "for ", "while ", "try", "with ", "\"", "'")):
                out.append(re.sub(r"\s+#.*$", "", cur))
    return out
