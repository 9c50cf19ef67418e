"""The `__init__` a class decorator or base writes from a class's annotated fields.

A class without `__init__` that is a dataclass (`@dataclass`, `@dataclasses.dataclass(...)`),
an attrs class (`@define`, `@frozen`, `@mutable`, `@attr.s`/`@attrs.define`/...) or a
`NamedTuple`/`TypedDict` has a constructor all the same: its fields in order, `ClassVar`s and
`init=False` fields out, the ones after a `KW_ONLY` sentinel or under `kw_only=True` keyword-only,
a default from `= value` or `field(default=...)`. `generated_init(text, start, end)` writes it as
a header (`def __init__(self, a, *, b=None):`) for `noface_ctx.freshness.definitions.definition`
to compare as any `__init__`'s: a hand-written keyword-only `__init__` replaced by
`@dataclass(kw_only=True)` with the same fields is no change for a caller. A class whose bases
may hold fields of their own (another dataclass) gets none: its constructor is not all written here.
"""

from __future__ import annotations

import re

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
    header_end = text.find(":", start, end)
    head = text[start:end]
    m = re.match(r"\s*class\s+\w+\s*(?:\[[^\]]*\]\s*)?(?:\((.*?)\))?\s*:", head, re.S)
    if m is None or header_end < 0:
        return None
    bases = [b.strip().split("[", 1)[0].rsplit(".", 1)[-1] for b in _top_split(m.group(1) or "")]
    keywords = [b for b in _top_split(m.group(1) or "") if "=" in b]
    bases = [b for b in bases if "=" not in b]
    special = _SPECIAL_BASES & set(bases)
    decorators = _decorators(text, start)
    kind = "tuple" if "NamedTuple" in special else "dict" if "TypedDict" in special else ""
    if not kind:
        if not set(bases) <= _PLAIN_BASES:
            return None
        deco = next((d for d in decorators if _DATACLASS.match(d) or (_ATTRS.match(d) and (
            "." in d.split("(", 1)[0] or _ATTRS_IMPORTED.search(text)))), None)
        if deco is None or _keyword(deco, "init") == "False":
            return None
        kind = "dataclass" if _DATACLASS.match(deco) else "attrs"
        if re.match(r"@(?:attr|attrs)\.(?:s|attrs)\b", deco) and _keyword(deco, "auto_attribs") != "True":
            kind = "attr.s"
        all_kw = _keyword(deco, "kw_only") == "True"
    elif not set(bases) - special <= _PLAIN_BASES:
        return None
    else:
        all_kw = kind == "dict"
    total = not (kind == "dict" and any(k.replace(" ", "") == "total=False" for k in keywords))
    positional: list[str] = []
    keyword: list[str] = []
    after_sentinel = False
    for stmt in _body_statements(head[m.end():]):
        f = _FIELD.match(stmt)
        if f is None:
            continue
        name, annotation, value = f.group(1), (f.group(2) or "").strip(), (f.group(3) or "").strip()
        if not annotation and not (kind in ("attrs", "attr.s") and _FIELD_CALL.match(value)):
            continue  # a plain class attribute, no field
        if kind == "attr.s" and not _FIELD_CALL.match(value):
            continue
        if re.match(r"(?:\w+\.)*ClassVar\b", annotation):
            continue
        if kind == "dataclass" and re.fullmatch(r"(?:dataclasses\.)?KW_ONLY", annotation):
            after_sentinel = True
            continue
        default, kw_only = value, False
        if _FIELD_CALL.match(value):
            if _keyword(value, "init") == "False":
                continue
            kw_only = _keyword(value, "kw_only") == "True"
            default = _keyword(value, "default") or ""
            factory = _keyword(value, "default_factory") or _keyword(value, "factory")
            if factory:
                default = f"{factory}()"
        elif value.startswith(("Factory(", "attr.Factory(", "attrs.Factory(")):
            default = value.split("(", 1)[1].rsplit(")", 1)[0].split(",", 1)[0].strip() + "()"
        if kind == "dict":
            default = "..." if not total or annotation.startswith("NotRequired[") else ""
        if kind in ("attrs", "attr.s"):
            name = _keyword(value, "alias") or name.lstrip("_") if _FIELD_CALL.match(value) else name.lstrip("_")
            name = name.strip("'\"")
        param = f"{name}={default}" if default else name
        (keyword if all_kw or kw_only or after_sentinel else positional).append(param)
    if not positional and not keyword:
        return None
    params = ["self", *positional] + (["*", *keyword] if keyword else [])
    return f"def __init__({', '.join(params)}):"


def _decorators(text: str, start: int) -> list[str]:
    """The decorator lines right above the line at `start` (each `@...` with its continuation)."""
    out: list[str] = []
    lines = text[:start].rstrip("\n").split("\n")[-12:]
    chunk: list[str] = []
    for line in reversed(lines):
        chunk.insert(0, line.strip())
        if line.strip().startswith("@"):
            out.append(" ".join(chunk))
            chunk = []
        elif not line.strip() or not re.search(r"[(,)\]]\s*$", line):
            break
    return out


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
